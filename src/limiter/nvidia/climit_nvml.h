/* SPDX-License-Identifier: MIT */
/* The compute limit's utilisation source over NVML (climit.h describes sources). */
#ifndef AXL_LIMITER_CLIMIT_NVML_H
#define AXL_LIMITER_CLIMIT_NVML_H

#include "../climit.h"

/* nvmlDeviceGetUtilizationRates(.gpu) by NVML index, the library loaded with
 * dlopen(lib) (NULL: "libnvidia-ml.so.1"). 0, or AXL_ENOENT (no library), AXL_ENOTSUP
 * (a symbol missing or nvmlInit failing), AXL_ENOMEM, AXL_EINVAL. */
int axl__climit_source_nvml(struct axl__climit_source *out, const char *lib);

#endif
