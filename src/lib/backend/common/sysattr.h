/* SPDX-License-Identifier: MIT */
/*
 * Reading a driver's attribute directory: one directory fd per device, then short
 * relative reads, each with the warning rules of the whole library (a missing
 * attribute is silent unless it is expected, garbage is a warning, only that value is
 * lost). Also: the hwmon directory of a PCI device, SR-IOV, and the device database's
 * view of a device (used to decide whether a driver-reported name should be the model).
 */
#ifndef AXL_BACKEND_SYSATTR_H
#define AXL_BACKEND_SYSATTR_H

#include "backend.h"
#include "backend_util.h"
#include "sysfs.h"

/* SR-IOV from the PCI core's sriov_totalvfs / sriov_numvfs (Documentation/ABI/testing/
 * sysfs-bus-pci): a partitioning entry "SR-IOV" with a "VF" profile. Nothing when the
 * function has no SR-IOV capability. */
void axl__sriov(struct axl__scan *scan, struct axl_device *dev, const char *source);

/* Does the device database know this device by its PCI ids (and is it in use)? A
 * driver-reported name becomes the model only when it does not. */
bool axl__db_knows(const struct axl__scan *scan, const struct axl_device *dev);

/* The version of the module that provides the device's PCI driver
 * (/sys/bus/pci/drivers/<driver>/module -> /sys/module/<m>/version). */
void axl__driver_module_version(struct axl__scan *scan, struct axl_device *dev);

/* The id a PCI device of this prefix will get ("neuron:3"), known before ids are
 * assigned: its rank among the devices of the same prefix in PCI order. */
const char *axl__future_id(struct axl_inventory *inv, const struct axl_device *dev);

#endif
