/* SPDX-License-Identifier: MIT */
/* The registry's questions over an inventory: which devices match a filter (family,
 * vendor, memory, native precision, visibility, NUMA node), which is the best by a
 * stated rank, and how much memory they hold together. */
#include <strings.h>

#include "internal.h"

/* A caller's filter as this library reads it (version checked, NULL: everything). */
static int filter_read(const struct axl_device_filter *in, struct axl_device_filter *f)
{
	struct axl_device_filter all = AXL_DEVICE_FILTER_INIT;
	if (!in) {
		*f = all;
		return 0;
	}
	if (in->version != AXL_DEVICE_FILTER_VERSION)
		return axl__error(AXL_EVERSION, "axl_device_filter version %u, this library knows %u", in->version,
				  AXL_DEVICE_FILTER_VERSION);
	*f = *in;
	if (f->family < -1 || f->family >= AXL_FAMILY__COUNT)
		return axl__error(AXL_EINVAL, "axl_device_filter: family %d is no axl_family", f->family);
	if (f->precision < -1 || f->precision >= AXL_FORMAT__COUNT)
		return axl__error(AXL_EINVAL, "axl_device_filter: precision %d is no axl_format", f->precision);
	if (f->min_memory_bytes < 0)
		return axl__error(AXL_EINVAL, "axl_device_filter: min_memory_bytes %lld is negative",
				  (long long)f->min_memory_bytes);
	if (f->visible < -1 || f->visible > 1)
		return axl__error(AXL_EINVAL, "axl_device_filter: visible is -1, 0 or 1, not %d", f->visible);
	if (f->numa_node < -1)
		return axl__error(AXL_EINVAL, "axl_device_filter: numa_node %d is negative", f->numa_node);
	return 0;
}

static bool matches(const struct axl_device *d, const struct axl_device_filter *f)
{
	int64_t v;
	if (f->family >= 0 && (int)axl_device_family(d) != f->family)
		return false;
	if (f->vendor) {
		const char *name = NULL;
		bool ok = axl_device_get_str(d, AXL_ATTR_VENDOR, &name) == 0 && strcasecmp(name, f->vendor) == 0;
		if (!ok && !(d->prefix && strcasecmp(d->prefix, f->vendor) == 0))
			return false;
	}
	if (f->min_memory_bytes > 0 &&
	    (axl_device_get_int(d, AXL_ATTR_MEMORY_TOTAL, &v) != 0 || v < f->min_memory_bytes))
		return false;
	if (f->precision >= 0) {
		bool native = false;
		for (size_t i = 0; i < d->precs.n; i++)
			native |=
			    (int)d->precs.v[i].format == f->precision && d->precs.v[i].support == AXL_SUPPORT_NATIVE;
		if (!native)
			return false;
	}
	if (f->visible >= 0 && (axl_device_get_int(d, AXL_ATTR_VISIBLE, &v) != 0 || (v != 0) != (f->visible != 0)))
		return false;
	if (f->numa_node >= 0 && (axl_device_get_int(d, AXL_ATTR_NUMA_NODE, &v) != 0 || v != f->numa_node))
		return false;
	return true;
}

AXL_API int axl_device_filter_match(const axl_device *dev, const struct axl_device_filter *filter)
{
	struct axl_device_filter f;
	if (!dev)
		return axl__error(AXL_EINVAL, "axl_device_filter_match: dev is NULL");
	int rc = filter_read(filter, &f);
	return rc ? rc : matches(dev, &f);
}

AXL_API int axl_inventory_select(const axl_inventory *inv, const struct axl_device_filter *filter,
				 const axl_device **out, size_t cap, size_t *count)
{
	struct axl_device_filter f;
	if (!inv || !count || (cap && !out))
		return axl__error(AXL_EINVAL, "axl_inventory_select: NULL argument");
	int rc = filter_read(filter, &f);
	if (rc)
		return rc;
	size_t n = 0;
	for (size_t i = 0; i < inv->devs.n; i++)
		if (matches(inv->devs.v[i], &f)) {
			if (n < cap)
				out[n] = inv->devs.v[i];
			n++;
		}
	*count = n;
	return 0;
}

AXL_API const char *axl_rank_name(axl_rank rank)
{
	switch (rank) {
	case AXL_RANK_NONE: return "none";
	case AXL_RANK_MEMORY: return "memory";
	case AXL_RANK_BANDWIDTH: return "bandwidth";
	case AXL_RANK_COMPUTE: return "compute";
	}
	return NULL;
}

AXL_API int axl_device_rank_value(const axl_device *dev, axl_rank rank, double *out)
{
	if (!dev || !out)
		return axl__error(AXL_EINVAL, "axl_device_rank_value: NULL argument");
	switch (rank) {
	case AXL_RANK_MEMORY: return axl_device_get_num(dev, AXL_ATTR_MEMORY_TOTAL, out);
	case AXL_RANK_BANDWIDTH: return axl_device_get_num(dev, AXL_ATTR_MEMORY_BANDWIDTH, out);
	case AXL_RANK_COMPUTE: {
		static const axl_format order[] = {AXL_FORMAT_BF16, AXL_FORMAT_FP16, AXL_FORMAT_FP32};
		for (size_t k = 0; k < sizeof order / sizeof *order; k++)
			for (size_t i = 0; i < dev->precs.n; i++)
				if (dev->precs.v[i].format == order[k] && dev->precs.v[i].peak_tflops > 0) {
					*out = dev->precs.v[i].peak_tflops;
					return 0;
				}
		return AXL_EUNKNOWN;
	}
	case AXL_RANK_NONE: break;
	}
	return axl__error(AXL_EINVAL, "axl_device_rank_value: rank %d is no ranking", (int)rank);
}

AXL_API int axl_inventory_best(const axl_inventory *inv, const struct axl_device_filter *filter, axl_rank rank,
			       const axl_device **out)
{
	struct axl_device_filter f;
	if (!inv || !out)
		return axl__error(AXL_EINVAL, "axl_inventory_best: NULL argument");
	*out = NULL;
	if (rank == AXL_RANK_NONE || !axl_rank_name(rank))
		return axl__error(AXL_EINVAL, "axl_inventory_best: rank %d is no ranking", (int)rank);
	int rc = filter_read(filter, &f);
	if (rc)
		return rc;
	size_t matched = 0;
	double best = 0;
	for (size_t i = 0; i < inv->devs.n; i++) {
		const struct axl_device *d = inv->devs.v[i];
		double v;
		if (!matches(d, &f))
			continue;
		matched++;
		if (axl_device_rank_value(d, rank, &v) == 0 && (!*out || v > best)) {
			*out = d;
			best = v;
		}
	}
	if (!matched)
		return axl__error(AXL_ENOENT, "no device matches the filter");
	if (!*out)
		return axl__error(AXL_EUNKNOWN, "none of the %zu devices that match knows its %s", matched,
				  axl_rank_name(rank));
	return 0;
}

AXL_API int axl_inventory_total_memory(const axl_inventory *inv, const struct axl_device_filter *filter,
				       int64_t *bytes, size_t *unknown)
{
	struct axl_device_filter f;
	if (!inv || !bytes)
		return axl__error(AXL_EINVAL, "axl_inventory_total_memory: NULL argument");
	int rc = filter_read(filter, &f);
	if (rc)
		return rc;
	int64_t sum = 0;
	size_t missing = 0;
	for (size_t i = 0; i < inv->devs.n; i++) {
		const struct axl_device *d = inv->devs.v[i];
		int64_t v;
		if (!matches(d, &f) || (axl_device_family(d) == AXL_FAMILY_CPU && f.family != AXL_FAMILY_CPU))
			continue;
		if (axl_device_get_int(d, AXL_ATTR_MEMORY_TOTAL, &v) == 0 && v > 0)
			sum += v;
		else
			missing++;
	}
	*bytes = sum;
	if (unknown)
		*unknown = missing;
	return 0;
}
