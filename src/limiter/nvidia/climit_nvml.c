/* SPDX-License-Identifier: MIT */
/* The compute limit's utilisation source over NVML (climit.h: axl__climit_source_nvml):
 * nvmlDeviceGetUtilizationRates(.gpu) of a device by NVML index, through dlopen. The
 * limiter's vendor knowledge lives in its vendor folders, like libaxl's. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>

#include "axl/error.h"
#include "climit_nvml.h"
#include "util/region_format.h"

#define NVML_MAX_DEV AXL__REGION_MAX_DEVICES

/* NVML, from its public reference: nvmlReturn_t is an int (0 success), nvmlDevice_t a
 * pointer, nvmlUtilization_t { unsigned int gpu, memory; } */
typedef struct {
	unsigned int gpu, memory;
} cl_nvml_util;

struct nvml_src {
	void *lib;
	int (*get_handle)(unsigned, void **);
	int (*get_util)(void *, cl_nvml_util *);
	int (*shutdown)(void);
	void *handles[NVML_MAX_DEV];
};

static int nvml_read(void *ctx, int dev, unsigned *percent)
{
	struct nvml_src *s = ctx;
	if (dev < 0 || dev >= NVML_MAX_DEV)
		return -1;
	if (!s->handles[dev] && s->get_handle((unsigned)dev, &s->handles[dev]) != 0) {
		s->handles[dev] = NULL;
		return -1;
	}
	cl_nvml_util u;
	if (s->get_util(s->handles[dev], &u) != 0)
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
	int (*init)(void) = (int (*)(void))dlsym(s->lib, "nvmlInit_v2");
	if (!init)
		init = (int (*)(void))dlsym(s->lib, "nvmlInit");
	*(void **)&s->get_handle = dlsym(s->lib, "nvmlDeviceGetHandleByIndex_v2");
	if (!s->get_handle)
		*(void **)&s->get_handle = dlsym(s->lib, "nvmlDeviceGetHandleByIndex");
	*(void **)&s->get_util = dlsym(s->lib, "nvmlDeviceGetUtilizationRates");
	*(void **)&s->shutdown = dlsym(s->lib, "nvmlShutdown");
	if (!init || !s->get_handle || !s->get_util || init() != 0) {
		dlclose(s->lib);
		free(s);
		return AXL_ENOTSUP;
	}
	*out = (struct axl__climit_source){ nvml_read, s, 1000, nvml_release };
	return AXL_OK;
}
