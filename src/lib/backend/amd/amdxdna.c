/* SPDX-License-Identifier: MIT */
/*
 * AMD XDNA NPUs (Ryzen AI; amdxdna on the accel subsystem: /dev/accel/accelN).
 * Attributes on the PCI device (drivers/accel/amdxdna/amdxdna_sysfs.c):
 *   vbnv        "%s" the NPU's name ("RyzenAI-npu1", "RyzenAI-npu4", ...; npu*_regs.c)
 *   fw_version  "%d.%d.%d.%d" firmware (major, minor, sub, build)
 *   device_type "%d" the command-queue model (KMQ/UMQ): not a device fact, not read
 */
#define _GNU_SOURCE
#include <string.h>

#include "backend.h"
#include "sysattr.h"
#include "sysfs.h"
#include "devicedb.h"

#define SRC "amdxdna"

static bool xdna_owns(const struct axl_device *dev)
{
	return strcmp(dev->prefix, "amdxdna") == 0;
}

static int xdna_enrich(struct axl__scan *scan, const struct axl__backend *self, struct axl_device *dev)
{
	const char *drv = axl__str(dev, AXL_ATTR_DRIVER);
	if (!drv || strcmp(drv, "amdxdna") != 0)
		return 0;
	axl__module_version(scan, dev, "amdxdna");
	/* no memory of its own: amdxdna gives the NPU buffers from the host's system memory
	 * (shmem GEM objects), so what it can use is the host's memory */
	const struct axl_host *h = &scan->inv->host;
	if (h->attr[AXL_HOST_MEMORY_TOTAL].src)
		axl__set_int(dev, AXL_ATTR_MEMORY_SHARED_SYSTEM, (axl_source)h->attr[AXL_HOST_MEMORY_TOTAL].src,
			     h->attr[AXL_HOST_MEMORY_TOTAL].v.i);
	struct axl__adir d;
	if (!axl__adir_open(&d, scan, dev->syspath, SRC))
		return 0;
	char vbnv[64];
	/* the database's marketing name wins; vbnv names what it does not know */
	if (axl__adir_text(&d, "vbnv", vbnv, sizeof vbnv, 0) && !axl__db_knows(scan, dev))
		axl__set_str(scan->inv, dev, AXL_ATTR_MODEL, AXL_SOURCE_SYSFS, vbnv);
	axl__adir_set_str(&d, dev, "fw_version", AXL_ATTR_FIRMWARE_VERSION, 0);
	axl__adir_close(&d);
	return 0;
}

/* runtime.c */
const struct axl_runtime *axl__amd_runtime(const struct axl_device *dev);

static const char *const drivers[] = {"amdxdna", NULL};

static const struct axl__backend_facts amdxdna_facts = {
	.drivers = drivers,
};

static const struct axl__discover_ops amdxdna_discover = {
	.owns = xdna_owns,
	.enrich = xdna_enrich,
};

static const struct axl__runtime_ops amdxdna_runtime = {
	.files = axl__amd_runtime,
};

const struct axl__backend axl__backend_amdxdna = {
	.name = "amdxdna",
	.facts = &amdxdna_facts,
	.discover = &amdxdna_discover,
	.runtime = &amdxdna_runtime,
};
