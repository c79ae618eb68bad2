/* SPDX-License-Identifier: MIT */
/*
 * Qualcomm Cloud AI 080/100 (qaic, on the accel subsystem: /dev/accel/accelN).
 * The driver publishes, on the accel class device, one attribute per DMA Bridge
 * Channel: dbc<N>_state "%d" (drivers/accel/qaic/qaic_sysfs.c,
 * Documentation/ABI/stable/sysfs-driver-qaic): 0 idle (free, can be activated),
 * 1 assigned (a workload runs on it), 2..5 the steps of a sub-system restart. A
 * workload holds one DBC, so the DBCs are the card's workload slots: reported as
 * partitioning "QAIC-DBC" with how many are free. AIC080/AIC100 have 16 DBCs
 * (qaic_drv.c num_dbc). Firmware, memory and power are only available through the
 * QAIC_MANAGE ioctl and the MHI channels: not read.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "sysattr.h"
#include "sysfs.h"

#define SRC "qaic"
#define MAX_DBC 64

static bool qaic_owns(const struct axl_device *dev)
{
	return axl__int(dev, AXL_ATTR_VENDOR_ID, -1) == 0x17cb;
}

static int qaic_enrich(struct axl__scan *scan, const struct axl__backend *self, struct axl_device *dev)
{
	const char *drv = axl__str(dev, AXL_ATTR_DRIVER);
	if (!drv || strcmp(drv, "qaic") != 0)
		return 0;
	axl__module_version(scan, dev, "qaic");
	char cd[512];
	struct axl__adir d;
	if (!axl__class_dev(scan, dev, "accel", cd, sizeof cd) || !axl__adir_open(&d, scan, cd, SRC))
		return 0;
	int total = 0, idle = 0;
	for (int i = 0; i < MAX_DBC; i++) {
		char name[32];
		uint64_t st;
		snprintf(name, sizeof name, "dbc%d_state", i);
		if (!axl__adir_has(&d, name))
			break;
		total++;
		if (axl__adir_u64(&d, name, 10, &st, 0)) {
			if (st == 0)
				idle++;
			else if (st > 5)
				axl__adir_warn(&d, name, "unknown DBC state %llu", (unsigned long long)st);
		}
	}
	if (total > 0) {
		struct axl__part *p = axl__add_part(scan->inv, dev, "QAIC-DBC", AXL_SOURCE_SYSFS);
		struct axl_partition_profile *x = p ? axl__part_profile(scan->inv, p, "DBC", AXL_SOURCE_SYSFS) : NULL;
		if (p)
			p->pub.max_partitions = total;
		if (x) {
			x->max_instances = total;
			x->free_instances = idle;
		}
	}
	axl__adir_close(&d);
	return 0;
}

/* runtime.c */
const struct axl_runtime *axl__qaic_runtime(const struct axl_device *dev);

/* Cloud AI 100 (some firmware reports class 0xff) */
static bool qaic_id(int vendor, int device, int cls)
{
	(void)vendor;
	(void)cls;
	return device == 0xa100 || device == 0xa080;
}

static const struct axl__pci_vendor pci_vendors[] = {
	{.id = 0x17cb, .name = "Qualcomm", .prefix = "qaic",
	 .family = AXL_FAMILY_NPU, .accel_id = qaic_id},
	{0},
};
static const char *const drivers[] = {"qaic", NULL};

static const struct axl__backend_facts qaic_facts = {
	.pci_vendors = pci_vendors,
	.drivers = drivers,
};

static const struct axl__discover_ops qaic_discover = {
	.owns = qaic_owns,
	.enrich = qaic_enrich,
};

static const struct axl__runtime_ops qaic_runtime = {
	.files = axl__qaic_runtime,
};

const struct axl__backend axl__backend_qaic = {
	.name = "qaic",
	.facts = &qaic_facts,
	.discover = &qaic_discover,
	.runtime = &qaic_runtime,
};
