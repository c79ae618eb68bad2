/* SPDX-License-Identifier: MIT */
/* The cuda compute backend (compute_cuda.c), reached through the nvidia backend row. */
#ifndef AXL_COMPUTE_CUDA_H
#define AXL_COMPUTE_CUDA_H

struct axl__compute_ops;
extern const struct axl__compute_ops axl__compute_cuda;

#endif
