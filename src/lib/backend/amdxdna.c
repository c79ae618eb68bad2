/* SPDX-License-Identifier: MIT */
/* AMD XDNA NPUs (Ryzen AI; amdxdna on the accel subsystem: /dev/accel/accelN). */
#define _GNU_SOURCE
#include <string.h>

#include "backend_util.h"

static bool xdna_owns(const struct axl_device *dev)
{
	return strcmp(dev->prefix, "amdxdna") == 0;
}

static int xdna_enrich(struct axl__scan *scan, struct axl_device *dev)
{
	axl__module_version(scan, dev, "amdxdna");
	return 0;
}

const struct axl__backend axl__backend_amdxdna = {
	.name = "amdxdna",
	.owns = xdna_owns,
	.enrich = xdna_enrich,
};
