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
 * and a slot for the driver's. Versioned, legacy (CUDA 3.1: 32-bit sizes and pointers) and
 * per-thread-stream variants are entries of their own, so a pointer the driver hands out
 * maps back to exactly one of them. tests/limiter/real (limiter.real.routes) checks this
 * list against every export of the real driver. */
#define AXL__LIM_SYMS(X)                                                                                   \
	/* memory.c: allocations, frees, what the program is told */                                       \
	X(cuMemAlloc) X(cuMemAlloc_v2) X(cuMemAllocPitch) X(cuMemAllocPitch_v2) X(cuMemAllocManaged)        \
	X(cuMemAllocAsync) X(cuMemAllocAsync_ptsz) X(cuMemAllocFromPoolAsync) X(cuMemAllocFromPoolAsync_ptsz) \
	X(cuMemCreate) X(cuArrayCreate) X(cuArrayCreate_v2) X(cuArray3DCreate) X(cuArray3DCreate_v2)        \
	X(cuMipmappedArrayCreate) X(cuMemFree) X(cuMemFree_v2) X(cuMemFreeAsync) X(cuMemFreeAsync_ptsz)     \
	X(cuMemRelease) X(cuArrayDestroy) X(cuMipmappedArrayDestroy) X(cuMemGetInfo_v2) X(cuMemGetInfo)     \
	X(cuDeviceTotalMem) X(cuDeviceTotalMem_v2) X(cuMemRetainAllocationHandle) X(cuMemMap) X(cuMemUnmap) \
	/* arraymap.c: tile pools mapped into sparse arrays */                                             \
	X(cuMemMapArrayAsync) X(cuMemMapArrayAsync_ptsz)                                                    \
	/* limiter.c */                                                                                    \
	X(cuGetProcAddress) X(cuGetProcAddress_v2)                                                          \
	/* compute.c: launches, instantiations, captures */                                                \
	X(cuLaunchKernel) X(cuLaunchKernel_ptsz) X(cuLaunchKernelEx) X(cuLaunchKernelEx_ptsz)               \
	X(cuLaunchCooperativeKernel) X(cuLaunchCooperativeKernel_ptsz) X(cuLaunchCooperativeKernelMultiDevice) \
	X(cuLaunch) X(cuLaunchGrid) X(cuLaunchGridAsync) X(cuGraphLaunch) X(cuGraphLaunch_ptsz)             \
	X(cuGraphInstantiate) X(cuGraphInstantiate_v2) X(cuGraphInstantiateWithFlags)                        \
	X(cuGraphInstantiateWithParams) X(cuGraphInstantiateWithParams_ptsz) X(cuGraphExecDestroy)          \
	X(cuStreamBeginCapture) X(cuStreamBeginCapture_ptsz) X(cuStreamBeginCapture_v2)                     \
	X(cuStreamBeginCapture_v2_ptsz) X(cuStreamBeginCaptureToGraph) X(cuStreamBeginCaptureToGraph_ptsz)  \
	X(cuStreamEndCapture) X(cuStreamEndCapture_ptsz)                                                     \
	/* pool.c */                                                                                       \
	X(cuMemPoolTrimTo) X(cuMemPoolDestroy)                                                              \
	/* graphmem.c: graph memory nodes */                                                               \
	X(cuGraphAddMemAllocNode) X(cuGraphAddNode) X(cuGraphAddNode_v2) X(cuGraphUpload)                   \
	X(cuGraphUpload_ptsz) X(cuDeviceGraphMemTrim)

enum {
#define AXL__LIM_ENUM(n) AXL__SYM_##n,
	AXL__LIM_SYMS(AXL__LIM_ENUM)
#undef AXL__LIM_ENUM
	AXL__SYM_N
};

/* the driver's entry points (NULL: the driver lacks it), valid after axl__lim_init() */
extern void *axl__lim_real[AXL__SYM_N];
/* the driver's n, with its type from src/abi (NULL: the driver lacks it) */
#define AXL__LIM_REAL(n) ((__typeof__(&n))axl__lim_real[AXL__SYM_##n])
/* an entry point whose driver function is missing answers CUDA_ERROR_NOT_SUPPORTED */
#define AXL__LIM_NOREAL(n)                                 \
	do {                                               \
		axl__lim_init();                           \
		if (!axl__lim_real[AXL__SYM_##n])          \
			return CUDA_ERROR_NOT_SUPPORTED;   \
	} while (0)
/* the driver's functions the limiter calls for itself (NULL: the driver lacks it), typed
 * from their prototypes in src/abi */
struct axl__lim_drv {
	__typeof__(&cuCtxGetDevice) ctx_get_device;
	__typeof__(&cuDeviceGetCount) device_get_count;
	__typeof__(&cuDeviceGet) device_get;
	__typeof__(&cuDeviceGetUuid_v2) device_get_uuid; /* or cuDeviceGetUuid: the same prototype */
	/* a graph's kernels (compute.c) and allocation nodes (graphmem.c): cuGraphGetNodes,
	 * cuGraphNodeGetType (NULL: the kernel-node query decides), cuGraphKernelNodeGetParams_v2
	 * (else the CUDA 11 cuGraphKernelNodeGetParams), cuGraphChildGraphNodeGetGraph,
	 * cuGraphMemAllocNodeGetParams */
	__typeof__(&cuGraphGetNodes) graph_get_nodes;
	__typeof__(&cuGraphNodeGetType) node_get_type;
	__typeof__(&cuGraphKernelNodeGetParams_v2) kernel_node_get_params_v2;
	__typeof__(&cuGraphKernelNodeGetParams) kernel_node_get_params;
	__typeof__(&cuGraphChildGraphNodeGetGraph) child_graph;
	__typeof__(&cuGraphMemAllocNodeGetParams) mem_alloc_node_get_params;
	/* the graph pool's figures (graphmem.c) */
	__typeof__(&cuDeviceGetGraphMemAttribute) graph_mem_attribute;
	/* pools (pool.c): cuMemPoolGetAttribute, cuDeviceGetMemPool, cuDeviceGetDefaultMemPool */
	__typeof__(&cuMemPoolGetAttribute) pool_get_attribute;
	__typeof__(&cuDeviceGetMemPool) device_get_mem_pool;
	__typeof__(&cuDeviceGetDefaultMemPool) device_get_default_mem_pool;
	/* stream capture (compute.c): cuStreamIsCapturing, cuStreamIsCapturing_ptsz */
	__typeof__(&cuStreamIsCapturing) stream_is_capturing;
	__typeof__(&cuStreamIsCapturing_ptsz) stream_is_capturing_ptsz;
	/* a stream's device (compute.c, the multi-device launch): cuStreamGetCtx, then the
	 * context made current for cuCtxGetDevice (cuCtxPushCurrent_v2, cuCtxPopCurrent_v2) */
	__typeof__(&cuStreamGetCtx) stream_get_ctx;
	__typeof__(&cuCtxPushCurrent_v2) ctx_push;
	__typeof__(&cuCtxPopCurrent_v2) ctx_pop;
};
extern struct axl__lim_drv axl__lim_drv;

/* Load the driver and read the environment, once (thread-safe). */
void axl__lim_init(void);

/* Devices read and how many have a compute limit: -1 the driver cannot tell yet, else the
 * count (0: launches pass straight through). Reads the devices on the first call. */
int axl__lim_compute_count(void);
/* Is some device limited (read now if not yet)? 0 also while the driver cannot tell yet. */
int axl__lim_any_limited(void);
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

/* memory.c: one more mapping reference of the entry of a VMM handle the limiter charged (1,
 * or 0 when it charged none: nothing taken), and one fewer (the charge given back with the
 * last reference of either kind) */
int axl__lim_vmm_hold(CUmemGenericAllocationHandle handle);
void axl__lim_vmm_unhold(CUmemGenericAllocationHandle handle);
/* vmap.c: forget every recorded mapping (a child of fork) */
void axl__lim_vmap_forget(void);

/* arraymap.c: tile pools mapped into sparse and deferred-mapping arrays. An array of kind
 * (CU_RESOURCE_TYPE_ARRAY or _MIPMAPPED_ARRAY) made with these flags; before its destruction
 * its regions are taken out, and after it (done) their references dropped (destroyed) or
 * the regions put back (the driver refused). A child of fork forgets the parent's. */
struct axl__lim_arraymap_taken;
void axl__lim_arraymap_created(int kind, uint64_t res, unsigned flags);
struct axl__lim_arraymap_taken *axl__lim_arraymap_take(int kind, uint64_t res);
void axl__lim_arraymap_done(struct axl__lim_arraymap_taken *t, int destroyed);
void axl__lim_forget_arraymaps(void);

/* compute.c: is s being captured (into a graph: a launch or stream-ordered allocation on
 * it does not run)? ptsz: the per-thread default stream's variant was called. */
int axl__lim_capturing(CUstream s, int ptsz);

/* memory.c: reserve bytes on the device with this ordinal for fn (0: reserved or the
 * device is not limited, *rdev its region index or -1; CUDA_ERROR_OUT_OF_MEMORY refused,
 * logged); axl__lim_uncharge gives them back. */
CUresult axl__lim_charge(int ordinal, uint64_t bytes, const char *fn, int *rdev);
void axl__lim_uncharge(int rdev, uint64_t bytes);

/* graphmem.c: graph memory. After an instantiation: remember the executable graph's
 * allocation nodes (graph g). Before an upload or launch of e (or an instantiation of g
 * that uploads, e NULL): admit its allocations (CUDA_ERROR_OUT_OF_MEMORY refused), then
 * axl__lim_graphmem_done after the call, whatever it returned. */
struct axl__lim_gm_admit {
	int n;
	int rdev[8];
	uint64_t bytes[8];
	int ord[8];
};
void axl__lim_graphmem_instantiated(CUgraphExec e, CUgraph g);
CUresult axl__lim_graphmem_admit(CUgraphExec e, CUgraph g, const char *fn, struct axl__lim_gm_admit *a);
void axl__lim_graphmem_done(struct axl__lim_gm_admit *a);
void axl__lim_graphmem_forget(CUgraphExec e);
/* what the graph pools hold, weighed again (region device rdev, -1 all) */
void axl__lim_graphmem_refresh(int rdev);
/* a child of fork: the parent's graphs and charges are not its own */
void axl__lim_forget_graphmem(void);

#endif
