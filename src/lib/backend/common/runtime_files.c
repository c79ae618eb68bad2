/* SPDX-License-Identifier: MIT */
/* The shared lists of runtime_files.h, and the runtime files of the "pci" backend: the
 * accelerators no vendor backend owns, for the vendors among them whose device plugins
 * name a Kubernetes resource (and so a CDI kind). */
#define _GNU_SOURCE
#include "runtime_files.h"

const char *const axl__runtime_none[] = {NULL};
const struct axl_runtime_attr axl__runtime_no_attrs[] = {{AXL_ATTR__COUNT, NULL, NULL}};
const char *const axl__runtime_lib_dirs[] = {AXL__SYSTEM_LIB_DIRS, AXL__LOCAL_LIB_DIRS, NULL};
const char *const axl__runtime_bin_dirs[] = {AXL__SYSTEM_BIN_DIRS, NULL};

static const struct {
	int vendor_id;
	struct axl_runtime rt;
} unowned[] = {
	/* NEC SX-Aurora Vector Engine: its device plugin's resource; the vendor name is the
	 * device's own (core/vendors.c) */
	{0x1bcf, AXL__RUNTIME_BARE("nec.com/ve", NULL)},
};

const struct axl_runtime *axl__pci_runtime(const struct axl_device *dev)
{
	int64_t vid = axl__int(dev, AXL_ATTR_VENDOR_ID, -1);
	for (size_t i = 0; i < sizeof unowned / sizeof *unowned; i++)
		if (unowned[i].vendor_id == vid)
			return &unowned[i].rt;
	return NULL;
}
