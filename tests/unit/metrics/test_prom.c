/* SPDX-License-Identifier: MIT */
/* axl_sample_prometheus() on a sample of a synthetic node tree.
 *
 * usage: test_prom TREE OUT_PREFIX
 * Takes two samples of TREE (so rates exist), checks the text in C (families, one
 * axl_device_up per device, base-unit conversions against axl_sample_get, label escaping
 * of hostile process names, DCGM families) and writes OUT_PREFIX.prom (plain) and
 * OUT_PREFIX.dcgm.prom (with AXL_METRICS_DCGM) for tests/metrics/check_prom.py, which
 * parses them strictly and runs promtool. */
#define _GNU_SOURCE
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "axl.h"
#include "check.h"
#include "sample.h"

static int count_lines_starting(const char *text, const char *prefix)
{
	int n = 0;
	size_t pl = strlen(prefix);
	for (const char *p = text; p && *p;) {
		if (strncmp(p, prefix, pl) == 0)
			n++;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return n;
}

/* The value of the first line starting with prefix; NAN when none. */
static double value_of(const char *text, const char *prefix)
{
	size_t pl = strlen(prefix);
	for (const char *p = text; p && *p;) {
		if (strncmp(p, prefix, pl) == 0) {
			const char *sp = strchr(p, '}');
			if (!sp)
				sp = p + pl;
			sp = strchr(sp, ' ');
			return sp ? strtod(sp + 1, NULL) : NAN;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NAN;
}

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: test_prom TREE OUT_PREFIX\n");
		return 2;
	}
	struct axl_context_options co = AXL_CONTEXT_OPTIONS_INIT;
	co.sysroot = argv[1];
	axl_context *ctx;
	axl_inventory *inv;
	if (axl_context_open(&ctx, &co) || axl_inventory_open(&inv, ctx, 0)) {
		fprintf(stderr, "cannot open %s: %s\n", argv[1], axl_error_last());
		return 2;
	}
	axl_sampler *s;
	CHECK(axl_sampler_open(&s, inv, 0) == 0);
	axl_sample *first, *smp;
	CHECK(axl_sampler_sample(s, &first) == 0);
	struct timespec ts = {0, 20 * 1000000L};
	nanosleep(&ts, NULL);
	CHECK(axl_sampler_sample(s, &smp) == 0);
	axl_sample_free(first);

	CHECK(axl_sample_prometheus(NULL, 0, NULL, NULL) == AXL_EINVAL);
	char *text = NULL, *dcgm = NULL;
	size_t len = 0;
	CHECK(axl_sample_prometheus(smp, 0, &text, &len) == 0);
	CHECK(text && strlen(text) == len);
	CHECK(axl_sample_prometheus(smp, AXL_METRICS_DCGM, &dcgm, NULL) == 0);
	if (!text || !dcgm)
		return check_summary();

	size_t n = axl_sample_device_count(smp);
	CHECK(n > 0);
	CHECK_INT(count_lines_starting(text, "axl_device_up{"), n);
	CHECK_INT(count_lines_starting(text, "axl_device_info{"), n);
	CHECK_INT(count_lines_starting(text, "# TYPE axl_device_up gauge"), 1);
	CHECK_INT(count_lines_starting(text, "# TYPE axl_sample_duration_seconds gauge"), 1);
	CHECK(strstr(text, "DCGM_FI_") == NULL);
	/* a device with a power or temperature value makes DCGM families */
	bool any = false;
	for (size_t i = 0; i < n; i++) {
		double x;
		any = any || axl_sample_get(smp, i, AXL_METRIC_POWER, &x, NULL) == 0 ||
		      axl_sample_get(smp, i, AXL_METRIC_TEMPERATURE, &x, NULL) == 0;
	}
	if (any)
		CHECK(strstr(dcgm, "# TYPE DCGM_FI_DEV_GPU_TEMP gauge") ||
		      strstr(dcgm, "# TYPE DCGM_FI_DEV_POWER_USAGE gauge"));
	else
		CHECK(strstr(dcgm, "DCGM_FI_DEV_GPU_TEMP") == NULL && strstr(dcgm, "DCGM_FI_DEV_POWER_USAGE") == NULL);

	/* base units: the first device's values as axl_sample_get gives them */
	const char *id0 = axl_device_id(axl_sample_device(smp, 0));
	char prefix[256];
	double v;
	if (axl_sample_get(smp, 0, AXL_METRIC_MEMORY_USED, &v, NULL) == 0) {
		snprintf(prefix, sizeof prefix, "axl_memory_used_bytes{id=\"%s\"", id0);
		CHECK(value_of(text, prefix) == v);
		snprintf(prefix, sizeof prefix, "DCGM_FI_DEV_FB_USED{");
		CHECK(value_of(dcgm, prefix) == floor(v / 1048576));
	}
	if (axl_sample_get(smp, 0, AXL_METRIC_POWER, &v, NULL) == 0) {
		snprintf(prefix, sizeof prefix, "axl_power_watts{id=\"%s\"", id0);
		CHECK(fabs(value_of(text, prefix) - v) < 1e-9);
	}
	if (axl_sample_get(smp, 0, AXL_METRIC_SM_CLOCK, &v, NULL) == 0) {
		snprintf(prefix, sizeof prefix, "axl_sm_clock_hertz{id=\"%s\"", id0);
		CHECK(value_of(text, prefix) == v * 1e6);
		CHECK(value_of(dcgm, "DCGM_FI_DEV_SM_CLOCK{") == v);
	}
	if (axl_sample_get(smp, 0, AXL_METRIC_UTILIZATION, &v, NULL) == 0) {
		snprintf(prefix, sizeof prefix, "axl_utilization_ratio{id=\"%s\"", id0);
		CHECK(fabs(value_of(text, prefix) - v / 100) < 1e-12);
	}
	if (axl_sample_get(smp, 0, AXL_METRIC_THROTTLE_REASONS, &v, NULL) == 0) {
		/* one series per named reason */
		int reasons = 0;
		for (unsigned b = 0; b < 32; b++)
			reasons += axl_throttle_name(1u << b) != NULL;
		snprintf(prefix, sizeof prefix, "axl_device_throttled{id=\"%s\"", id0);
		CHECK_INT(count_lines_starting(text, prefix), reasons);
	}
	/* partitions carry their parent */
	for (size_t i = 0; i < n; i++) {
		const axl_device *d = axl_sample_device(smp, i);
		if (!axl_device_parent(d))
			continue;
		snprintf(prefix, sizeof prefix, "parent=\"%s\"", axl_device_id(axl_device_parent(d)));
		CHECK(strstr(text, prefix) != NULL);
		break;
	}
	if (argv[2][0]) {
		char path[4096];
		snprintf(path, sizeof path, "%s.prom", argv[2]);
		CHECK(write_file(path, text) == 0);
		snprintf(path, sizeof path, "%s.dcgm.prom", argv[2]);
		CHECK(write_file(path, dcgm) == 0);
	}
	axl_free(text);
	axl_free(dcgm);

	/* hostile process names: escaped in label values, and the same pid on the same
	 * device twice makes one series */
	struct axl_process *p = axl__sproc_add(smp, 4242, id0, "evil\"na\\me\nx", "drm", AXL_SOURCE_PROCFS);
	CHECK(p != NULL);
	if (p)
		p->memory_used_bytes = 1048576;
	p = axl__sproc_add(smp, 4242, id0, "evil\"na\\me\nx", "drm", AXL_SOURCE_PROCFS);
	if (p)
		p->memory_used_bytes = 2097152;
	CHECK(axl_sample_prometheus(smp, 0, &text, NULL) == 0);
	if (text) {
		CHECK(strstr(text, "name=\"evil\\\"na\\\\me\\nx\"") != NULL);
		CHECK_INT(count_lines_starting(text, "axl_process_memory_used_bytes{"), 1);
		CHECK(strstr(text, "pid=\"4242\"") != NULL);
		if (argv[2][0]) {
			char path[4096];
			snprintf(path, sizeof path, "%s.proc.prom", argv[2]);
			CHECK(write_file(path, text) == 0);
		}
		axl_free(text);
	}
	axl_sample_free(smp);
	axl_sampler_free(s);
	axl_inventory_free(inv);
	axl_context_free(ctx);
	return check_summary();
}
