/* SPDX-License-Identifier: MIT */
/* An allocation map (core.h): each side's live allocations, (key, kind) -> (region device,
 * bytes, references of two classes), a hash map under one lock. */
#include <pthread.h>
#include <stdlib.h>

#include "core.h"

struct axl__lim_alloc {
	struct axl__lim_alloc *next;
	uint64_t key;
	int kind;
	int rdev;
	uint64_t bytes;
	/* references to it, by class (at least one in all): [REF_HANDLE] its handles' (the put's,
	 * a handle retained again), [REF_MAPPING] its memory's live mappings */
	uint64_t refs[2];
};

enum { REF_HANDLE, REF_MAPPING };

#define NBUCKET (sizeof ((struct axl__lim_map *)0)->bucket / sizeof ((struct axl__lim_map *)0)->bucket[0])

static unsigned bucket(uint64_t key, int kind)
{
	uint64_t h = (key ^ ((uint64_t)kind << 60)) * 0x9e3779b97f4a7c15ull;
	return (unsigned)(h >> 52) & (NBUCKET - 1);
}

void axl__lim_map_put(struct axl__lim_map *m, uint64_t key, int kind, int rdev, uint64_t bytes)
{
	struct axl__lim_alloc *a = malloc(sizeof *a);
	if (!a) {
		axl__lim_log(AXL__LOG_ERROR, "out of host memory: an allocation of %llu bytes stays counted",
			     (unsigned long long)bytes);
		return;
	}
	a->key = key;
	a->kind = kind;
	a->rdev = rdev;
	a->bytes = bytes;
	a->refs[REF_HANDLE] = 1;
	a->refs[REF_MAPPING] = 0;
	unsigned b = bucket(key, kind);
	pthread_mutex_lock(&m->lock);
	a->next = m->bucket[b];
	m->bucket[b] = a;
	pthread_mutex_unlock(&m->lock);
}

int axl__lim_map_take(struct axl__lim_map *m, uint64_t key, int kind, int *rdev, uint64_t *bytes)
{
	unsigned b = bucket(key, kind);
	int found = 0;
	pthread_mutex_lock(&m->lock);
	for (struct axl__lim_alloc **pp = &m->bucket[b]; *pp; pp = &(*pp)->next) {
		struct axl__lim_alloc *a = *pp;
		if (a->key == key && a->kind == kind) {
			*pp = a->next;
			*rdev = a->rdev;
			*bytes = a->bytes;
			free(a);
			found = 1;
			break;
		}
	}
	pthread_mutex_unlock(&m->lock);
	return found;
}

static int ref(struct axl__lim_map *m, uint64_t key, int kind, int cls)
{
	unsigned b = bucket(key, kind);
	int found = 0;
	pthread_mutex_lock(&m->lock);
	for (struct axl__lim_alloc *a = m->bucket[b]; a; a = a->next)
		if (a->key == key && a->kind == kind) {
			a->refs[cls]++;
			found = 1;
			break;
		}
	pthread_mutex_unlock(&m->lock);
	return found;
}

static int unref(struct axl__lim_map *m, uint64_t key, int kind, int cls, int *rdev, uint64_t *bytes)
{
	unsigned b = bucket(key, kind);
	int r = AXL__LIM_UNREF_NONE;
	pthread_mutex_lock(&m->lock);
	for (struct axl__lim_alloc **pp = &m->bucket[b]; *pp; pp = &(*pp)->next) {
		struct axl__lim_alloc *a = *pp;
		if (a->key == key && a->kind == kind) {
			if (!a->refs[cls])
				break; /* none of this class to drop */
			*rdev = a->rdev;
			*bytes = a->bytes;
			if (--a->refs[cls] || a->refs[!cls]) {
				r = AXL__LIM_UNREF_HELD;
			} else {
				*pp = a->next;
				free(a);
				r = AXL__LIM_UNREF_LAST;
			}
			break;
		}
	}
	pthread_mutex_unlock(&m->lock);
	return r;
}

int axl__lim_map_ref(struct axl__lim_map *m, uint64_t key, int kind)
{
	return ref(m, key, kind, REF_HANDLE);
}

int axl__lim_map_unref(struct axl__lim_map *m, uint64_t key, int kind, int *rdev, uint64_t *bytes)
{
	return unref(m, key, kind, REF_HANDLE, rdev, bytes);
}

int axl__lim_map_hold(struct axl__lim_map *m, uint64_t key, int kind)
{
	return ref(m, key, kind, REF_MAPPING);
}

int axl__lim_map_unhold(struct axl__lim_map *m, uint64_t key, int kind, int *rdev, uint64_t *bytes)
{
	return unref(m, key, kind, REF_MAPPING, rdev, bytes);
}

void axl__lim_map_forget(struct axl__lim_map *m)
{
	pthread_mutex_init(&m->lock, NULL);
	for (unsigned b = 0; b < NBUCKET; b++) {
		while (m->bucket[b]) {
			struct axl__lim_alloc *a = m->bucket[b];
			m->bucket[b] = a->next;
			free(a);
		}
	}
}
