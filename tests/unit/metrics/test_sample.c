/* SPDX-License-Identifier: MIT */
/* The sampling core (src/lib/sample.c): counters to rates (backwards, wrapped, no time),
 * kept-open files read again from offset 0, values that are not finite, lost devices,
 * metric and throttle names, and the public API's NULL and range safety. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "sample.h"

static void test_rates(void)
{
	struct axl__srate r = {0};
	double v = -1;
	CHECK(!axl__srate_step(&r, 1000, 0.0, &v)); /* first reading: nothing to compare */
	CHECK(axl__srate_step(&r, 3000, 500.0, &v) && fabs(v - 4000.0) < 1e-9);
	CHECK(!axl__srate_step(&r, 2000, 1000.0, &v)); /* backwards: unknown, a fresh start */
	CHECK(axl__srate_step(&r, 2500, 1500.0, &v) && fabs(v - 1000.0) < 1e-9);
	CHECK(!axl__srate_step(&r, 2600, 1500.0, &v)); /* no time passed */
	CHECK(!axl__srate_step(&r, 2700, 1400.0, &v)); /* the clock went back */
	/* a 32-bit counter that wrapped reads as going backwards: unknown, never huge */
	struct axl__srate w = {0};
	axl__srate_step(&w, 0xfffffff0u, 0, &v);
	CHECK(!axl__srate_step(&w, 0x10, 1000, &v));
	CHECK(axl__srate_step(&w, 0x20, 2000, &v) && fabs(v - 16.0) < 1e-9);
}

static void test_files(void)
{
	char dir[] = "/tmp/axl-sample-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char path[128];
	snprintf(path, sizeof path, "%s/v", dir);
	FILE *f = fopen(path, "w");
	fputs("  42\n", f);
	fclose(f);
	int fd = open(path, O_RDONLY);
	uint64_t u = 0;
	int64_t i = 0;
	CHECK(axl__sfile_u64(fd, &u) == 0 && u == 42); /* blanks around a number are fine */
	f = fopen(path, "w");
	fputs("123456\n", f);
	fclose(f);
	CHECK(axl__sfile_u64(fd, &u) == 0 && u == 123456); /* read again from offset 0 */
	CHECK(axl__sfile_i64(fd, &i) == 0 && i == 123456);
	f = fopen(path, "w");
	fputs("-5\n", f);
	fclose(f);
	CHECK(axl__sfile_u64(fd, &u) == -EINVAL);
	CHECK(axl__sfile_i64(fd, &i) == 0 && i == -5);
	f = fopen(path, "w");
	fputs("99999999999999999999999\n", f);
	fclose(f);
	CHECK(axl__sfile_u64(fd, &u) == -EINVAL); /* overflow */
	f = fopen(path, "w");
	fclose(f);
	CHECK(axl__sfile_u64(fd, &u) == -EINVAL); /* empty */
	char buf[8];
	f = fopen(path, "w");
	fputs("0123456789abcdef", f);
	fclose(f);
	CHECK(axl__sfile_read(fd, buf, sizeof buf) == 7 && strcmp(buf, "0123456") == 0); /* bounded */
	axl__sfile_close(&fd);
	CHECK(fd == -1);
	CHECK(axl__sfile_read(-1, buf, sizeof buf) == -EBADF);
	CHECK(axl__sfile_gone(-ENODEV) && axl__sfile_gone(-ENOENT) && !axl__sfile_gone(-EAGAIN) &&
	      !axl__sfile_gone(-EINVAL));
	unlink(path);
	rmdir(dir);
}

static void test_values(void)
{
	struct axl__sdev d[2];
	memset(d, 0, sizeof d);
	struct axl_sample smp;
	memset(&smp, 0, sizeof smp);
	smp.d = d;
	smp.n = 2;
	d[0].state = d[1].state = AXL_SAMPLE_NONE;
	axl__sput(&smp, 0, AXL_METRIC_POWER, NAN, AXL_SOURCE_SYSFS);
	axl__sput(&smp, 0, AXL_METRIC_POWER, INFINITY, AXL_SOURCE_SYSFS);
	axl__sput(&smp, 0, AXL_METRIC_POWER, 100.0, AXL_SOURCE_NONE);
	axl__sput(&smp, 5, AXL_METRIC_POWER, 100.0, AXL_SOURCE_SYSFS);
	axl__sput(&smp, 0, AXL_METRIC__COUNT, 100.0, AXL_SOURCE_SYSFS);
	double v;
	axl_source src;
	CHECK(axl_sample_get(&smp, 0, AXL_METRIC_POWER, &v, &src) == AXL_EUNKNOWN);
	CHECK(axl_sample_device_state(&smp, 0) == AXL_SAMPLE_NONE);
	axl__sput(&smp, 0, AXL_METRIC_POWER, 0.0, AXL_SOURCE_SYSFS); /* 0 W is a value */
	CHECK(axl_sample_get(&smp, 0, AXL_METRIC_POWER, &v, &src) == 0 && v == 0.0 && src == AXL_SOURCE_SYSFS);
	CHECK(axl_sample_device_state(&smp, 0) == AXL_SAMPLE_OK);
	axl__sput(&smp, 1, AXL_METRIC_TEMPERATURE, 55.0, AXL_SOURCE_SYSFS);
	axl__slost(&smp, 1);
	axl__sput(&smp, 1, AXL_METRIC_POWER, 10.0, AXL_SOURCE_SYSFS); /* ignored once lost */
	CHECK(axl_sample_device_state(&smp, 1) == AXL_SAMPLE_LOST);
	CHECK(axl_sample_get(&smp, 1, AXL_METRIC_TEMPERATURE, NULL, NULL) == AXL_EUNKNOWN);
	CHECK(axl_sample_get(&smp, 1, AXL_METRIC_POWER, NULL, NULL) == AXL_EUNKNOWN);
	CHECK(axl_sample_get(&smp, 0, AXL_METRIC_POWER, NULL, NULL) == 0); /* the other one stays */
	CHECK(axl_sample_get(&smp, 2, AXL_METRIC_POWER, &v, NULL) == AXL_EINVAL);
	CHECK(axl_sample_get(&smp, 0, (axl_metric)-1, &v, NULL) == AXL_EINVAL);
	CHECK(axl_sample_get(NULL, 0, AXL_METRIC_POWER, &v, NULL) == AXL_EINVAL);
}

static void test_names(void)
{
	CHECK_STR(axl_metric_name(AXL_METRIC_UTILIZATION), "utilization_percent");
	CHECK_STR(axl_metric_name(AXL_METRIC_ECC_UNCORRECTED), "ecc_errors.uncorrected");
	CHECK_STR(axl_metric_unit(AXL_METRIC_SM_CLOCK), "megahertz");
	CHECK(axl_metric_name(AXL_METRIC__COUNT) == NULL && axl_metric_unit((axl_metric)-3) == NULL);
	CHECK(axl_metric_is_counter(AXL_METRIC_ENERGY) && !axl_metric_is_counter(AXL_METRIC_POWER));
	CHECK_STR(axl_throttle_name(AXL_THROTTLE_SW_POWER_CAP), "sw_power_cap");
	CHECK_STR(axl_throttle_name(AXL_THROTTLE_CURRENT), "current");
	CHECK(axl_throttle_name(0) == NULL && axl_throttle_name(3) == NULL && axl_throttle_name(1u << 20) == NULL);
	CHECK_STR(axl_sample_state_name(AXL_SAMPLE_LOST), "lost");
	/* every key is unique */
	for (int a = 0; a < AXL_METRIC__COUNT; a++)
		for (int b = a + 1; b < AXL_METRIC__COUNT; b++)
			CHECK(strcmp(axl_metric_name((axl_metric)a), axl_metric_name((axl_metric)b)) != 0);
}

static void test_null(void)
{
	axl_sampler *s = (axl_sampler *)1;
	CHECK(axl_sampler_open(&s, NULL, 0) == AXL_EINVAL && s == NULL);
	CHECK(axl_sampler_open(NULL, NULL, 0) == AXL_EINVAL);
	CHECK(axl_sampler_sample(NULL, NULL) == AXL_EINVAL);
	axl_sampler_free(NULL);
	axl_sample_free(NULL);
	CHECK(axl_sample_device_count(NULL) == 0 && axl_sample_device(NULL, 0) == NULL);
	CHECK(axl_sample_process_count(NULL) == 0 && axl_sample_process(NULL, 0) == NULL);
	CHECK(axl_sample_interval_ms(NULL) < 0);
	char *out = NULL;
	CHECK(axl_sample_json(NULL, 0, &out, NULL) == AXL_EINVAL && out == NULL);
}

int main(void)
{
	test_rates();
	test_files();
	test_values();
	test_names();
	test_null();
	return check_summary();
}
