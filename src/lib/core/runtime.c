/* SPDX-License-Identifier: MIT */
/* axl_device_runtime: the runtime files of a device (include/axl/runtime.h), asked of
 * the backend that owns it. The descriptions live in the vendors' folders
 * (backend/<vendor>/runtime.c); this file only finds the owner. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "backend.h"

AXL_API const struct axl_runtime *axl_device_runtime(const axl_device *dev)
{
	if (!dev)
		return NULL;
	/* a partition is used with its parent's files */
	while (dev->parent)
		dev = dev->parent;
	/* the owner as discovery decided it (inventory.c's filter): the first vendor backend
	 * that created or claims the device; "pci" (backend 0) for the rest */
	for (size_t b = 1; b < axl__backend_total; b++) {
		const struct axl__backend *be = axl__backends[b];
		if ((dev->owner && strcmp(be->name, dev->owner) == 0) || axl__backend_owns(be, dev))
			return be->runtime && be->runtime->files ? be->runtime->files(dev) : NULL;
	}
	const struct axl__backend *pci = axl__backends[0];
	return pci->runtime && pci->runtime->files ? pci->runtime->files(dev) : NULL;
}

AXL_API int axl_device_cdi_kind(const axl_device *dev, char *buf, size_t cap)
{
	if (!dev || !buf)
		return AXL_EINVAL;
	const struct axl_runtime *rt = axl_device_runtime(dev);
	const char *vk = rt ? rt->kind : NULL;
	const char *slash = vk ? strchr(vk, '/') : NULL;
	while (dev->parent)
		dev = dev->parent;
	int n;
	if (slash)
		n = snprintf(buf, cap, AXL_CDI_VENDOR "/%.*s-%s", (int)strcspn(vk, "./"), vk, slash + 1);
	else
		n = snprintf(buf, cap, AXL_CDI_VENDOR "/%s", axl_family_name(axl_device_family(dev)));
	if (n < 0 || (size_t)n >= cap) {
		if (cap)
			buf[0] = '\0';
		return AXL_ERANGE;
	}
	return n;
}
