/* SPDX-License-Identifier: MIT */
/*
 * Tenstorrent (tt-kmd). Class "tenstorrent", device "tenstorrent!N" = /dev/tenstorrent/N
 * (generic scan). Newer drivers publish tt_serial, tt_card_type, tt_fw_bundle_ver on
 * the class device.
 */
#define _GNU_SOURCE
#include <string.h>

#include "backend_util.h"

#define SRC "tenstorrent"

static bool tt_owns(const struct axl_device *dev)
{
	return axl__int(dev, AXL_ATTR_VENDOR_ID, -1) == 0x1e52;
}

static int tt_enrich(struct axl__scan *scan, struct axl_device *dev)
{
	char cd[512];
	if (axl__class_dev(scan, dev, "tenstorrent", cd, sizeof cd)) {
		axl__attr_str(scan, dev, cd, "tt_serial", AXL_ATTR_SERIAL, SRC);
		axl__attr_str(scan, dev, cd, "tt_fw_bundle_ver", AXL_ATTR_FIRMWARE_VERSION, SRC);
	}
	axl__module_version(scan, dev, "tenstorrent");
	return 0;
}

const struct axl__backend axl__backend_tenstorrent = {
	.name = "tenstorrent",
	.owns = tt_owns,
	.enrich = tt_enrich,
};
