/* SPDX-License-Identifier: MIT */
/* What a container needs to use a Qualcomm Cloud AI 100 (include/axl/runtime.h): the
 * platform SDK's runtime library. */
#define _GNU_SOURCE
#include "runtime_files.h"

static const char *const libs[] = {"libQAic.so.*", NULL};

static const struct axl_runtime card = {
	.kind = "qualcomm.com/qaic",
	.vendor = "Qualcomm",
	.libraries = libs,
	.library_dirs = axl__runtime_lib_dirs,
	.binaries = axl__runtime_none,
	.binary_dirs = axl__runtime_bin_dirs,
	.control_nodes = axl__runtime_none,
	.env = axl__runtime_none,
	.attrs = axl__runtime_no_attrs,
};

/* the backend's operation (axl__backend.runtime) */
const struct axl_runtime *axl__qaic_runtime(const struct axl_device *dev);
const struct axl_runtime *axl__qaic_runtime(const struct axl_device *dev)
{
	(void)dev;
	return &card;
}
