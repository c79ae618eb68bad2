/* SPDX-License-Identifier: MIT */
/*
 * The best path between every pair of accelerators, from what discovery saw: a shared
 * XGMI hive (set by the amdgpu backend), an NVSwitch fabric (NVSwitches of the GPUs'
 * NVLink generation on the bus, fabric.c), else the PCI tree in sysfs (a shared PCIe
 * switch, the same host bridge), else NUMA placement (same node, or across nodes).
 * Vendor backends may add better links (NVLink, NVSwitch from NVML) before this runs; a
 * pair that already has a link keeps it, and gets the PCIe facts of its tree path.
 *
 * NVLink without switches (bridged pairs, DGX-1's hybrid cube mesh) cannot be seen in
 * sysfs: such pairs keep their PCIe path here.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "discover.h"

/* What links.c knows of one device. */
struct node {
	struct axl__chain chain;
	bool on_tree;
	double pcie;        /* GB/s, < 0 unknown */
	int nvs_links;      /* NVLinks into the NVSwitch fabric, 0 when not on one */
	double nvs_gbps;    /* per link and direction */
};

static ptrdiff_t index_of(const struct axl_inventory *inv, const char *id)
{
	for (size_t i = 0; id && i < inv->devs.n; i++)
		if (strcmp(axl_device_id(inv->devs.v[i]), id) == 0)
			return (ptrdiff_t)i;
	return -1;
}

/* The PCIe switches on the tree path of the links vendor backends added. */
static void annotate_prior(struct axl_inventory *inv, size_t prior, const struct node *nodes)
{
	for (size_t k = 0; k < prior; k++) {
		struct axl_link *l = &inv->links.v[k];
		ptrdiff_t i = index_of(inv, l->a), j = index_of(inv, l->b);
		int sw = -1;
		if (i >= 0 && j >= 0 && nodes[i].on_tree && nodes[j].on_tree)
			axl__pci_path(&nodes[i].chain, &nodes[j].chain, -1, -1, &sw);
		l->pcie_switches = sw;
	}
}

static void link_pair(struct axl_inventory *inv, size_t prior, size_t i, size_t j,
		      const struct node *nodes)
{
	const struct axl_device *a = inv->devs.v[i], *b = inv->devs.v[j];
	const struct node *na = &nodes[i], *nb = &nodes[j];
	int sw;
	enum axl__path path = axl__pci_path(na->on_tree ? &na->chain : NULL,
					    nb->on_tree ? &nb->chain : NULL, a->numa_node,
					    b->numa_node, &sw);
	bool xgmi = a->xgmi_hive && a->xgmi_hive == b->xgmi_hive;
	bool nvs = na->nvs_links > 0 && nb->nvs_links > 0;
	if (!xgmi && !nvs && path == AXL__PATH_NONE)
		return;
	struct axl_link *l = axl__link_new(inv, prior, a, b);
	if (!l)
		return;
	l->pcie_switches = sw;
	if (xgmi) {
		l->kind = "xgmi";
		l->source = AXL_SOURCE_SYSFS;
	} else if (nvs) {
		/* every GPU reaches every other through the switches with all its links */
		int links = na->nvs_links < nb->nvs_links ? na->nvs_links : nb->nvs_links;
		double ga = na->nvs_links * na->nvs_gbps, gb = nb->nvs_links * nb->nvs_gbps;
		l->kind = "nvswitch";
		l->link_count = links;
		l->bandwidth_gbps = ga < gb ? ga : gb;
		l->source = AXL_SOURCE_DERIVED;
	} else {
		l->kind = axl__path_kind(path);
		l->bandwidth_gbps = na->pcie < 0 || nb->pcie < 0 ? -1 : (na->pcie < nb->pcie ? na->pcie : nb->pcie);
		l->source = AXL_SOURCE_DERIVED;
	}
}

void axl__links_derive(struct axl__scan *scan)
{
	struct axl_inventory *inv = scan->inv;
	size_t n = inv->devs.n;
	size_t prior = inv->links.n;
	if (n > 4096)
		return; /* n^2 links would not help anybody */
	struct node *nodes = n ? calloc(n, sizeof *nodes) : NULL;
	if (n && !nodes) {
		inv->arena.failed = true;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const struct axl_device *d = inv->devs.v[i];
		nodes[i].on_tree = axl__chain_split(d->devpath, &nodes[i].chain);
		nodes[i].pcie = axl__pcie_gbps(d);
		if (!axl__nvswitch_member(inv, d, &nodes[i].nvs_links, &nodes[i].nvs_gbps))
			nodes[i].nvs_links = 0;
	}
	annotate_prior(inv, prior, nodes);
	for (size_t i = 0; i < n; i++) {
		if (axl_device_family(inv->devs.v[i]) == AXL_FAMILY_CPU)
			continue;
		for (size_t j = i + 1; j < n; j++)
			if (axl_device_family(inv->devs.v[j]) != AXL_FAMILY_CPU)
				link_pair(inv, prior, i, j, nodes);
	}
	free(nodes);
}
