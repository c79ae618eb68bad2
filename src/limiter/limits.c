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

#define SET_DEVICES "AXL_LIMIT_DEVICES"
#define SET_MEMORY  "AXL_LIMIT_MEMORY_BYTES"
#define SET_COMPUTE "AXL_LIMIT_COMPUTE_PERCENT"

/* getenv of base followed by sfx ("" or "_<SET>") */
static const char *env_sfx(const char *base, const char *sfx)
{
	char name[256];
	if ((size_t)snprintf(name, sizeof name, "%s%s", base, sfx) >= sizeof name)
		return NULL;
	return getenv(name);
}

/* One set of lists (AXL_LIMIT_DEVICES<sfx>, AXL_LIMIT_MEMORY_BYTES<sfx>,
 * AXL_LIMIT_COMPUTE_PERCENT<sfx>) for device i: the smallest of its entries for d's UUID
 * into *mem and *cpu (-1: none; *mem_none, *cpu_none: an entry says `none`). A broken
 * set breaks d. */
static void set_limits(int i, struct axl__lim_dev *d, const char *sfx, const char *devs, int64_t *mem, int *cpu,
		       int *mem_none, int *cpu_none)
{
	const char *ml = env_sfx(SET_MEMORY, sfx), *cl = env_sfx(SET_COMPUTE, sfx);
	int n = count_fields(devs);
	*mem = -1;
	*cpu = -1;
	*mem_none = *cpu_none = 0;
	if ((ml && count_fields(ml) != n) || (cl && count_fields(cl) != n)) {
		if (i == 0)
			axl__lim_log(AXL__LOG_ERROR,
				     SET_MEMORY "%s / " SET_COMPUTE "%s do not have %d entries like " SET_DEVICES
				     "%s; allocations refused", sfx, sfx, n, sfx);
		d->broken = 1;
		return;
	}
	char key[AXL__REGION_UUID_MAX], val[64];
	for (int j = 0; j < n; j++) {
		field(devs, j, key, sizeof key);
		if (strcasecmp(key, d->uuid))
			continue;
		if (ml && field(ml, j, val, sizeof val) && strcmp(val, "none")) {
			char *end;
			unsigned long long v = strtoull(val, &end, 10);
			if (!isdigit((unsigned char)val[0]) || *end || v == 0 || v > INT64_MAX) {
				axl__lim_log(AXL__LOG_ERROR,
					     SET_MEMORY "%s entry %d '%s' (device %d, %s) is not a positive number of "
					     "bytes; allocations on it refused", sfx, j, val, i, d->uuid);
				d->broken = 1;
			} else if (*mem < 0 || (int64_t)v < *mem) {
				*mem = (int64_t)v;
			}
		} else if (ml) {
			*mem_none = 1;
		}
		if (cl && field(cl, j, val, sizeof val) && strcmp(val, "none")) {
			char *end;
			long v = strtol(val, &end, 10);
			if (!isdigit((unsigned char)val[0]) || *end || v < 1 || v > 100)
				axl__lim_log(AXL__LOG_ERROR, SET_COMPUTE "%s entry %d '%s' is not 1..100; ignored", sfx,
					     j, val);
			else if (*cpu < 0 || v < *cpu)
				*cpu = (int)v;
		} else if (cl) {
			*cpu_none = 1;
		}
	}
}

/* AXL_LIMIT_* (axl limit env, version 1) for device i, of any side: the set without a
 * suffix, and each set AXL_LIMIT_DEVICES_<SET> with its AXL_LIMIT_MEMORY_BYTES_<SET> and
 * AXL_LIMIT_COMPUTE_PERCENT_<SET> (one per DRA claim with shares: docs/limits.md). The sets
 * with a suffix are grants that add up on a device (two claims' shares of it in one
 * container: their sum; a set naming it with `none`: no such limit from these); the
 * smallest of that sum and the set without a suffix applies. */
extern char **environ;

int axl__lim_env_named(void)
{
	const char *plain = getenv(SET_DEVICES);
	int any = plain && *plain;
	for (char **e = environ; e && *e && !any; e++) {
		const char *eq = strchr(*e, '=');
		any = !strncmp(*e, SET_DEVICES "_", sizeof SET_DEVICES) && eq && eq[1];
	}
	return any;
}

void axl__lim_limits_axl(int i, struct axl__lim_dev *d)
{
	const char *plain = getenv(SET_DEVICES);
	if (!axl__lim_env_named())
		return;
	const char *ver = getenv("AXL_LIMIT_VERSION");
	if (!ver || strcmp(ver, "1")) {
		if (i == 0)
			axl__lim_log(AXL__LOG_ERROR,
				     "AXL_LIMIT_VERSION=%s: only version 1 is known; allocations refused",
				     ver ? ver : "(unset)");
		d->broken = 1;
		return;
	}
	int64_t mem;
	int cpu, none, cnone;
	if (plain && *plain) {
		set_limits(i, d, "", plain, &mem, &cpu, &none, &cnone);
		axl__lim_memory_min(d, mem);
		axl__lim_compute_min(d, cpu);
	}
	int64_t sum_mem = -1;
	int sum_cpu = -1, mem_none = 0, cpu_none = 0, named = 0;
	for (char **e = environ; e && *e; e++) {
		const char *eq = strchr(*e, '=');
		if (strncmp(*e, SET_DEVICES "_", sizeof SET_DEVICES) || !eq || !eq[1])
			continue;
		char sfx[128];
		size_t len = (size_t)(eq - *e) - (sizeof SET_DEVICES - 1);
		if (len >= sizeof sfx)
			continue;
		memcpy(sfx, *e + sizeof SET_DEVICES - 1, len);
		sfx[len] = 0;
		set_limits(i, d, sfx, eq + 1, &mem, &cpu, &none, &cnone);
		named |= mem >= 0 || cpu >= 0 || none || cnone;
		mem_none |= none;
		cpu_none |= cnone;
		if (mem >= 0)
			sum_mem = sum_mem < 0 ? mem : (mem > INT64_MAX - sum_mem ? INT64_MAX : sum_mem + mem);
		if (cpu >= 0)
			sum_cpu = sum_cpu < 0 ? cpu : (sum_cpu + cpu > 100 ? 100 : sum_cpu + cpu);
	}
	if (named && !mem_none)
		axl__lim_memory_min(d, sum_mem);
	if (named && !cpu_none)
		axl__lim_compute_min(d, sum_cpu);
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
