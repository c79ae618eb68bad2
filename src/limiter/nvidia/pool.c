/* SPDX-License-Identifier: MIT */
/*
 * Pools' growth (docs/limits.md, "What is counted"): a stream-ordered memory pool keeps
 * the memory of freed allocations reserved (up to its release threshold after a
 * synchronisation, all of it before one, until cuMemPoolTrimTo), so the device's memory a
 * workload holds is its allocations plus what its pools keep. memory.c charges the
 * allocations; this file charges, per pool the workload allocated from, what the pool
 * keeps beyond what is in use (CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT minus
 * USED_MEM_CURRENT), refreshed after every allocation and free from a pool, at
 * cuMemPoolTrimTo and cuMemGetInfo, and before an allocation is refused. An allocation
 * from a pool may reuse what the pool keeps: it is admitted against that first.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <string.h>

#include "limiter.h"

#define MAX_POOLS 64

struct lpool {
	CUmemoryPool p;
	int rdev;
	uint64_t held; /* charged for what the pool keeps */
	int lending;   /* allocations in flight that were lent what it keeps: no refresh */
};

static struct lpool g_pools[MAX_POOLS];
static int g_npools;
static pthread_mutex_t g_pool_lock = PTHREAD_MUTEX_INITIALIZER;

static axl__region *region_now(void)
{
	axl__region *r = NULL;
	axl__lim_device(0, &r);
	return r;
}

static struct lpool *find(CUmemoryPool p)
{
	for (int i = 0; i < g_npools; i++)
		if (g_pools[i].p == p)
			return &g_pools[i];
	return NULL;
}

/* What pool i keeps now (reserved - used), charged or given back; a pool the driver no
 * longer knows is dropped with its charge. Under the lock. */
static void refresh_locked(axl__region *r, int i)
{
	struct lpool *lp = &g_pools[i];
	if (lp->lending)
		return;
	cuuint64_t reserved = 0, used = 0;
	int gone = !axl__lim_drv.pool_get_attribute ||
		   axl__lim_drv.pool_get_attribute(lp->p, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &reserved) !=
			   CUDA_SUCCESS ||
		   axl__lim_drv.pool_get_attribute(lp->p, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &used) != CUDA_SUCCESS;
	uint64_t kept = gone || reserved < used ? 0 : reserved - used;
	if (kept > lp->held)
		axl__region_hold(r, lp->rdev, kept - lp->held); /* already taken: never refused */
	else if (kept < lp->held)
		axl__region_release(r, lp->rdev, lp->held - kept);
	lp->held = kept;
	if (gone)
		g_pools[i] = g_pools[--g_npools];
}

void axl__lim_pools_refresh(int rdev)
{
	axl__region *r = region_now();
	if (!r || !__atomic_load_n(&g_npools, __ATOMIC_RELAXED))
		return;
	pthread_mutex_lock(&g_pool_lock);
	for (int i = g_npools - 1; i >= 0; i--)
		if (rdev < 0 || g_pools[i].rdev == rdev)
			refresh_locked(r, i);
	pthread_mutex_unlock(&g_pool_lock);
}

uint64_t axl__lim_pool_lend(CUmemoryPool p, uint64_t bytes)
{
	axl__region *r = region_now();
	uint64_t t = 0;
	if (!r || !p)
		return 0;
	pthread_mutex_lock(&g_pool_lock);
	struct lpool *lp = find(p);
	if (lp) {
		t = lp->held < bytes ? lp->held : bytes;
		if (t) { /* axl__lim_pool_done with lent != 0 ends it */
			lp->held -= t;
			lp->lending++;
			axl__region_release(r, lp->rdev, t);
		}
	}
	pthread_mutex_unlock(&g_pool_lock);
	return t;
}

void axl__lim_pool_done(CUmemoryPool p, int rdev, uint64_t lent)
{
	axl__region *r = region_now();
	if (!r || !p)
		return;
	pthread_mutex_lock(&g_pool_lock);
	struct lpool *lp = find(p);
	if (lp && lent) {
		/* what was lent is charged again before the refresh weighs what it keeps now */
		lp->lending--;
		axl__region_hold(r, lp->rdev, lent);
		lp->held += lent;
	} else if (!lp && rdev >= 0 && g_npools < MAX_POOLS) {
		lp = &g_pools[g_npools++];
		lp->p = p;
		lp->rdev = rdev;
		lp->held = 0;
		lp->lending = 0;
	} else if (!lp && rdev >= 0) {
		axl__lim_log(AXL__LOG_WARN, "more than %d memory pools: what pool %p keeps is not charged", MAX_POOLS,
			     (void *)p);
	}
	if (lp)
		refresh_locked(r, (int)(lp - g_pools));
	pthread_mutex_unlock(&g_pool_lock);
}

CUmemoryPool axl__lim_pool_of_device(int ordinal)
{
	CUmemoryPool p = NULL;
	if (ordinal < 0)
		return NULL;
	if (axl__lim_drv.device_get_mem_pool && axl__lim_drv.device_get_mem_pool(&p, ordinal) == CUDA_SUCCESS)
		return p;
	if (axl__lim_drv.device_get_default_mem_pool &&
	    axl__lim_drv.device_get_default_mem_pool(&p, ordinal) == CUDA_SUCCESS)
		return p;
	return NULL;
}

void axl__lim_forget_pools(void)
{
	pthread_mutex_init(&g_pool_lock, NULL);
	g_npools = 0;
}

/* ---- the entry points --------------------------------------------------------------------- */

AXL__LIM_API CUresult cuMemPoolTrimTo(CUmemoryPool pool, size_t minBytesToKeep)
{
	axl__lim_init();
	__typeof__(&cuMemPoolTrimTo) real = AXL__LIM_REAL(cuMemPoolTrimTo);
	if (!real)
		return CUDA_ERROR_NOT_SUPPORTED;
	CUresult rc = real(pool, minBytesToKeep);
	axl__lim_pools_refresh(-1);
	return rc;
}

AXL__LIM_API CUresult cuMemPoolDestroy(CUmemoryPool pool)
{
	axl__lim_init();
	__typeof__(&cuMemPoolDestroy) real = AXL__LIM_REAL(cuMemPoolDestroy);
	if (!real)
		return CUDA_ERROR_NOT_SUPPORTED;
	CUresult rc = real(pool);
	axl__lim_pools_refresh(-1); /* a destroyed pool's query fails: its charge goes */
	return rc;
}
