/* SPDX-License-Identifier: MIT */
/*
 * Intel live metrics from sysfs (the layout is described in intel.c).
 *
 * GPUs (i915, xe):
 *   hwmon "i915" / "xe"      energy1_input (uJ) -> ENERGY, and POWER from two samples;
 *                            power1_max (uW, 0 = off) -> POWER_LIMIT (metrics/hwmon_sample.c);
 *                            xe: temp2_input package -> TEMPERATURE, temp3_input VRAM
 *                            -> TEMPERATURE_MEMORY (m degC; sysfs-driver-intel-xe-hwmon)
 *   clock                    xe tile0/gt<primary>/freq0/act_freq (cur_freq when there is
 *                            no act_freq); i915 card<N>/gt/gt0/rps_act_freq_mhz, else the
 *                            legacy card<N>/gt_act_freq_mhz; MHz, 0 while the GT sleeps
 *   throttle reasons         xe freq0/throttle/{status,reason_*} (xe_gt_throttle.c), i915
 *                            card<N>/gt/gt0/throttle_reason_* (intel_gt_sysfs_pm.c), "%u"
 *                            0/1: pl1, pl2 -> sw_power_cap; pl4 (Iccmax), vr_tdc ->
 *                            current; thermal, vr_thermalert -> hw_thermal; ratl (the
 *                            running-average thermal limit) -> sw_thermal; prochot ->
 *                            hw_slowdown. status 1 with no known reason gives no bit.
 *   Utilisation is not in sysfs (the DRM fdinfo sweep gives it per process); VRAM use
 *   is not either (xe publishes only the size, upstream i915 nothing): unknown.
 * NPU (intel_vpu, ivpu_sysfs.c, 6.11+; older kernels publish none of these):
 *   npu_busy_time_us          busy microseconds since boot -> UTILIZATION from two
 *                             samples (busy us per s / 1e4 = percent)
 *   npu_current_frequency_mhz -> SM_CLOCK (0 while runtime-suspended)
 *   npu_memory_utilization    bytes of resident buffers -> MEMORY_USED
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "intel_sample.h"
#include "sysfs.h"
#include "sysattr.h"
#include "sample.h"
#include "hwmon_sample.h"
#include "util/parse.h"

#define NREASON 8

static const struct {
	const char *name;
	unsigned bit;
} reasons[NREASON] = {
	{"pl1", AXL_THROTTLE_SW_POWER_CAP},      {"pl2", AXL_THROTTLE_SW_POWER_CAP},
	{"pl4", AXL_THROTTLE_CURRENT},           {"vr_tdc", AXL_THROTTLE_CURRENT},
	{"thermal", AXL_THROTTLE_HW_THERMAL},    {"vr_thermalert", AXL_THROTTLE_HW_THERMAL},
	{"ratl", AXL_THROTTLE_SW_THERMAL},       {"prochot", AXL_THROTTLE_HW_SLOWDOWN},
};

struct idev {
	size_t index;
	bool npu;
	int clock, status, reason[NREASON];
	int temp_pkg, temp_vram;
	int busy, freq, mem;
	struct axl__srate busy_rate;
	struct axl__shwmon hw;
};

struct istate {
	struct idev *d;
	size_t n;
};

static bool owns(const struct axl_device *d, const char **drv)
{
	*drv = axl__str(d, AXL_ATTR_DRIVER);
	return axl__int(d, AXL_ATTR_VENDOR_ID, -1) == 0x8086 && *drv &&
	       (!strcmp(*drv, "xe") || !strcmp(*drv, "i915") || !strcmp(*drv, "intel_vpu"));
}

/* The lowest "<prefix><n>" in dir, or -1. */
static long lowest(struct axl_sampler *s, const char *dir, const char *prefix)
{
	axl__dir *d = axl__fs_opendir(s->fs, AXL__FS_ROOT, dir);
	if (!d)
		return -1;
	long low = -1;
	size_t pl = strlen(prefix);
	struct dirent *e;
	while ((e = axl__fs_readdir(d)) != NULL) {
		uint64_t v;
		if (!strncmp(e->d_name, prefix, pl) && !axl__parse_u64(e->d_name + pl, 10, &v) && v < 4096 &&
		    (low < 0 || (long)v < low))
			low = (long)v;
	}
	axl__fs_closedir(d);
	return low;
}

static void open_reasons(struct axl_sampler *s, int dfd, const char *prefix, const char *status, struct idev *x)
{
	x->status = axl__sfile_open(s->fs, dfd, status);
	for (int r = 0; r < NREASON; r++) {
		char name[64];
		snprintf(name, sizeof name, "%s%s", prefix, reasons[r].name);
		x->reason[r] = axl__sfile_open(s->fs, dfd, name);
	}
}

static void open_xe(struct axl_sampler *s, const struct axl_device *dev, struct idev *x)
{
	char dir[700];
	snprintf(dir, sizeof dir, "%s/tile0", dev->syspath);
	long gt = lowest(s, dir, "gt");
	if (gt >= 0) {
		snprintf(dir, sizeof dir, "%s/tile0/gt%ld/freq0", dev->syspath, gt);
		int dfd = axl__fs_opendir_fd(s->fs, AXL__FS_ROOT, dir);
		if (dfd >= 0) {
			x->clock = axl__sfile_open(s->fs, dfd, "act_freq");
			if (x->clock < 0)
				x->clock = axl__sfile_open(s->fs, dfd, "cur_freq");
			open_reasons(s, dfd, "throttle/reason_", "throttle/status", x);
			axl__sfile_close(&dfd);
		}
	}
	struct axl__scan scan = {.ctx = s->ctx, .inv = (struct axl_inventory *)s->inv, .fs = s->fs};
	char hw[600];
	if (axl__hwmon_find(&scan, dev, "xe", hw, sizeof hw)) {
		int dfd = axl__fs_opendir_fd(s->fs, AXL__FS_ROOT, hw);
		if (dfd >= 0) {
			x->temp_pkg = axl__sfile_open(s->fs, dfd, "temp2_input");
			x->temp_vram = axl__sfile_open(s->fs, dfd, "temp3_input");
			axl__sfile_close(&dfd);
		}
	}
	axl__shwmon_open(s, dev, "xe", &x->hw);
}

static void open_i915(struct axl_sampler *s, const struct axl_device *dev, struct idev *x)
{
	struct axl__scan scan = {.ctx = s->ctx, .inv = (struct axl_inventory *)s->inv, .fs = s->fs};
	char card[600];
	if (axl__class_dev(&scan, dev, "drm", card, sizeof card) && strstr(card, "/drm/card")) {
		int dfd = axl__fs_opendir_fd(s->fs, AXL__FS_ROOT, card);
		if (dfd >= 0) {
			x->clock = axl__sfile_open(s->fs, dfd, "gt/gt0/rps_act_freq_mhz");
			if (x->clock < 0)
				x->clock = axl__sfile_open(s->fs, dfd, "gt_act_freq_mhz");
			open_reasons(s, dfd, "gt/gt0/throttle_reason_", "gt/gt0/throttle_reason_status", x);
			axl__sfile_close(&dfd);
		}
	}
	axl__shwmon_open(s, dev, "i915", &x->hw);
}

static void axl__intel_sample_open(struct axl_sampler *s, const struct axl__backend *self)
{
	struct istate *st = calloc(1, sizeof *st);
	if (!st || !(st->d = calloc(s->n ? s->n : 1, sizeof *st->d))) {
		free(st);
		return;
	}
	for (size_t i = 0; i < s->n; i++) {
		const struct axl_device *dev = s->devs[i];
		const char *drv;
		if (dev->parent || !dev->syspath || !dev->has_pci || !owns(dev, &drv))
			continue;
		struct idev *x = &st->d[st->n++];
		x->index = i;
		x->clock = x->status = x->temp_pkg = x->temp_vram = x->busy = x->freq = x->mem = -1;
		for (int r = 0; r < NREASON; r++)
			x->reason[r] = -1;
		if (!strcmp(drv, "intel_vpu")) {
			x->npu = true;
			int dfd = axl__fs_opendir_fd(s->fs, AXL__FS_ROOT, dev->syspath);
			if (dfd >= 0) {
				x->busy = axl__sfile_open(s->fs, dfd, "npu_busy_time_us");
				x->freq = axl__sfile_open(s->fs, dfd, "npu_current_frequency_mhz");
				x->mem = axl__sfile_open(s->fs, dfd, "npu_memory_utilization");
				axl__sfile_close(&dfd);
			}
		} else if (!strcmp(drv, "xe")) {
			open_xe(s, dev, x);
		} else {
			open_i915(s, dev, x);
		}
	}
	if (!st->n) {
		free(st->d);
		free(st);
		return;
	}
	*axl__sampler_state(s, self) = st;
}

/* fd as an unsigned integer into metric m times scale; false when the device went away. */
static bool put_u(struct axl_sample *out, size_t i, int fd, axl_metric m, double scale)
{
	uint64_t v;
	int rc;
	if (fd < 0)
		return true;
	if ((rc = axl__sfile_u64(fd, &v)) < 0)
		return !axl__sfile_gone(rc);
	axl__sput(out, i, m, (double)v * scale, AXL_SOURCE_SYSFS);
	return true;
}

static void put_temp(struct axl_sample *out, size_t i, int fd, axl_metric m)
{
	int64_t mc;
	if (fd >= 0 && !out->d[i].src[m] && !axl__sfile_i64(fd, &mc) && mc > -100000 && mc < 250000)
		axl__sput(out, i, m, (double)mc / 1000.0, AXL_SOURCE_SYSFS);
}

static void put_throttle(struct axl_sample *out, size_t i, const struct idev *x)
{
	unsigned bits = 0;
	bool known = false;
	uint64_t v;
	if (x->status >= 0 && !axl__sfile_u64(x->status, &v))
		known = true;
	for (int r = 0; r < NREASON; r++)
		if (x->reason[r] >= 0 && !axl__sfile_u64(x->reason[r], &v)) {
			known = true;
			if (v)
				bits |= reasons[r].bit;
		}
	if (known)
		axl__sput(out, i, AXL_METRIC_THROTTLE_REASONS, bits, AXL_SOURCE_SYSFS);
}

static void sample_npu(struct axl_sample *out, struct idev *x)
{
	size_t i = x->index;
	uint64_t us;
	int rc;
	if (x->busy >= 0) {
		if (!(rc = axl__sfile_u64(x->busy, &us))) {
			double per_s;
			if (axl__srate_step(&x->busy_rate, us, out->mono_ms, &per_s)) {
				double pct = per_s / 1e4;
				axl__sput(out, i, AXL_METRIC_UTILIZATION, pct < 0 ? 0 : pct > 100 ? 100 : pct,
					  AXL_SOURCE_DERIVED);
			}
		} else if (axl__sfile_gone(rc)) {
			axl__slost(out, i);
			return;
		}
	}
	if (!put_u(out, i, x->freq, AXL_METRIC_SM_CLOCK, 1) || !put_u(out, i, x->mem, AXL_METRIC_MEMORY_USED, 1))
		axl__slost(out, i);
}

static void axl__intel_sample(struct axl_sampler *s, const struct axl__backend *self, struct axl_sample *out)
{
	struct istate *st = *axl__sampler_state(s, self);
	for (size_t k = 0; k < st->n; k++) {
		struct idev *x = &st->d[k];
		size_t i = x->index;
		if (out->d[i].state == AXL_SAMPLE_LOST)
			continue;
		if (x->npu) {
			sample_npu(out, x);
			continue;
		}
		if (!axl__shwmon_read(&x->hw, out, i, out->mono_ms))
			continue;
		if (!put_u(out, i, x->clock, AXL_METRIC_SM_CLOCK, 1)) {
			axl__slost(out, i);
			continue;
		}
		put_temp(out, i, x->temp_pkg, AXL_METRIC_TEMPERATURE);
		put_temp(out, i, x->temp_vram, AXL_METRIC_TEMPERATURE_MEMORY);
		put_throttle(out, i, x);
	}
}

static void axl__intel_sample_close(struct axl_sampler *s, const struct axl__backend *self)
{
	struct istate *st = *axl__sampler_state(s, self);
	for (size_t k = 0; k < st->n; k++) {
		struct idev *x = &st->d[k];
		int *fds[] = {&x->clock, &x->status, &x->temp_pkg, &x->temp_vram, &x->busy, &x->freq, &x->mem};
		for (size_t f = 0; f < sizeof fds / sizeof *fds; f++)
			axl__sfile_close(fds[f]);
		for (int r = 0; r < NREASON; r++)
			axl__sfile_close(&x->reason[r]);
		axl__shwmon_close(&x->hw);
	}
	free(st->d);
	free(st);
	*axl__sampler_state(s, self) = NULL;
}

const struct axl__sample_ops axl__intel_sample_ops = {
	.open = axl__intel_sample_open,
	.sample = axl__intel_sample,
	.close = axl__intel_sample_close,
};
