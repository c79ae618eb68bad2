/* SPDX-License-Identifier: MIT */
/*
 * The memory limit (docs/limits.md, "The limiter"): every allocation path reserves its
 * bytes in the shared region before the driver sees it, gives them back when the driver
 * fails, and on the matching free; each live allocation's size and device is remembered
 * (a hash map keyed by pointer or handle). Memory info and the device's total report the
 * limit. The legacy entry points (CUDA 3.1's cuMemAlloc, cuMemAllocPitch, cuMemFree,
 * cuArrayCreate, cuArray3DCreate, cuMemGetInfo, cuDeviceTotalMem: 32-bit sizes and device
 * pointers) are accounted like their _v2 successors, in the same map: a pointer from one
 * may be freed by the other.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "limiter.h"

#define REAL(n) AXL__LIM_REAL(n)

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
	axl__lim_vmap_forget();
	axl__lim_forget_arraymaps();
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
static CUresult charge(int ordinal, uint64_t bytes, const char *fn, struct charge *c);

CUresult axl__lim_charge(int ordinal, uint64_t bytes, const char *fn, int *rdev)
{
	struct charge c;
	CUresult rc = charge(ordinal, bytes, fn, &c);
	*rdev = c.rdev;
	return rc;
}

void axl__lim_uncharge(int rdev, uint64_t bytes)
{
	axl__region *r = NULL;
	axl__lim_device(0, &r);
	if (r && rdev >= 0)
		axl__region_release(r, rdev, bytes);
}

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
		/* what pools keep may have gone back at a synchronisation or a trim: weigh it again */
		axl__lim_pools_refresh(d->rdev);
		axl__lim_graphmem_refresh(d->rdev);
		refused = axl__region_reserve(r, d->rdev, bytes, &left) != 0;
	}
	if (refused) {
		struct axl__region_limit l;
		axl__region_limit_get(r, d->rdev, &l);
		axl__lim_log(AXL__LOG_WARN,
			     "device %d (%s): %s of %llu bytes refused: %llu bytes left of the limit %lld", ordinal,
			     d->uuid, fn, (unsigned long long)bytes, (unsigned long long)left,
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

#define NOREAL(n) AXL__LIM_NOREAL(n)

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
 * keeps is lent to the admission first, since the allocation may reuse it. Into a stream
 * being captured the call allocates nothing: it adds an allocation node to the graph,
 * whose memory is charged when the graph is uploaded or launched (graphmem.c). */
#define ALLOC_POOL(n, dptr, bytes, pool_expr, call, s, ptsz)                        \
	do {                                                                        \
		NOREAL(n);                                                          \
		if (axl__lim_capturing((s), (ptsz)))                                \
			return call;                                                \
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

AXL__LIM_API CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
	ALLOC_PTR(cuMemAlloc_v2, dptr, bytesize, REAL(cuMemAlloc_v2)(dptr, bytesize));
}

/* CUDA 3.1's: a 32-bit device pointer and size */
AXL__LIM_API CUresult cuMemAlloc(CUdeviceptr_v1 *dptr, unsigned int bytesize)
{
	ALLOC_PTR(cuMemAlloc, dptr, bytesize, REAL(cuMemAlloc)(dptr, bytesize));
}

AXL__LIM_API CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned int flags)
{
	ALLOC_PTR(cuMemAllocManaged, dptr, bytesize, REAL(cuMemAllocManaged)(dptr, bytesize, flags));
}

AXL__LIM_API CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize, CUstream s)
{
	ALLOC_POOL(cuMemAllocAsync, dptr, bytesize, axl__lim_pool_of_device(ord_),
		   REAL(cuMemAllocAsync)(dptr, bytesize, s), s, 0);
}

AXL__LIM_API CUresult cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUstream s)
{
	ALLOC_POOL(cuMemAllocAsync_ptsz, dptr, bytesize, axl__lim_pool_of_device(ord_),
		   REAL(cuMemAllocAsync_ptsz)(dptr, bytesize, s), s, 1);
}

AXL__LIM_API CUresult cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool, CUstream s)
{
	ALLOC_POOL(cuMemAllocFromPoolAsync, dptr, bytesize, pool,
		   REAL(cuMemAllocFromPoolAsync)(dptr, bytesize, pool, s), s, 0);
}

AXL__LIM_API CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool,
						   CUstream s)
{
	ALLOC_POOL(cuMemAllocFromPoolAsync_ptsz, dptr, bytesize, pool,
		   REAL(cuMemAllocFromPoolAsync_ptsz)(dptr, bytesize, pool, s), s, 1);
}

/* Pitched: width x height reserved first (pitched_begin); after the driver's answer
 * (pitched_end) the pitch's padding too, or the allocation undone with undo(ptr). */
static CUresult pitched_begin(int ord, uint64_t bytes, const char *fn, struct charge *c)
{
	return charge(ord, bytes, fn, c);
}

static CUresult pitched_end(CUresult rc, int ord, struct charge *c, uint64_t bytes, const uint64_t *ptr,
			    const uint64_t *pitch, uint64_t height, const char *fn, CUresult (*undo)(uint64_t))
{
	if (rc != CUDA_SUCCESS) {
		uncharge(c, bytes);
		return rc;
	}
	if (c->rdev < 0 || !ptr || !pitch)
		return rc;
	uint64_t full = *pitch * height;
	if (full > bytes) {
		struct charge extra;
		if (charge(ord, full - bytes, fn, &extra) != CUDA_SUCCESS) {
			undo(*ptr);
			uncharge(c, bytes);
			return CUDA_ERROR_OUT_OF_MEMORY;
		}
		bytes = full;
	}
	map_put(*ptr, K_PTR, c->rdev, bytes);
	return rc;
}

static CUresult undo_v2(uint64_t p)
{
	return REAL(cuMemFree_v2) ? REAL(cuMemFree_v2)((CUdeviceptr)p) : CUDA_ERROR_NOT_SUPPORTED;
}

static CUresult undo_v1(uint64_t p)
{
	return REAL(cuMemFree) ? REAL(cuMemFree)((CUdeviceptr_v1)p) : CUDA_ERROR_NOT_SUPPORTED;
}

AXL__LIM_API CUresult cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pPitch, size_t WidthInBytes, size_t Height,
					 unsigned int ElementSizeBytes)
{
	NOREAL(cuMemAllocPitch_v2);
	int ord = current_ordinal();
	uint64_t bytes = (uint64_t)WidthInBytes * Height;
	struct charge c;
	CUresult rc = pitched_begin(ord, bytes, "cuMemAllocPitch_v2", &c);
	if (rc != CUDA_SUCCESS)
		return rc;
	rc = REAL(cuMemAllocPitch_v2)(dptr, pPitch, WidthInBytes, Height, ElementSizeBytes);
	uint64_t p = dptr ? *dptr : 0, pitch = pPitch ? *pPitch : 0;
	rc = pitched_end(rc, ord, &c, bytes, dptr ? &p : NULL, pPitch ? &pitch : NULL, Height,
			 "cuMemAllocPitch_v2 (pitch)", undo_v2);
	if (rc == CUDA_ERROR_OUT_OF_MEMORY && dptr)
		*dptr = 0;
	return rc;
}

/* CUDA 3.1's: 32-bit sizes, pitch and device pointer */
AXL__LIM_API CUresult cuMemAllocPitch(CUdeviceptr_v1 *dptr, unsigned int *pPitch, unsigned int WidthInBytes,
				      unsigned int Height, unsigned int ElementSizeBytes)
{
	NOREAL(cuMemAllocPitch);
	int ord = current_ordinal();
	uint64_t bytes = (uint64_t)WidthInBytes * Height;
	struct charge c;
	CUresult rc = pitched_begin(ord, bytes, "cuMemAllocPitch", &c);
	if (rc != CUDA_SUCCESS)
		return rc;
	rc = REAL(cuMemAllocPitch)(dptr, pPitch, WidthInBytes, Height, ElementSizeBytes);
	uint64_t p = dptr ? *dptr : 0, pitch = pPitch ? *pPitch : 0;
	rc = pitched_end(rc, ord, &c, bytes, dptr ? &p : NULL, pPitch ? &pitch : NULL, Height,
			 "cuMemAllocPitch (pitch)", undo_v1);
	if (rc == CUDA_ERROR_OUT_OF_MEMORY && dptr)
		*dptr = 0;
	return rc;
}

/* A free: the entry taken out before the call (free_begin), so that an allocation the
 * driver hands the same address meanwhile keeps its own; given back on success, put back
 * when the driver refused (free_end). */
struct taken {
	int had, rdev;
	uint64_t bytes;
};

static struct taken free_begin(uint64_t p)
{
	struct taken t;
	t.had = map_take(p, K_PTR, &t.rdev, &t.bytes);
	return t;
}

static CUresult free_end(CUresult rc, uint64_t p, const struct taken *t)
{
	if (!t->had)
		return rc;
	if (rc == CUDA_SUCCESS) {
		released(t->rdev, t->bytes);
		axl__lim_pools_refresh(t->rdev); /* a pool may keep it */
	} else {
		map_back(p, K_PTR, t->rdev, t->bytes);
	}
	return rc;
}

AXL__LIM_API CUresult cuMemFree_v2(CUdeviceptr dptr)
{
	NOREAL(cuMemFree_v2);
	struct taken t = free_begin(dptr);
	return free_end(REAL(cuMemFree_v2)(dptr), dptr, &t);
}

AXL__LIM_API CUresult cuMemFree(CUdeviceptr_v1 dptr)
{
	NOREAL(cuMemFree);
	struct taken t = free_begin(dptr);
	return free_end(REAL(cuMemFree)(dptr), dptr, &t);
}

AXL__LIM_API CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream s)
{
	NOREAL(cuMemFreeAsync);
	struct taken t = free_begin(dptr);
	return free_end(REAL(cuMemFreeAsync)(dptr, s), dptr, &t);
}

AXL__LIM_API CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream s)
{
	NOREAL(cuMemFreeAsync_ptsz);
	struct taken t = free_begin(dptr);
	return free_end(REAL(cuMemFreeAsync_ptsz)(dptr, s), dptr, &t);
}

/* ---- virtual memory management: charged at create on a device location -------------- */

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
	CUresult rc = REAL(cuMemCreate)(handle, size, prop, flags);
	if (rc != CUDA_SUCCESS)
		uncharge(&c, size);
	else if (c.rdev >= 0 && handle)
		map_put(*handle, K_VMM, c.rdev, size);
	return rc;
}

/* A handle holds a reference to its allocation, and so does each cuMemRetainAllocationHandle
 * of an address mapped to it (which hands out the same handle value), and each live mapping
 * of its memory (cuMemMap, below): the driver frees the memory when the last handle
 * reference is released and the last mapping unmapped, in either order, so the charge is
 * given back with the last reference of both kinds the limiter counted. A release drops a
 * handle reference only (none left: nothing dropped, a mapping's stays). The reference is
 * dropped before the call (a handle the driver hands out meanwhile keeps its own entry) and
 * counted again when the driver refuses the release. */
AXL__LIM_API CUresult cuMemRelease(CUmemGenericAllocationHandle handle)
{
	NOREAL(cuMemRelease);
	int rdev = -1;
	uint64_t bytes = 0;
	int r = axl__lim_map_unref(&g_map, handle, K_VMM, &rdev, &bytes);
	CUresult rc = REAL(cuMemRelease)(handle);
	if (r == AXL__LIM_UNREF_LAST) {
		if (rc == CUDA_SUCCESS)
			released(rdev, bytes);
		else
			map_back(handle, K_VMM, rdev, bytes);
	} else if (r == AXL__LIM_UNREF_HELD && rc != CUDA_SUCCESS) {
		axl__lim_map_ref(&g_map, handle, K_VMM); /* gone meanwhile: its last release gave it back */
	}
	return rc;
}

/* One more reference to the allocation mapped at addr, when the limiter charged it. */
AXL__LIM_API CUresult cuMemRetainAllocationHandle(CUmemGenericAllocationHandle *handle, void *addr)
{
	NOREAL(cuMemRetainAllocationHandle);
	CUresult rc = REAL(cuMemRetainAllocationHandle)(handle, addr);
	if (rc == CUDA_SUCCESS && handle)
		axl__lim_map_ref(&g_map, *handle, K_VMM);
	return rc;
}

/* ---- the mapping references of VMM handles (vmap.c) ---------------------------------- */

int axl__lim_vmm_hold(CUmemGenericAllocationHandle handle)
{
	return axl__lim_map_hold(&g_map, handle, K_VMM);
}

/* the charge goes with the last reference of both kinds */
void axl__lim_vmm_unhold(CUmemGenericAllocationHandle handle)
{
	int rdev = -1;
	uint64_t bytes = 0;
	if (axl__lim_map_unhold(&g_map, handle, K_VMM, &rdev, &bytes) == AXL__LIM_UNREF_LAST)
		released(rdev, bytes);
}

/* ---- arrays: the size from the descriptor ---------------------------------------------
 *
 * An estimate of the data's size, as HAMi-core makes it: width x height x depth (0 counts
 * as 1) x channels x the format's bytes a channel, summed over a mipmapped array's levels
 * (each level halves width, height and depth, to 1; a layered or cubemap array keeps its
 * layers). Block-compressed formats take 8 (BC1, BC4) or 16 bytes a 4x4 block, NV12 1.5
 * bytes a pixel; a format this file does not know, 4 bytes a channel. The driver's own
 * alignment and tiling come on top and are not counted: the charge is at most what the
 * array holds. A sparse or deferred-mapping array holds no memory of its own (what is
 * mapped into it comes from cuMemCreate, charged there): 0. */

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
	uint64_t r;
	return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* one level: w x h x d elements (h, d at least 1) */
static uint64_t level_bytes(uint64_t w, uint64_t h, uint64_t d, CUarray_format f, unsigned ch)
{
	uint64_t c = ch ? ch : 1, per = 4; /* bytes a channel */
	switch (f) {
	case CU_AD_FORMAT_UNSIGNED_INT8: case CU_AD_FORMAT_SIGNED_INT8:
	case CU_AD_FORMAT_UNORM_INT8X1: case CU_AD_FORMAT_UNORM_INT8X2: case CU_AD_FORMAT_UNORM_INT8X4:
	case CU_AD_FORMAT_SNORM_INT8X1: case CU_AD_FORMAT_SNORM_INT8X2: case CU_AD_FORMAT_SNORM_INT8X4:
		per = 1;
		break;
	case CU_AD_FORMAT_UNSIGNED_INT16: case CU_AD_FORMAT_SIGNED_INT16: case CU_AD_FORMAT_HALF:
	case CU_AD_FORMAT_UNORM_INT16X1: case CU_AD_FORMAT_UNORM_INT16X2: case CU_AD_FORMAT_UNORM_INT16X4:
	case CU_AD_FORMAT_SNORM_INT16X1: case CU_AD_FORMAT_SNORM_INT16X2: case CU_AD_FORMAT_SNORM_INT16X4:
		per = 2;
		break;
	case CU_AD_FORMAT_UNSIGNED_INT32: case CU_AD_FORMAT_SIGNED_INT32: case CU_AD_FORMAT_FLOAT:
		per = 4;
		break;
	case CU_AD_FORMAT_NV12: /* 4:2:0: a luma byte a pixel, a chroma pair a 2x2 block */
		return sat_mul(sat_mul(w, h), d) / 2 * 3 + (sat_mul(sat_mul(w, h), d) & 1);
	case CU_AD_FORMAT_BC1_UNORM: case CU_AD_FORMAT_BC1_UNORM_SRGB:
	case CU_AD_FORMAT_BC4_UNORM: case CU_AD_FORMAT_BC4_SNORM:
		return sat_mul(sat_mul(sat_mul((w + 3) / 4, (h + 3) / 4), d), 8);
	case CU_AD_FORMAT_BC2_UNORM: case CU_AD_FORMAT_BC2_UNORM_SRGB:
	case CU_AD_FORMAT_BC3_UNORM: case CU_AD_FORMAT_BC3_UNORM_SRGB:
	case CU_AD_FORMAT_BC5_UNORM: case CU_AD_FORMAT_BC5_SNORM:
	case CU_AD_FORMAT_BC6H_UF16: case CU_AD_FORMAT_BC6H_SF16:
	case CU_AD_FORMAT_BC7_UNORM: case CU_AD_FORMAT_BC7_UNORM_SRGB:
		return sat_mul(sat_mul(sat_mul((w + 3) / 4, (h + 3) / 4), d), 16);
	default:
		break; /* a later format: 4 bytes a channel */
	}
	return sat_mul(sat_mul(sat_mul(sat_mul(w, h), d), c), per);
}

/* the estimate for an array of levels levels (1: not mipmapped; 0 or more than 32: none) */
static uint64_t array_bytes(uint64_t w, uint64_t h, uint64_t d, CUarray_format f, unsigned ch, unsigned flags,
			    unsigned levels)
{
	if (flags & (CUDA_ARRAY3D_SPARSE | CUDA_ARRAY3D_DEFERRED_MAPPING))
		return 0;
	int layers = (flags & (CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_CUBEMAP)) != 0;
	uint64_t sum = 0;
	for (unsigned l = 0; l < levels && l < 32; l++) {
		uint64_t lw = w >> l, lh = h >> l, ld = layers ? d : d >> l;
		sum = sat_add(sum, level_bytes(lw ? lw : 1, lh ? lh : 1, ld ? ld : 1, f, ch));
	}
	return sum;
}

/* An array's creation: its estimate reserved (array_begin), then (array_end) given back
 * when the driver fails, or remembered by handle. */
static CUresult array_begin(uint64_t bytes, const char *fn, struct charge *c)
{
	c->r = NULL;
	c->rdev = -1;
	return bytes ? charge(current_ordinal(), bytes, fn, c) : CUDA_SUCCESS;
}

static CUresult array_end(CUresult rc, const struct charge *c, uint64_t bytes, const void *handle_out, uint64_t handle,
			  int kind)
{
	if (rc != CUDA_SUCCESS)
		uncharge(c, bytes);
	else if (c->rdev >= 0 && handle_out)
		map_put(handle, kind, c->rdev, bytes);
	return rc;
}

AXL__LIM_API CUresult cuArrayCreate_v2(CUarray *pHandle, const CUDA_ARRAY_DESCRIPTOR *desc)
{
	NOREAL(cuArrayCreate_v2);
	uint64_t bytes = desc ? array_bytes(desc->Width, desc->Height, 1, desc->Format, desc->NumChannels, 0, 1) : 0;
	struct charge c;
	CUresult rc = array_begin(bytes, "cuArrayCreate_v2", &c);
	if (rc != CUDA_SUCCESS)
		return rc;
	rc = REAL(cuArrayCreate_v2)(pHandle, desc);
	return array_end(rc, &c, bytes, pHandle, pHandle ? (uint64_t)(uintptr_t)*pHandle : 0, K_ARRAY);
}

/* CUDA 3.1's: 32-bit sizes in the descriptor */
AXL__LIM_API CUresult cuArrayCreate(CUarray *pHandle, const CUDA_ARRAY_DESCRIPTOR_v1 *desc)
{
	NOREAL(cuArrayCreate);
	uint64_t bytes = desc ? array_bytes(desc->Width, desc->Height, 1, desc->Format, desc->NumChannels, 0, 1) : 0;
	struct charge c;
	CUresult rc = array_begin(bytes, "cuArrayCreate", &c);
	if (rc != CUDA_SUCCESS)
		return rc;
	rc = REAL(cuArrayCreate)(pHandle, desc);
	return array_end(rc, &c, bytes, pHandle, pHandle ? (uint64_t)(uintptr_t)*pHandle : 0, K_ARRAY);
}

AXL__LIM_API CUresult cuArray3DCreate_v2(CUarray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR *desc)
{
	NOREAL(cuArray3DCreate_v2);
	uint64_t bytes =
	    desc ? array_bytes(desc->Width, desc->Height, desc->Depth, desc->Format, desc->NumChannels, desc->Flags, 1)
		 : 0;
	struct charge c;
	CUresult rc = array_begin(bytes, "cuArray3DCreate_v2", &c);
	if (rc != CUDA_SUCCESS)
		return rc;
	rc = REAL(cuArray3DCreate_v2)(pHandle, desc);
	if (rc == CUDA_SUCCESS && pHandle && desc)
		axl__lim_arraymap_created(CU_RESOURCE_TYPE_ARRAY, (uint64_t)(uintptr_t)*pHandle, desc->Flags);
	return array_end(rc, &c, bytes, pHandle, pHandle ? (uint64_t)(uintptr_t)*pHandle : 0, K_ARRAY);
}

AXL__LIM_API CUresult cuArray3DCreate(CUarray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR_v1 *desc)
{
	NOREAL(cuArray3DCreate);
	uint64_t bytes =
	    desc ? array_bytes(desc->Width, desc->Height, desc->Depth, desc->Format, desc->NumChannels, desc->Flags, 1)
		 : 0;
	struct charge c;
	CUresult rc = array_begin(bytes, "cuArray3DCreate", &c);
	if (rc != CUDA_SUCCESS)
		return rc;
	rc = REAL(cuArray3DCreate)(pHandle, desc);
	if (rc == CUDA_SUCCESS && pHandle && desc)
		axl__lim_arraymap_created(CU_RESOURCE_TYPE_ARRAY, (uint64_t)(uintptr_t)*pHandle, desc->Flags);
	return array_end(rc, &c, bytes, pHandle, pHandle ? (uint64_t)(uintptr_t)*pHandle : 0, K_ARRAY);
}

static CUresult destroyed(CUresult rc, uint64_t key, int kind, int had, int rdev, uint64_t bytes)
{
	if (had) {
		if (rc == CUDA_SUCCESS)
			released(rdev, bytes);
		else
			map_back(key, kind, rdev, bytes);
	}
	return rc;
}

/* an array's destruction unmaps the tile pools mapped into it (arraymap.c) */
AXL__LIM_API CUresult cuArrayDestroy(CUarray h)
{
	NOREAL(cuArrayDestroy);
	int rdev;
	uint64_t bytes;
	int had = map_take((uint64_t)(uintptr_t)h, K_ARRAY, &rdev, &bytes);
	struct axl__lim_arraymap_taken *t = axl__lim_arraymap_take(CU_RESOURCE_TYPE_ARRAY, (uint64_t)(uintptr_t)h);
	CUresult rc = destroyed(REAL(cuArrayDestroy)(h), (uint64_t)(uintptr_t)h, K_ARRAY, had, rdev, bytes);
	axl__lim_arraymap_done(t, rc == CUDA_SUCCESS);
	return rc;
}

AXL__LIM_API CUresult cuMipmappedArrayCreate(CUmipmappedArray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR *desc,
					     unsigned int levels)
{
	NOREAL(cuMipmappedArrayCreate);
	uint64_t bytes = desc && levels <= 32 ? array_bytes(desc->Width, desc->Height, desc->Depth, desc->Format,
							    desc->NumChannels, desc->Flags, levels)
					      : 0;
	struct charge c;
	CUresult rc = array_begin(bytes, "cuMipmappedArrayCreate", &c);
	if (rc != CUDA_SUCCESS)
		return rc;
	rc = REAL(cuMipmappedArrayCreate)(pHandle, desc, levels);
	if (rc == CUDA_SUCCESS && pHandle && desc)
		axl__lim_arraymap_created(CU_RESOURCE_TYPE_MIPMAPPED_ARRAY, (uint64_t)(uintptr_t)*pHandle, desc->Flags);
	return array_end(rc, &c, bytes, pHandle, pHandle ? (uint64_t)(uintptr_t)*pHandle : 0, K_MIPMAP);
}

AXL__LIM_API CUresult cuMipmappedArrayDestroy(CUmipmappedArray h)
{
	NOREAL(cuMipmappedArrayDestroy);
	int rdev;
	uint64_t bytes;
	int had = map_take((uint64_t)(uintptr_t)h, K_MIPMAP, &rdev, &bytes);
	struct axl__lim_arraymap_taken *t =
		axl__lim_arraymap_take(CU_RESOURCE_TYPE_MIPMAPPED_ARRAY, (uint64_t)(uintptr_t)h);
	CUresult rc = destroyed(REAL(cuMipmappedArrayDestroy)(h), (uint64_t)(uintptr_t)h, K_MIPMAP, had, rdev, bytes);
	axl__lim_arraymap_done(t, rc == CUDA_SUCCESS);
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
	axl__lim_graphmem_refresh(d->rdev);
	uint64_t used = 0;
	axl__region_usage(r, d->rdev, &used, NULL);
	uint64_t fr = used < limit ? limit - used : 0;
	if (fr > drv_free)
		fr = drv_free;
	*free_out = fr;
	*total_out = limit;
	return 1;
}

AXL__LIM_API CUresult cuMemGetInfo_v2(size_t *free, size_t *total)
{
	NOREAL(cuMemGetInfo_v2);
	size_t f = 0, t = 0;
	CUresult rc = REAL(cuMemGetInfo_v2)(&f, &t);
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
	CUresult rc = REAL(cuMemGetInfo)(&f, &t);
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
	CUresult rc = REAL(cuDeviceTotalMem_v2)(&t, dev);
	if (rc != CUDA_SUCCESS)
		return rc;
	uint64_t lf, lt;
	if (limited_info(dev, UINT64_MAX, t, &lf, &lt))
		t = (size_t)lt;
	if (bytes)
		*bytes = t;
	return rc;
}

/* CUDA 3.1's: a 32-bit count (the driver's own saturates at 4 GiB - 1) */
AXL__LIM_API CUresult cuDeviceTotalMem(unsigned int *bytes, CUdevice dev)
{
	NOREAL(cuDeviceTotalMem);
	unsigned int t = 0;
	CUresult rc = REAL(cuDeviceTotalMem)(&t, dev);
	if (rc != CUDA_SUCCESS)
		return rc;
	uint64_t lf, lt;
	if (limited_info(dev, UINT64_MAX, t == 0xffffffffu ? UINT64_MAX : t, &lf, &lt))
		t = lt > 0xffffffffu ? 0xffffffffu : (unsigned)lt;
	if (bytes)
		*bytes = t;
	return rc;
}
