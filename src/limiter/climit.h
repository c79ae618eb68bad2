/* SPDX-License-Identifier: MIT */
/*
 * The limiter's compute limit (docs/limits.md, "Compute limit"): per device, a rate
 * limiter on kernel launches whose rate a controller thread adapts from measured
 * utilisation, so that the device's busy share settles on the target percent, for a lone
 * workload as well as under contention. Internal to the limiter; the interposer calls
 * axl__climit_before_launch() from every launch path (cuLaunchKernel, cuLaunchKernelEx,
 * cuLaunchCooperativeKernel: cost 1; cuGraphLaunch: cost = the graph's kernel nodes).
 *
 * The bucket is a GCRA ("virtual scheduling") token bucket: one 64-bit word per device,
 * the theoretical time (CLOCK_MONOTONIC ns) at which the launches charged so far have
 * been paid for at the current rate. A launch waits (sleeping) until that time is not
 * ahead of now, then advances it by cost / rate; idle time earns at most a short burst of
 * credit. Charging after admission lets a graph bigger than the burst go through and be
 * paid for by the launches after it (debt), as HAMi-core's counter does.
 *
 * The controller (a thread, every 10 ms): it smooths the charged rate c (units/s) and the
 * measured utilisation u (percent) over the same window, estimates a unit's device share
 * k = u / c, and sets the rate to target / k, with an integral correction on the
 * remaining error (target - u). Saturation (u = 100) reads as k too small, which only
 * lowers the rate, so an over-full queue always drains.
 *
 * With a region (region.h), the bucket word, the charged counter and the rate live in the
 * region's device record, shared by every process of the workload: the workload as a
 * whole is held to the limit (one bucket), and every process's controller sees the
 * workload's total charge against the device's utilisation. Nothing in them belongs to a
 * process, so a process killed at any instruction leaves nothing to reclaim.
 */
#ifndef AXL_LIMITER_CLIMIT_H
#define AXL_LIMITER_CLIMIT_H

#include <stdint.h>

struct axl__region;
struct axl__climit;

/* A utilisation source: read() gives dev's busy percent (0..100), returning 0, or
 * nonzero when it cannot (the controller keeps its last estimate). window_ms: the span
 * the source's figure covers (the double's file and NVML: about 1000; 0: the time since
 * the previous read, as axl_cuda_double_utilization). release (may be NULL) frees ctx. */
struct axl__climit_source {
	int (*read)(void *ctx, int dev, unsigned *percent);
	void *ctx;
	unsigned window_ms;
	void (*release)(void *ctx);
};

/* Sources ready to plug. 0, or an AXL_E* code.
 * - a utilisation file (lines `ORDINAL BUSID PERCENT`, '#' comments; the CUDA double
 *   writes one): dev is the ordinal;
 * - the NVIDIA management library's utilisation (nvidia/climit_nvml.c) through
 *   dlopen(lib) (NULL: its usual soname); dev is its index (the caller maps ordinals,
 *   e.g. through the visibility variable and UUIDs, before passing dev). */
int axl__climit_source_file(struct axl__climit_source *out, const char *path);

/* Create the limiter (all devices unlimited) and its controller thread. region may be NULL
 * (process-local buckets); util may be NULL (no feedback: the rate stays at its initial
 * guess, which bounds launches but not the share); *util is copied and owned (released
 * by axl__climit_free). The device's target comes from axl__climit_set, not from the
 * region's limit record (the caller reads limits and sets them). */
int axl__climit_init(struct axl__climit **out, struct axl__region *region, const struct axl__climit_source *util);
/* dev's target percent; 0 or >= 100: unlimited. Devices 0..15. */
void axl__climit_set(struct axl__climit *c, int dev, unsigned percent);
/* Wait (sleeping) until dev's bucket admits a launch, then charge cost units (1 per
 * kernel; a graph: its kernel count). Unlimited devices (and c NULL): returns at once. */
void axl__climit_before_launch(struct axl__climit *c, int dev, uint64_t cost);
/* Stop the thread, release the source. NULL-safe. */
void axl__climit_free(struct axl__climit *c);

/* Introspection for tests and metrics: dev's current rate (units/s, 0: unlimited) and
 * the smoothed utilisation the controller sees. Either pointer may be NULL. */
void axl__climit_stats(struct axl__climit *c, int dev, double *rate, double *util);

#endif
