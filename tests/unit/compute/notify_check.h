/* SPDX-License-Identifier: MIT */
/* axl_event_notify on one queue, shared by the compute tests of each backend (cpu,
 * OpenCL, Vulkan): a copy's done event written to a pipe once it completed, after which
 * axl_event_wait returns at once; many events each written once, whatever their order;
 * an event freed before it completed waits for its notification, and nothing is written
 * after the free; one notification per event; bad descriptors (negative, a read end, one
 * not open) and handles refused.
 * notify_left_pending leaves a notified event to axl_compute_free, whose caller then
 * checks (notify_came) that the handle came while the context was closing. */
#ifndef AXL_TEST_NOTIFY_CHECK_H
#define AXL_TEST_NOTIFY_CHECK_H

#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <unistd.h>

#include "axl.h"
#include "check.h"

/* The handles that came on rfd within ms milliseconds, up to cap: how many. */
static inline size_t notify_read(int rfd, uint64_t *got, size_t cap, int ms)
{
	size_t n = 0;
	struct pollfd p = { rfd, POLLIN, 0 };
	while (n < cap && poll(&p, 1, ms) > 0) {
		ssize_t r = read(rfd, &got[n], (cap - n) * sizeof *got);
		if (r <= 0)
			break;
		CHECK_INT(r % 8, 0); /* whole handles only */
		n += (size_t)r / 8;
	}
	return n;
}

static inline bool notify_has(const uint64_t *got, size_t n, uint64_t h)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		k += got[i] == h;
	return k == 1;
}

/* dst <- src (size bytes, size >= 1 MiB) on q, each notified; src/dst: any buffers the
 * queue's device can copy between. */
static inline void notify_check(axl_compute *c, axl_queue q, axl_buffer dst, axl_buffer src, uint64_t size)
{
	int p[2];
	CHECK_INT(pipe(p), 0);
	fcntl(p[0], F_SETFL, O_NONBLOCK);

	/* one copy: its handle comes, then its wait returns at once */
	axl_event e = 0;
	CHECK_INT(axl_copy(c, q, dst, 0, src, 0, size, NULL, &e), 0);
	CHECK_INT(axl_event_notify(c, e, p[1]), 0);
	uint64_t got[64];
	CHECK_INT(notify_read(p[0], got, 1, 10000), 1);
	CHECK(got[0] == e);
	CHECK_INT(axl_event_wait(c, e), 0);
	/* one notification per event */
	CHECK_INT(axl_event_notify(c, e, p[1]), AXL_EINVAL);
	CHECK_INT(axl_event_free(c, e), 0);
	CHECK_INT(axl_event_notify(c, e, p[1]), AXL_EINVAL); /* freed */
	CHECK_INT(notify_read(p[0], got, 64, 50), 0);        /* and nothing more came */

	/* many in flight: each comes once, in whatever order */
	axl_event es[24];
	for (size_t i = 0; i < 24; i++) {
		CHECK_INT(axl_copy(c, q, dst, 0, src, 0, i % 3 ? 4096 : size, NULL, &es[i]), 0);
		CHECK_INT(axl_event_notify(c, es[i], p[1]), 0);
	}
	size_t n = notify_read(p[0], got, 24, 10000);
	CHECK_INT(n, 24);
	for (size_t i = 0; i < 24; i++) {
		CHECK(notify_has(got, n, es[i]));
		CHECK_INT(axl_event_wait(c, es[i]), 0);
		CHECK_INT(axl_event_free(c, es[i]), 0);
	}

	/* freed at once: the free waits for the notification, which came before it returned */
	CHECK_INT(axl_copy(c, q, dst, 0, src, 0, size, NULL, &e), 0);
	CHECK_INT(axl_event_notify(c, e, p[1]), 0);
	CHECK_INT(axl_event_free(c, e), 0);
	CHECK_INT(notify_read(p[0], got, 64, 0), 1);
	CHECK(got[0] == e);
	CHECK_INT(notify_read(p[0], got, 64, 50), 0);

	/* refused: a bad descriptor, a handle that is no event */
	CHECK_INT(axl_copy(c, q, dst, 0, src, 0, 4096, NULL, &e), 0);
	CHECK_INT(axl_event_notify(c, e, -1), AXL_EINVAL);
	CHECK_INT(axl_event_notify(c, e, p[0]), AXL_EINVAL); /* the read end */
	int gone = dup(p[1]);
	close(gone);
	CHECK_INT(axl_event_notify(c, e, gone), AXL_EINVAL); /* not open */
	CHECK_INT(axl_event_notify(NULL, e, p[1]), AXL_EINVAL);
	CHECK_INT(axl_event_notify(c, q, p[1]), AXL_EINVAL);
	CHECK_INT(axl_event_notify(c, 0, p[1]), AXL_EINVAL);
	CHECK_INT(axl_event_wait(c, e), 0);
	CHECK_INT(axl_event_free(c, e), 0);
	CHECK_INT(notify_read(p[0], got, 64, 0), 0);
	close(p[0]);
	close(p[1]);
}

/* A notified copy left to axl_compute_free: the pipe (p[0] read end, p[1] write end)
 * stays open; *e is the event. */
static inline void notify_left_pending(axl_compute *c, axl_queue q, axl_buffer dst, axl_buffer src, uint64_t size,
				int p[2], axl_event *e)
{
	CHECK_INT(pipe(p), 0);
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	CHECK_INT(axl_copy(c, q, dst, 0, src, 0, size, NULL, e), 0);
	CHECK_INT(axl_event_notify(c, *e, p[1]), 0);
}

/* notify_check on dev's own queue, device memory copied into memory of host_kind (8 MiB),
 * then one notified copy left pending for axl_compute_free (notify_left_pending). */
static inline void notify_on_device(axl_compute *c, const axl_compute_device *dev, axl_memory_kind host_kind,
				    int pending[2], axl_event *left)
{
	axl_queue q = 0;
	axl_buffer dv = 0, hb = 0;
	const uint64_t n = 8u << 20;
	CHECK_INT(axl_queue_create(c, dev, &q), 0);
	CHECK_INT(axl_buffer_alloc(c, dev, AXL_MEMORY_DEVICE, n, &dv), 0);
	CHECK_INT(axl_buffer_alloc(c, dev, host_kind, n, &hb), 0);
	notify_check(c, q, hb, dv, n);
	notify_left_pending(c, q, hb, dv, n, pending, left);
}

/* After axl_compute_free: the handle came, once. */
static inline void notify_came(int p[2], axl_event e)
{
	uint64_t got[4];
	CHECK_INT(notify_read(p[0], got, 4, 0), 1);
	CHECK(got[0] == e);
	close(p[0]);
	close(p[1]);
}

#endif
