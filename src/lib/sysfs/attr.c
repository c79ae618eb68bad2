/* SPDX-License-Identifier: MIT */
/* The one attribute reader: a bounded read of a file under the sysroot, checked to be
 * text, stripped, with a warning for what should have been there and was not. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <unistd.h>
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "sysfs.h"
#include "util/parse.h"

static const char *errno_text(long e)
{
	switch (-e) {
	case ENOENT: return "missing";
	case EISDIR: return "is a directory, not a file";
	case ELOOP: return "symbolic link loop";
	case EFBIG: return "file too large";
	case EACCES: return "permission denied";
	case EPERM: return "permission denied";
	case EAGAIN: return "not a regular file";
	case ENOTDIR: return "a path component is not a directory";
	case ENAMETOOLONG: return "name too long";
	case EXDEV: return "link leaves the tree";
	case ENODEV: return "no such device";
	case ENXIO: return "no such device or address";
	case EIO: return "input/output error";
	case EINVAL: return "invalid argument (read refused by the driver)";
	default: return strerror((int)-e);
	}
}

bool axl__read_attr(struct axl_inventory *inv, const char *source, int dirfd, const char *dirpath,
		    const char *name, char *buf, size_t cap, unsigned flags)
{
	char path[512];
	long n;
	if (dirfd == AXL__FS_ROOT && dirpath) {
		snprintf(path, sizeof path, "%s/%s", dirpath, name);
		n = axl__fs_read(&inv->ctx->fs, dirfd, path, buf, cap);
	} else {
		n = axl__fs_read(&inv->ctx->fs, dirfd, name, buf, cap);
	}
	if (n < 0 || n == 0) {
		if (n == -ENOENT && !(flags & AXL__RD_REQUIRED))
			return false;
		if (n == -ENODATA || n == -EOPNOTSUPP || n == -ENODEV)
			return false; /* attribute not supported by this device */
		if (n == 0 && (flags & AXL__RD_EMPTY_OK))
			return true;
		snprintf(path, sizeof path, "%s%s%s", dirpath ? dirpath : "", dirpath ? "/" : "", name);
		if (n == 0)
			axl__warn(inv, source, path, "empty file");
		else
			axl__warn(inv, source, path, "%s", errno_text(n));
		return false;
	}
	/* binary junk where text is expected */
	if (!axl__is_text(buf, (size_t)n) || strlen(buf) != (size_t)n) {
		snprintf(path, sizeof path, "%s%s%s", dirpath ? dirpath : "", dirpath ? "/" : "", name);
		axl__warn(inv, source, path, "not text");
		return false;
	}
	char *s = axl__strip(buf);
	if (s != buf)
		memmove(buf, s, strlen(s) + 1);
	if (!*buf && !(flags & AXL__RD_EMPTY_OK)) {
		snprintf(path, sizeof path, "%s%s%s", dirpath ? dirpath : "", dirpath ? "/" : "", name);
		axl__warn(inv, source, path, "empty file");
		return false;
	}
	return true;
}

static void warn_parse(struct axl_inventory *inv, const char *source, const char *dirpath,
		       const char *name, const char *content, int rc)
{
	char path[512];
	snprintf(path, sizeof path, "%s%s%s", dirpath ? dirpath : "", dirpath ? "/" : "", name);
	axl__warn(inv, source, path, "%s: '%.40s%s'", rc == AXL_ERANGE ? "out of range" : "not a number",
		  content, strlen(content) > 40 ? "..." : "");
}

bool axl__read_u64(struct axl_inventory *inv, const char *source, int dirfd, const char *dirpath,
		   const char *name, int base, uint64_t *out, unsigned flags)
{
	char buf[128];
	if (!axl__read_attr(inv, source, dirfd, dirpath, name, buf, sizeof buf, flags))
		return false;
	int rc = axl__parse_u64(buf, base, out);
	if (rc) {
		warn_parse(inv, source, dirpath, name, buf, rc);
		return false;
	}
	return true;
}

bool axl__read_i64(struct axl_inventory *inv, const char *source, int dirfd, const char *dirpath,
		   const char *name, int64_t *out, unsigned flags)
{
	char buf[128];
	if (!axl__read_attr(inv, source, dirfd, dirpath, name, buf, sizeof buf, flags))
		return false;
	int rc = axl__parse_i64(buf, out);
	if (rc) {
		warn_parse(inv, source, dirpath, name, buf, rc);
		return false;
	}
	return true;
}

/* ---- an attribute directory: one fd, short relative reads ---------------------- */

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
