/* SPDX-License-Identifier: MIT */
/**
 * @file axl/common.h
 * Export macro and the small shared types every axl header uses.
 */
#ifndef AXL_COMMON_H
#define AXL_COMMON_H

#include <stddef.h>
#include <stdint.h>

#if defined(AXL_BUILDING_LIBRARY) && defined(__GNUC__)
#define AXL_API __attribute__((visibility("default")))
#else
#define AXL_API
#endif

#ifdef __cplusplus
#define AXL_BEGIN_DECLS extern "C" {
#define AXL_END_DECLS }
#else
#define AXL_BEGIN_DECLS
#define AXL_END_DECLS
#endif

AXL_BEGIN_DECLS

/**
 * Where a fact came from. Every attribute of a device, host or link carries one;
 * AXL_SOURCE_NONE means "not known" (the value is then meaningless). Unknown is not
 * zero: callers must check the source (or the return code of the getter) first.
 *
 * The names (axl_source_name()) are part of the JSON contract.
 */
typedef enum axl_source {
	AXL_SOURCE_NONE = 0,     /**< not known */
	AXL_SOURCE_SYSFS = 1,    /**< /sys (including PCI config space read through sysfs) */
	AXL_SOURCE_PROCFS = 2,   /**< /proc */
	AXL_SOURCE_DEVFS = 3,    /**< /dev */
	AXL_SOURCE_DEVICEDB = 4, /**< axl's device database (vendors' datasheets) */
	AXL_SOURCE_PCIIDS = 5,   /**< the pci.ids name database (through libpci) */
	AXL_SOURCE_DERIVED = 6,  /**< computed by axl from other known facts */
	AXL_SOURCE_ENV = 7,      /**< the process environment */
	AXL_SOURCE_NVML = 8,     /**< NVIDIA's NVML (libnvidia-ml.so.1), live or replayed */
	AXL_SOURCE_ROCM_SMI = 9, /**< AMD's ROCm SMI (librocm_smi64.so), live or replayed */
	AXL_SOURCE_LEVEL_ZERO = 10, /**< oneAPI Level Zero sysman (libze_loader.so.1) */
	AXL_SOURCE_SIM = 11,     /**< invented by a simulated node (axl_context_options.sim) */
	AXL_SOURCE__COUNT
} axl_source;

/** The stable lowercase name of a source ("sysfs", "devicedb", ...); "unknown" for NONE. */
AXL_API const char *axl_source_name(axl_source source);

/** Free memory that an axl function handed to the caller (NULL-safe). */
AXL_API void axl_free(void *ptr);

AXL_END_DECLS

#endif /* AXL_COMMON_H */
