/* SPDX-License-Identifier: MIT */
/*
 * The best path between every pair of accelerators, from what discovery saw: a direct
 * fabric both sit on (the backends' fabric op says which: a hive of GPUs, switches of the
 * devices' generation on the bus, fabric.c), else the PCI tree in sysfs (a shared PCIe
 * switch, the same host bridge), else NUMA placement (same node, or across nodes).
 * Vendor backends may add better links (from their libraries) before this runs; a pair
 * that already has a link keeps it, and gets the PCIe facts of its tree path.
 *
 * Point-to-point links without switches (bridged pairs, meshes) cannot be seen in sysfs
 * by such rules: those pairs keep their PCIe path here unless a backend's link hook
 * added them.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "discover.h"

/* What links.c knows of one device. */
struct node {
	struct axl__chain chain;
	bool on_tree;
	double pcie;        /* GB/s, < 0 unknown */
	bool on_fabric;     /* fab says which direct fabric it sits on */
	struct axl__fabric fab;
};

/* The first backend (in table order) whose fabric op places the device on one. */
static bool fabric_of(const struct axl_inventory *inv, const struct axl_device *d,
		      struct axl__fabric *fab)
{
	for (size_t b = 0; b < axl__backend_total; b++) {
		const struct axl__backend *be = axl__backends[b];
		memset(fab, 0, sizeof *fab);
		if (be->fabric && be->fabric->device && be->fabric->device(inv, d, fab) && fab->kind)
			return true;
	}
	return false;
}

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
	bool fab = na->on_fabric && nb->on_fabric && strcmp(na->fab.kind, nb->fab.kind) == 0 &&
		   na->fab.domain == nb->fab.domain;
	if (!fab && path == AXL__PATH_NONE)
		return;
	struct axl_link *l = axl__link_new(inv, prior, a, b);
	if (!l)
		return;
	l->pcie_switches = sw;
	if (fab) {
		l->kind = na->fab.kind;
		l->source = na->fab.source;
		if (na->fab.links > 0 && nb->fab.links > 0) {
			/* each reaches the other with all its links (through switches): the
			 * smaller side's */
			int links = na->fab.links < nb->fab.links ? na->fab.links : nb->fab.links;
			double ga = na->fab.links * na->fab.link_gbps, gb = nb->fab.links * nb->fab.link_gbps;
			l->link_count = links;
			l->bandwidth_gbps = ga < gb ? ga : gb;
		} else if (!na->fab.links && !nb->fab.links && na->fab.link_gbps > 0 && nb->fab.link_gbps > 0) {
			/* ports not known: link_gbps is each device's whole bandwidth into it */
			l->bandwidth_gbps =
			    na->fab.link_gbps < nb->fab.link_gbps ? na->fab.link_gbps : nb->fab.link_gbps;
		}
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
		nodes[i].on_fabric = fabric_of(inv, d, &nodes[i].fab);
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
