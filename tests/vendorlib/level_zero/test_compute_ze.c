/* SPDX-License-Identifier: MIT */
/* The level-zero compute backend against the Level Zero double on the xe-desktop-b580 tree
 * (iGPU 0000:00:02.0, NPU, Arc B580 0000:03:00.0): devices matched by PCI address, every
 * copy kind at awkward sizes and offsets checked byte for byte, fills, events, peer and
 * staged copies, threads, and the double's faults. One case a run:
 * test_compute_ze CASE SYSROOT LIBRARY DESCRIPTION. */
#define _GNU_SOURCE /* setenv, clock_gettime with -std=c11 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "axl.h"
#include "check.h"

static const char *root, *lib;
/* AXL_CONTEXT_NO_ENV, but for the old loader: a runtime's own variable (ZES_ENABLE_SYSMAN)
 * is taken only from the process of a context that may read it; the list still wins */
static unsigned ctx_flags = AXL_CONTEXT_NO_ENV;
static axl_context *ctx;
static axl_inventory *inv;
static axl_compute *c;
static const axl_compute_device *gpu[2]; /* iGPU, B580 */

static uint8_t pat(uint64_t i, unsigned seed)
{
	uint64_t x = (i + 1) * 0x9e3779b97f4a7c15ull + seed;
	return (uint8_t)(x >> 56 ^ x >> 29 ^ x);
}

static void open_all(const char *timeout, const char *backend)
{
	char l[600], t[64];
	snprintf(l, sizeof l, "AXL_ZE_LIBRARY=%s", lib);
	snprintf(t, sizeof t, "AXL_VENDOR_TIMEOUT_MS=%s", timeout);
	const char *env[] = { l, t, NULL };
	struct axl_context_options o = AXL_CONTEXT_OPTIONS_INIT;
	o.flags = ctx_flags;
	o.sysroot = root;
	o.env = env;
	if (axl_context_open(&ctx, &o) || axl_inventory_open(&inv, ctx, 0)) {
		fprintf(stderr, "opening %s: %s\n", root, axl_error_last());
		exit(1);
	}
	struct axl_compute_options co = AXL_COMPUTE_OPTIONS_INIT;
	co.backend = backend;
	CHECK_INT(axl_compute_open(&c, inv, &co), 0);
	gpu[0] = gpu[1] = NULL;
	for (size_t i = 0; c && i < axl_compute_device_count(c); i++) {
		const axl_compute_device *d = axl_compute_device_at(c, i);
		const axl_device *id = axl_compute_device_inventory(d);
		const char *pci = NULL;
		if (!id || axl_device_get_str(id, AXL_ATTR_PCI_ADDRESS, &pci) || !pci)
			continue;
		if (!strcmp(pci, "0000:00:02.0"))
			gpu[0] = d;
		else if (!strcmp(pci, "0000:03:00.0"))
			gpu[1] = d;
	}
}

static void close_all(void)
{
	axl_compute_free(c);
	axl_inventory_free(inv);
	axl_context_free(ctx);
	c = NULL;
}

/* size bytes from a host buffer through src_kind on a to b (dst_kind) and back, at odd
 * offsets; the path of the device-to-device leg */
static axl_copy_path roundtrip(const axl_compute_device *a, const axl_compute_device *b, uint64_t size, unsigned seed)
{
	axl_buffer h = 0, da = 0, db = 0, back = 0;
	axl_queue q = 0;
	axl_copy_path path = 0, p2 = 0;
	CHECK_INT(axl_buffer_alloc(c, a, AXL_MEMORY_PINNED, size + 3, &h), 0);
	CHECK_INT(axl_buffer_alloc(c, a, AXL_MEMORY_DEVICE, size + 5, &da), 0);
	CHECK_INT(axl_buffer_alloc(c, b, AXL_MEMORY_DEVICE, size + 7, &db), 0);
	CHECK_INT(axl_buffer_alloc(c, b, AXL_MEMORY_HOST, size + 1, &back), 0);
	uint8_t *hp = NULL, *bp = NULL;
	CHECK_INT(axl_buffer_host_pointer(c, h, (void **)&hp), 0);
	CHECK_INT(axl_buffer_host_pointer(c, back, (void **)&bp), 0);
	for (uint64_t i = 0; i < size; i++)
		hp[i + 3] = pat(i, seed);
	CHECK_INT(axl_queue_create(c, a, &q), 0);
	axl_event e0 = 0, e1 = 0;
	CHECK_INT(axl_event_record(c, q, &e0), 0);
	CHECK_INT(axl_copy(c, q, da, 5, h, 3, size, &p2, NULL), 0);
	CHECK_INT(p2, AXL_COPY_PATH_DEVICE);
	CHECK_INT(axl_copy(c, q, db, 7, da, 5, size, &path, NULL), 0);
	if (a == b)
		CHECK_INT(axl_copy(c, q, back, 1, db, 7, size, &p2, NULL), 0);
	CHECK_INT(axl_queue_sync(c, q), 0);
	if (a != b) { /* device-to-host from b's memory on a queue of b */
		axl_queue qb = 0;
		CHECK_INT(axl_queue_create(c, b, &qb), 0);
		CHECK_INT(axl_copy(c, qb, back, 1, db, 7, size, &p2, NULL), 0);
		CHECK_INT(axl_queue_sync(c, qb), 0);
		CHECK_INT(axl_queue_free(c, qb), 0);
	}
	CHECK_INT(axl_event_record(c, q, &e1), 0);
	CHECK_INT(axl_event_wait(c, e1), 0);
	int64_t ns = -1;
	CHECK_INT(axl_event_elapsed_ns(c, e0, e1, &ns), 0);
	CHECK(ns >= 0);
	uint64_t bad = 0;
	for (uint64_t i = 0; i < size; i++)
		bad += bp[i + 1] != pat(i, seed);
	CHECK_INT(bad, 0);
	axl_event_free(c, e0);
	axl_event_free(c, e1);
	CHECK_INT(axl_queue_free(c, q), 0);
	axl_buffer_free(c, h);
	axl_buffer_free(c, da);
	axl_buffer_free(c, db);
	axl_buffer_free(c, back);
	return path;
}

static void *thread_main(void *arg)
{
	unsigned k = (unsigned)(uintptr_t)arg;
	roundtrip(gpu[k & 1], gpu[k & 1], (1u << 20) + k * 13, k);
	return NULL;
}

static void case_basic(void)
{
	open_all("30000", NULL);
	CHECK_INT(axl_compute_device_count(c), 3); /* host, iGPU, B580; not the NPU */
	CHECK(gpu[0] && gpu[1]);
	if (!gpu[0] || !gpu[1])
		return;
	CHECK_STR(axl_compute_device_backend(gpu[1]), "level-zero");
	CHECK(strstr(axl_compute_device_name(gpu[1]), "B580") != NULL);
	uint64_t fr = 0, tot = 0;
	CHECK_INT(axl_compute_device_memory(c, gpu[1], &fr, &tot), 0);
	CHECK(tot == 12884901888ull && fr == tot);
	axl_buffer big = 0;
	CHECK_INT(axl_buffer_alloc(c, gpu[1], AXL_MEMORY_DEVICE, 1u << 30, &big), 0);
	CHECK_INT(axl_compute_device_memory(c, gpu[1], &fr, &tot), 0);
	CHECK(fr == tot - (1u << 30));
	axl_buffer_free(c, big);
	static const uint64_t sizes[] = { 1, 2, 63, 4097, (3u << 20) + 7, 64u << 20 };
	for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
		roundtrip(gpu[1], gpu[1], sizes[i], (unsigned)i);
		CHECK_INT(roundtrip(gpu[0], gpu[1], sizes[i], (unsigned)i + 50), AXL_COPY_PATH_PEER);
	}
	/* fill, and a host-to-host copy on a device queue */
	axl_buffer d = 0, h = 0, h2 = 0;
	axl_queue q = 0;
	axl_copy_path p = 0;
	CHECK_INT(axl_buffer_alloc(c, gpu[1], AXL_MEMORY_DEVICE, 1000, &d), 0);
	CHECK_INT(axl_buffer_alloc(c, gpu[1], AXL_MEMORY_PINNED, 1000, &h), 0);
	CHECK_INT(axl_buffer_alloc(c, gpu[1], AXL_MEMORY_HOST, 1000, &h2), 0);
	CHECK_INT(axl_queue_create(c, gpu[1], &q), 0);
	CHECK_INT(axl_fill(c, q, d, 0, 1000, 0x11, NULL), 0);
	CHECK_INT(axl_fill(c, q, d, 3, 501, 0xa5, NULL), 0);
	CHECK_INT(axl_copy(c, q, h, 0, d, 0, 1000, &p, NULL), 0);
	CHECK_INT(axl_copy(c, q, h2, 0, h, 0, 1000, &p, NULL), 0);
	CHECK_INT(p, AXL_COPY_PATH_HOST);
	CHECK_INT(axl_compute_device_sync(c, gpu[1]), 0);
	uint8_t *hp = NULL;
	CHECK_INT(axl_buffer_host_pointer(c, h2, (void **)&hp), 0);
	int bad = 0;
	for (int i = 0; i < 1000; i++)
		bad += hp[i] != (i >= 3 && i < 504 ? 0xa5 : 0x11);
	CHECK_INT(bad, 0);
	/* a queue of this context with a buffer of another context is refused */
	axl_compute *c2 = NULL;
	CHECK_INT(axl_compute_open(&c2, inv, NULL), 0);
	axl_buffer other = 0;
	CHECK_INT(axl_buffer_alloc(c2, axl_compute_device_of(c2, axl_compute_device_inventory(gpu[1])),
				   AXL_MEMORY_DEVICE, 64, &other),
		  0);
	CHECK_INT(axl_copy(c, q, d, 0, other, 0, 64, &p, NULL), AXL_EINVAL);
	CHECK_INT(axl_copy(c, q, d, 990, h, 0, 64, &p, NULL), AXL_EINVAL);
	axl_compute_free(c2);
	CHECK_INT(axl_queue_free(c, q), 0);
	axl_buffer_free(c, d);
	axl_buffer_free(c, h);
	axl_buffer_free(c, h2);
	pthread_t t[6];
	for (unsigned k = 0; k < 6; k++)
		CHECK_INT(pthread_create(&t[k], NULL, thread_main, (void *)(uintptr_t)k), 0);
	for (unsigned k = 0; k < 6; k++)
		pthread_join(t[k], NULL);
	close_all();
	/* chosen by name; the double has no GPU left for the cpu backend to own */
	open_all("30000", "level-zero");
	CHECK_INT(axl_compute_device_count(c), 3);
	close_all();
}

static void case_staged(void)
{
	open_all("30000", NULL);
	if (gpu[0] && gpu[1]) {
		CHECK_INT(roundtrip(gpu[0], gpu[1], 5u << 20, 1), AXL_COPY_PATH_STAGED);
		CHECK_INT(roundtrip(gpu[1], gpu[0], 17, 2), AXL_COPY_PATH_STAGED);
	}
	close_all();
}

static void case_old(void)
{
	/* no zeDevicePciGetPropertiesExt: matched by UUID; no zeCommandListHostSynchronize:
	 * a barrier's event */
	open_all("30000", NULL);
	CHECK(gpu[0] && gpu[1]);
	if (gpu[0] && gpu[1]) {
		roundtrip(gpu[1], gpu[1], 100000, 3);
		CHECK_INT(axl_compute_device_sync(c, gpu[1]), 0);
	}
	close_all();
}

static void case_oom(void)
{
	open_all("30000", NULL);
	axl_buffer b = 0;
	CHECK_INT(axl_buffer_alloc(c, gpu[1], AXL_MEMORY_DEVICE, 1u << 20, &b), 0);
	axl_buffer_free(c, b);
	CHECK_INT(axl_buffer_alloc(c, gpu[1], AXL_MEMORY_DEVICE, 100u << 20, &b), AXL_ENOMEM);
	CHECK(strstr(axl_error_last(), "104857600 bytes asked") != NULL);
	CHECK(strstr(axl_error_last(), "12884901888 bytes free") != NULL);
	CHECK(strstr(axl_error_last(), "zeMemAllocDevice") != NULL);
	close_all();
}

static void case_lost(void)
{
	open_all("30000", NULL);
	axl_buffer h = 0, d1 = 0, d0 = 0;
	axl_queue q1 = 0, q0 = 0;
	axl_copy_path p = 0;
	CHECK_INT(axl_buffer_alloc(c, gpu[1], AXL_MEMORY_PINNED, 4096, &h), 0);
	CHECK_INT(axl_buffer_alloc(c, gpu[1], AXL_MEMORY_DEVICE, 4096, &d1), 0);
	CHECK_INT(axl_buffer_alloc(c, gpu[0], AXL_MEMORY_DEVICE, 4096, &d0), 0);
	CHECK_INT(axl_queue_create(c, gpu[1], &q1), 0);
	CHECK_INT(axl_queue_create(c, gpu[0], &q0), 0);
	CHECK_INT(axl_copy(c, q1, d1, 0, h, 0, 4096, &p, NULL), 0); /* LOST_AFTER=1 */
	CHECK_INT(axl_copy(c, q1, d1, 0, h, 0, 4096, &p, NULL), AXL_EDEVLOST);
	CHECK(strstr(axl_error_last(), "0000:03:00.0") != NULL);
	CHECK_INT(axl_queue_sync(c, q1), AXL_EDEVLOST);
	/* the other device still works */
	CHECK_INT(axl_copy(c, q0, d0, 0, h, 0, 4096, &p, NULL), 0);
	CHECK_INT(axl_queue_sync(c, q0), 0);
	close_all();
}

static void case_hang(void)
{
	open_all("300", NULL);
	axl_queue q = 0;
	CHECK_INT(axl_queue_create(c, gpu[1], &q), 0);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK_INT(axl_queue_sync(c, q), AXL_ETIMEDOUT);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	CHECK(s < 3.0);
	CHECK(strstr(axl_error_last(), "zeCommandListHostSynchronize") != NULL);
	/* the host CPU is not held up */
	const axl_compute_device *host = axl_compute_device_at(c, 0);
	axl_queue hq = 0;
	CHECK_INT(axl_queue_create(c, host, &hq), 0);
	CHECK_INT(axl_queue_sync(c, hq), 0);
	CHECK_INT(axl_queue_free(c, hq), 0);
	/* the queue of the wedged library is not freed (its worker may still be in it) */
	_exit(check_summary());
}

static void case_missing(void)
{
	open_all("30000", NULL);
	CHECK_INT(axl_compute_device_count(c), 1); /* only the host: the others cost nothing else */
	close_all();
	/* asked for by name, it opens with what it has: nothing */
	open_all("30000", "level-zero");
	CHECK_INT(axl_compute_device_count(c), 1);
	close_all();
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: test_compute_ze CASE SYSROOT LIBRARY DESCRIPTION\n");
		return 2;
	}
	root = argv[2];
	lib = argv[3];
	setenv("AXL_ZE_DOUBLE_JSON", argv[4], 1);
	const char *k = argv[1];
	if (!strcmp(k, "basic"))
		case_basic();
	else if (!strcmp(k, "staged")) {
		setenv("AXL_ZE_DOUBLE_P2P", "0", 1);
		case_staged();
	} else if (!strcmp(k, "old")) {
		/* the old loader's sysman (the inventory's UUIDs) needs the legacy initialisation,
		 * which is read from the process's environment, as the runtime reads it */
		setenv("ZES_ENABLE_SYSMAN", "1", 1);
		ctx_flags = 0;
		case_old();
	} else if (!strcmp(k, "oom")) {
		setenv("AXL_ZE_DOUBLE_OOM_AT", "100000000", 1);
		case_oom();
	} else if (!strcmp(k, "lost")) {
		setenv("AXL_ZE_DOUBLE_LOST_AFTER", "1", 1);
		case_lost();
	} else if (!strcmp(k, "hang")) {
		setenv("AXL_ZE_DOUBLE_HANG", "zeCommandListHostSynchronize", 1);
		case_hang();
	} else if (!strcmp(k, "missing"))
		case_missing();
	else
		return 2;
	return check_summary();
}
