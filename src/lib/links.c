/* SPDX-License-Identifier: MIT */
/*
 * The best path between every pair of accelerators, from what discovery saw: a shared
 * XGMI hive (set by the amdgpu backend), else the PCI tree in sysfs (a shared PCIe
 * switch, the same host bridge), else NUMA placement (same node, or across nodes).
 * Vendor backends may add better links (NVLink, NVSwitch) before this runs; a pair
 * that already has a link keeps it.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "../util/parse.h"

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

/* Split "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0" into its root
 * ("pci0000:00") and the chain of bridge addresses above the device. */
struct chain {
	char root[32];
	const char *hops[32];
	size_t lens[32];
	int n;
};

static bool split(const char *devpath, struct chain *c)
{
	memset(c, 0, sizeof *c);
	if (!devpath)
		return false;
	const char *p = strstr(devpath, "/pci");
	if (!p)
		return false;
	p++;
	const char *slash = strchr(p, '/');
	if (!slash || (size_t)(slash - p) >= sizeof c->root)
		return false;
	memcpy(c->root, p, (size_t)(slash - p));
	p = slash + 1;
	while (*p && c->n < 32) {
		const char *e = strchr(p, '/');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		c->hops[c->n] = p;
		c->lens[c->n] = len;
		c->n++;
		if (!e)
			break;
		p = e + 1;
	}
	/* the last hop is the device itself */
	return c->n >= 1;
}

static void add_link(struct axl_inventory *inv, size_t prior, const struct axl_device *a,
		     const struct axl_device *b, const char *kind, double gbps, axl_source src)
{
	/* a vendor backend may have linked the pair already (NVLink beats PCIe); only
	 * those earlier links need checking: this pass visits each pair once */
	for (size_t i = 0; i < prior; i++) {
		const struct axl_link *l = &inv->links.v[i];
		if ((strcmp(l->a, axl_device_id(a)) == 0 && strcmp(l->b, axl_device_id(b)) == 0) ||
		    (strcmp(l->a, axl_device_id(b)) == 0 && strcmp(l->b, axl_device_id(a)) == 0))
			return;
	}
	struct axl_link *l = AXL__VEC_PUSH(inv->links);
	if (!l)
		return;
	l->a = axl_device_id(a);
	l->b = axl_device_id(b);
	l->kind = kind;
	l->bandwidth_gbps = gbps;
	l->source = src;
	l->link_count = -1;
}

struct axl_link *axl__link_add(struct axl_inventory *inv, const struct axl_device *a,
			       const struct axl_device *b, const char *kind, double gbps, axl_source src)
{
	size_t before = inv->links.n;
	add_link(inv, inv->links.n, a, b, kind, gbps, src);
	return inv->links.n > before ? &inv->links.v[inv->links.n - 1] : NULL;
}

void axl__links_derive(struct axl__scan *scan)
{
	struct axl_inventory *inv = scan->inv;
	size_t n = inv->devs.n;
	if (n < 2 || n > 4096)
		return; /* n^2 links would not help anybody */
	size_t prior = inv->links.n;
	struct chain *chains = malloc(n * sizeof *chains);
	bool *has = malloc(n * sizeof *has);
	double *gbps = malloc(n * sizeof *gbps);
	if (!chains || !has || !gbps) {
		free(chains);
		free(has);
		free(gbps);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		has[i] = split(inv->devs.v[i]->devpath, &chains[i]);
		gbps[i] = axl__pcie_gbps(inv->devs.v[i]);
	}
	for (size_t i = 0; i < n; i++) {
		const struct axl_device *a = inv->devs.v[i];
		if (axl_device_family(a) == AXL_FAMILY_CPU)
			continue;
		const struct chain *ca = &chains[i];
		for (size_t j = i + 1; j < n; j++) {
			const struct axl_device *b = inv->devs.v[j];
			if (axl_device_family(b) == AXL_FAMILY_CPU)
				continue;
			double pcie = gbps[i] < 0 || gbps[j] < 0 ? -1 : (gbps[i] < gbps[j] ? gbps[i] : gbps[j]);
			if (a->xgmi_hive && a->xgmi_hive == b->xgmi_hive) {
				add_link(inv, prior, a, b, "xgmi", -1, AXL_SOURCE_SYSFS);
				continue;
			}
			const struct chain *cb = &chains[j];
			if (has[i] && has[j] && strcmp(ca->root, cb->root) == 0) {
				/* common bridges above both devices (excluding the devices) */
				int common = 0;
				while (common < ca->n - 1 && common < cb->n - 1 &&
				       ca->lens[common] == cb->lens[common] &&
				       memcmp(ca->hops[common], cb->hops[common], ca->lens[common]) == 0)
					common++;
				/* sharing more than the root port means a switch in between */
				add_link(inv, prior, a, b, common >= 2 ? "pcie-switch" : "host-bridge", pcie,
					 AXL_SOURCE_DERIVED);
				continue;
			}
			if (a->numa_node >= 0 && b->numa_node >= 0) {
				add_link(inv, prior, a, b, a->numa_node == b->numa_node ? "numa" : "system", pcie,
					 AXL_SOURCE_DERIVED);
				continue;
			}
			if (has[i] && has[j]) /* different host bridges, NUMA not known */
				add_link(inv, prior, a, b, "system", pcie, AXL_SOURCE_DERIVED);
		}
	}
	free(chains);
	free(has);
	free(gbps);
}
