/* SPDX-License-Identifier: MIT */
/*
 * The cuda compute backend (src/lib/backend/nvidia/cuda_compute.c) over the CUDA double,
 * through the compute API, on the recorded HGX H100 node (8 GPUs). The double lists the
 * same GPUs in reverse order and without UUIDs (make_inputs.py), so only PCI addresses
 * can match them. One case per process: the double reads its fault variables once.
 *   test_compute_cuda CASE INPUTS DOUBLE.so OLD_DOUBLE.so
 * CASE: basic (devices, choice of backend, copies, fills, events, syncs, memory info,
 * threads, bad input), peer, staged (P2P off), oom, lost, hang, hang_event
 * (notifications), notice_writing, old (an old driver).
 */
#define _GNU_SOURCE /* setenv, clock_gettime */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "axl.h"
#include "check.h"
#include "compute/notify_check.h"

#define NGPU 8

static const char *inputs, *lib_now, *lib_old;
static axl_context *ctx;
static axl_inventory *inv;

static uint8_t pat(uint64_t i, unsigned seed)
{
	uint64_t x = (i + 1) * 0x9e3779b97f4a7c15ull + seed;
	return (uint8_t)(x >> 56 ^ x >> 29 ^ x);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A context on the recorded node with lib as AXL_CUDA_LIBRARY and extra variables. */
static void open_node_env(axl_context **cx, axl_inventory **iv, const char *lib, const char *extra1, const char *extra2)
{
	static char tree[4096], libvar[4096];
	snprintf(tree, sizeof tree, "%s/tree", inputs);
	snprintf(libvar, sizeof libvar, "AXL_CUDA_LIBRARY=%s", lib);
	const char *env[] = { libvar, "AXL_VENDOR_TIMEOUT_MS=300", extra1, extra2, NULL };
	if (!extra1)
		env[2] = extra2, env[3] = NULL;
	struct axl_context_options o = AXL_CONTEXT_OPTIONS_INIT;
	o.flags = AXL_CONTEXT_NO_ENV;
	o.sysroot = tree;
	o.env = env;
	CHECK_INT(axl_context_open(cx, &o), 0);
	CHECK_INT(axl_inventory_open(iv, *cx, 0), 0);
}

static const char *pci_of(const axl_device *d)
{
	const char *p = NULL;
	return axl_device_get_str(d, AXL_ATTR_PCI_ADDRESS, &p) == 0 && p ? p : "?";
}

/* The inventory's GPU i (nvidia:i, in PCI order) and its compute device. */
static const axl_device *inv_gpu(axl_inventory *iv, int i)
{
	char id[32];
	snprintf(id, sizeof id, "nvidia:%d", i);
	for (size_t k = 0; k < axl_inventory_device_count(iv); k++) {
		const char *s = NULL;
		if (axl_device_get_str(axl_inventory_device(iv, k), AXL_ATTR_ID, &s) == 0 && s && strcmp(s, id) == 0)
			return axl_inventory_device(iv, k);
	}
	return NULL;
}

static const axl_compute_device *gpu(axl_compute *c, int i)
{
	return axl_compute_device_of(c, inv_gpu(inv, i));
}

static axl_compute *open_cuda(void)
{
	axl_compute *c = NULL;
	struct axl_compute_options co = AXL_COMPUTE_OPTIONS_INIT;
	co.backend = "cuda";
	CHECK_INT(axl_compute_open(&c, inv, &co), 0);
	return c;
}

static void fill_pattern(axl_compute *c, axl_buffer b, uint64_t n, unsigned seed)
{
	uint8_t *p = NULL;
	CHECK_INT(axl_buffer_host_pointer(c, b, (void **)&p), 0);
	for (uint64_t i = 0; p && i < n; i++)
		p[i] = pat(i, seed);
}

/* bytes [off, off+n) of host buffer b hold the pattern of seed from pos */
static int same(axl_compute *c, axl_buffer b, uint64_t off, uint64_t n, unsigned seed, uint64_t pos)
{
	uint8_t *p = NULL;
	if (axl_buffer_host_pointer(c, b, (void **)&p) || !p)
		return 0;
	for (uint64_t i = 0; i < n; i++)
		if (p[off + i] != pat(pos + i, seed))
			return 0;
	return 1;
}

/* ---- basic ---------------------------------------------------------------------------- */
static void test_devices(void)
{
	axl_compute *c = NULL;
	CHECK_INT(axl_compute_open(&c, inv, NULL), 0); /* by priority: cuda drives the GPUs */
	CHECK_INT(axl_compute_device_count(c), 1 + NGPU);
	CHECK_STR(axl_compute_device_backend(axl_compute_device_at(c, 0)), "cpu");
	for (int i = 0; i < NGPU; i++) {
		const axl_compute_device *d = gpu(c, i);
		CHECK(d != NULL);
		if (!d)
			continue;
		CHECK(axl_compute_device_inventory(d) == inv_gpu(inv, i));
		CHECK_STR(axl_compute_device_backend(d), "cuda");
		CHECK_STR(axl_compute_device_name(d), "NVIDIA H100 80GB HBM3");
		uint64_t fr = 0, tot = 0;
		CHECK_INT(axl_compute_device_memory(c, d, &fr, &tot), 0);
		CHECK(tot == 81559ull << 20 && fr == tot); /* <fb_memory_usage><total> of the capture */
		/* the device CUDA calls this one is the one at the inventory's PCI address:
		 * its out-of-memory error names it (CUDA's ordinal is 7 - i here) */
		axl_buffer b = 0;
		CHECK_INT(axl_buffer_alloc(c, d, AXL_MEMORY_DEVICE, tot + 1, &b), AXL_ENOMEM);
		char want[64];
		snprintf(want, sizeof want, "cuda device %d (%s)", NGPU - 1 - i, pci_of(inv_gpu(inv, i)));
		CHECK(strstr(axl_error_last(), want) != NULL);
		CHECK(strstr(axl_error_last(), "cuMemAlloc_v2") &&
		      strstr(axl_error_last(), "85520809985 bytes asked") &&
		      strstr(axl_error_last(), "85520809984 of 85520809984 free"));
		CHECK_INT(axl_compute_device_sync(c, d), 0);
	}
	axl_compute_free(c);

	/* the option and $AXL_COMPUTE pick it; without its library only the host is left */
	c = open_cuda();
	CHECK_INT(axl_compute_device_count(c), 1 + NGPU);
	axl_compute_free(c);
	axl_context *x = NULL;
	axl_inventory *xi = NULL;
	open_node_env(&x, &xi, lib_now, "AXL_COMPUTE=cuda", "CUDA_VISIBLE_DEVICES=1,6");
	CHECK_INT(axl_compute_open(&c, xi, NULL), 0);
	/* only the visible GPUs are driven */
	CHECK_INT(axl_compute_device_count(c), 3);
	for (int i = 0; i < NGPU; i++) {
		int64_t vis = 1;
		axl_device_get_int(inv_gpu(xi, i), AXL_ATTR_VISIBLE, &vis);
		CHECK((axl_compute_device_of(c, inv_gpu(xi, i)) != NULL) == (vis != 0));
		CHECK((vis != 0) == (i == 1 || i == 6));
	}
	axl_compute_free(c);
	axl_inventory_free(xi);
	axl_context_free(x);
	open_node_env(&x, &xi, "/nonexistent/libcuda.so.1", "AXL_COMPUTE=cuda", NULL);
	CHECK_INT(axl_compute_open(&c, xi, NULL), 0);
	CHECK_INT(axl_compute_device_count(c), 1);
	axl_compute_free(c);
	axl_inventory_free(xi);
	axl_context_free(x);
}

static void test_copies(void)
{
	axl_compute *c = open_cuda();
	const axl_compute_device *d = gpu(c, 0);
	axl_queue q = 0;
	CHECK_INT(axl_queue_create(c, d, &q), 0);
	static const uint64_t sizes[] = { 1, 3, 511, 4097, 65537, (1u << 20) + 7, (64u << 20) + 3, 200u << 20 };
	for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
		uint64_t n = sizes[s], cap = n + 64;
		unsigned seed = (unsigned)s + 1;
		axl_buffer h = 0, p = 0, h2 = 0, d1 = 0, d2 = 0;
		CHECK_INT(axl_buffer_alloc(c, d, AXL_MEMORY_HOST, cap, &h), 0);
		CHECK_INT(axl_buffer_alloc(c, d, AXL_MEMORY_PINNED, cap, &p), 0);
		CHECK_INT(axl_buffer_alloc(c, d, AXL_MEMORY_HOST, cap, &h2), 0);
		CHECK_INT(axl_buffer_alloc(c, d, AXL_MEMORY_DEVICE, cap, &d1), 0);
		CHECK_INT(axl_buffer_alloc(c, d, AXL_MEMORY_DEVICE, cap, &d2), 0);
		fill_pattern(c, h, cap, seed);
		axl_copy_path path = 0;
		/* host -> device -> device -> pinned -> host, at odd offsets */
		CHECK_INT(axl_copy(c, q, d1, 5, h, 1, n, &path, NULL), 0);
		CHECK_INT(path, AXL_COPY_PATH_DEVICE);
		CHECK_INT(axl_copy(c, q, d2, 17, d1, 5, n, &path, NULL), 0);
		CHECK_INT(path, AXL_COPY_PATH_DEVICE);
		CHECK_INT(axl_copy(c, q, p, 3, d2, 17, n, &path, NULL), 0);
		CHECK_INT(path, AXL_COPY_PATH_DEVICE);
		CHECK_INT(axl_copy(c, q, h2, 7, p, 3, n, &path, NULL), 0);
		CHECK_INT(path, AXL_COPY_PATH_HOST);
		CHECK_INT(axl_queue_sync(c, q), 0);
		CHECK(same(c, p, 3, n, seed, 1));
		CHECK(same(c, h2, 7, n, seed, 1));
		/* a fill in device memory, seen through a copy back */
		uint64_t fo = n > 2 ? 1 : 0, fl = n > 2 ? n - 2 : n;
		CHECK_INT(axl_fill(c, q, d2, 17 + fo, fl, 0xa5, NULL), 0);
		CHECK_INT(axl_fill(c, q, h2, 0, cap, 0x11, NULL), 0); /* host memory, in queue order */
		CHECK_INT(axl_copy(c, q, h2, 0, d2, 17, n, NULL, NULL), 0);
		CHECK_INT(axl_queue_sync(c, q), 0);
		uint8_t *r = NULL;
		axl_buffer_host_pointer(c, h2, (void **)&r);
		int ok = r != NULL;
		for (uint64_t i = 0; r && i < cap; i++) {
			uint8_t want = i >= n ? 0x11 : (i >= fo && i < fo + fl) ? 0xa5 : pat(1 + i, seed);
			ok &= r[i] == want;
		}
		CHECK(ok);
		CHECK_INT(axl_buffer_free(c, d2), 0);
		CHECK_INT(axl_buffer_free(c, d1), 0);
		CHECK_INT(axl_buffer_free(c, h2), 0);
		CHECK_INT(axl_buffer_free(c, p), 0);
		CHECK_INT(axl_buffer_free(c, h), 0);
	}

	/* events around a large copy, and memory info following allocations */
	uint64_t fr0 = 0, fr1 = 0, tot = 0;
	CHECK_INT(axl_compute_device_memory(c, d, &fr0, &tot), 0);
	axl_buffer big = 0, hb = 0;
	CHECK_INT(axl_buffer_alloc(c, d, AXL_MEMORY_DEVICE, 256u << 20, &big), 0);
	CHECK_INT(axl_buffer_alloc(c, d, AXL_MEMORY_PINNED, 256u << 20, &hb), 0);
	CHECK_INT(axl_compute_device_memory(c, d, &fr1, &tot), 0);
	CHECK_INT(fr0 - fr1, 256u << 20);
	axl_event e0 = 0, e1 = 0, e2 = 0;
	CHECK_INT(axl_event_record(c, q, &e0), 0);
	CHECK_INT(axl_copy(c, q, big, 0, hb, 0, 256u << 20, NULL, &e1), 0);
	CHECK_INT(axl_event_record(c, q, &e2), 0);
	CHECK_INT(axl_event_wait(c, e2), 0);
	int64_t ns = -1, ns2 = -1;
	CHECK_INT(axl_event_elapsed_ns(c, e0, e2, &ns), 0);
	CHECK_INT(axl_event_elapsed_ns(c, e0, e1, &ns2), 0);
	CHECK(ns > 0 && ns < 60ll * 1000000000 && ns2 > 0 && ns2 <= ns);
	CHECK_INT(axl_event_free(c, e0), 0);
	CHECK_INT(axl_event_free(c, e1), 0);
	CHECK_INT(axl_event_free(c, e2), 0);
	CHECK_INT(axl_buffer_free(c, big), 0);
	CHECK_INT(axl_buffer_free(c, hb), 0);
	CHECK_INT(axl_compute_device_memory(c, d, &fr1, &tot), 0);
	CHECK_INT(fr1, fr0);
	CHECK_INT(axl_compute_device_sync(c, d), 0);
	CHECK_INT(axl_queue_free(c, q), 0);
	axl_compute_free(c);
}

struct worker {
	axl_compute *c;
	const axl_compute_device *d;
	unsigned seed;
	int fails;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	axl_queue q = 0;
	uint64_t n = (1u << 20) + w->seed;
	axl_buffer h = 0, dv = 0, back = 0;
	if (axl_queue_create(w->c, w->d, &q) || axl_buffer_alloc(w->c, w->d, AXL_MEMORY_PINNED, n, &h) ||
	    axl_buffer_alloc(w->c, w->d, AXL_MEMORY_DEVICE, n, &dv) ||
	    axl_buffer_alloc(w->c, w->d, AXL_MEMORY_HOST, n, &back)) {
		w->fails++;
		return NULL;
	}
	for (int round = 0; round < 20; round++) {
		uint8_t *p = NULL;
		axl_buffer_host_pointer(w->c, h, (void **)&p);
		for (uint64_t i = 0; i < n; i++)
			p[i] = pat(i, w->seed * 100 + (unsigned)round);
		if (axl_copy(w->c, q, dv, 0, h, 0, n, NULL, NULL) || axl_copy(w->c, q, back, 0, dv, 0, n, NULL, NULL) ||
		    axl_queue_sync(w->c, q) || !same(w->c, back, 0, n, w->seed * 100 + (unsigned)round, 0))
			w->fails++;
	}
	axl_buffer_free(w->c, h);
	axl_buffer_free(w->c, dv);
	axl_buffer_free(w->c, back);
	axl_queue_free(w->c, q);
	return NULL;
}

static void test_threads(void)
{
	axl_compute *c = open_cuda();
	struct worker w[6];
	pthread_t t[6];
	for (int i = 0; i < 6; i++) {
		w[i] = (struct worker){ c, gpu(c, i % 3), (unsigned)i + 1, 0 };
		CHECK_INT(pthread_create(&t[i], NULL, work, &w[i]), 0);
	}
	for (int i = 0; i < 6; i++) {
		pthread_join(t[i], NULL);
		CHECK_INT(w[i].fails, 0);
	}
	axl_compute_free(c);
}

static void test_bad(void)
{
	axl_compute *c = open_cuda(), *c2 = open_cuda();
	const axl_compute_device *d = gpu(c, 0), *other = gpu(c2, 0), *d1 = gpu(c, 1);
	axl_buffer b = 0, b1 = 0, h = 0;
	axl_queue q = 0;
	CHECK_INT(axl_buffer_alloc(c, other, AXL_MEMORY_DEVICE, 64, &b), AXL_EINVAL); /* another context's */
	CHECK_INT(axl_queue_create(c, other, &q), AXL_EINVAL);
	CHECK_INT(axl_buffer_alloc(c, d, AXL_MEMORY_DEVICE, 0, &b), AXL_EINVAL);
	CHECK_INT(axl_buffer_alloc(c, d, AXL_MEMORY_DEVICE, 64, &b), 0);
	CHECK_INT(axl_buffer_alloc(c, d1, AXL_MEMORY_DEVICE, 64, &b1), 0);
	CHECK_INT(axl_buffer_alloc(c, d, AXL_MEMORY_HOST, 64, &h), 0);
	CHECK_INT(axl_queue_create(c, d, &q), 0);
	CHECK_INT(axl_copy(c, q, b, 1, h, 0, 64, NULL, NULL), AXL_EINVAL); /* past the end */
	CHECK_INT(axl_copy(c, q, b, 0, h, 0, 0, NULL, NULL), AXL_EINVAL);  /* nothing */
	CHECK_INT(axl_fill(c, q, b1, 0, 64, 1, NULL), AXL_EINVAL);         /* another device's memory */
	CHECK_INT(axl_copy(c, q, b, 0, b, 8, 16, NULL, NULL), AXL_EINVAL); /* overlapping */
	void *ptr = NULL;
	CHECK_INT(axl_buffer_host_pointer(c, b, &ptr), AXL_EINVAL); /* device memory has none */
	axl_queue q2 = 0;
	CHECK_INT(axl_queue_create(c2, other, &q2), 0);
	CHECK_INT(axl_copy(c, q2, b, 0, h, 0, 64, NULL, NULL), AXL_EINVAL); /* another context's queue */
	CHECK_INT(axl_queue_sync(c, q), 0);
	CHECK_INT(axl_buffer_free(c, b), 0);
	CHECK_INT(axl_buffer_free(c, b), AXL_EINVAL);
	axl_compute_free(c2);
	axl_compute_free(c);
}

/* ---- two GPUs ------------------------------------------------------------------------- */
/* A copy from GPU 2's memory to GPU 5's (on a queue of either), verified byte for byte. */
static void two_gpus(axl_copy_path want)
{
	axl_compute *c = open_cuda();
	const axl_compute_device *a = gpu(c, 2), *b = gpu(c, 5);
	static const uint64_t sizes[] = { 1, 4099, (3u << 20) + 1, 100u << 20 };
	for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
		uint64_t n = sizes[s];
		axl_queue qa = 0, qb = 0;
		axl_buffer h = 0, da = 0, db = 0, back = 0;
		CHECK_INT(axl_queue_create(c, a, &qa), 0);
		CHECK_INT(axl_queue_create(c, b, &qb), 0);
		CHECK_INT(axl_buffer_alloc(c, a, AXL_MEMORY_PINNED, n + 8, &h), 0);
		CHECK_INT(axl_buffer_alloc(c, a, AXL_MEMORY_DEVICE, n + 8, &da), 0);
		CHECK_INT(axl_buffer_alloc(c, b, AXL_MEMORY_DEVICE, n + 8, &db), 0);
		CHECK_INT(axl_buffer_alloc(c, b, AXL_MEMORY_HOST, n + 8, &back), 0);
		fill_pattern(c, h, n + 8, (unsigned)s + 9);
		CHECK_INT(axl_copy(c, qa, da, 3, h, 0, n, NULL, NULL), 0);
		CHECK_INT(axl_queue_sync(c, qa), 0);
		axl_copy_path path = 0;
		/* on a's queue, then back the other way on b's */
		CHECK_INT(axl_copy(c, s % 2 ? qb : qa, db, 1, da, 3, n, &path, NULL), 0);
		CHECK_INT(path, want);
		CHECK_INT(axl_queue_sync(c, s % 2 ? qb : qa), 0);
		CHECK_INT(axl_copy(c, qb, back, 5, db, 1, n, NULL, NULL), 0);
		CHECK_INT(axl_queue_sync(c, qb), 0);
		CHECK(same(c, back, 5, n, (unsigned)s + 9, 0));
		CHECK_INT(axl_fill(c, qa, da, 0, n + 8, 0, NULL), 0);
		CHECK_INT(axl_copy(c, qb, da, 2, db, 1, n, &path, NULL), 0);
		CHECK_INT(path, want);
		CHECK_INT(axl_queue_sync(c, qb), 0);
		CHECK_INT(axl_copy(c, qa, h, 0, da, 2, n, NULL, NULL), 0);
		CHECK_INT(axl_queue_sync(c, qa), 0);
		CHECK(same(c, h, 0, n, (unsigned)s + 9, 0));
		axl_buffer_free(c, h);
		axl_buffer_free(c, da);
		axl_buffer_free(c, db);
		axl_buffer_free(c, back);
		axl_queue_free(c, qa);
		axl_queue_free(c, qb);
	}
	axl_compute_free(c);
}

/* ---- faults --------------------------------------------------------------------------- */
static void test_oom(void)
{
	axl_compute *c = open_cuda();
	const axl_compute_device *d = gpu(c, 3);
	axl_buffer b = 0;
	CHECK_INT(axl_buffer_alloc(c, d, AXL_MEMORY_DEVICE, 4096, &b), 0);
	CHECK_INT(axl_buffer_free(c, b), 0);
	CHECK_INT(axl_buffer_alloc(c, d, AXL_MEMORY_DEVICE, 3u << 20, &b), AXL_ENOMEM);
	const char *e = axl_error_last();
	CHECK(strstr(e, "3145728 bytes asked") && strstr(e, "85520809984 of 85520809984 free") &&
	      strstr(e, "cuMemAlloc_v2") && strstr(e, "CUDA_ERROR_OUT_OF_MEMORY") &&
	      strstr(e, pci_of(inv_gpu(inv, 3))));
	CHECK_INT(axl_buffer_alloc(c, d, AXL_MEMORY_PINNED, 3u << 20, &b), AXL_ENOMEM);
	CHECK(strstr(axl_error_last(), "cuMemHostAlloc") && strstr(axl_error_last(), "3145728 bytes asked"));
	CHECK_INT(axl_buffer_alloc(c, d, AXL_MEMORY_PINNED, 1u << 20, &b), 0); /* below the limit */
	CHECK_INT(axl_buffer_free(c, b), 0);
	axl_compute_free(c);
}

static void test_lost(void)
{
	axl_compute *c = open_cuda();
	const axl_compute_device *d0 = gpu(c, 0), *d1 = gpu(c, 1);
	axl_queue q0 = 0, q1 = 0;
	axl_buffer h = 0, a = 0, b = 0, back = 0;
	uint64_t n = 1u << 20;
	CHECK_INT(axl_queue_create(c, d0, &q0), 0);
	CHECK_INT(axl_queue_create(c, d1, &q1), 0);
	CHECK_INT(axl_buffer_alloc(c, d0, AXL_MEMORY_PINNED, n, &h), 0);
	CHECK_INT(axl_buffer_alloc(c, d0, AXL_MEMORY_DEVICE, n, &a), 0);
	CHECK_INT(axl_buffer_alloc(c, d1, AXL_MEMORY_DEVICE, n, &b), 0);
	CHECK_INT(axl_buffer_alloc(c, d1, AXL_MEMORY_HOST, n, &back), 0);
	fill_pattern(c, h, n, 4);
	/* AXL_CUDA_DOUBLE_LOST_AFTER=2: the third copy loses its destination's device */
	CHECK_INT(axl_copy(c, q0, a, 0, h, 0, n, NULL, NULL), 0);
	CHECK_INT(axl_copy(c, q0, a, 0, h, 0, n, NULL, NULL), 0);
	CHECK_INT(axl_copy(c, q0, a, 0, h, 0, n, NULL, NULL), AXL_EDEVLOST);
	CHECK(strstr(axl_error_last(), "cuMemcpyHtoDAsync_v2") && strstr(axl_error_last(), pci_of(inv_gpu(inv, 0))));
	CHECK_INT(axl_queue_sync(c, q0), AXL_EDEVLOST);
	CHECK_INT(axl_copy(c, q0, h, 0, a, 0, n, NULL, NULL), AXL_EDEVLOST);
	/* the other GPU still works */
	CHECK_INT(axl_copy(c, q1, b, 0, h, 0, n, NULL, NULL), 0);
	CHECK_INT(axl_copy(c, q1, back, 0, b, 0, n, NULL, NULL), 0);
	CHECK_INT(axl_queue_sync(c, q1), 0);
	CHECK(same(c, back, 0, n, 4, 0));
	uint64_t fr = 0, tot = 0;
	CHECK_INT(axl_compute_device_memory(c, d1, &fr, &tot), 0);
	CHECK_INT(axl_compute_device_memory(c, d0, &fr, &tot), AXL_EDEVLOST);
	axl_compute_free(c); /* frees the lost device's objects too */
}

static void test_hang(void)
{
	axl_compute *c = open_cuda();
	const axl_compute_device *d = gpu(c, 0);
	const axl_compute_device *host = axl_compute_device_at(c, 0);
	axl_queue q = 0, hq = 0;
	axl_buffer h = 0, dv = 0, h2 = 0;
	CHECK_INT(axl_queue_create(c, d, &q), 0);
	CHECK_INT(axl_buffer_alloc(c, d, AXL_MEMORY_HOST, 4096, &h), 0);
	CHECK_INT(axl_buffer_alloc(c, d, AXL_MEMORY_DEVICE, 4096, &dv), 0);
	CHECK_INT(axl_buffer_alloc(c, host, AXL_MEMORY_HOST, 4096, &h2), 0);
	CHECK_INT(axl_copy(c, q, dv, 0, h, 0, 4096, NULL, NULL), 0);
	/* AXL_CUDA_DOUBLE_HANG=cuStreamSynchronize under a 300 ms deadline */
	double t0 = now_s();
	CHECK_INT(axl_queue_sync(c, q), AXL_ETIMEDOUT);
	double t1 = now_s();
	CHECK(t1 - t0 >= 0.25 && t1 - t0 < 3.0);
	CHECK(strstr(axl_error_last(), "cuStreamSynchronize") != NULL);
	/* the library is wedged: its blocking calls fail at once, the host carries on */
	CHECK_INT(axl_buffer_alloc(c, d, AXL_MEMORY_DEVICE, 4096, &dv), AXL_ETIMEDOUT);
	CHECK(now_s() - t1 < 1.0);
	CHECK_INT(axl_queue_create(c, host, &hq), 0);
	CHECK_INT(axl_copy(c, hq, h2, 0, h, 0, 4096, NULL, NULL), 0);
	CHECK_INT(axl_queue_sync(c, hq), 0);
	axl_compute_free(c);
	CHECK(now_s() - t1 < 2.0);
}

/* A context with a queue, 1 MiB of pinned memory and 1 MiB of device memory on GPU 0. */
static axl_compute *open_copy_pair(axl_queue *q, axl_buffer *h, axl_buffer *dv)
{
	axl_compute *c = open_cuda();
	const axl_compute_device *d = gpu(c, 0);
	CHECK_INT(axl_queue_create(c, d, q), 0);
	CHECK_INT(axl_buffer_alloc(c, d, AXL_MEMORY_PINNED, 1 << 20, h), 0);
	CHECK_INT(axl_buffer_alloc(c, d, AXL_MEMORY_DEVICE, 1 << 20, dv), 0);
	return c;
}

/* axl_event_notify over the double: a copy's handle comes (a thread of libaxl's calls
 * cuEventSynchronize directly); then, with cuEventSynchronize hanging
 * (AXL_CUDA_DOUBLE_HANG), nothing comes, the event's wait and free each say so within
 * the 300 ms deadline, the runtime is wedged, and a later notification comes at once
 * with the wedged runtime's error. */
static void test_hang_event(void)
{
	axl_queue q = 0;
	axl_buffer h = 0, dv = 0;
	axl_compute *c = open_copy_pair(&q, &h, &dv);
	notify_check(c, q, h, dv, 1 << 20);

	setenv("AXL_CUDA_DOUBLE_HANG", "cuEventSynchronize", 1); /* read at each call */
	int p[2];
	CHECK_INT(pipe(p), 0);
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	axl_event e = 0;
	CHECK_INT(axl_copy(c, q, h, 0, dv, 0, 4096, NULL, &e), 0);
	CHECK_INT(axl_event_notify(c, e, p[1]), 0);
	uint64_t got[4];
	CHECK_INT(notify_read(p[0], got, 4, 400), 0);
	double t0 = now_s();
	CHECK_INT(axl_event_wait(c, e), AXL_ETIMEDOUT);
	CHECK(strstr(axl_error_last(), "cuEventSynchronize") != NULL);
	CHECK_INT(axl_event_free(c, e), AXL_ETIMEDOUT);
	CHECK(strstr(axl_error_last(), "left to the runtime") != NULL);
	double t = now_s() - t0;
	CHECK(t >= 0.5 && t < 3.0);
	CHECK_INT(notify_read(p[0], got, 4, 100), 0);

	CHECK_INT(axl_event_record(c, q, &e), 0);
	CHECK_INT(axl_event_notify(c, e, p[1]), 0);
	CHECK_INT(notify_read(p[0], got, 1, 2000), 1);
	CHECK(got[0] == e);
	CHECK_INT(axl_event_wait(c, e), AXL_ETIMEDOUT);
	CHECK_INT(axl_event_free(c, e), 0);
	t0 = now_s();
	axl_compute_free(c);
	CHECK(now_s() - t0 < 2.0);
	close(p[0]);
	close(p[1]);
	unsetenv("AXL_CUDA_DOUBLE_HANG");
}

/* Is a thread of this process blocked in write(fd, ...)? 1 yes, 0 no, -1 when the kernel
 * does not say (/proc/PID/task/TID/syscall: the call's number and arguments). */
static int writing_to(int fd)
{
	DIR *d = opendir("/proc/self/task");
	if (!d)
		return -1;
	int found = 0, said = 0;
	struct dirent *de;
	while (!found && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char path[64], line[256];
		snprintf(path, sizeof path, "/proc/self/task/%s/syscall", de->d_name);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		long nr = -1;
		unsigned long a0 = 0;
		if (fgets(line, sizeof line, f) && sscanf(line, "%ld %lx", &nr, &a0) >= 1)
			said = 1;
		fclose(f);
		found = nr == SYS_write && a0 == (unsigned long)fd;
	}
	closedir(d);
	return found ? 1 : said ? 0 : -1;
}

/* A handle still being written (the pipe is full: libaxl's thread is in write()) is an
 * event that has completed: its wait says how it ended without asking the runtime again
 * (here that would hang: AXL_CUDA_DOUBLE_HANG=cuEventSynchronize under a 300 ms deadline),
 * and its free waits only for the write, once the reader makes room. */
static void test_notice_writing(void)
{
	axl_queue q = 0;
	axl_buffer h = 0, dv = 0;
	axl_compute *c = open_copy_pair(&q, &h, &dv);
	int p[2];
	CHECK_INT(pipe(p), 0);
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	/* fill the pipe through a second, non-blocking open of its write end */
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", p[1]);
	int fill = open(path, O_WRONLY | O_NONBLOCK);
	CHECK(fill >= 0);
	size_t filled = 0;
	char zeros[4096] = { 0 };
	for (size_t chunk = sizeof zeros; chunk; chunk /= 2) {
		ssize_t w;
		while ((w = write(fill, zeros, chunk)) > 0)
			filled += (size_t)w;
		CHECK(errno == EAGAIN);
	}
	close(fill);

	axl_event e = 0;
	CHECK_INT(axl_copy(c, q, h, 0, dv, 0, 4096, NULL, &e), 0);
	CHECK_INT(axl_event_notify(c, e, p[1]), 0);
	int w = 0;
	for (double t0 = now_s(); (w = writing_to(p[1])) == 0 && now_s() - t0 < 20;)
		usleep(1000);
	if (w < 0) {
		printf("notice_writing: this kernel does not show a thread's system call; not checked\n");
	} else {
		CHECK_INT(w, 1);
		setenv("AXL_CUDA_DOUBLE_HANG", "cuEventSynchronize", 1); /* read at each call */
		CHECK_INT(axl_event_wait(c, e), 0);
		unsetenv("AXL_CUDA_DOUBLE_HANG");
	}
	/* the reader makes room: the handle comes after the filling */
	size_t n = 0;
	uint64_t last = 0;
	unsigned char buf[8192];
	for (double t0 = now_s(); n < filled + 8 && now_s() - t0 < 20;) {
		ssize_t r = read(p[0], buf, sizeof buf);
		if (r <= 0) {
			usleep(1000);
			continue;
		}
		for (ssize_t i = 0; i < r; i++, n++)
			if (n >= filled)
				((unsigned char *)&last)[n - filled] = buf[i];
	}
	CHECK(n == filled + 8);
	CHECK(last == e);
	CHECK_INT(axl_event_free(c, e), 0);
	CHECK_INT(axl_buffer_free(c, h), 0);
	CHECK_INT(axl_buffer_free(c, dv), 0);
	axl_compute_free(c);
	close(p[0]);
	close(p[1]);
}

/* An old driver: no cuMemcpyPeerAsync, cuDeviceGetUuid_v2, cuMemGetInfo_v2 or
 * cuDevicePrimaryCtxRelease_v2; the older calls are used. */
static void test_old(void)
{
	axl_compute *c = NULL;
	CHECK_INT(axl_compute_open(&c, inv, NULL), 0);
	CHECK_INT(axl_compute_device_count(c), 1 + NGPU);
	uint64_t fr = 0, tot = 0;
	CHECK_INT(axl_compute_device_memory(c, gpu(c, 4), &fr, &tot), 0);
	CHECK_INT(tot, UINT_MAX); /* cuMemGetInfo's 32-bit counts */
	axl_compute_free(c);
	two_gpus(AXL_COPY_PATH_PEER); /* cuMemcpyDtoDAsync_v2 across devices */
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: test_compute_cuda CASE INPUTS DOUBLE.so OLD_DOUBLE.so\n");
		return 2;
	}
	const char *cs = argv[1];
	inputs = argv[2];
	lib_now = argv[3];
	lib_old = argv[4];
	char xml[4096];
	snprintf(xml, sizeof xml, "%s/cuda.xml", inputs);
	/* the double reads its variables from the process (the first cuInit) */
	setenv("AXL_CUDA_DOUBLE_XML", xml, 1);
	if (strcmp(cs, "staged") == 0)
		setenv("AXL_CUDA_DOUBLE_P2P", "0", 1);
	if (strcmp(cs, "oom") == 0)
		setenv("AXL_CUDA_DOUBLE_OOM_AT", "0x200000", 1);
	if (strcmp(cs, "lost") == 0)
		setenv("AXL_CUDA_DOUBLE_LOST_AFTER", "2", 1);
	if (strcmp(cs, "hang") == 0)
		setenv("AXL_CUDA_DOUBLE_HANG", "cuStreamSynchronize", 1);
	open_node_env(&ctx, &inv, strcmp(cs, "old") == 0 ? lib_old : lib_now, NULL, NULL);
	if (strcmp(cs, "basic") == 0) {
		test_devices();
		test_copies();
		test_threads();
		test_bad();
	} else if (strcmp(cs, "peer") == 0) {
		two_gpus(AXL_COPY_PATH_PEER);
	} else if (strcmp(cs, "staged") == 0) {
		two_gpus(AXL_COPY_PATH_STAGED);
	} else if (strcmp(cs, "oom") == 0) {
		test_oom();
	} else if (strcmp(cs, "lost") == 0) {
		test_lost();
	} else if (strcmp(cs, "hang") == 0) {
		test_hang();
	} else if (strcmp(cs, "hang_event") == 0) {
		test_hang_event();
	} else if (strcmp(cs, "notice_writing") == 0) {
		test_notice_writing();
	} else if (strcmp(cs, "old") == 0) {
		test_old();
	} else {
		fprintf(stderr, "test_compute_cuda: no case %s\n", cs);
		return 2;
	}
	axl_inventory_free(inv);
	axl_context_free(ctx);
	return check_summary();
}
