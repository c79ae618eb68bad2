/* SPDX-License-Identifier: MIT */
/*
 * The HIP memory limit of libaxl_limiter.so (src/limiter/amd/hip.c) under LD_PRELOAD
 * against the HIP double (tests/vendorlib/hip/double, synthetic-mi300x-8x.json): linked
 * directly and through dlopen/dlsym. Cases: refuse (exact refusal at the limit, nothing
 * allocated), paths (every allocation path counted and freed), meminfo, unlimited,
 * malformed (fails closed). usage: test_limiter_hip CASE WORKDIR
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hip_types.h"
#include "limtest.h"

#define RC(call, want)                                                                                  \
	do {                                                                                            \
		int rc_ = (int)(call);                                                                  \
		if (rc_ != (int)(want)) {                                                               \
			fprintf(stderr, "%s:%d: %s = %d, want %d\n", __FILE__, __LINE__, #call, rc_, (int)(want)); \
			g_fail = 1;                                                                     \
		}                                                                                       \
	} while (0)

#define DEV0 "GPU-5ec3b1f3a2b8f8a0" /* card0's Unique ID as hipDeviceGetUuid gives it */
#define DEV1 "GPU-2a5a0c6e21f4d3b1"
#define MIB (1024ull * 1024)

/* the double's own entry point, past the limiter's dlsym */
static void *real_sym(const char *name)
{
	return lt_dynsym(dlopen(getenv("AXL_LIMITER_HIP_LIBRARY"), RTLD_NOW | RTLD_NOLOAD), name);
}

/* the double's own hipMemGetInfo: the bytes the double has allocated on the current device
 * plus what the capture saw in use = total - free */
static size_t real_used(void)
{
	hipError_t (*f)(size_t *, size_t *) = (hipError_t(*)(size_t *, size_t *))real_sym("hipMemGetInfo");
	if (!f) {
		fprintf(stderr, "cannot reach the double's hipMemGetInfo\n");
		exit(1);
	}
	size_t fr = 0, t = 0;
	f(&fr, &t);
	return t - fr;
}

static void limits(const char *mem)
{
	setenv("AXL_LIMIT_VERSION", "1", 1);
	setenv("AXL_LIMIT_DEVICES", DEV0 "," DEV1, 1);
	setenv("AXL_LIMIT_MEMORY_BYTES", mem, 1);
}

static void case_refuse(void)
{
	limits("1048576,none");
	size_t base = real_used();
	void *a = NULL, *b = (void *)0x1;
	RC(hipMalloc(&a, MIB - 4096), hipSuccess);
	RC(hipMalloc(&b, 8192), hipErrorOutOfMemory);
	CHECK(b == (void *)0x1); /* nothing allocated, nothing written */
	CHECK(real_used() == base + MIB - 4096);
	RC(hipMalloc(&b, 4096), hipSuccess); /* exactly the limit */
	void *c = NULL;
	RC(hipMalloc(&c, 1), hipErrorOutOfMemory);
	RC(hipMallocManaged(&c, 1, hipMemAttachGlobal), hipErrorOutOfMemory);
	RC(hipExtMallocWithFlags(&c, 1, 0), hipErrorOutOfMemory);
	RC(hipMallocAsync(&c, 1, NULL), hipErrorOutOfMemory);
	CHECK(real_used() == base + MIB);
	RC(hipFree(a), hipSuccess);
	RC(hipFree(b), hipSuccess);
	CHECK(real_used() == base);
	RC(hipMalloc(&a, MIB), hipSuccess);
	RC(hipFree(a), hipSuccess);
	RC(hipFree(a), hipErrorInvalidValue); /* a double free changes nothing */
	RC(hipMalloc(&a, MIB), hipSuccess);
	RC(hipFree(a), hipSuccess);
}

static void case_paths(void)
{
	limits("4194304,none");
	size_t base = real_used();
	void *p[4] = {0}, *x = NULL;
	hipStream_t s;
	RC(hipStreamCreate(&s), hipSuccess);
	RC(hipMalloc(&p[0], MIB), hipSuccess);
	RC(hipMallocManaged(&p[1], MIB, hipMemAttachGlobal), hipSuccess);
	RC(hipExtMallocWithFlags(&p[2], MIB, hipDeviceMallocFinegrained), hipSuccess);
	/* through dlsym, as a program loading the runtime at run time does */
	void *h = dlopen(getenv("AXL_LIMITER_HIP_LIBRARY"), RTLD_NOW);
	CHECK(h != NULL);
	hipError_t (*ma)(void **, size_t, hipStream_t) =
	    (hipError_t(*)(void **, size_t, hipStream_t))dlsym(h, "hipMallocAsync");
	hipError_t (*fa)(void *, hipStream_t) = (hipError_t(*)(void *, hipStream_t))dlsym(h, "hipFreeAsync");
	CHECK(ma == hipMallocAsync && ma != real_sym("hipMallocAsync")); /* the limiter's entry */
	CHECK(dlsym(h, "hipMemcpyAsync") == real_sym("hipMemcpyAsync")); /* not accounted: the runtime's */
	CHECK(dlsym(h, "hipNoSuchCall") == NULL);
	RC(ma(&p[3], MIB, s), hipSuccess);
	RC(hipMalloc(&x, 1), hipErrorOutOfMemory);
	RC(ma(&x, 1, s), hipErrorOutOfMemory);
	CHECK(real_used() == base + 4 * MIB);
	size_t fr = 1, t = 0;
	RC(hipMemGetInfo(&fr, &t), hipSuccess);
	CHECK(t == 4 * MIB && fr == 0);
	RC(hipFree(p[0]), hipSuccess);
	RC(hipFree(p[1]), hipSuccess);
	RC(fa(p[2], s), hipSuccess);
	RC(hipFreeAsync(p[3], s), hipSuccess);
	CHECK(real_used() == base);
	RC(hipMemGetInfo(&fr, &t), hipSuccess);
	CHECK(t == 4 * MIB && fr == 4 * MIB);
	RC(hipMalloc(&x, 4 * MIB), hipSuccess); /* everything came back */
	RC(hipFree(x), hipSuccess);
	/* a stream of an unlimited device: charged to that device, not the current one */
	hipStream_t s1;
	RC(hipSetDevice(1), hipSuccess);
	RC(hipStreamCreate(&s1), hipSuccess);
	RC(hipSetDevice(0), hipSuccess);
	RC(hipMallocAsync(&x, 8 * MIB, s1), hipSuccess);
	RC(hipFreeAsync(x, s1), hipSuccess);
	RC(hipMalloc(&x, 0), hipSuccess); /* nothing: not counted */
	RC(hipFree(NULL), hipSuccess);
	dlclose(h);
}

static void case_meminfo(void)
{
	limits("16777216,none");
	size_t fr = 0, t = 0;
	RC(hipMemGetInfo(&fr, &t), hipSuccess);
	CHECK(t == 16 * MIB && fr == 16 * MIB);
	void *a;
	RC(hipMalloc(&a, 3 * MIB), hipSuccess);
	RC(hipMemGetInfo(&fr, &t), hipSuccess);
	CHECK(t == 16 * MIB && fr == 13 * MIB);
	RC(hipMemGetInfo(NULL, &t), hipErrorInvalidValue); /* the runtime's answer */
	RC(hipFree(a), hipSuccess);
}

static void case_unlimited(void)
{
	limits("1048576,none");
	RC(hipSetDevice(1), hipSuccess);
	size_t fr = 0, t = 0, fr0, t0;
	hipError_t (*real)(size_t *, size_t *) = (hipError_t(*)(size_t *, size_t *))real_sym("hipMemGetInfo");
	RC(real(&fr0, &t0), hipSuccess);
	RC(hipMemGetInfo(&fr, &t), hipSuccess);
	CHECK(fr == fr0 && t == t0 && t > 100 * MIB);
	void *a;
	RC(hipMalloc(&a, 64 * MIB), hipSuccess);
	CHECK(real_used() - (t0 - fr0) == 64 * MIB);
	RC(hipFree(a), hipSuccess);
}

static void case_malformed(void)
{
	limits("12q,none");
	size_t base = real_used();
	void *a = NULL;
	RC(hipMalloc(&a, 1), hipErrorOutOfMemory); /* device 0 fails closed */
	RC(hipMallocAsync(&a, 1, NULL), hipErrorOutOfMemory);
	CHECK(real_used() == base);
	RC(hipSetDevice(1), hipSuccess); /* device 1 has no limit */
	RC(hipMalloc(&a, MIB), hipSuccess);
	RC(hipFree(a), hipSuccess);
}

static void case_version(void)
{
	limits("1048576,none");
	setenv("AXL_LIMIT_VERSION", "7", 1);
	void *a = NULL;
	RC(hipMalloc(&a, 1), hipErrorOutOfMemory);
	RC(hipSetDevice(1), hipSuccess);
	RC(hipMalloc(&a, 1), hipErrorOutOfMemory); /* an unknown version: every device */
}

/* <work>/state/state.json holding text, and AXL_STATE_DIR naming its directory */
static void state_file(const char *text)
{
	char dir[4096], file[4200];
	snprintf(dir, sizeof dir, "%s/state", g_work);
	mkdir(dir, 0700);
	snprintf(file, sizeof file, "%s/state.json", dir);
	FILE *f = fopen(file, "w");
	if (!f || fputs(text, f) < 0 || fclose(f)) {
		fprintf(stderr, "cannot write %s\n", file);
		exit(1);
	}
	setenv("AXL_STATE_DIR", dir, 1);
}

/* the state directory's records (axl limit set) on the HIP side: a record for device 1 by
 * UUID (lower case: matched without case), one without a UUID (skipped), then a broken
 * file: every device refused */
static void case_state(void)
{
	state_file("{\n  \"schema\": \"axl.state\",\n  \"schema_version\": 1,\n  \"limits\": [\n"
		   "    {\"device\": \"amdgpu:1\", \"uuid\": \"gpu-2a5a0c6e21f4d3b1\", \"memory_bytes\": 1048576},\n"
		   "    {\"device\": \"amdgpu:0\", \"memory_bytes\": 4096}\n  ],\n  \"partitions\": []\n}\n");
	unsetenv("AXL_LIMIT_DEVICES");
	void *a = NULL, *b = NULL;
	RC(hipMalloc(&a, 8 * MIB), hipSuccess); /* device 0: the record without a UUID is not its */
	RC(hipFree(a), hipSuccess);
	RC(hipSetDevice(1), hipSuccess);
	size_t base = real_used();
	RC(hipMalloc(&a, MIB), hipSuccess);
	RC(hipMalloc(&b, 1), hipErrorOutOfMemory);
	CHECK(real_used() == base + MIB);
	RC(hipFree(a), hipSuccess);
	size_t fr = 0, t = 0;
	RC(hipMemGetInfo(&fr, &t), hipSuccess);
	CHECK(t == MIB);
}

static void case_state_bad(void)
{
	state_file("{\"schema\": \"axl.state\", \"schema_version\": 1, \"limits\": [{\"device\": 3}");
	unsetenv("AXL_LIMIT_DEVICES");
	void *a = NULL;
	RC(hipMalloc(&a, 1), hipErrorOutOfMemory);
	RC(hipSetDevice(1), hipSuccess);
	RC(hipMalloc(&a, 1), hipErrorOutOfMemory); /* a truncated file: every device */
	hipStream_t s;
	RC(hipStreamCreate(&s), hipSuccess); /* the program runs on */
}

int main(int argc, char **argv)
{
	if (argc == 3) { /* one region per case, in its working directory */
		char region[4096];
		snprintf(region, sizeof region, "%s/limiter.region", argv[2]);
		unlink(region);
		setenv("AXL_LIMITER_REGION", region, 1);
	}
	static const struct lt_case cases[] = {
		{"refuse", case_refuse},       {"paths", case_paths},         {"meminfo", case_meminfo},
		{"unlimited", case_unlimited}, {"malformed", case_malformed}, {"version", case_version},
		{"state", case_state},         {"state_bad", case_state_bad}};
	return lt_main(argc, argv, "limiter.hip", cases, sizeof cases / sizeof cases[0]);
}
