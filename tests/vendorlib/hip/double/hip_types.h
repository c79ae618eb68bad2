/* SPDX-License-Identifier: MIT */
/*
 * The few HIP runtime types, enums, error codes and entry points the HIP double
 * (libamdhip64.so) implements, written for axl from the public HIP API reference
 * (rocm.docs.amd.com, "HIP runtime API" and "HIP error codes"). Not AMD's header: only
 * the names, values and signatures the reference documents, and only those used here.
 */
#ifndef AXL_TESTS_HIP_TYPES_H
#define AXL_TESTS_HIP_TYPES_H

#include <stddef.h>

/* Declarations newer than HIP 5.2 (Debian's libamdhip64-dev 5.2.3, which tests/vendorabi
 * compares this file with: vendorabi.double.hip) sit under AXL_ABI_HAVE(<HIP_VERSION>);
 * the comparison defines AXL_ABI_HEADER_VERSION to the header's HIP_VERSION. The builds
 * are ROCm 6.2's runtime and (HIP_DOUBLE_OLD) ROCm 5.7's. */
#ifdef AXL_ABI_HEADER_VERSION
#define AXL_ABI_HAVE(version) (AXL_ABI_HEADER_VERSION >= (version))
#elif defined(HIP_DOUBLE_OLD)
#define AXL_ABI_HAVE(version) (50731921 >= (version))
#else
#define AXL_ABI_HAVE(version) 1
#endif

typedef enum hipError_t {
  hipSuccess = 0,
  hipErrorInvalidValue = 1,
  hipErrorOutOfMemory = 2,
  hipErrorNotInitialized = 3,
  hipErrorDeinitialized = 4,
  hipErrorInvalidDevicePointer = 17,
  hipErrorInvalidMemcpyDirection = 21,
  hipErrorInsufficientDriver = 35,
  hipErrorNoDevice = 100,
  hipErrorInvalidDevice = 101,
  hipErrorInvalidContext = 201,
  hipErrorPeerAccessUnsupported = 217,
  hipErrorInvalidHandle = 400,
  hipErrorNotReady = 600,
  hipErrorIllegalAddress = 700,
  hipErrorPeerAccessAlreadyEnabled = 704,
  hipErrorPeerAccessNotEnabled = 705,
  hipErrorLaunchFailure = 719,
  hipErrorNotSupported = 801,
  hipErrorUnknown = 999,
} hipError_t;

typedef enum hipMemcpyKind {
  hipMemcpyHostToHost = 0,
  hipMemcpyHostToDevice = 1,
  hipMemcpyDeviceToHost = 2,
  hipMemcpyDeviceToDevice = 3,
  hipMemcpyDefault = 4, /* direction from the pointers (unified virtual addressing) */
} hipMemcpyKind;

/* only the members used; the values are the ROCm 5+ numbering */
typedef enum hipDeviceAttribute_t {
  hipDeviceAttributeMultiprocessorCount = 63,
  hipDeviceAttributePciBusId = 67,
  hipDeviceAttributePciDeviceId = 68,
  hipDeviceAttributePciDomainID = 69,
} hipDeviceAttribute_t;

typedef int hipDevice_t;
typedef struct ihipStream_t *hipStream_t;
typedef struct ihipEvent_t *hipEvent_t;
typedef struct hipUUID_t {
  char bytes[16];
} hipUUID;

#define hipHostMallocDefault 0x0u
#define hipMemAttachGlobal 0x1u
#define hipDeviceMallocFinegrained 0x1u

hipError_t hipInit(unsigned int flags);
hipError_t hipDriverGetVersion(int *driverVersion);
hipError_t hipRuntimeGetVersion(int *runtimeVersion);
hipError_t hipGetDeviceCount(int *count);
hipError_t hipSetDevice(int deviceId);
hipError_t hipGetDevice(int *deviceId);
hipError_t hipDeviceGetName(char *name, int len, hipDevice_t device);
hipError_t hipDeviceGetPCIBusId(char *pciBusId, int len, int device);
hipError_t hipDeviceTotalMem(size_t *bytes, hipDevice_t device);
hipError_t hipDeviceGetAttribute(int *pi, hipDeviceAttribute_t attr, int deviceId);
hipError_t hipDeviceGetUuid(hipUUID *uuid, hipDevice_t device);
hipError_t hipMalloc(void **ptr, size_t size);
hipError_t hipFree(void *ptr);
hipError_t hipMallocManaged(void **ptr, size_t size, unsigned int flags);
hipError_t hipExtMallocWithFlags(void **ptr, size_t sizeBytes, unsigned int flags);
hipError_t hipMallocAsync(void **ptr, size_t size, hipStream_t stream);
hipError_t hipFreeAsync(void *ptr, hipStream_t stream);
#if AXL_ABI_HAVE(50600000)
/* ROCm 5.6 */
hipError_t hipStreamGetDevice(hipStream_t stream, hipDevice_t *device);
#endif
hipError_t hipHostMalloc(void **ptr, size_t size, unsigned int flags);
hipError_t hipHostFree(void *ptr);
hipError_t hipMemGetInfo(size_t *free, size_t *total);
hipError_t hipMemcpyAsync(void *dst, const void *src, size_t sizeBytes, hipMemcpyKind kind, hipStream_t stream);
hipError_t hipMemcpyPeerAsync(void *dst, int dstDeviceId, const void *src, int srcDevice, size_t sizeBytes,
                              hipStream_t stream);
hipError_t hipMemsetAsync(void *dst, int value, size_t sizeBytes, hipStream_t stream);
hipError_t hipStreamCreate(hipStream_t *stream);
hipError_t hipStreamDestroy(hipStream_t stream);
hipError_t hipStreamSynchronize(hipStream_t stream);
hipError_t hipDeviceSynchronize(void);
hipError_t hipEventCreate(hipEvent_t *event);
hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream);
hipError_t hipEventSynchronize(hipEvent_t event);
hipError_t hipEventElapsedTime(float *ms, hipEvent_t start, hipEvent_t stop);
hipError_t hipEventDestroy(hipEvent_t event);
hipError_t hipDeviceCanAccessPeer(int *canAccessPeer, int deviceId, int peerDeviceId);
hipError_t hipDeviceEnablePeerAccess(int peerDeviceId, unsigned int flags);
const char *hipGetErrorName(hipError_t hip_error);
const char *hipGetErrorString(hipError_t hip_error);

#endif
