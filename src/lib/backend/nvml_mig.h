/* SPDX-License-Identifier: MIT */
/* The pure part of NVIDIA MIG control (nvml_mig.c), for the unit test. */
#ifndef AXL_NVML_MIG_H
#define AXL_NVML_MIG_H

#include <stddef.h>

#include "../partition.h"

/* The NVIDIA driver's /proc/driver/nvidia-caps/mig-minors text (len bytes): lines
 * "gpu<minor>/gi<gi>/access <N>" and "gpu<minor>/gi<gi>/ci<ci>/access <N>". Appends
 * "/dev/nvidia-caps/nvidia-cap<N>" to out->nodes for the GPU instance's and the
 * compute instance's access lines of GPU gpu_minor (at most AXL__PART_NODES_MAX in
 * all). Returns how many were added. */
size_t axl__mig_minor_nodes(const char *text, size_t len, unsigned gpu_minor, int gi, int ci,
			    struct axl__part_made *out);

/* The deadline of MIG calls: creating an instance takes seconds on real hardware. */
#define AXL__MIG_MIN_TIMEOUT_MS 30000

#endif
