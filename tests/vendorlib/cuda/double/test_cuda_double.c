/* SPDX-License-Identifier: MIT */
/* Tests of the CUDA driver API double: `test_cuda_double SUITE`, one CTest per suite (each in
 * its own process, since the environment drives the double and it reads it once). The double
 * is loaded the way a host loads libcuda: dlopen() by absolute path with RTLD_NOW |
 * RTLD_LOCAL, every entry point through dlsym(). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cuda_types.h"
#include "xml.h"

/* the entry points of both builds */
#define FUNCS(X)                                                                                                     \
	X(cuInit)                                                                                                    \
	X(cuDriverGetVersion) X(cuGetErrorName) X(cuGetErrorString) X(cuDeviceGetCount) X(cuDeviceGet)               \
	    X(cuDeviceGetName) X(cuDeviceGetPCIBusId) X(cuDeviceGetUuid) X(cuDeviceTotalMem_v2)                      \
		X(cuDeviceGetAttribute) X(cuDeviceCanAccessPeer) X(cuDevicePrimaryCtxRetain)                         \
		    X(cuDevicePrimaryCtxRelease) X(cuCtxSetCurrent) X(cuCtxGetCurrent) X(cuCtxSynchronize)           \
			X(cuCtxEnablePeerAccess) X(cuMemAlloc_v2) X(cuMemFree_v2) X(cuMemHostAlloc) X(cuMemFreeHost) \
			    X(cuMemGetInfo) X(cuMemcpyHtoDAsync_v2) X(cuMemcpyDtoHAsync_v2) X(cuMemcpyDtoDAsync_v2)  \
				X(cuMemsetD8Async) X(cuStreamCreate) X(cuStreamDestroy_v2) X(cuStreamSynchronize)    \
				    X(cuEventCreate) X(cuEventRecord) X(cuEventSynchronize) X(cuEventElapsedTime)    \
					X(cuEventDestroy_v2)
/* the current build only */
#define NEW_FUNCS(X) X(cuDeviceGetUuid_v2) X(cuDevicePrimaryCtxRelease_v2) X(cuMemGetInfo_v2) X(cuMemcpyPeerAsync)

#define DECLARE(f) static __typeof__(f) *p_##f;
FUNCS(DECLARE)
NEW_FUNCS(DECLARE)

#include "double_suite.h"

#define MIB(x) ((unsigned long long)(x) << 20)

static void *open_lib(const char *path)
{
	void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
		exit(2);
	}
	return lib;
}

static void load_current(void)
{
	void *lib = open_lib(CUDAD_LIB);
#define LOAD(f)                                                       \
	p_##f = (__typeof__(f) *)dlsym(lib, #f);                      \
	if (!p_##f) {                                                 \
		fprintf(stderr, "%s: no symbol %s\n", CUDAD_LIB, #f); \
		exit(2);                                              \
	}
	FUNCS(LOAD)
	NEW_FUNCS(LOAD)
#undef LOAD
}

static char fixture_path[4096];
static const char *fixture(const char *name)
{
	snprintf(fixture_path, sizeof(fixture_path), "%s/%s", CUDAD_FIXTURES, name);
	return fixture_path;
}

static void use_xml(const char *name)
{
	setenv("AXL_CUDA_DOUBLE_XML", fixture(name), 1);
}

#define H100 "hgx-8x-h100-q2x.xml"
#define DUAL "telegraf-dual_2080-v13.xml"

/* loads the current build with a document, initialises and makes device 0 current */
static CUcontext setup(const char *xml)
{
	use_xml(xml);
	load_current();
	RC(p_cuInit(0), CUDA_SUCCESS);
	CUcontext ctx = NULL;
	RC(p_cuDevicePrimaryCtxRetain(&ctx, 0), CUDA_SUCCESS);
	RC(p_cuCtxSetCurrent(ctx), CUDA_SUCCESS);
	return ctx;
}

static void fill(unsigned char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 131u + seed * 7u + (i >> 8));
}

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* the fixture's GPUs as the test reads them itself */
struct expect {
	char name[256], bus[32];
	unsigned domain, bus_no, dev_no;
	unsigned char uuid[16];
	unsigned long long total;
};

static int expected(const char *xml, struct expect *out, int max)
{
	char err[256];
	struct xml_doc *doc = xml_load(fixture(xml), err, sizeof(err));
	if (!doc) {
		fprintf(stderr, "%s: %s\n", xml, err);
		exit(2);
	}
	int n = 0;
	for (const struct xml_node *g = xml_child(xml_root(doc), "gpu"); g && n < max; g = xml_next_same(g), n++) {
		struct expect *e = &out[n];
		memset(e, 0, sizeof(*e));
		const char *name = xml_path_text(g, "product_name");
		snprintf(e->name, sizeof(e->name), "%s", name ? name : "");
		const char *bus = xml_path_text(g, "pci/pci_bus_id");
		if (!bus)
			bus = xml_attr(g, "id");
		unsigned fn = 0;
		CHECK(bus && sscanf(bus, "%x:%x:%x.%x", &e->domain, &e->bus_no, &e->dev_no, &fn) == 4);
		snprintf(e->bus, sizeof(e->bus), "%04X:%02X:%02X.%X", e->domain, e->bus_no, e->dev_no, fn);
		const char *u = xml_path_text(g, "uuid");
		if (u && strncmp(u, "GPU-", 4) == 0) {
			unsigned k = 0;
			for (const char *s = u + 4; *s && k < 32; s++)
				if (*s != '-') {
					unsigned v;
					char c[2] = { *s, 0 };
					if (sscanf(c, "%x", &v) != 1)
						break;
					e->uuid[k / 2] = (unsigned char)(k % 2 ? e->uuid[k / 2] | v : v << 4);
					k++;
				}
		}
		const char *t = xml_path_text(g, "fb_memory_usage/total");
		unsigned long long mib = 0;
		if (t && sscanf(t, "%llu MiB", &mib) == 1)
			e->total = MIB(mib);
	}
	xml_free(doc);
	return n;
}

/* ---- suites ------------------------------------------------------------------------------- */
static void suite_init(void)
{
	unsetenv("AXL_CUDA_DOUBLE_XML");
	load_current();
	int n = -1;
	RC(p_cuDeviceGetCount(&n), CUDA_ERROR_NOT_INITIALIZED);
	RC(p_cuInit(1), CUDA_ERROR_INVALID_VALUE);
	RC(p_cuInit(0), CUDA_ERROR_NO_DEVICE);
	RC(p_cuDeviceGetCount(&n), CUDA_ERROR_NOT_INITIALIZED);
	int v = 0;
	RC(p_cuDriverGetVersion(&v), CUDA_SUCCESS);
	EQ(v, 12080);
	RC(p_cuDriverGetVersion(NULL), CUDA_ERROR_INVALID_VALUE);

	const char *s = NULL;
	RC(p_cuGetErrorName(CUDA_ERROR_NO_DEVICE, &s), CUDA_SUCCESS);
	STREQ(s, "CUDA_ERROR_NO_DEVICE");
	RC(p_cuGetErrorName(CUDA_ERROR_DEVICE_UNAVAILABLE, &s), CUDA_SUCCESS);
	STREQ(s, "CUDA_ERROR_DEVICE_UNAVAILABLE");
	RC(p_cuGetErrorString(CUDA_ERROR_OUT_OF_MEMORY, &s), CUDA_SUCCESS);
	STREQ(s, "out of memory");
	RC(p_cuGetErrorName((CUresult)12345, &s), CUDA_ERROR_INVALID_VALUE);
	CHECK(s == NULL);
	RC(p_cuGetErrorString((CUresult)12345, &s), CUDA_ERROR_INVALID_VALUE);
	CHECK(s == NULL);
	RC(p_cuGetErrorName(CUDA_SUCCESS, NULL), CUDA_ERROR_INVALID_VALUE);

	/* a missing file, a bad variable: CUDA_ERROR_UNKNOWN, not cached */
	setenv("AXL_CUDA_DOUBLE_XML", "/nonexistent/cuda-double.xml", 1);
	RC(p_cuInit(0), CUDA_ERROR_UNKNOWN);
	use_xml(DUAL);
	setenv("AXL_CUDA_DOUBLE_OOM_AT", "12x", 1);
	RC(p_cuInit(0), CUDA_ERROR_UNKNOWN);
	unsetenv("AXL_CUDA_DOUBLE_OOM_AT");
	RC(p_cuInit(0), CUDA_SUCCESS);
	RC(p_cuInit(0), CUDA_SUCCESS);
	RC(p_cuDeviceGetCount(&n), CUDA_SUCCESS);
	EQ(n, 2);
	RC(p_cuDriverGetVersion(&v), CUDA_SUCCESS);
	EQ(v, 13010); /* <cuda_version>13.1 */
}

static void check_devices(const char *xml)
{
	struct expect e[64];
	int want = expected(xml, e, 64);
	int n = -1;
	RC(p_cuDeviceGetCount(&n), CUDA_SUCCESS);
	EQ(n, want);
	RC(p_cuDeviceGetCount(NULL), CUDA_ERROR_INVALID_VALUE);
	for (int i = 0; i < n && i < want; i++) {
		CUdevice d = -1;
		RC(p_cuDeviceGet(&d, i), CUDA_SUCCESS);
		EQ(d, i);
		char name[256], bus[32];
		RC(p_cuDeviceGetName(name, sizeof(name), d), CUDA_SUCCESS);
		STREQ(name, e[i].name);
		RC(p_cuDeviceGetPCIBusId(bus, sizeof(bus), d), CUDA_SUCCESS);
		STREQ(bus, e[i].bus);
		CUuuid u, u2;
		RC(p_cuDeviceGetUuid(&u, d), CUDA_SUCCESS);
		RC(p_cuDeviceGetUuid_v2(&u2, d), CUDA_SUCCESS);
		CHECK(memcmp(u.bytes, e[i].uuid, 16) == 0);
		CHECK(memcmp(u2.bytes, e[i].uuid, 16) == 0);
		size_t total = 0;
		RC(p_cuDeviceTotalMem_v2(&total, d), CUDA_SUCCESS);
		EQ(total, e[i].total);
		int a = -1;
		RC(p_cuDeviceGetAttribute(&a, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, d), CUDA_SUCCESS);
		EQ(a, e[i].bus_no);
		RC(p_cuDeviceGetAttribute(&a, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, d), CUDA_SUCCESS);
		EQ(a, e[i].dev_no);
		RC(p_cuDeviceGetAttribute(&a, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, d), CUDA_SUCCESS);
		EQ(a, e[i].domain);
		RC(p_cuDeviceGetAttribute(&a, CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, d), CUDA_SUCCESS);
		EQ(a, 1);
		RC(p_cuDeviceGetAttribute(&a, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, d), CUDA_SUCCESS);
		CHECK(a >= 1);
	}
	CUdevice d;
	RC(p_cuDeviceGet(&d, n), CUDA_ERROR_INVALID_DEVICE);
	RC(p_cuDeviceGet(&d, -1), CUDA_ERROR_INVALID_DEVICE);
	RC(p_cuDeviceGet(NULL, 0), CUDA_ERROR_INVALID_VALUE);
}

static void suite_enumerate(void)
{
	use_xml(H100);
	load_current();
	RC(p_cuInit(0), CUDA_SUCCESS);
	check_devices(H100);
	/* the fixture by hand: PCI addresses are what matches a CUDA device to a recorded one */
	char bus[32], small[8];
	RC(p_cuDeviceGetPCIBusId(bus, sizeof(bus), 1), CUDA_SUCCESS);
	STREQ(bus, "0000:3B:00.0");
	RC(p_cuDeviceGetPCIBusId(small, sizeof(small), 1), CUDA_SUCCESS);
	STREQ(small, "0000:3B"); /* truncated to the buffer, terminated */
	RC(p_cuDeviceGetPCIBusId(bus, 0, 1), CUDA_ERROR_INVALID_VALUE);
	RC(p_cuDeviceGetPCIBusId(bus, sizeof(bus), 8), CUDA_ERROR_INVALID_DEVICE);
	char name[64];
	RC(p_cuDeviceGetName(name, sizeof(name), 0), CUDA_SUCCESS);
	STREQ(name, "NVIDIA H100 80GB HBM3");
	size_t total = 0;
	RC(p_cuDeviceTotalMem_v2(&total, 7), CUDA_SUCCESS);
	EQ(total, MIB(81559));
	int a = 0;
	RC(p_cuDeviceGetAttribute(&a, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0), CUDA_SUCCESS);
	EQ(a, 132);
	RC(p_cuDeviceGetAttribute(&a, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 0), CUDA_SUCCESS);
	EQ(a, 9);
	RC(p_cuDeviceGetAttribute(&a, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, 0), CUDA_SUCCESS);
	EQ(a, 0x19);
	RC(p_cuDeviceGetAttribute(&a, (CUdevice_attribute)9999, 0), CUDA_ERROR_INVALID_VALUE);
	RC(p_cuDeviceGetAttribute(NULL, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, 0), CUDA_ERROR_INVALID_VALUE);
	CUuuid u;
	RC(p_cuDeviceGetUuid(&u, 0), CUDA_SUCCESS);
	EQ((unsigned char)u.bytes[0], 0xee); /* GPU-ee7954ec-... */
	EQ((unsigned char)u.bytes[15], 0xaa);
}

/* every capture, each in a child process (the double reads its document once) */
static void suite_all_fixtures(void)
{
	static const char *const xmls[] = {
		"hgx-8x-h100-q2x.xml",
		"telegraf-3090-v13.xml",
		"telegraf-a100-sxm4-v12.xml",
		"telegraf-a10g.xml",
		"telegraf-dual_2070-v13.xml",
		"telegraf-dual_2080-v13.xml",
		"telegraf-dual_a5000-v13.xml",
		"telegraf-gt-1030.xml",
		"telegraf-gtx-1660-ti.xml",
		"telegraf-pro-6000-maxq-blackwell-v13.xml",
		"telegraf-quadro-p2000-v12.xml",
		"telegraf-quadro-p400.xml",
		"telegraf-rtx-3060-v12.xml",
		"telegraf-rtx-3080-v12.xml",
		"telegraf-rtx-3080-v13.xml",
		"telegraf-rtx-3090-v12.xml",
		"telegraf-rtx-4000-sff-ada-v13.xml",
		"telegraf-tesla-t4.xml",
		"telegraf-tesla_p4-grid-vgpu.xml",
	};
	for (size_t i = 0; i < sizeof(xmls) / sizeof(xmls[0]); i++) {
		fflush(NULL);
		pid_t pid = fork();
		if (pid == 0) {
			suite_name = xmls[i];
			use_xml(xmls[i]);
			load_current();
			RC(p_cuInit(0), CUDA_SUCCESS);
			check_devices(xmls[i]);
			/* one allocation and a round trip on each device */
			int n = 0;
			p_cuDeviceGetCount(&n);
			for (int d = 0; d < n; d++) {
				CUcontext c;
				RC(p_cuDevicePrimaryCtxRetain(&c, d), CUDA_SUCCESS);
				RC(p_cuCtxSetCurrent(c), CUDA_SUCCESS);
				CUdeviceptr p = 0;
				unsigned char in[100], out[100];
				fill(in, sizeof(in), (unsigned)d);
				RC(p_cuMemAlloc_v2(&p, sizeof(in)), CUDA_SUCCESS);
				RC(p_cuMemcpyHtoDAsync_v2(p, in, sizeof(in), NULL), CUDA_SUCCESS);
				RC(p_cuMemcpyDtoHAsync_v2(out, p, sizeof(out), NULL), CUDA_SUCCESS);
				CHECK(memcmp(in, out, sizeof(in)) == 0);
				RC(p_cuMemFree_v2(p), CUDA_SUCCESS);
				RC(p_cuDevicePrimaryCtxRelease_v2(d), CUDA_SUCCESS);
			}
			fflush(NULL);
			_exit(failures ? 1 : 0);
		}
		int st = 0;
		CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			fprintf(stderr, "[all_fixtures] %s failed\n", xmls[i]);
			failures++;
		}
	}
}

static void suite_alloc(void)
{
	unsetenv("AXL_CUDA_DOUBLE_XML");
	load_current();
	CUdeviceptr p = 0;
	RC(p_cuMemAlloc_v2(&p, 16), CUDA_ERROR_NOT_INITIALIZED);
	use_xml(DUAL);
	RC(p_cuInit(0), CUDA_SUCCESS);
	RC(p_cuMemAlloc_v2(&p, 16), CUDA_ERROR_INVALID_CONTEXT); /* no current context */
	CUcontext c;
	RC(p_cuDevicePrimaryCtxRetain(&c, 0), CUDA_SUCCESS);
	RC(p_cuCtxSetCurrent(c), CUDA_SUCCESS);

	RC(p_cuMemAlloc_v2(&p, 0), CUDA_ERROR_INVALID_VALUE);
	RC(p_cuMemAlloc_v2(NULL, 16), CUDA_ERROR_INVALID_VALUE);
	CUdeviceptr a = 0, b = 0;
	RC(p_cuMemAlloc_v2(&a, 1000), CUDA_SUCCESS);
	RC(p_cuMemAlloc_v2(&b, 1), CUDA_SUCCESS);
	CHECK(a != 0 && b != 0 && a != b);
	CHECK(a % 256 == 0 && b % 256 == 0);
	CHECK(a >> 48 != 0); /* never a host address */

	unsigned char buf[64] = { 0 };
	/* inside, at the end, one past the end, before the start */
	RC(p_cuMemcpyHtoDAsync_v2(a + 999, buf, 1, NULL), CUDA_SUCCESS);
	RC(p_cuMemcpyHtoDAsync_v2(a + 999, buf, 2, NULL), CUDA_ERROR_INVALID_VALUE);
	RC(p_cuMemcpyHtoDAsync_v2(a + 1000, buf, 1, NULL), CUDA_ERROR_INVALID_VALUE);
	RC(p_cuMemcpyHtoDAsync_v2(a - 1, buf, 1, NULL), CUDA_ERROR_INVALID_VALUE);
	RC(p_cuMemcpyHtoDAsync_v2(a, buf, SIZE_MAX, NULL), CUDA_ERROR_INVALID_VALUE);
	RC(p_cuMemcpyHtoDAsync_v2(a + 10, buf, SIZE_MAX - 5, NULL), CUDA_ERROR_INVALID_VALUE);
	RC(p_cuMemcpyHtoDAsync_v2(0x1234, buf, 1, NULL), CUDA_ERROR_INVALID_VALUE);
	RC(p_cuMemcpyDtoHAsync_v2(buf, b, 2, NULL), CUDA_ERROR_INVALID_VALUE);
	/* a device pointer passed as a host pointer */
	RC(p_cuMemcpyHtoDAsync_v2(a, (const void *)(uintptr_t)b, 1, NULL), CUDA_ERROR_INVALID_VALUE);
	RC(p_cuMemcpyDtoHAsync_v2(NULL, a, 1, NULL), CUDA_ERROR_INVALID_VALUE);

	RC(p_cuMemFree_v2(a + 1), CUDA_ERROR_INVALID_VALUE); /* not the start of an allocation */
	RC(p_cuMemFree_v2(a), CUDA_SUCCESS);
	RC(p_cuMemFree_v2(a), CUDA_ERROR_INVALID_VALUE);                       /* twice */
	RC(p_cuMemcpyHtoDAsync_v2(a, buf, 1, NULL), CUDA_ERROR_INVALID_VALUE); /* freed */
	RC(p_cuMemcpyDtoHAsync_v2(buf, a, 1, NULL), CUDA_ERROR_INVALID_VALUE);
	RC(p_cuMemsetD8Async(a, 0, 1, NULL), CUDA_ERROR_INVALID_VALUE);
	CUdeviceptr c2 = 0;
	RC(p_cuMemAlloc_v2(&c2, 1000), CUDA_SUCCESS);
	CHECK(c2 != a); /* a freed address is not handed out again */
	RC(p_cuMemFree_v2(0xdeadbeef000ull), CUDA_ERROR_INVALID_VALUE);
	RC(p_cuMemFree_v2(b), CUDA_SUCCESS);
	RC(p_cuMemFree_v2(c2), CUDA_SUCCESS);

	/* more than the device has */
	RC(p_cuMemAlloc_v2(&p, (size_t)MIB(8192) + 1), CUDA_ERROR_OUT_OF_MEMORY);
	RC(p_cuMemAlloc_v2(&p, SIZE_MAX), CUDA_ERROR_OUT_OF_MEMORY);

	/* pinned host memory */
	void *h = NULL;
	RC(p_cuMemHostAlloc(&h, 4096, 0), CUDA_SUCCESS);
	CHECK(h != NULL);
	memset(h, 0x5a, 4096);
	RC(p_cuMemHostAlloc(&h, 0, 0), CUDA_ERROR_INVALID_VALUE);
	void *h2 = NULL;
	RC(p_cuMemHostAlloc(&h2, 100, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP), CUDA_SUCCESS);
	RC(p_cuMemHostAlloc(&h2, 100, 0x80), CUDA_ERROR_INVALID_VALUE);
	RC(p_cuMemFreeHost(h), CUDA_SUCCESS);
	RC(p_cuMemFreeHost(h), CUDA_ERROR_INVALID_VALUE);
	RC(p_cuMemFreeHost(buf), CUDA_ERROR_INVALID_VALUE);
	RC(p_cuMemFreeHost(NULL), CUDA_ERROR_INVALID_VALUE);
	RC(p_cuMemFreeHost(h2), CUDA_SUCCESS);
	RC(p_cuDevicePrimaryCtxRelease(0), CUDA_SUCCESS);
}

static void suite_copy(void)
{
	setup(DUAL);
	enum { N = 1 << 20 };
	unsigned char *in = malloc(N), *out = malloc(N), *ref = malloc(N);
	CHECK(in && out && ref);
	fill(in, N, 1);
	CUdeviceptr a = 0, b = 0;
	RC(p_cuMemAlloc_v2(&a, N), CUDA_SUCCESS);
	RC(p_cuMemAlloc_v2(&b, N), CUDA_SUCCESS);
	CUstream s;
	RC(p_cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);

	/* whole buffers, every stream kind */
	CUstream streams[] = { NULL, CU_STREAM_LEGACY, CU_STREAM_PER_THREAD, s };
	for (size_t k = 0; k < 4; k++) {
		memset(out, 0, N);
		fill(in, N, (unsigned)k + 3);
		RC(p_cuMemcpyHtoDAsync_v2(a, in, N, streams[k]), CUDA_SUCCESS);
		RC(p_cuMemcpyDtoDAsync_v2(b, a, N, streams[k]), CUDA_SUCCESS);
		RC(p_cuMemcpyDtoHAsync_v2(out, b, N, streams[k]), CUDA_SUCCESS);
		RC(p_cuStreamSynchronize(streams[k]), CUDA_SUCCESS);
		CHECK(memcmp(in, out, N) == 0);
	}

	/* odd offsets and sizes: every byte outside the range stays */
	static const size_t offs[] = { 0, 1, 3, 7, 4093, 65537 };
	static const size_t lens[] = { 1, 2, 5, 255, 4097, 100003 };
	unsigned seed = 10;
	for (size_t i = 0; i < 6; i++)
		for (size_t j = 0; j < 6; j++) {
			size_t off = offs[i], len = lens[j], off2 = offs[5 - i];
			/* known contents on both device buffers */
			fill(ref, N, seed++);
			RC(p_cuMemcpyHtoDAsync_v2(a, ref, N, s), CUDA_SUCCESS);
			RC(p_cuMemcpyHtoDAsync_v2(b, ref, N, s), CUDA_SUCCESS);
			fill(in, N, seed++);
			RC(p_cuMemcpyHtoDAsync_v2(a + off, in + off2, len, s), CUDA_SUCCESS);
			memcpy(ref + off, in + off2, len);
			RC(p_cuMemcpyDtoHAsync_v2(out, a, N, s), CUDA_SUCCESS);
			CHECK(memcmp(out, ref, N) == 0);
			/* device to device, a to b at another odd offset */
			unsigned char *ref_b = malloc(N);
			CHECK(ref_b != NULL);
			RC(p_cuMemcpyDtoHAsync_v2(ref_b, b, N, s), CUDA_SUCCESS);
			RC(p_cuMemcpyDtoDAsync_v2(b + off2, a + off, len, s), CUDA_SUCCESS);
			memcpy(ref_b + off2, ref + off, len);
			RC(p_cuMemcpyDtoHAsync_v2(out, b, N, s), CUDA_SUCCESS);
			CHECK(memcmp(out, ref_b, N) == 0);
			/* device to host into an odd host offset, bytes around it untouched */
			memset(out, 0xee, N);
			RC(p_cuMemcpyDtoHAsync_v2(out + off2, b + off, len, s), CUDA_SUCCESS);
			CHECK(memcmp(out + off2, ref_b + off, len) == 0);
			if (off2)
				CHECK(out[off2 - 1] == 0xee);
			if (off2 + len < N)
				CHECK(out[off2 + len] == 0xee);
			free(ref_b);
		}

	/* overlapping ranges of one buffer behave as memmove */
	fill(ref, N, 99);
	RC(p_cuMemcpyHtoDAsync_v2(a, ref, N, s), CUDA_SUCCESS);
	RC(p_cuMemcpyDtoDAsync_v2(a + 1, a, 1000, s), CUDA_SUCCESS);
	memmove(ref + 1, ref, 1000);
	RC(p_cuMemcpyDtoDAsync_v2(a + 5000, a + 5003, 777, s), CUDA_SUCCESS);
	memmove(ref + 5000, ref + 5003, 777);
	RC(p_cuMemcpyDtoHAsync_v2(out, a, N, s), CUDA_SUCCESS);
	CHECK(memcmp(out, ref, N) == 0);

	/* a failed copy touches nothing */
	RC(p_cuMemcpyDtoHAsync_v2(out, a + N - 10, 11, s), CUDA_ERROR_INVALID_VALUE);
	RC(p_cuMemcpyDtoDAsync_v2(b, a + 1, N, s), CUDA_ERROR_INVALID_VALUE);
	RC(p_cuMemcpyDtoHAsync_v2(out, b, N, s), CUDA_SUCCESS);
	RC(p_cuMemcpyDtoHAsync_v2(ref, b, N, s), CUDA_SUCCESS);
	CHECK(memcmp(out, ref, N) == 0);
	/* zero bytes: nothing to do, even at an address nobody owns */
	RC(p_cuMemcpyHtoDAsync_v2(0x42, in, 0, s), CUDA_SUCCESS);
	/* a bogus stream */
	RC(p_cuMemcpyHtoDAsync_v2(a, in, 1, (CUstream)(uintptr_t)0x1234), CUDA_ERROR_INVALID_HANDLE);

	/* copies between the two devices through unified addressing */
	CUcontext c1;
	RC(p_cuDevicePrimaryCtxRetain(&c1, 1), CUDA_SUCCESS);
	RC(p_cuCtxSetCurrent(c1), CUDA_SUCCESS);
	CUdeviceptr d1 = 0;
	RC(p_cuMemAlloc_v2(&d1, N), CUDA_SUCCESS);
	CHECK(d1 >> 48 != a >> 48);
	fill(in, N, 77);
	RC(p_cuMemcpyHtoDAsync_v2(a, in, N, NULL), CUDA_SUCCESS);
	RC(p_cuMemcpyDtoDAsync_v2(d1, a, N, NULL), CUDA_SUCCESS);
	memset(out, 0, N);
	RC(p_cuMemcpyDtoHAsync_v2(out, d1, N, NULL), CUDA_SUCCESS);
	CHECK(memcmp(in, out, N) == 0);
	RC(p_cuMemFree_v2(d1), CUDA_SUCCESS);

	RC(p_cuStreamDestroy_v2(s), CUDA_SUCCESS);
	RC(p_cuMemFree_v2(a), CUDA_SUCCESS);
	RC(p_cuMemFree_v2(b), CUDA_SUCCESS);
	free(in);
	free(out);
	free(ref);
}

static void suite_peer(void)
{
	/* P2P switched off, in a child: peer copies still work (staged, as CUDA does) */
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		suite_name = "peer/no-p2p";
		setenv("AXL_CUDA_DOUBLE_P2P", "0", 1);
		CUcontext c0 = setup(H100), c1;
		RC(p_cuDevicePrimaryCtxRetain(&c1, 1), CUDA_SUCCESS);
		int can = -1;
		RC(p_cuDeviceCanAccessPeer(&can, 0, 1), CUDA_SUCCESS);
		EQ(can, 0);
		RC(p_cuCtxEnablePeerAccess(c1, 0), CUDA_ERROR_PEER_ACCESS_UNSUPPORTED);
		CUdeviceptr a, b;
		RC(p_cuMemAlloc_v2(&a, 4096), CUDA_SUCCESS);
		RC(p_cuCtxSetCurrent(c1), CUDA_SUCCESS);
		RC(p_cuMemAlloc_v2(&b, 4096), CUDA_SUCCESS);
		unsigned char in[4096], out[4096];
		fill(in, sizeof(in), 5);
		RC(p_cuMemcpyHtoDAsync_v2(a, in, sizeof(in), NULL), CUDA_SUCCESS);
		RC(p_cuMemcpyPeerAsync(b, c1, a, c0, sizeof(in), NULL), CUDA_SUCCESS);
		RC(p_cuMemcpyDtoHAsync_v2(out, b, sizeof(out), NULL), CUDA_SUCCESS);
		CHECK(memcmp(in, out, sizeof(in)) == 0);
		fflush(NULL);
		_exit(failures ? 1 : 0);
	}
	int st = 0;
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);

	CUcontext c0 = setup(H100), c1, c5;
	RC(p_cuDevicePrimaryCtxRetain(&c1, 1), CUDA_SUCCESS);
	RC(p_cuDevicePrimaryCtxRetain(&c5, 5), CUDA_SUCCESS);
	CHECK(c0 != c1 && c1 != c5);
	int can = -1;
	RC(p_cuDeviceCanAccessPeer(&can, 0, 1), CUDA_SUCCESS);
	EQ(can, 1);
	RC(p_cuDeviceCanAccessPeer(&can, 0, 0), CUDA_SUCCESS);
	EQ(can, 0);
	RC(p_cuDeviceCanAccessPeer(&can, 0, 8), CUDA_ERROR_INVALID_DEVICE);
	RC(p_cuDeviceCanAccessPeer(NULL, 0, 1), CUDA_ERROR_INVALID_VALUE);
	RC(p_cuCtxEnablePeerAccess(c1, 0), CUDA_SUCCESS);
	RC(p_cuCtxEnablePeerAccess(c1, 0), CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED);
	RC(p_cuCtxEnablePeerAccess(c5, 1), CUDA_ERROR_INVALID_VALUE);
	RC(p_cuCtxEnablePeerAccess(c0, 0), CUDA_ERROR_PEER_ACCESS_UNSUPPORTED); /* itself */
	RC(p_cuCtxEnablePeerAccess((CUcontext)(uintptr_t)0x77, 0), CUDA_ERROR_INVALID_CONTEXT);

	enum { N = 300007 };
	unsigned char *in = malloc(N), *out = malloc(N), *ref = malloc(N);
	CHECK(in && out && ref);
	CUdeviceptr a = 0, b = 0, f = 0;
	RC(p_cuMemAlloc_v2(&a, N), CUDA_SUCCESS);
	RC(p_cuCtxSetCurrent(c1), CUDA_SUCCESS);
	RC(p_cuMemAlloc_v2(&b, N), CUDA_SUCCESS);
	RC(p_cuCtxSetCurrent(c5), CUDA_SUCCESS);
	RC(p_cuMemAlloc_v2(&f, N), CUDA_SUCCESS);
	RC(p_cuCtxSetCurrent(c0), CUDA_SUCCESS);
	CUstream s;
	RC(p_cuStreamCreate(&s, 0), CUDA_SUCCESS);

	fill(in, N, 42);
	fill(ref, N, 43);
	RC(p_cuMemcpyHtoDAsync_v2(a, in, N, s), CUDA_SUCCESS);
	RC(p_cuMemcpyHtoDAsync_v2(b, ref, N, s), CUDA_SUCCESS);
	/* 0 -> 1 whole, then odd ranges 1 -> 5 (peer access not enabled there: still works) */
	RC(p_cuMemcpyPeerAsync(b, c1, a, c0, N, s), CUDA_SUCCESS);
	RC(p_cuStreamSynchronize(s), CUDA_SUCCESS);
	RC(p_cuMemcpyDtoHAsync_v2(out, b, N, s), CUDA_SUCCESS);
	CHECK(memcmp(in, out, N) == 0);
	RC(p_cuMemcpyHtoDAsync_v2(f, ref, N, s), CUDA_SUCCESS);
	RC(p_cuMemcpyPeerAsync(f + 3, c5, b + 1001, c1, 65539, s), CUDA_SUCCESS);
	memcpy(ref + 3, in + 1001, 65539);
	RC(p_cuMemcpyDtoHAsync_v2(out, f, N, s), CUDA_SUCCESS);
	CHECK(memcmp(ref, out, N) == 0);

	/* a pointer of another context, ranges, contexts */
	RC(p_cuMemcpyPeerAsync(b, c0, a, c0, 16, s), CUDA_ERROR_INVALID_VALUE);
	RC(p_cuMemcpyPeerAsync(b, c1, a, c1, 16, s), CUDA_ERROR_INVALID_VALUE);
	RC(p_cuMemcpyPeerAsync(b + 1, c1, a, c0, N, s), CUDA_ERROR_INVALID_VALUE);
	RC(p_cuMemcpyPeerAsync(b, (CUcontext)(uintptr_t)0x99, a, c0, 16, s), CUDA_ERROR_INVALID_CONTEXT);
	RC(p_cuMemcpyPeerAsync(b, c1, a, c0, 0, s), CUDA_SUCCESS);

	RC(p_cuStreamDestroy_v2(s), CUDA_SUCCESS);
	RC(p_cuMemFree_v2(a), CUDA_SUCCESS);
	RC(p_cuMemFree_v2(b), CUDA_SUCCESS);
	RC(p_cuMemFree_v2(f), CUDA_SUCCESS);
	free(in);
	free(out);
	free(ref);
}

static void suite_memset(void)
{
	setup(DUAL);
	enum { N = 100000 };
	unsigned char *ref = malloc(N), *out = malloc(N);
	CHECK(ref && out);
	CUdeviceptr a;
	RC(p_cuMemAlloc_v2(&a, N), CUDA_SUCCESS);
	fill(ref, N, 3);
	RC(p_cuMemcpyHtoDAsync_v2(a, ref, N, NULL), CUDA_SUCCESS);
	RC(p_cuMemsetD8Async(a + 17, 0xab, 4099, NULL), CUDA_SUCCESS);
	memset(ref + 17, 0xab, 4099);
	RC(p_cuMemsetD8Async(a + N - 1, 0x01, 1, NULL), CUDA_SUCCESS);
	ref[N - 1] = 0x01;
	RC(p_cuMemsetD8Async(a, 0xcd, 0, NULL), CUDA_SUCCESS);
	RC(p_cuMemsetD8Async(a + N - 1, 0xff, 2, NULL), CUDA_ERROR_INVALID_VALUE);
	RC(p_cuMemsetD8Async(a + N, 0xff, 1, NULL), CUDA_ERROR_INVALID_VALUE);
	RC(p_cuCtxSynchronize(), CUDA_SUCCESS);
	RC(p_cuMemcpyDtoHAsync_v2(out, a, N, NULL), CUDA_SUCCESS);
	CHECK(memcmp(ref, out, N) == 0);
	RC(p_cuMemsetD8Async(a, 0, N, NULL), CUDA_SUCCESS);
	RC(p_cuMemcpyDtoHAsync_v2(out, a, N, NULL), CUDA_SUCCESS);
	memset(ref, 0, N);
	CHECK(memcmp(ref, out, N) == 0);
	RC(p_cuMemFree_v2(a), CUDA_SUCCESS);
	free(ref);
	free(out);
}

static void suite_streams(void)
{
	setup(DUAL);
	CUstream s, s2;
	RC(p_cuStreamCreate(&s, 0), CUDA_SUCCESS);
	RC(p_cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
	RC(p_cuStreamCreate(&s2, 0x10), CUDA_ERROR_INVALID_VALUE);
	RC(p_cuStreamCreate(NULL, 0), CUDA_ERROR_INVALID_VALUE);
	CHECK(s != s2 && s != NULL);
	CUevent e0, e1, nt, never;
	RC(p_cuEventCreate(&e0, CU_EVENT_DEFAULT), CUDA_SUCCESS);
	RC(p_cuEventCreate(&e1, CU_EVENT_BLOCKING_SYNC), CUDA_SUCCESS);
	RC(p_cuEventCreate(&nt, CU_EVENT_DISABLE_TIMING), CUDA_SUCCESS);
	RC(p_cuEventCreate(&never, 0), CUDA_SUCCESS);
	RC(p_cuEventCreate(&never, CU_EVENT_INTERPROCESS), CUDA_ERROR_INVALID_VALUE);
	RC(p_cuEventCreate(&never, 0x40), CUDA_ERROR_INVALID_VALUE);

	enum { N = 4 << 20 };
	unsigned char *buf = malloc(N);
	CHECK(buf != NULL);
	memset(buf, 1, N);
	CUdeviceptr a;
	RC(p_cuMemAlloc_v2(&a, N), CUDA_SUCCESS);
	RC(p_cuEventRecord(e0, s), CUDA_SUCCESS);
	for (int i = 0; i < 8; i++)
		RC(p_cuMemcpyHtoDAsync_v2(a, buf, N, s), CUDA_SUCCESS);
	RC(p_cuEventRecord(e1, s), CUDA_SUCCESS);
	RC(p_cuEventRecord(nt, s), CUDA_SUCCESS);
	RC(p_cuEventSynchronize(e1), CUDA_SUCCESS);
	RC(p_cuEventSynchronize(never), CUDA_SUCCESS); /* never recorded: nothing to wait for */
	float ms = -1;
	RC(p_cuEventElapsedTime(&ms, e0, e1), CUDA_SUCCESS);
	CHECK(ms >= 0.0f && ms < 60000.0f);
	float back = 1;
	RC(p_cuEventElapsedTime(&back, e1, e0), CUDA_SUCCESS);
	CHECK(back <= 0.0f);
	RC(p_cuEventElapsedTime(&ms, e0, nt), CUDA_ERROR_INVALID_HANDLE);
	RC(p_cuEventElapsedTime(&ms, e0, never), CUDA_ERROR_INVALID_HANDLE);
	RC(p_cuEventElapsedTime(NULL, e0, e1), CUDA_ERROR_INVALID_VALUE);
	/* a sleep between two records on the default stream shows */
	RC(p_cuEventRecord(e0, NULL), CUDA_SUCCESS);
	struct timespec t = { 0, 20 * 1000 * 1000 };
	nanosleep(&t, NULL);
	RC(p_cuEventRecord(e1, CU_STREAM_PER_THREAD), CUDA_SUCCESS);
	RC(p_cuEventElapsedTime(&ms, e0, e1), CUDA_SUCCESS);
	CHECK(ms >= 19.0f && ms < 10000.0f);

	/* an event of device 0 recorded on a stream of device 1 */
	CUcontext c1;
	RC(p_cuDevicePrimaryCtxRetain(&c1, 1), CUDA_SUCCESS);
	RC(p_cuCtxSetCurrent(c1), CUDA_SUCCESS);
	CUstream s1;
	RC(p_cuStreamCreate(&s1, 0), CUDA_SUCCESS);
	RC(p_cuEventRecord(e0, s1), CUDA_ERROR_INVALID_HANDLE);
	RC(p_cuStreamDestroy_v2(s1), CUDA_SUCCESS);

	RC(p_cuStreamSynchronize(s), CUDA_SUCCESS);
	RC(p_cuStreamDestroy_v2(s), CUDA_SUCCESS);
	RC(p_cuStreamDestroy_v2(s), CUDA_ERROR_INVALID_HANDLE);
	RC(p_cuStreamSynchronize(s), CUDA_ERROR_INVALID_HANDLE);
	RC(p_cuMemcpyHtoDAsync_v2(a, buf, 1, s), CUDA_ERROR_INVALID_HANDLE);
	RC(p_cuEventRecord(e0, s), CUDA_ERROR_INVALID_HANDLE);
	RC(p_cuStreamDestroy_v2(NULL), CUDA_ERROR_INVALID_HANDLE);
	RC(p_cuStreamDestroy_v2(s2), CUDA_SUCCESS);
	RC(p_cuEventDestroy_v2(e0), CUDA_SUCCESS);
	RC(p_cuEventDestroy_v2(e0), CUDA_ERROR_INVALID_HANDLE);
	RC(p_cuEventSynchronize(e0), CUDA_ERROR_INVALID_HANDLE);
	RC(p_cuEventElapsedTime(&ms, e0, e1), CUDA_ERROR_INVALID_HANDLE);
	RC(p_cuEventDestroy_v2(e1), CUDA_SUCCESS);
	RC(p_cuEventDestroy_v2(nt), CUDA_SUCCESS);
	RC(p_cuEventDestroy_v2(never), CUDA_SUCCESS);
	RC(p_cuMemFree_v2(a), CUDA_SUCCESS);
	free(buf);
}

static void suite_meminfo(void)
{
	setup(H100);
	size_t fr = 0, total = 0;
	RC(p_cuMemGetInfo_v2(&fr, &total), CUDA_SUCCESS);
	EQ(total, MIB(81559));
	EQ(fr, total);
	RC(p_cuMemGetInfo_v2(NULL, &total), CUDA_ERROR_INVALID_VALUE);
	CUdeviceptr a, b;
	RC(p_cuMemAlloc_v2(&a, MIB(1000)), CUDA_SUCCESS);
	size_t f1 = 0;
	RC(p_cuMemGetInfo_v2(&f1, &total), CUDA_SUCCESS);
	EQ(f1, fr - MIB(1000));
	RC(p_cuMemAlloc_v2(&b, 1), CUDA_SUCCESS);
	size_t f2 = 0;
	RC(p_cuMemGetInfo_v2(&f2, &total), CUDA_SUCCESS);
	CHECK(f2 < f1 && f1 - f2 <= 4096);
	/* the legacy 32-bit call clamps */
	unsigned int lf = 0, lt = 0;
	RC(p_cuMemGetInfo(&lf, &lt), CUDA_SUCCESS);
	EQ(lf, UINT_MAX);
	EQ(lt, UINT_MAX);
	/* more than is free, though less than the total */
	CUdeviceptr big;
	RC(p_cuMemAlloc_v2(&big, (size_t)MIB(81559) - MIB(500)), CUDA_ERROR_OUT_OF_MEMORY);
	RC(p_cuMemFree_v2(a), CUDA_SUCCESS);
	RC(p_cuMemGetInfo_v2(&f1, &total), CUDA_SUCCESS);
	EQ(f1, f2 + MIB(1000));
	/* another device's context sees its own memory */
	CUcontext c3;
	RC(p_cuDevicePrimaryCtxRetain(&c3, 3), CUDA_SUCCESS);
	RC(p_cuCtxSetCurrent(c3), CUDA_SUCCESS);
	RC(p_cuMemGetInfo_v2(&f1, &total), CUDA_SUCCESS);
	EQ(f1, total);
	/* the last release of a primary context frees its memory */
	CUcontext c0;
	RC(p_cuDevicePrimaryCtxRelease_v2(0), CUDA_SUCCESS);
	RC(p_cuMemFree_v2(b), CUDA_ERROR_INVALID_VALUE);
	RC(p_cuDevicePrimaryCtxRetain(&c0, 0), CUDA_SUCCESS);
	RC(p_cuCtxSetCurrent(c0), CUDA_SUCCESS);
	RC(p_cuMemGetInfo_v2(&f1, &total), CUDA_SUCCESS);
	EQ(f1, total);
}

struct worker {
	int dev;
	int fails;
};

static void *thread_main(void *arg)
{
	struct worker *w = arg;
	CUcontext c;
	if (p_cuDevicePrimaryCtxRetain(&c, w->dev) != CUDA_SUCCESS || p_cuCtxSetCurrent(c) != CUDA_SUCCESS) {
		w->fails++;
		return NULL;
	}
	unsigned char in[3001], out[3001];
	for (int it = 0; it < 300; it++) {
		fill(in, sizeof(in), (unsigned)(it + w->dev * 1000));
		CUdeviceptr p;
		CUstream s;
		if (p_cuStreamCreate(&s, 0) != CUDA_SUCCESS || p_cuMemAlloc_v2(&p, sizeof(in)) != CUDA_SUCCESS) {
			w->fails++;
			break;
		}
		memset(out, 0, sizeof(out));
		if (p_cuMemcpyHtoDAsync_v2(p, in, sizeof(in), s) != CUDA_SUCCESS ||
		    p_cuMemcpyDtoHAsync_v2(out, p, sizeof(out), s) != CUDA_SUCCESS ||
		    p_cuStreamSynchronize(s) != CUDA_SUCCESS || memcmp(in, out, sizeof(in)) != 0)
			w->fails++;
		if (p_cuMemFree_v2(p) != CUDA_SUCCESS || p_cuStreamDestroy_v2(s) != CUDA_SUCCESS)
			w->fails++;
	}
	CUcontext cur = NULL;
	if (p_cuCtxGetCurrent(&cur) != CUDA_SUCCESS || cur != c)
		w->fails++;
	if (p_cuDevicePrimaryCtxRelease_v2(w->dev) != CUDA_SUCCESS)
		w->fails++;
	return NULL;
}

static void suite_threads(void)
{
	CUcontext c0 = setup(H100);
	enum { T = 8 };
	pthread_t th[T];
	struct worker w[T];
	for (int i = 0; i < T; i++) {
		w[i].dev = i % 4;
		w[i].fails = 0;
		CHECK(pthread_create(&th[i], NULL, thread_main, &w[i]) == 0);
	}
	for (int i = 0; i < T; i++) {
		pthread_join(th[i], NULL);
		EQ(w[i].fails, 0);
	}
	/* the current context is per thread: this one's is unchanged */
	CUcontext cur = NULL;
	RC(p_cuCtxGetCurrent(&cur), CUDA_SUCCESS);
	CHECK(cur == c0);
	size_t fr, total;
	RC(p_cuMemGetInfo_v2(&fr, &total), CUDA_SUCCESS);
	EQ(fr, total);
}

static void suite_context(void)
{
	use_xml(DUAL);
	load_current();
	CUcontext c = (CUcontext)(uintptr_t)1;
	RC(p_cuCtxGetCurrent(&c), CUDA_ERROR_NOT_INITIALIZED);
	RC(p_cuInit(0), CUDA_SUCCESS);
	RC(p_cuCtxGetCurrent(&c), CUDA_SUCCESS);
	CHECK(c == NULL);
	RC(p_cuCtxGetCurrent(NULL), CUDA_ERROR_INVALID_VALUE);
	RC(p_cuCtxSynchronize(), CUDA_ERROR_INVALID_CONTEXT);
	RC(p_cuDevicePrimaryCtxRelease(0), CUDA_ERROR_INVALID_CONTEXT); /* never retained */
	RC(p_cuDevicePrimaryCtxRetain(&c, 2), CUDA_ERROR_INVALID_DEVICE);
	RC(p_cuDevicePrimaryCtxRetain(NULL, 0), CUDA_ERROR_INVALID_VALUE);
	CUcontext a, b;
	RC(p_cuDevicePrimaryCtxRetain(&a, 0), CUDA_SUCCESS);
	RC(p_cuDevicePrimaryCtxRetain(&b, 0), CUDA_SUCCESS);
	CHECK(a == b && a != NULL); /* one primary context per device */
	RC(p_cuCtxSetCurrent((CUcontext)(uintptr_t)0x5555), CUDA_ERROR_INVALID_CONTEXT);
	RC(p_cuCtxSetCurrent(a), CUDA_SUCCESS);
	RC(p_cuCtxGetCurrent(&c), CUDA_SUCCESS);
	CHECK(c == a);
	RC(p_cuCtxSynchronize(), CUDA_SUCCESS);
	CUstream s;
	CUevent e;
	RC(p_cuStreamCreate(&s, 0), CUDA_SUCCESS);
	RC(p_cuEventCreate(&e, 0), CUDA_SUCCESS);
	RC(p_cuDevicePrimaryCtxRelease(0), CUDA_SUCCESS); /* one retain left */
	RC(p_cuCtxSynchronize(), CUDA_SUCCESS);
	RC(p_cuDevicePrimaryCtxRelease_v2(0), CUDA_SUCCESS); /* destroyed */
	RC(p_cuCtxSynchronize(), CUDA_ERROR_CONTEXT_IS_DESTROYED);
	CUdeviceptr p;
	RC(p_cuMemAlloc_v2(&p, 1), CUDA_ERROR_CONTEXT_IS_DESTROYED);
	RC(p_cuStreamSynchronize(s), CUDA_ERROR_INVALID_HANDLE); /* went with its context */
	RC(p_cuEventSynchronize(e), CUDA_ERROR_INVALID_HANDLE);
	RC(p_cuCtxSetCurrent(a), CUDA_ERROR_CONTEXT_IS_DESTROYED);
	RC(p_cuDevicePrimaryCtxRelease(0), CUDA_ERROR_INVALID_CONTEXT);
	RC(p_cuCtxSetCurrent(NULL), CUDA_SUCCESS);
	RC(p_cuCtxGetCurrent(&c), CUDA_SUCCESS);
	CHECK(c == NULL);
	/* retained again: the same handle, working */
	RC(p_cuDevicePrimaryCtxRetain(&b, 0), CUDA_SUCCESS);
	CHECK(a == b);
	RC(p_cuCtxSetCurrent(b), CUDA_SUCCESS);
	RC(p_cuMemAlloc_v2(&p, 1), CUDA_SUCCESS);
	RC(p_cuMemFree_v2(p), CUDA_SUCCESS);
	RC(p_cuDevicePrimaryCtxRelease(0), CUDA_SUCCESS);
}

static void suite_oom(void)
{
	setenv("AXL_CUDA_DOUBLE_OOM_AT", "1048576", 1);
	setup(DUAL);
	CUdeviceptr a = 0, b = 0;
	RC(p_cuMemAlloc_v2(&a, 1048575), CUDA_SUCCESS);
	RC(p_cuMemAlloc_v2(&b, 1048576), CUDA_ERROR_OUT_OF_MEMORY);
	RC(p_cuMemAlloc_v2(&b, (size_t)MIB(4096)), CUDA_ERROR_OUT_OF_MEMORY);
	void *h = NULL;
	RC(p_cuMemHostAlloc(&h, 2 << 20, 0), CUDA_ERROR_OUT_OF_MEMORY);
	RC(p_cuMemHostAlloc(&h, 4096, 0), CUDA_SUCCESS);
	size_t fr = 0, total = 0;
	RC(p_cuMemGetInfo_v2(&fr, &total), CUDA_SUCCESS);
	CHECK(fr > (size_t)MIB(8000)); /* the fault is not memory running out */
	const char *s = NULL;
	RC(p_cuGetErrorName(CUDA_ERROR_OUT_OF_MEMORY, &s), CUDA_SUCCESS);
	STREQ(s, "CUDA_ERROR_OUT_OF_MEMORY");
	RC(p_cuMemFree_v2(a), CUDA_SUCCESS);
	RC(p_cuMemFreeHost(h), CUDA_SUCCESS);
}

static void suite_lost(void)
{
	setenv("AXL_CUDA_DOUBLE_LOST_AFTER", "3", 1);
	CUcontext c0 = setup(DUAL), c1;
	RC(p_cuDevicePrimaryCtxRetain(&c1, 1), CUDA_SUCCESS);
	enum { N = 1000 };
	unsigned char in[N], out[N];
	fill(in, N, 8);
	CUdeviceptr a, b;
	RC(p_cuMemAlloc_v2(&a, N), CUDA_SUCCESS);
	CUstream s;
	CUevent e;
	RC(p_cuStreamCreate(&s, 0), CUDA_SUCCESS);
	RC(p_cuEventCreate(&e, 0), CUDA_SUCCESS);
	RC(p_cuMemcpyHtoDAsync_v2(a, in, N, s), CUDA_SUCCESS); /* 1 */
	RC(p_cuMemsetD8Async(a, 1, 1, s), CUDA_SUCCESS);       /* a fill is not a copy */
	RC(p_cuMemcpyHtoDAsync_v2(a, in, N, s), CUDA_SUCCESS); /* 2 */
	RC(p_cuMemcpyDtoDAsync_v2(a, a, N, s), CUDA_SUCCESS);  /* 3 */
	/* the fourth is cut short: half the bytes arrive */
	memset(out, 0, N);
	RC(p_cuMemcpyDtoHAsync_v2(out, a, N, s), CUDA_ERROR_DEVICE_UNAVAILABLE);
	CHECK(memcmp(out, in, N / 2) == 0);
	int zero = 1;
	for (int i = N / 2; i < N; i++)
		zero &= out[i] == 0;
	CHECK(zero);
	/* then every call on device 0 fails */
	RC(p_cuMemcpyDtoHAsync_v2(out, a, N, s), CUDA_ERROR_DEVICE_UNAVAILABLE);
	RC(p_cuMemcpyHtoDAsync_v2(a, in, N, NULL), CUDA_ERROR_DEVICE_UNAVAILABLE);
	RC(p_cuMemsetD8Async(a, 0, N, s), CUDA_ERROR_DEVICE_UNAVAILABLE);
	RC(p_cuMemAlloc_v2(&b, 16), CUDA_ERROR_DEVICE_UNAVAILABLE);
	RC(p_cuMemFree_v2(a), CUDA_ERROR_DEVICE_UNAVAILABLE);
	RC(p_cuCtxSynchronize(), CUDA_ERROR_DEVICE_UNAVAILABLE);
	RC(p_cuStreamSynchronize(s), CUDA_ERROR_DEVICE_UNAVAILABLE);
	RC(p_cuEventRecord(e, s), CUDA_ERROR_DEVICE_UNAVAILABLE);
	RC(p_cuEventSynchronize(e), CUDA_ERROR_DEVICE_UNAVAILABLE);
	size_t fr, total;
	RC(p_cuMemGetInfo_v2(&fr, &total), CUDA_ERROR_DEVICE_UNAVAILABLE);
	CUstream s2;
	RC(p_cuStreamCreate(&s2, 0), CUDA_ERROR_DEVICE_UNAVAILABLE);
	void *h;
	RC(p_cuMemHostAlloc(&h, 16, 0), CUDA_ERROR_DEVICE_UNAVAILABLE);
	CUcontext again;
	RC(p_cuDevicePrimaryCtxRetain(&again, 0), CUDA_ERROR_DEVICE_UNAVAILABLE);
	int can;
	RC(p_cuDeviceCanAccessPeer(&can, 1, 0), CUDA_ERROR_DEVICE_UNAVAILABLE);
	/* its identity still answers, so the lost device can be named */
	char bus[32];
	RC(p_cuDeviceGetPCIBusId(bus, sizeof(bus), 0), CUDA_SUCCESS);
	STREQ(bus, "0000:01:00.0");
	int n;
	RC(p_cuDeviceGetCount(&n), CUDA_SUCCESS);
	EQ(n, 2);
	/* device 1 carries on, copies included */
	RC(p_cuCtxSetCurrent(c1), CUDA_SUCCESS);
	RC(p_cuMemAlloc_v2(&b, N), CUDA_SUCCESS);
	RC(p_cuMemcpyHtoDAsync_v2(b, in, N, NULL), CUDA_SUCCESS);
	memset(out, 0, N);
	RC(p_cuMemcpyDtoHAsync_v2(out, b, N, NULL), CUDA_SUCCESS);
	CHECK(memcmp(in, out, N) == 0);
	RC(p_cuMemcpyDtoDAsync_v2(b, a, N, NULL), CUDA_ERROR_DEVICE_UNAVAILABLE); /* from device 0 */
	RC(p_cuMemcpyPeerAsync(b, c1, a, c0, N, NULL), CUDA_ERROR_DEVICE_UNAVAILABLE);
	RC(p_cuMemFree_v2(b), CUDA_SUCCESS);
	/* releasing the lost device's context still cleans up */
	RC(p_cuStreamDestroy_v2(s), CUDA_SUCCESS);
	RC(p_cuDevicePrimaryCtxRelease(0), CUDA_SUCCESS);
}

struct hang_arg {
	volatile int returned;
	CUresult rc;
};

static void *hang_sync(void *arg)
{
	struct hang_arg *h = arg;
	h->rc = p_cuStreamSynchronize(NULL);
	h->returned = 1;
	return NULL;
}

static void *hang_alloc(void *arg)
{
	struct hang_arg *h = arg;
	CUdeviceptr p;
	h->rc = p_cuMemAlloc_v2(&p, 16);
	h->returned = 1;
	return NULL;
}

static void suite_hang(void)
{
	setenv("AXL_CUDA_DOUBLE_HANG", "cuStreamSynchronize,cuMemAlloc_v2", 1);
	CUcontext c = setup(DUAL);
	static struct hang_arg h1, h2;
	pthread_t t1, t2;
	uint64_t t0 = now_ms();
	CHECK(pthread_create(&t1, NULL, hang_sync, &h1) == 0);
	CHECK(pthread_create(&t2, NULL, hang_alloc, &h2) == 0);
	/* other calls keep answering meanwhile (the lock is not held while hanging) */
	int n = 0;
	RC(p_cuDeviceGetCount(&n), CUDA_SUCCESS);
	EQ(n, 2);
	RC(p_cuCtxSynchronize(), CUDA_SUCCESS);
	void *hm;
	RC(p_cuMemHostAlloc(&hm, 64, 0), CUDA_SUCCESS);
	RC(p_cuMemFreeHost(hm), CUDA_SUCCESS);
	struct timespec t = { 0, 200 * 1000 * 1000 };
	nanosleep(&t, NULL);
	CHECK(now_ms() - t0 >= 200);
	CHECK(!h1.returned);
	CHECK(!h2.returned);
	(void)c;
	/* the hanging threads are never joined: exit without them */
	fflush(NULL);
	if (failures)
		fprintf(stderr, "[hang] %d failure(s)\n", failures);
	_exit(failures ? 1 : 0);
}

static void suite_old(void)
{
	void *lib = open_lib(CUDAD_OLD_LIB);
	static const char *const missing[] = { "cuMemcpyPeerAsync", "cuDeviceGetUuid_v2", "cuMemGetInfo_v2",
					       "cuDevicePrimaryCtxRelease_v2" };
	for (size_t i = 0; i < 4; i++) {
		dlerror();
		void *sym = dlsym(lib, missing[i]);
		if (sym) {
			fprintf(stderr, "[old] %s is exported\n", missing[i]);
			failures++;
		}
	}
#define LOAD_OLD(f)                                                       \
	p_##f = (__typeof__(f) *)dlsym(lib, #f);                          \
	if (!p_##f) {                                                     \
		fprintf(stderr, "%s: no symbol %s\n", CUDAD_OLD_LIB, #f); \
		failures++;                                               \
		return;                                                   \
	}
	FUNCS(LOAD_OLD)
#undef LOAD_OLD
	int v = 0;
	use_xml("telegraf-gt-1030.xml");
	RC(p_cuDriverGetVersion(&v), CUDA_SUCCESS);
	EQ(v, 10020);
	RC(p_cuInit(0), CUDA_SUCCESS);
	CUcontext c;
	RC(p_cuDevicePrimaryCtxRetain(&c, 0), CUDA_SUCCESS);
	RC(p_cuCtxSetCurrent(c), CUDA_SUCCESS);
	unsigned int fr = 0, total = 0;
	RC(p_cuMemGetInfo(&fr, &total), CUDA_SUCCESS);
	EQ(total, MIB(1998));
	EQ(fr, MIB(1998));
	CUdeviceptr p;
	RC(p_cuMemAlloc_v2(&p, MIB(2)), CUDA_SUCCESS);
	RC(p_cuMemGetInfo(&fr, &total), CUDA_SUCCESS);
	EQ(fr, MIB(1996));
	CUuuid u;
	RC(p_cuDeviceGetUuid(&u, 0), CUDA_SUCCESS);
	unsigned char in[10] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 }, out[10] = { 0 };
	RC(p_cuMemcpyHtoDAsync_v2(p, in, 10, NULL), CUDA_SUCCESS);
	RC(p_cuMemcpyDtoHAsync_v2(out, p, 10, NULL), CUDA_SUCCESS);
	CHECK(memcmp(in, out, 10) == 0);
	RC(p_cuMemFree_v2(p), CUDA_SUCCESS);
	RC(p_cuDevicePrimaryCtxRelease(0), CUDA_SUCCESS);
	/* the current build has them all */
	void *cur = open_lib(CUDAD_LIB);
	for (size_t i = 0; i < 4; i++)
		if (!dlsym(cur, missing[i])) {
			fprintf(stderr, "[old] the current build lacks %s\n", missing[i]);
			failures++;
		}
}

static const struct {
	const char *name;
	void (*fn)(void);
} suites[] = {
	{ "init", suite_init },       { "enumerate", suite_enumerate }, { "all_fixtures", suite_all_fixtures },
	{ "alloc", suite_alloc },     { "copy", suite_copy },           { "peer", suite_peer },
	{ "memset", suite_memset },   { "streams", suite_streams },     { "meminfo", suite_meminfo },
	{ "threads", suite_threads }, { "context", suite_context },     { "oom", suite_oom },
	{ "lost", suite_lost },       { "hang", suite_hang },           { "old", suite_old },
};

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s SUITE\n", argv[0]);
		return 2;
	}
	unsetenv("AXL_CUDA_DOUBLE_XML");
	unsetenv("AXL_CUDA_DOUBLE_OOM_AT");
	unsetenv("AXL_CUDA_DOUBLE_LOST_AFTER");
	unsetenv("AXL_CUDA_DOUBLE_HANG");
	unsetenv("AXL_CUDA_DOUBLE_P2P");
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
