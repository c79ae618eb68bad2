/* SPDX-License-Identifier: MIT */
/* AMD partition modes through sysfs: TEMPORARY until the backend lands (same session). */
#include "../partition.h"

int axl__amdgpu_set_partition_mode(const struct axl__fs *fs, const struct axl_device *gpu,
				   const char *kind, const char *mode)
{
	(void)fs, (void)gpu, (void)kind, (void)mode;
	return axl__error(AXL_ENOTSUP, "AMD partition modes are not built yet");
}
