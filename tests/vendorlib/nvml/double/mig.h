/* GPU-instance profile tables of MIG-capable GPUs, and the placement model that makes
 * nvmlDeviceGetGpuInstanceRemainingCapacity plausible. */
#ifndef NVML_DOUBLE_MIG_H
#define NVML_DOUBLE_MIG_H

struct gi_profile {
  unsigned profile;    /* NVML_GPU_INSTANCE_PROFILE_* (the argument of ...ProfileInfo) */
  unsigned id;         /* the profile id (nvidia-smi mig -lgip "ID"; ...RemainingCapacity's argument) */
  const char *name;    /* "1g.10gb" */
  unsigned slices;     /* compute slices (sliceCount) */
  unsigned mem_slices; /* memory slices one instance occupies (placement size) */
  unsigned placements; /* possible starts: 0, size, 2*size, ... */
  unsigned instances;  /* instanceCount */
  unsigned sm, ce, dec, enc, jpeg, ofa;
  unsigned long long mem_mib;
};

struct gi_table {
  const char *label;
  unsigned mem_slices;     /* 8, or 4 on A30 */
  unsigned compute_slices; /* 7, or 4 on A30 */
  unsigned max_devices;    /* nvmlDeviceGetMaxMigDeviceCount with MIG enabled */
  const struct gi_profile *profiles;
  unsigned nprofiles;
};

/* the table for a product name ("NVIDIA A100-SXM4-80GB"), or NULL */
const struct gi_table *mig_table_for(const char *product_name);
const struct gi_profile *mig_profile_by_enum(const struct gi_table *t, unsigned profile);
const struct gi_profile *mig_profile_by_id(const struct gi_table *t, unsigned id);

/* the profile a GPU instance of the file most likely uses, from what the file says about
 * one of its MIG devices (SMs, memory, engines); -1 when none is close */
int mig_match_profile(const struct gi_table *t, unsigned sm, unsigned long long mem_mib, unsigned dec,
                      unsigned jpeg, unsigned ofa);

/* how many more instances of profile `p` fit beside the existing instances, given as
 * indexes into t->profiles (-1 for an instance of unknown profile, which is ignored):
 * the most any arrangement of the existing ones on their placements leaves, capped by the
 * profile's instance count and the compute slices left */
unsigned mig_remaining(const struct gi_table *t, const int *existing, unsigned nexisting, int p);

#endif
