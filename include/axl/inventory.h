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

/** Time one stage of discovery took (a backend or "host", "pci", "devicedb"). */
struct axl_timing {
	const char *stage;
	double milliseconds;
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
/** One device object of that document. */
AXL_API int axl_device_json(const axl_device *dev, unsigned flags, char **out, size_t *len);

AXL_END_DECLS

#endif
