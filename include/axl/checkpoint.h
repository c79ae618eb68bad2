/* SPDX-License-Identifier: MIT */
/**
 * @file axl/checkpoint.h
 * Process checkpoints (docs/tensorfusion.md, "Snapshots"): freezing a process's use of its accelerators
 * and moving their memory to the host, then back, through the driver of the vendor that
 * owns the device (NVIDIA: the CUDA driver's cuCheckpointProcess* calls, drivers of
 * CUDA 12.8 and later). The process itself is not stopped: a checkpoint of the whole
 * process (CRIU) is the caller's business; this is the accelerator's part of it.
 *
 * The order is LOCK (wait for its work, block new work), CHECKPOINT (device memory to
 * the host), RESTORE (back to the device; the process stays locked), UNLOCK. A call out
 * of that order answers AXL_EINVAL and changes nothing.
 *
 * Rules:
 *  - a driver without the calls (or no driver) answers AXL_ENOTSUP with
 *    axl_error_last() naming what is missing; never a pretended success;
 *  - a re-rooted or simulated context drives no driver (AXL_ENOTSYS) unless the
 *    context was given a compute library to load explicitly (a test double);
 *  - the calls may block (LOCK waits for running work); they run under the context's
 *    vendor deadline (AXL_VENDOR_TIMEOUT_MS; CHECKPOINT and RESTORE, which copy device
 *    memory, thirty times it): past it, AXL_ETIMEDOUT.
 */
#ifndef AXL_CHECKPOINT_H
#define AXL_CHECKPOINT_H

#include "common.h"
#include "inventory.h"

AXL_BEGIN_DECLS

/** What axl_process_checkpoint() does. */
typedef enum axl_checkpoint_op {
	AXL_CHECKPOINT_STATE = 0,      /**< only report the state */
	AXL_CHECKPOINT_LOCK = 1,       /**< RUNNING -> LOCKED */
	AXL_CHECKPOINT_CHECKPOINT = 2, /**< LOCKED -> CHECKPOINTED */
	AXL_CHECKPOINT_RESTORE = 3,    /**< CHECKPOINTED -> LOCKED */
	AXL_CHECKPOINT_UNLOCK = 4      /**< LOCKED -> RUNNING */
} axl_checkpoint_op;

/** A process's checkpoint state, as its driver reports it. */
typedef enum axl_checkpoint_state {
	AXL_CHECKPOINT_RUNNING = 0,
	AXL_CHECKPOINT_LOCKED = 1,
	AXL_CHECKPOINT_CHECKPOINTED = 2,
	AXL_CHECKPOINT_FAILED = 3
} axl_checkpoint_state;

/**
 * Do op for process pid (> 0) through the driver of the backend that owns device_id
 * (an id or key axl_inventory_find() knows), or, when device_id is NULL, of the first
 * backend that checkpoints processes. On success *state (may be NULL) is the state
 * after the call (axl_checkpoint_state).
 *
 * @return 0; AXL_EINVAL (NULL inv, pid <= 0, an unknown op, a pid the driver does not
 * know, a call out of order); AXL_ENOENT (no such device); AXL_ENOTSUP (the device's
 * vendor or its driver cannot); AXL_ENOTSYS; AXL_ETIMEDOUT; AXL_EBACKEND.
 */
AXL_API int axl_process_checkpoint(const axl_inventory *inv, const char *device_id, int pid, axl_checkpoint_op op,
				   int *state);

AXL_END_DECLS

#endif /* AXL_CHECKPOINT_H */
