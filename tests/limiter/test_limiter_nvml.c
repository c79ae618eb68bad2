/* SPDX-License-Identifier: MIT */
/*
 * NVML's memory info under libaxl_limiter.so (docs/limits.md, "The limiter"): with a memory
 * limit on a device, nvmlDeviceGetMemoryInfo and _v2 report total = the limit, used = the
 * workload's usage, free = limit - used, as cuMemGetInfo_v2 does; an unlimited device gets
 * NVML's own answer; NULL and a wrong struct version get NVML's errors.
 * `test_limiter_nvml CASE WORKDIR NVML_LIBRARY`, run with LD_PRELOAD=the limiter against the
 * CUDA double and the NVML double reading the same XML fixture (so the UUIDs match). Cases:
 * "linked" (this program is linked to the NVML double: the limiter's exported entry
 * points) and "dlsym" (the double loaded by path, its entries found with dlsym). NVML's own
 * answers come from the double's .dynsym, past the limiter.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuda_types.h"
#include "limtest.h"

#define MIB (1ull << 20)
static char g_uuid[2][64];
#define EQ(a, b)                                                                                     \
	do {                                                                                         \
		unsigned long long a_ = (a), b_ = (b);                                               \
		if (a_ != b_) {                                                                      \
			fprintf(stderr, "%s:%d: %s = %llu, want %s = %llu\n", __FILE__, __LINE__, #a, a_, #b, b_); \
			g_fail = 1;                                                                  \
		}                                                                                    \
	} while (0)

/* NVML, from its public reference */
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef struct {
	unsigned long long total, free, used;
} nvmlMemory_t;
typedef struct {
	unsigned int version;
	unsigned long long total, reserved, free, used;
} nvmlMemory_v2_t;
#define nvmlMemory_v2 ((unsigned int)(sizeof(nvmlMemory_v2_t) | (2u << 24)))
int nvmlInit_v2(void);
int nvmlDeviceGetCount_v2(unsigned int *);
int nvmlDeviceGetHandleByIndex_v2(unsigned int, nvmlDevice_t *);
int nvmlDeviceGetUUID(nvmlDevice_t, char *, unsigned int);
int nvmlDeviceGetMemoryInfo(nvmlDevice_t, nvmlMemory_t *);
int nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t, nvmlMemory_v2_t *);

typedef int (*mem_fn)(nvmlDevice_t, nvmlMemory_t *);
typedef int (*mem2_fn)(nvmlDevice_t, nvmlMemory_v2_t *);
static mem_fn p_mem, d_mem;    /* as the program reaches it; the double's own */
static mem2_fn p_mem2, d_mem2;
static nvmlDevice_t g_dev[2];  /* the NVML devices of CUDA's ordinals 0 and 1 */


/* NVML's answers for dev equal the double's own */
static void untouched(nvmlDevice_t dev)
{
	nvmlMemory_t a, b;
	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	EQ(p_mem(dev, &a), 0);
	EQ(d_mem(dev, &b), 0);
	CHECK(!memcmp(&a, &b, sizeof a));
	nvmlMemory_v2_t c = {.version = nvmlMemory_v2}, e = {.version = nvmlMemory_v2};
	EQ(p_mem2(dev, &c), 0);
	EQ(d_mem2(dev, &e), 0);
	CHECK(!memcmp(&c, &e, sizeof c));
}

/* total = limit, used = used, free = limit - used, reserved NVML's (at most the limit) */
static void limited(nvmlDevice_t dev, unsigned long long limit, unsigned long long used)
{
	nvmlMemory_t a;
	EQ(p_mem(dev, &a), 0);
	EQ(a.total, limit);
	EQ(a.used, used);
	EQ(a.free, limit - used);
	nvmlMemory_v2_t c = {.version = nvmlMemory_v2}, e = {.version = nvmlMemory_v2};
	EQ(p_mem2(dev, &c), 0);
	EQ(d_mem2(dev, &e), 0);
	EQ(c.version, nvmlMemory_v2);
	EQ(c.total, limit);
	EQ(c.used, used);
	EQ(c.free, limit - used);
	EQ(c.reserved, e.reserved < limit ? e.reserved : limit);
	/* cuMemGetInfo_v2 on the same device agrees */
	size_t f = 0, t = 0;
	CHECK(cuMemGetInfo_v2(&f, &t) == CUDA_SUCCESS);
	EQ(t, a.total);
	EQ(f, a.free);
	/* NULL and a wrong version: NVML's errors (INVALID_ARGUMENT, ARGUMENT_VERSION_MISMATCH) */
	EQ(p_mem(dev, NULL), 2);
	EQ(p_mem2(dev, NULL), 2);
	nvmlMemory_v2_t w;
	memset(&w, 0x5a, sizeof w);
	w.version = 1u << 24 | (unsigned)sizeof w;
	nvmlMemory_v2_t w0 = w;
	EQ(p_mem2(dev, &w), 25);
	CHECK(!memcmp(&w, &w0, sizeof w));
}

static void run(void *nvml, int linked)
{
	if (linked) {
		p_mem = nvmlDeviceGetMemoryInfo;
		p_mem2 = nvmlDeviceGetMemoryInfo_v2;
	} else {
		p_mem = (mem_fn)dlsym(nvml, "nvmlDeviceGetMemoryInfo");
		p_mem2 = (mem2_fn)dlsym(nvml, "nvmlDeviceGetMemoryInfo_v2");
	}
	d_mem = (mem_fn)lt_dynsym(nvml, "nvmlDeviceGetMemoryInfo");
	d_mem2 = (mem2_fn)lt_dynsym(nvml, "nvmlDeviceGetMemoryInfo_v2");
	CHECK(p_mem && p_mem2 && d_mem && d_mem2);
	if (!p_mem || !p_mem2 || !d_mem || !d_mem2)
		return;
	/* the limiter's entries, not the double's */
	CHECK((void *)p_mem != (void *)d_mem && (void *)p_mem2 != (void *)d_mem2);
	int (*init)(void) = (int (*)(void))dlsym(nvml, "nvmlInit_v2");
	int (*count)(unsigned *) = (int (*)(unsigned *))dlsym(nvml, "nvmlDeviceGetCount_v2");
	int (*handle)(unsigned, nvmlDevice_t *) =
	    (int (*)(unsigned, nvmlDevice_t *))dlsym(nvml, "nvmlDeviceGetHandleByIndex_v2");
	int (*uuid)(nvmlDevice_t, char *, unsigned) =
	    (int (*)(nvmlDevice_t, char *, unsigned))dlsym(nvml, "nvmlDeviceGetUUID");
	CHECK(init && count && handle && uuid);
	EQ(init(), 0);
	unsigned n = 0;
	EQ(count(&n), 0);
	nvmlDevice_t h0 = NULL;
	EQ(handle(0, &h0), 0);

	/* before cuInit the limiter cannot tell the devices yet: NVML's answer */
	setenv("AXL_LIMIT_VERSION", "1", 1);
	setenv("AXL_LIMIT_MEMORY_BYTES", "536870912", 1);
	setenv("AXL_LIMIT_COMPUTE_PERCENT", "none", 1);
	setenv("AXL_LIMIT_DEVICES", "GPU-00000000-0000-0000-0000-000000000000", 1);
	untouched(h0);

	CHECK(cuInit(0) == CUDA_SUCCESS);
	for (int i = 0; i < 2; i++) {
		CUuuid u;
		CHECK(cuDeviceGetUuid(&u, i) == CUDA_SUCCESS);
		const unsigned char *b = (const unsigned char *)u.bytes;
		snprintf(g_uuid[i], sizeof g_uuid[i],
			 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2],
			 b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
	}
	/* the NVML devices of CUDA's 0 and 1, by UUID (NVML's order need not be CUDA's) */
	for (unsigned k = 0; k < n; k++) {
		nvmlDevice_t h;
		char s[96];
		if (handle(k, &h) || uuid(h, s, sizeof s))
			continue;
		for (int i = 0; i < 2; i++)
			if (!strcasecmp(s, g_uuid[i]))
				g_dev[i] = h;
	}
	CHECK(g_dev[0] && g_dev[1]);
	if (!g_dev[0] || !g_dev[1])
		return;
	CUcontext c;
	CHECK(cuDevicePrimaryCtxRetain(&c, 0) == CUDA_SUCCESS);
	CHECK(cuCtxSetCurrent(c) == CUDA_SUCCESS);

	/* 512 MiB on CUDA's device 0 (set before the limiter's first accounted call) */
	setenv("AXL_LIMIT_DEVICES", g_uuid[0], 1);
	const unsigned long long limit = 512 * MIB, a = 100 * MIB;
	limited(g_dev[0], limit, 0);
	untouched(g_dev[1]);
	CUdeviceptr p = 0, q = 0;
	CHECK(cuMemAlloc_v2(&p, a) == CUDA_SUCCESS);
	limited(g_dev[0], limit, a);
	CHECK(cuMemAlloc_v2(&q, limit - a) == CUDA_SUCCESS);
	limited(g_dev[0], limit, limit);
	CHECK(cuMemFree_v2(q) == CUDA_SUCCESS);
	limited(g_dev[0], limit, a);
	untouched(g_dev[1]);
	CHECK(cuMemFree_v2(p) == CUDA_SUCCESS);
	limited(g_dev[0], limit, 0);
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: test_limiter_nvml linked|dlsym WORKDIR NVML_LIBRARY\n");
		return 2;
	}
	char cmd[4200], reg[4200];
	snprintf(cmd, sizeof cmd, "mkdir -p '%s'", argv[2]);
	if (system(cmd))
		return 2;
	snprintf(reg, sizeof reg, "%s/%s.region", argv[2], argv[1]);
	unlink(reg);
	setenv("AXL_LIMITER_REGION", reg, 1);
	int linked = !strcmp(argv[1], "linked");
	if (!linked && strcmp(argv[1], "dlsym")) {
		fprintf(stderr, "unknown case %s\n", argv[1]);
		return 2;
	}
	void *nvml = dlopen(argv[3], RTLD_NOW | RTLD_LOCAL);
	if (!nvml) {
		fprintf(stderr, "dlopen %s: %s\n", argv[3], dlerror());
		return 2;
	}
	run(nvml, linked);
	if (!g_fail)
		printf("limiter.nvml.%s: ok\n", argv[1]);
	return g_fail;
}
