/* SPDX-License-Identifier: MIT */
/* The "axl.inventory" document (schema/axl-inventory.schema.json). Unknown values are
 * left out, never written as 0 or "". */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "util/json.h"

/* The "axl.inventory" schema_version written here (docs/json.md "Versions"); the
 * planner's AXL__PLAN_NODE_VERSION (src/lib/plan/plan_node.c) reads the same. */
#define AXL__INVENTORY_VERSION 2

static const char *const attr_types =
#define AXL__ATTR_TCHAR(name, type, path) #type
	AXL_DEVICE_ATTR_LIST(AXL__ATTR_TCHAR)
#undef AXL__ATTR_TCHAR
	;

/* One scalar attribute as a JSON value, in its documented form. */
static void write_value(struct axl__json *w, const struct axl_device *d, unsigned a)
{
	const struct axl__val *v = &d->attr[a];
	switch (a) {
	case AXL_ATTR_VENDOR_ID:
	case AXL_ATTR_DEVICE_ID:
	case AXL_ATTR_SUBSYSTEM_VENDOR_ID:
	case AXL_ATTR_SUBSYSTEM_DEVICE_ID:
		axl__json_hex(w, (uint64_t)v->v.i, 4);
		return;
	case AXL_ATTR_REVISION:
		axl__json_hex(w, (uint64_t)v->v.i, 2);
		return;
	case AXL_ATTR_PCI_CLASS: /* 24-bit class code; the document carries class and subclass */
		axl__json_hex(w, (uint64_t)v->v.i >> 8, 4);
		return;
	case AXL_ATTR_FAMILY:
		axl__json_str(w, axl_family_name((axl_family)v->v.i));
		return;
	default:
		break;
	}
	switch (attr_types[a]) {
	case 'S': axl__json_str(w, v->v.s); break;
	case 'I': axl__json_int(w, v->v.i); break;
	case 'F': axl__json_num(w, v->v.f); break;
	case 'B': axl__json_bool(w, v->v.i != 0); break;
	default: axl__json_null(w); break;
	}
}

/* The n-th dot-separated component of path (its length in *len), NULL past the end. */
static const char *component(const char *path, unsigned n, size_t *len)
{
	const char *p = path;
	for (unsigned i = 0; i < n; i++) {
		p = strchr(p, '.');
		if (!p)
			return NULL;
		p++;
	}
	const char *e = strchr(p, '.');
	*len = e ? (size_t)(e - p) : strlen(p);
	return p;
}

/* Write the known attributes in attrs[0..n) as keys of the open object; those sharing
 * a path component at this depth become one nested object, at the place of the first. */
static void write_attrs(struct axl__json *w, const struct axl_device *d, const unsigned *attrs,
			size_t n, unsigned depth)
{
	bool done[AXL_ATTR__COUNT] = {false};
	for (size_t i = 0; i < n; i++) {
		if (done[i])
			continue;
		const char *path = axl_attr_name((axl_attr)attrs[i]);
		size_t len;
		const char *c = component(path, depth, &len);
		size_t rest;
		if (!component(path, depth + 1, &rest)) { /* a leaf at this depth */
			char key[64];
			if (len >= sizeof key)
				continue;
			memcpy(key, c, len);
			key[len] = '\0';
			axl__json_key(w, key);
			write_value(w, d, attrs[i]);
			continue;
		}
		unsigned group[AXL_ATTR__COUNT];
		size_t m = 0;
		for (size_t j = i; j < n; j++) {
			size_t l2;
			const char *p2 = axl_attr_name((axl_attr)attrs[j]);
			const char *c2 = component(p2, depth, &l2);
			size_t r2;
			if (!done[j] && c2 && l2 == len && memcmp(c2, c, len) == 0 && component(p2, depth + 1, &r2)) {
				group[m++] = attrs[j];
				done[j] = true;
			}
		}
		char key[64];
		if (len >= sizeof key)
			continue;
		memcpy(key, c, len);
		key[len] = '\0';
		axl__json_key(w, key);
		axl__json_obj(w);
		write_attrs(w, d, group, m, depth + 1);
		axl__json_obj_end(w);
	}
}

static void write_device(struct axl__json *w, const struct axl_device *d)
{
	axl__json_obj(w);
	axl__json_kstr(w, "id", axl_device_id(d));
	unsigned known[AXL_ATTR__COUNT];
	size_t n = 0;
	for (unsigned a = 0; a < AXL_ATTR__COUNT; a++)
		if (a != AXL_ATTR_ID && d->attr[a].src != AXL_SOURCE_NONE)
			known[n++] = a;
	write_attrs(w, d, known, n, 0);
	axl__json_key(w, "device_nodes");
	axl__json_arr(w);
	for (size_t i = 0; i < d->nodes.n; i++)
		axl__json_str(w, d->nodes.v[i]);
	axl__json_arr_end(w);
	/* a simulated device's nodes are the ones a real one would have; none exists */
	if (d->nodes.n && (d->sources & (1u << AXL_SOURCE_SIM)))
		axl__json_kbool(w, "device_nodes_simulated", true);
	axl__json_key(w, "compute_units");
	axl__json_arr(w);
	for (size_t i = 0; i < d->cus.n; i++) {
		axl__json_obj(w);
		axl__json_kstr(w, "name", d->cus.v[i].name);
		axl__json_kint(w, "count", d->cus.v[i].count);
		axl__json_kstr(w, "source", axl_source_name(d->cus.v[i].source));
		axl__json_obj_end(w);
	}
	axl__json_arr_end(w);
	axl__json_key(w, "precision");
	axl__json_arr(w);
	for (size_t i = 0; i < d->precs.n; i++) {
		const struct axl_precision *p = &d->precs.v[i];
		axl__json_obj(w);
		axl__json_kstr(w, "format", axl_format_name(p->format));
		axl__json_kstr(w, "support", axl_support_name(p->support));
		if (p->peak_tflops >= 0)
			axl__json_knum(w, "peak_tflops", p->peak_tflops);
		axl__json_kstr(w, "source", axl_source_name(p->source));
		axl__json_obj_end(w);
	}
	axl__json_arr_end(w);
	axl__json_key(w, "partitioning");
	axl__json_arr(w);
	for (size_t i = 0; i < d->parts.n; i++) {
		const struct axl__part *part = &d->parts.v[i];
		const struct axl_partitioning *p = &part->pub;
		axl__json_obj(w);
		axl__json_kstr(w, "technology", p->technology);
		if (p->max_partitions >= 0)
			axl__json_kint(w, "max_partitions", p->max_partitions);
		if (!axl__blank(p->mode))
			axl__json_kstr(w, "mode", p->mode);
		if (!axl__blank(p->pending_mode))
			axl__json_kstr(w, "pending_mode", p->pending_mode);
		axl__json_key(w, "profiles");
		axl__json_arr(w);
		for (size_t j = 0; j < p->profile_count; j++)
			axl__json_str(w, p->profiles[j]);
		axl__json_arr_end(w);
		bool details = false;
		for (size_t j = 0; j < part->details.n; j++)
			details |= part->details.v[j] != NULL;
		if (details) {
			axl__json_key(w, "profile_details");
			axl__json_arr(w);
			for (size_t j = 0; j < part->details.n; j++) {
				const struct axl_partition_profile *x = part->details.v[j];
				if (!x)
					continue;
				axl__json_obj(w);
				axl__json_kstr(w, "name", x->name);
				if (x->id >= 0)
					axl__json_kint(w, "id", x->id);
				if (x->memory_bytes >= 0)
					axl__json_kint(w, "memory_bytes", x->memory_bytes);
				if (x->compute_units >= 0)
					axl__json_kint(w, "compute_units", x->compute_units);
				if (x->slices >= 0)
					axl__json_kint(w, "slices", x->slices);
				if (x->max_instances >= 0)
					axl__json_kint(w, "max_instances", x->max_instances);
				if (x->free_instances >= 0)
					axl__json_kint(w, "free_instances", x->free_instances);
				axl__json_kstr(w, "source", axl_source_name(x->source));
				axl__json_obj_end(w);
			}
			axl__json_arr_end(w);
		}
		axl__json_kstr(w, "source", axl_source_name(p->source));
		axl__json_obj_end(w);
	}
	axl__json_arr_end(w);
	if (d->ports.n) {
		axl__json_key(w, "ports");
		axl__json_arr(w);
		for (size_t i = 0; i < d->ports.n; i++) {
			const struct axl_port *p = &d->ports.v[i];
			axl__json_obj(w);
			axl__json_kstr(w, "technology", p->technology);
			if (p->index >= 0)
				axl__json_kint(w, "index", p->index);
			if (p->active >= 0)
				axl__json_kbool(w, "active", p->active != 0);
			if (p->version >= 0)
				axl__json_kint(w, "version", p->version);
			if (!axl__blank(p->remote_pci))
				axl__json_kstr(w, "remote_pci", p->remote_pci);
			if (!axl__blank(p->remote_kind))
				axl__json_kstr(w, "remote_kind", p->remote_kind);
			if (!axl__blank(p->remote_id))
				axl__json_kstr(w, "remote_id", p->remote_id);
			if (p->bandwidth_gbps >= 0)
				axl__json_knum(w, "bandwidth_gbps", p->bandwidth_gbps);
			axl__json_kstr(w, "source", axl_source_name(p->source));
			axl__json_obj_end(w);
		}
		axl__json_arr_end(w);
	}
	if (d->children.n) {
		axl__json_key(w, "children");
		axl__json_arr(w);
		for (size_t i = 0; i < d->children.n; i++)
			write_device(w, d->children.v[i]);
		axl__json_arr_end(w);
	}
	axl__json_key(w, "sources");
	axl__json_arr(w);
	for (unsigned s = 1; s < AXL_SOURCE__COUNT; s++)
		if (d->sources & (1u << s))
			axl__json_str(w, axl_source_name((axl_source)s));
	axl__json_arr_end(w);
	axl__json_key(w, "field_sources");
	axl__json_obj(w);
	for (unsigned a = 0; a < AXL_ATTR__COUNT; a++)
		if (a != AXL_ATTR_ID && a != AXL_ATTR_INDEX && d->attr[a].src != AXL_SOURCE_NONE)
			axl__json_kstr(w, axl_attr_name((axl_attr)a), axl_source_name((axl_source)d->attr[a].src));
	axl__json_obj_end(w);
	axl__json_obj_end(w);
}

static void hstr(struct axl__json *w, const struct axl_host *h, const char *key, axl_host_attr a)
{
	if (h->attr[a].src)
		axl__json_kstr(w, key, h->attr[a].v.s);
}

static void hint(struct axl__json *w, const struct axl_host *h, const char *key, axl_host_attr a)
{
	if (h->attr[a].src)
		axl__json_kint(w, key, h->attr[a].v.i);
}

/* "runtime": the container, orchestrator and cloud around the process, each fact with
 * its source in "sources"; left out when none is known. */
static void write_runtime(struct axl__json *w, const struct axl_host *h)
{
	static const axl_host_attr facts[] = {AXL_HOST_RUNTIME_CONTAINER, AXL_HOST_RUNTIME_ORCHESTRATOR,
					      AXL_HOST_CLOUD_PROVIDER, AXL_HOST_CLOUD_INSTANCE_TYPE};
	static const char *const keys[] = {"container", "orchestrator", "cloud.provider", "cloud.instance_type"};
	bool any = false;
	for (size_t i = 0; i < sizeof facts / sizeof *facts; i++)
		any |= h->attr[facts[i]].src != AXL_SOURCE_NONE;
	if (!any)
		return;
	axl__json_key(w, "runtime");
	axl__json_obj(w);
	hstr(w, h, "container", AXL_HOST_RUNTIME_CONTAINER);
	hstr(w, h, "orchestrator", AXL_HOST_RUNTIME_ORCHESTRATOR);
	if (h->attr[AXL_HOST_CLOUD_PROVIDER].src || h->attr[AXL_HOST_CLOUD_INSTANCE_TYPE].src) {
		axl__json_key(w, "cloud");
		axl__json_obj(w);
		hstr(w, h, "provider", AXL_HOST_CLOUD_PROVIDER);
		hstr(w, h, "instance_type", AXL_HOST_CLOUD_INSTANCE_TYPE);
		axl__json_obj_end(w);
	}
	axl__json_key(w, "sources");
	axl__json_obj(w);
	for (size_t i = 0; i < sizeof facts / sizeof *facts; i++)
		if (h->attr[facts[i]].src)
			axl__json_kstr(w, keys[i], axl_source_name((axl_source)h->attr[facts[i]].src));
	axl__json_obj_end(w);
	axl__json_obj_end(w);
}

static void write_host(struct axl__json *w, const struct axl_host *h)
{
	axl__json_obj(w);
	hstr(w, h, "hostname", AXL_HOST_HOSTNAME);
	hstr(w, h, "kernel", AXL_HOST_KERNEL);
	axl__json_key(w, "cpu");
	axl__json_obj(w);
	hstr(w, h, "model", AXL_HOST_CPU_MODEL);
	hstr(w, h, "vendor", AXL_HOST_CPU_VENDOR);
	hstr(w, h, "architecture", AXL_HOST_CPU_ARCH);
	hint(w, h, "sockets", AXL_HOST_CPU_SOCKETS);
	hint(w, h, "cores", AXL_HOST_CPU_CORES);
	hint(w, h, "threads", AXL_HOST_CPU_THREADS);
	axl__json_key(w, "isa");
	axl__json_arr(w);
	for (size_t i = 0; i < h->isa.n; i++)
		axl__json_str(w, h->isa.v[i]);
	axl__json_arr_end(w);
	axl__json_obj_end(w);
	axl__json_key(w, "memory");
	axl__json_obj(w);
	hint(w, h, "total_bytes", AXL_HOST_MEMORY_TOTAL);
	hint(w, h, "limit_bytes", AXL_HOST_MEMORY_LIMIT);
	hint(w, h, "bandwidth_bytes_per_s", AXL_HOST_MEMORY_BANDWIDTH);
	axl__json_obj_end(w);
	if (h->attr[AXL_HOST_SYSTEM_VENDOR].src || h->attr[AXL_HOST_SYSTEM_PRODUCT].src) {
		axl__json_key(w, "system");
		axl__json_obj(w);
		hstr(w, h, "vendor", AXL_HOST_SYSTEM_VENDOR);
		hstr(w, h, "product", AXL_HOST_SYSTEM_PRODUCT);
		axl__json_obj_end(w);
	}
	write_runtime(w, h);
	axl__json_key(w, "numa_nodes");
	axl__json_arr(w);
	for (size_t i = 0; i < h->numa.n; i++) {
		const struct axl_numa_node *n = &h->numa.v[i];
		axl__json_obj(w);
		axl__json_kint(w, "id", n->id);
		axl__json_kstr(w, "cpulist", n->cpulist);
		if (n->memory_bytes >= 0)
			axl__json_kint(w, "memory_bytes", n->memory_bytes);
		if (n->distance_count) {
			axl__json_key(w, "distances");
			axl__json_arr(w);
			for (size_t j = 0; j < n->distance_count; j++)
				axl__json_int(w, n->distances[j]);
			axl__json_arr_end(w);
		}
		axl__json_obj_end(w);
	}
	axl__json_arr_end(w);
	axl__json_obj_end(w);
}

static void write_link(struct axl__json *w, const struct axl_link *l)
{
	axl__json_obj(w);
	axl__json_kstr(w, "a", l->a);
	axl__json_kstr(w, "b", l->b);
	axl__json_kstr(w, "kind", l->kind);
	if (l->bandwidth_gbps >= 0)
		axl__json_knum(w, "bandwidth_gbps", l->bandwidth_gbps);
	if (l->link_count >= 0)
		axl__json_kint(w, "link_count", l->link_count);
	if (l->pcie_switches >= 0)
		axl__json_kint(w, "pcie_switches", l->pcie_switches);
	if (l->p2p & AXL_P2P_KNOWN) {
		axl__json_key(w, "p2p");
		axl__json_obj(w);
		axl__json_kbool(w, "read", (l->p2p & AXL_P2P_READ) != 0);
		axl__json_kbool(w, "write", (l->p2p & AXL_P2P_WRITE) != 0);
		axl__json_kbool(w, "atomics", (l->p2p & AXL_P2P_ATOMICS) != 0);
		axl__json_kbool(w, "nvlink", (l->p2p & AXL_P2P_NVLINK) != 0);
		axl__json_obj_end(w);
	}
	axl__json_kstr(w, "source", axl_source_name(l->source));
	axl__json_obj_end(w);
}

static void write_switch(struct axl__json *w, const struct axl_switch *s)
{
	axl__json_obj(w);
	axl__json_kstr(w, "kind", s->kind);
	axl__json_kstr(w, "pci_address", s->pci_address);
	if (s->vendor_id >= 0) {
		axl__json_key(w, "vendor_id");
		axl__json_hex(w, (uint64_t)s->vendor_id, 4);
	}
	if (s->device_id >= 0) {
		axl__json_key(w, "device_id");
		axl__json_hex(w, (uint64_t)s->device_id, 4);
	}
	if (s->generation >= 0)
		axl__json_kint(w, "generation", s->generation);
	if (!axl__blank(s->driver))
		axl__json_kstr(w, "driver", s->driver);
	if (s->numa_node >= 0)
		axl__json_kint(w, "numa_node", s->numa_node);
	axl__json_kstr(w, "source", axl_source_name(s->source));
	axl__json_obj_end(w);
}

static void write_nic(struct axl__json *w, const struct axl_nic *n)
{
	axl__json_obj(w);
	axl__json_kstr(w, "name", n->name);
	if (!axl__blank(n->pci_address))
		axl__json_kstr(w, "pci_address", n->pci_address);
	if (n->numa_node >= 0)
		axl__json_kint(w, "numa_node", n->numa_node);
	if (!axl__blank(n->link_layer))
		axl__json_kstr(w, "link_layer", n->link_layer);
	/* every rate in JSON is GB/s in a key ending _gbps (docs/json.md "Units"): the
	 * kernel's Gb/s over 8, a 400 Gb/s port is 50 (schema_version 1 wrote rate_gbit) */
	if (n->rate_gbit >= 0)
		axl__json_knum(w, "rate_gbps", n->rate_gbit / 8);
	if (!axl__blank(n->state))
		axl__json_kstr(w, "state", n->state);
	if (n->port_count >= 0)
		axl__json_kint(w, "port_count", n->port_count);
	if (!axl__blank(n->node_guid))
		axl__json_kstr(w, "node_guid", n->node_guid);
	axl__json_kstr(w, "source", axl_source_name(n->source));
	axl__json_obj_end(w);
}

static int finish(struct axl__sb *sb, char **out, size_t *len)
{
	char *s = axl__sb_steal(sb, len);
	if (!s)
		return axl__error(AXL_ENOMEM, "out of memory writing JSON");
	*out = s;
	return 0;
}

AXL_API int axl_device_json(const axl_device *dev, unsigned flags, char **out, size_t *len)
{
	if (!dev || !out)
		return axl__error(AXL_EINVAL, "axl_device_json: NULL argument");
	struct axl__sb sb = AXL__SB_INIT;
	struct axl__json w;
	axl__json_init(&w, &sb, flags & AXL_JSON_PRETTY);
	write_device(&w, dev);
	return finish(&sb, out, len);
}

/* What axl_inventory_json_select() asked: which devices stay (keep[i] for devs.v[i]) and
 * the "selection" object's facts. NULL: the whole inventory. */
struct selection {
	const bool *keep;
	const struct axl_device_filter *filter;
	axl_rank rank;
	size_t matched;
	int64_t memory_bytes;
	size_t memory_unknown;
};

static bool kept_id(const axl_inventory *inv, const struct selection *sel, const char *id)
{
	if (!sel)
		return true;
	for (size_t i = 0; i < inv->devs.n; i++)
		if (sel->keep[i] && strcmp(axl_device_id(inv->devs.v[i]), id) == 0)
			return true;
	return false;
}

static void write_selection(struct axl__json *w, const struct selection *sel)
{
	const struct axl_device_filter *f = sel->filter;
	axl__json_key(w, "selection");
	axl__json_obj(w);
	axl__json_key(w, "filter");
	axl__json_obj(w);
	if (f && f->family >= 0)
		axl__json_kstr(w, "family", axl_family_name((axl_family)f->family));
	if (f && f->vendor)
		axl__json_kstr(w, "vendor", f->vendor);
	if (f && f->min_memory_bytes > 0)
		axl__json_kint(w, "min_memory_bytes", f->min_memory_bytes);
	if (f && f->precision >= 0)
		axl__json_kstr(w, "precision", axl_format_name((axl_format)f->precision));
	if (f && f->visible >= 0)
		axl__json_kbool(w, "visible", f->visible != 0);
	if (f && f->numa_node >= 0)
		axl__json_kint(w, "numa_node", f->numa_node);
	axl__json_obj_end(w);
	if (sel->rank != AXL_RANK_NONE)
		axl__json_kstr(w, "best_by", axl_rank_name(sel->rank));
	axl__json_kint(w, "matched", (int64_t)sel->matched);
	axl__json_key(w, "total_memory");
	axl__json_obj(w);
	axl__json_kint(w, "bytes", sel->memory_bytes);
	axl__json_kint(w, "devices_unknown", (int64_t)sel->memory_unknown);
	axl__json_obj_end(w);
	axl__json_obj_end(w);
}

static int write_document(const axl_inventory *inv, unsigned flags, const struct selection *sel, char **out,
			  size_t *len)
{
	struct axl__sb sb = AXL__SB_INIT;
	struct axl__json w;
	axl__json_init(&w, &sb, flags & AXL_JSON_PRETTY);
	axl__json_obj(&w);
	axl__json_kstr(&w, "schema", "axl.inventory");
	axl__json_kint(&w, "schema_version", AXL__INVENTORY_VERSION);
	axl__json_key(&w, "generator");
	axl__json_obj(&w);
	axl__json_kstr(&w, "name", "axl");
	axl__json_kstr(&w, "version", AXL_VERSION_STRING);
	axl__json_obj_end(&w);
	axl__json_kbool(&w, "rerooted", inv->ctx->fs.rerooted);
	axl__json_key(&w, "host");
	write_host(&w, &inv->host);
	axl__json_key(&w, "devices");
	axl__json_arr(&w);
	for (size_t i = 0; i < inv->devs.n; i++)
		if (!sel || sel->keep[i])
			write_device(&w, inv->devs.v[i]);
	axl__json_arr_end(&w);
	axl__json_key(&w, "links");
	axl__json_arr(&w);
	for (size_t i = 0; i < inv->links.n; i++)
		if (kept_id(inv, sel, inv->links.v[i].a) && kept_id(inv, sel, inv->links.v[i].b))
			write_link(&w, &inv->links.v[i]);
	axl__json_arr_end(&w);
	axl__json_key(&w, "switches");
	axl__json_arr(&w);
	for (size_t i = 0; i < inv->switches.n; i++)
		write_switch(&w, &inv->switches.v[i]);
	axl__json_arr_end(&w);
	axl__json_key(&w, "nics");
	axl__json_arr(&w);
	for (size_t i = 0; i < inv->nics.n; i++)
		write_nic(&w, &inv->nics.v[i].pub);
	axl__json_arr_end(&w);
	axl__json_key(&w, "nic_links");
	axl__json_arr(&w);
	for (size_t i = 0; i < inv->nic_links.n; i++)
		if (kept_id(inv, sel, inv->nic_links.v[i].a))
			write_link(&w, &inv->nic_links.v[i]);
	axl__json_arr_end(&w);
	axl__json_key(&w, "warnings");
	axl__json_arr(&w);
	for (size_t i = 0; i < inv->warnings.n; i++) {
		const struct axl_warning *x = &inv->warnings.v[i];
		axl__json_obj(&w);
		axl__json_kstr(&w, "source", x->source);
		if (!axl__blank(x->path))
			axl__json_kstr(&w, "path", x->path);
		axl__json_kstr(&w, "message", x->message);
		axl__json_obj_end(&w);
	}
	axl__json_arr_end(&w);
	if (inv->flags & AXL_INVENTORY_ALL) {
		axl__json_key(&w, "pci_functions");
		axl__json_arr(&w);
		for (size_t i = 0; i < inv->pcifns.n; i++) {
			const struct axl_pci_function *f = &inv->pcifns.v[i].pub;
			axl__json_obj(&w);
			axl__json_kstr(&w, "address", f->address);
			if (f->vendor_id >= 0) {
				axl__json_key(&w, "vendor_id");
				axl__json_hex(&w, (uint64_t)f->vendor_id, 4);
			}
			if (f->device_id >= 0) {
				axl__json_key(&w, "device_id");
				axl__json_hex(&w, (uint64_t)f->device_id, 4);
			}
			if (f->class_code >= 0) {
				axl__json_key(&w, "class");
				axl__json_hex(&w, (uint64_t)f->class_code >> 8, 4);
			}
			if (!axl__blank(f->driver))
				axl__json_kstr(&w, "driver", f->driver);
			if (!axl__blank(f->name))
				axl__json_kstr(&w, "name", f->name);
			axl__json_kbool(&w, "accelerator", f->accelerator);
			if (!axl__blank(f->reason))
				axl__json_kstr(&w, "reason", f->reason);
			axl__json_obj_end(&w);
		}
		axl__json_arr_end(&w);
	}
	if (flags & AXL_JSON_TIMING) {
		axl__json_key(&w, "timing");
		axl__json_obj(&w);
		for (size_t i = 0; i < inv->timings.n; i++)
			axl__json_knum(&w, inv->timings.v[i].stage, inv->timings.v[i].milliseconds);
		axl__json_obj_end(&w);
		axl__json_key(&w, "timing_syscalls");
		axl__json_obj(&w);
		for (size_t i = 0; i < inv->timings.n; i++)
			axl__json_kint(&w, inv->timings.v[i].stage, (int64_t)inv->timings.v[i].syscalls);
		axl__json_obj_end(&w);
	}
	if (sel)
		write_selection(&w, sel);
	axl__json_obj_end(&w);
	return finish(&sb, out, len);
}

AXL_API int axl_inventory_json(const axl_inventory *inv, unsigned flags, char **out, size_t *len)
{
	if (!inv || !out)
		return axl__error(AXL_EINVAL, "axl_inventory_json: NULL argument");
	return write_document(inv, flags, NULL, out, len);
}

AXL_API int axl_inventory_json_select(const axl_inventory *inv, const struct axl_device_filter *filter,
				      axl_rank rank, unsigned flags, char **out, size_t *len)
{
	if (!inv || !out)
		return axl__error(AXL_EINVAL, "axl_inventory_json_select: NULL argument");
	struct selection sel = {.filter = filter, .rank = rank};
	int rc = axl_inventory_select(inv, filter, NULL, 0, &sel.matched);
	if (rc == 0)
		rc = axl_inventory_total_memory(inv, filter, &sel.memory_bytes, &sel.memory_unknown);
	const axl_device *best = NULL;
	if (rc == 0 && rank != AXL_RANK_NONE)
		rc = axl_inventory_best(inv, filter, rank, &best);
	if (rc)
		return rc;
	bool *keep = calloc(inv->devs.n ? inv->devs.n : 1, sizeof *keep);
	if (!keep)
		return axl__error(AXL_ENOMEM, "out of memory");
	for (size_t i = 0; i < inv->devs.n; i++)
		keep[i] = best ? inv->devs.v[i] == best : axl_device_filter_match(inv->devs.v[i], filter) == 1;
	sel.keep = keep;
	rc = write_document(inv, flags, &sel, out, len);
	free(keep);
	return rc;
}
