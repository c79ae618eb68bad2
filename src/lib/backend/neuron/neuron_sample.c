/* SPDX-License-Identifier: MIT */
/*
 * AWS Neuron live metrics, from the class device neuron_device/neuronN of the Nth bound
 * neuron function (layout in neuron.c; neuron_sysfs_metrics.c):
 *   neuron_core<i>/stats/memory_usage/device_mem/total  bytes of device memory held by
 *                      core i now -> MEMORY_USED, summed over the cores
 *   reset              "%d": 1 ready; 0 (in reset) or 2 (invalid) -> the device is lost
 *                      in that sample (mode 0400: unreadable as a normal user, then
 *                      not used)
 * The driver publishes no power, temperature or clock in sysfs.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "neuron_sample.h"
#include "sysattr.h"
#include "sample.h"

#define MAX_CORES 64

struct ndev {
	size_t index;
	int reset;
	int core[MAX_CORES];
	int ncore;
};

struct nstate {
	struct ndev *d;
	size_t n;
};

static void axl__neuron_sample_open(struct axl_sampler *s, const struct axl__backend *self)
{
	struct nstate *st = calloc(1, sizeof *st);
	if (!st || !(st->d = calloc(s->n ? s->n : 1, sizeof *st->d))) {
		free(st);
		return;
	}
	for (size_t i = 0; i < s->n; i++) {
		const struct axl_device *dev = s->devs[i];
		const char *drv = axl__str(dev, AXL_ATTR_DRIVER);
		if (dev->parent || !dev->has_pci || axl__int(dev, AXL_ATTR_VENDOR_ID, -1) != 0x1d0f || !drv ||
		    (strcmp(drv, "neuron") != 0 && strcmp(drv, "neuron-driver") != 0))
			continue;
		char dir[96];
		snprintf(dir, sizeof dir, "/sys/class/neuron_device/neuron%d", axl__ordinal(s->inv, dev));
		int dfd = axl__fs_opendir_fd(s->fs, AXL__FS_ROOT, dir);
		if (dfd < 0)
			continue;
		struct ndev *x = &st->d[st->n++];
		x->index = i;
		x->reset = axl__sfile_open(s->fs, dfd, "reset");
		for (int c = 0; c < MAX_CORES; c++) {
			char name[96];
			snprintf(name, sizeof name, "neuron_core%d/stats/memory_usage/device_mem/total", c);
			int fd = axl__sfile_open(s->fs, dfd, name);
			if (fd < 0)
				break;
			x->core[x->ncore++] = fd;
		}
		axl__sfile_close(&dfd);
	}
	if (!st->n) {
		free(st->d);
		free(st);
		return;
	}
	*axl__sampler_state(s, self) = st;
}

static void axl__neuron_sample(struct axl_sampler *s, const struct axl__backend *self, struct axl_sample *out)
{
	struct nstate *st = *axl__sampler_state(s, self);
	for (size_t k = 0; k < st->n; k++) {
		struct ndev *x = &st->d[k];
		size_t i = x->index;
		if (out->d[i].state == AXL_SAMPLE_LOST)
			continue;
		uint64_t v;
		int rc;
		if (x->reset >= 0 && (rc = axl__sfile_u64(x->reset, &v)) <= 0) {
			if ((rc == 0 && v != 1) || (rc < 0 && axl__sfile_gone(rc))) {
				axl__slost(out, i);
				continue;
			}
		}
		uint64_t sum = 0;
		int seen = 0;
		for (int c = 0; c < x->ncore; c++)
			if (!axl__sfile_u64(x->core[c], &v) && v < (1ull << 50)) {
				sum += v;
				seen++;
			}
		if (seen)
			axl__sput(out, i, AXL_METRIC_MEMORY_USED, (double)sum, AXL_SOURCE_SYSFS);
	}
}

static void axl__neuron_sample_close(struct axl_sampler *s, const struct axl__backend *self)
{
	struct nstate *st = *axl__sampler_state(s, self);
	for (size_t k = 0; k < st->n; k++) {
		axl__sfile_close(&st->d[k].reset);
		for (int c = 0; c < st->d[k].ncore; c++)
			axl__sfile_close(&st->d[k].core[c]);
	}
	free(st->d);
	free(st);
	*axl__sampler_state(s, self) = NULL;
}

const struct axl__sample_ops axl__neuron_sample_ops = {
	.open = axl__neuron_sample_open,
	.sample = axl__neuron_sample,
	.close = axl__neuron_sample_close,
};
