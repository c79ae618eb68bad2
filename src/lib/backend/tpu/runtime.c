/* SPDX-License-Identifier: MIT */
/* What a container needs to use a Cloud TPU (include/axl/runtime.h): libtpu. A Coral
 * Edge TPU (Global Unichip's vendor id) has no Kubernetes resource of its own. */
#define _GNU_SOURCE
#include "backend.h"
#include "runtime_files.h"

static const char *const libs[] = {"libtpu.so", NULL};

static const struct axl_runtime cloud = AXL__RUNTIME_LIBS("google.com/tpu", "Google", libs);

static const struct axl_runtime edge = AXL__RUNTIME_BARE(NULL, "Google");

/* the backend's operation (axl__backend.runtime) */
const struct axl_runtime *axl__tpu_runtime(const struct axl_device *dev);
const struct axl_runtime *axl__tpu_runtime(const struct axl_device *dev)
{
	return axl__int(dev, AXL_ATTR_VENDOR_ID, -1) == 0x1ac1 ? &edge : &cloud;
}
