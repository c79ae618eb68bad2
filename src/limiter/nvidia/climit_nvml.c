/* SPDX-License-Identifier: MIT */
/* The compute limit's utilisation source over NVML (climit.h: axl__climit_source_nvml):
 * nvmlDeviceGetUtilizationRates(.gpu) of a device by NVML index, through dlopen. The
 * limiter's vendor knowledge lives in its vendor folders, like libaxl's. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>

#include "abi/nvidia/nvml.h"
#include "axl/error.h"
#include "climit_nvml.h"
#include "util/region_format.h"

#define NVML_MAX_DEV AXL__REGION_MAX_DEVICES

/* nvmlInit_v2 and nvmlDeviceGetHandleByIndex_v2, else the base symbols: the same types */
_Static_assert(__builtin_types_compatible_p(__typeof__(nvmlInit), __typeof__(nvmlInit_v2)), "nvmlInit");
_Static_assert(__builtin_types_compatible_p(__typeof__(nvmlDeviceGetHandleByIndex),
					    __typeof__(nvmlDeviceGetHandleByIndex_v2)),
	       "nvmlDeviceGetHandleByIndex");

struct nvml_src {
	void *lib;
	__typeof__(&nvmlDeviceGetHandleByIndex_v2) get_handle;
	__typeof__(&nvmlDeviceGetUtilizationRates) get_util;
	__typeof__(&nvmlShutdown) shutdown;
	nvmlDevice_t handles[NVML_MAX_DEV];
};

static int nvml_read(void *ctx, int dev, unsigned *percent)
{
	struct nvml_src *s = ctx;
	if (dev < 0 || dev >= NVML_MAX_DEV)
		return -1;
	if (!s->handles[dev] && s->get_handle((unsigned)dev, &s->handles[dev]) != NVML_SUCCESS) {
		s->handles[dev] = NULL;
		return -1;
	}
	nvmlUtilization_t u;
	if (s->get_util(s->handles[dev], &u) != NVML_SUCCESS)
		return -1;
	*percent = u.gpu;
	return 0;
}

static void nvml_release(void *ctx)
{
	struct nvml_src *s = ctx;
	if (s->shutdown)
		s->shutdown();
	dlclose(s->lib);
	free(s);
}

int axl__climit_source_nvml(struct axl__climit_source *out, const char *lib)
{
	if (!out)
		return AXL_EINVAL;
	struct nvml_src *s = calloc(1, sizeof *s);
	if (!s)
		return AXL_ENOMEM;
	s->lib = dlopen(lib ? lib : "libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!s->lib) {
		free(s);
		return AXL_ENOENT;
	}
	__typeof__(&nvmlInit_v2) init = (__typeof__(&nvmlInit_v2))dlsym(s->lib, "nvmlInit_v2");
	if (!init)
		init = (__typeof__(&nvmlInit))dlsym(s->lib, "nvmlInit");
	*(void **)&s->get_handle = dlsym(s->lib, "nvmlDeviceGetHandleByIndex_v2");
	if (!s->get_handle)
		*(void **)&s->get_handle = dlsym(s->lib, "nvmlDeviceGetHandleByIndex");
	*(void **)&s->get_util = dlsym(s->lib, "nvmlDeviceGetUtilizationRates");
	*(void **)&s->shutdown = dlsym(s->lib, "nvmlShutdown");
	if (!init || !s->get_handle || !s->get_util || init() != NVML_SUCCESS) {
		dlclose(s->lib);
		free(s);
		return AXL_ENOTSUP;
	}
	*out = (struct axl__climit_source){ nvml_read, s, 1000, nvml_release };
	return AXL_OK;
}
