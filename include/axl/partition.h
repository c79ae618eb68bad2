/* SPDX-License-Identifier: MIT */
/**
 * @file axl/partition.h
 * Carving devices up (docs/partitions.md): NVIDIA MIG instances created and destroyed
 * through NVML, AMD compute and memory partition modes switched through sysfs, and the
 * same on simulated nodes, where the rules of the simulated GPU apply (its MIG
 * profiles, their placements and instance limits) and nothing touches hardware.
 *
 * What axl creates is recorded in the state directory (axl/state.h) with its owner:
 * the process that created it (a workload, the default), or the operator
 * (AXL_PARTITION_OPERATOR: `axl partition create`), so a restarted process finds it
 * again. axl_partition_cleanup() removes only what workloads that are gone left behind;
 * the operator's partitions stay until destroyed by id. Removal is idempotent.
 *
 * Rules every call keeps:
 *  - a re-rooted context (another node's tree, a capture) never drives hardware:
 *    AXL_ENOTSYS;
 *  - control of real hardware needs privileges (root, or CAP_SYS_ADMIN): AXL_EPERM
 *    with a message saying so, before anything is tried;
 *  - what a vendor or device cannot do answers AXL_ENOTSUP with axl_error_last()
 *    saying why (MIG disabled, a GPU without MIG, no vendor library, ...); never a
 *    pretended success;
 *  - a partition id never contains ':' or ',' (TensorFusion and container runtimes
 *    split on them).
 */
#ifndef AXL_PARTITION_H
#define AXL_PARTITION_H

#include "common.h"
#include "context.h"
#include "inventory.h"

AXL_BEGIN_DECLS

/**
 * One partition. Strings and arrays point into the same allocation as the row. Callers
 * index arrays of these, so the layout is fixed (tests/abi/layout.c).
 */
struct axl_partition {
	/** The partition's id: the MIG device UUID ("MIG-2f1c…"); never NULL, never with
	 *  ':' or ','. */
	const char *id;
	/** Its device id in an inventory opened now ("nvidia:0/mig1.0"); NULL when it is
	 *  not listed (a record whose partition is gone). */
	const char *device;
	/** The parent device's id ("nvidia:0") and UUID (NULL when it has none). */
	const char *parent;
	const char *parent_uuid;
	/** The technology: "mig". */
	const char *kind;
	/** The profile it was made from ("1g.10gb"); NULL when not known. */
	const char *profile;
	/** The vendor's profile id (the NVML GPU-instance profile id, 19 for 1g.10gb on
	 *  an H100); < 0 when not known. */
	int64_t profile_id;
	/** Memory and compute units (SMs) of the partition; < 0 when not known. */
	int64_t memory_bytes;
	int64_t compute_units;
	/** What a container given this partition needs, each NULL-terminated:
	 *  "NAME=value" environment strings (NVIDIA_VISIBLE_DEVICES=MIG-…,
	 *  CUDA_VISIBLE_DEVICES=MIG-…) and host device node paths (the parent's
	 *  /dev/nvidiaN, /dev/nvidiactl, /dev/nvidia-uvm, and the GPU- and
	 *  compute-instance access nodes /dev/nvidia-caps/nvidia-capN from
	 *  /proc/driver/nvidia-caps/mig-minors). */
	const char *const *env;
	const char *const *device_nodes;
	/** The workload process that created it through axl, and when (Unix seconds);
	 *  owner_pid 0 when no process owns it (the operator's, or not made by axl),
	 *  created 0 when axl did not create it (made by nvidia-smi, say). */
	int owner_pid;
	/** 1 when that process is still running, 0 when not or when there is none. */
	int owner_alive;
	int64_t created;
	/** Where the facts came from: nvml, sim, ... */
	axl_source source;
	/** Whose it is: AXL_PARTITION_OWNER_* (in what was padding: the size stays 112). */
	int owner;
};

/** struct axl_partition.owner. */
enum {
	/** Not known: axl did not create it, or an axl that did not record owners did. */
	AXL_PARTITION_OWNER_UNKNOWN = 0,
	/** A workload's: the process owner_pid; axl_partition_cleanup() destroys it once
	 *  that process is gone. */
	AXL_PARTITION_OWNER_WORKLOAD = 1,
	/** The operator's (made with AXL_PARTITION_OPERATOR, as `axl partition create`
	 *  does): only an explicit axl_partition_destroy() removes it. */
	AXL_PARTITION_OWNER_OPERATOR = 2,
};

/** Flags for the calls below. */
enum {
	/** axl_partition_set_mode(): the caller confirms the switch (it destroys every
	 *  partition of the device and needs the GPU idle). Without it: AXL_EINVAL. */
	AXL_PARTITION_CONFIRM = 1u << 0,
	/** axl_partition_create(): the partition is the operator's, not the calling
	 *  process's (a command that exits at once, an administrator's tool): recorded
	 *  with no owner process, and never removed by axl_partition_cleanup(). */
	AXL_PARTITION_OPERATOR = 1u << 1,
};

/**
 * Create one partition of `device` (an id, UUID or PCI address, as
 * axl_inventory_find()) from `profile`: a profile name as the device lists it
 * ("1g.10gb"), the same with the TensorFusion prefix ("mig-1g.10gb"), or a decimal
 * vendor profile id ("19"). For MIG: the GPU must be in MIG mode (AXL_ENOTSUP
 * otherwise: axl never changes the mode); a GPU instance of that profile is created
 * with its default compute instance. A name with this device's slice count and a
 * memory size it does not offer ("1g.7gb" on an H100) means the smallest profile of
 * that slice count with at least that memory; the result names the real profile.
 *
 * On success *out (one allocation, release with axl_free()) describes the new
 * partition, recorded in the state directory with its owner: the calling process, or
 * the operator when flags has AXL_PARTITION_OPERATOR.
 * AXL_ENOENT: unknown device or profile; AXL_ENOSPC: no room left for that profile;
 * AXL_ENOTSUP, AXL_EPERM, AXL_ENOTSYS: see the file comment. The inventory is not
 * changed: open a new one to see the partition as a device.
 */
AXL_API int axl_partition_create(axl_context *ctx, const axl_inventory *inv, const char *device,
				 const char *profile, unsigned flags, struct axl_partition **out);

/**
 * Destroy a partition by its id (or its device id in the inventory, "nvidia:0/mig1.0").
 * device may be NULL; when given, the partition must belong to it. A partition that is
 * already gone is not an error: 0, with *removed (may be NULL) 0; its record, if any, is
 * dropped. A partition in use (processes on it) fails with AXL_EBUSY and stays.
 */
AXL_API int axl_partition_destroy(axl_context *ctx, const axl_inventory *inv, const char *device,
				  const char *partition, unsigned flags, size_t *removed);

/**
 * Every partition of the inventory's devices (MIG devices, whoever made them) and every
 * record of the state directory whose partition is gone (device NULL), in device order.
 * *out is one allocation for axl_free(); NULL when *count is 0.
 */
AXL_API int axl_partition_list(axl_context *ctx, const axl_inventory *inv, struct axl_partition **out,
			       size_t *count);

/**
 * Destroy the partitions whose recorded owner was a workload process that is now gone,
 * and drop records whose partition no longer exists; every other partition stays (the
 * operator's, a running workload's, one axl did not make or whose owner it did not
 * record). axl_partition_cleanup_action() says which is which, row by row, for a plan
 * shown before (or instead of) the cleanup. *removed (may be NULL): how many
 * partitions went.
 */
AXL_API int axl_partition_cleanup(axl_context *ctx, const axl_inventory *inv, size_t *removed);

/** What axl_partition_cleanup() does with a row of axl_partition_list(). */
enum {
	AXL_PARTITION_KEEP = 0,    /**< it stays */
	AXL_PARTITION_DESTROY = 1, /**< it is destroyed: its workload is gone */
	AXL_PARTITION_FORGET = 2,  /**< only a record is left (device NULL): the record goes */
};

/**
 * What axl_partition_cleanup() does with p (a row of axl_partition_list()): an
 * AXL_PARTITION_KEEP/DESTROY/FORGET value, and in *why (may be NULL; a static string)
 * the reason, for a person ("its owner process is gone", "the operator's: destroy it by
 * id", ...). p NULL: AXL_PARTITION_KEEP.
 */
AXL_API int axl_partition_cleanup_action(const struct axl_partition *p, const char **why);

/**
 * Switch a device's partition mode: kind "compute" (AMD: "SPX", "DPX", "TPX", "QPX",
 * "CPX") or "memory" ("NPS1", "NPS2", "NPS4", "NPS8"), one of the modes the device
 * lists as available. Needs AXL_PARTITION_CONFIRM, privileges, and an idle GPU (any
 * process using it: AXL_EBUSY, naming one). Setting the current mode succeeds without
 * touching anything. NVIDIA MIG mode is never switched by axl: AXL_ENOTSUP.
 */
AXL_API int axl_partition_set_mode(axl_context *ctx, const axl_inventory *inv, const char *device,
				   const char *kind, const char *mode, unsigned flags);

AXL_END_DECLS

#endif /* AXL_PARTITION_H */
