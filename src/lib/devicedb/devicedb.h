/* SPDX-License-Identifier: MIT */
/*
 * The device database: facts from vendors' datasheets about accelerator SKUs, keyed by
 * PCI ids. The text source is data/devices.db; tools/devicedb_gen.c compiles it at build
 * time into a generated C file holding the tables below, so a lookup costs a binary
 * search and nothing is parsed at run time.
 */
#ifndef AXL_DEVICEDB_H
#define AXL_DEVICEDB_H

#include <stddef.h>
#include <stdint.h>

#include "axl/context.h"
#include "axl/device.h"

/*
 * The tables hold no pointer, so that loading libaxl (or starting a program linked with
 * it) relocates nothing in them: they stay in read-only pages that every process shares
 * and that are read from the page cache only where a lookup touches them. A string is an
 * offset into the one pool axl__db_str (0: none); a list is the index of its first row
 * in one table of its kind and a count. Read them through the accessors below.
 */
extern const char axl__db_str[];
extern const size_t axl__db_str_size;

struct axl__db_cu {
	uint32_t s_name; /* "SM", "CU", "XCC", "EU", "Xe-core", "TPC", ... */
	uint32_t count;
};

struct axl__db_prec {
	uint8_t format;  /* axl_format */
	uint8_t support; /* axl_support */
	double tflops;   /* dense peak (TFLOPS, or TOPS for integer formats); < 0 unknown */
};

struct axl__db_part {
	uint32_t s_technology;  /* "MIG", "SR-IOV", "AMD-CPX", "AMD-NPS", ... */
	int32_t max_partitions; /* < 0 unknown */
	uint16_t i_profiles;    /* first row in axl__db_str_tab */
	uint8_t n_profiles;
};

struct axl__db_entry {
	uint32_t s_key;          /* stable key of the entry, e.g. "nvidia-h100-sxm5-80gb" */
	uint32_t s_name;         /* marketing name */
	uint32_t s_vendor;       /* display name of the vendor: "NVIDIA", "AMD", ... */
	uint32_t s_architecture; /* "Hopper", "CDNA3", ... ; 0 unknown */
	uint8_t family;          /* axl_family */
	uint64_t memory_bytes;   /* 0 unknown */
	uint32_t s_memory_type;  /* "HBM3", "GDDR6X", ... ; 0 unknown */
	uint32_t bus_width_bits; /* 0 unknown */
	double bandwidth_gbps;   /* GB/s (10^9 B/s); < 0 unknown */
	uint64_t l2_bytes;       /* 0 unknown */
	/* per compute unit (SM, CU, Xe-core): L1 data cache (on NVIDIA the combined L1 and
	 * shared memory array) and the most programmable shared memory (LDS, SLM) one unit
	 * can be given; 0 unknown */
	uint64_t l1_bytes_per_unit;
	uint64_t shared_bytes_per_unit;
	uint32_t memory_channels; /* memory channels (controllers) as the vendor counts them; 0 unknown */
	uint32_t memory_stacks;   /* HBM stacks of this PCI device; 0 unknown */
	double tdp_watts;         /* < 0 unknown */
	uint16_t i_cus;           /* first row in axl__db_cu_tab */
	uint8_t n_cus;
	uint16_t i_prec; /* first row in axl__db_prec_tab */
	uint8_t n_prec;
	uint16_t i_parts; /* first row in axl__db_part_tab */
	uint8_t n_parts;
	uint16_t i_sources; /* first row in axl__db_str_tab: datasheet URLs or document names; at least one */
	uint8_t n_sources;
	/* the scale-up fabric of a module that attaches to a switch baseboard (the file's
	 * "nvlink" key): generation, links of one device and GB/s per link and direction;
	 * 0 (rate < 0) when not described */
	uint8_t fabric_version;
	uint8_t fabric_links;
	double fabric_link_gbps;
	/* a TPU's inter-chip interconnect (the file's "ici" key): topology ("2d-torus",
	 * "3d-torus", "3d-mesh"; 0 when not described), ports of one chip (0 unknown), GB/s
	 * of one chip and direction over all its ports (< 0 unknown) */
	uint32_t s_ici_topology;
	uint8_t ici_ports;
	double ici_gbps;
	/* RDMA over Converged Ethernet ports integrated in the chip (the file's "roce" key):
	 * ports of one chip, how many join it to each other chip of the vendor's 8-module
	 * baseboard (0: not described), GB/s per port and direction (< 0 unknown) */
	uint8_t roce_ports;
	uint8_t roce_peer_ports;
	double roce_gbps;
};

extern const struct axl__db_cu axl__db_cu_tab[];
extern const struct axl__db_prec axl__db_prec_tab[];
extern const struct axl__db_part axl__db_part_tab[];
extern const uint32_t axl__db_str_tab[]; /* string offsets: parts' profiles, sources */
/* rows in each table (at least 1: an empty table holds one zero row) */
extern const size_t axl__db_cu_count, axl__db_prec_count, axl__db_part_count, axl__db_str_tab_count;

/* The string at this pool offset; NULL for 0. */
static inline const char *axl__db_s(uint32_t off)
{
	return off ? axl__db_str + off : NULL;
}
static inline const char *axl__db_key(const struct axl__db_entry *e) { return axl__db_s(e->s_key); }
static inline const char *axl__db_name(const struct axl__db_entry *e) { return axl__db_s(e->s_name); }
static inline const char *axl__db_vendor(const struct axl__db_entry *e) { return axl__db_s(e->s_vendor); }
static inline const char *axl__db_arch(const struct axl__db_entry *e) { return axl__db_s(e->s_architecture); }
static inline const char *axl__db_memory_type(const struct axl__db_entry *e) { return axl__db_s(e->s_memory_type); }
static inline const char *axl__db_ici_topology(const struct axl__db_entry *e) { return axl__db_s(e->s_ici_topology); }
/* An entry's lists: the first row (n_cus, n_prec, n_parts rows follow) */
static inline const struct axl__db_cu *axl__db_cus(const struct axl__db_entry *e) { return axl__db_cu_tab + e->i_cus; }
static inline const struct axl__db_prec *axl__db_precs(const struct axl__db_entry *e)
{
	return axl__db_prec_tab + e->i_prec;
}
static inline const struct axl__db_part *axl__db_parts(const struct axl__db_entry *e)
{
	return axl__db_part_tab + e->i_parts;
}
/* An entry's source i < n_sources; a partitioning's profile k < n_profiles */
static inline const char *axl__db_source(const struct axl__db_entry *e, size_t i)
{
	return axl__db_s(axl__db_str_tab[e->i_sources + i]);
}
static inline const char *axl__db_profile(const struct axl__db_part *p, size_t k)
{
	return axl__db_s(axl__db_str_tab[p->i_profiles + k]);
}

/* One way to recognise an entry. Rows are sorted by (vendor, device, has_sub desc,
 * subvendor, subdevice, has_rev desc, revision) so the most specific match comes first. */
struct axl__db_match {
	uint16_t vendor, device;
	uint16_t subvendor, subdevice; /* meaningful when has_sub */
	uint8_t has_sub;
	uint8_t revision; /* meaningful when has_rev */
	uint8_t has_rev;
	uint16_t entry; /* index into axl__db_entries */
};

extern const struct axl__db_entry axl__db_entries[];
extern const size_t axl__db_entry_count;
extern const struct axl__db_match axl__db_matches[];
extern const size_t axl__db_match_count;

/*
 * The best entry for these ids: an exact subsystem (and revision) match first, then
 * a match on vendor:device with the revision, then on vendor:device alone. sub ids
 * and revision < 0 mean "not known" (such rows only match generic entries).
 * NULL when the database does not know the device.
 */
const struct axl__db_entry *axl__db_lookup(int vendor, int device, int subvendor, int subdevice,
					   int revision);

/* The entry with this key, or NULL. */
const struct axl__db_entry *axl__db_find_key(const char *key);

/* The entry whose marketing name equals this (case-insensitive), or NULL. */
const struct axl__db_entry *axl__db_find_name(const char *name);

/* Fill what the database (and pci.ids) knows about a device and the backends did not
 * (devicedb_apply.c). */
struct axl__scan;
struct axl_device;
void axl__devicedb_apply(struct axl__scan *scan, struct axl_device *dev);

/* ---- pci.ids (pciids.c, or pciids_none.c when built without it) ----------------- */
/* pci.ids name of a device (vendor and device name joined); NULL when unknown. The
 * string is written into buf. Thread-safe. */
const char *axl__pciids_device(axl_context *ctx, int vendor, int device, int subvendor,
			       int subdevice, char *buf, size_t cap);
const char *axl__pciids_vendor(axl_context *ctx, int vendor, char *buf, size_t cap);
void axl__pciids_free(axl_context *ctx);

#endif /* AXL_DEVICEDB_H */
