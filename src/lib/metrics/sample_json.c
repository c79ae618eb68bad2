/* SPDX-License-Identifier: MIT */
/* The "axl.metrics" document of a sample (schema/axl-metrics.schema.json). */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sample.h"
#include "util/json.h"

static void write_value(struct axl__json *w, axl_metric m, double v)
{
	if (m == AXL_METRIC_THROTTLE_REASONS) {
		axl__json_arr(w);
		unsigned bits = (unsigned)v;
		for (unsigned b = 0; b < 32; b++)
			if (bits & (1u << b)) {
				const char *n = axl_throttle_name(1u << b);
				if (n)
					axl__json_str(w, n);
			}
		axl__json_arr_end(w);
		return;
	}
	/* whole numbers stay integers (bytes, counts, MHz) */
	if (fabs(v) < 9e15 && v == floor(v))
		axl__json_int(w, (int64_t)v);
	else
		axl__json_num(w, v);
}

/* Metrics of one device; keys with a dot ("ecc_errors.corrected") grouped into objects. */
static void write_metrics(struct axl__json *w, const struct axl__sdev *d)
{
	bool done[AXL_METRIC__COUNT] = {false};
	for (unsigned m = 0; m < AXL_METRIC__COUNT; m++) {
		if (done[m] || !d->src[m])
			continue;
		const char *key = axl_metric_name((axl_metric)m);
		const char *dot = strchr(key, '.');
		if (!dot) {
			axl__json_key(w, key);
			write_value(w, (axl_metric)m, d->v[m]);
			continue;
		}
		char group[64];
		size_t gl = (size_t)(dot - key);
		if (gl >= sizeof group)
			continue;
		memcpy(group, key, gl);
		group[gl] = '\0';
		axl__json_key(w, group);
		axl__json_obj(w);
		for (unsigned k = m; k < AXL_METRIC__COUNT; k++) {
			const char *kk = axl_metric_name((axl_metric)k);
			if (!d->src[k] || strncmp(kk, key, gl + 1) != 0)
				continue;
			axl__json_key(w, kk + gl + 1);
			write_value(w, (axl_metric)k, d->v[k]);
			done[k] = true;
		}
		axl__json_obj_end(w);
	}
}

static void write_process(struct axl__json *w, const struct axl_process *p)
{
	axl__json_obj(w);
	axl__json_kint(w, "pid", p->pid);
	if (p->name)
		axl__json_kstr(w, "name", p->name);
	if (p->type)
		axl__json_kstr(w, "type", p->type);
	if (p->memory_used_bytes >= 0)
		axl__json_kint(w, "memory_used_bytes", p->memory_used_bytes);
	if (p->utilization_percent >= 0)
		axl__json_knum(w, "utilization_percent", p->utilization_percent);
	if (p->encoder_utilization_percent >= 0)
		axl__json_knum(w, "encoder_utilization_percent", p->encoder_utilization_percent);
	if (p->decoder_utilization_percent >= 0)
		axl__json_knum(w, "decoder_utilization_percent", p->decoder_utilization_percent);
	if (p->cgroup)
		axl__json_kstr(w, "cgroup", p->cgroup);
	if (p->container_id)
		axl__json_kstr(w, "container_id", p->container_id);
	axl__json_kstr(w, "source", axl_source_name(p->source));
	axl__json_obj_end(w);
}

static void write_workload(struct axl__json *w, const struct axl_workload *x)
{
	axl__json_obj(w);
	axl__json_kstr(w, "region", x->region);
	if (x->uuid)
		axl__json_kstr(w, "uuid", x->uuid);
	if (x->device)
		axl__json_kstr(w, "device", x->device);
	axl__json_kint(w, "memory_used_bytes", x->memory_used_bytes);
	if (x->memory_limit_bytes >= 0)
		axl__json_kint(w, "memory_limit_bytes", x->memory_limit_bytes);
	if (x->compute_limit_percent >= 0)
		axl__json_kint(w, "compute_limit_percent", x->compute_limit_percent);
	if (x->compute_used_percent >= 0)
		axl__json_knum(w, "compute_used_percent", x->compute_used_percent);
	axl__json_kint(w, "processes", x->processes);
	axl__json_obj_end(w);
}

static void rfc3339(int64_t ns, char *buf, size_t cap)
{
	time_t sec = (time_t)(ns / 1000000000);
	struct tm tm;
	gmtime_r(&sec, &tm);
	size_t n = strftime(buf, cap, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, cap - n, ".%03dZ", (int)((ns / 1000000) % 1000));
}

int axl_sample_json(const axl_sample *smp, unsigned flags, char **out, size_t *len)
{
	if (!smp || !out)
		return AXL_EINVAL;
	struct axl__sb sb = AXL__SB_INIT;
	struct axl__json w;
	axl__json_init(&w, &sb, flags & AXL_METRICS_PRETTY);
	char ts[48];
	rfc3339(smp->time_ns, ts, sizeof ts);
	axl__json_obj(&w);
	axl__json_kstr(&w, "schema", "axl.metrics");
	axl__json_kint(&w, "schema_version", 1);
	axl__json_kstr(&w, "timestamp", ts);
	if (smp->interval_ms >= 0)
		axl__json_knum(&w, "interval_ms", round(smp->interval_ms * 1000) / 1000);
	axl__json_key(&w, "devices");
	axl__json_arr(&w);
	for (size_t i = 0; i < smp->n; i++) {
		const struct axl__sdev *d = &smp->d[i];
		const char *id = axl_device_id(d->dev);
		axl__json_obj(&w);
		axl__json_kstr(&w, "id", id);
		axl__json_kstr(&w, "state", axl_sample_state_name((axl_sample_state)d->state));
		write_metrics(&w, d);
		axl__json_key(&w, "processes");
		axl__json_arr(&w);
		for (size_t p = 0; p < smp->procs.n; p++)
			if (smp->procs.v[p].device && id && strcmp(smp->procs.v[p].device, id) == 0)
				write_process(&w, &smp->procs.v[p]);
		axl__json_arr_end(&w);
		axl__json_key(&w, "sources");
		axl__json_obj(&w);
		for (unsigned m = 0; m < AXL_METRIC__COUNT; m++)
			if (d->src[m])
				axl__json_kstr(&w, axl_metric_name((axl_metric)m),
					       axl_source_name((axl_source)d->src[m]));
		axl__json_obj_end(&w);
		axl__json_obj_end(&w);
	}
	axl__json_arr_end(&w);
	if (smp->workloads.n) {
		axl__json_key(&w, "workloads");
		axl__json_arr(&w);
		for (size_t k = 0; k < smp->workloads.n; k++)
			write_workload(&w, &smp->workloads.v[k]);
		axl__json_arr_end(&w);
	}
	if (smp->warnings.n) {
		axl__json_key(&w, "warnings");
		axl__json_arr(&w);
		for (size_t k = 0; k < smp->warnings.n; k++)
			axl__json_str(&w, smp->warnings.v[k]);
		axl__json_arr_end(&w);
	}
	axl__json_obj_end(&w);
	if (flags & AXL_METRICS_PRETTY)
		axl__sb_putc(&sb, '\n');
	char *s = axl__sb_steal(&sb, len);
	if (!s)
		return axl__error(AXL_ENOMEM, "out of memory");
	*out = s;
	return 0;
}
