/* SPDX-License-Identifier: MIT */
/* The device and host attribute model: typed values with their source. */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"

static const uint8_t attr_type[AXL_ATTR__COUNT] = {
#define AXL__ATTR_TYPE(name, type, path) [AXL_ATTR_##name] = AXL__T_##type,
	AXL_DEVICE_ATTR_LIST(AXL__ATTR_TYPE)
#undef AXL__ATTR_TYPE
};

/* names as arrays, not pointers: no relocation at load (the longest is 35 bytes; a
 * longer one fails to compile) */
static const char attr_path[AXL_ATTR__COUNT][40] = {
#define AXL__ATTR_PATH(name, type, path) [AXL_ATTR_##name] = path,
	AXL_DEVICE_ATTR_LIST(AXL__ATTR_PATH)
#undef AXL__ATTR_PATH
};

static const uint8_t host_type[AXL_HOST__COUNT] = {
#define AXL__HATTR_TYPE(name, type, path) [AXL_HOST_##name] = AXL__T_##type,
	AXL_HOST_ATTR_LIST(AXL__HATTR_TYPE)
#undef AXL__HATTR_TYPE
};

static const char host_path[AXL_HOST__COUNT][40] = {
#define AXL__HATTR_PATH(name, type, path) [AXL_HOST_##name] = path,
	AXL_HOST_ATTR_LIST(AXL__HATTR_PATH)
#undef AXL__HATTR_PATH
};

AXL_API const char *axl_attr_name(axl_attr attr)
{
	return (unsigned)attr < AXL_ATTR__COUNT && attr_path[attr][0] ? attr_path[attr] : NULL;
}

AXL_API const char *axl_host_attr_name(axl_host_attr attr)
{
	return (unsigned)attr < AXL_HOST__COUNT && host_path[attr][0] ? host_path[attr] : NULL;
}

AXL_API const char *axl_family_name(axl_family family)
{
	static const char *const names[AXL_FAMILY__COUNT] = {
#define AXL_FAMILY_NAME_(name, str) str,
		AXL_FAMILY_LIST(AXL_FAMILY_NAME_)
#undef AXL_FAMILY_NAME_
	};
	return (unsigned)family < AXL_FAMILY__COUNT ? names[family] : "unknown";
}

AXL_API const char *axl_format_name(axl_format format)
{
	static const char *const names[AXL_FORMAT__COUNT] = {
		"FP64", "FP32", "TF32", "BF16", "FP16", "FP8", "INT8", "FP6", "FP4", "INT4"};
	return (unsigned)format < AXL_FORMAT__COUNT ? names[format] : NULL;
}

AXL_API const char *axl_support_name(axl_support support)
{
	switch (support) {
	case AXL_SUPPORT_NATIVE: return "native";
	case AXL_SUPPORT_EMULATED: return "emulated";
	case AXL_SUPPORT_NONE: return "none";
	default: return "unknown";
	}
}

/* ---- getters ------------------------------------------------------------------- */

static int get_val(const struct axl__val *vals, const uint8_t *types, unsigned count, unsigned a,
		   int want, const struct axl__val **out)
{
	if (!vals || a >= count)
		return axl__error(AXL_EINVAL, "attribute %u out of range", a);
	int have = types[a] == AXL__T_B ? AXL__T_I : types[a];
	if (have != want && !(want == AXL__T_F && have == AXL__T_I))
		return axl__error(AXL_EINVAL, "attribute %u has another type", a);
	if (vals[a].src == AXL_SOURCE_NONE)
		return AXL_EUNKNOWN;
	*out = &vals[a];
	return 0;
}

AXL_API int axl_device_get_str(const axl_device *dev, axl_attr attr, const char **out)
{
	const struct axl__val *v = NULL;
	int rc = get_val(dev ? dev->attr : NULL, attr_type, AXL_ATTR__COUNT, (unsigned)attr, AXL__T_S, &v);
	if (rc == 0 && out)
		*out = v->v.s;
	return rc;
}

AXL_API int axl_device_get_int(const axl_device *dev, axl_attr attr, int64_t *out)
{
	const struct axl__val *v = NULL;
	int rc = get_val(dev ? dev->attr : NULL, attr_type, AXL_ATTR__COUNT, (unsigned)attr, AXL__T_I, &v);
	if (rc == 0 && out)
		*out = v->v.i;
	return rc;
}

AXL_API int axl_device_get_num(const axl_device *dev, axl_attr attr, double *out)
{
	const struct axl__val *v = NULL;
	int rc = get_val(dev ? dev->attr : NULL, attr_type, AXL_ATTR__COUNT, (unsigned)attr, AXL__T_F, &v);
	if (rc == 0 && out)
		*out = attr_type[attr] == AXL__T_F ? v->v.f : (double)v->v.i;
	return rc;
}

AXL_API axl_source axl_device_source(const axl_device *dev, axl_attr attr)
{
	if (!dev || (unsigned)attr >= AXL_ATTR__COUNT)
		return AXL_SOURCE_NONE;
	return (axl_source)dev->attr[attr].src;
}

AXL_API const char *axl_device_id(const axl_device *dev)
{
	if (!dev || dev->attr[AXL_ATTR_ID].src == AXL_SOURCE_NONE)
		return "";
	return dev->attr[AXL_ATTR_ID].v.s;
}

AXL_API axl_family axl_device_family(const axl_device *dev)
{
	if (!dev || dev->attr[AXL_ATTR_FAMILY].src == AXL_SOURCE_NONE)
		return AXL_FAMILY_UNKNOWN;
	return (axl_family)dev->attr[AXL_ATTR_FAMILY].v.i;
}

AXL_API size_t axl_device_node_count(const axl_device *dev) { return dev ? dev->nodes.n : 0; }
AXL_API const char *axl_device_node(const axl_device *dev, size_t i)
{
	return dev && i < dev->nodes.n ? dev->nodes.v[i] : NULL;
}
AXL_API size_t axl_device_compute_unit_count(const axl_device *dev) { return dev ? dev->cus.n : 0; }
AXL_API const struct axl_compute_unit *axl_device_compute_unit(const axl_device *dev, size_t i)
{
	return dev && i < dev->cus.n ? &dev->cus.v[i] : NULL;
}
AXL_API size_t axl_device_precision_count(const axl_device *dev) { return dev ? dev->precs.n : 0; }
AXL_API const struct axl_precision *axl_device_precision(const axl_device *dev, size_t i)
{
	return dev && i < dev->precs.n ? &dev->precs.v[i] : NULL;
}
AXL_API size_t axl_device_partitioning_count(const axl_device *dev) { return dev ? dev->parts.n : 0; }
AXL_API const struct axl_partitioning *axl_device_partitioning(const axl_device *dev, size_t i)
{
	return dev && i < dev->parts.n ? &dev->parts.v[i].pub : NULL;
}
AXL_API unsigned axl_device_sources(const axl_device *dev) { return dev ? dev->sources : 0; }
AXL_API const struct axl_partition_profile *axl_device_partition_profile(const axl_device *dev,
									  size_t i, size_t j)
{
	if (!dev || i >= dev->parts.n || j >= dev->parts.v[i].details.n)
		return NULL;
	return dev->parts.v[i].details.v[j];
}
AXL_API size_t axl_device_port_count(const axl_device *dev) { return dev ? dev->ports.n : 0; }
AXL_API const struct axl_port *axl_device_port(const axl_device *dev, size_t i)
{
	return dev && i < dev->ports.n ? &dev->ports.v[i] : NULL;
}
AXL_API const axl_device *axl_device_parent(const axl_device *dev) { return dev ? dev->parent : NULL; }
AXL_API size_t axl_device_child_count(const axl_device *dev) { return dev ? dev->children.n : 0; }
AXL_API const axl_device *axl_device_child(const axl_device *dev, size_t i)
{
	return dev && i < dev->children.n ? dev->children.v[i] : NULL;
}

AXL_API int axl_host_get_str(const axl_host *host, axl_host_attr attr, const char **out)
{
	const struct axl__val *v = NULL;
	int rc = get_val(host ? host->attr : NULL, host_type, AXL_HOST__COUNT, (unsigned)attr, AXL__T_S, &v);
	if (rc == 0 && out)
		*out = v->v.s;
	return rc;
}

AXL_API int axl_host_get_int(const axl_host *host, axl_host_attr attr, int64_t *out)
{
	const struct axl__val *v = NULL;
	int rc = get_val(host ? host->attr : NULL, host_type, AXL_HOST__COUNT, (unsigned)attr, AXL__T_I, &v);
	if (rc == 0 && out)
		*out = v->v.i;
	return rc;
}

AXL_API axl_source axl_host_source(const axl_host *host, axl_host_attr attr)
{
	if (!host || (unsigned)attr >= AXL_HOST__COUNT)
		return AXL_SOURCE_NONE;
	return (axl_source)host->attr[attr].src;
}

AXL_API size_t axl_host_isa_count(const axl_host *host) { return host ? host->isa.n : 0; }
AXL_API const char *axl_host_isa(const axl_host *host, size_t i)
{
	return host && i < host->isa.n ? host->isa.v[i] : NULL;
}
AXL_API size_t axl_host_numa_node_count(const axl_host *host) { return host ? host->numa.n : 0; }
AXL_API const struct axl_numa_node *axl_host_numa_node(const axl_host *host, size_t i)
{
	return host && i < host->numa.n ? &host->numa.v[i] : NULL;
}

/* ---- setters ------------------------------------------------------------------- */

struct axl_device *axl__device_new(struct axl_inventory *inv, const char *owner, const char *prefix)
{
	struct axl_device *dev = calloc(1, sizeof *dev);
	if (!dev)
		return NULL;
	struct axl_device **slot = AXL__VEC_PUSH(inv->devs);
	if (!slot) {
		free(dev);
		return NULL;
	}
	*slot = dev;
	dev->owner = owner;
	dev->prefix = prefix;
	dev->numa_node = -1;
	dev->visible_in_list = true;
	return dev;
}

void *axl__device_data(struct axl_inventory *inv, struct axl_device *dev, const struct axl__backend *be)
{
	if (dev->bdata)
		return dev->bdata_of == be ? dev->bdata : NULL;
	if (!be->device_size)
		return NULL;
	dev->bdata = axl__arena_alloc(&inv->arena, be->device_size);
	if (dev->bdata)
		dev->bdata_of = be;
	return dev->bdata;
}

const void *axl__device_data_of(const struct axl_device *dev, const struct axl__backend *be)
{
	return dev->bdata_of == be ? dev->bdata : NULL;
}

struct axl_device *axl__child_new(struct axl_inventory *inv, struct axl_device *parent,
				  const char *suffix)
{
	struct axl_device *dev = calloc(1, sizeof *dev);
	if (!dev)
		return NULL;
	struct axl_device **slot = AXL__VEC_PUSH(parent->children);
	const char *s = axl__arena_strdup(&inv->arena, suffix);
	if (!slot || !s) {
		if (slot)
			parent->children.n--;
		free(dev);
		return NULL;
	}
	*slot = dev;
	dev->parent = parent;
	dev->child_suffix = s;
	dev->owner = parent->owner;
	dev->prefix = parent->prefix;
	dev->numa_node = -1;
	dev->visible_in_list = true;
	return dev;
}

void axl__device_free(struct axl_device *dev)
{
	if (!dev)
		return;
	AXL__VEC_FREE(dev->nodes);
	AXL__VEC_FREE(dev->cus);
	AXL__VEC_FREE(dev->precs);
	for (size_t i = 0; i < dev->parts.n; i++) {
		AXL__VEC_FREE(dev->parts.v[i].profiles);
		AXL__VEC_FREE(dev->parts.v[i].details);
	}
	AXL__VEC_FREE(dev->parts);
	AXL__VEC_FREE(dev->ports);
	for (size_t i = 0; i < dev->children.n; i++)
		axl__device_free(dev->children.v[i]);
	AXL__VEC_FREE(dev->children);
	free(dev);
}

static void mark(struct axl_device *dev, axl_source src)
{
	if ((unsigned)src < 32)
		dev->sources |= 1u << src;
}

bool axl__blank(const char *s)
{
	if (!s)
		return true;
	for (; *s; s++)
		if (!isspace((unsigned char)*s))
			return false;
	return true;
}

const char *axl__text(struct axl_inventory *inv, const char *s)
{
	if (axl__blank(s))
		return NULL;
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	return axl__arena_strndup(&inv->arena, s, n);
}

void axl__set_str(struct axl_inventory *inv, struct axl_device *dev, axl_attr a, axl_source src,
		  const char *s)
{
	if (!s || src == AXL_SOURCE_NONE)
		return;
	/* an empty or blank value (a file of NULs reads as "") is not known: left out */
	const char *copy = axl__text(inv, s);
	if (!copy)
		return;
	dev->attr[a].v.s = copy;
	dev->attr[a].src = (uint8_t)src;
	mark(dev, src);
}

void axl__set_int(struct axl_device *dev, axl_attr a, axl_source src, int64_t v)
{
	if (src == AXL_SOURCE_NONE)
		return;
	dev->attr[a].v.i = v;
	dev->attr[a].src = (uint8_t)src;
	mark(dev, src);
}

void axl__set_num(struct axl_device *dev, axl_attr a, axl_source src, double v)
{
	if (src == AXL_SOURCE_NONE)
		return;
	dev->attr[a].v.f = v;
	dev->attr[a].src = (uint8_t)src;
	mark(dev, src);
}

void axl__fill_str(struct axl_inventory *inv, struct axl_device *dev, axl_attr a, axl_source src,
		   const char *s)
{
	if (dev->attr[a].src == AXL_SOURCE_NONE)
		axl__set_str(inv, dev, a, src, s);
}

void axl__fill_int(struct axl_device *dev, axl_attr a, axl_source src, int64_t v)
{
	if (dev->attr[a].src == AXL_SOURCE_NONE)
		axl__set_int(dev, a, src, v);
}

void axl__fill_num(struct axl_device *dev, axl_attr a, axl_source src, double v)
{
	if (dev->attr[a].src == AXL_SOURCE_NONE)
		axl__set_num(dev, a, src, v);
}

bool axl__known(const struct axl_device *dev, axl_attr a)
{
	return dev->attr[a].src != AXL_SOURCE_NONE;
}

int64_t axl__int(const struct axl_device *dev, axl_attr a, int64_t dflt)
{
	return dev->attr[a].src != AXL_SOURCE_NONE ? dev->attr[a].v.i : dflt;
}

const char *axl__str(const struct axl_device *dev, axl_attr a)
{
	return dev->attr[a].src != AXL_SOURCE_NONE ? dev->attr[a].v.s : NULL;
}

int axl__add_node(struct axl_inventory *inv, struct axl_device *dev, const char *path)
{
	for (size_t i = 0; i < dev->nodes.n; i++)
		if (strcmp(dev->nodes.v[i], path) == 0)
			return 0;
	const char **slot = AXL__VEC_PUSH(dev->nodes);
	if (!slot)
		return AXL_ENOMEM;
	*slot = axl__arena_strdup(&inv->arena, path);
	if (!*slot) {
		dev->nodes.n--;
		return AXL_ENOMEM;
	}
	return 0;
}

int axl__add_cu(struct axl_inventory *inv, struct axl_device *dev, const char *name, int64_t count,
		axl_source src)
{
	for (size_t i = 0; i < dev->cus.n; i++) {
		if (strcmp(dev->cus.v[i].name, name) == 0) {
			/* a measured count beats the database's */
			if (src != AXL_SOURCE_DEVICEDB) {
				/* a measured count that differs from the database's: this device is
				 * not the whole SKU the database describes (a partition, fused-off
				 * units), so the database's other counts (Tensor / Matrix Cores, ...)
				 * do not describe it either and are dropped */
				if (dev->cus.v[i].source == AXL_SOURCE_DEVICEDB && dev->cus.v[i].count != count) {
					size_t k = 0, at = 0;
					for (size_t j = 0; j < dev->cus.n; j++)
						if (j == i || dev->cus.v[j].source != AXL_SOURCE_DEVICEDB) {
							if (j == i)
								at = k;
							dev->cus.v[k++] = dev->cus.v[j];
						}
					dev->cus.n = k;
					i = at;
				}
				dev->cus.v[i].count = count;
				dev->cus.v[i].source = src;
				mark(dev, src);
			}
			return 0;
		}
	}
	struct axl_compute_unit *cu = AXL__VEC_PUSH(dev->cus);
	if (!cu)
		return AXL_ENOMEM;
	cu->name = axl__arena_strdup(&inv->arena, name);
	cu->count = count;
	cu->source = src;
	mark(dev, src);
	return 0;
}

struct axl__part *axl__add_part(struct axl_inventory *inv, struct axl_device *dev,
				const char *technology, axl_source src)
{
	if (axl__blank(technology))
		return NULL; /* no name, no partitioning */
	for (size_t i = 0; i < dev->parts.n; i++)
		if (strcmp(dev->parts.v[i].pub.technology, technology) == 0)
			return &dev->parts.v[i];
	struct axl__part *p = AXL__VEC_PUSH(dev->parts);
	if (!p)
		return NULL;
	p->pub.technology = axl__arena_strdup(&inv->arena, technology);
	p->pub.max_partitions = -1;
	p->pub.source = src;
	mark(dev, src);
	return p;
}

int axl__part_add_profile(struct axl_inventory *inv, struct axl__part *p, const char *profile)
{
	if (axl__blank(profile))
		return AXL_EINVAL; /* a profile without a name is not one */
	for (size_t i = 0; i < p->profiles.n; i++)
		if (strcmp(p->profiles.v[i], profile) == 0)
			return 0;
	const char **slot = AXL__VEC_PUSH(p->profiles);
	if (!slot)
		return AXL_ENOMEM;
	*slot = axl__arena_strdup(&inv->arena, profile);
	p->pub.profiles = p->profiles.v;
	p->pub.profile_count = p->profiles.n;
	return 0;
}

struct axl_partition_profile *axl__part_profile(struct axl_inventory *inv, struct axl__part *p,
						const char *profile, axl_source src)
{
	if (axl__part_add_profile(inv, p, profile) != 0)
		return NULL;
	size_t j = 0;
	while (j < p->profiles.n && strcmp(p->profiles.v[j], profile) != 0)
		j++;
	while (p->details.n < p->profiles.n) {
		struct axl_partition_profile **slot = AXL__VEC_PUSH(p->details);
		if (!slot)
			return NULL;
	}
	if (!p->details.v[j]) {
		struct axl_partition_profile *d = axl__arena_alloc(&inv->arena, sizeof *d);
		if (!d)
			return NULL;
		d->name = p->profiles.v[j];
		d->id = d->memory_bytes = d->compute_units = d->slices = -1;
		d->max_instances = d->free_instances = -1;
		d->source = src;
		p->details.v[j] = d;
	}
	return p->details.v[j];
}

struct axl_port *axl__add_port(struct axl_inventory *inv, struct axl_device *dev,
			       const char *technology, axl_source src)
{
	struct axl_port *port = AXL__VEC_PUSH(dev->ports);
	if (!port)
		return NULL;
	port->technology = axl__arena_strdup(&inv->arena, technology);
	port->index = port->active = port->version = -1;
	port->bandwidth_gbps = -1;
	port->source = src;
	mark(dev, src);
	return port;
}

void axl__host_set_str(struct axl_inventory *inv, axl_host_attr a, axl_source src, const char *s)
{
	if (!s || src == AXL_SOURCE_NONE)
		return;
	const char *copy = axl__text(inv, s);
	if (!copy)
		return;
	inv->host.attr[a].v.s = copy;
	inv->host.attr[a].src = (uint8_t)src;
}

void axl__host_set_int(struct axl_inventory *inv, axl_host_attr a, axl_source src, int64_t v)
{
	if (src == AXL_SOURCE_NONE)
		return;
	inv->host.attr[a].v.i = v;
	inv->host.attr[a].src = (uint8_t)src;
}

static bool in_names(const char *const *names, const char *s)
{
	for (; names && *names; names++)
		if (strcmp(*names, s) == 0)
			return true;
	return false;
}

bool axl__node_is_shared(const char *p)
{
	if (!p)
		return false;
	/* the VFIO container node, whatever the device */
	if (strcmp(p, "/dev/vfio/vfio") == 0)
		return true;
	for (size_t b = 0; b < axl__backend_total; b++)
		if (axl__backends[b]->facts && in_names(axl__backends[b]->facts->shared_nodes, p))
			return true;
	return false;
}
