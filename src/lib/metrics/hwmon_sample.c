/* SPDX-License-Identifier: MIT */
/*
 * A device's hwmon directory as metrics (Documentation/hwmon/sysfs-interface.rst):
 *   power1_average / power1_input   microwatts          -> POWER
 *   power1_cap (or power1_max)      microwatts          -> POWER_LIMIT (0: none set)
 *   energy1_input                   microjoules         -> ENERGY, and POWER from two
 *                                                          samples when no power file
 *   temp<N>_input                   millidegrees C      -> TEMPERATURE / _HOTSPOT /
 *                                                          _MEMORY by temp<N>_label
 *   fan1_input + fan1_max, or pwm1  rpm / 0..255         -> FAN percent
 *   freq1_input, freq2_input        Hz (amdgpu sclk/mclk) -> SM_CLOCK / MEMORY_CLOCK
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "backend.h"
#include "hwmon_sample.h"
#include "sysfs.h"

static void reset(struct axl__shwmon *h)
{
	memset(h, 0, sizeof *h);
	h->power = h->power_cap = h->energy = h->pwm = h->fan = h->fan_max = -1;
	h->freq[0] = h->freq[1] = -1;
	for (int i = 0; i < AXL__SHWMON_TEMPS; i++)
		h->temp[i] = -1;
}

/* Which metric a temperature label names. */
static int temp_metric(const char *label, int index)
{
	if (!label)
		return index == 1 ? AXL_METRIC_TEMPERATURE : -1; /* unlabelled: temp1 is the chip */
	if (!strcasecmp(label, "edge") || !strcasecmp(label, "pkg") || !strcasecmp(label, "gpu") ||
	    !strcasecmp(label, "asic") || !strcasecmp(label, "card") || !strcasecmp(label, "chip") ||
	    !strcasecmp(label, "asic_temp") || !strcasecmp(label, "asic1_temp"))
		return AXL_METRIC_TEMPERATURE;
	if (!strcasecmp(label, "junction") || !strcasecmp(label, "hotspot"))
		return AXL_METRIC_TEMPERATURE_HOTSPOT;
	if (!strcasecmp(label, "mem") || !strcasecmp(label, "vram") || !strcasecmp(label, "hbm"))
		return AXL_METRIC_TEMPERATURE_MEMORY;
	return -1;
}

bool axl__shwmon_open(struct axl_sampler *s, const struct axl_device *dev, const char *name,
		      struct axl__shwmon *h)
{
	reset(h);
	struct axl__scan scan = {.ctx = s->ctx, .inv = (struct axl_inventory *)s->inv, .fs = s->fs};
	char path[600];
	if (!axl__hwmon_find(&scan, dev, name, path, sizeof path))
		return false;
	int dfd = axl__fs_opendir_fd(s->fs, AXL__FS_ROOT, path);
	if (dfd < 0)
		return false;
	h->power = axl__sfile_open(s->fs, dfd, "power1_average");
	if (h->power < 0)
		h->power = axl__sfile_open(s->fs, dfd, "power1_input");
	h->power_cap = axl__sfile_open(s->fs, dfd, "power1_cap");
	if (h->power_cap < 0)
		h->power_cap = axl__sfile_open(s->fs, dfd, "power1_max");
	h->energy = axl__sfile_open(s->fs, dfd, "energy1_input");
	h->fan = axl__sfile_open(s->fs, dfd, "fan1_input");
	h->fan_max = axl__sfile_open(s->fs, dfd, "fan1_max");
	if (h->fan < 0 || h->fan_max < 0) {
		axl__sfile_close(&h->fan);
		axl__sfile_close(&h->fan_max);
		h->pwm = axl__sfile_open(s->fs, dfd, "pwm1");
	}
	h->freq[0] = axl__sfile_open(s->fs, dfd, "freq1_input");
	h->freq[1] = axl__sfile_open(s->fs, dfd, "freq2_input");
	int nt = 0;
	for (int t = 1; t <= 16 && nt < AXL__SHWMON_TEMPS; t++) {
		char f[32], label[64];
		snprintf(f, sizeof f, "temp%d_label", t);
		long n = axl__fs_read(s->fs, dfd, f, label, sizeof label);
		while (n > 0 && (label[n - 1] == '\n' || label[n - 1] == ' '))
			label[--n] = '\0';
		int m = temp_metric(n > 0 ? label : NULL, t);
		if (m < 0)
			continue;
		bool dup = false;
		for (int k = 0; k < nt; k++)
			dup |= h->temp_metric[k] == m;
		if (dup)
			continue;
		snprintf(f, sizeof f, "temp%d_input", t);
		int fd = axl__sfile_open(s->fs, dfd, f);
		if (fd < 0)
			continue;
		h->temp[nt] = fd;
		h->temp_metric[nt] = m;
		nt++;
	}
	close(dfd);
	h->open = true;
	return true;
}

/* A read error that means the device went away marks it lost; true then. */
static bool gone(struct axl_sample *out, size_t i, int rc)
{
	if (rc < 0 && axl__sfile_gone(rc)) {
		axl__slost(out, i);
		return true;
	}
	return false;
}

bool axl__shwmon_read(struct axl__shwmon *h, struct axl_sample *out, size_t i, double now_ms)
{
	if (!h->open)
		return true;
	uint64_t v;
	int rc;
	bool have_power = false;
	if (h->power >= 0) {
		if (!(rc = axl__sfile_u64(h->power, &v))) {
			axl__sput(out, i, AXL_METRIC_POWER, (double)v / 1e6, AXL_SOURCE_SYSFS);
			have_power = true;
		} else if (gone(out, i, rc))
			return false;
	}
	if (h->power_cap >= 0 && !(rc = axl__sfile_u64(h->power_cap, &v)) && v > 0)
		axl__sput(out, i, AXL_METRIC_POWER_LIMIT, (double)v / 1e6, AXL_SOURCE_SYSFS);
	if (h->energy >= 0) {
		if (!(rc = axl__sfile_u64(h->energy, &v))) {
			axl__sput(out, i, AXL_METRIC_ENERGY, (double)v / 1e6, AXL_SOURCE_SYSFS);
			double per_s;
			if (axl__srate_step(&h->energy_rate, v, now_ms, &per_s) && !have_power)
				axl__sput(out, i, AXL_METRIC_POWER, per_s / 1e6, AXL_SOURCE_DERIVED);
		} else if (gone(out, i, rc))
			return false;
	}
	for (int t = 0; t < AXL__SHWMON_TEMPS; t++) {
		int64_t mc;
		if (h->temp[t] < 0)
			continue;
		rc = axl__sfile_i64(h->temp[t], &mc);
		if (gone(out, i, rc))
			return false;
		/* a sensor that is not ready reads an error or nonsense: unknown */
		if (!rc && mc > -100000 && mc < 250000)
			axl__sput(out, i, (axl_metric)h->temp_metric[t], (double)mc / 1000.0, AXL_SOURCE_SYSFS);
	}
	if (h->fan >= 0 && h->fan_max >= 0) {
		uint64_t rpm, max;
		if (!axl__sfile_u64(h->fan, &rpm) && !axl__sfile_u64(h->fan_max, &max) && max > 0 && rpm <= max)
			axl__sput(out, i, AXL_METRIC_FAN, (double)rpm * 100.0 / (double)max, AXL_SOURCE_SYSFS);
	} else if (h->pwm >= 0 && !axl__sfile_u64(h->pwm, &v) && v <= 255) {
		axl__sput(out, i, AXL_METRIC_FAN, (double)v * 100.0 / 255.0, AXL_SOURCE_SYSFS);
	}
	for (int f = 0; f < 2; f++)
		if (h->freq[f] >= 0 && !axl__sfile_u64(h->freq[f], &v))
			axl__sput(out, i, f ? AXL_METRIC_MEMORY_CLOCK : AXL_METRIC_SM_CLOCK, (double)v / 1e6,
				  AXL_SOURCE_SYSFS);
	return true;
}

void axl__shwmon_close(struct axl__shwmon *h)
{
	axl__sfile_close(&h->power);
	axl__sfile_close(&h->power_cap);
	axl__sfile_close(&h->energy);
	axl__sfile_close(&h->pwm);
	axl__sfile_close(&h->fan);
	axl__sfile_close(&h->fan_max);
	axl__sfile_close(&h->freq[0]);
	axl__sfile_close(&h->freq[1]);
	for (int i = 0; i < AXL__SHWMON_TEMPS; i++)
		axl__sfile_close(&h->temp[i]);
	h->open = false;
}
