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
/* X(NAME, name): the sources in value order, AXL_SOURCE_<NAME> = its place in the list,
 * with the name axl_source_name() gives. */
#define AXL_SOURCE_LIST(X)                                                                       \
	X(NONE, "unknown")        /* not known */                                                \
	X(SYSFS, "sysfs")         /* /sys (including PCI config space read through sysfs) */     \
	X(PROCFS, "procfs")       /* /proc */                                                    \
	X(DEVFS, "devfs")         /* /dev */                                                     \
	X(DEVICEDB, "devicedb")   /* axl's device database (vendors' datasheets) */              \
	X(PCIIDS, "pci.ids")      /* the pci.ids name database (through libpci) */               \
	X(DERIVED, "derived")     /* computed by axl from other known facts */                   \
	X(ENV, "env")             /* the process environment */                                  \
	X(NVML, "nvml")           /* NVIDIA's NVML (libnvidia-ml.so.1), live or replayed */      \
	X(ROCM_SMI, "rocm-smi")   /* AMD's ROCm SMI (librocm_smi64.so), live or replayed */      \
	X(LEVEL_ZERO, "level-zero") /* oneAPI Level Zero sysman (libze_loader.so.1) */           \
	X(SIM, "sim")             /* invented by a simulated node (axl_context_options.sim) */   \
	X(DCMI, "dcmi")           /* Huawei's DCMI library (libdcmi.so), live or replayed */

typedef enum axl_source {
#define AXL_SOURCE_ENUM_(name, str) AXL_SOURCE_##name,
	AXL_SOURCE_LIST(AXL_SOURCE_ENUM_)
#undef AXL_SOURCE_ENUM_
	AXL_SOURCE__COUNT
} axl_source;

/** The stable lowercase name of a source ("sysfs", "devicedb", ...); "unknown" for NONE. */
AXL_API const char *axl_source_name(axl_source source);

/** Free memory that an axl function handed to the caller (NULL-safe). */
AXL_API void axl_free(void *ptr);

AXL_END_DECLS

#endif /* AXL_COMMON_H */
