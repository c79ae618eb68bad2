/* SPDX-License-Identifier: MIT */
/*
 * AMD GPUs in the KFD topology, /sys/class/kfd/kfd/topology/nodes/N:
 *   properties      SIMDs and SIMDs per CU (the CU count), XCCs, gfx target, PCI
 *                   location, unique id, XGMI hive, render minor, GPU engine clock
 *   mem_banks/0     local memory: size, bus width, memory clock; used_memory
 *   io_links/M      links to other nodes; the XGMI ones give ports and links
 * One node per GPU, or one per partition of a partitioned GPU (MI300 DPX/QPX/CPX):
 * partitions are grouped back into their GPU by unique id and become its children
 * ("amdgpu:0/xcp3"). A GPU the KFD lists but whose PCI function is not in the tree (a
 * partial capture) is still listed, from the KFD alone.
 *
 * What the numbers mean, from the kernel (drivers/gpu/drm/amd/amdkfd):
 *   - io_link "type" is the CRAT io_interface_type (kfd_crat.h): 1 HyperTransport,
 *     2 PCI Express, 5 QPI, 11 XGMI. kfd_topology.c prints it unchanged.
 *   - XGMI io_link bandwidths are MB/s (10^6 bytes/s) per direction:
 *     max_bandwidth = links x one link's rate, min_bandwidth = one link's rate
 *     (kfd_crat.c kfd_fill_gpu_xgmi_link_to_gpu, amdgpu_amdkfd_get_xgmi_bandwidth_mbytes:
 *     num_links * 16 lanes * 25 Gb/s / 8 = 50000 per link). So the pair has
 *     max / min links and max / 1000 GB/s. A peer reached over several hops has 0: its
 *     link count and bandwidth stay unknown. weight is 15 per hop.
 *   - With several KFD nodes per GPU (partition modes) the kernel gives XGMI io_links
 *     between partitions of different GPUs no bandwidth (weight 2*13+15 = 41, 0 MB/s)
 *     and those within one GPU a placeholder (weight 13, 819200): nothing to learn
 *     beyond the hive, so they are not read.
 *   - io_link flags: 1 enabled, 2 non-coherent, 4/8 no 32/64-bit atomics, 16 no
 *     peer-to-peer DMA (kfd_crat.h); XGMI links always allow atomics (kfd_topology.c).
 *   - max_engine_clk_fcompute is the GPU's highest engine clock in MHz;
 *     max_engine_clk_ccompute is the CPU's (cpufreq of CPU 0), on every node: unused.
 *   - mem_banks/N/used_memory is the whole GPU's VRAM in use, on every partition.
 *   - location_id is bus << 8 | devfn (pci_dev_id). Partitions of one GPU add their
 *     partition number, in the low bits ("location_id |= node_id"), or in bits 28..31
 *     in a short-lived variant; both are read.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "amdgpu.h"
#include "sysfs.h"
#include "util/parse.h"

#define SRC AXL__AMDGPU_SRC
#define KFD "/sys/class/kfd/kfd/topology/nodes"

enum { IOLINK_XGMI = 11 }; /* CRAT_IOLINK_TYPE_XGMI */
/* io_link flags (kfd_crat.h CRAT_IOLINK_FLAGS_*) */
enum { FL_ENABLED = 1u << 0, FL_NO_ATOMICS_32 = 1u << 2, FL_NO_ATOMICS_64 = 1u << 3, FL_NO_P2P_DMA = 1u << 4 };
/* Bounds for a hostile tree: a real node has an io_link per other node (tens). */
enum { MAX_IOLINKS = 1024, MAX_IOLINKS_TOTAL = 8192, MAX_PORTS = 512 };

struct kfd_node {
	int node;
	unsigned part; /* partition number on its GPU */
	bool has_part;
	uint64_t vendor, device, location, domain, unique, hive, simds, simd_per_cu, gfx, xcc,
		render_minor, mem_bytes, mem_width, mem_clk, engine_clk;
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
	prop(buf, "max_engine_clk_fcompute", &k->engine_clk);
	prop(buf, "local_mem_size", &k->mem_bytes);
	char mb[1024], bank[160];
	snprintf(bank, sizeof bank, "%s/mem_banks/0/properties", dir);
	if (axl__fs_read(scan->fs, AXL__FS_ROOT, bank, mb, sizeof mb) > 0) {
		uint64_t heap = 0, size = 0;
		/* heap_type 1 = FB_PUBLIC, 2 = FB_PRIVATE: device memory */
		if (!prop(mb, "heap_type", &heap) || heap == 1 || heap == 2) {
			if (!k->mem_bytes && prop(mb, "size_in_bytes", &size))
				k->mem_bytes = size;
			prop(mb, "width", &k->mem_width);
			prop(mb, "mem_clk_max", &k->mem_clk);
		}
	}
	/* beyond any GPU: not believed (and never cast to a negative size or count) */
	if (k->mem_bytes >= (1ull << 50))
		k->mem_bytes = 0;
	if (k->simds >= (1u << 20))
		k->has_simd_per_cu = false;
	if (k->xcc >= 1024)
		k->xcc = 0;
	if (k->location > 0xffff && (k->location & 0x0fff0000u) == 0 && k->location <= 0xffffffffu) {
		/* the partition number in bits 28..31 */
		k->part = (unsigned)(k->location >> 28);
		k->has_part = true;
		k->location &= 0xffff;
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

static int cmp_part(const void *a, const void *b)
{
	const struct kfd_node *x = a, *y = b;
	if (x->part != y->part)
		return x->part < y->part ? -1 : 1;
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

int axl__amd_mode_instances(const char *mode, int64_t xcc)
{
	if (strcmp(mode, "SPX") == 0)
		return 1;
	if (strcmp(mode, "DPX") == 0)
		return 2;
	if (strcmp(mode, "TPX") == 0)
		return 3;
	if (strcmp(mode, "QPX") == 0)
		return 4;
	if (strcmp(mode, "CPX") == 0)
		return xcc > 0 && xcc <= 64 ? (int)xcc : 0;
	return -1;
}

/* Partition numbers of the nodes of one GPU, and the GPU's own PCI location. */
static uint64_t number_parts(struct kfd_node *g, size_t n)
{
	uint64_t base = g[0].location;
	bool differ = false;
	for (size_t i = 1; i < n; i++)
		differ |= g[i].location != g[0].location;
	if (differ) {
		/* "location_id |= node_id": the number in the low bits of devfn */
		base = g[0].location & ~7ull;
		for (size_t i = 1; i < n; i++)
			if ((g[i].location & ~7ull) < base)
				base = g[i].location & ~7ull;
		for (size_t i = 0; i < n; i++) {
			if (!g[i].has_part) {
				g[i].part = (unsigned)(g[i].location & 7);
				g[i].has_part = true;
			}
		}
	}
	/* numbers that are missing or repeat: the order of the nodes */
	bool ok = true;
	for (size_t i = 0; i < n && ok; i++) {
		ok = g[i].has_part;
		for (size_t j = 0; j < i && ok; j++)
			ok = g[j].part != g[i].part;
	}
	for (size_t i = 0; i < n && !ok; i++)
		g[i].part = (unsigned)i;
	if (n > 1)
		qsort(g, n, sizeof *g, cmp_part);
	return base;
}

static void gfx_name(uint64_t gfx, char *out, size_t cap)
{
	unsigned major = (unsigned)(gfx / 10000), minor = (unsigned)(gfx / 100 % 100),
		 step = (unsigned)(gfx % 100);
	snprintf(out, cap, "gfx%u%x%x", major, minor, step);
}

static void add_render(struct axl_inventory *inv, struct axl_device *dev, const struct kfd_node *k)
{
	if (!k->has_render)
		return;
	char node[48];
	snprintf(node, sizeof node, "/dev/dri/renderD%llu", (unsigned long long)k->render_minor);
	axl__add_node(inv, dev, node);
}

/* One partition that exists now, as a child of its GPU. */
static void add_child(struct axl__scan *scan, struct axl_device *dev, const struct kfd_node *k,
		      const char *mode)
{
	struct axl_inventory *inv = scan->inv;
	char suffix[16];
	snprintf(suffix, sizeof suffix, "xcp%u", k->part);
	struct axl_device *c = axl__child_new(inv, dev, suffix);
	if (!c)
		return;
	/* a partition's index is its number on the GPU, as in its id */
	axl__set_int(c, AXL_ATTR_INDEX, AXL_SOURCE_DERIVED, k->part);
	axl__set_int(c, AXL_ATTR_FAMILY, AXL_SOURCE_DERIVED, AXL_FAMILY_GPU);
	axl__set_str(inv, c, AXL_ATTR_VENDOR, AXL_SOURCE_DERIVED, "AMD");
	if (k->has_vendor)
		axl__set_int(c, AXL_ATTR_VENDOR_ID, AXL_SOURCE_SYSFS, (int64_t)k->vendor);
	if (k->device)
		axl__set_int(c, AXL_ATTR_DEVICE_ID, AXL_SOURCE_SYSFS, (int64_t)k->device);
	const char *addr = axl__str(dev, AXL_ATTR_PCI_ADDRESS);
	if (addr)
		axl__set_str(inv, c, AXL_ATTR_PCI_ADDRESS, axl_device_source(dev, AXL_ATTR_PCI_ADDRESS), addr);
	if (k->gfx) {
		char target[32];
		gfx_name(k->gfx, target, sizeof target);
		axl__set_str(inv, c, AXL_ATTR_ARCHITECTURE, AXL_SOURCE_SYSFS, target);
	}
	if (k->has_simd_per_cu)
		axl__add_cu(inv, c, "CU", (int64_t)(k->simds / k->simd_per_cu), AXL_SOURCE_SYSFS);
	if (k->xcc)
		axl__add_cu(inv, c, "XCC", (int64_t)k->xcc, AXL_SOURCE_SYSFS);
	if (k->mem_bytes)
		axl__set_int(c, AXL_ATTR_MEMORY_TOTAL, AXL_SOURCE_SYSFS, (int64_t)k->mem_bytes);
	if (k->mem_width && k->mem_width <= 16384)
		axl__set_int(c, AXL_ATTR_MEMORY_BUS_WIDTH, AXL_SOURCE_SYSFS, (int64_t)k->mem_width);
	if (k->engine_clk && k->engine_clk <= 100000)
		axl__set_int(c, AXL_ATTR_CLOCK_GRAPHICS_MAX, AXL_SOURCE_SYSFS, (int64_t)k->engine_clk);
	axl__set_str(inv, c, AXL_ATTR_PARTITION_PROFILE, AXL_SOURCE_DERIVED, mode);
	add_render(inv, c, k);
	axl__add_node(inv, c, "/dev/kfd");
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
	/* the highest DPM levels (pp_dpm_sclk/mclk, read later) win over these */
	if (g[0].engine_clk && g[0].engine_clk <= 100000)
		axl__fill_int(dev, AXL_ATTR_CLOCK_GRAPHICS_MAX, AXL_SOURCE_SYSFS, (int64_t)g[0].engine_clk);
	if (g[0].mem_clk && g[0].mem_clk <= 100000)
		axl__fill_int(dev, AXL_ATTR_CLOCK_MEMORY_MAX, AXL_SOURCE_SYSFS, (int64_t)g[0].mem_clk);
	if (g[0].gfx) {
		char target[32];
		gfx_name(g[0].gfx, target, sizeof target);
		axl__fill_str(inv, dev, AXL_ATTR_ARCHITECTURE, AXL_SOURCE_SYSFS, target);
	}
	if (g[0].hive)
		dev->fabric_domain = g[0].hive;
	if (g[0].unique && !axl__known(dev, AXL_ATTR_UUID)) {
		char uuid[40];
		snprintf(uuid, sizeof uuid, "GPU-%016llx", (unsigned long long)g[0].unique);
		axl__set_str(inv, dev, AXL_ATTR_UUID, AXL_SOURCE_SYSFS, uuid);
	}
	for (size_t i = 0; i < parts; i++)
		add_render(inv, dev, &g[i]);
	axl__add_node(inv, dev, "/dev/kfd");
	int *ids = axl__arena_alloc(&inv->arena, parts * sizeof *ids);
	if (ids) {
		for (size_t i = 0; i < parts; i++)
			ids[i] = g[i].node;
		struct axl__kfd_dev *k = axl__kfd_dev(inv, dev);
		if (k) {
			k->nodes = ids;
			k->node_count = parts;
		}
	}
	if (axl__kfd_of(dev)->only) {
		/* the whole GPU's VRAM in use (the same on every partition) */
		char path[160];
		uint64_t used;
		snprintf(path, sizeof path, KFD "/%d/mem_banks/0", g[0].node);
		if (axl__read_u64(inv, SRC, AXL__FS_ROOT, path, "used_memory", 10, &used, 0))
			axl__set_int(dev, AXL_ATTR_MEMORY_USED, AXL_SOURCE_SYSFS, (int64_t)used);
	}
	if (parts > 1) {
		const char *mode = mode_of(parts, xcc / parts);
		struct axl__part *p = axl__add_part(inv, dev, "AMD-CPX", AXL_SOURCE_SYSFS);
		if (p && !p->pub.mode) {
			p->pub.mode = mode;
			p->pub.source = AXL_SOURCE_SYSFS;
		}
		for (size_t i = 0; i < parts; i++)
			add_child(scan, dev, &g[i], mode);
	}
}

const struct axl__kfd_dev *axl__kfd_of(const struct axl_device *dev)
{
	static const struct axl__kfd_dev none;
	const struct axl__kfd_dev *k = axl__device_data_of(dev, &axl__backend_amdgpu);
	return k ? k : &none;
}

struct axl__kfd_dev *axl__kfd_dev(struct axl_inventory *inv, struct axl_device *dev)
{
	return axl__device_data(inv, dev, &axl__backend_amdgpu);
}

/* what the amdgpu row's slot holds once the scan found the topology (nothing else) */
static char kfd_seen;

bool axl__kfd_present(const struct axl_inventory *inv)
{
	return axl__backend_state_of(inv, &axl__backend_amdgpu) == &kfd_seen;
}

int axl__kfd_enumerate(struct axl__scan *scan, const struct axl__backend *self)
{
	struct axl_inventory *inv = scan->inv;
	axl__dir *d = axl__fs_opendir(scan->fs, AXL__FS_ROOT, KFD);
	if (!d)
		return 0;
	*axl__backend_state(inv, self) = &kfd_seen;
	AXL__VEC(struct kfd_node) nodes = {0};
	struct dirent *e;
	while ((e = axl__fs_readdir(d)) != NULL) {
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
	axl__fs_closedir(d);
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
		uint64_t loc = number_parts(group, n);
		unsigned bus = (unsigned)(loc >> 8), devno = (unsigned)((loc >> 3) & 31),
			 fn = (unsigned)(loc & 7);
		struct axl_device *dev = axl__find_pci(inv, (unsigned)g->domain, bus, devno, fn);
		if (dev && axl__kfd_of(dev)->unique_id && axl__kfd_of(dev)->unique_id != g->unique) {
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
			struct axl__kfd_dev *k = axl__kfd_dev(inv, dev);
			if (!k)
				break;
			k->only = true;
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
		struct axl__kfd_dev *k = axl__kfd_dev(inv, dev);
		if (!k)
			break;
		k->unique_id = g->unique;
		apply_kfd(scan, dev, group, n);
	}
	free(used);
	free(group);
	AXL__VEC_FREE(nodes);
	return 0;
}

/* ---- XGMI ports and links -------------------------------------------------------- */

static struct axl_device *gpu_of_node(struct axl_inventory *inv, uint64_t node)
{
	for (size_t i = 0; i < inv->devs.n; i++) {
		struct axl_device *d = inv->devs.v[i];
		const struct axl__kfd_dev *kd = axl__kfd_of(d);
		for (size_t k = 0; k < kd->node_count; k++)
			if ((uint64_t)kd->nodes[k] == node)
				return d;
	}
	return NULL;
}

static bool is_cpu_node(struct axl__scan *scan, uint64_t node)
{
	char path[128], buf[4096];
	uint64_t cores;
	snprintf(path, sizeof path, KFD "/%llu/properties", (unsigned long long)node);
	return node <= 65535 && axl__fs_read(scan->fs, AXL__FS_ROOT, path, buf, sizeof buf) > 0 &&
	       prop(buf, "cpu_cores_count", &cores) && cores > 0;
}

static void add_link(struct axl_inventory *inv, const struct axl_device *a, const struct axl_device *b,
		     int count, double gbps, unsigned p2p)
{
	const char *ia = axl_device_id(a), *ib = axl_device_id(b);
	for (size_t i = 0; i < inv->links.n; i++) {
		const struct axl_link *l = &inv->links.v[i];
		if ((strcmp(l->a, ia) == 0 && strcmp(l->b, ib) == 0) ||
		    (strcmp(l->a, ib) == 0 && strcmp(l->b, ia) == 0))
			return; /* the other end told already */
	}
	struct axl_link *l = AXL__VEC_PUSH(inv->links);
	if (!l)
		return;
	/* the lower id first, as the generic pass writes them */
	bool swap = false;
	for (size_t i = 0; i < inv->devs.n; i++) {
		if (inv->devs.v[i] == a)
			break;
		if (inv->devs.v[i] == b) {
			swap = true;
			break;
		}
	}
	l->a = swap ? ib : ia;
	l->b = swap ? ia : ib;
	l->kind = "xgmi";
	l->bandwidth_gbps = gbps;
	l->link_count = count;
	l->source = AXL_SOURCE_SYSFS;
	l->p2p = p2p;
}

/* What an enabled XGMI io_link allows: peer access, and atomics ("xgmi always supports
 * atomics", kfd_topology.c kfd_set_iolink_no_atomics) unless the flags say otherwise. */
static unsigned p2p_of(bool has_flags, uint64_t flags)
{
	if (!has_flags || !(flags & FL_ENABLED))
		return 0;
	unsigned p = AXL_P2P_KNOWN;
	if (!(flags & FL_NO_P2P_DMA))
		p |= AXL_P2P_READ | AXL_P2P_WRITE;
	if (!(flags & (FL_NO_ATOMICS_32 | FL_NO_ATOMICS_64)))
		p |= AXL_P2P_ATOMICS;
	return p;
}

/* The XGMI io_links of one unpartitioned GPU; *budget bounds the reads of all GPUs. */
static void gpu_links(struct axl__scan *scan, struct axl_device *dev, int *budget)
{
	struct axl_inventory *inv = scan->inv;
	char links[128];
	snprintf(links, sizeof links, KFD "/%d/io_links", axl__kfd_of(dev)->nodes[0]);
	int fd = axl__fs_opendir_fd(scan->fs, AXL__FS_ROOT, links);
	if (fd < 0)
		return;
	int port = 0;
	for (int m = 0; m < MAX_IOLINKS && *budget > 0; m++, (*budget)--) {
		char dir[160], name[32], buf[1024];
		snprintf(dir, sizeof dir, "%s/%d", links, m);
		snprintf(name, sizeof name, "%d/properties", m);
		if (!axl__read_attr(inv, SRC, fd, links, name, buf, sizeof buf, 0))
			break; /* io_links are numbered from 0 without gaps */
		uint64_t type, to, min = 0, max = 0, flags = 0;
		if (!prop(buf, "type", &type) || !prop(buf, "node_to", &to)) {
			axl__warn(inv, SRC, dir, "io_link without type or node_to");
			continue;
		}
		if (type != IOLINK_XGMI)
			continue; /* PCIe to the CPU node: the PCI tree says more */
		prop(buf, "min_bandwidth", &min);
		prop(buf, "max_bandwidth", &max);
		bool has_flags = prop(buf, "flags", &flags);
		/* MB/s per direction; max = links x min (see the top of this file) */
		int count = min > 0 && max >= min && max % min == 0 && max / min <= 64 ? (int)(max / min) : -1;
		struct axl_device *peer = gpu_of_node(inv, to);
		const char *kind = peer ? "gpu" : is_cpu_node(scan, to) ? "cpu" : "unknown";
		for (int i = 0; i < (count > 0 ? count : 1) && dev->ports.n < MAX_PORTS; i++) {
			struct axl_port *p = axl__add_port(inv, dev, "xgmi", AXL_SOURCE_SYSFS);
			if (!p)
				break;
			p->remote_kind = kind;
			if (count > 0) {
				/* one entry per physical link; without a count, one per peer */
				p->index = port++;
				p->bandwidth_gbps = (double)min / 1000.0;
			}
			if (peer) {
				p->remote_pci = axl__str(peer, AXL_ATTR_PCI_ADDRESS);
				p->remote_id = axl_device_id(peer);
			}
		}
		if (peer && peer != dev)
			add_link(inv, dev, peer, count, max > 0 ? (double)max / 1000.0 : -1, p2p_of(has_flags, flags));
	}
	close(fd);
}

/* "amdgpu:10" after "amdgpu:9" */
static int cmp_id(const char *x, const char *y)
{
	const char *cx = strrchr(x, ':'), *cy = strrchr(y, ':');
	size_t lx = cx ? (size_t)(cx - x) : strlen(x), ly = cy ? (size_t)(cy - y) : strlen(y);
	int c = strncmp(x, y, lx < ly ? lx : ly);
	if (c || lx != ly || !cx || !cy)
		return c ? c : lx != ly ? (lx < ly ? -1 : 1) : strcmp(x, y);
	long nx = strtol(cx + 1, NULL, 10), ny = strtol(cy + 1, NULL, 10);
	return nx < ny ? -1 : nx > ny;
}

static int cmp_link(const void *a, const void *b)
{
	const struct axl_link *x = a, *y = b;
	int c = cmp_id(x->a, y->a);
	return c ? c : cmp_id(x->b, y->b);
}

void axl__kfd_links(struct axl__scan *scan)
{
	struct axl_inventory *inv = scan->inv;
	size_t prior = inv->links.n;
	int budget = MAX_IOLINKS_TOTAL;
	for (size_t i = 0; i < inv->devs.n; i++) {
		struct axl_device *d = inv->devs.v[i];
		/* XGMI io_links exist only within a hive; partitioned GPUs have none worth
		 * reading (see the top of this file) */
		if (axl__kfd_of(d)->node_count == 1 && d->fabric_domain)
			gpu_links(scan, d, &budget);
	}
	/* in device order, as the generic pass writes its links */
	if (inv->links.n - prior > 1)
		qsort(inv->links.v + prior, inv->links.n - prior, sizeof *inv->links.v, cmp_link);
}
