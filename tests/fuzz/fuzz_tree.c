/* SPDX-License-Identifier: MIT */
/*
 * Whole discovery on a hostile tree. The input is split on 0x00 bytes into the
 * contents of a fixed set of files of a small sysroot (a GPU's attributes, the NVIDIA
 * and amdgpu driver files, a KFD node, /proc files, a class device's uevent); the
 * rest of the tree is well formed. The last file is a capture's NVML answers, replayed
 * through the NVML backend. Discovery and the JSON document must survive
 * anything and never report garbage as a known value of the wrong type.
 * The tree is built in memory (util/memfs.h) and read through the same seam calls as
 * one on disk (unit.test_memfs and memfs.* check that they answer alike).
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

#define GPU "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0"
static const char *const files[] = {
	GPU "/vendor", GPU "/device", GPU "/class", GPU "/numa_node", GPU "/local_cpulist",
	GPU "/current_link_speed", GPU "/current_link_width", GPU "/revision",
	GPU "/subsystem_vendor", GPU "/mem_info_vram_total", GPU "/product_name",
	GPU "/unique_id", GPU "/current_compute_partition", GPU "/available_compute_partition",
	GPU "/drm/renderD128/uevent",
	"proc/driver/nvidia/gpus/0000:01:00.0/information", "proc/driver/nvidia/version",
	"proc/cpuinfo", "proc/meminfo", "proc/self/cgroup",
	"sys/class/kfd/kfd/topology/nodes/1/properties",
	"sys/devices/system/node/node0/distance", "sys/devices/system/node/node0/meminfo",
	"sys/devices/system/node/node0/cpulist",
	/* visibility: the majors, a cgroup v1 device list, the node of the render device */
	"proc/devices", "sys/fs/cgroup/devices/devices.list", "dev/dri/renderD128",
	/* amdgpu power management and the rest of the KFD (appended: older corpus
	 * entries keep their meaning) */
	GPU "/pp_dpm_sclk", GPU "/hwmon/hwmon0/temp1_input", GPU "/hwmon/hwmon0/temp1_label",
	GPU "/hwmon/hwmon0/power1_average", GPU "/hwmon/hwmon0/power1_cap",
	"sys/class/kfd/kfd/topology/nodes/1/mem_banks/0/properties",
	"sys/class/kfd/kfd/topology/nodes/1/io_links/0/properties",
	"sys/class/kfd/kfd/topology/nodes/2/properties",
	"sys/class/kfd/kfd/topology/nodes/3/properties",
	"sys/class/kfd/kfd/topology/nodes/3/io_links/0/properties",
	/* NVML's recorded answers: the NVML backend replays them on any tree */
	"axl-capture/nvml.jsonl",
	/* live metrics (appended): what the amdgpu sampler and the DRM client sweep read */
	GPU "/gpu_busy_percent", GPU "/mem_info_vram_used", GPU "/mem_busy_percent",
	GPU "/ras/umc_err_count", GPU "/hwmon/hwmon0/energy1_input", GPU "/hwmon/hwmon0/pwm1",
	GPU "/hwmon/hwmon0/freq1_input", GPU "/hwmon/hwmon0/temp2_label", GPU "/hwmon/hwmon0/temp2_input",
	"proc/77/fdinfo/5", "proc/77/comm", "proc/77/cgroup",
};
#define NFILES (sizeof files / sizeof *files)

/* The tree of one input, in memory (util/memfs.h): the seam's calls read it, nothing is
 * written to disk (a tree on disk ran ~90 inputs/s, most of it in the file system). */
static struct axl__mtree *setup(void)
{
	struct axl__mtree *t = axl__mtree_new();
	if (!t)
		abort();
	axl__mtree_link(t, "sys/bus/pci/devices/0000:01:00.0", "../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0");
	/* a process with a DRM client on the GPU's render node */
	axl__mtree_link(t, "proc/77/fd/5", "/dev/dri/renderD128");
	axl__mtree_dir(t, "sys/bus/pci/drivers/amdgpu");
	/* bound to amdgpu, so the amdgpu backend reads the GPU's files too */
	axl__mtree_link(t, GPU "/driver", "../../../../bus/pci/drivers/amdgpu");
	return t;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 1 << 20)
		return 0;
	struct axl__mtree *t = setup();
	size_t start = 0, k = 0;
	for (size_t i = 0; i <= size && k < NFILES; i++) {
		if (i == size || data[i] == 0) {
			axl__mtree_file(t, files[k++], data + start, i - start);
			start = i + 1;
		}
	}
	struct axl_context_options o = AXL_CONTEXT_OPTIONS_INIT;
	o.sysroot = "/fuzz-tree"; /* names the tree in messages */
	o.flags = AXL_CONTEXT_NO_ENV | AXL_CONTEXT_NO_PCI_IDS;
	/* every visibility layer runs: the variables are handed over explicitly */
	static const char *const env[] = {
		"CUDA_VISIBLE_DEVICES=0,GPU-1", "ROCR_VISIBLE_DEVICES=0,GPU-00", "HIP_VISIBLE_DEVICES=0",
		"NVIDIA_VISIBLE_DEVICES=0", "HABANA_VISIBLE_MODULES=0", NULL,
	};
	o.env = env;
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
		if (axl_device_get_int(d, AXL_ATTR_NUMA_NODE, &v) == 0 && (v < 0 || v > 65535))
			abort();
		if (axl_device_get_int(d, AXL_ATTR_LINK_CURRENT_GEN, &v) == 0 && (v < 1 || v > 7))
			abort();
		/* sizes, clocks and counts are never negative, whatever the files say */
		static const axl_attr nonneg[] = {AXL_ATTR_MEMORY_TOTAL, AXL_ATTR_MEMORY_USED,
						  AXL_ATTR_MEMORY_VISIBLE, AXL_ATTR_MEMORY_GTT,
						  AXL_ATTR_CLOCK_GRAPHICS, AXL_ATTR_CLOCK_GRAPHICS_MAX,
						  AXL_ATTR_CLOCK_MEMORY_MAX, AXL_ATTR_MEMORY_BUS_WIDTH};
		for (size_t a = 0; a < sizeof nonneg / sizeof *nonneg; a++)
			if (axl_device_get_int(d, nonneg[a], &v) == 0 && v < 0)
				abort();
		for (size_t c = 0; c < axl_device_compute_unit_count(d); c++)
			if (axl_device_compute_unit(d, c)->count < 0)
				abort();
		if (axl_device_get_int(d, AXL_ATTR_VISIBLE, &v) == 0 &&
		    ((v != 0 && v != 1) || axl_device_source(d, AXL_ATTR_VISIBLE) == AXL_SOURCE_NONE))
			abort();
	}
	/* two samples (rates need two), each value in its range, the document written */
	axl_sampler *smp;
	if (axl_sampler_open(&smp, inv, AXL_SAMPLER_PROCESSES) != 0)
		abort();
	for (int k = 0; k < 2; k++) {
		axl_sample *s;
		if (axl_sampler_sample(smp, &s) != 0)
			abort();
		for (size_t i = 0; i < axl_sample_device_count(s); i++)
			for (int m = 0; m < AXL_METRIC__COUNT; m++) {
				double v;
				if (axl_sample_get(s, i, (axl_metric)m, &v, NULL) != 0)
					continue;
				if (v != v || v < -300 ||
				    (strcmp(axl_metric_unit((axl_metric)m), "percent") == 0 && v > 100))
					abort();
				if (m != AXL_METRIC_TEMPERATURE && m != AXL_METRIC_TEMPERATURE_HOTSPOT &&
				    m != AXL_METRIC_TEMPERATURE_MEMORY && v < 0)
					abort();
			}
		for (size_t p = 0; p < axl_sample_process_count(s); p++) {
			const struct axl_process *pr = axl_sample_process(s, p);
			if (pr->pid <= 0 || !pr->device || pr->utilization_percent > 100 ||
			    pr->memory_used_bytes < -1)
				abort();
		}
		char *mdoc;
		if (axl_sample_json(s, 0, &mdoc, NULL) != 0)
			abort();
		axl_free(mdoc);
		axl_sample_free(s);
	}
	axl_sampler_free(smp);
	axl_inventory_free(inv);
	axl_context_free(ctx);
	axl__mtree_free(t);
	return 0;
}
