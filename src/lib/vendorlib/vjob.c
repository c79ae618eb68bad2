/* SPDX-License-Identifier: MIT */
/* Vendor-library calls under a deadline (vjob.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vjob.h"

struct axl__vjob {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int refs;
	bool done;
	void (*work)(void *);
	void (*release)(void *);
	void *arg;
};

static void unref(struct axl__vjob *j)
{
	pthread_mutex_lock(&j->lock);
	int left = --j->refs;
	pthread_mutex_unlock(&j->lock);
	if (left)
		return;
	if (j->release)
		j->release(j->arg);
	pthread_mutex_destroy(&j->lock);
	pthread_cond_destroy(&j->cond);
	free(j);
}

static void *worker(void *p)
{
	struct axl__vjob *j = p;
	j->work(j->arg);
	pthread_mutex_lock(&j->lock);
	j->done = true;
	pthread_cond_signal(&j->cond);
	pthread_mutex_unlock(&j->lock);
	unref(j);
	return NULL;
}

struct axl__vjob *axl__vjob_start(void (*work)(void *), void (*release)(void *), void *arg)
{
	struct axl__vjob *j = calloc(1, sizeof *j);
	if (!j) {
		if (release)
			release(arg);
		return NULL;
	}
	j->work = work;
	j->release = release;
	j->arg = arg;
	pthread_mutex_init(&j->lock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&j->cond, &ca);
	pthread_condattr_destroy(&ca);
	j->refs = 2;
	pthread_attr_t pa;
	pthread_attr_init(&pa);
	pthread_attr_setdetachstate(&pa, PTHREAD_CREATE_DETACHED);
	pthread_t t;
	int rc = pthread_create(&t, &pa, worker, j);
	pthread_attr_destroy(&pa);
	if (rc != 0) {
		/* no thread: the calls run here, without a deadline */
		j->refs = 1;
		work(arg);
		j->done = true;
	}
	return j;
}

/* ---- wedged libraries ------------------------------------------------------------------- */

#define MAX_LIBS 8
static pthread_mutex_t wedge_lock = PTHREAD_MUTEX_INITIALIZER;
static char wedged[MAX_LIBS][16];

bool axl__vlib_wedged(const char *lib)
{
	bool r = false;
	pthread_mutex_lock(&wedge_lock);
	for (int i = 0; i < MAX_LIBS && !r; i++)
		r = strcmp(wedged[i], lib) == 0;
	pthread_mutex_unlock(&wedge_lock);
	return r;
}

void axl__vlib_wedge(const char *lib)
{
	pthread_mutex_lock(&wedge_lock);
	for (int i = 0; i < MAX_LIBS; i++) {
		if (strcmp(wedged[i], lib) == 0)
			break;
		if (!wedged[i][0]) {
			strncpy(wedged[i], lib, sizeof wedged[i] - 1);
			break;
		}
	}
	pthread_mutex_unlock(&wedge_lock);
}

void axl__deadline(struct timespec *dl, int timeout_ms)
{
	clock_gettime(CLOCK_MONOTONIC, dl);
	dl->tv_sec += timeout_ms / 1000;
	dl->tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	if (dl->tv_nsec >= 1000000000L) {
		dl->tv_sec++;
		dl->tv_nsec -= 1000000000L;
	}
}

bool axl__vjob_wait(struct axl__vjob *j, int timeout_ms, const char *lib)
{
	struct timespec dl;
	axl__deadline(&dl, timeout_ms);
	pthread_mutex_lock(&j->lock);
	int rc = 0;
	while (!j->done && rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&j->cond, &j->lock, &dl);
	bool done = j->done;
	pthread_mutex_unlock(&j->lock);
	if (done)
		return true;
	axl__vlib_wedge(lib);
	unref(j);
	return false;
}

void *axl__vjob_arg(const struct axl__vjob *j)
{
	return j ? j->arg : NULL;
}

void axl__vjob_free(struct axl__vjob *j)
{
	if (j)
		unref(j);
}
