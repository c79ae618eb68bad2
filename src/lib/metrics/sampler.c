/* SPDX-License-Identifier: MIT */
/* The sampler and its samples (include/axl/metrics.h, sample.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "sample.h"

/* ---- metric names ------------------------------------------------------------------ */

static const struct {
	const char *key, *unit;
	char kind;
} metric_info[AXL_METRIC__COUNT] = {
#define AXL__MINFO(name, key, unit, kind) {key, unit, kind},
	AXL_METRIC_LIST(AXL__MINFO)
#undef AXL__MINFO
};

const char *axl_metric_name(axl_metric m)
{
	return (unsigned)m < AXL_METRIC__COUNT ? metric_info[m].key : NULL;
}

const char *axl_metric_unit(axl_metric m)
{
	return (unsigned)m < AXL_METRIC__COUNT ? metric_info[m].unit : NULL;
}

int axl_metric_is_counter(axl_metric m)
{
	return (unsigned)m < AXL_METRIC__COUNT && metric_info[m].kind == 'c';
}

const char *axl_throttle_name(unsigned bit)
{
	static const char *const names[] = {"idle", "app_clocks", "sw_power_cap", "hw_slowdown",
					    "sync_boost", "sw_thermal", "hw_thermal", "hw_power_brake",
					    "display_clocks", "current"};
	for (unsigned i = 0; i < sizeof names / sizeof *names; i++)
		if (bit == 1u << i)
			return names[i];
	return NULL;
}

const char *axl_sample_state_name(axl_sample_state st)
{
	switch (st) {
	case AXL_SAMPLE_OK: return "ok";
	case AXL_SAMPLE_LOST: return "lost";
	case AXL_SAMPLE_NONE: return "none";
	}
	return "none";
}

/* ---- the sampler --------------------------------------------------------------------- */

static int add_dev(struct axl_sampler *s, struct axl_device *d, size_t *cap)
{
	if (s->n == *cap) {
		size_t nc = *cap ? *cap * 2 : 16;
		struct axl_device **nv = realloc(s->devs, nc * sizeof *nv);
		if (!nv)
			return AXL_ENOMEM;
		s->devs = nv;
		*cap = nc;
	}
	s->devs[s->n++] = d;
	for (size_t c = 0; c < d->children.n; c++)
		if (add_dev(s, d->children.v[c], cap))
			return AXL_ENOMEM;
	return 0;
}

int axl_sampler_open(axl_sampler **out, const axl_inventory *inv, unsigned flags)
{
	if (out)
		*out = NULL;
	if (!out || !inv)
		return axl__error(AXL_EINVAL, "axl_sampler_open: NULL argument");
	struct axl_sampler *s = calloc(1, sizeof *s);
	if (!s)
		return axl__error(AXL_ENOMEM, "out of memory");
	s->inv = inv;
	s->ctx = inv->ctx;
	s->fs = &inv->ctx->fs;
	s->flags = flags;
	s->prev_ms = -1;
	size_t cap = 0;
	for (size_t i = 0; i < inv->devs.n; i++)
		if (add_dev(s, inv->devs.v[i], &cap)) {
			axl_sampler_free(s);
			return axl__error(AXL_ENOMEM, "out of memory");
		}
	s->alive_fd = malloc((s->n ? s->n : 1) * sizeof *s->alive_fd);
	if (!s->alive_fd) {
		axl_sampler_free(s);
		return axl__error(AXL_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < s->n; i++) {
		const struct axl_device *d = s->devs[i];
		s->alive_fd[i] = -1;
		if (s->ctx->sim)
			continue; /* nothing to watch: the node is simulated */
		if (d->has_pci && !d->parent && d->syspath && axl_device_family(d) != AXL_FAMILY_CPU) {
			int fd = axl__fs_opendir_fd(s->fs, AXL__FS_ROOT, d->syspath);
			s->alive_fd[i] = fd < 0 ? -1 : fd;
		}
	}
	if (s->ctx->sim_backend)
		s->ctx->sim_backend->sample->open(s, s->ctx->sim_backend);
	else
		for (size_t b = 0; b < axl__backend_total; b++)
			if (axl__backends[b]->sample && axl__backends[b]->sample->open && axl__backend_on(s->ctx, b))
				axl__backends[b]->sample->open(s, axl__backends[b]);
	*out = s;
	return 0;
}

void **axl__sampler_state(struct axl_sampler *s, const struct axl__backend *be)
{
	size_t b = axl__backend_slot(be);
	return b < axl__backend_total ? &s->bstate[b] : NULL;
}

void axl_sampler_free(axl_sampler *s)
{
	if (!s)
		return;
	for (size_t b = 0; b < axl__backend_total; b++)
		if (axl__backends[b]->sample && axl__backends[b]->sample->close && s->bstate[b])
			axl__backends[b]->sample->close(s, axl__backends[b]);
	if (s->sim_state)
		s->ctx->sim_backend->sample->close(s, s->ctx->sim_backend);
	if (s->alive_fd)
		for (size_t i = 0; i < s->n; i++)
			axl__sfile_close(&s->alive_fd[i]);
	free(s->alive_fd);
	free(s->devs);
	if (s->have_fdi_prev)
		axl__fdinfo_sweep_free(&s->fdi_prev);
	free(s);
}

static double mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* A PCI function whose sysfs directory is gone has left the bus. */
static void check_alive(struct axl_sampler *s, struct axl_sample *smp)
{
	for (size_t i = 0; i < s->n; i++) {
		if (s->alive_fd[i] < 0)
			continue;
		if (faccessat(s->alive_fd[i], "vendor", F_OK, 0) != 0 && errno != EACCES) {
			axl__slost(smp, i);
			/* its partitions went with it */
			for (size_t j = i + 1; j < s->n && s->devs[j]->parent; j++)
				axl__slost(smp, j);
		}
	}
}

/* What the inventory knows and does not change while the node runs. */
static void fill_static(struct axl_sampler *s, struct axl_sample *smp)
{
	for (size_t i = 0; i < s->n; i++) {
		struct axl__sdev *d = &smp->d[i];
		const struct axl_device *dev = s->devs[i];
		if (d->state != AXL_SAMPLE_OK)
			continue;
		if (!d->src[AXL_METRIC_MEMORY_TOTAL] && dev->attr[AXL_ATTR_MEMORY_TOTAL].src)
			axl__sput(smp, i, AXL_METRIC_MEMORY_TOTAL, (double)dev->attr[AXL_ATTR_MEMORY_TOTAL].v.i,
				  (axl_source)dev->attr[AXL_ATTR_MEMORY_TOTAL].src);
		if (!d->src[AXL_METRIC_POWER_LIMIT] && dev->attr[AXL_ATTR_POWER_LIMIT].src)
			axl__sput(smp, i, AXL_METRIC_POWER_LIMIT, dev->attr[AXL_ATTR_POWER_LIMIT].v.f,
				  (axl_source)dev->attr[AXL_ATTR_POWER_LIMIT].src);
	}
}

static int cmp_proc(const void *a, const void *b)
{
	const struct axl_process *x = a, *y = b;
	int c = strcmp(x->device ? x->device : "", y->device ? y->device : "");
	if (c)
		return c;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

int axl_sampler_sample(axl_sampler *s, axl_sample **out)
{
	if (out)
		*out = NULL;
	if (!s || !out)
		return axl__error(AXL_EINVAL, "axl_sampler_sample: NULL argument");
	double t0 = mono_ms();
	struct axl_sample *smp = calloc(1, sizeof *smp);
	if (!smp || !(smp->d = calloc(s->n ? s->n : 1, sizeof *smp->d))) {
		free(smp);
		return axl__error(AXL_ENOMEM, "out of memory");
	}
	smp->inv = s->inv;
	smp->n = s->n;
	struct timespec rt;
	clock_gettime(CLOCK_REALTIME, &rt);
	smp->time_ns = (int64_t)rt.tv_sec * 1000000000 + rt.tv_nsec;
	smp->mono_ms = t0;
	smp->interval_ms = s->prev_ms >= 0 ? t0 - s->prev_ms : -1;
	for (size_t i = 0; i < s->n; i++) {
		smp->d[i].dev = s->devs[i];
		smp->d[i].state = AXL_SAMPLE_NONE;
	}
	check_alive(s, smp);
	/* with AXL_SAMPLER_NO_METRICS only the backends that watch health are asked */
	bool metrics = !(s->flags & AXL_SAMPLER_NO_METRICS);
	for (size_t b = 0; b < axl__backend_total; b++)
		if (axl__backends[b]->sample && axl__backends[b]->sample->sample && s->bstate[b] &&
		    (metrics || axl__backends[b]->sample->health))
			axl__backends[b]->sample->sample(s, axl__backends[b], smp);
	if (s->sim_state && metrics)
		s->ctx->sim_backend->sample->sample(s, s->ctx->sim_backend, smp);
	/* a simulated node has no processes: no /proc sweep */
	if (metrics && (s->flags & AXL_SAMPLER_PROCESSES) && !s->ctx->sim)
		axl__sample_processes(s, smp);
	if (metrics)
		fill_static(s, smp);
	if (smp->procs.n > 1)
		qsort(smp->procs.v, smp->procs.n, sizeof *smp->procs.v, cmp_proc);
	if (metrics)
		axl__sample_workloads(s, smp);
	s->prev_ms = t0;
	s->count++;
	smp->cost_us = (mono_ms() - t0) * 1e3;
	*out = smp;
	return 0;
}

void axl_sample_free(axl_sample *smp)
{
	if (!smp)
		return;
	free(smp->d);
	AXL__VEC_FREE(smp->procs);
	AXL__VEC_FREE(smp->workloads);
	AXL__VEC_FREE(smp->warnings);
	AXL__VEC_FREE(smp->health);
	axl__arena_free(&smp->arena);
	free(smp);
}

int64_t axl_sample_time_ns(const axl_sample *smp)
{
	return smp ? smp->time_ns : 0;
}

double axl_sample_interval_ms(const axl_sample *smp)
{
	return smp ? smp->interval_ms : -1;
}

double axl_sample_cost_us(const axl_sample *smp)
{
	return smp ? smp->cost_us : 0;
}

size_t axl_sample_device_count(const axl_sample *smp)
{
	return smp ? smp->n : 0;
}

const axl_device *axl_sample_device(const axl_sample *smp, size_t i)
{
	return smp && i < smp->n ? smp->d[i].dev : NULL;
}

axl_sample_state axl_sample_device_state(const axl_sample *smp, size_t i)
{
	return smp && i < smp->n ? (axl_sample_state)smp->d[i].state : AXL_SAMPLE_NONE;
}

int axl_sample_get(const axl_sample *smp, size_t i, axl_metric m, double *value, axl_source *src)
{
	if (!smp || i >= smp->n || (unsigned)m >= AXL_METRIC__COUNT)
		return AXL_EINVAL;
	const struct axl__sdev *d = &smp->d[i];
	if (!d->src[m])
		return AXL_EUNKNOWN;
	if (value)
		*value = d->v[m];
	if (src)
		*src = (axl_source)d->src[m];
	return 0;
}

size_t axl_sample_process_count(const axl_sample *smp)
{
	return smp ? smp->procs.n : 0;
}

const struct axl_process *axl_sample_process(const axl_sample *smp, size_t i)
{
	return smp && i < smp->procs.n ? &smp->procs.v[i] : NULL;
}

size_t axl_sample_workload_count(const axl_sample *smp)
{
	return smp ? smp->workloads.n : 0;
}

const struct axl_workload *axl_sample_workload(const axl_sample *smp, size_t i)
{
	return smp && i < smp->workloads.n ? &smp->workloads.v[i] : NULL;
}

size_t axl_sample_warning_count(const axl_sample *smp)
{
	return smp ? smp->warnings.n : 0;
}

const char *axl_sample_warning(const axl_sample *smp, size_t i)
{
	return smp && i < smp->warnings.n ? smp->warnings.v[i] : NULL;
}

size_t axl_sample_health_count(const axl_sample *smp)
{
	return smp ? smp->health.n : 0;
}

const struct axl_health_event *axl_sample_health_event(const axl_sample *smp, size_t i)
{
	return smp && i < smp->health.n ? &smp->health.v[i] : NULL;
}
