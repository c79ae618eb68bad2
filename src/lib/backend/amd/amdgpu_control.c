/* SPDX-License-Identifier: MIT */
/* What control/ and sim/ ask of AMD GPUs (internal.h): switching a GPU's compute or
 * memory partition mode (amdgpu_part.c), and a simulated AMD GPU: its driver and the
 * XGMI hive of a group joined by an "xgmi" fabric (docs/sim.md). */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "amdgpu.h"
#include "devicedb.h"

static int amdgpu_set_mode(axl_context *ctx, const struct axl_device *d, const char *kind, const char *mode)
{
	if (ctx->sim)
		return axl__error(AXL_ENOTSUP, "%s: simulated nodes have no AMD partition modes to switch",
				  axl_device_id(d));
	return axl__amdgpu_set_partition_mode(&ctx->fs, d, kind, mode);
}

const struct axl__part_ops axl__amdgpu_parts = {
	.switches = "AMD GPUs",
	.set_mode = amdgpu_set_mode,
};

static int xgmi_check(const struct axl__db_entry *e, char *why, size_t cap)
{
	if (strcmp(axl__db_vendor(e), "AMD") == 0)
		return 0;
	snprintf(why, cap, "xgmi is AMD's, not %s's", axl__db_vendor(e));
	return -1;
}

/* xGMI of MI300-class parts: 64 GB/s per link and direction */
static void xgmi_link(const struct axl__db_entry *e, double *gbps, int *count)
{
	(void)e;
	*gbps = 64.0;
	*count = 1;
}

static double xgmi_gbps(const struct axl__db_entry *a, const struct axl__db_entry *b)
{
	(void)a, (void)b;
	return 64.0;
}

/* The nodes amdgpu makes for a GPU, as on a real node: its DRM card and render nodes
 * (minors counted from 0 and 128 in the order of the spec's AMD devices) and the
 * compute runtime's /dev/kfd, which every GPU shares. A GPU of an "xgmi" group is in the
 * group's hive (one id per group). */
static void sim_device(struct axl_inventory *inv, struct axl_device *d, const struct axl__sim_place *at)
{
	char node[48];
	snprintf(node, sizeof node, "/dev/dri/card%zu", at->minor);
	axl__add_node(inv, d, node);
	snprintf(node, sizeof node, "/dev/dri/renderD%zu", 128 + at->minor);
	axl__add_node(inv, d, node);
	axl__add_node(inv, d, "/dev/kfd");
	if (at->fabric && strcmp(at->fabric, "xgmi") == 0)
		d->fabric_domain = 0x51a000ull + (uint64_t)at->group + 1;
}

const struct axl__sim_ops axl__amdgpu_sim = {
	.driver = "amdgpu",
	.fabric = "xgmi",
	.fabric_check = xgmi_check,
	.fabric_link = xgmi_link,
	.link = "xgmi",
	.link_gbps = xgmi_gbps,
	.device = sim_device,
};
