/* SPDX-License-Identifier: MIT */
/* The device plugin's answers, what they share (answer.h), and the simplest of them:
 * ListAndWatch's list of a resource's devices. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "answer.h"

/* ---- a pool: everything one answer hands out, freed at once (kp_release) ----------- */

struct pool {
	struct pool *next;
	max_align_t data[];
};

void *kp_pmalloc(struct pool **p, size_t n)
{
	struct pool *b = malloc(sizeof *b + (n ? n : 1));
	if (!b)
		return NULL;
	b->next = *p;
	*p = b;
	return b->data;
}

char *kp_pstrdup(struct pool **p, const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = kp_pmalloc(p, n);
	if (d)
		memcpy(d, s, n);
	return d;
}

void kp_release(void *owner)
{
	struct pool *p = owner;
	while (p) {
		struct pool *n = p->next;
		free(p);
		p = n;
	}
}

/* ---- answers --------------------------------------------------------------------- */

int kp_list(const struct kp_resource *r, const struct k8s_device **devs, size_t *n, void **owner)
{
	struct pool *p = NULL;
	struct k8s_device *out = kp_pmalloc(&p, (r->n ? r->n : 1) * sizeof *out);
	if (!out) {
		kp_release(p);
		return -1;
	}
	for (size_t i = 0; i < r->n; i++)
		out[i] = (struct k8s_device){r->devs[i].id, r->devs[i].healthy, r->devs[i].numa};
	*devs = out;
	*n = r->n;
	*owner = p;
	return 0;
}

const struct kp_dev *kp_dev_of(const struct kp_resource *r, const char *id)
{
	for (size_t i = 0; id && i < r->n; i++)
		if (strcmp(r->devs[i].id, id) == 0)
			return &r->devs[i];
	return NULL;
}

int kp_refuse(int *code, int c, char *err, size_t cap, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, cap, fmt, ap);
	va_end(ap);
	*code = c;
	return -1;
}
