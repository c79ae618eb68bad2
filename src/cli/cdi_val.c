/* SPDX-License-Identifier: MIT */
/* The value tree of axl cdi generate's specs, written as JSON or YAML (cdi_val.h). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cdi_val.h"

void *xalloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);
	if (!p) {
		fprintf(stderr, "axl: out of memory\n");
		exit(1);
	}
	return p;
}

char *xstrdup(const char *s)
{
	char *p = xalloc(strlen(s) + 1);
	memcpy(p, s, strlen(s) + 1);
	return p;
}

struct val *vnew(enum vtype t)
{
	struct val *v = xalloc(sizeof *v);
	v->t = t;
	return v;
}

struct val *vstr(const char *s)
{
	struct val *v = vnew(V_STR);
	v->s = xstrdup(s);
	return v;
}

struct val *vint(long long i)
{
	struct val *v = vnew(V_INT);
	v->i = i;
	return v;
}

/* Append child (to an array, or to an object under key); returns child. */
struct val *vadd(struct val *parent, const char *key, struct val *child)
{
	if (parent->n == parent->cap) {
		parent->cap = parent->cap ? parent->cap * 2 : 4;
		struct val **k = realloc(parent->kids, parent->cap * sizeof *k);
		if (!k) {
			fprintf(stderr, "axl: out of memory\n");
			exit(1);
		}
		parent->kids = k;
	}
	if (key)
		child->key = xstrdup(key);
	parent->kids[parent->n++] = child;
	return child;
}

struct val *vget(const struct val *obj, const char *key)
{
	for (size_t i = 0; obj && i < obj->n; i++)
		if (obj->kids[i]->key && strcmp(obj->kids[i]->key, key) == 0)
			return obj->kids[i];
	return NULL;
}

/* The member key of obj, created as type t when missing. */
struct val *vmember(struct val *obj, const char *key, enum vtype t)
{
	struct val *v = vget(obj, key);
	return v ? v : vadd(obj, key, vnew(t));
}

void vfree(struct val *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->n; i++)
		vfree(v->kids[i]);
	free(v->kids);
	free(v->key);
	free(v->s);
	free(v);
}

/* ---- JSON and YAML -------------------------------------------------------------- */

/* The JSON: the tree through util's writer, indented. */
static void json_val(struct axl__json *w, const struct val *v)
{
	switch (v->t) {
	case V_STR: axl__json_str(w, v->s); return;
	case V_INT: axl__json_int(w, v->i); return;
	case V_OBJ:
		axl__json_obj(w);
		for (size_t i = 0; i < v->n; i++) {
			axl__json_key(w, v->kids[i]->key);
			json_val(w, v->kids[i]);
		}
		axl__json_obj_end(w);
		return;
	case V_ARR:
		axl__json_arr(w);
		for (size_t i = 0; i < v->n; i++)
			json_val(w, v->kids[i]);
		axl__json_arr_end(w);
		return;
	}
}

/* A YAML double-quoted scalar holding s: the JSON writer's escaping (\", \\, \n, \t, \r,
 * \uXXXX, invalid UTF-8 as U+FFFD) is valid there too, so the YAML and the JSON spec hold
 * the same strings. */
static void put_quoted(FILE *f, const char *s)
{
	struct axl__sb sb = AXL__SB_INIT;
	axl__sb_putc(&sb, '"');
	axl__json_escape(&sb, s, strlen(s));
	axl__sb_putc(&sb, '"');
	if (sb.failed) {
		fprintf(stderr, "axl: out of memory\n");
		exit(1);
	}
	fwrite(sb.buf, 1, sb.len, f);
	axl__sb_free(&sb);
}

static bool plain_key(const char *k)
{
	if (!*k)
		return false;
	for (const char *p = k; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_'))
			return false;
	return true;
}

static void yaml_scalar(FILE *f, const struct val *v)
{
	if (v->t == V_STR)
		put_quoted(f, v->s);
	else if (v->t == V_INT)
		fprintf(f, "%lld", v->i);
	else
		fputs(v->t == V_OBJ ? "{}" : "[]", f);
}

static bool yaml_inline(const struct val *v)
{
	return v->t == V_STR || v->t == V_INT || v->n == 0;
}

/* Block-style YAML: the members of an object (or items of an array) at indent ind.
 * first_inline: the first line continues a "- " already written. */
static void yaml_block(FILE *f, const struct val *v, int ind, bool first_inline)
{
	for (size_t i = 0; i < v->n; i++) {
		const struct val *c = v->kids[i];
		if (!(i == 0 && first_inline))
			fprintf(f, "%*s", ind, "");
		if (v->t == V_OBJ) {
			if (plain_key(c->key))
				fputs(c->key, f);
			else
				put_quoted(f, c->key);
			fputc(':', f);
			if (yaml_inline(c)) {
				fputc(' ', f);
				yaml_scalar(f, c);
				fputc('\n', f);
			} else {
				fputc('\n', f);
				/* a sequence under a key goes at the key's indent, a map 2 deeper */
				yaml_block(f, c, c->t == V_ARR ? ind : ind + 2, false);
			}
		} else {
			fputs("- ", f);
			if (yaml_inline(c)) {
				yaml_scalar(f, c);
				fputc('\n', f);
			} else if (c->t == V_OBJ) {
				yaml_block(f, c, ind + 2, true);
			} else {
				fputc('\n', f);
				yaml_block(f, c, ind + 2, false);
			}
		}
	}
}

void write_spec(FILE *f, const struct val *spec, bool yaml)
{
	if (yaml) {
		yaml_block(f, spec, 0, false);
		return;
	}
	struct axl__sb sb = AXL__SB_INIT;
	struct axl__json w;
	axl__json_init(&w, &sb, true); /* the indented writer ends the document with a newline */
	json_val(&w, spec);
	if (sb.failed) {
		fprintf(stderr, "axl: out of memory\n");
		exit(1);
	}
	fwrite(sb.buf, 1, sb.len, f);
	axl__sb_free(&sb);
}
