/* SPDX-License-Identifier: MIT */
/*
 * The part of NVIDIA's CUDA driver API (libcuda.so.1) the cuda compute backend calls,
 * declared from the public CUDA Driver API reference: the handle types, the result codes
 * it tells apart, the flags it passes and the table of entry points it resolves with
 * dlsym. CUDA's own cuda.h is not needed to build axl. LP64 only.
 *
 * The plain names of versioned entry points (cuMemAlloc, cuStreamDestroy, ...) are macros
 * in cuda.h for the _v2 symbols; the table keeps the _v2 signatures, and where an old
 * driver lacks a _v2 symbol the older one it falls back to has the same signature, except
 * cuMemGetInfo (the CUDA 3.1 one, unsigned int counts), which has its own slot.
 */
#ifndef AXL_CUDA_API_H
#define AXL_CUDA_API_H

#include <assert.h>
#include <stddef.h>

typedef int CUresult; /* an enum in cuda.h: int-sized */
typedef int CUdevice; /* an ordinal */
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct {
	unsigned char bytes[16];
} CUuuid;
static_assert(sizeof(CUdeviceptr) == 8, "CUdeviceptr is 64 bits");
static_assert(sizeof(CUuuid) == 16, "CUuuid is 16 bytes");

enum {
	CUDA_SUCCESS = 0,
	CUDA_ERROR_OUT_OF_MEMORY = 2,
	CUDA_ERROR_DEINITIALIZED = 4,
	CUDA_ERROR_DEVICE_UNAVAILABLE = 46,
	CUDA_ERROR_NO_DEVICE = 100,
	CUDA_ERROR_ECC_UNCORRECTABLE = 214,
	CUDA_ERROR_PEER_ACCESS_UNSUPPORTED = 217,
	CUDA_ERROR_ILLEGAL_ADDRESS = 700,
	CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED = 704,
	CUDA_ERROR_LAUNCH_FAILED = 719,
	CUDA_ERROR_SYSTEM_NOT_READY = 802,
};

#define CU_MEMHOSTALLOC_PORTABLE 0x01u /* pinned memory usable by every context */
#define CU_STREAM_NON_BLOCKING   0x1u  /* no implicit order with the legacy default stream */
#define CU_EVENT_DEFAULT         0x0u  /* timed */

struct axl__cuda_fns {
	CUresult (*Init)(unsigned int flags);
	CUresult (*DriverGetVersion)(int *version);
	CUresult (*GetErrorName)(CUresult error, const char **str);
	CUresult (*DeviceGetCount)(int *count);
	CUresult (*DeviceGet)(CUdevice *device, int ordinal);
	CUresult (*DeviceGetName)(char *name, int len, CUdevice dev);
	CUresult (*DeviceGetPCIBusId)(char *bus_id, int len, CUdevice dev);
	CUresult (*DeviceGetUuid)(CUuuid *uuid, CUdevice dev); /* _v2, else the first */
	CUresult (*DeviceCanAccessPeer)(int *can, CUdevice dev, CUdevice peer);
	CUresult (*DevicePrimaryCtxRetain)(CUcontext *ctx, CUdevice dev);
	CUresult (*DevicePrimaryCtxRelease)(CUdevice dev); /* _v2, else the first */
	CUresult (*CtxGetCurrent)(CUcontext *ctx);
	CUresult (*CtxSetCurrent)(CUcontext ctx);
	CUresult (*CtxEnablePeerAccess)(CUcontext peer, unsigned int flags);
	CUresult (*MemAlloc)(CUdeviceptr *dptr, size_t bytes);
	CUresult (*MemFree)(CUdeviceptr dptr);
	CUresult (*MemHostAlloc)(void **p, size_t bytes, unsigned int flags);
	CUresult (*MemFreeHost)(void *p);
	CUresult (*MemGetInfo)(size_t *free, size_t *total);                /* _v2 */
	CUresult (*MemGetInfoOld)(unsigned int *free, unsigned int *total); /* CUDA 3.1 */
	CUresult (*MemcpyHtoDAsync)(CUdeviceptr dst, const void *src, size_t n, CUstream s);
	CUresult (*MemcpyDtoHAsync)(void *dst, CUdeviceptr src, size_t n, CUstream s);
	CUresult (*MemcpyDtoDAsync)(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s);
	CUresult (*MemcpyPeerAsync)(CUdeviceptr dst, CUcontext dst_ctx, CUdeviceptr src, CUcontext src_ctx, size_t n,
				    CUstream s);
	CUresult (*MemsetD8Async)(CUdeviceptr dst, unsigned char value, size_t n, CUstream s);
	CUresult (*StreamCreate)(CUstream *s, unsigned int flags);
	CUresult (*StreamSynchronize)(CUstream s);
	CUresult (*StreamDestroy)(CUstream s);
	CUresult (*EventCreate)(CUevent *e, unsigned int flags);
	CUresult (*EventRecord)(CUevent e, CUstream s);
	CUresult (*EventSynchronize)(CUevent e);
	CUresult (*EventElapsedTime)(float *ms, CUevent start, CUevent end);
	CUresult (*EventDestroy)(CUevent e);
};

#endif
