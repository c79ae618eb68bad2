/* SPDX-License-Identifier: MIT */
/* The cost of one fdinfo sweep (src/lib/fdinfo.h) against the number of processes and
 * file descriptors, on a synthetic /proc tree read through the re-rooted fs layer.
 *
 *   build/tests/bench_fdinfo [PROCS FDS_PER_PROC DRM_EVERY RUNS]
 *
 * Defaults: 500 processes x 12 fds = 6000 fds; every 10th process holds two DRM fds
 * (one client on /dev/dri/renderD128, dup'ed) and one accel fd; the rest are sockets,
 * pipes, /dev/null and files. Prints the median and minimum ms per sweep, then one sweep
 * of this machine's own /proc for comparison. A benchmark: it always exits 0 unless it
 * cannot build its tree. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fdinfo.h"
#include "../src/util/fs.h"

static const char AMD[] = "pos:\t0\nflags:\t02100002\nmnt_id:\t24\nino:\t1071\npasid:\t32771\n"
			  "drm-driver:\tamdgpu\ndrm-pdev:\t0000:03:00.0\ndrm-client-id:\t%d\n"
			  "drm-memory-vram:\t145924 KiB\ndrm-memory-gtt: \t4096 KiB\n"
			  "drm-memory-cpu: \t0 KiB\namd-memory-visible-vram:\t145924 KiB\n"
			  "drm-engine-gfx:\t4170836700 ns\ndrm-engine-compute:\t1276200 ns\n"
			  "drm-engine-dma:\t10239000 ns\n";
static const char XDNA[] = "drm-driver: amdxdna_accel_driver\ndrm-pdev: 0000:c4:00.1\n"
			   "drm-client-id: %d\ndrm-engine-npu-amdxdna: 0 ns\ndrm-total-memory: 0 KiB\n";

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(1);
	}
	fputs(text, f);
	fclose(f);
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void run(const char *root, int runs, const char *label)
{
	struct axl__fs fs;
	if (axl__fs_init(&fs, root) != 0) {
		printf("%s: cannot open %s\n", label, root);
		return;
	}
	double *t = calloc((size_t)runs, sizeof *t);
	struct axl__fdi_sweep s = {0};
	for (int i = 0; i < runs && t; i++) {
		double a = now_ms();
		axl__fdinfo_sweep(&fs, &s);
		t[i] = now_ms() - a;
		if (i + 1 < runs)
			axl__fdinfo_sweep_free(&s);
	}
	if (t) {
		qsort(t, (size_t)runs, sizeof *t, cmp_d);
		printf("%s: %zu processes, %zu fds, %zu DRM/accel fds, %zu clients: "
		       "median %.3f ms, min %.3f ms per sweep (%d runs)\n",
		       label, s.pids_seen, s.fds_seen, s.drm_fds, s.n_clients, t[runs / 2], t[0], runs);
	}
	axl__fdinfo_sweep_free(&s);
	free(t);
	axl__fs_fini(&fs);
}

int main(int argc, char **argv)
{
	int procs = argc > 1 ? atoi(argv[1]) : 500;
	int fds = argc > 2 ? atoi(argv[2]) : 12;
	int every = argc > 3 ? atoi(argv[3]) : 10;
	int runs = argc > 4 ? atoi(argv[4]) : 30;
	if (procs < 1 || fds < 3 || every < 1 || runs < 1) {
		fprintf(stderr, "usage: %s [PROCS FDS_PER_PROC(>=3) DRM_EVERY RUNS]\n", argv[0]);
		return 1;
	}
	char root[256], p[512], q[512], text[1024];
	snprintf(root, sizeof root, "%s/axl-bench-fdinfo-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(p, sizeof p, "%s/proc", root);
	mkdir(p, 0755);
	for (int pid = 1000; pid < 1000 + procs; pid++) {
		snprintf(p, sizeof p, "%s/proc/%d", root, pid);
		mkdir(p, 0755);
		snprintf(q, sizeof q, "%s/fd", p);
		mkdir(q, 0755);
		snprintf(q, sizeof q, "%s/fdinfo", p);
		mkdir(q, 0755);
		snprintf(q, sizeof q, "%s/comm", p);
		put(q, "worker\n");
		snprintf(q, sizeof q, "%s/cgroup", p);
		put(q,
		    "0::/system.slice/docker-4b2a1e0f9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f.scope\n");
		bool drm = (pid - 1000) % every == 0;
		for (int fd = 0; fd < fds; fd++) {
			const char *target;
			char tbuf[64];
			const char *info = "pos:\t0\nflags:\t02\nmnt_id:\t20\nino:\t12345\n";
			if (drm && fd >= fds - 3) {
				int k = fd - (fds - 3);
				target = k < 2 ? "/dev/dri/renderD128" : "/dev/accel/accel0";
				snprintf(text, sizeof text, k < 2 ? AMD : XDNA, pid);
				info = text;
			} else {
				static const char *const kinds[] = {"/dev/null", "pipe:[%d]", "socket:[%d]",
								    "/var/log/app.log", "anon_inode:[eventpoll]"};
				snprintf(tbuf, sizeof tbuf, kinds[fd % 5], pid * 100 + fd);
				target = tbuf;
			}
			snprintf(q, sizeof q, "%s/fd/%d", p, fd);
			if (symlink(target, q) != 0) {
				perror(q);
				return 1;
			}
			snprintf(q, sizeof q, "%s/fdinfo/%d", p, fd);
			put(q, info);
		}
	}
	char label[128];
	snprintf(label, sizeof label, "synthetic (%d x %d fds, DRM in 1/%d)", procs, fds, every);
	run(root, runs, label);
	run("/", runs < 10 ? runs : 10, "this machine's /proc");
	snprintf(text, sizeof text, "rm -rf '%s'", root);
	if (system(text) != 0)
		fprintf(stderr, "could not remove %s\n", root);
	return 0;
}
