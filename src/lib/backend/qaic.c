/* SPDX-License-Identifier: MIT */
/* Qualcomm Cloud AI 100 (qaic, on the accel subsystem: /dev/accel/accelN). */
#define _GNU_SOURCE
#include "backend_util.h"

static bool qaic_owns(const struct axl_device *dev)
{
	return axl__int(dev, AXL_ATTR_VENDOR_ID, -1) == 0x17cb;
}

static int qaic_enrich(struct axl__scan *scan, struct axl_device *dev)
{
	axl__module_version(scan, dev, "qaic");
	return 0;
}

const struct axl__backend axl__backend_qaic = {
	.name = "qaic",
	.owns = qaic_owns,
	.enrich = qaic_enrich,
};
