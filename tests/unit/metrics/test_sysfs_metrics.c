/* SPDX-License-Identifier: MIT */
/* Rates from two samples of the sysfs samplers, through the public API, on the
 * xe-desktop-b580 tree (built here with mktree) whose counter files the test changes
 * between samples (rewritten in place: the sampler keeps them open):
 *  - NPU utilisation from npu_busy_time_us (busy us per s / 1e4), unknown in the first
 *    sample, unknown again when the counter goes backwards (never negative);
 *  - power from the xe hwmon energy1_input, the same way;
 *  - a GPU whose PCI directory disappears is lost in that sample, the others are not.
 * argv: python3 mktree.py spec.json workdir */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "axl/context.h"
#include "axl/error.h"
#include "axl/inventory.h"
#include "axl/metrics.h"
#include "check.h"

static char tree[512];

static void put(const char *rel, unsigned long long v)
{
	char p[1024];
	snprintf(p, sizeof p, "%s/%s", tree, rel);
	FILE *f = fopen(p, "w"); /* same inode: truncated and rewritten */
	if (!f) {
		perror(p);
		exit(2);
	}
	fprintf(f, "%llu\n", v);
	fclose(f);
}

static size_t find(const axl_sample *smp, const char *id)
{
	for (size_t i = 0; i < axl_sample_device_count(smp); i++)
		if (strcmp(axl_device_id(axl_sample_device(smp, i)), id) == 0)
			return i;
	fprintf(stderr, "no device %s\n", id);
	exit(2);
}

static void nap(void)
{
	struct timespec ts = {0, 30 * 1000 * 1000};
	nanosleep(&ts, NULL);
}

#define NPU "sys/bus/pci/devices/0000:00:0b.0/npu_busy_time_us"
#define ENERGY "sys/bus/pci/devices/0000:03:00.0/hwmon/hwmon5/energy1_input"

int main(int argc, char **argv)
{
	if (argc < 5) {
		fprintf(stderr, "usage: %s python3 mktree.py spec.json workdir\n", argv[0]);
		return 2;
	}
	snprintf(tree, sizeof tree, "%s/xe-desktop-b580", argv[4]);
	char cmd[2048];
	snprintf(cmd, sizeof cmd, "'%s' '%s' '%s' '%s' >/dev/null", argv[1], argv[2], argv[3], tree);
	if (system(cmd) != 0) {
		fprintf(stderr, "mktree failed: %s\n", cmd);
		return 2;
	}
	struct axl_context_options o = AXL_CONTEXT_OPTIONS_INIT;
	o.sysroot = tree;
	axl_context *ctx;
	axl_inventory *inv;
	axl_sampler *s;
	if (axl_context_open(&ctx, &o) || axl_inventory_open(&inv, ctx, 0) || axl_sampler_open(&s, inv, 0)) {
		fprintf(stderr, "open: %s\n", axl_error_last());
		return 2;
	}
	put(NPU, 1000000);
	put(ENERGY, 5000000000ull);
	axl_sample *a, *b, *c, *d;
	double v;
	CHECK_INT(axl_sampler_sample(s, &a), 0);
	size_t npu = find(a, "intelnpu:0"), gpu = find(a, "intel:1"), igpu = find(a, "intel:0");
	/* one reading is no rate */
	CHECK_INT(axl_sample_get(a, npu, AXL_METRIC_UTILIZATION, &v, NULL), AXL_EUNKNOWN);
	CHECK_INT(axl_sample_get(a, gpu, AXL_METRIC_POWER, &v, NULL), AXL_EUNKNOWN);
	CHECK_INT(axl_sample_get(a, gpu, AXL_METRIC_ENERGY, &v, NULL), 0);
	CHECK(fabs(v - 5000.0) < 1e-9);

	nap();
	put(NPU, 1000000 + 12345);          /* 12.345 ms busy */
	put(ENERGY, 5000000000ull + 3000000); /* 3 J */
	CHECK_INT(axl_sampler_sample(s, &b), 0);
	double ms = axl_sample_interval_ms(b);
	CHECK(ms > 0);
	axl_source src;
	CHECK_INT(axl_sample_get(b, npu, AXL_METRIC_UTILIZATION, &v, &src), 0);
	double want = 12345.0 * 1000.0 / ms / 1e4;
	CHECK(fabs(v - (want > 100 ? 100 : want)) < 1e-6);
	CHECK_INT(src, AXL_SOURCE_DERIVED);
	CHECK_INT(axl_sample_get(b, gpu, AXL_METRIC_POWER, &v, &src), 0);
	CHECK(fabs(v - 3.0 * 1000.0 / ms) < 1e-6);
	CHECK_INT(src, AXL_SOURCE_DERIVED);

	/* counters going backwards (a driver reload): unknown, not negative */
	nap();
	put(NPU, 500);
	put(ENERGY, 1000);
	CHECK_INT(axl_sampler_sample(s, &c), 0);
	CHECK_INT(axl_sample_get(c, npu, AXL_METRIC_UTILIZATION, &v, NULL), AXL_EUNKNOWN);
	CHECK_INT(axl_sample_get(c, gpu, AXL_METRIC_POWER, &v, NULL), AXL_EUNKNOWN);
	CHECK_INT(axl_sample_device_state(c, gpu), AXL_SAMPLE_OK);

	/* the B580 leaves the bus: lost in this sample, its neighbours are not */
	snprintf(cmd, sizeof cmd, "rm -rf \"$(readlink -f '%s/sys/bus/pci/devices/0000:03:00.0')\"", tree);
	CHECK_INT(system(cmd), 0);
	char gone[1024];
	snprintf(gone, sizeof gone, "%s/sys/bus/pci/devices/0000:03:00.0/vendor", tree);
	CHECK(access(gone, F_OK) != 0); /* rm -rf of an empty readlink says nothing */
	nap();
	put(NPU, 600 + 100000);
	CHECK_INT(axl_sampler_sample(s, &d), 0);
	CHECK_INT(axl_sample_device_state(d, gpu), AXL_SAMPLE_LOST);
	CHECK_INT(axl_sample_get(d, gpu, AXL_METRIC_ENERGY, &v, NULL), AXL_EUNKNOWN);
	CHECK_INT(axl_sample_device_state(d, npu), AXL_SAMPLE_OK);
	CHECK_INT(axl_sample_device_state(d, igpu), AXL_SAMPLE_OK);
	CHECK_INT(axl_sample_get(d, npu, AXL_METRIC_UTILIZATION, &v, NULL), 0);
	CHECK(v >= 0 && v <= 100);

	axl_sample_free(a);
	axl_sample_free(b);
	axl_sample_free(c);
	axl_sample_free(d);
	axl_sampler_free(s);
	axl_inventory_free(inv);
	axl_context_free(ctx);
	int rc = check_summary();
	if (rc == 0) { /* passed: the tree goes (kept to look at when it failed) */
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", argv[4]);
		CHECK_INT(system(cmd), 0);
	}
	return rc;
}
