/* SPDX-License-Identifier: MIT */
/*
 * The PCI backend: every function under /sys/bus/pci/devices, its identity, driver,
 * NUMA placement and link, and the rules that decide which functions are
 * accelerators. Identity comes from the first 64 bytes of config space (one read)
 * when the file is there and sane, else from the separate attribute files.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "discover.h"
#include "sysfs.h"
#include "util/parse.h"

#define SRC "pci"

/* Display controllers that are not accelerators: BMC and virtual-machine consoles (and
 * those of accelerator vendors: their rows' console rule). */
static bool display_only(int vendor, int device)
{
	switch (vendor) {
	case 0x1a03: /* ASPEED BMC */
	case 0x102b: /* Matrox (server BMC consoles) */
	case 0x1013: /* Cirrus Logic (emulated) */
	case 0x1234: /* QEMU standard VGA */
	case 0x15ad: /* VMware SVGA */
	case 0x1414: /* Hyper-V synthetic video */
	case 0x80ee: /* VirtualBox */
		return true;
	case 0x1b36: /* Red Hat QXL */
		return device == 0x0100;
	case 0x1af4: /* virtio-gpu */
		return device == 0x1050;
	default: {
		const struct axl__pci_vendor *v = axl__pci_vendor(vendor);
		return v && v->console && v->console(device);
	}
	}
}

static bool in_names(const char *const *names, const char *s)
{
	for (; names && *names; names++)
		if (strcmp(*names, s) == 0)
			return true;
	return false;
}

/* Drivers that only ever bind accelerators: the backends' (their drivers lists), and
 * those of makers no backend reads yet. */
static bool accel_driver(const char *drv)
{
	static const char *const no_backend[] = {"hydcu", "mtgpu", "cambricon_drv", NULL};
	if (!drv)
		return false;
	for (size_t b = 0; b < axl__backend_total; b++)
		if (axl__backends[b]->facts && in_names(axl__backends[b]->facts->drivers, drv))
			return true;
	return in_names(no_backend, drv);
}

/* Known accelerator ids whose class says otherwise (the vendor's rule). */
static bool accel_id(int vendor, int device, int cls)
{
	const struct axl__pci_vendor *v = axl__pci_vendor(vendor);
	return v && v->accel_id && v->accel_id(vendor, device, cls);
}

/* Family from the class and vendor (the device database may correct it later). */
static axl_family family_of(int vendor, int cls)
{
	if (cls >> 16 == 0x03)
		return AXL_FAMILY_GPU;
	const struct axl__pci_vendor *v = axl__pci_vendor(vendor);
	if (v && v->family_of)
		return v->family_of(cls);
	return v && v->family != AXL_FAMILY_UNKNOWN ? v->family : AXL_FAMILY_ASIC;
}

/* Classes no accelerator uses: mass storage, network, multimedia (audio), bridges
 * (NVSwitches too), serial bus (USB, UCSI). */
static bool class_rules_out(int cls)
{
	int base = cls >> 16;
	return base == 0x01 || base == 0x02 || base == 0x04 || base == 0x06 || base == 0x0c;
}

/* Decide; returns the reason for the record. */
static bool classify(int vendor, int device, int cls, const char *driver, axl_family *family,
		     const char **reason)
{
	int base = cls >= 0 ? cls >> 16 : -1;
	int sub = cls >= 0 ? (cls >> 8) & 0xff : -1;
	if (base == 0x03 && vendor >= 0 && display_only(vendor, device)) {
		*reason = "display controller of a BMC or virtual machine";
		return false;
	}
	/* a bridge (a fabric switch, a PCIe switch), audio or USB function is not one */
	if (cls >= 0 && class_rules_out(cls)) {
		*reason = "bridge, network, storage, audio or serial-bus class";
		return false;
	}
	if (base == 0x03) {
		*family = family_of(vendor, cls);
		*reason = "display class 0x03";
		return true;
	}
	if (base == 0x12) {
		*family = family_of(vendor, cls);
		*reason = "processing accelerator class 0x12";
		return true;
	}
	if (base == 0x0b && sub == 0x40) {
		*family = family_of(vendor, cls);
		*reason = "co-processor class 0x0b40";
		return true;
	}
	if (vendor >= 0 && device >= 0 && accel_id(vendor, device, cls)) {
		*family = family_of(vendor, cls);
		*reason = "known accelerator id";
		return true;
	}
	if (accel_driver(driver)) {
		*family = family_of(vendor, cls);
		*reason = "accelerator driver bound";
		return true;
	}
	*reason = cls < 0 ? "class not known" : "not an accelerator class";
	return false;
}

static int cmp_bdf(const void *a, const void *b)
{
	const struct axl__pcifn *x = a, *y = b;
	unsigned kx[4] = {x->domain, x->bus, x->devno, x->fn};
	unsigned ky[4] = {y->domain, y->bus, y->devno, y->fn};
	for (int i = 0; i < 4; i++)
		if (kx[i] != ky[i])
			return kx[i] < ky[i] ? -1 : 1;
	return 0;
}

static uint16_t le16(const unsigned char *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

/* Identity from config space; false when the file is missing or not usable. */
static bool read_config(struct axl_inventory *inv, int dfd, int *vendor, int *device, int *cls,
			int *rev, int *svendor, int *sdevice)
{
	int fd = axl__fs_open(&inv->ctx->fs, dfd, "config", O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return false;
	unsigned char cfg[64];
	ssize_t n;
	do
		n = pread(fd, cfg, sizeof cfg, 0);
	while (n < 0 && errno == EINTR);
	close(fd);
	if (n < 48)
		return false;
	uint16_t v = le16(cfg);
	if (v == 0xffff || v == 0x0000)
		return false; /* a VF or a device that does not answer: use the attributes */
	*vendor = v;
	*device = le16(cfg + 2);
	*rev = cfg[8];
	*cls = cfg[9] | (cfg[10] << 8) | (cfg[11] << 16);
	if ((cfg[0x0e] & 0x7f) == 0 && n >= 0x30) {
		*svendor = le16(cfg + 0x2c);
		*sdevice = le16(cfg + 0x2e);
	}
	return true;
}

static int read_hex_attr(struct axl_inventory *inv, int dfd, const char *dirpath, const char *name,
			 uint64_t max, unsigned flags)
{
	char buf[64];
	if (!axl__read_attr(inv, SRC, dfd, dirpath, name, buf, sizeof buf, flags))
		return -1;
	uint64_t v;
	int rc = axl__parse_hex(buf, max, &v);
	if (rc) {
		char path[512];
		snprintf(path, sizeof path, "%s/%s", dirpath, name);
		axl__warn(inv, SRC, path, "not a hexadecimal id: '%.32s'", buf);
		return -1;
	}
	return (int)v;
}

static void read_link(struct axl_inventory *inv, struct axl_device *dev, int dfd, const char *dirpath)
{
	char buf[64];
	int gen;
	uint64_t w;
	static const struct {
		const char *speed, *width;
		axl_attr gen_attr, width_attr;
	} rows[] = {
		{"current_link_speed", "current_link_width", AXL_ATTR_LINK_CURRENT_GEN, AXL_ATTR_LINK_CURRENT_WIDTH},
		{"max_link_speed", "max_link_width", AXL_ATTR_LINK_MAX_GEN, AXL_ATTR_LINK_MAX_WIDTH},
	};
	for (size_t i = 0; i < 2; i++) {
		if (axl__read_attr(inv, SRC, dfd, dirpath, rows[i].speed, buf, sizeof buf, 0)) {
			if (strncmp(buf, "Unknown", 7) != 0) {
				if (axl__parse_link_speed(buf, &gen) == 0)
					axl__set_int(dev, rows[i].gen_attr, AXL_SOURCE_SYSFS, gen);
				else {
					char path[512];
					snprintf(path, sizeof path, "%s/%s", dirpath, rows[i].speed);
					axl__warn(inv, SRC, path, "not a PCIe link speed: '%.32s'", buf);
				}
			}
		}
		if (axl__read_u64(inv, SRC, dfd, dirpath, rows[i].width, 10, &w, 0) && w > 0 && w <= 32)
			axl__set_int(dev, rows[i].width_attr, AXL_SOURCE_SYSFS, (int64_t)w);
	}
}

static void fill_device(struct axl__scan *scan, struct axl__pcifn *f, int dfd, const char *dirpath,
			axl_family family, int svendor, int sdevice, int rev)
{
	struct axl_inventory *inv = scan->inv;
	int vendor = f->pub.vendor_id;
	const char *prefix = vendor >= 0 ? axl__vendor_prefix(vendor, family) : "accel";
	struct axl_device *dev = axl__device_new(inv, "pci", prefix);
	if (!dev) {
		inv->arena.failed = true;
		return;
	}
	f->dev = dev;
	dev->has_pci = true;
	dev->domain = f->domain;
	dev->bus = f->bus;
	dev->devno = f->devno;
	dev->fn = f->fn;
	dev->syspath = axl__arena_strdup(&inv->arena, dirpath);
	dev->devpath = f->devpath;
	axl__set_str(inv, dev, AXL_ATTR_PCI_ADDRESS, AXL_SOURCE_SYSFS, f->pub.address);
	axl__set_int(dev, AXL_ATTR_FAMILY, AXL_SOURCE_DERIVED, family);
	if (vendor >= 0) {
		axl__set_int(dev, AXL_ATTR_VENDOR_ID, AXL_SOURCE_SYSFS, vendor);
		const char *vn = axl__vendor_name(vendor);
		if (vn)
			axl__set_str(inv, dev, AXL_ATTR_VENDOR, AXL_SOURCE_DERIVED, vn);
	}
	if (f->pub.device_id >= 0)
		axl__set_int(dev, AXL_ATTR_DEVICE_ID, AXL_SOURCE_SYSFS, f->pub.device_id);
	if (f->pub.class_code >= 0)
		axl__set_int(dev, AXL_ATTR_PCI_CLASS, AXL_SOURCE_SYSFS, f->pub.class_code);
	if (svendor >= 0)
		axl__set_int(dev, AXL_ATTR_SUBSYSTEM_VENDOR_ID, AXL_SOURCE_SYSFS, svendor);
	if (sdevice >= 0)
		axl__set_int(dev, AXL_ATTR_SUBSYSTEM_DEVICE_ID, AXL_SOURCE_SYSFS, sdevice);
	if (rev >= 0)
		axl__set_int(dev, AXL_ATTR_REVISION, AXL_SOURCE_SYSFS, rev);
	if (f->pub.driver)
		axl__set_str(inv, dev, AXL_ATTR_DRIVER, AXL_SOURCE_SYSFS, f->pub.driver);

	int64_t numa;
	if (axl__read_i64(inv, SRC, dfd, dirpath, "numa_node", &numa, 0)) {
		if (numa >= 0 && numa < 65536) {
			axl__set_int(dev, AXL_ATTR_NUMA_NODE, AXL_SOURCE_SYSFS, numa);
			dev->numa_node = (int)numa;
		} else if (numa != -1) {
			char path[512];
			snprintf(path, sizeof path, "%s/numa_node", dirpath);
			axl__warn(inv, SRC, path, "NUMA node out of range: %lld", (long long)numa);
		}
	}
	char buf[AXL__ATTR_CAP];
	unsigned ncpu;
	if (axl__read_attr(inv, SRC, dfd, dirpath, "local_cpulist", buf, sizeof buf, 0)) {
		if (axl__parse_cpulist(buf, 1u << 20, &ncpu) == 0)
			axl__set_str(inv, dev, AXL_ATTR_LOCAL_CPULIST, AXL_SOURCE_SYSFS, buf);
		else {
			char path[512];
			snprintf(path, sizeof path, "%s/local_cpulist", dirpath);
			axl__warn(inv, SRC, path, "not a CPU list: '%.40s'", buf);
		}
	}
	read_link(inv, dev, dfd, dirpath);
	char target[512];
	if (axl__fs_readlink(scan->fs, dfd, "iommu_group", target, sizeof target) > 0) {
		const char *base = strrchr(target, '/');
		base = base ? base + 1 : target;
		uint64_t g;
		if (axl__parse_u64(base, 10, &g) == 0 && g < (1u << 30))
			axl__set_int(dev, AXL_ATTR_IOMMU_GROUP, AXL_SOURCE_SYSFS, (int64_t)g);
	}
}

/* The kernel repeats a function's identity in its uevent (PCI_ID=10DE:2330,
 * PCI_CLASS=30200): used for what the attribute files did not give. */
static void identity_from_uevent(struct axl_inventory *inv, int dfd, const char *dirpath, int *vendor,
				 int *device, int *cls)
{
	char ue[2048], v[64];
	uint64_t x;
	bool have = axl__fs_read(&inv->ctx->fs, dfd, "uevent", ue, sizeof ue) > 0;
	if (have && axl__kv_find(ue, "PCI_ID", '=', v, sizeof v) == 0) {
		char *colon = strchr(v, ':');
		if (colon) {
			*colon = '\0';
			if (*vendor < 0 && axl__parse_hex(v, 0xffff, &x) == 0)
				*vendor = (int)x;
			if (*device < 0 && axl__parse_hex(colon + 1, 0xffff, &x) == 0)
				*device = (int)x;
		}
	}
	if (have && *cls < 0 && axl__kv_find(ue, "PCI_CLASS", '=', v, sizeof v) == 0 &&
	    axl__parse_hex(v, 0xffffff, &x) == 0)
		*cls = (int)x;
	static const char *const names[] = {"vendor", "device", "class"};
	const int vals[] = {*vendor, *device, *cls};
	for (int i = 0; i < 3; i++) {
		if (vals[i] < 0 && !axl__fs_exists(&inv->ctx->fs, dfd, names[i])) {
			char path[300];
			snprintf(path, sizeof path, "%s/%s", dirpath, names[i]);
			axl__warn(inv, SRC, path, "missing (and not in uevent)");
		}
	}
}

/* Identify one function (dirpath: its sysfs directory) and, when it is an
 * accelerator, describe it. */
static void scan_one(struct axl__scan *scan, struct axl__pcifn *f, const char *dirpath)
{
	struct axl_inventory *inv = scan->inv;
	char target[1024], resolved[1024];
	/* Fast path: most functions of a big node are bridges, NICs and storage,
	 * which the class alone rules out: one read, nothing else. A class that does not
	 * rule the function out is kept, not read again. */
	int fast_cls = -1;
	if (!(inv->flags & AXL_INVENTORY_ALL)) {
		char path[300], cbuf[64];
		uint64_t c;
		snprintf(path, sizeof path, "%s/class", dirpath);
		if (axl__fs_read(scan->fs, AXL__FS_ROOT, path, cbuf, sizeof cbuf) > 0 &&
		    axl__parse_hex(cbuf, 0xffffff, &c) == 0) {
			if (class_rules_out((int)c) &&
			    c != 0x068000 /* other bridges: fabric switches among them (fabric.c) */) {
				f->pub.class_code = (int)c;
				f->pub.reason = "bridge, network, storage, audio or serial-bus class";
				return;
			}
			fast_cls = (int)c;
		}
	}
	long ln = axl__fs_readlink(scan->fs, AXL__FS_ROOT, dirpath, target, sizeof target);
	if (ln > 0) {
		axl__resolve_link("/sys/bus/pci/devices", target, resolved, sizeof resolved);
		f->devpath = axl__arena_strdup(&inv->arena, resolved);
	}
	int dfd = axl__fs_opendir_fd(scan->fs, AXL__FS_ROOT, dirpath);
	if (dfd < 0) {
		axl__warn(inv, SRC, dirpath, "%s",
			  dfd == -ENOENT ? "dangling link" :
			  dfd == -ELOOP ? "symbolic link loop" : strerror(-dfd));
		f->pub.reason = "unreadable";
		return;
	}
	/* the attribute files come from the kernel's own copy of the ids (cheap);
	 * config space is read from the device (slow under a hypervisor), so only
	 * when the attributes are not there at all (a partial capture) */
	int vendor = -1, device = -1, cls = -1, rev = -1, svendor = -1, sdevice = -1;
	bool from_config = false;
	cls = fast_cls >= 0 ? fast_cls : read_hex_attr(inv, dfd, dirpath, "class", 0xffffff, 0);
	if (cls < 0 && !axl__fs_exists(scan->fs, dfd, "vendor"))
		from_config = read_config(inv, dfd, &vendor, &device, &cls, &rev, &svendor, &sdevice);
	if (!from_config) {
		vendor = read_hex_attr(inv, dfd, dirpath, "vendor", 0xffff, 0);
		device = read_hex_attr(inv, dfd, dirpath, "device", 0xffff, 0);
		if (cls < 0 || vendor < 0 || device < 0)
			identity_from_uevent(inv, dfd, dirpath, &vendor, &device, &cls);
	}
	f->pub.vendor_id = vendor;
	f->pub.device_id = device;
	f->pub.class_code = cls;
	long dl = axl__fs_readlink(scan->fs, dfd, "driver", target, sizeof target);
	if (dl > 0 && !f->pub.driver && !axl__fs_live(scan->fs)) {
		/* the link must lead to the driver's directory (in a captured or made-up tree;
		 * the running kernel's links do) */
		int drvfd = axl__fs_opendir_fd(scan->fs, dfd, "driver");
		if (drvfd == -EXDEV) {
			char full[300];
			snprintf(full, sizeof full, "%s/driver", dirpath);
			drvfd = axl__fs_opendir_fd(scan->fs, AXL__FS_ROOT, full);
		}
		/* a capture that did not copy /sys/bus/pci/drivers leaves the link dangling:
		 * its target still names the driver */
		if (drvfd == -ENOENT && strstr(target, "/drivers/") && !strstr(target, "/drivers/..")) {
			drvfd = -EEXIST;
		} else if (drvfd < 0) {
			char full[300];
			snprintf(full, sizeof full, "%s/driver", dirpath);
			axl__warn(inv, SRC, full, "%s", drvfd == -ELOOP ? "symbolic link loop" :
							drvfd == -ENOENT ? "dangling link" : strerror(-drvfd));
			dl = -1;
		} else {
			close(drvfd);
		}
	}
	if (dl > 0 && !f->pub.driver) {
		const char *base = strrchr(target, '/');
		f->pub.driver = axl__arena_strdup(&inv->arena, base ? base + 1 : target);
	}
	axl_family family = AXL_FAMILY_UNKNOWN;
	const char *reason = NULL;
	bool accel = classify(vendor, device, cls, f->pub.driver, &family, &reason);
	f->pub.reason = reason;
	f->pub.accelerator = accel;
	if (accel) {
		if (!from_config) {
			rev = read_hex_attr(inv, dfd, dirpath, "revision", 0xff, 0);
			svendor = read_hex_attr(inv, dfd, dirpath, "subsystem_vendor", 0xffff, 0);
			sdevice = read_hex_attr(inv, dfd, dirpath, "subsystem_device", 0xffff, 0);
		}
		fill_device(scan, f, dfd, dirpath, family, svendor, sdevice, rev);
	}
	else if (inv->flags & AXL_INVENTORY_ALL) {
		int64_t numa;
		char buf[32];
		if (axl__read_attr(inv, SRC, dfd, dirpath, "numa_node", buf, sizeof buf, 0) &&
		    axl__parse_i64(buf, &numa) == 0 && numa >= 0 && numa < 65536)
			f->numa_node = (int)numa;
	}
	close(dfd);
}

/* A new, not yet identified function record. */
static struct axl__pcifn *new_function(struct axl_inventory *inv, unsigned dom, unsigned bus,
				       unsigned dev, unsigned fn)
{
	struct axl__pcifn *f = AXL__VEC_PUSH(inv->pcifns);
	if (!f)
		return NULL;
	f->domain = dom;
	f->bus = bus;
	f->devno = dev;
	f->fn = fn;
	f->numa_node = -1;
	f->pub.address = axl__arena_printf(&inv->arena, "%04x:%02x:%02x.%u", dom, bus, dev, fn);
	f->pub.vendor_id = f->pub.device_id = f->pub.class_code = -1;
	return f;
}

/* GPUs the PCI bus directory does not show (a container that mounts only
 * /sys/class/drm, a partial capture): /sys/class/drm/cardN/device names its PCI
 * function in its uevent (PCI_SLOT_NAME). */
static void scan_drm_class(struct axl__scan *scan)
{
	struct axl_inventory *inv = scan->inv;
	axl__dir *d = axl__fs_opendir(scan->fs, AXL__FS_ROOT, "sys/class/drm");
	if (!d)
		return;
	struct dirent *e;
	char names[64][64];
	int n = 0;
	while ((e = axl__fs_readdir(d)) != NULL && n < 64) {
		/* cards only, not their connectors ("card1-DP-1") nor render nodes */
		if (strncmp(e->d_name, "card", 4) != 0 || strchr(e->d_name, '-') || strlen(e->d_name) >= 64)
			continue;
		snprintf(names[n++], 64, "%s", e->d_name);
	}
	axl__fs_closedir(d);
	for (int i = 0; i < n; i++) {
		char dirpath[128], ue[2048], slot[64];
		snprintf(dirpath, sizeof dirpath, "/sys/class/drm/%s/device", names[i]);
		if (!axl__read_attr(inv, SRC, AXL__FS_ROOT, dirpath, "uevent", ue, sizeof ue, 0))
			continue;
		unsigned dom, bus, dev, fn;
		if (axl__kv_find(ue, "PCI_SLOT_NAME", '=', slot, sizeof slot) != 0 ||
		    axl__parse_bdf(slot, &dom, &bus, &dev, &fn) != 0)
			continue; /* not a PCI device (a platform GPU): nothing to say here */
		bool known = false;
		for (size_t k = 0; k < inv->pcifns.n && !known; k++) {
			const struct axl__pcifn *f = &inv->pcifns.v[k];
			known = f->domain == dom && f->bus == bus && f->devno == dev && f->fn == fn;
		}
		if (known)
			continue;
		struct axl__pcifn *f = new_function(inv, dom, bus, dev, fn);
		if (!f)
			return;
		char drv[64];
		if (axl__kv_find(ue, "DRIVER", '=', drv, sizeof drv) == 0 && drv[0])
			f->pub.driver = axl__arena_strdup(&inv->arena, drv);
		scan_one(scan, f, dirpath);
	}
}

int axl__pci_scan(struct axl__scan *scan)
{
	struct axl_inventory *inv = scan->inv;
	axl__dir *d = axl__fs_opendir(scan->fs, AXL__FS_ROOT, "sys/bus/pci/devices");
	if (!d) {
		if (errno != ENOENT)
			axl__warn(inv, SRC, "/sys/bus/pci/devices", "cannot list: %s", strerror(errno));
		scan_drm_class(scan);
		return 0;
	}
	struct dirent *e;
	while ((e = axl__fs_readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		unsigned dom, bus, dev, fn;
		if (axl__parse_bdf(e->d_name, &dom, &bus, &dev, &fn) != 0) {
			char path[512];
			snprintf(path, sizeof path, "/sys/bus/pci/devices/%s", e->d_name);
			axl__warn(inv, SRC, path, "not a PCI address");
			continue;
		}
		if (inv->pcifns.n >= 65536)
			break;
		if (!new_function(inv, dom, bus, dev, fn))
			break;
	}
	axl__fs_closedir(d);
	if (inv->pcifns.n > 1)
		qsort(inv->pcifns.v, inv->pcifns.n, sizeof *inv->pcifns.v, cmp_bdf);

	for (size_t i = 0; i < inv->pcifns.n; i++) {
		char dirpath[256];
		snprintf(dirpath, sizeof dirpath, "/sys/bus/pci/devices/%s", inv->pcifns.v[i].pub.address);
		scan_one(scan, &inv->pcifns.v[i], dirpath);
	}
	scan_drm_class(scan);
	return 0;
}
