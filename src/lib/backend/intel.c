/* SPDX-License-Identifier: MIT */
/*
 * Intel GPUs (i915, xe) and NPUs (intel_vpu on the accel subsystem). The kernel tells
 * the tiles of a multi-tile GPU (xe: tileN directories of the PCI device; i915:
 * gt/gtN of the DRM card); nodes come from the generic class scan.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "backend_util.h"

static bool intel_owns(const struct axl_device *dev)
{
	return axl__int(dev, AXL_ATTR_VENDOR_ID, -1) == 0x8086;
}

static int count_prefixed(struct axl__scan *scan, const char *dir, const char *prefix)
{
	DIR *d = axl__fs_opendir(scan->fs, AXL__FS_ROOT, dir);
	if (!d)
		return 0;
	int n = 0;
	size_t pl = strlen(prefix);
	struct dirent *e;
	while ((e = readdir(d)) != NULL)
		if (strncmp(e->d_name, prefix, pl) == 0 && e->d_name[pl] >= '0' && e->d_name[pl] <= '9')
			n++;
	closedir(d);
	return n;
}

static int intel_enrich(struct axl__scan *scan, struct axl_device *dev)
{
	const char *drv = axl__str(dev, AXL_ATTR_DRIVER);
	if (!drv || !dev->syspath)
		return 0;
	if (strcmp(drv, "xe") == 0) {
		int tiles = count_prefixed(scan, dev->syspath, "tile");
		if (tiles > 0)
			axl__add_cu(scan->inv, dev, "tile", tiles, AXL_SOURCE_SYSFS);
	} else if (strcmp(drv, "i915") == 0) {
		char card[512], gt[600];
		if (axl__class_dev(scan, dev, "drm", card, sizeof card)) {
			snprintf(gt, sizeof gt, "%s/gt", card);
			int gts = count_prefixed(scan, gt, "gt");
			if (gts > 1)
				axl__add_cu(scan->inv, dev, "tile", gts, AXL_SOURCE_SYSFS);
		}
	}
	if (strcmp(drv, "intel_vpu") == 0 || strcmp(drv, "i915") == 0 || strcmp(drv, "xe") == 0)
		axl__module_version(scan, dev, drv);
	return 0;
}

const struct axl__backend axl__backend_intel = {
	.name = "intel",
	.owns = intel_owns,
	.enrich = intel_enrich,
};
