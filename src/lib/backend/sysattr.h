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

#include "backend_util.h"

enum {
	/* the driver always publishes it: missing is a warning */
	AXL__SA_REQUIRED = 1u << 0,
	/* mode 0400 in the driver: "permission denied" for a normal user is not damage */
	AXL__SA_ROOT_ONLY = 1u << 1,
	/* an empty file is the driver saying "not known" (no warning, no value) */
	AXL__SA_EMPTY_UNKNOWN = 1u << 2
};

struct axl__adir {
	struct axl__scan *scan;
	int fd;
	const char *path; /* for messages */
	const char *source;
};

/* Open path (under the sysroot) as an attribute directory; false when it cannot be
 * opened (nothing is reported: the caller decides whether it was expected). */
bool axl__adir_open(struct axl__adir *d, struct axl__scan *scan, const char *path, const char *source);
void axl__adir_close(struct axl__adir *d);
/* Is there such an entry? */
bool axl__adir_has(const struct axl__adir *d, const char *name);

/* The stripped text of name (NUL-terminated); false when unknown (see the flags). */
bool axl__adir_text(struct axl__adir *d, const char *name, char *buf, size_t cap, unsigned flags);
/* An unsigned integer (base 10, 16, or 0 for a "0x" prefix). */
bool axl__adir_u64(struct axl__adir *d, const char *name, int base, uint64_t *out, unsigned flags);

/* name as a string attribute (sysfs); true when set. */
bool axl__adir_set_str(struct axl__adir *d, struct axl_device *dev, const char *name, axl_attr attr,
		       unsigned flags);
/* name as an integer attribute, times mul divided by div; zero is kept only with
 * keep_zero (a clock of 0 MHz is real, a power limit of 0 means "none set"). */
bool axl__adir_set_int(struct axl__adir *d, struct axl_device *dev, const char *name, axl_attr attr,
		       int64_t mul, int64_t div, bool keep_zero, unsigned flags);
/* name as a number attribute scaled by factor (microwatts -> watts: 1e-6); zero is
 * kept only with keep_zero. */
bool axl__adir_set_num(struct axl__adir *d, struct axl_device *dev, const char *name, axl_attr attr,
		       double factor, bool keep_zero, unsigned flags);
/* A warning about name in this directory. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
void axl__adir_warn(struct axl__adir *d, const char *name, const char *fmt, ...);

/* The hwmon directory (".../hwmon/hwmonN") of the PCI device whose "name" is name
 * (any name when NULL; the lowest-numbered one wins). false when there is none. */
bool axl__hwmon_find(struct axl__scan *scan, const struct axl_device *dev, const char *name, char *out,
		     size_t cap);

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
