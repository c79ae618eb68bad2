/* SPDX-License-Identifier: MIT */
/*
 * The cost of one metrics sample (axl_sampler_sample, no processes) on a node tree,
 * against the way monitoring scripts and exporters commonly read the same sysfs files:
 * open, read and close every file by its path on every refresh.
 *
 * usage: bench_sample SYSROOT [ITERATIONS]
 * Prints the sampler's median and 99th percentile per sample and per device, the same
 * for the open/read/close loop over exactly the files the sampler keeps open, and the
 * ratio. Not a test: it never fails on slowness.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "axl.h"

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double pct(double *v, size_t n, double p)
{
	qsort(v, n, sizeof *v, cmp_d);
	size_t i = (size_t)(p * (double)(n - 1) + 0.5);
	return v[i < n ? i : n - 1];
}

/* The files the sampler reads for one amdgpu device, by path (the baseline reads them). */
#define MAXF 4096
static char *files[MAXF];
static size_t nfiles;

static void add(const char *path)
{
	if (nfiles < MAXF && access(path, R_OK) == 0)
		files[nfiles++] = strdup(path);
}

static void collect(const char *root, const char *syspath)
{
	static const char *const dev[] = {"gpu_busy_percent", "mem_busy_percent", "mem_info_vram_used",
					  "mem_info_vram_total", "pp_dpm_sclk", "pp_dpm_mclk", "gpu_metrics"};
	static const char *const hw[] = {"power1_average", "power1_input", "power1_cap", "energy1_input",
					 "temp1_input", "temp2_input", "temp3_input", "freq1_input",
					 "freq2_input", "pwm1"};
	char p[1024];
	for (size_t i = 0; i < sizeof dev / sizeof *dev; i++) {
		snprintf(p, sizeof p, "%s%s/%s", root, syspath, dev[i]);
		add(p);
	}
	snprintf(p, sizeof p, "%s%s/hwmon", root, syspath);
	DIR *d = opendir(p);
	struct dirent *e;
	while (d && (e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, "hwmon", 5) != 0)
			continue;
		for (size_t i = 0; i < sizeof hw / sizeof *hw; i++) {
			char q[1400];
			snprintf(q, sizeof q, "%s/%s/%s", p, e->d_name, hw[i]);
			add(q);
		}
		break;
	}
	if (d)
		closedir(d);
}

static void baseline_once(void)
{
	char buf[4096];
	for (size_t i = 0; i < nfiles; i++) {
		int fd = open(files[i], O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (read(fd, buf, sizeof buf) < 0)
			buf[0] = 0;
		close(fd);
	}
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: bench_sample SYSROOT [ITERATIONS]\n");
		return 2;
	}
	const char *root = argv[1];
	int iters = argc > 2 ? atoi(argv[2]) : 20000;
	if (iters < 10)
		iters = 10;
	struct axl_context_options o = AXL_CONTEXT_OPTIONS_INIT;
	o.sysroot = root;
	axl_context *ctx;
	axl_inventory *inv;
	axl_sampler *s;
	if (axl_context_open(&ctx, &o) || axl_inventory_open(&inv, ctx, 0) || axl_sampler_open(&s, inv, 0)) {
		fprintf(stderr, "bench_sample: %s\n", axl_error_last());
		return 1;
	}
	size_t ndev = axl_inventory_device_count(inv);
	for (size_t i = 0; i < ndev; i++) {
		const char *addr;
		if (axl_device_get_str(axl_inventory_device(inv, i), AXL_ATTR_PCI_ADDRESS, &addr) == 0) {
			char sp[128];
			snprintf(sp, sizeof sp, "/sys/bus/pci/devices/%s", addr);
			collect(root, sp);
		}
	}
	double *t = malloc((size_t)iters * sizeof *t), *b = malloc((size_t)iters * sizeof *b);
	if (!t || !b)
		return 1;
	size_t known = 0;
	for (int k = 0; k < iters + 100; k++) {
		double t0 = now_us();
		axl_sample *smp;
		if (axl_sampler_sample(s, &smp))
			return 1;
		double t1 = now_us();
		if (k == 0)
			for (size_t i = 0; i < axl_sample_device_count(smp); i++)
				for (int m = 0; m < AXL_METRIC__COUNT; m++)
					known += axl_sample_get(smp, i, (axl_metric)m, NULL, NULL) == 0;
		axl_sample_free(smp);
		if (k >= 100)
			t[k - 100] = t1 - t0;
	}
	for (int k = 0; k < iters + 100; k++) {
		double t0 = now_us();
		baseline_once();
		double t1 = now_us();
		if (k >= 100)
			b[k - 100] = t1 - t0;
	}
	double sm = pct(t, (size_t)iters, 0.5), s99 = pct(t, (size_t)iters, 0.99);
	double bm = pct(b, (size_t)iters, 0.5), b99 = pct(b, (size_t)iters, 0.99);
	size_t dn = ndev ? ndev : 1;
	printf("tree: %s: %zu devices, %zu values known per sample, %zu files read per sample\n", root, ndev, known,
	       nfiles);
	printf("%-34s %10s %10s %12s\n", "", "median us", "p99 us", "per device");
	printf("%-34s %10.2f %10.2f %12.2f\n", "axl_sampler_sample (kept open)", sm, s99, sm / (double)dn);
	printf("%-34s %10.2f %10.2f %12.2f\n", "open/read/close each file", bm, b99, bm / (double)dn);
	printf("ratio open-read-close / axl (median): %.2fx\n", sm > 0 ? bm / sm : 0);
	free(t);
	free(b);
	axl_sampler_free(s);
	axl_inventory_free(inv);
	axl_context_free(ctx);
	return 0;
}
