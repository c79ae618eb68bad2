/* SPDX-License-Identifier: MIT */
/*
 * The memory limit's record of cuMemMap's mappings (memory.c charges the handles): a mapped
 * handle keeps its charge until both its last release and its last unmap.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>

#include "limiter.h"

#define REAL(n) AXL__LIM_REAL(n)
#define NOREAL(n) AXL__LIM_NOREAL(n)

/* ---- mappings of VMM handles -----------------------------------------------------------
 *
 * "Any backing memory allocations will be freed if there are no existing mappings and there
 * are no unreleased memory handles" (cuMemUnmap in the Driver API reference): memory mapped
 * with cuMemMap lives on after its handle's last cuMemRelease. A successful map of a charged
 * handle therefore holds a mapping reference to its entry (taken before the call, so that a
 * release on another thread meanwhile cannot give the charge back under a mapping being
 * made; dropped again when the driver refuses), and every successful map is recorded here,
 * (start -> size, handle, whether it holds a reference), charged or not, so that an unmap can
 * be walked. cuMemUnmap takes whole mappings, one or several side by side ("cuMemUnmap cannot
 * unmap a sub-range of an address range mapped by cuMemCreate / cuMemMap"; NVIDIA's VMM
 * sample unmaps all its handles' mappings with one call): the records of the range are taken
 * out before the call, their references dropped when the driver unmapped them (the charge
 * going with the last reference of either kind), put back when it refused. */

struct vmap {
	struct vmap *next;
	uint64_t va, size;
	CUmemGenericAllocationHandle handle;
	int held; /* holds a mapping reference of the handle's entry in g_map */
};

static struct {
	pthread_mutex_t lock;
	struct vmap *bucket[1024];
} g_vmaps = {PTHREAD_MUTEX_INITIALIZER, {0}};

#define VMAP_NBUCKET (sizeof g_vmaps.bucket / sizeof g_vmaps.bucket[0])

static unsigned vmap_bucket(uint64_t va)
{
	return (unsigned)((va * 0x9e3779b97f4a7c15ull) >> 54) & (VMAP_NBUCKET - 1);
}

static void vmap_link(struct vmap *v)
{
	unsigned b = vmap_bucket(v->va);
	v->next = g_vmaps.bucket[b];
	g_vmaps.bucket[b] = v;
}

static void vmap_put(uint64_t va, uint64_t size, CUmemGenericAllocationHandle handle, int held)
{
	struct vmap *v = malloc(sizeof *v);
	if (!v) {
		if (held)
			axl__lim_log(AXL__LOG_ERROR, "out of host memory: a mapping of %llu bytes stays counted until "
				     "the end of the process", (unsigned long long)size);
		return;
	}
	v->va = va;
	v->size = size;
	v->handle = handle;
	v->held = held;
	pthread_mutex_lock(&g_vmaps.lock);
	vmap_link(v);
	pthread_mutex_unlock(&g_vmaps.lock);
}

/* the record starting at va, unlinked; NULL when none (g_vmaps.lock held) */
static struct vmap *vmap_unlink_at(uint64_t va, uint64_t end)
{
	for (struct vmap **pp = &g_vmaps.bucket[vmap_bucket(va)]; *pp; pp = &(*pp)->next)
		if ((*pp)->va == va) {
			struct vmap *v = *pp;
			if (v->size > end - va)
				return NULL; /* it reaches past the range: not unmapped whole */
			*pp = v->next;
			return v;
		}
	return NULL;
}

/* Take out the records of the mappings lying wholly in [va, va + size), chained on *out;
 * *cut: how many others cross the range's ends (a sub-range, which the driver refuses). */
static void vmap_take_range(uint64_t va, uint64_t size, struct vmap **out, int *cut)
{
	uint64_t end = va + size < va ? UINT64_MAX : va + size;
	*out = NULL;
	*cut = 0;
	pthread_mutex_lock(&g_vmaps.lock);
	/* whole mappings side by side from va: one look-up each */
	uint64_t at = va;
	struct vmap *v;
	while (at < end && (v = vmap_unlink_at(at, end))) {
		at += v->size;
		v->next = *out;
		*out = v;
	}
	if (at < end) {
		/* a hole, a mapping cut, or one not recorded (out of host memory): every record */
		for (unsigned b = 0; b < VMAP_NBUCKET; b++)
			for (struct vmap **pp = &g_vmaps.bucket[b]; *pp;) {
				v = *pp;
				if (v->va >= va && v->va < end && v->size <= end - v->va) {
					*pp = v->next;
					v->next = *out;
					*out = v;
				} else {
					if (v->va < end && va < v->va + v->size)
						(*cut)++;
					pp = &v->next;
				}
			}
	}
	pthread_mutex_unlock(&g_vmaps.lock);
}

void axl__lim_vmap_forget(void)
{
	pthread_mutex_init(&g_vmaps.lock, NULL);
	for (unsigned b = 0; b < VMAP_NBUCKET; b++)
		while (g_vmaps.bucket[b]) {
			struct vmap *v = g_vmaps.bucket[b];
			g_vmaps.bucket[b] = v->next;
			free(v);
		}
}

AXL__LIM_API CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle handle,
			       unsigned long long flags)
{
	NOREAL(cuMemMap);
	int held = axl__lim_vmm_hold(handle);
	CUresult rc = REAL(cuMemMap)(ptr, size, offset, handle, flags);
	if (rc == CUDA_SUCCESS)
		vmap_put(ptr, size, handle, held);
	else if (held)
		axl__lim_vmm_unhold(handle); /* the last: released meanwhile, and the driver freed it then */
	return rc;
}

AXL__LIM_API CUresult cuMemUnmap(CUdeviceptr ptr, size_t size)
{
	NOREAL(cuMemUnmap);
	struct vmap *taken;
	int cut;
	vmap_take_range(ptr, size, &taken, &cut);
	CUresult rc = REAL(cuMemUnmap)(ptr, size);
	if (rc == CUDA_SUCCESS && cut)
		axl__lim_log(AXL__LOG_WARN, "cuMemUnmap of [0x%llx, +%zu) cut %d mapping(s), which the driver should "
			     "refuse: they stay counted", (unsigned long long)ptr, size, cut);
	if (rc != CUDA_SUCCESS) {
		pthread_mutex_lock(&g_vmaps.lock);
		while (taken) {
			struct vmap *v = taken;
			taken = v->next;
			vmap_link(v);
		}
		pthread_mutex_unlock(&g_vmaps.lock);
	}
	while (taken) {
		struct vmap *v = taken;
		taken = v->next;
		if (v->held)
			axl__lim_vmm_unhold(v->handle);
		free(v);
	}
	return rc;
}
