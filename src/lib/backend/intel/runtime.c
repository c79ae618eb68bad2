/* SPDX-License-Identifier: MIT */
/* What a container needs to use an Intel GPU or NPU (include/axl/runtime.h): the Level
 * Zero loader and the driver behind it, the GPU's (libze_intel_gpu) or the NPU's
 * (libze_intel_vpu with its compiler). */
#define _GNU_SOURCE
#include "runtime_files.h"

static const char *const gpu_libs[] = {"libze_loader.so.*", "libze_intel_gpu.so.*", NULL};
static const char *const npu_libs[] = {"libze_loader.so.*", "libze_intel_vpu.so.*", "libnpu_driver_compiler.so",
				       NULL};

static const struct axl_runtime gpu = {
	.kind = "intel.com/gpu",
	.vendor = "Intel",
	.libraries = gpu_libs,
	.library_dirs = axl__runtime_lib_dirs,
	.binaries = axl__runtime_none,
	.binary_dirs = axl__runtime_bin_dirs,
	.control_nodes = axl__runtime_none,
	.env = axl__runtime_none,
	.attrs = axl__runtime_no_attrs,
};

static const struct axl_runtime npu = {
	.kind = "intel.com/npu",
	.vendor = "Intel",
	.libraries = npu_libs,
	.library_dirs = axl__runtime_lib_dirs,
	.binaries = axl__runtime_none,
	.binary_dirs = axl__runtime_bin_dirs,
	.control_nodes = axl__runtime_none,
	.env = axl__runtime_none,
	.attrs = axl__runtime_no_attrs,
};

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
