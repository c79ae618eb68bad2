/* SPDX-License-Identifier: MIT */
/** @file axl/version.h  Compile-time and run-time version of libaxl. */
#ifndef AXL_VERSION_H
#define AXL_VERSION_H

#include "common.h"

AXL_BEGIN_DECLS

#define AXL_VERSION_MAJOR 0
#define AXL_VERSION_MINOR 1
#define AXL_VERSION_PATCH 0
#define AXL_VERSION_STRING "0.1.0"
/** (major << 16) | (minor << 8) | patch */
#define AXL_VERSION_NUMBER ((AXL_VERSION_MAJOR << 16) | (AXL_VERSION_MINOR << 8) | AXL_VERSION_PATCH)

/** The version of the library actually loaded, as a string ("0.1.0"). */
AXL_API const char *axl_version(void);
/** The version of the library actually loaded, as AXL_VERSION_NUMBER encodes it. */
AXL_API unsigned axl_version_number(void);

AXL_END_DECLS

#endif
