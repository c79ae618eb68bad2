/* SPDX-License-Identifier: MIT */
/*
 * The CUDA side of libaxl_limiter.so (docs/limits.md, "The limiter"): finds the real
 * driver, answers dlsym's front door (../front.c) for the accounted cu* names and NVML's
 * (nvml.c), interposes cuGetProcAddress(_v2) so that every way a program reaches the
 * driver gets the limiter's entry for an accounted call (and the driver's for everything
 * else, unknown names included), reads the devices and their limits (../limits.c, and
 * HAMi-core's CUDA_DEVICE_*_LIMIT[_i] here) and attaches the workload's shared region.
 * Links libc, libdl and pthread only: never libaxl, never libcuda.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "limiter.h"
#include "lstate.h"

void *axl__lim_real[AXL__SYM_N];
struct axl__lim_drv axl__lim_drv;

static const struct {
	const char *name;
	void *hook;
} g_table[AXL__SYM_N] = {
#define AXL__LIM_ROW(n) {#n, (void *)n},
	AXL__LIM_SYMS(AXL__LIM_ROW)
#undef AXL__LIM_ROW
};

static void *g_driver;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void after_fork_child(void);

static void init_once(void)
{
	dlsym_fn ds = axl__lim_real_dlsym();
	const char *lib = getenv("AXL_LIMITER_CUDA_LIBRARY");
	if (!lib || !*lib)
		lib = "libcuda.so.1";
	g_driver = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!g_driver || !ds) {
		axl__lim_log(AXL__LOG_ERROR, "cannot load the driver %s: %s", lib, g_driver ? "no dlsym" : dlerror());
		return;
	}
	for (int i = 0; i < AXL__SYM_N; i++)
		axl__lim_real[i] = ds(g_driver, g_table[i].name);
#define RESOLVE(field, name) (axl__lim_drv.field = (__typeof__(axl__lim_drv.field))ds(g_driver, name))
	RESOLVE(ctx_get_device, "cuCtxGetDevice");
	RESOLVE(device_get_count, "cuDeviceGetCount");
	RESOLVE(device_get, "cuDeviceGet");
	if (!RESOLVE(device_get_uuid, "cuDeviceGetUuid_v2"))
		RESOLVE(device_get_uuid, "cuDeviceGetUuid");
	RESOLVE(graph_get_nodes, "cuGraphGetNodes");
	RESOLVE(node_get_type, "cuGraphNodeGetType");
	RESOLVE(kernel_node_get_params_v2, "cuGraphKernelNodeGetParams_v2");
	RESOLVE(kernel_node_get_params, "cuGraphKernelNodeGetParams");
	RESOLVE(child_graph, "cuGraphChildGraphNodeGetGraph");
	RESOLVE(mem_alloc_node_get_params, "cuGraphMemAllocNodeGetParams");
	RESOLVE(graph_mem_attribute, "cuDeviceGetGraphMemAttribute");
	RESOLVE(pool_get_attribute, "cuMemPoolGetAttribute");
	RESOLVE(device_get_mem_pool, "cuDeviceGetMemPool");
	RESOLVE(device_get_default_mem_pool, "cuDeviceGetDefaultMemPool");
	RESOLVE(stream_is_capturing, "cuStreamIsCapturing");
	RESOLVE(stream_is_capturing_ptsz, "cuStreamIsCapturing_ptsz");
	RESOLVE(stream_get_ctx, "cuStreamGetCtx");
	RESOLVE(ctx_push, "cuCtxPushCurrent_v2");
	RESOLVE(ctx_pop, "cuCtxPopCurrent_v2");
#undef RESOLVE
	axl__lim_log(AXL__LOG_DEBUG, "driver %s loaded", lib);
	pthread_atfork(NULL, NULL, after_fork_child);
}

void axl__lim_init(void)
{
	pthread_once(&g_once, init_once);
}

static int table_find(const char *name)
{
	if (!name || name[0] != 'c' || name[1] != 'u')
		return -1;
	for (int i = 0; i < AXL__SYM_N; i++)
		if (!strcmp(name, g_table[i].name))
			return i;
	return -1;
}

void *axl__lim_swap(void *p)
{
	if (!p)
		return p;
	for (int i = 0; i < AXL__SYM_N; i++)
		if (axl__lim_real[i] == p)
			return g_table[i].hook;
	return p;
}

/* a handle of the driver: RTLD_DEFAULT/NEXT, the limiter's own, or a libcuda.so* file */
static int is_driver_handle(void *h)
{
	return axl__lim_is_lib_handle(h, g_driver, "libcuda.so", "AXL_LIMITER_CUDA_LIBRARY");
}

/* The CUDA side's answer to dlsym (core.h, sides.c): the limiter's entry for an accounted
 * cu* name asked of the driver, its NVML entries (nvml.c), NULL for everything else. */
static void *cuda_dlsym(dlsym_fn ds, void *handle, const char *name)
{
	int i = table_find(name);
	if (i >= 0 && is_driver_handle(handle)) {
		axl__lim_init();
		void *p = ds(handle == RTLD_NEXT || handle == RTLD_DEFAULT ? g_driver : handle, name);
		if (!p)
			return NULL; /* the driver lacks it: so does the program (the real dlsym says so) */
		axl__lim_log(AXL__LOG_DEBUG, "dlsym %s: the limiter's", name);
		return g_table[i].hook;
	}
	return axl__lim_nvml_dlsym(ds, handle, name);
}

const struct axl__lim_side axl__lim_cuda_side = {"CUDA", {"cu", "nv", NULL}, cuda_dlsym};

AXL__LIM_API CUresult cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags)
{
	axl__lim_init();
	__typeof__(&cuGetProcAddress) real = AXL__LIM_REAL(cuGetProcAddress);
	if (!real)
		return CUDA_ERROR_NOT_SUPPORTED;
	CUresult rc = real(symbol, pfn, cudaVersion, flags);
	if (rc == CUDA_SUCCESS && pfn)
		*pfn = axl__lim_swap(*pfn);
	return rc;
}

AXL__LIM_API CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
					  CUdriverProcAddressQueryResult *symbolStatus)
{
	axl__lim_init();
	__typeof__(&cuGetProcAddress_v2) real = AXL__LIM_REAL(cuGetProcAddress_v2);
	if (!real)
		return CUDA_ERROR_NOT_SUPPORTED;
	CUresult rc = real(symbol, pfn, cudaVersion, flags, symbolStatus);
	if (rc == CUDA_SUCCESS && pfn)
		*pfn = axl__lim_swap(*pfn);
	return rc;
}

/* ---- limits ------------------------------------------------------------------------- */

static pthread_mutex_t g_dev_lock = PTHREAD_MUTEX_INITIALIZER;
static int g_dev_state; /* 0 not read, 1 read and limited, 2 read, nothing limited */
static int g_ndev;
static int g_ncompute; /* devices with a compute limit */
static struct axl__lim_dev g_dev[AXL__REGION_MAX_DEVICES];
static axl__region *g_region;

/* HAMi-core's size: strtoull(base 0) and an optional k/m/g (binary); 0 none (-1). -2 bad. */
static int64_t parse_hami_size(const char *s)
{
	char *end;
	if (!s || !*s || *s == '-' || isspace((unsigned char)*s))
		return -2;
	unsigned long long v = strtoull(s, &end, 0);
	if (end == s)
		return -2;
	unsigned long long mul = 1;
	if (*end == 'k' || *end == 'K')
		mul = 1ull << 10, end++;
	else if (*end == 'm' || *end == 'M')
		mul = 1ull << 20, end++;
	else if (*end == 'g' || *end == 'G')
		mul = 1ull << 30, end++;
	if (*end || (v && mul > 1 && v > (unsigned long long)INT64_MAX / mul) ||
	    v * mul > (unsigned long long)INT64_MAX)
		return -2;
	return v ? (int64_t)(v * mul) : -1;
}

/* HAMi-core's CUDA_DEVICE_MEMORY_LIMIT[_i] and CUDA_DEVICE_SM_LIMIT[_i] for device i */
static void limits_hami(int i, struct axl__lim_dev *d)
{
	char name[64];
	snprintf(name, sizeof name, "CUDA_DEVICE_MEMORY_LIMIT_%d", i);
	const char *v = getenv(name);
	if (!v) {
		snprintf(name, sizeof name, "CUDA_DEVICE_MEMORY_LIMIT");
		v = getenv(name);
	}
	if (v) {
		int64_t b = parse_hami_size(v);
		if (b == -2) {
			axl__lim_log(AXL__LOG_ERROR, "%s=%s: not a size (bytes, or a number with k, m or g); "
				     "allocations on device %d refused", name, v, i);
			d->broken = 1;
		} else {
			axl__lim_memory_min(d, b);
		}
	}
	snprintf(name, sizeof name, "CUDA_DEVICE_SM_LIMIT_%d", i);
	v = getenv(name);
	if (!v) {
		snprintf(name, sizeof name, "CUDA_DEVICE_SM_LIMIT");
		v = getenv(name);
	}
	if (v) {
		char *end;
		long p = strtol(v, &end, 10);
		if (!isdigit((unsigned char)v[0]) || *end || p < 0 || p > 100)
			axl__lim_log(AXL__LOG_ERROR, "%s=%s: not a percent 0..100; ignored", name, v);
		else if (p > 0 && p < 100)
			axl__lim_compute_min(d, (int)p);
	}
}

static void read_devices(void)
{
	int n = 0;
	if (!axl__lim_drv.device_get_count || axl__lim_drv.device_get_count(&n) != CUDA_SUCCESS)
		return; /* not initialised yet: again next time */
	if (n > AXL__REGION_MAX_DEVICES) {
		axl__lim_log(AXL__LOG_WARN, "%d devices; the limiter accounts the first %d", n,
			     AXL__REGION_MAX_DEVICES);
		n = AXL__REGION_MAX_DEVICES;
	}
	int limited = 0;
	struct axl__region_limit lims[AXL__REGION_MAX_DEVICES];
	struct axl__lim_state *state = axl__lim_state_load("CUDA");
	for (int i = 0; i < n; i++) {
		struct axl__lim_dev *d = &g_dev[i];
		memset(d, 0, sizeof *d);
		d->rdev = -1;
		d->memory = -1;
		d->compute = -1;
		CUdevice cd = i;
		CUuuid u;
		memset(&u, 0, sizeof u);
		if (axl__lim_drv.device_get)
			axl__lim_drv.device_get(&cd, i);
		if (axl__lim_drv.device_get_uuid)
			axl__lim_drv.device_get_uuid(&u, cd);
		const unsigned char *b = (const unsigned char *)u.bytes;
		snprintf(d->uuid, sizeof d->uuid,
			 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2],
			 b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
		axl__lim_limits_state(state, d);
		axl__lim_limits_axl(i, d);
		limits_hami(i, d);
		if (d->memory >= 0 || d->compute >= 0 || d->broken)
			limited = 1;
		memset(&lims[i], 0, sizeof lims[i]);
		snprintf(lims[i].uuid, sizeof lims[i].uuid, "%s", d->uuid);
		lims[i].memory_bytes = d->broken ? -1 : d->memory;
		lims[i].compute_percent = d->compute;
		axl__lim_log(AXL__LOG_INFO, "device %d %s: memory %lld%s, compute %d%%", i, d->uuid,
			     (long long)d->memory, d->broken ? " (malformed: refused)" : "", d->compute);
	}
	free(state);
	g_ndev = n;
	g_ncompute = 0;
	for (int i = 0; i < n; i++)
		g_ncompute += g_dev[i].compute > 0;
	if (!limited) {
		g_dev_state = 2;
		return;
	}
	axl__lim_region_attach(&g_region, g_dev, lims, n, "CUDA");
	g_dev_state = 1;
}

/* In a child of fork() the parent's slot is not the child's: forget the region (without
 * closing it, which would drop the parent's usage) and the devices; the child attaches
 * with a slot of its own at its first accounted call. */
static void after_fork_child(void)
{
	pthread_mutex_init(&g_dev_lock, NULL);
	g_region = NULL;
	g_dev_state = 0;
	axl__lim_forget_allocations();
	axl__lim_forget_pools();
	axl__lim_forget_graphmem();
	axl__lim_forget_compute();
}

int axl__lim_compute_count(void)
{
	axl__region *r;
	(void)axl__lim_device(0, &r);
	int st = __atomic_load_n(&g_dev_state, __ATOMIC_ACQUIRE);
	return st == 0 ? -1 : st == 2 ? 0 : g_ncompute;
}

int axl__lim_any_limited(void)
{
	axl__region *r;
	(void)axl__lim_device(0, &r);
	return __atomic_load_n(&g_dev_state, __ATOMIC_ACQUIRE) == 1;
}

int axl__lim_current_ordinal(void)
{
	CUdevice d;
	if (!axl__lim_drv.ctx_get_device || axl__lim_drv.ctx_get_device(&d) != CUDA_SUCCESS)
		return -1;
	return d;
}

struct axl__lim_dev *axl__lim_device(int ordinal, axl__region **region)
{
	int st = __atomic_load_n(&g_dev_state, __ATOMIC_ACQUIRE);
	if (st == 0) {
		axl__lim_init();
		pthread_mutex_lock(&g_dev_lock);
		if (g_dev_state == 0)
			read_devices();
		st = g_dev_state;
		__atomic_store_n(&g_dev_state, st, __ATOMIC_RELEASE);
		pthread_mutex_unlock(&g_dev_lock);
	}
	if (st != 1 || ordinal < 0 || ordinal >= g_ndev)
		return NULL;
	*region = g_region;
	return &g_dev[ordinal];
}

struct axl__lim_dev *axl__lim_device_by_uuid(const char *uuid, axl__region **region)
{
	axl__region *r = NULL;
	if (!uuid || !axl__lim_device(0, &r))
		return NULL;
	for (int i = 0; i < g_ndev; i++)
		if (!strcasecmp(g_dev[i].uuid, uuid))
			return axl__lim_device(i, region);
	return NULL;
}
