/* SPDX-License-Identifier: MIT */
/* What the nvidia backend's row (nvidia.c) offers control/ and sim/: MIG partitions and
 * HAMi-core's limit variables (nvidia_control.c), simulated NVIDIA GPUs (nvidia_sim.c). */
#ifndef AXL_NVIDIA_CONTROL_H
#define AXL_NVIDIA_CONTROL_H

#include "backend.h"

extern const struct axl__part_ops axl__nvidia_parts;
void axl__nvidia_limit_env(const struct axl__limit *limits, size_t n, struct axl__sb *out);
extern const struct axl__sim_ops axl__nvidia_sim;

#endif
