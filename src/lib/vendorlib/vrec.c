/* SPDX-License-Identifier: MIT */
/* Vendor-library answers, recorded into a capture and replayed from one (vrec.h). */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vrec.h"
#include "capture.h"

struct axl__vrec_entry {
	char key[96];
	const struct axl__jv *v;
};

static void make_key(char *key, size_t cap, const char *f, const char *d, const char *e,
		     const unsigned *args, int nargs)
{
	int n = snprintf(key, cap, "%s|%s|%s|", f, d ? d : "", e ? e : "");
	for (int i = 0; i < nargs && n > 0 && (size_t)n < cap; i++)
		n += snprintf(key + n, cap - (size_t)n, "%u,", args[i]);
}

static int cmp_rec(const void *a, const void *b)
{
	return strcmp(((const struct axl__vrec_entry *)a)->key, ((const struct axl__vrec_entry *)b)->key);
}

bool axl__vrec_replay_open(struct axl__vrec *q, const char *text, size_t len, char *why, size_t cap)
{
	/* the lines become one array for the parser: [line,line,...] */
	struct axl__sb sb = AXL__SB_INIT;
	axl__sb_putc(&sb, '[');
	size_t lines = 0;
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		const char *s = p;
		while (s < e && (*s == ' ' || *s == '\t' || *s == '\r'))
			s++;
		if (s < e) {
			if (lines++)
				axl__sb_putc(&sb, ',');
			axl__sb_put(&sb, s, (size_t)(e - s));
		}
		p = nl ? nl + 1 : end;
	}
	axl__sb_putc(&sb, ']');
	size_t n;
	char *all = axl__sb_steal(&sb, &n);
	if (!all) {
		snprintf(why, cap, "out of memory");
		return false;
	}
	char err[128];
	int rc = axl__jdoc_parse(all, n, &q->doc, err, sizeof err);
	free(all);
	if (rc != 0) {
		snprintf(why, cap, "bad record: %s", err);
		return false;
	}
	const struct axl__jv *root = axl__jdoc_root(q->doc);
	q->recs = calloc(root->len ? root->len : 1, sizeof *q->recs);
	if (!q->recs) {
		snprintf(why, cap, "out of memory");
		return false;
	}
	for (size_t i = 0; i < root->len; i++) {
		const struct axl__jv *r = &root->items[i];
		const char *f = axl__jv_str(r, "f");
		int64_t ret;
		if (!f || !axl__jv_int(r, "r", &ret)) {
			snprintf(why, cap, "record %zu has no \"f\" or \"r\"", i + 1);
			return false;
		}
		unsigned args[4];
		int na = 0;
		const struct axl__jv *a = axl__jv_get(r, "a");
		if (a && a->type == AXL__J_ARR) {
			for (size_t k = 0; k < a->len && k < 4; k++) {
				if (a->items[k].type != AXL__J_NUM || !a->items[k].is_int || a->items[k].i < 0 ||
				    a->items[k].i > 0xffffffffll) {
					snprintf(why, cap, "record %zu: bad argument", i + 1);
					return false;
				}
				args[na++] = (unsigned)a->items[k].i;
			}
		}
		make_key(q->recs[q->nrecs].key, sizeof q->recs[q->nrecs].key, f, axl__jv_str(r, "d"),
			 axl__jv_str(r, "e"), args, na);
		q->recs[q->nrecs++].v = r;
	}
	qsort(q->recs, q->nrecs, sizeof *q->recs, cmp_rec);
	q->mode = AXL__VREC_REPLAY;
	return true;
}

void axl__vrec_fini(struct axl__vrec *q)
{
	axl__sb_free(&q->rec);
	axl__jdoc_free(q->doc);
	free(q->recs);
	q->doc = NULL;
	q->recs = NULL;
}

const struct axl__jv *axl__vrec_find(const struct axl__vrec *q, const char *f, const char *d, const char *e,
				     const unsigned *args, int nargs, int missing, int *r)
{
	struct axl__vrec_entry key;
	make_key(key.key, sizeof key.key, f, d, e, args, nargs);
	const struct axl__vrec_entry *hit = bsearch(&key, q->recs, q->nrecs, sizeof *q->recs, cmp_rec);
	if (!hit) {
		*r = missing;
		return NULL;
	}
	int64_t ret = missing;
	axl__jv_int(hit->v, "r", &ret);
	*r = (int)ret;
	return axl__jv_get(hit->v, "o");
}

void axl__vrec_begin(struct axl__vrec *q, struct axl__json *w, const char *f, const char *d, const char *e,
		     const unsigned *args, int nargs, int r)
{
	axl__json_init(w, &q->rec, false);
	axl__json_obj(w);
	axl__json_kstr(w, "f", f);
	if (d)
		axl__json_kstr(w, "d", d);
	if (e)
		axl__json_kstr(w, "e", e);
	if (nargs) {
		axl__json_key(w, "a");
		axl__json_arr(w);
		for (int i = 0; i < nargs; i++)
			axl__json_int(w, args[i]);
		axl__json_arr_end(w);
	}
	axl__json_kint(w, "r", r);
}

void axl__vrec_end(struct axl__vrec *q, struct axl__json *w)
{
	axl__json_obj_end(w);
	axl__sb_putc(&q->rec, '\n');
}

/* ---- struct fields, for records ------------------------------------------------------ */


void axl__vrec_put_fields(struct axl__json *w, const struct axl__vfield *fs, const void *p)
{
	axl__json_obj(w);
	for (const struct axl__vfield *f = fs; f->name[0]; f++) {
		const char *at = (const char *)p + f->off;
		switch (f->type) {
		case AXL__VF_U32: {
			unsigned v;
			memcpy(&v, at, sizeof v);
			axl__json_kint(w, f->name, v);
			break;
		}
		case AXL__VF_U64: {
			unsigned long long v;
			memcpy(&v, at, sizeof v);
			/* JSON integers above 2^63 would not come back: written as they are,
			 * read back clamped (nonsense either way) */
			axl__json_kint(w, f->name, v > INT64_MAX ? INT64_MAX : (int64_t)v);
			break;
		}
		case AXL__VF_U8:
			axl__json_kint(w, f->name, (unsigned char)at[0]);
			break;
		case AXL__VF_I32: {
			int32_t v;
			memcpy(&v, at, sizeof v);
			axl__json_kint(w, f->name, v);
			break;
		}
		case AXL__VF_I64: {
			int64_t v;
			memcpy(&v, at, sizeof v);
			axl__json_kint(w, f->name, v);
			break;
		}
		case AXL__VF_F64: {
			double v;
			memcpy(&v, at, sizeof v);
			axl__json_knum(w, f->name, v); /* not finite: null */
			break;
		}
		case AXL__VF_BYTES: {
			char hex[2 * 64 + 1];
			size_t n = f->size < 64 ? f->size : 64;
			for (size_t i = 0; i < n; i++)
				snprintf(hex + 2 * i, 3, "%02x", (unsigned char)at[i]);
			hex[2 * n] = '\0';
			axl__json_kstr(w, f->name, hex);
			break;
		}
		default:
			axl__json_kstr(w, f->name, at[0] ? at : "");
			/* the writer stops at NUL; the field is terminated on the way in */
			break;
		}
	}
	axl__json_obj_end(w);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

void axl__vrec_get_fields(const struct axl__jv *o, const struct axl__vfield *fs, void *p)
{
	for (const struct axl__vfield *f = fs; f->name[0]; f++) {
		char *at = (char *)p + f->off;
		if (f->type == AXL__VF_STR) {
			const char *s = axl__jv_str(o, f->name);
			snprintf(at, f->size, "%s", s ? s : "");
			continue;
		}
		if (f->type == AXL__VF_BYTES) {
			const char *s = axl__jv_str(o, f->name);
			memset(at, 0, f->size);
			for (size_t i = 0; s && i < f->size; i++) {
				int hi = hexval(s[2 * i]), lo = hi < 0 ? -1 : hexval(s[2 * i + 1]);
				if (hi < 0 || lo < 0)
					break;
				at[i] = (char)(hi << 4 | lo);
			}
			continue;
		}
		if (f->type == AXL__VF_F64) {
			double v = NAN;
			const struct axl__jv *j = axl__jv_get(o, f->name);
			if (j && j->type == AXL__J_NUM)
				v = j->num;
			memcpy(at, &v, sizeof v);
			continue;
		}
		int64_t v = 0;
		axl__jv_int(o, f->name, &v);
		if (f->type == AXL__VF_U32 || f->type == AXL__VF_I32) {
			uint32_t u = (uint32_t)v;
			memcpy(at, &u, sizeof u);
		} else if (f->type == AXL__VF_U8) {
			at[0] = (char)(unsigned char)v;
		} else {
			uint64_t u = (uint64_t)v;
			memcpy(at, &u, sizeof u);
		}
	}
}

/* NVML may fill a string field to its end without a terminator (a buggy driver):
 * terminate every string field of a struct the library wrote. */
void axl__vrec_terminate(const struct axl__vfield *fs, void *p)
{
	for (const struct axl__vfield *f = fs; f->name[0]; f++)
		if (f->type == AXL__VF_STR)
			((char *)p + f->off)[f->size - 1] = '\0';
}


void axl__vrec_flush(struct axl__vrec *q, axl_context *ctx, const char *lib)
{
	if (q->mode != AXL__VREC_RECORD)
		return;
	const char *p = axl__sb_str(&q->rec);
	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char *line = strndup(p, len);
		if (line)
			axl__capture_vendor(ctx, lib, line);
		free(line);
		p += len + (nl ? 1 : 0);
	}
}
