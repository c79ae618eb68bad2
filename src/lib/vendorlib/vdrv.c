/* SPDX-License-Identifier: MIT */
/* The one driver of every vendor-library backend (vdrv.h). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "vdrv.h"

/* What a backend keeps between its hooks (*axl__backend_state(inv, self)). */
struct vdrv_state {
	const struct axl__vdrv *d;
	struct axl__vjob *job; /* its arg: the library's job (struct axl__vwork first) */
	bool collected;
	struct axl_device **dev; /* per library device, NULL when not matched */
};

static void job_free(void *arg)
{
	struct axl__vwork *w = arg;
	if (w->d->fini)
		w->d->fini(arg);
	axl__vrec_fini(&w->q.v);
	axl__vwarn_free(&w->warn);
	free(arg);
}

static void job_run(void *arg)
{
	struct axl__vwork *w = arg;
	double t0 = axl__now_ms();
	w->d->collect(arg);
	w->ms = axl__now_ms() - t0;
}

void axl__vdrv_start(const struct axl__vdrv *d, struct axl__scan *scan, const struct axl__backend *self)
{
	struct axl_inventory *inv = scan->inv;
	const char *lib = axl__backend_library(scan->ctx, self);
	struct vdrv_state *st = calloc(1, sizeof *st);
	if (!st)
		return;
	st->d = d;
	*axl__backend_state(inv, self) = st;

	if (axl__vlib_wedged(d->name)) {
		axl__warn(inv, d->name, NULL, "%s did not answer an earlier call in this process; not used",
			  d->display);
		return;
	}
	/* the job (tens of KiB of answers) is allocated only once it will run: a node
	 * without the driver pays for neither its zeroing nor its pages */
	struct axl__vrec v;
	memset(&v, 0, sizeof v);
	/* a driver root is that node's software, asked for as a library named by path is:
	 * a re-rooted tree then loads the library from it instead of replaying answers */
	bool rooted = scan->ctx->driver_root && d->lib->dirs;
	int replay = axl__vlib_replay(scan, d->name, lib ? lib : rooted ? scan->ctx->driver_root : NULL, &v);
	if (replay == 0)
		return;
	/* no kernel driver: nothing the library could tell (and no dlopen cost) */
	if (replay < 0 && !lib && d->present && !d->present(scan->fs))
		return;
	struct axl__vwork *w = calloc(1, d->job_size);
	if (!w) {
		axl__vrec_fini(&v);
		return;
	}
	w->d = d;
	w->q.missing = d->missing;
	w->q.max_handles = d->max_handles;
	w->q.v = v; /* the replayed answers move into the job */
	if (replay < 0) {
		char why[512] = "";
		bool absent = false;
		w->q.lib = axl__vlib_open_ctx(d->lib, scan->ctx, lib, why, sizeof why, &absent);
		if (!w->q.lib) {
			/* the library is optional: how loud its absence is depends on it */
			/* a library named by its variable that does not load is said, except on a
			 * node without the kernel driver, where it had nothing to tell (a fleet's
			 * one configuration on every node) */
			bool driver = !d->present || d->present(scan->fs);
			if (driver &&
			    (d->quiet == AXL__VDRV_WARN || (d->quiet == AXL__VDRV_WARN_THERE && !absent) || lib))
				axl__warn(inv, d->name, lib, "%s not loaded: %s", d->display, why);
			free(w);
			return;
		}
	}
	if (d->prepare)
		d->prepare(scan, self, w);
	/* axl capture: every answer goes into the capture (replay: the file is carried) */
	axl__vlib_record(scan, &w->q.v);
	st->job = axl__vjob_start(job_run, job_free, w);
}

void axl__vdrv_release(struct axl_inventory *inv, const struct axl__backend *self)
{
	struct vdrv_state *st = *axl__backend_state(inv, self);
	if (!st)
		return;
	/* waited for, or never (the inventory failed early): the worker finishes alone */
	if (st->job)
		axl__vjob_free(st->job);
	free(st->dev);
	free(st);
	*axl__backend_state(inv, self) = NULL;
}

int axl__vdrv_enumerate(const struct axl__vdrv *d, struct axl__scan *scan, const struct axl__backend *self)
{
	struct axl_inventory *inv = scan->inv;
	struct vdrv_state *st = *axl__backend_state(inv, self);
	if (!st || !st->job || !axl__vlib_wait(inv, &st->job, d->name, d->display, d->devices))
		return 0;
	struct axl__vwork *w = axl__vjob_arg(st->job);
	/* here, not in the worker: a worker past its deadline must not touch the context */
	axl__vrec_flush(&w->q.v, inv->ctx, d->name);
	axl__vwarn_flush(&w->warn, inv, d->name, d->display);
	size_t n = 0;
	if (d->ready(scan, w, &n)) {
		st->dev = calloc(n ? n : 1, sizeof *st->dev);
		if (st->dev)
			d->apply(scan, w, st->dev);
		st->collected = true;
	}
	struct axl_timing *t = AXL__VEC_PUSH(inv->timings);
	if (t) {
		t->stage = d->timing;
		t->milliseconds = w->ms;
	}
	return 0;
}

void axl__vdrv_link(struct axl__scan *scan, const struct axl__backend *self)
{
	struct vdrv_state *st = *axl__backend_state(scan->inv, self);
	if (st && st->collected && st->dev && st->d->link)
		st->d->link(scan, axl__vjob_arg(st->job), st->dev);
}

void *axl__vdrv_job(const struct axl_inventory *inv, const struct axl__backend *self, struct axl_device ***dev)
{
	const struct vdrv_state *st = axl__backend_state_of(inv, self);
	if (!st || !st->job || !st->collected || !st->dev)
		return NULL;
	*dev = st->dev;
	return axl__vjob_arg(st->job);
}
