/* SPDX-License-Identifier: MIT */
/* The limiter's compute limit: a GCRA token bucket per device and a controller thread
 * that adapts its rate from measured utilisation. See climit.h for the design. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "axl/error.h"
#include "climit.h"
#include "region.h"

#define CL_MAX_DEV AXL__REGION_MAX_DEVICES
#define TICK_NS 10000000LL     /* the controller's period */
#define BURST_NS 20000000LL    /* the most credit an idle device earns */
#define MAX_SLEEP_NS 20000000LL /* a waiting launch re-reads the rate at least this often */
#define SMOOTH_S 0.2           /* EWMA time constant of u and c */
#define KI 0.3                 /* integral gain on the relative error, per second */
#define PRIME_S 0.4            /* launches seen before the first model-based rate */
#define RATE_MIN 0.5
#define RATE_MAX 1e9
#define HIST 256

struct cl_dev {
	_Atomic unsigned percent;
	struct axl__region_compute *w; /* &local, or the region's record */
	struct axl__region_compute local;
	/* controller state (the thread, under mu) */
	unsigned cur_pct;
	double x;      /* log of the rate (units/s) */
	double integ;  /* integral correction of the remaining error */
	double ubar, cbar;
	double seen_s; /* seconds with launches since the limit was set */
	int primed, have_u;
	int64_t hist_t[HIST];
	uint64_t hist_c[HIST];
	unsigned hist_n, hist_i;
};

struct axl__climit {
	struct cl_dev dev[CL_MAX_DEV];
	struct axl__climit_source src;
	int have_src;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t thread;
	int stop;
};

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void sleep_ns(int64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000LL), (long)(ns % 1000000000LL) };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* the first guess: 10 x percent units/s (1 ms kernels would sit at the target) */
static uint64_t initial_npu(unsigned pct)
{
	return (uint64_t)(16.0 * 1e9 / (10.0 * pct));
}

static uint64_t rate_to_npu(double rate)
{
	double v = 16.0 * 1e9 / rate;
	return v < 1 ? 1 : (uint64_t)v;
}

/* ---- the launch gate ------------------------------------------------------------- */

void axl__climit_before_launch(struct axl__climit *c, int dev, uint64_t cost)
{
	if (!c || dev < 0 || dev >= CL_MAX_DEV)
		return;
	struct cl_dev *d = &c->dev[dev];
	unsigned pct = atomic_load_explicit(&d->percent, memory_order_relaxed);
	if (pct == 0 || pct >= 100)
		return;
	struct axl__region_compute *w = d->w;
	if (cost > (1u << 20))
		cost = 1u << 20;
	for (;;) {
		uint64_t npu = atomic_load_explicit(&w->ns_per_unit, memory_order_relaxed);
		if (npu == 0)
			npu = initial_npu(pct);
		int64_t now = now_ns();
		int64_t tat = atomic_load(&w->tat_ns);
		int64_t base = tat < now - BURST_NS ? now - BURST_NS : tat;
		if (base > now) {
			int64_t wait = base - now;
			sleep_ns(wait > MAX_SLEEP_NS ? MAX_SLEEP_NS : wait);
			continue;
		}
		unsigned __int128 inc = (unsigned __int128)cost * npu / 16;
		int64_t next = base + (inc > (unsigned __int128)INT64_MAX / 4 ? INT64_MAX / 4 : (int64_t)inc);
		if (atomic_compare_exchange_weak(&w->tat_ns, &tat, next)) {
			atomic_fetch_add_explicit(&w->charged, cost, memory_order_relaxed);
			return;
		}
	}
}

/* ---- the controller -------------------------------------------------------------- */

static void dev_reset(struct cl_dev *d, unsigned pct)
{
	d->cur_pct = pct;
	d->ubar = d->cbar = 0;
	d->seen_s = 0;
	d->primed = d->have_u = 0;
	d->integ = 0;
	d->hist_n = d->hist_i = 0;
	uint64_t npu = atomic_load(&d->w->ns_per_unit);
	if (npu == 0) {
		/* first in the workload: the initial guess (another process may have won) */
		uint64_t want = initial_npu(pct), zero = 0;
		if (!atomic_compare_exchange_strong(&d->w->ns_per_unit, &zero, want))
			npu = zero;
		else
			npu = want;
	}
	d->x = log(16.0 * 1e9 / (double)npu);
}

static void dev_tick(struct axl__climit *c, int i, struct cl_dev *d, unsigned pct, int64_t now, double dt)
{
	if (pct != d->cur_pct)
		dev_reset(d, pct);
	uint64_t charged = atomic_load(&d->w->charged);
	/* the charge over the source's window (at least two ticks) */
	d->hist_t[d->hist_i] = now;
	d->hist_c[d->hist_i] = charged;
	d->hist_i = (d->hist_i + 1) % HIST;
	if (d->hist_n < HIST)
		d->hist_n++;
	int64_t win = (int64_t)c->src.window_ms * 1000000LL;
	if (win < 2 * TICK_NS)
		win = 2 * TICK_NS;
	unsigned k = (d->hist_i + HIST - d->hist_n) % HIST; /* the oldest */
	for (unsigned n = 0; n + 1 < d->hist_n; n++) {
		unsigned j = (k + 1) % HIST;
		if (d->hist_t[j] > now - win)
			break;
		k = j;
	}
	double span = (double)(now - d->hist_t[k]) / 1e9;
	if (span <= 0)
		return;
	double crate = (double)(charged - d->hist_c[k]) / span;
	double a = dt / SMOOTH_S;
	if (a > 1)
		a = 1;
	d->cbar += a * (crate - d->cbar);
	unsigned u = 0;
	if (c->have_src && c->src.read(c->src.ctx, i, &u) == 0) {
		if (u > 100)
			u = 100;
		if (!d->have_u)
			d->ubar = u;
		d->have_u = 1;
		d->ubar += a * ((double)u - d->ubar);
	}
	if (!d->have_u || d->cbar < 1e-3)
		return; /* nothing measured, or nothing launched: keep the rate */
	d->seen_s += dt;
	double target = (double)pct;
	/* u and c cover the same window (the source's), so k = u / c is a unit's share of
	 * the device; wait until the history spans that window */
	if (d->seen_s < PRIME_S + (double)win / 1e9)
		return;
	double want;
	if (d->ubar >= 97) {
		/* saturated: k is at least u / c, so target / k at most target * c / u */
		want = log(target * d->cbar / 100.0) - 0.2;
		if (want > d->x)
			want = d->x;
	} else if (d->ubar < 0.5) {
		/* launches the device does not notice: let more through, quickly */
		want = d->x + 0.5;
		d->primed = 0;
	} else {
		double err = (target - d->ubar) / target;
		d->integ += KI * (err > 1 ? 1 : err < -1 ? -1 : err) * dt;
		if (d->integ > 0.3)
			d->integ = 0.3;
		if (d->integ < -0.3)
			d->integ = -0.3;
		want = log(target * d->cbar / d->ubar) + d->integ;
	}
	double g = dt / (0.3 + (double)win / 1e9);
	if (!d->primed)
		g = 1;
	d->primed = 1;
	d->x += (g > 1 ? 1 : g) * (want - d->x);
	if (d->x < log(RATE_MIN))
		d->x = log(RATE_MIN);
	if (d->x > log(RATE_MAX))
		d->x = log(RATE_MAX);
	atomic_store(&d->w->ns_per_unit, rate_to_npu(exp(d->x)));
}

static void *controller(void *arg)
{
	struct axl__climit *c = arg;
	int64_t last = now_ns();
	pthread_mutex_lock(&c->mu);
	while (!c->stop) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += TICK_NS;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&c->cv, &c->mu, &ts);
		if (c->stop)
			break;
		int64_t now = now_ns();
		double dt = (double)(now - last) / 1e9;
		last = now;
		if (dt > 0.5)
			dt = 0.5; /* a stalled thread does not take one huge step */
		for (int i = 0; i < CL_MAX_DEV; i++) {
			struct cl_dev *d = &c->dev[i];
			unsigned pct = atomic_load(&d->percent);
			if (pct == 0 || pct >= 100) {
				d->cur_pct = 0;
				continue;
			}
			dev_tick(c, i, d, pct, now, dt);
		}
	}
	pthread_mutex_unlock(&c->mu);
	return NULL;
}

int axl__climit_init(struct axl__climit **out, struct axl__region *region, const struct axl__climit_source *util)
{
	if (!out)
		return AXL_EINVAL;
	*out = NULL;
	if (util && !util->read)
		return AXL_EINVAL;
	struct axl__climit *c = calloc(1, sizeof *c);
	if (!c)
		return AXL_ENOMEM;
	for (int i = 0; i < CL_MAX_DEV; i++) {
		struct axl__region_compute *w = region ? axl__region_compute(region, i) : NULL;
		c->dev[i].w = w ? w : &c->dev[i].local;
	}
	if (util) {
		c->src = *util;
		c->have_src = 1;
	}
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&c->cv, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_init(&c->mu, NULL);
	/* the thread must not take the program's signals */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int rc = pthread_create(&c->thread, NULL, controller, c);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		pthread_cond_destroy(&c->cv);
		pthread_mutex_destroy(&c->mu);
		free(c);
		return AXL_ENOMEM;
	}
	*out = c;
	return AXL_OK;
}

void axl__climit_set(struct axl__climit *c, int dev, unsigned percent)
{
	if (!c || dev < 0 || dev >= CL_MAX_DEV)
		return;
	atomic_store(&c->dev[dev].percent, percent >= 100 ? 0 : percent);
}

void axl__climit_stats(struct axl__climit *c, int dev, double *rate, double *util)
{
	double r = 0, u = 0;
	if (c && dev >= 0 && dev < CL_MAX_DEV) {
		pthread_mutex_lock(&c->mu);
		struct cl_dev *d = &c->dev[dev];
		if (atomic_load(&d->percent) != 0) {
			uint64_t npu = atomic_load(&d->w->ns_per_unit);
			r = npu ? 16.0 * 1e9 / (double)npu : 0;
			u = d->ubar;
		}
		pthread_mutex_unlock(&c->mu);
	}
	if (rate)
		*rate = r;
	if (util)
		*util = u;
}

void axl__climit_free(struct axl__climit *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&c->mu);
	c->stop = 1;
	pthread_cond_signal(&c->cv);
	pthread_mutex_unlock(&c->mu);
	pthread_join(c->thread, NULL);
	if (c->have_src && c->src.release)
		c->src.release(c->src.ctx);
	pthread_cond_destroy(&c->cv);
	pthread_mutex_destroy(&c->mu);
	free(c);
}

/* ---- sources --------------------------------------------------------------------- */

static int file_read(void *ctx, int dev, unsigned *percent)
{
	FILE *f = fopen((const char *)ctx, "re");
	if (!f)
		return -1;
	char line[256];
	int rc = -1;
	while (fgets(line, sizeof line, f)) {
		if (line[0] == '#')
			continue;
		int ord;
		char bus[64];
		unsigned pct;
		if (sscanf(line, "%d %63s %u", &ord, bus, &pct) == 3 && ord == dev) {
			*percent = pct;
			rc = 0;
			break;
		}
	}
	fclose(f);
	return rc;
}

int axl__climit_source_file(struct axl__climit_source *out, const char *path)
{
	if (!out || !path || !*path)
		return AXL_EINVAL;
	char *p = strdup(path);
	if (!p)
		return AXL_ENOMEM;
	*out = (struct axl__climit_source){ file_read, p, 1000, free };
	return AXL_OK;
}

