/* SPDX-License-Identifier: MIT */
/* A node from ai-hwaccel's registry JSON (axl plan --registry FILE, docs/plan.md
 * "ai-hwaccel's registry"), in either layout ai-hwaccel has written:
 *  - schema_version 1-3: the Rust crate's AcceleratorRegistry as its serde derive writes
 *    it (src/registry.rs, src/profile.rs, src/system_io.rs of MacCracken/ai-hwaccel at
 *    1db91af8), unknown fields refused as its deny_unknown_fields refuses them;
 *  - schema_version 4-5: the Cyrius port's registry_to_json and profile_to_json
 *    (src/json_out.cyr at dd58800c, 2.3.18), unknown fields ignored as its own readers
 *    (profile_from_json, the Python binding's from_dict) ignore them.
 * Its kinds map to axl's through one table (hwaccel_table.c); the devices are the
 * planner's like an axl.inventory's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axl.h"
#include "util/error.h"
#include "hwaccel.h"
#include "plan.h"
#include "util/jsonr.h"

#define REG_MAX_PROFILES 4096

struct rctx {
	char err[200];
};

#define RFAIL(c, ...) (snprintf((c)->err, sizeof (c)->err, __VA_ARGS__), -1)

static const char *type_name(const struct axl__jv *v)
{
	switch (v->type) {
	case AXL__J_NULL:
		return "null";
	case AXL__J_BOOL:
		return "a boolean";
	case AXL__J_NUM:
		return "a number";
	case AXL__J_STR:
		return "a string";
	case AXL__J_ARR:
		return "an array";
	default:
		return "an object";
	}
}

/* A u64/u32 member (serde's integers): required or not; -1 when absent or null. */
static int ruint(struct rctx *c, const struct axl__jv *o, const char *key, const char *where, bool required,
		 int64_t max, int64_t *out)
{
	const struct axl__jv *v = axl__jv_get(o, key);
	*out = -1;
	if (!v || (v->type == AXL__J_NULL && !required))
		return required ? RFAIL(c, "%s: \"%s\" is missing", where, key) : 0;
	if (v->type != AXL__J_NUM || !v->is_int || v->i < 0 || v->i > max)
		return RFAIL(c, "%s.%s: %s where an integer 0..%lld belongs", where, key,
			     v->type == AXL__J_NUM ? "a number out of range" : type_name(v), (long long)max);
	*out = v->i;
	return 0;
}

/* An Option<f64> member: -1 when absent or null. */
static int rnum(struct rctx *c, const struct axl__jv *o, const char *key, const char *where, double *out)
{
	const struct axl__jv *v = axl__jv_get(o, key);
	*out = -1;
	if (!v || v->type == AXL__J_NULL)
		return 0;
	if (v->type != AXL__J_NUM || !(v->num >= 0) || !isfinite(v->num))
		return RFAIL(c, "%s.%s: %s where a number >= 0 belongs", where, key,
			     v->type == AXL__J_NUM ? "a negative number" : type_name(v));
	*out = v->num;
	return 0;
}

/* An Option<String> member: NULL when absent or null. */
static int rstr(struct rctx *c, const struct axl__jv *o, const char *key, const char *where, const char **out)
{
	const struct axl__jv *v = axl__jv_get(o, key);
	*out = NULL;
	if (!v || v->type == AXL__J_NULL)
		return 0;
	if (v->type != AXL__J_STR)
		return RFAIL(c, "%s.%s: %s where a string belongs", where, key, type_name(v));
	*out = v->s;
	return 0;
}

/* serde's deny_unknown_fields: a key not among known is refused, naming it (strict); a
 * registry newer than this reader is read as far as understood */
static int known_keys(struct rctx *c, const struct axl__jv *o, const char *where, const char *const *known,
		      bool strict)
{
	for (size_t i = 0; strict && i < o->len; i++) {
		size_t k = 0;
		while (known[k] && strcmp(known[k], o->keys[i]) != 0)
			k++;
		if (!known[k])
			return RFAIL(c, "%s: unknown field \"%.40s\"", where, o->keys[i]);
	}
	return 0;
}

/* v among a NULL-terminated list */
static bool among(const char *const *set, const char *v)
{
	for (size_t i = 0; set && set[i]; i++)
		if (!strcmp(set[i], v))
			return true;
	return false;
}

/* profiles[i].accelerator: its row, device_id (-1 for a unit variant) and generation. */
static int accel_of(struct rctx *c, const struct axl__jv *a, const char *where,
		    const struct axl__hwaccel_kind **row, int64_t *dev_id, const char **gen)
{
	*dev_id = -1;
	*gen = NULL;
	const char *variant;
	const struct axl__jv *body = NULL;
	if (a->type == AXL__J_STR) {
		variant = a->s;
	} else if (a->type == AXL__J_OBJ && a->len == 1) {
		variant = a->keys[0];
		body = &a->items[0];
	} else {
		return RFAIL(c,
			     "%s.accelerator: %s where a variant belongs (a unit variant's name, or an object of one "
			     "struct variant)",
			     where, a->type == AXL__J_OBJ ? "an object without exactly one member" : type_name(a));
	}
	*row = axl__hwaccel_kind_find(variant);
	if (!*row)
		return RFAIL(c, "%s.accelerator: unknown variant \"%.40s\"", where, variant);
	/* the unit variants (the host, an integrated GPU or NPU) are strings; the others
	 * objects with their members */
	const bool unit = (*row)->unit;
	if (unit != !body)
		return RFAIL(c, "%s.accelerator: %s is %s", where, variant,
			     unit ? "a unit variant (a bare string)" : "a struct variant (an object with device_id)");
	if (!body)
		return 0;
	char w[96];
	snprintf(w, sizeof w, "%s.accelerator.%s", where, variant);
	if (body->type != AXL__J_OBJ)
		return RFAIL(c, "%s: %s where an object belongs", w, type_name(body));
	if (ruint(c, body, "device_id", w, true, UINT32_MAX, dev_id))
		return -1;
	int64_t n;
	if ((*row)->count_key && ruint(c, body, (*row)->count_key, w, true, UINT32_MAX, &n))
		return -1;
	if ((*row)->gen_key) {
		const struct axl__jv *g = axl__jv_get(body, (*row)->gen_key);
		if (!g || g->type != AXL__J_STR || !among((*row)->gen_values, g->s))
			return RFAIL(c, "%s.%s: %s", w, (*row)->gen_key,
				     !g ? "is missing" : g->type != AXL__J_STR ? "not a string" : "an unknown value");
		*gen = g->s;
	}
	return 0;
}

/* The same for schema 4 and later: "accelerator" is accel_name()'s display string,
 * "accel_type_id" (version 5) the AcceleratorType enum's value and the one the port reads
 * back; the generation an enum value ("tpu_version": 1 is V5e), absent when unknown. */
static int accel_of4(struct rctx *c, const struct axl__jv *pr, const struct axl__jv *a, const char *where,
		     const struct axl__hwaccel_kind **row, int64_t *dev_id, const char **gen)
{
	*gen = NULL;
	*row = NULL;
	if (a->type != AXL__J_STR)
		return RFAIL(c, "%s.accelerator: %s where a string belongs", where, type_name(a));
	int64_t tid;
	if (ruint(c, pr, "accel_type_id", where, false, INT32_MAX, &tid))
		return -1;
	if (tid >= 0 && !(*row = axl__hwaccel_kind_type(tid)))
		return RFAIL(c, "%s.accel_type_id: %lld, not a type ai-hwaccel has", where, (long long)tid);
	if (!*row && !(*row = axl__hwaccel_kind_display(a->s)))
		return RFAIL(c, "%s.accelerator: unknown type \"%.40s\"", where, a->s);
	if (ruint(c, pr, "device_id", where, false, UINT32_MAX, dev_id))
		return -1;
	if (*dev_id < 0)
		*dev_id = 0; /* the port's default (profile_from_json) */
	int64_t n;
	if ((*row)->count_key4 && ruint(c, pr, (*row)->count_key4, where, false, UINT32_MAX, &n))
		return -1;
	if ((*row)->gen_key4) {
		int64_t g;
		if (ruint(c, pr, (*row)->gen_key4, where, false, 64, &g))
			return -1;
		size_t nv = 0;
		while ((*row)->gen_values[nv])
			nv++;
		if (g >= (int64_t)nv)
			return RFAIL(c, "%s.%s: %lld, not a value ai-hwaccel has", where, (*row)->gen_key4,
				     (long long)g);
		if (g >= 0)
			*gen = (*row)->gen_values[g];
	}
	return 0;
}

/* An integer member x1000 of schema 4 (GB/s x1000: "mem_bandwidth_x1000") as a number; -1
 * when absent. */
static int rx1000(struct rctx *c, const struct axl__jv *o, const char *key, const char *where, double *out)
{
	int64_t v;
	*out = -1;
	if (ruint(c, o, key, where, false, INT64_MAX, &v))
		return -1;
	if (v >= 0)
		*out = (double)v / 1000.0;
	return 0;
}

static int add_registry(struct axl_planner *p, const struct axl__jv *root, const char *name, struct rctx *c)
{
	static const char *const reg_keys[] = {"schema_version", "profiles", "warnings", "system_io", NULL};
	static const char *const prof_keys[] = {"accelerator",	     "available",	    "memory_bytes",
						"compute_capability", "driver_version",	    "device_name",
						"memory_bandwidth_gbps", "memory_used_bytes", "memory_free_bytes",
						"pcie_bandwidth_gbps", "numa_node",	    "temperature_c",
						"power_watts",	     "gpu_utilization_percent", NULL};
	if (root->type != AXL__J_OBJ)
		return RFAIL(c, "not an ai-hwaccel registry (%s, not an object)", type_name(root));
	int64_t ver;
	if (ruint(c, root, "schema_version", "registry", false, INT32_MAX, &ver))
		return -1;
	if (ver == 0)
		return RFAIL(c, "registry.schema_version: 0 (the crate's versions start at 1)");
	if (ver < 0)
		ver = 3; /* serde's default: the Rust crate's own */
	/* schema 4 on: the Cyrius port's layout, whose readers ignore unknown fields */
	const bool display = ver >= AXL__HWACCEL_DISPLAY_SCHEMA;
	const bool strict = !display;
	if (known_keys(c, root, "registry", reg_keys, strict))
		return -1;
	const struct axl__jv *profs = axl__jv_get(root, "profiles");
	if (!profs)
		return RFAIL(c, "registry: \"profiles\" is missing");
	if (profs->type != AXL__J_ARR)
		return RFAIL(c, "registry.profiles: %s where an array belongs", type_name(profs));
	if (profs->len > REG_MAX_PROFILES)
		return RFAIL(c, "registry.profiles: more than %d", REG_MAX_PROFILES);
	const struct axl__jv *sio = axl__jv_get(root, "system_io"), *ics = NULL;
	if (sio && sio->type != AXL__J_NULL) {
		if (sio->type != AXL__J_OBJ)
			return RFAIL(c, "registry.system_io: %s where an object belongs", type_name(sio));
		ics = axl__jv_get(sio, "interconnects");
		if (ics && ics->type != AXL__J_ARR)
			return RFAIL(c, "registry.system_io.interconnects: %s where an array belongs", type_name(ics));
	}
	struct axl__pdev *pd = calloc(profs->len + 1, sizeof *pd);
	if (!pd)
		return RFAIL(c, "out of memory");
	size_t n = 0;
	bool have_host = false;
	struct axl__pdev host;
	for (size_t i = 0; i < profs->len; i++) {
		const struct axl__jv *pr = &profs->items[i];
		char where[48];
		snprintf(where, sizeof where, "profiles[%zu]", i);
		if (pr->type != AXL__J_OBJ) {
			free(pd);
			return RFAIL(c, "%s: %s where an object belongs", where, type_name(pr));
		}
		const struct axl__jv *acc = axl__jv_get(pr, "accelerator"), *av = axl__jv_get(pr, "available");
		const struct axl__hwaccel_kind *row = NULL;
		int64_t dev_id, mem, used, numa;
		const char *gen, *dname, *s;
		double bw, pcie;
		if (known_keys(c, pr, where, prof_keys, strict) ||
		    (!acc && RFAIL(c, "%s: \"accelerator\" is missing", where)) ||
		    (display ? accel_of4(c, pr, acc, where, &row, &dev_id, &gen)
			     : accel_of(c, acc, where, &row, &dev_id, &gen)) ||
		    (!av && RFAIL(c, "%s: \"available\" is missing", where)) ||
		    (av->type != AXL__J_BOOL &&
		     RFAIL(c, "%s.available: %s where a boolean belongs", where, type_name(av))) ||
		    ruint(c, pr, "memory_bytes", where, true, INT64_MAX, &mem) ||
		    ruint(c, pr, "memory_used_bytes", where, false, INT64_MAX, &used) ||
		    ruint(c, pr, "numa_node", where, false, UINT32_MAX, &numa) ||
		    (display ? rx1000(c, pr, "mem_bandwidth_x1000", where, &bw)
			     : rnum(c, pr, "memory_bandwidth_gbps", where, &bw)) ||
		    (display ? rx1000(c, pr, "pcie_bandwidth_x1000", where, &pcie)
			     : rnum(c, pr, "pcie_bandwidth_gbps", where, &pcie)) ||
		    rstr(c, pr, "device_name", where, &dname) ||
		    rstr(c, pr, "compute_capability", where, &s) || rstr(c, pr, "driver_version", where, &s)) {
			free(pd);
			return -1;
		}
		if (!av->b)
			continue; /* the crate plans on available profiles only */
		if (row->family == AXL_FAMILY_CPU) {
			/* the host: its RAM (and bandwidth), planned on as axl plans on a host */
			struct axl__hostfacts hf = {.mem_total = mem, .mem_limit = -1, .mem_bw = -1, .sockets = -1,
						    .cores = -1};
			if (bw >= 0)
				hf.mem_bw = (int64_t)(bw * 1e9);
			hf.model = dname;
			if (!have_host && axl__host_pdev(&hf, &host) == 0)
				have_host = true;
			continue;
		}
		struct axl__pdev *x = &pd[n];
		axl__pdev_init(x);
		if (dev_id >= 0)
			snprintf(x->id, sizeof x->id, "%s:%lld", row->id_prefix, (long long)dev_id);
		else
			snprintf(x->id, sizeof x->id, "%s:0", row->id_prefix);
		for (size_t k = 0; k < n; k++)
			if (!strcmp(pd[k].id, x->id)) {
				snprintf(c->err, sizeof c->err, "%s: a second device %s", where, x->id);
				free(pd);
				return -1;
			}
		if (dname)
			snprintf(x->model, sizeof x->model, "%s", dname);
		else if (row->model[0])
			snprintf(x->model, sizeof x->model, "%s%s%s", row->model, gen ? " " : "", gen ? gen : "");
		snprintf(x->vendor, sizeof x->vendor, "%s", row->vendor);
		x->family = row->family;
		/* 0 is what the crate records when it does not know (an NPU's): unknown here */
		x->memory_total = mem > 0 ? mem : -1;
		x->memory_bytes = mem <= 0 ? -1 : used >= 0 ? (used >= mem ? 0 : mem - used) : mem;
		x->bandwidth_gbps = bw;
		x->pcie_gbps = pcie;
		x->numa_node = numa >= 0 && numa <= 65535 ? (int)numa : -1;
		n++;
	}
	if (have_host)
		pd[n++] = host;
	/* the network between nodes: the fastest InfiniBand or RoCE port (GB/s) that is not
	 * said to be down; the fabrics join their devices below */
	double nic = -1;
	for (size_t i = 0; ics && i < ics->len; i++) {
		const struct axl__jv *ic = &ics->items[i];
		char where[64];
		snprintf(where, sizeof where, "system_io.interconnects[%zu]", i);
		const char *kind, *state;
		double g;
		if (ic->type != AXL__J_OBJ) {
			free(pd);
			return RFAIL(c, "%s: %s where an object belongs", where, type_name(ic));
		}
		/* schema 4 on: bandwidth_bytes_per_sec, and a "state" the port writes as an
		 * integer (json_out.cyr's _ic_to_json: 0, or the address of the state's text):
		 * a port's state says nothing, so its NICs count as up */
		int64_t bps = -1;
		if (rstr(c, ic, "kind", where, &kind) ||
		    (display ? ruint(c, ic, "bandwidth_bytes_per_sec", where, false, INT64_MAX, &bps)
			     : rnum(c, ic, "bandwidth_gbps", where, &g)) ||
		    (!display && rstr(c, ic, "state", where, &state))) {
			free(pd);
			return -1;
		}
		if (display) {
			g = bps >= 0 ? (double)bps / 1e9 : -1;
			state = NULL;
		}
		const struct axl__hwaccel_link *l = axl__hwaccel_link_find(kind, display);
		if (!kind || (!l && strict)) {
			free(pd);
			return RFAIL(c, "%s.kind: %s", where, kind ? "an unknown variant" : "is missing");
		}
		if (l && l->nic && g > nic && (!state || strstr(state, "ACTIVE") || strstr(state, "Active")))
			nic = g;
	}
	size_t first = p->ndevs;
	int rc = axl__planner_add_node_devs(p, name, nic, pd, n);
	if (rc != 0) {
		free(pd);
		return rc; /* the error is set */
	}
	if (ver > AXL__HWACCEL_SCHEMA_VERSION)
		axl__planner_warn_newer(p, (long long)ver, AXL__HWACCEL_SCHEMA_VERSION);
	/* a fabric of the registry (system-wide, as the crate records it) joins every device
	 * of its kind at its bandwidth: the crate's planner reads it so too */
	for (size_t i = 0; ics && i < ics->len; i++) {
		const struct axl__hwaccel_link *l =
			axl__hwaccel_link_find(axl__jv_str(&ics->items[i], "kind"), display);
		double g = -1;
		if (!l || !l->axl_kind ||
		    !axl__jv_num(&ics->items[i], display ? "bandwidth_bytes_per_sec" : "bandwidth_gbps", &g) ||
		    !(g > 0))
			g = -1;
		else if (display)
			g /= 1e9;
		if (!l || !l->axl_kind)
			continue;
		size_t plen = strlen(l->id_prefix);
		for (size_t a = 0; a < n; a++)
			for (size_t b = a + 1; b < n; b++) {
				const char *ia = pd[a].id, *ib = pd[b].id;
				if (strncmp(ia, l->id_prefix, plen) || ia[plen] != ':' ||
				    strncmp(ib, l->id_prefix, plen) || ib[plen] != ':')
					continue;
				enum axl__plink k = axl__plink_of(l->axl_kind);
				const struct axl__plink_info *cur = axl__planner_link(p, first + a, first + b);
				if (cur->kind < k || (cur->kind == k && cur->gbps < g))
					axl__planner_set_link(p, first + a, first + b, k, g);
			}
	}
	free(pd);
	return 0;
}

AXL_API int axl_planner_add_hwaccel_json(axl_planner *planner, const char *text, size_t len, const char *name)
{
	if (!planner || (!text && len))
		return axl__error(AXL_EINVAL, "axl_planner_add_hwaccel_json: NULL argument");
	struct rctx c = {{0}};
	struct axl__jdoc *doc = NULL;
	if (axl__jdoc_parse(text ? text : "", len, &doc, c.err, sizeof c.err) != 0)
		return axl__error(AXL_EPARSE, "ai-hwaccel registry: %s", c.err);
	c.err[0] = 0;
	int rc = add_registry(planner, axl__jdoc_root(doc), name, &c);
	axl__jdoc_free(doc);
	if (rc < 0 && c.err[0])
		return axl__error(AXL_EPARSE, "ai-hwaccel registry: %s", c.err);
	return rc;
}
