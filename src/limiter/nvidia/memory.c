/* SPDX-License-Identifier: MIT */
/*
 * The memory limit (docs/limits.md, "The limiter"): every allocation path reserves its
 * bytes in the shared region before the driver sees it, gives them back when the driver
 * fails, and on the matching free; each live allocation's size and device is remembered
 * (a hash map keyed by pointer or handle). Memory info and the device's total report the
 * limit.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "limiter.h"

#define REAL(n, type) ((type)axl__lim_real[AXL__SYM_##n])

/* ---- the allocations (kind, key) -> (device, bytes) ------------------------------------ */

enum { K_PTR = 1, K_VMM, K_ARRAY, K_MIPMAP };

static struct axl__lim_map g_map = AXL__LIM_MAP_INIT;

static void map_put(uint64_t key, int kind, int rdev, uint64_t bytes)
{
	axl__lim_map_put(&g_map, key, kind, rdev, bytes);
}

/* take the entry out; 0 when there is none */
static int map_take(uint64_t key, int kind, int *rdev, uint64_t *bytes)
{
	return axl__lim_map_take(&g_map, key, kind, rdev, bytes);
}

/* put an entry back (the driver refused the free) */
static void map_back(uint64_t key, int kind, int rdev, uint64_t bytes)
{
	map_put(key, kind, rdev, bytes);
}

void axl__lim_forget_allocations(void)
{
	axl__lim_map_forget(&g_map);
}

/* ---- admission ------------------------------------------------------------------------- */

static int current_ordinal(void)
{
	CUdevice d;
	if (!axl__lim_drv.ctx_get_device || axl__lim_drv.ctx_get_device(&d) != CUDA_SUCCESS)
		return -1;
	return d;
}

/* A charge: rdev >= 0 when bytes were reserved, -1 when the call is not accounted. */
struct charge {
	axl__region *r;
	int rdev;
};

/* Reserve bytes on the device with this ordinal for fn; CUDA_ERROR_OUT_OF_MEMORY refuses. */
static CUresult charge(int ordinal, uint64_t bytes, const char *fn, struct charge *c)
{
	c->r = NULL;
	c->rdev = -1;
	axl__region *r = NULL;
	struct axl__lim_dev *d = axl__lim_device(ordinal, &r);
	if (!d)
		return CUDA_SUCCESS;
	if (d->broken) {
		axl__lim_log(AXL__LOG_WARN, "device %d (%s): %s of %llu bytes refused: its memory limit is malformed "
			     "or cannot be enforced", ordinal, d->uuid, fn, (unsigned long long)bytes);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	if (d->rdev < 0 || !r)
		return CUDA_SUCCESS;
	uint64_t left = 0;
	int refused = axl__region_reserve(r, d->rdev, bytes, &left) != 0;
	if (refused) {
		/* what pools keep may have gone back at a synchronisation: weigh it again */
		axl__lim_pools_refresh(d->rdev);
		refused = axl__region_reserve(r, d->rdev, bytes, &left) != 0;
	}
	if (refused) {
		struct axl__region_limit l;
		axl__region_limit_get(r, d->rdev, &l);
		axl__lim_log(AXL__LOG_WARN, "device %d (%s): %s of %llu bytes refused: %llu bytes left of the limit %lld",
			     ordinal, d->uuid, fn, (unsigned long long)bytes, (unsigned long long)left,
			     (long long)l.memory_bytes);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	axl__lim_log(AXL__LOG_DEBUG, "device %d: %s of %llu bytes", ordinal, fn, (unsigned long long)bytes);
	c->r = r;
	c->rdev = d->rdev;
	return CUDA_SUCCESS;
}

static void uncharge(const struct charge *c, uint64_t bytes)
{
	if (c->rdev >= 0 && c->r)
		axl__region_release(c->r, c->rdev, bytes);
}

static void released(int rdev, uint64_t bytes)
{
	axl__region *r = NULL;
	axl__lim_device(0, &r);
	if (r && rdev >= 0)
		axl__region_release(r, rdev, bytes);
}

#define NOREAL(n)                                  \
	do {                                       \
		axl__lim_init();                   \
		if (!axl__lim_real[AXL__SYM_##n])  \
			return CUDA_ERROR_NOT_SUPPORTED; \
	} while (0)

/* an allocation of bytes on the current device giving a pointer: reserve, call, record */
#define ALLOC_PTR(n, dptr, bytes, call)                                            \
	do {                                                                       \
		NOREAL(n);                                                         \
		struct charge c;                                                   \
		CUresult rc = charge(current_ordinal(), (bytes), #n, &c);          \
		if (rc != CUDA_SUCCESS)                                            \
			return rc;                                                 \
		rc = call;                                                         \
		if (rc != CUDA_SUCCESS)                                            \
			uncharge(&c, (bytes));                                     \
		else if (c.rdev >= 0 && (dptr))                                    \
			map_put(*(dptr), K_PTR, c.rdev, (bytes));                  \
		return rc;                                                         \
	} while (0)

/* the same from a pool (pool_expr, evaluated for limited devices only): what the pool
 * keeps is lent to the admission first, since the allocation may reuse it */
#define ALLOC_POOL(n, dptr, bytes, pool_expr, call)                                 \
	do {                                                                        \
		NOREAL(n);                                                          \
		int ord_ = current_ordinal();                                       \
		axl__region *r_ = NULL;                                             \
		struct axl__lim_dev *d_ = axl__lim_device(ord_, &r_);               \
		CUmemoryPool pl_ = d_ && d_->rdev >= 0 && r_ ? (pool_expr) : NULL;  \
		uint64_t lent_ = axl__lim_pool_lend(pl_, (bytes));                  \
		struct charge c;                                                    \
		CUresult rc = charge(ord_, (bytes), #n, &c);                        \
		if (rc != CUDA_SUCCESS) {                                           \
			axl__lim_pool_done(pl_, -1, lent_);                         \
			return rc;                                                  \
		}                                                                   \
		rc = call;                                                          \
		if (rc != CUDA_SUCCESS)                                             \
			uncharge(&c, (bytes));                                      \
		else if (c.rdev >= 0 && (dptr))                                     \
			map_put(*(dptr), K_PTR, c.rdev, (bytes));                   \
		axl__lim_pool_done(pl_, c.rdev, lent_);                             \
		return rc;                                                          \
	} while (0)

typedef CUresult (*alloc_fn)(CUdeviceptr *, size_t);
typedef CUresult (*pitch_fn)(CUdeviceptr *, size_t *, size_t, size_t, unsigned);
typedef CUresult (*managed_fn)(CUdeviceptr *, size_t, unsigned);
typedef CUresult (*async_fn)(CUdeviceptr *, size_t, CUstream);
typedef CUresult (*pool_fn)(CUdeviceptr *, size_t, CUmemoryPool, CUstream);
typedef CUresult (*free_fn)(CUdeviceptr);
typedef CUresult (*freeasync_fn)(CUdeviceptr, CUstream);

AXL__LIM_API CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
	ALLOC_PTR(cuMemAlloc_v2, dptr, bytesize, REAL(cuMemAlloc_v2, alloc_fn)(dptr, bytesize));
}

AXL__LIM_API CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned int flags)
{
	ALLOC_PTR(cuMemAllocManaged, dptr, bytesize, REAL(cuMemAllocManaged, managed_fn)(dptr, bytesize, flags));
}

AXL__LIM_API CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize, CUstream s)
{
	ALLOC_POOL(cuMemAllocAsync, dptr, bytesize, axl__lim_pool_of_device(ord_),
		   REAL(cuMemAllocAsync, async_fn)(dptr, bytesize, s));
}

AXL__LIM_API CUresult cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUstream s)
{
	ALLOC_POOL(cuMemAllocAsync_ptsz, dptr, bytesize, axl__lim_pool_of_device(ord_),
		   REAL(cuMemAllocAsync_ptsz, async_fn)(dptr, bytesize, s));
}

AXL__LIM_API CUresult cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool, CUstream s)
{
	ALLOC_POOL(cuMemAllocFromPoolAsync, dptr, bytesize, pool,
		   REAL(cuMemAllocFromPoolAsync, pool_fn)(dptr, bytesize, pool, s));
}

AXL__LIM_API CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool,
						   CUstream s)
{
	ALLOC_POOL(cuMemAllocFromPoolAsync_ptsz, dptr, bytesize, pool,
		   REAL(cuMemAllocFromPoolAsync_ptsz, pool_fn)(dptr, bytesize, pool, s));
}

/* pitched: width x height reserved first; the pitch's padding after, or the call undone */
AXL__LIM_API CUresult cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pPitch, size_t WidthInBytes, size_t Height,
					 unsigned int ElementSizeBytes)
{
	NOREAL(cuMemAllocPitch_v2);
	int ord = current_ordinal();
	uint64_t bytes = (uint64_t)WidthInBytes * Height;
	struct charge c;
	CUresult rc = charge(ord, bytes, "cuMemAllocPitch_v2", &c);
	if (rc != CUDA_SUCCESS)
		return rc;
	rc = REAL(cuMemAllocPitch_v2, pitch_fn)(dptr, pPitch, WidthInBytes, Height, ElementSizeBytes);
	if (rc != CUDA_SUCCESS) {
		uncharge(&c, bytes);
		return rc;
	}
	if (c.rdev < 0 || !dptr || !pPitch)
		return rc;
	uint64_t full = (uint64_t)*pPitch * Height;
	if (full > bytes) {
		struct charge extra;
		if (charge(ord, full - bytes, "cuMemAllocPitch_v2 (pitch)", &extra) != CUDA_SUCCESS) {
			REAL(cuMemFree_v2, free_fn)(*dptr);
			uncharge(&c, bytes);
			*dptr = 0;
			return CUDA_ERROR_OUT_OF_MEMORY;
		}
		bytes = full;
	}
	map_put(*dptr, K_PTR, c.rdev, bytes);
	return rc;
}

static CUresult free_ptr(CUdeviceptr p, CUresult (*call)(CUdeviceptr, CUstream), free_fn plain, CUstream s)
{
	int rdev;
	uint64_t bytes;
	int had = map_take(p, K_PTR, &rdev, &bytes);
	CUresult rc = plain ? plain(p) : call(p, s);
	if (!had)
		return rc;
	if (rc == CUDA_SUCCESS) {
		released(rdev, bytes);
		axl__lim_pools_refresh(rdev); /* a pool may keep it */
	} else {
		map_back(p, K_PTR, rdev, bytes);
	}
	return rc;
}

AXL__LIM_API CUresult cuMemFree_v2(CUdeviceptr dptr)
{
	NOREAL(cuMemFree_v2);
	return free_ptr(dptr, NULL, REAL(cuMemFree_v2, free_fn), NULL);
}

AXL__LIM_API CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream s)
{
	NOREAL(cuMemFreeAsync);
	return free_ptr(dptr, REAL(cuMemFreeAsync, freeasync_fn), NULL, s);
}

AXL__LIM_API CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream s)
{
	NOREAL(cuMemFreeAsync_ptsz);
	return free_ptr(dptr, REAL(cuMemFreeAsync_ptsz, freeasync_fn), NULL, s);
}

/* ---- virtual memory management: charged at create on a device location -------------- */

typedef CUresult (*create_fn)(CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *,
			      unsigned long long);
typedef CUresult (*release_fn)(CUmemGenericAllocationHandle);

AXL__LIM_API CUresult cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size, const CUmemAllocationProp *prop,
				  unsigned long long flags)
{
	NOREAL(cuMemCreate);
	struct charge c = {NULL, -1};
	if (prop && prop->location.type == CU_MEM_LOCATION_TYPE_DEVICE) {
		CUresult rc = charge(prop->location.id, size, "cuMemCreate", &c);
		if (rc != CUDA_SUCCESS)
			return rc;
	}
	CUresult rc = REAL(cuMemCreate, create_fn)(handle, size, prop, flags);
	if (rc != CUDA_SUCCESS)
		uncharge(&c, size);
	else if (c.rdev >= 0 && handle)
		map_put(*handle, K_VMM, c.rdev, size);
	return rc;
}

AXL__LIM_API CUresult cuMemRelease(CUmemGenericAllocationHandle handle)
{
	NOREAL(cuMemRelease);
	int rdev;
	uint64_t bytes;
	int had = map_take(handle, K_VMM, &rdev, &bytes);
	CUresult rc = REAL(cuMemRelease, release_fn)(handle);
	if (had) {
		if (rc == CUDA_SUCCESS)
			released(rdev, bytes);
		else
			map_back(handle, K_VMM, rdev, bytes);
	}
	return rc;
}

/* ---- arrays: the size from the descriptor --------------------------------------------- */

static uint64_t format_size(int f)
{
	switch (f) {
	case 0x01: case 0x08: return 1; /* int8 */
	case 0x02: case 0x09: case 0x10: return 2; /* int16, half */
	case 0x03: case 0x0a: case 0x20: return 4; /* int32, float */
	default: return 4; /* a later format: at least a word a channel */
	}
}

static uint64_t array_bytes(size_t w, size_t h, size_t d, int format, unsigned ch)
{
	return (uint64_t)w * (h ? h : 1) * (d ? d : 1) * (ch ? ch : 1) * format_size(format);
}

typedef CUresult (*arr_fn)(CUarray *, const CUDA_ARRAY_DESCRIPTOR *);
typedef CUresult (*arrd_fn)(CUarray);
typedef CUresult (*mip_fn)(CUmipmappedArray *, const CUDA_ARRAY3D_DESCRIPTOR *, unsigned);
typedef CUresult (*mipd_fn)(CUmipmappedArray);

AXL__LIM_API CUresult cuArrayCreate_v2(CUarray *pHandle, const CUDA_ARRAY_DESCRIPTOR *desc)
{
	NOREAL(cuArrayCreate_v2);
	uint64_t bytes = desc ? array_bytes(desc->Width, desc->Height, 1, desc->Format, desc->NumChannels) : 0;
	struct charge c = {NULL, -1};
	if (bytes) {
		CUresult rc = charge(current_ordinal(), bytes, "cuArrayCreate_v2", &c);
		if (rc != CUDA_SUCCESS)
			return rc;
	}
	CUresult rc = REAL(cuArrayCreate_v2, arr_fn)(pHandle, desc);
	if (rc != CUDA_SUCCESS)
		uncharge(&c, bytes);
	else if (c.rdev >= 0 && pHandle)
		map_put((uint64_t)(uintptr_t)*pHandle, K_ARRAY, c.rdev, bytes);
	return rc;
}

AXL__LIM_API CUresult cuArrayDestroy(CUarray h)
{
	NOREAL(cuArrayDestroy);
	int rdev;
	uint64_t bytes;
	int had = map_take((uint64_t)(uintptr_t)h, K_ARRAY, &rdev, &bytes);
	CUresult rc = REAL(cuArrayDestroy, arrd_fn)(h);
	if (had) {
		if (rc == CUDA_SUCCESS)
			released(rdev, bytes);
		else
			map_back((uint64_t)(uintptr_t)h, K_ARRAY, rdev, bytes);
	}
	return rc;
}

AXL__LIM_API CUresult cuMipmappedArrayCreate(CUmipmappedArray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR *desc,
					     unsigned int levels)
{
	NOREAL(cuMipmappedArrayCreate);
	uint64_t bytes = 0;
	if (desc && levels <= 32) {
		size_t w = desc->Width, h = desc->Height, d = desc->Depth;
		for (unsigned l = 0; l < levels; l++) {
			bytes += array_bytes(w, h, d, desc->Format, desc->NumChannels);
			w = w > 1 ? w / 2 : 1;
			h = h > 1 ? h / 2 : h;
			d = d > 1 ? d / 2 : d;
		}
	}
	struct charge c = {NULL, -1};
	if (bytes) {
		CUresult rc = charge(current_ordinal(), bytes, "cuMipmappedArrayCreate", &c);
		if (rc != CUDA_SUCCESS)
			return rc;
	}
	CUresult rc = REAL(cuMipmappedArrayCreate, mip_fn)(pHandle, desc, levels);
	if (rc != CUDA_SUCCESS)
		uncharge(&c, bytes);
	else if (c.rdev >= 0 && pHandle)
		map_put((uint64_t)(uintptr_t)*pHandle, K_MIPMAP, c.rdev, bytes);
	return rc;
}

AXL__LIM_API CUresult cuMipmappedArrayDestroy(CUmipmappedArray h)
{
	NOREAL(cuMipmappedArrayDestroy);
	int rdev;
	uint64_t bytes;
	int had = map_take((uint64_t)(uintptr_t)h, K_MIPMAP, &rdev, &bytes);
	CUresult rc = REAL(cuMipmappedArrayDestroy, mipd_fn)(h);
	if (had) {
		if (rc == CUDA_SUCCESS)
			released(rdev, bytes);
		else
			map_back((uint64_t)(uintptr_t)h, K_MIPMAP, rdev, bytes);
	}
	return rc;
}

/* ---- what the program is told --------------------------------------------------------- */

/* the limit as total, free = limit - the workload's usage (at most the driver's free);
 * 0 when the device is not limited (then the driver's answer stands) */
static int limited_info(int ordinal, uint64_t drv_free, uint64_t drv_total, uint64_t *free_out,
			uint64_t *total_out)
{
	axl__region *r = NULL;
	struct axl__lim_dev *d = axl__lim_device(ordinal, &r);
	if (!d || d->rdev < 0 || !r)
		return 0;
	struct axl__region_limit l;
	if (axl__region_limit_get(r, d->rdev, &l) != 0 || l.memory_bytes < 0)
		return 0;
	uint64_t limit = (uint64_t)l.memory_bytes;
	if (drv_total && limit > drv_total)
		limit = drv_total; /* a limit larger than the device: the device */
	axl__lim_pools_refresh(d->rdev); /* what pools keep, as of now */
	uint64_t used = 0;
	axl__region_usage(r, d->rdev, &used, NULL);
	uint64_t fr = used < limit ? limit - used : 0;
	if (fr > drv_free)
		fr = drv_free;
	*free_out = fr;
	*total_out = limit;
	return 1;
}

typedef CUresult (*info_fn)(size_t *, size_t *);
typedef CUresult (*info1_fn)(unsigned int *, unsigned int *);
typedef CUresult (*total_fn)(size_t *, CUdevice);

AXL__LIM_API CUresult cuMemGetInfo_v2(size_t *free, size_t *total)
{
	NOREAL(cuMemGetInfo_v2);
	size_t f = 0, t = 0;
	CUresult rc = REAL(cuMemGetInfo_v2, info_fn)(&f, &t);
	if (rc != CUDA_SUCCESS)
		return rc;
	uint64_t lf, lt;
	if (limited_info(current_ordinal(), f, t, &lf, &lt)) {
		f = (size_t)lf;
		t = (size_t)lt;
	}
	if (free)
		*free = f;
	if (total)
		*total = t;
	return rc;
}

AXL__LIM_API CUresult cuMemGetInfo(unsigned int *free, unsigned int *total)
{
	NOREAL(cuMemGetInfo);
	unsigned int f = 0, t = 0;
	CUresult rc = REAL(cuMemGetInfo, info1_fn)(&f, &t);
	if (rc != CUDA_SUCCESS)
		return rc;
	uint64_t lf, lt;
	if (limited_info(current_ordinal(), f == 0xffffffffu ? UINT64_MAX : f, t == 0xffffffffu ? UINT64_MAX : t,
			 &lf, &lt)) {
		f = lf > 0xffffffffu ? 0xffffffffu : (unsigned)lf;
		t = lt > 0xffffffffu ? 0xffffffffu : (unsigned)lt;
	}
	if (free)
		*free = f;
	if (total)
		*total = t;
	return rc;
}

AXL__LIM_API CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev)
{
	NOREAL(cuDeviceTotalMem_v2);
	size_t t = 0;
	CUresult rc = REAL(cuDeviceTotalMem_v2, total_fn)(&t, dev);
	if (rc != CUDA_SUCCESS)
		return rc;
	uint64_t lf, lt;
	if (limited_info(dev, UINT64_MAX, t, &lf, &lt))
		t = (size_t)lt;
	if (bytes)
		*bytes = t;
	return rc;
}
