/* SPDX-License-Identifier: MIT */
/* Buffer, queue and event handles: numbers that index a table, checked on every use
 * (compute_impl.h has the layout), so that no handle a caller holds can make the library
 * touch freed memory. */
#include <stdatomic.h>
#include <stdlib.h>

#include "compute_impl.h"

#define IDX_BITS  24
#define GEN_BITS  20
#define KIND_BITS 4
#define IDX_MAX   ((1u << IDX_BITS) - 1)
#define GEN_MASK  ((1u << GEN_BITS) - 1)

/* Contexts get tags in turn, so a handle of one context is refused by the next ones
 * (until 65535 more have been opened, when a match still needs index and generation). */
static atomic_uint next_tag = 1;

static uint64_t make(const struct axl__htable *t, int kind, uint32_t gen, uint32_t idx)
{
	return (uint64_t)t->tag << 48 | (uint64_t)kind << 44 | (uint64_t)gen << IDX_BITS | idx;
}

/* The slot h names, NULL when none (the lock held). */
static struct axl__hslot *find(struct axl__htable *t, uint64_t h, int kind)
{
	if ((uint16_t)(h >> 48) != t->tag || (int)(h >> 44 & ((1u << KIND_BITS) - 1)) != kind)
		return NULL;
	uint32_t idx = (uint32_t)(h & IDX_MAX), gen = (uint32_t)(h >> IDX_BITS & GEN_MASK);
	if (idx >= t->n)
		return NULL;
	struct axl__hslot *s = &t->slots[idx];
	if (s->kind != kind || s->gen != gen || s->dead)
		return NULL;
	return s;
}

int axl__htable_init(struct axl__htable *t)
{
	*t = (struct axl__htable){ 0 };
	unsigned tag;
	do
		tag = atomic_fetch_add(&next_tag, 1) & 0xffffu;
	while (!tag); /* 0 is never a handle */
	t->tag = (uint16_t)tag;
	if (pthread_mutex_init(&t->lock, NULL))
		return AXL_ENOMEM;
	if (pthread_cond_init(&t->released, NULL)) {
		pthread_mutex_destroy(&t->lock);
		return AXL_ENOMEM;
	}
	return 0;
}

void axl__htable_fini(struct axl__htable *t)
{
	free(t->slots);
	pthread_cond_destroy(&t->released);
	pthread_mutex_destroy(&t->lock);
}

int axl__handle_new(struct axl__htable *t, int kind, void *obj, uint64_t *out)
{
	pthread_mutex_lock(&t->lock);
	uint32_t idx;
	if (t->free_head) {
		idx = t->free_head - 1;
		t->free_head = t->slots[idx].next_free;
	} else {
		if (t->n == t->cap) {
			uint32_t cap = t->cap ? t->cap * 2 : 64;
			if (cap > IDX_MAX + 1u)
				cap = IDX_MAX + 1u;
			struct axl__hslot *s = cap > t->cap ? realloc(t->slots, cap * sizeof *s) : NULL;
			if (!s) {
				pthread_mutex_unlock(&t->lock);
				return axl__error(AXL_ENOMEM, "compute: no room for another handle (%zu in use)",
						  t->live);
			}
			t->slots = s;
			t->cap = cap;
		}
		idx = t->n++;
		t->slots[idx] = (struct axl__hslot){ .gen = 0 };
	}
	struct axl__hslot *s = &t->slots[idx];
	/* generation 0 is skipped: together with kind != 0 no handle is 0 */
	s->gen = (s->gen + 1) & GEN_MASK;
	if (!s->gen)
		s->gen = 1;
	s->obj = obj;
	s->kind = (uint8_t)kind;
	s->dead = false;
	s->refs = 0;
	s->next_free = 0;
	t->live++;
	*out = make(t, kind, s->gen, idx);
	pthread_mutex_unlock(&t->lock);
	return 0;
}

void *axl__handle_get(struct axl__htable *t, uint64_t h, int kind)
{
	pthread_mutex_lock(&t->lock);
	struct axl__hslot *s = find(t, h, kind);
	void *obj = NULL;
	if (s) {
		s->refs++;
		obj = s->obj;
	}
	pthread_mutex_unlock(&t->lock);
	return obj;
}

void axl__handle_put(struct axl__htable *t, uint64_t h)
{
	pthread_mutex_lock(&t->lock);
	uint32_t idx = (uint32_t)(h & IDX_MAX);
	/* the caller holds a reference, so the slot is this handle's, dead or not */
	if (idx < t->n && t->slots[idx].refs && --t->slots[idx].refs == 0 && t->slots[idx].dead)
		pthread_cond_broadcast(&t->released);
	pthread_mutex_unlock(&t->lock);
}

/* Wait for the slot's users, then put it on the free list (the lock held). */
static void *release(struct axl__htable *t, uint32_t idx)
{
	t->slots[idx].dead = true;
	/* the table may grow (move) while we wait: index it afresh each time */
	while (t->slots[idx].refs)
		pthread_cond_wait(&t->released, &t->lock);
	struct axl__hslot *s = &t->slots[idx];
	void *obj = s->obj;
	s->obj = NULL;
	s->kind = 0;
	s->dead = false;
	s->next_free = t->free_head;
	t->free_head = idx + 1;
	t->live--;
	return obj;
}

void *axl__handle_retire(struct axl__htable *t, uint64_t h, int kind)
{
	pthread_mutex_lock(&t->lock);
	struct axl__hslot *s = find(t, h, kind);
	void *obj = s ? release(t, (uint32_t)(h & IDX_MAX)) : NULL;
	pthread_mutex_unlock(&t->lock);
	return obj;
}

void *axl__handle_take_next(struct axl__htable *t, int kind, uint32_t *cursor)
{
	pthread_mutex_lock(&t->lock);
	void *obj = NULL;
	for (; *cursor < t->n && !obj; ++*cursor) {
		struct axl__hslot *s = &t->slots[*cursor];
		if (s->kind == kind && !s->dead)
			obj = release(t, *cursor);
	}
	pthread_mutex_unlock(&t->lock);
	return obj;
}

void *axl__handle_get_next(struct axl__htable *t, int kind, uint32_t *cursor, uint64_t *h)
{
	pthread_mutex_lock(&t->lock);
	void *obj = NULL;
	for (; *cursor < t->n && !obj; ++*cursor) {
		struct axl__hslot *s = &t->slots[*cursor];
		if (s->kind == kind && !s->dead) {
			s->refs++;
			obj = s->obj;
			*h = make(t, kind, s->gen, *cursor);
		}
	}
	pthread_mutex_unlock(&t->lock);
	return obj;
}
