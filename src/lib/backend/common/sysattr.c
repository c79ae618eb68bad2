/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "sysattr.h"
#include "sysfs.h"
#include "devicedb.h"
#include "util/parse.h"

void axl__sriov(struct axl__scan *scan, struct axl_device *dev, const char *source)
{
	struct axl__adir d;
	if (!axl__adir_open(&d, scan, dev->syspath, source))
		return;
	uint64_t total, num;
	if (axl__adir_u64(&d, "sriov_totalvfs", 10, &total, 0) && total > 0 && total < 65536) {
		struct axl__part *p = axl__add_part(scan->inv, dev, "SR-IOV", AXL_SOURCE_SYSFS);
		if (p) {
			p->pub.max_partitions = (int64_t)total;
			p->pub.source = AXL_SOURCE_SYSFS;
			struct axl_partition_profile *vf = axl__part_profile(scan->inv, p, "VF", AXL_SOURCE_SYSFS);
			if (vf)
				vf->max_instances = (int64_t)total;
			if (axl__adir_u64(&d, "sriov_numvfs", 10, &num, 0) && num <= total) {
				p->pub.mode = num ? "enabled" : "disabled";
				if (vf)
					vf->free_instances = (int64_t)(total - num);
			}
		}
	}
	axl__adir_close(&d);
}

bool axl__db_knows(const struct axl__scan *scan, const struct axl_device *dev)
{
	if (!scan->ctx->devicedb_enabled)
		return false;
	if (dev->db)
		return true;
	if (!axl__known(dev, AXL_ATTR_VENDOR_ID) || !axl__known(dev, AXL_ATTR_DEVICE_ID))
		return false;
	return axl__db_lookup((int)axl__int(dev, AXL_ATTR_VENDOR_ID, -1), (int)axl__int(dev, AXL_ATTR_DEVICE_ID, -1),
			      (int)axl__int(dev, AXL_ATTR_SUBSYSTEM_VENDOR_ID, -1),
			      (int)axl__int(dev, AXL_ATTR_SUBSYSTEM_DEVICE_ID, -1),
			      (int)axl__int(dev, AXL_ATTR_REVISION, -1)) != NULL;
}

void axl__driver_module_version(struct axl__scan *scan, struct axl_device *dev)
{
	const char *drv = axl__str(dev, AXL_ATTR_DRIVER);
	if (!drv || strchr(drv, '/') || axl__known(dev, AXL_ATTR_DRIVER_VERSION))
		return;
	char path[300], target[300];
	snprintf(path, sizeof path, "/sys/bus/pci/drivers/%s/module", drv);
	if (axl__fs_readlink(scan->fs, AXL__FS_ROOT, path, target, sizeof target) <= 0)
		return;
	const char *mod = strrchr(target, '/');
	mod = mod ? mod + 1 : target;
	if (!*mod || strcmp(mod, "..") == 0 || strcmp(mod, ".") == 0)
		return;
	axl__module_version(scan, dev, mod);
}

const char *axl__future_id(struct axl_inventory *inv, const struct axl_device *dev)
{
	return axl__arena_printf(&inv->arena, "%s:%d", dev->prefix, axl__ordinal(inv, dev));
}
