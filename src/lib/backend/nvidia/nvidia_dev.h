/* SPDX-License-Identifier: MIT */
/* What the nvidia row keeps per device it owns (its device_size block, core/backend.h:
 * axl__device_data): the minor of the driver's own character device, /dev/nvidiaN, as
 * /proc/driver/nvidia (nvidia.c), NVML (nvml_apply.c) or a simulated node's spec
 * (nvidia_sim.c) tells it; the MIG capability minors count from it (mig_sim.c). */
#ifndef AXL_NVIDIA_DEV_H
#define AXL_NVIDIA_DEV_H

#include <stdbool.h>

#include "backend.h"

struct axl__nvidia_dev {
	int minor;        /* with minor_known */
	bool minor_known; /* the block starts zeroed: unknown */
};

extern const struct axl__backend axl__backend_nvidia;

/* dev's driver minor, -1 unknown */
int axl__nvidia_minor(const struct axl_device *dev);
/* Record it (0..255); false when the block could not be made. */
bool axl__nvidia_set_minor(struct axl_inventory *inv, struct axl_device *dev, int minor);

#endif
