/* SPDX-License-Identifier: MIT */
/*
 * `axl dra-plugin --shares N`: a device shared by up to N claims as consumable capacity
 * (KEP-5075, DRAConsumableCapacity), each claim held by the limiter to what the scheduler
 * gave it, as `axl device-plugin --shares N` holds a share (docs/kubernetes.md).
 *
 * Written from kubernetes/kubernetes staging/src/k8s.io/api/resource/v1/types.go
 * (Device.allowMultipleAllocations, DeviceCapacity.requestPolicy {default, validValues,
 * validRange {min, max, step}}: "Max (if set) and requestPolicy.default must be a multiple
 * of Step", "Min + Step must be less than or equal to the capacity value";
 * DeviceRequestAllocationResult.consumedCapacity and shareID) and staging/src/k8s.io/
 * dynamic-resource-allocation/structured/internal/experimental/consumed_capacity.go
 * (calculateConsumedCapacity: a request is rounded up to min + k*step, a capacity the
 * request does not name consumes the policy's default, one without a policy its whole
 * value; the sum over a device's allocations stays within its value).
 *
 * The slices' side: a device whose vendor's compute API a preloaded limiter holds
 * (AXL_RUNTIME_PRELOAD_LIMITS, as the device plugin chooses) and whose memory is known
 * is published with allowMultipleAllocations and two capacities:
 *   memory: the total; default, min and step S = total/N rounded down to a MiB, max N*S;
 *   compute: 100 (percent of the device); default, min and step P = 100/N (integer
 *     division: the limiter holds whole percents), max N*P.
 * A claim that asks for neither gets 1/N of both; a claim that asks for 20Gi of an 80Gi
 * device shared 4 ways gets 20Gi and, not asking compute, 25.
 *
 * The kubelet's side (prepare.c): each allocation result's consumedCapacity (missing: the
 * policy's defaults, as the scheduler would have allocated) becomes the limiter's
 * variables in a CDI spec of the claim's own (<cdi dir>/<driver>-claim-<uid>.json, kind
 * <driver>/claim, device <uid>-shares), removed at unprepare; the variables are a set of
 * the claim's own (AXL_LIMIT_DEVICES_<SET>, ...), so that two claims in one container add
 * up rather than overwrite each other.
 * util and the public API only: no vendor names (layers.vendors).
 */
#ifndef AXL_DRA_SHARES_H
#define AXL_DRA_SHARES_H

#include <stdbool.h>
#include <stddef.h>

#include "axl.h"

struct axl__json;
struct axl__jv;

#define DRA_SHARES_MAX    64
#define DRA_SHARE_MEMORY  "memory"
#define DRA_SHARE_COMPUTE "compute"

/* One capacity's value and request policy (a default, a range with a step). */
struct dra_cap_policy {
	long long value, def, min, max, step;
};

/* A shared device as its Device in the slices says: what prepare needs. */
struct dra_share_dev {
	struct dra_cap_policy mem, compute;
	char uuid[128]; /* the limiter's AXL_LIMIT_DEVICES entry ("" when the device has none) */
};

/* --shares N for the slices (1: devices whole, as without the option). */
void dra_shares_set(int n);
int dra_shares_get(void);

/* The policy of a device of mem_total bytes shared n ways: 0, or -1 when it cannot be
 * shared (n < 2, or less than a MiB per share). */
int dra_share_policy(long long mem_total, int n, struct dra_share_dev *out);

/* The capacities of device d (memory_total bytes, <= 0: unknown) into a Device object
 * being written: "allowMultipleAllocations" and "capacity" with the policies when it is
 * shared, else the memory alone as before. Returns how many capacities it wrote. */
int dra_share_device_json(struct axl__json *w, const axl_device *d, long long mem_total);
/* How many capacities dra_share_device_json writes for d (for the 32 attributes and
 * capacities budget). */
int dra_share_capacity_count(const axl_device *d, long long mem_total);

/* A Device object (as dra_devices_json writes it) read back: 1 and out filled when it is
 * shared, 0 when it is whole. */
int dra_share_read_device(const struct axl__jv *dev, struct dra_share_dev *out);

/* A Kubernetes quantity ("20Gi", "21474836480", "25", "1.5G", "500m") as a whole number,
 * rounded up as Quantity.Value() does: 0, or -1 (not a quantity, negative, too big). */
int dra_quantity_parse(const char *s, long long *out);

/* What an allocation result consumes of shared device d: its consumedCapacity (an object
 * of quantities; NULL or a missing entry: the policy's default). 0, or -1 with err (not a
 * quantity, zero, more than the device has). */
int dra_share_consumed(const struct dra_share_dev *d, const struct axl__jv *consumed, long long *mem, long long *pct,
		       char *err, size_t cap);

/* Where the claims' specs go and what they mount. */
struct dra_share_cfg {
	const char *cdi_dir, *driver;
	const char *limiter; /* host path of the limiter */
	const char *preload; /* host path of the ld.so.preload beside it; NULL: LD_PRELOAD instead */
};

/* One shared device of a claim, with what the claim consumes of it (summed over its
 * results). */
struct dra_share_use {
	const char *uuid;
	long long mem, pct;
};

/* The suffix of a claim's set of limiter variables (AXL_LIMIT_DEVICES_<SET>, ...): its
 * UID upper-cased, any other character than a letter or a digit an underscore. */
void dra_share_env_set(const char *uid, char *out, size_t cap);
/* Write the claim's CDI spec (atomically) and its CDI device id into id: the limiter
 * mounted, its variables as the claim's own set. 0, or -1 with err. */
int dra_share_spec_write(const struct dra_share_cfg *c, const char *uid, const struct dra_share_use *u, size_t n,
			 char *id, size_t idcap, char *err, size_t cap);
/* Remove the claim's spec (none: nothing to do). 0, or -1 with err. */
int dra_share_spec_remove(const struct dra_share_cfg *c, const char *uid, char *err, size_t cap);

#endif
