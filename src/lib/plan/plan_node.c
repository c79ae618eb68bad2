/* SPDX-License-Identifier: MIT */
/* The planner's nodes: the accelerators it plans on and the links between
 * them, from an inventory opened here (axl_planner_add_inventory) or from an
 * "axl.inventory" document written elsewhere (axl_planner_add_json). Both paths fill the
 * same struct axl__pdev, so that a node read back from its own `axl list --json` plans
 * exactly as the node itself. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "axl.h"
#include "util/error.h"
#include "plan.h"
#include "plan_impl.h"
#include "util/jsonr.h"
#include "util/pcie.h"

#define PLAN_MAX_DEVS 4096
/* the "axl.inventory" schema_version this planner reads (what inventory_json.c writes);
 * version 1 gave the NIC rate in Gb/s as "rate_gbit", 2 in GB/s as "rate_gbps" */
#define AXL__PLAN_NODE_VERSION 2
#define PLAN_MAX_NODES 4096

/* ---- the planner and its matrices -------------------------------------------------- */

AXL_API int axl_planner_new(axl_planner **out)
{
	if (!out)
		return axl__error(AXL_EINVAL, "axl_planner_new: NULL output");
	*out = NULL;
	struct axl_planner *p = calloc(1, sizeof *p);
	if (!p)
		return axl__error(AXL_ENOMEM, "out of memory");
	*out = p;
	return 0;
}

AXL_API void axl_planner_free(axl_planner *planner)
{
	if (!planner)
		return;
	free(planner->devs);
	free(planner->nodes);
	free(planner->links);
	for (size_t i = 0; i < planner->nwarns; i++)
		free(planner->warns[i]);
	free(planner->warns);
	free(planner);
}

AXL_API size_t axl_planner_warning_count(const axl_planner *planner)
{
	return planner ? planner->nwarns : 0;
}

AXL_API const struct axl_warning *axl_planner_warning(const axl_planner *planner, size_t i)
{
	return planner && i < planner->nwarns ? &planner->warns[i]->w : NULL;
}

/* Keep a warning about the node called name; dropped when memory runs out. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void planner_warn(struct axl_planner *p, const char *name, const char *fmt, ...)
{
	struct axl__pwarn **v = realloc(p->warns, (p->nwarns + 1) * sizeof *v);
	if (!v)
		return;
	p->warns = v;
	struct axl__pwarn *w = calloc(1, sizeof *w);
	if (!w)
		return;
	snprintf(w->path, sizeof w->path, "%s", name ? name : "");
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(w->message, sizeof w->message, fmt, ap);
	va_end(ap);
	w->w.source = "plan";
	w->w.path = w->path;
	w->w.message = w->message;
	p->warns[p->nwarns++] = w;
}

AXL_API size_t axl_planner_device_count(const axl_planner *planner)
{
	size_t n = 0;
	for (size_t i = 0; planner && i < planner->ndevs; i++)
		n += !planner->devs[i].host;
	return n;
}

static void copy_str(char *dst, size_t cap, const char *src)
{
	snprintf(dst, cap, "%s", src ? src : "");
}

int axl__planner_add_node(struct axl_planner *p, const char *name, double nic_gbps, size_t *node_index)
{
	if (!p || p->nnodes >= PLAN_MAX_NODES)
		return -1;
	if (p->nnodes == p->nodecap) {
		size_t cap = p->nodecap ? p->nodecap * 2 : 4;
		struct axl__pnode *n = realloc(p->nodes, cap * sizeof *n);
		if (!n)
			return -1;
		p->nodes = n;
		p->nodecap = cap;
	}
	struct axl__pnode *n = &p->nodes[p->nnodes];
	memset(n, 0, sizeof *n);
	if (name && *name)
		copy_str(n->name, sizeof n->name, name);
	else
		snprintf(n->name, sizeof n->name, "node%zu", p->nnodes);
	n->first = p->ndevs;
	n->count = 0;
	n->nic_gbps = nic_gbps > 0 && isfinite(nic_gbps) ? nic_gbps : -1;
	n->price_node_hour = NAN;
	n->price_device_hour = NAN;
	if (node_index)
		*node_index = p->nnodes;
	p->nnodes++;
	return 0;
}

/* Rebuild the link matrix for `n` devices, keeping what the first `old` had. */
static int resize_links(struct axl_planner *p, size_t old, size_t n)
{
	struct axl__plink_info *m = malloc(n * n * sizeof *m);
	if (!m)
		return -1;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++) {
			if (i < old && j < old && p->links) {
				m[i * n + j] = p->links[i * old + j];
			} else {
				m[i * n + j].kind = AXL__PL_NONE;
				m[i * n + j].gbps = -1;
			}
		}
	free(p->links);
	p->links = m;
	return 0;
}

/* Append k devices at once (one matrix rebuild); each joins the last node. */
static int add_devs(struct axl_planner *p, const struct axl__pdev *d, size_t k)
{
	if (!p || !p->nnodes || k > PLAN_MAX_DEVS - p->ndevs)
		return -1;
	if (k == 0)
		return 0;
	if (p->ndevs + k > p->devcap) {
		size_t cap = p->devcap ? p->devcap : 8;
		while (cap < p->ndevs + k)
			cap *= 2;
		struct axl__pdev *v = realloc(p->devs, cap * sizeof *v);
		if (!v)
			return -1;
		p->devs = v;
		p->devcap = cap;
	}
	if (resize_links(p, p->ndevs, p->ndevs + k) != 0)
		return -1;
	size_t node = p->nnodes - 1;
	for (size_t i = 0; i < k; i++) {
		struct axl__pdev *x = &p->devs[p->ndevs + i];
		*x = d[i];
		x->id[sizeof x->id - 1] = 0;
		x->uuid[sizeof x->uuid - 1] = 0;
		x->model[sizeof x->model - 1] = 0;
		x->vendor[sizeof x->vendor - 1] = 0;
		x->node = node;
	}
	p->ndevs += k;
	p->nodes[node].count += k;
	return 0;
}

int axl__planner_add_dev(struct axl_planner *p, const struct axl__pdev *d)
{
	if (!d)
		return -1;
	return add_devs(p, d, 1);
}

int axl__planner_set_link(struct axl_planner *p, size_t i, size_t j, enum axl__plink kind, double gbps)
{
	if (!p || !p->links || i >= p->ndevs || j >= p->ndevs || i == j)
		return -1;
	if (p->devs[i].node != p->devs[j].node)
		return -1;
	struct axl__plink_info v = {kind, gbps >= 0 && isfinite(gbps) ? gbps : -1};
	p->links[i * p->ndevs + j] = v;
	p->links[j * p->ndevs + i] = v;
	return 0;
}

const struct axl__plink_info *axl__planner_link(const struct axl_planner *p, size_t i, size_t j)
{
	static const struct axl__plink_info none = {AXL__PL_NONE, -1};
	if (!p || !p->links || i >= p->ndevs || j >= p->ndevs)
		return &none;
	return &p->links[i * p->ndevs + j];
}

enum axl__plink axl__plink_of(const char *kind)
{
	if (!kind)
		return AXL__PL_NONE;
	if (!strcmp(kind, "nvlink") || !strcmp(kind, "nvswitch") || !strcmp(kind, "xgmi"))
		return AXL__PL_FABRIC;
	if (!strcmp(kind, "ici"))
		return AXL__PL_ICI;
	if (!strcmp(kind, "roce"))
		return AXL__PL_ROCE;
	if (!strcmp(kind, "board"))
		return AXL__PL_BOARD;
	if (!strcmp(kind, "pcie-switch") || !strcmp(kind, "host-bridge") || !strcmp(kind, "numa"))
		return AXL__PL_PCIE;
	if (!strcmp(kind, "system"))
		return AXL__PL_SYSTEM;
	return AXL__PL_NONE;
}

/* ---- what both sources share ---------------------------------------------------- */

static int pfmt_of_name(const char *name)
{
	static const char *const names[AXL__PF__COUNT] = {"FP32", "TF32", "BF16", "FP16", "FP8", "INT8", "INT4"};
	if (!name)
		return -1;
	for (int i = 0; i < AXL__PF__COUNT; i++)
		if (!strcmp(name, names[i]))
			return i;
	return -1;
}

/* An inventory's "support" string: native, emulated, none; AXL_SUPPORT_UNKNOWN else. */
static int support_of_name(const char *name)
{
	if (!name)
		return AXL_SUPPORT_UNKNOWN;
	for (int s = AXL_SUPPORT_NATIVE; s <= AXL_SUPPORT_NONE; s++)
		if (!strcmp(name, axl_support_name((axl_support)s)))
			return s;
	return AXL_SUPPORT_UNKNOWN;
}

static void pdev_init(struct axl__pdev *d)
{
	memset(d, 0, sizeof *d);
	d->family = AXL_FAMILY_UNKNOWN;
	d->memory_bytes = -1;
	d->memory_total = -1;
	d->bandwidth_gbps = -1;
	for (int i = 0; i < AXL__PF__COUNT; i++)
		d->tflops[i] = -1;
	d->pcie_gbps = -1;
	d->numa_node = -1;
}

/* memory_bytes from what is known: visible (else total) minus used. */
static void pdev_memory(struct axl__pdev *d, int64_t total, int64_t visible, int64_t used)
{
	d->memory_total = total >= 0 ? total : -1;
	int64_t m = visible >= 0 ? visible : d->memory_total;
	if (m >= 0 && used >= 0)
		m = used >= m ? 0 : m - used;
	d->memory_bytes = m;
}

/* The index among the node's devices [first, first+n) of the device called id. */
static long find_dev(const struct axl__pdev *devs, size_t n, const char *id)
{
	char key[sizeof devs[0].id];
	copy_str(key, sizeof key, id);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(devs[i].id, key))
			return (long)i;
	return -1;
}

/* Record a link between two of the node's devices (local indices), keeping the best
 * when a pair is listed twice. */
static void node_link(struct axl_planner *p, size_t first, long a, long b, const char *kind, double gbps)
{
	if (a < 0 || b < 0 || a == b)
		return;
	enum axl__plink k = axl__plink_of(kind);
	if (k == AXL__PL_NONE)
		return;
	size_t i = first + (size_t)a, j = first + (size_t)b;
	if (!(gbps >= 0) || !isfinite(gbps)) {
		gbps = -1;
		if (k == AXL__PL_PCIE || k == AXL__PL_SYSTEM) {
			double x = p->devs[i].pcie_gbps, y = p->devs[j].pcie_gbps;
			if (x >= 0 && y >= 0)
				gbps = x < y ? x : y;
		}
	}
	const struct axl__plink_info *cur = axl__planner_link(p, i, j);
	if (cur->kind > k || (cur->kind == k && cur->gbps >= gbps))
		return;
	axl__planner_set_link(p, i, j, k, gbps);
}

/* A node with its devices; on failure the planner is left as it was. */
static int add_node_devs(struct axl_planner *p, const char *name, double nic, const struct axl__pdev *devs,
			 size_t n)
{
	if (n > PLAN_MAX_DEVS - p->ndevs)
		return axl__error(AXL_EINVAL, "planner: more than %d devices", PLAN_MAX_DEVS);
	size_t node;
	if (axl__planner_add_node(p, name, nic, &node) != 0) {
		if (p->nnodes >= PLAN_MAX_NODES)
			return axl__error(AXL_EINVAL, "planner: more than %d nodes", PLAN_MAX_NODES);
		return axl__error(AXL_ENOMEM, "out of memory");
	}
	if (add_devs(p, devs, n) != 0) {
		p->nnodes--;
		return axl__error(AXL_ENOMEM, "out of memory");
	}
	return 0;
}

/* for the other readers of nodes (plan_registry.c): the same blank device, node and warning */
void axl__pdev_init(struct axl__pdev *d)
{
	pdev_init(d);
}

int axl__planner_add_node_devs(struct axl_planner *p, const char *name, double nic, const struct axl__pdev *devs,
			       size_t n)
{
	return add_node_devs(p, name, nic, devs, n);
}

void axl__planner_warn_newer(struct axl_planner *p, long long version, int known)
{
	planner_warn(p, p->nnodes ? p->nodes[p->nnodes - 1].name : "", AXL__NEWER_DOC, version, known);
}

/* The node's instance type and its default price (price_table.c), unless the node file
 * gave one. */
static void node_instance(struct axl__pnode *n, const char *type)
{
	if (!type || !*type)
		return;
	copy_str(n->instance_type, sizeof n->instance_type, type);
	const struct axl__price_row *r = axl__price_lookup(type);
	if (r && isnan(n->price_node_hour) && isnan(n->price_device_hour)) {
		n->price_node_hour = r->usd_per_hour;
		snprintf(n->price_source, sizeof n->price_source, "price table: %s on-demand, %s, %.150s",
			 r->instance_type, r->date, r->source);
	}
}

/* ---- from an inventory ----------------------------------------------------------- */

static int64_t dev_int(const axl_device *d, axl_attr a)
{
	int64_t v;
	return axl_device_get_int(d, a, &v) == 0 ? v : -1;
}

static void pdev_from_device(struct axl__pdev *x, const axl_device *d)
{
	pdev_init(x);
	const char *s;
	copy_str(x->id, sizeof x->id, axl_device_id(d));
	if (axl_device_get_str(d, AXL_ATTR_UUID, &s) == 0)
		copy_str(x->uuid, sizeof x->uuid, s);
	if (axl_device_get_str(d, AXL_ATTR_MODEL, &s) == 0)
		copy_str(x->model, sizeof x->model, s);
	if (axl_device_get_str(d, AXL_ATTR_VENDOR, &s) == 0)
		copy_str(x->vendor, sizeof x->vendor, s);
	x->family = (int)axl_device_family(d);
	pdev_memory(x, dev_int(d, AXL_ATTR_MEMORY_TOTAL), dev_int(d, AXL_ATTR_MEMORY_VISIBLE),
		    dev_int(d, AXL_ATTR_MEMORY_USED));
	double bw;
	if (axl_device_get_num(d, AXL_ATTR_MEMORY_BANDWIDTH, &bw) == 0 && bw >= 0 && isfinite(bw))
		x->bandwidth_gbps = bw;
	x->pcie_gbps =
	    axl__pcie_link_gbps(dev_int(d, AXL_ATTR_LINK_CURRENT_GEN), dev_int(d, AXL_ATTR_LINK_CURRENT_WIDTH));
	int64_t numa = dev_int(d, AXL_ATTR_NUMA_NODE);
	x->numa_node = numa >= 0 && numa <= 65535 ? (int)numa : -1;
	size_t np = axl_device_precision_count(d);
	for (size_t i = 0; i < np; i++) {
		const struct axl_precision *pr = axl_device_precision(d, i);
		if (!pr)
			continue;
		int f = pfmt_of_name(axl_format_name(pr->format));
		if (pr->support != AXL_SUPPORT_UNKNOWN)
			x->has_precision = true;
		if (f >= 0)
			x->support[f] = (unsigned char)pr->support;
		if (f < 0 || pr->support != AXL_SUPPORT_NATIVE || !(pr->peak_tflops >= 0) || !isfinite(pr->peak_tflops))
			continue;
		x->tflops[f] = pr->peak_tflops;
	}
}

AXL_API int axl_planner_add_inventory(axl_planner *planner, const axl_inventory *inv, const char *name)
{
	if (!planner || !inv)
		return axl__error(AXL_EINVAL, "axl_planner_add_inventory: NULL argument");
	size_t nall = axl_inventory_device_count(inv);
	struct axl__pdev *devs = calloc(nall + 1, sizeof *devs);
	if (!devs)
		return axl__error(AXL_ENOMEM, "out of memory");
	size_t n = 0;
	for (size_t i = 0; i < nall; i++) {
		const axl_device *d = axl_inventory_device(inv, i);
		if (!d || axl_device_family(d) == AXL_FAMILY_CPU || axl_device_parent(d))
			continue;
		pdev_from_device(&devs[n++], d);
	}
	/* the host: planned on when no node has an accelerator, or asked for (--devices cpu) */
	const axl_host *hh = axl_inventory_host(inv);
	if (hh) {
		struct axl__hostfacts hf = {.mem_total = -1, .mem_limit = -1, .mem_bw = -1, .sockets = -1, .cores = -1};
		int64_t v;
		if (axl_host_get_int(hh, AXL_HOST_MEMORY_TOTAL, &v) == 0)
			hf.mem_total = v;
		if (axl_host_get_int(hh, AXL_HOST_MEMORY_LIMIT, &v) == 0)
			hf.mem_limit = v;
		if (axl_host_get_int(hh, AXL_HOST_MEMORY_BANDWIDTH, &v) == 0)
			hf.mem_bw = v;
		if (axl_host_get_int(hh, AXL_HOST_CPU_SOCKETS, &v) == 0)
			hf.sockets = v;
		if (axl_host_get_int(hh, AXL_HOST_CPU_CORES, &v) == 0)
			hf.cores = v;
		if (axl_host_get_str(hh, AXL_HOST_CPU_MODEL, &hf.model) != 0)
			hf.model = NULL;
		const char *isa[64];
		for (size_t i = 0; i < axl_host_isa_count(hh) && hf.nisa < 64; i++)
			isa[hf.nisa++] = axl_host_isa(hh, i);
		hf.isa = isa;
		if (axl__host_pdev(&hf, &devs[n]) == 0)
			n++;
	}
	double nic = -1;
	for (size_t i = 0; i < axl_inventory_nic_count(inv); i++) {
		const struct axl_nic *c = axl_inventory_nic(inv, i);
		if (c && c->state && !strcasecmp(c->state, "ACTIVE") && isfinite(c->rate_gbit) &&
		    c->rate_gbit / 8 > nic)
			nic = c->rate_gbit / 8;
	}
	const char *host = NULL;
	if (!name || !*name) {
		const axl_host *h = axl_inventory_host(inv);
		if (h && axl_host_get_str(h, AXL_HOST_HOSTNAME, &host) != 0)
			host = NULL;
		name = host;
	}
	size_t first = planner->ndevs;
	int rc = add_node_devs(planner, name, nic, devs, n);
	if (rc == 0) {
		const axl_host *h = axl_inventory_host(inv);
		const char *type = NULL;
		if (h && axl_host_get_str(h, AXL_HOST_CLOUD_INSTANCE_TYPE, &type) == 0)
			node_instance(&planner->nodes[planner->nnodes - 1], type);
		for (size_t i = 0; i < axl_inventory_link_count(inv); i++) {
			const struct axl_link *l = axl_inventory_link(inv, i);
			if (!l)
				continue;
			node_link(planner, first, find_dev(planner->devs + first, n, l->a),
				  find_dev(planner->devs + first, n, l->b), l->kind, l->bandwidth_gbps);
		}
	}
	free(devs);
	return rc;
}

/* ---- from an axl.inventory document ---------------------------------------------- */

struct jctx {
	char err[200];
};

#define JFAIL(c, ...) (snprintf((c)->err, sizeof (c)->err, __VA_ARGS__), -1)

/* An optional string member: NULL when absent or null; -1 when of another type. */
static int jstr(struct jctx *c, const struct axl__jv *obj, const char *key, const char *where, const char **out)
{
	const struct axl__jv *v = axl__jv_get(obj, key);
	*out = NULL;
	if (!v || v->type == AXL__J_NULL)
		return 0;
	if (v->type != AXL__J_STR)
		return JFAIL(c, "%s: \"%s\" is not a string", where, key);
	*out = v->s;
	return 0;
}

/* An optional number member: -1 when absent, null or negative; -1 return for another type. */
static int jnum(struct jctx *c, const struct axl__jv *obj, const char *key, const char *where, double *out)
{
	const struct axl__jv *v = axl__jv_get(obj, key);
	*out = -1;
	if (!v || v->type == AXL__J_NULL)
		return 0;
	if (v->type != AXL__J_NUM)
		return JFAIL(c, "%s: \"%s\" is not a number", where, key);
	if (v->num >= 0 && isfinite(v->num))
		*out = v->num;
	return 0;
}

static int jint(struct jctx *c, const struct axl__jv *obj, const char *key, const char *where, int64_t *out)
{
	const struct axl__jv *v = axl__jv_get(obj, key);
	*out = -1;
	if (!v || v->type == AXL__J_NULL)
		return 0;
	if (v->type != AXL__J_NUM)
		return JFAIL(c, "%s: \"%s\" is not a number", where, key);
	if (v->is_int)
		*out = v->i >= 0 ? v->i : -1;
	else if (v->num >= 0 && v->num < 9.2e18)
		*out = (int64_t)v->num;
	return 0;
}

/* An optional object member: NULL when absent or null; -1 for another type. */
static int jobj(struct jctx *c, const struct axl__jv *obj, const char *key, const char *where,
		const struct axl__jv **out)
{
	const struct axl__jv *v = axl__jv_get(obj, key);
	*out = NULL;
	if (!v || v->type == AXL__J_NULL)
		return 0;
	if (v->type != AXL__J_OBJ)
		return JFAIL(c, "%s: \"%s\" is not an object", where, key);
	*out = v;
	return 0;
}

static int jarr(struct jctx *c, const struct axl__jv *obj, const char *key, const char *where,
		const struct axl__jv **out)
{
	const struct axl__jv *v = axl__jv_get(obj, key);
	*out = NULL;
	if (!v || v->type == AXL__J_NULL)
		return 0;
	if (v->type != AXL__J_ARR)
		return JFAIL(c, "%s: \"%s\" is not an array", where, key);
	*out = v;
	return 0;
}

static int family_of(const char *s)
{
	if (!s)
		return AXL_FAMILY_UNKNOWN;
	for (int f = 1; f < AXL_FAMILY__COUNT; f++)
		if (!strcmp(s, axl_family_name((axl_family)f)))
			return f;
	return AXL_FAMILY_UNKNOWN;
}

/* One element of devices[]; *skip when it is not planned on (the CPU). */
static int pdev_from_json(struct jctx *c, struct axl__pdev *x, const struct axl__jv *d, size_t idx, bool *skip)
{
	char where[48];
	snprintf(where, sizeof where, "devices[%zu]", idx);
	pdev_init(x);
	*skip = false;
	if (d->type != AXL__J_OBJ)
		return JFAIL(c, "%s is not an object", where);
	const char *id, *uuid, *model, *vendor, *family;
	if (jstr(c, d, "id", where, &id) || jstr(c, d, "uuid", where, &uuid) || jstr(c, d, "model", where, &model) ||
	    jstr(c, d, "vendor", where, &vendor) || jstr(c, d, "family", where, &family))
		return -1;
	if (!id || !*id)
		return JFAIL(c, "%s has no \"id\"", where);
	x->family = family_of(family);
	if (x->family == AXL_FAMILY_CPU) {
		*skip = true;
		return 0;
	}
	copy_str(x->id, sizeof x->id, id);
	copy_str(x->uuid, sizeof x->uuid, uuid);
	copy_str(x->model, sizeof x->model, model);
	copy_str(x->vendor, sizeof x->vendor, vendor);

	const struct axl__jv *mem, *pci, *link = NULL, *prec;
	int64_t total = -1, visible = -1, used = -1, gen = -1, width = -1, numa = -1;
	double bw = -1;
	if (jobj(c, d, "memory", where, &mem))
		return -1;
	if (mem && (jint(c, mem, "total_bytes", where, &total) || jint(c, mem, "visible_bytes", where, &visible) ||
		    jint(c, mem, "used_bytes", where, &used) || jnum(c, mem, "bandwidth_gbps", where, &bw)))
		return -1;
	pdev_memory(x, total, visible, used);
	x->bandwidth_gbps = bw;
	if (jobj(c, d, "pci", where, &pci) || (pci && jobj(c, pci, "link", where, &link)))
		return -1;
	if (link && (jint(c, link, "current_gen", where, &gen) || jint(c, link, "current_width", where, &width)))
		return -1;
	x->pcie_gbps = axl__pcie_link_gbps(gen, width);
	if (jint(c, d, "numa_node", where, &numa))
		return -1;
	x->numa_node = numa >= 0 && numa <= 65535 ? (int)numa : -1;
	if (jarr(c, d, "precision", where, &prec))
		return -1;
	for (size_t i = 0; prec && i < prec->len; i++) {
		const struct axl__jv *r = &prec->items[i];
		const char *fmt, *sup;
		double t;
		if (r->type != AXL__J_OBJ)
			return JFAIL(c, "%s: precision[%zu] is not an object", where, i);
		if (jstr(c, r, "format", where, &fmt) || jstr(c, r, "support", where, &sup) ||
		    jnum(c, r, "peak_tflops", where, &t))
			return -1;
		int f = pfmt_of_name(fmt);
		int su = support_of_name(sup);
		if (su != AXL_SUPPORT_UNKNOWN)
			x->has_precision = true;
		if (f >= 0)
			x->support[f] = (unsigned char)su;
		if (f >= 0 && su == AXL_SUPPORT_NATIVE && t >= 0)
			x->tflops[f] = t;
	}
	return 0;
}

/* The host device from host.cpu and host.memory; *n grows by one when its memory is known. */
static int host_from_json(struct jctx *c, const struct axl__jv *host, struct axl__pdev *d, size_t *n)
{
	const struct axl__jv *cpu = NULL, *mem = NULL, *isa = NULL;
	struct axl__hostfacts hf = {.mem_total = -1, .mem_limit = -1, .mem_bw = -1, .sockets = -1, .cores = -1};
	if (jobj(c, host, "cpu", "host", &cpu) || jobj(c, host, "memory", "host", &mem))
		return -1;
	if (mem && (jint(c, mem, "total_bytes", "host.memory", &hf.mem_total) ||
		    jint(c, mem, "limit_bytes", "host.memory", &hf.mem_limit) ||
		    jint(c, mem, "bandwidth_bytes_per_s", "host.memory", &hf.mem_bw)))
		return -1;
	if (cpu && (jint(c, cpu, "sockets", "host.cpu", &hf.sockets) || jint(c, cpu, "cores", "host.cpu", &hf.cores) ||
		    jstr(c, cpu, "model", "host.cpu", &hf.model) || jarr(c, cpu, "isa", "host.cpu", &isa)))
		return -1;
	const char *names[64];
	for (size_t i = 0; isa && i < isa->len && hf.nisa < 64; i++)
		if (isa->items[i].type == AXL__J_STR)
			names[hf.nisa++] = isa->items[i].s;
	hf.isa = names;
	if (axl__host_pdev(&hf, d) == 0)
		(*n)++;
	return 0;
}

static int add_json(struct axl_planner *p, const struct axl__jv *root, const char *name, struct jctx *c)
{
	if (root->type != AXL__J_OBJ)
		return JFAIL(c, "not an axl.inventory document (not a JSON object)");
	const struct axl__jv *schema = axl__jv_get(root, "schema");
	if (!schema || schema->type != AXL__J_STR || strcmp(schema->s, "axl.inventory") != 0)
		return JFAIL(c, "not an axl.inventory document (schema %s%.64s%s)",
			     schema && schema->type == AXL__J_STR ? "\"" : "",
			     schema && schema->type == AXL__J_STR ? schema->s : "missing or not a string",
			     schema && schema->type == AXL__J_STR ? "\"" : "");
	/* the version: absent (an early document) or 1 is read; a later one is read as far
	 * as understood, with one warning once the node is added; anything else is refused */
	const struct axl__jv *ver = axl__jv_get(root, "schema_version");
	if (ver && (ver->type != AXL__J_NUM || !ver->is_int || ver->i < 1))
		return JFAIL(c, "schema_version is not a positive integer (this axl reads %d)", AXL__PLAN_NODE_VERSION);
	const struct axl__jv *devs, *links, *nics, *host;
	if (jarr(c, root, "devices", "document", &devs) || jarr(c, root, "links", "document", &links) ||
	    jarr(c, root, "nics", "document", &nics) || jobj(c, root, "host", "document", &host))
		return -1;
	if (!devs)
		return JFAIL(c, "axl.inventory document without \"devices\"");
	if (devs->len > PLAN_MAX_DEVS)
		return JFAIL(c, "more than %d devices", PLAN_MAX_DEVS);
	const char *hostname = NULL, *itype = NULL;
	if (host && jstr(c, host, "hostname", "host", &hostname))
		return -1;
	const struct axl__jv *rt = NULL, *cloud = NULL, *price = NULL;
	if (host && (jobj(c, host, "runtime", "host", &rt) || (rt && jobj(c, rt, "cloud", "host.runtime", &cloud)) ||
		     (cloud && jstr(c, cloud, "instance_type", "host.runtime.cloud", &itype))))
		return -1;
	/* a price the node file gives (docs/plan.md "Cost"): per node-hour or per device-hour */
	double pnode = -1, pdev = -1;
	const char *psrc = NULL;
	if (jobj(c, root, "price", "document", &price))
		return -1;
	if (price) {
		const struct axl__jv *a = axl__jv_get(price, "per_node_hour"),
				     *b = axl__jv_get(price, "per_device_hour");
		if ((a && a->type != AXL__J_NULL && (a->type != AXL__J_NUM || !(a->num > 0) || !isfinite(a->num))) ||
		    (b && b->type != AXL__J_NULL && (b->type != AXL__J_NUM || !(b->num > 0) || !isfinite(b->num))))
			return JFAIL(
			    c, "price: per_node_hour and per_device_hour are positive numbers (a price per hour)");
		if (jnum(c, price, "per_node_hour", "price", &pnode) ||
		    jnum(c, price, "per_device_hour", "price", &pdev) || jstr(c, price, "source", "price", &psrc))
			return -1;
	}
	double nic = -1;
	for (size_t i = 0; nics && i < nics->len; i++) {
		const struct axl__jv *n = &nics->items[i];
		char where[32];
		snprintf(where, sizeof where, "nics[%zu]", i);
		if (n->type != AXL__J_OBJ)
			return JFAIL(c, "%s is not an object", where);
		const char *state;
		double rate;
		/* GB/s; a document before version 2 (or without one) has Gb/s in rate_gbit */
		bool v1 = !ver || ver->i < 2;
		if (jstr(c, n, "state", where, &state) || jnum(c, n, v1 ? "rate_gbit" : "rate_gbps", where, &rate))
			return -1;
		if (v1 && rate >= 0)
			rate /= 8;
		if (state && !strcasecmp(state, "ACTIVE") && rate >= 0 && rate > nic)
			nic = rate;
	}
	/* links are checked before anything is added: a bad document adds nothing */
	for (size_t i = 0; links && i < links->len; i++) {
		const struct axl__jv *l = &links->items[i];
		char where[32];
		snprintf(where, sizeof where, "links[%zu]", i);
		const char *a, *b, *kind;
		double g;
		if (l->type != AXL__J_OBJ)
			return JFAIL(c, "%s is not an object", where);
		if (jstr(c, l, "a", where, &a) || jstr(c, l, "b", where, &b) || jstr(c, l, "kind", where, &kind) ||
		    jnum(c, l, "bandwidth_gbps", where, &g))
			return -1;
	}
	struct axl__pdev *pd = calloc(devs->len + 1, sizeof *pd);
	if (!pd)
		return JFAIL(c, "out of memory");
	size_t n = 0;
	for (size_t i = 0; i < devs->len; i++) {
		bool skip;
		if (pdev_from_json(c, &pd[n], &devs->items[i], i, &skip) != 0) {
			free(pd);
			return -1;
		}
		if (!skip)
			n++;
	}
	if (host && host_from_json(c, host, &pd[n], &n) != 0) {
		free(pd);
		return -1;
	}
	size_t first = p->ndevs;
	int rc = add_node_devs(p, name && *name ? name : hostname, nic, pd, n);
	free(pd);
	if (rc != 0)
		return rc; /* the error is set */
	struct axl__pnode *nd = &p->nodes[p->nnodes - 1];
	if (pnode > 0 || pdev > 0) {
		nd->price_node_hour = pnode > 0 ? pnode : NAN;
		nd->price_device_hour = pdev > 0 ? pdev : NAN;
		snprintf(nd->price_source, sizeof nd->price_source, "node file%s%.200s", psrc ? ": " : "",
			 psrc ? psrc : "");
	}
	node_instance(nd, itype);
	if (ver && ver->i > AXL__PLAN_NODE_VERSION)
		planner_warn(p, p->nodes[p->nnodes - 1].name, AXL__NEWER_DOC, (long long)ver->i,
			     AXL__PLAN_NODE_VERSION);
	for (size_t i = 0; links && i < links->len; i++) {
		const struct axl__jv *l = &links->items[i];
		double g;
		if (jnum(c, l, "bandwidth_gbps", "links", &g))
			g = -1;
		node_link(p, first, find_dev(p->devs + first, n, axl__jv_str(l, "a")),
			  find_dev(p->devs + first, n, axl__jv_str(l, "b")), axl__jv_str(l, "kind"), g);
	}
	return 0;
}

AXL_API int axl_planner_add_json(axl_planner *planner, const char *text, size_t len, const char *name)
{
	if (!planner || (!text && len))
		return axl__error(AXL_EINVAL, "axl_planner_add_json: NULL argument");
	struct jctx c = {{0}};
	struct axl__jdoc *doc = NULL;
	if (axl__jdoc_parse(text ? text : "", len, &doc, c.err, sizeof c.err) != 0)
		return axl__error(AXL_EPARSE, "inventory document: %s", c.err);
	c.err[0] = 0;
	int rc = add_json(planner, axl__jdoc_root(doc), name, &c);
	axl__jdoc_free(doc);
	if (rc < 0 && c.err[0])
		return axl__error(AXL_EPARSE, "inventory document: %s", c.err);
	return rc;
}
