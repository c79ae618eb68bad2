/* SPDX-License-Identifier: MIT */
/*
 * The CUDA side of libaxl_limiter.so (docs/limits.md, "The limiter"): the table of
 * accounted entry points, the real driver's pointers, the devices; the vendor-neutral
 * core (the front door, the log, limits, the allocation map, the region) is ../core.h.
 */
#ifndef AXL_LIMITER_LIMITER_H
#define AXL_LIMITER_LIMITER_H

#include <stdint.h>

#include "core.h"
#include "abi/nvidia/cuda.h"

/* Every entry point the limiter replaces: its own function of the same name (exported),
 * and a slot for the driver's. Versioned and per-thread-stream variants are entries of
 * their own, so a pointer the driver hands out maps back to exactly one of them. */
#define AXL__LIM_SYMS(X)                                                                               \
	X(cuMemAlloc_v2) X(cuMemAllocPitch_v2) X(cuMemAllocManaged) X(cuMemAllocAsync)                 \
	X(cuMemAllocAsync_ptsz) X(cuMemAllocFromPoolAsync) X(cuMemAllocFromPoolAsync_ptsz)              \
	X(cuMemCreate) X(cuArrayCreate_v2) X(cuMipmappedArrayCreate) X(cuMemFree_v2) X(cuMemFreeAsync) \
	X(cuMemFreeAsync_ptsz) X(cuMemRelease) X(cuArrayDestroy) X(cuMipmappedArrayDestroy)            \
	X(cuMemGetInfo_v2) X(cuMemGetInfo) X(cuDeviceTotalMem_v2) X(cuGetProcAddress)                  \
	X(cuGetProcAddress_v2) X(cuLaunchKernel) X(cuLaunchKernel_ptsz) X(cuLaunchKernelEx)                  \
	X(cuLaunchKernelEx_ptsz) X(cuLaunchCooperativeKernel) X(cuLaunchCooperativeKernel_ptsz)             \
	X(cuGraphLaunch) X(cuGraphLaunch_ptsz) X(cuGraphInstantiate) X(cuGraphInstantiate_v2)               \
	X(cuGraphInstantiateWithFlags) X(cuGraphInstantiateWithParams) X(cuGraphInstantiateWithParams_ptsz) \
	X(cuGraphExecDestroy) X(cuMemPoolTrimTo) X(cuMemPoolDestroy) X(cuStreamBeginCapture)                  \
	X(cuStreamBeginCapture_ptsz) X(cuStreamBeginCapture_v2) X(cuStreamBeginCapture_v2_ptsz)                 \
	X(cuStreamBeginCaptureToGraph) X(cuStreamBeginCaptureToGraph_ptsz) X(cuStreamEndCapture)                \
	X(cuStreamEndCapture_ptsz)

enum {
#define AXL__LIM_ENUM(n) AXL__SYM_##n,
	AXL__LIM_SYMS(AXL__LIM_ENUM)
#undef AXL__LIM_ENUM
	AXL__SYM_N
};

/* the driver's entry points (NULL: the driver lacks it), valid after axl__lim_init() */
extern void *axl__lim_real[AXL__SYM_N];
/* the driver's functions the limiter calls for itself */
struct axl__lim_drv {
	CUresult (*ctx_get_device)(CUdevice *);
	CUresult (*device_get_count)(int *);
	CUresult (*device_get)(CUdevice *, int);
	CUresult (*device_get_uuid)(CUuuid *, CUdevice);
	/* a graph's kernels (compute.c): cuGraphGetNodes, cuGraphNodeGetType (NULL: the
	 * kernel-node query decides), cuGraphKernelNodeGetParams_v2, cuGraphChildGraphNodeGetGraph */
	CUresult (*graph_get_nodes)(CUgraph, CUgraphNode *, size_t *);
	CUresult (*node_get_type)(CUgraphNode, int *);
	CUresult (*kernel_node_get_params)(CUgraphNode, void *);
	CUresult (*child_graph)(CUgraphNode, CUgraph *);
	/* pools (pool.c): cuMemPoolGetAttribute, cuDeviceGetMemPool, cuDeviceGetDefaultMemPool */
	CUresult (*pool_get_attribute)(CUmemoryPool, int, void *);
	CUresult (*device_get_mem_pool)(CUmemoryPool *, CUdevice);
	CUresult (*device_get_default_mem_pool)(CUmemoryPool *, CUdevice);
	/* stream capture (compute.c): cuStreamIsCapturing, cuStreamIsCapturing_ptsz */
	CUresult (*stream_is_capturing)(CUstream, int *);
	CUresult (*stream_is_capturing_ptsz)(CUstream, int *);
};
extern struct axl__lim_drv axl__lim_drv;

/* Load the driver and read the environment, once (thread-safe). */
void axl__lim_init(void);

/* Devices read and how many have a compute limit: -1 the driver cannot tell yet, else the
 * count (0: launches pass straight through). Reads the devices on the first call. */
int axl__lim_compute_count(void);
/* The current context's device ordinal, -1 none. */
int axl__lim_current_ordinal(void);
/* A child of fork: the parent's compute limiter (its thread did not survive) is dropped. */
void axl__lim_forget_compute(void);

/* The devices, their limits and the region, read on the first call that needs them (after
 * the program's cuInit). NULL while the driver cannot tell yet, or when no device is
 * limited (then everything passes through). *region the shared region (may be NULL). */
struct axl__lim_dev *axl__lim_device(int ordinal, axl__region **region);

/* Drop every remembered allocation (a child of fork: they are the parent's). */
void axl__lim_forget_allocations(void);

/* Pools' growth (pool.c): what the pools a workload allocated from keep beyond their
 * allocations is charged too. Refresh the pools of region device rdev (-1 all). */
void axl__lim_pools_refresh(int rdev);
/* Before an allocation from pool p: give back (and return) up to bytes of what p keeps, which
 * the allocation may reuse; axl__lim_pool_done after the call (also when it was refused)
 * registers p on region device rdev (when >= 0 and new), charges back what was lent and
 * refreshes p. p NULL: nothing. */
uint64_t axl__lim_pool_lend(CUmemoryPool p, uint64_t bytes);
void axl__lim_pool_done(CUmemoryPool p, int rdev, uint64_t lent);
/* The pool cuMemAllocAsync allocates from on device ordinal: NULL when the driver cannot tell. */
CUmemoryPool axl__lim_pool_of_device(int ordinal);
/* A child of fork: the parent's pools are not its own. */
void axl__lim_forget_pools(void);

/* The limited device whose UUID is uuid (case-insensitive), as axl__lim_device; NULL when
 * none (or nothing is limited, or the driver cannot tell yet). */
struct axl__lim_dev *axl__lim_device_by_uuid(const char *uuid, axl__region **region);
/* nvml.c: the limiter's entry for an NVML name it interposes, asked of handle (the real
 * answer recorded); NULL for every other name or when NVML lacks it. */
void *axl__lim_nvml_dlsym(dlsym_fn ds, void *handle, const char *name);

/* The limiter's own entry for a pointer the driver handed out, or p itself. */
void *axl__lim_swap(void *p);

#endif
