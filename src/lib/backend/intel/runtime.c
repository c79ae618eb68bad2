/* SPDX-License-Identifier: MIT */
/* What a container needs to use an Intel GPU or NPU (include/axl/runtime.h): the Level
 * Zero loader and the driver behind it, the GPU's (libze_intel_gpu) or the NPU's
 * (libze_intel_vpu with its compiler). */
#define _GNU_SOURCE
#include <string.h>

#include "backend.h"
#include "runtime_files.h"

static const char *const gpu_libs[] = {"libze_loader.so.*", "libze_intel_gpu.so.*", NULL};
static const char *const npu_libs[] = {"libze_loader.so.*", "libze_intel_vpu.so.*", "libnpu_driver_compiler.so",
				       NULL};

/* Intel's device plugins for Kubernetes (intel/intel-device-plugins-for-kubernetes,
 * cmd/gpu_plugin and cmd/npu_plugin) name GPUs by their kernel driver: gpu.intel.com/i915
 * or gpu.intel.com/xe; NPUs npu.intel.com/accel. */
#define INTEL_ROW(kind_, libs_, resource_)                                                            \
	{                                                                                             \
		.kind = (kind_), .vendor = "Intel", .libraries = (libs_),                             \
		.library_dirs = axl__runtime_lib_dirs, .binaries = axl__runtime_none,                 \
		.binary_dirs = axl__runtime_bin_dirs, .control_nodes = axl__runtime_none,             \
		.env = axl__runtime_none, .attrs = axl__runtime_no_attrs, .resource = (resource_)     \
	}
static const struct axl_runtime gpu = INTEL_ROW("intel.com/gpu", gpu_libs, "gpu.intel.com/i915");
static const struct axl_runtime gpu_xe = INTEL_ROW("intel.com/gpu", gpu_libs, "gpu.intel.com/xe");

static const struct axl_runtime npu = INTEL_ROW("intel.com/npu", npu_libs, "npu.intel.com/accel");

/* any other Intel accelerator: no resource of its own */
static const struct axl_runtime other = AXL__RUNTIME_BARE(NULL, "Intel");

/* the backend's operation (axl__backend.runtime) */
const struct axl_runtime *axl__intel_runtime(const struct axl_device *dev);
const struct axl_runtime *axl__intel_runtime(const struct axl_device *dev)
{
	switch (axl_device_family(dev)) {
	case AXL_FAMILY_GPU: {
		const char *drv = axl__str(dev, AXL_ATTR_DRIVER);
		return drv && strcmp(drv, "xe") == 0 ? &gpu_xe : &gpu;
	}
	case AXL_FAMILY_NPU: return &npu;
	default: return &other;
	}
}
