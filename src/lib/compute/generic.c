/* SPDX-License-Identifier: MIT */
/* The vendor-neutral compute backends, in priority order: they drive what no vendor's
 * own runtime (struct axl__backend.compute) does. */
#include "compute_impl.h"

const struct axl__compute_ops *const axl__compute_generic[] = {
	&axl__compute_opencl,
	&axl__compute_vulkan,
	NULL,
};
