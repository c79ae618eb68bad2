/* SPDX-License-Identifier: MIT */
/* Links between devices, the object model's side: adding one (the backends add what
 * their libraries report, discover/links.c derives the rest) and a PCIe link's bandwidth. */
#include <string.h>

#include "internal.h"
#include "util/pcie.h"

double axl__pcie_gbps(const struct axl_device *d)
{
	return axl__pcie_link_gbps(axl__int(d, AXL_ATTR_LINK_CURRENT_GEN, -1),
				   axl__int(d, AXL_ATTR_LINK_CURRENT_WIDTH, -1));
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
