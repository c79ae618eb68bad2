/* SPDX-License-Identifier: MIT */
/* Process checkpoints through the CUDA driver (cuda_checkpoint.c): the nvidia row's
 * struct axl__backend.checkpoint. */
#ifndef AXL_CUDA_CHECKPOINT_H
#define AXL_CUDA_CHECKPOINT_H

#include <stddef.h>

#include "backend.h"

int axl__cuda_checkpoint(const axl_context *ctx, const struct axl__backend *self, int pid, int op, int *state);

#endif
