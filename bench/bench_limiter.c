/* SPDX-License-Identifier: MIT */
/*
 * bench_limiter: the limiter's added cost per allocation and per launch (bench/README.md).
 * Times cuMemAlloc_v2 + cuMemFree_v2 pairs against the CUDA double, straight to the double
 * and through libaxl_limiter.so's entry points (with a memory limit set, so every pair is
 * reserved in the shared region and remembered), interleaved in the same run; then
 * cuLaunchKernel of a 0 us kernel the same two ways on a device held to 50 % whose
 * utilisation reads 0 (AXL_LIMITER_UTIL_FILE), so that every launch passes the whole
 * interposer and the bucket (at its top rate) without waiting. Prints the medians and
 * the differences.
 * usage: bench_limiter LIMITER.so DOUBLE.so FIXTURE.xml [BATCHES]
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;
typedef CUresult (*alloc_fn)(CUdeviceptr *, size_t);
typedef CUresult (*free_fn)(CUdeviceptr);
typedef CUresult (*launch_fn)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *,
			      void **, void **);
static void *g_fn, *g_stream;

#define PAIRS 1000

static double now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double batch(alloc_fn al, free_fn fr)
{
	double t0 = now_ns();
	for (int i = 0; i < PAIRS; i++) {
		CUdeviceptr p;
		if (al(&p, 4096) != 0 || fr(p) != 0) {
			fprintf(stderr, "bench_limiter: an allocation failed\n");
			exit(1);
		}
	}
	return (now_ns() - t0) / PAIRS;
}

static double launches(launch_fn la)
{
	double t0 = now_ns();
	for (int i = 0; i < PAIRS; i++)
		if (la(g_fn, 1, 1, 1, 1, 1, 1, 0, g_stream, NULL, NULL) != 0) {
			fprintf(stderr, "bench_limiter: a launch failed\n");
			exit(1);
		}
	return (now_ns() - t0) / PAIRS;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: bench_limiter LIMITER.so DOUBLE.so FIXTURE.xml [BATCHES]\n");
		return 2;
	}
	int batches = argc > 4 ? atoi(argv[4]) : 200;
	if (batches < 1 || batches > 100000)
		batches = 200;
	char region[64];
	snprintf(region, sizeof region, "/tmp/axl-bench-limiter-%d.region", (int)getpid());
	setenv("AXL_CUDA_DOUBLE_XML", argv[3], 1);
	setenv("AXL_LIMITER_CUDA_LIBRARY", argv[2], 1);
	setenv("AXL_LIMITER_REGION", region, 1);
	setenv("CUDA_DEVICE_MEMORY_LIMIT", "1g", 1);
	setenv("CUDA_DEVICE_SM_LIMIT_0", "50", 1);
	char util[64];
	snprintf(util, sizeof util, "/tmp/axl-bench-limiter-%d.util", (int)getpid());
	FILE *uf = fopen(util, "w");
	if (!uf || fprintf(uf, "# ordinal bus util\n0 0000:00:00.0 0\n1 0000:00:00.1 0\n") < 0 || fclose(uf)) {
		fprintf(stderr, "bench_limiter: cannot write %s\n", util);
		return 2;
	}
	setenv("AXL_LIMITER_UTIL_FILE", util, 1);
	void *d = dlopen(argv[2], RTLD_NOW);
	void *l = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!d || !l) {
		fprintf(stderr, "bench_limiter: %s\n", dlerror());
		return 2;
	}
	CUresult (*init)(unsigned) = (CUresult(*)(unsigned))dlsym(d, "cuInit");
	CUresult (*retain)(void **, int) = (CUresult(*)(void **, int))dlsym(d, "cuDevicePrimaryCtxRetain");
	CUresult (*setcur)(void *) = (CUresult(*)(void *))dlsym(d, "cuCtxSetCurrent");
	alloc_fn d_al = (alloc_fn)dlsym(d, "cuMemAlloc_v2"), l_al = (alloc_fn)dlsym(l, "cuMemAlloc_v2");
	free_fn d_fr = (free_fn)dlsym(d, "cuMemFree_v2"), l_fr = (free_fn)dlsym(l, "cuMemFree_v2");
	void *ctx;
	if (!init || init(0) || retain(&ctx, 0) || setcur(ctx) || !l_al || l_al == d_al) {
		fprintf(stderr, "bench_limiter: cannot set up the double and the limiter\n");
		return 2;
	}
	double *a = calloc((size_t)batches, sizeof *a), *b = calloc((size_t)batches, sizeof *b);
	for (int i = 0; i < 10; i++) /* warm up */
		batch(d_al, d_fr), batch(l_al, l_fr);
	for (int i = 0; i < batches; i++) {
		a[i] = batch(d_al, d_fr);
		b[i] = batch(l_al, l_fr);
	}
	qsort(a, (size_t)batches, sizeof *a, cmp);
	qsort(b, (size_t)batches, sizeof *b, cmp);
	double ma = a[batches / 2], mb = b[batches / 2];
	printf("cuMemAlloc_v2+cuMemFree_v2 pair, median of %d batches of %d:\n", batches, PAIRS);
	printf("  double alone        %8.1f ns\n", ma);
	printf("  through the limiter %8.1f ns\n", mb);
	printf("  added per pair      %8.1f ns (target <= 1000)\n", mb - ma);

	/* launches */
	CUresult (*load)(void **, const void *) = (CUresult(*)(void **, const void *))dlsym(d, "cuModuleLoadData");
	CUresult (*getf)(void **, void *, const char *) =
		(CUresult(*)(void **, void *, const char *))dlsym(d, "cuModuleGetFunction");
	CUresult (*sc)(void **, unsigned) = (CUresult(*)(void **, unsigned))dlsym(d, "cuStreamCreate");
	launch_fn d_la = (launch_fn)dlsym(d, "cuLaunchKernel"), l_la = (launch_fn)dlsym(l, "cuLaunchKernel");
	void *mod;
	if (!load || !getf || !sc || !l_la || l_la == d_la || load(&mod, "axl-double-module\nkernel k\n") ||
	    getf(&g_fn, mod, "k") || sc(&g_stream, 0)) {
		fprintf(stderr, "bench_limiter: cannot set up the launches\n");
		return 2;
	}
	/* the controller raises the bucket's rate while the device reads idle: warm up until
	 * 20 batches in a row ran without waiting (under 1 us a launch), 1.5 to 8 s */
	int fast = 0;
	for (double t0 = now_ns(); now_ns() - t0 < 8e9 && (fast < 20 || now_ns() - t0 < 1.5e9);)
		fast = launches(l_la) < 1000 ? fast + 1 : 0;
	if (fast < 20)
		printf("(the bucket's rate did not reach the launch rate in 8 s: launches below wait)\n");
	for (int i = 0; i < batches; i++) {
		a[i] = launches(d_la);
		b[i] = launches(l_la);
	}
	qsort(a, (size_t)batches, sizeof *a, cmp);
	qsort(b, (size_t)batches, sizeof *b, cmp);
	ma = a[batches / 2];
	mb = b[batches / 2];
	printf("cuLaunchKernel, device held to 50 %%, median of %d batches of %d:\n", batches, PAIRS);
	printf("  double alone        %8.1f ns\n", ma);
	printf("  through the limiter %8.1f ns\n", mb);
	printf("  added per launch    %8.1f ns (target <= 200)\n", mb - ma);
	unlink(region);
	unlink(util);
	free(a);
	free(b);
	return 0;
}
