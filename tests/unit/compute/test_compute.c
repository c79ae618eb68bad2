/* SPDX-License-Identifier: MIT */
/* The compute API on a simulated two-GPU node with the cpu backend (docs/compute.md):
 * the device list, every kind of buffer, copies of awkward sizes at odd offsets checked
 * byte for byte, fills, events, queues used from several threads, and bad input of every
 * kind refused with AXL_EINVAL, never a crash. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "axl.h"
#include "check.h"
#include "notify_check.h"

static axl_context *ctx;
static axl_inventory *inv;

/* A pattern no shift of itself matches: a misplaced byte shows. */
static uint8_t pat(uint64_t i, unsigned seed)
{
	uint64_t x = (i + 1) * 0x9e3779b97f4a7c15ull + seed;
	return (uint8_t)(x >> 56 ^ x >> 29 ^ x);
}

static void open_node(void)
{
	struct axl_context_options o = AXL_CONTEXT_OPTIONS_INIT;
	o.flags = AXL_CONTEXT_NO_ENV;
	o.sim = AXL_TEST_SIM;
	CHECK_INT(axl_context_open(&ctx, &o), 0);
	CHECK_INT(axl_inventory_open(&inv, ctx, 0), 0);
}

static void test_devices(void)
{
	axl_compute *c = NULL;
	CHECK_INT(axl_compute_open(&c, inv, NULL), 0);
	CHECK_INT(axl_compute_device_count(c), 1); /* the cpu backend drives no accelerator */
	const axl_compute_device *host = axl_compute_device_at(c, 0);
	CHECK(host != NULL);
	CHECK(axl_compute_device_at(c, 1) == NULL);
	CHECK(axl_compute_device_of(c, NULL) == host);
	CHECK(axl_compute_device_inventory(host) == NULL);
	CHECK_STR(axl_compute_device_backend(host), "cpu");
	CHECK(axl_inventory_device_count(inv) >= 2);
	for (size_t i = 0; i < axl_inventory_device_count(inv); i++)
		CHECK(axl_compute_device_of(c, axl_inventory_device(inv, i)) == NULL);
	uint64_t fr = 0, tot = 0;
	CHECK_INT(axl_compute_device_memory(c, host, &fr, &tot), 0);
	CHECK(tot > 0 && fr <= tot);
	CHECK_INT(axl_compute_device_memory(c, host, NULL, &tot), AXL_EINVAL);
	CHECK_INT(axl_compute_device_memory(c, NULL, &fr, &tot), AXL_EINVAL);
	CHECK_INT(axl_compute_device_sync(c, host), 0);
	axl_compute_free(c);

	/* the choice of backend: "cpu" is always there, anything unknown is refused */
	struct axl_compute_options co = AXL_COMPUTE_OPTIONS_INIT;
	co.backend = "cpu";
	CHECK_INT(axl_compute_open(&c, inv, &co), 0);
	CHECK_INT(axl_compute_device_count(c), 1);
	axl_compute_free(c);
	co.backend = "no-such-backend";
	c = (axl_compute *)&co;
	CHECK_INT(axl_compute_open(&c, inv, &co), AXL_EINVAL);
	CHECK(c == NULL);
	CHECK(strstr(axl_error_last(), "no-such-backend") != NULL);
	co.backend = NULL;
	co.version = 99;
	CHECK_INT(axl_compute_open(&c, inv, &co), AXL_EVERSION);
	CHECK_INT(axl_compute_open(NULL, inv, NULL), AXL_EINVAL);
	CHECK_INT(axl_compute_open(&c, NULL, NULL), AXL_EINVAL);

	/* $AXL_COMPUTE through the context's environment */
	const char *env[] = { "AXL_COMPUTE=bogus", NULL };
	struct axl_context_options o = AXL_CONTEXT_OPTIONS_INIT;
	o.flags = AXL_CONTEXT_NO_ENV;
	o.sim = AXL_TEST_SIM;
	o.env = env;
	axl_context *ectx = NULL;
	axl_inventory *einv = NULL;
	CHECK_INT(axl_context_open(&ectx, &o), 0);
	CHECK_INT(axl_inventory_open(&einv, ectx, 0), 0);
	CHECK_INT(axl_compute_open(&c, einv, NULL), AXL_EINVAL);
	CHECK(strstr(axl_error_last(), "AXL_COMPUTE") != NULL);
	co = (struct axl_compute_options)AXL_COMPUTE_OPTIONS_INIT;
	co.backend = "cpu"; /* the option wins over the variable */
	CHECK_INT(axl_compute_open(&c, einv, &co), 0);
	axl_compute_free(c);
	axl_inventory_free(einv);
	axl_context_free(ectx);

	CHECK_INT(axl_compute_device_count(NULL), 0);
	CHECK(axl_compute_device_at(NULL, 0) == NULL);
	CHECK(axl_compute_device_of(NULL, NULL) == NULL);
	CHECK(axl_compute_device_backend(NULL) == NULL);
	axl_compute_free(NULL);
	CHECK_STR(axl_copy_path_name(AXL_COPY_PATH_HOST), "host");
	CHECK_STR(axl_copy_path_name(AXL_COPY_PATH_STAGED), "staged");
	CHECK(axl_copy_path_name((axl_copy_path)0) == NULL);
	CHECK_STR(axl_memory_kind_name(AXL_MEMORY_PINNED), "pinned");
	CHECK(axl_memory_kind_name((axl_memory_kind)7) == NULL);
}

static void test_buffers(axl_compute *c)
{
	const axl_compute_device *host = axl_compute_device_at(c, 0);
	static const axl_memory_kind kinds[] = { AXL_MEMORY_DEVICE, AXL_MEMORY_PINNED, AXL_MEMORY_HOST };
	for (size_t k = 0; k < 3; k++) {
		axl_buffer b = 0;
		CHECK_INT(axl_buffer_alloc(c, host, kinds[k], 12345, &b), 0);
		CHECK(b != 0);
		uint64_t size = 0;
		axl_memory_kind kind = 0;
		const axl_compute_device *d = NULL;
		CHECK_INT(axl_buffer_info(c, b, &size, &kind, &d), 0);
		CHECK_INT(size, 12345);
		CHECK_INT(kind, kinds[k]);
		CHECK(d == host);
		CHECK_INT(axl_buffer_info(c, b, NULL, NULL, NULL), 0);
		void *p = NULL;
		if (kinds[k] == AXL_MEMORY_DEVICE) {
			CHECK_INT(axl_buffer_host_pointer(c, b, &p), AXL_EINVAL);
		} else {
			CHECK_INT(axl_buffer_host_pointer(c, b, &p), 0);
			CHECK(p != NULL);
			memset(p, 0xab, 12345); /* it is all there */
		}
		CHECK_INT(axl_buffer_free(c, b), 0);
		CHECK_INT(axl_buffer_free(c, b), AXL_EINVAL);
		CHECK_INT(axl_buffer_info(c, b, &size, NULL, NULL), AXL_EINVAL);
	}
	/* a wrapped buffer is the caller's memory */
	char mine[100];
	axl_buffer w = 0;
	CHECK_INT(axl_buffer_wrap(c, mine, sizeof mine, &w), 0);
	void *p = NULL;
	CHECK_INT(axl_buffer_host_pointer(c, w, &p), 0);
	CHECK(p == mine);
	axl_memory_kind kind = 0;
	const axl_compute_device *d = NULL;
	CHECK_INT(axl_buffer_info(c, w, NULL, &kind, &d), 0);
	CHECK_INT(kind, AXL_MEMORY_HOST);
	CHECK(d == host);
	CHECK_INT(axl_buffer_free(c, w), 0);
}

/* Copy size bytes at odd offsets from a host buffer through a buffer of kind and back
 * into a wrapped one, then check every byte (and the bytes around). */
static void copy_round(axl_compute *c, axl_queue q, axl_memory_kind kind, uint64_t size, unsigned seed)
{
	const axl_compute_device *host = axl_compute_device_at(c, 0);
	const uint64_t so = 3, mo = 5, do_ = 7;
	axl_buffer src = 0, mid = 0, dst = 0;
	CHECK_INT(axl_buffer_alloc(c, host, AXL_MEMORY_HOST, size + so, &src), 0);
	CHECK_INT(axl_buffer_alloc(c, host, kind, size + mo + 1, &mid), 0);
	uint8_t *out = malloc(size + do_ + 1);
	CHECK(out != NULL);
	if (!out)
		return;
	memset(out, 0x5a, size + do_ + 1);
	CHECK_INT(axl_buffer_wrap(c, out, size + do_ + 1, &dst), 0);
	uint8_t *in = NULL;
	CHECK_INT(axl_buffer_host_pointer(c, src, (void **)&in), 0);
	for (uint64_t i = 0; i < size; i++)
		in[so + i] = pat(i, seed);
	axl_copy_path path = 0;
	axl_event e0 = 0, e1 = 0;
	CHECK_INT(axl_event_record(c, q, &e0), 0);
	CHECK_INT(axl_copy(c, q, mid, mo, src, so, size, &path, NULL), 0);
	CHECK_INT(path, AXL_COPY_PATH_HOST);
	CHECK_INT(axl_copy(c, q, dst, do_, mid, mo, size, NULL, &e1), 0);
	CHECK(e1 != 0);
	CHECK_INT(axl_event_wait(c, e1), 0);
	int64_t ns = -1;
	CHECK_INT(axl_event_elapsed_ns(c, e0, e1, &ns), 0);
	CHECK(ns >= 0);
	uint64_t bad = 0;
	for (uint64_t i = 0; i < size; i++)
		bad += out[do_ + i] != pat(i, seed);
	CHECK_INT(bad, 0);
	CHECK(out[do_ - 1] == 0x5a && out[do_ + size] == 0x5a);
	CHECK_INT(axl_event_free(c, e0), 0);
	CHECK_INT(axl_event_free(c, e1), 0);
	CHECK_INT(axl_buffer_free(c, src), 0);
	CHECK_INT(axl_buffer_free(c, mid), 0);
	CHECK_INT(axl_buffer_free(c, dst), 0);
	free(out);
}

static void test_copies(axl_compute *c)
{
	const axl_compute_device *host = axl_compute_device_at(c, 0);
	axl_queue q = 0;
	CHECK_INT(axl_queue_create(c, host, &q), 0);
	static const uint64_t sizes[] = { 1, 4095, (1u << 20) + 7, 64u << 20 };
	static const axl_memory_kind kinds[] = { AXL_MEMORY_HOST, AXL_MEMORY_PINNED, AXL_MEMORY_DEVICE };
	for (size_t s = 0; s < 4; s++)
		for (size_t k = 0; k < 3; k++)
			copy_round(c, q, kinds[k], sizes[s], (unsigned)(s * 3 + k));
	/* hundreds of MiB, odd: every thread of the split gets a ragged piece */
	copy_round(c, q, AXL_MEMORY_DEVICE, (300u << 20) + 13, 99);

	/* fills, and a copy within one buffer that does not overlap */
	axl_buffer b = 0;
	CHECK_INT(axl_buffer_alloc(c, host, AXL_MEMORY_HOST, 20u << 20, &b), 0);
	axl_event e = 0;
	CHECK_INT(axl_fill(c, q, b, 0, 20u << 20, 0x11, NULL), 0);
	CHECK_INT(axl_fill(c, q, b, 1, 9u << 20, 0x22, &e), 0);
	CHECK_INT(axl_copy(c, q, b, (10u << 20) + 3, b, 1, 9u << 20, NULL, NULL), 0);
	CHECK_INT(axl_queue_sync(c, q), 0);
	uint8_t *p = NULL;
	CHECK_INT(axl_buffer_host_pointer(c, b, (void **)&p), 0);
	uint64_t bad = 0;
	for (uint64_t i = 0; i < (20u << 20); i++) {
		int want =
		    (i >= 1 && i < 1 + (9u << 20)) || (i >= (10u << 20) + 3 && i < (19u << 20) + 3) ? 0x22 : 0x11;
		bad += p[i] != want;
	}
	CHECK_INT(bad, 0);
	CHECK_INT(axl_event_wait(c, e), 0);
	CHECK_INT(axl_event_free(c, e), 0);
	CHECK_INT(axl_buffer_free(c, b), 0);
	CHECK_INT(axl_compute_device_sync(c, host), 0);
	CHECK_INT(axl_queue_free(c, q), 0);
	CHECK_INT(axl_queue_free(c, q), AXL_EINVAL);
}

struct worker {
	axl_compute *c;
	unsigned seed;
	int failures;
};

static void *copy_thread(void *arg)
{
	struct worker *w = arg;
	const axl_compute_device *host = axl_compute_device_at(w->c, 0);
	axl_queue q = 0;
	if (axl_queue_create(w->c, host, &q)) {
		w->failures++;
		return NULL;
	}
	for (int round = 0; round < 8; round++) {
		uint64_t size = ((uint64_t)(round + 1) << 18) + w->seed;
		axl_buffer a = 0, b = 0;
		uint8_t *pa = NULL, *pb = NULL;
		if (axl_buffer_alloc(w->c, host, AXL_MEMORY_PINNED, size, &a) ||
		    axl_buffer_alloc(w->c, host, AXL_MEMORY_HOST, size + 1, &b) ||
		    axl_buffer_host_pointer(w->c, a, (void **)&pa) || axl_buffer_host_pointer(w->c, b, (void **)&pb)) {
			w->failures++;
			break;
		}
		for (uint64_t i = 0; i < size; i++)
			pa[i] = pat(i, w->seed + (unsigned)round);
		axl_event e = 0;
		if (axl_copy(w->c, q, b, 1, a, 0, size, NULL, &e) || axl_event_wait(w->c, e) || axl_event_free(w->c, e))
			w->failures++;
		for (uint64_t i = 0; i < size; i++)
			w->failures += pb[1 + i] != pat(i, w->seed + (unsigned)round);
		if (axl_buffer_free(w->c, a) || axl_buffer_free(w->c, b))
			w->failures++;
	}
	if (axl_queue_free(w->c, q))
		w->failures++;
	return NULL;
}

static void test_threads(axl_compute *c)
{
	pthread_t t[4];
	struct worker w[4];
	for (unsigned i = 0; i < 4; i++) {
		w[i] = (struct worker){ c, i * 7 + 1, 0 };
		CHECK_INT(pthread_create(&t[i], NULL, copy_thread, &w[i]), 0);
	}
	for (unsigned i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		CHECK_INT(w[i].failures, 0);
	}
}

static void test_bad_input(axl_compute *c)
{
	const axl_compute_device *host = axl_compute_device_at(c, 0);
	axl_buffer b = 0, small = 0, out = 0;
	axl_queue q = 0;
	CHECK_INT(axl_queue_create(c, host, &q), 0);
	CHECK_INT(axl_buffer_alloc(c, host, AXL_MEMORY_HOST, 4096, &b), 0);
	CHECK_INT(axl_buffer_alloc(c, host, AXL_MEMORY_DEVICE, 16, &small), 0);

	/* sizes and kinds */
	CHECK_INT(axl_buffer_alloc(c, host, AXL_MEMORY_HOST, 0, &out), AXL_EINVAL);
	CHECK_INT(out, 0);
	CHECK_INT(axl_buffer_alloc(c, host, (axl_memory_kind)0, 16, &out), AXL_EINVAL);
	CHECK_INT(axl_buffer_alloc(c, host, (axl_memory_kind)42, 16, &out), AXL_EINVAL);
	CHECK_INT(axl_buffer_alloc(c, host, AXL_MEMORY_HOST, 16, NULL), AXL_EINVAL);
	CHECK_INT(axl_buffer_alloc(c, NULL, AXL_MEMORY_HOST, 16, &out), AXL_EINVAL);
	CHECK_INT(axl_buffer_alloc(c, (const axl_compute_device *)&out, AXL_MEMORY_HOST, 16, &out), AXL_EINVAL);
	CHECK_INT(axl_buffer_alloc(NULL, host, AXL_MEMORY_HOST, 16, &out), AXL_EINVAL);
	/* more than any machine has: a clear out of memory */
	CHECK_INT(axl_buffer_alloc(c, host, AXL_MEMORY_HOST, UINT64_MAX / 2, &out), AXL_ENOMEM);
	CHECK(strstr(axl_error_last(), "bytes") != NULL);
	char mem[8];
	CHECK_INT(axl_buffer_wrap(c, mem, 0, &out), AXL_EINVAL);
	CHECK_INT(axl_buffer_wrap(c, NULL, 8, &out), AXL_EINVAL);
	CHECK_INT(axl_buffer_wrap(c, mem, 8, NULL), AXL_EINVAL);
	CHECK_INT(axl_buffer_wrap(c, mem, UINT64_MAX, &out), AXL_EINVAL);
	void *p = NULL;
	CHECK_INT(axl_buffer_host_pointer(c, small, &p), AXL_EINVAL); /* device memory */
	CHECK_INT(axl_buffer_host_pointer(c, b, NULL), AXL_EINVAL);

	/* copies: zero, out of range, overflowing, overlapping, wrong handles */
	CHECK_INT(axl_copy(c, q, b, 0, small, 0, 0, NULL, NULL), AXL_EINVAL);
	CHECK_INT(axl_copy(c, q, b, 0, small, 0, 17, NULL, NULL), AXL_EINVAL);
	CHECK_INT(axl_copy(c, q, b, 0, small, 1, 16, NULL, NULL), AXL_EINVAL);
	CHECK_INT(axl_copy(c, q, small, 0, b, 0, 4096, NULL, NULL), AXL_EINVAL);
	CHECK_INT(axl_copy(c, q, b, 4090, small, 0, 16, NULL, NULL), AXL_EINVAL);
	CHECK_INT(axl_copy(c, q, b, UINT64_MAX, small, 0, 2, NULL, NULL), AXL_EINVAL);
	CHECK_INT(axl_copy(c, q, b, 0, small, UINT64_MAX - 1, 4, NULL, NULL), AXL_EINVAL);
	CHECK_INT(axl_copy(c, q, b, 0, small, 0, UINT64_MAX, NULL, NULL), AXL_EINVAL);
	CHECK_INT(axl_copy(c, q, b, 0, b, 100, 200, NULL, NULL), AXL_EINVAL);
	CHECK(strstr(axl_error_last(), "overlap") != NULL);
	CHECK_INT(axl_copy(c, q, b, 100, b, 0, 101, NULL, NULL), AXL_EINVAL);
	CHECK_INT(axl_copy(c, q, b, 5, b, 5, 1, NULL, NULL), AXL_EINVAL);
	CHECK_INT(axl_copy(c, q, b, 100, b, 0, 100, NULL, NULL), 0); /* touching is fine */
	CHECK_INT(axl_copy(c, q, b, 0, b, 0, 0, NULL, NULL), AXL_EINVAL);
	CHECK_INT(axl_copy(c, 0, b, 0, small, 0, 1, NULL, NULL), AXL_EINVAL);
	CHECK_INT(axl_copy(c, q, 0, 0, small, 0, 1, NULL, NULL), AXL_EINVAL);
	CHECK_INT(axl_copy(c, q, b, 0, 12345, 0, 1, NULL, NULL), AXL_EINVAL);
	CHECK_INT(axl_copy(c, b, b, 0, small, 0, 1, NULL, NULL), AXL_EINVAL); /* a buffer as queue */
	CHECK_INT(axl_copy(c, q, q, 0, small, 0, 1, NULL, NULL), AXL_EINVAL); /* a queue as buffer */
	CHECK_INT(axl_copy(NULL, q, b, 0, small, 0, 1, NULL, NULL), AXL_EINVAL);
	axl_event e = 77;
	CHECK_INT(axl_copy(c, q, b, 0, small, 0, 17, NULL, &e), AXL_EINVAL);
	CHECK_INT(e, 0);
	/* fills */
	CHECK_INT(axl_fill(c, q, b, 0, 0, 1, NULL), AXL_EINVAL);
	CHECK_INT(axl_fill(c, q, b, 4000, 97, 1, NULL), AXL_EINVAL);
	CHECK_INT(axl_fill(c, q, b, UINT64_MAX, 2, 1, NULL), AXL_EINVAL);
	CHECK_INT(axl_fill(c, q, q, 0, 1, 1, NULL), AXL_EINVAL);
	CHECK_INT(axl_fill(c, 0, b, 0, 1, 1, NULL), AXL_EINVAL);
	CHECK_INT(axl_fill(NULL, q, b, 0, 1, 1, NULL), AXL_EINVAL);

	/* freed handles */
	axl_buffer gone = 0;
	CHECK_INT(axl_buffer_alloc(c, host, AXL_MEMORY_PINNED, 64, &gone), 0);
	CHECK_INT(axl_buffer_free(c, gone), 0);
	CHECK_INT(axl_copy(c, q, b, 0, gone, 0, 1, NULL, NULL), AXL_EINVAL);
	CHECK_INT(axl_fill(c, q, gone, 0, 1, 1, NULL), AXL_EINVAL);
	CHECK_INT(axl_buffer_host_pointer(c, gone, &p), AXL_EINVAL);
	CHECK_INT(axl_buffer_free(c, gone), AXL_EINVAL);
	/* a new buffer in the freed slot does not revive the old handle */
	axl_buffer again = 0;
	CHECK_INT(axl_buffer_alloc(c, host, AXL_MEMORY_PINNED, 64, &again), 0);
	CHECK(again != gone);
	CHECK_INT(axl_buffer_info(c, gone, NULL, NULL, NULL), AXL_EINVAL);
	CHECK_INT(axl_buffer_free(c, again), 0);
	axl_queue q2 = 0;
	CHECK_INT(axl_queue_create(c, host, &q2), 0);
	CHECK_INT(axl_queue_free(c, q2), 0);
	CHECK_INT(axl_queue_sync(c, q2), AXL_EINVAL);
	CHECK_INT(axl_copy(c, q2, b, 0, small, 0, 1, NULL, NULL), AXL_EINVAL);
	CHECK_INT(axl_event_record(c, q2, &e), AXL_EINVAL);
	CHECK_INT(axl_queue_create(c, NULL, &q2), AXL_EINVAL);
	CHECK_INT(axl_queue_create(c, host, NULL), AXL_EINVAL);
	/* events */
	axl_event e1 = 0, e2 = 0;
	CHECK_INT(axl_event_record(c, q, &e1), 0);
	CHECK_INT(axl_event_record(c, q, NULL), AXL_EINVAL);
	CHECK_INT(axl_event_free(c, e1), 0);
	CHECK_INT(axl_event_free(c, e1), AXL_EINVAL);
	CHECK_INT(axl_event_wait(c, e1), AXL_EINVAL);
	CHECK_INT(axl_event_record(c, q, &e2), 0);
	int64_t ns = 0;
	CHECK_INT(axl_event_elapsed_ns(c, e1, e2, &ns), AXL_EINVAL);
	CHECK_INT(axl_event_elapsed_ns(c, e2, e2, NULL), AXL_EINVAL);
	CHECK_INT(axl_event_elapsed_ns(c, e2, e2, &ns), 0);
	CHECK_INT(ns, 0);
	CHECK_INT(axl_event_wait(c, b), AXL_EINVAL); /* a buffer as event */
	CHECK_INT(axl_event_free(c, e2), 0);

	/* handles of another context are refused, not used */
	axl_compute *other = NULL;
	CHECK_INT(axl_compute_open(&other, inv, NULL), 0);
	const axl_compute_device *ohost = axl_compute_device_at(other, 0);
	CHECK(ohost != host);
	CHECK_INT(axl_buffer_info(other, b, NULL, NULL, NULL), AXL_EINVAL);
	CHECK_INT(axl_buffer_free(other, b), AXL_EINVAL);
	CHECK_INT(axl_queue_sync(other, q), AXL_EINVAL);
	CHECK_INT(axl_buffer_alloc(other, host, AXL_MEMORY_HOST, 16, &out), AXL_EINVAL);
	CHECK_INT(axl_queue_create(c, ohost, &q2), AXL_EINVAL);
	CHECK_INT(axl_compute_device_sync(c, ohost), AXL_EINVAL);
	axl_buffer ob = 0;
	CHECK_INT(axl_buffer_alloc(other, ohost, AXL_MEMORY_HOST, 16, &ob), 0);
	CHECK_INT(axl_copy(c, q, b, 0, ob, 0, 1, NULL, NULL), AXL_EINVAL);
	/* left for axl_compute_free to clean up: a buffer, a queue with work on it */
	axl_queue oq = 0;
	CHECK_INT(axl_queue_create(other, ohost, &oq), 0);
	CHECK_INT(axl_fill(other, oq, ob, 0, 16, 3, NULL), 0);
	axl_compute_free(other);

	for (uint64_t h = 1; h < 5000; h += 37)
		CHECK_INT(axl_buffer_info(c, h * 0x10001ull, NULL, NULL, NULL), AXL_EINVAL);
	CHECK_INT(axl_buffer_free(c, small), 0);
	CHECK_INT(axl_buffer_free(c, b), 0);
	CHECK_INT(axl_queue_free(c, q), 0);
}

int main(void)
{
	open_node();
	test_devices();
	axl_compute *c = NULL;
	CHECK_INT(axl_compute_open(&c, inv, NULL), 0);
	if (c) {
		test_buffers(c);
		test_copies(c);
		test_threads(c);
		test_bad_input(c);
		int pending[2];
		axl_event left = 0;
		/* axl_event_notify (the queue's completion calls it back); one left to the close */
		notify_on_device(c, axl_compute_device_at(c, 0), AXL_MEMORY_HOST, pending, &left);
		axl_compute_free(c);
		notify_came(pending, left);
	}
	axl_inventory_free(inv);
	axl_context_free(ctx);
	return check_summary();
}
