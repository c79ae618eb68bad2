/* SPDX-License-Identifier: MIT */
/* What a container needs to use an AMD GPU or NPU (include/axl/runtime.h). A GPU: ROCm's
 * user-space libraries and /dev/kfd, the compute interface every ROCm process opens
 * besides the GPU's render node. An NPU (XDNA): the Xilinx runtime's libraries. */
#define _GNU_SOURCE
#include "amd_runtime.h"
#include "runtime_files.h"

static const char *const gpu_libs[] = {"librocm_smi64.so.*", "libamd_smi.so.*", "libamdhip64.so.*",
				       "libhsa-runtime64.so.*", "libhsakmt.so.*", NULL};
/* also where ROCm SMI and HIP are looked for under a driver root (vlib.h) */
const char *const axl__amd_gpu_lib_dirs[] = {AXL__SYSTEM_LIB_DIRS, "/opt/rocm/lib", AXL__LOCAL_LIB_DIRS, NULL};
static const char *const gpu_control[] = {"/dev/kfd", NULL};
static const char *const npu_libs[] = {"libxrt_core.so.*", "libxrt_coreutil.so.*", NULL};

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
