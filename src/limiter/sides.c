/* SPDX-License-Identifier: MIT */
/* The limiter's sides (core.h), in the order dlsym's front door asks them: one row a
 * runtime, each defined in its own folder. Adding a runtime is a folder and a row. */
#include <stddef.h>

#include "core.h"

extern const struct axl__lim_side axl__lim_hip_side;  /* amd/hip.c */
extern const struct axl__lim_side axl__lim_cuda_side; /* nvidia/limiter.c */

const struct axl__lim_side *const axl__lim_sides[] = {&axl__lim_hip_side, &axl__lim_cuda_side, NULL};
