/* SPDX-License-Identifier: MIT */
/*
 * The hip compute backend (src/lib/backend/amd/hip_compute.c) against the HIP double, on
 * the synthetic 8 x MI300X node made into a tree by mktree.py (tests/trees/nodes/
 * mi300x-8x.json, GPUs at 0000:0c:00.0, 0000:15:00.0, 0000:1e:00.0, ...). The double's
 * capture (fixtures/mi300x-8x-hip.json) lists three GPUs in another order than the node's:
 * HIP device 0 is at 15:00.0, 1 at 0c:00.0, and 2 at f0:00.0 is on no inventory device, so
 * a match by ordinal would show. One process per case, as the double reads its faults
 * once per process:
 *   test_compute_hip CASE LIBRARY TREE
 * with AXL_HIP_DOUBLE_JSON (and the fault variables) in the environment.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "axl.h"
#include "check.h"

static const char *lib, *root;
static axl_context *ctx;
static axl_inventory *inv;

/* A pattern no shift of itself matches: a misplaced byte shows. */
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

/* The library's diagnostics (which runtime was loaded, why a backend is missing), for a
 * failing case's log. */
static void log_line(axl_log_level level, const char *message, void *userdata)
{
	(void)level;
	(void)userdata;
	if (strstr(message, "compute"))
		fprintf(stderr, "axl: %s\n", message);
}

/* The node with the double as AXL_HIP_LIBRARY, and extra variables (NULL-terminated). */
static void open_node(const char *extra1, const char *extra2)
{
	char libvar[4096];
	snprintf(libvar, sizeof libvar, "AXL_HIP_LIBRARY=%s", lib);
	const char *env[] = { libvar, extra1, extra2, NULL };
	struct axl_context_options o = AXL_CONTEXT_OPTIONS_INIT;
	o.flags = AXL_CONTEXT_NO_ENV;
	o.sysroot = root;
	o.env = env;
	o.log = log_line;
	o.log_level = AXL_LOG_INFO;
	CHECK_INT(axl_context_open(&ctx, &o), 0);
	CHECK_INT(axl_inventory_open(&inv, ctx, 0), 0);
}

static void close_node(void)
{
	axl_inventory_free(inv);
	axl_context_free(ctx);
	inv = NULL;
	ctx = NULL;
}

static const axl_device *inv_at(const char *pci)
{
	for (size_t i = 0; i < axl_inventory_device_count(inv); i++) {
		const axl_device *d = axl_inventory_device(inv, i);
		const char *p = NULL;
		if (axl_device_get_str(d, AXL_ATTR_PCI_ADDRESS, &p) == 0 && p && strcmp(p, pci) == 0)
			return d;
	}
	return NULL;
}

/* The compute device of the GPU at pci (NULL when not driven). */
static const axl_compute_device *gpu(axl_compute *c, const char *pci)
{
	const axl_device *d = inv_at(pci);
	return d ? axl_compute_device_of(c, d) : NULL;
}

static axl_compute *open_hip(void)
{
	axl_compute *c = NULL;
	CHECK_INT(axl_compute_open(&c, inv, NULL), 0);
	CHECK(c != NULL);
	return c;
}

/* ---- devices: listed, matched by PCI address, visibility, the choice of backend ---- */

static void case_devices(void)
{
	open_node(NULL, NULL);
	axl_compute *c = open_hip();
	CHECK_INT(axl_compute_device_count(c), 3); /* the host CPU and the two GPUs on the node */
	const axl_compute_device *a = gpu(c, "0000:0c:00.0"), *b = gpu(c, "0000:15:00.0");
	CHECK(a != NULL && b != NULL && a != b);
	CHECK_STR(axl_compute_device_backend(a), "hip");
	CHECK_STR(axl_compute_device_backend(b), "hip");
	CHECK_STR(axl_compute_device_name(a), "AMD Instinct MI300X");
	CHECK(axl_compute_device_inventory(a) == inv_at("0000:0c:00.0"));
	/* the node's other six GPUs have no HIP device */
	static const unsigned others[] = { 0x1e, 0x69, 0x9f, 0xaf, 0xbf, 0xdf };
	for (size_t i = 0; i < 6; i++) {
		char pci[32];
		snprintf(pci, sizeof pci, "0000:%02x:00.0", others[i]);
		CHECK(inv_at(pci) != NULL);
		CHECK(gpu(c, pci) == NULL);
	}
	/* matched by address, not ordinal: 0c:00.0 is HIP device 1, whose capture has 3 GiB
	 * in use by others, 20:00.0 is HIP device 0 with 1 GiB */
	uint64_t fr = 0, tot = 0;
	CHECK_INT(axl_compute_device_memory(c, a, &fr, &tot), 0);
	CHECK_INT(tot, 206158430208ull);
	CHECK_INT(fr, 206158430208ull - 3221225472ull);
	CHECK_INT(axl_compute_device_memory(c, b, &fr, &tot), 0);
	CHECK_INT(fr, 206158430208ull - 1073741824ull);
	/* memory info follows allocations */
	axl_buffer buf = 0;
	CHECK_INT(axl_buffer_alloc(c, a, AXL_MEMORY_DEVICE, 1 << 20, &buf), 0);
	CHECK_INT(axl_compute_device_memory(c, a, &fr, &tot), 0);
	CHECK_INT(fr, 206158430208ull - 3221225472ull - (1 << 20));
	CHECK_INT(axl_buffer_free(c, buf), 0);
	CHECK_INT(axl_compute_device_sync(c, a), 0);
	axl_compute_free(c);

	/* the backend asked for by name: the option, and $AXL_COMPUTE */
	struct axl_compute_options co = AXL_COMPUTE_OPTIONS_INIT;
	co.backend = "hip";
	CHECK_INT(axl_compute_open(&c, inv, &co), 0);
	CHECK_INT(axl_compute_device_count(c), 3);
	CHECK(gpu(c, "0000:0c:00.0") != NULL);
	axl_compute_free(c);
	co.backend = "cpu";
	CHECK_INT(axl_compute_open(&c, inv, &co), 0);
	CHECK_INT(axl_compute_device_count(c), 1);
	axl_compute_free(c);
	close_node();

	open_node("AXL_COMPUTE=hip", NULL);
	c = open_hip();
	CHECK_INT(axl_compute_device_count(c), 3);
	CHECK_STR(axl_compute_device_backend(gpu(c, "0000:15:00.0")), "hip");
	axl_compute_free(c);
	close_node();

	/* a GPU this process may not use is not driven, though HIP (the double) lists it */
	open_node("ROCR_VISIBLE_DEVICES=1,3", NULL);
	c = open_hip();
	size_t hidden = 0, driven = 0;
	for (size_t i = 0; i < axl_inventory_device_count(inv); i++) {
		const axl_device *d = axl_inventory_device(inv, i);
		int64_t vis = 1;
		axl_device_get_int(d, AXL_ATTR_VISIBLE, &vis);
		const char *p = NULL;
		axl_device_get_str(d, AXL_ATTR_PCI_ADDRESS, &p);
		bool hip = p && (strcmp(p, "0000:0c:00.0") == 0 || strcmp(p, "0000:15:00.0") == 0);
		hidden += hip && !vis;
		driven += axl_compute_device_of(c, d) != NULL;
		CHECK((axl_compute_device_of(c, d) != NULL) == (hip && vis));
	}
	CHECK_INT(hidden, 1);
	CHECK_INT(driven, 1);
	CHECK_INT(axl_compute_device_count(c), 1 + driven);
	axl_compute_free(c);
	close_node();
}

/* ---- every copy kind, byte for byte ------------------------------------------------- */

/* size bytes from src at soff to dst at doff on q, then checked through a host buffer */
static void copy_check(axl_compute *c, axl_queue q, axl_buffer dst, uint64_t doff, axl_buffer src, uint64_t soff,
		       uint64_t size, axl_copy_path want)
{
	axl_copy_path p = 0;
	int rc = axl_copy(c, q, dst, doff, src, soff, size, &p, NULL);
	CHECK_INT(rc, 0);
	if (rc)
		fprintf(stderr, "axl_copy: %s\n", axl_error_last());
	CHECK_INT(p, want);
}

static void round_trip(axl_compute *c, const axl_compute_device *g, axl_queue q, uint64_t size, uint64_t off,
		       unsigned seed)
{
	const axl_compute_device *host = axl_compute_device_at(c, 0);
	axl_buffer in = 0, out = 0, d1 = 0, d2 = 0, pin = 0;
	CHECK_INT(axl_buffer_alloc(c, host, AXL_MEMORY_HOST, size + off, &in), 0);
	CHECK_INT(axl_buffer_alloc(c, g, AXL_MEMORY_HOST, size + off, &out), 0);
	CHECK_INT(axl_buffer_alloc(c, g, AXL_MEMORY_DEVICE, size + 2 * off, &d1), 0);
	CHECK_INT(axl_buffer_alloc(c, g, AXL_MEMORY_DEVICE, size + off + 3, &d2), 0);
	CHECK_INT(axl_buffer_alloc(c, g, AXL_MEMORY_PINNED, size + off, &pin), 0);
	uint8_t *pi = NULL, *po = NULL, *pp = NULL;
	CHECK_INT(axl_buffer_host_pointer(c, in, (void **)&pi), 0);
	CHECK_INT(axl_buffer_host_pointer(c, out, (void **)&po), 0);
	CHECK_INT(axl_buffer_host_pointer(c, pin, (void **)&pp), 0);
	void *dp = NULL;
	CHECK(axl_buffer_host_pointer(c, d1, &dp) != 0); /* device memory has no host address */
	if (!pi || !po || !pp)
		return;
	for (uint64_t i = 0; i < size + off; i++)
		pi[i] = pat(i, seed);
	memset(po, 0, size + off);
	/* H2D, D2D on the device, D2H into pinned, host to host on the queue */
	copy_check(c, q, d1, off, in, off, size, AXL_COPY_PATH_DEVICE);
	copy_check(c, q, d2, 3, d1, off, size, AXL_COPY_PATH_DEVICE);
	copy_check(c, q, pin, off, d2, 3, size, AXL_COPY_PATH_DEVICE);
	copy_check(c, q, out, 0, pin, off, size, AXL_COPY_PATH_HOST);
	CHECK_INT(axl_queue_sync(c, q), 0);
	size_t bad = 0;
	for (uint64_t i = 0; i < size; i++)
		bad += po[i] != pi[i + off];
	CHECK_INT(bad, 0);
	axl_buffer_free(c, in);
	axl_buffer_free(c, out);
	axl_buffer_free(c, d1);
	axl_buffer_free(c, d2);
	axl_buffer_free(c, pin);
}

static void case_copies(void)
{
	open_node(NULL, NULL);
	axl_compute *c = open_hip();
	const axl_compute_device *a = gpu(c, "0000:0c:00.0"), *b = gpu(c, "0000:15:00.0");
	CHECK(a && b);
	if (!a || !b)
		return;
	axl_queue qa = 0, qb = 0;
	CHECK_INT(axl_queue_create(c, a, &qa), 0);
	CHECK_INT(axl_queue_create(c, b, &qb), 0);
	static const uint64_t sizes[] = { 1, 2, 3, 7, 63, 4095, 4097, 65537, 1u << 20, (3u << 20) + 5, 48u << 20 };
	for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
		round_trip(c, a, qa, sizes[i], i % 2 ? 1 : 13, (unsigned)i);
		round_trip(c, b, qb, sizes[i], 7, (unsigned)i + 100);
	}

	/* fills: device memory, and host memory in the queue's order */
	const uint64_t n = 100003;
	axl_buffer dev = 0, pin = 0;
	CHECK_INT(axl_buffer_alloc(c, a, AXL_MEMORY_DEVICE, n, &dev), 0);
	CHECK_INT(axl_buffer_alloc(c, a, AXL_MEMORY_PINNED, n, &pin), 0);
	uint8_t *pp = NULL;
	CHECK_INT(axl_buffer_host_pointer(c, pin, (void **)&pp), 0);
	CHECK_INT(axl_fill(c, qa, dev, 0, n, 0x11, NULL), 0);
	CHECK_INT(axl_fill(c, qa, dev, 5, 999, 0xa5, NULL), 0);
	copy_check(c, qa, pin, 0, dev, 0, n, AXL_COPY_PATH_DEVICE);
	CHECK_INT(axl_queue_sync(c, qa), 0);
	size_t bad = 0;
	for (uint64_t i = 0; pp && i < n; i++)
		bad += pp[i] != (i >= 5 && i < 1004 ? 0xa5 : 0x11);
	CHECK_INT(bad, 0);
	CHECK_INT(axl_fill(c, qa, pin, 1, 3, 0x5a, NULL), 0);
	CHECK_INT(axl_queue_sync(c, qa), 0);
	CHECK(pp && pp[0] == 0x11 && pp[1] == 0x5a && pp[3] == 0x5a && pp[4] == 0x11);

	/* device to device across the two GPUs, from a queue of either: peer (the double
	 * always grants peer access, so the staged path is tested with the old runtime) */
	const uint64_t big = (64u << 20) + 3;
	axl_buffer da = 0, db = 0, src = 0, back = 0;
	CHECK_INT(axl_buffer_alloc(c, a, AXL_MEMORY_DEVICE, big, &da), 0);
	CHECK_INT(axl_buffer_alloc(c, b, AXL_MEMORY_DEVICE, big + 1, &db), 0);
	CHECK_INT(axl_buffer_alloc(c, a, AXL_MEMORY_PINNED, big, &src), 0);
	CHECK_INT(axl_buffer_alloc(c, b, AXL_MEMORY_PINNED, big, &back), 0);
	uint8_t *ps = NULL, *pb = NULL;
	axl_buffer_host_pointer(c, src, (void **)&ps);
	axl_buffer_host_pointer(c, back, (void **)&pb);
	for (uint64_t i = 0; ps && i < big; i++)
		ps[i] = pat(i, 77);
	copy_check(c, qa, da, 0, src, 0, big, AXL_COPY_PATH_DEVICE);
	copy_check(c, qa, db, 1, da, 0, big, AXL_COPY_PATH_PEER);
	copy_check(c, qb, back, 0, db, 1, big, AXL_COPY_PATH_DEVICE);
	CHECK_INT(axl_queue_sync(c, qa), 0);
	CHECK_INT(axl_queue_sync(c, qb), 0);
	bad = 0;
	for (uint64_t i = 0; pb && ps && i < big; i++)
		bad += pb[i] != ps[i];
	CHECK_INT(bad, 0);
	/* and back, on the other device's queue, at odd offsets */
	CHECK_INT(axl_fill(c, qa, da, 0, big, 0, NULL), 0);
	copy_check(c, qb, da, 9, db, 1 + 9, 1000001, AXL_COPY_PATH_PEER);
	CHECK_INT(axl_queue_sync(c, qb), 0);
	copy_check(c, qa, back, 0, da, 0, big, AXL_COPY_PATH_DEVICE); /* pinned memory of b, read on a's queue */
	CHECK_INT(axl_queue_sync(c, qa), 0);
	bad = 0;
	for (uint64_t i = 0; pb && ps && i < big; i++)
		bad += pb[i] != (i >= 9 && i < 9 + 1000001 ? ps[i] : 0);
	CHECK_INT(bad, 0);

	/* events and elapsed time from HIP's timer */
	axl_event e1 = 0, e2 = 0;
	CHECK_INT(axl_event_record(c, qa, &e1), 0);
	copy_check(c, qa, da, 0, src, 0, big, AXL_COPY_PATH_DEVICE);
	axl_event done = 0;
	CHECK_INT(axl_copy(c, qa, back, 0, da, 0, 16, NULL, &done), 0);
	CHECK(done != 0);
	CHECK_INT(axl_event_record(c, qa, &e2), 0);
	CHECK_INT(axl_event_wait(c, e2), 0);
	CHECK_INT(axl_event_wait(c, done), 0);
	int64_t ns = -1;
	CHECK_INT(axl_event_elapsed_ns(c, e1, e2, &ns), 0);
	CHECK(ns > 0 && ns < 60000000000ll);
	axl_event_free(c, e1);
	axl_event_free(c, e2);
	axl_event_free(c, done);
	CHECK_INT(axl_compute_device_sync(c, a), 0);
	CHECK_INT(axl_compute_device_sync(c, b), 0);

	/* host memory into a's memory asked of b's queue: a does it, after b's work, done
	 * when axl_copy returns */
	axl_copy_path via = 0;
	CHECK_INT(axl_copy(c, qb, da, 0, src, 0, 16, &via, NULL), 0);
	CHECK_INT(via, AXL_COPY_PATH_DEVICE);
	/* bad input: a fill of a's memory on b's queue, objects of another compute context */
	CHECK_INT(axl_fill(c, qb, da, 0, 16, 0, NULL), AXL_EINVAL);
	axl_compute *c2 = open_hip();
	axl_buffer other = 0;
	CHECK_INT(axl_buffer_alloc(c2, gpu(c2, "0000:0c:00.0"), AXL_MEMORY_DEVICE, 64, &other), 0);
	CHECK_INT(axl_copy(c, qa, da, 0, other, 0, 16, NULL, NULL), AXL_EINVAL);
	CHECK_INT(axl_buffer_alloc(c, gpu(c2, "0000:0c:00.0"), AXL_MEMORY_DEVICE, 64, &other), AXL_EINVAL);
	CHECK_INT(axl_queue_create(c, gpu(c2, "0000:15:00.0"), &qb), AXL_EINVAL);
	axl_compute_free(c2);
	CHECK_INT(axl_copy(c, qa, da, big - 1, src, 0, 2, NULL, NULL), AXL_EINVAL);
	CHECK_INT(axl_fill(c, qa, da, big, 1, 0, NULL), AXL_EINVAL);

	axl_buffer_free(c, dev);
	axl_buffer_free(c, pin);
	axl_buffer_free(c, da);
	axl_buffer_free(c, db);
	axl_buffer_free(c, src);
	axl_buffer_free(c, back);
	CHECK_INT(axl_queue_free(c, qa), 0);
	axl_compute_free(c); /* qb, still live, is freed with the context */
	close_node();
}

/* ---- the old runtime: no hipMemcpyPeerAsync (staged), no hipDeviceGetUuid ---------- */

static void case_staged(void)
{
	open_node(NULL, NULL);
	axl_compute *c = open_hip();
	const axl_compute_device *a = gpu(c, "0000:0c:00.0"), *b = gpu(c, "0000:15:00.0");
	CHECK(a && b);
	if (!a || !b)
		return;
	axl_queue qa = 0, qb = 0;
	CHECK_INT(axl_queue_create(c, a, &qa), 0);
	CHECK_INT(axl_queue_create(c, b, &qb), 0);
	const uint64_t big = (40u << 20) + 11;
	axl_buffer da = 0, db = 0, src = 0, back = 0;
	CHECK_INT(axl_buffer_alloc(c, a, AXL_MEMORY_DEVICE, big, &da), 0);
	CHECK_INT(axl_buffer_alloc(c, b, AXL_MEMORY_DEVICE, big, &db), 0);
	CHECK_INT(axl_buffer_alloc(c, a, AXL_MEMORY_HOST, big, &src), 0);
	CHECK_INT(axl_buffer_alloc(c, b, AXL_MEMORY_PINNED, big, &back), 0);
	uint8_t *ps = NULL, *pb = NULL;
	axl_buffer_host_pointer(c, src, (void **)&ps);
	axl_buffer_host_pointer(c, back, (void **)&pb);
	for (uint64_t i = 0; ps && i < big; i++)
		ps[i] = pat(i, 5);
	copy_check(c, qa, da, 0, src, 0, big, AXL_COPY_PATH_DEVICE);
	copy_check(c, qa, db, 3, da, 0, big - 3, AXL_COPY_PATH_STAGED);
	copy_check(c, qb, back, 0, db, 0, big, AXL_COPY_PATH_DEVICE);
	CHECK_INT(axl_queue_sync(c, qb), 0);
	size_t bad = 0;
	for (uint64_t i = 3; pb && ps && i < big; i++)
		bad += pb[i] != ps[i - 3];
	CHECK_INT(bad, 0);
	/* the other way, on the destination's queue */
	CHECK_INT(axl_fill(c, qa, da, 0, big, 0xee, NULL), 0);
	copy_check(c, qb, da, 1, db, 3, 12345, AXL_COPY_PATH_STAGED);
	copy_check(c, qa, back, 0, da, 0, big, AXL_COPY_PATH_DEVICE);
	CHECK_INT(axl_queue_sync(c, qa), 0);
	bad = 0;
	for (uint64_t i = 0; pb && ps && i < big; i++)
		bad += pb[i] != (i >= 1 && i < 1 + 12345 ? ps[i - 1] : 0xee);
	CHECK_INT(bad, 0);
	axl_compute_free(c);
	close_node();
}

/* ---- several threads, each with its own queue -------------------------------------- */

struct worker {
	axl_compute *c;
	const axl_compute_device *g;
	unsigned seed;
	int fails;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	axl_queue q = 0;
	if (axl_queue_create(w->c, w->g, &q)) {
		w->fails++;
		return NULL;
	}
	for (int round = 0; round < 20; round++) {
		uint64_t size = 1 + (uint64_t)(round * 7919 + w->seed * 131) % 300000;
		axl_buffer h = 0, d = 0, o = 0;
		uint8_t *ph = NULL, *po = NULL;
		if (axl_buffer_alloc(w->c, w->g, AXL_MEMORY_PINNED, size, &h) ||
		    axl_buffer_alloc(w->c, w->g, AXL_MEMORY_DEVICE, size, &d) ||
		    axl_buffer_alloc(w->c, w->g, AXL_MEMORY_HOST, size, &o) ||
		    axl_buffer_host_pointer(w->c, h, (void **)&ph) || axl_buffer_host_pointer(w->c, o, (void **)&po)) {
			w->fails++;
			break;
		}
		for (uint64_t i = 0; i < size; i++)
			ph[i] = pat(i, w->seed + (unsigned)round);
		axl_event e = 0;
		if (axl_copy(w->c, q, d, 0, h, 0, size, NULL, NULL) || axl_copy(w->c, q, o, 0, d, 0, size, NULL, &e) ||
		    axl_event_wait(w->c, e) || memcmp(ph, po, size) != 0)
			w->fails++;
		axl_event_free(w->c, e);
		axl_buffer_free(w->c, h);
		axl_buffer_free(w->c, d);
		axl_buffer_free(w->c, o);
	}
	if (axl_queue_sync(w->c, q) || axl_queue_free(w->c, q))
		w->fails++;
	return NULL;
}

static void case_threads(void)
{
	open_node(NULL, NULL);
	axl_compute *c = open_hip();
	const axl_compute_device *g[2] = { gpu(c, "0000:0c:00.0"), gpu(c, "0000:15:00.0") };
	CHECK(g[0] && g[1]);
	struct worker w[6];
	pthread_t t[6];
	for (int i = 0; i < 6; i++) {
		w[i] = (struct worker){ c, g[i % 2], (unsigned)i * 17, 0 };
		CHECK_INT(pthread_create(&t[i], NULL, work, &w[i]), 0);
	}
	for (int i = 0; i < 6; i++) {
		pthread_join(t[i], NULL);
		CHECK_INT(w[i].fails, 0);
	}
	axl_compute_free(c);
	close_node();
}

/* ---- faults -------------------------------------------------------------------------- */

/* AXL_HIP_DOUBLE_OOM_AT=1048576: the error says how much was asked and how much is free */
static void case_oom(void)
{
	open_node(NULL, NULL);
	axl_compute *c = open_hip();
	const axl_compute_device *a = gpu(c, "0000:0c:00.0");
	axl_buffer b1 = 0, b2 = 0;
	CHECK_INT(axl_buffer_alloc(c, a, AXL_MEMORY_DEVICE, 1000000, &b1), 0);
	CHECK_INT(axl_buffer_alloc(c, a, AXL_MEMORY_DEVICE, 100000, &b2), AXL_ENOMEM);
	const char *e = axl_error_last();
	CHECK(strstr(e, "hipMalloc") != NULL);
	CHECK(strstr(e, "100000 bytes") != NULL);
	CHECK(strstr(e, "202936204736 bytes free") != NULL); /* 192 GiB - 3 GiB - 1000000 */
	/* pinned memory is not the device's; the device works on */
	CHECK_INT(axl_buffer_alloc(c, a, AXL_MEMORY_PINNED, 4u << 20, &b2), 0);
	axl_queue q = 0;
	CHECK_INT(axl_queue_create(c, a, &q), 0);
	CHECK_INT(axl_copy(c, q, b1, 0, b2, 0, 1000000, NULL, NULL), 0);
	CHECK_INT(axl_queue_sync(c, q), 0);
	axl_buffer_free(c, b1);
	CHECK_INT(axl_buffer_alloc(c, a, AXL_MEMORY_DEVICE, 1048576, &b1), 0);
	axl_compute_free(c);
	close_node();
}

/* AXL_HIP_DOUBLE_LOST_AFTER=2 (and LOST_CODE): the third copy loses its GPU mid-copy */
static void case_lost(const char *code_name)
{
	open_node(NULL, NULL);
	axl_compute *c = open_hip();
	const axl_compute_device *a = gpu(c, "0000:0c:00.0"), *b = gpu(c, "0000:15:00.0"),
				 *host = axl_compute_device_at(c, 0);
	axl_queue qa = 0, qb = 0, qh = 0;
	CHECK_INT(axl_queue_create(c, a, &qa), 0);
	CHECK_INT(axl_queue_create(c, b, &qb), 0);
	CHECK_INT(axl_queue_create(c, host, &qh), 0);
	axl_buffer h = 0, d = 0, h2 = 0;
	CHECK_INT(axl_buffer_alloc(c, a, AXL_MEMORY_PINNED, 1 << 20, &h), 0);
	CHECK_INT(axl_buffer_alloc(c, a, AXL_MEMORY_DEVICE, 1 << 20, &d), 0);
	CHECK_INT(axl_buffer_alloc(c, host, AXL_MEMORY_HOST, 1 << 20, &h2), 0);
	CHECK_INT(axl_copy(c, qa, d, 0, h, 0, 1 << 20, NULL, NULL), 0);
	CHECK_INT(axl_copy(c, qa, h, 0, d, 0, 1 << 20, NULL, NULL), 0);
	CHECK_INT(axl_copy(c, qa, d, 0, h, 0, 1 << 20, NULL, NULL), AXL_EDEVLOST);
	const char *e = axl_error_last();
	CHECK(strstr(e, "hipMemcpyAsync") != NULL);
	CHECK(strstr(e, code_name) != NULL);
	CHECK(strstr(e, "0000:0c:00.0") != NULL);
	CHECK_INT(axl_queue_sync(c, qa), AXL_EDEVLOST);
	CHECK_INT(axl_fill(c, qa, d, 0, 10, 1, NULL), AXL_EDEVLOST);
	uint64_t fr = 0, tot = 0;
	CHECK_INT(axl_compute_device_memory(c, a, &fr, &tot), AXL_EDEVLOST);
	axl_buffer x = 0;
	CHECK_INT(axl_buffer_alloc(c, a, AXL_MEMORY_DEVICE, 4096, &x), AXL_EDEVLOST);
	/* the other GPU works on (its copies too would be lost: the double's LOST_AFTER
	 * counts every copy of the process), and so does the host CPU */
	axl_buffer db = 0;
	CHECK_INT(axl_compute_device_memory(c, b, &fr, &tot), 0);
	CHECK_INT(axl_buffer_alloc(c, b, AXL_MEMORY_DEVICE, 1 << 20, &db), 0);
	CHECK_INT(axl_fill(c, qb, db, 0, 1 << 20, 7, NULL), 0);
	axl_event ev = 0;
	CHECK_INT(axl_event_record(c, qb, &ev), 0);
	CHECK_INT(axl_event_wait(c, ev), 0);
	axl_event_free(c, ev);
	CHECK_INT(axl_queue_sync(c, qb), 0);
	uint8_t *p1 = NULL, *p2 = NULL;
	axl_buffer_host_pointer(c, h, (void **)&p1);
	axl_buffer_host_pointer(c, h2, (void **)&p2);
	if (p1)
		memset(p1, 0x3c, 1 << 20);
	CHECK_INT(axl_copy(c, qh, h2, 0, h, 0, 1 << 20, NULL, NULL), 0);
	CHECK_INT(axl_queue_sync(c, qh), 0);
	CHECK(p2 && p2[0] == 0x3c && p2[(1 << 20) - 1] == 0x3c);
	axl_compute_free(c); /* frees the lost GPU's memory and queue too */
	close_node();
}

/* AXL_HIP_DOUBLE_HANG=hipStreamSynchronize with a 300 ms deadline */
static void case_hang(void)
{
	open_node("AXL_VENDOR_TIMEOUT_MS=300", NULL);
	axl_compute *c = open_hip();
	const axl_compute_device *a = gpu(c, "0000:0c:00.0"), *host = axl_compute_device_at(c, 0);
	CHECK(a != NULL);
	axl_queue q = 0, qh = 0;
	CHECK_INT(axl_queue_create(c, a, &q), 0);
	double t0 = now_s();
	CHECK_INT(axl_queue_sync(c, q), AXL_ETIMEDOUT);
	double t = now_s() - t0;
	CHECK(t >= 0.25 && t < 3.0);
	CHECK(strstr(axl_error_last(), "hipStreamSynchronize") != NULL);
	/* the runtime is wedged: later calls fail at once, the host CPU works on */
	t0 = now_s();
	uint64_t fr = 0, tot = 0;
	CHECK_INT(axl_compute_device_memory(c, a, &fr, &tot), AXL_ETIMEDOUT);
	CHECK(now_s() - t0 < 0.2);
	CHECK_INT(axl_queue_create(c, host, &qh), 0);
	axl_buffer x = 0, y = 0;
	CHECK_INT(axl_buffer_alloc(c, host, AXL_MEMORY_DEVICE, 4096, &x), 0);
	CHECK_INT(axl_buffer_alloc(c, host, AXL_MEMORY_HOST, 4096, &y), 0);
	CHECK_INT(axl_copy(c, qh, y, 0, x, 0, 4096, NULL, NULL), 0);
	CHECK_INT(axl_queue_sync(c, qh), 0);
	t0 = now_s();
	axl_compute_free(c);
	CHECK(now_s() - t0 < 2.0);
	close_node();
}

/* AXL_HIP_LIBRARY=/nonexistent: the host CPU alone, by default and with "hip" asked for */
static void case_missing(void)
{
	open_node(NULL, NULL);
	axl_compute *c = open_hip();
	CHECK_INT(axl_compute_device_count(c), 1);
	CHECK_STR(axl_compute_device_backend(axl_compute_device_at(c, 0)), "cpu");
	CHECK(gpu(c, "0000:0c:00.0") == NULL);
	axl_compute_free(c);
	struct axl_compute_options co = AXL_COMPUTE_OPTIONS_INIT;
	co.backend = "hip";
	CHECK_INT(axl_compute_open(&c, inv, &co), 0);
	CHECK_INT(axl_compute_device_count(c), 1);
	axl_compute_free(c);
	close_node();
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: test_compute_hip CASE LIBRARY TREE\n");
		return 2;
	}
	lib = argv[2];
	root = argv[3];
	const char *k = argv[1];
	if (!strcmp(k, "devices"))
		case_devices();
	else if (!strcmp(k, "copies"))
		case_copies();
	else if (!strcmp(k, "staged"))
		case_staged();
	else if (!strcmp(k, "threads"))
		case_threads();
	else if (!strcmp(k, "oom"))
		case_oom();
	else if (!strcmp(k, "lost"))
		case_lost("hipErrorLaunchFailure");
	else if (!strcmp(k, "lost_code"))
		case_lost("hipErrorIllegalAddress");
	else if (!strcmp(k, "hang"))
		case_hang();
	else if (!strcmp(k, "missing"))
		case_missing();
	else {
		fprintf(stderr, "test_compute_hip: no case %s\n", k);
		return 2;
	}
	return check_summary();
}
