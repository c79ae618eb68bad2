/* SPDX-License-Identifier: MIT */
/*
 * Whole discovery on a hostile tree, for the vendor backends that read driver attribute
 * directories (Intel i915/xe/NPU, Habana, Neuron, Tenstorrent, QAIC, XDNA). The input
 * is split on 0x00 bytes: the first chunk names the PCI driver bound to the one device
 * (reduced to [a-z0-9_-]), the rest are the contents of the files below in order; the
 * device's ids, class and driver link come from the input too. Discovery and the JSON
 * document must survive anything and never report garbage as a known value.
 * The tree is built in memory (util/memfs.h), read through the same seam calls as one
 * on disk.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axl.h"
#include "core/internal.h"
#include "util/memfs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define DEV "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0"
static const char *const files[] = {
	DEV "/vendor", DEV "/device", DEV "/class", DEV "/subsystem_device",
	/* Habana (accel era: on the PCI device) */
	DEV "/device_type", DEV "/status", DEV "/cpucp_ver", DEV "/cpld_ver", DEV "/max_power",
	DEV "/module_id", DEV "/clk_cur_freq_mhz",
	/* Intel xe, i915, NPU */
	DEV "/tile0/physical_vram_size_bytes", DEV "/tile0/gt0/freq0/act_freq",
	DEV "/tile0/gt0/freq0/cur_freq", DEV "/tile0/gt0/freq0/rp0_freq", DEV "/sriov_totalvfs",
	DEV "/sriov_numvfs", DEV "/drm/card0/gt_cur_freq_mhz", DEV "/drm/card0/lmem_total_bytes",
	DEV "/drm/card0/lmem_avail_bytes", DEV "/npu_busy_time_us", DEV "/npu_memory_utilization",
	DEV "/hwmon/hwmon0/name", DEV "/hwmon/hwmon0/power1_max", DEV "/hwmon/hwmon0/temp1_input",
	/* Neuron (device 0 of its class) */
	"sys/class/neuron_device/neuron0/core_count", "sys/class/neuron_device/neuron0/connected_devices",
	"sys/class/neuron_device/neuron0/reset", "sys/class/neuron_device/neuron0/info/serial_number",
	"sys/class/neuron_device/neuron0/neuron_core0/stats/memory_usage/device_mem/total",
	/* Tenstorrent, QAIC, XDNA */
	DEV "/tenstorrent/tenstorrent!0/tt_card_type", DEV "/tenstorrent/tenstorrent!0/tt_aiclk",
	DEV "/accel/accel0/dbc0_state", DEV "/accel/accel0/dbc1_state", DEV "/accel/accel0/uevent",
	DEV "/fw_version", DEV "/vbnv",
};
#define NFILES (sizeof files / sizeof *files)

/* The tree of one input, in memory (util/memfs.h): nothing is written to disk. */
static struct axl__mtree *setup(const uint8_t *name, size_t n)
{
	struct axl__mtree *t = axl__mtree_new();
	if (!t)
		abort();
	char p[512], drv[40];
	size_t k = 0;
	for (size_t i = 0; i < n && k < 32; i++)
		if ((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= '0' && name[i] <= '9') || name[i] == '_' ||
		    name[i] == '-')
			drv[k++] = (char)name[i];
	drv[k] = '\0';
	axl__mtree_dir(t, DEV);
	axl__mtree_link(t, "sys/bus/pci/devices/0000:01:00.0", "../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0");
	if (k) {
		snprintf(p, sizeof p, "sys/bus/pci/drivers/%s", drv);
		axl__mtree_dir(t, p);
		char target[128];
		snprintf(target, sizeof target, "../../../../bus/pci/drivers/%s", drv);
		axl__mtree_link(t, DEV "/driver", target);
	}
	axl__mtree_dir(t, "sys/class/neuron_device");
	return t;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 1 << 20)
		return 0;
	size_t first = 0;
	while (first < size && data[first] != 0)
		first++;
	struct axl__mtree *t = setup(data, first);
	size_t start = first + 1, k = 0;
	for (size_t i = start; i <= size && k < NFILES; i++) {
		if (i == size || data[i] == 0) {
			axl__mtree_file(t, files[k++], data + start, i - start);
			start = i + 1;
		}
	}
	struct axl_context_options o = AXL_CONTEXT_OPTIONS_INIT;
	o.sysroot = "/fuzz-vendors"; /* names the tree in messages */
	o.flags = AXL_CONTEXT_NO_ENV | AXL_CONTEXT_NO_PCI_IDS;
	axl_context *ctx;
	if (axl__context_open_mtree(&ctx, &o, t) != 0)
		abort();
	axl_inventory *inv;
	if (axl_inventory_open(&inv, ctx, AXL_INVENTORY_ALL) != 0)
		abort();
	char *doc;
	if (axl_inventory_json(inv, AXL_JSON_PRETTY, &doc, NULL) != 0)
		abort();
	axl_free(doc);
	for (size_t i = 0; i < axl_inventory_device_count(inv); i++) {
		const axl_device *d = axl_inventory_device(inv, i);
		int64_t v;
		double f;
		const axl_attr nonneg[] = {AXL_ATTR_MEMORY_TOTAL, AXL_ATTR_MEMORY_USED, AXL_ATTR_CLOCK_GRAPHICS,
					   AXL_ATTR_CLOCK_GRAPHICS_MAX, AXL_ATTR_BUSY_TIME, AXL_ATTR_MODULE_ID};
		for (size_t a = 0; a < sizeof nonneg / sizeof *nonneg; a++)
			if (axl_device_get_int(d, nonneg[a], &v) == 0 && v < 0)
				abort();
		if (axl_device_get_num(d, AXL_ATTR_POWER_LIMIT, &f) == 0 && !(f > 0))
			abort();
		const char *s;
		if (axl_device_get_str(d, AXL_ATTR_STATE, &s) == 0 && !*s)
			abort();
	}
	axl_inventory_free(inv);
	axl_context_free(ctx);
	axl__mtree_free(t);
	return 0;
}
