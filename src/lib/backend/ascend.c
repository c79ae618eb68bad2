/* SPDX-License-Identifier: MIT */
/*
 * Huawei Ascend NPUs. The driver numbers NPUs in PCI order and creates /dev/davinciN
 * for each, plus the shared management nodes every container needs
 * (/dev/davinci_manager, /dev/devmm_svm, /dev/hisi_hdc).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "backend_util.h"

static bool ascend_owns(const struct axl_device *dev)
{
	return axl__int(dev, AXL_ATTR_VENDOR_ID, -1) == 0x19e5;
}

static int ascend_enrich(struct axl__scan *scan, struct axl_device *dev)
{
	const char *drv = axl__str(dev, AXL_ATTR_DRIVER);
	if (!drv)
		return 0; /* no driver bound: no nodes */
	char node[32];
	snprintf(node, sizeof node, "/dev/davinci%d", axl__ordinal(scan->inv, dev));
	axl__add_node(scan->inv, dev, node);
	axl__add_node(scan->inv, dev, "/dev/davinci_manager");
	axl__add_node(scan->inv, dev, "/dev/devmm_svm");
	axl__add_node(scan->inv, dev, "/dev/hisi_hdc");
	return 0;
}

const struct axl__backend axl__backend_ascend = {
	.name = "ascend",
	.owns = ascend_owns,
	.enrich = ascend_enrich,
};
