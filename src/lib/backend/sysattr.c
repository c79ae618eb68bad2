/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sysattr.h"
#include "../../util/parse.h"

bool axl__adir_open(struct axl__adir *d, struct axl__scan *scan, const char *path, const char *source)
{
	d->scan = scan;
	d->path = path;
	d->source = source;
	d->fd = path ? axl__fs_opendir_fd(scan->fs, AXL__FS_ROOT, path) : -1;
	return d->fd >= 0;
}

void axl__adir_close(struct axl__adir *d)
{
	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
}

bool axl__adir_has(const struct axl__adir *d, const char *name)
{
	return d->fd >= 0 && axl__fs_exists(d->scan->fs, d->fd, name);
}

void axl__adir_warn(struct axl__adir *d, const char *name, const char *fmt, ...)
{
	char path[768], msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	snprintf(path, sizeof path, "%s/%s", d->path ? d->path : "", name);
	axl__warn(d->scan->inv, d->source, path, "%s", msg);
}

bool axl__adir_text(struct axl__adir *d, const char *name, char *buf, size_t cap, unsigned flags)
{
	if (d->fd < 0 || cap == 0)
		return false;
	long n = axl__fs_read(d->scan->fs, d->fd, name, buf, cap);
	if ((n == -EACCES || n == -EPERM) && (flags & AXL__SA_ROOT_ONLY))
		return false;
	if (n > 0 && axl__is_text(buf, (size_t)n) && strlen(buf) == (size_t)n) {
		char *s = axl__strip(buf);
		if (s != buf)
			memmove(buf, s, strlen(s) + 1);
		if (buf[0])
			return true;
		if (flags & AXL__SA_EMPTY_UNKNOWN)
			return false;
		axl__adir_warn(d, name, "empty file");
		return false;
	}
	if (n == 0 && (flags & AXL__SA_EMPTY_UNKNOWN))
		return false;
	/* every other outcome: the library's common rules and messages */
	axl__read_attr(d->scan->inv, d->source, d->fd, d->path, name, buf, cap,
		       (flags & AXL__SA_REQUIRED) ? AXL__RD_REQUIRED : AXL__RD_OPTIONAL);
	return false;
}

bool axl__adir_u64(struct axl__adir *d, const char *name, int base, uint64_t *out, unsigned flags)
{
	char buf[128];
	if (!axl__adir_text(d, name, buf, sizeof buf, flags))
		return false;
	int rc = axl__parse_u64(buf, base, out);
	if (rc) {
		axl__adir_warn(d, name, "%s: '%.40s'", rc == AXL_ERANGE ? "out of range" : "not a number", buf);
		return false;
	}
	return true;
}

bool axl__adir_set_str(struct axl__adir *d, struct axl_device *dev, const char *name, axl_attr attr,
		       unsigned flags)
{
	char buf[512];
	if (!axl__adir_text(d, name, buf, sizeof buf, flags))
		return false;
	axl__set_str(d->scan->inv, dev, attr, AXL_SOURCE_SYSFS, buf);
	return true;
}

bool axl__adir_set_int(struct axl__adir *d, struct axl_device *dev, const char *name, axl_attr attr,
		       int64_t mul, int64_t div, bool keep_zero, unsigned flags)
{
	uint64_t v;
	if (!axl__adir_u64(d, name, 10, &v, flags))
		return false;
	if (v > (uint64_t)INT64_MAX / (uint64_t)(mul > 0 ? mul : 1)) {
		axl__adir_warn(d, name, "out of range: %llu", (unsigned long long)v);
		return false;
	}
	if (v == 0 && !keep_zero)
		return false;
	axl__set_int(dev, attr, AXL_SOURCE_SYSFS, (int64_t)v * mul / (div > 0 ? div : 1));
	return true;
}

bool axl__adir_set_num(struct axl__adir *d, struct axl_device *dev, const char *name, axl_attr attr,
		       double factor, bool keep_zero, unsigned flags)
{
	uint64_t v;
	if (!axl__adir_u64(d, name, 10, &v, flags))
		return false;
	if (v == 0 && !keep_zero)
		return false;
	axl__set_num(dev, attr, AXL_SOURCE_SYSFS, (double)v * factor);
	return true;
}

bool axl__hwmon_find(struct axl__scan *scan, const struct axl_device *dev, const char *name, char *out,
		     size_t cap)
{
	if (!dev->syspath)
		return false;
	char dir[512];
	snprintf(dir, sizeof dir, "%s/hwmon", dev->syspath);
	DIR *dh = axl__fs_opendir(scan->fs, AXL__FS_ROOT, dir);
	if (!dh)
		return false;
	struct dirent *e;
	long best = -1;
	int seen = 0;
	while ((e = readdir(dh)) != NULL && seen < 32) {
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
	closedir(dh);
	if (best < 0)
		return false;
	snprintf(out, cap, "%s/hwmon%ld", dir, best);
	return true;
}

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
