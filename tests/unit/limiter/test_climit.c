/* SPDX-License-Identifier: MIT */
/* Tests of the compute limit (src/limiter/climit.c) on the CUDA double's simulated
 * kernels, without the interposer: the test calls axl__climit_before_launch() before each
 * launch as the interposer does. `test_climit CASE`, one CTest per case (unit.climit.CASE).
 *
 * One process, no contention (a lone workload): the bucket alone must hold it. The busy
 * share is measured on the double's device clock: events recorded before and after the
 * measured launches take the time the device reaches them, and the device runs one
 * kernel at a time, so share = (sum of the measured kernels' durations) / (event span),
 * exactly, whatever the CPU load does to the launching thread. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "climit.h"
#include "nvidia/climit_nvml.h"
#include "cuda_types.h"

#define FUNCS(X)                                                                                          \
	X(cuInit) X(cuDevicePrimaryCtxRetain) X(cuCtxSetCurrent) X(cuModuleLoadData) X(cuModuleGetFunction) \
	X(cuStreamCreate) X(cuStreamSynchronize) X(cuEventCreate) X(cuEventRecord) X(cuEventSynchronize)    \
	X(cuEventElapsedTime) X(cuLaunchKernel) X(cuStreamBeginCapture_v2) X(cuStreamEndCapture)            \
	X(cuGraphInstantiateWithFlags) X(cuGraphLaunch) X(axl_cuda_double_utilization)

#define DECLARE(f) static __typeof__(f) *p_##f;
FUNCS(DECLARE)

static int g_fail;
#define CHECK(c)                                                                     \
	do {                                                                             \
		if (!(c)) {                                                              \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c); \
			g_fail = 1;                                                      \
		}                                                                        \
	} while (0)
#define RC(call)                                                                                   \
	do {                                                                                       \
		int rc_ = (int)(call);                                                             \
		if (rc_ != 0) {                                                                    \
			fprintf(stderr, "%s:%d: %s returned %d\n", __FILE__, __LINE__, #call, rc_); \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

static CUfunction g_fn;
static CUstream g_s;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void setup(void)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/hgx-8x-h100-q2x.xml", CUDAD_FIXTURES);
	setenv("AXL_CUDA_DOUBLE_XML", path, 1);
	void *lib = dlopen(CUDAD_LIB, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fprintf(stderr, "dlopen %s: %s\n", CUDAD_LIB, dlerror());
		exit(2);
	}
#define LOAD(f)                                                       \
	p_##f = (__typeof__(f) *)dlsym(lib, #f);                      \
	if (!p_##f) {                                                 \
		fprintf(stderr, "%s: no symbol %s\n", CUDAD_LIB, #f); \
		exit(2);                                              \
	}
	FUNCS(LOAD)
#undef LOAD
	RC(p_cuInit(0));
	CUcontext c;
	RC(p_cuDevicePrimaryCtxRetain(&c, 0));
	RC(p_cuCtxSetCurrent(c));
	CUmodule m;
	RC(p_cuModuleLoadData(&m, "axl-double-module\nkernel busy\n"));
	RC(p_cuModuleGetFunction(&g_fn, m, "busy"));
	RC(p_cuStreamCreate(&g_s, 0));
}

static void launch_us(unsigned long long us)
{
	void *params[] = { &us };
	RC(p_cuLaunchKernel(g_fn, 1, 1, 1, 32, 1, 1, 0, g_s, params, NULL));
}

/* the double's own utilisation, as NVML would give it (the window since the last read) */
static int util_direct(void *ctx, int dev, unsigned *pct)
{
	(void)ctx;
	return p_axl_cuda_double_utilization(dev, pct) == CUDA_SUCCESS ? 0 : -1;
}

#define GRAPH_N 4
static const unsigned long long graph_us[GRAPH_N] = { 1500, 2500, 3500, 4500 };

static CUgraphExec make_graph(void)
{
	RC(p_cuStreamBeginCapture_v2(g_s, CU_STREAM_CAPTURE_MODE_GLOBAL));
	for (int i = 0; i < GRAPH_N; i++)
		launch_us(graph_us[i]);
	CUgraph g;
	RC(p_cuStreamEndCapture(g_s, &g));
	CUgraphExec e;
	RC(p_cuGraphInstantiateWithFlags(&e, g, 0));
	return e;
}

/* Launch under the limit for warm_s, then measure for meas_s: the device's busy share in
 * percent over the measured launches; *wall_s the launching loop's own time. */
static double run(struct axl__climit *cl, int graphs, double warm_s, double meas_s, double *wall_s)
{
	CUgraphExec ge = graphs ? make_graph() : NULL;
	uint32_t seed = 12345;
	CUevent e0, e1;
	RC(p_cuEventCreate(&e0, 0));
	RC(p_cuEventCreate(&e1, 0));
	double busy_us = 0, t0 = now_s(), tm = 0;
	int measuring = 0;
	for (;;) {
		double t = now_s();
		if (!measuring && t - t0 >= warm_s) {
			RC(p_cuEventRecord(e0, g_s));
			measuring = 1;
			tm = t;
		}
		if (measuring && t - tm >= meas_s)
			break;
		if (graphs) {
			axl__climit_before_launch(cl, 0, GRAPH_N);
			RC(p_cuGraphLaunch(ge, g_s));
			if (measuring)
				for (int i = 0; i < GRAPH_N; i++)
					busy_us += (double)graph_us[i];
		} else {
			seed = seed * 1664525u + 1013904223u;
			unsigned long long us = 1000 + (seed >> 8) % 4001; /* 1..5 ms */
			axl__climit_before_launch(cl, 0, 1);
			launch_us(us);
			if (measuring)
				busy_us += (double)us;
		}
	}
	if (wall_s)
		*wall_s = now_s() - tm;
	RC(p_cuEventRecord(e1, g_s));
	RC(p_cuEventSynchronize(e1));
	float ms = 0;
	RC(p_cuEventElapsedTime(&ms, e0, e1));
	return ms > 0 ? 100.0 * busy_us / 1000.0 / ms : 0;
}

static double env_s(const char *name, double dflt)
{
	const char *v = getenv(name);
	return v && *v ? atof(v) : dflt;
}

static void limited(unsigned pct, int graphs)
{
	setup();
	struct axl__climit_source src = { util_direct, NULL, 0, NULL };
	struct axl__climit *cl;
	RC(axl__climit_init(&cl, NULL, &src));
	axl__climit_set(cl, 0, pct);
	/* the window is 10 s; AXL_CLIMIT_TEST_SECONDS shortens or lengthens it */
	double meas = env_s("AXL_CLIMIT_TEST_SECONDS", 8), wall = 0;
	double share = run(cl, graphs, 2.0, meas, &wall);
	double rate = 0, util = 0;
	axl__climit_stats(cl, 0, &rate, &util);
	printf("%s at %u%%: busy share %.2f%% over %.1f s (rate %.1f units/s, smoothed util %.1f%%)\n",
	       graphs ? "graphs" : "kernels", pct, share, wall, rate, util);
	CHECK(share >= pct - 5.0 && share <= pct + 5.0);
	axl__climit_free(cl);
}

static void case_unlimited(void)
{
	setup();
	struct axl__climit_source src = { util_direct, NULL, 0, NULL };
	struct axl__climit *cl;
	RC(axl__climit_init(&cl, NULL, &src));
	unsigned settings[] = { 100, 0 };
	for (int k = 0; k < 2; k++) {
		axl__climit_set(cl, 0, settings[k]);
		CUevent e0, e1;
		RC(p_cuEventCreate(&e0, 0));
		RC(p_cuEventCreate(&e1, 0));
		RC(p_cuEventRecord(e0, g_s));
		double t0 = now_s();
		for (int i = 0; i < 400; i++) {
			axl__climit_before_launch(cl, 0, 1);
			launch_us(1000);
		}
		double wall = now_s() - t0;
		RC(p_cuEventRecord(e1, g_s));
		RC(p_cuEventSynchronize(e1));
		float ms = 0;
		RC(p_cuEventElapsedTime(&ms, e0, e1));
		double share = 100.0 * 400.0 / ms;
		printf("limit %u: 400 x 1 ms launched in %.1f ms, busy share %.1f%%\n", settings[k], wall * 1e3, share);
		CHECK(wall < 0.2); /* nothing held back (the device needs 400 ms) */
		CHECK(share >= 95);
	}
	/* a NULL limiter and a device out of range pass through */
	axl__climit_before_launch(NULL, 0, 1);
	axl__climit_before_launch(cl, -1, 1);
	axl__climit_before_launch(cl, 99, 1);
	axl__climit_free(cl);
	axl__climit_free(NULL);
}

/* the double's AXL_CUDA_DOUBLE_UTIL_FILE as the source (1 s windows, 100 ms updates) */
static void case_file_source(void)
{
	char path[] = "/tmp/axl-climit-util-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	close(fd);
	setenv("AXL_CUDA_DOUBLE_UTIL_FILE", path, 1);
	setup();
	struct axl__climit_source src;
	RC(axl__climit_source_file(&src, path));
	struct axl__climit *cl;
	RC(axl__climit_init(&cl, NULL, &src));
	axl__climit_set(cl, 0, 40);
	double meas = env_s("AXL_CLIMIT_TEST_SECONDS", 8), wall = 0;
	double share = run(cl, 0, 4.0, meas, &wall);
	printf("file source, kernels at 40%%: busy share %.2f%% over %.1f s\n", share, wall);
	CHECK(share >= 33 && share <= 47); /* a 1 s window read every 100 ms: laggier */
	axl__climit_free(cl);
	/* a missing file: the source reports failure, init still works */
	struct axl__climit_source bad;
	RC(axl__climit_source_file(&bad, "/nonexistent/util"));
	unsigned u = 0;
	CHECK(bad.read(bad.ctx, 0, &u) != 0);
	bad.release(bad.ctx);
	CHECK(axl__climit_source_file(&bad, "") != 0);
	CHECK(axl__climit_source_nvml(&bad, "/nonexistent/libnvidia-ml.so.1") != 0);
	unlink(path);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s kernels30|kernels50|graphs30|graphs50|unlimited|file_source\n", argv[0]);
		return 2;
	}
	const char *c = argv[1];
	if (!strcmp(c, "kernels30"))
		limited(30, 0);
	else if (!strcmp(c, "kernels50"))
		limited(50, 0);
	else if (!strcmp(c, "graphs30"))
		limited(30, 1);
	else if (!strcmp(c, "graphs50"))
		limited(50, 1);
	else if (!strcmp(c, "unlimited"))
		case_unlimited();
	else if (!strcmp(c, "file_source"))
		case_file_source();
	else {
		fprintf(stderr, "unknown case %s\n", c);
		return 2;
	}
	if (g_fail)
		fprintf(stderr, "FAILED\n");
	return g_fail;
}
