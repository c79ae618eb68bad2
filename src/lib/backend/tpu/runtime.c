/* SPDX-License-Identifier: MIT */
/* What a container needs to use a Cloud TPU (include/axl/runtime.h): libtpu. A Coral
 * Edge TPU (Global Unichip's vendor id) has no Kubernetes resource of its own. */
#define _GNU_SOURCE
#include "runtime_files.h"

static const char *const libs[] = {"libtpu.so", NULL};

static const struct axl_runtime cloud = {
	.kind = "google.com/tpu",
	.vendor = "Google",
	.libraries = libs,
	.library_dirs = axl__runtime_lib_dirs,
	.binaries = axl__runtime_none,
	.binary_dirs = axl__runtime_bin_dirs,
	.control_nodes = axl__runtime_none,
	.env = axl__runtime_none,
	.attrs = axl__runtime_no_attrs,
};

static const struct axl_runtime edge = AXL__RUNTIME_BARE(NULL, "Google");

/* the backend's operation (axl__backend.runtime) */
const struct axl_runtime *axl__tpu_runtime(const struct axl_device *dev);
const struct axl_runtime *axl__tpu_runtime(const struct axl_device *dev)
{
	return axl__int(dev, AXL_ATTR_VENDOR_ID, -1) == 0x1ac1 ? &edge : &cloud;
}
