/* SPDX-License-Identifier: MIT */
/*
 * Tests of libaxl_limiter.so's compute limit (docs/limits.md, "Compute limit") against the
 * CUDA double. `test_limiter_compute CASE WORKDIR`, one CTest per case (limiter.compute.*),
 * run with LD_PRELOAD=the limiter and AXL_LIMITER_CUDA_LIBRARY=the double; this program is
 * linked to the double, so its launches reach the limiter's cuLaunchKernel / cuGraphLaunch.
 *
 * The busy share is measured on the double's simulated device clock (events recorded
 * before and after the measured launches; the device runs one kernel at a time), so CPU
 * load does not move it. The limiter's utilisation source is the double's
 * AXL_CUDA_DOUBLE_UTIL_FILE (AXL_LIMITER_UTIL_FILE names the same file). In the shared
 * case each process has a double (a device clock) of its own, so the parent plays the
 * device's monitor: it writes the sum of the children's utilisation files to the file
 * their limiters read, as NVML reports a device shared by two processes.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cuda_types.h"
#include "limtest.h"

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

static double env_s(const char *name, double dflt)
{
	const char *v = getenv(name);
	return v && *v ? atof(v) : dflt;
}

static void path(char *out, size_t cap, const char *name)
{
	snprintf(out, cap, "%s/%s", g_work, name);
}

/* the region and the utilisation files of this case; util: the double's file, src: the one
 * the limiter reads (the same unless the parent sums several) */
static void env_files(const char *tag, const char *util, const char *src)
{
	char p[4096];
	snprintf(p, sizeof p, "%s/%s.region", g_work, tag);
	unlink(p);
	setenv("AXL_LIMITER_REGION", p, 1);
	path(p, sizeof p, util);
	unlink(p);
	setenv("AXL_CUDA_DOUBLE_UTIL_FILE", p, 1);
	path(p, sizeof p, src);
	setenv("AXL_LIMITER_UTIL_FILE", p, 1);
	setenv("AXL_LIMITER_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
}

static void start(void)
{
	RC(cuInit(0));
	CUcontext c;
	RC(cuDevicePrimaryCtxRetain(&c, 0));
	RC(cuCtxSetCurrent(c));
	CUmodule m;
	RC(cuModuleLoadData(&m, "axl-double-module\nkernel busy\n"));
	RC(cuModuleGetFunction(&g_fn, m, "busy"));
	RC(cuStreamCreate(&g_s, 0));
}

static void launch_us(unsigned long long us)
{
	void *params[] = {&us};
	RC(cuLaunchKernel(g_fn, 1, 1, 1, 32, 1, 1, 0, g_s, params, NULL));
}

#define GRAPH_N 4
static const unsigned long long graph_us[GRAPH_N] = {1500, 2500, 3500, 4500};

static CUgraphExec make_graph(void)
{
	RC(cuStreamBeginCapture_v2(g_s, CU_STREAM_CAPTURE_MODE_GLOBAL));
	for (int i = 0; i < GRAPH_N; i++)
		launch_us(graph_us[i]);
	CUgraph g;
	RC(cuStreamEndCapture(g_s, &g));
	CUgraphExec e;
	RC(cuGraphInstantiateWithFlags(&e, g, 0));
	return e;
}

/* Launch for warm_s, then measure for meas_s: the busy share (percent) on the device clock. */
static double run(int graphs, double warm_s, double meas_s, double *wall_s)
{
	CUgraphExec ge = graphs ? make_graph() : NULL;
	uint32_t seed = 12345u + (uint32_t)getpid();
	CUevent e0, e1;
	RC(cuEventCreate(&e0, 0));
	RC(cuEventCreate(&e1, 0));
	double busy_us = 0, t0 = now_s(), tm = 0;
	int measuring = 0;
	for (;;) {
		double t = now_s();
		if (!measuring && t - t0 >= warm_s) {
			RC(cuEventRecord(e0, g_s));
			measuring = 1;
			tm = t;
		}
		if (measuring && t - tm >= meas_s)
			break;
		if (graphs) {
			RC(cuGraphLaunch(ge, g_s));
			if (measuring)
				for (int i = 0; i < GRAPH_N; i++)
					busy_us += (double)graph_us[i];
		} else {
			seed = seed * 1664525u + 1013904223u;
			unsigned long long us = 1000 + (seed >> 8) % 4001; /* 1..5 ms */
			launch_us(us);
			if (measuring)
				busy_us += (double)us;
		}
	}
	if (wall_s)
		*wall_s = now_s() - tm;
	RC(cuEventRecord(e1, g_s));
	RC(cuEventSynchronize(e1));
	float ms = 0;
	RC(cuEventElapsedTime(&ms, e0, e1));
	return ms > 0 ? 100.0 * busy_us / 1000.0 / ms : 0;
}

/* a lone workload held to pct; axl: the limit from AXL_LIMIT_* (else CUDA_DEVICE_SM_LIMIT) */
static void lone(unsigned pct, int graphs, int axl)
{
	char tag[64];
	snprintf(tag, sizeof tag, "lone-%u-%d", pct, graphs);
	env_files(tag, "util", "util");
	start();
	char v[16];
	snprintf(v, sizeof v, "%u", pct);
	if (axl) {
		CUdevice d;
		CUuuid u;
		RC(cuDeviceGet(&d, 0));
		RC(cuDeviceGetUuid(&u, d));
		const unsigned char *b = (const unsigned char *)u.bytes;
		char id[64];
		snprintf(id, sizeof id, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
			 b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
			 b[15]);
		setenv("AXL_LIMIT_VERSION", "1", 1);
		setenv("AXL_LIMIT_DEVICES", id, 1);
		setenv("AXL_LIMIT_MEMORY_BYTES", "none", 1);
		setenv("AXL_LIMIT_COMPUTE_PERCENT", v, 1);
	} else {
		setenv("CUDA_DEVICE_SM_LIMIT", v, 1);
	}
	double wall = 0,
	       share = run(graphs, env_s("AXL_CLIMIT_TEST_WARM", 6), env_s("AXL_CLIMIT_TEST_SECONDS", 10), &wall);
	printf("%s at %u%% (%s): busy share %.2f%% over %.1f s\n", graphs ? "graphs" : "kernels", pct,
	       axl ? "AXL_LIMIT_COMPUTE_PERCENT" : "CUDA_DEVICE_SM_LIMIT", share, wall);
	CHECK(share >= pct - 5.0 && share <= pct + 5.0);
}

static void case_kernels30(void) { lone(30, 0, 0); }
static void case_kernels50(void) { lone(50, 0, 1); }
static void case_graphs30(void) { lone(30, 1, 1); }
static void case_graphs50(void) { lone(50, 1, 0); }

/* Launches captured into a graph are not charged while captured (they do not run); the
 * graph is, by its kernels, when it is launched. A workload held to 30 % captures 300
 * launches of 3 ms (0.9 s of device time: about 3 s of waiting if each were charged). */
static void case_capture(void)
{
	env_files("capture", "util", "util");
	start();
	setenv("CUDA_DEVICE_SM_LIMIT", "30", 1);
	double share = run(0, 3, 1, NULL); /* the bucket in its steady state */
	printf("before: busy share %.1f%%\n", share);
	RC(cuStreamSynchronize(g_s));
	double t0 = now_s();
	RC(cuStreamBeginCapture_v2(g_s, CU_STREAM_CAPTURE_MODE_GLOBAL));
	for (int i = 0; i < 300; i++)
		launch_us(3000);
	CUgraph g;
	RC(cuStreamEndCapture(g_s, &g));
	double took = now_s() - t0;
	printf("300 launches of 3 ms captured in %.3f s\n", took);
	CHECK(took < 0.5);
	CUgraphExec e;
	RC(cuGraphInstantiateWithFlags(&e, g, 0));
	/* launched, the graph is charged: three of them (2.7 s of device time) wait for tokens */
	t0 = now_s();
	for (int i = 0; i < 3; i++)
		RC(cuGraphLaunch(e, g_s));
	double launched = now_s() - t0;
	printf("3 launches of the graph returned after %.3f s\n", launched);
	CHECK(launched > 1.0);
	/* a plain launch after the capture is charged again */
	t0 = now_s();
	RC(cuStreamSynchronize(g_s));
	for (int i = 0; i < 300; i++)
		launch_us(3000);
	double plain = now_s() - t0;
	printf("300 plain launches of 3 ms returned after %.3f s\n", plain);
	CHECK(plain > 1.0);
}

static unsigned read_util(const char *p)
{
	FILE *f = fopen(p, "re");
	unsigned pct = 0;
	char line[256];
	if (!f)
		return 0;
	while (fgets(line, sizeof line, f)) {
		int ord;
		char bus[64];
		unsigned u;
		if (line[0] != '#' && sscanf(line, "%d %63s %u", &ord, bus, &u) == 3 && ord == 0)
			pct = u;
	}
	fclose(f);
	return pct;
}

/* two processes (fork) sharing one limit of 30 %: together within 5 points */
static void case_shared(void)
{
	const unsigned pct = 30;
	char sum[4096], tmp[4096], u[2][4096];
	path(sum, sizeof sum, "util-sum");
	path(tmp, sizeof tmp, "util-sum.tmp");
	unlink(sum);
	env_files("shared", "util-0", "util-sum");
	setenv("CUDA_DEVICE_SM_LIMIT", "30", 1);
	int fds[2][2];
	pid_t kid[2];
	double meas = env_s("AXL_CLIMIT_TEST_SECONDS", 10);
	for (int i = 0; i < 2; i++) {
		char name[32];
		snprintf(name, sizeof name, "util-%d", i);
		path(u[i], sizeof u[i], name);
		unlink(u[i]);
		RC(pipe(fds[i]));
		kid[i] = fork();
		if (kid[i] == 0) {
			setenv("AXL_CUDA_DOUBLE_UTIL_FILE", u[i], 1);
			start();
			double share = run(0, env_s("AXL_CLIMIT_TEST_WARM", 6), meas, NULL);
			if (write(fds[i][1], &share, sizeof share) != sizeof share)
				_exit(3);
			_exit(0);
		}
		close(fds[i][1]);
	}
	/* the device's monitor: both processes' utilisation, summed, every 50 ms */
	for (int alive = 2; alive > 0;) {
		FILE *f = fopen(tmp, "we");
		if (f) {
			unsigned s = read_util(u[0]) + read_util(u[1]);
			fprintf(f, "# summed\n0 0000:00:00.0 %u\n", s > 100 ? 100 : s);
			fclose(f);
			rename(tmp, sum);
		}
		usleep(50000);
		alive = 0;
		for (int i = 0; i < 2; i++)
			alive += waitpid(kid[i], NULL, WNOHANG) == 0;
	}
	double total = 0;
	for (int i = 0; i < 2; i++) {
		double s = -1;
		CHECK(read(fds[i][0], &s, sizeof s) == sizeof s);
		printf("process %d: busy share %.2f%%\n", i, s);
		total += s;
	}
	printf("two processes at %u%%: together %.2f%%\n", pct, total);
	CHECK(total >= pct - 5.0 && total <= pct + 5.0);
}

static int threads(void)
{
	int n = 0;
	DIR *d = opendir("/proc/self/task");
	if (!d)
		return -1;
	struct dirent *e;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* no compute limit (a memory limit only): launches unheld, no thread started */
static void case_unlimited(void)
{
	char p[4096];
	snprintf(p, sizeof p, "%s/unlimited.region", g_work);
	unlink(p);
	setenv("AXL_LIMITER_REGION", p, 1);
	unsetenv("AXL_CUDA_DOUBLE_UTIL_FILE");
	setenv("CUDA_DEVICE_MEMORY_LIMIT_0", "64m", 1);
	start();
	int before = threads();
	CUevent e0, e1;
	RC(cuEventCreate(&e0, 0));
	RC(cuEventCreate(&e1, 0));
	RC(cuEventRecord(e0, g_s));
	double t0 = now_s();
	for (int i = 0; i < 500; i++)
		launch_us(1000);
	CUgraphExec ge = make_graph();
	for (int i = 0; i < 50; i++)
		RC(cuGraphLaunch(ge, g_s));
	double wall = now_s() - t0;
	RC(cuEventRecord(e1, g_s));
	float ms = 0;
	/* the events' span on the device clock: every kernel back to back */
	RC(cuEventSynchronize(e1));
	RC(cuEventElapsedTime(&ms, e0, e1));
	double busy_ms = 500 * 1.0 + 50 * (1.5 + 2.5 + 3.5 + 4.5);
	printf("unlimited: 500 launches + 50 graphs in %.3f s of wall time; device busy %.1f of %.1f ms\n", wall,
	       busy_ms, ms);
	CHECK(threads() == before);
	CHECK(wall < 0.9); /* held, it would take the device's 1.1 s at least */
	CHECK(ms < busy_ms * 1.05 + 200);
}

int main(int argc, char **argv)
{
	static const struct lt_case cases[] = {
		{"kernels30", case_kernels30}, {"kernels50", case_kernels50}, {"graphs30", case_graphs30},
		{"graphs50", case_graphs50},   {"shared", case_shared},       {"unlimited", case_unlimited},
		{"capture", case_capture}};
	return lt_main(argc, argv, "limiter.compute", cases, sizeof cases / sizeof cases[0]);
}
