/* SPDX-License-Identifier: MIT */
/*
 * The table of oneAPI Level Zero (libze_loader.so.1) functions sysman discovery resolves
 * with dlsym, and axl's own result codes around them. The types, constants and prototypes
 * are the specification's, declared once in src/abi/intel/ze.h (core) and zes.h (sysman)
 * and compared with Debian's ze_api.h / zes_api.h v1.4 by tests/vendorabi; each slot has
 * its function's type. Intel's headers are not needed to build axl.
 */
#ifndef AXL_ZE_API_H
#define AXL_ZE_API_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#include "abi/intel/ze.h"
#include "abi/intel/zes.h"

#define AXL_ZE_FN(sym) __typeof__(&sym)

/* Not Level Zero's results, in the range it leaves free below ZE_RESULT_ERROR_UNKNOWN:
 * the loader does not export the function; and no zesInit, while the legacy zeInit would
 * not bring sysman up (ZES_ENABLE_SYSMAN=1 is not in the environment), so it is not
 * called. */
#define AXL_ZE_NO_FUNCTION ((ze_result_t)0x7fff0001)
#define AXL_ZE_NEED_ENV ((ze_result_t)0x7fff0002)

/* The functions axl resolves from the loader (NULL when it lacks one). */
struct axl__ze_fns {
	/* sysman initialisation (Level Zero 1.5+) */
	AXL_ZE_FN(zesInit) zesInit;
	AXL_ZE_FN(zesDriverGet) zesDriverGet;
	AXL_ZE_FN(zesDeviceGet) zesDeviceGet;
	/* the legacy path: zeInit with ZES_ENABLE_SYSMAN=1 in the environment, core handles
	 * (the same handles: zes_driver_handle_t is ze_driver_handle_t) */
	AXL_ZE_FN(zeInit) zeInit;
	AXL_ZE_FN(zeDriverGet) zeDriverGet;
	AXL_ZE_FN(zeDeviceGet) zeDeviceGet;
	/* device */
	AXL_ZE_FN(zesDeviceGetProperties) zesDeviceGetProperties;
	AXL_ZE_FN(zesDevicePciGetProperties) zesDevicePciGetProperties;
	AXL_ZE_FN(zesDevicePciGetState) zesDevicePciGetState;
	/* components: count, then handles */
	AXL_ZE_FN(zesDeviceEnumMemoryModules) zesDeviceEnumMemoryModules;
	AXL_ZE_FN(zesDeviceEnumFrequencyDomains) zesDeviceEnumFrequencyDomains;
	AXL_ZE_FN(zesDeviceEnumPowerDomains) zesDeviceEnumPowerDomains;
	AXL_ZE_FN(zesDeviceEnumEngineGroups) zesDeviceEnumEngineGroups;
	AXL_ZE_FN(zesDeviceEnumFabricPorts) zesDeviceEnumFabricPorts;
	AXL_ZE_FN(zesMemoryGetProperties) zesMemoryGetProperties;
	AXL_ZE_FN(zesMemoryGetState) zesMemoryGetState;
	AXL_ZE_FN(zesFrequencyGetProperties) zesFrequencyGetProperties;
	AXL_ZE_FN(zesPowerGetProperties) zesPowerGetProperties;
	AXL_ZE_FN(zesPowerGetLimitsExt) zesPowerGetLimitsExt;
	AXL_ZE_FN(zesPowerGetLimits) zesPowerGetLimits;
	AXL_ZE_FN(zesEngineGetProperties) zesEngineGetProperties;
	AXL_ZE_FN(zesFabricPortGetProperties) zesFabricPortGetProperties;
	AXL_ZE_FN(zesFabricPortGetState) zesFabricPortGetState;
};

/* the legacy and the sysman enumerations share a slot's use: the same types */
static_assert(__builtin_types_compatible_p(__typeof__(zeDriverGet), __typeof__(zesDriverGet)), "zeDriverGet");
static_assert(__builtin_types_compatible_p(__typeof__(zeDeviceGet), __typeof__(zesDeviceGet)), "zeDeviceGet");

#endif
