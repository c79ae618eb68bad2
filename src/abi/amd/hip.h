/* SPDX-License-Identifier: MIT */
/*
 * AMD's HIP runtime C API (libamdhip64.so.N): the part axl calls (lib/backend/amd: the hip
 * compute backend) or replaces (limiter/amd: the limiter's HIP side), declared once. It
 * mirrors hip/hip_runtime_api.h of HIP 5.2 (HIP_VERSION 50221153, ROCm 5.2.3, as Debian
 * 12's libamdhip64-dev 5.2.3 ships it) as a C compiler sees it with __HIP_PLATFORM_AMD__;
 * tests/vendorabi compares it with that header.
 *
 * Versions are HIP's own HIP_VERSION (hip/hip_version.h): major * 10000000 + minor *
 * 100000 + patch. Declarations from later releases sit under AXL_ABI_HAVE(<HIP_VERSION of
 * the release's .0>), naming the ROCm release whose header added them. Only the members of
 * the enums axl uses are declared; HIP has no error codes of its own for CUDA's hardware
 * exceptions (714-718: HIPIFY lists them as unsupported), so none are declared. LP64 only.
 */
#ifndef AXL_ABI_AMD_HIP_H
#define AXL_ABI_AMD_HIP_H

#include <stddef.h>

#include "abi/abi.h"

/* ---- handles and scalar types ---- */
typedef int hipDevice_t;
typedef struct ihipStream_t *hipStream_t;
typedef struct ihipEvent_t *hipEvent_t;

typedef struct hipUUID_t {
	char bytes[16];
} hipUUID;
_Static_assert(sizeof(hipUUID) == 16, "hipUUID is 16 bytes");

/* ---- enumerations: the members axl uses ---- */
typedef enum hipError_t {
	hipSuccess = 0,
	hipErrorInvalidValue = 1,
	hipErrorOutOfMemory = 2,
	hipErrorNoDevice = 100,
	hipErrorECCNotCorrectable = 214,
	hipErrorInvalidHandle = 400,
	hipErrorIllegalAddress = 700,
	hipErrorPeerAccessAlreadyEnabled = 704,
	hipErrorAssert = 710,
	hipErrorLaunchFailure = 719,
	hipErrorNotSupported = 801
} hipError_t;
_Static_assert(sizeof(hipError_t) == 4, "hipError_t is int-sized");

typedef enum hipMemcpyKind {
	hipMemcpyHostToHost = 0,
	hipMemcpyHostToDevice = 1,
	hipMemcpyDeviceToHost = 2,
	hipMemcpyDeviceToDevice = 3,
	hipMemcpyDefault = 4
} hipMemcpyKind;

#define hipHostMallocDefault 0x0

/* ---- initialisation, devices ---- */
hipError_t hipInit(unsigned int flags);
hipError_t hipDriverGetVersion(int *driverVersion);
hipError_t hipRuntimeGetVersion(int *runtimeVersion);
hipError_t hipGetDeviceCount(int *count);
hipError_t hipSetDevice(int deviceId);
hipError_t hipGetDevice(int *deviceId);
hipError_t hipDeviceGetName(char *name, int len, hipDevice_t device);
hipError_t hipDeviceGetPCIBusId(char *pciBusId, int len, int device);
hipError_t hipDeviceGetUuid(hipUUID *uuid, hipDevice_t device);
hipError_t hipDeviceCanAccessPeer(int *canAccessPeer, int deviceId, int peerDeviceId);
hipError_t hipDeviceEnablePeerAccess(int peerDeviceId, unsigned int flags);
const char *hipGetErrorName(hipError_t hip_error);

/* ---- memory ---- */
hipError_t hipMalloc(void **ptr, size_t size);
hipError_t hipMallocManaged(void **dev_ptr, size_t size, unsigned int flags);
hipError_t hipExtMallocWithFlags(void **ptr, size_t sizeBytes, unsigned int flags);
hipError_t hipMallocAsync(void **dev_ptr, size_t size, hipStream_t stream);
hipError_t hipFree(void *ptr);
hipError_t hipFreeAsync(void *dev_ptr, hipStream_t stream);
hipError_t hipHostMalloc(void **ptr, size_t size, unsigned int flags);
hipError_t hipHostFree(void *ptr);
hipError_t hipMemGetInfo(size_t *free, size_t *total);

/* ---- copies, streams, events ---- */
hipError_t hipMemcpyAsync(void *dst, const void *src, size_t sizeBytes, hipMemcpyKind kind, hipStream_t stream);
hipError_t hipMemcpyPeerAsync(void *dst, int dstDeviceId, const void *src, int srcDevice, size_t sizeBytes,
			      hipStream_t stream);
hipError_t hipMemsetAsync(void *dst, int value, size_t sizeBytes, hipStream_t stream);
hipError_t hipStreamCreate(hipStream_t *stream);
hipError_t hipStreamDestroy(hipStream_t stream);
hipError_t hipStreamSynchronize(hipStream_t stream);
#if AXL_ABI_HAVE(50600000)
/* hip_runtime_api.h of ROCm 5.6 */
hipError_t hipStreamGetDevice(hipStream_t stream, hipDevice_t *device);
#endif
hipError_t hipEventCreate(hipEvent_t *event);
hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream);
hipError_t hipEventSynchronize(hipEvent_t event);
hipError_t hipEventElapsedTime(float *ms, hipEvent_t start, hipEvent_t stop);
hipError_t hipEventDestroy(hipEvent_t event);

#endif
