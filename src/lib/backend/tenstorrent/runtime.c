/* SPDX-License-Identifier: MIT */
/* What a container needs to use a Tenstorrent card (include/axl/runtime.h): its device
 * plugin's resource; the user-space stack (tt-metal) is the container image's. */
#define _GNU_SOURCE
#include "backend.h"
#include "runtime_files.h"

static const struct axl_runtime card = AXL__RUNTIME_BARE("tenstorrent.com/card", "Tenstorrent");

/* the backend's operation (axl__backend.runtime) */
const struct axl_runtime *axl__tenstorrent_runtime(const struct axl_device *dev);
const struct axl_runtime *axl__tenstorrent_runtime(const struct axl_device *dev)
{
	(void)dev;
	return &card;
}
