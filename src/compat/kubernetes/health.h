/* SPDX-License-Identifier: MIT */
/*
 * What `axl device-plugin` makes of the errors devices report (docs/kubernetes.md,
 * "Health"): libaxl's health events (AXL_SAMPLER_HEALTH, include/axl/metrics.h) filtered
 * by a policy (--health-checks, and NVIDIA's plugin's DP_DISABLE_HEALTHCHECKS and
 * DP_ENABLE_HEALTHCHECKS), and the devices they make Unhealthy until --health-recovery
 * seconds pass without another. Over the public API: which errors are critical is the
 * vendor backends' verdict (axl_health_event.critical); no vendor is named here.
 */
#ifndef AXL_K8S_HEALTH_H
#define AXL_K8S_HEALTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "axl.h"
#include "plugin.h"

#define KP_HEALTH_MAX_CODES 64

struct kp_health_policy {
	bool none;       /* --health-checks none: no event counts, whatever the variables say */
	bool off;        /* DP_DISABLE_HEALTHCHECKS=all|xids: only the driver errors enabled count */
	bool errors_all; /* DP_ENABLE_HEALTHCHECKS=all|xids: every driver error counts, even one its
			  * vendor calls harmless */
	int64_t skip[KP_HEALTH_MAX_CODES]; /* driver-error codes that never count */
	size_t nskip;
	int64_t keep[KP_HEALTH_MAX_CODES]; /* driver-error codes that always count (wins over skip, off) */
	size_t nkeep;
	double recovery_s; /* how long a device stays Unhealthy after its last error; 0: until a restart */
};

/* The policy of --health-checks (checks: "all" or "none"), --health-recovery (recovery_s:
 * seconds, < 0 for the default) and the two variables' values (NULL when unset), as
 * NVIDIA's plugin reads them: comma-separated, case and spaces ignored, "all" or "xids"
 * meaning every Xid, anything else an Xid number (what is not one is said in note and
 * skipped). 0, or -1 with err (a bad option). */
int kp_health_policy(struct kp_health_policy *p, const char *checks, double recovery_s, const char *disable,
		     const char *enable, char *note, size_t note_cap, char *err, size_t cap);
/* Does this event make its device Unhealthy under p? */
bool kp_health_counts(const struct kp_health_policy *p, const struct axl_health_event *e);
/* The policy in words, for the start-up line. */
void kp_health_describe(const struct kp_health_policy *p, char *out, size_t cap);

/* The devices a counting event made Unhealthy, by axl device id, each with the message of
 * its last event and the time it is Healthy again. */
struct kp_health;
struct kp_health *kp_health_new(const struct kp_health_policy *p);
void kp_health_free(struct kp_health *h);
/* The events of smp (a sample of an AXL_SAMPLER_HEALTH sampler) at monotonic time now:
 * each is said through say (counted: whether it counts); those that count mark their
 * device. True when a device became Unhealthy. */
bool kp_health_take(struct kp_health *h, const axl_sample *smp, double now,
		    void (*say)(void *ud, bool counted, const char *msg), void *ud);
/* Devices whose time is up are Healthy again (said through say). True when one was. */
bool kp_health_expire(struct kp_health *h, double now, void (*say)(void *ud, bool counted, const char *msg),
		      void *ud);
/* Mark Unhealthy the devices of node (built from inv) that are marked, or whose parent
 * device (a partition's GPU) is. */
void kp_health_apply(const struct kp_health *h, struct kp_node *node, const axl_inventory *inv);
/* Why the device with this axl id (or its parent, "nvidia:0" of "nvidia:0/mig1.0") is
 * marked; NULL when it is not. */
const char *kp_health_why(const struct kp_health *h, const char *axl_id);
/* How bad a marked device's errors are, for `axl dra-plugin`'s device taints
 * (docs/kubernetes.md, "Health as device taints"): 0 not marked; KP_SEVERE_NO_NEW (a taint
 * NoSchedule: no new claim gets it) when its worst counted event is one its vendor does not
 * take the device out of service for (counted by DP_ENABLE_HEALTHCHECKS or a kept code) or a
 * failed watch (health not known); KP_SEVERE_EVICT (NoExecute: the pods using it are evicted
 * too) for one the vendor calls critical. The worst since it was marked; since: the wall-clock
 * second it was marked; value: the worst event as a label value ("DriverError-79",
 * "Uncorrectable", "WatchFailed"), held by h. A partition answers for its parent as
 * kp_health_why does. */
#define KP_SEVERE_NO_NEW 1
#define KP_SEVERE_EVICT  2
int kp_health_severity(const struct kp_health *h, const char *axl_id, long long *since, const char **value);
/* The soonest time a marked device is Healthy again; < 0 when none will be. */
double kp_health_next(const struct kp_health *h);

/* The health sampler a command keeps (`axl device-plugin`, `axl dra-plugin`): opened on a
 * rediscovery's inventory when its devices differ from those watched, asked every period.
 * All NULL: none (zeroed: nothing watched yet). */
struct kp_health_watch {
	axl_context *ctx; /* the node the sampler watches, kept until its devices change */
	axl_inventory *inv;
	axl_sampler *hs;
	char *sig; /* its devices: the ids and UUIDs of the devices and their partitions */
};
/* One health sample into h at monotonic time now (kp_health_take): true when a device
 * became Unhealthy; false too when nothing is watched. */
bool kp_health_watch_poll(struct kp_health_watch *w, struct kp_health *h, double now,
			  void (*say)(void *ud, bool counted, const char *msg), void *ud);
/* A rediscovery's inventory: watched from now on when its devices are not those watched
 * (the last events of the old node taken first) and not none at all (an idle node is not
 * sampled). True when ctx and inv are kept (w owns them); a sampler that cannot open is
 * said through say, as an event that counts. */
bool kp_health_watch_set(struct kp_health_watch *w, struct kp_health *h, axl_context *ctx, axl_inventory *inv,
			 double now, void (*say)(void *ud, bool counted, const char *msg), void *ud);
/* The main loop's side of it: when to wake (the soonest of wake, the next sample and the next
 * recovery, these while a sampler watches) ... */
double kp_health_watch_wake(const struct kp_health_watch *w, const struct kp_health *h, double next_sample,
			    double wake);
/* ... and what to do at monotonic time now: a sample when it is due (*next_sample: now +
 * period), the marks whose time is up dropped (h may be NULL: health off). Why to rediscover
 * ("a device's error", "a device's recovery"), or NULL. */
const char *kp_health_watch_tick(struct kp_health_watch *w, struct kp_health *h, double now, double *next_sample,
				 double period, void (*say)(void *ud, bool counted, const char *msg), void *ud);
/* The sampler, context and inventory freed; w zeroed. */
void kp_health_watch_close(struct kp_health_watch *w);

#endif
