/* SPDX-License-Identifier: MIT */
/* Event notifications: a pool of threads that wait for events and write their handles
 * to file descriptors (notify.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ccall.h"
#include "internal.h"
#include "notify.h"
#include "vjob.h"

enum { N_PENDING, N_WRITING, N_DONE, N_ABANDONED };

struct axl__notice {
	pthread_mutex_t lock;
	pthread_cond_t cond; /* on CLOCK_MONOTONIC: settle waits on it with a deadline */
	int state;
	int rc;
	char msg[512]; /* axl_error_last() of the waiting thread after a failed wait */
	int fd;
	uint64_t handle;
	const struct axl__compute_ops *ops;
	void *bstate;
	void *native;
};

struct nthread {
	struct axl__notifier *pool;
	pthread_cond_t cond; /* with the pool's lock: a job came, or the pool closes */
	struct axl__notice *job;
	struct nthread *next_idle;
};

struct axl__notifier {
	pthread_mutex_t lock;
	struct nthread *idle;
	int threads; /* alive, idle or busy: the last to end frees a closed pool */
	bool closing;
};

static void notice_destroy(struct axl__notice *n)
{
	pthread_mutex_destroy(&n->lock);
	pthread_cond_destroy(&n->cond);
	free(n);
}

static void pool_destroy(struct axl__notifier *p)
{
	pthread_mutex_destroy(&p->lock);
	free(p);
}

/* The event completed (rc: how; m: the message of a failure): hand its handle over,
 * unless the notice was abandoned. */
static void finish(struct axl__notice *n, int rc, const char *m)
{
	pthread_mutex_lock(&n->lock);
	if (n->state == N_ABANDONED) {
		pthread_mutex_unlock(&n->lock);
		notice_destroy(n);
		return;
	}
	n->rc = rc;
	snprintf(n->msg, sizeof n->msg, "%s", m ? m : "");
	n->state = N_WRITING;
	pthread_mutex_unlock(&n->lock);
	/* 8 bytes are written whole to a pipe (PIPE_BUF) or not at all; a signal retries */
	ssize_t w;
	do
		w = write(n->fd, &n->handle, sizeof n->handle);
	while (w < 0 && errno == EINTR);
	pthread_mutex_lock(&n->lock);
	if (n->state == N_ABANDONED) { /* a full pipe nobody read until the deadline */
		pthread_mutex_unlock(&n->lock);
		notice_destroy(n);
		return;
	}
	n->state = N_DONE;
	pthread_cond_broadcast(&n->cond);
	pthread_mutex_unlock(&n->lock);
}

/* The backend's completion callback (compute_impl.h: event_notify). */
static void completed(void *arg, int rc)
{
	finish(arg, rc, rc ? axl_strerror(rc) : NULL);
}

/* On a pool thread: wait for the event, then hand it over. */
static void run(struct axl__notice *n)
{
	int rc = n->ops->event_wait(n->bstate, n->native);
	finish(n, rc, rc ? axl__error_text() : NULL);
}

static void *thread_main(void *arg)
{
	struct nthread *t = arg;
	struct axl__notifier *p = t->pool;
	/* nobody waits for this thread under a deadline: vendor calls are made here */
	axl__ccall_direct_here();
	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (!t->job && !p->closing)
			pthread_cond_wait(&t->cond, &p->lock);
		struct axl__notice *n = t->job;
		if (!n)
			break;
		pthread_mutex_unlock(&p->lock);
		run(n);
		pthread_mutex_lock(&p->lock);
		t->job = NULL;
		if (p->closing)
			break;
		t->next_idle = p->idle;
		p->idle = t;
	}
	bool last = --p->threads == 0;
	pthread_mutex_unlock(&p->lock);
	pthread_cond_destroy(&t->cond);
	free(t);
	if (last)
		pool_destroy(p); /* closing: the pool's owner let go of it */
	return NULL;
}

struct axl__notifier *axl__notifier_new(void)
{
	struct axl__notifier *p = calloc(1, sizeof *p);
	if (p)
		pthread_mutex_init(&p->lock, NULL);
	return p;
}

void axl__notifier_free(struct axl__notifier *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->closing = true;
	for (struct nthread *t = p->idle; t; t = t->next_idle)
		pthread_cond_signal(&t->cond);
	p->idle = NULL;
	bool none = p->threads == 0;
	pthread_mutex_unlock(&p->lock);
	if (none)
		pool_destroy(p);
}

/* A thread for job n: an idle one, else a new one. */
static int dispatch(struct axl__notifier *p, struct axl__notice *n)
{
	pthread_mutex_lock(&p->lock);
	struct nthread *t = p->idle;
	if (t) {
		p->idle = t->next_idle;
		t->job = n;
		pthread_cond_signal(&t->cond);
		pthread_mutex_unlock(&p->lock);
		return 0;
	}
	p->threads++; /* before it runs: it may be done, and counted out, before we return */
	pthread_mutex_unlock(&p->lock);
	if (!(t = calloc(1, sizeof *t)))
		goto fail;
	t->pool = p;
	t->job = n;
	pthread_cond_init(&t->cond, NULL);
	pthread_attr_t pa;
	pthread_attr_init(&pa);
	pthread_attr_setdetachstate(&pa, PTHREAD_CREATE_DETACHED);
	pthread_t tid;
	int e = pthread_create(&tid, &pa, thread_main, t);
	pthread_attr_destroy(&pa);
	if (!e)
		return 0;
	pthread_cond_destroy(&t->cond);
	free(t);
fail:
	pthread_mutex_lock(&p->lock);
	p->threads--;
	pthread_mutex_unlock(&p->lock);
	return axl__error(AXL_ENOMEM, "compute: no thread to wait for an event's notification");
}

int axl__notice_start(struct axl__notifier *p, const struct axl__compute_ops *ops, void *state, void *native,
		      int fd, uint64_t handle, struct axl__notice **out)
{
	struct axl__notice *n = calloc(1, sizeof *n);
	if (!n)
		return axl__error(AXL_ENOMEM, "compute: out of memory for an event's notification");
	pthread_mutex_init(&n->lock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&n->cond, &ca);
	pthread_condattr_destroy(&ca);
	n->state = N_PENDING;
	n->fd = fd;
	n->handle = handle;
	n->ops = ops;
	n->bstate = state;
	n->native = native;
	/* the runtime's own completion callback wakes the loop from the thread it woke; a
	 * pool thread is one more for it to wake */
	if (ops->event_notify && ops->event_notify(state, native, completed, n) == 0) {
		*out = n;
		return 0;
	}
	int rc = dispatch(p, n);
	if (rc) {
		notice_destroy(n);
		return rc;
	}
	*out = n;
	return 0;
}

int axl__notice_done(struct axl__notice *n, int *rc)
{
	char msg[sizeof n->msg];
	pthread_mutex_lock(&n->lock);
	/* being written is done: how it ended is known (the reader that was woken asks
	 * before the writer is back from write(); the runtime need not be asked again) */
	bool done = n->state == N_WRITING || n->state == N_DONE;
	if (done) {
		*rc = n->rc;
		memcpy(msg, n->msg, sizeof msg);
	}
	pthread_mutex_unlock(&n->lock);
	if (done && *rc)
		axl__error(*rc, "%s", msg[0] ? msg : axl_strerror(*rc));
	return done;
}

int axl__notice_settle(struct axl__notice *n, int timeout_ms)
{
	struct timespec dl;
	axl__deadline(&dl, timeout_ms > 0 ? timeout_ms : 60000);
	pthread_mutex_lock(&n->lock);
	int wr = 0;
	while ((n->state == N_PENDING || n->state == N_WRITING) && wr != ETIMEDOUT)
		wr = pthread_cond_timedwait(&n->cond, &n->lock, &dl);
	if (n->state != N_DONE) {
		n->state = N_ABANDONED; /* the thread frees it */
		pthread_mutex_unlock(&n->lock);
		return AXL_ETIMEDOUT;
	}
	pthread_mutex_unlock(&n->lock);
	notice_destroy(n);
	return 0;
}
