/* SPDX-License-Identifier: MIT */
/* A vendor compute backend's blocking calls under the vendor deadline (ccall.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ccall.h"
#include "internal.h"
#include "vjob.h"

enum { W_IDLE, W_BUSY, W_DONE, W_ABANDONED, W_QUIT };

struct worker {
	pthread_mutex_t lock;
	pthread_cond_t cond; /* on CLOCK_MONOTONIC: the caller waits on it with a deadline */
	int state;
	int (*fn)(void *);
	void *arg; /* the worker's copy of the caller's arguments */
	int rc;
	char msg[512]; /* axl_error_last() of the worker's thread after fn */
	struct worker *next_idle;
};

struct axl__ccall {
	pthread_mutex_t lock;
	struct worker *idle;
	char lib[32];
	int timeout_ms;
};

static void worker_destroy(struct worker *w)
{
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->cond);
	free(w->arg);
	free(w);
}

static void *worker_main(void *p)
{
	struct worker *w = p;
	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (w->state == W_IDLE || w->state == W_DONE)
			pthread_cond_wait(&w->cond, &w->lock);
		if (w->state == W_QUIT)
			break;
		pthread_mutex_unlock(&w->lock);
		int rc = w->fn(w->arg);
		const char *m = rc ? axl__error_text() : NULL;
		pthread_mutex_lock(&w->lock);
		w->rc = rc;
		snprintf(w->msg, sizeof w->msg, "%s", m ? m : "");
		if (w->state == W_ABANDONED)
			break; /* the caller gave up on us: nobody will read the answer */
		w->state = W_DONE;
		pthread_cond_broadcast(&w->cond);
	}
	pthread_mutex_unlock(&w->lock);
	worker_destroy(w);
	return NULL;
}

static struct worker *worker_new(void)
{
	struct worker *w = calloc(1, sizeof *w);
	if (!w)
		return NULL;
	pthread_mutex_init(&w->lock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->cond, &ca);
	pthread_condattr_destroy(&ca);
	w->state = W_IDLE;
	pthread_attr_t pa;
	pthread_attr_init(&pa);
	pthread_attr_setdetachstate(&pa, PTHREAD_CREATE_DETACHED);
	pthread_t t;
	int rc = pthread_create(&t, &pa, worker_main, w);
	pthread_attr_destroy(&pa);
	if (rc) {
		pthread_mutex_destroy(&w->lock);
		pthread_cond_destroy(&w->cond);
		free(w);
		return NULL;
	}
	return w;
}

struct axl__ccall *axl__ccall_new(const char *lib, int timeout_ms)
{
	struct axl__ccall *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	pthread_mutex_init(&p->lock, NULL);
	snprintf(p->lib, sizeof p->lib, "%s", lib);
	p->timeout_ms = timeout_ms;
	return p;
}

void axl__ccall_free(struct axl__ccall *p)
{
	if (!p)
		return;
	struct worker *w = p->idle;
	while (w) {
		struct worker *next = w->next_idle;
		pthread_mutex_lock(&w->lock);
		w->state = W_QUIT;
		pthread_cond_broadcast(&w->cond);
		pthread_mutex_unlock(&w->lock);
		w = next;
	}
	pthread_mutex_destroy(&p->lock);
	free(p);
}

static _Thread_local bool direct;

void axl__ccall_direct_here(void)
{
	direct = true;
}

int axl__ccall_run(struct axl__ccall *p, int (*fn)(void *), void *arg, size_t size, const char *what)
{
	if (axl__vlib_wedged(p->lib))
		return axl__error(AXL_ETIMEDOUT, "%s: %s not called: a call into %s hung earlier in this process",
				  p->lib, what, p->lib);
	if (p->timeout_ms <= 0 || direct)
		return fn(arg);
	pthread_mutex_lock(&p->lock);
	struct worker *w = p->idle;
	if (w)
		p->idle = w->next_idle;
	pthread_mutex_unlock(&p->lock);
	if (!w && !(w = worker_new()))
		return fn(arg); /* no thread can be made: the call runs here, without a deadline */
	void *copy = malloc(size ? size : 1);
	if (!copy) {
		/* the worker goes back idle unused */
		pthread_mutex_lock(&p->lock);
		w->next_idle = p->idle;
		p->idle = w;
		pthread_mutex_unlock(&p->lock);
		return axl__error(AXL_ENOMEM, "%s: out of memory for %s", p->lib, what);
	}
	memcpy(copy, arg, size);
	struct timespec dl;
	axl__deadline(&dl, p->timeout_ms);
	pthread_mutex_lock(&w->lock);
	free(w->arg);
	w->arg = copy;
	w->fn = fn;
	w->state = W_BUSY;
	pthread_cond_broadcast(&w->cond);
	int wr = 0;
	while (w->state == W_BUSY && wr != ETIMEDOUT)
		wr = pthread_cond_timedwait(&w->cond, &w->lock, &dl);
	if (w->state != W_DONE) {
		/* missed the deadline: the worker is on its own from here, and frees itself */
		w->state = W_ABANDONED;
		pthread_mutex_unlock(&w->lock);
		axl__vlib_wedge(p->lib);
		return axl__error(AXL_ETIMEDOUT, "%s: %s did not return within %d ms (axl stops calling %s)", p->lib,
				  what, p->timeout_ms, p->lib);
	}
	memcpy(arg, w->arg, size);
	/* an idle worker keeps no copy: its stale pointers would hold whatever the last call
	 * named reachable (LeakSanitizer found a leaked context through one) */
	free(w->arg);
	w->arg = NULL;
	int rc = w->rc;
	char msg[sizeof w->msg];
	memcpy(msg, w->msg, sizeof msg);
	w->state = W_IDLE;
	pthread_mutex_unlock(&w->lock);
	pthread_mutex_lock(&p->lock);
	w->next_idle = p->idle;
	p->idle = w;
	pthread_mutex_unlock(&p->lock);
	if (rc)
		axl__error(rc, "%s", msg[0] ? msg : axl_strerror(rc));
	return rc;
}
