/* SPDX-License-Identifier: MIT */
/*
 * AMD GPUs from the kernel alone:
 *   amdgpu's device attributes   product_name, product_number, serial_number, unique_id,
 *                                vbios_version, mem_info_vram_total, compute and memory
 *                                partition modes (current_/available_*_partition)
 *   the KFD topology             /sys/class/kfd/kfd/topology/nodes/N/properties: SIMDs,
 *                                gfx target, XCCs, XGMI hive, render minor, memory banks;
 *                                one node per GPU, or per partition of a partitioned GPU
 * A GPU the KFD lists but whose PCI function is not in the tree (a partial capture)
 * is still listed, from the KFD alone.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend_util.h"
#include "../../util/parse.h"

#define SRC "amdgpu"
#define KFD "/sys/class/kfd/kfd/topology/nodes"

struct kfd_node {
	int node;
	uint64_t vendor, device, location, domain, unique, hive, simds, simd_per_cu, gfx, xcc,
		render_minor, mem_bytes, mem_width, max_clock;
	bool has_vendor, has_render, has_simd_per_cu;
};

static bool prop(const char *text, const char *key, uint64_t *out)
{
	char v[64];
	if (axl__kv_find(text, key, ' ', v, sizeof v) != 0)
		return false;
	return axl__parse_u64(v, 10, out) == 0;
}

static bool read_node(struct axl__scan *scan, int id, struct kfd_node *k)
{
	char dir[128], buf[8192];
	snprintf(dir, sizeof dir, KFD "/%d", id);
	if (!axl__read_attr(scan->inv, SRC, AXL__FS_ROOT, dir, "properties", buf, sizeof buf,
			    AXL__RD_REQUIRED))
		return false;
	memset(k, 0, sizeof *k);
	k->node = id;
	if (!prop(buf, "simd_count", &k->simds) || k->simds == 0)
		return false; /* a CPU node */
	k->has_vendor = prop(buf, "vendor_id", &k->vendor);
	prop(buf, "device_id", &k->device);
	prop(buf, "location_id", &k->location);
	prop(buf, "domain", &k->domain);
	prop(buf, "unique_id", &k->unique);
	prop(buf, "hive_id", &k->hive);
	k->has_simd_per_cu = prop(buf, "simd_per_cu", &k->simd_per_cu) && k->simd_per_cu > 0;
	prop(buf, "gfx_target_version", &k->gfx);
	prop(buf, "num_xcc", &k->xcc);
	k->has_render = prop(buf, "drm_render_minor", &k->render_minor) && k->render_minor > 0;
	prop(buf, "max_engine_clk_fcompute", &k->max_clock);
	prop(buf, "local_mem_size", &k->mem_bytes);
	char mb[1024], bank[160];
	snprintf(bank, sizeof bank, "%s/mem_banks/0/properties", dir);
	if (!k->mem_bytes && axl__fs_read(scan->fs, AXL__FS_ROOT, bank, mb, sizeof mb) > 0) {
		uint64_t heap = 0, size = 0;
		/* heap_type 1 = FB_PUBLIC, 2 = FB_PRIVATE: device memory */
		if (prop(mb, "size_in_bytes", &size) && (!prop(mb, "heap_type", &heap) || heap == 1 || heap == 2)) {
			k->mem_bytes = size;
			prop(mb, "width", &k->mem_width);
		}
	}
	if (k->device > 0xffff || k->vendor > 0xffff || k->location > 0xffff || k->domain > 0xffffffffu) {
		char path[160];
		snprintf(path, sizeof path, "%s/properties", dir);
		axl__warn(scan->inv, SRC, path, "PCI identity out of range");
		return false;
	}
	return true;
}

static int cmp_node(const void *a, const void *b)
{
	const struct kfd_node *x = a, *y = b;
	if (x->domain != y->domain)
		return x->domain < y->domain ? -1 : 1;
	if (x->location != y->location)
		return x->location < y->location ? -1 : 1;
	return x->node - y->node;
}

/* The partition mode from how many KFD nodes one GPU shows and their XCCs. */
static const char *mode_of(size_t parts, uint64_t xcc_per_part)
{
	if (parts <= 1)
		return "SPX";
	if (xcc_per_part == 1 && parts > 4)
		return "CPX";
	switch (parts) {
	case 2: return "DPX";
	case 3: return "TPX";
	case 4: return xcc_per_part == 1 ? "CPX" : "QPX";
	default: return "CPX";
	}
}

static void apply_kfd(struct axl__scan *scan, struct axl_device *dev, const struct kfd_node *g,
		      size_t parts)
{
	struct axl_inventory *inv = scan->inv;
	uint64_t cus = 0, xcc = 0, mem = 0, width = 0;
	bool cu_known = true;
	for (size_t i = 0; i < parts; i++) {
		if (g[i].has_simd_per_cu)
			cus += g[i].simds / g[i].simd_per_cu;
		else
			cu_known = false;
		xcc += g[i].xcc;
		/* the memory bank of each partition is the share it can allocate */
		mem += g[i].mem_bytes;
		if (g[i].mem_width > width)
			width = g[i].mem_width;
	}
	if (cu_known && cus)
		axl__add_cu(inv, dev, "CU", (int64_t)cus, AXL_SOURCE_SYSFS);
	if (xcc)
		axl__add_cu(inv, dev, "XCC", (int64_t)xcc, AXL_SOURCE_SYSFS);
	if (mem && !axl__known(dev, AXL_ATTR_MEMORY_TOTAL))
		axl__set_int(dev, AXL_ATTR_MEMORY_TOTAL, AXL_SOURCE_SYSFS, (int64_t)mem);
	if (width && width <= 16384)
		axl__set_int(dev, AXL_ATTR_MEMORY_BUS_WIDTH, AXL_SOURCE_SYSFS, (int64_t)width);
	if (g[0].gfx) {
		char target[32];
		unsigned major = (unsigned)(g[0].gfx / 10000), minor = (unsigned)(g[0].gfx / 100 % 100),
			 step = (unsigned)(g[0].gfx % 100);
		snprintf(target, sizeof target, "gfx%u%x%x", major, minor, step);
		axl__fill_str(inv, dev, AXL_ATTR_ARCHITECTURE, AXL_SOURCE_SYSFS, target);
	}
	if (g[0].hive)
		dev->xgmi_hive = g[0].hive;
	if (g[0].unique && !axl__known(dev, AXL_ATTR_UUID)) {
		char uuid[40];
		snprintf(uuid, sizeof uuid, "GPU-%016llx", (unsigned long long)g[0].unique);
		axl__set_str(inv, dev, AXL_ATTR_UUID, AXL_SOURCE_SYSFS, uuid);
	}
	for (size_t i = 0; i < parts; i++) {
		if (g[i].has_render) {
			char node[48];
			snprintf(node, sizeof node, "/dev/dri/renderD%llu", (unsigned long long)g[i].render_minor);
			axl__add_node(inv, dev, node);
		}
	}
	axl__add_node(inv, dev, "/dev/kfd");
	if (parts > 1) {
		struct axl__part *p = axl__add_part(inv, dev, "AMD-CPX", AXL_SOURCE_SYSFS);
		if (p && !p->pub.mode) {
			p->pub.mode = mode_of(parts, parts ? xcc / parts : 0);
			p->pub.source = AXL_SOURCE_SYSFS;
		}
	}
}

static int amdgpu_enumerate(struct axl__scan *scan)
{
	struct axl_inventory *inv = scan->inv;
	DIR *d = axl__fs_opendir(scan->fs, AXL__FS_ROOT, KFD);
	if (!d)
		return 0;
	inv->kfd_present = true;
	AXL__VEC(struct kfd_node) nodes = {0};
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		int64_t id;
		if (e->d_name[0] == '.' || axl__parse_i64(e->d_name, &id) != 0 || id < 0 || id > 65535)
			continue;
		if (nodes.n >= 1024)
			break;
		struct kfd_node k;
		if (!read_node(scan, (int)id, &k))
			continue;
		struct kfd_node *slot = AXL__VEC_PUSH(nodes);
		if (!slot)
			break;
		*slot = k;
	}
	closedir(d);
	if (nodes.n > 1)
		qsort(nodes.v, nodes.n, sizeof *nodes.v, cmp_node);

	/* group the partitions of one GPU: same unique id (or same PCI function) */
	bool *used = calloc(nodes.n ? nodes.n : 1, sizeof *used);
	struct kfd_node *group = calloc(nodes.n ? nodes.n : 1, sizeof *group);
	for (size_t i = 0; used && group && i < nodes.n; i++) {
		if (used[i])
			continue;
		size_t n = 0;
		for (size_t j = i; j < nodes.n; j++) {
			bool same = nodes.v[j].unique && nodes.v[i].unique ?
					    nodes.v[j].unique == nodes.v[i].unique :
					    nodes.v[j].location == nodes.v[i].location &&
						    nodes.v[j].domain == nodes.v[i].domain && !nodes.v[j].unique &&
						    !nodes.v[i].unique;
			if (!used[j] && same) {
				used[j] = true;
				group[n++] = nodes.v[j];
			}
		}
		const struct kfd_node *g = &group[0];
		unsigned bus = (unsigned)(g->location >> 8), devno = (unsigned)((g->location >> 3) & 31),
			 fn = (unsigned)(g->location & 7);
		struct axl_device *dev = axl__find_pci(inv, (unsigned)g->domain, bus, devno, fn);
		if (dev && dev->kfd_unique_id && dev->kfd_unique_id != g->unique) {
			char path[160];
			snprintf(path, sizeof path, KFD "/%d", g->node);
			axl__warn(inv, SRC, path, "a second GPU claims PCI function %04x:%02x:%02x.%u",
				  (unsigned)g->domain, bus, devno, fn);
			dev = NULL;
		}
		if (!dev) {
			dev = axl__device_new(inv, SRC, "amdgpu");
			if (!dev)
				break;
			dev->kfd_only = true;
			dev->has_pci = true;
			dev->domain = (unsigned)g->domain;
			dev->bus = bus;
			dev->devno = devno;
			dev->fn = fn;
			char addr[32], path[64];
			snprintf(addr, sizeof addr, "%04x:%02x:%02x.%u", (unsigned)g->domain, bus, devno, fn);
			snprintf(path, sizeof path, KFD "/%d", g->node);
			dev->syspath = axl__arena_strdup(&inv->arena, path);
			axl__set_str(inv, dev, AXL_ATTR_PCI_ADDRESS, AXL_SOURCE_SYSFS, addr);
			axl__set_int(dev, AXL_ATTR_VENDOR_ID, g->has_vendor ? AXL_SOURCE_SYSFS : AXL_SOURCE_DERIVED,
				     g->has_vendor ? (int64_t)g->vendor : 0x1002);
			if (g->device)
				axl__set_int(dev, AXL_ATTR_DEVICE_ID, AXL_SOURCE_SYSFS, (int64_t)g->device);
			axl__set_int(dev, AXL_ATTR_FAMILY, AXL_SOURCE_DERIVED, AXL_FAMILY_GPU);
			axl__set_str(inv, dev, AXL_ATTR_VENDOR, AXL_SOURCE_DERIVED, "AMD");
		}
		dev->kfd_unique_id = g->unique;
		apply_kfd(scan, dev, group, n);
	}
	free(used);
	free(group);
	AXL__VEC_FREE(nodes);
	return 0;
}

static bool amdgpu_owns(const struct axl_device *dev)
{
	const char *drv = axl__str(dev, AXL_ATTR_DRIVER);
	return strcmp(dev->prefix, "amdgpu") == 0 || (drv && strcmp(drv, "amdgpu") == 0);
}

static void partition_attr(struct axl__scan *scan, struct axl_device *dev, const char *tech,
			   const char *cur, const char *avail)
{
	struct axl_inventory *inv = scan->inv;
	char mode[64], list[256];
	bool has_mode = axl__read_attr(inv, SRC, AXL__FS_ROOT, dev->syspath, cur, mode, sizeof mode, 0);
	bool has_list = axl__read_attr(inv, SRC, AXL__FS_ROOT, dev->syspath, avail, list, sizeof list, 0);
	if (!has_mode && !has_list)
		return;
	struct axl__part *p = axl__add_part(inv, dev, tech, AXL_SOURCE_SYSFS);
	if (!p)
		return;
	p->pub.source = AXL_SOURCE_SYSFS;
	if (has_mode)
		p->pub.mode = axl__arena_strdup(&inv->arena, mode);
	if (has_list) {
		/* "SPX, DPX, QPX, CPX" */
		p->profiles.n = 0;
		char *save = NULL;
		for (char *tok = strtok_r(list, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save))
			axl__part_add_profile(inv, p, tok);
	}
}

static int amdgpu_enrich(struct axl__scan *scan, struct axl_device *dev)
{
	struct axl_inventory *inv = scan->inv;
	if (dev->kfd_only || !dev->syspath)
		return 0;
	const char *dir = dev->syspath;
	axl__attr_str(scan, dev, dir, "product_name", AXL_ATTR_MODEL, SRC);
	axl__attr_str(scan, dev, dir, "serial_number", AXL_ATTR_SERIAL, SRC);
	axl__attr_str(scan, dev, dir, "vbios_version", AXL_ATTR_VBIOS_VERSION, SRC);
	char buf[128];
	if (axl__read_attr(inv, SRC, AXL__FS_ROOT, dir, "unique_id", buf, sizeof buf, 0)) {
		uint64_t uid;
		if (axl__parse_u64(buf, 16, &uid) == 0 && uid) {
			char uuid[40];
			snprintf(uuid, sizeof uuid, "GPU-%016llx", (unsigned long long)uid);
			axl__set_str(inv, dev, AXL_ATTR_UUID, AXL_SOURCE_SYSFS, uuid);
		}
	}
	uint64_t vram;
	if (axl__read_u64(inv, SRC, AXL__FS_ROOT, dir, "mem_info_vram_total", 10, &vram, 0) && vram)
		axl__set_int(dev, AXL_ATTR_MEMORY_TOTAL, AXL_SOURCE_SYSFS, (int64_t)vram);
	partition_attr(scan, dev, "AMD-CPX", "current_compute_partition", "available_compute_partition");
	partition_attr(scan, dev, "AMD-NPS", "current_memory_partition", "available_memory_partition");
	if (axl__read_attr(inv, SRC, AXL__FS_ROOT, dir, "xgmi_hive_info/xgmi_hive_id", buf, sizeof buf, 0)) {
		uint64_t hive;
		if (axl__parse_u64(buf, 0, &hive) == 0 && hive)
			dev->xgmi_hive = hive;
	}
	const char *drv = axl__str(dev, AXL_ATTR_DRIVER);
	if (drv && strcmp(drv, "amdgpu") == 0) {
		axl__module_version(scan, dev, "amdgpu");
		if (axl__fs_exists(scan->fs, AXL__FS_ROOT, "/sys/class/kfd/kfd"))
			axl__add_node(inv, dev, "/dev/kfd");
	}
	return 0;
}

const struct axl__backend axl__backend_amdgpu = {
	.name = "amdgpu",
	.enumerate = amdgpu_enumerate,
	.owns = amdgpu_owns,
	.enrich = amdgpu_enrich,
};
