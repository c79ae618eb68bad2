/* SPDX-License-Identifier: MIT */
/* The vulkan compute backend on a real Vulkan driver: Mesa's lavapipe (llvmpipe), a
 * CPU-type device that shows up as a second device with no inventory device when
 * axl_compute_options.backend is "vulkan". Every copy kind on it and between it and the
 * host CPU's buffers, 1 byte to 256 MiB, odd offsets and sizes, fills with unaligned
 * heads and tails, events with elapsed ns, memory info, several threads with their own
 * queues at once; every byte checked. Without lavapipe installed the test is skipped
 * (77); with it installed and no device found, it fails. */
#include <glob.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axl.h"
#include "check.h"
#include "notify_check.h"

static axl_context *ctx;
static axl_inventory *inv;

static uint8_t pat(uint64_t i, unsigned seed)
{
	uint64_t x = (i + 1) * 0x9e3779b97f4a7c15ull + seed;
	return (uint8_t)(x >> 56 ^ x >> 29 ^ x);
}

static bool lavapipe_installed(void)
{
	glob_t g;
	bool yes = glob("/usr/share/vulkan/icd.d/lvp_icd*.json", 0, NULL, &g) == 0 && g.gl_pathc > 0;
	globfree(&g);
	return yes;
}

/* The software Vulkan device, NULL when none. */
static const axl_compute_device *vk_device(axl_compute *c)
{
	for (size_t i = 1; i < axl_compute_device_count(c); i++) {
		const axl_compute_device *d = axl_compute_device_at(c, i);
		if (strcmp(axl_compute_device_backend(d), "vulkan") == 0 &&
		    strstr(axl_compute_device_name(d), "llvmpipe"))
			return d;
	}
	return NULL;
}

/* Fill a host buffer with a pattern. */
static void put(axl_compute *c, axl_buffer b, uint64_t size, unsigned seed)
{
	uint8_t *p = NULL;
	CHECK_INT(axl_buffer_host_pointer(c, b, (void **)&p), 0);
	for (uint64_t i = 0; p && i < size; i++)
		p[i] = pat(i, seed);
}

/* Do bytes [off, off+n) of host buffer b hold the pattern from pos? */
static bool same(axl_compute *c, axl_buffer b, uint64_t off, uint64_t n, uint64_t pos, unsigned seed)
{
	uint8_t *p = NULL;
	if (axl_buffer_host_pointer(c, b, (void **)&p))
		return false;
	for (uint64_t i = 0; i < n; i++)
		if (p[off + i] != pat(pos + i, seed)) {
			fprintf(stderr, "byte %llu: %u, expected %u\n", (unsigned long long)(off + i), p[off + i],
				pat(pos + i, seed));
			return false;
		}
	return true;
}

/* src host → dev device → (dev pinned) → dst host of size bytes at odd offsets, through
 * a host buffer of kind hk on hd. */
static void round_trip(axl_compute *c, const axl_compute_device *vd, const axl_compute_device *hd,
		       axl_memory_kind hk, uint64_t size, uint64_t so, uint64_t mo, uint64_t d_o, unsigned seed)
{
	axl_buffer src = 0, dev = 0, dev2 = 0, mid = 0, dst = 0;
	axl_queue q = 0;
	CHECK_INT(axl_queue_create(c, vd, &q), 0);
	CHECK_INT(axl_buffer_alloc(c, hd, hk, size + so, &src), 0);
	CHECK_INT(axl_buffer_alloc(c, vd, AXL_MEMORY_DEVICE, size + mo, &dev), 0);
	CHECK_INT(axl_buffer_alloc(c, vd, AXL_MEMORY_DEVICE, size + 3, &dev2), 0);
	CHECK_INT(axl_buffer_alloc(c, vd, AXL_MEMORY_PINNED, size + 1, &mid), 0);
	CHECK_INT(axl_buffer_alloc(c, hd, hk, size + d_o, &dst), 0);
	put(c, src, size + so, seed);
	axl_copy_path path = 0;
	CHECK_INT(axl_copy(c, q, dev, mo, src, so, size, &path, NULL), 0); /* H2D */
	CHECK_INT(path, AXL_COPY_PATH_DEVICE);
	CHECK_INT(axl_copy(c, q, dev2, 3, dev, mo, size, &path, NULL), 0); /* D2D */
	CHECK_INT(path, AXL_COPY_PATH_DEVICE);
	CHECK_INT(axl_copy(c, q, mid, 1, dev2, 3, size, &path, NULL), 0); /* D2H (pinned) */
	CHECK_INT(axl_copy(c, q, dst, d_o, mid, 1, size, &path, NULL), 0); /* host↔host in queue order */
	CHECK_INT(path, AXL_COPY_PATH_HOST);
	CHECK_INT(axl_queue_sync(c, q), 0);
	CHECK(same(c, dst, d_o, size, so, seed));
	CHECK(same(c, mid, 1, size, so, seed));
	axl_buffer bl[] = { src, dev, dev2, mid, dst };
	for (size_t i = 0; i < 5; i++)
		CHECK_INT(axl_buffer_free(c, bl[i]), 0);
	CHECK_INT(axl_queue_free(c, q), 0);
}

static void test_copies(axl_compute *c, const axl_compute_device *vd)
{
	const axl_compute_device *host = axl_compute_device_at(c, 0);
	static const uint64_t sizes[] = { 1, 2, 3, 5, 7, 63, 4095, 4097, 65537, (1u << 20) + 13, (16u << 20) + 1 };
	unsigned seed = 1;
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		/* the host CPU's host and pinned buffers (imported), and the device's own */
		round_trip(c, vd, host, AXL_MEMORY_HOST, sizes[i], 1, 5, 7, seed++);
		round_trip(c, vd, host, AXL_MEMORY_PINNED, sizes[i], 0, 2, 3, seed++);
		round_trip(c, vd, vd, AXL_MEMORY_PINNED, sizes[i], 3, 0, 1, seed++);
		round_trip(c, vd, vd, AXL_MEMORY_HOST, sizes[i], 2, 1, 0, seed++);
	}
	/* one large copy: 256 MiB each way */
	round_trip(c, vd, host, AXL_MEMORY_HOST, 256u << 20, 1, 0, 3, seed++);

	/* wrapped caller memory at an odd address */
	axl_queue q = 0;
	axl_buffer wsrc = 0, wdst = 0, dev = 0;
	size_t n = 100003;
	uint8_t *a = malloc(n + 1), *b = malloc(n + 1);
	CHECK(a && b);
	for (size_t i = 0; a && i < n; i++)
		a[i + 1] = pat(i, 99);
	CHECK_INT(axl_queue_create(c, vd, &q), 0);
	CHECK_INT(axl_buffer_wrap(c, a + 1, n, &wsrc), 0);
	CHECK_INT(axl_buffer_wrap(c, b + 1, n, &wdst), 0);
	CHECK_INT(axl_buffer_alloc(c, vd, AXL_MEMORY_DEVICE, n, &dev), 0);
	CHECK_INT(axl_copy(c, q, dev, 0, wsrc, 0, n, NULL, NULL), 0);
	CHECK_INT(axl_copy(c, q, wdst, 0, dev, 0, n, NULL, NULL), 0);
	CHECK_INT(axl_queue_sync(c, q), 0);
	CHECK(a && b && memcmp(a + 1, b + 1, n) == 0);
	CHECK_INT(axl_buffer_free(c, wsrc), 0);
	CHECK_INT(axl_buffer_free(c, wdst), 0);
	CHECK_INT(axl_buffer_free(c, dev), 0);
	CHECK_INT(axl_queue_free(c, q), 0);
	free(a);
	free(b);
}

/* Fills of device memory and of host memory at every alignment of start and size: the
 * bytes around the range keep their values. */
static void test_fills(axl_compute *c, const axl_compute_device *vd)
{
	const axl_compute_device *host = axl_compute_device_at(c, 0);
	axl_queue q = 0;
	axl_buffer dev = 0, out = 0, hb = 0;
	const uint64_t n = 4096 + 64;
	CHECK_INT(axl_queue_create(c, vd, &q), 0);
	CHECK_INT(axl_buffer_alloc(c, vd, AXL_MEMORY_DEVICE, n, &dev), 0);
	CHECK_INT(axl_buffer_alloc(c, vd, AXL_MEMORY_PINNED, n, &out), 0);
	CHECK_INT(axl_buffer_alloc(c, host, AXL_MEMORY_HOST, n, &hb), 0);
	uint8_t *o = NULL, *h = NULL;
	CHECK_INT(axl_buffer_host_pointer(c, out, (void **)&o), 0);
	CHECK_INT(axl_buffer_host_pointer(c, hb, (void **)&h), 0);
	int bad = 0;
	for (uint64_t off = 0; off < 5; off++)
		for (uint64_t len = 1; len < 12; len += (len < 9 ? 1 : 1000)) {
			uint8_t v = (uint8_t)(0xa0 + off * 11 + len);
			CHECK_INT(axl_fill(c, q, dev, 0, n, 0x11, NULL), 0);
			CHECK_INT(axl_fill(c, q, dev, off, len, v, NULL), 0);
			CHECK_INT(axl_copy(c, q, out, 0, dev, 0, n, NULL, NULL), 0);
			memset(h, 0x22, n);
			CHECK_INT(axl_fill(c, q, hb, off + 1, len, v, NULL), 0);
			CHECK_INT(axl_queue_sync(c, q), 0);
			for (uint64_t i = 0; o && h && i < n; i++) {
				bad += o[i] != (i >= off && i < off + len ? v : 0x11);
				bad += h[i] != (i >= off + 1 && i < off + 1 + len ? v : 0x22);
			}
		}
	CHECK_INT(bad, 0);
	CHECK_INT(axl_buffer_free(c, dev), 0);
	CHECK_INT(axl_buffer_free(c, out), 0);
	CHECK_INT(axl_buffer_free(c, hb), 0);
	CHECK_INT(axl_queue_free(c, q), 0);
}

static void test_events(axl_compute *c, const axl_compute_device *vd)
{
	axl_queue q = 0;
	axl_buffer a = 0, b = 0;
	axl_event e0 = 0, e1 = 0, done = 0;
	const uint64_t n = 64u << 20;
	CHECK_INT(axl_queue_create(c, vd, &q), 0);
	CHECK_INT(axl_buffer_alloc(c, vd, AXL_MEMORY_DEVICE, n, &a), 0);
	CHECK_INT(axl_buffer_alloc(c, vd, AXL_MEMORY_PINNED, n, &b), 0);
	CHECK_INT(axl_event_record(c, q, &e0), 0);
	CHECK_INT(axl_fill(c, q, a, 0, n, 7, NULL), 0);
	CHECK_INT(axl_copy(c, q, b, 0, a, 0, n, NULL, &done), 0);
	CHECK_INT(axl_event_record(c, q, &e1), 0);
	CHECK_INT(axl_event_wait(c, e1), 0);
	CHECK_INT(axl_event_wait(c, done), 0);
	int64_t ns = -1;
	CHECK_INT(axl_event_elapsed_ns(c, e0, e1, &ns), 0);
	/* a 64 MiB fill and copy on a CPU take more than 100 µs and less than a minute */
	CHECK(ns > 100000 && ns < 60000000000ll);
	printf("64 MiB fill + copy on %s: %lld ns\n", axl_compute_device_name(vd), (long long)ns);
	uint8_t *p = NULL;
	CHECK_INT(axl_buffer_host_pointer(c, b, (void **)&p), 0);
	CHECK(p && p[0] == 7 && p[n - 1] == 7 && p[n / 2 + 1] == 7);
	/* memory info: the heap's size, free no more than it */
	uint64_t fr = 0, tot = 0;
	CHECK_INT(axl_compute_device_memory(c, vd, &fr, &tot), 0);
	CHECK(tot > 0 && fr <= tot);
	CHECK_INT(axl_compute_device_sync(c, vd), 0);
	CHECK_INT(axl_event_free(c, e0), 0);
	CHECK_INT(axl_event_free(c, e1), 0);
	CHECK_INT(axl_event_free(c, done), 0);
	/* an event may outlive its queue */
	CHECK_INT(axl_event_record(c, q, &e0), 0);
	CHECK_INT(axl_queue_free(c, q), 0);
	CHECK_INT(axl_event_wait(c, e0), 0);
	CHECK_INT(axl_event_free(c, e0), 0);
	CHECK_INT(axl_buffer_free(c, a), 0);
	CHECK_INT(axl_buffer_free(c, b), 0);
}

struct worker {
	axl_compute *c;
	const axl_compute_device *vd;
	unsigned seed;
	int bad;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	axl_queue q = 0;
	axl_buffer src = 0, dev = 0, dst = 0;
	const uint64_t n = (1u << 20) + 7;
	if (axl_queue_create(w->c, w->vd, &q) || axl_buffer_alloc(w->c, w->vd, AXL_MEMORY_PINNED, n, &src) ||
	    axl_buffer_alloc(w->c, w->vd, AXL_MEMORY_DEVICE, n, &dev) ||
	    axl_buffer_alloc(w->c, axl_compute_device_at(w->c, 0), AXL_MEMORY_HOST, n, &dst)) {
		w->bad++;
		return NULL;
	}
	uint8_t *s = NULL, *d = NULL;
	axl_buffer_host_pointer(w->c, src, (void **)&s);
	axl_buffer_host_pointer(w->c, dst, (void **)&d);
	for (int round = 0; round < 20; round++) {
		for (uint64_t i = 0; i < n; i += 4093)
			s[i] = pat(i, w->seed + round);
		w->bad += axl_copy(w->c, q, dev, 0, src, 0, n, NULL, NULL) != 0;
		w->bad += axl_copy(w->c, q, dst, 0, dev, 0, n, NULL, NULL) != 0;
		w->bad += axl_queue_sync(w->c, q) != 0;
		for (uint64_t i = 0; i < n; i += 4093)
			w->bad += d[i] != pat(i, w->seed + round);
	}
	axl_buffer_free(w->c, src);
	axl_buffer_free(w->c, dev);
	axl_buffer_free(w->c, dst);
	axl_queue_free(w->c, q);
	return NULL;
}

static void test_threads(axl_compute *c, const axl_compute_device *vd)
{
	struct worker w[4];
	pthread_t t[4];
	for (unsigned i = 0; i < 4; i++) {
		w[i] = (struct worker){ c, vd, 100 + i * 7, 0 };
		CHECK_INT(pthread_create(&t[i], NULL, work, &w[i]), 0);
	}
	for (unsigned i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		CHECK_INT(w[i].bad, 0);
	}
}

/* A context on the Vulkan device with a queue, a buffer and an event, left open. Made on
 * a thread of its own: its pointers die with the thread's stack. Left on main's, a stale
 * copy of one in a frame below exit() hid the whole context from LeakSanitizer in CI. */
static void *leak_one(void *arg)
{
	(void)arg;
	struct axl_compute_options co = AXL_COMPUTE_OPTIONS_INIT;
	co.backend = "vulkan";
	axl_compute *c = NULL;
	CHECK_INT(axl_compute_open(&c, inv, &co), 0);
	const axl_compute_device *vd = c ? vk_device(c) : NULL;
	axl_queue q = 0;
	axl_buffer b = 0;
	axl_event e = 0;
	if (vd && axl_queue_create(c, vd, &q) == 0 && axl_buffer_alloc(c, vd, AXL_MEMORY_DEVICE, 1u << 20, &b) == 0)
		CHECK_INT(axl_fill(c, q, b, 0, 1u << 20, 0x5a, &e), 0);
	return NULL;
}

int main(void)
{
	struct axl_context_options o = AXL_CONTEXT_OPTIONS_INIT;
	o.flags = AXL_CONTEXT_NO_ENV;
	o.sim = AXL_TEST_SIM;
	/* lavapipe under the sanitizers on a loaded 2-core machine once took more than the
	 * default 5 s for a queue sync (and every later call failed as hung): a deadline for
	 * a slow software device, not a hung one */
	static const char *const env[] = { "AXL_VENDOR_TIMEOUT_MS=60000", NULL };
	o.env = env;
	CHECK_INT(axl_context_open(&ctx, &o), 0);
	CHECK_INT(axl_inventory_open(&inv, ctx, 0), 0);
	struct axl_compute_options co = AXL_COMPUTE_OPTIONS_INIT;
	co.backend = "vulkan";
	axl_compute *c = NULL;
	CHECK_INT(axl_compute_open(&c, inv, &co), 0);
	const axl_compute_device *vd = c ? vk_device(c) : NULL;
	if (!vd) {
		axl_compute_free(c);
		axl_inventory_free(inv);
		axl_context_free(ctx);
		if (lavapipe_installed()) {
			fprintf(stderr, "lavapipe is installed but the vulkan backend found no llvmpipe device\n");
			return 1;
		}
		printf("SKIP: no lavapipe (mesa-vulkan-drivers) here\n");
		return 77;
	}
	/* a software device: no inventory device; not driven without asking by name */
	CHECK(axl_compute_device_inventory(vd) == NULL);
	axl_compute *plain = NULL;
	CHECK_INT(axl_compute_open(&plain, inv, NULL), 0);
	CHECK(plain && vk_device(plain) == NULL);
	axl_compute_free(plain);

	test_copies(c, vd);
	test_fills(c, vd);
	test_events(c, vd);
	test_threads(c, vd);
	/* axl_event_notify (a thread of libaxl's waits on the fence): one left to the close */
	int pending[2];
	axl_event left = 0;
	notify_on_device(c, vd, AXL_MEMORY_PINNED, pending, &left);
	axl_compute_free(c);
	notify_came(pending, left);
	/* AXL_TEST_LEAK_COMPUTE=1 leaves a context open: under LeakSanitizer the run must
	 * then fail (unit.test_compute_vulkan.leak_found), proving that keeping Vulkan's
	 * drivers loaded (compute/vulkan.c) hides none of axl's own objects */
	if (getenv("AXL_TEST_LEAK_COMPUTE")) {
		pthread_t t;
		CHECK_INT(pthread_create(&t, NULL, leak_one, NULL), 0);
		pthread_join(t, NULL);
	}
	axl_inventory_free(inv);
	axl_context_free(ctx);
	return check_summary();
}
