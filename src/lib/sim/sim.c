/* SPDX-License-Identifier: MIT */
/* The simulation spec ("axl.sim", docs/sim.md): reading and checking it. Every error
 * names the file, the line and the field: "node.json:4: devices[0].count: ...". */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend.h"
#include "devicedb.h"
#include "sim.h"
#include "util/file.h"
#include "util/jsonr.h"

struct pctx {
	const char *name;
	const char *text;
	size_t len;
	char *err;
	size_t errcap;
	bool newer; /* a later schema_version: keys this axl does not know are skipped */
};

static int line_of(const struct pctx *p, size_t off)
{
	int line = 1;
	for (size_t i = 0; i < off && i < p->len; i++)
		if (p->text[i] == '\n')
			line++;
	return line;
}

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static int perr(const struct pctx *p, const struct axl__jv *at, const char *field, const char *fmt, ...)
{
	if (!p->err || !p->errcap)
		return -1;
	int n = snprintf(p->err, p->errcap, "%s:%d: %s: ", p->name, line_of(p, at ? at->off : 0), field);
	if (n < 0 || (size_t)n >= p->errcap)
		return -1;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->err + n, p->errcap - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

static const char *type_name(const struct axl__jv *v)
{
	switch (v->type) {
	case AXL__J_NULL: return "null";
	case AXL__J_BOOL: return "a boolean";
	case AXL__J_NUM: return "a number";
	case AXL__J_STR: return "a string";
	case AXL__J_ARR: return "an array";
	case AXL__J_OBJ: return "an object";
	}
	return "a value";
}

/* Every key of obj must be one of allowed (NULL-terminated) and appear once; in a spec
 * of a later schema_version, a key this axl does not know is what that version added,
 * and is skipped. */
static int check_keys(const struct pctx *p, const struct axl__jv *obj, const char *prefix,
		      const char *const *allowed)
{
	char field[160];
	for (size_t i = 0; i < obj->len; i++) {
		const char *k = obj->keys[i];
		snprintf(field, sizeof field, "%s%s%.64s", prefix, *prefix ? "." : "", k);
		bool ok = false;
		for (size_t a = 0; allowed[a] && !ok; a++)
			ok = strcmp(allowed[a], k) == 0;
		if (!ok && !p->newer) {
			char list[256] = "";
			size_t o = 0;
			for (size_t a = 0; allowed[a] && o < sizeof list; a++)
				o += (size_t)snprintf(list + o, sizeof list - o, "%s%s", a ? ", " : "", allowed[a]);
			return perr(p, &obj->items[i], field, "unknown key (known: %s)", list);
		}
		for (size_t j = 0; j < i; j++)
			if (strcmp(obj->keys[j], k) == 0)
				return perr(p, &obj->items[i], field, "appears twice");
	}
	return 0;
}

/* An integer member in lo..hi; 1 when absent (and *out untouched), 0 when read, -1 on error. */
static int get_int(const struct pctx *p, const struct axl__jv *obj, const char *key, const char *field,
		   int64_t lo, int64_t hi, int64_t *out)
{
	const struct axl__jv *v = axl__jv_get(obj, key);
	if (!v)
		return 1;
	if (v->type != AXL__J_NUM || !v->is_int || v->i < lo || v->i > hi)
		return perr(p, v, field, "must be an integer %lld..%lld", (long long)lo, (long long)hi);
	*out = v->i;
	return 0;
}

/* A string member of 1..cap-1 printable characters; 1 when absent. */
static int get_str(const struct pctx *p, const struct axl__jv *obj, const char *key, const char *field,
		   char *out, size_t cap)
{
	const struct axl__jv *v = axl__jv_get(obj, key);
	if (!v)
		return 1;
	if (v->type != AXL__J_STR)
		return perr(p, v, field, "must be a string, not %s", type_name(v));
	if (v->len == 0 || v->len >= cap)
		return perr(p, v, field, "must be 1 to %zu characters", cap - 1);
	for (size_t i = 0; i < v->len; i++)
		if ((unsigned char)v->s[i] < 0x20 || v->s[i] == 0x7f)
			return perr(p, v, field, "holds a control character");
	memcpy(out, v->s, v->len + 1);
	return 0;
}

static uint64_t fnv1a(uint64_t h, const char *s)
{
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ull;
	}
	return h;
}

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* A UUID that is stable for the same model at the same place of the same spec:
 * "8-4-4-4-12" after the prefix its vendor's driver writes ("GPU-"), if any. */
static void gen_uuid(const struct axl__db_entry *e, size_t index, char *out, size_t cap)
{
	uint64_t h = fnv1a(0xcbf29ce484222325ull, axl__db_key(e));
	uint64_t a = mix(h ^ (uint64_t)index), b = mix(a ^ 0x5bd1e995ull);
	const struct axl__sim_ops *ops = axl__sim_ops_of(e);
	const char *prefix = ops && ops->uuid_prefix ? ops->uuid_prefix : "";
	snprintf(out, cap, "%s%08x-%04x-%04x-%04x-%012llx", prefix, (unsigned)(a >> 32),
		 (unsigned)(a >> 16) & 0xffff, 0x4000 | ((unsigned)a & 0x0fff),
		 0x8000 | ((unsigned)(b >> 48) & 0x3fff), (unsigned long long)(b & 0xffffffffffffull));
}

/* Up to four database names that share the most words with an unknown model. */
static void close_names(const char *model, char *out, size_t cap)
{
	out[0] = '\0';
	int best[4] = {0};
	size_t idx[4] = {0};
	for (size_t e = 0; e < axl__db_entry_count; e++) {
		int score = 0;
		const char *p = model;
		while (*p) {
			while (*p && !isalnum((unsigned char)*p))
				p++;
			const char *s = p;
			while (isalnum((unsigned char)*p))
				p++;
			size_t l = (size_t)(p - s);
			if (l >= 2) {
				char w[64];
				snprintf(w, sizeof w, "%.*s", (int)(l < 63 ? l : 63), s);
				if (strcasestr(axl__db_name(&axl__db_entries[e]), w) ||
				    strcasestr(axl__db_key(&axl__db_entries[e]), w))
					score += (int)l;
			}
		}
		for (int k = 0; k < 4; k++)
			if (score > best[k]) {
				for (int m = 3; m > k; m--) {
					best[m] = best[m - 1];
					idx[m] = idx[m - 1];
				}
				best[k] = score;
				idx[k] = e;
				break;
			}
	}
	size_t o = 0;
	for (int k = 0; k < 4 && best[k] > 0 && o < cap; k++)
		o += (size_t)snprintf(out + o, cap - o, "%s\"%s\"", k ? ", " : "",
				      axl__db_name(&axl__db_entries[idx[k]]));
}

static bool has_parts(const struct axl__db_entry *e, const char *technology)
{
	for (unsigned i = 0; technology && i < e->n_parts; i++)
		if (strcmp(axl__db_s(axl__db_parts(e)[i].s_technology), technology) == 0)
			return true;
	return false;
}

/* The vendors' words for one spec value, quoted, as a message lists them: "a", "b" or
 * "c" (each once; with last, when not NULL, at the end). */
static void word_list(char *out, size_t cap, const char *const *words, size_t n, const char *last)
{
	const char *w[AXL__BACKENDS_MAX + 1];
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		bool dup = false;
		for (size_t j = 0; j < m && !dup; j++)
			dup = strcmp(w[j], words[i]) == 0;
		if (!dup && m < AXL__BACKENDS_MAX)
			w[m++] = words[i];
	}
	if (last)
		w[m++] = last;
	size_t o = 0;
	out[0] = '\0';
	for (size_t i = 0; i < m && o < cap; i++)
		o += (size_t)snprintf(out + o, cap - o, "%s\"%s\"", i == 0 ? "" : i + 1 == m ? " or " : ", ", w[i]);
}

/* The fabric or link-kind words of every backend's simulation ops. */
static size_t sim_words(bool links, const char **out)
{
	size_t n = 0;
	for (size_t b = 0; b < axl__backend_total; b++) {
		const struct axl__sim_ops *o = axl__backends[b]->sim;
		const char *w = o ? (links ? o->link : o->fabric) : NULL;
		if (w)
			out[n++] = w;
	}
	return n;
}

static const struct axl__sim_ops *sim_ops_by(bool links, const char *word)
{
	for (size_t b = 0; b < axl__backend_total; b++) {
		const struct axl__sim_ops *o = axl__backends[b]->sim;
		const char *w = o ? (links ? o->link : o->fabric) : NULL;
		if (w && strcmp(w, word) == 0)
			return o;
	}
	return NULL;
}

static int parse_group(const struct pctx *p, struct axl__sim *sim, const struct axl__jv *g, size_t gi,
		       int *max_numa)
{
	/* the spec's keys, and after numa_node the vendors' partitioning keys */
	const char *keys[AXL__BACKENDS_MAX + 6] = {"model", "uuids", "count", "numa_node"};
	size_t nkeys = 4;
	for (size_t b = 0; b < axl__backend_total; b++)
		if (axl__backends[b]->sim && axl__backends[b]->sim->parts_key)
			keys[nkeys++] = axl__backends[b]->sim->parts_key;
	keys[nkeys++] = "fabric";
	keys[nkeys] = NULL;
	char pre[48], field[96];
	snprintf(pre, sizeof pre, "devices[%zu]", gi);
	if (g->type != AXL__J_OBJ)
		return perr(p, g, pre, "must be an object, not %s", type_name(g));
	if (check_keys(p, g, pre, keys))
		return -1;
	const struct axl__jv *m = axl__jv_get(g, "model");
	snprintf(field, sizeof field, "%s.model", pre);
	if (!m)
		return perr(p, g, field, "missing (a model name of the device database)");
	if (m->type != AXL__J_STR)
		return perr(p, m, field, "must be a string, not %s", type_name(m));
	const struct axl__db_entry *e = axl__db_find_name(m->s);
	if (!e)
		e = axl__db_find_key(m->s);
	if (!e) {
		char close[512];
		close_names(m->s, close, sizeof close);
		return perr(p, m, field, "'%.80s' is not a model of the device database%s%s", m->s,
			    close[0] ? "; close: " : "", close);
	}
	const struct axl__jv *u = axl__jv_get(g, "uuids");
	const struct axl__jv *c = axl__jv_get(g, "count");
	if (u && c) {
		snprintf(field, sizeof field, "%s.count", pre);
		return perr(p, c, field, "give uuids or count, not both");
	}
	if (!u && !c) {
		snprintf(field, sizeof field, "%s", pre);
		return perr(p, g, field, "needs uuids (a list of strings) or count");
	}
	int64_t count = 0;
	if (c) {
		snprintf(field, sizeof field, "%s.count", pre);
		if (get_int(p, g, "count", field, 1, AXL__SIM_MAX_COUNT, &count))
			return -1;
	} else {
		snprintf(field, sizeof field, "%s.uuids", pre);
		if (u->type != AXL__J_ARR)
			return perr(p, u, field, "must be an array of strings, not %s", type_name(u));
		if (u->len < 1 || u->len > AXL__SIM_MAX_COUNT)
			return perr(p, u, field, "must hold 1 to %d UUIDs", AXL__SIM_MAX_COUNT);
		count = (int64_t)u->len;
	}
	int64_t numa = -1;
	snprintf(field, sizeof field, "%s.numa_node", pre);
	if (get_int(p, g, "numa_node", field, 0, AXL__SIM_MAX_NUMA - 1, &numa) < 0)
		return -1;
	if (numa > *max_numa)
		*max_numa = (int)numa;
	/* a vendor's partitioning key: a boolean, true only for a model with that
	 * partitioning; a model that has it starts disabled, as the hardware ships (an
	 * H100's or A100's MIG mode is off until an administrator turns it on) */
	int parts_on = 0;
	for (size_t b = 0; b < axl__backend_total; b++) {
		const struct axl__sim_ops *o = axl__backends[b]->sim;
		if (!o || !o->parts_key)
			continue;
		bool has = has_parts(e, o->parts_technology);
		int on = 0;
		const struct axl__jv *mv = axl__jv_get(g, o->parts_key);
		if (mv) {
			snprintf(field, sizeof field, "%s.%s", pre, o->parts_key);
			if (mv->type != AXL__J_BOOL)
				return perr(p, mv, field, "must be true or false, not %s", type_name(mv));
			if (mv->b && !has)
				return perr(p, mv, field, "%s has no %s", axl__db_name(e), o->parts_technology);
			on = mv->b;
		}
		if (has)
			parts_on = on;
	}
	const struct axl__sim_ops *fabric = NULL;
	const struct axl__jv *fv = axl__jv_get(g, "fabric");
	if (fv) {
		const char *words[AXL__BACKENDS_MAX];
		char list[256];
		word_list(list, sizeof list, words, sim_words(false, words), "none");
		snprintf(field, sizeof field, "%s.fabric", pre);
		if (fv->type != AXL__J_STR)
			return perr(p, fv, field, "must be %s, not %s", list, type_name(fv));
		if (strcmp(fv->s, "none") != 0) {
			fabric = sim_ops_by(false, fv->s);
			if (!fabric)
				return perr(p, fv, field, "must be %s, not '%.40s'", list, fv->s);
			char why[256];
			if (fabric->fabric_check && fabric->fabric_check(e, why, sizeof why))
				return perr(p, fv, field, "%s", why);
		}
	}
	if (sim->n + (size_t)count > AXL__SIM_MAX_DEVICES) {
		snprintf(field, sizeof field, "%s.%s", pre, c ? "count" : "uuids");
		return perr(p, c ? c : u, field, "more than %d devices in all", AXL__SIM_MAX_DEVICES);
	}
	for (int64_t k = 0; k < count; k++) {
		struct axl__sim_dev *d = &sim->devs[sim->n];
		memset(d, 0, sizeof *d);
		d->db = e;
		d->numa_node = (int)numa;
		d->parts_on = parts_on;
		d->group = (int)gi;
		d->fabric = fabric;
		if (u) {
			const struct axl__jv *s = &u->items[k];
			snprintf(field, sizeof field, "%s.uuids[%lld]", pre, (long long)k);
			if (s->type != AXL__J_STR)
				return perr(p, s, field, "must be a string, not %s", type_name(s));
			if (s->len == 0 || s->len >= AXL__SIM_UUID_MAX)
				return perr(p, s, field, "must be 1 to %d characters", AXL__SIM_UUID_MAX - 1);
			for (size_t i = 0; i < s->len; i++) {
				unsigned char ch = (unsigned char)s->s[i];
				if (ch == ':' || ch == ',')
					return perr(p, s, field, "'%s' holds '%c' (device lists use it as a separator)",
						    s->s, ch);
				if (ch <= 0x20 || ch >= 0x7f || ch == '/')
					return perr(p, s, field, "'%.63s' holds a character other than printable ASCII "
						    "(no blanks, no '/')", s->s);
			}
			for (size_t j = 0; j < sim->n; j++)
				if (strcasecmp(sim->devs[j].uuid, s->s) == 0)
					return perr(p, s, field, "'%s' is given twice", s->s);
			memcpy(d->uuid, s->s, s->len + 1);
		} else {
			gen_uuid(e, sim->n, d->uuid, sizeof d->uuid);
		}
		d->seed = mix(fnv1a(0xcbf29ce484222325ull, d->uuid));
		sim->n++;
	}
	return 0;
}

static int parse_link(const struct pctx *p, struct axl__sim *sim, const struct axl__jv *l, size_t li)
{
	static const char *const keys[] = {"a", "b", "kind", "count", NULL};
	char pre[32], field[64];
	snprintf(pre, sizeof pre, "links[%zu]", li);
	if (l->type != AXL__J_OBJ)
		return perr(p, l, pre, "must be an object, not %s", type_name(l));
	if (check_keys(p, l, pre, keys))
		return -1;
	struct axl__sim_link *k = &sim->links[sim->nlinks];
	int64_t a = -1, b = -1, count = 1;
	int64_t hi = sim->n ? (int64_t)sim->n - 1 : 0;
	snprintf(field, sizeof field, "%s.a", pre);
	int r = get_int(p, l, "a", field, 0, hi, &a);
	if (r)
		return r < 0 ? -1 : perr(p, l, field, "missing (a device index, 0..%lld)", (long long)hi);
	snprintf(field, sizeof field, "%s.b", pre);
	r = get_int(p, l, "b", field, 0, hi, &b);
	if (r)
		return r < 0 ? -1 : perr(p, l, field, "missing (a device index, 0..%lld)", (long long)hi);
	if (a == b)
		return perr(p, axl__jv_get(l, "b"), field, "a link joins two different devices");
	snprintf(field, sizeof field, "%s.count", pre);
	if (get_int(p, l, "count", field, 1, 64, &count) < 0)
		return -1;
	snprintf(field, sizeof field, "%s.kind", pre);
	const struct axl__jv *kv = axl__jv_get(l, "kind");
	const char *words[AXL__BACKENDS_MAX];
	char list[256];
	word_list(list, sizeof list, words, sim_words(true, words), NULL);
	if (!kv)
		return perr(p, l, field, "missing (%s)", list);
	const struct axl__sim_ops *ops = kv->type == AXL__J_STR ? sim_ops_by(true, kv->s) : NULL;
	if (!ops)
		return perr(p, kv, field, "must be %s", list);
	for (size_t j = 0; j < sim->nlinks; j++) {
		const struct axl__sim_link *o = &sim->links[j];
		if ((o->a == a && o->b == b) || (o->a == b && o->b == a))
			return perr(p, l, pre, "devices %lld and %lld are linked twice", (long long)a, (long long)b);
	}
	k->a = (int)a;
	k->b = (int)b;
	k->count = (int)count;
	k->ops = ops;
	snprintf(k->kind, sizeof k->kind, "%s", kv->s);
	sim->nlinks++;
	return 0;
}

static int parse_host(const struct pctx *p, struct axl__sim *sim, const struct axl__jv *h, int max_numa)
{
	static const char *const keys[] = {"hostname", "cpu_model", "numa_nodes", "cores_per_node",
					   "memory_per_node_bytes", "memory_bandwidth_bytes_per_s",
					   "cloud_provider", "instance_type", NULL};
	if (h) {
		if (h->type != AXL__J_OBJ)
			return perr(p, h, "host", "must be an object, not %s", type_name(h));
		if (check_keys(p, h, "host", keys))
			return -1;
		if (get_str(p, h, "hostname", "host.hostname", sim->hostname, sizeof sim->hostname) < 0 ||
		    get_str(p, h, "cpu_model", "host.cpu_model", sim->cpu_model, sizeof sim->cpu_model) < 0)
			return -1;
		int64_t v;
		int r = get_int(p, h, "numa_nodes", "host.numa_nodes", 1, AXL__SIM_MAX_NUMA, &v);
		if (r < 0)
			return -1;
		if (r == 0) {
			if (v <= max_numa)
				return perr(p, axl__jv_get(h, "numa_nodes"), "host.numa_nodes",
					    "%lld, but a device is on NUMA node %d", (long long)v, max_numa);
			sim->numa_nodes = (int)v;
		}
		r = get_int(p, h, "cores_per_node", "host.cores_per_node", 1, 1024, &v);
		if (r < 0)
			return -1;
		if (r == 0)
			sim->cores_per_node = (int)v;
		r = get_int(p, h, "memory_per_node_bytes", "host.memory_per_node_bytes", 1ll << 20, 1ll << 50, &v);
		if (r < 0)
			return -1;
		if (r == 0)
			sim->memory_per_node = v;
		/* 1 GB/s to 1 PB/s: a host's memory, not a typo of a few bytes */
		r = get_int(p, h, "memory_bandwidth_bytes_per_s", "host.memory_bandwidth_bytes_per_s", 1000000000ll,
			    1000000000000000ll, &v);
		if (r < 0)
			return -1;
		if (r == 0)
			sim->memory_bandwidth = v;
		if (get_str(p, h, "cloud_provider", "host.cloud_provider", sim->cloud_provider,
			    sizeof sim->cloud_provider) < 0 ||
		    get_str(p, h, "instance_type", "host.instance_type", sim->instance_type,
			    sizeof sim->instance_type) < 0)
			return -1;
		if (sim->instance_type[0] && !sim->cloud_provider[0])
			return perr(p, axl__jv_get(h, "instance_type"), "host.instance_type",
				    "needs host.cloud_provider (whose instance type is it?)");
	}
	return 0;
}

int axl__sim_parse(const char *name, const char *text, size_t len, struct axl__sim **out, char *err,
		   size_t errcap)
{
	*out = NULL;
	struct pctx p = {name, text, len, err, errcap, false};
	struct axl__jdoc *doc = NULL;
	char jerr[256];
	size_t eoff = 0;
	if (len > AXL__SIM_MAX_BYTES)
		return perr(&p, NULL, "(file)", "larger than %u bytes", AXL__SIM_MAX_BYTES);
	if (axl__jdoc_parse_at(text, len, &doc, jerr, sizeof jerr, &eoff)) {
		struct axl__jv at = {.off = eoff};
		const char *msg = strchr(jerr, ':'); /* "offset N: what" */
		return perr(&p, &at, "(json)", "%s", msg && msg[1] ? msg + 2 : jerr);
	}
	const struct axl__jv *root = axl__jdoc_root(doc);
	struct axl__sim *sim = calloc(1, sizeof *sim);
	int rc = -1;
	if (!sim) {
		snprintf(err, errcap, "out of memory");
		goto out;
	}
	static const char *const keys[] = {"schema", "schema_version", "devices", "links", "host", NULL};
	if (root->type != AXL__J_OBJ) {
		perr(&p, root, "(document)", "must be an object, not %s", type_name(root));
		goto out;
	}
	const struct axl__jv *s = axl__jv_get(root, "schema");
	if (!s || s->type != AXL__J_STR || strcmp(s->s, "axl.sim") != 0) {
		perr(&p, s ? s : root, "schema", "must be \"axl.sim\"");
		goto out;
	}
	/* a later version is read as far as this axl understands it (one warning, given
	 * with the inventory: sim_node.c); 0, a negative or a non-integer is refused */
	const struct axl__jv *sv = axl__jv_get(root, "schema_version");
	if (!sv) {
		perr(&p, root, "schema_version", "missing (%d)", AXL__SIM_VERSION);
		goto out;
	}
	if (sv->type != AXL__J_NUM || !sv->is_int || sv->i < 1) {
		perr(&p, sv, "schema_version", "must be a positive integer (this axl reads %d)", AXL__SIM_VERSION);
		goto out;
	}
	int64_t ver = sv->i;
	p.newer = ver > AXL__SIM_VERSION;
	if (check_keys(&p, root, "", keys))
		goto out;
	const struct axl__jv *devs = axl__jv_get(root, "devices");
	if (!devs) {
		perr(&p, root, "devices", "missing");
		goto out;
	}
	if (devs->type != AXL__J_ARR || devs->len < 1 || devs->len > AXL__SIM_MAX_GROUPS) {
		perr(&p, devs, "devices", "must be an array of 1 to %d objects", AXL__SIM_MAX_GROUPS);
		goto out;
	}
	sim->devs = calloc(AXL__SIM_MAX_DEVICES, sizeof *sim->devs);
	if (!sim->devs) {
		snprintf(err, errcap, "out of memory");
		goto out;
	}
	int max_numa = -1;
	for (size_t g = 0; g < devs->len; g++)
		if (parse_group(&p, sim, &devs->items[g], g, &max_numa))
			goto out;
	const struct axl__jv *links = axl__jv_get(root, "links");
	if (links) {
		if (links->type != AXL__J_ARR || links->len > AXL__SIM_MAX_LINKS) {
			perr(&p, links, "links", "must be an array of at most %d objects", AXL__SIM_MAX_LINKS);
			goto out;
		}
		sim->links = calloc(links->len ? links->len : 1, sizeof *sim->links);
		if (!sim->links) {
			snprintf(err, errcap, "out of memory");
			goto out;
		}
		for (size_t l = 0; l < links->len; l++)
			if (parse_link(&p, sim, &links->items[l], l))
				goto out;
	}
	snprintf(sim->hostname, sizeof sim->hostname, "sim");
	snprintf(sim->cpu_model, sizeof sim->cpu_model, "Simulated CPU");
	sim->numa_nodes = max_numa + 1 > 0 ? max_numa + 1 : 1;
	sim->cores_per_node = 32;
	sim->memory_per_node = 256ll << 30;
	if (parse_host(&p, sim, axl__jv_get(root, "host"), max_numa))
		goto out;
	sim->newer_version = p.newer ? ver : 0;
	sim->path = strdup(name);
	if (!sim->path) {
		snprintf(err, errcap, "out of memory");
		goto out;
	}
	rc = 0;
	*out = sim;
	sim = NULL;
out:
	axl__sim_free(sim);
	axl__jdoc_free(doc);
	return rc;
}

void axl__sim_free(struct axl__sim *sim)
{
	if (!sim)
		return;
	free(sim->path);
	free(sim->devs);
	free(sim->links);
	free(sim);
}

int axl__sim_load(const char *path, struct axl__sim **out)
{
	*out = NULL;
	char *buf = NULL;
	size_t got = 0;
	int r = axl__file_read(path, AXL__SIM_MAX_BYTES, 0, &buf, &got);
	if (r == -ENOENT)
		return axl__error(AXL_ENOENT, "simulation spec '%s': %s", path, strerror(ENOENT));
	if (r == -ENOTSUP || r == -EISDIR)
		return axl__error(AXL_EINVAL, "simulation spec '%s': not a regular file", path);
	if (r == -EFBIG)
		return axl__error(AXL_EINVAL, "simulation spec '%s': larger than %u bytes", path, AXL__SIM_MAX_BYTES);
	if (r == -ENOMEM)
		return axl__error(AXL_ENOMEM, "out of memory");
	if (r)
		return axl__error(AXL_EIO, "simulation spec '%s': %s", path, axl__file_error(r));
	char err[1024];
	int rc = axl__sim_parse(path, buf, got, out, err, sizeof err);
	free(buf);
	if (rc)
		return axl__error(AXL_EINVAL, "%s", err);
	return 0;
}

AXL_API const char *axl_context_sim_path(const axl_context *ctx)
{
	return ctx && ctx->sim ? ctx->sim->path : NULL;
}
