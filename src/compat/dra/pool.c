/* SPDX-License-Identifier: MIT */
/* A pool's content cut into ResourceSlices, compared as canonical JSON (pool.h). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "pool.h"

static const char *const *sort_keys_base;
static int key_cmp(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	return strcmp(sort_keys_base[i], sort_keys_base[j]);
}

void dra_canon(struct axl__json *w, const struct axl__jv *v)
{
	switch (v->type) {
	case AXL__J_NULL: axl__json_null(w); break;
	case AXL__J_BOOL: axl__json_bool(w, v->b); break;
	case AXL__J_NUM:
		if (v->is_int)
			axl__json_int(w, v->i);
		else
			axl__json_num(w, v->num);
		break;
	case AXL__J_STR: axl__json_strn(w, v->s, v->len); break;
	case AXL__J_ARR:
		axl__json_arr(w);
		for (size_t i = 0; i < v->len; i++)
			dra_canon(w, &v->items[i]);
		axl__json_arr_end(w);
		break;
	case AXL__J_OBJ: {
		size_t *ix = malloc((v->len ? v->len : 1) * sizeof *ix);
		if (!ix) {
			w->sb->failed = true;
			return;
		}
		for (size_t i = 0; i < v->len; i++)
			ix[i] = i;
		sort_keys_base = v->keys; /* the publisher's thread only */
		qsort(ix, v->len, sizeof *ix, key_cmp);
		axl__json_obj(w);
		for (size_t i = 0; i < v->len; i++) {
			axl__json_key(w, v->keys[ix[i]]);
			dra_canon(w, &v->items[ix[i]]);
		}
		axl__json_obj_end(w);
		free(ix);
		break;
	}
	}
}

static char *finish(struct axl__sb *sb, struct axl__json *w)
{
	if (w->overflow)
		sb->failed = true;
	return axl__sb_steal(sb, NULL);
}

char *dra_canon_str(const struct axl__jv *v)
{
	struct axl__sb sb = AXL__SB_INIT;
	struct axl__json w;
	axl__json_init(&w, &sb, false);
	dra_canon(&w, v);
	return finish(&sb, &w);
}

/* {"devices": devs} or {"sharedCounters": sets}, keys in order, either NULL or empty left out */
static char *content(const struct axl__jv *devs, const struct axl__jv *sets)
{
	struct axl__sb sb = AXL__SB_INIT;
	struct axl__json w;
	axl__json_init(&w, &sb, false);
	axl__json_obj(&w);
	if (devs && devs->type == AXL__J_ARR && devs->len) {
		axl__json_key(&w, "devices");
		dra_canon(&w, devs);
	}
	if (sets && sets->type == AXL__J_ARR && sets->len) {
		axl__json_key(&w, "sharedCounters");
		dra_canon(&w, sets);
	}
	axl__json_obj_end(&w);
	return finish(&sb, &w);
}

char *dra_spec_canon(const struct axl__jv *spec)
{
	return content(axl__jv_get(spec, "devices"), axl__jv_get(spec, "sharedCounters"));
}

bool dra_canon_has_counters(const char *canon)
{
	struct axl__jdoc *doc = NULL;
	char err[64];
	if (!canon || axl__jdoc_parse(canon, strlen(canon), &doc, err, sizeof err) != 0)
		return false;
	const struct axl__jv *root = axl__jdoc_root(doc), *sets = axl__jv_get(root, "sharedCounters"),
			     *devs = axl__jv_get(root, "devices");
	bool has = sets && sets->type == AXL__J_ARR && sets->len;
	for (size_t i = 0; !has && devs && devs->type == AXL__J_ARR && i < devs->len; i++) {
		const struct axl__jv *cc = axl__jv_get(&devs->items[i], "consumesCounters");
		has = cc && cc->type == AXL__J_ARR && cc->len;
	}
	axl__jdoc_free(doc);
	return has;
}

int dra_pool_chunks(const char *want, bool whole, char ***chunks, size_t *n, bool *has_whole, char *err, size_t cap)
{
	*chunks = NULL;
	*n = 0;
	*has_whole = false;
	struct axl__jdoc *doc = NULL;
	if (axl__jdoc_parse(want, strlen(want), &doc, err, cap) != 0)
		return -1;
	const struct axl__jv *root = axl__jdoc_root(doc), *a = root, *sets = NULL;
	if (root->type == AXL__J_OBJ) {
		const struct axl__jv *w = axl__jv_get(root, "whole");
		*has_whole = w && w->type == AXL__J_ARR;
		a = *has_whole && whole ? w : axl__jv_get(root, "devices");
		sets = *has_whole && whole ? NULL : axl__jv_get(root, "sharedCounters");
	}
	if (!a || a->type != AXL__J_ARR || (sets && sets->type != AXL__J_ARR)) {
		snprintf(err, cap, "the devices are not a JSON array");
		axl__jdoc_free(doc);
		return -1;
	}
	size_t per = DRA_MAX_DEVICES;
	for (size_t i = 0; i < a->len; i++) {
		const struct axl__jv *t = axl__jv_get(&a->items[i], "taints"),
				     *cc = axl__jv_get(&a->items[i], "consumesCounters");
		if ((t && t->len) || (cc && cc->len))
			per = DRA_MAX_DEVICES_TAINTED;
	}
	size_t nsets = sets ? sets->len : 0, ns = (nsets + DRA_MAX_COUNTER_SETS - 1) / DRA_MAX_COUNTER_SETS,
	       nd = (a->len + per - 1) / per;
	char **ch = calloc(ns + nd ? ns + nd : 1, sizeof *ch);
	int rc = ch ? 0 : -1;
	for (size_t k = 0; k < ns + nd && rc == 0; k++) {
		struct axl__jv part = k < ns ? *sets : *a; /* a view of some of the items */
		size_t from = k < ns ? k * DRA_MAX_COUNTER_SETS : (k - ns) * per,
		       most = k < ns ? DRA_MAX_COUNTER_SETS : per;
		part.items += from;
		part.len = part.len - from < most ? part.len - from : most;
		if (!(ch[k] = k < ns ? content(NULL, &part) : content(&part, NULL)))
			rc = -1;
	}
	axl__jdoc_free(doc);
	if (rc != 0) {
		for (size_t k = 0; ch && k < ns + nd; k++)
			free(ch[k]);
		free(ch);
		snprintf(err, cap, "out of memory");
		return -1;
	}
	*chunks = ch;
	*n = ns + nd;
	return 0;
}
