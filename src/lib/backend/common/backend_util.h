/* SPDX-License-Identifier: MIT */
/* Small helpers the vendor backends share. */
#ifndef AXL_BACKEND_UTIL_H
#define AXL_BACKEND_UTIL_H

#include "backend.h"

/* Path ("/sys/bus/pci/devices/X/accel/accel0") of the first class device the driver
 * created under dev in class directory cls; false when there is none. */
bool axl__class_dev(struct axl__scan *scan, const struct axl_device *dev, const char *cls, char *out,
		    size_t cap);
/* Read /sys/module/<module>/version into DRIVER_VERSION when the module has one. */
void axl__module_version(struct axl__scan *scan, struct axl_device *dev, const char *module);
/* Read dir/name as a string attribute into attr (sysfs). */
bool axl__attr_str(struct axl__scan *scan, struct axl_device *dev, const char *dir, const char *name,
		   axl_attr attr, const char *source);
/* The device with this PCI address, or NULL. */
struct axl_device *axl__find_pci(struct axl_inventory *inv, unsigned domain, unsigned bus,
				 unsigned devno, unsigned fn);
/* Index of dev among devices of the same prefix in PCI order (before ids exist). */
int axl__ordinal(const struct axl_inventory *inv, const struct axl_device *dev);

#endif
