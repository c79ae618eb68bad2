/* SPDX-License-Identifier: MIT */
/* The planner sweep (issue 6): every catalog model planned on every fixture node (the
 * simulated nodes of tests/sim and the replayed inventories of tests/replay/golden),
 * with the alternatives each answer carries (other splits, quantisations, a shorter
 * context, more devices). Prints the median sweep time over RUNS sweeps and its ratio to
 * the one-second budget the issue sets.
 *
 * usage: bench_plan SRCDIR [RUNS]   (bench/bench_plan.sh runs it) */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "axl.h"
#include "axl/plan.h"

#define MAXNODES 128

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	if (buf) {
		buf[n] = 0;
		*len = (size_t)n;
	}
	return buf;
}

static int cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: bench_plan SRCDIR [RUNS]\n");
		return 2;
	}
	int runs = argc > 2 ? atoi(argv[2]) : 5;
	if (runs < 1)
		runs = 1;
	axl_planner *nodes[MAXNODES];
	char names[MAXNODES][128];
	size_t nn = 0, devices = 0;
	char dir[1024], path[2048];
	/* simulated nodes */
	snprintf(dir, sizeof dir, "%s/tests/sim", argv[1]);
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d)) != NULL && nn < MAXNODES) {
		if (!strstr(e->d_name, ".json"))
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		struct axl_context_options o = AXL_CONTEXT_OPTIONS_INIT;
		o.flags = AXL_CONTEXT_NO_ENV;
		o.sim = path;
		axl_context *ctx = NULL;
		axl_inventory *inv = NULL;
		if (axl_context_open(&ctx, &o) != 0 || axl_inventory_open(&inv, ctx, 0) != 0) {
			fprintf(stderr, "%s: %s\n", path, axl_error_last());
			axl_context_free(ctx);
			continue;
		}
		axl_planner_new(&nodes[nn]);
		axl_planner_add_inventory(nodes[nn], inv, e->d_name);
		snprintf(names[nn], sizeof names[nn], "sim/%s", e->d_name);
		devices += axl_planner_device_count(nodes[nn]);
		nn++;
		axl_inventory_free(inv);
		axl_context_free(ctx);
	}
	if (d)
		closedir(d);
	/* replayed inventories */
	snprintf(dir, sizeof dir, "%s/tests/replay/golden", argv[1]);
	d = opendir(dir);
	while (d && (e = readdir(d)) != NULL && nn < MAXNODES) {
		size_t l = strlen(e->d_name);
		if (l < 6 || strcmp(e->d_name + l - 5, ".json") != 0)
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		size_t len = 0;
		char *text = slurp(path, &len);
		axl_planner *p = NULL;
		axl_planner_new(&p);
		if (!text || axl_planner_add_json(p, text, len, e->d_name) != 0) {
			fprintf(stderr, "%s: %s\n", path, axl_error_last());
			free(text);
			axl_planner_free(p);
			continue;
		}
		free(text);
		nodes[nn] = p;
		snprintf(names[nn], sizeof names[nn], "golden/%s", e->d_name);
		devices += axl_planner_device_count(p);
		nn++;
	}
	if (d)
		closedir(d);
	size_t nm = axl_model_catalog_count();
	axl_model **models = calloc(nm, sizeof *models);
	for (size_t i = 0; i < nm; i++)
		if (axl_model_open(&models[i], axl_model_catalog_id(i)) != 0)
			return fprintf(stderr, "%s: %s\n", axl_model_catalog_id(i), axl_error_last()), 1;

	double *t = calloc((size_t)runs, sizeof *t);
	long plans = 0, fits = 0, refused = 0;
	for (int r = 0; r < runs; r++) {
		double t0 = now();
		plans = fits = refused = 0;
		for (size_t n = 0; n < nn; n++)
			for (size_t i = 0; i < nm; i++) {
				struct axl_plan_request req = {.version = AXL_PLAN_REQUEST_VERSION};
				axl_plan *pl = NULL;
				if (axl_plan_compute(&pl, nodes[n], models[i], &req) != 0) {
					refused++; /* a node without a device whose memory is known */
					continue;
				}
				struct axl_plan_summary s;
				axl_plan_get_summary(pl, &s);
				fits += s.fits;
				plans++;
				axl_plan_free(pl);
			}
		t[r] = now() - t0;
	}
	qsort(t, (size_t)runs, sizeof *t, cmpd);
	double med = t[runs / 2];
	printf("planner sweep: %zu catalog models x %zu fixture nodes (%zu devices)\n", nm, nn, devices);
	printf("  %ld plans (%ld fit), %ld refused (no device with known memory)\n", plans, fits, refused);
	printf("  median sweep %.1f ms over %d runs (min %.1f, max %.1f); %.1f us per plan with its alternatives\n",
	       med * 1e3, runs, t[0] * 1e3, t[runs - 1] * 1e3, plans ? med / (double)plans * 1e6 : 0);
	printf("  ratio to the 1 s budget: %.3f\n", med / 1.0);
	for (size_t i = 0; i < nm; i++)
		axl_model_free(models[i]);
	for (size_t n = 0; n < nn; n++)
		axl_planner_free(nodes[n]);
	free(models);
	free(t);
	return 0;
}
