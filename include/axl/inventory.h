/* SPDX-License-Identifier: MIT */
/**
 * @file axl/inventory.h
 * A snapshot of a node: its host, its accelerators, the links between them and the
 * warnings gathered on the way. Taking one reads the tree again; the inventory never
 * changes afterwards, so it can be read from several threads.
 */
#ifndef AXL_INVENTORY_H
#define AXL_INVENTORY_H

#include "common.h"
#include "context.h"
#include "device.h"
#include "host.h"

AXL_BEGIN_DECLS

typedef struct axl_inventory axl_inventory;

/** Flags of axl_inventory_open(). */
enum {
	/** Also describe the host CPU as a device (family "cpu") and keep every PCI
	 *  function that was considered (axl_inventory_pci_function*). */
	AXL_INVENTORY_ALL = 1u << 0
};

/** Take a snapshot. Problems with single files or devices do not fail the call: they
 *  become warnings. Fails only when nothing can be read at all (AXL_EIO) or on
 *  AXL_ENOMEM. */
AXL_API int axl_inventory_open(axl_inventory **out, axl_context *ctx, unsigned flags);
AXL_API void axl_inventory_free(axl_inventory *inv);

AXL_API const axl_host *axl_inventory_host(const axl_inventory *inv);

/** Accelerators (and the CPU with AXL_INVENTORY_ALL), ordered by vendor prefix then index. */
AXL_API size_t axl_inventory_device_count(const axl_inventory *inv);
AXL_API const axl_device *axl_inventory_device(const axl_inventory *inv, size_t i);
/** Find a device by id ("nvidia:0"), UUID or PCI address; NULL when none matches. */
AXL_API const axl_device *axl_inventory_find(const axl_inventory *inv, const char *key);

/**
 * Which devices a question is about (axl_inventory_select() and the functions after
 * it). A device must match every field that is set; a field at its AXL_DEVICE_FILTER_INIT
 * value matches every device. Only top-level devices are considered (not partitions).
 * A device whose value is not known never matches a field that is set: unknown is not
 * "enough memory", nor "visible".
 */
struct axl_device_filter {
	unsigned version;         /**< AXL_DEVICE_FILTER_VERSION */
	int family;               /**< an axl_family, or -1: any */
	const char *vendor;       /**< the vendor ("NVIDIA") or the id prefix ("nvidia"), any case; NULL: any */
	int64_t min_memory_bytes; /**< memory.total_bytes at least this; 0: any */
	int precision;            /**< an axl_format the device runs natively; -1: any */
	int visible;              /**< 1: usable by this process, 0: hidden from it; -1: any */
	int numa_node;            /**< the device's NUMA node; -1: any */
};
#define AXL_DEVICE_FILTER_VERSION 1u
#define AXL_DEVICE_FILTER_INIT {AXL_DEVICE_FILTER_VERSION, -1, NULL, 0, -1, -1, -1}

/** What "the best device" means (axl_inventory_best()). */
typedef enum axl_rank {
	AXL_RANK_NONE = 0,      /**< no ranking (axl_inventory_json_select(): every match) */
	AXL_RANK_MEMORY = 1,    /**< memory.total_bytes */
	AXL_RANK_BANDWIDTH = 2, /**< memory.bandwidth_gbps */
	AXL_RANK_COMPUTE = 3    /**< dense peak TFLOPS at BF16, else FP16, else FP32 */
} axl_rank;
/** "memory", "bandwidth", "compute" ("none" for AXL_RANK_NONE); NULL when out of range. */
AXL_API const char *axl_rank_name(axl_rank rank);
/** The value a device is ranked by (bytes, GB/s, TFLOPS): 0, AXL_EUNKNOWN when the
 *  device does not say, AXL_EINVAL for AXL_RANK_NONE or out of range. */
AXL_API int axl_device_rank_value(const axl_device *dev, axl_rank rank, double *out);

/** 1 when dev matches filter (NULL: every device), 0 when not; AXL_EVERSION or
 *  AXL_EINVAL (a field out of range) otherwise. */
AXL_API int axl_device_filter_match(const axl_device *dev, const struct axl_device_filter *filter);
/** The devices that match, in inventory order: up to cap of them into out (out may be
 *  NULL when cap is 0), and how many match in *count. 0 or AXL_EVERSION/AXL_EINVAL. */
AXL_API int axl_inventory_select(const axl_inventory *inv, const struct axl_device_filter *filter,
				 const axl_device **out, size_t cap, size_t *count);
/** The matching device with the highest rank value (the first in inventory order on a
 *  tie). AXL_ENOENT when no device matches, AXL_EUNKNOWN when none of those that match
 *  knows its value. */
AXL_API int axl_inventory_best(const axl_inventory *inv, const struct axl_device_filter *filter,
			       axl_rank rank, const axl_device **out);
/** The accelerator memory of the matching devices, added up: *bytes the sum over the
 *  devices that know theirs, *unknown (may be NULL) how many do not. The host CPU (a
 *  device with AXL_INVENTORY_ALL) counts only when the filter asks for family cpu. */
AXL_API int axl_inventory_total_memory(const axl_inventory *inv, const struct axl_device_filter *filter,
				       int64_t *bytes, size_t *unknown);

/** Peer-to-peer capabilities of a link (axl_link.p2p). */
enum {
	AXL_P2P_KNOWN = 1u << 0,   /**< the other bits are known */
	AXL_P2P_READ = 1u << 1,
	AXL_P2P_WRITE = 1u << 2,
	AXL_P2P_ATOMICS = 1u << 3,
	AXL_P2P_NVLINK = 1u << 4
};

/** How two devices are connected (the best path between them). bandwidth_gbps < 0:
 *  not known; it is per direction. */
struct axl_link {
	const char *a;
	const char *b;
	const char *kind; /**< "nvlink", "nvswitch", "xgmi", "board", "pcie-switch",
			     "host-bridge", "numa", "system" (best first) */
	double bandwidth_gbps;
	axl_source source;
	int link_count;   /**< NVLink/XGMI links between the two, < 0 when not known */
	unsigned p2p;     /**< AXL_P2P_* bits */
	/** PCIe switches on the path between the two through the PCI tree, whatever the
	 *  kind: with kind "pcie-switch", 1 is one switch above both (nvidia-smi "PIX") and
	 *  more is a path through several (nvidia-smi "PXB"). < 0 when the tree does not
	 *  tell (a device that is not on the PCI bus). */
	int pcie_switches;
};
/** Links between accelerators: one per pair, the best path (a and b are device ids). */
AXL_API size_t axl_inventory_link_count(const axl_inventory *inv);
AXL_API const struct axl_link *axl_inventory_link(const axl_inventory *inv, size_t i);

/**
 * A device-to-device fabric switch on the PCI bus: an NVSwitch (a PCI function of
 * NVIDIA with class 0x068000, the functions the nvidia-nvswitch driver binds).
 * Integers are < 0 when not known.
 */
struct axl_switch {
	const char *kind;        /**< "nvswitch" */
	const char *pci_address; /**< "0000:83:00.0" */
	const char *driver;      /**< the bound driver ("nvidia-nvswitch"); NULL when none */
	int vendor_id;
	int device_id;
	int generation;          /**< NVSwitch generation (1 DGX-2, 2 A100, 3 H100 boards) */
	int numa_node;
	axl_source source;
};
AXL_API size_t axl_inventory_switch_count(const axl_inventory *inv);
AXL_API const struct axl_switch *axl_inventory_switch(const axl_inventory *inv, size_t i);

/**
 * An RDMA network adapter (InfiniBand or RoCE): one entry of /sys/class/infiniband,
 * ordered by name. The port facts are those of its first active port, else of its
 * lowest-numbered one. Integers and rate_gbit are < 0, strings NULL, when not known.
 */
struct axl_nic {
	const char *name;        /**< the RDMA device ("mlx5_0") */
	const char *pci_address; /**< its PCI function; NULL when it is not one */
	const char *link_layer;  /**< "InfiniBand", "Ethernet" */
	const char *state;       /**< port state: "ACTIVE", "DOWN", "INIT", "ARMED", ... */
	const char *node_guid;   /**< "b8ce:f603:00a1:2b3c" */
	double rate_gbit;        /**< port rate in Gb/s (10^9 bits/s), as the kernel gives it */
	int numa_node;
	int port_count;
	axl_source source;
};
AXL_API size_t axl_inventory_nic_count(const axl_inventory *inv);
AXL_API const struct axl_nic *axl_inventory_nic(const axl_inventory *inv, size_t i);
/** The path from every accelerator to every NIC through the PCI tree (a: the device id,
 *  b: the NIC name; kind "pcie-switch", "host-bridge", "numa" or "system"). Each
 *  accelerator's nearest NIC is also its AXL_ATTR_NEAREST_NIC attribute. */
AXL_API size_t axl_inventory_nic_link_count(const axl_inventory *inv);
AXL_API const struct axl_link *axl_inventory_nic_link(const axl_inventory *inv, size_t i);

/** Something that could not be read or made sense of. path may be NULL. */
struct axl_warning {
	const char *source; /**< the backend or stage ("pci", "host", "nvidia", ...) */
	const char *path;
	const char *message;
};
AXL_API size_t axl_inventory_warning_count(const axl_inventory *inv);
AXL_API const struct axl_warning *axl_inventory_warning(const axl_inventory *inv, size_t i);

/** A PCI function considered during discovery (kept with AXL_INVENTORY_ALL). */
struct axl_pci_function {
	const char *address;
	int vendor_id;    /**< < 0 not known */
	int device_id;    /**< < 0 not known */
	int class_code;   /**< 24-bit class, < 0 not known */
	const char *driver; /**< NULL when none is bound */
	const char *name;   /**< pci.ids name, NULL when not looked up */
	int accelerator;    /**< non-zero when listed as a device */
	const char *reason; /**< why it is or is not an accelerator */
};
AXL_API size_t axl_inventory_pci_function_count(const axl_inventory *inv);
AXL_API const struct axl_pci_function *axl_inventory_pci_function(const axl_inventory *inv, size_t i);

/** Time one stage of discovery took (a backend or "host", "pci", "devicedb"), and the
 *  system calls it made through the sysroot seam: opens, reads, link reads, directory
 *  reads, stats and the closes of what the seam opened and closed itself (what
 *  `strace -c` counts for the same stage, less a few closes of directories a stage
 *  kept open; 0 on a simulated node, which reads no file). */
struct axl_timing {
	const char *stage;
	double milliseconds;
	uint64_t syscalls; /**< since 0.1 */
};
AXL_API size_t axl_inventory_timing_count(const axl_inventory *inv);
AXL_API const struct axl_timing *axl_inventory_timing(const axl_inventory *inv, size_t i);

/** Flags of axl_inventory_json(). */
enum {
	AXL_JSON_PRETTY = 1u << 0, /**< indent */
	AXL_JSON_TIMING = 1u << 1  /**< add the "timing" object */
};

/** The "axl.inventory" document (schema/axl-inventory.schema.json). *out is
 *  NUL-terminated, malloc'd: free it with axl_free(). len may be NULL. */
AXL_API int axl_inventory_json(const axl_inventory *inv, unsigned flags, char **out, size_t *len);
/** The same document about the matching devices only (filter NULL: all of them), or
 *  with rank other than AXL_RANK_NONE about the best of them only: "devices" holds
 *  those, "links" and "nic_links" the links among them and from them, and a "selection"
 *  object says what was asked (the filter, the rank), how many matched and their
 *  total memory. AXL_ENOENT/AXL_EUNKNOWN as axl_inventory_best() when ranked. */
AXL_API int axl_inventory_json_select(const axl_inventory *inv, const struct axl_device_filter *filter,
				      axl_rank rank, unsigned flags, char **out, size_t *len);
/** One device object of that document. */
AXL_API int axl_device_json(const axl_device *dev, unsigned flags, char **out, size_t *len);

AXL_END_DECLS

#endif
