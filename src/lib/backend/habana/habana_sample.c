/* SPDX-License-Identifier: MIT */
/*
 * Habana Gaudi live metrics (attribute directory as in habana.c: the PCI device in the
 * accel era, the hl<N> class device before):
 *   status            "Operational" -> sampled; anything else ("In reset", "Needs reset",
 *                     "Malfunction", ...) -> the device is lost in that sample, since the
 *                     driver answers -ENODEV for every metric then
 *   clk_cur_freq_mhz  MHz -> SM_CLOCK
 *   max_power         mW (0: none) -> POWER_LIMIT
 *   hwmon             the driver's hwmon device (power, temperatures; metrics/hwmon_sample.c)
 * A read that answers -ENODEV (not operational) also marks the device lost.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "habana_sample.h"
#include "sysattr.h"
#include "sample.h"
#include "hwmon_sample.h"

struct hdev {
	size_t index;
	int status, clk, max_power;
	struct axl__shwmon hw;
};

struct hstate {
	struct hdev *d;
	size_t n;
};

static void axl__habana_sample_open(struct axl_sampler *s, const struct axl__backend *self)
{
	struct hstate *st = calloc(1, sizeof *st);
	if (!st || !(st->d = calloc(s->n ? s->n : 1, sizeof *st->d))) {
		free(st);
		return;
	}
	struct axl__scan scan = {.ctx = s->ctx, .inv = (struct axl_inventory *)s->inv, .fs = s->fs};
	for (size_t i = 0; i < s->n; i++) {
		const struct axl_device *dev = s->devs[i];
		const char *drv = axl__str(dev, AXL_ATTR_DRIVER);
		if (dev->parent || !dev->syspath || axl__int(dev, AXL_ATTR_VENDOR_ID, -1) != 0x1da3 || !drv ||
		    strcmp(drv, "habanalabs") != 0)
			continue;
		char cd[512];
		const char *dir = dev->syspath;
		if (axl__class_dev(&scan, dev, "habanalabs", cd, sizeof cd))
			dir = cd;
		int dfd = axl__fs_opendir_fd(s->fs, AXL__FS_ROOT, dir);
		if (dfd < 0)
			continue;
		struct hdev *x = &st->d[st->n++];
		x->index = i;
		x->status = axl__sfile_open(s->fs, dfd, "status");
		x->clk = axl__sfile_open(s->fs, dfd, "clk_cur_freq_mhz");
		x->max_power = axl__sfile_open(s->fs, dfd, "max_power");
		axl__sfile_close(&dfd);
		axl__shwmon_open(s, dev, NULL, &x->hw);
	}
	if (!st->n) {
		free(st->d);
		free(st);
		return;
	}
	*axl__sampler_state(s, self) = st;
}

static void axl__habana_sample(struct axl_sampler *s, const struct axl__backend *self, struct axl_sample *out)
{
	struct hstate *st = *axl__sampler_state(s, self);
	for (size_t k = 0; k < st->n; k++) {
		struct hdev *x = &st->d[k];
		size_t i = x->index;
		if (out->d[i].state == AXL_SAMPLE_LOST)
			continue;
		char text[64];
		long n = x->status >= 0 ? axl__sfile_read(x->status, text, sizeof text) : -1;
		if ((n < 0 && axl__sfile_gone(n)) || (n >= 0 && strcmp(text, "Operational") != 0)) {
			axl__slost(out, i);
			continue;
		}
		uint64_t v;
		int rc;
		if (x->clk >= 0) {
			if (!(rc = axl__sfile_u64(x->clk, &v)))
				axl__sput(out, i, AXL_METRIC_SM_CLOCK, (double)v, AXL_SOURCE_SYSFS);
			else if (axl__sfile_gone(rc)) {
				axl__slost(out, i);
				continue;
			}
		}
		if (x->max_power >= 0 && !axl__sfile_u64(x->max_power, &v) && v > 0)
			axl__sput(out, i, AXL_METRIC_POWER_LIMIT, (double)v / 1e3, AXL_SOURCE_SYSFS);
		axl__shwmon_read(&x->hw, out, i, out->mono_ms);
		/* a device with nothing readable still answered: it is there */
		if (out->d[i].state == AXL_SAMPLE_NONE)
			out->d[i].state = AXL_SAMPLE_OK;
	}
}

static void axl__habana_sample_close(struct axl_sampler *s, const struct axl__backend *self)
{
	struct hstate *st = *axl__sampler_state(s, self);
	for (size_t k = 0; k < st->n; k++) {
		struct hdev *x = &st->d[k];
		axl__sfile_close(&x->status);
		axl__sfile_close(&x->clk);
		axl__sfile_close(&x->max_power);
		axl__shwmon_close(&x->hw);
	}
	free(st->d);
	free(st);
	*axl__sampler_state(s, self) = NULL;
}

const struct axl__sample_ops axl__habana_sample_ops = {
	.open = axl__habana_sample_open,
	.sample = axl__habana_sample,
	.close = axl__habana_sample_close,
};
