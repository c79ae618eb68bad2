/* SPDX-License-Identifier: MIT */
/*
 * A vendor compute backend's calls that may block (initialising the runtime, listing
 * devices, allocating, freeing, synchronising, waiting for events, asking for memory
 * info) run on worker threads and are waited for at most the context's vendor deadline
 * ($AXL_VENDOR_TIMEOUT_MS), so that a driver that hangs costs a clear AXL_ETIMEDOUT and
 * never the caller. Enqueueing calls (asynchronous copies, fills, event records) are
 * made directly: they return at once on a working driver, and a per-call thread hop
 * would cost more than the copy of a small buffer.
 *
 * Workers are pooled: a call takes an idle worker or starts one, so calls from several
 * threads (two queues synchronised at once) never wait for each other. A worker that
 * misses the deadline is abandoned, never killed (it may hold the library's locks), and
 * the library is marked wedged (vjob.h): every later call of any backend on it fails at
 * once with AXL_ETIMEDOUT.
 */
#ifndef AXL_CCALL_H
#define AXL_CCALL_H

#include <stddef.h>

struct axl__ccall;

/* A pool for library lib ("cuda", "hip", ...) with a deadline of timeout_ms (<= 0: no
 * deadline, calls run on the caller's thread). NULL when out of memory. */
struct axl__ccall *axl__ccall_new(const char *lib, int timeout_ms);
/* Stop the idle workers; abandoned ones free themselves when (if ever) they return. */
void axl__ccall_free(struct axl__ccall *p);

/*
 * Run fn(arg) on a worker and return what it returned. arg (size bytes) is copied to the
 * worker and back, so it may live on the caller's stack; fn must not keep pointers into
 * it. On a missed deadline: AXL_ETIMEDOUT with axl_error_last() naming what (for
 * example "cuStreamSynchronize on nvidia:0"), and the library is wedged. When the
 * library was wedged already: AXL_ETIMEDOUT at once, without calling fn. Errors fn
 * reports with axl__error() reach the caller's thread.
 */
int axl__ccall_run(struct axl__ccall *p, int (*fn)(void *arg), void *arg, size_t size, const char *what);

/* From now on, calls made on this thread run on it, without a worker or a deadline
 * (still refused on a wedged library): for a thread nobody waits for, such as one that
 * waits for an event to notify a file descriptor (notify.h), where a worker would only
 * add a thread for the runtime to wake. */
void axl__ccall_direct_here(void);

#endif
