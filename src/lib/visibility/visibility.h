/* SPDX-License-Identifier: MIT */
/*
 * The parsers of the visibility variables and of the device cgroup, as pure functions
 * (no I/O) so that the unit tests can drive them. docs/visibility.md says what each
 * variable means and where that comes from; visibility.c applies them to an inventory.
 *
 * Each list parser reads one variable against an ordered list of candidate items (the
 * devices the runtime would number, in its order) and writes, for every item, its
 * position in the resulting list (the runtime's new ordinal), AXL__VIS_UNLISTED or
 * AXL__VIS_UNKNOWN.
 */
#ifndef AXL_VISIBILITY_H
#define AXL_VISIBILITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AXL__VIS_UNLISTED (-1) /* the list leaves it out */
#define AXL__VIS_UNKNOWN (-2)  /* axl cannot tell (an entry it cannot resolve) */

/* Result codes of the list parsers. */
enum {
	AXL__VIS_ALL = 0,     /* no restriction: every item keeps its place (pos[] untouched) */
	AXL__VIS_SOME = 1,    /* pos[] says which items the list keeps */
	AXL__VIS_NONE = 2,    /* the list keeps nothing (empty, or a repeated entry) */
	AXL__VIS_UNSURE = 3,  /* pos[] holds what could be resolved, AXL__VIS_UNKNOWN the rest */
	AXL__VIS_OFF = 4      /* (container-runtime variables) not in effect: "void" or empty */
};

/* One candidate: a GPU (parent < 0) or a partition of one (a MIG device). */
struct axl__vis_item {
	const char *uuid; /* "GPU-...", "MIG-..."; NULL when not known */
	long parent;      /* index of the parent item, -1 for a whole device */
	int64_t gi, ci;   /* MIG GPU / compute instance ids; -1 when not known */
	int64_t number;   /* the number a list names it by (module id, accel index); -1 */
};

struct axl__vis_result {
	int code;         /* AXL__VIS_* */
	bool by_index;    /* the list named devices by index (CUDA_DEVICE_ORDER matters) */
	char note[160];   /* why the list stops early, keeps nothing or cannot be resolved */
};

/*
 * CUDA_VISIBLE_DEVICES (value NULL: unset). items: the GPUs CUDA numbers, in order,
 * and their MIG devices (parent >= 0). mig_known: axl knows the MIG devices of these
 * GPUs (without it, a MIG entry cannot be resolved). A GPU selected by index or UUID
 * also selects its MIG devices (same position).
 */
void axl__vis_cuda(const char *value, const struct axl__vis_item *items, size_t n, bool mig_known,
		   int *pos, struct axl__vis_result *r);

/* ROCR_VISIBLE_DEVICES over the GPU agents ROCr finds (KFD GPU nodes whose render node
 * opens, in node order); uuid: "GPU-%016llX" of the KFD unique_id, NULL when it is 0. */
void axl__vis_rocr(const char *value, const struct axl__vis_item *items, size_t n, int *pos,
		   struct axl__vis_result *r);

/* HIP_VISIBLE_DEVICES (or CUDA_VISIBLE_DEVICES, which HIP reads when the former is
 * empty) over the agents ROCr left, in ROCr's order. An empty or unset value does not
 * restrict. */
void axl__vis_hip(const char *value, const struct axl__vis_item *items, size_t n, int *pos,
		  struct axl__vis_result *r);

/* NVIDIA_VISIBLE_DEVICES as the NVIDIA container runtime reads it: "all", "none",
 * "void"/empty (AXL__VIS_OFF), or indices, GPU/MIG UUIDs and "gpu:mig" index pairs over
 * the node's GPUs (items, host order) and their MIG devices. Entries that match nothing
 * are skipped (the runtime would have refused to start the container). */
void axl__vis_nvidia_runtime(const char *value, const struct axl__vis_item *items, size_t n,
			     int *pos, struct axl__vis_result *r);

/* A list of numbers matched against items[].number: HABANA_VISIBLE_MODULES (module
 * ids) or HABANA_VISIBLE_DEVICES (accel indices; allow_all: "all" keeps everything).
 * Reading stops at the first entry that is not a number. */
void axl__vis_numbers(const char *value, bool allow_all, const struct axl__vis_item *items,
		      size_t n, int *pos, struct axl__vis_result *r);

/* cgroup v1: the path of this process in the "devices" hierarchy, from the text of
 * /proc/self/cgroup. 0 and the path; -1 when there is none (cgroup v2 only). */
int axl__vis_cgroup_v1_path(const char *proc_self_cgroup, char *out, size_t cap);

/* cgroup v1 devices.list: does it allow the device (type 'c' or 'b') with every access
 * in `need` ("rw")? 1 yes, 0 no. A line "a *:* rwm" allows everything. */
int axl__vis_cgroup_allows(const char *devices_list, char type, unsigned major, unsigned minor,
			   const char *need);

struct axl__scan;
/* Mark every device (and child) visible or not, with the reason (visibility.c). */
void axl__visibility_apply(struct axl__scan *scan);

#endif
