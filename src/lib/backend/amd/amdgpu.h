/* SPDX-License-Identifier: MIT */
/* The amdgpu backend's two halves: amdgpu.c reads the PCI device's attributes (and
 * hwmon), kfd.c the KFD topology (nodes, partitions, XGMI io_links). */
#ifndef AXL_BACKEND_AMDGPU_H
#define AXL_BACKEND_AMDGPU_H

#include "backend.h"
#include "backend_util.h"

#define AXL__AMDGPU_SRC "amdgpu"

/* Every GPU (or GPU partition) the KFD topology lists: CUs, XCCs, gfx target, memory,
 * render nodes, clocks; partitions grouped into their GPU as children ("xcp0", ...).
 * GPUs whose PCI function is not in the tree are added from the KFD alone. */
int axl__kfd_enumerate(struct axl__scan *scan, const struct axl__backend *self);

/* What the amdgpu row keeps per device it owns (its device_size block, core/backend.h:
 * axl__device_data), from the KFD topology (kfd.c). */
struct axl__kfd_dev {
	uint64_t unique_id; /* its unique id in the KFD topology, 0 unknown */
	bool only;          /* seen only in that tree: no PCI function to read */
	const int *nodes;   /* its KFD nodes, one per partition (arena) */
	size_t node_count;
};
extern const struct axl__backend axl__backend_amdgpu;
/* dev's KFD facts (all zero when it has none) */
const struct axl__kfd_dev *axl__kfd_of(const struct axl_device *dev);
/* dev's KFD facts to write; NULL when the block could not be made */
struct axl__kfd_dev *axl__kfd_dev(struct axl_inventory *inv, struct axl_device *dev);
/* Did this inventory's scan find the KFD topology (axl__kfd_enumerate)? */
bool axl__kfd_present(const struct axl_inventory *inv);

/* XGMI ports and "xgmi" links between GPUs from the KFD io_links (needs device ids). */
void axl__kfd_links(struct axl__scan *scan);

/* How many partitions a compute partition mode makes ("SPX" 1, "DPX" 2, "TPX" 3,
 * "QPX" 4, "CPX" one per XCC: xcc, < 1 when not known); -1 for other names. */
int axl__amd_mode_instances(const char *mode, int64_t xcc);

/* The hip compute backend (hip_compute.c): AMD GPUs through the HIP runtime. */
extern const struct axl__compute_ops axl__compute_hip;

/* Is this device amdgpu's (prefix or bound driver)? */
bool axl__amdgpu_owns(const struct axl_device *dev);
/* "0: 852Mhz *\n1: 991Mhz \n..." (pp_dpm_*) -> the current level (marked '*', -1 when
 * none is) and the highest. False when no line reads as a level. */
bool axl__amdgpu_dpm_levels(const char *text, int64_t *cur, int64_t *max);

/* Live metrics (amdgpu_sample.c, sample.h). */
extern const struct axl__sample_ops axl__amdgpu_sample_ops;

/* AMD compute ("compute": SPX, DPX, TPX, QPX, CPX) or memory ("memory": NPS1..NPS8)
 * partition mode, through the device's sysfs attributes current_compute_partition /
 * available_compute_partition and current_memory_partition /
 * available_memory_partition (backend/amdgpu_part.c). fs is the context's file system
 * layer: partition.c passes the live system's, the unit test a synthetic tree's.
 * Refuses a mode the device does not list (AXL_EINVAL, naming those it lists), a
 * device whose attribute is missing (AXL_ENOTSUP), and a device with processes
 * (AXL_EBUSY: a DRM client in /proc/<pid>/fdinfo or a KFD process using it). The
 * current mode: 0 without writing. */
int axl__amdgpu_set_partition_mode(const struct axl__fs *fs, const struct axl_device *gpu,
				   const char *kind, const char *mode);

/* What the amdgpu row offers control/ and sim/ (amdgpu_control.c). */
extern const struct axl__part_ops axl__amdgpu_parts;
extern const struct axl__sim_ops axl__amdgpu_sim;

#endif
