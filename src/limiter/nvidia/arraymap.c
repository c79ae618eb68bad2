/* SPDX-License-Identifier: MIT */
/*
 * Tile pools mapped into sparse and deferred-mapping arrays (docs/limits.md, "What is
 * counted"). cuMemMapArrayAsync maps a subresource of a sparse array or mipmapped array (a
 * sparse level's region of elements, or a mip tail's bytes) onto the memory of a tile pool,
 * a cuMemCreate handle made with CU_MEM_CREATE_USAGE_TILE_POOL, charged at its creation; a
 * deferred-mapping array is mapped whole (the driver ignores its subresource). The driver
 * frees the pool when its handle's last reference is released and its last mapping is gone,
 * so each mapped region of a charged pool holds a mapping reference of the pool's entry
 * (memory.c), and the charge goes with the last reference of either kind.
 *
 * An unmap names a region, not a handle, and may take part of what a map mapped (tile by
 * tile), so the regions are kept per array, (subresource, level, layer, box) -> pool: an
 * unmap cuts its region out of every box it meets, the pieces left keeping a reference
 * each; a map first cuts the same way (a map over mapped tiles leaves them mapped to the
 * new pool only, whether the driver replaces them or refuses: the books follow a success
 * only), then adds its box; a destroyed array drops its boxes ("It's not necessary to unmap
 * the tiles / mip tail when destroying the array", NVIDIA's OptiX Toolkit). Only boxes of
 * charged pools are kept. The references of a call's maps are taken before the driver sees
 * it (a release on another thread meanwhile cannot give back the charge under a tile being
 * mapped) and dropped when the driver refuses the call: a refused call changes nothing.
 * One lock; an operation looks at its array's boxes only.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "limiter.h"

#define REAL(n) AXL__LIM_REAL(n)

enum { SUB_LEVEL, SUB_MIPTAIL, SUB_WHOLE };

/* a region of an array's subresource: a sparse level's elements [lo, hi), a mip tail's
 * bytes [lo[0], hi[0]), or the whole of a deferred-mapping array */
struct region {
	int sub;
	unsigned level, layer;
	uint64_t lo[3], hi[3];
};

struct box {
	struct box *next;
	struct region r;
	CUmemGenericAllocationHandle pool; /* holds one mapping reference of its entry */
};

/* an array (or mipmapped array) with boxes, or made with CUDA_ARRAY3D_DEFERRED_MAPPING */
struct array {
	struct array *next;
	int kind; /* CU_RESOURCE_TYPE_ARRAY or _MIPMAPPED_ARRAY */
	uint64_t res;
	int deferred;
	struct box *boxes;
};

static struct {
	pthread_mutex_t lock;
	struct array *bucket[256];
} g_arrays = {PTHREAD_MUTEX_INITIALIZER, {0}};

#define NBUCKET (sizeof g_arrays.bucket / sizeof g_arrays.bucket[0])

static unsigned bucket(int kind, uint64_t res)
{
	return (unsigned)(((res ^ (uint64_t)kind) * 0x9e3779b97f4a7c15ull) >> 56) & (NBUCKET - 1);
}

/* the array's record, made when make (lock held); NULL when none (or out of memory) */
static struct array *array_of(int kind, uint64_t res, int make)
{
	unsigned b = bucket(kind, res);
	for (struct array *a = g_arrays.bucket[b]; a; a = a->next)
		if (a->kind == kind && a->res == res)
			return a;
	if (!make)
		return NULL;
	struct array *a = calloc(1, sizeof *a);
	if (!a)
		return NULL;
	a->kind = kind;
	a->res = res;
	a->next = g_arrays.bucket[b];
	g_arrays.bucket[b] = a;
	return a;
}

/* take the array's record out of the table (lock held) */
static void array_unlink(struct array *a)
{
	for (struct array **pp = &g_arrays.bucket[bucket(a->kind, a->res)]; *pp; pp = &(*pp)->next)
		if (*pp == a) {
			*pp = a->next;
			return;
		}
}

void axl__lim_arraymap_created(int kind, uint64_t res, unsigned flags)
{
	if (!(flags & CUDA_ARRAY3D_DEFERRED_MAPPING))
		return;
	pthread_mutex_lock(&g_arrays.lock);
	struct array *a = array_of(kind, res, 1);
	if (a)
		a->deferred = 1;
	pthread_mutex_unlock(&g_arrays.lock);
	if (!a)
		axl__lim_log(AXL__LOG_ERROR,
			     "out of host memory: a deferred-mapping array is followed as a sparse one");
}

struct axl__lim_arraymap_taken {
	struct array *a;
};

struct axl__lim_arraymap_taken *axl__lim_arraymap_take(int kind, uint64_t res)
{
	pthread_mutex_lock(&g_arrays.lock);
	struct array *a = array_of(kind, res, 0);
	if (a)
		array_unlink(a);
	pthread_mutex_unlock(&g_arrays.lock);
	return (struct axl__lim_arraymap_taken *)a;
}

void axl__lim_arraymap_done(struct axl__lim_arraymap_taken *t, int destroyed)
{
	struct array *a = (struct array *)t;
	if (!a)
		return;
	if (!destroyed) { /* the driver refused: back as it was */
		pthread_mutex_lock(&g_arrays.lock);
		unsigned b = bucket(a->kind, a->res);
		a->next = g_arrays.bucket[b];
		g_arrays.bucket[b] = a;
		pthread_mutex_unlock(&g_arrays.lock);
		return;
	}
	while (a->boxes) {
		struct box *x = a->boxes;
		a->boxes = x->next;
		axl__lim_vmm_unhold(x->pool);
		free(x);
	}
	free(a);
}

void axl__lim_forget_arraymaps(void)
{
	pthread_mutex_init(&g_arrays.lock, NULL);
	for (unsigned b = 0; b < NBUCKET; b++)
		while (g_arrays.bucket[b]) {
			struct array *a = g_arrays.bucket[b];
			g_arrays.bucket[b] = a->next;
			while (a->boxes) {
				struct box *x = a->boxes;
				a->boxes = x->next;
				free(x);
			}
			free(a);
		}
}

/* the entry's array; 0 when it names none */
static int resource(const CUarrayMapInfo *m, int *kind, uint64_t *res)
{
	if (m->resourceType == CU_RESOURCE_TYPE_ARRAY)
		*res = (uint64_t)(uintptr_t)m->resource.array;
	else if (m->resourceType == CU_RESOURCE_TYPE_MIPMAPPED_ARRAY)
		*res = (uint64_t)(uintptr_t)m->resource.mipmap;
	else
		return 0;
	*kind = (int)m->resourceType;
	return 1;
}

/* the entry's region (deferred: its array was made with CUDA_ARRAY3D_DEFERRED_MAPPING); 0
 * when it names none (a subresource type or operation the driver does not take) */
static int region(const CUarrayMapInfo *m, int deferred, struct region *r)
{
	if (m->memOperationType != CU_MEM_OPERATION_TYPE_MAP && m->memOperationType != CU_MEM_OPERATION_TYPE_UNMAP)
		return 0;
	memset(r, 0, sizeof *r);
	if (deferred) {
		r->sub = SUB_WHOLE;
		for (int i = 0; i < 3; i++)
			r->hi[i] = UINT64_MAX;
	} else if (m->subresourceType == CU_ARRAY_SPARSE_SUBRESOURCE_TYPE_SPARSE_LEVEL) {
		r->sub = SUB_LEVEL;
		r->level = m->subresource.sparseLevel.level;
		r->layer = m->subresource.sparseLevel.layer;
		r->lo[0] = m->subresource.sparseLevel.offsetX;
		r->lo[1] = m->subresource.sparseLevel.offsetY;
		r->lo[2] = m->subresource.sparseLevel.offsetZ;
		r->hi[0] = r->lo[0] + m->subresource.sparseLevel.extentWidth;
		r->hi[1] = r->lo[1] + m->subresource.sparseLevel.extentHeight;
		r->hi[2] = r->lo[2] + m->subresource.sparseLevel.extentDepth;
	} else if (m->subresourceType == CU_ARRAY_SPARSE_SUBRESOURCE_TYPE_MIPTAIL) {
		r->sub = SUB_MIPTAIL;
		r->layer = m->subresource.miptail.layer;
		r->lo[0] = m->subresource.miptail.offset;
		r->hi[0] = m->subresource.miptail.size > UINT64_MAX - r->lo[0] ? UINT64_MAX
									       : r->lo[0] + m->subresource.miptail.size;
		r->hi[1] = r->hi[2] = 1;
	} else {
		return 0;
	}
	return 1;
}

/* do a and b share an element (an empty region shares none)? */
static int meets(const struct region *a, const struct region *b)
{
	if (a->sub != b->sub || a->level != b->level || a->layer != b->layer)
		return 0;
	for (int k = 0; k < 3; k++)
		if (a->lo[k] >= a->hi[k] || b->lo[k] >= b->hi[k] || a->hi[k] <= b->lo[k] || b->hi[k] <= a->lo[k])
			return 0;
	return 1;
}

/* a box with one more reference of pool's (taken here; 0: none taken, NULL) */
static struct box *box_new(const struct region *r, CUmemGenericAllocationHandle pool)
{
	struct box *x = malloc(sizeof *x);
	if (!x)
		return NULL;
	if (!axl__lim_vmm_hold(pool)) {
		free(x);
		return NULL;
	}
	x->r = *r;
	x->pool = pool;
	return x;
}

/* Cut r out of a's boxes (lock held): a box r meets leaves its pieces outside r, each with a
 * reference of its own; the box itself goes onto *gone, whose references the caller drops
 * after the lock. Out of host memory for a piece: the box stays whole (its reference held:
 * counted, not escaped), and the log says so. */
static void cut(struct array *a, const struct region *r, struct box **gone)
{
	struct box *keep = NULL;
	while (a->boxes) {
		struct box *x = a->boxes;
		a->boxes = x->next;
		if (!meets(&x->r, r)) {
			x->next = keep;
			keep = x;
			continue;
		}
		/* x less r: along x, then y, then z (at most six pieces) */
		struct region piece[6], rest = x->r;
		int n = 0;
		for (int k = 0; k < 3; k++) {
			if (rest.lo[k] < r->lo[k]) {
				piece[n] = rest;
				piece[n++].hi[k] = r->lo[k];
				rest.lo[k] = r->lo[k];
			}
			if (r->hi[k] < rest.hi[k]) {
				piece[n] = rest;
				piece[n++].lo[k] = r->hi[k];
				rest.hi[k] = r->hi[k];
			}
		}
		struct box *made[6];
		int m = 0;
		while (m < n && (made[m] = box_new(&piece[m], x->pool)))
			m++;
		if (m < n) {
			for (int k = 0; k < m; k++) {
				axl__lim_vmm_unhold(made[k]->pool); /* not the last: x holds the entry */
				free(made[k]);
			}
			axl__lim_log(AXL__LOG_ERROR,
				     "out of host memory: an unmapped region of a tile pool stays counted");
			x->next = keep;
			keep = x;
			continue;
		}
		for (int k = 0; k < n; k++) {
			made[k]->next = keep;
			keep = made[k];
		}
		x->next = *gone;
		*gone = x;
	}
	a->boxes = keep;
}

static void unhold_all(struct box *gone)
{
	while (gone) {
		struct box *x = gone;
		gone = x->next;
		axl__lim_vmm_unhold(x->pool);
		free(x);
	}
}

static CUresult map_array(int sym, CUarrayMapInfo *list, unsigned int count, CUstream s)
{
	__typeof__(&cuMemMapArrayAsync) real = (__typeof__(&cuMemMapArrayAsync))axl__lim_real[sym];
	if (!list || count == 0)
		return real(list, count, s);
	/* each map's reference, before the call */
	unsigned char *held = calloc(count, 1);
	if (!held) {
		axl__lim_log(AXL__LOG_ERROR, "out of host memory: cuMemMapArrayAsync of %u entries not followed",
			     count);
		return real(list, count, s);
	}
	for (unsigned i = 0; i < count; i++)
		if (list[i].memOperationType == CU_MEM_OPERATION_TYPE_MAP)
			held[i] = (unsigned char)axl__lim_vmm_hold(list[i].memHandle.memHandle);
	CUresult rc = real(list, count, s);
	if (rc != CUDA_SUCCESS) {
		for (unsigned i = 0; i < count; i++)
			if (held[i])
				axl__lim_vmm_unhold(list[i].memHandle.memHandle); /* the last: released meanwhile */
		free(held);
		return rc;
	}
	/* the driver took them all, in order */
	struct box *gone = NULL;
	pthread_mutex_lock(&g_arrays.lock);
	for (unsigned i = 0; i < count; i++) {
		const CUarrayMapInfo *m = &list[i];
		int kind;
		uint64_t res;
		struct array *a = NULL;
		struct region r;
		if (!resource(m, &kind, &res) || !region(m, (a = array_of(kind, res, 0)) && a->deferred, &r)) {
			if (held[i]) /* a kind of map this file does not know: counted, not followed */
				axl__lim_log(AXL__LOG_WARN,
					     "cuMemMapArrayAsync: an entry of resource type %d, subresource "
					     "type %d: its tile pool stays counted until the end of the process",
					     (int)m->resourceType, (int)m->subresourceType);
			continue;
		}
		if (a)
			cut(a, &r, &gone);
		if (!held[i])
			continue; /* an unmap, or a pool the limiter did not charge */
		struct box *x = malloc(sizeof *x);
		if (!a)
			a = array_of(kind, res, 1);
		if (!x || !a) {
			free(x);
			axl__lim_log(AXL__LOG_ERROR,
				     "out of host memory: a tile pool mapped into an array stays counted "
				     "until the end of the process");
			continue;
		}
		x->r = r;
		x->pool = m->memHandle.memHandle;
		x->next = a->boxes;
		a->boxes = x;
	}
	pthread_mutex_unlock(&g_arrays.lock);
	free(held);
	unhold_all(gone);
	return rc;
}

AXL__LIM_API CUresult cuMemMapArrayAsync(CUarrayMapInfo *mapInfoList, unsigned int count, CUstream hStream)
{
	axl__lim_init();
	if (!axl__lim_real[AXL__SYM_cuMemMapArrayAsync])
		return CUDA_ERROR_NOT_SUPPORTED;
	return map_array(AXL__SYM_cuMemMapArrayAsync, mapInfoList, count, hStream);
}

AXL__LIM_API CUresult cuMemMapArrayAsync_ptsz(CUarrayMapInfo *mapInfoList, unsigned int count, CUstream hStream)
{
	axl__lim_init();
	if (!axl__lim_real[AXL__SYM_cuMemMapArrayAsync_ptsz])
		return CUDA_ERROR_NOT_SUPPORTED;
	return map_array(AXL__SYM_cuMemMapArrayAsync_ptsz, mapInfoList, count, hStream);
}
