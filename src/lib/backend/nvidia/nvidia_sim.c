/* SPDX-License-Identifier: MIT */
/* A simulated NVIDIA GPU (internal.h, struct axl__sim_ops; docs/sim.md): the nodes the
 * driver makes for it, its MIG mode and instances (mig_sim.c), NVLink between
 * two GPUs and an NVSwitch fabric joining a group. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "devicedb.h"
#include "backend.h"
#include "nvidia_control.h"
#include "nvidia_dev.h"
#include "mig_sim.h"

static int nvswitch_check(const struct axl__db_entry *e, char *why, size_t cap)
{
	if (e->fabric_links)
		return 0;
	snprintf(why, cap, "%s does not attach to an NVSwitch (no NVLink in the device database)", axl__db_name(e));
	return -1;
}

/* every GPU of the group reaches every other through all its NVLinks */
static void nvswitch_link(const struct axl__db_entry *e, double *gbps, int *count)
{
	*gbps = e->fabric_links * e->fabric_link_gbps;
	*count = e->fabric_links;
}

/* the slower end's NVLink rate, 25 GB/s when the database has none */
static double nvlink_gbps(const struct axl__db_entry *a, const struct axl__db_entry *b)
{
	double ga = a ? a->fabric_link_gbps : -1, gb = b ? b->fabric_link_gbps : -1;
	return ga > 0 && gb > 0 ? (ga < gb ? ga : gb) : 25.0;
}

/* After the device database's facts: the nodes, the MIG mode the spec sets, the instances. */
static void sim_device(struct axl_inventory *inv, struct axl_device *d, const struct axl__sim_place *at)
{
	/* /dev/nvidiaN with N its minor (the MIG capability minors of mig_sim.c count
	 * from the same N), and the driver's control and UVM nodes every CUDA process opens */
	axl__nvidia_set_minor(inv, d, (int)at->minor);
	char node[32];
	snprintf(node, sizeof node, "/dev/nvidia%d", (int)at->minor);
	axl__add_node(inv, d, node);
	axl__add_node(inv, d, "/dev/nvidiactl");
	axl__add_node(inv, d, "/dev/nvidia-uvm");
	axl__add_node(inv, d, "/dev/nvidia-uvm-tools");
	for (size_t k = 0; k < d->parts.n; k++) {
		struct axl__part *p = &d->parts.v[k];
		if (strcmp(p->pub.technology, "MIG") == 0)
			p->pub.mode = p->pub.pending_mode = at->parts_on ? "enabled" : "disabled";
	}
	axl__sim_mig_apply(inv, d, at->minor, at->parts_on, at->state);
}

const struct axl__sim_ops axl__nvidia_sim = {
	.driver = "nvidia",
	.uuid_prefix = "GPU-", /* as nvidia-smi writes them */
	.parts_key = "mig",
	.parts_technology = "MIG",
	.fabric = "nvswitch",
	.fabric_check = nvswitch_check,
	.fabric_link = nvswitch_link,
	.link = "nvlink",
	.link_gbps = nvlink_gbps,
	.device = sim_device,
};
