/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct axl__arena_chunk {
	struct axl__arena_chunk *next;
	size_t used, cap;
	max_align_t data[];
};

#define CHUNK_DEFAULT (16u * 1024u)

void *axl__arena_alloc(struct axl__arena *a, size_t size)
{
	size = (size + 15u) & ~(size_t)15u;
	if (size == 0)
		size = 16;
	struct axl__arena_chunk *c = a->head;
	if (!c || c->cap - c->used < size) {
		size_t cap = size > CHUNK_DEFAULT ? size : CHUNK_DEFAULT;
		c = malloc(sizeof *c + cap);
		if (!c) {
			a->failed = true;
			return NULL;
		}
		c->used = 0;
		c->cap = cap;
		c->next = a->head;
		a->head = c;
	}
	void *p = (char *)c->data + c->used;
	c->used += size;
	memset(p, 0, size);
	return p;
}

char *axl__arena_strndup(struct axl__arena *a, const char *s, size_t n)
{
	char *p = axl__arena_alloc(a, n + 1);
	if (!p)
		return NULL;
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *axl__arena_strdup(struct axl__arena *a, const char *s)
{
	return s ? axl__arena_strndup(a, s, strlen(s)) : NULL;
}

char *axl__arena_printf(struct axl__arena *a, const char *fmt, ...)
{
	char tmp[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	if ((size_t)n < sizeof tmp)
		return axl__arena_strndup(a, tmp, (size_t)n);
	char *p = axl__arena_alloc(a, (size_t)n + 1);
	if (!p)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

void axl__arena_free(struct axl__arena *a)
{
	struct axl__arena_chunk *c = a->head;
	while (c) {
		struct axl__arena_chunk *next = c->next;
		free(c);
		c = next;
	}
	a->head = NULL;
	a->failed = false;
}

void *axl__vec_push_raw(void **v, size_t *n, size_t *cap, size_t elem)
{
	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 8;
		void *p = realloc(*v, ncap * elem);
		if (!p)
			return NULL;
		*v = p;
		*cap = ncap;
	}
	void *slot = (char *)*v + (*n) * elem;
	memset(slot, 0, elem);
	(*n)++;
	return slot;
}
