/* SPDX-License-Identifier: MIT */
/**
 * @file axl/state.h
 * What axl set up on a node and must find again after a restart: per-device limits
 * (memory and compute, handed to workloads as environment variables for a limiter)
 * and, later, the partitions it created. They live in one file, `state.json`, in the
 * context's state directory (docs/limits.md):
 *
 *  - $AXL_STATE_DIR when set (the process environment, or axl_context_options.env);
 *  - else /run/axl when running as root, $XDG_RUNTIME_DIR/axl, or /tmp/axl-<uid>;
 *  - a re-rooted context (another node's tree) has no state directory unless
 *    AXL_STATE_DIR is given: reading lists nothing, writing fails with AXL_ENOTSYS.
 *
 * The directory is created 0700 and must belong to the caller. Writers take an
 * exclusive lock (`state.lock`, flock, up to 10 s: then AXL_EIO), read, change, write
 * `state.json.tmp-<pid>`, fsync it, rename it over `state.json` and fsync the
 * directory: a reader or a process killed at any moment sees the old or the new file,
 * never a mix. A malformed file is refused with AXL_EPARSE and axl_error_last() naming
 * the file, the line and the field; a file over 1 MiB with AXL_ETOOBIG.
 */
#ifndef AXL_STATE_H
#define AXL_STATE_H

#include "common.h"
#include "context.h"
#include "inventory.h"

AXL_BEGIN_DECLS

/** The state directory of the context (borrowed); NULL when it has none (a re-rooted
 *  context without AXL_STATE_DIR). Nothing is created until the first write. */
AXL_API const char *axl_state_dir(const axl_context *ctx);

/** One device's limits as recorded. Strings point into the same allocation. Callers
 *  index arrays of these, so the layout is fixed (tests/abi/layout.c): more fields would
 *  come with a new function. */
struct axl_limit {
	/** The device's id when the limit was set ("nvidia:0"); never NULL. */
	const char *device;
	/** Its UUID, the key that survives renumbering; NULL when the device has none. */
	const char *uuid;
	/** Memory the workload may allocate on the device, bytes; < 0: no limit. */
	int64_t memory_bytes;
	/** Share of the device's compute, 1..100 percent; < 0: no limit. */
	int compute_percent;
	/** The process that set it, and when (Unix seconds). */
	int pid;
	int64_t created;
};

/**
 * Record limits for a device of the inventory (found by id, UUID or PCI address, as
 * axl_inventory_find()). memory_bytes: 1 up to the device's memory.total_bytes (when
 * known), or < 0 for none; compute_percent: 1..100, or < 0 for none; at least one must
 * be given. Replaces the device's earlier limits. AXL_ENOENT for an unknown device,
 * AXL_ERANGE for a value out of range, AXL_ENOTSYS on a re-rooted context without a
 * state directory.
 */
AXL_API int axl_limit_set(const axl_inventory *inv, const char *device, int64_t memory_bytes,
			  int compute_percent);

/**
 * Forget a device's limits. When inv (may be NULL) knows the device, its own record
 * goes (by UUID, or by id when it has none); otherwise device is matched against the
 * records' ids and UUIDs, so a limit of a device that is gone can still be cleared.
 * Clearing what is not there succeeds: 0, and *removed (may be NULL) says how many
 * records went.
 */
AXL_API int axl_limit_clear(axl_context *ctx, const axl_inventory *inv, const char *device,
			    size_t *removed);

/**
 * Every recorded limit, in the order they were set. *out is one allocation (the rows
 * and their strings) for the caller to release with axl_free(); NULL when *count is 0.
 */
AXL_API int axl_limit_list(axl_context *ctx, struct axl_limit **out, size_t *count);

/**
 * The environment a workload using these devices gets, for a limiter to read
 * (docs/limits.md): "NAME=value" strings ending with a NULL pointer, the array and the
 * strings in one allocation for the caller to release with axl_free().
 *
 *   AXL_LIMIT_VERSION=1
 *   AXL_LIMIT_DEVICES=<uuid or id>,...          the devices, in the order given
 *   AXL_LIMIT_MEMORY_BYTES=<bytes or none>,...  per device, same order
 *   AXL_LIMIT_COMPUTE_PERCENT=<1..100 or none>,...
 *
 * and, for NVIDIA devices, the names HAMi-core's libvgpu.so reads, indexed by the
 * device's position among the NVIDIA devices given (its CUDA ordinal when the workload
 * sees exactly these devices in this order): CUDA_DEVICE_MEMORY_LIMIT_<i>=<bytes>,
 * CUDA_DEVICE_SM_LIMIT_<i>=<percent>, and CUDA_DEVICE_SM_LIMIT=<percent> when every one
 * of them has the same compute limit. AXL_ENOENT when a device is not in the inventory.
 */
AXL_API int axl_limit_env(const axl_inventory *inv, const char *const *devices, size_t count,
			  char ***env_out);

AXL_END_DECLS

#endif
