/* SPDX-License-Identifier: MIT */
/* AMD's visibility variables (docs/visibility.md): their parsers, pure functions over the
 * candidate list of visibility.h, and the backend's visibility operations
 * (amdgpu_visibility.c). */
#ifndef AXL_AMDGPU_VISIBILITY_H
#define AXL_AMDGPU_VISIBILITY_H

#include "backend.h"
#include "visibility.h"

/* ROCR_VISIBLE_DEVICES over the GPU agents ROCr finds (KFD GPU nodes whose render node
 * opens, in node order); uuid: "GPU-%016llX" of the KFD unique_id, NULL when it is 0. */
void axl__vis_rocr(const char *value, const struct axl__vis_item *items, size_t n, int *pos,
		   struct axl__vis_result *r);

/* HIP_VISIBLE_DEVICES (or CUDA_VISIBLE_DEVICES, which HIP reads when the former is
 * empty) over the agents ROCr left, in ROCr's order. An empty or unset value does not
 * restrict. */
void axl__vis_hip(const char *value, const struct axl__vis_item *items, size_t n, int *pos,
		  struct axl__vis_result *r);

/* The backend's visibility operations (struct axl__backend, amdgpu.c's row). */
extern const char *const axl__amdgpu_vis_vars[];
int axl__amdgpu_vis_node(const char *path);
bool axl__amdgpu_vis_devnum(const struct axl__vis *v, const char *rel, unsigned *major, unsigned *minor);
void axl__amdgpu_visibility(struct axl__vis *v, const struct axl__backend *self);
/* its visibility table (the file ends with it), for its row */
extern const struct axl__vis_ops axl__amdgpu_vis;

#endif
