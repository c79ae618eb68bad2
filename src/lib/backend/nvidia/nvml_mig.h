/* SPDX-License-Identifier: MIT */
/* The pure part of NVIDIA MIG control (nvml_mig.c), for the unit test. */
#ifndef AXL_NVML_MIG_H
#define AXL_NVML_MIG_H

#include <stddef.h>

#include "backend.h"

/* The NVIDIA driver's /proc/driver/nvidia-caps/mig-minors text (len bytes): lines
 * "gpu<minor>/gi<gi>/access <N>" and "gpu<minor>/gi<gi>/ci<ci>/access <N>". Appends
 * "/dev/nvidia-caps/nvidia-cap<N>" to out->nodes for the GPU instance's and the
 * compute instance's access lines of GPU gpu_minor (at most AXL__PART_NODES_MAX in
 * all). Returns how many were added. */
size_t axl__mig_minor_nodes(const char *text, size_t len, unsigned gpu_minor, int gi, int ci,
			    struct axl__part_made *out);

/* The deadline of MIG calls: creating an instance takes seconds on real hardware. */
#define AXL__MIG_MIN_TIMEOUT_MS 30000

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

#endif
