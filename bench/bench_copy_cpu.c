/* SPDX-License-Identifier: MIT */
/*
 * The cpu compute backend (docs/compute.md) against what a program would do without
 * axl, in one run on one machine:
 *   1. large host->host copies through axl_copy against a plain memcpy loop over the
 *      same buffers, one thread, and against the same loop split over the threads axl
 *      uses: bandwidth and the ratios (target: axl >= 95% of the memcpy loop);
 *   2. 4 KiB copies: the cost per copy of axl_copy on a queue (enqueue and run, many in
 *      a row, then one sync), against memcpy of 4 KiB, and the difference (target:
 *      overhead <= 2 us per copy); and one copy with its queue sync, the round trip.
 *
 * usage: bench_copy_cpu [SIZE_MIB [ITERATIONS]]   (default 256 MiB, 10)
 * Medians of ITERATIONS after one warm-up copy; GB/s = 10^9 bytes/s. Not a test: it
 * never fails on slowness.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "axl.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_d);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct piece {
	unsigned char *dst;
	const unsigned char *src;
	size_t n;
};

static void *copy_piece(void *p)
{
	struct piece *x = p;
	memcpy(x->dst, x->src, x->n);
	return NULL;
}

/* memcpy of size bytes split over t threads (started per copy, as a program would) */
static void memcpy_threads(unsigned char *dst, const unsigned char *src, size_t size, int t)
{
	struct piece p[16];
	pthread_t id[16];
	size_t chunk = (size / (size_t)t + 4095) & ~(size_t)4095, off = 0;
	for (int i = 0; i < t; i++) {
		size_t n = off < size ? (size - off < chunk ? size - off : chunk) : 0;
		p[i] = (struct piece){ dst + off, src + off, n };
		off += n;
	}
	for (int i = 1; i < t; i++)
		pthread_create(&id[i], NULL, copy_piece, &p[i]);
	copy_piece(&p[0]);
	for (int i = 1; i < t; i++)
		pthread_join(id[i], NULL);
}

int main(int argc, char **argv)
{
	size_t size = (size_t)(argc > 1 ? atol(argv[1]) : 256) << 20;
	int iter = argc > 2 ? atoi(argv[2]) : 10;
	if (!size || iter < 1 || iter > 10000) {
		fprintf(stderr, "usage: bench_copy_cpu [SIZE_MIB [ITERATIONS]]\n");
		return 2;
	}
	axl_context *ctx = NULL;
	axl_inventory *inv = NULL;
	axl_compute *c = NULL;
	struct axl_context_options o = AXL_CONTEXT_OPTIONS_INIT;
	struct axl_compute_options co = AXL_COMPUTE_OPTIONS_INIT;
	co.backend = "cpu";
	if (axl_context_open(&ctx, &o) || axl_inventory_open(&inv, ctx, 0) || axl_compute_open(&c, inv, &co)) {
		fprintf(stderr, "bench_copy_cpu: %s\n", axl_error_last());
		return 1;
	}
	const axl_compute_device *host = axl_compute_device_at(c, 0);
	axl_buffer bs, bd;
	axl_queue q;
	unsigned char *src, *dst;
	if (axl_buffer_alloc(c, host, AXL_MEMORY_HOST, size, &bs) ||
	    axl_buffer_alloc(c, host, AXL_MEMORY_HOST, size, &bd) || axl_buffer_host_pointer(c, bs, (void **)&src) ||
	    axl_buffer_host_pointer(c, bd, (void **)&dst) || axl_queue_create(c, host, &q)) {
		fprintf(stderr, "bench_copy_cpu: %s\n", axl_error_last());
		return 1;
	}
	memset(src, 0x5a, size);
	memset(dst, 0, size);
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int threads = cpus < 2 ? 1 : cpus > 4 ? 4 : (int)cpus; /* what the cpu backend splits over */
	double *t = calloc((size_t)iter, sizeof *t);

	/* 1. large copies: the three ways in turn each round, the one that goes first
	 * rotating, so that drift and the order's own effects hit all alike */
	double *m1 = calloc((size_t)iter, sizeof *m1), *mt = calloc((size_t)iter, sizeof *mt);
	for (int i = -1; i < iter; i++) {
		for (int k = 0; k < 3; k++) {
			int way = (i + 1 + k) % 3;
			double t0 = now_s();
			if (way == 0) {
				memcpy(dst, src, size);
			} else if (way == 1) {
				memcpy_threads(dst, src, size, threads);
			} else {
				axl_copy(c, q, bd, 0, bs, 0, size, NULL, NULL);
				axl_queue_sync(c, q);
			}
			double g = (double)size / (now_s() - t0) / 1e9;
			if (i >= 0)
				(way == 0 ? m1 : way == 1 ? mt : t)[i] = g;
		}
	}
	double g1 = median(m1, iter), gt = median(mt, iter), ga = median(t, iter);
	printf("large copies: %zu MiB host -> host, median of %d, GB/s\n", size >> 20, iter);
	printf("  memcpy loop, 1 thread          %8.2f\n", g1);
	printf("  memcpy loop, %d threads         %8.2f\n", threads, gt);
	printf("  axl_copy (cpu backend)         %8.2f\n", ga);
	printf("  axl / memcpy 1 thread          %8.2f   (target >= 0.95)\n", ga / g1);
	printf("  axl / memcpy %d threads         %8.2f\n", threads, ga / gt);

	/* 2. 4 KiB copies */
	enum { SMALL = 4096, N = 200000 };
	double m[5], a[5], rt[5];
	for (int r = 0; r < 5; r++) {
		double t0 = now_s();
		for (int i = 0; i < N; i++) {
			size_t off = (size_t)(i % 1024) * SMALL % (size - SMALL);
			memcpy(dst + off, src + off, SMALL);
			__asm__ volatile("" : : "r"(dst) : "memory"); /* keep every copy */
		}
		double t1 = now_s();
		for (int i = 0; i < N; i++) {
			uint64_t off = (uint64_t)(i % 1024) * SMALL % (size - SMALL);
			axl_copy(c, q, bd, off, bs, off, SMALL, NULL, NULL);
		}
		axl_queue_sync(c, q);
		double t2 = now_s();
		for (int i = 0; i < N / 10; i++) {
			axl_copy(c, q, bd, 0, bs, 0, SMALL, NULL, NULL);
			axl_queue_sync(c, q);
		}
		double t3 = now_s();
		m[r] = (t1 - t0) / N * 1e9;
		a[r] = (t2 - t1) / N * 1e9;
		rt[r] = (t3 - t2) / (N / 10) * 1e9;
	}
	double mm = median(m, 5), am = median(a, 5), rm = median(rt, 5);
	printf("4 KiB copies: %d in a row, median of 5 rounds, ns per copy\n", N);
	printf("  memcpy                         %8.0f\n", mm);
	printf("  axl_copy                       %8.0f\n", am);
	printf("  overhead                       %8.0f   (target <= 2000)\n", am - mm);
	printf("  axl_copy + axl_queue_sync      %8.0f   (one copy's round trip)\n", rm);
	free(t);
	free(m1);
	free(mt);
	axl_compute_free(c);
	axl_inventory_free(inv);
	axl_context_free(ctx);
	return 0;
}
