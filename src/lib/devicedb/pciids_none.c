/* SPDX-License-Identifier: MIT */
/* Built without libpci: no pci.ids names. */
#define _GNU_SOURCE
#include "internal.h"
#include "devicedb.h"

const char *axl__pciids_device(axl_context *ctx, int vendor, int device, int subvendor,
			       int subdevice, char *buf, size_t cap)
{
	(void)ctx; (void)vendor; (void)device; (void)subvendor; (void)subdevice; (void)buf; (void)cap;
	return NULL;
}

const char *axl__pciids_vendor(axl_context *ctx, int vendor, char *buf, size_t cap)
{
	(void)ctx; (void)vendor; (void)buf; (void)cap;
	return NULL;
}

void axl__pciids_free(axl_context *ctx)
{
	(void)ctx;
}
