/* SPDX-License-Identifier: MIT */
/* Links between devices, the object model's side: adding one (the backends add what
 * their libraries report, discover/links.c derives the rest) and a PCIe link's bandwidth. */
#include <string.h>

#include "internal.h"

/* PCIe bandwidth per lane and direction, GB/s, after line coding (gen 1..7). */
static const double lane_gbps[8] = {0, 0.25, 0.5, 0.985, 1.969, 3.938, 7.563, 15.125};

double axl__pcie_gbps(const struct axl_device *d)
{
	int64_t gen = axl__int(d, AXL_ATTR_LINK_CURRENT_GEN, -1);
	int64_t width = axl__int(d, AXL_ATTR_LINK_CURRENT_WIDTH, -1);
	if (gen < 1 || gen > 7 || width < 1)
		return -1;
	return lane_gbps[gen] * (double)width;
}

struct axl_link *axl__link_new(struct axl_inventory *inv, size_t prior, const struct axl_device *a,
			      const struct axl_device *b)
{
	/* a vendor backend may have linked the pair already (NVLink beats PCIe); only
	 * those earlier links need checking: this pass visits each pair once */
	for (size_t i = 0; i < prior; i++) {
		const struct axl_link *l = &inv->links.v[i];
		if ((strcmp(l->a, axl_device_id(a)) == 0 && strcmp(l->b, axl_device_id(b)) == 0) ||
		    (strcmp(l->a, axl_device_id(b)) == 0 && strcmp(l->b, axl_device_id(a)) == 0))
			return NULL;
	}
	struct axl_link *l = AXL__VEC_PUSH(inv->links);
	if (!l)
		return NULL;
	l->a = axl_device_id(a);
	l->b = axl_device_id(b);
	l->bandwidth_gbps = -1;
	l->link_count = -1;
	l->pcie_switches = -1;
	return l;
}

struct axl_link *axl__link_add(struct axl_inventory *inv, const struct axl_device *a,
			       const struct axl_device *b, const char *kind, double gbps, axl_source src)
{
	struct axl_link *l = axl__link_new(inv, inv->links.n, a, b);
	if (!l)
		return NULL;
	l->kind = kind;
	l->bandwidth_gbps = gbps;
	l->source = src;
	return l;
}
