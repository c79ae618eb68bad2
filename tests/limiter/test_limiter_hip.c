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

static int g_fail;
#define CHECK(c)                                                              \
	do {                                                                  \
		if (!(c)) {                                                   \
			fprintf(stderr, "%s:%d: CHECK %s\n", __FILE__, __LINE__, #c); \
			g_fail = 1;                                           \
		}                                                             \
	} while (0)
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

/* the double's own entry point, past the limiter's dlsym: its .dynsym read from the file
 * plus the load address */
static void *real_sym(const char *name)
{
	const char *path = getenv("AXL_LIMITER_HIP_LIBRARY");
	void *h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
	struct link_map *lm = NULL;
	if (!h || dlinfo(h, RTLD_DI_LINKMAP, &lm) != 0)
		return NULL;
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	static char buf[8 << 20];
	size_t n = fread(buf, 1, sizeof buf, f);
	fclose(f);
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)buf;
	if (n < sizeof *eh || eh->e_shoff + (size_t)eh->e_shnum * sizeof(Elf64_Shdr) > n)
		return NULL;
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(buf + eh->e_shoff);
	for (int i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_type != SHT_DYNSYM)
			continue;
		const Elf64_Sym *sym = (const Elf64_Sym *)(buf + sh[i].sh_offset);
		const char *str = buf + sh[sh[i].sh_link].sh_offset;
		for (size_t k = 0; k < sh[i].sh_size / sizeof *sym; k++)
			if (sym[k].st_value && !strcmp(str + sym[k].st_name, name))
				return (void *)(lm->l_addr + sym[k].st_value);
	}
	return NULL;
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
	hipError_t (*ma)(void **, size_t, hipStream_t) = (hipError_t(*)(void **, size_t, hipStream_t))dlsym(h, "hipMallocAsync");
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

/* the state directory's records (axl limit set) on the HIP side: a record for device 1 by
 * UUID (lower case: matched without case), one without a UUID (skipped), then a broken
 * file: every device refused */
static void case_state(const char *work)
{
	char dir[4096], file[4200];
	snprintf(dir, sizeof dir, "%s/state", work);
	mkdir(dir, 0700);
	snprintf(file, sizeof file, "%s/state.json", dir);
	FILE *f = fopen(file, "w");
	if (!f) {
		fprintf(stderr, "cannot write %s\n", file);
		exit(1);
	}
	fprintf(f, "{\n  \"schema\": \"axl.state\",\n  \"schema_version\": 1,\n  \"limits\": [\n"
		   "    {\"device\": \"amdgpu:1\", \"uuid\": \"gpu-2a5a0c6e21f4d3b1\", \"memory_bytes\": 1048576},\n"
		   "    {\"device\": \"amdgpu:0\", \"memory_bytes\": 4096}\n  ],\n  \"partitions\": []\n}\n");
	fclose(f);
	setenv("AXL_STATE_DIR", dir, 1);
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

static void case_state_bad(const char *work)
{
	char dir[4096], file[4200];
	snprintf(dir, sizeof dir, "%s/state", work);
	mkdir(dir, 0700);
	snprintf(file, sizeof file, "%s/state.json", dir);
	FILE *f = fopen(file, "w");
	if (!f || fputs("{\"schema\": \"axl.state\", \"schema_version\": 1, \"limits\": [{\"device\": 3}", f) < 0 ||
	    fclose(f)) {
		fprintf(stderr, "cannot write %s\n", file);
		exit(1);
	}
	setenv("AXL_STATE_DIR", dir, 1);
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
	if (argc != 3) {
		fprintf(stderr, "usage: %s CASE WORKDIR\n", argv[0]);
		return 2;
	}
	char parent[4096];
	snprintf(parent, sizeof parent, "%s", argv[2]);
	char *slash = strrchr(parent, '/');
	if (slash && slash != parent) {
		*slash = 0;
		mkdir(parent, 0755);
	}
	mkdir(argv[2], 0755);
	char region[4096];
	snprintf(region, sizeof region, "%s/limiter.region", argv[2]);
	unlink(region);
	setenv("AXL_LIMITER_REGION", region, 1);
	static const struct {
		const char *name;
		void (*fn)(void);
	} cases[] = {{"refuse", case_refuse},     {"paths", case_paths},         {"meminfo", case_meminfo},
		     {"unlimited", case_unlimited}, {"malformed", case_malformed}, {"version", case_version}};
	static const struct {
		const char *name;
		void (*fn)(const char *);
	} wcases[] = {{"state", case_state}, {"state_bad", case_state_bad}};
	for (size_t i = 0; i < sizeof wcases / sizeof wcases[0]; i++)
		if (!strcmp(argv[1], wcases[i].name)) {
			wcases[i].fn(argv[2]);
			printf("%s: %s\n", argv[1], g_fail ? "FAILED" : "ok");
			return g_fail;
		}
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		if (!strcmp(argv[1], cases[i].name)) {
			cases[i].fn();
			printf("%s: %s\n", argv[1], g_fail ? "FAILED" : "ok");
			return g_fail;
		}
	fprintf(stderr, "unknown case %s\n", argv[1]);
	return 2;
}
