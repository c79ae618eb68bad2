/* SPDX-License-Identifier: MIT */
/* NVIDIA MIG control through NVML: TEMPORARY until the MIG backend lands (same session). */
#include "../partition.h"

int axl__nvml_mig_create(axl_context *ctx, const struct axl_device *gpu, int64_t profile_id,
			 struct axl__part_made *out)
{
	(void)ctx, (void)gpu, (void)profile_id, (void)out;
	return axl__error(AXL_ENOTSUP, "MIG control through NVML is not built yet");
}

int axl__nvml_mig_destroy(axl_context *ctx, const struct axl_device *gpu, const char *id, size_t *removed)
{
	(void)ctx, (void)gpu, (void)id;
	if (removed)
		*removed = 0;
	return axl__error(AXL_ENOTSUP, "MIG control through NVML is not built yet");
}
