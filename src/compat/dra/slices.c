/* SPDX-License-Identifier: MIT */
/* The node's accelerators as resource.k8s.io/v1 Device objects (slices.h). */
#define _GNU_SOURCE
#include <ctype.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../util/json.h"
#include "../kubernetes/islands.h"
#include "shares.h"
#include "slices.h"

#define STD_DOMAIN "resource.kubernetes.io/"

void dra_dns_label(const char *s, char *out, size_t cap)
{
	size_t o = 0, most = cap - 1 < 63 ? cap - 1 : 63;
	for (; *s && o < most; s++) {
		unsigned char c = (unsigned char)*s;
		char d = isalnum(c) ? (char)tolower(c) : '-';
		if (d == '-' && (o == 0 || out[o - 1] == '-'))
			continue;
		out[o++] = d;
	}
	while (o > 0 && out[o - 1] == '-')
		o--;
	out[o] = 0;
}

/* the driver's version as semver: up to three numbers, leading zeros dropped; false when
 * it does not start with a number */
static bool semver(const char *s, char *out, size_t cap)
{
	unsigned long long n[3] = { 0, 0, 0 };
	int k = 0;
	while (k < 3 && isdigit((unsigned char)*s)) {
		char *end;
		n[k++] = strtoull(s, &end, 10);
		s = end;
		if (*s != '.')
			break;
		s++;
	}
	if (!k)
		return false;
	snprintf(out, cap, "%llu.%llu.%llu", n[0], n[1], n[2]);
	return true;
}

/* A string value cut to DeviceAttributeMaxValueLength bytes, at a UTF-8 boundary. */
static void cut(const char *s, char *out)
{
	size_t n = strlen(s);
	if (n > DRA_MAX_VALUE) {
		n = DRA_MAX_VALUE;
		while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
	}
	memcpy(out, s, n);
	out[n] = 0;
}

/* "pci0000:00": the root complex above the PCI function addr in <root>/sys, as
 * deviceattribute.GetPCIeRootAttributeByPCIBusID finds it (the first component of the
 * device's resolved sysfs path under /sys/devices). */
static bool pcie_root(const char *root, const char *addr, char *out, size_t cap)
{
	char link[PATH_MAX], target[PATH_MAX];
	snprintf(link, sizeof link, "%s/sys/bus/pci/devices/%s", strcmp(root, "/") == 0 ? "" : root, addr);
	ssize_t n = readlink(link, target, sizeof target - 1);
	if (n <= 0)
		return false;
	target[n] = 0;
	const char *p = strstr(target, "devices/pci");
	if (!p)
		return false;
	p += strlen("devices/");
	size_t len = strcspn(p, "/");
	if (len + 1 > cap || len < 4)
		return false;
	memcpy(out, p, len);
	out[len] = 0;
	return true;
}

struct attrs {
	struct axl__json *w;
	int n;
};

static void a_str(struct attrs *a, const char *name, const char *v)
{
	if (!v || !*v)
		return;
	char buf[DRA_MAX_VALUE + 1];
	cut(v, buf);
	axl__json_key(a->w, name);
	axl__json_obj(a->w);
	axl__json_kstr(a->w, "string", buf);
	axl__json_obj_end(a->w);
	a->n++;
}

static void a_int(struct attrs *a, const char *name, long long v)
{
	axl__json_key(a->w, name);
	axl__json_obj(a->w);
	axl__json_kint(a->w, "int", v);
	axl__json_obj_end(a->w);
	a->n++;
}

static void a_bool(struct attrs *a, const char *name, bool v)
{
	axl__json_key(a->w, name);
	axl__json_obj(a->w);
	axl__json_kbool(a->w, "bool", v);
	axl__json_obj_end(a->w);
	a->n++;
}

static void a_version(struct attrs *a, const char *name, const char *v)
{
	axl__json_key(a->w, name);
	axl__json_obj(a->w);
	axl__json_kstr(a->w, "version", v);
	axl__json_obj_end(a->w);
	a->n++;
}

int dra_devices_json(const axl_inventory *inv, const char *sysroot, dra_note_fn note, void *ud, char **out, char *err,
		     size_t cap)
{
	struct dra_pool_opts o = { sysroot, NULL, NULL, NULL, note, ud, DRA_PARTITIONS_LIST };
	return dra_pool_json(inv, &o, out, err, cap);
}

size_t dra_pool_device_count(const axl_inventory *inv)
{
	size_t n = axl_inventory_device_count(inv), m = n;
	for (size_t i = 0; i < n; i++)
		m += axl_device_child_count(axl_inventory_device(inv, i));
	return m;
}

const axl_device *dra_pool_device(const axl_inventory *inv, size_t i)
{
	size_t n = axl_inventory_device_count(inv);
	if (i < n)
		return axl_inventory_device(inv, i);
	i -= n;
	for (size_t t = 0; t < n; t++) {
		const axl_device *d = axl_inventory_device(inv, t);
		if (i < axl_device_child_count(d))
			return axl_device_child(d, i);
		i -= axl_device_child_count(d);
	}
	return NULL;
}

/* RFC 3339 in UTC, as metav1.Time is written */
static void rfc3339(long long t, char *out, size_t cap)
{
	time_t tt = (time_t)t;
	struct tm tm;
	if (gmtime_r(&tt, &tm))
		strftime(out, cap, "%Y-%m-%dT%H:%M:%SZ", &tm);
	else
		snprintf(out, cap, "1970-01-01T00:00:00Z");
}

/* One device to publish: a top-level device of the inventory, or a partition of one. */
struct ent {
	const axl_device *d;
	size_t top; /* the index of its top-level device */
	bool part;  /* a partition */
	bool whole; /* in the devices without counters: a device its partitions do not replace, or
		     * a partition that replaces its device */
	bool shown; /* in the devices with counters: all but a device its partitions replace */
	char name[64];
};

/* The counter set of a top-level device with partitions: named after the device; each
 * counter's value is the whole device's. memory and cus < 0: not a counter. */
struct cset {
	long long parts, memory, cus;
};

struct build {
	const axl_inventory *inv;
	const struct dra_pool_opts *o;
	struct axl__json *w;
	struct ent *e;
	size_t ne, ntop;
	int *isl;
	const char **ikind;
	struct cset *cs; /* per top-level device; parts 0: none */
	bool quiet;      /* said once already (the whole devices, written twice) */
};

static long long mem_of(const axl_device *d)
{
	int64_t v;
	return axl_device_get_int(d, AXL_ATTR_MEMORY_TOTAL, &v) == 0 && v > 0 ? v : -1;
}

static long long cus_of(const axl_device *d)
{
	if (axl_device_compute_unit_count(d) == 0 || axl_device_compute_unit(d, 0)->count <= 0)
		return -1;
	return axl_device_compute_unit(d, 0)->count;
}

static void counter(struct axl__json *w, const char *name, long long v, bool bytes)
{
	char q[48];
	if (bytes)
		dra_quantity(v, q, sizeof q);
	else
		snprintf(q, sizeof q, "%lld", v);
	axl__json_key(w, name);
	axl__json_obj(w);
	axl__json_kstr(w, "value", q);
	axl__json_obj_end(w);
}

/* The counters of set cs that a device takes: all of them (the whole device), or one
 * partition's share */
static void counters(struct axl__json *w, const struct cset *cs, long long parts, long long memory, long long cus)
{
	axl__json_obj(w);
	counter(w, DRA_COUNTER_PARTITIONS, parts, false);
	if (cs->memory > 0)
		counter(w, DRA_COUNTER_MEMORY, memory, true);
	if (cs->cus > 0)
		counter(w, DRA_COUNTER_COMPUTE_UNITS, cus, false);
	axl__json_obj_end(w);
}

static void device_obj(struct build *b, const struct ent *en, bool with_counters)
{
	struct axl__json *w = b->w;
	const struct dra_pool_opts *o = b->o;
	const axl_device *d = en->d;
	const char *s;
	int64_t v;
	axl__json_obj(w);
	axl__json_kstr(w, "name", en->name);
	axl__json_key(w, "attributes");
	axl__json_obj(w);
	struct attrs a = { w, dra_share_capacity_count(d, mem_of(d)) }; /* the capacities count too */
	if (axl_device_get_str(d, AXL_ATTR_VENDOR, &s) == 0)
		a_str(&a, "vendor", s);
	if (axl_device_get_str(d, AXL_ATTR_MODEL, &s) == 0)
		a_str(&a, "model", s);
	if (axl_device_get_str(d, AXL_ATTR_ARCHITECTURE, &s) == 0)
		a_str(&a, "architecture", s);
	if (axl_device_family(d) != AXL_FAMILY_UNKNOWN)
		a_str(&a, "family", axl_family_name(axl_device_family(d)));
	if (axl_device_get_str(d, AXL_ATTR_UUID, &s) == 0)
		a_str(&a, "uuid", s);
	char ver[96];
	if (axl_device_get_str(d, AXL_ATTR_DRIVER_VERSION, &s) == 0 && semver(s, ver, sizeof ver))
		a_version(&a, "driverVersion", ver);
	if (axl_device_get_int(d, AXL_ATTR_INDEX, &v) == 0)
		a_int(&a, "index", v);
	if (cus_of(d) > 0)
		a_int(&a, "computeUnits", cus_of(d));
	if (axl_device_get_int(d, AXL_ATTR_NUMA_NODE, &v) == 0 && v >= 0)
		a_int(&a, STD_DOMAIN "numaNode", v);
	if (b->isl[en->top] >= 0) {
		a_int(&a, "island", b->isl[en->top]);
		a_str(&a, "interconnect", b->ikind[en->top]);
	}
	if (en->part) { /* which device it is a part of, and its profile or mode */
		a_str(&a, "parent", b->e[en->top].name);
		if (axl_device_get_str(d, AXL_ATTR_PARTITION_PROFILE, &s) == 0)
			a_str(&a, "profile", s);
	}
	if (axl_device_get_str(d, AXL_ATTR_PCI_ADDRESS, &s) == 0 && *s) {
		a_str(&a, STD_DOMAIN "pciBusID", s);
		char rootc[64];
		if (o->sysroot && pcie_root(o->sysroot, s, rootc, sizeof rootc))
			a_str(&a, STD_DOMAIN "pcieRoot", rootc);
	}
	/* the number formats last: what the budget of 32 leaves room for */
	size_t left_out = 0;
	for (size_t k = 0; k < axl_device_precision_count(d); k++) {
		const struct axl_precision *pr = axl_device_precision(d, k);
		const char *f = axl_format_name(pr->format);
		if (!f || pr->support == AXL_SUPPORT_UNKNOWN)
			continue;
		if (a.n >= DRA_MAX_ATTRS) {
			left_out++;
			continue;
		}
		char id[32];
		size_t i = 0;
		for (; f[i] && i < sizeof id - 1; i++)
			id[i] = isalnum((unsigned char)f[i]) ? (char)tolower((unsigned char)f[i]) : '_';
		id[i] = 0;
		a_bool(&a, id, pr->support == AXL_SUPPORT_NATIVE);
	}
	axl__json_obj_end(w);
	if (left_out && o->note && !b->quiet) {
		char msg[256];
		snprintf(msg, sizeof msg, "%s: %zu number format%s left out (at most %d attributes and capacities)",
			 en->name, left_out, left_out == 1 ? "" : "s", DRA_MAX_ATTRS);
		o->note(o->ud, msg);
	}
	dra_share_device_json(w, d, mem_of(d)); /* memory, and under --shares compute too (shares.c) */
	const struct cset *cs = &b->cs[en->top];
	if (with_counters && cs->parts > 0) {
		/* the whole device takes every counter of its set, a partition its share: the
		 * scheduler never gives out a device and a partition of it together */
		axl__json_key(w, "consumesCounters");
		axl__json_arr(w);
		axl__json_obj(w);
		axl__json_kstr(w, "counterSet", b->e[en->top].name);
		axl__json_key(w, "counters");
		if (en->part)
			counters(w, cs, 1, mem_of(d), cus_of(d));
		else
			counters(w, cs, cs->parts, cs->memory, cs->cus);
		axl__json_obj_end(w);
		axl__json_arr_end(w);
	}
	struct dra_taint t = { 0 };
	if (o->taint && o->driver && o->taint(o->tud, axl_device_id(d), &t) && t.effect) {
		char key[320], when[40];
		snprintf(key, sizeof key, "%s/unhealthy", o->driver);
		rfc3339(t.added, when, sizeof when);
		axl__json_key(w, "taints");
		axl__json_arr(w);
		axl__json_obj(w);
		axl__json_kstr(w, "key", key);
		if (t.value && *t.value)
			axl__json_kstr(w, "value", t.value);
		axl__json_kstr(w, "effect", t.effect);
		axl__json_kstr(w, "timeAdded", when);
		axl__json_obj_end(w);
		axl__json_arr_end(w);
	}
	axl__json_obj_end(w);
}

/* The device's partitions replace it (AXL_RUNTIME_PARTITIONS_REPLACE: AMD's compute
 * partitions: a GPU in CPX mode is eight GPUs to its runtime and is not used whole): its
 * partitions are devices of their own in every form, and it is none, so it has no counters */
static bool replaced(const axl_device *d)
{
	const struct axl_runtime *rt = axl_device_runtime(d);
	return rt && (rt->flags & AXL_RUNTIME_PARTITIONS_REPLACE) && axl_device_child_count(d) > 0;
}

/* The counter set of top-level device i: "partitions" always (its partitions that exist
 * take one each, the whole device all), memory and compute units where the device and every
 * partition of it know theirs and the partitions' sum fits in the device (compute
 * instances of one MIG GPU instance share its memory: then memory is no counter). */
static void cset_of(struct build *b, size_t i)
{
	struct cset *cs = &b->cs[i];
	const axl_device *d = b->e[i].d;
	long long mem = 0, cus = 0;
	size_t n = axl_device_child_count(d);
	cs->parts = (long long)n;
	for (size_t k = 0; k < n; k++) {
		const axl_device *c = axl_device_child(d, k);
		mem = mem >= 0 && mem_of(c) > 0 ? mem + mem_of(c) : -1;
		cus = cus >= 0 && cus_of(c) > 0 ? cus + cus_of(c) : -1;
	}
	cs->memory = n && mem >= 0 && mem_of(d) > 0 && mem <= mem_of(d) ? mem_of(d) : -1;
	cs->cus = n && cus >= 0 && cus_of(d) > 0 && cus <= cus_of(d) ? cus_of(d) : -1;
	if (n && b->o->note && (cs->memory < 0 || cs->cus < 0)) {
		char msg[256];
		snprintf(msg, sizeof msg, "%s: %s%s%s not counted for its partitions (not known, or they share it)",
			 b->e[i].name, cs->memory < 0 ? "memory" : "", cs->memory < 0 && cs->cus < 0 ? " and " : "",
			 cs->cus < 0 ? "compute units" : "");
		b->o->note(b->o->ud, msg);
	}
}

static void sets_json(struct build *b)
{
	struct axl__json *w = b->w;
	axl__json_arr(w);
	for (size_t i = 0; i < b->ntop; i++) {
		const struct cset *cs = &b->cs[i];
		if (cs->parts <= 0)
			continue;
		axl__json_obj(w);
		axl__json_kstr(w, "name", b->e[i].name);
		axl__json_key(w, "counters");
		counters(w, cs, cs->parts, cs->memory, cs->cus);
		axl__json_obj_end(w);
	}
	axl__json_arr_end(w);
}

int dra_devices_json_taints(const axl_inventory *inv, const char *sysroot, const char *driver, dra_taint_fn taint,
			    void *tud, dra_note_fn note, void *ud, char **out, char *err, size_t cap)
{
	struct dra_pool_opts o = { sysroot, driver, taint, tud, note, ud, DRA_PARTITIONS_OFF };
	return dra_pool_json(inv, &o, out, err, cap);
}

int dra_pool_json(const axl_inventory *inv, const struct dra_pool_opts *o, char **out, char *err, size_t cap)
{
	*out = NULL;
	size_t n = axl_inventory_device_count(inv), ne = dra_pool_device_count(inv);
	struct build b = { .inv = inv, .o = o, .ne = ne, .ntop = n };
	b.isl = malloc((n ? n : 1) * sizeof *b.isl);
	b.ikind = malloc((n ? n : 1) * sizeof *b.ikind);
	b.e = calloc(ne ? ne : 1, sizeof *b.e);
	b.cs = calloc(n ? n : 1, sizeof *b.cs);
	if (!b.isl || !b.ikind || !b.e || !b.cs) {
		free(b.isl);
		free(b.ikind);
		free(b.e);
		free(b.cs);
		snprintf(err, cap, "out of memory");
		return -1;
	}
	kp_islands(inv, b.isl, b.ikind, n); /* as the device plugin groups them */
	/* the devices, then their partitions; names: axl's ids as DNS labels, made unique (a
	 * device keeps the name it has without partitions) */
	size_t m = 0;
	bool parts = false; /* counters: a device with partitions that do not replace it */
	for (size_t i = 0; i < n; i++) {
		const axl_device *d = axl_inventory_device(inv, i);
		bool repl = replaced(d), list = o->partitions == DRA_PARTITIONS_LIST;
		b.e[m++] = (struct ent){ d, i, false, !repl || list, !repl || list, "" };
		parts = parts || (!repl && axl_device_child_count(d) > 0);
	}
	for (size_t i = 0; i < n && m < ne; i++)
		for (size_t k = 0; k < axl_device_child_count(b.e[i].d) && m < ne; k++)
			b.e[m++] = (struct ent){ axl_device_child(b.e[i].d, k), i, true,
						 replaced(b.e[i].d) || o->partitions == DRA_PARTITIONS_LIST, true, "" };
	parts = parts && (o->partitions == DRA_PARTITIONS_ON || o->partitions == DRA_PARTITIONS_AUTO);
	for (size_t i = 0; i < m; i++) {
		char base[64];
		dra_dns_label(axl_device_id(b.e[i].d), base, sizeof base);
		if (!*base)
			snprintf(base, sizeof base, "device");
		snprintf(b.e[i].name, sizeof b.e[i].name, "%s", base);
		for (int k = 2;; k++) {
			bool dup = false;
			for (size_t j = 0; j < i && !dup; j++)
				dup = strcmp(b.e[j].name, b.e[i].name) == 0;
			if (!dup)
				break;
			snprintf(b.e[i].name, sizeof b.e[i].name, "%.50s-%d", base, k);
		}
	}
	for (size_t i = 0; i < n && parts; i++)
		if (!replaced(b.e[i].d))
			cset_of(&b, i);
	struct axl__sb sb = AXL__SB_INIT;
	struct axl__json w;
	axl__json_init(&w, &sb, false);
	b.w = &w;
	if (parts) { /* {"devices": [...], "sharedCounters": [...], "whole": [...]} (dra_pool_json) */
		axl__json_obj(&w);
		axl__json_key(&w, "devices");
	}
	axl__json_arr(&w);
	for (size_t i = 0; i < m; i++)
		if (parts ? b.e[i].shown : b.e[i].whole)
			device_obj(&b, &b.e[i], parts);
	axl__json_arr_end(&w);
	if (parts) {
		axl__json_key(&w, "sharedCounters");
		sets_json(&b);
		if (o->partitions == DRA_PARTITIONS_AUTO) {
			axl__json_key(&w, "whole");
			axl__json_arr(&w);
			b.quiet = true;
			for (size_t i = 0; i < m; i++)
				if (b.e[i].whole)
					device_obj(&b, &b.e[i], false);
			axl__json_arr_end(&w);
		}
		axl__json_obj_end(&w);
	}
	free(b.isl);
	free(b.ikind);
	free(b.e);
	free(b.cs);
	if (w.overflow)
		sb.failed = true;
	*out = axl__sb_steal(&sb, NULL);
	if (!*out) {
		snprintf(err, cap, "out of memory");
		return -1;
	}
	return 0;
}
