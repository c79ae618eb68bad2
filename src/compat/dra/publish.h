/* SPDX-License-Identifier: MIT */
/*
 * Inside the ResourceSlice publisher (publish.c: what is wanted, the writes, the thread;
 * publish_read.c: what is stored, as LIST and WATCH tell it). Not a header of the module's
 * interface: api.h is.
 */
#ifndef AXL_DRA_PUBLISH_H
#define AXL_DRA_PUBLISH_H

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <time.h>

#include <curl/curl.h>

#include "../../util/jsonr.h"
#include "../../util/strbuf.h"
#include "api.h"
#include "client.h"

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

static inline double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline void say(struct pub *p, int level, const char *fmt, ...)
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

static inline void count(struct pub *p, unsigned long *field)
{
	pthread_mutex_lock(&p->lock);
	(*field)++;
	pthread_mutex_unlock(&p->lock);
}

static inline const char *jstr(const struct axl__jv *o, const char *a, const char *b)
{
	const struct axl__jv *x = axl__jv_get(o, a);
	return b ? axl__jv_str(x, b) : axl__jv_str(o, a);
}

/* ---- publish_read.c: what is stored ---------------------------------------------------- */

void pub_have_clear(struct have *h);
void pub_have_reset(struct pub *p);
int pub_have_find(const struct pub *p, const char *name);
/* qsort's order of the stored slices: by name */
int pub_name_cmp(const void *a, const void *b);
/* Put obj in (replacing the one of its name), or take it out (gone). */
void pub_have_upsert(struct pub *p, const struct axl__jv *obj, bool gone);
/* Is what is stored what is wanted? */
bool pub_pool_matches(const struct pub *p);
/* A Status answer's message, as ": <message>" (or ""), into out */
void pub_status_msg(const char *body, size_t len, char *out, size_t cap);
/* LIST the driver's slices of the node (in chunks) into p->have and p->rv. 0, or -1 (said). */
int pub_list(struct pub *p);
/* The watch from p->rv, in p->multi: started (0) or not (-1, said); ended. */
int pub_watch_begin(struct pub *p);
void pub_watch_end(struct pub *p);
/* The watch's transfer ended: 0 start another at once, 1 list again, -1 a failure. */
int pub_watch_done(struct pub *p, CURLcode res);

#endif
