/* SPDX-License-Identifier: MIT */
/*
 * AMD GPUs from the kernel alone. This file reads the PCI device's own attributes
 * (drivers/gpu/drm/amd/amdgpu, drivers/gpu/drm/amd/pm/amdgpu_pm.c); kfd.c reads the
 * KFD topology (CUs, XCCs, partitions, XGMI io_links).
 *   identity      product_name, serial_number, unique_id, vbios_version
 *   memory        mem_info_vram_total / _vram_used / _vis_vram_total / _gtt_total
 *                 (bytes, amdgpu_vram_mgr.c, amdgpu_gtt_mgr.c)
 *   partitions    current_/available_compute_partition (SPX DPX TPX QPX CPX),
 *                 current_/available_memory_partition (NPS1 NPS2 NPS4 NPS8); amdgpu
 *                 has no "pending" mode: a change applies at once, or not at all
 *   clocks        pp_dpm_sclk, pp_dpm_mclk: "N: <MHz>Mhz" per level, '*' on the
 *                 current one (amdgpu_pm.c; SMU 13 adds an "S:" deep-sleep level)
 *   hwmon         hwmon/hwmonN: power1_cap, power1_cap_default, power1_cap_max,
 *                 power1_average or power1_input in microwatts; temp1..3_input in
 *                 millidegrees Celsius, named by temp*_label: "edge", "junction"
 *                 (hotspot), "mem" (Documentation/gpu/amdgpu/thermal.rst). MI300
 *                 has no edge sensor and only power1_input.
 * Clocks, power and temperature go through the power-management firmware: on a GPU
 * that runtime PM has put to sleep (power/runtime_status "suspended", laptops and
 * idle dGPUs), reading them would wake it (older kernels) or fail with EPERM (newer),
 * so they are left unknown.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "amdgpu.h"
#include "amdgpu_visibility.h"
#include "sysfs.h"
#include "util/parse.h"

#define SRC AXL__AMDGPU_SRC

bool axl__amdgpu_owns(const struct axl_device *dev)
{
	const char *drv = axl__str(dev, AXL_ATTR_DRIVER);
	return strcmp(dev->prefix, "amdgpu") == 0 || (drv && strcmp(drv, "amdgpu") == 0);
}

/* A device attribute, read through the device's directory. */
struct devdir {
	struct axl_inventory *inv;
	int fd;          /* the device directory, or AXL__FS_ROOT */
	const char *dir; /* its path (messages; reads when fd is AXL__FS_ROOT) */
};

static bool rd(const struct devdir *d, const char *name, char *buf, size_t cap, unsigned flags)
{
	return axl__read_attr(d->inv, SRC, d->fd, d->dir, name, buf, cap, flags);
}

static bool rd_u64(const struct devdir *d, const char *name, int base, uint64_t *out)
{
	return axl__read_u64(d->inv, SRC, d->fd, d->dir, name, base, out, 0);
}

static bool rd_i64(const struct devdir *d, const char *name, int64_t *out)
{
	return axl__read_i64(d->inv, SRC, d->fd, d->dir, name, out, 0);
}

static void str_attr(const struct devdir *d, struct axl_device *dev, const char *name, axl_attr attr)
{
	char buf[512];
	/* an empty attribute is the driver saying "not known" (product_name on consumer
	 * boards): unknown, not a warning */
	if (rd(d, name, buf, sizeof buf, AXL__RD_EMPTY_OK) && buf[0])
		axl__set_str(d->inv, dev, attr, AXL_SOURCE_SYSFS, buf);
}

static void bytes_attr(const struct devdir *d, struct axl_device *dev, const char *name, axl_attr attr,
		       bool zero_ok)
{
	uint64_t v;
	if (rd_u64(d, name, 10, &v) && (v || zero_ok) && v <= INT64_MAX)
		axl__set_int(dev, attr, AXL_SOURCE_SYSFS, (int64_t)v);
}

static void partition_attr(const struct devdir *d, struct axl_device *dev, const char *tech,
			   const char *cur, const char *avail)
{
	struct axl_inventory *inv = d->inv;
	char mode[64], list[256];
	bool has_mode = rd(d, cur, mode, sizeof mode, 0);
	bool has_list = rd(d, avail, list, sizeof list, 0);
	if (!has_mode && !has_list)
		return;
	struct axl__part *p = axl__add_part(inv, dev, tech, AXL_SOURCE_SYSFS);
	if (!p)
		return;
	p->pub.source = AXL_SOURCE_SYSFS;
	if (has_mode) {
		p->pub.mode = axl__text(inv, mode); /* blank: not known */
		/* the partitions the KFD showed run in this mode */
		if (strcmp(tech, "AMD-CPX") == 0)
			for (size_t i = 0; i < dev->children.n; i++)
				axl__set_str(inv, dev->children.v[i], AXL_ATTR_PARTITION_PROFILE, AXL_SOURCE_SYSFS,
					     mode);
	}
	if (has_list) {
		/* "SPX, DPX, QPX, CPX" */
		p->profiles.n = 0;
		char *save = NULL;
		for (char *tok = strtok_r(list, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save))
			axl__part_add_profile(inv, p, tok);
	}
}

/* "0: 852Mhz *\n1: 991Mhz \n..." -> the current level (marked '*') and the highest.
 * False when no line reads as a level. */
bool axl__amdgpu_dpm_levels(const char *text, int64_t *cur, int64_t *max)
{
	*cur = *max = -1;
	int levels = 0;
	for (const char *line = text; line && *line;) {
		const char *eol = strchr(line, '\n');
		size_t len = eol ? (size_t)(eol - line) : strlen(line);
		const char *colon = memchr(line, ':', len);
		if (colon) {
			const char *p = colon + 1;
			while (p < line + len && *p == ' ')
				p++;
			int64_t v = 0;
			int digits = 0;
			while (p < line + len && *p >= '0' && *p <= '9' && digits < 9) {
				v = v * 10 + (*p++ - '0');
				digits++;
			}
			if (digits && p + 3 <= line + len && strncasecmp(p, "mhz", 3) == 0) {
				levels++;
				if (v > *max)
					*max = v;
				if (memchr(p, '*', (size_t)(line + len - p)))
					*cur = v;
			}
		}
		line = eol ? eol + 1 : NULL;
	}
	return levels > 0;
}

static void clock_attr(const struct devdir *d, struct axl_device *dev, const char *name, axl_attr cur,
		       axl_attr max)
{
	char buf[1024];
	if (!rd(d, name, buf, sizeof buf, 0))
		return;
	int64_t c, m;
	if (!axl__amdgpu_dpm_levels(buf, &c, &m)) {
		char path[600];
		snprintf(path, sizeof path, "%s/%s", d->dir, name);
		axl__warn(d->inv, SRC, path, "no clock level in '%.40s'", buf);
		return;
	}
	if (c >= 0)
		axl__set_int(dev, cur, AXL_SOURCE_SYSFS, c);
	axl__set_int(dev, max, AXL_SOURCE_SYSFS, m);
}

/* The device's hwmon directory (hwmon/hwmonN, the first one), opened into hw. */
static bool hwmon_dir(struct axl__scan *scan, const struct devdir *d, struct devdir *hw, char *path,
		      size_t cap)
{
	const char *rel = d->fd == AXL__FS_ROOT ? path : "hwmon";
	axl__dir *h = axl__fs_opendir(scan->fs, d->fd, rel);
	if (!h)
		return false;
	struct dirent *e;
	char best[64] = "";
	while ((e = axl__fs_readdir(h)) != NULL) {
		if (strncmp(e->d_name, "hwmon", 5) != 0 || strlen(e->d_name) >= sizeof best)
			continue;
		if (!best[0] || strcmp(e->d_name, best) < 0)
			snprintf(best, sizeof best, "%s", e->d_name);
	}
	axl__fs_closedir(h);
	char sub[PATH_MAX];
	hw->inv = d->inv;
	hw->fd = -1;
	if (best[0] && (size_t)snprintf(sub, sizeof sub, "%s/%s", rel, best) < sizeof sub)
		hw->fd = axl__fs_opendir_fd(scan->fs, d->fd, sub);
	if (hw->fd < 0)
		return false;
	snprintf(path, cap, "%s/hwmon/%s", d->dir, best);
	hw->dir = path;
	return true;
}

static void watts(const struct devdir *hw, struct axl_device *dev, const char *name, axl_attr attr,
		  bool zero_ok)
{
	int64_t uw;
	if (!rd_i64(hw, name, &uw))
		return;
	if (uw < 0 || (uw == 0 && !zero_ok) || uw > 100000000000LL) {
		char full[600];
		snprintf(full, sizeof full, "%s/%s", hw->dir, name);
		axl__warn(hw->inv, SRC, full, "power out of range: %lld uW", (long long)uw);
		return;
	}
	axl__set_num(dev, attr, AXL_SOURCE_SYSFS, (double)uw / 1e6);
}

static void hwmon(struct axl__scan *scan, const struct devdir *d, struct axl_device *dev)
{
	char path[600];
	struct devdir hw;
	snprintf(path, sizeof path, "%s/hwmon", d->dir);
	if (!hwmon_dir(scan, d, &hw, path, sizeof path))
		return;
	/* a cap of 0 W means "no cap" to nobody: unknown */
	watts(&hw, dev, "power1_cap", AXL_ATTR_POWER_LIMIT, false);
	watts(&hw, dev, "power1_cap_default", AXL_ATTR_POWER_DEFAULT_LIMIT, false);
	watts(&hw, dev, "power1_cap_max", AXL_ATTR_POWER_MAX_LIMIT, false);
	/* power1_average (most GPUs) or power1_input (MI300: current socket power) */
	watts(&hw, dev, "power1_average", AXL_ATTR_POWER_DRAW, true);
	if (!axl__known(dev, AXL_ATTR_POWER_DRAW))
		watts(&hw, dev, "power1_input", AXL_ATTR_POWER_DRAW, true);
	for (int t = 1; t <= 3; t++) {
		char name[32], label[32];
		int64_t mc;
		snprintf(name, sizeof name, "temp%d_input", t);
		if (!rd_i64(&hw, name, &mc))
			continue;
		axl_attr attr;
		snprintf(name, sizeof name, "temp%d_label", t);
		if (rd(&hw, name, label, sizeof label, 0)) {
			if (strcmp(label, "edge") == 0)
				attr = AXL_ATTR_TEMPERATURE;
			else if (strcmp(label, "junction") == 0)
				attr = AXL_ATTR_TEMPERATURE_HOTSPOT;
			else if (strcmp(label, "mem") == 0)
				attr = AXL_ATTR_TEMPERATURE_MEMORY;
			else
				continue; /* a sensor with another name */
		} else if (t == 1) {
			attr = AXL_ATTR_TEMPERATURE; /* kernels before labels: temp1 is the GPU */
		} else {
			continue;
		}
		if (mc < -273150 || mc > 1000000) {
			char full[700];
			snprintf(full, sizeof full, "%s/temp%d_input", hw.dir, t);
			axl__warn(hw.inv, SRC, full, "temperature out of range: %lld", (long long)mc);
			continue;
		}
		axl__set_num(dev, attr, AXL_SOURCE_SYSFS, (double)mc / 1000.0);
	}
	close(hw.fd);
}

static int amdgpu_enrich(struct axl__scan *scan, const struct axl__backend *self, struct axl_device *dev)
{
	struct axl_inventory *inv = scan->inv;
	if (axl__kfd_of(dev)->only || !dev->syspath)
		return 0;
	struct devdir d = {inv, axl__fs_opendir_fd(scan->fs, AXL__FS_ROOT, dev->syspath), dev->syspath};
	if (d.fd < 0)
		d.fd = AXL__FS_ROOT;
	str_attr(&d, dev, "product_name", AXL_ATTR_MODEL);
	str_attr(&d, dev, "serial_number", AXL_ATTR_SERIAL);
	str_attr(&d, dev, "vbios_version", AXL_ATTR_VBIOS_VERSION);
	char buf[128];
	if (rd(&d, "unique_id", buf, sizeof buf, 0)) {
		uint64_t uid;
		if (axl__parse_u64(buf, 16, &uid) == 0 && uid) {
			char uuid[40];
			snprintf(uuid, sizeof uuid, "GPU-%016llx", (unsigned long long)uid);
			axl__set_str(inv, dev, AXL_ATTR_UUID, AXL_SOURCE_SYSFS, uuid);
		}
	}
	bytes_attr(&d, dev, "mem_info_vram_total", AXL_ATTR_MEMORY_TOTAL, false);
	bytes_attr(&d, dev, "mem_info_vram_used", AXL_ATTR_MEMORY_USED, true);
	bytes_attr(&d, dev, "mem_info_vis_vram_total", AXL_ATTR_MEMORY_VISIBLE, false);
	bytes_attr(&d, dev, "mem_info_gtt_total", AXL_ATTR_MEMORY_GTT, false);
	partition_attr(&d, dev, "AMD-CPX", "current_compute_partition", "available_compute_partition");
	partition_attr(&d, dev, "AMD-NPS", "current_memory_partition", "available_memory_partition");
	if (rd(&d, "xgmi_hive_info/xgmi_hive_id", buf, sizeof buf, 0)) {
		uint64_t hive;
		if (axl__parse_u64(buf, 0, &hive) == 0 && hive)
			dev->fabric_domain = hive;
	}
	/* what goes through the power-management firmware only on a GPU that is awake */
	bool asleep = rd(&d, "power/runtime_status", buf, sizeof buf, 0) && strcmp(buf, "suspended") == 0;
	if (!asleep) {
		clock_attr(&d, dev, "pp_dpm_sclk", AXL_ATTR_CLOCK_GRAPHICS, AXL_ATTR_CLOCK_GRAPHICS_MAX);
		clock_attr(&d, dev, "pp_dpm_mclk", AXL_ATTR_CLOCK_MEMORY, AXL_ATTR_CLOCK_MEMORY_MAX);
		hwmon(scan, &d, dev);
	}
	if (d.fd != AXL__FS_ROOT)
		close(d.fd);
	const char *drv = axl__str(dev, AXL_ATTR_DRIVER);
	if (drv && strcmp(drv, "amdgpu") == 0) {
		/* one module for all GPUs: read its version once */
		const struct axl_device *seen = NULL;
		for (size_t i = 0; i < inv->devs.n && !seen; i++) {
			const struct axl_device *o = inv->devs.v[i];
			const char *od = axl__str(o, AXL_ATTR_DRIVER);
			if (o != dev && od && strcmp(od, "amdgpu") == 0 &&
			    axl_device_source(o, AXL_ATTR_DRIVER_VERSION) == AXL_SOURCE_SYSFS)
				seen = o;
		}
		if (seen)
			axl__set_str(inv, dev, AXL_ATTR_DRIVER_VERSION, AXL_SOURCE_SYSFS,
				     axl__str(seen, AXL_ATTR_DRIVER_VERSION));
		else
			axl__module_version(scan, dev, "amdgpu");
		if (axl__kfd_present(inv) || axl__fs_exists(scan->fs, AXL__FS_ROOT, "/sys/class/kfd/kfd"))
			axl__add_node(inv, dev, "/dev/kfd");
	}
	return 0;
}

/* What one profile of each partition mode gives: the instances the mode makes and
 * their compute units, derived from the whole GPU's; for the current mode, what the
 * partitions that exist now report. */
static void profile_details(struct axl_inventory *inv, struct axl_device *dev)
{
	int64_t cus = -1, xcc = -1;
	for (size_t i = 0; i < dev->cus.n; i++) {
		if (strcmp(dev->cus.v[i].name, "CU") == 0 && dev->cus.v[i].source != AXL_SOURCE_DEVICEDB)
			cus = dev->cus.v[i].count;
		if (strcmp(dev->cus.v[i].name, "XCC") == 0 && dev->cus.v[i].source != AXL_SOURCE_DEVICEDB)
			xcc = dev->cus.v[i].count;
	}
	for (size_t i = 0; i < dev->parts.n; i++) {
		struct axl__part *p = &dev->parts.v[i];
		bool compute = strcmp(p->pub.technology, "AMD-CPX") == 0;
		bool memory = strcmp(p->pub.technology, "AMD-NPS") == 0;
		if ((!compute && !memory) || p->pub.source == AXL_SOURCE_DEVICEDB)
			continue;
		int64_t most = -1;
		for (size_t j = 0; j < p->profiles.n; j++) {
			const char *name = p->profiles.v[j];
			int n = -1;
			if (compute)
				n = axl__amd_mode_instances(name, xcc);
			else if (strncmp(name, "NPS", 3) == 0 && name[3] >= '1' && name[3] <= '8' && !name[4])
				n = name[3] - '0';
			if (n < 1)
				continue;
			struct axl_partition_profile *x = axl__part_profile(inv, p, name, AXL_SOURCE_DERIVED);
			if (!x)
				return;
			x->max_instances = n;
			if (n > most)
				most = n;
			if (compute && cus > 0 && cus % n == 0)
				x->compute_units = cus / n;
			if (compute && p->pub.mode && strcmp(p->pub.mode, name) == 0 &&
			    dev->children.n == (size_t)n) {
				/* the partitions that exist: what each has, when they agree */
				int64_t mem = -2, cu = -2;
				for (size_t c = 0; c < dev->children.n; c++) {
					const struct axl_device *ch = dev->children.v[c];
					int64_t m = axl__int(ch, AXL_ATTR_MEMORY_TOTAL, -1), u = -1;
					for (size_t k = 0; k < ch->cus.n; k++)
						if (strcmp(ch->cus.v[k].name, "CU") == 0)
							u = ch->cus.v[k].count;
					mem = mem == -2 || mem == m ? m : -1;
					cu = cu == -2 || cu == u ? u : -1;
				}
				if (cu > 0) {
					x->compute_units = cu;
					x->source = AXL_SOURCE_SYSFS;
				}
				if (mem > 0) {
					x->memory_bytes = mem;
					x->source = AXL_SOURCE_SYSFS;
				}
			}
		}
		if (most > 0 && p->pub.max_partitions < 0)
			p->pub.max_partitions = most;
	}
}

static int amdgpu_finish(struct axl__scan *scan, const struct axl__backend *self)
{
	struct axl_inventory *inv = scan->inv;
	for (size_t i = 0; i < inv->devs.n; i++)
		if (axl__amdgpu_owns(inv->devs.v[i]))
			profile_details(inv, inv->devs.v[i]);
	axl__kfd_links(scan);
	return 0;
}

/* runtime.c */
const struct axl_runtime *axl__amd_runtime(const struct axl_device *dev);

/* GPUs of one XGMI hive (its xgmi_hive_id, which amdgpu.c and kfd.c keep as the
 * device's fabric domain) reach each other over XGMI: sysfs says so, not how fast. */
static bool xgmi_fabric(const struct axl_inventory *inv, const struct axl_device *dev,
			struct axl__fabric *out)
{
	(void)inv;
	if (!dev->fabric_domain)
		return false;
	out->kind = "xgmi";
	out->domain = dev->fabric_domain;
	out->links = 0;
	out->link_gbps = -1;
	out->source = AXL_SOURCE_SYSFS;
	return true;
}

/* XDNA NPUs are "signal processing controllers" */
static bool xdna_id(int vendor, int device, int cls)
{
	(void)vendor;
	(void)cls;
	return device == 0x1502 || device == 0x17f0;
}

/* AMD bought Xilinx: its FPGAs and adaptive SoCs keep their vendor id */
static const struct axl__pci_vendor pci_vendors[] = {
	{.id = 0x1002, .name = "AMD", .prefix = "amdgpu", .family = AXL_FAMILY_GPU},
	{.id = 0x1022, .name = "AMD", .prefix = "amdgpu", .npu_prefix = "amdxdna",
	 .family = AXL_FAMILY_NPU, .accel_id = xdna_id},
	{.id = 0x10ee, .name = "AMD Xilinx", .prefix = "xilinx", .family = AXL_FAMILY_FPGA},
	{0},
};
static const char *const drivers[] = {"amdgpu", "radeon", NULL};
/* the KFD node every ROCm process opens */
static const char *const shared_nodes[] = {"/dev/kfd", NULL};

static const struct axl__backend_facts amdgpu_facts = {
	.pci_vendors = pci_vendors,
	.drivers = drivers,
	.shared_nodes = shared_nodes,
};

static const struct axl__discover_ops amdgpu_discover = {
	.enumerate = axl__kfd_enumerate,
	.owns = axl__amdgpu_owns,
	.enrich = amdgpu_enrich,
	.finish = amdgpu_finish,
};

static const struct axl__fabric_ops amdgpu_fabric = {
	.device = xgmi_fabric,
};

static const struct axl__runtime_ops amdgpu_runtime = {
	.files = axl__amd_runtime,
};

static const struct axl__library_ops amdgpu_libs = {
	.compute_env = "AXL_HIP_LIBRARY",
};

const struct axl__backend axl__backend_amdgpu = {
	.name = "amdgpu",
	.device_size = sizeof(struct axl__kfd_dev),
	.facts = &amdgpu_facts,
	.discover = &amdgpu_discover,
	.fabric = &amdgpu_fabric,
	.sample = &axl__amdgpu_sample_ops,
	.vis = &axl__amdgpu_vis,
	.runtime = &amdgpu_runtime,
	.libs = &amdgpu_libs,
	.parts = &axl__amdgpu_parts,
	.sim = &axl__amdgpu_sim,
	.compute = &axl__compute_hip,
};
