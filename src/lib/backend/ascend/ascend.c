/* SPDX-License-Identifier: MIT */
/*
 * Huawei Ascend NPUs (PCI driver devdrv_device_driver). Every container needs the
 * shared management nodes /dev/davinci_manager, /dev/devmm_svm and /dev/hisi_hdc
 * (Ascend docker runtime, ascend-device-plugin pkg/common/constants.go).
 *
 * The per-chip node /dev/davinciN is a class device created with no parent
 * (device_create(npu_class, NULL, ..., "davinci%d", devid) in the Ascend driver), and
 * devid is the driver's chip id, not the PCI order: a real 8x 910B2 node numbers its
 * chips c1,01,c2,02,81,41,82,42 (gpustack-runtime detect capture, bdf per physical
 * id). Nothing in sysfs ties davinciN to a PCI function, so axl names /dev/davinci0
 * only when the node has a single Ascend device, and otherwise lists the shared nodes
 * alone rather than a wrong chip. Identity, memory type and peaks come from the device
 * database; each chip's HBM size and AI Core count from Huawei's DCMI library where it is
 * installed (dcmi.c, its own row: backend "dcmi").
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "sysattr.h"

static bool ascend_owns(const struct axl_device *dev)
{
	return axl__int(dev, AXL_ATTR_VENDOR_ID, -1) == 0x19e5;
}

static int ascend_enrich(struct axl__scan *scan, const struct axl__backend *self, struct axl_device *dev)
{
	const char *drv = axl__str(dev, AXL_ATTR_DRIVER);
	if (!drv || strcmp(drv, "vfio-pci") == 0)
		return 0; /* not bound to the Ascend driver: none of its nodes */
	size_t ascend = 0;
	for (size_t i = 0; i < scan->inv->devs.n; i++) {
		const struct axl_device *d = scan->inv->devs.v[i];
		const char *dd = axl__str(d, AXL_ATTR_DRIVER);
		ascend += ascend_owns(d) && dd && strcmp(dd, "vfio-pci") != 0;
	}
	if (ascend == 1)
		axl__add_node(scan->inv, dev, "/dev/davinci0");
	axl__add_node(scan->inv, dev, "/dev/davinci_manager");
	axl__add_node(scan->inv, dev, "/dev/devmm_svm");
	axl__add_node(scan->inv, dev, "/dev/hisi_hdc");
	axl__driver_module_version(scan, dev);
	return 0;
}

/* runtime.c */
const struct axl_runtime *axl__ascend_runtime(const struct axl_device *dev);

static bool ascend_id(int vendor, int device, int cls)
{
	(void)vendor;
	(void)cls;
	return device == 0xd100 || device == 0xd105 || device == 0xd500 || device == 0xd801 ||
	       device == 0xd802 || device == 0xd803 || device == 0xd806;
}

/* the iBMC's Hi171x video */
static bool ibmc_console(int device)
{
	return device == 0x1710 || device == 0x1711;
}

static const struct axl__pci_vendor pci_vendors[] = {
	{.id = 0x19e5, .name = "Huawei", .prefix = "ascend",
	 .family = AXL_FAMILY_NPU, .console = ibmc_console, .accel_id = ascend_id},
	{0},
};
static const char *const drivers[] = {"drv_pcie", "devdrv_pcie", NULL};
/* the management nodes every container needs (see the top of this file) */
static const char *const shared_nodes[] = {"/dev/davinci_manager", "/dev/devmm_svm", "/dev/hisi_hdc", NULL};

static const struct axl__backend_facts ascend_facts = {
	.pci_vendors = pci_vendors,
	.drivers = drivers,
	.shared_nodes = shared_nodes,
};

static const struct axl__discover_ops ascend_discover = {
	.owns = ascend_owns,
	.enrich = ascend_enrich,
};

static const struct axl__runtime_ops ascend_runtime = {
	.files = axl__ascend_runtime,
};

const struct axl__backend axl__backend_ascend = {
	.name = "ascend",
	.facts = &ascend_facts,
	.discover = &ascend_discover,
	.runtime = &ascend_runtime,
};
