/* SPDX-License-Identifier: MIT */
/* One vendor-library call, live, recorded or replayed (vcall.h). */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vcall.h"
#include "util/json.h"

void axl__vq_put_u64(struct axl__json *w, uint64_t v, bool hex)
{
	if (!hex && v <= INT64_MAX) {
		axl__json_int(w, (int64_t)v);
		return;
	}
	char s[24];
	snprintf(s, sizeof s, "0x%" PRIx64, v);
	axl__json_str(w, s);
}

uint64_t axl__vq_get_u64(const struct axl__jv *o)
{
	if (!o)
		return 0;
	if (o->type == AXL__J_NUM && o->is_int && o->i >= 0)
		return (uint64_t)o->i;
	if (o->type == AXL__J_STR && o->s[0] == '0' && (o->s[1] == 'x' || o->s[1] == 'X')) {
		char *end;
		unsigned long long v = strtoull(o->s + 2, &end, 16);
		if (end != o->s + 2 && !*end)
			return v;
	}
	return 0;
}

static unsigned get_uint(const struct axl__jv *o)
{
	return o && o->type == AXL__J_NUM && o->is_int ? (unsigned)o->i : 0;
}

static const struct axl__jv *pair(const struct axl__jv *o)
{
	return o && o->type == AXL__J_ARR && o->len == 2 ? o->items : NULL;
}

/* Replaying: out from the recorded output o (NULL: none recorded). */
static void get(const struct axl__vout *vo, const struct axl__jv *o, void *out)
{
	const struct axl__jv *p = pair(o);
	switch (vo->kind) {
	case AXL__VO_NONE: break;
	case AXL__VO_STR:
		if (vo->size)
			snprintf(out, vo->size, "%s", o && o->type == AXL__J_STR ? o->s : "");
		break;
	case AXL__VO_INT: *(int *)out = o && o->type == AXL__J_NUM && o->is_int ? (int)o->i : 0; break;
	case AXL__VO_UINT: *(unsigned *)out = get_uint(o); break;
	case AXL__VO_UINT2: {
		unsigned *u = out;
		u[0] = p ? get_uint(&p[0]) : 0;
		u[1] = p ? get_uint(&p[1]) : 0;
		break;
	}
	case AXL__VO_INT2: {
		int *v = out;
		bool ok = p && p[0].is_int && p[1].is_int;
		v[0] = ok ? (int)p[0].i : -1;
		v[1] = ok ? (int)p[1].i : -1;
		break;
	}
	case AXL__VO_ULL:
		*(unsigned long long *)out =
		    o && o->type == AXL__J_NUM && o->is_int && o->i >= 0 ? (unsigned long long)o->i : 0;
		break;
	case AXL__VO_U64:
	case AXL__VO_U64HEX: *(uint64_t *)out = axl__vq_get_u64(o); break;
	case AXL__VO_U64X2: {
		uint64_t *u = out;
		u[0] = p ? axl__vq_get_u64(&p[0]) : 0;
		u[1] = p ? axl__vq_get_u64(&p[1]) : 0;
		break;
	}
	case AXL__VO_FIELDS:
		memset(out, 0, vo->size);
		if (o && o->type == AXL__J_OBJ)
			axl__vrec_get_fields(o, vo->fields, out);
		break;
	case AXL__VO_CUSTOM: vo->get(o, out); break;
	}
}

/* Recording: out as "o"'s value. */
static void put(const struct axl__vout *vo, struct axl__json *w, const void *out)
{
	switch (vo->kind) {
	case AXL__VO_NONE: return;
	case AXL__VO_STR: axl__json_kstr(w, "o", out); return;
	case AXL__VO_INT: axl__json_kint(w, "o", *(const int *)out); return;
	case AXL__VO_UINT: axl__json_kint(w, "o", *(const unsigned *)out); return;
	case AXL__VO_ULL: {
		unsigned long long v = *(const unsigned long long *)out;
		axl__json_kint(w, "o", v > INT64_MAX ? INT64_MAX : (int64_t)v);
		return;
	}
	default: break;
	}
	axl__json_key(w, "o");
	switch (vo->kind) {
	case AXL__VO_UINT2:
	case AXL__VO_INT2:
		axl__json_arr(w);
		for (int i = 0; i < 2; i++)
			axl__json_int(w, vo->kind == AXL__VO_INT2 ? (int64_t)((const int *)out)[i]
								  : (int64_t)((const unsigned *)out)[i]);
		axl__json_arr_end(w);
		break;
	case AXL__VO_U64:
	case AXL__VO_U64HEX: axl__vq_put_u64(w, *(const uint64_t *)out, vo->kind == AXL__VO_U64HEX); break;
	case AXL__VO_U64X2:
		axl__json_arr(w);
		axl__vq_put_u64(w, ((const uint64_t *)out)[0], false);
		axl__vq_put_u64(w, ((const uint64_t *)out)[1], false);
		axl__json_arr_end(w);
		break;
	case AXL__VO_FIELDS: axl__vrec_put_fields(w, vo->fields, out); break;
	case AXL__VO_CUSTOM: vo->put(w, out); break;
	default: break;
	}
}

int axl__vq_answer(struct axl__vq *q, const struct axl__vkey *k, const struct axl__vout *o, void *out, int live)
{
	q->calls++;
	if (axl__vq_replaying(q)) {
		int r;
		get(o, axl__vrec_find(&q->v, k->f, k->d, k->e, k->args, k->nargs, q->missing, &r), out);
		return r;
	}
	/* a library may fill a buffer without its terminator */
	if (o->kind == AXL__VO_STR && o->size)
		((char *)out)[o->size - 1] = '\0';
	else if (o->kind == AXL__VO_FIELDS)
		axl__vrec_terminate(o->fields, out);
	if (q->v.mode == AXL__VREC_RECORD) {
		struct axl__json w;
		axl__vrec_begin(&q->v, &w, k->f, k->d, k->e, k->args, k->nargs, live);
		if (live == 0)
			put(o, &w, out);
		axl__vrec_end(&q->v, &w);
	}
	return live;
}

int axl__vq_init(struct axl__vq *q, struct axl__vlib_cache *c, int which, const char *f, int absent,
		 int (*init)(const void *lib))
{
	static const struct axl__vout none = { AXL__VO_NONE, 0, NULL, NULL, NULL };
	const struct axl__vkey k = { f, NULL, NULL, NULL, 0 };
	if (axl__vq_replaying(q)) {
		int r;
		if (!axl__vrec_find(&q->v, f, NULL, NULL, NULL, 0, q->missing, &r) && r == q->missing) {
			q->calls++;
			return absent; /* a capture without this library's answers */
		}
		return axl__vq_answer(q, &k, &none, NULL, 0);
	}
	/* an init may hang: called outside the cache's lock */
	int r = axl__vlib_flag(c, q->lib, which) ? 0 : init(q->lib);
	if (r == 0)
		axl__vlib_set_flag(c, q->lib, which);
	return axl__vq_answer(q, &k, &none, NULL, r);
}

const char *axl__vq_hid(const struct axl__vq *q, const void *h)
{
	for (size_t i = 0; i < q->nhandles; i++)
		if (q->handles[i].h == h)
			return q->handles[i].id;
	return "?";
}

void *axl__vq_handle(struct axl__vq *q, void *h, const char *id)
{
	for (size_t i = 0; i < q->nhandles; i++)
		if (strcmp(q->handles[i].id, id) == 0)
			return q->handles[i].h;
	size_t max = q->max_handles && q->max_handles < AXL__VQ_MAX_HANDLES ? q->max_handles : AXL__VQ_MAX_HANDLES;
	if (q->nhandles >= max)
		return NULL;
	size_t i = q->nhandles++;
	if (axl__vq_replaying(q))
		h = &q->handles[i];
	q->handles[i].h = h;
	snprintf(q->handles[i].id, sizeof q->handles[i].id, "%s", id);
	return h;
}
