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
};
AXL_API size_t axl_inventory_link_count(const axl_inventory *inv);
AXL_API const struct axl_link *axl_inventory_link(const axl_inventory *inv, size_t i);

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
