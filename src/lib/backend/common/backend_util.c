/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "backend_util.h"
#include "sysfs.h"

bool axl__class_dev(struct axl__scan *scan, const struct axl_device *dev, const char *cls, char *out,
		    size_t cap)
{
	if (!dev->syspath)
		return false;
	char path[512];
	snprintf(path, sizeof path, "%s/%s", dev->syspath, cls);
	axl__dir *d = axl__fs_opendir(scan->fs, AXL__FS_ROOT, path);
	if (!d)
		return false;
	struct dirent *e;
	char best[256] = "";
	while ((e = axl__fs_readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		if (!best[0] || strcmp(e->d_name, best) < 0)
			snprintf(best, sizeof best, "%s", e->d_name);
	}
	axl__fs_closedir(d);
	if (!best[0])
		return false;
	snprintf(out, cap, "%s/%s", path, best);
	return true;
}

void axl__module_version(struct axl__scan *scan, struct axl_device *dev, const char *module)
{
	char path[128];
	snprintf(path, sizeof path, "/sys/module/%s/version", module);
	if (strlen(module) >= sizeof scan->modver_module) {
		/* a name too long to remember (no driver has one): read for each device */
		char buf[128];
		if (axl__read_attr(scan->inv, module, AXL__FS_ROOT, NULL, path, buf, sizeof buf, 0))
			axl__set_str(scan->inv, dev, AXL_ATTR_DRIVER_VERSION, AXL_SOURCE_SYSFS, buf);
		return;
	}
	/* every device of a driver has the same module: read it once per scan */
	if (!scan->modver_state || strcmp(scan->modver_module, module) != 0) {
		snprintf(scan->modver_module, sizeof scan->modver_module, "%s", module);
		scan->modver_state = axl__read_attr(scan->inv, module, AXL__FS_ROOT, NULL, path, scan->modver,
						    sizeof scan->modver, 0) ? 1 : -1;
	}
	if (scan->modver_state > 0)
		axl__set_str(scan->inv, dev, AXL_ATTR_DRIVER_VERSION, AXL_SOURCE_SYSFS, scan->modver);
}

bool axl__attr_str(struct axl__scan *scan, struct axl_device *dev, const char *dir, const char *name,
		   axl_attr attr, const char *source)
{
	char path[600], buf[512];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	/* an empty attribute is the driver saying "not known" (amdgpu's product_name
	 * on consumer boards): unknown, not a warning */
	if (!axl__read_attr(scan->inv, source, AXL__FS_ROOT, NULL, path, buf, sizeof buf, AXL__RD_EMPTY_OK) ||
	    !buf[0])
		return false;
	axl__set_str(scan->inv, dev, attr, AXL_SOURCE_SYSFS, buf);
	return true;
}

struct axl_device *axl__find_pci(struct axl_inventory *inv, unsigned domain, unsigned bus,
				 unsigned devno, unsigned fn)
{
	for (size_t i = 0; i < inv->devs.n; i++) {
		struct axl_device *d = inv->devs.v[i];
		if (d->has_pci && d->domain == domain && d->bus == bus && d->devno == devno && d->fn == fn)
			return d;
	}
	return NULL;
}

static bool before(const struct axl_device *x, const struct axl_device *y)
{
	unsigned kx[4] = {x->domain, x->bus, x->devno, x->fn};
	unsigned ky[4] = {y->domain, y->bus, y->devno, y->fn};
	for (int i = 0; i < 4; i++)
		if (kx[i] != ky[i])
			return kx[i] < ky[i];
	return false;
}

int axl__ordinal(const struct axl_inventory *inv, const struct axl_device *dev)
{
	int n = 0;
	for (size_t i = 0; i < inv->devs.n; i++) {
		const struct axl_device *d = inv->devs.v[i];
		if (d != dev && strcmp(d->prefix, dev->prefix) == 0 && before(d, dev))
			n++;
	}
	return n;
}
