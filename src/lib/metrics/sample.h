/* SPDX-License-Identifier: MIT */
/*
 * Live metrics (include/axl/metrics.h), the parts the backends share.
 *
 * sample.c owns the sampler and the sample; each backend that can read metrics has
 * a struct axl__sample_ops (core/backend.h) of three hooks:
 *   open(s, self)              once: find and open what it will read, for the sampler's
 *                              devices it handles, into *axl__sampler_state(s, self);
 *   sample(s, self, out)       each sample: read, and put values (axl__sput) or mark a
 *                              device lost (axl__slost); may add processes;
 *   close(s, self)             release *axl__sampler_state(s, self).
 * A hook must never fail the sample: what it cannot read stays unknown.
 */
#ifndef AXL_LIB_SAMPLE_H
#define AXL_LIB_SAMPLE_H

#include <stdint.h>

#include "axl/metrics.h"
#include "fdinfo.h"
#include "backend.h"

struct axl__sdev {
	struct axl_device *dev;
	uint8_t state; /* axl_sample_state */
	uint8_t src[AXL_METRIC__COUNT];
	double v[AXL_METRIC__COUNT];
};

struct axl_sample {
	const struct axl_inventory *inv;
	int64_t time_ns;    /* CLOCK_REALTIME */
	double mono_ms;     /* CLOCK_MONOTONIC */
	double interval_ms; /* < 0: first sample */
	double cost_us;
	struct axl__sdev *d;
	size_t n;
	AXL__VEC(struct axl_process) procs;
	AXL__VEC(struct axl_workload) workloads;
	AXL__VEC(const char *) warnings; /* strings in the arena */
	AXL__VEC(struct axl_health_event) health; /* messages in the arena */
	struct axl__arena arena; /* process strings */
};

struct axl_sampler {
	const struct axl_inventory *inv;
	axl_context *ctx;
	const struct axl__fs *fs;
	unsigned flags;
	struct axl_device **devs; /* sample order: each device then its children */
	size_t n;
	int *alive_fd; /* per device: its PCI function directory (O_PATH), -1 none */
	void *bstate[AXL__BACKENDS_MAX]; /* per backend, by table index */
	void *sim_state;  /* a simulated node's walk (sim_node.c), or NULL */
	double prev_ms;   /* monotonic time of the previous sample, < 0 none */
	uint64_t count;   /* samples taken */
	/* DRM client statistics: the previous sweep (utilisation needs two) */
	struct axl__fdi_sweep fdi_prev;
	bool have_fdi_prev;
};

/* be's slot in s: what its sample hooks keep between them (NULL when be is no row of
 * the registry). */
void **axl__sampler_state(struct axl_sampler *s, const struct axl__backend *be);

/* The sampler's index of dev (or SIZE_MAX when it is not sampled). */
size_t axl__sindex(const struct axl_sampler *s, const struct axl_device *dev);
/* Put a value (dropped when not finite or when the device is lost). */
void axl__sput(struct axl_sample *out, size_t i, axl_metric m, double v, axl_source src);
/* The device is lost in this sample: its values are dropped, later puts ignored. */
void axl__slost(struct axl_sample *out, size_t i);
/* A process row (strings copied into the sample); NULL on allocation failure. Numbers
 * start unknown (-1). */
struct axl_process *axl__sproc_add(struct axl_sample *out, int pid, const char *device, const char *name,
				   const char *type, axl_source src);
/* Copy a string into the sample (process fields). */
const char *axl__sstr(struct axl_sample *out, const char *s);
/* A health event of device i (AXL_SAMPLER_HEALTH), its message formatted into the
 * sample; dropped on allocation failure. */
void axl__shealth(struct axl_sample *out, size_t i, axl_health_kind kind, bool critical, int64_t code,
		  axl_source src, const char *fmt, ...) __attribute__((format(printf, 7, 8)));

/* Processes from the kernel's DRM client statistics (sample_proc.c). */
void axl__sample_processes(struct axl_sampler *s, struct axl_sample *out);

/* Limited workloads from the limiter's shared regions (sample_workload.c), after the
 * processes (their utilisation is summed per workload). */
void axl__sample_workloads(struct axl_sampler *s, struct axl_sample *out);
/* A warning held by the sample (formatted into the arena). */
void axl__swarn(struct axl_sample *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- counters -> rates ------------------------------------------------------------ */
struct axl__srate {
	uint64_t prev;
	double prev_ms;
	bool have;
};
/* Feed a counter read at now_ms; true with the rate per second in *per_s when there is
 * a previous reading, time moved forward and the counter did not go backwards (a wrap or
 * a reset makes this one reading a fresh start). */
bool axl__srate_step(struct axl__srate *r, uint64_t value, double now_ms, double *per_s);

/* ---- files opened once, read again from offset 0 ----------------------------------- */
/* Open name under dirfd for reading (-1 when it cannot be). */
int axl__sfile_open(const struct axl__fs *fs, int dirfd, const char *name);
/* Read the whole (small) file again: its length (stripped of trailing whitespace,
 * NUL-terminated), or -errno (-ENODEV: the device went away). */
long axl__sfile_read(int fd, char *buf, size_t cap);
/* The file as an unsigned / signed decimal integer: 0, -EINVAL when it is not one, or
 * the read's -errno. */
int axl__sfile_u64(int fd, uint64_t *out);
int axl__sfile_i64(int fd, int64_t *out);
/* Is this read error the device going away (as opposed to "not now")? */
bool axl__sfile_gone(long err);
void axl__sfile_close(int *fd);

#endif
