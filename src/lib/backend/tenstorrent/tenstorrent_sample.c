/* SPDX-License-Identifier: MIT */
/*
 * Tenstorrent live metrics (tt-kmd; layout in tenstorrent.c):
 *   class device tenstorrent!N: tt_aiclk "%u" MHz, the AI (Tensix) clock -> SM_CLOCK
 *   hwmon on the PCI device: power1_input (uW) -> POWER, power1_max -> POWER_LIMIT,
 *   temp1_input (m degC, label "asic1_temp") -> TEMPERATURE (metrics/hwmon_sample.c).
 *   curr1_input / in0_input (current, voltage) and tt_axiclk / tt_arcclk have no metric.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "tenstorrent_sample.h"
#include "sysattr.h"
#include "sample.h"
#include "hwmon_sample.h"

struct tdev {
	size_t index;
	int aiclk;
	struct axl__shwmon hw;
};

struct tstate {
	struct tdev *d;
	size_t n;
};

static void axl__tenstorrent_sample_open(struct axl_sampler *s, const struct axl__backend *self)
{
	struct tstate *st = calloc(1, sizeof *st);
	if (!st || !(st->d = calloc(s->n ? s->n : 1, sizeof *st->d))) {
		free(st);
		return;
	}
	struct axl__scan scan = {.ctx = s->ctx, .inv = (struct axl_inventory *)s->inv, .fs = s->fs};
	for (size_t i = 0; i < s->n; i++) {
		const struct axl_device *dev = s->devs[i];
		const char *drv = axl__str(dev, AXL_ATTR_DRIVER);
		if (dev->parent || !dev->syspath || axl__int(dev, AXL_ATTR_VENDOR_ID, -1) != 0x1e52 || !drv ||
		    strcmp(drv, "tenstorrent") != 0)
			continue;
		struct tdev *x = &st->d[st->n++];
		x->index = i;
		x->aiclk = -1;
		char cd[512];
		if (axl__class_dev(&scan, dev, "tenstorrent", cd, sizeof cd)) {
			int dfd = axl__fs_opendir_fd(s->fs, AXL__FS_ROOT, cd);
			if (dfd >= 0) {
				x->aiclk = axl__sfile_open(s->fs, dfd, "tt_aiclk");
				axl__sfile_close(&dfd);
			}
		}
		axl__shwmon_open(s, dev, NULL, &x->hw);
	}
	if (!st->n) {
		free(st->d);
		free(st);
		return;
	}
	*axl__sampler_state(s, self) = st;
}

static void axl__tenstorrent_sample(struct axl_sampler *s, const struct axl__backend *self, struct axl_sample *out)
{
	struct tstate *st = *axl__sampler_state(s, self);
	for (size_t k = 0; k < st->n; k++) {
		struct tdev *x = &st->d[k];
		size_t i = x->index;
		if (out->d[i].state == AXL_SAMPLE_LOST)
			continue;
		if (!axl__shwmon_read(&x->hw, out, i, out->mono_ms))
			continue;
		uint64_t v;
		int rc;
		if (x->aiclk >= 0) {
			if (!(rc = axl__sfile_u64(x->aiclk, &v)) && v < 100000)
				axl__sput(out, i, AXL_METRIC_SM_CLOCK, (double)v, AXL_SOURCE_SYSFS);
			else if (rc < 0 && axl__sfile_gone(rc))
				axl__slost(out, i);
		}
	}
}

static void axl__tenstorrent_sample_close(struct axl_sampler *s, const struct axl__backend *self)
{
	struct tstate *st = *axl__sampler_state(s, self);
	for (size_t k = 0; k < st->n; k++) {
		axl__sfile_close(&st->d[k].aiclk);
		axl__shwmon_close(&st->d[k].hw);
	}
	free(st->d);
	free(st);
	*axl__sampler_state(s, self) = NULL;
}

const struct axl__sample_ops axl__tenstorrent_sample_ops = {
	.open = axl__tenstorrent_sample_open,
	.sample = axl__tenstorrent_sample,
	.close = axl__tenstorrent_sample_close,
};
