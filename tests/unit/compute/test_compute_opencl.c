/* SPDX-License-Identifier: MIT */
/* The opencl compute backend on PoCL, OpenCL's CPU implementation (docs/compute.md): its
 * device appears only when "opencl" is asked for by name, as a software device with no
 * inventory device; every copy kind on it and between it and the cpu backend's buffers,
 * 1 byte to 256 MiB at odd offsets, checked byte for byte; fills; events with elapsed
 * time from OpenCL's profiling timers; several threads with their own queues at once;
 * memory info; out of memory; bad input.
 *
 * Without PoCL the test is skipped (exit 77). scripts/deps.sh --test installs PoCL, so a
 * skip in CI is a failed install; and where PoCL's ICD file is there but the backend
 * finds no device, the test fails. */
#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "axl.h"
#include "check.h"
#include "notify_check.h"
#include "compute/compute_impl.h" /* axl__opencl_live_objects */

#define POCL_ICD "/etc/OpenCL/vendors/pocl.icd"

static axl_context *ctx;
static axl_inventory *inv;
static axl_compute *c;
static const axl_compute_device *host, *ocl;

/* Is the library an ICD file names (a path, or a name the dynamic loader searches for)
 * mapped in this process? */
static bool icd_loaded(const char *lib)
{
	FILE *f = fopen("/proc/self/maps", "r");
	if (!f)
		return false;
	char line[4096], real[4096];
	const char *want = strchr(lib, '/') && realpath(lib, real) ? real : lib;
	size_t n = strlen(want);
	bool hit = false;
	while (!hit && fgets(line, sizeof line, f)) {
		char *p = strchr(line, '/');
		if (!p)
			continue;
		p[strcspn(p, "\n")] = 0;
		const char *base = strrchr(p, '/') + 1;
		hit = strchr(want, '/') ? strcmp(p, want) == 0 || strcmp(p, lib) == 0
					: strncmp(base, want, n) == 0 && (base[n] == 0 || base[n] == '.');
	}
	fclose(f);
	return hit;
}

/* One ICD file: its library, whether it is loaded, and for Intel's whether its
 * DisableDeepBind key is set (the sanitized suite sets it: tests/CMakeLists.txt,
 * AXL_SAN_ICD_ENV). */
static void print_icd(const char *path, int *count)
{
	char lib[4096] = "";
	FILE *f = fopen(path, "r");
	if (f) {
		if (!fgets(lib, sizeof lib, f))
			lib[0] = 0;
		fclose(f);
	}
	lib[strcspn(lib, "\r\n")] = 0;
	const char *dk = getenv("DisableDeepBind"), *rk = getenv("NEOReadDebugKeys");
	bool nodeep = strstr(lib, "igdrcl") && dk && rk && strcmp(dk, "1") == 0 && strcmp(rk, "1") == 0;
	const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	printf("%s %s -> %s (%s%s)", (*count)++ ? ";" : "", name, lib, icd_loaded(lib) ? "loaded" : "not loaded",
	       nodeep ? ", without RTLD_DEEPBIND: its DisableDeepBind key" : "");
}

/* Which ICDs this run was given and loaded (issue 33: the tests say which they ran on):
 * the .icd files of $OCL_ICD_VENDORS (a folder or one file) or /etc/OpenCL/vendors, as
 * ocl-icd reads them (libOpenCL(7)). */
static void print_icds(void)
{
	const char *v = getenv("OCL_ICD_VENDORS"), *dir = "/etc/OpenCL/vendors";
	struct stat st;
	int count = 0;
	if (v && *v && !(stat(v, &st) == 0 && S_ISDIR(st.st_mode))) {
		printf("OpenCL ICDs (%s):", v);
		print_icd(v, &count);
	} else {
		if (v && *v)
			dir = v;
		printf("OpenCL ICDs (%s):", dir);
		struct dirent **names = NULL;
		int n = scandir(dir, &names, NULL, alphasort);
		for (int i = 0; i < n; i++) {
			size_t len = strlen(names[i]->d_name);
			if (len > 4 && strcmp(names[i]->d_name + len - 4, ".icd") == 0) {
				char path[4096];
				snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
				print_icd(path, &count);
			}
			free(names[i]);
		}
		free(names);
	}
	printf("%s\n", count ? "" : " none");
}

static uint8_t pat(uint64_t i, unsigned seed)
{
	uint64_t x = (i + 1) * 0x9e3779b97f4a7c15ull + seed;
	return (uint8_t)(x >> 56 ^ x >> 29 ^ x);
}

static void *ptr_of(axl_buffer b)
{
	void *p = NULL;
	CHECK_INT(axl_buffer_host_pointer(c, b, &p), 0);
	return p;
}

/* src (host memory of the cpu backend) -> device A -> device B -> pinned -> host (on the
 * opencl queue) at odd offsets; every byte checked, and the bytes around the range. */
static void roundtrip(axl_queue q, uint64_t size, unsigned seed)
{
	const uint64_t off = size > 1 ? 3 : 0, len = size + 2 * off + 1;
	axl_buffer src = 0, a = 0, b = 0, pin = 0, dst = 0;
	CHECK_INT(axl_buffer_alloc(c, host, AXL_MEMORY_HOST, len, &src), 0);
	CHECK_INT(axl_buffer_alloc(c, ocl, AXL_MEMORY_DEVICE, len, &a), 0);
	CHECK_INT(axl_buffer_alloc(c, ocl, AXL_MEMORY_DEVICE, len, &b), 0);
	CHECK_INT(axl_buffer_alloc(c, ocl, AXL_MEMORY_PINNED, len, &pin), 0);
	CHECK_INT(axl_buffer_alloc(c, host, AXL_MEMORY_HOST, len, &dst), 0);
	uint8_t *s = ptr_of(src), *d = ptr_of(dst), *p = ptr_of(pin);
	if (!s || !d || !p)
		return;
	for (uint64_t i = 0; i < len; i++)
		s[i] = pat(i, seed);
	memset(d, 0xee, (size_t)len);
	memset(p, 0xdd, (size_t)len);
	axl_copy_path path = 0;
	CHECK_INT(axl_copy(c, q, a, off, src, off, size, &path, NULL), 0);
	CHECK_INT(path, AXL_COPY_PATH_DEVICE);
	CHECK_INT(axl_copy(c, q, b, 1, a, off, size, &path, NULL), 0); /* D2D within the device */
	CHECK_INT(path, AXL_COPY_PATH_DEVICE);
	CHECK_INT(axl_copy(c, q, pin, off + 1, b, 1, size, &path, NULL), 0);
	CHECK_INT(path, AXL_COPY_PATH_DEVICE);
	CHECK_INT(axl_copy(c, q, dst, off, pin, off + 1, size, &path, NULL), 0); /* host <-> host, in order */
	CHECK_INT(path, AXL_COPY_PATH_HOST);
	CHECK_INT(axl_queue_sync(c, q), 0);
	uint64_t bad = 0;
	for (uint64_t i = 0; i < size; i++)
		bad += d[off + i] != pat(off + i, seed);
	for (uint64_t i = 0; i < off; i++)
		bad += d[i] != 0xee;
	for (uint64_t i = off + size; i < len; i++)
		bad += d[i] != 0xee;
	CHECK_INT(bad, 0);
	if (bad)
		fprintf(stderr, "roundtrip of %llu bytes: %llu bad bytes\n", (unsigned long long)size,
			(unsigned long long)bad);
	CHECK_INT(axl_buffer_free(c, src), 0);
	CHECK_INT(axl_buffer_free(c, a), 0);
	CHECK_INT(axl_buffer_free(c, b), 0);
	CHECK_INT(axl_buffer_free(c, pin), 0);
	CHECK_INT(axl_buffer_free(c, dst), 0);
}

static void test_copies(void)
{
	axl_queue q = 0;
	CHECK_INT(axl_queue_create(c, ocl, &q), 0);
	const uint64_t sizes[] = {1, 2, 3, 7, 64, 4095, 4097, 65537, (1u << 20) + 7, (16u << 20) + 5, 256u << 20};
	for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
		roundtrip(q, sizes[i], (unsigned)i);
	CHECK_INT(axl_queue_free(c, q), 0);
}

static void test_fill_events(void)
{
	axl_queue q = 0;
	CHECK_INT(axl_queue_create(c, ocl, &q), 0);
	const uint64_t n = 8u << 20;
	axl_buffer dev = 0, out = 0, h = 0;
	CHECK_INT(axl_buffer_alloc(c, ocl, AXL_MEMORY_DEVICE, n, &dev), 0);
	CHECK_INT(axl_buffer_alloc(c, host, AXL_MEMORY_PINNED, n, &out), 0);
	CHECK_INT(axl_buffer_alloc(c, ocl, AXL_MEMORY_HOST, n, &h), 0);
	axl_event e0 = 0, e1 = 0, e2 = 0;
	CHECK_INT(axl_event_record(c, q, &e0), 0);
	CHECK_INT(axl_fill(c, q, dev, 0, n, 0x11, NULL), 0);
	CHECK_INT(axl_fill(c, q, dev, 5, 1001, 0xa5, &e1), 0);
	CHECK_INT(axl_copy(c, q, out, 0, dev, 0, n, NULL, &e2), 0);
	CHECK_INT(axl_event_wait(c, e2), 0);
	uint8_t *o = ptr_of(out);
	uint64_t bad = 0;
	for (uint64_t i = 0; o && i < n; i++)
		bad += o[i] != (i >= 5 && i < 1006 ? 0xa5 : 0x11);
	CHECK_INT(bad, 0);
	int64_t ns = 0, ns1 = 0;
	CHECK_INT(axl_event_elapsed_ns(c, e0, e2, &ns), 0);
	CHECK(ns > 0);
	CHECK_INT(axl_event_elapsed_ns(c, e0, e1, &ns1), 0);
	CHECK(ns1 > 0 && ns1 <= ns);
	/* a fill of host memory on the opencl queue, in the queue's order */
	CHECK_INT(axl_copy(c, q, h, 0, dev, 0, n, NULL, NULL), 0);
	CHECK_INT(axl_fill(c, q, h, 1, 3, 0x7f, NULL), 0);
	CHECK_INT(axl_compute_device_sync(c, ocl), 0);
	uint8_t *hp = ptr_of(h);
	if (hp)
		CHECK(hp[0] == 0x11 && hp[1] == 0x7f && hp[3] == 0x7f && hp[4] == 0x11 && hp[5] == 0xa5);
	CHECK_INT(axl_event_free(c, e0), 0);
	CHECK_INT(axl_event_free(c, e1), 0);
	CHECK_INT(axl_event_free(c, e2), 0);

	/* device memory of the opencl device and host memory on the host CPU's queue: the
	 * opencl device does the copy, after the queue's earlier work, done on return */
	axl_queue hq = 0;
	axl_copy_path path = 0;
	CHECK_INT(axl_queue_create(c, host, &hq), 0);
	if (o) {
		memset(o, 0, 64);
		o[0] = 0x42;
	}
	CHECK_INT(axl_copy(c, hq, out, 8, dev, 0, 16, &path, NULL), 0);
	CHECK_INT(path, AXL_COPY_PATH_DEVICE);
	if (o)
		CHECK(o[0] == 0x42 && o[7] == 0 && o[8] == 0x11 && o[13] == 0xa5 && o[23] == 0xa5 && o[24] == 0);
	CHECK_INT(axl_copy(c, hq, dev, 0, out, 0, 1, &path, NULL), 0);
	CHECK_INT(axl_copy(c, q, out, 32, dev, 0, 1, NULL, NULL), 0);
	CHECK_INT(axl_queue_sync(c, q), 0);
	if (o)
		CHECK(o[32] == 0x42);
	/* bad input: a fill of the opencl device's memory on the host CPU's queue */
	CHECK_INT(axl_fill(c, hq, dev, 0, 16, 0, NULL), AXL_EINVAL);
	CHECK_INT(axl_copy(c, q, dev, 0, dev, 8, 16, NULL, NULL), AXL_EINVAL); /* overlap */
	CHECK_INT(axl_copy(c, q, out, n - 1, dev, 0, 2, NULL, NULL), AXL_EINVAL);
	CHECK_INT(axl_queue_free(c, hq), 0);
	CHECK_INT(axl_buffer_free(c, dev), 0);
	CHECK_INT(axl_buffer_free(c, out), 0);
	CHECK_INT(axl_buffer_free(c, h), 0);
	CHECK_INT(axl_queue_free(c, q), 0);
}

static void test_memory(void)
{
	uint64_t fr = 0, tot = 0, fr2 = 0, tot2 = 0;
	CHECK_INT(axl_compute_device_memory(c, ocl, &fr, &tot), 0);
	CHECK(tot > 0 && fr > 0 && fr <= tot);
	/* more than the device has: refused at once, saying what was asked and what is free */
	axl_buffer b = 0;
	CHECK_INT(axl_buffer_alloc(c, ocl, AXL_MEMORY_DEVICE, tot + 1, &b), AXL_ENOMEM);
	char asked[32];
	snprintf(asked, sizeof asked, "%llu bytes", (unsigned long long)(tot + 1));
	CHECK(strstr(axl_error_last(), asked) != NULL);
	CHECK(strstr(axl_error_last(), "free") != NULL);
	/* what this backend holds counts against free memory */
	CHECK_INT(axl_buffer_alloc(c, ocl, AXL_MEMORY_DEVICE, 64u << 20, &b), 0);
	CHECK_INT(axl_compute_device_memory(c, ocl, &fr2, &tot2), 0);
	CHECK_INT(tot2, tot);
	CHECK(fr2 <= tot - (64u << 20));
	CHECK_INT(axl_buffer_free(c, b), 0);
}

struct worker {
	unsigned seed;
	int failed;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	const uint64_t n = (4u << 20) + w->seed;
	axl_queue q = 0;
	axl_buffer s = 0, d = 0, r = 0;
	if (axl_queue_create(c, ocl, &q) || axl_buffer_alloc(c, host, AXL_MEMORY_HOST, n, &s) ||
	    axl_buffer_alloc(c, ocl, AXL_MEMORY_DEVICE, n, &d) || axl_buffer_alloc(c, ocl, AXL_MEMORY_PINNED, n, &r)) {
		w->failed = 1;
		return NULL;
	}
	uint8_t *sp = NULL, *rp = NULL;
	axl_buffer_host_pointer(c, s, (void **)&sp);
	axl_buffer_host_pointer(c, r, (void **)&rp);
	for (int round = 0; round < 4; round++) {
		for (uint64_t i = 0; i < n; i++)
			sp[i] = pat(i, w->seed * 16 + (unsigned)round);
		if (axl_copy(c, q, d, 0, s, 0, n, NULL, NULL) || axl_copy(c, q, r, 0, d, 0, n, NULL, NULL) ||
		    axl_queue_sync(c, q))
			w->failed = 1;
		for (uint64_t i = 0; i < n && !w->failed; i++)
			if (rp[i] != pat(i, w->seed * 16 + (unsigned)round))
				w->failed = 1;
	}
	axl_buffer_free(c, s);
	axl_buffer_free(c, d);
	axl_buffer_free(c, r);
	axl_queue_free(c, q);
	return NULL;
}

static void test_threads(void)
{
	enum { N = 4 };
	pthread_t t[N];
	struct worker w[N];
	for (int i = 0; i < N; i++) {
		w[i] = (struct worker){(unsigned)i + 1, 0};
		CHECK_INT(pthread_create(&t[i], NULL, work, &w[i]), 0);
	}
	for (int i = 0; i < N; i++) {
		pthread_join(t[i], NULL);
		CHECK_INT(w[i].failed, 0);
	}
}

int main(void)
{
	struct axl_context_options o = AXL_CONTEXT_OPTIONS_INIT;
	o.flags = AXL_CONTEXT_NO_ENV;
	o.sim = AXL_TEST_SIM;
	CHECK_INT(axl_context_open(&ctx, &o), 0);
	CHECK_INT(axl_inventory_open(&inv, ctx, 0), 0);

	/* not asked for by name: the software device is not driven */
	CHECK_INT(axl_compute_open(&c, inv, NULL), 0);
	CHECK_INT(axl_compute_device_count(c), 1);
	axl_compute_free(c);

	struct axl_compute_options co = AXL_COMPUTE_OPTIONS_INIT;
	co.backend = "opencl";
	CHECK_INT(axl_compute_open(&c, inv, &co), 0);
	print_icds();
	host = axl_compute_device_at(c, 0);
	for (size_t i = 1; i < axl_compute_device_count(c); i++) {
		const axl_compute_device *d = axl_compute_device_at(c, i);
		if (strcmp(axl_compute_device_backend(d), "opencl") == 0 && !axl_compute_device_inventory(d))
			ocl = d;
	}
	if (!ocl) {
		bool installed = access(POCL_ICD, F_OK) == 0;
		fprintf(stderr, "no OpenCL software device (%s): %s\n",
			installed ? POCL_ICD " is there, so this is a failure" : "PoCL is not installed, skipping",
			axl_error_last());
		axl_compute_free(c);
		axl_inventory_free(inv);
		axl_context_free(ctx);
		if (!installed)
			return 77;
		CHECK(ocl != NULL);
		return check_summary();
	}
	printf("opencl device: %s\n", axl_compute_device_name(ocl));
	CHECK(axl_compute_device_name(ocl)[0] != '\0');
	/* the simulated GPUs are not PoCL's: nothing matched them */
	for (size_t i = 0; i < axl_inventory_device_count(inv); i++)
		CHECK(axl_compute_device_of(c, axl_inventory_device(inv, i)) == NULL);

	test_memory();
	test_copies();
	test_fill_events();
	test_threads();
	/* axl_event_notify (clSetEventCallback): device to host, one left to the close */
	int pending[2];
	axl_event left = 0;
	notify_on_device(c, ocl, AXL_MEMORY_PINNED, pending, &left);
	/* every OpenCL object axl made is released at close (LeakSanitizer is off for this
	 * test: it crashes on PoCL's threads): some while open, none after */
	CHECK(axl__opencl_live_objects() > 0);
	axl_compute_free(c);
	CHECK_INT(axl__opencl_live_objects(), 0);
	notify_came(pending, left);
	/* a second context, with a buffer left for close to free and an event left for it */
	CHECK_INT(axl_compute_open(&c, inv, &co), 0);
	axl_buffer b2 = 0;
	axl_queue q2 = 0;
	axl_event e2 = 0;
	const axl_compute_device *d2 = NULL;
	for (size_t i = 1; c && i < axl_compute_device_count(c); i++)
		if (strcmp(axl_compute_device_backend(axl_compute_device_at(c, i)), "opencl") == 0)
			d2 = axl_compute_device_at(c, i);
	CHECK(d2 != NULL);
	if (d2) {
		CHECK_INT(axl_buffer_alloc(c, d2, AXL_MEMORY_DEVICE, 1 << 20, &b2), 0);
		CHECK_INT(axl_queue_create(c, d2, &q2), 0);
		CHECK_INT(axl_fill(c, q2, b2, 0, 1 << 20, 0x5a, NULL), 0);
		CHECK_INT(axl_event_record(c, q2, &e2), 0);
		CHECK(axl__opencl_live_objects() >= 4); /* context, service queue, buffer, queue, event */
	}
	axl_compute_free(c);
	CHECK_INT(axl__opencl_live_objects(), 0);
	axl_inventory_free(inv);
	axl_context_free(ctx);
	return check_summary();
}
