/* SPDX-License-Identifier: MIT */
/* What a container needs to use an Intel GPU or NPU (include/axl/runtime.h): the Level
 * Zero loader and the driver behind it, the GPU's (libze_intel_gpu) or the NPU's
 * (libze_intel_vpu with its compiler). */
#define _GNU_SOURCE
#include "runtime_files.h"

static const char *const gpu_libs[] = {"libze_loader.so.*", "libze_intel_gpu.so.*", NULL};
static const char *const npu_libs[] = {"libze_loader.so.*", "libze_intel_vpu.so.*", "libnpu_driver_compiler.so",
				       NULL};

static const struct axl_runtime gpu = AXL__RUNTIME_LIBS("intel.com/gpu", "Intel", gpu_libs);

static const struct axl_runtime npu = AXL__RUNTIME_LIBS("intel.com/npu", "Intel", npu_libs);

/* any other Intel accelerator: no resource of its own */
static const struct axl_runtime other = AXL__RUNTIME_BARE(NULL, "Intel");

/* the backend's operation (axl__backend.runtime) */
const struct axl_runtime *axl__intel_runtime(const struct axl_device *dev);
const struct axl_runtime *axl__intel_runtime(const struct axl_device *dev)
{
	switch (axl_device_family(dev)) {
	case AXL_FAMILY_GPU: return &gpu;
	case AXL_FAMILY_NPU: return &npu;
	default: return &other;
	}
}
