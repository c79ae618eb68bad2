/* SPDX-License-Identifier: MIT */
/* What a container needs to use a Qualcomm Cloud AI 100 (include/axl/runtime.h): the
 * platform SDK's runtime library. */
#define _GNU_SOURCE
#include "backend.h"
#include "runtime_files.h"

static const char *const libs[] = {"libQAic.so.*", NULL};

static const struct axl_runtime card = AXL__RUNTIME_LIBS("qualcomm.com/qaic", "Qualcomm", libs);

/* the backend's operation (axl__backend.runtime) */
const struct axl_runtime *axl__qaic_runtime(const struct axl_device *dev);
const struct axl_runtime *axl__qaic_runtime(const struct axl_device *dev)
{
	(void)dev;
	return &card;
}
