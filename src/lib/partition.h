/* SPDX-License-Identifier: MIT */
/* Partitions (partition.c, the public calls of axl/partition.h) and the backends that
 * drive them. partition.c checks everything that is not vendor-specific before it calls
 * a backend: the context is not re-rooted, the caller has privileges (real hardware),
 * the device exists, the profile is resolved against the device's listed profiles
 * (name, "mig-" prefix, decimal id, or "<n>g.<m>gb" rounded up to a real profile). */
#ifndef AXL_LIB_PARTITION_H
#define AXL_LIB_PARTITION_H

#include "internal.h"

#define AXL__PART_NODES_MAX 8

/* What a backend reports about a partition it created or found. */
struct axl__part_made {
	char id[96];       /* the MIG device UUID: "MIG-..." (no ':' or ',') */
	char profile[64];  /* the real profile name ("1g.10gb") */
	int64_t profile_id;    /* the NVML GPU-instance profile id, < 0 unknown */
	int64_t memory_bytes;  /* < 0 unknown */
	int64_t compute_units; /* SMs, < 0 unknown */
	int gpu_instance, compute_instance; /* NVML ids, < 0 unknown */
	/* access nodes of this instance (/dev/nvidia-caps/nvidia-capN), besides the
	 * parent's nodes, which partition.c adds */
	char nodes[AXL__PART_NODES_MAX][64];
	size_t nnodes;
};

/* NVIDIA MIG through NVML (backend/nvml_mig.c). gpu is a physical GPU of an inventory
 * of the live system; profile_id the NVML GPU-instance profile id (19 for 1g.10gb on an
 * H100) that partition.c resolved from the GPU's listed profiles. Creates the GPU
 * instance and its default compute instance (all the instance's slices, shared
 * engines); when the compute instance cannot be made, the GPU instance is destroyed
 * again. Errors: AXL_ENOTSUP (no NVML, MIG disabled, not MIG-capable), AXL_ENOSPC (no
 * room: NVML_ERROR_INSUFFICIENT_RESOURCES), AXL_EPERM (NVML_ERROR_NO_PERMISSION),
 * AXL_EBACKEND (anything else, axl_error_last() naming the NVML call and its error). */
int axl__nvml_mig_create(axl_context *ctx, const struct axl_device *gpu, int64_t profile_id,
			 struct axl__part_made *out);
/* Destroy the MIG device whose UUID is id on gpu (its compute instances, then its GPU
 * instance). Already gone: 0 with *removed = 0. Processes on it: AXL_EBUSY
 * (NVML_ERROR_IN_USE). */
int axl__nvml_mig_destroy(axl_context *ctx, const struct axl_device *gpu, const char *id, size_t *removed);

/* AMD compute ("compute": SPX, DPX, TPX, QPX, CPX) or memory ("memory": NPS1..NPS8)
 * partition mode, through the device's sysfs attributes current_compute_partition /
 * available_compute_partition and current_memory_partition /
 * available_memory_partition (backend/amdgpu_part.c). fs is the context's file system
 * layer: partition.c passes the live system's, the unit test a synthetic tree's.
 * Refuses a mode the device does not list (AXL_EINVAL, naming those it lists), a
 * device whose attribute is missing (AXL_ENOTSUP), and a device with processes
 * (AXL_EBUSY: a DRM client in /proc/<pid>/fdinfo or a KFD process using it). The
 * current mode: 0 without writing. */
int axl__amdgpu_set_partition_mode(const struct axl__fs *fs, const struct axl_device *gpu,
				   const char *kind, const char *mode);

#endif
