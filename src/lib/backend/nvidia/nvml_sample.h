/* SPDX-License-Identifier: MIT */
/* NVIDIA live metrics through NVML: what the sampler's caller and its worker share
 * (nvml_sample.c), and the health watch (nvml_health.c). */
#ifndef AXL_NVML_SAMPLE_H
#define AXL_NVML_SAMPLE_H

#include <pthread.h>
#include <stdbool.h>

#include "nvml_job.h"
#include "sample.h"

#define SRC "nvml"
#define NV AXL_SOURCE_NVML

struct nvs_proc {
	unsigned pid;
	unsigned long long mem; /* AXL_NVML_VALUE_NOT_AVAILABLE: unknown */
	bool compute, graphics;
	int sm, enc, dec; /* percent; < 0 unknown */
};

/* One NVML device to read (a GPU or a MIG device). */
struct nvs_target {
	nvmlDevice_t h;
	bool mig;
	size_t parent; /* MIG: the target index of its GPU */
	unsigned gi, ci; /* MIG: its GPU and compute instance (has_ids) */
	bool has_ids;
	/* health: the events registered (GPU), or none it supports */
	unsigned long long watched;
	bool unwatchable;
	/* worker state kept between samples */
	unsigned long long last_ts; /* newest process-utilisation time stamp seen (µs) */
	/* results of the last sample */
	bool lost;
	bool has[AXL_METRIC__COUNT];
	double v[AXL_METRIC__COUNT];
	unsigned long long energy_mj;
	bool has_energy;
	struct nvs_proc *procs;
	unsigned nprocs;
	bool procs_known;
};

/* A health event the worker saw (translated by the caller). */
enum { EV_XID, EV_DBE, EV_WATCH };
struct nvs_event {
	size_t target;
	int what;
	unsigned long long data; /* EV_XID: the Xid */
	nvmlReturn_t rc;         /* EV_WATCH: the failed answer */
	const char *call;        /* EV_WATCH: which call */
	unsigned gi, ci;         /* AXL_NVML_NO_INSTANCE: none */
};
#define MAX_EVENTS 64 /* per sample; more stay queued in NVML for the next */

/* What the caller and the worker share; freed by whichever lets go last. */
struct nvs_shared {
	pthread_mutex_t lock;
	pthread_cond_t wake, done;
	int refs;
	bool quit;
	uint64_t asked, answered;
	bool processes;
	bool metrics; /* not AXL_SAMPLER_NO_METRICS */
	/* health (AXL_SAMPLER_HEALTH) */
	bool health, no_events; /* no_events: the library has no event sets */
	bool opening;           /* the round of axl__nvml_sample_open */
	nvmlEventSet_t set;
	struct nvs_event ev[MAX_EVENTS];
	unsigned nev;
	struct axl__vq q; /* the sampler's own: its handles are discovery's */
	struct nvs_target *t;
	size_t n;
};

struct nvs_state {
	struct nvs_shared *sh;
	bool threaded; /* a worker thread runs the calls (live); replay answers here */
	bool dead;     /* the worker missed a deadline: NVML is not asked again */
	size_t *index; /* per target: the sampler's device index */
	struct axl__srate *energy; /* per target: power from the energy counter */
};

/* nvml_health.c: in the worker, the event set made and every GPU registered (what failed
 * is retried at the next sample); then, unless only opening, what arrived since the last
 * time, into sh->ev */
void axl__nvs_watch(struct nvs_shared *sh, bool opening);
/* nvml_health.c: in the caller, event e as device i's health in out */
void axl__nvs_put_event(struct axl_sample *out, size_t i, const struct nvs_event *e);

#endif
