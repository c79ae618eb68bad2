/* SPDX-License-Identifier: MIT */
/*
 * amdgpu live metrics, from the PCI device's attributes (Documentation/gpu/amdgpu/
 * driver-misc.rst, thermal.rst) and its hwmon directory (metrics/hwmon_sample.c):
 *   gpu_busy_percent, mem_busy_percent   percent
 *   mem_info_vram_used, _vram_total      bytes
 *   pp_dpm_sclk, pp_dpm_mclk             the current level ('*'), when hwmon has no
 *                                        freq1_input / freq2_input
 *   ras/<block>_err_count                "ue: N\nce: N", summed over the blocks
 *   gpu_metrics                          the SMU's binary table (amdgpu_metrics.c): fills
 *                                        only what the files above left unknown (MI300
 *                                        has no edge sensor, no energy1_input; throttle
 *                                        reasons exist only there)
 * A read that fails with ENODEV (the GPU was unplugged or is being reset) marks the
 * GPU lost in that sample.
 *
 * Health (AXL_SAMPLER_HEALTH): each ras/<block>_err_count is the driver's count of that
 * block's errors since it loaded (amdgpu_ras.c, amdgpu_ras_sysfs_read: "ue: N\nce: N",
 * "de: N" too on newer kernels' UMC; "Query currently inaccessible" while the RAS
 * context is not ready, as during a reset). The first read is the baseline; a later "ue"
 * above the last one seen is a critical AXL_HEALTH_UNCORRECTABLE event naming the block
 * and the increase. A count that went down (the driver reloaded) is a new baseline.
 * amdgpu publishes no reset counter in sysfs to watch besides these.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "amdgpu.h"
#include "amdgpu_metrics.h"
#include "sample.h"
#include "hwmon_sample.h"

#define MAX_RAS 24

struct agpu {
	size_t index; /* in the sampler */
	int busy, mem_busy, vram_used, vram_total, sclk, mclk, metrics;
	int ras[MAX_RAS];
	char ras_block[MAX_RAS][24]; /* "umc" of umc_err_count */
	uint64_t ras_ue[MAX_RAS];    /* health: the last "ue" count read */
	bool ras_seen[MAX_RAS];
	int nras;
	struct axl__shwmon hw;
};

struct astate {
	struct agpu *g;
	size_t n;
};

static void open_ras(struct axl_sampler *s, int dfd, struct agpu *g)
{
	axl__dir *dh = axl__fs_opendir(s->fs, dfd, "ras");
	if (!dh)
		return;
	int rfd = axl__fs_opendir_fd(s->fs, dfd, "ras");
	struct dirent *e;
	while (rfd >= 0 && (e = axl__fs_readdir(dh)) != NULL && g->nras < MAX_RAS) {
		size_t l = strlen(e->d_name);
		if (l < 10 || strcmp(e->d_name + l - 10, "_err_count") != 0)
			continue;
		int fd = axl__sfile_open(s->fs, rfd, e->d_name);
		if (fd < 0)
			continue;
		snprintf(g->ras_block[g->nras], sizeof g->ras_block[g->nras], "%.*s", (int)(l - 10), e->d_name);
		g->ras[g->nras++] = fd;
	}
	axl__fs_closedir(dh);
	if (rfd >= 0)
		axl__sfile_close(&rfd);
}

/* The "ue:" count of a RAS file: 1, 0 when it says none now (not ready), or the read's
 * -errno. */
static int ras_ue(int fd, uint64_t *ue)
{
	char buf[128];
	long n = axl__sfile_read(fd, buf, sizeof buf);
	if (n < 0)
		return (int)n;
	for (char *line = buf; line && *line;) {
		unsigned long long v;
		if (sscanf(line, "ue: %llu", &v) == 1) {
			*ue = v;
			return 1;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return 0;
}

static void axl__amdgpu_sample_open(struct axl_sampler *s, const struct axl__backend *self)
{
	struct astate *st = calloc(1, sizeof *st);
	if (!st)
		return;
	st->g = calloc(s->n ? s->n : 1, sizeof *st->g);
	if (!st->g) {
		free(st);
		return;
	}
	for (size_t i = 0; i < s->n; i++) {
		const struct axl_device *d = s->devs[i];
		if (d->parent || !d->syspath || !d->has_pci || !axl__amdgpu_owns(d))
			continue;
		int dfd = axl__fs_opendir_fd(s->fs, AXL__FS_ROOT, d->syspath);
		if (dfd < 0)
			continue;
		struct agpu *g = &st->g[st->n++];
		g->index = i;
		g->busy = axl__sfile_open(s->fs, dfd, "gpu_busy_percent");
		g->mem_busy = axl__sfile_open(s->fs, dfd, "mem_busy_percent");
		g->vram_used = axl__sfile_open(s->fs, dfd, "mem_info_vram_used");
		g->vram_total = axl__sfile_open(s->fs, dfd, "mem_info_vram_total");
		g->sclk = axl__sfile_open(s->fs, dfd, "pp_dpm_sclk");
		g->mclk = axl__sfile_open(s->fs, dfd, "pp_dpm_mclk");
		g->metrics = axl__sfile_open(s->fs, dfd, "gpu_metrics");
		open_ras(s, dfd, g);
		axl__sfile_close(&dfd);
		if (s->flags & AXL_SAMPLER_HEALTH)
			for (int r = 0; r < g->nras; r++) /* the baselines */
				g->ras_seen[r] = ras_ue(g->ras[r], &g->ras_ue[r]) > 0;
		axl__shwmon_open(s, d, "amdgpu", &g->hw);
	}
	if (!st->n) {
		free(st->g);
		free(st);
		return;
	}
	*axl__sampler_state(s, self) = st;
}

/* A percent file; false when the GPU went away. */
static bool put_u64(struct axl_sample *out, size_t i, int fd, axl_metric m, double scale, double max)
{
	if (fd < 0)
		return true;
	uint64_t v;
	int rc = axl__sfile_u64(fd, &v);
	if (rc < 0)
		return !axl__sfile_gone(rc);
	if ((double)v * scale <= max)
		axl__sput(out, i, m, (double)v * scale, AXL_SOURCE_SYSFS);
	return true;
}

static void put_dpm(struct axl_sample *out, size_t i, int fd, axl_metric m)
{
	char buf[1024];
	int64_t cur, max;
	if (fd >= 0 && axl__sfile_read(fd, buf, sizeof buf) > 0 && axl__amdgpu_dpm_levels(buf, &cur, &max) && cur >= 0)
		axl__sput(out, i, m, (double)cur, AXL_SOURCE_SYSFS);
}

/* "ue: 0\nce: 12" */
static void put_ras(struct axl_sample *out, const struct agpu *g)
{
	uint64_t ue = 0, ce = 0;
	int seen = 0;
	for (int r = 0; r < g->nras; r++) {
		char buf[128];
		if (axl__sfile_read(g->ras[r], buf, sizeof buf) <= 0)
			continue;
		unsigned long long u, c;
		if (sscanf(buf, "ue: %llu ce: %llu", &u, &c) == 2) {
			ue += u;
			ce += c;
			seen++;
		}
	}
	if (seen) {
		axl__sput(out, g->index, AXL_METRIC_ECC_UNCORRECTED, (double)ue, AXL_SOURCE_SYSFS);
		axl__sput(out, g->index, AXL_METRIC_ECC_CORRECTED, (double)ce, AXL_SOURCE_SYSFS);
	}
}

/* What gpu_metrics knows and the text files did not say. */
static void put_metrics(struct axl_sample *out, size_t i, int fd)
{
	uint8_t buf[4096];
	ssize_t n;
	if (fd < 0)
		return;
	do
		n = pread(fd, buf, sizeof buf, 0);
	while (n < 0 && errno == EINTR);
	struct axl__gpu_metrics gm;
	if (n <= 0 || !axl__gpu_metrics_parse(buf, (size_t)n, &gm))
		return;
	for (unsigned m = 0; m < AXL_METRIC__COUNT; m++)
		if (axl__gpu_metrics_has(&gm, (axl_metric)m) && !out->d[i].src[m])
			axl__sput(out, i, (axl_metric)m, gm.v[m], AXL_SOURCE_SYSFS);
}

/* Health: the RAS counts of uncorrectable errors that grew since the last sample. False
 * when the GPU went away. */
static bool ras_health(struct axl_sample *out, struct agpu *g)
{
	for (int r = 0; r < g->nras; r++) {
		uint64_t ue;
		int rc = ras_ue(g->ras[r], &ue);
		if (rc < 0 && axl__sfile_gone(rc))
			return false;
		if (rc <= 0)
			continue; /* not now: the count stands */
		if (g->ras_seen[r] && ue > g->ras_ue[r])
			axl__shealth(out, g->index, AXL_HEALTH_UNCORRECTABLE, true, (int64_t)(ue - g->ras_ue[r]),
				     AXL_SOURCE_SYSFS,
				     "RAS: %llu new uncorrectable error%s in %s (%llu since the driver loaded)",
				     (unsigned long long)(ue - g->ras_ue[r]), ue - g->ras_ue[r] == 1 ? "" : "s",
				     g->ras_block[r], (unsigned long long)ue);
		g->ras_ue[r] = ue;
		g->ras_seen[r] = true;
	}
	return true;
}

static void axl__amdgpu_sample(struct axl_sampler *s, const struct axl__backend *self, struct axl_sample *out)
{
	struct astate *st = *axl__sampler_state(s, self);
	bool health = s->flags & AXL_SAMPLER_HEALTH;
	for (size_t k = 0; k < st->n; k++) {
		struct agpu *g = &st->g[k];
		size_t i = g->index;
		if (out->d[i].state == AXL_SAMPLE_LOST)
			continue;
		if (health && !ras_health(out, g)) {
			axl__slost(out, i);
			continue;
		}
		if (s->flags & AXL_SAMPLER_NO_METRICS) {
			if (health && g->nras)
				out->d[i].state = AXL_SAMPLE_OK; /* its RAS files were read */
			continue;
		}
		if (!put_u64(out, i, g->busy, AXL_METRIC_UTILIZATION, 1, 100) ||
		    !put_u64(out, i, g->vram_used, AXL_METRIC_MEMORY_USED, 1, 1e18)) {
			axl__slost(out, i);
			continue;
		}
		put_u64(out, i, g->mem_busy, AXL_METRIC_MEMORY_UTILIZATION, 1, 100);
		put_u64(out, i, g->vram_total, AXL_METRIC_MEMORY_TOTAL, 1, 1e18);
		if (!axl__shwmon_read(&g->hw, out, i, out->mono_ms))
			continue;
		if (!out->d[i].src[AXL_METRIC_SM_CLOCK])
			put_dpm(out, i, g->sclk, AXL_METRIC_SM_CLOCK);
		if (!out->d[i].src[AXL_METRIC_MEMORY_CLOCK])
			put_dpm(out, i, g->mclk, AXL_METRIC_MEMORY_CLOCK);
		put_ras(out, g);
		put_metrics(out, i, g->metrics);
	}
}

static void axl__amdgpu_sample_close(struct axl_sampler *s, const struct axl__backend *self)
{
	struct astate *st = *axl__sampler_state(s, self);
	for (size_t k = 0; k < st->n; k++) {
		struct agpu *g = &st->g[k];
		int *fds[] = {&g->busy, &g->mem_busy, &g->vram_used, &g->vram_total, &g->sclk, &g->mclk, &g->metrics};
		for (size_t f = 0; f < sizeof fds / sizeof *fds; f++)
			axl__sfile_close(fds[f]);
		for (int r = 0; r < g->nras; r++)
			axl__sfile_close(&g->ras[r]);
		axl__shwmon_close(&g->hw);
	}
	free(st->g);
	free(st);
	*axl__sampler_state(s, self) = NULL;
}

const struct axl__sample_ops axl__amdgpu_sample_ops = {
	.open = axl__amdgpu_sample_open,
	.sample = axl__amdgpu_sample,
	.close = axl__amdgpu_sample_close,
	.health = true,
};
