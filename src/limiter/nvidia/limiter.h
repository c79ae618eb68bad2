/* SPDX-License-Identifier: MIT */
/*
 * libaxl_limiter.so's internals (docs/limits.md, "The limiter"): the table of accounted
 * entry points, the real driver's pointers, the limits per device and the log.
 */
#ifndef AXL_LIMITER_LIMITER_H
#define AXL_LIMITER_LIMITER_H

#include <stdint.h>

#include "cuda_abi.h"
#include "region.h"

#define AXL__LIM_API __attribute__((visibility("default")))

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

/* One device as the limiter sees it (its ordinal = CUDA's after CUDA_VISIBLE_DEVICES). */
struct axl__lim_dev {
	char uuid[AXL__REGION_UUID_MAX];
	int rdev;       /* its index in the region, -1: not accounted */
	int broken;     /* memory fails closed: every allocation refused */
	int64_t memory; /* the configured memory limit, -1 none */
	int compute;    /* percent, -1 none */
};

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

enum { AXL__LOG_ERROR, AXL__LOG_WARN, AXL__LOG_INFO, AXL__LOG_DEBUG };
extern int axl__lim_log_level;
void axl__lim_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
struct axl__lim_dev;
/* Attach the workload's shared region ($AXL_LIMITER_REGION, else the state directory's
 * default) with these limits and map each of the n devices to its index in it (rdev). A
 * region that cannot be attached leaves *out NULL and every device with a memory limit
 * fails closed (broken), as does a limited device the region lacks; each is logged, side
 * ("CUDA", "HIP") naming the runtime. The CUDA and the HIP sides both attach through here. */
void axl__lim_region_attach(axl__region **out, struct axl__lim_dev *devs, const struct axl__region_limit *lims,
			    int n, const char *side);

/* The state directory's limit records (../state.c), read for one side ("CUDA", "HIP") with
 * an error logged when the file is unusable; NULL (logged) when out of memory; free() it. */
struct axl__lim_state;
struct axl__lim_state *axl__lim_state_load(const char *side);
/* st's records for d by d->uuid (case-insensitive): d->memory, d->compute; st NULL or
 * broken: d->broken (fails closed). */
void axl__lim_limits_state(const struct axl__lim_state *st, struct axl__lim_dev *d);

/* AXL_LIMIT_* for device i, matched by d->uuid (case-insensitive): d->memory, d->compute,
 * d->broken (a malformed or unknown-version variable) */
void axl__lim_limits_axl(int i, struct axl__lim_dev *d);

/* The HIP side (src/limiter/amd/hip.c): the limiter's entry for an accounted hip* name
 * asked of the HIP runtime, NULL otherwise (the caller then answers as the real dlsym). */
void *axl__lim_hip_dlsym(void *handle, const char *name, void *(*real_dlsym)(void *, const char *));

/* The allocation map (memory.c), shared with the HIP side: kind AXL__LIM_K_HIP */
enum { AXL__LIM_K_HIP = 8 };
void axl__lim_map_put(uint64_t key, int kind, int rdev, uint64_t bytes);
int axl__lim_map_take(uint64_t key, int kind, int *rdev, uint64_t *bytes);

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

/* Is h a handle of the library: RTLD_DEFAULT/NEXT, own (the limiter's own handle of it),
 * a file whose name starts with prefix ("libcuda.so"), or the file $env names? */
int axl__lim_is_lib_handle(void *h, void *own, const char *prefix, const char *env);

/* The real dlsym (libc's, past the limiter's). */
typedef void *(*dlsym_fn)(void *, const char *);
dlsym_fn axl__lim_real_dlsym(void);
/* The limited device whose UUID is uuid (case-insensitive), as axl__lim_device; NULL when
 * none (or nothing is limited, or the driver cannot tell yet). */
struct axl__lim_dev *axl__lim_device_by_uuid(const char *uuid, axl__region **region);
/* nvml.c: the limiter's entry for an NVML name it interposes, asked of handle (the real
 * answer recorded); NULL for every other name or when NVML lacks it. */
void *axl__lim_nvml_dlsym(dlsym_fn ds, void *handle, const char *name);

/* The limiter's own entry for a pointer the driver handed out, or p itself. */
void *axl__lim_swap(void *p);

#endif
