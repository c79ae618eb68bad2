/* SPDX-License-Identifier: MIT */
/*
 * The table of AMD's HIP runtime (libamdhip64.so.N) functions the hip compute backend
 * resolves with dlsym. The types, codes and prototypes are HIP's own, declared once in
 * src/abi/amd/hip.h (compared with Debian's hip_runtime_api.h 5.2 by tests/vendorabi;
 * the limiter's HIP side includes it too); each slot has its function's type. HIP's own
 * headers are not needed to build axl, and the runtime is never linked.
 */
#ifndef AXL_HIP_API_H
#define AXL_HIP_API_H

#include "abi/amd/hip.h"

#define AXL_HIP_FN(sym) __typeof__(&sym)

/* The functions, each NULL when the runtime lacks it. */
struct axl__hip_fns {
	AXL_HIP_FN(hipInit) Init;
	AXL_HIP_FN(hipDriverGetVersion) DriverGetVersion;
	AXL_HIP_FN(hipRuntimeGetVersion) RuntimeGetVersion;
	AXL_HIP_FN(hipGetDeviceCount) GetDeviceCount;
	AXL_HIP_FN(hipSetDevice) SetDevice;
	AXL_HIP_FN(hipDeviceGetName) DeviceGetName;
	AXL_HIP_FN(hipDeviceGetPCIBusId) DeviceGetPCIBusId;
	AXL_HIP_FN(hipDeviceGetUuid) DeviceGetUuid;
	AXL_HIP_FN(hipMalloc) Malloc;
	AXL_HIP_FN(hipFree) Free;
	AXL_HIP_FN(hipHostMalloc) HostMalloc;
	AXL_HIP_FN(hipHostFree) HostFree;
	AXL_HIP_FN(hipMemGetInfo) MemGetInfo;
	AXL_HIP_FN(hipMemcpyAsync) MemcpyAsync;
	AXL_HIP_FN(hipMemcpyPeerAsync) MemcpyPeerAsync;
	AXL_HIP_FN(hipMemsetAsync) MemsetAsync;
	AXL_HIP_FN(hipStreamCreate) StreamCreate;
	AXL_HIP_FN(hipStreamDestroy) StreamDestroy;
	AXL_HIP_FN(hipStreamSynchronize) StreamSynchronize;
	AXL_HIP_FN(hipEventCreate) EventCreate;
	AXL_HIP_FN(hipEventRecord) EventRecord;
	AXL_HIP_FN(hipEventSynchronize) EventSynchronize;
	AXL_HIP_FN(hipEventElapsedTime) EventElapsedTime;
	AXL_HIP_FN(hipEventDestroy) EventDestroy;
	AXL_HIP_FN(hipDeviceCanAccessPeer) DeviceCanAccessPeer;
	AXL_HIP_FN(hipDeviceEnablePeerAccess) DeviceEnablePeerAccess;
	AXL_HIP_FN(hipGetErrorName) GetErrorName;
};

#endif
