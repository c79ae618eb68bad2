/* SPDX-License-Identifier: MIT */
/*
 * The HIP side of libaxl_limiter.so (docs/limits.md, "The limiter", HIP): the memory limit
 * for the HIP runtime (libamdhip64). hipMalloc, hipMallocManaged, hipExtMallocWithFlags and
 * hipMallocAsync reserve their bytes in the workload's shared region before the runtime
 * sees them (hipErrorOutOfMemory past the limit, nothing allocated); hipFree and
 * hipFreeAsync give them back; hipMemGetInfo reports the limit as total. Reached through
 * the exported entry points and through dlsym (the front door, ../front.c, asks this side
 * for hip* names). A device is its HIP ordinal (after HIP_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES,
 * which the runtime applies), named by "GPU-" + hipDeviceGetUuid's 16 characters (as axl
 * names AMD devices), else by its PCI bus id (hipDeviceGetPCIBusId). Limits: AXL_LIMIT_*.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core.h"
/* HIP's ABI, declared once for axl (libaxl's hip compute backend uses the same header) */
#include "abi/amd/hip.h"

/* the kinds of this side's allocation map */
enum { K_PTR = 1 };
static struct axl__lim_map g_map = AXL__LIM_MAP_INIT;

#define AXL__HIP_SYMS(X) \
	X(hipMalloc) X(hipMallocManaged) X(hipExtMallocWithFlags) X(hipMallocAsync) X(hipFree) X(hipFreeAsync) \
	X(hipMemGetInfo)

enum {
#define AXL__HIP_ENUM(n) H_##n,
	AXL__HIP_SYMS(AXL__HIP_ENUM)
#undef AXL__HIP_ENUM
	H_N
};

/* the runtime's function of a name: the prototype's type (abi/amd/hip.h) */
#define REAL(n) ((__typeof__(&n))g_real[H_##n])

/* the limiter's own entry points, exported, with the prototypes' types */
#define AXL__HIP_EXPORT(n) AXL__LIM_API __typeof__(n) n;
AXL__HIP_SYMS(AXL__HIP_EXPORT)
#undef AXL__HIP_EXPORT

static const struct {
	const char *name;
	void *hook;
} g_table[H_N] = {
#define AXL__HIP_ROW(n) {#n, (void *)n},
	AXL__HIP_SYMS(AXL__HIP_ROW)
#undef AXL__HIP_ROW
};

static void *g_real[H_N];
static void *g_rt; /* the runtime's handle */
static struct {
	__typeof__(&hipGetDevice) get_device;
	__typeof__(&hipGetDeviceCount) get_count;
	__typeof__(&hipDeviceGetUuid) get_uuid;
	__typeof__(&hipDeviceGetPCIBusId) bus_id;
	__typeof__(&hipStreamGetDevice) stream_device; /* ROCm 5.6 */
} g_rtf;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void after_fork_child(void);

/* the runtime: AXL_LIMITER_HIP_LIBRARY, else the libamdhip64 the program already has, else
 * libamdhip64.so.6, .so.5 */
static void init_once(void)
{
	dlsym_fn ds = axl__lim_real_dlsym();
	const char *lib = getenv("AXL_LIMITER_HIP_LIBRARY");
	static const char *const names[] = {"libamdhip64.so.6", "libamdhip64.so.5", "libamdhip64.so"};
	if (lib && *lib) {
		g_rt = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	} else {
		for (size_t i = 0; !g_rt && i < sizeof names / sizeof names[0]; i++)
			g_rt = dlopen(names[i], RTLD_NOW | RTLD_NOLOAD);
		for (size_t i = 0; !g_rt && i < 2; i++)
			g_rt = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
		lib = "libamdhip64.so";
	}
	if (!g_rt || !ds) {
		axl__lim_log(AXL__LOG_ERROR, "cannot load the HIP runtime %s: %s", lib, g_rt ? "no dlsym" : dlerror());
		return;
	}
	for (int i = 0; i < H_N; i++)
		g_real[i] = ds(g_rt, g_table[i].name);
	g_rtf.get_device = (__typeof__(g_rtf.get_device))ds(g_rt, "hipGetDevice");
	g_rtf.get_count = (__typeof__(g_rtf.get_count))ds(g_rt, "hipGetDeviceCount");
	g_rtf.get_uuid = (__typeof__(g_rtf.get_uuid))ds(g_rt, "hipDeviceGetUuid");
	g_rtf.bus_id = (__typeof__(g_rtf.bus_id))ds(g_rt, "hipDeviceGetPCIBusId");
	g_rtf.stream_device = (__typeof__(g_rtf.stream_device))ds(g_rt, "hipStreamGetDevice");
	axl__lim_log(AXL__LOG_DEBUG, "HIP runtime %s loaded", lib);
	pthread_atfork(NULL, NULL, after_fork_child);
}

static void hip_init(void)
{
	pthread_once(&g_once, init_once);
}

/* a handle of the HIP runtime: RTLD_DEFAULT/NEXT, the limiter's own, or a libamdhip64.so* */
static int is_runtime_handle(void *h)
{
	return axl__lim_is_lib_handle(h, g_rt, "libamdhip64.so", "AXL_LIMITER_HIP_LIBRARY");
}

/* The HIP side's answer to dlsym (../core.h, ../sides.c): the limiter's entry for an
 * accounted hip* name asked of the runtime, NULL otherwise. */
static void *hip_dlsym(dlsym_fn real_dlsym, void *handle, const char *name)
{
	if (!name || name[0] != 'h' || name[1] != 'i' || name[2] != 'p')
		return NULL;
	for (int i = 0; i < H_N; i++) {
		if (strcmp(name, g_table[i].name))
			continue;
		if (!is_runtime_handle(handle))
			return NULL;
		hip_init();
		void *h = handle == RTLD_NEXT || handle == RTLD_DEFAULT ? g_rt : handle;
		if (!h || !real_dlsym(h, name))
			return NULL; /* the runtime lacks it: the real answer (NULL) stands */
		return g_table[i].hook;
	}
	return NULL;
}

const struct axl__lim_side axl__lim_hip_side = {"HIP", {"hip", NULL, NULL}, hip_dlsym};

/* ---- devices and limits --------------------------------------------------------------- */

static pthread_mutex_t g_dev_lock = PTHREAD_MUTEX_INITIALIZER;
static int g_state; /* 0 not read, 1 limited, 2 nothing limited */
static int g_ndev;
static struct axl__lim_dev g_dev[AXL__REGION_MAX_DEVICES];
static axl__region *g_region;

static void read_devices(void)
{
	int n = 0;
	if (!g_rtf.get_count || g_rtf.get_count(&n) != hipSuccess)
		return; /* again next time */
	if (n > AXL__REGION_MAX_DEVICES) {
		axl__lim_log(AXL__LOG_WARN, "%d HIP devices; the limiter accounts the first %d", n,
			     AXL__REGION_MAX_DEVICES);
		n = AXL__REGION_MAX_DEVICES;
	}
	int limited = 0;
	struct axl__region_limit lims[AXL__REGION_MAX_DEVICES];
	struct axl__lim_state *state = axl__lim_state_load("HIP");
	for (int i = 0; i < n; i++) {
		struct axl__lim_dev *d = &g_dev[i];
		memset(d, 0, sizeof *d);
		d->rdev = -1;
		d->memory = -1;
		d->compute = -1;
		hipUUID u;
		memset(&u, 0, sizeof u);
		static const char zero[16];
		if (g_rtf.get_uuid && g_rtf.get_uuid(&u, i) == hipSuccess && memcmp(u.bytes, zero, 16))
			snprintf(d->uuid, sizeof d->uuid, "GPU-%.16s", u.bytes);
		else if (!g_rtf.bus_id || g_rtf.bus_id(d->uuid, (int)sizeof d->uuid, i) != hipSuccess)
			d->uuid[0] = 0;
		axl__lim_limits_state(state, d); /* a broken file: every device, identified or not */
		if (d->uuid[0])
			axl__lim_limits_axl(i, d);
		else if (axl__lim_env_named())
			axl__lim_log(AXL__LOG_WARN, "HIP device %d has neither a UUID nor a PCI bus id: not limited",
				     i);
		d->compute = -1; /* the HIP side enforces memory only */
		if (d->memory >= 0 || d->broken)
			limited = 1;
		memset(&lims[i], 0, sizeof lims[i]);
		snprintf(lims[i].uuid, sizeof lims[i].uuid, "%s", d->uuid);
		lims[i].memory_bytes = d->broken ? -1 : d->memory;
		lims[i].compute_percent = -1;
		axl__lim_log(AXL__LOG_INFO, "HIP device %d %s: memory %lld%s", i, d->uuid, (long long)d->memory,
			     d->broken ? " (malformed: refused)" : "");
	}
	free(state);
	g_ndev = n;
	if (!limited) {
		g_state = 2;
		return;
	}
	axl__lim_region_attach(&g_region, g_dev, lims, n, "HIP");
	g_state = 1;
}

/* In a child of fork() the parent's slot and allocations are not the child's: forget them
 * (without closing the region, which would drop the parent's usage). */
static void after_fork_child(void)
{
	pthread_mutex_init(&g_dev_lock, NULL);
	g_region = NULL;
	g_state = 0;
	axl__lim_map_forget(&g_map);
}

static struct axl__lim_dev *device(int ordinal, axl__region **region)
{
	int st = __atomic_load_n(&g_state, __ATOMIC_ACQUIRE);
	if (st == 0) {
		pthread_mutex_lock(&g_dev_lock);
		if (g_state == 0)
			read_devices();
		st = g_state;
		__atomic_store_n(&g_state, st, __ATOMIC_RELEASE);
		pthread_mutex_unlock(&g_dev_lock);
	}
	if (st != 1 || ordinal < 0 || ordinal >= g_ndev)
		return NULL;
	*region = g_region;
	return &g_dev[ordinal];
}

static int current_ordinal(void)
{
	int d;
	if (!g_rtf.get_device || g_rtf.get_device(&d) != hipSuccess)
		return -1;
	return d;
}

/* ---- admission ------------------------------------------------------------------------- */

/* reserve bytes on the device; *rdev >= 0 when reserved, -1 when not accounted */
static hipError_t charge(int ordinal, uint64_t bytes, const char *fn, axl__region **r, int *rdev)
{
	*r = NULL;
	*rdev = -1;
	struct axl__lim_dev *d = device(ordinal, r);
	if (!d)
		return hipSuccess;
	if (d->broken) {
		axl__lim_log(AXL__LOG_WARN,
			     "HIP device %d (%s): %s of %llu bytes refused: its memory limit is malformed "
			     "or cannot be enforced",
			     ordinal, d->uuid, fn, (unsigned long long)bytes);
		return hipErrorOutOfMemory;
	}
	if (d->rdev < 0 || !*r)
		return hipSuccess;
	uint64_t left = 0;
	if (axl__region_reserve(*r, d->rdev, bytes, &left) != 0) {
		struct axl__region_limit l;
		axl__region_limit_get(*r, d->rdev, &l);
		axl__lim_log(AXL__LOG_WARN,
			     "HIP device %d (%s): %s of %llu bytes refused: %llu bytes left of the limit %lld", ordinal,
			     d->uuid, fn, (unsigned long long)bytes, (unsigned long long)left,
			     (long long)l.memory_bytes);
		return hipErrorOutOfMemory;
	}
	*rdev = d->rdev;
	return hipSuccess;
}

/* one allocation on ordinal: reserve, call, record (or give back) */
#define ALLOC(n, ordinal, ptr, size, call)                                                  \
	do {                                                                                \
		hip_init();                                                                 \
		if (!g_real[H_##n])                                                         \
			return hipErrorNotSupported;                                        \
		axl__region *r;                                                             \
		int rdev;                                                                   \
		hipError_t rc = size ? charge(ordinal, size, #n, &r, &rdev) : hipSuccess;   \
		if (!size)                                                                  \
			rdev = -1, r = NULL;                                                \
		if (rc != hipSuccess)                                                       \
			return rc;                                                          \
		rc = call;                                                                  \
		if (rdev >= 0) {                                                            \
			if (rc != hipSuccess || !ptr || !*ptr)                              \
				axl__region_release(r, rdev, size);                         \
			else                                                                \
				axl__lim_map_put(&g_map, (uint64_t)(uintptr_t)*ptr, K_PTR, rdev, size); \
		}                                                                           \
		return rc;                                                                  \
	} while (0)

AXL__LIM_API hipError_t hipMalloc(void **ptr, size_t size)
{
	ALLOC(hipMalloc, current_ordinal(), ptr, size, REAL(hipMalloc)(ptr, size));
}

AXL__LIM_API hipError_t hipMallocManaged(void **ptr, size_t size, unsigned int flags)
{
	ALLOC(hipMallocManaged, current_ordinal(), ptr, size,
	      REAL(hipMallocManaged)(ptr, size, flags));
}

AXL__LIM_API hipError_t hipExtMallocWithFlags(void **ptr, size_t size, unsigned int flags)
{
	ALLOC(hipExtMallocWithFlags, current_ordinal(), ptr, size,
	      REAL(hipExtMallocWithFlags)(ptr, size, flags));
}

/* the stream's device (hipStreamGetDevice when the runtime has it), else the current one */
static int stream_ordinal(hipStream_t s)
{
	int d;
	if (s && g_rtf.stream_device && g_rtf.stream_device(s, &d) == hipSuccess)
		return d;
	return current_ordinal();
}

AXL__LIM_API hipError_t hipMallocAsync(void **ptr, size_t size, hipStream_t stream)
{
	hip_init();
	ALLOC(hipMallocAsync, stream_ordinal(stream), ptr, size,
	      REAL(hipMallocAsync)(ptr, size, stream));
}

static hipError_t free_ptr(void *p, __typeof__(&hipFreeAsync) async, __typeof__(&hipFree) plain, hipStream_t s)
{
	int rdev;
	uint64_t bytes;
	int had = p && axl__lim_map_take(&g_map, (uint64_t)(uintptr_t)p, K_PTR, &rdev, &bytes);
	hipError_t rc = plain ? plain(p) : async(p, s);
	if (!had)
		return rc;
	/* HIP's hipFree of a lost device's memory releases it and returns the error: the
	 * bytes are given back unless the runtime refused the pointer itself */
	if (rc != hipErrorInvalidValue && rc != hipErrorInvalidHandle) {
		axl__region *r = NULL;
		(void)device(0, &r);
		if (r && rdev >= 0)
			axl__region_release(r, rdev, bytes);
	} else {
		axl__lim_map_put(&g_map, (uint64_t)(uintptr_t)p, K_PTR, rdev, bytes);
	}
	return rc;
}

AXL__LIM_API hipError_t hipFree(void *ptr)
{
	hip_init();
	if (!g_real[H_hipFree])
		return hipErrorNotSupported;
	return free_ptr(ptr, NULL, REAL(hipFree), NULL);
}

AXL__LIM_API hipError_t hipFreeAsync(void *ptr, hipStream_t stream)
{
	hip_init();
	if (!g_real[H_hipFreeAsync])
		return hipErrorNotSupported;
	return free_ptr(ptr, REAL(hipFreeAsync), NULL, stream);
}

/* the limit as total, limit - the workload's usage as free (at most the runtime's free) */
AXL__LIM_API hipError_t hipMemGetInfo(size_t *free, size_t *total)
{
	hip_init();
	if (!g_real[H_hipMemGetInfo])
		return hipErrorNotSupported;
	hipError_t rc = REAL(hipMemGetInfo)(free, total);
	if (rc != hipSuccess || !free || !total)
		return rc;
	axl__region *r = NULL;
	struct axl__lim_dev *d = device(current_ordinal(), &r);
	if (!d || d->rdev < 0 || !r)
		return rc;
	struct axl__region_limit l;
	if (axl__region_limit_get(r, d->rdev, &l) != 0 || l.memory_bytes < 0)
		return rc;
	uint64_t limit = (uint64_t)l.memory_bytes;
	if (*total && limit > *total)
		limit = *total; /* a limit larger than the device: the device */
	uint64_t used = 0;
	axl__region_usage(r, d->rdev, &used, NULL);
	uint64_t fr = used < limit ? limit - used : 0;
	if (fr > *free)
		fr = *free;
	*free = (size_t)fr;
	*total = (size_t)limit;
	return rc;
}
