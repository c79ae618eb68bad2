/* SPDX-License-Identifier: MIT */
/*
 * Device nodes a container needs for a device. The general rule: every class device
 * the driver created under the PCI device (drm/card0, drm/renderD128, accel/accel0,
 * tenstorrent/tenstorrent!0, habanalabs/hl0, ...) publishes its /dev name as DEVNAME
 * in its uevent file. Vendor backends add the nodes the kernel does not tie to the
 * PCI device (NVIDIA's /dev/nvidiaN, /dev/kfd, VFIO groups).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "discover.h"
#include "util/parse.h"


static bool listed(const struct axl_device *d, const char *node)
{
	for (size_t i = 0; d && i < d->nodes.n; i++)
		if (strcmp(d->nodes.v[i], node) == 0)
			return true;
	return false;
}

/* Does a sibling partition of dev (another child of its parent) list node? */
static bool sibling_lists(const struct axl_device *dev, const char *node)
{
	const struct axl_device *p = dev->parent;
	for (size_t i = 0; p && i < p->children.n; i++)
		if (p->children.v[i] != dev && listed(p->children.v[i], node))
			return true;
	return false;
}

/* The best of dev's nodes that pass: a vendor's own node (/dev/nvidiaN, /dev/accel/accelN,
 * /dev/hl0) before a DRM render node, before any other DRM node. */
static const char *best_node(const struct axl_device *dev, int pass)
{
	const char *render = NULL, *drm = NULL;
	for (size_t i = 0; i < dev->nodes.n; i++) {
		const char *p = dev->nodes.v[i];
		if (axl__node_is_shared(p))
			continue;
		if (pass == 0 && listed(dev->parent, p))
			continue; /* a partition: not its parent's node */
		if (pass == 1 && sibling_lists(dev, p))
			continue; /* nor one its siblings share */
		if (strncmp(p, "/dev/dri/renderD", 16) == 0) {
			if (!render)
				render = p;
		} else if (strncmp(p, "/dev/dri/", 9) == 0) {
			if (!drm)
				drm = p;
		} else {
			return p;
		}
	}
	return render ? render : drm;
}

AXL_API const char *axl_device_primary_node(const axl_device *dev)
{
	if (!dev)
		return NULL;
	const char *n = best_node(dev, 0);
	/* a partition whose nodes its parent lists too (an AMD compute partition's render
	 * node): the one none of its siblings has */
	if (!n && dev->parent)
		n = best_node(dev, 1);
	return n;
}

/* Subdirectories of a PCI device that are not class directories, or whose nodes a
 * compute container does not need. */
static bool skip_dir(const char *name)
{
	static const char *const skip[] = {
		"power", "msi_irqs", "driver", "subsystem", "firmware_node", "iommu", "iommu_group",
		"physfn", "ptp", "net", "hwmon", "graphics", "infiniband", "infiniband_verbs",
		"infiniband_mad", "mdev_supported_types", "thermal", "backlight", "leds", "sound",
		"block", "nvme", "bsg", "typec", "usb", "wakeup", "remoteproc", "link",
		"vfio-dev", /* the iommufd cdev: runtimes hand out the group node */
	};
	if (name[0] == '.')
		return true;
	for (size_t i = 0; i < sizeof skip / sizeof *skip; i++)
		if (strcmp(name, skip[i]) == 0)
			return true;
	if (strncmp(name, "i2c-", 4) == 0 || strncmp(name, "virtfn", 6) == 0 ||
	    strncmp(name, "consumer:", 9) == 0 || strncmp(name, "supplier:", 9) == 0 ||
	    strncmp(name, "0000:", 5) == 0)
		return true;
	return false;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A DEVNAME must be a relative path of ordinary names: no "..", no absolute path. */
static bool sane_devname(const char *s)
{
	if (!*s || s[0] == '/' || strlen(s) > 128)
		return false;
	if (strstr(s, "..") || strstr(s, "//"))
		return false;
	for (const char *p = s; *p; p++)
		if (*p <= ' ' || *p == 0x7f)
			return false;
	return true;
}

static void scan_class_dir(struct axl__scan *scan, struct axl_device *dev, int dfd, const char *cls)
{
	axl__dir *d = axl__fs_opendir(scan->fs, dfd, cls);
	if (!d)
		return;
	struct dirent *e;
	int count = 0;
	while ((e = axl__fs_readdir(d)) != NULL && count < 64) {
		if (e->d_name[0] == '.')
			continue;
		if (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN)
			continue;
		char rel[512], buf[1024], name[256];
		snprintf(rel, sizeof rel, "%s/%s/uevent", cls, e->d_name);
		long n = axl__fs_read(scan->fs, dfd, rel, buf, sizeof buf);
		if (n <= 0)
			continue;
		if (axl__kv_find(buf, "DEVNAME", '=', name, sizeof name) != 0)
			continue;
		count++;
		if (!sane_devname(name)) {
			char path[768];
			snprintf(path, sizeof path, "%s/%s", dev->syspath ? dev->syspath : "", rel);
			axl__warn(scan->inv, "devnodes", path, "DEVNAME is not a plain /dev name");
			continue;
		}
		char full[300];
		snprintf(full, sizeof full, "/dev/%s", name);
		axl__add_node(scan->inv, dev, full);
	}
	axl__fs_closedir(d);
}

void axl__devnodes_scan(struct axl__scan *scan, struct axl_device *dev)
{
	if (dev->has_pci && dev->syspath) {
		int dfd = axl__fs_opendir_fd(scan->fs, AXL__FS_ROOT, dev->syspath);
		if (dfd >= 0) {
			axl__dir *d = axl__fs_opendir(scan->fs, dfd, ".");
			if (d) {
				struct dirent *e;
				/* collect names first: scan_class_dir opens more fds */
				char *names[64];
				int n = 0;
				while ((e = axl__fs_readdir(d)) != NULL && n < 64) {
					if (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN)
						continue;
					if (skip_dir(e->d_name))
						continue;
					names[n] = strdup(e->d_name);
					if (names[n])
						n++;
				}
				axl__fs_closedir(d);
				for (int i = 0; i < n; i++) {
					scan_class_dir(scan, dev, dfd, names[i]);
					free(names[i]);
				}
			}
			close(dfd);
		}
		/* a device handed to VFIO: its group node and the container node */
		const char *drv = axl__str(dev, AXL_ATTR_DRIVER);
		if (drv && strcmp(drv, "vfio-pci") == 0 && axl__known(dev, AXL_ATTR_IOMMU_GROUP)) {
			char p[64];
			snprintf(p, sizeof p, "/dev/vfio/%lld", (long long)axl__int(dev, AXL_ATTR_IOMMU_GROUP, 0));
			axl__add_node(scan->inv, dev, p);
			axl__add_node(scan->inv, dev, "/dev/vfio/vfio");
		}
	}
	if (dev->nodes.n > 1)
		qsort(dev->nodes.v, dev->nodes.n, sizeof *dev->nodes.v, cmp_str);
}
