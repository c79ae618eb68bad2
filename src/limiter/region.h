/* SPDX-License-Identifier: MIT */
/*
 * The limiter's shared region (docs/limits.md, "The shared region"): one file, mapped
 * MAP_SHARED by every process of one workload (container), holding the workload's
 * per-device limits and one slot per process with what that process has reserved.
 * Internal to the limiter (never part of libaxl's exported API).
 *
 * Guarantees:
 *  - Memory admission is exact without a lock: a reservation adds to its own slot's
 *    claim (one atomic word), then sums every slot's claim; over the limit it takes its
 *    claim back and fails. With sequentially consistent atomics the last of any set of
 *    concurrent reservations sees all the others, so reservations that succeeded never
 *    together exceed the limit (no check-then-act race).
 *  - A process's usage lives only in its slot, so a process killed at any instruction
 *    leaves its slot exact; reclaiming it (zeroing the slot) returns exactly its share.
 *    A slot is dead when /proc/PID is gone or a zombie, or its start time (field 22 of
 *    /proc/PID/stat) differs: a reused pid is not taken for the dead process.
 *  - The robust process-shared mutex only guards slot allocation, reclaim and limit
 *    changes; a holder killed inside is recovered by the next locker (EOWNERDEAD).
 *  - A region that is truncated, corrupted (magic, sizes, checksum) or written by a newer
 *    major version is refused with a message naming the file; the caller must then fail
 *    closed (refuse allocations on limited devices), never run unlimited.
 */
#ifndef AXL_LIMITER_REGION_H
#define AXL_LIMITER_REGION_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "util/region_format.h" /* the file's layout; AXL__REGION_MAX_* */

typedef struct axl__region axl__region;

/* One device's limits. memory_bytes < 0 or compute_percent < 0: no limit. */
struct axl__region_limit {
	char uuid[AXL__REGION_UUID_MAX]; /* the device's UUID (or id), NUL-terminated */
	int64_t memory_bytes;
	int compute_percent;
};

/* One process attached to the region (a snapshot). */
struct axl__region_proc {
	int pid;
	uint64_t start_time; /* clock ticks since boot, /proc/PID/stat field 22 */
	uint64_t used[AXL__REGION_MAX_DEVICES];
};

/* The region's path: $AXL_LIMITER_REGION when set, else <state dir>/limiter.region with
 * the state directory of docs/limits.md ($AXL_STATE_DIR, /run/axl for root,
 * $XDG_RUNTIME_DIR/axl, /tmp/axl-<uid>). AXL_ERANGE when it does not fit. */
int axl__region_default_path(char *buf, size_t cap);
/* The state directory (as libaxl's, docs/limits.md) without a trailing slash: AXL_ERANGE
 * when it does not fit. */
int axl__region_state_dir(char *buf, size_t cap);

/* Attach to the region at path, creating it with these limits when it does not exist
 * (ndev 1..AXL__REGION_MAX_DEVICES; limits NULL with ndev 0: attach only, AXL_ENOENT when
 * absent). An existing region keeps its own limits while a process is attached to it;
 * one that nobody is attached to (every process of the last workload gone) takes these. The file is created complete (a
 * temporary file linked into place), mode 0600. Takes a slot for the calling process and
 * reclaims the slots of dead processes. AXL_EPARSE for a truncated or corrupted file,
 * AXL_EVERSION for a newer major version, AXL_ENOSPC when every slot is taken by a live
 * process, AXL_ETIMEDOUT when the lock is held for more than 5 s. */
int axl__region_open(axl__region **out, const char *path, const struct axl__region_limit *limits,
		     int ndev);
/* Release the process's slot (its usage goes) and unmap. NULL-safe. */
void axl__region_close(axl__region *r);

int axl__region_device_count(const axl__region *r);
/* The index of the device with this UUID, or AXL_ENOENT. */
int axl__region_find(const axl__region *r, const char *uuid);
int axl__region_limit_get(const axl__region *r, int dev, struct axl__region_limit *out);
/* Change a device's limits (lowering the memory limit below the usage refuses new
 * reservations until usage falls under it). */
int axl__region_limit_set(axl__region *r, int dev, int64_t memory_bytes, int compute_percent);

/* Reserve bytes on dev for this process: 0, or AXL_ENOMEM with *remaining (may be NULL)
 * the bytes still free. On failure the dead processes' slots are reclaimed and it tries
 * again once. A device without a memory limit always succeeds (and still counts). */
int axl__region_reserve(axl__region *r, int dev, uint64_t bytes, uint64_t *remaining);
/* Count bytes already taken on dev for this process, whatever the limit (memory a pool
 * keeps: the driver holds it, refusing would not give it back). */
int axl__region_hold(axl__region *r, int dev, uint64_t bytes);
/* Give back bytes reserved by this process; AXL_ERANGE when more than it holds. */
int axl__region_release(axl__region *r, int dev, uint64_t bytes);

/* Committed usage of dev over all processes (a sum of per-slot words read one after the
 * other: exact when quiet, approximate by the reservations in flight under churn), and
 * this process's own. Either pointer may be NULL. */
int axl__region_usage(const axl__region *r, int dev, uint64_t *total, uint64_t *mine);
/* The attached processes, under the lock: up to cap rows, *count the number there are. */
int axl__region_procs(axl__region *r, struct axl__region_proc *out, size_t cap, size_t *count);
/* Reclaim the slots of dead processes; *count (may be NULL) how many went. */
int axl__region_reclaim(axl__region *r, int *count);

/* The device's shared compute bucket (climit.c; struct axl__region_compute in
 * util/region_format.h). NULL for a device out of range. */
struct axl__region_compute *axl__region_compute(axl__region *r, int dev);
/* Freeze: one flag for the whole workload (every process of the region). The in-process
 * limiter honours it: while set, new allocations and launches wait or are refused (the
 * TensorFusion FreezeWorker/AutoFreeze calls set it; docs/tensorfusion.md). */
int axl__region_frozen(const axl__region *r);
void axl__region_set_frozen(axl__region *r, int frozen);
/* The host's liveness: the Unix seconds of its last heartbeat, 0 when never. */
uint64_t axl__region_heartbeat(const axl__region *r);
void axl__region_set_heartbeat(axl__region *r, uint64_t unix_secs);
/* This process's compute tokens on dev (its slot's word), in one atomic step: add `add`
 * (a refill), clamp to cap (cap < 0: no cap), then take `take` when at least that many are
 * left. 0, or AXL_ENOMEM when short (the refill stays, nothing is taken); *left (may be
 * NULL) the tokens after the step. */
int axl__region_tokens(axl__region *r, int dev, int64_t add, int64_t cap, uint64_t take, int64_t *left);

/* Tests only: called with the name of the place while the lock is held ("locked"). */
extern void (*axl__region_test_hook)(const char *where);
/* Tests only: a slot for another (made-up) process, holding bytes on dev. */
int axl__region_test_forge(axl__region *r, int pid, uint64_t start_time, int dev, uint64_t bytes);
/* The start time of a process (/proc/PID/stat field 22), 0 when unknown. */
uint64_t axl__region_start_time(int pid);

#endif
