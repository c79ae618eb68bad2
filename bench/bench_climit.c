/* SPDX-License-Identifier: MIT */
/* bench_climit: the compute limit's added cost per launch while the bucket has tokens
 * (src/limiter/climit.c, bench/README.md). Against the CUDA double in the same run:
 * cuLaunchKernel of a 0 us kernel alone, and axl__climit_before_launch() + the same launch
 * on a device limited to 50 % whose utilisation source reads 0 (so the rate climbs and
 * the bucket never empties); also axl__climit_before_launch() alone, limited and
 * unlimited. Medians of batches of 1000 calls, in ns per call. Never fails a build. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "climit.h"
#include "cuda_types.h"

#define BATCH 1000
#define ROUNDS 301

static __typeof__(cuLaunchKernel) *p_launch;
static CUfunction g_fn;
static CUstream g_s;
static struct axl__climit *g_cl;

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int zero_util(void *ctx, int dev, unsigned *pct)
{
	(void)ctx;
	(void)dev;
	*pct = 0;
	return 0;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* mode 0: launch; 1: gate + launch; 2: gate alone */
static double median(int mode)
{
	static double v[ROUNDS];
	unsigned long long us = 0;
	void *params[] = { &us };
	for (int r = 0; r < ROUNDS; r++) {
		double t0 = now_ns();
		for (int i = 0; i < BATCH; i++) {
			if (mode)
				axl__climit_before_launch(g_cl, 0, 1);
			if (mode != 2)
				p_launch(g_fn, 1, 1, 1, 1, 1, 1, 0, g_s, params, NULL);
		}
		v[r] = (now_ns() - t0) / BATCH;
	}
	qsort(v, ROUNDS, sizeof v[0], cmp);
	return v[ROUNDS / 2];
}

int main(void)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/hgx-8x-h100-q2x.xml", CUDAD_FIXTURES);
	setenv("AXL_CUDA_DOUBLE_XML", path, 1);
	void *lib = dlopen(CUDAD_LIB, RTLD_NOW);
	if (!lib) {
		fprintf(stderr, "bench_climit: %s\n", dlerror());
		return 0;
	}
	__typeof__(cuInit) *p_init = (__typeof__(cuInit) *)dlsym(lib, "cuInit");
	__typeof__(cuDevicePrimaryCtxRetain) *p_retain =
	    (__typeof__(cuDevicePrimaryCtxRetain) *)dlsym(lib, "cuDevicePrimaryCtxRetain");
	__typeof__(cuCtxSetCurrent) *p_set = (__typeof__(cuCtxSetCurrent) *)dlsym(lib, "cuCtxSetCurrent");
	__typeof__(cuModuleLoadData) *p_load = (__typeof__(cuModuleLoadData) *)dlsym(lib, "cuModuleLoadData");
	__typeof__(cuModuleGetFunction) *p_get = (__typeof__(cuModuleGetFunction) *)dlsym(lib, "cuModuleGetFunction");
	__typeof__(cuStreamCreate) *p_sc = (__typeof__(cuStreamCreate) *)dlsym(lib, "cuStreamCreate");
	p_launch = (__typeof__(cuLaunchKernel) *)dlsym(lib, "cuLaunchKernel");
	CUcontext c;
	CUmodule m;
	if (p_init(0) || p_retain(&c, 0) || p_set(c) || p_load(&m, "axl-double-module\nkernel k\n") ||
	    p_get(&g_fn, m, "k") || p_sc(&g_s, 0)) {
		fprintf(stderr, "bench_climit: the double did not start\n");
		return 0;
	}
	struct axl__climit_source src = { zero_util, NULL, 0, NULL };
	if (axl__climit_init(&g_cl, NULL, &src))
		return 0;
	double unlimited_gate = median(2);
	axl__climit_set(g_cl, 0, 50);
	/* let the controller raise the rate: launches it never sees on the device */
	for (double t0 = now_ns(); now_ns() - t0 < 1.5e9;)
		median(2);
	double base = median(0), gated = median(1), gate = median(2);
	double rate = 0;
	axl__climit_stats(g_cl, 0, &rate, NULL);
	printf("launch alone (double)          %8.1f ns\n", base);
	printf("gate + launch (limited, tokens) %7.1f ns   added %.1f ns\n", gated, gated - base);
	printf("gate alone, limited            %8.1f ns\n", gate);
	printf("gate alone, unlimited          %8.1f ns\n", unlimited_gate);
	printf("(rate at the end %.3g units/s)\n", rate);
	axl__climit_free(g_cl);
	return 0;
}
