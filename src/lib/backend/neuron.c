/* SPDX-License-Identifier: MIT */
/*
 * AWS Inferentia and Trainium (the neuron driver). The driver numbers its devices in
 * probe order, which is PCI order, and creates /dev/neuronN for each; its class
 * devices are not children of the PCI device, so the node is matched by that order.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "backend_util.h"

static bool neuron_owns(const struct axl_device *dev)
{
	return axl__int(dev, AXL_ATTR_VENDOR_ID, -1) == 0x1d0f;
}

static int neuron_enrich(struct axl__scan *scan, struct axl_device *dev)
{
	const char *drv = axl__str(dev, AXL_ATTR_DRIVER);
	/* the module is "neuron", its PCI driver "neuron-driver" */
	if (!drv || (strcmp(drv, "neuron") != 0 && strcmp(drv, "neuron-driver") != 0))
		return 0;
	int n = axl__ordinal(scan->inv, dev);
	char node[32];
	snprintf(node, sizeof node, "/dev/neuron%d", n);
	axl__add_node(scan->inv, dev, node);
	axl__module_version(scan, dev, "neuron");
	return 0;
}

const struct axl__backend axl__backend_neuron = {
	.name = "neuron",
	.owns = neuron_owns,
	.enrich = neuron_enrich,
};
