/* SPDX-License-Identifier: MIT */
/*
 * The ResourceSlice publisher of `axl dra-plugin` (api.h), in the module axl-dra.so.
 *
 * Written from k8s.io/dynamic-resource-allocation's resourceslice controller
 * (kubernetes/kubernetes staging/src/k8s.io/dynamic-resource-allocation/resourceslice/
 * resourceslicecontroller.go at 6d8b41fac66ddfb902c08cec436af17a329f751b) and the
 * ResourceSlice type (staging/src/k8s.io/api/resource/v1/types.go at
 * 7fc9c57df50702c276dcdc36c1e8f652a923eb16):
 *  - the controller's informer lists and watches the slices of its driver on its node
 *    (field selectors spec.nodeName and spec.driver); here LIST in chunks (limit and
 *    continue), then WATCH from the list's resourceVersion, bookmarks allowed; a watch
 *    that ends is started again from the last resourceVersion seen, and a 410 Gone (the
 *    version was compacted away, or the server restarted) lists again;
 *  - syncPool: the pool named after the node holds the devices, cut into slices of at
 *    most ResourceSliceMaxDevices (ResourceSliceMaxDevicesWithTaintsOrConsumesCounters
 *    when a device has taints); when what is stored differs from what is wanted, the
 *    pool's generation is bumped past the highest stored one and every slice is written
 *    with it and with resourceSliceCount: stored slices are updated (with their
 *    resourceVersion: optimistic concurrency), missing ones created with
 *    generateName "<node>-<driver>-", extra ones deleted, after the writes;
 *  - each slice is owned by the Node (ownerReferences: apiVersion v1, kind Node, its name
 *    and UID, controller true), so it goes with the node;
 *  - failures are retried with exponential backoff; a 409 Conflict lists again before the
 *    next try (the store changed under us).
 * What is compared is the content: spec.devices or spec.sharedCounters in a canonical form
 * (object keys sorted; pool.h, which also cuts the pool into slices as upstream validation
 * admits them), the driver, node, pool name, generation and count. With shared counters
 * (partitionable devices, slices.h) and whole devices to fall back to, an answer without the
 * counters that were sent (the server's DRAPartitionableDevices gate is off) makes the
 * publisher write the whole devices instead, at once and from then on, said once. A slice changed or deleted by someone
 * else is put right on the watch's event.
 *
 * One thread: the watch runs in a libcurl multi handle polled by the thread, which the
 * command's pub_set() and pub_stop() wake (curl_multi_wakeup). Nothing is polled on a
 * timer: an idle publisher sleeps in poll(2) until the watch's stream says something.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>

#include "../../util/json.h"
#include "../../util/jsonr.h"
#include "../../util/strbuf.h"
#include "api.h"
#include "client.h"
#include "pool.h"

#define SLICES_PATH "/apis/resource.k8s.io/v1/resourceslices"
#define LIST_CHUNK  100
#define MAX_LINE    (64u << 20)
#define MAX_DOC     (64u << 20)

struct have {
	char *name, *rv, *canon;
	long long gen, count;
	bool pool_ok; /* driver, node and pool name as ours */
};

struct pub {
	struct dra_conn *c;
	char *driver, *node;
	struct dra_pub_config cfg;
	pthread_t th;
	pthread_mutex_t lock; /* want, changed, stop, remove, st */
	char *want;           /* the devices (a JSON array) */
	bool changed, stop, remove;
	struct dra_pub_stats st;
	CURLM *multi;
	/* the thread's own */
	char **chunk; /* the slices' contents, canonical (pool.h) */
	/* chunk k as the server stored it, where that differs from what was sent (a field it
	 * drops: an alpha field whose feature gate is off); NULL: as sent. Without it, each
	 * watch event of our own write would look like a change and be written again. */
	char **stored;
	char *last_canon; /* the content of the last object a write answered with */
	char *cur;        /* what was last asked for (pub_set) */
	bool has_whole;   /* it has whole devices to fall back to (--partitionable-devices auto) */
	bool whole;       /* the API server drops counters: the whole devices are published */
	bool said_drop;   /* that it drops them was said */
	size_t nchunk;
	struct have *have;
	size_t nhave;
	char *rv; /* the collection's resourceVersion to watch from */
	char *node_uid;
	bool need_list, need_sync;
	/* the watch */
	CURL *w;
	struct curl_slist *whdrs;
	struct axl__sb line;
	double w_started;
	unsigned long w_events;
	bool w_gone;
	char w_err[256];
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void say(struct pub *p, int level, const char *fmt, ...)
{
	if (!p->cfg.say)
		return;
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	p->cfg.say(p->cfg.ud, level, msg);
}

static void count(struct pub *p, unsigned long *field)
{
	pthread_mutex_lock(&p->lock);
	(*field)++;
	pthread_mutex_unlock(&p->lock);
}

/* ---- what is stored ---------------------------------------------------------------- */

static void have_clear(struct have *h)
{
	free(h->name);
	free(h->rv);
	free(h->canon);
	memset(h, 0, sizeof *h);
}

static void have_reset(struct pub *p)
{
	for (size_t i = 0; i < p->nhave; i++)
		have_clear(&p->have[i]);
	free(p->have);
	p->have = NULL;
	p->nhave = 0;
}

static const char *jstr(const struct axl__jv *o, const char *a, const char *b)
{
	const struct axl__jv *x = axl__jv_get(o, a);
	return b ? axl__jv_str(x, b) : axl__jv_str(o, a);
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

static int have_find(const struct pub *p, const char *name)
{
	for (size_t i = 0; i < p->nhave; i++)
		if (strcmp(p->have[i].name, name) == 0)
			return (int)i;
	return -1;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(((const struct have *)a)->name, ((const struct have *)b)->name);
}

/* Put obj in (replacing the one of its name), or take it out (gone). */
static void have_upsert(struct pub *p, const struct axl__jv *obj, bool gone)
{
	struct have h;
	if (!have_from(p, obj, &h)) {
		have_clear(&h);
		return;
	}
	int i = have_find(p, h.name);
	if (gone) {
		if (i >= 0) {
			have_clear(&p->have[i]);
			p->have[i] = p->have[--p->nhave];
			qsort(p->have, p->nhave, sizeof *p->have, name_cmp);
		}
		have_clear(&h);
		return;
	}
	if (i >= 0) {
		have_clear(&p->have[i]);
		p->have[i] = h;
		return;
	}
	struct have *nh = realloc(p->have, (p->nhave + 1) * sizeof *nh);
	if (!nh) {
		have_clear(&h);
		return;
	}
	p->have = nh;
	p->have[p->nhave++] = h;
	qsort(p->have, p->nhave, sizeof *p->have, name_cmp);
}

/* Is what is stored what is wanted? */
static bool pool_matches(const struct pub *p)
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

/* ---- what is wanted ---------------------------------------------------------------- */

static void chunks_free(struct pub *p)
{
	for (size_t i = 0; i < p->nchunk; i++) {
		free(p->chunk[i]);
		free(p->stored ? p->stored[i] : NULL);
	}
	free(p->chunk);
	free(p->stored);
	p->chunk = NULL;
	p->stored = NULL;
	p->nchunk = 0;
}

/* p->cur into the slices' contents (pool.h): the whole devices once the server dropped
 * counters. */
static int chunk_devices(struct pub *p, char *err, size_t cap)
{
	char **ch;
	size_t n;
	bool has_whole;
	if (dra_pool_chunks(p->cur, p->whole, &ch, &n, &has_whole, err, cap) != 0)
		return -1;
	chunks_free(p);
	p->chunk = ch;
	p->has_whole = has_whole;
	if (!(p->stored = calloc(n ? n : 1, sizeof *p->stored))) {
		for (size_t k = 0; k < n; k++)
			free(ch[k]);
		free(ch);
		p->chunk = NULL;
		snprintf(err, cap, "out of memory");
		return -1;
	}
	p->nchunk = n;
	return 0;
}

/* ---- requests ---------------------------------------------------------------------- */

/* The Node's UID, for the owner references. 0, or -1 (said). */
static int node_uid(struct pub *p)
{
	if (p->node_uid)
		return 0;
	char path[600], err[512];
	char *esc = curl_easy_escape(NULL, p->node, 0);
	snprintf(path, sizeof path, "/api/v1/nodes/%s", esc ? esc : p->node);
	curl_free(esc);
	long status;
	char *body;
	size_t len;
	if (dra_conn_do(p->c, "GET", path, NULL, &status, &body, &len, err, sizeof err) != 0) {
		say(p, 0, "%s", err);
		return -1;
	}
	int rc = -1;
	struct axl__jdoc *doc = NULL;
	if (status == 200 && axl__jdoc_parse(body, len, &doc, err, sizeof err) == 0) {
		const char *uid = jstr(axl__jdoc_root(doc), "metadata", "uid");
		if (uid && *uid && (p->node_uid = strdup(uid)))
			rc = 0;
	}
	if (rc != 0)
		say(p, 0, "GET %s: %ld%s (the slices' owner is the Node, whose UID is needed)", path, status,
		    status == 404   ? ": no such node (--node-name)"
		    : status == 403 ? ": forbidden (RBAC: nodes get)"
				    : "");
	axl__jdoc_free(doc);
	free(body);
	return rc;
}

/* The message of a Status answer, for the log. */
static void status_msg(const char *body, size_t len, char *out, size_t cap)
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
static int list(struct pub *p)
{
	char *q = selector_query(p);
	if (!q)
		return -1;
	count(p, &p->st.lists);
	have_reset(p);
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
			status_msg(body, len, m, sizeof m);
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
			have_upsert(p, &items->items[i], false);
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

/* One slice object: create (name NULL: generateName) or update (name, rv). */
static char *slice_json(const struct pub *p, const char *name, const char *rv, long long gen, size_t k)
{
	struct axl__sb sb = AXL__SB_INIT;
	struct axl__json w;
	axl__json_init(&w, &sb, false);
	axl__json_obj(&w);
	axl__json_kstr(&w, "apiVersion", "resource.k8s.io/v1");
	axl__json_kstr(&w, "kind", "ResourceSlice");
	axl__json_key(&w, "metadata");
	axl__json_obj(&w);
	if (name) {
		axl__json_kstr(&w, "name", name);
		axl__json_kstr(&w, "resourceVersion", rv);
	} else {
		/* "<node>-<driver>-" as the controller names them, short enough for the five
		 * characters the server adds within a name's 253 */
		char gen_name[256];
		snprintf(gen_name, sizeof gen_name, "%.120s-%.120s-", p->node, p->driver);
		axl__json_kstr(&w, "generateName", gen_name);
	}
	axl__json_key(&w, "ownerReferences");
	axl__json_arr(&w);
	axl__json_obj(&w);
	axl__json_kstr(&w, "apiVersion", "v1");
	axl__json_kstr(&w, "kind", "Node");
	axl__json_kstr(&w, "name", p->node);
	axl__json_kstr(&w, "uid", p->node_uid);
	axl__json_kbool(&w, "controller", true);
	axl__json_obj_end(&w);
	axl__json_arr_end(&w);
	axl__json_obj_end(&w);
	axl__json_key(&w, "spec");
	axl__json_obj(&w);
	axl__json_kstr(&w, "driver", p->driver);
	axl__json_kstr(&w, "nodeName", p->node);
	axl__json_key(&w, "pool");
	axl__json_obj(&w);
	axl__json_kstr(&w, "name", p->node);
	axl__json_kint(&w, "generation", gen);
	axl__json_kint(&w, "resourceSliceCount", (int64_t)p->nchunk);
	axl__json_obj_end(&w);
	/* the devices or counter sets: the chunk (canonical JSON) read back into the writer */
	struct axl__jdoc *doc = NULL;
	char err[128];
	if (axl__jdoc_parse(p->chunk[k], strlen(p->chunk[k]), &doc, err, sizeof err) != 0) {
		axl__sb_free(&sb);
		return NULL;
	}
	const struct axl__jv *c = axl__jdoc_root(doc);
	for (size_t i = 0; c->type == AXL__J_OBJ && i < c->len; i++) {
		axl__json_key(&w, c->keys[i]);
		dra_canon(&w, &c->items[i]);
	}
	axl__jdoc_free(doc);
	axl__json_obj_end(&w);
	axl__json_obj_end(&w);
	if (w.overflow)
		sb.failed = true;
	return axl__sb_steal(&sb, NULL);
}

/* A write's answer: the object stored into p->have (status 200/201), or a failure. 1: the
 * store changed under us (409, or 404 on an update: list again); -1 other failures. */
static int write_one(struct pub *p, const char *method, const char *path, const char *body, unsigned long *counter)
{
	long status;
	char *resp;
	size_t len;
	char err[512];
	if (dra_conn_do(p->c, method, path, body, &status, &resp, &len, err, sizeof err) != 0) {
		say(p, 0, "%s", err);
		return -1;
	}
	int rc = 0;
	if (status == 200 || status == 201 || status == 202) {
		count(p, counter);
		struct axl__jdoc *doc = NULL;
		if (strcmp(method, "DELETE") != 0 && axl__jdoc_parse(resp, len, &doc, err, sizeof err) == 0) {
			free(p->last_canon);
			p->last_canon = dra_spec_canon(axl__jv_get(axl__jdoc_root(doc), "spec"));
			have_upsert(p, axl__jdoc_root(doc), false);
		}
		axl__jdoc_free(doc);
	} else if (strcmp(method, "DELETE") == 0 && status == 404) {
		rc = 0; /* gone already */
	} else {
		char m[400];
		status_msg(resp, len, m, sizeof m);
		if (status == 409 || (status == 404 && strcmp(method, "PUT") == 0)) {
			count(p, &p->st.conflicts);
			say(p, 2, "%s %s: %ld%s (listing again)", method, path, status, m);
			rc = 1;
		} else {
			say(p, 0, "%s %s: %ld%s", method, path, status, m);
			rc = -1;
		}
	}
	free(resp);
	return rc;
}

/* The server stored slice k without the counters it was sent: as upstream's controller
 * finds dropped fields (resourceslicecontroller.go's DroppedFieldsError), its
 * DRAPartitionableDevices gate is off (pkg/registry/resource/resourceslice/strategy.go,
 * dropDisabledDRAPartitionableDevicesFields, drops sharedCounters and consumesCounters).
 * true: the whole devices are to be published instead (said once). */
static bool counters_dropped(struct pub *p, size_t k)
{
	if (!dra_canon_has_counters(p->chunk[k]) || dra_canon_has_counters(p->last_canon))
		return false;
	if (p->has_whole && !p->whole) {
		say(p, 1,
		    "the API server dropped the shared counters of the pool (sharedCounters, consumesCounters: its "
		    "feature gate DRAPartitionableDevices is off): the devices are published whole, without their "
		    "partitions");
		p->whole = true;
		return true;
	}
	if (!p->said_drop)
		say(p, 0,
		    "the API server dropped the shared counters of the pool (its feature gate "
		    "DRAPartitionableDevices is off): a device and its partitions are published without them and "
		    "may be given out together (--partitionable-devices on)");
	p->said_drop = true;
	return false;
}

/* Bring the stored slices to what is wanted. 0 done, 1 list again, -1 failed, 2 the
 * counters were dropped: the whole devices are to be written instead. */
static int sync_once(struct pub *p)
{
	if (pool_matches(p))
		return 0;
	if (p->nchunk && node_uid(p) != 0)
		return -1;
	long long gen = 0;
	for (size_t i = 0; i < p->nhave; i++)
		gen = p->have[i].gen > gen ? p->have[i].gen : gen;
	gen++;
	/* the stored slices by name, as they are now: the writes change p->have */
	size_t nold = p->nhave;
	char **names = calloc(nold ? nold : 1, sizeof *names), **rvs = calloc(nold ? nold : 1, sizeof *rvs);
	int rc = names && rvs ? 0 : -1;
	for (size_t i = 0; i < nold && rc == 0; i++)
		if (!(names[i] = strdup(p->have[i].name)) || !(rvs[i] = strdup(p->have[i].rv)))
			rc = -1;
	for (size_t k = 0; k < p->nchunk && rc == 0; k++) {
		char path[1024];
		char *body = slice_json(p, k < nold ? names[k] : NULL, k < nold ? rvs[k] : NULL, gen, k);
		if (!body) {
			rc = -1;
			break;
		}
		free(p->last_canon);
		p->last_canon = NULL;
		if (k < nold) {
			snprintf(path, sizeof path, "%s/%s", SLICES_PATH, names[k]);
			rc = write_one(p, "PUT", path, body, &p->st.updates);
		} else {
			rc = write_one(p, "POST", SLICES_PATH, body, &p->st.creates);
		}
		free(body);
		if (rc == 0 && p->last_canon && counters_dropped(p, k)) {
			char err[256];
			rc = chunk_devices(p, err, sizeof err) == 0 ? 2 : -1;
			if (rc < 0)
				say(p, 0, "the devices cannot be published: %s", err);
			break;
		}
		if (rc == 0 && p->last_canon && strcmp(p->last_canon, p->chunk[k]) != 0) {
			if (!p->stored[k] || strcmp(p->stored[k], p->last_canon) != 0)
				say(p, 1,
				    "the API server stored slice %zu of the pool otherwise than it was sent (a field "
				    "it does not keep?): taken as published",
				    k);
			free(p->stored[k]);
			p->stored[k] = p->last_canon;
			p->last_canon = NULL;
		}
	}
	for (size_t i = p->nchunk; i < nold && rc == 0; i++) {
		char path[1024];
		snprintf(path, sizeof path, "%s/%s", SLICES_PATH, names[i]);
		rc = write_one(p, "DELETE", path, NULL, &p->st.deletes);
		if (rc == 0) {
			int j = have_find(p, names[i]);
			if (j >= 0) {
				have_clear(&p->have[j]);
				p->have[j] = p->have[--p->nhave];
				qsort(p->have, p->nhave, sizeof *p->have, name_cmp);
			}
		}
	}
	for (size_t i = 0; i < nold; i++) {
		free(names ? names[i] : NULL);
		free(rvs ? rvs[i] : NULL);
	}
	free(names);
	free(rvs);
	if (rc == 0) {
		pthread_mutex_lock(&p->lock);
		p->st.generation = gen;
		pthread_mutex_unlock(&p->lock);
		say(p, 1, "published %zu device slice%s of pool %s, generation %lld", p->nchunk,
		    p->nchunk == 1 ? "" : "s", p->node, gen);
	}
	return rc;
}

static int sync_pool(struct pub *p)
{
	int rc = sync_once(p);
	if (rc == 2) /* at once: the whole devices have no counters to drop */
		rc = sync_once(p);
	return rc == 2 ? -1 : rc;
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
			have_upsert(p, obj, false);
		else if (strcmp(type, "DELETED") == 0)
			have_upsert(p, obj, true);
		/* BOOKMARK: the version only */
		if (strcmp(type, "BOOKMARK") != 0 && !pool_matches(p))
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

static void watch_end(struct pub *p)
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

static int watch_begin(struct pub *p)
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
static int watch_done(struct pub *p, CURLcode res)
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
			status_msg(axl__sb_str(&p->line), p->line.len, m, sizeof m);
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
	watch_end(p);
	return rc;
}

/* ---- the thread -------------------------------------------------------------------- */

static void *run(void *ud)
{
	struct pub *p = ud;
	double backoff = p->cfg.backoff_min_s, retry_at = 0;
	p->need_list = true;
	bool have_want = false;
	for (;;) {
		pthread_mutex_lock(&p->lock);
		bool stop = p->stop;
		char *want = p->changed ? p->want : NULL;
		p->want = want ? NULL : p->want;
		p->changed = false;
		pthread_mutex_unlock(&p->lock);
		if (stop)
			break;
		if (want) {
			char err[256];
			free(p->cur);
			p->cur = want;
			if (chunk_devices(p, err, sizeof err) != 0)
				say(p, 0, "the devices cannot be published: %s", err);
			else
				have_want = true, p->need_sync = true;
		}
		double t = now_s();
		if (have_want && t >= retry_at) {
			int rc = 0;
			bool talked = p->need_list || p->need_sync; /* a request answered, or refused */
			if (p->need_list) {
				watch_end(p);
				rc = list(p) == 0 ? 0 : -1;
				if (rc == 0)
					p->need_list = false, p->need_sync = true;
			}
			if (rc == 0 && p->need_sync) {
				rc = sync_pool(p);
				if (rc == 1)
					p->need_list = true;
				else if (rc == 0)
					p->need_sync = false;
			}
			if (rc == 0 && !p->w && watch_begin(p) != 0)
				rc = -1;
			pthread_mutex_lock(&p->lock);
			p->st.synced = rc == 0 && !p->need_sync && !p->need_list;
			if (rc < 0)
				p->st.failures++;
			pthread_mutex_unlock(&p->lock);
			if (rc != 0) {
				/* 1 (a conflict): a short wait, then list; -1: the backoff doubles */
				double wait = rc == 1 ? p->cfg.backoff_min_s : backoff;
				double jitter = 1.0 + 0.2 * ((double)(rand() % 1000) / 1000.0);
				retry_at = now_s() + wait * jitter;
				if (rc < 0)
					backoff = fmin(backoff * 2, p->cfg.backoff_max_s);
				if (rc < 0)
					say(p, 2, "trying again in %.1f s", wait * jitter);
			} else {
				/* only an answer resets the backoff: a watch started is not one (that it
				 * cannot connect is known later, in watch_done) */
				if (talked)
					backoff = p->cfg.backoff_min_s;
				retry_at = 0;
			}
		}
		/* asleep until the watch says something, the command wakes us, or a retry */
		int timeout_ms = 60000;
		if (have_want && (retry_at > 0 || p->need_sync || p->need_list)) {
			double left = retry_at - now_s();
			timeout_ms = left <= 0 ? 0 : (int)(left * 1000) + 1;
		}
		long cto = -1;
		if (p->w && curl_multi_timeout(p->multi, &cto) == CURLM_OK && cto >= 0 && cto < timeout_ms)
			timeout_ms = (int)cto;
		int nfds = 0;
		curl_multi_poll(p->multi, NULL, 0, timeout_ms, &nfds);
		if (p->w) {
			int running = 0;
			curl_multi_perform(p->multi, &running);
			CURLMsg *m;
			int left;
			while ((m = curl_multi_info_read(p->multi, &left)))
				if (m->msg == CURLMSG_DONE && m->easy_handle == p->w) {
					int rc = watch_done(p, m->data.result);
					if (rc == 1) {
						p->need_list = true;
						retry_at = 0;
					} else if (rc == 0) {
						backoff = p->cfg.backoff_min_s; /* it lived: the server is well */
					} else {
						count(p, &p->st.failures);
						double jitter = 1.0 + 0.2 * ((double)(rand() % 1000) / 1000.0);
						retry_at = now_s() + backoff * jitter;
						backoff = fmin(backoff * 2, p->cfg.backoff_max_s);
					}
					break;
				}
			if (p->w && p->need_sync && retry_at == 0)
				retry_at = now_s(); /* an event: put it right at once */
		}
	}
	watch_end(p);
	pthread_mutex_lock(&p->lock);
	bool remove = p->remove;
	pthread_mutex_unlock(&p->lock);
	if (remove && list(p) == 0) {
		for (size_t i = 0; i < p->nhave; i++) {
			char path[1024];
			snprintf(path, sizeof path, "%s/%s", SLICES_PATH, p->have[i].name);
			write_one(p, "DELETE", path, NULL, &p->st.deletes);
		}
	}
	return NULL;
}

int dra_pub_start(void *conn, const struct dra_pub_config *cfg, void **out, char *err, size_t cap)
{
	*out = NULL;
	struct pub *p = calloc(1, sizeof *p);
	if (!p || !(p->driver = strdup(cfg->driver)) || !(p->node = strdup(cfg->node)) ||
	    !(p->multi = curl_multi_init())) {
		snprintf(err, cap, "out of memory");
		if (p) {
			free(p->driver);
			free(p->node);
			free(p);
		}
		return -1;
	}
	p->c = conn;
	p->cfg = *cfg;
	p->cfg.driver = p->driver;
	p->cfg.node = p->node;
	if (!(p->cfg.backoff_min_s > 0))
		p->cfg.backoff_min_s = 0.5;
	if (!(p->cfg.backoff_max_s >= p->cfg.backoff_min_s))
		p->cfg.backoff_max_s = 60;
	if (!(p->cfg.watch_timeout_s >= 1))
		p->cfg.watch_timeout_s = 300;
	p->st.generation = -1;
	pthread_mutex_init(&p->lock, NULL);
	srand((unsigned)time(NULL) ^ (unsigned)(uintptr_t)p);
	int e = pthread_create(&p->th, NULL, run, p);
	if (e != 0) {
		snprintf(err, cap, "a thread: %s", strerror(e));
		curl_multi_cleanup(p->multi);
		pthread_mutex_destroy(&p->lock);
		free(p->driver);
		free(p->node);
		free(p);
		return -1;
	}
	*out = p;
	return 0;
}

int dra_pub_set(void *pub, const char *devices, char *err, size_t cap)
{
	struct pub *p = pub;
	struct axl__jdoc *doc = NULL;
	if (axl__jdoc_parse(devices, strlen(devices), &doc, err, cap) != 0)
		return -1;
	const struct axl__jv *r = axl__jdoc_root(doc), *d = axl__jv_get(r, "devices");
	bool arr = r->type == AXL__J_ARR || (r->type == AXL__J_OBJ && d && d->type == AXL__J_ARR);
	axl__jdoc_free(doc);
	if (!arr) {
		snprintf(err, cap, "the devices are not a JSON array, nor an object with one");
		return -1;
	}
	char *copy = strdup(devices);
	if (!copy) {
		snprintf(err, cap, "out of memory");
		return -1;
	}
	pthread_mutex_lock(&p->lock);
	free(p->want);
	p->want = copy;
	p->changed = true;
	pthread_mutex_unlock(&p->lock);
	curl_multi_wakeup(p->multi);
	return 0;
}

void dra_pub_stats(void *pub, struct dra_pub_stats *out)
{
	struct pub *p = pub;
	pthread_mutex_lock(&p->lock);
	*out = p->st;
	pthread_mutex_unlock(&p->lock);
}

void dra_pub_stop(void *pub, int remove)
{
	struct pub *p = pub;
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	p->remove = remove != 0;
	pthread_mutex_unlock(&p->lock);
	curl_multi_wakeup(p->multi);
	pthread_join(p->th, NULL);
	curl_multi_cleanup(p->multi);
	have_reset(p);
	chunks_free(p);
	pthread_mutex_destroy(&p->lock);
	free(p->want);
	free(p->cur);
	free(p->last_canon);
	free(p->rv);
	free(p->node_uid);
	free(p->driver);
	free(p->node);
	free(p);
}
