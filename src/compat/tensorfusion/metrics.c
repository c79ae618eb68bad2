/* SPDX-License-Identifier: MIT */
/* libaccelerator_axl.so: device metrics and processes from axl's sampler. */
#define _GNU_SOURCE
#include "tf.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Samples younger than this are shared: the host asks for metrics and processes every
 * 500 ms from two threads, and one sample answers both. */
#define TF_FRESH_NS (200 * 1000000LL)

/* The current sample (owned by the state), or NULL when there is no sampler. */
static const axl_sample *current(struct tf_state *st)
{
	if (!st->sampler)
		return NULL;
	int64_t now = tf_now_ns();
	if (st->last && now - st->last_ns < TF_FRESH_NS)
		return st->last;
	axl_sample *smp;
	if (axl_sampler_sample(st->sampler, &smp) != 0)
		return st->last; /* out of memory: the previous one, if any */
	axl_sample_free(st->last);
	st->last = smp;
	st->last_ns = now;
	return smp;
}

static long sample_index(const axl_sample *smp, const axl_device *d)
{
	for (size_t i = 0; i < axl_sample_device_count(smp); i++)
		if (axl_sample_device(smp, i) == d)
			return (long)i;
	return -1;
}

static int get(const axl_sample *smp, long i, axl_metric m, double *v)
{
	return axl_sample_get(smp, (size_t)i, m, v, NULL) == 0 && isfinite(*v);
}

static uint64_t nonneg_u64(double v)
{
	if (!(v > 0))
		return 0;
	return v >= 1.8e19 ? UINT64_MAX : (uint64_t)llround(v);
}

static void fill_metrics(const axl_sample *smp, const axl_device *d, DeviceMetrics *m)
{
	long i = smp ? sample_index(smp, d) : -1;
	if (i < 0 || axl_sample_device_state(smp, (size_t)i) != AXL_SAMPLE_OK)
		return;
	double v;
	if (get(smp, i, AXL_METRIC_POWER, &v) && v > 0)
		m->powerUsageWatts = v;
	if (get(smp, i, AXL_METRIC_TEMPERATURE, &v) && v > 0)
		m->temperatureCelsius = v;
	if (get(smp, i, AXL_METRIC_PCIE_RX, &v))
		m->pcieRxBytes = nonneg_u64(v);
	if (get(smp, i, AXL_METRIC_PCIE_TX, &v))
		m->pcieTxBytes = nonneg_u64(v);
	if (get(smp, i, AXL_METRIC_UTILIZATION, &v))
		m->utilizationPercent = v <= 0 ? 0 : v >= 100 ? 100 : (uint32_t)lround(v);
	if (get(smp, i, AXL_METRIC_MEMORY_USED, &v))
		m->memoryUsedBytes = nonneg_u64(v);
	/* everything else the sample knows, under axl's metric names */
	for (int k = 0; k < AXL_METRIC__COUNT && m->extraMetricsCount < MAX_EXTRA_METRICS; k++) {
		if (k == AXL_METRIC_POWER || k == AXL_METRIC_TEMPERATURE || k == AXL_METRIC_PCIE_RX ||
		    k == AXL_METRIC_PCIE_TX || k == AXL_METRIC_UTILIZATION || k == AXL_METRIC_MEMORY_USED)
			continue;
		if (!get(smp, i, (axl_metric)k, &v))
			continue;
		ExtraMetric *e = &m->extraMetrics[m->extraMetricsCount++];
		tf_copy(e->key, sizeof e->key, axl_metric_name((axl_metric)k));
		e->value = v;
	}
}

TF_API AccelResult AccelGetDeviceMetrics(const char **uuids, size_t n, DeviceMetrics *out)
{
	if (!uuids || n == 0 || !out)
		return ACCEL_ERROR_INVALID_PARAM;
	for (size_t i = 0; i < n; i++)
		if (!uuids[i])
			return ACCEL_ERROR_INVALID_PARAM;
	struct tf_state *st;
	AccelResult r = tf_lock(&st);
	if (r != ACCEL_SUCCESS)
		return r;
	const axl_sample *smp = current(st);
	size_t missing = 0;
	for (size_t i = 0; i < n; i++) {
		DeviceMetrics *m = &out[i];
		memset(m, 0, sizeof *m);
		tf_copy(m->deviceUUID, sizeof m->deviceUUID, uuids[i]);
		const axl_device *d = tf_find(st, uuids[i], NULL);
		if (!d) {
			missing++;
			tf_log("WARN", "metrics: no device %.64s", uuids[i]);
			continue;
		}
		fill_metrics(smp, d, m);
	}
	tf_unlock();
	return missing ? ACCEL_ERROR_NOT_FOUND : ACCEL_SUCCESS;
}

TF_API AccelResult AccelGetProcessInformation(ProcessInformation *out, size_t maxCount, size_t *count)
{
	if (!out || !count || maxCount == 0)
		return ACCEL_ERROR_INVALID_PARAM;
	struct tf_state *st;
	AccelResult r = tf_lock(&st);
	if (r != ACCEL_SUCCESS)
		return r;
	const axl_sample *smp = current(st);
	size_t n = 0;
	size_t np = smp ? axl_sample_process_count(smp) : 0;
	for (size_t k = 0; k < np && n < maxCount; k++) {
		const struct axl_process *p = axl_sample_process(smp, k);
		if (!p || p->pid <= 0 || !p->device)
			continue;
		const axl_device *d = axl_inventory_find(st->inv, p->device);
		if (!d)
			continue;
		/* a process on a partition is reported on its physical device */
		const axl_device *top = d;
		while (axl_device_parent(top))
			top = axl_device_parent(top);
		long slot = -1;
		for (size_t i = 0; i < st->ndev; i++)
			if (st->dev[i] == top)
				slot = (long)i;
		if (slot < 0)
			continue;
		ProcessInformation *pi = &out[n++];
		memset(pi, 0, sizeof *pi);
		snprintf(pi->processId, sizeof pi->processId, "%d", p->pid);
		tf_uuid(top, pi->deviceUUID, sizeof pi->deviceUUID);
		double u = p->utilization_percent;
		pi->computeUtilizationPercent = isfinite(u) && u > 0 ? (u > 100 ? 100 : u) : 0;
		pi->totalSMs = tf_compute_units(d);
		pi->activeSMs = 0; /* not known to axl */
		pi->memoryUsedBytes = p->memory_used_bytes > 0 ? (uint64_t)p->memory_used_bytes : 0;
		pi->memoryReservedBytes = 0;
		int64_t total = 0;
		if (axl_device_get_int(d, AXL_ATTR_MEMORY_TOTAL, &total) == 0 && total > 0) {
			double pct = 100.0 * (double)pi->memoryUsedBytes / (double)total;
			pi->memoryUtilizationPercent = pct > 100 ? 100 : pct;
		}
	}
	*count = n;
	tf_unlock();
	return ACCEL_SUCCESS;
}
