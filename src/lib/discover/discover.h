/* SPDX-License-Identifier: MIT */
/* The stages of discovery (src/lib/discover): what inventory.c runs, in order, and the PCI
 * tree the stages share. Nothing outside discover/ includes this. */
#ifndef AXL_LIB_DISCOVER_H
#define AXL_LIB_DISCOVER_H

#include "backend.h"

/* Stages of discovery */
int axl__host_scan(struct axl__scan *scan);
int axl__pci_scan(struct axl__scan *scan);
void axl__devnodes_scan(struct axl__scan *scan, struct axl_device *dev);
/* The host's system, runtime and memory bandwidth (runtime_env.c, after the host):
 * SMBIOS identity, container, orchestrator, cloud, and the memory device table. */
void axl__runtime_scan(struct axl__scan *scan);

/* One way a cloud shows in /sys/class/dmi/id (clouds.c): file `field` holds `value`
 * (exactly, as a prefix or as a suffix, case-insensitive); product_is_type: the
 * product name is the instance type. */
enum axl__cloud_match { AXL__CLOUD_EXACT, AXL__CLOUD_PREFIX, AXL__CLOUD_SUFFIX };
struct axl__cloud_rule {
	const char *provider;
	const char *field;
	const char *value;
	enum axl__cloud_match match;
	bool product_is_type;
};
extern const struct axl__cloud_rule axl__cloud_rules[];
extern const size_t axl__cloud_rule_count;
void axl__links_derive(struct axl__scan *scan);
/* Fabric switches among the PCI functions (the backends' fabric_switch) and RDMA NICs
 * from /sys/class/infiniband (fabric.c); after the ids: every accelerator's path to every
 * NIC and its nearest NIC. */
void axl__fabric_scan(struct axl__scan *scan);
void axl__nics_link(struct axl__scan *scan);

/* ---- the PCI tree (pcitree.c) ----------------------------------------------------- */
#define AXL__CHAIN_MAX 32
/* Where a function sits: its root ("pci0000:15") and the path below it, the bridges from
 * the root port down and the function itself last (pointers into the devpath string). */
struct axl__chain {
	char root[32];
	const char *hops[AXL__CHAIN_MAX];
	size_t lens[AXL__CHAIN_MAX];
	int n;
};
/* Split "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0"; false when it is not one. */
bool axl__chain_split(const char *devpath, struct axl__chain *c);
/* Paths between two functions, best first. */
enum axl__path {
	AXL__PATH_NONE = 0,    /* not known */
	AXL__PATH_SWITCH,      /* a PCIe switch above both */
	AXL__PATH_HOST_BRIDGE, /* the same root complex */
	AXL__PATH_NUMA,        /* different root complexes, one NUMA node */
	AXL__PATH_SYSTEM       /* across NUMA nodes (or root complexes with no NUMA facts) */
};
/* The best path between two functions. A chain is NULL when its function is not on the
 * tree, a NUMA node < 0 when not known. *switches: the PCIe switches on the path through
 * the tree, -1 when it does not tell. */
enum axl__path axl__pci_path(const struct axl__chain *a, const struct axl__chain *b, int numa_a,
			     int numa_b, int *switches);
/* "pcie-switch", "host-bridge", "numa", "system"; NULL for AXL__PATH_NONE. */
const char *axl__path_kind(enum axl__path p);
/* Turn the target of the sysfs link that lives in linkdir into an absolute path. */
void axl__resolve_link(const char *linkdir, const char *target, char *out, size_t cap);

#endif
