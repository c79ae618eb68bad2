/* SPDX-License-Identifier: MIT */
/*
 * Habana Gaudi (habanalabs). The driver's attributes live on its class device: the
 * accel subsystem (accel/accelN) on current kernels, habanalabs/hlN on older ones:
 * device_type, status, cpucp_ver (armcp_ver before), serial number from the EEPROM is
 * not published, module_id is.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "backend_util.h"

#define SRC "habana"

static bool habana_owns(const struct axl_device *dev)
{
	return axl__int(dev, AXL_ATTR_VENDOR_ID, -1) == 0x1da3;
}

static int habana_enrich(struct axl__scan *scan, struct axl_device *dev)
{
	char cd[512];
	if (!axl__class_dev(scan, dev, "accel", cd, sizeof cd) &&
	    !axl__class_dev(scan, dev, "habanalabs", cd, sizeof cd))
		return 0;
	/* "hl0" sorts before "hl_controlD0": the first class device is the main one */
	axl__attr_str(scan, dev, cd, "status", AXL_ATTR_STATE, SRC);
	if (!axl__attr_str(scan, dev, cd, "cpucp_ver", AXL_ATTR_FIRMWARE_VERSION, SRC))
		axl__attr_str(scan, dev, cd, "armcp_ver", AXL_ATTR_FIRMWARE_VERSION, SRC);
	axl__module_version(scan, dev, "habanalabs");
	return 0;
}

const struct axl__backend axl__backend_habana = {
	.name = "habana",
	.owns = habana_owns,
	.enrich = habana_enrich,
};
