/* SPDX-License-Identifier: MIT */
/* What a container needs to use a Huawei Ascend NPU (include/axl/runtime.h): the
 * driver's libraries and npu-smi, and the three nodes every process of the driver
 * opens besides its /dev/davinciN: the manager, shared virtual memory and the host-device
 * channel. */
#define _GNU_SOURCE
#include "backend.h"
#include "runtime_files.h"

static const char *const libs[] = {"libascend_hal.so", "libdcmi.so", NULL};
static const char *const lib_dirs[] = {AXL__SYSTEM_LIB_DIRS, "/usr/local/Ascend/driver/lib64", AXL__LOCAL_LIB_DIRS,
				       NULL};
static const char *const bins[] = {"npu-smi", NULL};
static const char *const control[] = {"/dev/davinci_manager", "/dev/devmm_svm", "/dev/hisi_hdc", NULL};

static const struct axl_runtime npu = {
	.kind = "huawei.com/npu",
	.vendor = "Ascend",
	.libraries = libs,
	.library_dirs = lib_dirs,
	.binaries = bins,
	.binary_dirs = axl__runtime_bin_dirs,
	.control_nodes = control,
	.env = axl__runtime_none,
	.attrs = axl__runtime_no_attrs,
};

/* the backend's operation (axl__backend.runtime) */
const struct axl_runtime *axl__ascend_runtime(const struct axl_device *dev);
const struct axl_runtime *axl__ascend_runtime(const struct axl_device *dev)
{
	(void)dev;
	return &npu;
}
