/* SPDX-License-Identifier: MIT */
/*
 * Event notifications (axl_event_notify): a thread of a pool waits for the event through
 * the backend's own event_wait, calling the vendor directly (ccall.h: no worker hop, so
 * an event loop is woken once, from the thread the runtime woke), then writes the event's
 * handle to the caller's file descriptor.
 *
 * Nobody waits for a notification thread, so a runtime that hangs leaves it waiting;
 * what waits for it (axl_event_wait, axl_event_free, closing the context) does so under
 * the vendor deadline, and a notice still pending then is abandoned: the thread frees it
 * when (if ever) the runtime returns, and writes nothing.
 */
#ifndef AXL_COMPUTE_NOTIFY_H
#define AXL_COMPUTE_NOTIFY_H

#include <stdint.h>

#include "compute_impl.h"

struct axl__notifier;
struct axl__notice;

/* A pool; NULL when out of memory. */
struct axl__notifier *axl__notifier_new(void);
/* Close the pool: idle threads end, busy ones end when their wait returns (the last one
 * frees the pool). The caller has settled every notice first (axl__notice_settle). */
void axl__notifier_free(struct axl__notifier *p);

/* Start waiting for native (an event of ops/state) on a thread of p into *out; when it
 * completes, handle is written to fd (8 bytes). An error when no thread could run it. */
int axl__notice_start(struct axl__notifier *p, const struct axl__compute_ops *ops, void *state, void *native,
		      int fd, uint64_t handle, struct axl__notice **out);

/* Has the event completed (its handle is being written, or was)? 1 with *rc its wait's
 * result (and that result's message set again on this thread), 0 when it has not. Never
 * blocks for long. */
int axl__notice_done(struct axl__notice *n, int *rc);

/* Before the event is freed: wait for the notice up to timeout_ms and free it. 0 when it
 * was settled (the native event may be freed); AXL_ETIMEDOUT when it was abandoned (the
 * thread still uses the native event: leave it). */
int axl__notice_settle(struct axl__notice *n, int timeout_ms);

#endif
