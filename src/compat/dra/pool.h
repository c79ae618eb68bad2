/* SPDX-License-Identifier: MIT */
/*
 * What the publisher (publish.c) compares and writes: a pool's content cut into the
 * ResourceSlices that upstream validation admits (kubernetes/kubernetes
 * pkg/apis/resource/validation/validation.go at 009801d930e2e3c8b3671a3ec28e31a2f64865ac,
 * validateResourceSliceSpec; the limits of staging/src/k8s.io/api/resource/v1/types.go):
 *  - a slice holds devices or shared counters, never both ("only one of `sharedCounters`
 *    or `devices` is allowed");
 *  - at most ResourceSliceMaxCounterSets (8) counter sets in a slice;
 *  - at most ResourceSliceMaxDevices (128) devices in a slice, 64
 *    (ResourceSliceMaxDevicesWithTaintsOrConsumesCounters) when one has taints or consumes
 *    counters.
 * A slice's content is compared as canonical JSON (object keys sorted, no spaces) of the
 * object {"devices": [...]} or {"sharedCounters": [...]}, the part of spec the driver
 * chooses.
 */
#ifndef AXL_DRA_POOL_H
#define AXL_DRA_POOL_H

#include <stdbool.h>
#include <stddef.h>

#include "../../util/json.h"
#include "../../util/jsonr.h"

#define DRA_MAX_COUNTER_SETS 8

/* v as canonical JSON into w / as a malloc'd string (NULL: out of memory). One thread at a
 * time (the publisher's). */
void dra_canon(struct axl__json *w, const struct axl__jv *v);
char *dra_canon_str(const struct axl__jv *v);

/* The compared part of a ResourceSlice's spec: {"devices"} and {"sharedCounters"} where
 * they are non-empty arrays, canonical ("{}" for neither). NULL: out of memory. */
char *dra_spec_canon(const struct axl__jv *spec);

/* Does a canonical slice content (dra_spec_canon's form) have shared counters, or a device
 * that consumes counters? */
bool dra_canon_has_counters(const char *canon);

/* want (api.h's pub_set: a JSON array of devices, or the object of slices.h's
 * dra_pool_json) into the contents of its slices, counter sets first; whole: take its
 * "whole" devices instead when it has them. *has_whole: it has. 0, or -1 with err. */
int dra_pool_chunks(const char *want, bool whole, char ***chunks, size_t *n, bool *has_whole, char *err, size_t cap);

#endif
