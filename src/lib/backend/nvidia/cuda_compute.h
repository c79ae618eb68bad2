/* SPDX-License-Identifier: MIT */
/* The cuda compute backend (cuda_compute.c), reached through the nvidia backend row. */
#ifndef AXL_CUDA_COMPUTE_H
#define AXL_CUDA_COMPUTE_H

struct axl__compute_ops;
extern const struct axl__compute_ops axl__compute_cuda;

#endif
