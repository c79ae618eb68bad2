/* SPDX-License-Identifier: MIT */
/* `axl dra-plugin --shares N` as consumable capacity (shares.h). */
#define _GNU_SOURCE
#include "shares.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../util/file.h"
#include "../../util/json.h"
#include "../../util/jsonr.h"
#include "../../util/strbuf.h"
#include "../kubernetes/limiter.h"
#include "slices.h"

#define MIB         (1LL << 20)
#define CDI_VERSION "0.5.0"

static int n_shares = 1;

void dra_shares_set(int n)
{
	n_shares = n < 1 ? 1 : n > DRA_SHARES_MAX ? DRA_SHARES_MAX : n;
}

int dra_shares_get(void)
{
	return n_shares;
}

int dra_share_policy(long long mem_total, int n, struct dra_share_dev *out)
{
	memset(out, 0, sizeof *out);
	if (n < 2 || n > DRA_SHARES_MAX || mem_total <= 0)
		return -1;
	long long s = mem_total / n / MIB * MIB; /* a MiB multiple: "20Gi", not a byte count */
	if (s < MIB)
		return -1;
	out->mem = (struct dra_cap_policy){ mem_total, s, s, s * n, s };
	long long p = 100 / n;
	out->compute = (struct dra_cap_policy){ 100, p, p, p * n, p };
	return 0;
}

/* d shared: --shares above 1, memory known, a limiter that holds its compute API */
static int shared(const axl_device *d, long long mem_total, struct dra_share_dev *pol)
{
	const axl_device *top = axl_device_parent(d) ? axl_device_parent(d) : d;
	const struct axl_runtime *rt = axl_device_runtime(top);
	if (!rt || !(rt->flags & AXL_RUNTIME_PRELOAD_LIMITS))
		return 0;
	return dra_share_policy(mem_total, n_shares, pol) == 0;
}

int dra_share_capacity_count(const axl_device *d, long long mem_total)
{
	struct dra_share_dev pol;
	return shared(d, mem_total, &pol) ? 2 : mem_total > 0;
}

static void quantity(struct axl__json *w, const char *key, long long v)
{
	char q[48];
	dra_quantity(v, q, sizeof q);
	axl__json_kstr(w, key, q);
}

static void capacity(struct axl__json *w, const char *name, const struct dra_cap_policy *p)
{
	axl__json_key(w, name);
	axl__json_obj(w);
	quantity(w, "value", p->value);
	axl__json_key(w, "requestPolicy");
	axl__json_obj(w);
	quantity(w, "default", p->def);
	axl__json_key(w, "validRange");
	axl__json_obj(w);
	quantity(w, "min", p->min);
	quantity(w, "max", p->max);
	quantity(w, "step", p->step);
	axl__json_obj_end(w);
	axl__json_obj_end(w);
	axl__json_obj_end(w);
}

int dra_share_device_json(struct axl__json *w, const axl_device *d, long long mem_total)
{
	struct dra_share_dev pol;
	if (shared(d, mem_total, &pol)) {
		axl__json_kbool(w, "allowMultipleAllocations", true);
		axl__json_key(w, "capacity");
		axl__json_obj(w);
		capacity(w, DRA_SHARE_MEMORY, &pol.mem);
		capacity(w, DRA_SHARE_COMPUTE, &pol.compute);
		axl__json_obj_end(w);
		return 2;
	}
	if (mem_total <= 0)
		return 0;
	axl__json_key(w, "capacity");
	axl__json_obj(w);
	axl__json_key(w, DRA_SHARE_MEMORY);
	axl__json_obj(w);
	quantity(w, "value", mem_total);
	axl__json_obj_end(w);
	axl__json_obj_end(w);
	return 1;
}

/* ---- reading quantities ---------------------------------------------------------------- */

int dra_quantity_parse(const char *s, long long *out)
{
	static const struct {
		const char *suf;
		long double mul;
	} sfx[] = { { "Ki", 0x1p10L }, { "Mi", 0x1p20L }, { "Gi", 0x1p30L }, { "Ti", 0x1p40L }, { "Pi", 0x1p50L },
		    { "Ei", 0x1p60L }, { "n", 1e-9L },    { "u", 1e-6L },    { "m", 1e-3L },    { "k", 1e3L },
		    { "M", 1e6L },     { "G", 1e9L },     { "T", 1e12L },    { "P", 1e15L },    { "E", 1e18L } };
	if (!s || !*s || strlen(s) > 64)
		return -1;
	const char *p = s;
	if (*p == '+')
		p++;
	size_t nd = strspn(p, "0123456789");
	const char *q = p + nd;
	size_t nf = 0;
	if (*q == '.') {
		nf = strspn(q + 1, "0123456789");
		q += 1 + nf;
	}
	if (nd + nf == 0)
		return -1;
	char num[80];
	snprintf(num, sizeof num, "%.*s", (int)(q - p), p);
	long double v = strtold(num, NULL), mul = 1;
	if (*q == 'e' || *q == 'E') {
		if (q[1] && strspn(q + 1 + (q[1] == '+' || q[1] == '-'), "0123456789") ==
				strlen(q + 1 + (q[1] == '+' || q[1] == '-'))) {
			mul = powl(10, strtold(q + 1, NULL));
			q += strlen(q);
		}
	}
	if (*q) {
		size_t k = 0;
		while (k < sizeof sfx / sizeof sfx[0] && strcmp(q, sfx[k].suf) != 0)
			k++;
		if (k == sizeof sfx / sizeof sfx[0])
			return -1;
		mul = sfx[k].mul;
	}
	v = ceill(v * mul);
	if (!(v >= 0) || v > 0x1p62L)
		return -1;
	*out = (long long)v;
	return 0;
}

/* ---- the kubelet's side --------------------------------------------------------------- */

/* a capacity of a Device object's "capacity" with its request policy */
static int read_cap(const struct axl__jv *caps, const char *name, struct dra_cap_policy *p)
{
	const struct axl__jv *c = axl__jv_get(caps, name), *pol = axl__jv_get(c, "requestPolicy");
	const struct axl__jv *rng = axl__jv_get(pol, "validRange");
	return dra_quantity_parse(axl__jv_str(c, "value"), &p->value) == 0 &&
		       dra_quantity_parse(axl__jv_str(pol, "default"), &p->def) == 0 &&
		       dra_quantity_parse(axl__jv_str(rng, "min"), &p->min) == 0 &&
		       dra_quantity_parse(axl__jv_str(rng, "max"), &p->max) == 0 &&
		       dra_quantity_parse(axl__jv_str(rng, "step"), &p->step) == 0
		   ? 0
		   : -1;
}

int dra_share_read_device(const struct axl__jv *dev, struct dra_share_dev *out)
{
	memset(out, 0, sizeof *out);
	const struct axl__jv *multi = axl__jv_get(dev, "allowMultipleAllocations");
	if (!multi || multi->type != AXL__J_BOOL || !multi->b)
		return 0;
	const struct axl__jv *caps = axl__jv_get(dev, "capacity");
	if (read_cap(caps, DRA_SHARE_MEMORY, &out->mem) != 0 || read_cap(caps, DRA_SHARE_COMPUTE, &out->compute) != 0)
		return 0;
	const char *uuid = axl__jv_str(axl__jv_get(axl__jv_get(dev, "attributes"), "uuid"), "string");
	snprintf(out->uuid, sizeof out->uuid, "%s", uuid ? uuid : "");
	return 1;
}

/* one capacity of a result: its consumed quantity, or the default */
static int consumed_one(const struct axl__jv *consumed, const char *name, const struct dra_cap_policy *p,
			const char *unit, long long *v, char *err, size_t cap)
{
	const struct axl__jv *q = axl__jv_get(consumed, name);
	if (!q) {
		*v = p->def; /* calculateConsumedCapacity's fillEmptyRequest */
		return 0;
	}
	if (q->type != AXL__J_STR || dra_quantity_parse(q->s, v) != 0) {
		snprintf(err, cap, "consumedCapacity %s is not a quantity", name);
		return -1;
	}
	if (*v <= 0) {
		snprintf(err, cap, "consumedCapacity %s is %s: nothing to hold the claim to", name, q->s);
		return -1;
	}
	if (*v > p->value) {
		snprintf(err, cap, "consumedCapacity %s %s (%lld%s) is more than the device has (%lld%s)", name, q->s,
			 *v, unit, p->value, unit);
		return -1;
	}
	return 0;
}

int dra_share_consumed(const struct dra_share_dev *d, const struct axl__jv *consumed, long long *mem, long long *pct,
		       char *err, size_t cap)
{
	if (consumed && consumed->type != AXL__J_OBJ) {
		snprintf(err, cap, "consumedCapacity is not an object");
		return -1;
	}
	if (consumed_one(consumed, DRA_SHARE_MEMORY, &d->mem, " bytes", mem, err, cap) != 0 ||
	    consumed_one(consumed, DRA_SHARE_COMPUTE, &d->compute, "%", pct, err, cap) != 0)
		return -1;
	return 0;
}

/* ---- the claim's CDI spec -------------------------------------------------------------- */

void dra_share_env_set(const char *uid, char *out, size_t cap)
{
	size_t k = 0;
	for (const char *q = uid; q && *q && k + 1 < cap; q++)
		out[k++] = (char)(isalnum((unsigned char)*q) ? toupper((unsigned char)*q) : '_');
	out[k] = 0;
}

static int spec_path(const struct dra_share_cfg *c, const char *uid, char *out, size_t cap)
{
	/* a claim's UID is a UUID; anything else is not made a file name */
	if (!c->cdi_dir || !c->driver || !uid || !*uid || strlen(uid) > 64 ||
	    strspn(uid, "abcdefghijklmnopqrstuvwxyz0123456789-") != strlen(uid))
		return -1;
	int n = snprintf(out, cap, "%s/%s-claim-%s.json", c->cdi_dir, c->driver, uid);
	return n > 0 && (size_t)n < cap ? 0 : -1;
}

int dra_share_spec_write(const struct dra_share_cfg *c, const char *uid, const struct dra_share_use *u, size_t n,
			 char *id, size_t idcap, char *err, size_t cap)
{
	char path[4096];
	if (spec_path(c, uid, path, sizeof path) != 0) {
		snprintf(err, cap, "claim uid %s cannot name a CDI spec", uid ? uid : "");
		return -1;
	}
	if (!c->limiter) {
		snprintf(err, cap, "no limiter to hold the share with");
		return -1;
	}
	struct axl__sb devs = AXL__SB_INIT, mem = AXL__SB_INIT, pct = AXL__SB_INIT;
	for (size_t i = 0; i < n; i++) {
		const char *sep = i ? "," : "";
		axl__sb_printf(&devs, "%s%s", sep, u[i].uuid);
		axl__sb_printf(&mem, "%s%lld", sep, u[i].mem);
		axl__sb_printf(&pct, "%s%lld", sep, u[i].pct < 1 ? 1 : u[i].pct > 100 ? 100 : u[i].pct);
	}
	char kind[300], name[128];
	snprintf(kind, sizeof kind, "%s/claim", c->driver);
	snprintf(name, sizeof name, "%s-shares", uid);
	struct axl__sb sb = AXL__SB_INIT;
	struct axl__json w;
	axl__json_init(&w, &sb, true);
	axl__json_obj(&w);
	axl__json_kstr(&w, "cdiVersion", CDI_VERSION);
	axl__json_kstr(&w, "kind", kind);
	axl__json_key(&w, "devices");
	axl__json_arr(&w);
	axl__json_obj(&w);
	axl__json_kstr(&w, "name", name);
	axl__json_key(&w, "containerEdits");
	axl__json_obj(&w);
	axl__json_key(&w, "env");
	axl__json_arr(&w);
	char line[8192];
	if (!c->preload)
		axl__json_str(&w, "LD_PRELOAD=" KP_LIMITER_PATH);
	/* the claim's own set of lists (docs/limits.md), named after its UID: a container given
	 * two claims' shares gets both sets (a runtime applying CDI edits keeps the last value
	 * of a name), and the limiter adds them up on a device */
	char set[80];
	dra_share_env_set(uid, set, sizeof set);
	axl__json_str(&w, "AXL_LIMIT_VERSION=1");
	snprintf(line, sizeof line, "AXL_LIMIT_DEVICES_%s=%s", set, axl__sb_str(&devs));
	axl__json_str(&w, line);
	snprintf(line, sizeof line, "AXL_LIMIT_MEMORY_BYTES_%s=%s", set, axl__sb_str(&mem));
	axl__json_str(&w, line);
	snprintf(line, sizeof line, "AXL_LIMIT_COMPUTE_PERCENT_%s=%s", set, axl__sb_str(&pct));
	axl__json_str(&w, line);
	axl__json_arr_end(&w);
	axl__json_key(&w, "mounts");
	axl__json_arr(&w);
	for (int k = 0; k < (c->preload ? 2 : 1); k++) {
		axl__json_obj(&w);
		axl__json_kstr(&w, "hostPath", k ? c->preload : c->limiter);
		axl__json_kstr(&w, "containerPath", k ? KP_PRELOAD_LIST : KP_LIMITER_PATH);
		axl__json_key(&w, "options");
		axl__json_arr(&w);
		axl__json_str(&w, "ro");
		axl__json_str(&w, "nosuid");
		axl__json_str(&w, "nodev");
		axl__json_str(&w, "bind");
		axl__json_arr_end(&w);
		axl__json_obj_end(&w);
	}
	axl__json_arr_end(&w);
	axl__json_obj_end(&w);
	axl__json_obj_end(&w);
	axl__json_arr_end(&w);
	axl__json_obj_end(&w);
	axl__sb_free(&devs);
	axl__sb_free(&mem);
	axl__sb_free(&pct);
	if (w.overflow)
		sb.failed = true;
	size_t len = 0;
	char *text = axl__sb_steal(&sb, &len);
	if (!text) {
		snprintf(err, cap, "out of memory");
		return -1;
	}
	int rc = axl__file_replace(path, text, len, 0644);
	free(text);
	if (rc != 0) {
		snprintf(err, cap, "cannot write the claim's CDI spec %s: %s", path, strerror(-rc));
		return -1;
	}
	snprintf(id, idcap, "%s=%s", kind, name);
	return 0;
}

int dra_share_spec_remove(const struct dra_share_cfg *c, const char *uid, char *err, size_t cap)
{
	char path[4096];
	if (spec_path(c, uid, path, sizeof path) != 0)
		return 0; /* no spec could have been written for it */
	if (unlink(path) != 0 && errno != ENOENT) {
		snprintf(err, cap, "cannot remove the claim's CDI spec %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}
