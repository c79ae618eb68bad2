/* SPDX-License-Identifier: MIT */
/*
 * The state directory's limit records as the limiter reads them (state.c; docs/limits.md,
 * "Where limits come from"). Internal to the limiter.
 */
#ifndef AXL_LIMITER_LSTATE_H
#define AXL_LIMITER_LSTATE_H

#include <stdint.h>

#include "util/region_format.h" /* AXL__REGION_UUID_MAX */

#define AXL__LIM_STATE_MAX 256

struct axl__lim_state_rec {
	char uuid[AXL__REGION_UUID_MAX];
	int64_t memory; /* bytes, -1 none */
	int compute;    /* percent, -1 none */
};

struct axl__lim_state {
	char path[4200];  /* <state dir>/state.json */
	int broken;       /* the file is there but unusable: every device fails closed */
	char msg[4400];   /* why, naming the file (and line) */
	int n;            /* records with a UUID */
	int no_uuid;      /* records without one (not matched by the limiter) */
	struct axl__lim_state_rec rec[AXL__LIM_STATE_MAX];
};

/* Read <state dir>/state.json: 0 (no file counts as no records), or -1 with st->broken
 * and st->msg. */
int axl__lim_state_read(struct axl__lim_state *st);

#endif
