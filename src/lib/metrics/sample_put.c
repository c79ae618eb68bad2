/* SPDX-License-Identifier: MIT */
/*
 * Writing a sample (sample.h): a device's values and lost state, strings kept with the
 * sample, processes, warnings and health events. The sampler (sampler.c) and every collector (the
 * processes, the workloads, each backend's sample call) write through these; none of
 * them needs the sampler itself for it.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sample.h"

/* ---- values ------------------------------------------------------------------------------ */

size_t axl__sindex(const struct axl_sampler *s, const struct axl_device *dev)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->devs[i] == dev)
			return i;
	return SIZE_MAX;
}

void axl__sput(struct axl_sample *out, size_t i, axl_metric m, double v, axl_source src)
{
	if (i >= out->n || (unsigned)m >= AXL_METRIC__COUNT || !isfinite(v) || src == AXL_SOURCE_NONE)
		return;
	struct axl__sdev *d = &out->d[i];
	if (d->state == AXL_SAMPLE_LOST)
		return;
	d->state = AXL_SAMPLE_OK;
	d->v[m] = v;
	d->src[m] = (uint8_t)src;
}

void axl__slost(struct axl_sample *out, size_t i)
{
	if (i >= out->n)
		return;
	struct axl__sdev *d = &out->d[i];
	d->state = AXL_SAMPLE_LOST;
	memset(d->src, 0, sizeof d->src);
	for (size_t m = 0; m < AXL_METRIC__COUNT; m++)
		d->v[m] = 0;
}

const char *axl__sstr(struct axl_sample *out, const char *s)
{
	return s && *s ? axl__arena_strdup(&out->arena, s) : NULL;
}

struct axl_process *axl__sproc_add(struct axl_sample *out, int pid, const char *device, const char *name,
				   const char *type, axl_source src)
{
	struct axl_process *p = AXL__VEC_PUSH(out->procs);
	if (!p)
		return NULL;
	p->pid = pid;
	p->device = axl__sstr(out, device);
	p->name = axl__sstr(out, name);
	p->type = axl__sstr(out, type);
	p->memory_used_bytes = -1;
	p->utilization_percent = -1;
	p->encoder_utilization_percent = -1;
	p->decoder_utilization_percent = -1;
	p->source = src;
	return p;
}

/* ---- warnings ------------------------------------------------------------------------- */

void axl__swarn(struct axl_sample *out, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	const char **slot = AXL__VEC_PUSH(out->warnings);
	if (!slot)
		return;
	*slot = axl__arena_strdup(&out->arena, buf);
	if (!*slot)
		out->warnings.n--;
}

/* ---- health events ------------------------------------------------------------------- */

void axl__shealth(struct axl_sample *out, size_t i, axl_health_kind kind, bool critical, int64_t code,
		  axl_source src, const char *fmt, ...)
{
	if (i >= out->n)
		return;
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	const char *msg = axl__arena_strdup(&out->arena, buf);
	struct axl_health_event *e = msg ? AXL__VEC_PUSH(out->health) : NULL;
	if (!e)
		return;
	e->device = i;
	e->kind = kind;
	e->critical = critical;
	e->code = code;
	e->message = msg;
	e->source = src;
}
