/* SPDX-License-Identifier: MIT */
/*
 * The part of AMD's HIP runtime C API (libamdhip64.so) that axl uses (the hip compute
 * backend here, the limiter's HIP side in src/limiter/amd/hip.c), declared from the public HIP runtime API reference (rocm.docs.amd.com, "HIP
 * runtime API" and "HIP error codes"): only the types, codes and functions called, as
 * a table of pointers the backend fills with dlsym. HIP's own headers are not needed to
 * build axl, and the runtime is never linked.
 */
#ifndef AXL_HIP_API_H
#define AXL_HIP_API_H

#include <stddef.h>

typedef int hipError_t; /* an enum in HIP: int-sized */
typedef struct ihipStream_t *hipStream_t;
typedef struct ihipEvent_t *hipEvent_t;
typedef struct {
	char bytes[16];
} hipUUID;

enum {
	hipSuccess = 0,
	hipErrorInvalidValue = 1,
	hipErrorOutOfMemory = 2,
	hipErrorNoDevice = 100,
	hipErrorECCNotCorrectable = 214,
	hipErrorIllegalAddress = 700,
	hipErrorAssert = 710,
	hipErrorHardwareStackError = 714,
	hipErrorIllegalInstruction = 715,
	hipErrorMisalignedAddress = 716,
	hipErrorInvalidAddressSpace = 717,
	hipErrorInvalidPc = 718,
	hipErrorLaunchFailure = 719,
	hipErrorPeerAccessAlreadyEnabled = 704,
	hipErrorNotSupported = 801,
};

/* hipMemcpyKind */
enum {
	hipMemcpyHostToHost = 0,
	hipMemcpyHostToDevice = 1,
	hipMemcpyDeviceToHost = 2,
	hipMemcpyDeviceToDevice = 3,
};

#define hipHostMallocDefault 0u

/* The functions, each NULL when the runtime lacks it. */
struct axl__hip_fns {
	hipError_t (*Init)(unsigned int flags);
	hipError_t (*DriverGetVersion)(int *version);
	hipError_t (*RuntimeGetVersion)(int *version);
	hipError_t (*GetDeviceCount)(int *count);
	hipError_t (*SetDevice)(int device);
	hipError_t (*DeviceGetName)(char *name, int len, int device);
	hipError_t (*DeviceGetPCIBusId)(char *bus_id, int len, int device);
	hipError_t (*DeviceGetUuid)(hipUUID *uuid, int device);
	hipError_t (*Malloc)(void **ptr, size_t size);
	hipError_t (*Free)(void *ptr);
	hipError_t (*HostMalloc)(void **ptr, size_t size, unsigned int flags);
	hipError_t (*HostFree)(void *ptr);
	hipError_t (*MemGetInfo)(size_t *free_bytes, size_t *total_bytes);
	hipError_t (*MemcpyAsync)(void *dst, const void *src, size_t size, int kind, hipStream_t stream);
	hipError_t (*MemcpyPeerAsync)(void *dst, int dst_device, const void *src, int src_device, size_t size,
				      hipStream_t stream);
	hipError_t (*MemsetAsync)(void *dst, int value, size_t size, hipStream_t stream);
	hipError_t (*StreamCreate)(hipStream_t *stream);
	hipError_t (*StreamDestroy)(hipStream_t stream);
	hipError_t (*StreamSynchronize)(hipStream_t stream);
	hipError_t (*EventCreate)(hipEvent_t *event);
	hipError_t (*EventRecord)(hipEvent_t event, hipStream_t stream);
	hipError_t (*EventSynchronize)(hipEvent_t event);
	hipError_t (*EventElapsedTime)(float *ms, hipEvent_t start, hipEvent_t stop);
	hipError_t (*EventDestroy)(hipEvent_t event);
	hipError_t (*DeviceCanAccessPeer)(int *can, int device, int peer);
	hipError_t (*DeviceEnablePeerAccess)(int peer, unsigned int flags);
	const char *(*GetErrorName)(hipError_t error);
};

#endif
