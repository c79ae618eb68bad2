/* SPDX-License-Identifier: MIT */
/* NVIDIA's visibility variables (docs/visibility.md): their parsers, pure functions over
 * the candidate list of visibility.h, and the backend's visibility operations
 * (nvidia_visibility.c). */
#ifndef AXL_NVIDIA_VISIBILITY_H
#define AXL_NVIDIA_VISIBILITY_H

#include "backend.h"
#include "visibility.h"

/*
 * CUDA_VISIBLE_DEVICES (value NULL: unset). items: the GPUs CUDA numbers, in order,
 * and their MIG devices (parent >= 0; gi, ci: the GPU and compute instance ids).
 * mig_known: axl knows the MIG devices of these GPUs (without it, a MIG entry cannot be
 * resolved). A GPU selected by index or UUID also selects its MIG devices (same position).
 */
void axl__vis_cuda(const char *value, const struct axl__vis_item *items, size_t n, bool mig_known,
		   int *pos, struct axl__vis_result *r);

/* NVIDIA_VISIBLE_DEVICES as the NVIDIA container runtime reads it: "all", "none",
 * "void"/empty (AXL__VIS_OFF), or indices, GPU/MIG UUIDs and "gpu:mig" index pairs over
 * the node's GPUs (items, host order) and their MIG devices. Entries that match nothing
 * are skipped (the runtime would have refused to start the container). */
void axl__vis_nvidia_runtime(const char *value, const struct axl__vis_item *items, size_t n,
			     int *pos, struct axl__vis_result *r);

/* The backend's visibility operations (struct axl__backend, nvidia.c's row). */
extern const char *const axl__nvidia_vis_vars[];
int axl__nvidia_vis_node(const char *path);
bool axl__nvidia_vis_devnum(const struct axl__vis *v, const char *rel, unsigned *major, unsigned *minor);
void axl__nvidia_visibility(struct axl__vis *v, const struct axl__backend *self);
/* its visibility table (the file ends with it), for its row */
extern const struct axl__vis_ops axl__nvidia_vis;

#endif
