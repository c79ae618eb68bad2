/* SPDX-License-Identifier: MIT */
/* What a container needs to use an AMD GPU or NPU (include/axl/runtime.h). A GPU: ROCm's
 * user-space libraries and /dev/kfd, the compute interface every ROCm process opens
 * besides the GPU's render node. An NPU (XDNA): the Xilinx runtime's libraries. */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "amd_runtime.h"
#include "runtime_files.h"

static const char *const gpu_libs[] = {"librocm_smi64.so.*", "libamd_smi.so.*", "libamdhip64.so.*",
				       "libhsa-runtime64.so.*", "libhsakmt.so.*", NULL};
/* also where ROCm SMI and HIP are looked for under a driver root (vlib.h) */
const char *const axl__amd_gpu_lib_dirs[] = {AXL__SYSTEM_LIB_DIRS, "/opt/rocm/lib", AXL__LOCAL_LIB_DIRS, NULL};
static const char *const gpu_control[] = {"/dev/kfd", NULL};
static const char *const npu_libs[] = {"libxrt_core.so.*", "libxrt_coreutil.so.*", NULL};

/* The partition mode of gpu for partitioning technology tech ("CPX"), lower case, into
 * out; false when it shows none. */
static bool gpu_mode(const axl_device *gpu, const char *tech, char *out, size_t cap)
{
	for (size_t i = 0; i < axl_device_partitioning_count(gpu); i++) {
		const struct axl_partitioning *p = axl_device_partitioning(gpu, i);
		if (!p || !p->technology || strcmp(p->technology, tech) != 0 || !p->mode)
			continue;
		size_t n = 0;
		for (const char *c = p->mode; *c && n + 1 < cap; c++)
			if (isalnum((unsigned char)*c))
				out[n++] = (char)tolower((unsigned char)*c);
		out[n] = '\0';
		return n > 0;
	}
	return false;
}

/* ROCm's device plugin under -resource_naming_strategy mixed: a GPU and each of its
 * partitions are named after the GPU's compute and memory partition modes, lower case,
 * joined by '_' (internal/pkg/amdgpu/amdgpu.go: current_compute_partition + "_" +
 * current_memory_partition; cmd/k8s-device-plugin/main.go, getResourceList): amd.com/cpx_nps4,
 * amd.com/spx_nps1 for a GPU that could be partitioned and is not. A GPU that shows no
 * modes (an MI210) has no such name: amd.com/gpu, whatever the strategy. */
static int mode_resource(const axl_device *dev, char *buf, size_t cap)
{
	const axl_device *gpu = axl_device_parent(dev) ? axl_device_parent(dev) : dev;
	char compute[32], memory[32];
	if (!gpu_mode(gpu, "AMD-CPX", compute, sizeof compute) || !gpu_mode(gpu, "AMD-NPS", memory, sizeof memory))
		return -1;
	int n = snprintf(buf, cap, "amd.com/%s_%s", compute, memory);
	return n < 0 || (size_t)n >= cap ? -1 : 0;
}

static const struct axl_runtime gpu = {
	.kind = "amd.com/gpu",
	.vendor = "AMD",
	.libraries = gpu_libs,
	.library_dirs = axl__amd_gpu_lib_dirs,
	.binaries = axl__runtime_none,
	.binary_dirs = axl__runtime_bin_dirs,
	.control_nodes = gpu_control,
	.env = axl__runtime_none,
	.attrs = axl__runtime_no_attrs,
	/* ROCr takes a GPU's unique id (GPU-<hex>) as well as its index (ROCm documentation,
	 * "GPU isolation techniques") */
	.visible_env = "ROCR_VISIBLE_DEVICES",
	/* a GPU in CPX, DPX or QPX mode is 8, 2 or 4 GPUs to ROCm, each with its own render
	 * node: ROCm's plugin advertises each (amdgpu.go, GetAMDGPUs: the PCI function and
	 * every amdgpu_xcp_* platform device), under amd.com/gpu by default */
	.flags = AXL_RUNTIME_PARTITIONS_REPLACE,
	.partition_resource_name = mode_resource,
};

static const struct axl_runtime npu = AXL__RUNTIME_LIBS("amd.com/npu", "AMD", npu_libs);

/* a device of AMD's CPU-side vendor id that is no NPU: no resource of its own */
static const struct axl_runtime other = AXL__RUNTIME_BARE(NULL, "AMD");

/* For the amdgpu and amdxdna backends. A device without a PCI vendor id (found by KFD
 * alone) is a GPU's. */
/* the backend's operation (axl__backend.runtime) */
const struct axl_runtime *axl__amd_runtime(const struct axl_device *dev);
const struct axl_runtime *axl__amd_runtime(const struct axl_device *dev)
{
	int64_t vid = axl__int(dev, AXL_ATTR_VENDOR_ID, -1);
	if (axl_device_family(dev) == AXL_FAMILY_NPU)
		return &npu;
	return vid == 0x1022 ? &other : &gpu;
}
