/* SPDX-License-Identifier: MIT */
/*
 * What `axl dra-plugin` prepared, in its checkpoint (prepare.h): one JSON document in
 * axl's state directory, replaced whole and atomically (util/file.h: a temporary file
 * fsync'd, renamed over the old one, the directory fsync'd), before the kubelet is told
 * a claim is prepared or unprepared. A process killed at any moment leaves the old or the
 * new file, so a restart finds every claim it answered for and prepares none twice (the
 * kubeletplugin helper leaves this to drivers; kubernetes-sigs/dra-example-driver keeps
 * the same record in a checkpoint file of the kubelet's checkpointmanager).
 *
 *   {"schema": "axl.dra.checkpoint", "schema_version": 1, "driver": "...",
 *    "claims": [{"uid", "namespace", "name",
 *                "devices": [{"requests": [...], "pool", "device", "cdi": [...], "admin",
 *                             "share" (a shared device's shareID, when it has one)}]}]}
 */
#define _GNU_SOURCE
#include "prepare.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/file.h"
#include "../../util/json.h"
#include "../../util/jsonr.h"
#include "../../util/strbuf.h"

static void strv_free(char **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

/* here, not in prepare.c, so that prepare.c uses this file and not the other way round
 * (layers.roles: no circle between files) */
void dra_prepared_clear(struct dra_prepared *c)
{
	for (size_t i = 0; c->devs && i < c->n; i++) {
		strv_free(c->devs[i].requests, c->devs[i].n_requests);
		free(c->devs[i].pool);
		free(c->devs[i].device);
		strv_free(c->devs[i].cdi, c->devs[i].n_cdi);
		free(c->devs[i].share_id);
	}
	free(c->devs);
	free(c->uid);
	free(c->ns);
	free(c->name);
	memset(c, 0, sizeof *c);
}

static int strv_read(const struct axl__jv *arr, char ***out, size_t *n)
{
	*out = NULL;
	*n = 0;
	if (!arr || arr->type != AXL__J_ARR)
		return -1;
	char **v = calloc(arr->len ? arr->len : 1, sizeof *v);
	if (!v)
		return -1;
	for (size_t i = 0; i < arr->len; i++) {
		if (arr->items[i].type != AXL__J_STR || !(v[i] = strdup(arr->items[i].s))) {
			for (size_t k = 0; k < i; k++)
				free(v[k]);
			free(v);
			return -1;
		}
	}
	*out = v;
	*n = arr->len;
	return 0;
}

static int claim_read(const struct axl__jv *j, struct dra_prepared *c)
{
	const char *uid = axl__jv_str(j, "uid"), *ns = axl__jv_str(j, "namespace"), *name = axl__jv_str(j, "name");
	const struct axl__jv *devs = axl__jv_get(j, "devices");
	if (!uid || !ns || !name || !devs || devs->type != AXL__J_ARR)
		return -1;
	if (!(c->uid = strdup(uid)) || !(c->ns = strdup(ns)) || !(c->name = strdup(name)))
		return -1;
	c->devs = calloc(devs->len ? devs->len : 1, sizeof *c->devs);
	if (!c->devs)
		return -1;
	for (size_t i = 0; i < devs->len; i++) {
		const struct axl__jv *d = &devs->items[i];
		struct dra_pdev *pd = &c->devs[i];
		const char *pool = axl__jv_str(d, "pool"), *dev = axl__jv_str(d, "device");
		const struct axl__jv *adm = axl__jv_get(d, "admin");
		c->n = i + 1;
		if (!pool || !dev || !adm || adm->type != AXL__J_BOOL)
			return -1;
		pd->admin = adm->b;
		if (!(pd->pool = strdup(pool)) || !(pd->device = strdup(dev)))
			return -1;
		const char *share = axl__jv_str(d, "share"); /* absent before --shares */
		if (share && !(pd->share_id = strdup(share)))
			return -1;
		if (strv_read(axl__jv_get(d, "requests"), &pd->requests, &pd->n_requests) != 0 ||
		    strv_read(axl__jv_get(d, "cdi"), &pd->cdi, &pd->n_cdi) != 0)
			return -1;
	}
	return 0;
}

int dra_ckpt_load(struct dra_prep *p, char *err, size_t cap)
{
	char *text = NULL;
	size_t len = 0;
	int rc = axl__file_read(p->ckpt, DRA_CKPT_MAX, AXL__FILE_NOFOLLOW, &text, &len);
	if (rc == -ENOENT)
		return 0; /* nothing prepared yet */
	if (rc != 0) {
		snprintf(err, cap, "cannot read the checkpoint %s: %s", p->ckpt, axl__file_error(rc));
		free(text);
		return -1;
	}
	struct axl__jdoc *doc = NULL;
	char jerr[256] = "";
	if (axl__jdoc_parse(text, len, &doc, jerr, sizeof jerr) != 0) {
		snprintf(err, cap, "the checkpoint %s is not JSON (%s): move it away to start afresh", p->ckpt, jerr);
		free(text);
		return -1;
	}
	free(text);
	const struct axl__jv *root = axl__jdoc_root(doc);
	const char *schema = axl__jv_str(root, "schema"), *driver = axl__jv_str(root, "driver");
	int64_t ver = 0;
	const struct axl__jv *claims = axl__jv_get(root, "claims");
	int ok = schema && strcmp(schema, DRA_CKPT_SCHEMA) == 0 && axl__jv_int(root, "schema_version", &ver) &&
		 driver && claims && claims->type == AXL__J_ARR;
	if (ok && ver > DRA_CKPT_VERSION) {
		snprintf(err, cap, "the checkpoint %s has schema_version %lld, newer than this axl writes (%d)",
			 p->ckpt, (long long)ver, DRA_CKPT_VERSION);
		axl__jdoc_free(doc);
		return -1;
	}
	if (ok && strcmp(driver, p->driver) != 0) {
		snprintf(err, cap, "the checkpoint %s belongs to the driver %s, not %s", p->ckpt, driver, p->driver);
		axl__jdoc_free(doc);
		return -1;
	}
	if (ok) {
		p->claims = calloc(claims->len ? claims->len : 1, sizeof *p->claims);
		p->cap = p->claims ? (claims->len ? claims->len : 1) : 0;
		ok = p->claims != NULL;
		for (size_t i = 0; ok && i < claims->len; i++) {
			p->nclaims = i + 1;
			ok = claim_read(&claims->items[i], &p->claims[i]) == 0;
		}
	}
	axl__jdoc_free(doc);
	if (!ok) {
		snprintf(err, cap,
			 "the checkpoint %s is not an %s document of version %d: move it away to start afresh", p->ckpt,
			 DRA_CKPT_SCHEMA, DRA_CKPT_VERSION);
		for (size_t i = 0; i < p->nclaims; i++)
			dra_prepared_clear(&p->claims[i]);
		free(p->claims);
		p->claims = NULL;
		p->nclaims = p->cap = 0;
		return -1;
	}
	return 0;
}

static void strv_write(struct axl__json *w, const char *key, char *const *v, size_t n)
{
	axl__json_key(w, key);
	axl__json_arr(w);
	for (size_t i = 0; i < n; i++)
		axl__json_str(w, v[i]);
	axl__json_arr_end(w);
}

int dra_ckpt_write(struct dra_prep *p, char *err, size_t cap)
{
	struct axl__sb sb = AXL__SB_INIT;
	struct axl__json w;
	axl__json_init(&w, &sb, true);
	axl__json_obj(&w);
	axl__json_kstr(&w, "schema", DRA_CKPT_SCHEMA);
	axl__json_kint(&w, "schema_version", DRA_CKPT_VERSION);
	axl__json_kstr(&w, "driver", p->driver);
	axl__json_key(&w, "claims");
	axl__json_arr(&w);
	for (size_t i = 0; i < p->nclaims; i++) {
		const struct dra_prepared *c = &p->claims[i];
		axl__json_obj(&w);
		axl__json_kstr(&w, "uid", c->uid);
		axl__json_kstr(&w, "namespace", c->ns);
		axl__json_kstr(&w, "name", c->name);
		axl__json_key(&w, "devices");
		axl__json_arr(&w);
		for (size_t k = 0; k < c->n; k++) {
			const struct dra_pdev *d = &c->devs[k];
			axl__json_obj(&w);
			strv_write(&w, "requests", d->requests, d->n_requests);
			axl__json_kstr(&w, "pool", d->pool);
			axl__json_kstr(&w, "device", d->device);
			strv_write(&w, "cdi", d->cdi, d->n_cdi);
			axl__json_kbool(&w, "admin", d->admin != 0);
			if (d->share_id)
				axl__json_kstr(&w, "share", d->share_id);
			axl__json_obj_end(&w);
		}
		axl__json_arr_end(&w);
		axl__json_obj_end(&w);
	}
	axl__json_arr_end(&w);
	axl__json_obj_end(&w);
	axl__sb_putc(&sb, '\n');
	if (sb.failed) {
		axl__sb_free(&sb);
		snprintf(err, cap, "out of memory");
		return -1;
	}
	int rc = axl__file_replace(p->ckpt, sb.buf, sb.len, 0600);
	axl__sb_free(&sb);
	if (rc != 0) {
		snprintf(err, cap, "cannot write %s: %s", p->ckpt, strerror(-rc));
		return -1;
	}
	p->ckpt_writes++;
	return 0;
}
