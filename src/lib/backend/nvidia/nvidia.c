/* SPDX-License-Identifier: MIT */
/*
 * NVIDIA from what the kernel driver publishes, without NVML:
 *   /proc/driver/nvidia/gpus/<bdf>/information   model, UUID, VBIOS, device minor
 *   /proc/driver/nvidia/gpus/<bdf>/numa_status   GPU memory onlined as a NUMA node
 *   /proc/driver/nvidia/version, /sys/module/nvidia/version   driver version
 * and the device nodes a CUDA container needs (/dev/nvidiaN, nvidiactl, nvidia-uvm).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "backend_util.h"
#include "cuda_compute.h"
#include "cuda_checkpoint.h"
#include "nvidia_control.h"
#include "nvidia_dev.h"
#include "nvidia_visibility.h"

#include "devicedb.h"
#include "sysfs.h"
#include "util/parse.h"

#define SRC "nvidia"
#define GPUS "/proc/driver/nvidia/gpus"

static int nvidia_enumerate(struct axl__scan *scan, const struct axl__backend *self)
{
	struct axl_inventory *inv = scan->inv;
	axl__dir *d = axl__fs_opendir(scan->fs, AXL__FS_ROOT, GPUS);
	if (!d)
		return 0;
	struct dirent *e;
	while ((e = axl__fs_readdir(d)) != NULL) {
		unsigned dom, bus, dev, fn;
		if (e->d_name[0] == '.' || axl__parse_bdf(e->d_name, &dom, &bus, &dev, &fn) != 0)
			continue;
		struct axl_device *g = axl__find_pci(inv, dom, bus, dev, fn);
		if (!g) {
			/* listed by the driver but not on the PCI bus we can see */
			g = axl__device_new(inv, SRC, "nvidia");
			if (!g)
				break;
			g->has_pci = true;
			g->domain = dom;
			g->bus = bus;
			g->devno = dev;
			g->fn = fn;
			char addr[32];
			snprintf(addr, sizeof addr, "%04x:%02x:%02x.%u", dom, bus, dev, fn);
			axl__set_str(inv, g, AXL_ATTR_PCI_ADDRESS, AXL_SOURCE_PROCFS, addr);
			axl__set_int(g, AXL_ATTR_FAMILY, AXL_SOURCE_DERIVED, AXL_FAMILY_GPU);
			axl__set_str(inv, g, AXL_ATTR_DRIVER, AXL_SOURCE_PROCFS, "nvidia");
		}
		if (!axl__known(g, AXL_ATTR_VENDOR_ID))
			axl__set_int(g, AXL_ATTR_VENDOR_ID, AXL_SOURCE_PROCFS, 0x10de);
		g->prefix = "nvidia";
		if (!axl__known(g, AXL_ATTR_VENDOR) || axl_device_source(g, AXL_ATTR_VENDOR) != AXL_SOURCE_SYSFS)
			axl__set_str(inv, g, AXL_ATTR_VENDOR, AXL_SOURCE_DERIVED, "NVIDIA");
	}
	axl__fs_closedir(d);
	return 0;
}

static bool nvidia_owns(const struct axl_device *dev)
{
	return strcmp(dev->prefix, "nvidia") == 0;
}

static void driver_version(struct axl__scan *scan, struct axl_device *dev)
{
	axl__module_version(scan, dev, "nvidia");
	if (axl__known(dev, AXL_ATTR_DRIVER_VERSION))
		return;
	char buf[1024];
	long n = axl__fs_read(scan->fs, AXL__FS_ROOT, "/proc/driver/nvidia/version", buf, sizeof buf);
	if (n <= 0)
		return;
	/* "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.90.07  Fri May 31 ..." */
	char *line = strstr(buf, "NVRM version:");
	if (!line)
		return;
	char *eol = strchr(line, '\n');
	if (eol)
		*eol = '\0';
	char *save = NULL;
	for (char *tok = strtok_r(line + 13, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		size_t len = strlen(tok);
		bool ok = len >= 3 && len < 32 && isdigit((unsigned char)tok[0]) && strchr(tok, '.');
		for (size_t i = 0; ok && i < len; i++)
			ok = isdigit((unsigned char)tok[i]) || tok[i] == '.';
		if (ok) {
			axl__set_str(scan->inv, dev, AXL_ATTR_DRIVER_VERSION, AXL_SOURCE_PROCFS, tok);
			return;
		}
	}
}

static int nvidia_enrich(struct axl__scan *scan, const struct axl__backend *self, struct axl_device *dev)
{
	struct axl_inventory *inv = scan->inv;
	const char *addr = axl__str(dev, AXL_ATTR_PCI_ADDRESS);
	if (!addr)
		return 0;
	char dir[128], buf[4096], v[256];
	snprintf(dir, sizeof dir, GPUS "/%s", addr);
	if (axl__read_attr(inv, SRC, AXL__FS_ROOT, dir, "information", buf, sizeof buf, 0)) {
		if (axl__kv_find(buf, "Model", ':', v, sizeof v) == 0 && v[0])
			axl__set_str(inv, dev, AXL_ATTR_MODEL, AXL_SOURCE_PROCFS, v);
		if (axl__kv_find(buf, "GPU UUID", ':', v, sizeof v) == 0 && strncmp(v, "GPU-", 4) == 0)
			axl__set_str(inv, dev, AXL_ATTR_UUID, AXL_SOURCE_PROCFS, v);
		if (axl__kv_find(buf, "Video BIOS", ':', v, sizeof v) == 0 && v[0] && v[0] != '?')
			axl__set_str(inv, dev, AXL_ATTR_VBIOS_VERSION, AXL_SOURCE_PROCFS, v);
		if (axl__kv_find(buf, "GPU Firmware", ':', v, sizeof v) == 0 && v[0] && v[0] != 'N')
			axl__set_str(inv, dev, AXL_ATTR_FIRMWARE_VERSION, AXL_SOURCE_PROCFS, v);
		if (axl__kv_find(buf, "Device Minor", ':', v, sizeof v) == 0) {
			int64_t minor;
			if (axl__parse_i64(v, &minor) == 0 && minor >= 0 && minor < 256)
				axl__nvidia_set_minor(inv, dev, (int)minor);
			else {
				char path[256];
				snprintf(path, sizeof path, "%s/information", dir);
				axl__warn(inv, SRC, path, "Device Minor is not a minor number: '%.32s'", v);
			}
		}
		/* every driver since 2010 writes these three: a file without one of them
		 * was cut short */
		static const char *const core[] = {"Model", "GPU UUID", "Device Minor"};
		for (size_t k = 0; k < 3; k++) {
			if (axl__kv_find(buf, core[k], ':', v, sizeof v) == AXL_ENOENT) {
				char path[256];
				snprintf(path, sizeof path, "%s/information", dir);
				axl__warn(inv, SRC, path, "incomplete: no '%s' line", core[k]);
				break;
			}
		}
		if (axl__kv_find(buf, "GPU Excluded", ':', v, sizeof v) == 0 && strcmp(v, "Yes") == 0)
			axl__set_str(inv, dev, AXL_ATTR_STATE, AXL_SOURCE_PROCFS, "excluded");
	}
	/* GPU memory onlined as a NUMA node (coherent NVLink-C2C / NVLink2 systems) */
	if (axl__read_attr(inv, SRC, AXL__FS_ROOT, dir, "numa_status", buf, sizeof buf, 0)) {
		uint64_t size;
		if (axl__kv_find(buf, "Size", ':', v, sizeof v) == 0 && axl__parse_u64(v, 16, &size) == 0 &&
		    size > 0 && size < (1ull << 50))
			axl__set_int(dev, AXL_ATTR_MEMORY_TOTAL, AXL_SOURCE_PROCFS, (int64_t)size);
	}
	const char *drv = axl__str(dev, AXL_ATTR_DRIVER);
	if (drv && strcmp(drv, "nvidia") == 0) {
		driver_version(scan, dev);
		/* the nodes only when the driver told the minor: without it we would
		 * hand a container the control nodes but not the GPU */
		int minor = axl__nvidia_minor(dev);
		if (minor >= 0) {
			char node[32];
			snprintf(node, sizeof node, "/dev/nvidia%d", minor);
			axl__add_node(inv, dev, node);
			axl__add_node(inv, dev, "/dev/nvidiactl");
			axl__add_node(inv, dev, "/dev/nvidia-uvm");
			axl__add_node(inv, dev, "/dev/nvidia-uvm-tools");
		}
	}
	return 0;
}

/* runtime.c */
const struct axl_runtime *axl__nvidia_runtime(const struct axl_device *dev);

/* ---- NVSwitch ------------------------------------------------------------------------
 * The nvidia-nvswitch driver binds every NVIDIA PCI function of class 0x068000
 * (kernel-open/nvidia/linux_nvswitch.c: vendor 0x10de, class PCI_CLASS_BRIDGE_OTHER << 8,
 * any device id; NVSWITCH_DRIVER_NAME "nvidia-nvswitch" in export_nvswitch.h). The device
 * id tells the generation: 0x1ac2 on DGX-2 (first generation, V100; the DGX-2H capture in
 * hwloc's tests), 0x1ae8 and 0x1af0-0x1aff LR10 (second, A100), 0x22a0-0x22a7 LS10
 * (third, H100/H200; 0x22a8-0x22af are the bridge and NTB functions of NVLink switch
 * trays) (src/common/nvswitch/kernel/nvswitch.c). An NVSwitch of a generation on the bus
 * means the SXM GPUs of that NVLink generation sit on its baseboard: every pair reaches
 * each other through the switches with all its NVLinks (the device database says how
 * many, and their rate). Fourth-generation switches (HGX B200) are not PCI functions of
 * the host: nothing is derived for them. */
static const struct {
	uint16_t lo, hi;
	uint8_t generation;
} nvswitch_ids[] = {
	{0x1ac2, 0x1ac2, 1},
	{0x1ae8, 0x1ae8, 2},
	{0x1af0, 0x1aff, 2},
	{0x22a0, 0x22a7, 3},
};

static const char *nvswitch_of(const struct axl__pcifn *f, int *generation)
{
	if (f->pub.vendor_id != 0x10de || f->pub.class_code != 0x068000)
		return NULL;
	*generation = -1;
	for (size_t i = 0; i < sizeof nvswitch_ids / sizeof *nvswitch_ids; i++)
		if (f->pub.device_id >= nvswitch_ids[i].lo && f->pub.device_id <= nvswitch_ids[i].hi)
			*generation = nvswitch_ids[i].generation;
	return "nvswitch";
}

/* On this node's NVSwitch fabric: an NVSwitch of the GPU's NVLink generation is on the
 * bus. Every such GPU reaches every other: one domain. */
static bool nvswitch_fabric(const struct axl_inventory *inv, const struct axl_device *dev,
			    struct axl__fabric *out)
{
	const struct axl__db_entry *e = dev->db;
	if (!e || !e->fabric_version || !e->fabric_links || e->fabric_link_gbps <= 0 ||
	    axl__int(dev, AXL_ATTR_VENDOR_ID, -1) != 0x10de)
		return false;
	for (size_t i = 0; i < inv->switches.n; i++) {
		const struct axl_switch *s = &inv->switches.v[i];
		/* generation g switches carry NVLink g + 1 (NVSwitch 1: NVLink 2 of V100) */
		if (s->generation > 0 && s->generation + 1 == e->fabric_version &&
		    strcmp(s->kind, "nvswitch") == 0) {
			out->kind = "nvswitch";
			out->domain = 1;
			out->links = e->fabric_links;
			out->link_gbps = e->fabric_link_gbps;
			out->source = AXL_SOURCE_DERIVED;
			return true;
		}
	}
	return false;
}

static const struct axl__pci_vendor pci_vendors[] = {
	{.id = 0x10de, .name = "NVIDIA", .prefix = "nvidia"},
	{0},
};
/* nouveau too: whatever drives it, an NVIDIA display function is a GPU */
static const char *const drivers[] = {"nvidia", "nouveau", NULL};
/* the control, UVM and modeset nodes every CUDA process may open */
static const char *const shared_nodes[] = {
	"/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools", "/dev/nvidia-modeset", NULL,
};

int axl__nvidia_minor(const struct axl_device *dev)
{
	const struct axl__nvidia_dev *nv = axl__device_data_of(dev, &axl__backend_nvidia);
	return nv && nv->minor_known ? nv->minor : -1;
}

bool axl__nvidia_set_minor(struct axl_inventory *inv, struct axl_device *dev, int minor)
{
	struct axl__nvidia_dev *nv = axl__device_data(inv, dev, &axl__backend_nvidia);
	if (!nv)
		return false;
	nv->minor = minor;
	nv->minor_known = true;
	return true;
}

static const struct axl__backend_facts nvidia_facts = {
	.pci_vendors = pci_vendors,
	.drivers = drivers,
	.shared_nodes = shared_nodes,
};

static const struct axl__discover_ops nvidia_discover = {
	.enumerate = nvidia_enumerate,
	.owns = nvidia_owns,
	.enrich = nvidia_enrich,
};

static const struct axl__fabric_ops nvidia_fabric = {
	.switch_of = nvswitch_of,
	.device = nvswitch_fabric,
};

static const struct axl__runtime_ops nvidia_runtime = {
	.files = axl__nvidia_runtime,
};

static const struct axl__library_ops nvidia_libs = {
	.compute_env = "AXL_CUDA_LIBRARY",
};

static const struct axl__limit_ops nvidia_limits = {
	.env = axl__nvidia_limit_env,
};

static const struct axl__checkpoint_ops nvidia_checkpoint = {
	.run = axl__cuda_checkpoint,
};

const struct axl__backend axl__backend_nvidia = {
	.name = "nvidia",
	.device_size = sizeof(struct axl__nvidia_dev),
	.facts = &nvidia_facts,
	.discover = &nvidia_discover,
	.fabric = &nvidia_fabric,
	.vis = &axl__nvidia_vis,
	.runtime = &nvidia_runtime,
	.libs = &nvidia_libs,
	.parts = &axl__nvidia_parts,
	.limits = &nvidia_limits,
	.sim = &axl__nvidia_sim,
	.compute = &axl__compute_cuda,
	.checkpoint = &nvidia_checkpoint,
};
