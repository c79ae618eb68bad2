/* SPDX-License-Identifier: MIT */
/*
 * Tests of libaxl_limiter.so's memory limit (docs/limits.md, "The limiter") against the CUDA
 * double. `test_limiter CASE WORKDIR`, one CTest per case, run with LD_PRELOAD=the limiter
 * and AXL_LIMITER_CUDA_LIBRARY=the double; this program is linked to the double's
 * libcuda.so.1 (the "linked directly" path) and also reaches it with dlopen/dlsym and
 * cuGetProcAddress. The double's own answers (what it really allocated) come from its
 * .dynsym (lt_dynsym, limtest.h), past the limiter's dlsym. Limits are put in the environment after
 * cuInit (the limiter reads them at the first accounted call), so a case can name the
 * double's UUIDs.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cuda_types.h"
#include "limtest.h"

#define MIB ((size_t)1 << 20)
static char g_uuid[2][64];
#define RC(call, want)                                                                              \
	do {                                                                                        \
		CUresult rc_ = (call);                                                              \
		if (rc_ != (want)) {                                                                \
			fprintf(stderr, "%s:%d: %s = %d, want %d\n", __FILE__, __LINE__, #call, (int)rc_, \
				(int)(want));                                                       \
			g_fail = 1;                                                                 \
		}                                                                                   \
	} while (0)

static void *g_double; /* the double, by dlopen */
static CUresult (*d_getinfo)(size_t *, size_t *);   /* the double's own (lt_dynsym, limtest.h) */
static CUresult (*d_total)(size_t *, CUdevice);


static size_t double_used(void)
{
	size_t f = 0, t = 0;
	d_getinfo(&f, &t);
	return t - f;
}

static void region(const char *name)
{
	char p[4096];
	snprintf(p, sizeof p, "%s/%s.region", g_work, name);
	unlink(p);
	setenv("AXL_LIMITER_REGION", p, 1);
}

/* cuInit, the primary context of device 0 current, the UUIDs */
static void start(void)
{
	RC(cuInit(0), CUDA_SUCCESS);
	for (int i = 0; i < 2; i++) {
		CUuuid u;
		RC(cuDeviceGetUuid(&u, i), CUDA_SUCCESS);
		const unsigned char *b = (const unsigned char *)u.bytes;
		snprintf(g_uuid[i], sizeof g_uuid[i],
			 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2],
			 b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
	}
	CUcontext c;
	RC(cuDevicePrimaryCtxRetain(&c, 0), CUDA_SUCCESS);
	RC(cuCtxSetCurrent(c), CUDA_SUCCESS);
	g_double = dlopen("libcuda.so.1", RTLD_NOW);
	CHECK(g_double);
	d_getinfo = (CUresult(*)(size_t *, size_t *))lt_dynsym(g_double, "cuMemGetInfo_v2");
	d_total = (CUresult(*)(size_t *, CUdevice))lt_dynsym(g_double, "cuDeviceTotalMem_v2");
	if (!d_getinfo || !d_total) {
		fprintf(stderr, "the double's own symbols not found\n");
		exit(2);
	}
}

/* AXL_LIMIT_* for device 0 only */
static void axl_limit(const char *mem)
{
	setenv("AXL_LIMIT_VERSION", "1", 1);
	setenv("AXL_LIMIT_DEVICES", g_uuid[0], 1);
	setenv("AXL_LIMIT_MEMORY_BYTES", mem, 1);
	setenv("AXL_LIMIT_COMPUTE_PERCENT", "none", 1);
}

typedef CUresult (*alloc_fn)(CUdeviceptr *, size_t);
typedef CUresult (*free_fn)(CUdeviceptr);

/* exactly the limit: ok; one byte more: OUT_OF_MEMORY, the double untouched */
static void exact(alloc_fn al, free_fn fr, size_t limit)
{
	size_t before = double_used();
	CUdeviceptr p = 0, q = 0;
	RC(al(&p, limit), CUDA_SUCCESS);
	size_t held = double_used();
	CHECK(held >= before + limit);
	q = 0;
	RC(al(&q, 1), CUDA_ERROR_OUT_OF_MEMORY);
	CHECK(q == 0);
	CHECK(double_used() == held);
	RC(fr(p), CUDA_SUCCESS);
	CHECK(double_used() == before);
	RC(al(&p, limit + 1), CUDA_ERROR_OUT_OF_MEMORY);
	CHECK(double_used() == before);
	RC(al(&p, limit), CUDA_SUCCESS);
	RC(fr(p), CUDA_SUCCESS);
}

static void info_is(size_t limit, size_t used)
{
	size_t f = 0, t = 0;
	RC(cuMemGetInfo_v2(&f, &t), CUDA_SUCCESS);
	CHECK(t == limit);
	CHECK(f == limit - used);
	RC(cuMemGetInfo_v2(NULL, NULL), CUDA_SUCCESS);
	RC(cuMemGetInfo_v2(&f, NULL), CUDA_SUCCESS);
	size_t tm = 0;
	RC(cuDeviceTotalMem_v2(&tm, 0), CUDA_SUCCESS);
	CHECK(tm == limit);
	size_t real = 0;
	d_total(&real, 1);
	RC(cuDeviceTotalMem_v2(&tm, 1), CUDA_SUCCESS);
	CHECK(tm == real); /* device 1 is not limited */
}

static void case_direct(void)
{
	region("direct");
	start();
	axl_limit("1048576");
	exact(cuMemAlloc_v2, cuMemFree_v2, MIB);
	info_is(MIB, 0);
	CUdeviceptr p;
	RC(cuMemAlloc_v2(&p, 1000), CUDA_SUCCESS);
	info_is(MIB, 1000);
	RC(cuMemFree_v2(p), CUDA_SUCCESS);
	/* device 1 is not limited */
	CUcontext c;
	RC(cuDevicePrimaryCtxRetain(&c, 1), CUDA_SUCCESS);
	RC(cuCtxSetCurrent(c), CUDA_SUCCESS);
	RC(cuMemAlloc_v2(&p, 8 * MIB), CUDA_SUCCESS);
	RC(cuMemFree_v2(p), CUDA_SUCCESS);
}

static void case_dlsym(void)
{
	region("dlsym");
	start();
	setenv("CUDA_DEVICE_MEMORY_LIMIT_0", "1m", 1);
	void *h = dlopen("libcuda.so.1", RTLD_NOW);
	alloc_fn al = (alloc_fn)dlsym(h, "cuMemAlloc_v2");
	free_fn fr = (free_fn)dlsym(h, "cuMemFree_v2");
	CHECK(al && fr);
	CHECK((void *)al != lt_dynsym(h, "cuMemAlloc_v2")); /* the limiter's */
	CHECK((void *)al == (void *)cuMemAlloc_v2);
	CHECK(dlsym(h, "cuStreamCreate") == lt_dynsym(h, "cuStreamCreate")); /* not accounted */
	CHECK(dlsym(h, "cuNoSuchCall") == NULL);
	CHECK(dlsym(RTLD_DEFAULT, "cuMemAlloc_v2") == (void *)cuMemAlloc_v2);
	CHECK(dlsym(h, "cuGetProcAddress_v2") == (void *)cuGetProcAddress_v2);
	exact(al, fr, MIB);
}

static void case_procaddr(void)
{
	region("procaddr");
	start();
	setenv("CUDA_DEVICE_MEMORY_LIMIT", "1024k", 1);
	void *h = dlopen("libcuda.so.1", RTLD_NOW);
	CUresult (*gpa)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *) =
		(CUresult(*)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *))dlsym(
			h, "cuGetProcAddress_v2");
	CHECK(gpa == cuGetProcAddress_v2);
	void *f = NULL;
	CUdriverProcAddressQueryResult st;
	RC(gpa("cuGetProcAddress", &f, 12000, 0, &st), CUDA_SUCCESS);
	CHECK(f == (void *)cuGetProcAddress_v2);
	RC(gpa("cuMemAlloc", &f, 12000, 0, &st), CUDA_SUCCESS);
	alloc_fn al = (alloc_fn)f;
	CHECK(f == (void *)cuMemAlloc_v2);
	RC(gpa("cuMemFree", &f, 12000, 0, &st), CUDA_SUCCESS);
	free_fn fr = (free_fn)f;
	CHECK(f == (void *)cuMemFree_v2);
	RC(gpa("cuMemAllocAsync", &f, 12000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &st), CUDA_SUCCESS);
	CHECK(f == (void *)cuMemAllocAsync || f == dlsym(RTLD_DEFAULT, "cuMemAllocAsync_ptsz"));
	RC(gpa("cuMemAllocAsync_ptsz", &f, 12000, 0, &st), CUDA_SUCCESS);
	CHECK(f == dlsym(RTLD_DEFAULT, "cuMemAllocAsync_ptsz") || f == (void *)cuMemAllocAsync);
	RC(gpa("cuStreamCreate", &f, 12000, 0, &st), CUDA_SUCCESS);
	CHECK(f == lt_dynsym(h, "cuStreamCreate"));
	RC(gpa("cuNoSuchCall", &f, 12000, 0, &st), CUDA_ERROR_NOT_FOUND);
	CHECK(f == NULL);
	RC(cuGetProcAddress("cuMemAlloc", &f, 12000, 0), CUDA_SUCCESS);
	CHECK(f == (void *)cuMemAlloc_v2);
	exact(al, fr, MIB);
}

/* every path counted (the limiter's free goes down by the request) and given back */
static void case_paths(void)
{
	region("paths");
	start();
	axl_limit("16777216");
	const size_t L = 16 * MIB;
	size_t f;
#define USED() (cuMemGetInfo_v2(&f, NULL), L - f)
	CUdeviceptr p;
	RC(cuMemAllocManaged(&p, MIB, CU_MEM_ATTACH_GLOBAL), CUDA_SUCCESS);
	CHECK(USED() == MIB);
	RC(cuMemFree_v2(p), CUDA_SUCCESS);
	CHECK(USED() == 0);
	RC(cuMemAllocManaged(&p, L + 1, CU_MEM_ATTACH_GLOBAL), CUDA_ERROR_OUT_OF_MEMORY);
	CUstream s;
	RC(cuStreamCreate(&s, 0), CUDA_SUCCESS);
	RC(cuMemAllocAsync(&p, 3 * MIB, s), CUDA_SUCCESS);
	CHECK(USED() == 3 * MIB);
	RC(cuMemFreeAsync(p, s), CUDA_SUCCESS);
	CHECK(USED() == 3 * MIB); /* the pool keeps it until a synchronisation */
	RC(cuStreamSynchronize(s), CUDA_SUCCESS);
	CHECK(USED() == 0);
	RC(cuMemAllocAsync(&p, L + 1, s), CUDA_ERROR_OUT_OF_MEMORY);
	CUmemoryPool pool;
	RC(cuDeviceGetDefaultMemPool(&pool, 0), CUDA_SUCCESS);
	RC(cuMemAllocFromPoolAsync(&p, 2 * MIB, pool, s), CUDA_SUCCESS);
	CHECK(USED() == 2 * MIB);
	RC(cuMemFree_v2(p), CUDA_SUCCESS); /* cuMemFree_v2 frees stream-ordered memory too */
	RC(cuStreamSynchronize(s), CUDA_SUCCESS);
	CHECK(USED() == 0);
	RC(cuMemAllocFromPoolAsync(&p, L + 1, pool, s), CUDA_ERROR_OUT_OF_MEMORY);
	size_t pitch = 0;
	RC(cuMemAllocPitch_v2(&p, &pitch, 1000, 100, 4), CUDA_SUCCESS);
	CHECK(pitch >= 1000 && USED() == pitch * 100);
	RC(cuMemFree_v2(p), CUDA_SUCCESS);
	CHECK(USED() == 0);
	RC(cuMemAllocPitch_v2(&p, &pitch, 4096, 4097, 4), CUDA_ERROR_OUT_OF_MEMORY);
	CUmemAllocationProp prop;
	memset(&prop, 0, sizeof prop);
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = 0;
	CUmemGenericAllocationHandle vh;
	RC(cuMemCreate(&vh, 4 * MIB, &prop, 0), CUDA_SUCCESS);
	CHECK(USED() == 4 * MIB);
	RC(cuMemRelease(vh), CUDA_SUCCESS);
	CHECK(USED() == 0);
	RC(cuMemCreate(&vh, 18 * MIB, &prop, 0), CUDA_ERROR_OUT_OF_MEMORY);
	CUDA_ARRAY_DESCRIPTOR ad = {1024, 256, CU_AD_FORMAT_FLOAT, 4};
	CUarray a;
	RC(cuArrayCreate_v2(&a, &ad), CUDA_SUCCESS);
	CHECK(USED() == 1024 * 256 * 16);
	RC(cuArrayDestroy(a), CUDA_SUCCESS);
	CHECK(USED() == 0);
	CUDA_ARRAY_DESCRIPTOR big = {4096, 1025, CU_AD_FORMAT_FLOAT, 4};
	RC(cuArrayCreate_v2(&a, &big), CUDA_ERROR_OUT_OF_MEMORY);
	CUDA_ARRAY3D_DESCRIPTOR md = {256, 256, 0, CU_AD_FORMAT_UNSIGNED_INT8, 1, 0};
	CUmipmappedArray m;
	RC(cuMipmappedArrayCreate(&m, &md, 3), CUDA_SUCCESS);
	CHECK(USED() == 256 * 256 + 128 * 128 + 64 * 64);
	RC(cuMipmappedArrayDestroy(m), CUDA_SUCCESS);
	CHECK(USED() == 0);
	/* a failed free keeps the charge */
	RC(cuMemAlloc_v2(&p, MIB), CUDA_SUCCESS);
	RC(cuMemFree_v2(p + 512), CUDA_ERROR_INVALID_VALUE);
	CHECK(USED() == MIB);
	RC(cuMemFree_v2(p), CUDA_SUCCESS);
	CHECK(USED() == 0);
	/* the double's refusal gives the charge back */
	RC(cuMemAlloc_v2(&p, 0), CUDA_ERROR_INVALID_VALUE);
	CHECK(USED() == 0);
	RC(cuStreamDestroy_v2(s), CUDA_SUCCESS);
#undef USED
}

/* the CUDA 3.1 entry points (32-bit pointers and sizes): counted like their successors,
 * in the same account */
static void case_legacy(void)
{
	region("legacy");
	start();
	axl_limit("1048576");
	size_t before = double_used();
	CUdeviceptr_v1 p = 0, q = 0;
	RC(cuMemAlloc(&p, MIB), CUDA_SUCCESS);
	CHECK(p != 0 && double_used() >= before + MIB);
	RC(cuMemAlloc(&q, 1), CUDA_ERROR_OUT_OF_MEMORY);
	CHECK(q == 0);
	CUdeviceptr p2 = 0;
	RC(cuMemAlloc_v2(&p2, 1), CUDA_ERROR_OUT_OF_MEMORY); /* one account for both */
	RC(cuMemFree(p), CUDA_SUCCESS);
	CHECK(double_used() == before);
	/* a 32-bit allocation freed by cuMemFree_v2 gives its charge back too */
	RC(cuMemAlloc(&p, MIB), CUDA_SUCCESS);
	RC(cuMemFree_v2(p), CUDA_SUCCESS);
	RC(cuMemAlloc(&p, MIB), CUDA_SUCCESS);
	RC(cuMemFree(p + 512), CUDA_ERROR_INVALID_VALUE); /* a failed free keeps the charge */
	RC(cuMemAlloc(&q, 1), CUDA_ERROR_OUT_OF_MEMORY);
	RC(cuMemFree(p), CUDA_SUCCESS);
	unsigned int pitch = 0, f = 0, t = 0;
	RC(cuMemAllocPitch(&p, &pitch, 1000, 100, 4), CUDA_SUCCESS);
	RC(cuMemGetInfo(&f, &t), CUDA_SUCCESS);
	CHECK(pitch >= 1000 && t == MIB && f == MIB - pitch * 100);
	RC(cuMemFree(p), CUDA_SUCCESS);
	RC(cuMemAllocPitch(&p, &pitch, 1024, 1025, 4), CUDA_ERROR_OUT_OF_MEMORY);
	CHECK(double_used() == before);
	unsigned int tm = 0;
	RC(cuDeviceTotalMem(&tm, 0), CUDA_SUCCESS);
	CHECK(tm == MIB);
	size_t real = 0;
	d_total(&real, 1);
	RC(cuDeviceTotalMem(&tm, 1), CUDA_SUCCESS); /* not limited: the driver's, saturated */
	CHECK(tm == (real > 0xffffffffu ? 0xffffffffu : real));
	/* the 32-bit array descriptors */
	CUarray a, b;
	CUDA_ARRAY_DESCRIPTOR_v1 d2 = {256, 256, CU_AD_FORMAT_UNSIGNED_INT8, 4};
	RC(cuArrayCreate(&a, &d2), CUDA_SUCCESS);
	RC(cuMemGetInfo(&f, &t), CUDA_SUCCESS);
	CHECK(f == MIB - 256 * 256 * 4);
	RC(cuArrayDestroy(a), CUDA_SUCCESS);
	CUDA_ARRAY3D_DESCRIPTOR_v1 d3 = {64, 64, 64, CU_AD_FORMAT_UNSIGNED_INT8, 4, 0};
	RC(cuArray3DCreate(&a, &d3), CUDA_SUCCESS); /* exactly the limit */
	CUDA_ARRAY3D_DESCRIPTOR_v1 one = {1, 0, 0, CU_AD_FORMAT_UNSIGNED_INT8, 1, 0};
	RC(cuArray3DCreate(&b, &one), CUDA_ERROR_OUT_OF_MEMORY);
	RC(cuArrayDestroy(a), CUDA_SUCCESS);
	RC(cuArray3DCreate(&b, &one), CUDA_SUCCESS);
	RC(cuArrayDestroy(b), CUDA_SUCCESS);
	d3.Depth = 65;
	RC(cuArray3DCreate(&a, &d3), CUDA_ERROR_OUT_OF_MEMORY);
	CHECK(double_used() == before);
}

/* arrays by their descriptor: 3D, layered and cubemap, mipmapped levels, sparse (nothing),
 * and the formats the double does not know, estimated by the limiter: a request within
 * the limit reaches the double (which refuses the format, and the charge comes back), one
 * byte over it does not */
static void case_arrays(void)
{
	region("arrays");
	start();
	axl_limit("16777216");
	const size_t L = 16 * MIB;
	size_t f, before = double_used();
#define USED() (cuMemGetInfo_v2(&f, NULL), L - f)
	CUarray a;
	CUDA_ARRAY3D_DESCRIPTOR d = {128, 128, 64, CU_AD_FORMAT_HALF, 4, 0};
	RC(cuArray3DCreate_v2(&a, &d), CUDA_SUCCESS);
	CHECK(USED() == (size_t)128 * 128 * 64 * 4 * 2);
	RC(cuArrayDestroy(a), CUDA_SUCCESS);
	CHECK(USED() == 0);
	d.Depth = 129; /* 16 MiB + 128 KiB */
	RC(cuArray3DCreate_v2(&a, &d), CUDA_ERROR_OUT_OF_MEMORY);
	CUDA_ARRAY3D_DESCRIPTOR cube = {512, 512, 6, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_CUBEMAP};
	RC(cuArray3DCreate_v2(&a, &cube), CUDA_SUCCESS);
	CHECK(USED() == (size_t)512 * 512 * 6 * 4);
	RC(cuArrayDestroy(a), CUDA_SUCCESS);
	/* sparse: no memory of its own, nothing charged; what is mapped in is cuMemCreate's */
	CUDA_ARRAY3D_DESCRIPTOR sparse = {8192, 8192, 0, CU_AD_FORMAT_FLOAT, 4, CUDA_ARRAY3D_SPARSE};
	RC(cuArray3DCreate_v2(&a, &sparse), CUDA_SUCCESS);
	CHECK(USED() == 0);
	RC(cuArrayDestroy(a), CUDA_SUCCESS);
	/* layered mipmaps keep their layers: 3 x (256^2 + 128^2 + 64^2) */
	CUmipmappedArray m;
	CUDA_ARRAY3D_DESCRIPTOR ml = {256, 256, 3, CU_AD_FORMAT_UNSIGNED_INT8, 1, CUDA_ARRAY3D_LAYERED};
	RC(cuMipmappedArrayCreate(&m, &ml, 3), CUDA_SUCCESS);
	CHECK(USED() == (size_t)3 * (256 * 256 + 128 * 128 + 64 * 64));
	RC(cuMipmappedArrayDestroy(m), CUDA_SUCCESS);
	CHECK(USED() == 0);
	/* formats the double does not declare, by cuda.h's numbers: BC1, 8 bytes a 4x4 block; BC7, 16 */
	CUDA_ARRAY3D_DESCRIPTOR bc = {8192, 8192, 0, (CUarray_format)0x91 /* BC1_UNORM */, 4, 0}; /* 32 MiB */
	RC(cuArray3DCreate_v2(&a, &bc), CUDA_ERROR_OUT_OF_MEMORY);
	bc.Height = 4096; /* 16 MiB: admitted, the double does not know the format */
	RC(cuArray3DCreate_v2(&a, &bc), CUDA_ERROR_INVALID_VALUE);
	CHECK(USED() == 0);
	bc.Height = 4097; /* one more row of blocks */
	RC(cuArray3DCreate_v2(&a, &bc), CUDA_ERROR_OUT_OF_MEMORY);
	bc.Format = (CUarray_format)0x9d; /* BC7_UNORM */
	bc.Width = 4096;
	bc.Height = 4096; /* 16 MiB */
	RC(cuArray3DCreate_v2(&a, &bc), CUDA_ERROR_INVALID_VALUE);
	bc.Height = 4100;
	RC(cuArray3DCreate_v2(&a, &bc), CUDA_ERROR_OUT_OF_MEMORY);
	/* NV12: 1.5 bytes a pixel */
	CUDA_ARRAY3D_DESCRIPTOR nv = {4096, 2730, 0, (CUarray_format)0xb0 /* NV12 */, 3, 0};
	RC(cuArray3DCreate_v2(&a, &nv), CUDA_ERROR_INVALID_VALUE); /* 15.996 MiB */
	nv.Height = 2731;
	RC(cuArray3DCreate_v2(&a, &nv), CUDA_ERROR_OUT_OF_MEMORY);
	/* a format this limiter does not know: 4 bytes a channel */
	CUDA_ARRAY_DESCRIPTOR later = {1024, 1024, (CUarray_format)0x50, 4}; /* 16 MiB */
	RC(cuArrayCreate_v2(&a, &later), CUDA_ERROR_INVALID_VALUE);
	later.Height = 1025;
	RC(cuArrayCreate_v2(&a, &later), CUDA_ERROR_OUT_OF_MEMORY);
	CHECK(USED() == 0);
	CHECK(double_used() == before);
#undef USED
}

static CUgraphNode alloc_node(CUgraph g, size_t bytes, CUdeviceptr *dptr, CUresult want)
{
	CUDA_MEM_ALLOC_NODE_PARAMS ap;
	memset(&ap, 0, sizeof ap);
	ap.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
	ap.poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	ap.poolProps.location.id = 0;
	ap.bytesize = bytes;
	CUgraphNode n = NULL;
	RC(cuGraphAddMemAllocNode(&n, g, NULL, 0, &ap), want);
	if (dptr)
		*dptr = ap.dptr;
	return n;
}

/* graph memory: allocation nodes allocate nothing until the graph is uploaded or launched;
 * then the device is charged what its graph pool holds, until cuDeviceGraphMemTrim; an
 * upload or launch the limit cannot hold is refused before the driver maps anything */
static void case_graphmem(void)
{
	region("graphmem");
	start();
	axl_limit("16777216");
	const size_t L = 16 * MIB;
	size_t f, before = double_used();
#define USED() (cuMemGetInfo_v2(&f, NULL), L - f)
	CUstream s;
	RC(cuStreamCreate(&s, 0), CUDA_SUCCESS);
	CUgraph g;
	RC(cuGraphCreate(&g, 0), CUDA_SUCCESS);
	CUdeviceptr gp = 0, p = 0;
	alloc_node(g, 10 * MIB, &gp, CUDA_SUCCESS);
	CHECK(gp != 0 && USED() == 0 && double_used() == before);
	alloc_node(g, L + 1, NULL, CUDA_ERROR_OUT_OF_MEMORY); /* no launch could hold it */
	CUgraphExec e;
	RC(cuGraphInstantiateWithFlags(&e, g, 0), CUDA_SUCCESS);
	RC(cuGraphUpload(e, s), CUDA_SUCCESS); /* mapped: the graph pool holds 10 MiB */
	CHECK(USED() == 10 * MIB && double_used() == before + 10 * MIB);
	RC(cuGraphLaunch(e, s), CUDA_SUCCESS); /* reuses what the upload mapped */
	CHECK(USED() == 10 * MIB && double_used() == before + 10 * MIB);
	RC(cuMemAlloc_v2(&p, 8 * MIB), CUDA_ERROR_OUT_OF_MEMORY);
	RC(cuMemFree_v2(gp), CUDA_SUCCESS); /* back to the graph pool, which keeps it */
	CHECK(USED() == 10 * MIB);
	RC(cuMemAlloc_v2(&p, 8 * MIB), CUDA_ERROR_OUT_OF_MEMORY);
	RC(cuDeviceGraphMemTrim(0), CUDA_SUCCESS);
	CHECK(USED() == 0 && double_used() == before);
	RC(cuMemAlloc_v2(&p, 8 * MIB), CUDA_SUCCESS);
	size_t held = double_used();
	RC(cuGraphLaunch(e, s), CUDA_ERROR_OUT_OF_MEMORY); /* 8 + 10 > 16: nothing mapped */
	RC(cuGraphUpload(e, s), CUDA_ERROR_OUT_OF_MEMORY);
	CHECK(double_used() == held && USED() == 8 * MIB);
	RC(cuMemFree_v2(p), CUDA_SUCCESS);
	RC(cuGraphLaunch(e, s), CUDA_SUCCESS);
	CHECK(USED() == 10 * MIB);
	/* a launch reuses what the graph pool holds unused: no new charge */
	RC(cuMemFree_v2(gp), CUDA_SUCCESS);
	RC(cuMemAlloc_v2(&p, 4 * MIB), CUDA_SUCCESS);
	CHECK(USED() == 14 * MIB);
	RC(cuGraphLaunch(e, s), CUDA_SUCCESS);
	CHECK(USED() == 14 * MIB && double_used() - before <= L);
	RC(cuMemFree_v2(gp), CUDA_SUCCESS);
	RC(cuMemFree_v2(p), CUDA_SUCCESS);
	RC(cuDeviceGraphMemTrim(0), CUDA_SUCCESS);
	CHECK(USED() == 0);
	RC(cuGraphExecDestroy(e), CUDA_SUCCESS);
	RC(cuGraphDestroy(g), CUDA_SUCCESS);
	/* a stream-ordered allocation into a stream being captured allocates nothing: the
	 * graph made of it is charged when it runs */
	RC(cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_SUCCESS);
	CUdeviceptr c = 0;
	RC(cuMemAllocAsync(&c, 12 * MIB, s), CUDA_SUCCESS);
	CHECK(USED() == 0 && double_used() == before);
	RC(cuMemFreeAsync(c, s), CUDA_SUCCESS);
	RC(cuStreamEndCapture(s, &g), CUDA_SUCCESS);
	RC(cuGraphInstantiateWithFlags(&e, g, 0), CUDA_SUCCESS);
	RC(cuMemAlloc_v2(&p, 5 * MIB), CUDA_SUCCESS);
	RC(cuGraphLaunch(e, s), CUDA_ERROR_OUT_OF_MEMORY); /* 5 + 12 > 16 */
	RC(cuMemFree_v2(p), CUDA_SUCCESS);
	RC(cuGraphLaunch(e, s), CUDA_SUCCESS);
	CHECK(USED() == 12 * MIB); /* freed in the graph, kept by its pool */
	RC(cuDeviceGraphMemTrim(0), CUDA_SUCCESS);
	CHECK(USED() == 0 && double_used() == before);
	RC(cuGraphExecDestroy(e), CUDA_SUCCESS);
	RC(cuGraphDestroy(g), CUDA_SUCCESS);
	/* an instantiation that uploads (CUDA 12.0) is admitted as an upload */
	RC(cuGraphCreate(&g, 0), CUDA_SUCCESS);
	alloc_node(g, 10 * MIB, NULL, CUDA_SUCCESS);
	CUDA_GRAPH_INSTANTIATE_PARAMS ip;
	memset(&ip, 0, sizeof ip);
	ip.flags = CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD;
	ip.hUploadStream = s;
	RC(cuMemAlloc_v2(&p, 8 * MIB), CUDA_SUCCESS);
	held = double_used();
	e = NULL;
	RC(cuGraphInstantiateWithParams(&e, g, &ip), CUDA_ERROR_OUT_OF_MEMORY);
	CHECK(e == NULL && double_used() == held);
	RC(cuMemFree_v2(p), CUDA_SUCCESS);
	RC(cuGraphInstantiateWithParams(&e, g, &ip), CUDA_SUCCESS);
	CHECK(USED() == 10 * MIB && double_used() == before + 10 * MIB);
	RC(cuGraphLaunch(e, s), CUDA_SUCCESS); /* what the upload mapped */
	CHECK(USED() == 10 * MIB && double_used() == before + 10 * MIB);
	RC(cuGraphExecDestroy(e), CUDA_SUCCESS);
	RC(cuGraphDestroy(g), CUDA_SUCCESS);
	CHECK(USED() == 10 * MIB); /* the graph allocation outlives its graph until freed */
	RC(cuDeviceGraphMemTrim(0), CUDA_SUCCESS);
	CHECK(USED() == 10 * MIB);
	RC(cuStreamDestroy_v2(s), CUDA_SUCCESS);
#undef USED
}

/* retains and releases of the allocation mapped at va, n pairs; bad counts the failed calls */
struct retain_loop {
	CUdeviceptr va;
	int n, bad;
};

static void *retain_loop(void *p)
{
	struct retain_loop *a = p;
	for (int i = 0; i < a->n; i++) {
		CUmemGenericAllocationHandle r = 0;
		if (cuMemRetainAllocationHandle(&r, (void *)(uintptr_t)(a->va + (uint64_t)i % 4096)) != CUDA_SUCCESS ||
		    cuMemRelease(r) != CUDA_SUCCESS)
			a->bad++;
	}
	return NULL;
}

/* cuMemRetainAllocationHandle: each retain of an address mapped to a handle hands out that
 * handle (the same value) with a reference of its own, which cuMemRelease drops; the
 * allocation lives until the last reference goes, and so does its charge */
static void case_vmm_retain(void)
{
	region("vmm_retain");
	start();
	axl_limit("16777216");
	const size_t L = 16 * MIB;
	size_t f, before = double_used();
#define USED() (cuMemGetInfo_v2(&f, NULL), L - f)
	CUmemAllocationProp prop;
	memset(&prop, 0, sizeof prop);
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = 0;
	CUmemGenericAllocationHandle h1, h2, h3, r = 0, r2 = 0;
	RC(cuMemCreate(&h1, 4 * MIB, &prop, 0), CUDA_SUCCESS);
	RC(cuMemCreate(&h2, 6 * MIB, &prop, 0), CUDA_SUCCESS);
	CHECK(USED() == 10 * MIB && double_used() == before + 10 * MIB);
	CUdeviceptr va;
	RC(cuMemAddressReserve(&va, 8 * MIB, 0, 0, 0), CUDA_SUCCESS);
	RC(cuMemMap(va, 4 * MIB, 0, h1, 0), CUDA_SUCCESS);
	/* one retain: its release leaves h1's reference, and the charge */
	RC(cuMemRetainAllocationHandle(&r, (void *)(uintptr_t)(va + MIB)), CUDA_SUCCESS);
	CHECK(r == h1);
	RC(cuMemRelease(r), CUDA_SUCCESS);
	CHECK(USED() == 10 * MIB && double_used() == before + 10 * MIB);
	RC(cuMemCreate(&h3, 8 * MIB, &prop, 0), CUDA_ERROR_OUT_OF_MEMORY); /* 10 + 8 > 16 */
	/* two more, one through cuGetProcAddress: three references to release */
	void *fn = NULL;
	RC(cuGetProcAddress("cuMemRetainAllocationHandle", &fn, 12000, 0), CUDA_SUCCESS);
	CHECK(fn == (void *)cuMemRetainAllocationHandle);
	RC(cuMemRetainAllocationHandle(&r, (void *)(uintptr_t)va), CUDA_SUCCESS);
	if (fn)
		RC(((__typeof__(&cuMemRetainAllocationHandle))fn)(&r2, (void *)(uintptr_t)(va + 4 * MIB - 1)),
		   CUDA_SUCCESS);
	CHECK(r == h1 && r2 == h1);
	/* a retain of an address nothing is mapped at fails and counts nothing */
	RC(cuMemRetainAllocationHandle(&r, (void *)(uintptr_t)(va + 4 * MIB)), CUDA_ERROR_INVALID_VALUE);
	RC(cuMemRelease(h1), CUDA_SUCCESS); /* the original first */
	CHECK(USED() == 10 * MIB);
	RC(cuMemRelease(h1), CUDA_SUCCESS);
	CHECK(USED() == 10 * MIB && double_used() == before + 10 * MIB);
	RC(cuMemUnmap(va, 4 * MIB), CUDA_SUCCESS);
	CHECK(double_used() == before + 10 * MIB); /* a reference holds it */
	RC(cuMemRelease(h1), CUDA_SUCCESS); /* the last: the allocation and its charge go */
	CHECK(USED() == 6 * MIB && double_used() == before + 6 * MIB);
	RC(cuMemRelease(h1), CUDA_ERROR_INVALID_VALUE); /* no reference left: nothing more given back */
	CHECK(USED() == 6 * MIB);
	RC(cuMemCreate(&h3, 8 * MIB, &prop, 0), CUDA_SUCCESS);
	CHECK(USED() == 14 * MIB);
	RC(cuMemMap(va, 8 * MIB, 0, h3, 0), CUDA_SUCCESS);
	/* retains and releases from four threads at once: each pair leaves the count as it was */
	pthread_t th[4];
	struct retain_loop rl[4];
	for (int i = 0; i < 4; i++) {
		rl[i].va = va + (uint64_t)i * MIB;
		rl[i].n = 2000;
		rl[i].bad = 0;
		CHECK(pthread_create(&th[i], NULL, retain_loop, &rl[i]) == 0);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		CHECK(rl[i].bad == 0);
	}
	CHECK(USED() == 14 * MIB && double_used() == before + 14 * MIB);
	/* retain, release the retain (the charge stays), release the original */
	RC(cuMemRetainAllocationHandle(&r, (void *)(uintptr_t)(va + 5 * MIB)), CUDA_SUCCESS);
	CHECK(r == h3);
	RC(cuMemRelease(r), CUDA_SUCCESS);
	CHECK(USED() == 14 * MIB);
	RC(cuMemUnmap(va, 8 * MIB), CUDA_SUCCESS);
	RC(cuMemRelease(h3), CUDA_SUCCESS);
	CHECK(USED() == 6 * MIB && double_used() == before + 6 * MIB);
	RC(cuMemRelease(h2), CUDA_SUCCESS);
	CHECK(USED() == 0 && double_used() == before);
	RC(cuMemAddressFree(va, 8 * MIB), CUDA_SUCCESS);
#undef USED
}

/* maps and unmaps of one handle at va (its own slice), n pairs; ok counts the maps that
 * worked (after the handle's release they may not), bad the unmaps that failed after one */
struct map_loop {
	CUdeviceptr va;
	CUmemGenericAllocationHandle h;
	int n, ok, bad, done; /* ok, done: read by the main thread while this one runs (atomic) */
};

static void *map_loop(void *p)
{
	struct map_loop *a = p;
	for (int i = 0; i < a->n; i++)
		if (cuMemMap(a->va, 2 * MIB, 0, a->h, 0) == CUDA_SUCCESS) {
			if (cuMemUnmap(a->va, 2 * MIB) != CUDA_SUCCESS)
				a->bad++;
			__atomic_fetch_add(&a->ok, 1, __ATOMIC_RELEASE);
		}
	__atomic_store_n(&a->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* cuMemMap, cuMemUnmap: the driver frees a handle's memory when its last reference is
 * released and its last mapping unmapped, in either order; the charge goes with both */
static void case_vmm_map(void)
{
	region("vmm_map");
	start();
	axl_limit("16777216");
	const size_t L = 16 * MIB;
	size_t f, before = double_used();
#define USED() (cuMemGetInfo_v2(&f, NULL), L - f)
	CUmemAllocationProp prop;
	memset(&prop, 0, sizeof prop);
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = 0;
	CUmemGenericAllocationHandle h1, h2, r = 0;
	CUdeviceptr va;
	RC(cuMemAddressReserve(&va, 16 * MIB, 0, 0, 0), CUDA_SUCCESS);
	/* create, map, release the handle: the mapping keeps the memory, and the charge */
	RC(cuMemCreate(&h1, 8 * MIB, &prop, 0), CUDA_SUCCESS);
	RC(cuMemMap(va, 8 * MIB, 0, h1, 0), CUDA_SUCCESS);
	RC(cuMemRelease(h1), CUDA_SUCCESS);
	CHECK(USED() == 8 * MIB && double_used() == before + 8 * MIB);
	RC(cuMemCreate(&h2, 10 * MIB, &prop, 0), CUDA_ERROR_OUT_OF_MEMORY); /* 8 + 10 > 16 */
	/* a release of a handle no one holds: refused, and the mapping's reference stays */
	RC(cuMemRelease(h1), CUDA_ERROR_INVALID_VALUE);
	CHECK(USED() == 8 * MIB);
	RC(cuMemUnmap(va, 8 * MIB), CUDA_SUCCESS); /* the last: the memory and its charge go */
	CHECK(USED() == 0 && double_used() == before);
	RC(cuMemUnmap(va, 8 * MIB), CUDA_ERROR_INVALID_VALUE);
	CHECK(USED() == 0);
	/* map, unmap, release: the handle keeps it until its release */
	RC(cuMemCreate(&h1, 6 * MIB, &prop, 0), CUDA_SUCCESS);
	RC(cuMemMap(va, 6 * MIB, 0, h1, 0), CUDA_SUCCESS);
	RC(cuMemUnmap(va, 6 * MIB), CUDA_SUCCESS);
	CHECK(USED() == 6 * MIB && double_used() == before + 6 * MIB);
	RC(cuMemRelease(h1), CUDA_SUCCESS);
	CHECK(USED() == 0 && double_used() == before);
	/* refused maps hold nothing: over a mapping, with flags, outside every reservation, of a
	 * released handle */
	RC(cuMemCreate(&h1, 4 * MIB, &prop, 0), CUDA_SUCCESS);
	RC(cuMemCreate(&h2, 4 * MIB, &prop, 0), CUDA_SUCCESS);
	RC(cuMemMap(va, 4 * MIB, 0, h1, 0), CUDA_SUCCESS);
	RC(cuMemMap(va + 2 * MIB, 4 * MIB, 0, h2, 0), CUDA_ERROR_INVALID_VALUE);
	RC(cuMemMap(va + 4 * MIB, 4 * MIB, 0, h2, 1), CUDA_ERROR_INVALID_VALUE);
	RC(cuMemMap(va + 14 * MIB, 4 * MIB, 0, h2, 0), CUDA_ERROR_INVALID_VALUE);
	CHECK(USED() == 8 * MIB && double_used() == before + 8 * MIB);
	RC(cuMemRelease(h2), CUDA_SUCCESS); /* its refused maps held no reference */
	CHECK(USED() == 4 * MIB && double_used() == before + 4 * MIB);
	RC(cuMemMap(va + 4 * MIB, 4 * MIB, 0, h2, 0), CUDA_ERROR_INVALID_VALUE);
	CHECK(USED() == 4 * MIB && double_used() == before + 4 * MIB);
	/* mappings side by side, two of one handle (and through cuGetProcAddress), unmapped with
	 * one call; unmaps that cut a mapping are refused and change nothing */
	void *fm = NULL, *fu = NULL;
	RC(cuGetProcAddress("cuMemMap", &fm, 12000, 0), CUDA_SUCCESS);
	RC(cuGetProcAddress("cuMemUnmap", &fu, 12000, 0), CUDA_SUCCESS);
	CHECK(fm == (void *)cuMemMap && fu == (void *)cuMemUnmap);
	RC(cuMemCreate(&h2, 2 * MIB, &prop, 0), CUDA_SUCCESS);
	RC(cuMemMap(va + 4 * MIB, 2 * MIB, 0, h2, 0), CUDA_SUCCESS);
	if (fm)
		RC(((__typeof__(&cuMemMap))fm)(va + 6 * MIB, 2 * MIB, 0, h2, 0), CUDA_SUCCESS);
	RC(cuMemRelease(h1), CUDA_SUCCESS);
	RC(cuMemRelease(h2), CUDA_SUCCESS);
	CHECK(USED() == 6 * MIB && double_used() == before + 6 * MIB);
	RC(cuMemUnmap(va + 2 * MIB, 4 * MIB), CUDA_ERROR_INVALID_VALUE); /* cuts h1's */
	RC(cuMemUnmap(va, 7 * MIB), CUDA_ERROR_INVALID_VALUE);           /* cuts h2's second */
	RC(cuMemUnmap(va, 10 * MIB), CUDA_ERROR_INVALID_VALUE);          /* past the last */
	CHECK(USED() == 6 * MIB && double_used() == before + 6 * MIB);
	RC(cuMemUnmap(va + 4 * MIB, 2 * MIB), CUDA_SUCCESS); /* one of h2's two */
	CHECK(USED() == 6 * MIB && double_used() == before + 6 * MIB);
	RC(cuMemMap(va + 4 * MIB, 2 * MIB, 0, h2, 0), CUDA_ERROR_INVALID_VALUE); /* released */
	if (fu)
		RC(((__typeof__(&cuMemUnmap))fu)(va, 8 * MIB), CUDA_ERROR_INVALID_VALUE); /* a hole */
	CHECK(USED() == 6 * MIB);
	RC(cuMemUnmap(va, 4 * MIB), CUDA_SUCCESS);
	CHECK(USED() == 2 * MIB && double_used() == before + 2 * MIB);
	RC(cuMemMap(va, 2 * MIB, 0, h1, 0), CUDA_ERROR_INVALID_VALUE); /* h1 is gone */
	if (fu)
		RC(((__typeof__(&cuMemUnmap))fu)(va + 6 * MIB, 2 * MIB), CUDA_SUCCESS);
	CHECK(USED() == 0 && double_used() == before);
	/* released, retained again through its mapping, unmapped: the retain holds it */
	RC(cuMemCreate(&h1, 8 * MIB, &prop, 0), CUDA_SUCCESS);
	RC(cuMemMap(va, 4 * MIB, 0, h1, 0), CUDA_SUCCESS);
	RC(cuMemMap(va + 4 * MIB, 4 * MIB, 0, h1, 0), CUDA_SUCCESS);
	RC(cuMemRelease(h1), CUDA_SUCCESS);
	RC(cuMemRetainAllocationHandle(&r, (void *)(uintptr_t)(va + 5 * MIB)), CUDA_SUCCESS);
	CHECK(r == h1);
	RC(cuMemUnmap(va, 8 * MIB), CUDA_SUCCESS);
	CHECK(USED() == 8 * MIB && double_used() == before + 8 * MIB);
	RC(cuMemRelease(r), CUDA_SUCCESS);
	CHECK(USED() == 0 && double_used() == before);
	/* four threads map and unmap one handle, each at its own address, 2000 times: with the
	 * handle held the charge stays; released while they run, it goes with the last unmap */
	for (int round = 0; round < 2; round++) {
		RC(cuMemCreate(&h1, 2 * MIB, &prop, 0), CUDA_SUCCESS);
		pthread_t th[4];
		struct map_loop ml[4];
		for (int i = 0; i < 4; i++) {
			ml[i].va = va + (uint64_t)i * 4 * MIB;
			ml[i].h = h1;
			ml[i].n = 2000;
			ml[i].ok = ml[i].bad = ml[i].done = 0;
			CHECK(pthread_create(&th[i], NULL, map_loop, &ml[i]) == 0);
		}
		if (round == 1) { /* once each has mapped a few times */
			for (int i = 0; i < 4; i++)
				while (__atomic_load_n(&ml[i].ok, __ATOMIC_ACQUIRE) < 10 &&
				       !__atomic_load_n(&ml[i].done, __ATOMIC_ACQUIRE))
					sched_yield();
			RC(cuMemRelease(h1), CUDA_SUCCESS);
		}
		for (int i = 0; i < 4; i++) {
			pthread_join(th[i], NULL);
			CHECK(ml[i].bad == 0 && ml[i].ok >= 10 && (round == 1 || ml[i].ok == ml[i].n));
		}
		if (round == 0) {
			CHECK(USED() == 2 * MIB && double_used() == before + 2 * MIB);
			RC(cuMemRelease(h1), CUDA_SUCCESS);
		}
		CHECK(USED() == 0 && double_used() == before);
	}
	RC(cuMemAddressFree(va, 16 * MIB), CUDA_SUCCESS);
#undef USED
}

/* an entry of cuMemMapArrayAsync: a region of level 0 of array a (2D), mapped to pool at
 * off, or unmapped (pool 0) */
static CUarrayMapInfo tile_op(CUarray a, unsigned x, unsigned y, unsigned w, unsigned h,
			      CUmemGenericAllocationHandle pool, unsigned long long off)
{
	CUarrayMapInfo m;
	memset(&m, 0, sizeof m);
	m.resourceType = CU_RESOURCE_TYPE_ARRAY;
	m.resource.array = a;
	m.subresourceType = CU_ARRAY_SPARSE_SUBRESOURCE_TYPE_SPARSE_LEVEL;
	m.subresource.sparseLevel.offsetX = x;
	m.subresource.sparseLevel.offsetY = y;
	m.subresource.sparseLevel.extentWidth = w;
	m.subresource.sparseLevel.extentHeight = h;
	m.subresource.sparseLevel.extentDepth = 1;
	m.memOperationType = pool ? CU_MEM_OPERATION_TYPE_MAP : CU_MEM_OPERATION_TYPE_UNMAP;
	m.memHandleType = CU_MEM_HANDLE_TYPE_GENERIC;
	m.memHandle.memHandle = pool;
	m.offset = off;
	m.deviceBitMask = 1;
	return m;
}

/* cuMemMapArrayAsync: a tile pool (a cuMemCreate handle, charged there) mapped into a sparse
 * array holds its memory after its last release, until its last tile is unmapped, mapped
 * over, or its array destroyed; the charge follows */
static void case_vmm_arrays(void)
{
	region("vmm_arrays");
	start();
	axl_limit("16777216");
	const size_t L = 16 * MIB;
	size_t f, before = double_used();
#define USED() (cuMemGetInfo_v2(&f, NULL), L - f)
	CUmemAllocationProp prop;
	memset(&prop, 0, sizeof prop);
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = 0;
	prop.allocFlags.usage = CU_MEM_CREATE_USAGE_TILE_POOL;
	CUmemGenericAllocationHandle p1, p2;
	/* 256 x 256 float4: the double's tiles are 64 x 64 (64 KiB), 4 x 4 of them */
	CUarray a;
	CUDA_ARRAY3D_DESCRIPTOR sp = {256, 256, 0, CU_AD_FORMAT_FLOAT, 4, CUDA_ARRAY3D_SPARSE};
	RC(cuArray3DCreate_v2(&a, &sp), CUDA_SUCCESS);
	RC(cuMemCreate(&p1, 8 * MIB, &prop, 0), CUDA_SUCCESS);
	CUarrayMapInfo op = tile_op(a, 0, 0, 128, 128, p1, 0), two[2];
	RC(cuMemMapArrayAsync(&op, 1, NULL), CUDA_SUCCESS);
	RC(cuMemRelease(p1), CUDA_SUCCESS); /* its tiles keep it, and the charge */
	CHECK(USED() == 8 * MIB && double_used() == before + 8 * MIB);
	RC(cuMemCreate(&p2, 10 * MIB, &prop, 0), CUDA_ERROR_OUT_OF_MEMORY); /* 8 + 10 > 16 */
	/* unmapped a piece at a time: the last tile takes the charge with it */
	op = tile_op(a, 0, 0, 64, 64, 0, 0);
	RC(cuMemMapArrayAsync(&op, 1, NULL), CUDA_SUCCESS);
	op = tile_op(a, 64, 0, 64, 128, 0, 0);
	RC(cuMemMapArrayAsync(&op, 1, NULL), CUDA_SUCCESS);
	CHECK(USED() == 8 * MIB && double_used() == before + 8 * MIB); /* (0, 64) - (64, 128) left */
	op = tile_op(a, 0, 0, 256, 256, 0, 0);
	RC(cuMemMapArrayAsync(&op, 1, NULL), CUDA_SUCCESS);
	CHECK(USED() == 0 && double_used() == before);
	/* a refused call holds nothing: its first entry is good, its second off the tiles */
	RC(cuMemCreate(&p1, 4 * MIB, &prop, 0), CUDA_SUCCESS);
	two[0] = tile_op(a, 0, 0, 64, 64, p1, 0);
	two[1] = tile_op(a, 32, 0, 64, 64, p1, 0);
	RC(cuMemMapArrayAsync(two, 2, NULL), CUDA_ERROR_INVALID_VALUE);
	RC(cuMemRelease(p1), CUDA_SUCCESS);
	CHECK(USED() == 0 && double_used() == before);
	/* a map over mapped tiles replaces them (and through cuGetProcAddress, for the
	 * per-thread default stream: cuMemMapArrayAsync_ptsz in NVIDIA's driver); a destroyed
	 * array drops its tiles */
	void *fn = NULL;
	RC(cuGetProcAddress("cuMemMapArrayAsync", &fn, 12000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM),
	   CUDA_SUCCESS);
	CHECK(fn == (void *)cuMemMapArrayAsync); /* the double has one entry for both */
	RC(cuMemCreate(&p1, 4 * MIB, &prop, 0), CUDA_SUCCESS);
	RC(cuMemCreate(&p2, 4 * MIB, &prop, 0), CUDA_SUCCESS);
	two[0] = tile_op(a, 0, 0, 128, 256, p1, 0);
	two[1] = tile_op(a, 128, 0, 128, 256, p1, MIB / 2);
	RC(cuMemMapArrayAsync(two, 2, NULL), CUDA_SUCCESS);
	RC(cuMemRelease(p1), CUDA_SUCCESS);
	op = tile_op(a, 64, 64, 128, 128, p2, 0);
	if (fn)
		RC(((__typeof__(&cuMemMapArrayAsync))fn)(&op, 1, NULL), CUDA_SUCCESS);
	CHECK(USED() == 8 * MIB && double_used() == before + 8 * MIB); /* p1 still has its ring */
	op = tile_op(a, 0, 0, 256, 256, p2, 0);
	RC(cuMemMapArrayAsync(&op, 1, NULL), CUDA_SUCCESS);
	CHECK(USED() == 4 * MIB && double_used() == before + 4 * MIB);
	RC(cuMemRelease(p2), CUDA_SUCCESS);
	CHECK(USED() == 4 * MIB && double_used() == before + 4 * MIB);
	RC(cuArrayDestroy(a), CUDA_SUCCESS);
	CHECK(USED() == 0 && double_used() == before);
	RC(cuArrayDestroy(a), CUDA_ERROR_INVALID_HANDLE);
	/* a mipmapped array's mip tail, and a level's tile (256 x 256 float4, 9 levels: 32 x 32
	 * and below are the tail, one tile) */
	CUmipmappedArray mm;
	RC(cuMipmappedArrayCreate(&mm, &sp, 9), CUDA_SUCCESS);
	RC(cuMemCreate(&p1, 2 * MIB, &prop, 0), CUDA_SUCCESS);
	memset(&op, 0, sizeof op);
	op.resourceType = CU_RESOURCE_TYPE_MIPMAPPED_ARRAY;
	op.resource.mipmap = mm;
	op.subresourceType = CU_ARRAY_SPARSE_SUBRESOURCE_TYPE_MIPTAIL;
	op.subresource.miptail.size = 65536;
	op.memOperationType = CU_MEM_OPERATION_TYPE_MAP;
	op.memHandleType = CU_MEM_HANDLE_TYPE_GENERIC;
	op.memHandle.memHandle = p1;
	op.deviceBitMask = 1;
	CUarrayMapInfo lv = op;
	lv.subresourceType = CU_ARRAY_SPARSE_SUBRESOURCE_TYPE_SPARSE_LEVEL;
	memset(&lv.subresource, 0, sizeof lv.subresource);
	lv.subresource.sparseLevel.level = 2;
	lv.subresource.sparseLevel.extentWidth = lv.subresource.sparseLevel.extentHeight = 64;
	lv.subresource.sparseLevel.extentDepth = 1;
	lv.offset = MIB;
	RC(cuMemMapArrayAsync(&op, 1, NULL), CUDA_SUCCESS);
	RC(cuMemMapArrayAsync(&lv, 1, NULL), CUDA_SUCCESS);
	RC(cuMemRelease(p1), CUDA_SUCCESS);
	op.memOperationType = lv.memOperationType = CU_MEM_OPERATION_TYPE_UNMAP;
	op.memHandle.memHandle = lv.memHandle.memHandle = 0;
	RC(cuMemMapArrayAsync(&op, 1, NULL), CUDA_SUCCESS);
	CHECK(USED() == 2 * MIB && double_used() == before + 2 * MIB); /* level 2's tile holds it */
	RC(cuMemMapArrayAsync(&lv, 1, NULL), CUDA_SUCCESS);
	CHECK(USED() == 0 && double_used() == before);
	RC(cuMipmappedArrayDestroy(mm), CUDA_SUCCESS);
	/* a deferred-mapping array is mapped and unmapped whole, whatever its subresource says */
	sp.Width = sp.Height = 128;
	sp.Flags = CUDA_ARRAY3D_DEFERRED_MAPPING;
	RC(cuArray3DCreate_v2(&a, &sp), CUDA_SUCCESS);
	RC(cuMemCreate(&p1, 2 * MIB, &prop, 0), CUDA_SUCCESS);
	op = tile_op(a, 7, 7, 1, 1, p1, 0);
	RC(cuMemMapArrayAsync(&op, 1, NULL), CUDA_SUCCESS);
	RC(cuMemRelease(p1), CUDA_SUCCESS);
	CHECK(USED() == 2 * MIB && double_used() == before + 2 * MIB);
	op = tile_op(a, 64, 0, 64, 64, 0, 0);
	RC(cuMemMapArrayAsync(&op, 1, NULL), CUDA_SUCCESS);
	CHECK(USED() == 0 && double_used() == before);
	RC(cuArrayDestroy(a), CUDA_SUCCESS);
#undef USED
}

/* CUDA 12.2's cuGraphAddNode (and 12.3's _v2) with an allocation node: refused like
 * cuGraphAddMemAllocNode when larger than the limit; charged when the graph runs */
static void case_graphnode(void)
{
	region("graphnode");
	start();
	axl_limit("16777216");
	const size_t L = 16 * MIB;
	size_t f, before = double_used();
#define USED() (cuMemGetInfo_v2(&f, NULL), L - f)
	CUstream s;
	RC(cuStreamCreate(&s, 0), CUDA_SUCCESS);
	CUgraph g;
	RC(cuGraphCreate(&g, 0), CUDA_SUCCESS);
	CUgraphNodeParams np;
	memset(&np, 0, sizeof np);
	np.type = CU_GRAPH_NODE_TYPE_MEM_ALLOC;
	np.alloc.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
	np.alloc.poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	np.alloc.poolProps.location.id = 0;
	np.alloc.bytesize = L + 1;
	CUgraphNode n = NULL;
	RC(cuGraphAddNode(&n, g, NULL, 0, &np), CUDA_ERROR_OUT_OF_MEMORY); /* no launch could hold it */
	RC(cuGraphAddNode_v2(&n, g, NULL, NULL, 0, &np), CUDA_ERROR_OUT_OF_MEMORY);
	void *fn = NULL;
	RC(cuGetProcAddress("cuGraphAddNode", &fn, 12030, 0), CUDA_SUCCESS); /* the _v2 */
	CHECK(fn == (void *)cuGraphAddNode_v2);
	if (fn)
		RC(((__typeof__(&cuGraphAddNode_v2))fn)(&n, g, NULL, NULL, 0, &np), CUDA_ERROR_OUT_OF_MEMORY);
	RC(cuGetProcAddress("cuGraphAddNode", &fn, 12020, 0), CUDA_SUCCESS);
	CHECK(fn == (void *)cuGraphAddNode);
	size_t nn = 0;
	RC(cuGraphGetNodes(g, NULL, &nn), CUDA_SUCCESS);
	CHECK(nn == 0);
	np.alloc.bytesize = 10 * MIB;
	RC(cuGraphAddNode(&n, g, NULL, 0, &np), CUDA_SUCCESS);
	CUdeviceptr gp = np.alloc.dptr;
	CHECK(gp != 0 && USED() == 0 && double_used() == before);
	/* a free node passes as it is */
	CUgraphNodeParams fp;
	memset(&fp, 0, sizeof fp);
	fp.type = CU_GRAPH_NODE_TYPE_MEM_FREE;
	fp.free.dptr = gp;
	CUgraphNode fnode = NULL;
	RC(cuGraphAddNode_v2(&fnode, g, &n, NULL, 1, &fp), CUDA_SUCCESS);
	CUgraphExec e;
	RC(cuGraphInstantiateWithFlags(&e, g, 0), CUDA_SUCCESS);
	CUdeviceptr p = 0;
	RC(cuMemAlloc_v2(&p, 8 * MIB), CUDA_SUCCESS);
	RC(cuGraphLaunch(e, s), CUDA_ERROR_OUT_OF_MEMORY); /* 8 + 10 > 16 */
	RC(cuMemFree_v2(p), CUDA_SUCCESS);
	RC(cuGraphLaunch(e, s), CUDA_SUCCESS);
	CHECK(USED() == 10 * MIB); /* freed in the graph, kept by its pool */
	RC(cuDeviceGraphMemTrim(0), CUDA_SUCCESS);
	CHECK(USED() == 0 && double_used() == before);
	RC(cuGraphExecDestroy(e), CUDA_SUCCESS);
	RC(cuGraphDestroy(g), CUDA_SUCCESS);
	RC(cuStreamDestroy_v2(s), CUDA_SUCCESS);
#undef USED
}

/* pools' growth: what a pool keeps after frees counts, an allocation may reuse it, a
 * synchronisation or cuMemPoolTrimTo gives it back; the double's real usage never passes
 * the limit */
static void case_pools(void)
{
	region("pools");
	start();
	axl_limit("16777216");
	const size_t L = 16 * MIB;
	size_t f, base = double_used();
#define USED() (cuMemGetInfo_v2(&f, NULL), L - f)
#define REAL_OK() CHECK(double_used() - base <= L)
	CUstream s;
	RC(cuStreamCreate(&s, 0), CUDA_SUCCESS);
	CUmemPoolProps props;
	memset(&props, 0, sizeof props);
	props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
	props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	props.location.id = 0;
	CUmemoryPool pool;
	RC(cuMemPoolCreate(&pool, &props), CUDA_SUCCESS);
	cuuint64_t thr = 8 * MIB;
	RC(cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &thr), CUDA_SUCCESS);
	CUdeviceptr p, q;
	RC(cuMemAllocFromPoolAsync(&p, 10 * MIB, pool, s), CUDA_SUCCESS);
	RC(cuMemFreeAsync(p, s), CUDA_SUCCESS);
	CHECK(USED() == 10 * MIB); /* kept by the pool */
	RC(cuStreamSynchronize(s), CUDA_SUCCESS);
	CHECK(USED() == 8 * MIB); /* down to the release threshold */
	REAL_OK();
	/* 12 MiB from the pool reuses its 8: admitted (8 kept + 12 would not be) */
	RC(cuMemAllocFromPoolAsync(&p, 12 * MIB, pool, s), CUDA_SUCCESS);
	CHECK(USED() == 12 * MIB);
	REAL_OK();
	RC(cuMemFreeAsync(p, s), CUDA_SUCCESS);
	/* the pool keeps 12 MiB: 6 MiB more elsewhere is refused, as the device would be short */
	RC(cuMemAlloc_v2(&q, 6 * MIB), CUDA_ERROR_OUT_OF_MEMORY);
	REAL_OK();
	/* a synchronisation the limiter did not see trims the pool to 8: weighed again on refusal */
	RC(cuStreamSynchronize(s), CUDA_SUCCESS);
	RC(cuMemAlloc_v2(&q, 6 * MIB), CUDA_SUCCESS);
	CHECK(USED() == 14 * MIB);
	REAL_OK();
	RC(cuMemPoolTrimTo(pool, 0), CUDA_SUCCESS);
	CHECK(USED() == 6 * MIB);
	RC(cuMemFree_v2(q), CUDA_SUCCESS);
	CHECK(USED() == 0);
	/* a destroyed pool's charge goes with it */
	RC(cuMemAllocFromPoolAsync(&p, 4 * MIB, pool, s), CUDA_SUCCESS);
	RC(cuMemFreeAsync(p, s), CUDA_SUCCESS);
	CHECK(USED() == 4 * MIB);
	RC(cuMemPoolDestroy(pool), CUDA_SUCCESS);
	CHECK(USED() == 0);
	CHECK(double_used() == base);
	RC(cuStreamDestroy_v2(s), CUDA_SUCCESS);
#undef USED
#undef REAL_OK
}

/* 4 processes, one limit, allocating and freeing at once: never above it together */
static void case_concurrent(void)
{
	region("concurrent");
	const size_t L = 4 * MIB, chunk = 64 * 1024;
	int pfd[2];
	if (pipe(pfd))
		exit(2);
	pid_t kids[4];
	for (int k = 0; k < 4; k++) {
		kids[k] = fork();
		if (kids[k] == 0) {
			start();
			setenv("CUDA_DEVICE_MEMORY_LIMIT_0", "4m", 1);
			CUdeviceptr held[128];
			int n = 0, bad = 0;
			srand((unsigned)getpid());
			for (int it = 0; it < 3000; it++) {
				if (n < 128 && (rand() % 3 || n == 0)) {
					if (cuMemAlloc_v2(&held[n], chunk) == CUDA_SUCCESS)
						n++;
				} else {
					cuMemFree_v2(held[--n]);
				}
				size_t f, t;
				cuMemGetInfo_v2(&f, &t);
				if (t != L || f > L)
					bad = 1;
			}
			int ok = !bad;
			if (write(pfd[1], &ok, sizeof ok) != sizeof ok)
				_exit(3);
			while (n)
				cuMemFree_v2(held[--n]);
			_exit(g_fail);
		}
	}
	close(pfd[1]); /* a child that dies early: read gives 0, no hang */
	int all = 1;
	for (int k = 0; k < 4; k++) {
		int ok = 0;
		if (read(pfd[0], &ok, sizeof ok) != sizeof ok)
			ok = 0;
		all &= ok;
		int st;
		waitpid(kids[k], &st, 0);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	CHECK(all);
	/* and the sum never above: each holds what it can, at once */
	close(pfd[0]);
	if (pipe(pfd))
		exit(2);
	for (int k = 0; k < 4; k++) {
		kids[k] = fork();
		if (kids[k] == 0) {
			start();
			setenv("CUDA_DEVICE_MEMORY_LIMIT_0", "4m", 1);
			CUdeviceptr p;
			int n = 0;
			while (cuMemAlloc_v2(&p, chunk) == CUDA_SUCCESS)
				n++;
			if (write(pfd[1], &n, sizeof n) != sizeof n)
				_exit(3);
			sleep(1); /* hold while the others try */
			_exit(0);
		}
	}
	close(pfd[1]);
	int total = 0;
	for (int k = 0; k < 4; k++) {
		int n = 0;
		if (read(pfd[0], &n, sizeof n) == sizeof n)
			total += n;
		int st;
		waitpid(kids[k], &st, 0);
	}
	CHECK((size_t)total * chunk <= L);
	CHECK(total > 0);
	fprintf(stderr, "concurrent: %d chunks of %zu held together (limit %zu)\n", total, chunk, L);
}

/* kill -9 of a holder: its share comes back to the next allocation */
static void case_kill9(void)
{
	region("kill9");
	int pfd[2];
	if (pipe(pfd))
		exit(2);
	pid_t kid = fork();
	if (kid == 0) {
		start();
		setenv("CUDA_DEVICE_MEMORY_LIMIT_0", "2m", 1);
		CUdeviceptr p;
		char ok = cuMemAlloc_v2(&p, 2 * MIB) == CUDA_SUCCESS ? 'y' : 'n';
		if (write(pfd[1], &ok, 1) != 1)
			_exit(3);
		pause();
		_exit(0);
	}
	close(pfd[1]);
	char ok = 0;
	CHECK(read(pfd[0], &ok, 1) == 1 && ok == 'y');
	start();
	setenv("CUDA_DEVICE_MEMORY_LIMIT_0", "2m", 1);
	CUdeviceptr p;
	RC(cuMemAlloc_v2(&p, MIB), CUDA_ERROR_OUT_OF_MEMORY); /* the other holds it all */
	kill(kid, SIGKILL);
	waitpid(kid, NULL, 0);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CUresult rc;
	while ((rc = cuMemAlloc_v2(&p, 2 * MIB)) != CUDA_SUCCESS) {
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (t1.tv_sec - t0.tv_sec > 1)
			break;
		usleep(10000);
	}
	RC(rc, CUDA_SUCCESS);
}

/* HAMi-core's sizes */
static void case_hami(void)
{
	static const char *const forms[] = {"1m", "1M", "1024k", "1048576", "0x100000", NULL};
	for (int i = 0; forms[i]; i++) {
		pid_t kid = fork();
		if (kid == 0) {
			char name[64];
			snprintf(name, sizeof name, "hami%d", i);
			region(name);
			start();
			setenv(i % 2 ? "CUDA_DEVICE_MEMORY_LIMIT" : "CUDA_DEVICE_MEMORY_LIMIT_0", forms[i], 1);
			setenv("CUDA_DEVICE_SM_LIMIT", "30", 1);
			exact(cuMemAlloc_v2, cuMemFree_v2, MIB);
			_exit(g_fail);
		}
		int st;
		waitpid(kid, &st, 0);
		if (!WIFEXITED(st) || WEXITSTATUS(st)) {
			fprintf(stderr, "hami form %s failed\n", forms[i]);
			g_fail = 1;
		}
	}
}

/* malformed variables: a message, the program runs on, memory refused (fails closed) */
static void case_malformed(void)
{
	static const char *const vars[][2] = {{"CUDA_DEVICE_MEMORY_LIMIT", "12q"},
					      {"CUDA_DEVICE_MEMORY_LIMIT_0", "-5"},
					      {"AXL_LIMIT_MEMORY_BYTES", "lots"},
					      {"AXL_LIMIT_VERSION", "2"},
					      {"AXL_LIMIT_DEVICES", "a,b"},
					      {NULL, NULL}};
	for (int i = 0; vars[i][0]; i++) {
		pid_t kid = fork();
		if (kid == 0) {
			char name[64];
			snprintf(name, sizeof name, "bad%d", i);
			region(name);
			start();
			if (!strncmp(vars[i][0], "AXL_", 4))
				axl_limit("1048576");
			setenv(vars[i][0], vars[i][1], 1);
			size_t before = double_used();
			CUdeviceptr p;
			RC(cuMemAlloc_v2(&p, 512), CUDA_ERROR_OUT_OF_MEMORY);
			CHECK(double_used() == before);
			CUstream s;
			RC(cuStreamCreate(&s, 0), CUDA_SUCCESS); /* the rest still works */
			_exit(g_fail);
		}
		int st;
		waitpid(kid, &st, 0);
		if (!WIFEXITED(st) || WEXITSTATUS(st)) {
			fprintf(stderr, "malformed %s=%s: not refused\n", vars[i][0], vars[i][1]);
			g_fail = 1;
		}
	}
}

/* One set of AXL_LIMIT_* lists with a suffix (a DRA claim's shares, docs/limits.md):
 * devices "0", "1" or "01" (g_uuid's), the memory and compute lists as given. */
static void claim_set(const char *sfx, const char *which, const char *mem, const char *pct)
{
	char name[128], devs[256] = "";
	for (const char *w = which; *w; w++)
		snprintf(devs + strlen(devs), sizeof devs - strlen(devs), "%s%s", w == which ? "" : ",",
			 g_uuid[*w - '0']);
	snprintf(name, sizeof name, "AXL_LIMIT_DEVICES_%s", sfx);
	setenv(name, devs, 1);
	snprintf(name, sizeof name, "AXL_LIMIT_MEMORY_BYTES_%s", sfx);
	setenv(name, mem, 1);
	snprintf(name, sizeof name, "AXL_LIMIT_COMPUTE_PERCENT_%s", sfx);
	setenv(name, pct, 1);
}

/* Two DRA claims' shares in one container, each its own suffixed set (the CDI specs'
 * variables do not overwrite each other): on one device their grants add up; a set for
 * another device does not touch device 0; the set without a suffix still caps the sum; a
 * set that names device 0 with `none` leaves its memory unlimited by the sets; a broken
 * set fails closed. */
static void case_claims(void)
{
	for (int i = 0; i < 5; i++) {
		pid_t kid = fork();
		if (kid == 0) {
			g_fail = 0; /* this case's own */
			char name[64];
			snprintf(name, sizeof name, "claims%d", i);
			region(name);
			start();
			setenv("AXL_LIMIT_VERSION", "1", 1);
			if (i == 0) { /* 1 MiB + 2 MiB of device 0 */
				claim_set("UID_A", "0", "1048576", "25");
				claim_set("UID_B", "0", "2097152", "25");
				exact(cuMemAlloc_v2, cuMemFree_v2, 3 * MIB);
				info_is(3 * MIB, 0);
			} else if (i == 1) { /* device 0 from one claim, device 1 from the other */
				claim_set("UID_A", "01", "1048576,4194304", "25,50");
				claim_set("UID_B", "1", "2097152", "50");
				exact(cuMemAlloc_v2, cuMemFree_v2, MIB);
			} else if (i == 2) { /* the plain set below the claims' sum */
				claim_set("UID_A", "0", "2097152", "25");
				claim_set("UID_B", "0", "2097152", "25");
				setenv("AXL_LIMIT_DEVICES", g_uuid[0], 1);
				setenv("AXL_LIMIT_MEMORY_BYTES", "3145728", 1);
				exact(cuMemAlloc_v2, cuMemFree_v2, 3 * MIB);
			} else if (i == 3) { /* one claim without a memory limit */
				claim_set("UID_A", "0", "1048576", "25");
				claim_set("UID_B", "0", "none", "25");
				CUdeviceptr p;
				RC(cuMemAlloc_v2(&p, 64 * MIB), CUDA_SUCCESS);
				RC(cuMemFree_v2(p), CUDA_SUCCESS);
			} else { /* lists of unequal length in one set */
				claim_set("UID_A", "0", "1048576", "25");
				claim_set("UID_B", "0", "1048576,1", "25");
				size_t before = double_used();
				CUdeviceptr p;
				RC(cuMemAlloc_v2(&p, 512), CUDA_ERROR_OUT_OF_MEMORY);
				CHECK(double_used() == before);
			}
			_exit(g_fail);
		}
		int st;
		waitpid(kid, &st, 0);
		if (!WIFEXITED(st) || WEXITSTATUS(st)) {
			fprintf(stderr, "claims case %d failed\n", i);
			g_fail = 1;
		}
	}
}

/* no limit anywhere: everything as the double answers, no region made */
static void case_unlimited(void)
{
	region("unlimited");
	start();
	CUdeviceptr p;
	RC(cuMemAlloc_v2(&p, 64 * MIB), CUDA_SUCCESS);
	size_t f, t, df, dt;
	RC(cuMemGetInfo_v2(&f, &t), CUDA_SUCCESS);
	d_getinfo(&df, &dt);
	CHECK(f == df && t == dt);
	size_t tm, dtm;
	RC(cuDeviceTotalMem_v2(&tm, 0), CUDA_SUCCESS);
	d_total(&dtm, 0);
	CHECK(tm == dtm);
	RC(cuMemFree_v2(p), CUDA_SUCCESS);
	RC(cuMemFree_v2(p), CUDA_ERROR_INVALID_VALUE);
	CHECK(access(getenv("AXL_LIMITER_REGION"), F_OK) != 0);
}

/* The state directory's records (axl limit set), driven by tests/limiter/check_state.py:
 * AXL_STATE_DIR names the directory, TEST_LIMIT_BYTES the limit device 0 must have
 * ("none": none); the region is the state directory's own (no AXL_LIMITER_REGION). */
static void case_state(void)
{
	unsetenv("AXL_LIMITER_REGION");
	start();
	const char *want = getenv("TEST_LIMIT_BYTES");
	if (!want) {
		fprintf(stderr, "TEST_LIMIT_BYTES is not set\n");
		exit(2);
	}
	if (!strcmp(want, "none")) {
		CUdeviceptr p;
		RC(cuMemAlloc_v2(&p, 64 * MIB), CUDA_SUCCESS);
		RC(cuMemFree_v2(p), CUDA_SUCCESS);
		return;
	}
	size_t limit = (size_t)strtoull(want, NULL, 10);
	exact(cuMemAlloc_v2, cuMemFree_v2, limit);
	info_is(limit, 0);
}

/* a state file that cannot be used: allocations refused, the program runs on */
static void case_state_bad(void)
{
	unsetenv("AXL_LIMITER_REGION");
	start();
	size_t before = double_used();
	CUdeviceptr p;
	RC(cuMemAlloc_v2(&p, 512), CUDA_ERROR_OUT_OF_MEMORY);
	CHECK(double_used() == before);
	CUstream s;
	RC(cuStreamCreate(&s, 0), CUDA_SUCCESS);
}

int main(int argc, char **argv)
{
	static const struct lt_case cases[] = {
		{"direct", case_direct}, {"dlsym", case_dlsym},         {"procaddr", case_procaddr},
		{"paths", case_paths},   {"pools", case_pools},         {"concurrent", case_concurrent},
		{"kill9", case_kill9},   {"hami", case_hami},           {"malformed", case_malformed},
		{"claims", case_claims},
		{"unlimited", case_unlimited}, {"state", case_state}, {"state_bad", case_state_bad},
		{"legacy", case_legacy}, {"arrays", case_arrays}, {"graphmem", case_graphmem},
		{"vmm_retain", case_vmm_retain}, {"graphnode", case_graphnode}, {"vmm_map", case_vmm_map},
		{"vmm_arrays", case_vmm_arrays}};
	return lt_main(argc, argv, "limiter", cases, sizeof cases / sizeof cases[0]);
}
