/* SPDX-License-Identifier: MIT */
/*
 * libaxl_limiter.so's vendor-neutral core (docs/limits.md, "The limiter"): what every side
 * of the limiter (a runtime whose memory and compute it holds: nvidia/ for CUDA, amd/ for
 * HIP) shares, and what none of them knows about another:
 *
 *   front.c     the dlsym front door: the exported dlsym, which asks each side for a name
 *               it accounts (sides.c lists them)
 *   sides.c     the sides, in the order the front door asks them
 *   dl.c        the real dlsym, and which library a handle is
 *   log.c       the log (AXL_LIMITER_LOG)
 *   limits.c    a device's limits (AXL_LIMIT_*, the state directory's records) and
 *               attaching the shared region
 *   allocmap.c  an allocation map: (key, kind) -> (region device, bytes, references), one
 *               per side
 *   region.c, state.c, climit.c   the shared region, the state file, the compute limit
 *
 * A side includes this header and never another side's; the core includes no side's.
 */
#ifndef AXL_LIMITER_CORE_H
#define AXL_LIMITER_CORE_H

#include <pthread.h>
#include <stdint.h>

#include "region.h"

#define AXL__LIM_API __attribute__((visibility("default")))

/* dlsym's front door runs before a sanitizer runtime is ready (AddressSanitizer resolves
 * its interceptors with dlsym while it initialises): no instrumentation there */
#if defined(__clang__) || defined(__GNUC__)
#define AXL__LIM_NOSAN __attribute__((no_sanitize("address", "undefined")))
#else
#define AXL__LIM_NOSAN
#endif

/* ---- log.c ------------------------------------------------------------------------------ */
enum { AXL__LOG_ERROR, AXL__LOG_WARN, AXL__LOG_INFO, AXL__LOG_DEBUG };
/* "axl-limiter: <level>: <message>" on standard error, at AXL_LIMITER_LOG's level or more
 * severe (default warn; the variable is read on the first message) */
void axl__lim_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- dl.c ------------------------------------------------------------------------------- */
/* The real dlsym (libc's, past the limiter's). */
typedef void *(*dlsym_fn)(void *, const char *);
dlsym_fn axl__lim_real_dlsym(void);
/* Is h a handle of the library: RTLD_DEFAULT/NEXT, own (the side's own handle of it), a
 * file whose name starts with prefix ("libcuda.so"), or the file $env names? */
int axl__lim_is_lib_handle(void *h, void *own, const char *prefix, const char *env);

/* ---- sides.c ---------------------------------------------------------------------------- */
/* A side of the limiter, as the front door sees it. */
struct axl__lim_side {
	const char *name; /* "CUDA", "HIP": the runtime, in messages */
	/* the first bytes of every name the side may answer ("cu", "hip", "nv"): the front
	 * door passes every other name straight to the real dlsym */
	const char *prefixes[3];
	/* the side's entry for name asked of handle, NULL when the name is not one it
	 * accounts (or the library lacks it): the front door then asks the next side, and
	 * at the end the real dlsym answers */
	void *(*dlsym)(dlsym_fn real, void *handle, const char *name);
};
/* NULL-terminated, in the order the front door asks them */
extern const struct axl__lim_side *const axl__lim_sides[];

/* ---- limits.c --------------------------------------------------------------------------- */
/* One device as a side sees it (its ordinal: the runtime's, after its visibility variables). */
struct axl__lim_dev {
	char uuid[AXL__REGION_UUID_MAX];
	int rdev;       /* its index in the region, -1: not accounted */
	int broken;     /* memory fails closed: every allocation refused */
	int64_t memory; /* the configured memory limit, -1 none */
	int compute;    /* percent, -1 none */
};
/* The smaller of d's limit and v (v < 0: none) */
void axl__lim_memory_min(struct axl__lim_dev *d, int64_t v);
void axl__lim_compute_min(struct axl__lim_dev *d, int v);
/* AXL_LIMIT_* for device i, matched by d->uuid (case-insensitive): d->memory, d->compute,
 * d->broken (a malformed or unknown-version variable) */
void axl__lim_limits_axl(int i, struct axl__lim_dev *d);
/* Does the environment hold a set of AXL_LIMIT_* lists (with a suffix or without)? */
int axl__lim_env_named(void);
/* The state directory's limit records (state.c), read for one side ("CUDA", "HIP") with an
 * error logged when the file is unusable; NULL (logged) when out of memory; free() it. */
struct axl__lim_state;
struct axl__lim_state *axl__lim_state_load(const char *side);
/* st's records for d by d->uuid (case-insensitive): d->memory, d->compute; st NULL or
 * broken: d->broken (fails closed). */
void axl__lim_limits_state(const struct axl__lim_state *st, struct axl__lim_dev *d);
/* Attach the workload's shared region ($AXL_LIMITER_REGION, else the state directory's
 * default) with these limits and map each of the n devices to its index in it (rdev). A
 * region that cannot be attached leaves *out NULL and every device with a memory limit
 * fails closed (broken), as does a limited device the region lacks; each is logged, side
 * naming the runtime. */
void axl__lim_region_attach(axl__region **out, struct axl__lim_dev *devs, const struct axl__region_limit *lims,
			    int n, const char *side);

/* ---- allocmap.c ------------------------------------------------------------------------- */
/* The live allocations of one side: (key, kind) -> (region device, bytes, references). A
 * side's kinds are its own small integers (pointer, VMM handle, array ...). References come
 * in two classes, counted apart: the handles' (the put's, and each time the runtime hands
 * the handle out again) and the mappings' (each live mapping of the allocation's memory); the
 * entry goes with the last of both, and a class with none left cannot be dropped further (a
 * release of a handle no one holds does not drop a mapping's reference). Every operation
 * takes the map's lock. */
struct axl__lim_alloc;
struct axl__lim_map {
	pthread_mutex_t lock;
	struct axl__lim_alloc *bucket[4096];
};
#define AXL__LIM_MAP_INIT {PTHREAD_MUTEX_INITIALIZER, {0}}
/* a new entry, with one handle reference */
void axl__lim_map_put(struct axl__lim_map *m, uint64_t key, int kind, int rdev, uint64_t bytes);
/* take the entry out, whatever its references: 1, or 0 when there is none */
int axl__lim_map_take(struct axl__lim_map *m, uint64_t key, int kind, int *rdev, uint64_t *bytes);
/* one more handle reference to the entry (a handle the runtime handed out again): 1, or 0
 * when there is none */
int axl__lim_map_ref(struct axl__lim_map *m, uint64_t key, int kind);
/* drop one handle reference (*rdev, *bytes set when one was dropped): AXL__LIM_UNREF_LAST
 * when it was the last reference of both classes (the entry taken out), AXL__LIM_UNREF_HELD
 * when others still hold it (the entry stays), AXL__LIM_UNREF_NONE when there is no entry or
 * no handle reference left to drop (nothing changed) */
enum { AXL__LIM_UNREF_NONE, AXL__LIM_UNREF_LAST, AXL__LIM_UNREF_HELD };
int axl__lim_map_unref(struct axl__lim_map *m, uint64_t key, int kind, int *rdev, uint64_t *bytes);
/* the same for the mappings' references: one more (1, or 0 when there is no entry), one
 * fewer (as axl__lim_map_unref) */
int axl__lim_map_hold(struct axl__lim_map *m, uint64_t key, int kind);
int axl__lim_map_unhold(struct axl__lim_map *m, uint64_t key, int kind, int *rdev, uint64_t *bytes);
/* drop every entry (a child of fork: they are the parent's) */
void axl__lim_map_forget(struct axl__lim_map *m);

#endif
