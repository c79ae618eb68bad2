/* SPDX-License-Identifier: MIT */
/* Tests of the CUDA double's limiter-facing calls (README.md): the other allocation paths,
 * simulated kernels and graphs, utilisation, cuGetProcAddress and process checkpoints.
 * `test_cuda_double_ext SUITE`, one CTest per suite (cuda_double.SUITE); the double is
 * loaded with dlopen() by path, every entry point through dlsym(). Timings are generous:
 * the machine may be loaded. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cuda_types.h"

#define FUNCS(X)                                                                                                  \
	X(cuInit) X(cuDevicePrimaryCtxRetain) X(cuCtxSetCurrent) X(cuCtxSynchronize) X(cuMemAlloc_v2)             \
	X(cuMemFree_v2) X(cuMemGetInfo_v2) X(cuDeviceTotalMem_v2) X(cuMemcpyHtoDAsync_v2) X(cuMemcpyDtoHAsync_v2) \
	X(cuStreamCreate) X(cuStreamSynchronize) X(cuStreamQuery) X(cuEventCreate) X(cuEventRecord)               \
	X(cuEventSynchronize) X(cuEventElapsedTime) X(cuMemAllocPitch_v2) X(cuMemAllocManaged) X(cuMemAllocAsync) \
	X(cuMemFreeAsync) X(cuMemPoolCreate) X(cuMemPoolDestroy) X(cuDeviceGetDefaultMemPool)                     \
	X(cuMemAllocFromPoolAsync) X(cuMemPoolTrimTo) X(cuMemPoolGetAttribute) X(cuMemPoolSetAttribute)            \
	X(cuMemCreate) X(cuMemRelease)                                                                            \
	X(cuMemAddressReserve) X(cuMemAddressFree) X(cuMemMap) X(cuMemUnmap) X(cuMemSetAccess)                    \
	X(cuMemGetAllocationGranularity) X(cuArrayCreate_v2) X(cuArrayDestroy) X(cuMipmappedArrayCreate)          \
	X(cuMipmappedArrayDestroy) X(cuModuleLoadData) X(cuModuleGetFunction) X(cuModuleUnload)                   \
	X(cuLaunchKernel) X(cuLaunchKernelEx) X(cuLaunchCooperativeKernel) X(cuStreamBeginCapture_v2)             \
	X(cuStreamEndCapture) X(cuGraphCreate) X(cuGraphAddKernelNode_v2) X(cuGraphGetNodes)                      \
	X(cuGraphKernelNodeGetParams_v2) X(cuGraphInstantiateWithFlags) X(cuGraphLaunch) X(cuGraphExecDestroy)    \
	X(cuGraphDestroy) X(cuGetProcAddress) X(cuGetProcAddress_v2) X(cuCheckpointProcessGetState)               \
	X(cuCheckpointProcessLock) X(cuCheckpointProcessCheckpoint) X(cuCheckpointProcessRestore)                 \
	X(cuCheckpointProcessUnlock) X(axl_cuda_double_utilization) X(cuMemAlloc) X(cuMemAllocPitch) X(cuMemFree)   \
	X(cuDeviceTotalMem) X(cuArrayCreate) X(cuArray3DCreate) X(cuArray3DCreate_v2) X(cuGraphNodeGetType)         \
	X(cuGraphAddMemAllocNode) X(cuGraphAddMemFreeNode) X(cuGraphMemAllocNodeGetParams) X(cuGraphUpload)         \
	X(cuDeviceGraphMemTrim) X(cuDeviceGetGraphMemAttribute) X(cuGraphInstantiateWithParams)                   \
	X(cuMemRetainAllocationHandle) X(cuGraphAddNode) X(cuGraphAddNode_v2) X(cuMemMapArrayAsync)

#define DECLARE(f) static __typeof__(f) *p_##f;
FUNCS(DECLARE)

#include "double_suite.h"

#define MIB(x) ((size_t)(x) << 20)
#define H100   "hgx-8x-h100-q2x.xml"

static void *g_lib;

static void setup(void)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", CUDAD_FIXTURES, H100);
	setenv("AXL_CUDA_DOUBLE_XML", path, 1);
	g_lib = open_double(CUDAD_LIB);
#define LOAD(f)                                                       \
	p_##f = (__typeof__(f) *)dlsym(g_lib, #f);                    \
	if (!p_##f) {                                                 \
		fprintf(stderr, "%s: no symbol %s\n", CUDAD_LIB, #f); \
		exit(2);                                              \
	}
	FUNCS(LOAD)
#undef LOAD
	RC(p_cuInit(0), CUDA_SUCCESS);
	CUcontext c;
	RC(p_cuDevicePrimaryCtxRetain(&c, 0), CUDA_SUCCESS);
	RC(p_cuCtxSetCurrent(c), CUDA_SUCCESS);
}

static size_t used(void)
{
	size_t fr = 0, total = 0;
	RC(p_cuMemGetInfo_v2(&fr, &total), CUDA_SUCCESS);
	return total - fr;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void sleep_ms(unsigned ms)
{
	struct timespec t = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };
	nanosleep(&t, NULL);
}

/* within [want * 0.5, want * 1.5 + slack] */
#define NEAR(got, want, slack)                                                                             \
	do {                                                                                               \
		double g_ = (got), w_ = (want);                                                            \
		if (g_ < w_ * 0.5 || g_ > w_ * 1.5 + (slack)) {                                            \
			fprintf(stderr, "%s:%d: [%s] %s = %.2f, want about %.2f\n", __FILE__, __LINE__, \
				suite_name, #got, g_, w_);                                                 \
			failures++;                                                                        \
		}                                                                                          \
	} while (0)

/* ---- every allocation path moves used memory, and its free moves it back ---- */
static void suite_alloc_paths(void)
{
	setup();
	size_t base = used(), total = 0;
	RC(p_cuDeviceTotalMem_v2(&total, 0), CUDA_SUCCESS);
	CHECK(total > MIB(1024));
	CUdeviceptr p;
	size_t pitch = 0;
	RC(p_cuMemAllocPitch_v2(&p, &pitch, 1000, 10, 4), CUDA_SUCCESS);
	EQ(pitch, 1024);
	EQ(used(), base + 10240);
	unsigned char in[16] = "pitched memory!", out[16] = { 0 };
	RC(p_cuMemcpyHtoDAsync_v2(p + pitch, in, 16, NULL), CUDA_SUCCESS);
	RC(p_cuMemcpyDtoHAsync_v2(out, p + pitch, 16, NULL), CUDA_SUCCESS);
	CHECK(memcmp(in, out, 16) == 0);
	RC(p_cuMemAllocPitch_v2(&p, &pitch, 1000, 10, 3), CUDA_ERROR_INVALID_VALUE);
	RC(p_cuMemFree_v2(p), CUDA_SUCCESS);
	EQ(used(), base);

	RC(p_cuMemAllocManaged(&p, MIB(3), CU_MEM_ATTACH_GLOBAL), CUDA_SUCCESS);
	EQ(used(), base + MIB(3));
	RC(p_cuMemAllocManaged(&p, MIB(3), 7), CUDA_ERROR_INVALID_VALUE);
	RC(p_cuMemFree_v2(p), CUDA_SUCCESS);
	EQ(used(), base);

	/* stream-ordered allocation through the default pool */
	CUstream s;
	RC(p_cuStreamCreate(&s, 0), CUDA_SUCCESS);
	CUmemoryPool dpool, dpool2;
	RC(p_cuDeviceGetDefaultMemPool(&dpool, 0), CUDA_SUCCESS);
	RC(p_cuDeviceGetDefaultMemPool(&dpool2, 0), CUDA_SUCCESS);
	CHECK(dpool == dpool2);
	RC(p_cuMemAllocAsync(&p, MIB(5), s), CUDA_SUCCESS);
	EQ(used(), base + MIB(5));
	cuuint64_t v = 0;
	RC(p_cuMemPoolGetAttribute(dpool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &v), CUDA_SUCCESS);
	EQ(v, MIB(5));
	RC(p_cuMemPoolGetAttribute(dpool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &v), CUDA_SUCCESS);
	EQ(v, MIB(5));
	RC(p_cuMemFreeAsync(p, s), CUDA_SUCCESS);
	/* freed pool memory stays reserved until a synchronisation (release threshold 0) */
	EQ(used(), base + MIB(5));
	RC(p_cuMemPoolGetAttribute(dpool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &v), CUDA_SUCCESS);
	EQ(v, MIB(5));
	RC(p_cuStreamSynchronize(s), CUDA_SUCCESS);
	EQ(used(), base);
	RC(p_cuMemPoolGetAttribute(dpool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &v), CUDA_SUCCESS);
	EQ(v, 0);
	RC(p_cuMemPoolGetAttribute(dpool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &v), CUDA_SUCCESS);
	EQ(v, 0);
	RC(p_cuMemPoolGetAttribute(dpool, CU_MEMPOOL_ATTR_USED_MEM_HIGH, &v), CUDA_SUCCESS);
	EQ(v, MIB(5));
	RC(p_cuMemPoolDestroy(dpool), CUDA_ERROR_INVALID_VALUE); /* the default pool stays */

	/* an explicit pool */
	CUmemPoolProps props;
	memset(&props, 0, sizeof(props));
	props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
	props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	props.location.id = 0;
	CUmemoryPool pool;
	RC(p_cuMemPoolCreate(&pool, &props), CUDA_SUCCESS);
	RC(p_cuMemAllocFromPoolAsync(&p, MIB(7), pool, s), CUDA_SUCCESS);
	EQ(used(), base + MIB(7));
	RC(p_cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &v), CUDA_SUCCESS);
	EQ(v, MIB(7));
	RC(p_cuMemPoolTrimTo(pool, 0), CUDA_SUCCESS); /* nothing unused to give back */
	EQ(used(), base + MIB(7));
	/* a release threshold of 4 MiB: a synchronisation keeps that much */
	cuuint64_t thr = MIB(4);
	RC(p_cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &thr), CUDA_SUCCESS);
	RC(p_cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &v), CUDA_SUCCESS);
	EQ(v, MIB(4));
	RC(p_cuMemFreeAsync(p, s), CUDA_SUCCESS);
	RC(p_cuMemFreeAsync(p, s), CUDA_ERROR_INVALID_VALUE);
	EQ(used(), base + MIB(7));
	RC(p_cuStreamSynchronize(s), CUDA_SUCCESS);
	EQ(used(), base + MIB(4));
	/* kept memory is reused: 3 MiB more grows nothing */
	RC(p_cuMemAllocFromPoolAsync(&p, MIB(3), pool, s), CUDA_SUCCESS);
	EQ(used(), base + MIB(4));
	RC(p_cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &v), CUDA_SUCCESS);
	EQ(v, MIB(4));
	RC(p_cuMemFreeAsync(p, s), CUDA_SUCCESS);
	RC(p_cuMemPoolTrimTo(pool, MIB(1)), CUDA_SUCCESS);
	EQ(used(), base + MIB(1));
	RC(p_cuMemPoolTrimTo(pool, 0), CUDA_SUCCESS);
	EQ(used(), base);
	RC(p_cuMemPoolDestroy(pool), CUDA_SUCCESS);
	RC(p_cuMemAllocFromPoolAsync(&p, MIB(1), pool, s), CUDA_ERROR_INVALID_VALUE);

	/* virtual memory management */
	CUmemAllocationProp prop;
	memset(&prop, 0, sizeof(prop));
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = 0;
	size_t gran = 0;
	RC(p_cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM), CUDA_SUCCESS);
	EQ(gran, MIB(2));
	CUmemGenericAllocationHandle h;
	RC(p_cuMemCreate(&h, gran + 1, &prop, 0), CUDA_ERROR_INVALID_VALUE);
	RC(p_cuMemCreate(&h, 2 * gran, &prop, 0), CUDA_SUCCESS);
	EQ(used(), base + 2 * gran);
	CUdeviceptr va;
	RC(p_cuMemAddressReserve(&va, 4 * gran, 0, 0, 0), CUDA_SUCCESS);
	RC(p_cuMemMap(va + gran, 2 * gran, 0, h, 0), CUDA_SUCCESS);
	CUmemAccessDesc acc = { { CU_MEM_LOCATION_TYPE_DEVICE, 0 }, CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
	RC(p_cuMemSetAccess(va + gran, 2 * gran, &acc, 1), CUDA_SUCCESS);
	RC(p_cuMemSetAccess(va, 2 * gran, &acc, 1), CUDA_ERROR_INVALID_VALUE); /* not all mapped */
	RC(p_cuMemcpyHtoDAsync_v2(va + gran + 100, in, 16, NULL), CUDA_SUCCESS);
	memset(out, 0, sizeof(out));
	RC(p_cuMemcpyDtoHAsync_v2(out, va + gran + 100, 16, NULL), CUDA_SUCCESS);
	CHECK(memcmp(in, out, 16) == 0);
	/* a retain, from any address of the mapping: the same handle, one more reference */
	CUmemGenericAllocationHandle r1 = 0, r2 = 0;
	RC(p_cuMemRetainAllocationHandle(&r1, (void *)(uintptr_t)(va + gran + 100)), CUDA_SUCCESS);
	CHECK(r1 == h);
	RC(p_cuMemRetainAllocationHandle(&r2, (void *)(uintptr_t)(va + 3 * gran - 1)), CUDA_SUCCESS);
	CHECK(r2 == h);
	RC(p_cuMemRetainAllocationHandle(&r2, (void *)(uintptr_t)va), CUDA_ERROR_INVALID_VALUE); /* not mapped */
	RC(p_cuMemRetainAllocationHandle(&r2, (void *)(uintptr_t)(va + 3 * gran)), CUDA_ERROR_INVALID_VALUE);
	RC(p_cuMemRetainAllocationHandle(NULL, (void *)(uintptr_t)(va + gran)), CUDA_ERROR_INVALID_VALUE);
	RC(p_cuMemRelease(h), CUDA_SUCCESS);
	RC(p_cuMemRelease(h), CUDA_SUCCESS);
	RC(p_cuMemRelease(h), CUDA_SUCCESS); /* the last of three references */
	RC(p_cuMemRelease(h), CUDA_ERROR_INVALID_VALUE);
	EQ(used(), base + 2 * gran); /* still mapped */
	/* released while mapped: a retain hands the handle out again */
	RC(p_cuMemRetainAllocationHandle(&r1, (void *)(uintptr_t)(va + gran)), CUDA_SUCCESS);
	CHECK(r1 == h);
	RC(p_cuMemRelease(h), CUDA_SUCCESS);
	EQ(used(), base + 2 * gran);
	RC(p_cuMemAddressFree(va, 4 * gran), CUDA_ERROR_INVALID_VALUE);
	RC(p_cuMemUnmap(va + gran, 2 * gran), CUDA_SUCCESS);
	EQ(used(), base);
	RC(p_cuMemRetainAllocationHandle(&r1, (void *)(uintptr_t)(va + gran)), CUDA_ERROR_INVALID_VALUE);
	RC(p_cuMemAddressFree(va, 4 * gran), CUDA_SUCCESS);
	RC(p_cuMemRelease(h), CUDA_ERROR_INVALID_VALUE);
	/* unmapped first: the handle's reference keeps the memory until its release */
	CUmemGenericAllocationHandle h2;
	RC(p_cuMemCreate(&h, 2 * gran, &prop, 0), CUDA_SUCCESS);
	RC(p_cuMemCreate(&h2, gran, &prop, 0), CUDA_SUCCESS);
	RC(p_cuMemAddressReserve(&va, 4 * gran, 0, 0, 0), CUDA_SUCCESS);
	RC(p_cuMemMap(va, 2 * gran, 0, h, 0), CUDA_SUCCESS);
	RC(p_cuMemUnmap(va, 2 * gran), CUDA_SUCCESS);
	EQ(used(), base + 3 * gran);
	/* one unmap over several whole mappings side by side; a range that cuts one, or has a
	 * hole, unmaps nothing */
	RC(p_cuMemMap(va, 2 * gran, 0, h, 0), CUDA_SUCCESS);
	RC(p_cuMemMap(va + 2 * gran, gran, 0, h2, 0), CUDA_SUCCESS);
	RC(p_cuMemRelease(h), CUDA_SUCCESS);
	RC(p_cuMemRelease(h2), CUDA_SUCCESS);
	EQ(used(), base + 3 * gran);
	RC(p_cuMemUnmap(va, gran), CUDA_ERROR_INVALID_VALUE);          /* half of h's */
	RC(p_cuMemUnmap(va + gran, 2 * gran), CUDA_ERROR_INVALID_VALUE); /* from inside h's */
	RC(p_cuMemUnmap(va, 4 * gran), CUDA_ERROR_INVALID_VALUE);      /* past the last */
	RC(p_cuMemUnmap(va, 0), CUDA_ERROR_INVALID_VALUE);
	EQ(used(), base + 3 * gran);
	RC(p_cuMemRetainAllocationHandle(&r1, (void *)(uintptr_t)(va + 2 * gran)), CUDA_SUCCESS);
	CHECK(r1 == h2);
	RC(p_cuMemUnmap(va, 3 * gran), CUDA_SUCCESS);
	EQ(used(), base + gran); /* h's memory went; h2 is held by the retain */
	RC(p_cuMemRelease(h2), CUDA_SUCCESS);
	EQ(used(), base);
	RC(p_cuMemMap(va, 2 * gran, 0, h, 0), CUDA_ERROR_INVALID_VALUE); /* released and unmapped */
	/* a hole between two mappings */
	RC(p_cuMemCreate(&h, gran, &prop, 0), CUDA_SUCCESS);
	RC(p_cuMemCreate(&h2, gran, &prop, 0), CUDA_SUCCESS);
	RC(p_cuMemMap(va, gran, 0, h, 0), CUDA_SUCCESS);
	RC(p_cuMemMap(va + 2 * gran, gran, 0, h2, 0), CUDA_SUCCESS);
	RC(p_cuMemUnmap(va, 3 * gran), CUDA_ERROR_INVALID_VALUE);
	RC(p_cuMemUnmap(va, gran), CUDA_SUCCESS);
	RC(p_cuMemUnmap(va + 2 * gran, gran), CUDA_SUCCESS);
	RC(p_cuMemRelease(h), CUDA_SUCCESS);
	RC(p_cuMemRelease(h2), CUDA_SUCCESS);
	EQ(used(), base);
	RC(p_cuMemAddressFree(va, 4 * gran), CUDA_SUCCESS);

	/* arrays: width x height x channels x element size */
	CUDA_ARRAY_DESCRIPTOR ad = { 1024, 512, CU_AD_FORMAT_FLOAT, 4 };
	CUarray arr;
	RC(p_cuArrayCreate_v2(&arr, &ad), CUDA_SUCCESS);
	EQ(used(), base + 1024ull * 512 * 16);
	RC(p_cuArrayDestroy(arr), CUDA_SUCCESS);
	RC(p_cuArrayDestroy(arr), CUDA_ERROR_INVALID_HANDLE);
	EQ(used(), base);
	ad.Format = (CUarray_format)0x77;
	RC(p_cuArrayCreate_v2(&arr, &ad), CUDA_ERROR_INVALID_VALUE);
	CUDA_ARRAY3D_DESCRIPTOR md = { 256, 256, 0, CU_AD_FORMAT_UNSIGNED_INT8, 1, 0 };
	CUmipmappedArray mm;
	RC(p_cuMipmappedArrayCreate(&mm, &md, 3), CUDA_SUCCESS);
	EQ(used(), base + 65536 + 16384 + 4096);
	RC(p_cuMipmappedArrayDestroy(mm), CUDA_SUCCESS);
	EQ(used(), base);
}

static const char module_text[] = "axl-double-module\n# a comment\nkernel busy\nkernel other\n";

static CUfunction load_kernel(const char *name)
{
	CUmodule m;
	RC(p_cuModuleLoadData(&m, module_text), CUDA_SUCCESS);
	CUfunction f = NULL;
	RC(p_cuModuleGetFunction(&f, m, name), CUDA_SUCCESS);
	return f;
}

static CUresult launch_us(CUfunction f, CUstream s, unsigned long long us)
{
	void *params[] = { &us };
	return p_cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, s, params, NULL);
}

/* ---- kernels take simulated time ---- */
static void suite_kernels(void)
{
	setup();
	CUmodule m;
	RC(p_cuModuleLoadData(&m, "not a module"), CUDA_ERROR_INVALID_IMAGE);
	RC(p_cuModuleLoadData(&m, "axl-double-module\nbogus line\n"), CUDA_ERROR_INVALID_IMAGE);
	RC(p_cuModuleLoadData(&m, module_text), CUDA_SUCCESS);
	CUfunction f, g;
	RC(p_cuModuleGetFunction(&f, m, "busy"), CUDA_SUCCESS);
	RC(p_cuModuleGetFunction(&g, m, "missing"), CUDA_ERROR_NOT_FOUND);
	CUstream s;
	RC(p_cuStreamCreate(&s, 0), CUDA_SUCCESS);
	/* a 20 ms kernel keeps its stream busy about 20 ms */
	double t0 = now_ms();
	RC(launch_us(f, s, 20000), CUDA_SUCCESS);
	RC(p_cuStreamQuery(s), CUDA_ERROR_NOT_READY); /* the launch itself does not wait */
	RC(p_cuStreamSynchronize(s), CUDA_SUCCESS);
	NEAR(now_ms() - t0, 20, 20);
	RC(p_cuStreamQuery(s), CUDA_SUCCESS);
	/* two kernels on one device serialise, even on two streams */
	CUstream s2;
	RC(p_cuStreamCreate(&s2, 0), CUDA_SUCCESS);
	t0 = now_ms();
	RC(launch_us(f, s, 30000), CUDA_SUCCESS);
	RC(launch_us(f, s2, 30000), CUDA_SUCCESS);
	RC(p_cuStreamSynchronize(s2), CUDA_SUCCESS);
	NEAR(now_ms() - t0, 60, 30);
	CHECK(now_ms() - t0 >= 55);
	/* events time the kernels between them */
	CUevent a, b;
	RC(p_cuEventCreate(&a, 0), CUDA_SUCCESS);
	RC(p_cuEventCreate(&b, 0), CUDA_SUCCESS);
	RC(p_cuEventRecord(a, s), CUDA_SUCCESS);
	CUlaunchConfig cfg;
	memset(&cfg, 0, sizeof(cfg));
	cfg.gridDimX = cfg.gridDimY = cfg.gridDimZ = 1;
	cfg.blockDimX = cfg.blockDimY = cfg.blockDimZ = 1;
	cfg.hStream = s;
	unsigned long long us = 15000;
	void *params[] = { &us };
	RC(p_cuLaunchKernelEx(&cfg, f, params, NULL), CUDA_SUCCESS);
	RC(p_cuLaunchCooperativeKernel(f, 1, 1, 1, 1, 1, 1, 0, s, params), CUDA_SUCCESS);
	RC(p_cuEventRecord(b, s), CUDA_SUCCESS);
	RC(p_cuEventSynchronize(b), CUDA_SUCCESS);
	float ms = 0;
	RC(p_cuEventElapsedTime(&ms, a, b), CUDA_SUCCESS);
	NEAR(ms, 30, 5);
	/* the default stream and the context wait for the device */
	t0 = now_ms();
	RC(launch_us(f, NULL, 20000), CUDA_SUCCESS);
	RC(p_cuCtxSynchronize(), CUDA_SUCCESS);
	NEAR(now_ms() - t0, 20, 20);
	/* bad launches; an unloaded module's functions are gone */
	RC(p_cuLaunchKernel(f, 0, 1, 1, 1, 1, 1, 0, s, params, NULL), CUDA_ERROR_INVALID_VALUE);
	RC(p_cuModuleUnload(m), CUDA_SUCCESS);
	RC(launch_us(f, s, 1), CUDA_ERROR_INVALID_HANDLE);
	RC(p_cuModuleUnload(m), CUDA_ERROR_INVALID_HANDLE);
}

/* ---- graphs: captured and built ---- */
static void suite_graphs(void)
{
	setup();
	CUfunction f = load_kernel("busy");
	CUstream s;
	RC(p_cuStreamCreate(&s, 0), CUDA_SUCCESS);
	RC(p_cuStreamBeginCapture_v2(NULL, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
	RC(p_cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_SUCCESS);
	RC(launch_us(f, s, 10000), CUDA_SUCCESS);
	RC(launch_us(f, s, 20000), CUDA_SUCCESS);
	RC(p_cuStreamQuery(s), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
	CUgraph graph;
	RC(p_cuStreamEndCapture(s, &graph), CUDA_SUCCESS);
	RC(p_cuStreamQuery(s), CUDA_SUCCESS); /* captured, not run */
	size_t n = 0;
	RC(p_cuGraphGetNodes(graph, NULL, &n), CUDA_SUCCESS);
	EQ(n, 2);
	CUgraphNode nodes[2];
	RC(p_cuGraphGetNodes(graph, nodes, &n), CUDA_SUCCESS);
	CUDA_KERNEL_NODE_PARAMS kp;
	unsigned long long total_us = 0;
	for (size_t i = 0; i < 2; i++) {
		RC(p_cuGraphKernelNodeGetParams_v2(nodes[i], &kp), CUDA_SUCCESS);
		CHECK(kp.func == f);
		EQ(kp.blockDimX, 32);
		total_us += *(unsigned long long *)kp.kernelParams[0];
	}
	EQ(total_us, 30000);
	/* a node added by hand runs after the captured ones */
	unsigned long long us = 10000;
	void *params[] = { &us };
	memset(&kp, 0, sizeof(kp));
	kp.func = f;
	kp.gridDimX = kp.gridDimY = kp.gridDimZ = 1;
	kp.blockDimX = kp.blockDimY = kp.blockDimZ = 1;
	kp.kernelParams = params;
	CUgraphNode added;
	RC(p_cuGraphAddKernelNode_v2(&added, graph, &nodes[1], 1, &kp), CUDA_SUCCESS);
	us = 999999; /* the node kept the value */
	CUgraphExec exec;
	RC(p_cuGraphInstantiateWithFlags(&exec, graph, 0), CUDA_SUCCESS);
	double t0 = now_ms();
	RC(p_cuGraphLaunch(exec, s), CUDA_SUCCESS);
	RC(p_cuGraphLaunch(exec, s), CUDA_SUCCESS);
	RC(p_cuStreamSynchronize(s), CUDA_SUCCESS);
	NEAR(now_ms() - t0, 80, 40);
	CHECK(now_ms() - t0 >= 75);
	RC(p_cuGraphExecDestroy(exec), CUDA_SUCCESS);
	RC(p_cuGraphLaunch(exec, s), CUDA_ERROR_INVALID_HANDLE);
	CUgraph built;
	RC(p_cuGraphCreate(&built, 0), CUDA_SUCCESS);
	RC(p_cuGraphGetNodes(built, NULL, &n), CUDA_SUCCESS);
	EQ(n, 0);
	RC(p_cuGraphDestroy(built), CUDA_SUCCESS);
	RC(p_cuGraphDestroy(graph), CUDA_SUCCESS);
	RC(p_cuGraphKernelNodeGetParams_v2(nodes[0], &kp), CUDA_ERROR_INVALID_HANDLE);
}

/* ---- utilisation: the busy share since the last query ---- */
static void suite_utilization(void)
{
	char file[256];
	snprintf(file, sizeof(file), "/tmp/cuda_double_util.%d", (int)getpid());
	setenv("AXL_CUDA_DOUBLE_UTIL_FILE", file, 1);
	setup();
	CUfunction f = load_kernel("busy");
	unsigned pct = 100;
	RC(p_axl_cuda_double_utilization(0, &pct), CUDA_SUCCESS);
	EQ(pct, 0);
	RC(p_axl_cuda_double_utilization(99, &pct), CUDA_ERROR_INVALID_DEVICE);
	/* busy 200 ms of a 400 ms window */
	RC(launch_us(f, NULL, 200000), CUDA_SUCCESS);
	sleep_ms(400);
	RC(p_axl_cuda_double_utilization(0, &pct), CUDA_SUCCESS);
	NEAR(pct, 50, 0);
	CHECK(pct <= 60);
	RC(p_axl_cuda_double_utilization(1, &pct), CUDA_SUCCESS);
	EQ(pct, 0);
	/* the file: "ordinal bus-id percent" per device, rewritten every 100 ms */
	RC(launch_us(f, NULL, 600000), CUDA_SUCCESS);
	sleep_ms(450);
	FILE *fp = fopen(file, "r");
	CHECK(fp != NULL);
	if (fp) {
		char line[256];
		int ord = -1;
		unsigned fpct = 0;
		char bus[64];
		CHECK(fgets(line, sizeof(line), fp) && line[0] == '#');
		CHECK(fgets(line, sizeof(line), fp) && sscanf(line, "%d %63s %u", &ord, bus, &fpct) == 3);
		EQ(ord, 0);
		CHECK(fpct >= 20 && fpct <= 80);
		fclose(fp);
	}
	RC(p_cuCtxSynchronize(), CUDA_SUCCESS);
	unlink(file);
}

/* ---- cuGetProcAddress ---- */
static void suite_procaddr(void)
{
	setup();
	void *fn = NULL;
	CUdriverProcAddressQueryResult st = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
	RC(p_cuGetProcAddress_v2("cuMemAlloc", &fn, 12080, 0, &st), CUDA_SUCCESS);
	CHECK(fn == (void *)p_cuMemAlloc_v2);
	EQ(st, CU_GET_PROC_ADDRESS_SUCCESS);
	RC(p_cuGetProcAddress("cuMemGetInfo", &fn, 11030, 0), CUDA_SUCCESS);
	CHECK(fn == (void *)p_cuMemGetInfo_v2);
	RC(p_cuGetProcAddress_v2("cuStreamBeginCapture", &fn, 12000, 0, &st), CUDA_SUCCESS);
	CHECK(fn == (void *)p_cuStreamBeginCapture_v2);
	RC(p_cuGetProcAddress_v2("cuGraphAddKernelNode", &fn, 12000, 0, &st), CUDA_SUCCESS);
	CHECK(fn == (void *)p_cuGraphAddKernelNode_v2);
	RC(p_cuGetProcAddress_v2("cuGraphInstantiate", &fn, 12020, 0, &st), CUDA_SUCCESS);
	CHECK(fn == (void *)p_cuGraphInstantiateWithFlags);
	RC(p_cuGetProcAddress_v2("cuGraphAddNode", &fn, 12020, 0, &st), CUDA_SUCCESS);
	CHECK(fn == (void *)p_cuGraphAddNode);
	RC(p_cuGetProcAddress_v2("cuGraphAddNode", &fn, 12030, 0, &st), CUDA_SUCCESS);
	CHECK(fn == (void *)p_cuGraphAddNode_v2);
	RC(p_cuGetProcAddress_v2("cuLaunchKernel", &fn, 12000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &st),
	   CUDA_SUCCESS);
	CHECK(fn == (void *)p_cuLaunchKernel);
	RC(p_cuGetProcAddress_v2("cuLaunchKernel_ptsz", &fn, 12000, 0, &st), CUDA_SUCCESS);
	CHECK(fn == (void *)p_cuLaunchKernel);
	RC(p_cuGetProcAddress_v2("cuMemcpyHtoDAsync_v2_ptsz", &fn, 12000, 0, &st), CUDA_SUCCESS);
	CHECK(fn == (void *)p_cuMemcpyHtoDAsync_v2);
	RC(p_cuGetProcAddress_v2("cuMemAlloc_v2", &fn, 12000, 0, &st), CUDA_SUCCESS);
	CHECK(fn == (void *)p_cuMemAlloc_v2);
	RC(p_cuGetProcAddress_v2("cuGetProcAddress", &fn, 12000, 0, &st), CUDA_SUCCESS);
	CHECK(fn == (void *)p_cuGetProcAddress_v2);
	RC(p_cuGetProcAddress_v2("cuCheckpointProcessLock", &fn, 12080, 0, &st), CUDA_SUCCESS);
	CHECK(fn == (void *)p_cuCheckpointProcessLock);
	/* refused: unknown names, a version too old for the only variant there is */
	fn = (void *)1;
	RC(p_cuGetProcAddress_v2("cuNoSuchCall", &fn, 12000, 0, &st), CUDA_ERROR_NOT_FOUND);
	CHECK(fn == NULL);
	EQ(st, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
	RC(p_cuGetProcAddress("cuMemAlloc_v9", &fn, 12000, 0), CUDA_ERROR_NOT_FOUND);
	RC(p_cuGetProcAddress_v2("cuInit_ptsz", &fn, 12000, 0, &st), CUDA_ERROR_NOT_FOUND);
	/* before CUDA 3.2 the 32-bit entry points, as NVIDIA's driver answers */
	RC(p_cuGetProcAddress_v2("cuMemAlloc", &fn, 3000, 0, &st), CUDA_SUCCESS);
	CHECK(fn == dlsym(g_lib, "cuMemAlloc") && fn != dlsym(g_lib, "cuMemAlloc_v2"));
	RC(p_cuGetProcAddress_v2("cuArray3DCreate", &fn, 3020, 0, &st), CUDA_SUCCESS);
	CHECK(fn == dlsym(g_lib, "cuArray3DCreate_v2"));
	/* the double has no cuGraphInstantiate before its _v2 (CUDA 11.0) */
	RC(p_cuGetProcAddress_v2("cuGraphInstantiate", &fn, 10000, 0, &st), CUDA_ERROR_NOT_FOUND);
	EQ(st, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
	/* the old build has no checkpoint calls to give */
	void *old = open_double(CUDAD_OLD_LIB);
	__typeof__(cuInit) *o_init = (__typeof__(cuInit) *)dlsym(old, "cuInit");
	__typeof__(cuGetProcAddress_v2) *o_gpa = (__typeof__(cuGetProcAddress_v2) *)dlsym(old, "cuGetProcAddress_v2");
	CHECK(o_init && o_gpa && !dlsym(old, "cuCheckpointProcessLock"));
	if (o_init && o_gpa) {
		RC(o_init(0), CUDA_SUCCESS);
		RC(o_gpa("cuCheckpointProcessLock", &fn, 12080, 0, &st), CUDA_ERROR_NOT_FOUND);
	}
}

/* ---- process checkpoints ---- */
static void suite_checkpoint(void)
{
	setup();
	int pid = (int)getpid();
	CUprocessState st = CU_PROCESS_STATE_FAILED;
	RC(p_cuCheckpointProcessGetState(pid, &st), CUDA_SUCCESS);
	EQ(st, CU_PROCESS_STATE_RUNNING);
	RC(p_cuCheckpointProcessGetState(pid + 100000, &st), CUDA_ERROR_INVALID_VALUE);
	size_t base = used();
	CUdeviceptr p;
	RC(p_cuMemAlloc_v2(&p, MIB(4)), CUDA_SUCCESS);
	unsigned char in[64], out[64];
	for (int i = 0; i < 64; i++)
		in[i] = (unsigned char)(i * 7 + 3);
	RC(p_cuMemcpyHtoDAsync_v2(p + 1000, in, 64, NULL), CUDA_SUCCESS);
	/* out-of-order calls */
	RC(p_cuCheckpointProcessCheckpoint(pid, NULL), CUDA_ERROR_ILLEGAL_STATE);
	RC(p_cuCheckpointProcessRestore(pid, NULL), CUDA_ERROR_ILLEGAL_STATE);
	RC(p_cuCheckpointProcessUnlock(pid, NULL), CUDA_ERROR_ILLEGAL_STATE);
	/* lock waits for the work in flight */
	CUfunction f = load_kernel("busy");
	RC(launch_us(f, NULL, 30000), CUDA_SUCCESS);
	double t0 = now_ms();
	CUcheckpointLockArgs la;
	memset(&la, 0, sizeof(la));
	RC(p_cuCheckpointProcessLock(pid, &la), CUDA_SUCCESS);
	CHECK(now_ms() - t0 >= 15);
	RC(p_cuCheckpointProcessGetState(pid, &st), CUDA_SUCCESS);
	EQ(st, CU_PROCESS_STATE_LOCKED);
	RC(p_cuCheckpointProcessLock(pid, &la), CUDA_ERROR_ILLEGAL_STATE);
	RC(p_cuCheckpointProcessCheckpoint(pid, NULL), CUDA_SUCCESS);
	RC(p_cuCheckpointProcessGetState(pid, &st), CUDA_SUCCESS);
	EQ(st, CU_PROCESS_STATE_CHECKPOINTED);
	EQ(used(), 0); /* the device memory went to the host */
	RC(p_cuMemAlloc_v2(&p, MIB(1)), CUDA_ERROR_ILLEGAL_STATE);
	RC(p_cuCheckpointProcessUnlock(pid, NULL), CUDA_ERROR_ILLEGAL_STATE);
	RC(p_cuCheckpointProcessRestore(pid, NULL), CUDA_SUCCESS);
	RC(p_cuCheckpointProcessGetState(pid, &st), CUDA_SUCCESS);
	EQ(st, CU_PROCESS_STATE_LOCKED);
	EQ(used(), base + MIB(4));
	RC(p_cuCheckpointProcessUnlock(pid, NULL), CUDA_SUCCESS);
	RC(p_cuCheckpointProcessGetState(pid, &st), CUDA_SUCCESS);
	EQ(st, CU_PROCESS_STATE_RUNNING);
	/* the contents came back */
	memset(out, 0, sizeof(out));
	RC(p_cuMemcpyDtoHAsync_v2(out, p + 1000, 64, NULL), CUDA_SUCCESS);
	CHECK(memcmp(in, out, 64) == 0);
	RC(p_cuMemFree_v2(p), CUDA_SUCCESS);
	EQ(used(), base);
}

/* ---- the CUDA 3.1 entry points (32-bit pointers and sizes) and 3D arrays ---- */
static void suite_legacy(void)
{
	setup();
	size_t base = used();
	CUdeviceptr_v1 p = 0, q = 0;
	RC(p_cuMemAlloc(&p, 1000), CUDA_SUCCESS);
	CHECK(p != 0);
	EQ(used(), base + 1024); /* rounded to 512 */
	RC(p_cuMemAlloc(&q, 0), CUDA_ERROR_INVALID_VALUE);
	RC(p_cuMemFree(p), CUDA_SUCCESS);
	RC(p_cuMemFree(p), CUDA_ERROR_INVALID_VALUE);
	EQ(used(), base);
	/* a 32-bit pointer is the same allocation to cuMemFree_v2 */
	RC(p_cuMemAlloc(&p, 4096), CUDA_SUCCESS);
	RC(p_cuMemFree_v2(p), CUDA_SUCCESS);
	EQ(used(), base);
	unsigned pitch = 0;
	RC(p_cuMemAllocPitch(&p, &pitch, 1000, 10, 4), CUDA_SUCCESS);
	EQ(pitch, 1024);
	EQ(used(), base + 10240);
	RC(p_cuMemFree(p), CUDA_SUCCESS);
	unsigned t32 = 0;
	size_t t = 0;
	RC(p_cuDeviceTotalMem(&t32, 0), CUDA_SUCCESS);
	RC(p_cuDeviceTotalMem_v2(&t, 0), CUDA_SUCCESS);
	EQ(t32, t > 0xffffffffu ? 0xffffffffu : t); /* an H100's 80 GB: saturated */

	/* arrays: width x height x depth x channels x element size, rounded to 512 */
	CUarray a;
	CUDA_ARRAY_DESCRIPTOR_v1 d1 = { 256, 4, CU_AD_FORMAT_FLOAT, 2 };
	RC(p_cuArrayCreate(&a, &d1), CUDA_SUCCESS);
	EQ(used(), base + 256 * 4 * 2 * 4);
	RC(p_cuArrayDestroy(a), CUDA_SUCCESS);
	CUDA_ARRAY3D_DESCRIPTOR d3 = { 64, 32, 8, CU_AD_FORMAT_HALF, 4, 0 };
	RC(p_cuArray3DCreate_v2(&a, &d3), CUDA_SUCCESS);
	EQ(used(), base + 64 * 32 * 8 * 4 * 2);
	RC(p_cuArrayDestroy(a), CUDA_SUCCESS);
	CUDA_ARRAY3D_DESCRIPTOR_v1 d3v1 = { 64, 64, 6, CU_AD_FORMAT_UNSIGNED_INT8, 1, CUDA_ARRAY3D_CUBEMAP };
	RC(p_cuArray3DCreate(&a, &d3v1), CUDA_SUCCESS);
	EQ(used(), base + 64 * 64 * 6);
	RC(p_cuArrayDestroy(a), CUDA_SUCCESS);
	d3v1.Depth = 5; /* a cubemap has 6 faces */
	RC(p_cuArray3DCreate(&a, &d3v1), CUDA_ERROR_INVALID_VALUE);
	/* sparse: no memory of its own */
	CUDA_ARRAY3D_DESCRIPTOR sp = { 1024, 1024, 0, CU_AD_FORMAT_FLOAT, 4, CUDA_ARRAY3D_SPARSE };
	RC(p_cuArray3DCreate_v2(&a, &sp), CUDA_SUCCESS);
	EQ(used(), base);
	RC(p_cuArrayDestroy(a), CUDA_SUCCESS);
	/* a layered mipmapped array keeps its layers at every level */
	CUmipmappedArray m;
	CUDA_ARRAY3D_DESCRIPTOR ml = { 64, 64, 3, CU_AD_FORMAT_UNSIGNED_INT8, 1, CUDA_ARRAY3D_LAYERED };
	RC(p_cuMipmappedArrayCreate(&m, &ml, 2), CUDA_SUCCESS);
	EQ(used(), base + 64 * 64 * 3 + 32 * 32 * 3); /* both multiples of 512 */
	RC(p_cuMipmappedArrayDestroy(m), CUDA_SUCCESS);
	EQ(used(), base);
}

/* ---- graph memory nodes: the graph pool grows at upload and launch, shrinks at a trim ---- */
static cuuint64_t gmem(CUgraphMem_attribute attr)
{
	cuuint64_t v = 0;
	RC(p_cuDeviceGetGraphMemAttribute(0, attr, &v), CUDA_SUCCESS);
	return v;
}

static void suite_graphmem(void)
{
	setup();
	size_t base = used();
	CUgraph g;
	RC(p_cuGraphCreate(&g, 0), CUDA_SUCCESS);
	CUDA_MEM_ALLOC_NODE_PARAMS ap;
	memset(&ap, 0, sizeof(ap));
	ap.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
	ap.poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	ap.poolProps.location.id = 0;
	ap.bytesize = MIB(6);
	CUgraphNode an, fn;
	RC(p_cuGraphAddMemAllocNode(&an, g, NULL, 0, &ap), CUDA_SUCCESS);
	CHECK(ap.dptr != 0);
	EQ(used(), base); /* an address, no memory yet */
	CUgraphNodeType t;
	RC(p_cuGraphNodeGetType(an, &t), CUDA_SUCCESS);
	EQ(t, CU_GRAPH_NODE_TYPE_MEM_ALLOC);
	CUDA_MEM_ALLOC_NODE_PARAMS got;
	RC(p_cuGraphMemAllocNodeGetParams(an, &got), CUDA_SUCCESS);
	EQ(got.bytesize, MIB(6));
	CHECK(got.dptr == ap.dptr && got.poolProps.location.id == 0);
	CUDA_KERNEL_NODE_PARAMS kp;
	RC(p_cuGraphKernelNodeGetParams_v2(an, &kp), CUDA_ERROR_INVALID_VALUE);
	ap.bytesize = (size_t)1 << 50; /* more than the device */
	RC(p_cuGraphAddMemAllocNode(&fn, g, NULL, 0, &ap), CUDA_ERROR_OUT_OF_MEMORY);
	CUgraphExec e;
	RC(p_cuGraphInstantiateWithFlags(&e, g, 0), CUDA_SUCCESS);
	CUstream s;
	RC(p_cuStreamCreate(&s, 0), CUDA_SUCCESS);
	/* an upload maps the memory (the pool reserves it); nothing is live */
	RC(p_cuGraphUpload(e, s), CUDA_SUCCESS);
	EQ(used(), base + MIB(6));
	EQ(gmem(CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT), MIB(6));
	EQ(gmem(CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT), 0);
	/* a launch makes the allocation live, from what the pool holds */
	RC(p_cuGraphLaunch(e, s), CUDA_SUCCESS);
	EQ(used(), base + MIB(6));
	EQ(gmem(CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT), MIB(6));
	unsigned char in[16] = "graph memory...", out[16] = { 0 };
	RC(p_cuMemcpyHtoDAsync_v2(got.dptr, in, 16, s), CUDA_SUCCESS);
	RC(p_cuMemcpyDtoHAsync_v2(out, got.dptr, 16, s), CUDA_SUCCESS);
	CHECK(memcmp(in, out, 16) == 0);
	RC(p_cuGraphLaunch(e, s), CUDA_ERROR_INVALID_VALUE); /* still live */
	/* freed outside the graph: back to the pool, which keeps it */
	RC(p_cuMemFree_v2(got.dptr), CUDA_SUCCESS);
	EQ(gmem(CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT), 0);
	EQ(used(), base + MIB(6));
	RC(p_cuDeviceGraphMemTrim(0), CUDA_SUCCESS);
	EQ(used(), base);
	EQ(gmem(CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT), 0);
	EQ(gmem(CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH), MIB(6));
	/* a graph that frees its own allocation: live only during the launch */
	RC(p_cuGraphAddMemFreeNode(&fn, g, &an, 1, got.dptr), CUDA_SUCCESS);
	RC(p_cuGraphNodeGetType(fn, &t), CUDA_SUCCESS);
	EQ(t, CU_GRAPH_NODE_TYPE_MEM_FREE);
	CUgraphExec e2;
	RC(p_cuGraphInstantiateWithFlags(&e2, g, 0), CUDA_SUCCESS);
	RC(p_cuGraphLaunch(e2, s), CUDA_SUCCESS);
	RC(p_cuGraphLaunch(e2, s), CUDA_SUCCESS);
	EQ(gmem(CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT), 0);
	EQ(used(), base + MIB(6));
	RC(p_cuDeviceGraphMemTrim(0), CUDA_SUCCESS);
	EQ(used(), base);
	RC(p_cuGraphExecDestroy(e2), CUDA_SUCCESS);
	RC(p_cuGraphExecDestroy(e), CUDA_SUCCESS);
	RC(p_cuGraphDestroy(g), CUDA_SUCCESS);
	/* stream-ordered allocations into a stream being captured become nodes */
	RC(p_cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_SUCCESS);
	CUdeviceptr c;
	RC(p_cuMemAllocAsync(&c, MIB(2), s), CUDA_SUCCESS);
	EQ(used(), base); /* not allocated */
	RC(p_cuMemFreeAsync(c, s), CUDA_SUCCESS);
	RC(p_cuStreamEndCapture(s, &g), CUDA_SUCCESS);
	size_t n = 0;
	RC(p_cuGraphGetNodes(g, NULL, &n), CUDA_SUCCESS);
	EQ(n, 2);
	RC(p_cuGraphInstantiateWithFlags(&e, g, 0), CUDA_SUCCESS);
	RC(p_cuGraphLaunch(e, s), CUDA_SUCCESS);
	EQ(used(), base + MIB(2));
	EQ(gmem(CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT), 0);
	RC(p_cuDeviceGraphMemTrim(0), CUDA_SUCCESS);
	EQ(used(), base);
	RC(p_cuGraphExecDestroy(e), CUDA_SUCCESS);
	RC(p_cuGraphDestroy(g), CUDA_SUCCESS);
	/* an instantiation with CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD uploads at once */
	RC(p_cuGraphCreate(&g, 0), CUDA_SUCCESS);
	ap.bytesize = MIB(3);
	RC(p_cuGraphAddMemAllocNode(&an, g, NULL, 0, &ap), CUDA_SUCCESS);
	CUDA_GRAPH_INSTANTIATE_PARAMS ip = { CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD, s, NULL,
					     CUDA_GRAPH_INSTANTIATE_ERROR };
	RC(p_cuGraphInstantiateWithParams(&e, g, &ip), CUDA_SUCCESS);
	EQ(ip.result_out, CUDA_GRAPH_INSTANTIATE_SUCCESS);
	EQ(used(), base + MIB(3));
	EQ(gmem(CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT), 0);
	RC(p_cuDeviceGraphMemTrim(0), CUDA_SUCCESS);
	EQ(used(), base);
	RC(p_cuGraphInstantiateWithParams(&e, g, NULL), CUDA_ERROR_INVALID_VALUE);
	RC(p_cuGraphExecDestroy(e), CUDA_SUCCESS);
	RC(p_cuGraphDestroy(g), CUDA_SUCCESS);
	/* CUDA 12.2's cuGraphAddNode (12.3's _v2 with edge data): allocation and free nodes */
	RC(p_cuGraphCreate(&g, 0), CUDA_SUCCESS);
	CUgraphNodeParams np;
	memset(&np, 0, sizeof(np));
	np.type = CU_GRAPH_NODE_TYPE_MEM_ALLOC;
	np.alloc.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
	np.alloc.poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	np.alloc.poolProps.location.id = 0;
	np.alloc.bytesize = MIB(4);
	RC(p_cuGraphAddNode(&an, g, NULL, 0, &np), CUDA_SUCCESS);
	CHECK(np.alloc.dptr != 0);
	RC(p_cuGraphNodeGetType(an, &t), CUDA_SUCCESS);
	EQ(t, CU_GRAPH_NODE_TYPE_MEM_ALLOC);
	RC(p_cuGraphMemAllocNodeGetParams(an, &got), CUDA_SUCCESS);
	EQ(got.bytesize, MIB(4));
	CHECK(got.dptr == np.alloc.dptr);
	EQ(used(), base);
	CUdeviceptr first = np.alloc.dptr;
	np.alloc.bytesize = (size_t)1 << 50;
	RC(p_cuGraphAddNode(&fn, g, NULL, 0, &np), CUDA_ERROR_OUT_OF_MEMORY);
	np.alloc.bytesize = MIB(2);
	np.reserved2 = 1; /* unused bytes must be zero */
	RC(p_cuGraphAddNode(&fn, g, NULL, 0, &np), CUDA_ERROR_INVALID_VALUE);
	np.reserved2 = 0;
	np.reserved1[28] = 1;
	RC(p_cuGraphAddNode(&fn, g, NULL, 0, &np), CUDA_ERROR_INVALID_VALUE);
	np.reserved1[28] = 0;
	CUgraphEdgeData ed[1];
	memset(ed, 0, sizeof(ed));
	RC(p_cuGraphAddNode_v2(&fn, g, &an, ed, 1, &np), CUDA_SUCCESS); /* the default edge */
	ed[0].type = 1;
	RC(p_cuGraphAddNode_v2(&fn, g, &an, ed, 1, &np), CUDA_ERROR_NOT_SUPPORTED);
	CUgraphNodeParams fp;
	memset(&fp, 0, sizeof(fp));
	fp.type = CU_GRAPH_NODE_TYPE_MEM_FREE;
	fp.free.dptr = first;
	RC(p_cuGraphAddNode_v2(&fn, g, &an, NULL, 1, &fp), CUDA_SUCCESS);
	RC(p_cuGraphNodeGetType(fn, &t), CUDA_SUCCESS);
	EQ(t, CU_GRAPH_NODE_TYPE_MEM_FREE);
	fp.type = CU_GRAPH_NODE_TYPE_KERNEL; /* not a node type the double has */
	RC(p_cuGraphAddNode(&fn, g, NULL, 0, &fp), CUDA_ERROR_NOT_SUPPORTED);
	RC(p_cuGraphAddNode(&fn, NULL, NULL, 0, &np), CUDA_ERROR_INVALID_HANDLE);
	RC(p_cuGraphAddNode(&fn, g, NULL, 0, NULL), CUDA_ERROR_INVALID_VALUE);
	n = 0;
	RC(p_cuGraphGetNodes(g, NULL, &n), CUDA_SUCCESS);
	EQ(n, 3);
	RC(p_cuGraphInstantiateWithFlags(&e, g, 0), CUDA_SUCCESS);
	RC(p_cuGraphLaunch(e, s), CUDA_SUCCESS); /* 4 MiB freed in the graph, 2 MiB live */
	EQ(used(), base + MIB(6));
	EQ(gmem(CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT), MIB(2));
	RC(p_cuMemFree_v2(np.alloc.dptr), CUDA_SUCCESS);
	RC(p_cuDeviceGraphMemTrim(0), CUDA_SUCCESS);
	EQ(used(), base);
	RC(p_cuGraphExecDestroy(e), CUDA_SUCCESS);
	RC(p_cuGraphDestroy(g), CUDA_SUCCESS);
}

/* ---- sparse arrays: tile pools mapped into them (cuMemMapArrayAsync) ---- */
/* an entry for a sparse level's region of array a (2D, level 0), mapped to pool at off, or
 * unmapped (pool 0) */
static CUarrayMapInfo tile_op(CUarray a, unsigned x, unsigned y, unsigned w, unsigned h,
			      CUmemGenericAllocationHandle pool, unsigned long long off)
{
	CUarrayMapInfo m;
	memset(&m, 0, sizeof(m));
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

static void suite_sparse(void)
{
	setup();
	size_t base = used();
	CUmemAllocationProp prop;
	memset(&prop, 0, sizeof(prop));
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = 0;
	CUmemGenericAllocationHandle plain, pool, pool2;
	RC(p_cuMemCreate(&plain, MIB(2), &prop, 0), CUDA_SUCCESS);
	prop.allocFlags.usage = 0x2;
	RC(p_cuMemCreate(&pool, MIB(2), &prop, 0), CUDA_ERROR_INVALID_VALUE);
	prop.allocFlags.usage = CU_MEM_CREATE_USAGE_TILE_POOL;
	RC(p_cuMemCreate(&pool, MIB(2), &prop, 0), CUDA_SUCCESS);
	EQ(used(), base + MIB(4));
	/* 256 x 256 float4: 64 x 64 tiles of 64 KiB, 4 x 4 of them */
	CUarray a, dense;
	CUDA_ARRAY3D_DESCRIPTOR sp = { 256, 256, 0, CU_AD_FORMAT_FLOAT, 4, CUDA_ARRAY3D_SPARSE };
	RC(p_cuArray3DCreate_v2(&a, &sp), CUDA_SUCCESS);
	sp.Flags = 0;
	RC(p_cuArray3DCreate_v2(&dense, &sp), CUDA_SUCCESS);
	EQ(used(), base + MIB(5));
	CUarrayMapInfo op = tile_op(a, 0, 0, 128, 128, pool, 0), two[2];
	RC(p_cuMemMapArrayAsync(&op, 1, NULL), CUDA_SUCCESS);
	/* refused, nothing changes: a region off the tiles, a handle not a tile pool, an offset
	 * in the pool off a tile or past its end, an unmap naming a handle, another device, an
	 * array not sparse, a list whose second entry is bad */
	op = tile_op(a, 32, 0, 64, 64, pool, 0);
	RC(p_cuMemMapArrayAsync(&op, 1, NULL), CUDA_ERROR_INVALID_VALUE);
	op = tile_op(a, 0, 0, 64, 64, plain, 0);
	RC(p_cuMemMapArrayAsync(&op, 1, NULL), CUDA_ERROR_INVALID_VALUE);
	op = tile_op(a, 0, 0, 64, 64, pool, 4096);
	RC(p_cuMemMapArrayAsync(&op, 1, NULL), CUDA_ERROR_INVALID_VALUE);
	op = tile_op(a, 0, 0, 128, 128, pool, MIB(2) - 65536);
	RC(p_cuMemMapArrayAsync(&op, 1, NULL), CUDA_ERROR_INVALID_VALUE);
	op = tile_op(a, 0, 0, 64, 64, 0, 0);
	op.memHandle.memHandle = pool;
	RC(p_cuMemMapArrayAsync(&op, 1, NULL), CUDA_ERROR_INVALID_VALUE);
	op = tile_op(a, 0, 0, 64, 64, 0, 0);
	op.deviceBitMask = 2;
	RC(p_cuMemMapArrayAsync(&op, 1, NULL), CUDA_ERROR_INVALID_VALUE);
	op = tile_op(dense, 0, 0, 64, 64, pool, 0);
	RC(p_cuMemMapArrayAsync(&op, 1, NULL), CUDA_ERROR_INVALID_VALUE);
	two[0] = tile_op(a, 0, 0, 256, 256, 0, 0);
	two[1] = tile_op(a, 0, 0, 256, 512, 0, 0);
	RC(p_cuMemMapArrayAsync(two, 2, NULL), CUDA_ERROR_INVALID_VALUE);
	RC(p_cuArrayDestroy(dense), CUDA_SUCCESS);
	/* released while mapped: the pool's memory stays until its last tile is unmapped */
	RC(p_cuMemRelease(pool), CUDA_SUCCESS);
	EQ(used(), base + MIB(4));
	op = tile_op(a, 0, 0, 64, 64, 0, 0);
	RC(p_cuMemMapArrayAsync(&op, 1, NULL), CUDA_SUCCESS);
	op = tile_op(a, 64, 0, 64, 128, 0, 0);
	RC(p_cuMemMapArrayAsync(&op, 1, NULL), CUDA_SUCCESS);
	EQ(used(), base + MIB(4)); /* (0, 64) - (64, 128) is still mapped */
	op = tile_op(a, 0, 0, 256, 256, 0, 0);
	RC(p_cuMemMapArrayAsync(&op, 1, NULL), CUDA_SUCCESS);
	EQ(used(), base + MIB(2));
	/* a map over mapped tiles replaces them; a destroyed array drops its tiles */
	RC(p_cuMemCreate(&pool, MIB(2), &prop, 0), CUDA_SUCCESS);
	RC(p_cuMemCreate(&pool2, MIB(2), &prop, 0), CUDA_SUCCESS);
	two[0] = tile_op(a, 0, 0, 128, 256, pool, 0);
	two[1] = tile_op(a, 128, 0, 128, 256, pool, MIB(1) / 2);
	RC(p_cuMemMapArrayAsync(two, 2, NULL), CUDA_SUCCESS);
	RC(p_cuMemRelease(pool), CUDA_SUCCESS);
	op = tile_op(a, 64, 64, 128, 128, pool2, 0);
	RC(p_cuMemMapArrayAsync(&op, 1, NULL), CUDA_SUCCESS);
	EQ(used(), base + MIB(6));
	op = tile_op(a, 0, 0, 256, 256, pool2, 0);
	RC(p_cuMemMapArrayAsync(&op, 1, NULL), CUDA_SUCCESS);
	EQ(used(), base + MIB(4)); /* every tile of pool's replaced */
	RC(p_cuMemRelease(pool2), CUDA_SUCCESS);
	EQ(used(), base + MIB(4));
	RC(p_cuArrayDestroy(a), CUDA_SUCCESS);
	EQ(used(), base + MIB(2));
	/* an edge tile stops at the level's edge */
	sp.Width = sp.Height = 200;
	sp.Flags = CUDA_ARRAY3D_SPARSE;
	RC(p_cuArray3DCreate_v2(&a, &sp), CUDA_SUCCESS);
	RC(p_cuMemCreate(&pool, MIB(2), &prop, 0), CUDA_SUCCESS);
	op = tile_op(a, 192, 192, 64, 64, pool, 0);
	RC(p_cuMemMapArrayAsync(&op, 1, NULL), CUDA_ERROR_INVALID_VALUE);
	op = tile_op(a, 192, 128, 8, 72, pool, 0);
	RC(p_cuMemMapArrayAsync(&op, 1, NULL), CUDA_SUCCESS);
	RC(p_cuMemRelease(pool), CUDA_SUCCESS);
	EQ(used(), base + MIB(4));
	RC(p_cuArrayDestroy(a), CUDA_SUCCESS);
	EQ(used(), base + MIB(2));
	/* a mipmapped sparse array's mip tail: 256 x 256 float4, 9 levels; 32 x 32 and below
	 * are smaller than a tile: (32^2 + 16^2 + 8^2 + 4^2 + 2^2 + 1) x 16 bytes, one tile */
	CUmipmappedArray mm;
	sp.Width = sp.Height = 256;
	RC(p_cuMipmappedArrayCreate(&mm, &sp, 9), CUDA_SUCCESS);
	RC(p_cuMemCreate(&pool, MIB(2), &prop, 0), CUDA_SUCCESS);
	memset(&op, 0, sizeof(op));
	op.resourceType = CU_RESOURCE_TYPE_MIPMAPPED_ARRAY;
	op.resource.mipmap = mm;
	op.subresourceType = CU_ARRAY_SPARSE_SUBRESOURCE_TYPE_MIPTAIL;
	op.subresource.miptail.size = 2 * 65536;
	op.memOperationType = CU_MEM_OPERATION_TYPE_MAP;
	op.memHandleType = CU_MEM_HANDLE_TYPE_GENERIC;
	op.memHandle.memHandle = pool;
	op.offset = MIB(1);
	op.deviceBitMask = 1;
	RC(p_cuMemMapArrayAsync(&op, 1, NULL), CUDA_ERROR_INVALID_VALUE); /* two tiles: past the tail */
	op.subresource.miptail.size = 65536;
	RC(p_cuMemMapArrayAsync(&op, 1, NULL), CUDA_SUCCESS);
	CUarrayMapInfo lv = op;
	lv.subresourceType = CU_ARRAY_SPARSE_SUBRESOURCE_TYPE_SPARSE_LEVEL;
	memset(&lv.subresource, 0, sizeof(lv.subresource));
	lv.subresource.sparseLevel.level = 3; /* in the tail */
	lv.subresource.sparseLevel.extentWidth = lv.subresource.sparseLevel.extentHeight = 32;
	lv.subresource.sparseLevel.extentDepth = 1;
	RC(p_cuMemMapArrayAsync(&lv, 1, NULL), CUDA_ERROR_INVALID_VALUE);
	lv.subresource.sparseLevel.level = 2; /* 64 x 64: one tile */
	lv.subresource.sparseLevel.extentWidth = lv.subresource.sparseLevel.extentHeight = 64;
	RC(p_cuMemMapArrayAsync(&lv, 1, NULL), CUDA_SUCCESS);
	RC(p_cuMemRelease(pool), CUDA_SUCCESS);
	op.memOperationType = CU_MEM_OPERATION_TYPE_UNMAP;
	op.memHandle.memHandle = 0;
	RC(p_cuMemMapArrayAsync(&op, 1, NULL), CUDA_SUCCESS);
	EQ(used(), base + MIB(4)); /* level 2's tile holds it */
	lv.memOperationType = CU_MEM_OPERATION_TYPE_UNMAP;
	lv.memHandle.memHandle = 0;
	RC(p_cuMemMapArrayAsync(&lv, 1, NULL), CUDA_SUCCESS);
	EQ(used(), base + MIB(2));
	RC(p_cuMipmappedArrayDestroy(mm), CUDA_SUCCESS);
	/* a deferred-mapping array: the whole of it (its subresource ignored) */
	sp.Width = sp.Height = 128;
	sp.Flags = CUDA_ARRAY3D_DEFERRED_MAPPING;
	RC(p_cuArray3DCreate_v2(&a, &sp), CUDA_SUCCESS);
	RC(p_cuMemCreate(&pool, MIB(2), &prop, 0), CUDA_SUCCESS);
	op = tile_op(a, 7, 7, 1, 1, pool, MIB(2) - 128 * 128 * 16 - 65536);
	RC(p_cuMemMapArrayAsync(&op, 1, NULL), CUDA_SUCCESS);
	op.offset = MIB(2) - 65536; /* 256 KiB do not fit */
	RC(p_cuMemMapArrayAsync(&op, 1, NULL), CUDA_ERROR_INVALID_VALUE);
	RC(p_cuMemRelease(pool), CUDA_SUCCESS);
	EQ(used(), base + MIB(4));
	op = tile_op(a, 0, 0, 0, 0, 0, 0);
	RC(p_cuMemMapArrayAsync(&op, 1, NULL), CUDA_SUCCESS);
	EQ(used(), base + MIB(2));
	RC(p_cuArrayDestroy(a), CUDA_SUCCESS);
	RC(p_cuMemRelease(plain), CUDA_SUCCESS);
	EQ(used(), base);
}

static const struct {
	const char *name;
	void (*fn)(void);
} suites[] = {
	{ "alloc_paths", suite_alloc_paths }, { "kernels", suite_kernels },   { "graphs", suite_graphs },
	{ "utilization", suite_utilization }, { "procaddr", suite_procaddr }, { "checkpoint", suite_checkpoint },
	{ "legacy", suite_legacy },           { "graphmem", suite_graphmem },     { "sparse", suite_sparse },
};

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s SUITE\n", argv[0]);
		return 2;
	}
	unsetenv("AXL_CUDA_DOUBLE_OOM_AT");
	unsetenv("AXL_CUDA_DOUBLE_LOST_AFTER");
	unsetenv("AXL_CUDA_DOUBLE_HANG");
	unsetenv("AXL_CUDA_DOUBLE_P2P");
	unsetenv("AXL_CUDA_DOUBLE_UTIL_FILE");
	for (size_t i = 0; i < sizeof(suites) / sizeof(suites[0]); i++)
		if (strcmp(argv[1], suites[i].name) == 0) {
			suite_name = suites[i].name;
			suites[i].fn();
			if (failures)
				fprintf(stderr, "[%s] %d failure(s)\n", suite_name, failures);
			else
				printf("[%s] ok\n", suite_name);
			return failures ? 1 : 0;
		}
	fprintf(stderr, "unknown suite %s\n", argv[1]);
	return 2;
}
