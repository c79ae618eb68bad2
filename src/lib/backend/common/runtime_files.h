/* SPDX-License-Identifier: MIT */
/* What every vendor's runtime files (backend/<vendor>/runtime.c, include/axl/runtime.h)
 * share: the system's library and program directories, searched before a vendor's own,
 * and the empty list. */
#ifndef AXL_RUNTIME_FILES_H
#define AXL_RUNTIME_FILES_H

#include "internal.h"

/* Where distributions and driver installers put shared libraries, multiarch first. A
 * vendor's list is AXL__SYSTEM_LIB_DIRS, its own directories, AXL__LOCAL_LIB_DIRS, NULL. */
#define AXL__SYSTEM_LIB_DIRS                                                                          \
	"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib",          \
		"/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu", "/lib64", "/lib"
#define AXL__LOCAL_LIB_DIRS "/usr/local/lib"
/* Where programs live; a vendor's list is AXL__SYSTEM_BIN_DIRS, its own, NULL. */
#define AXL__SYSTEM_BIN_DIRS "/usr/bin", "/usr/local/bin", "/usr/sbin"

/* The empty lists (a list field is never NULL). */
extern const char *const axl__runtime_none[];
extern const struct axl_runtime_attr axl__runtime_no_attrs[];
/* The library and program directories of a vendor with none of its own. */
extern const char *const axl__runtime_lib_dirs[];
extern const char *const axl__runtime_bin_dirs[];

/* A row with a kind (or NULL) and a vendor name, and nothing to mount: the vendor's
 * software is the container image's own. */
#define AXL__RUNTIME_BARE(kind_, vendor_) AXL__RUNTIME_LIBS(kind_, vendor_, axl__runtime_none)
/* A row with user-space libraries only (in the usual directories): no programs, no
 * control nodes, no environment, no vendor attributes. */
#define AXL__RUNTIME_LIBS(kind_, vendor_, libs_)                                                      \
	{                                                                                             \
		.kind = (kind_), .vendor = (vendor_), .libraries = (libs_),                           \
		.library_dirs = axl__runtime_lib_dirs, .binaries = axl__runtime_none,                 \
		.binary_dirs = axl__runtime_bin_dirs, .control_nodes = axl__runtime_none,             \
		.env = axl__runtime_none, .attrs = axl__runtime_no_attrs                              \
	}

/* The "pci" backend's operation (registry.c): accelerators no vendor backend owns. */
const struct axl_runtime *axl__pci_runtime(const struct axl_device *dev);

#endif
