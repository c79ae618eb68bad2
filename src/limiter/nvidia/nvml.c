/* SPDX-License-Identifier: MIT */
/*
 * NVML's memory info under the limiter (docs/limits.md, "The limiter"): when NVML is loaded
 * in a limited process, nvmlDeviceGetMemoryInfo and nvmlDeviceGetMemoryInfo_v2 agree with
 * cuMemGetInfo_v2: for a device with a memory limit, total = the limit, used = the
 * workload's usage from the shared region, free = limit - used (at most NVML's own free);
 * _v2's reserved is NVML's, at most the limit (the driver's reservation is outside the
 * workload's budget). NVML devices are matched to the limited CUDA devices by UUID
 * (nvmlDeviceGetUUID through the real NVML); unlimited and unknown devices (and every
 * failing or NULL call) get NVML's answer unchanged. Reached as exported entry points (a
 * program linked to libnvidia-ml) and through the interposed dlsym; NVML has no
 * GetProcAddress.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>
#include <strings.h>

#include "abi/nvidia/nvml.h"
#include "limiter.h"

/* the real NVML's entries: from the handle a program's dlsym named, else RTLD_NEXT */
static void *g_mem, *g_mem2, *g_uuid;
static int g_next_done;

static void *not_ours(void *p)
{
	return p == (void *)nvmlDeviceGetMemoryInfo || p == (void *)nvmlDeviceGetMemoryInfo_v2 ? NULL : p;
}

static void keep(void **slot, void *p)
{
	p = not_ours(p);
	if (p)
		__atomic_store_n(slot, p, __ATOMIC_RELEASE);
}

static void from_next(void)
{
	if (__atomic_load_n(&g_next_done, __ATOMIC_ACQUIRE))
		return;
	dlsym_fn ds = axl__lim_real_dlsym();
	if (ds) {
		if (!__atomic_load_n(&g_mem, __ATOMIC_ACQUIRE))
			keep(&g_mem, ds(RTLD_NEXT, "nvmlDeviceGetMemoryInfo"));
		if (!__atomic_load_n(&g_mem2, __ATOMIC_ACQUIRE))
			keep(&g_mem2, ds(RTLD_NEXT, "nvmlDeviceGetMemoryInfo_v2"));
		if (!__atomic_load_n(&g_uuid, __ATOMIC_ACQUIRE))
			keep(&g_uuid, ds(RTLD_NEXT, "nvmlDeviceGetUUID"));
	}
	__atomic_store_n(&g_next_done, 1, __ATOMIC_RELEASE);
}

static void *real(void **slot)
{
	void *p = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
	if (!p) {
		from_next();
		p = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
	}
	return p;
}

void *axl__lim_nvml_dlsym(dlsym_fn ds, void *handle, const char *name)
{
	void *hook;
	if (!name || name[0] != 'n' || name[1] != 'v')
		return NULL;
	if (!strcmp(name, "nvmlDeviceGetMemoryInfo"))
		hook = (void *)nvmlDeviceGetMemoryInfo;
	else if (!strcmp(name, "nvmlDeviceGetMemoryInfo_v2"))
		hook = (void *)nvmlDeviceGetMemoryInfo_v2;
	else
		return NULL;
	/* RTLD_DEFAULT would find the limiter's own export: the next object instead */
	void *h = handle == RTLD_DEFAULT || handle == RTLD_NEXT ? RTLD_NEXT : handle;
	void *p = not_ours(ds(h, name));
	if (!p)
		return NULL; /* not NVML's (or NVML lacks it): the caller asks the real dlsym */
	keep(hook == (void *)nvmlDeviceGetMemoryInfo ? &g_mem : &g_mem2, p);
	keep(&g_uuid, ds(h, "nvmlDeviceGetUUID"));
	axl__lim_log(AXL__LOG_DEBUG, "dlsym %s: the limiter's", name);
	return hook;
}

/* the limit and the workload's usage of NVML's device; 0: not limited (NVML's answer stands) */
static int limited(nvmlDevice_t device, unsigned long long drv_total, unsigned long long *limit_out,
		   unsigned long long *used_out)
{
	__typeof__(&nvmlDeviceGetUUID) gu = (__typeof__(&nvmlDeviceGetUUID))real(&g_uuid);
	char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
	if (!gu || gu(device, uuid, sizeof uuid) != NVML_SUCCESS)
		return 0;
	uuid[sizeof uuid - 1] = 0;
	axl__region *r = NULL;
	struct axl__lim_dev *d = axl__lim_device_by_uuid(uuid, &r);
	if (!d || d->rdev < 0 || !r)
		return 0;
	struct axl__region_limit l;
	if (axl__region_limit_get(r, d->rdev, &l) != 0 || l.memory_bytes < 0)
		return 0;
	unsigned long long limit = (unsigned long long)l.memory_bytes;
	if (drv_total && limit > drv_total)
		limit = drv_total; /* a limit larger than the device: the device */
	uint64_t used = 0;
	axl__region_usage(r, d->rdev, &used, NULL);
	*limit_out = limit;
	*used_out = used < limit ? used : limit;
	return 1;
}

AXL__LIM_API nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory)
{
	__typeof__(&nvmlDeviceGetMemoryInfo) f = (__typeof__(&nvmlDeviceGetMemoryInfo))real(&g_mem);
	if (!f)
		return NVML_ERROR_FUNCTION_NOT_FOUND;
	nvmlReturn_t rc = f(device, memory);
	unsigned long long limit, used;
	if (rc != NVML_SUCCESS || !memory || !limited(device, memory->total, &limit, &used))
		return rc;
	unsigned long long fr = limit - used;
	memory->free = fr < memory->free ? fr : memory->free;
	memory->total = limit;
	memory->used = used;
	return rc;
}

AXL__LIM_API nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t *memory)
{
	__typeof__(&nvmlDeviceGetMemoryInfo_v2) f = (__typeof__(&nvmlDeviceGetMemoryInfo_v2))real(&g_mem2);
	if (!f)
		return NVML_ERROR_FUNCTION_NOT_FOUND;
	nvmlReturn_t rc = f(device, memory);
	/* another struct version than the one known here: NVML's answer untouched */
	if (rc != NVML_SUCCESS || !memory || memory->version != nvmlMemory_v2)
		return rc;
	unsigned long long limit, used;
	if (!limited(device, memory->total, &limit, &used))
		return rc;
	unsigned long long fr = limit - used;
	memory->free = fr < memory->free ? fr : memory->free;
	memory->total = limit;
	memory->used = used;
	if (memory->reserved > limit)
		memory->reserved = limit;
	return rc;
}
