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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/json.h"
#include "pool.h"
#include "publish.h"

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
			pub_have_upsert(p, axl__jdoc_root(doc), false);
		}
		axl__jdoc_free(doc);
	} else if (strcmp(method, "DELETE") == 0 && status == 404) {
		rc = 0; /* gone already */
	} else {
		char m[400];
		pub_status_msg(resp, len, m, sizeof m);
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
	if (pub_pool_matches(p))
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
			int j = pub_have_find(p, names[i]);
			if (j >= 0) {
				pub_have_clear(&p->have[j]);
				p->have[j] = p->have[--p->nhave];
				qsort(p->have, p->nhave, sizeof *p->have, pub_name_cmp);
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
				pub_watch_end(p);
				rc = pub_list(p) == 0 ? 0 : -1;
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
			if (rc == 0 && !p->w && pub_watch_begin(p) != 0)
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
				 * cannot connect is known later, in pub_watch_done) */
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
					int rc = pub_watch_done(p, m->data.result);
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
	pub_watch_end(p);
	pthread_mutex_lock(&p->lock);
	bool remove = p->remove;
	pthread_mutex_unlock(&p->lock);
	if (remove && pub_list(p) == 0) {
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
	pub_have_reset(p);
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
