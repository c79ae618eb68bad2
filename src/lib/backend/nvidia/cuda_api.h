/* SPDX-License-Identifier: MIT */
/*
 * The table of NVIDIA's CUDA driver API (libcuda.so.1) entry points the cuda compute
 * backend resolves with dlsym. The types and prototypes are CUDA's own, declared once in
 * src/abi/nvidia/cuda.h (compared with cuda.h by tests/vendorabi); each slot has the type
 * of the first symbol it is resolved from, and an older symbol it falls back to must have
 * the same type (static_assert below), except cuMemGetInfo (the CUDA 3.1 one, unsigned int
 * counts), which has its own slot.
 */
#ifndef AXL_CUDA_API_H
#define AXL_CUDA_API_H

#include <assert.h>
#include <stddef.h>

#include "abi/nvidia/cuda.h"

#define AXL_CUDA_FN(sym) __typeof__(&sym)

struct axl__cuda_fns {
	AXL_CUDA_FN(cuInit) Init;
	AXL_CUDA_FN(cuDriverGetVersion) DriverGetVersion;
	AXL_CUDA_FN(cuGetErrorName) GetErrorName;
	AXL_CUDA_FN(cuDeviceGetCount) DeviceGetCount;
	AXL_CUDA_FN(cuDeviceGet) DeviceGet;
	AXL_CUDA_FN(cuDeviceGetName) DeviceGetName;
	AXL_CUDA_FN(cuDeviceGetPCIBusId) DeviceGetPCIBusId;
	AXL_CUDA_FN(cuDeviceGetUuid_v2) DeviceGetUuid; /* _v2, else the first */
	AXL_CUDA_FN(cuDeviceCanAccessPeer) DeviceCanAccessPeer;
	AXL_CUDA_FN(cuDevicePrimaryCtxRetain) DevicePrimaryCtxRetain;
	AXL_CUDA_FN(cuDevicePrimaryCtxRelease_v2) DevicePrimaryCtxRelease; /* _v2, else the first */
	AXL_CUDA_FN(cuCtxGetCurrent) CtxGetCurrent;
	AXL_CUDA_FN(cuCtxSetCurrent) CtxSetCurrent;
	AXL_CUDA_FN(cuCtxEnablePeerAccess) CtxEnablePeerAccess;
	AXL_CUDA_FN(cuMemAlloc_v2) MemAlloc;
	AXL_CUDA_FN(cuMemFree_v2) MemFree;
	AXL_CUDA_FN(cuMemHostAlloc) MemHostAlloc;
	AXL_CUDA_FN(cuMemFreeHost) MemFreeHost;
	AXL_CUDA_FN(cuMemGetInfo_v2) MemGetInfo;
	AXL_CUDA_FN(cuMemGetInfo) MemGetInfoOld; /* CUDA 3.1 */
	AXL_CUDA_FN(cuMemcpyHtoDAsync_v2) MemcpyHtoDAsync;
	AXL_CUDA_FN(cuMemcpyDtoHAsync_v2) MemcpyDtoHAsync;
	AXL_CUDA_FN(cuMemcpyDtoDAsync_v2) MemcpyDtoDAsync;
	AXL_CUDA_FN(cuMemcpyPeerAsync) MemcpyPeerAsync;
	AXL_CUDA_FN(cuMemsetD8Async) MemsetD8Async;
	AXL_CUDA_FN(cuStreamCreate) StreamCreate;
	AXL_CUDA_FN(cuStreamSynchronize) StreamSynchronize;
	AXL_CUDA_FN(cuStreamDestroy_v2) StreamDestroy;
	AXL_CUDA_FN(cuEventCreate) EventCreate;
	AXL_CUDA_FN(cuEventRecord) EventRecord;
	AXL_CUDA_FN(cuEventSynchronize) EventSynchronize;
	AXL_CUDA_FN(cuEventElapsedTime) EventElapsedTime;
	AXL_CUDA_FN(cuEventDestroy_v2) EventDestroy;
};

/* the fallbacks resolve into the same slot: the same type */
static_assert(__builtin_types_compatible_p(__typeof__(cuDeviceGetUuid), __typeof__(cuDeviceGetUuid_v2)),
	      "cuDeviceGetUuid");
static_assert(__builtin_types_compatible_p(__typeof__(cuDevicePrimaryCtxRelease),
					   __typeof__(cuDevicePrimaryCtxRelease_v2)),
	      "cuDevicePrimaryCtxRelease");

#endif
