/* SPDX-License-Identifier: MIT */
/*
 * A device's limits, whichever side it is on (core.h): AXL_LIMIT_* (axl limit env) and
 * the state directory's records (axl limit set), by the device's UUID; and attaching the
 * workload's shared region with them.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core.h"
#include "lstate.h"

/* the n-th comma-separated field of list into buf; 0 when there is no such field */
static int field(const char *list, int n, char *buf, size_t cap)
{
	const char *p = list;
	for (int i = 0; i < n; i++) {
		p = strchr(p, ',');
		if (!p)
			return 0;
		p++;
	}
	size_t len = strcspn(p, ",");
	if (len >= cap)
		len = cap - 1;
	memcpy(buf, p, len);
	buf[len] = 0;
	return 1;
}

static int count_fields(const char *list)
{
	int n = 1;
	for (const char *p = list; *p; p++)
		n += *p == ',';
	return n;
}

void axl__lim_memory_min(struct axl__lim_dev *d, int64_t v)
{
	if (v >= 0 && (d->memory < 0 || v < d->memory))
		d->memory = v;
}

void axl__lim_compute_min(struct axl__lim_dev *d, int v)
{
	if (v >= 0 && (d->compute < 0 || v < d->compute))
		d->compute = v;
}

/* AXL_LIMIT_* (axl limit env, version 1) for device i, of any side */
void axl__lim_limits_axl(int i, struct axl__lim_dev *d)
{
	const char *devs = getenv("AXL_LIMIT_DEVICES");
	if (!devs || !*devs)
		return;
	const char *ver = getenv("AXL_LIMIT_VERSION");
	const char *mem = getenv("AXL_LIMIT_MEMORY_BYTES");
	const char *cpu = getenv("AXL_LIMIT_COMPUTE_PERCENT");
	int n = count_fields(devs);
	if (!ver || strcmp(ver, "1")) {
		if (i == 0)
			axl__lim_log(AXL__LOG_ERROR,
				     "AXL_LIMIT_VERSION=%s: only version 1 is known; allocations refused",
				     ver ? ver : "(unset)");
		d->broken = 1;
		return;
	}
	if ((mem && count_fields(mem) != n) || (cpu && count_fields(cpu) != n)) {
		if (i == 0)
			axl__lim_log(AXL__LOG_ERROR,
				     "AXL_LIMIT_MEMORY_BYTES / AXL_LIMIT_COMPUTE_PERCENT do not have %d entries like "
				     "AXL_LIMIT_DEVICES; allocations refused", n);
		d->broken = 1;
		return;
	}
	char key[AXL__REGION_UUID_MAX], val[64];
	for (int j = 0; j < n; j++) {
		field(devs, j, key, sizeof key);
		if (strcasecmp(key, d->uuid))
			continue;
		if (mem && field(mem, j, val, sizeof val) && strcmp(val, "none")) {
			char *end;
			unsigned long long v = strtoull(val, &end, 10);
			if (!isdigit((unsigned char)val[0]) || *end || v == 0 || v > INT64_MAX) {
				axl__lim_log(AXL__LOG_ERROR,
					     "AXL_LIMIT_MEMORY_BYTES entry %d '%s' (device %d, %s) is not a "
					     "positive number of bytes; allocations on it refused",
					     j, val, i, d->uuid);
				d->broken = 1;
			} else {
				axl__lim_memory_min(d, (int64_t)v);
			}
		}
		if (cpu && field(cpu, j, val, sizeof val) && strcmp(val, "none")) {
			char *end;
			long v = strtol(val, &end, 10);
			if (!isdigit((unsigned char)val[0]) || *end || v < 1 || v > 100)
				axl__lim_log(AXL__LOG_ERROR,
					     "AXL_LIMIT_COMPUTE_PERCENT entry %d '%s' is not 1..100; ignored", j, val);
			else
				axl__lim_compute_min(d, (int)v);
		}
	}
}

struct axl__lim_state *axl__lim_state_load(const char *side)
{
	struct axl__lim_state *st = malloc(sizeof *st);
	if (!st) {
		axl__lim_log(AXL__LOG_ERROR, "%s: out of memory reading the state directory's limits; allocations "
			     "refused", side);
		return NULL;
	}
	if (axl__lim_state_read(st) != 0)
		axl__lim_log(AXL__LOG_ERROR, "%s: %s; allocations refused on every device (fix or remove the file, "
			     "or axl limit clear)", side, st->msg);
	else if (st->n || st->no_uuid)
		axl__lim_log(AXL__LOG_INFO, "%s: %d limit(s) by UUID from %s%s", side, st->n, st->path,
			     st->no_uuid ? " (records without a UUID are not matched)" : "");
	return st;
}

void axl__lim_limits_state(const struct axl__lim_state *st, struct axl__lim_dev *d)
{
	if (!st || st->broken) {
		d->broken = 1;
		return;
	}
	for (int k = 0; k < st->n; k++)
		if (!strcasecmp(st->rec[k].uuid, d->uuid)) {
			axl__lim_memory_min(d, st->rec[k].memory);
			axl__lim_compute_min(d, st->rec[k].compute);
		}
}

void axl__lim_region_attach(axl__region **out, struct axl__lim_dev *devs, const struct axl__region_limit *lims,
			    int n, const char *side)
{
	char path[4096];
	const char *rp = getenv("AXL_LIMITER_REGION");
	snprintf(path, sizeof path, "%s", rp && *rp ? rp : "(the state directory's)");
	int rc = rp && *rp ? 0 : axl__region_default_path(path, sizeof path);
	if (rc == 0)
		rc = axl__region_open(out, path, lims, n);
	if (rc != 0) {
		axl__lim_log(AXL__LOG_ERROR, "cannot attach the shared region %s (error %d); allocations on limited "
			     "%s devices refused", path, rc, side);
		*out = NULL;
		for (int i = 0; i < n; i++)
			if (devs[i].memory >= 0)
				devs[i].broken = 1;
		return;
	}
	for (int i = 0; i < n; i++) {
		int k = devs[i].uuid[0] ? axl__region_find(*out, devs[i].uuid) : -1;
		devs[i].rdev = k >= 0 ? k : -1;
		if (k < 0 && devs[i].memory >= 0) {
			axl__lim_log(AXL__LOG_ERROR,
				     "%s device %d %s is not in the region %s; allocations on it refused", side, i,
				     devs[i].uuid, path);
			devs[i].broken = 1;
		}
	}
}
