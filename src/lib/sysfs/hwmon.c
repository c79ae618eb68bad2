/* SPDX-License-Identifier: MIT */
/* The hwmon directory of a PCI device (Documentation/ABI/testing/sysfs-class-hwmon). */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "sysfs.h"
#include "util/parse.h"

bool axl__hwmon_find(struct axl__scan *scan, const struct axl_device *dev, const char *name, char *out,
		     size_t cap)
{
	if (!dev->syspath)
		return false;
	char dir[512];
	snprintf(dir, sizeof dir, "%s/hwmon", dev->syspath);
	axl__dir *dh = axl__fs_opendir(scan->fs, AXL__FS_ROOT, dir);
	if (!dh)
		return false;
	struct dirent *e;
	long best = -1;
	int seen = 0;
	while ((e = axl__fs_readdir(dh)) != NULL && seen < 32) {
		uint64_t n;
		if (strncmp(e->d_name, "hwmon", 5) != 0 || axl__parse_u64(e->d_name + 5, 10, &n) != 0 ||
		    n > 1000000)
			continue;
		seen++;
		if (best >= 0 && (long)n >= best)
			continue;
		if (name) {
			char path[600], buf[64];
			snprintf(path, sizeof path, "%s/%s/name", dir, e->d_name);
			if (axl__fs_read(scan->fs, AXL__FS_ROOT, path, buf, sizeof buf) <= 0 ||
			    strcmp(axl__strip(buf), name) != 0)
				continue;
		}
		best = (long)n;
	}
	axl__fs_closedir(dh);
	if (best < 0)
		return false;
	snprintf(out, cap, "%s/hwmon%ld", dir, best);
	return true;
}
