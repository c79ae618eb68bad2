/* SPDX-License-Identifier: MIT */
/* The MIG rules of the GPUs axl simulates (mig_rules.c, docs/partitions.md): per GPU,
 * its GPU-instance profiles with their NVML ids, compute and memory slices, allowed
 * start placements, instance limits, SMs and memory; and where a new instance goes. */
#ifndef AXL_LIB_MIG_RULES_H
#define AXL_LIB_MIG_RULES_H

#include <stddef.h>
#include <stdint.h>

#define AXL__MIG_PLACEMENTS_MAX 8

struct axl__mig_profile {
	const char *name;     /* "1g.10gb" */
	int id;               /* NVML GPU-instance profile id */
	int slices;           /* compute slices */
	int mem_slices;       /* memory slices (of the GPU's mem_slices) */
	int starts[AXL__MIG_PLACEMENTS_MAX]; /* allowed start memory slices */
	int nstarts;
	int max_instances;    /* on an empty GPU */
	int sms;
	int64_t memory_mib;
};

struct axl__mig_gpu {
	const char *label;    /* "H100 80GB" */
	const char *db_keys[4]; /* device-database keys it applies to (NULL-terminated) */
	int slices;           /* compute slices: 7 (A30: 4) */
	int mem_slices;       /* memory slices: 8 (A30: 4) */
	const struct axl__mig_profile *profiles;
	size_t nprofiles;
};

/* An instance that exists: its profile and start memory slice. */
struct axl__mig_inst {
	const struct axl__mig_profile *p;
	int start;
};

/* The rules of a device-database entry; NULL when axl has none. */
const struct axl__mig_gpu *axl__mig_gpu_of(const char *db_key);
/* Every rule set (for the tests): *n of them. */
const struct axl__mig_gpu *axl__mig_gpus(size_t *n);
/* A profile of g by name ("1g.10gb"); NULL when g has none. */
const struct axl__mig_profile *axl__mig_profile(const struct axl__mig_gpu *g, const char *name);
/* Where a new instance of p goes next to the n instances of `used`: its start memory
 * slice, or -1 when none is free (memory ranges overlap, too many compute slices, or
 * the profile's instance limit reached). Of the free placements the last is taken, so
 * the profiles anchored at slice 0 (4g, 7g) stay possible as long as they can. */
int axl__mig_place(const struct axl__mig_gpu *g, const struct axl__mig_inst *used, size_t n,
		   const struct axl__mig_profile *p);
/* How many more instances of p fit now, placed one after another as above. */
int axl__mig_free(const struct axl__mig_gpu *g, const struct axl__mig_inst *used, size_t n,
		  const struct axl__mig_profile *p);

#endif
