/* SPDX-License-Identifier: MIT */
/*
 * Google TPUs. On Cloud TPU VMs they are handed to user space through VFIO
 * (vfio-pci; /dev/vfio/N from the IOMMU group, added by the generic scan), on older
 * images through the "accel" driver (/dev/accelN, a child class device). Edge TPUs
 * (Coral, 1ac1) use the apex driver (/dev/apex_N).
 */
#define _GNU_SOURCE
#include <string.h>

#include "backend_util.h"

static bool tpu_owns(const struct axl_device *dev)
{
	int64_t v = axl__int(dev, AXL_ATTR_VENDOR_ID, -1);
	return v == 0x1ae0 || v == 0x1ac1;
}

static int tpu_enrich(struct axl__scan *scan, struct axl_device *dev)
{
	const char *drv = axl__str(dev, AXL_ATTR_DRIVER);
	if (drv && (strcmp(drv, "apex") == 0 || strcmp(drv, "gasket") == 0))
		axl__module_version(scan, dev, drv);
	return 0;
}

const struct axl__backend axl__backend_tpu = {
	.name = "tpu",
	.owns = tpu_owns,
	.enrich = tpu_enrich,
};
