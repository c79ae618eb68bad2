/* SPDX-License-Identifier: MIT */
/* What is stored, as the API server's LIST and WATCH tell it (publish.h): the publisher's
 * informer (publish.c has how it was written from upstream's resourceslice controller). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pool.h"
#include "publish.h"

/* ---- what is stored ---------------------------------------------------------------- */

void pub_have_clear(struct have *h)
{
	free(h->name);
	free(h->rv);
	free(h->canon);
	memset(h, 0, sizeof *h);
}

void pub_have_reset(struct pub *p)
{
	for (size_t i = 0; i < p->nhave; i++)
		pub_have_clear(&p->have[i]);
	free(p->have);
	p->have = NULL;
	p->nhave = 0;
}

/* A ResourceSlice object into h; false when it has no name. */
static bool have_from(struct pub *p, const struct axl__jv *obj, struct have *h)
{
	memset(h, 0, sizeof *h);
	const char *name = jstr(obj, "metadata", "name"), *rv = jstr(obj, "metadata", "resourceVersion");
	const struct axl__jv *spec = axl__jv_get(obj, "spec"), *pool = axl__jv_get(spec, "pool");
	if (!name)
		return false;
	h->name = strdup(name);
	h->rv = strdup(rv ? rv : "");
	int64_t g = -1, n = -1;
	axl__jv_int(pool, "generation", &g);
	axl__jv_int(pool, "resourceSliceCount", &n);
	h->gen = g;
	h->count = n;
	const char *drv = axl__jv_str(spec, "driver"), *node = axl__jv_str(spec, "nodeName"),
		   *pname = axl__jv_str(pool, "name");
	h->pool_ok = drv && node && pname && strcmp(drv, p->driver) == 0 && strcmp(node, p->node) == 0 &&
		     strcmp(pname, p->node) == 0;
	h->canon = dra_spec_canon(spec);
	return h->name && h->rv && h->canon;
}

int pub_have_find(const struct pub *p, const char *name)
{
	for (size_t i = 0; i < p->nhave; i++)
		if (strcmp(p->have[i].name, name) == 0)
			return (int)i;
	return -1;
}

int pub_name_cmp(const void *a, const void *b)
{
	return strcmp(((const struct have *)a)->name, ((const struct have *)b)->name);
}

/* Put obj in (replacing the one of its name), or take it out (gone). */
void pub_have_upsert(struct pub *p, const struct axl__jv *obj, bool gone)
{
	struct have h;
	if (!have_from(p, obj, &h)) {
		pub_have_clear(&h);
		return;
	}
	int i = pub_have_find(p, h.name);
	if (gone) {
		if (i >= 0) {
			pub_have_clear(&p->have[i]);
			p->have[i] = p->have[--p->nhave];
			qsort(p->have, p->nhave, sizeof *p->have, pub_name_cmp);
		}
		pub_have_clear(&h);
		return;
	}
	if (i >= 0) {
		pub_have_clear(&p->have[i]);
		p->have[i] = h;
		return;
	}
	struct have *nh = realloc(p->have, (p->nhave + 1) * sizeof *nh);
	if (!nh) {
		pub_have_clear(&h);
		return;
	}
	p->have = nh;
	p->have[p->nhave++] = h;
	qsort(p->have, p->nhave, sizeof *p->have, pub_name_cmp);
}

/* Is what is stored what is wanted? */
bool pub_pool_matches(const struct pub *p)
{
	if (p->nhave != p->nchunk)
		return false;
	bool *used = calloc(p->nchunk ? p->nchunk : 1, 1);
	if (!used)
		return false;
	bool ok = true;
	for (size_t i = 0; i < p->nhave && ok; i++) {
		const struct have *h = &p->have[i];
		if (!h->pool_ok || h->gen != p->have[0].gen || h->count != (long long)p->nchunk) {
			ok = false;
			break;
		}
		bool found = false;
		for (size_t k = 0; k < p->nchunk && !found; k++)
			if (!used[k] && (strcmp(h->canon, p->chunk[k]) == 0 ||
					 (p->stored[k] && strcmp(h->canon, p->stored[k]) == 0)))
				used[k] = found = true;
		ok = found;
	}
	free(used);
	return ok;
}

/* The message of a Status answer, for the log. */
void pub_status_msg(const char *body, size_t len, char *out, size_t cap)
{
	struct axl__jdoc *doc = NULL;
	char e[64];
	out[0] = 0;
	if (axl__jdoc_parse(body, len, &doc, e, sizeof e) == 0) {
		const char *m = axl__jv_str(axl__jdoc_root(doc), "message");
		if (m)
			snprintf(out, cap, ": %s", m);
	}
	axl__jdoc_free(doc);
}

static char *selector_query(const struct pub *p)
{
	char sel[1024];
	snprintf(sel, sizeof sel, "spec.nodeName=%s,spec.driver=%s", p->node, p->driver);
	char *esc = curl_easy_escape(NULL, sel, 0), *out = NULL;
	if (!esc || asprintf(&out, "fieldSelector=%s", esc) < 0)
		out = NULL;
	curl_free(esc);
	return out;
}

/* LIST in chunks. 0, or -1 (said). */
int pub_list(struct pub *p)
{
	char *q = selector_query(p);
	if (!q)
		return -1;
	count(p, &p->st.lists);
	pub_have_reset(p);
	char *cont = NULL, *rv = NULL;
	int rc = -1;
	for (;;) {
		char path[4096], err[512];
		char *ce = cont ? curl_easy_escape(NULL, cont, 0) : NULL;
		snprintf(path, sizeof path, "%s?%s&limit=%d%s%s", SLICES_PATH, q, LIST_CHUNK, ce ? "&continue=" : "",
			 ce ? ce : "");
		curl_free(ce);
		long status;
		char *body;
		size_t len;
		if (dra_conn_do(p->c, "GET", path, NULL, &status, &body, &len, err, sizeof err) != 0) {
			say(p, 0, "LIST: %s", err);
			break;
		}
		if (status != 200) {
			char m[300];
			pub_status_msg(body, len, m, sizeof m);
			say(p, 0, "LIST %s: %ld%s", SLICES_PATH, status, m);
			free(body);
			if (status == 410) /* the continue token expired: from the start */
				count(p, &p->st.gones);
			break;
		}
		struct axl__jdoc *doc = NULL;
		if (axl__jdoc_parse(body, len, &doc, err, sizeof err) != 0) {
			say(p, 0, "LIST: the answer is not JSON: %s", err);
			free(body);
			break;
		}
		free(body);
		const struct axl__jv *root = axl__jdoc_root(doc), *items = axl__jv_get(root, "items");
		const char *lrv = jstr(root, "metadata", "resourceVersion"), *next = jstr(root, "metadata", "continue");
		if (!rv && lrv)
			rv = strdup(lrv); /* every chunk of a list is at the first one's version */
		for (size_t i = 0; items && items->type == AXL__J_ARR && i < items->len; i++)
			pub_have_upsert(p, &items->items[i], false);
		free(cont);
		cont = next && *next ? strdup(next) : NULL;
		axl__jdoc_free(doc);
		if (!cont) {
			rc = rv ? 0 : -1;
			if (!rv)
				say(p, 0, "LIST: the answer has no resourceVersion");
			break;
		}
	}
	free(cont);
	free(q);
	if (rc == 0) {
		free(p->rv);
		p->rv = rv;
	} else {
		free(rv);
	}
	return rc;
}

/* ---- the watch --------------------------------------------------------------------- */

static void watch_event(struct pub *p, const char *text, size_t len)
{
	struct axl__jdoc *doc = NULL;
	char err[256];
	if (axl__jdoc_parse(text, len, &doc, err, sizeof err) != 0) {
		snprintf(p->w_err, sizeof p->w_err, "a watch event that is not JSON: %s", err);
		return;
	}
	const struct axl__jv *ev = axl__jdoc_root(doc), *obj = axl__jv_get(ev, "object");
	const char *type = axl__jv_str(ev, "type");
	p->w_events++;
	if (type && strcmp(type, "ERROR") == 0) {
		int64_t code = 0;
		axl__jv_int(obj, "code", &code);
		if (code == 410)
			p->w_gone = true;
		else
			snprintf(p->w_err, sizeof p->w_err, "the watch ended with an error %lld: %s", (long long)code,
				 axl__jv_str(obj, "message") ? axl__jv_str(obj, "message") : "");
	} else if (type && obj) {
		const char *rv = jstr(obj, "metadata", "resourceVersion");
		if (rv && *rv) {
			free(p->rv);
			p->rv = strdup(rv);
		}
		if (strcmp(type, "ADDED") == 0 || strcmp(type, "MODIFIED") == 0)
			pub_have_upsert(p, obj, false);
		else if (strcmp(type, "DELETED") == 0)
			pub_have_upsert(p, obj, true);
		/* BOOKMARK: the version only */
		if (strcmp(type, "BOOKMARK") != 0 && !pub_pool_matches(p))
			p->need_sync = true;
	}
	axl__jdoc_free(doc);
}

static size_t on_watch(char *data, size_t size, size_t nmemb, void *ud)
{
	struct pub *p = ud;
	size_t n = size * nmemb;
	long status = 0;
	curl_easy_getinfo(p->w, CURLINFO_RESPONSE_CODE, &status);
	if (status != 200) { /* an error's Status: kept for the message */
		if (p->line.len < 4096)
			axl__sb_put(&p->line, data, n);
		return n;
	}
	for (size_t i = 0; i < n; i++) {
		if (data[i] != '\n') {
			axl__sb_putc(&p->line, data[i]);
			if (p->line.len > MAX_LINE)
				return 0;
			continue;
		}
		if (p->line.len)
			watch_event(p, p->line.buf, p->line.len);
		p->line.len = 0;
		if (p->line.buf)
			p->line.buf[0] = 0;
		if (p->w_gone)
			return 0; /* list again */
	}
	return n;
}

void pub_watch_end(struct pub *p)
{
	if (!p->w)
		return;
	curl_multi_remove_handle(p->multi, p->w);
	curl_easy_cleanup(p->w);
	curl_slist_free_all(p->whdrs);
	p->w = NULL;
	p->whdrs = NULL;
	axl__sb_free(&p->line);
}

int pub_watch_begin(struct pub *p)
{
	char *q = selector_query(p);
	char path[4096], err[512];
	char *rve = curl_easy_escape(NULL, p->rv ? p->rv : "", 0);
	snprintf(path, sizeof path, "%s?%s&watch=true&allowWatchBookmarks=true&resourceVersion=%s&timeoutSeconds=%.0f",
		 SLICES_PATH, q ? q : "", rve ? rve : "", p->cfg.watch_timeout_s);
	curl_free(rve);
	free(q);
	p->w = dra_conn_easy(p->c, "GET", path, &p->whdrs, err, sizeof err);
	if (!p->w) {
		curl_slist_free_all(p->whdrs);
		p->whdrs = NULL;
		say(p, 0, "WATCH: %s", err);
		return -1;
	}
	curl_easy_setopt(p->w, CURLOPT_WRITEFUNCTION, on_watch);
	curl_easy_setopt(p->w, CURLOPT_WRITEDATA, p);
	/* the server ends the watch after timeoutSeconds; a dead peer is found by keepalives
	 * and, at worst, this bound */
	curl_easy_setopt(p->w, CURLOPT_TIMEOUT_MS, (long)((p->cfg.watch_timeout_s + 60) * 1000));
	curl_easy_setopt(p->w, CURLOPT_TCP_KEEPALIVE, 1L);
	curl_easy_setopt(p->w, CURLOPT_TCP_KEEPIDLE, 30L);
	curl_easy_setopt(p->w, CURLOPT_TCP_KEEPINTVL, 10L);
	p->w_started = now_s();
	p->w_events = 0;
	p->w_gone = false;
	p->w_err[0] = 0;
	p->line = (struct axl__sb)AXL__SB_INIT;
	curl_multi_add_handle(p->multi, p->w);
	count(p, &p->st.watches);
	return 0;
}

/* The watch's transfer ended: 0 start another at once, 1 list again, -1 a failure. */
int pub_watch_done(struct pub *p, CURLcode res)
{
	long status = 0;
	curl_easy_getinfo(p->w, CURLINFO_RESPONSE_CODE, &status);
	double lived = now_s() - p->w_started;
	int rc;
	if (p->w_gone || status == 410) {
		count(p, &p->st.gones);
		say(p, 2, "WATCH: 410 Gone: resourceVersion %s is too old; listing again", p->rv ? p->rv : "");
		rc = 1;
	} else if (status != 200) {
		char m[300] = "";
		if (status)
			pub_status_msg(axl__sb_str(&p->line), p->line.len, m, sizeof m);
		say(p, 0, "WATCH %s: %s%ld%s", SLICES_PATH, status ? "" : curl_easy_strerror(res), status, m);
		rc = -1;
	} else if (*p->w_err) {
		say(p, 0, "WATCH: %s", p->w_err);
		rc = -1;
	} else if (res != CURLE_OK && res != CURLE_OPERATION_TIMEDOUT) {
		/* the server went away mid-stream (a restart): start again from what was seen,
		 * after a wait when it happens at once */
		say(p, 2, "WATCH: %s after %.1f s", curl_easy_strerror(res), lived);
		rc = lived < 1.0 ? -1 : 0;
	} else {
		/* ended by timeoutSeconds: once more, unless it ended at once with nothing said
		 * (a server that closes every watch: not a reason to spin) */
		rc = lived < 1.0 && p->w_events == 0 ? -1 : 0;
	}
	pub_watch_end(p);
	return rc;
}
