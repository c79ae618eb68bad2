/* SPDX-License-Identifier: MIT */
/* The "axl.inventory" document (schema/axl-inventory.schema.json). Unknown values are
 * left out, never written as 0 or "". */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "../util/json.h"

static bool k(const struct axl_device *d, axl_attr a)
{
	return d->attr[a].src != AXL_SOURCE_NONE;
}

static void kstr(struct axl__json *w, const struct axl_device *d, const char *key, axl_attr a)
{
	if (k(d, a))
		axl__json_kstr(w, key, d->attr[a].v.s);
}

static void kint(struct axl__json *w, const struct axl_device *d, const char *key, axl_attr a)
{
	if (k(d, a))
		axl__json_kint(w, key, d->attr[a].v.i);
}

static void knum(struct axl__json *w, const struct axl_device *d, const char *key, axl_attr a)
{
	if (k(d, a))
		axl__json_knum(w, key, d->attr[a].v.f);
}

static void khex(struct axl__json *w, const struct axl_device *d, const char *key, axl_attr a, int digits)
{
	if (k(d, a)) {
		axl__json_key(w, key);
		axl__json_hex(w, (uint64_t)d->attr[a].v.i, digits);
	}
}

static bool any(const struct axl_device *d, const axl_attr *attrs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (k(d, attrs[i]))
			return true;
	return false;
}

#define ANY(d, ...) any(d, (const axl_attr[]){__VA_ARGS__}, sizeof((const axl_attr[]){__VA_ARGS__}) / sizeof(axl_attr))

static void write_device(struct axl__json *w, const struct axl_device *d)
{
	axl__json_obj(w);
	axl__json_kstr(w, "id", axl_device_id(d));
	kint(w, d, "index", AXL_ATTR_INDEX);
	kstr(w, d, "uuid", AXL_ATTR_UUID);
	kstr(w, d, "vendor", AXL_ATTR_VENDOR);
	khex(w, d, "vendor_id", AXL_ATTR_VENDOR_ID, 4);
	khex(w, d, "device_id", AXL_ATTR_DEVICE_ID, 4);
	khex(w, d, "subsystem_vendor_id", AXL_ATTR_SUBSYSTEM_VENDOR_ID, 4);
	khex(w, d, "subsystem_device_id", AXL_ATTR_SUBSYSTEM_DEVICE_ID, 4);
	khex(w, d, "revision", AXL_ATTR_REVISION, 2);
	axl__json_kstr(w, "family", axl_family_name(axl_device_family(d)));
	kstr(w, d, "model", AXL_ATTR_MODEL);
	kstr(w, d, "architecture", AXL_ATTR_ARCHITECTURE);
	if (ANY(d, AXL_ATTR_PCI_ADDRESS, AXL_ATTR_PCI_CLASS, AXL_ATTR_LINK_CURRENT_GEN,
		AXL_ATTR_LINK_CURRENT_WIDTH, AXL_ATTR_LINK_MAX_GEN, AXL_ATTR_LINK_MAX_WIDTH)) {
		axl__json_key(w, "pci");
		axl__json_obj(w);
		kstr(w, d, "address", AXL_ATTR_PCI_ADDRESS);
		if (k(d, AXL_ATTR_PCI_CLASS)) {
			axl__json_key(w, "class");
			axl__json_hex(w, (uint64_t)d->attr[AXL_ATTR_PCI_CLASS].v.i >> 8, 4);
		}
		if (ANY(d, AXL_ATTR_LINK_CURRENT_GEN, AXL_ATTR_LINK_CURRENT_WIDTH, AXL_ATTR_LINK_MAX_GEN,
			AXL_ATTR_LINK_MAX_WIDTH)) {
			axl__json_key(w, "link");
			axl__json_obj(w);
			kint(w, d, "current_gen", AXL_ATTR_LINK_CURRENT_GEN);
			kint(w, d, "current_width", AXL_ATTR_LINK_CURRENT_WIDTH);
			kint(w, d, "max_gen", AXL_ATTR_LINK_MAX_GEN);
			kint(w, d, "max_width", AXL_ATTR_LINK_MAX_WIDTH);
			axl__json_obj_end(w);
		}
		axl__json_obj_end(w);
	}
	kint(w, d, "numa_node", AXL_ATTR_NUMA_NODE);
	kstr(w, d, "local_cpulist", AXL_ATTR_LOCAL_CPULIST);
	kint(w, d, "iommu_group", AXL_ATTR_IOMMU_GROUP);
	if (ANY(d, AXL_ATTR_DRIVER, AXL_ATTR_DRIVER_VERSION)) {
		axl__json_key(w, "driver");
		axl__json_obj(w);
		kstr(w, d, "name", AXL_ATTR_DRIVER);
		kstr(w, d, "version", AXL_ATTR_DRIVER_VERSION);
		axl__json_obj_end(w);
	}
	axl__json_key(w, "device_nodes");
	axl__json_arr(w);
	for (size_t i = 0; i < d->nodes.n; i++)
		axl__json_str(w, d->nodes.v[i]);
	axl__json_arr_end(w);
	if (ANY(d, AXL_ATTR_MEMORY_TOTAL, AXL_ATTR_MEMORY_TYPE, AXL_ATTR_MEMORY_BUS_WIDTH,
		AXL_ATTR_MEMORY_BANDWIDTH, AXL_ATTR_L2_CACHE)) {
		axl__json_key(w, "memory");
		axl__json_obj(w);
		kint(w, d, "total_bytes", AXL_ATTR_MEMORY_TOTAL);
		kstr(w, d, "type", AXL_ATTR_MEMORY_TYPE);
		kint(w, d, "bus_width_bits", AXL_ATTR_MEMORY_BUS_WIDTH);
		knum(w, d, "bandwidth_gbps", AXL_ATTR_MEMORY_BANDWIDTH);
		kint(w, d, "l2_cache_bytes", AXL_ATTR_L2_CACHE);
		axl__json_obj_end(w);
	}
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
		const struct axl_partitioning *p = &d->parts.v[i].pub;
		axl__json_obj(w);
		axl__json_kstr(w, "technology", p->technology);
		if (p->max_partitions >= 0)
			axl__json_kint(w, "max_partitions", p->max_partitions);
		if (p->mode)
			axl__json_kstr(w, "mode", p->mode);
		axl__json_key(w, "profiles");
		axl__json_arr(w);
		for (size_t j = 0; j < p->profile_count; j++)
			axl__json_str(w, p->profiles[j]);
		axl__json_arr_end(w);
		axl__json_kstr(w, "source", axl_source_name(p->source));
		axl__json_obj_end(w);
	}
	axl__json_arr_end(w);
	if (k(d, AXL_ATTR_POWER_TDP)) {
		axl__json_key(w, "power");
		axl__json_obj(w);
		knum(w, d, "tdp_watts", AXL_ATTR_POWER_TDP);
		axl__json_obj_end(w);
	}
	if (ANY(d, AXL_ATTR_VBIOS_VERSION, AXL_ATTR_FIRMWARE_VERSION)) {
		axl__json_key(w, "firmware");
		axl__json_obj(w);
		kstr(w, d, "vbios", AXL_ATTR_VBIOS_VERSION);
		kstr(w, d, "version", AXL_ATTR_FIRMWARE_VERSION);
		axl__json_obj_end(w);
	}
	kstr(w, d, "serial", AXL_ATTR_SERIAL);
	kstr(w, d, "state", AXL_ATTR_STATE);
	kstr(w, d, "devicedb_key", AXL_ATTR_DB_KEY);
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
	axl__json_obj_end(w);
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

AXL_API int axl_inventory_json(const axl_inventory *inv, unsigned flags, char **out, size_t *len)
{
	if (!inv || !out)
		return axl__error(AXL_EINVAL, "axl_inventory_json: NULL argument");
	struct axl__sb sb = AXL__SB_INIT;
	struct axl__json w;
	axl__json_init(&w, &sb, flags & AXL_JSON_PRETTY);
	axl__json_obj(&w);
	axl__json_kstr(&w, "schema", "axl.inventory");
	axl__json_kint(&w, "schema_version", 1);
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
		write_device(&w, inv->devs.v[i]);
	axl__json_arr_end(&w);
	axl__json_key(&w, "links");
	axl__json_arr(&w);
	for (size_t i = 0; i < inv->links.n; i++) {
		const struct axl_link *l = &inv->links.v[i];
		axl__json_obj(&w);
		axl__json_kstr(&w, "a", l->a);
		axl__json_kstr(&w, "b", l->b);
		axl__json_kstr(&w, "kind", l->kind);
		if (l->bandwidth_gbps >= 0)
			axl__json_knum(&w, "bandwidth_gbps", l->bandwidth_gbps);
		axl__json_kstr(&w, "source", axl_source_name(l->source));
		axl__json_obj_end(&w);
	}
	axl__json_arr_end(&w);
	axl__json_key(&w, "warnings");
	axl__json_arr(&w);
	for (size_t i = 0; i < inv->warnings.n; i++) {
		const struct axl_warning *x = &inv->warnings.v[i];
		axl__json_obj(&w);
		axl__json_kstr(&w, "source", x->source);
		if (x->path)
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
			if (f->driver)
				axl__json_kstr(&w, "driver", f->driver);
			if (f->name)
				axl__json_kstr(&w, "name", f->name);
			axl__json_kbool(&w, "accelerator", f->accelerator);
			if (f->reason)
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
	}
	axl__json_obj_end(&w);
	return finish(&sb, out, len);
}
