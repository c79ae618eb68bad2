/* Tests of the HIP runtime double: `test_hip_double SUITE`, one CTest per suite (each in its
 * own process, since the environment drives the double and it reads it once). The double is
 * loaded the way axl loads a vendor runtime: dlopen() by absolute path with
 * RTLD_NOW | RTLD_LOCAL, every entry point through dlsym(). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hip_types.h"

/* every entry point of the current build */
#define FUNCS(X)                                                                                             \
  X(hipInit) X(hipDriverGetVersion) X(hipRuntimeGetVersion) X(hipGetDeviceCount) X(hipSetDevice)             \
  X(hipGetDevice) X(hipDeviceGetName) X(hipDeviceGetPCIBusId) X(hipDeviceTotalMem) X(hipDeviceGetAttribute)  \
  X(hipDeviceGetUuid) X(hipMalloc) X(hipFree) X(hipHostMalloc) X(hipHostFree) X(hipMemGetInfo)               \
  X(hipMemcpyAsync) X(hipMemcpyPeerAsync) X(hipMemsetAsync) X(hipStreamCreate) X(hipStreamDestroy)           \
  X(hipStreamSynchronize) X(hipDeviceSynchronize) X(hipEventCreate) X(hipEventRecord)                        \
  X(hipEventSynchronize) X(hipEventElapsedTime) X(hipEventDestroy) X(hipDeviceCanAccessPeer)                 \
  X(hipDeviceEnablePeerAccess) X(hipGetErrorName) X(hipGetErrorString) X(hipMallocManaged)                 \
  X(hipExtMallocWithFlags) X(hipMallocAsync) X(hipFreeAsync) X(hipStreamGetDevice)

#define DECLARE(f) static __typeof__(f) *p_##f;
FUNCS(DECLARE)

#include "double_suite.h"

static void load_current(void)
{
  void *lib = open_double(HIPD_LIB);
#define LOAD(f)                                                                                              \
  p_##f = (__typeof__(f) *)dlsym(lib, #f);                                                                   \
  if (!p_##f) {                                                                                              \
    fprintf(stderr, "dlsym %s: missing\n", #f);                                                              \
    exit(2);                                                                                                 \
  }
  FUNCS(LOAD)
}

static void use_json(const char *name)
{
  char path[1024];
  snprintf(path, sizeof(path), "%s/%s", HIPD_FIXTURES, name);
  setenv("AXL_HIP_DOUBLE_JSON", path, 1);
}

static void reset_env(void)
{
  unsetenv("AXL_HIP_DOUBLE_JSON");
  unsetenv("AXL_HIP_DOUBLE_OOM_AT");
  unsetenv("AXL_HIP_DOUBLE_LOST_AFTER");
  unsetenv("AXL_HIP_DOUBLE_LOST_CODE");
  unsetenv("AXL_HIP_DOUBLE_HANG");
}

/* a byte pattern that differs at every offset and between seeds */
static void fill(unsigned char *p, size_t n, unsigned seed)
{
  for (size_t i = 0; i < n; i++)
    p[i] = (unsigned char)(i * 131u + seed * 7u + (i >> 8));
}

static int same(const unsigned char *p, size_t n, unsigned seed, size_t shift)
{
  for (size_t i = 0; i < n; i++)
    if (p[i] != (unsigned char)((i + shift) * 131u + seed * 7u + ((i + shift) >> 8)))
      return 0;
  return 1;
}

#define MI100 "telegraf-mi100_rocm602.json"
#define MI300X8 "synthetic-mi300x-8x.json"

/* ==== initialisation ================================================================================= */
static void suite_init(void)
{
  use_json("telegraf-rx6700xt_rocm612.json");
  RC(p_hipInit(1), hipErrorInvalidValue);
  RC(p_hipInit(0), hipSuccess);
  RC(p_hipInit(0), hipSuccess);
  int v = 0;
  RC(p_hipDriverGetVersion(&v), hipSuccess);
  CHECK(v / 10000000 == 6);
  RC(p_hipRuntimeGetVersion(&v), hipSuccess);
  CHECK(v / 10000000 == 6);
  RC(p_hipRuntimeGetVersion(NULL), hipErrorInvalidValue);
  int n = -1;
  RC(p_hipGetDeviceCount(&n), hipSuccess);
  EQ(n, 1);
  RC(p_hipGetDeviceCount(NULL), hipErrorInvalidValue);
  STREQ(p_hipGetErrorName(hipErrorNoDevice), "hipErrorNoDevice");
  STREQ(p_hipGetErrorName(hipErrorOutOfMemory), "hipErrorOutOfMemory");
  STREQ(p_hipGetErrorName((hipError_t)12345), "hipErrorUnknown");
  CHECK(strlen(p_hipGetErrorString(hipErrorInvalidValue)) > 0);
  CHECK(strlen(p_hipGetErrorString((hipError_t)12345)) > 0);
}

/* unset: a node without AMD GPUs */
static void suite_nodevice(void)
{
  RC(p_hipInit(0), hipErrorNoDevice);
  int n = 7;
  RC(p_hipGetDeviceCount(&n), hipErrorNoDevice);
  EQ(n, 0);
  void *d = NULL;
  RC(p_hipMalloc(&d, 16), hipErrorNoDevice);
  RC(p_hipSetDevice(0), hipErrorNoDevice);
  int v = 0;
  RC(p_hipRuntimeGetVersion(&v), hipSuccess); /* needs no device */
}

static void suite_badjson(void)
{
  char path[] = "/tmp/hip_double_badXXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  if (fd < 0)
    return;
  ssize_t w = write(fd, "{\"card0\": ", 10);
  (void)w;
  close(fd);
  setenv("AXL_HIP_DOUBLE_JSON", path, 1);
  RC(p_hipInit(0), hipErrorNotInitialized);
  unlink(path);
  int n = 3;
  RC(p_hipGetDeviceCount(&n), hipErrorNotInitialized);
  EQ(n, 0);
}

/* ==== devices against the capture ===================================================================== */
static void check_dev(int i, const char *bus, const char *name, unsigned long long mem, int cus)
{
  char buf[64];
  RC(p_hipDeviceGetPCIBusId(buf, sizeof(buf), i), hipSuccess);
  STREQ(buf, bus);
  RC(p_hipDeviceGetName(buf, sizeof(buf), i), hipSuccess);
  STREQ(buf, name);
  size_t total = 0;
  RC(p_hipDeviceTotalMem(&total, i), hipSuccess);
  EQ(total, mem);
  int v = -1;
  unsigned dom, b, dev, fn;
  CHECK(sscanf(bus, "%x:%x:%x.%x", &dom, &b, &dev, &fn) == 4);
  RC(p_hipDeviceGetAttribute(&v, hipDeviceAttributePciBusId, i), hipSuccess);
  EQ(v, b);
  RC(p_hipDeviceGetAttribute(&v, hipDeviceAttributePciDeviceId, i), hipSuccess);
  EQ(v, dev);
  RC(p_hipDeviceGetAttribute(&v, hipDeviceAttributePciDomainID, i), hipSuccess);
  EQ(v, dom);
  RC(p_hipDeviceGetAttribute(&v, hipDeviceAttributeMultiprocessorCount, i), hipSuccess);
  EQ(v, cus);
}

static void suite_enumerate(void)
{
  use_json(MI100);
  int n = 0;
  RC(p_hipGetDeviceCount(&n), hipSuccess);
  EQ(n, 4);
  static const char *const bus[] = {"0000:83:00.0", "0000:a3:00.0", "0000:c3:00.0", "0000:e3:00.0"};
  for (int i = 0; i < 4; i++)
    check_dev(i, bus[i], "Arcturus GL-XL [Instinct MI100]", 34342961152ull, 120);
  hipUUID u;
  RC(p_hipDeviceGetUuid(&u, 0), hipSuccess);
  CHECK(memcmp(u.bytes, "79ccd55167a2124a", 16) == 0);
  RC(p_hipDeviceGetUuid(&u, 1), hipSuccess);
  CHECK(memcmp(u.bytes, "04edfb117a17a07d", 16) == 0);
  RC(p_hipDeviceGetUuid(NULL, 0), hipErrorInvalidValue);
  char buf[64];
  RC(p_hipDeviceGetName(buf, sizeof(buf), 4), hipErrorInvalidDevice);
  RC(p_hipDeviceGetName(buf, sizeof(buf), -1), hipErrorInvalidDevice);
  RC(p_hipDeviceGetPCIBusId(buf, 12, 0), hipErrorInvalidValue); /* no room for the terminator */
  RC(p_hipDeviceGetPCIBusId(buf, 13, 0), hipSuccess);
  RC(p_hipDeviceGetName(buf, 9, 0), hipSuccess); /* truncated, terminated */
  STREQ(buf, "Arcturus");
  int v;
  RC(p_hipDeviceGetAttribute(&v, (hipDeviceAttribute_t)5000, 0), hipErrorInvalidValue);
  RC(p_hipDeviceGetAttribute(NULL, hipDeviceAttributePciBusId, 0), hipErrorInvalidValue);
  size_t total;
  RC(p_hipDeviceTotalMem(&total, 9), hipErrorInvalidDevice);
  /* the current device is per thread, 0 by default */
  int d = -1;
  RC(p_hipGetDevice(&d), hipSuccess);
  EQ(d, 0);
  RC(p_hipSetDevice(3), hipSuccess);
  RC(p_hipGetDevice(&d), hipSuccess);
  EQ(d, 3);
  RC(p_hipSetDevice(4), hipErrorInvalidDevice);
  RC(p_hipGetDevice(&d), hipSuccess);
  EQ(d, 3);
}

static void suite_partitions(void)
{
  use_json("synthetic-mi300x-2x-cpx.json");
  int n = 0;
  RC(p_hipGetDeviceCount(&n), hipSuccess);
  EQ(n, 16);
  /* 8 partitions per GPU, each with an eighth of the memory and compute units */
  for (int i = 0; i < 16; i++)
    check_dev(i, i < 8 ? "0000:0c:00.0" : "0000:15:00.0", "AMD Instinct MI300X", 206141652992ull / 8, 38);
}

/* ==== memory ========================================================================================= */
static void suite_alloc(void)
{
  use_json(MI100);
  void *d = NULL, *e = NULL;
  RC(p_hipMalloc(&d, 4096), hipSuccess);
  CHECK(d != NULL);
  CHECK(((uintptr_t)d & 255) == 0);
  RC(p_hipMalloc(&e, 100), hipSuccess);
  CHECK(e != NULL && e != d);
  RC(p_hipMalloc(NULL, 100), hipErrorInvalidValue);
  void *z = (void *)1;
  RC(p_hipMalloc(&z, 0), hipSuccess);
  CHECK(z == NULL);
  RC(p_hipFree(NULL), hipSuccess);
  RC(p_hipFree((char *)d + 1), hipErrorInvalidValue); /* not the start of an allocation */
  int local;
  RC(p_hipFree(&local), hipErrorInvalidValue); /* host memory */
  RC(p_hipFree(d), hipSuccess);
  RC(p_hipFree(d), hipErrorInvalidValue); /* double free */
  /* a freed allocation is not memory any more: no copy touches it */
  unsigned char buf[64] = {0};
  RC(p_hipMemcpyAsync(buf, d, 16, hipMemcpyDeviceToHost, NULL), hipErrorInvalidValue);
  RC(p_hipMemcpyAsync(d, buf, 16, hipMemcpyHostToDevice, NULL), hipErrorInvalidValue);
  RC(p_hipMemcpyAsync(d, buf, 16, hipMemcpyDefault, NULL), hipErrorInvalidValue);
  RC(p_hipMemsetAsync(d, 0, 16, NULL), hipErrorInvalidValue);
  /* out of range, NULL */
  RC(p_hipMemcpyAsync(buf, e, 101, hipMemcpyDeviceToHost, NULL), hipErrorInvalidValue);
  RC(p_hipMemcpyAsync(buf, (char *)e + 99, 2, hipMemcpyDeviceToHost, NULL), hipErrorInvalidValue);
  RC(p_hipMemcpyAsync(buf, (char *)e + 99, 1, hipMemcpyDeviceToHost, NULL), hipSuccess);
  RC(p_hipMemcpyAsync(NULL, e, 1, hipMemcpyDeviceToHost, NULL), hipErrorInvalidValue);
  RC(p_hipMemcpyAsync(buf, NULL, 1, hipMemcpyHostToDevice, NULL), hipErrorInvalidValue);
  RC(p_hipMemcpyAsync(buf, e, SIZE_MAX, hipMemcpyDeviceToHost, NULL), hipErrorInvalidValue);
  /* the kind must match the pointers */
  RC(p_hipMemcpyAsync(buf, e, 8, hipMemcpyHostToDevice, NULL), hipErrorInvalidValue);
  RC(p_hipMemcpyAsync(e, buf, 8, hipMemcpyDeviceToHost, NULL), hipErrorInvalidValue);
  RC(p_hipMemcpyAsync(buf, e, 8, hipMemcpyDeviceToDevice, NULL), hipErrorInvalidValue);
  RC(p_hipMemcpyAsync(buf, e, 8, hipMemcpyHostToHost, NULL), hipErrorInvalidValue);
  RC(p_hipMemcpyAsync(buf, e, 8, (hipMemcpyKind)7, NULL), hipErrorInvalidMemcpyDirection);
  /* pinned host memory */
  void *h = NULL;
  RC(p_hipHostMalloc(&h, 256, hipHostMallocDefault), hipSuccess);
  CHECK(h != NULL);
  memset(h, 0x5a, 256); /* real memory */
  RC(p_hipMemcpyAsync(e, h, 100, hipMemcpyHostToDevice, NULL), hipSuccess);
  RC(p_hipMemcpyAsync(e, (char *)h + 200, 100, hipMemcpyHostToDevice, NULL), hipErrorInvalidValue);
  RC(p_hipFree(h), hipErrorInvalidValue);   /* pinned memory is hipHostFree's */
  RC(p_hipHostFree(e), hipErrorInvalidValue); /* device memory is hipFree's */
  RC(p_hipHostFree(h), hipSuccess);
  RC(p_hipHostFree(h), hipErrorInvalidValue);
  RC(p_hipMemcpyAsync(e, h, 8, hipMemcpyHostToDevice, NULL), hipErrorInvalidValue);
  RC(p_hipHostFree(NULL), hipSuccess);
  RC(p_hipFree(e), hipSuccess);
}

/* every kind, odd sizes and offsets, verified byte by byte */
static void suite_copy(void)
{
  use_json(MI100);
  enum { N = 70001 };
  unsigned char *src = malloc(N), *dst = malloc(N);
  CHECK(src && dst);
  if (!src || !dst)
    return;
  fill(src, N, 1);
  unsigned char *a = NULL, *b = NULL;
  RC(p_hipMalloc((void **)&a, N), hipSuccess);
  RC(p_hipSetDevice(1), hipSuccess);
  RC(p_hipMalloc((void **)&b, N), hipSuccess); /* on another device */
  RC(p_hipSetDevice(0), hipSuccess);
  hipStream_t s;
  RC(p_hipStreamCreate(&s), hipSuccess);
  static const size_t offs[] = {0, 1, 3, 7, 255, 4097};
  static const size_t lens[] = {1, 2, 13, 4096, 65535};
  for (size_t i = 0; i < sizeof(offs) / sizeof(offs[0]); i++)
    for (size_t j = 0; j < sizeof(lens) / sizeof(lens[0]); j++) {
      size_t o = offs[i], n = lens[j];
      /* H2D, D2D to the other device, D2H, each kind and Default */
      for (int dflt = 0; dflt < 2; dflt++) {
        memset(dst, 0xee, N);
        RC(p_hipMemcpyAsync(a + o, src + o, n, dflt ? hipMemcpyDefault : hipMemcpyHostToDevice, s), hipSuccess);
        RC(p_hipMemcpyAsync(b + (o ^ 1), a + o, n, dflt ? hipMemcpyDefault : hipMemcpyDeviceToDevice, NULL),
           hipSuccess);
        RC(p_hipMemcpyAsync(dst + 5, b + (o ^ 1), n, dflt ? hipMemcpyDefault : hipMemcpyDeviceToHost, s),
           hipSuccess);
        RC(p_hipStreamSynchronize(s), hipSuccess);
        CHECK(same(dst + 5, n, 1, o));
        CHECK(dst[4] == 0xee && dst[5 + n] == 0xee);
      }
    }
  /* host to host */
  memset(dst, 0, N);
  RC(p_hipMemcpyAsync(dst, src, N, hipMemcpyHostToHost, NULL), hipSuccess);
  CHECK(same(dst, N, 1, 0));
  /* overlapping, within one allocation */
  RC(p_hipMemcpyAsync(a, src, N, hipMemcpyHostToDevice, NULL), hipSuccess);
  RC(p_hipMemcpyAsync(a + 3, a, 1000, hipMemcpyDeviceToDevice, NULL), hipSuccess);
  RC(p_hipMemcpyAsync(dst, a + 3, 1000, hipMemcpyDeviceToHost, NULL), hipSuccess);
  CHECK(same(dst, 1000, 1, 0));
  /* zero bytes: nothing to check */
  RC(p_hipMemcpyAsync(dst, a, 0, hipMemcpyDeviceToHost, NULL), hipSuccess);
  /* a stream that is not one */
  RC(p_hipMemcpyAsync(dst, a, 1, hipMemcpyDeviceToHost, (hipStream_t)dst), hipErrorInvalidHandle);
  RC(p_hipDeviceSynchronize(), hipSuccess);
  RC(p_hipStreamDestroy(s), hipSuccess);
  RC(p_hipMemcpyAsync(dst, a, 1, hipMemcpyDeviceToHost, s), hipErrorInvalidHandle);
  RC(p_hipFree(a), hipSuccess);
  RC(p_hipFree(b), hipSuccess);
  free(src);
  free(dst);
}

/* peer copies between two GPUs of an 8-GPU node */
static void suite_peer(void)
{
  use_json(MI300X8);
  int n = 0;
  RC(p_hipGetDeviceCount(&n), hipSuccess);
  EQ(n, 8);
  int can = -1;
  RC(p_hipDeviceCanAccessPeer(&can, 0, 5), hipSuccess);
  EQ(can, 1);
  RC(p_hipDeviceCanAccessPeer(&can, 2, 2), hipSuccess);
  EQ(can, 0);
  RC(p_hipDeviceCanAccessPeer(&can, 0, 8), hipErrorInvalidDevice);
  RC(p_hipDeviceCanAccessPeer(NULL, 0, 1), hipErrorInvalidValue);
  RC(p_hipSetDevice(5), hipSuccess);
  RC(p_hipDeviceEnablePeerAccess(0, 0), hipSuccess);
  RC(p_hipDeviceEnablePeerAccess(0, 0), hipErrorPeerAccessAlreadyEnabled);
  RC(p_hipDeviceEnablePeerAccess(5, 0), hipErrorInvalidDevice);
  RC(p_hipDeviceEnablePeerAccess(1, 3), hipErrorInvalidValue);
  unsigned char *d5 = NULL, *d0 = NULL;
  enum { N = 1 << 20 };
  RC(p_hipMalloc((void **)&d5, N), hipSuccess);
  RC(p_hipSetDevice(0), hipSuccess);
  RC(p_hipMalloc((void **)&d0, N), hipSuccess);
  unsigned char *h = malloc(N);
  CHECK(h != NULL);
  if (!h)
    return;
  fill(h, N, 9);
  hipStream_t s;
  RC(p_hipStreamCreate(&s), hipSuccess);
  RC(p_hipMemcpyAsync(d0, h, N, hipMemcpyHostToDevice, s), hipSuccess);
  RC(p_hipMemcpyPeerAsync(d5 + 1, 5, d0 + 1, 0, N - 3, s), hipSuccess);
  memset(h, 0, N);
  RC(p_hipMemcpyAsync(h, d5 + 1, N - 3, hipMemcpyDeviceToHost, s), hipSuccess);
  RC(p_hipStreamSynchronize(s), hipSuccess);
  CHECK(same(h, N - 3, 9, 1));
  /* the devices must be the allocations' */
  RC(p_hipMemcpyPeerAsync(d5, 0, d0, 5, 16, s), hipErrorInvalidValue);
  RC(p_hipMemcpyPeerAsync(d5, 5, d0, 5, 16, s), hipErrorInvalidValue);
  RC(p_hipMemcpyPeerAsync(d5, 5, h, 0, 16, s), hipErrorInvalidValue);
  RC(p_hipMemcpyPeerAsync(d5, 9, d0, 0, 16, s), hipErrorInvalidDevice);
  RC(p_hipMemcpyPeerAsync(d5, 5, d0, 0, N + 1, s), hipErrorInvalidValue);
  RC(p_hipStreamDestroy(s), hipSuccess);
  RC(p_hipFree(d0), hipSuccess);
  RC(p_hipFree(d5), hipSuccess); /* freed from device 0: a pointer knows its device */
  free(h);
}

static void suite_memset(void)
{
  use_json(MI100);
  unsigned char *d = NULL, h[300];
  RC(p_hipMalloc((void **)&d, 300), hipSuccess);
  RC(p_hipMemsetAsync(d, 0x11, 300, NULL), hipSuccess);
  RC(p_hipMemsetAsync(d + 7, 0x1ff, 101, NULL), hipSuccess); /* the value's low byte */
  RC(p_hipMemcpyAsync(h, d, 300, hipMemcpyDeviceToHost, NULL), hipSuccess);
  for (int i = 0; i < 300; i++)
    if (h[i] != (i >= 7 && i < 108 ? 0xff : 0x11)) {
      fprintf(stderr, "[memset] byte %d = 0x%x\n", i, h[i]);
      failures++;
      break;
    }
  RC(p_hipMemsetAsync(d + 200, 0, 101, NULL), hipErrorInvalidValue);
  RC(p_hipMemsetAsync(h, 0, 10, NULL), hipErrorInvalidValue); /* host memory */
  RC(p_hipMemsetAsync(d, 0, 0, NULL), hipSuccess);
  RC(p_hipFree(d), hipSuccess);
  RC(p_hipMemsetAsync(d, 0, 1, NULL), hipErrorInvalidValue);
}

static void suite_streams(void)
{
  use_json(MI100);
  hipStream_t s = NULL;
  RC(p_hipStreamCreate(&s), hipSuccess);
  RC(p_hipStreamCreate(NULL), hipErrorInvalidValue);
  RC(p_hipStreamSynchronize(s), hipSuccess);
  RC(p_hipStreamSynchronize(NULL), hipSuccess);
  hipEvent_t a, b, c;
  RC(p_hipEventCreate(&a), hipSuccess);
  RC(p_hipEventCreate(&b), hipSuccess);
  RC(p_hipEventCreate(&c), hipSuccess);
  float ms = -1;
  RC(p_hipEventElapsedTime(&ms, a, b), hipErrorInvalidHandle); /* not recorded */
  RC(p_hipEventSynchronize(c), hipSuccess);                    /* never recorded: nothing to wait for */
  RC(p_hipEventRecord(a, s), hipSuccess);
  struct timespec ts = {0, 20 * 1000 * 1000};
  nanosleep(&ts, NULL);
  RC(p_hipEventRecord(b, s), hipSuccess);
  RC(p_hipEventSynchronize(b), hipSuccess);
  RC(p_hipEventElapsedTime(&ms, a, b), hipSuccess);
  CHECK(ms >= 19.0f && ms < 2000.0f);
  RC(p_hipEventElapsedTime(NULL, a, b), hipErrorInvalidValue);
  RC(p_hipEventElapsedTime(&ms, a, c), hipErrorInvalidHandle);
  RC(p_hipEventRecord(c, NULL), hipSuccess);
  RC(p_hipEventElapsedTime(&ms, a, c), hipSuccess);
  CHECK(ms >= 19.0f);
  RC(p_hipEventRecord(a, (hipStream_t)&ms), hipErrorInvalidHandle);
  RC(p_hipEventRecord((hipEvent_t)&ms, s), hipErrorInvalidHandle);
  RC(p_hipEventDestroy(a), hipSuccess);
  RC(p_hipEventDestroy(a), hipErrorInvalidHandle);
  RC(p_hipEventDestroy(b), hipSuccess);
  RC(p_hipEventDestroy(c), hipSuccess);
  RC(p_hipStreamDestroy(s), hipSuccess);
  RC(p_hipStreamDestroy(s), hipErrorInvalidHandle);
  RC(p_hipStreamSynchronize(s), hipErrorInvalidHandle);
  RC(p_hipDeviceSynchronize(), hipSuccess);
}

static void suite_meminfo(void)
{
  use_json(MI100);
  size_t fr = 0, total = 0;
  RC(p_hipMemGetInfo(&fr, &total), hipSuccess);
  EQ(total, 34342961152ull);
  EQ(fr, 34342961152ull - 6750208ull); /* less what the capture saw in use */
  void *d;
  RC(p_hipMalloc(&d, 1 << 20), hipSuccess);
  RC(p_hipMemGetInfo(&fr, &total), hipSuccess);
  EQ(fr, 34342961152ull - 6750208ull - (1 << 20));
  RC(p_hipSetDevice(2), hipSuccess); /* another device's memory is its own */
  RC(p_hipMemGetInfo(&fr, &total), hipSuccess);
  EQ(fr, 34342961152ull - 6750208ull);
  RC(p_hipMemGetInfo(NULL, &total), hipErrorInvalidValue);
  RC(p_hipFree(d), hipSuccess);
  RC(p_hipSetDevice(0), hipSuccess);
  RC(p_hipMemGetInfo(&fr, &total), hipSuccess);
  EQ(fr, 34342961152ull - 6750208ull);
  /* more than the device has */
  RC(p_hipMalloc(&d, (size_t)34342961152ull), hipErrorOutOfMemory);
}

/* the other allocation paths: managed, hipExtMallocWithFlags, stream-ordered (on the
 * stream's device), hipFreeAsync; all count in hipMemGetInfo like hipMalloc */
static void suite_allocpaths(void)
{
  use_json(MI100);
  size_t fr0 = 0, fr = 0, total = 0;
  RC(p_hipMemGetInfo(&fr0, &total), hipSuccess);
  void *m = NULL, *e = NULL, *a = NULL, *b = NULL;
  RC(p_hipMallocManaged(&m, 4096, hipMemAttachGlobal), hipSuccess);
  RC(p_hipMallocManaged(&b, 4096, 8), hipErrorInvalidValue);
  RC(p_hipExtMallocWithFlags(&e, 8192, hipDeviceMallocFinegrained), hipSuccess);
  RC(p_hipMallocAsync(&a, 1 << 20, NULL), hipSuccess);
  RC(p_hipMemGetInfo(&fr, &total), hipSuccess);
  EQ(fr, fr0 - 4096 - 8192 - (1 << 20));
  RC(p_hipFreeAsync(a, NULL), hipSuccess);
  RC(p_hipFreeAsync(a, NULL), hipErrorInvalidValue);
  RC(p_hipFree(m), hipSuccess);
  RC(p_hipFree(e), hipSuccess);
  RC(p_hipMemGetInfo(&fr, &total), hipSuccess);
  EQ(fr, fr0);
  /* a stream of device 1: the allocation is device 1's */
  hipStream_t s;
  RC(p_hipSetDevice(1), hipSuccess);
  RC(p_hipStreamCreate(&s), hipSuccess);
  RC(p_hipSetDevice(0), hipSuccess);
  int dev = -1;
  RC(p_hipStreamGetDevice(s, &dev), hipSuccess);
  EQ(dev, 1);
  RC(p_hipStreamGetDevice(NULL, &dev), hipSuccess);
  EQ(dev, 0);
  RC(p_hipMallocAsync(&a, 1 << 20, s), hipSuccess);
  RC(p_hipMemGetInfo(&fr, &total), hipSuccess);
  EQ(fr, fr0);
  RC(p_hipSetDevice(1), hipSuccess);
  RC(p_hipMemGetInfo(&fr, &total), hipSuccess);
  EQ(fr, fr0 - (1 << 20));
  RC(p_hipFreeAsync(a, s), hipSuccess);
  RC(p_hipStreamDestroy(s), hipSuccess);
  RC(p_hipMallocAsync(&a, 16, s), hipErrorInvalidHandle);
  RC(p_hipFreeAsync(NULL, s), hipErrorInvalidHandle);
  RC(p_hipMallocManaged(NULL, 16, hipMemAttachGlobal), hipErrorInvalidValue);
}

/* ==== faults ========================================================================================= */
static void suite_oom(void)
{
  use_json(MI100);
  setenv("AXL_HIP_DOUBLE_OOM_AT", "1048576", 1);
  void *a = NULL, *b = NULL, *c = NULL;
  RC(p_hipMalloc(&a, 1048577), hipErrorOutOfMemory);
  CHECK(a == NULL);
  RC(p_hipMalloc(&a, 524288), hipSuccess);
  RC(p_hipMalloc(&b, 524288), hipSuccess);
  RC(p_hipMalloc(&c, 1), hipErrorOutOfMemory); /* at the limit */
  RC(p_hipSetDevice(1), hipSuccess);           /* the limit is each device's */
  RC(p_hipMalloc(&c, 1048576), hipSuccess);
  RC(p_hipFree(c), hipSuccess);
  RC(p_hipSetDevice(0), hipSuccess);
  RC(p_hipFree(b), hipSuccess);
  RC(p_hipMalloc(&c, 1), hipSuccess); /* freed memory counts no more */
  RC(p_hipFree(c), hipSuccess);
  RC(p_hipFree(a), hipSuccess);
  void *h = NULL; /* pinned host memory is not device memory */
  RC(p_hipHostMalloc(&h, 2 << 20, 0), hipSuccess);
  RC(p_hipHostFree(h), hipSuccess);
}

static void suite_lost(void)
{
  use_json(MI100);
  setenv("AXL_HIP_DOUBLE_LOST_AFTER", "3", 1);
  enum { N = 4096 };
  unsigned char h[N], back[N];
  fill(h, N, 4);
  unsigned char *d = NULL, *o = NULL;
  RC(p_hipMalloc((void **)&d, N), hipSuccess);
  RC(p_hipSetDevice(2), hipSuccess);
  RC(p_hipMalloc((void **)&o, N), hipSuccess);
  RC(p_hipSetDevice(0), hipSuccess);
  RC(p_hipMemcpyAsync(d, h, N, hipMemcpyHostToDevice, NULL), hipSuccess);   /* 1 */
  RC(p_hipMemcpyAsync(back, d, N, hipMemcpyDeviceToHost, NULL), hipSuccess); /* 2 */
  RC(p_hipMemcpyAsync(d, h, 0, hipMemcpyHostToDevice, NULL), hipSuccess);  /* no bytes: not a copy */
  RC(p_hipMemcpyAsync(d, h, N, (hipMemcpyKind)9, NULL), hipErrorInvalidMemcpyDirection); /* refused: neither */
  RC(p_hipMemcpyAsync(o, h, N, hipMemcpyHostToDevice, NULL), hipSuccess);    /* 3 */
  memset(back, 0, N);
  /* the fourth: device 0 is lost mid-copy, half the bytes arrived */
  RC(p_hipMemcpyAsync(back, d, N, hipMemcpyDeviceToHost, NULL), hipErrorLaunchFailure);
  CHECK(same(back, N / 2, 4, 0));
  CHECK(back[N / 2] == 0 && back[N - 1] == 0);
  /* device 0 stays lost */
  RC(p_hipMemcpyAsync(back, d, 1, hipMemcpyDeviceToHost, NULL), hipErrorLaunchFailure);
  RC(p_hipMemsetAsync(d, 0, 1, NULL), hipErrorLaunchFailure);
  RC(p_hipDeviceSynchronize(), hipErrorLaunchFailure);
  RC(p_hipStreamSynchronize(NULL), hipErrorLaunchFailure);
  void *x;
  RC(p_hipMalloc(&x, 16), hipErrorLaunchFailure);
  size_t fr, total;
  RC(p_hipMemGetInfo(&fr, &total), hipErrorLaunchFailure);
  hipStream_t s;
  RC(p_hipStreamCreate(&s), hipErrorLaunchFailure);
  RC(p_hipMemcpyAsync(o, d, 1, hipMemcpyDeviceToDevice, NULL), hipErrorLaunchFailure);
  /* what it is, and where it is, still answer */
  int n = 0;
  RC(p_hipGetDeviceCount(&n), hipSuccess);
  EQ(n, 4);
  char bus[32];
  RC(p_hipDeviceGetPCIBusId(bus, sizeof(bus), 0), hipSuccess);
  STREQ(bus, "0000:83:00.0");
  /* device 2 was not in the copy: it still works (its copies fail from now on too: the
   * budget of copies is spent) */
  RC(p_hipSetDevice(2), hipSuccess);
  RC(p_hipDeviceSynchronize(), hipSuccess);
  RC(p_hipMemsetAsync(o, 0x33, N, NULL), hipSuccess);
  RC(p_hipFree(o), hipSuccess);
  RC(p_hipFree(d), hipErrorLaunchFailure); /* released all the same */
  RC(p_hipFree(d), hipErrorInvalidValue);
}

static void suite_lost_code(void)
{
  use_json(MI100);
  setenv("AXL_HIP_DOUBLE_LOST_AFTER", "0", 1);
  setenv("AXL_HIP_DOUBLE_LOST_CODE", "999", 1);
  unsigned char *d = NULL, h[8] = {0};
  RC(p_hipMalloc((void **)&d, 8), hipSuccess);
  RC(p_hipMemcpyAsync(d, h, 8, hipMemcpyHostToDevice, NULL), hipErrorUnknown);
  RC(p_hipDeviceSynchronize(), hipErrorUnknown);
  RC(p_hipFree(d), hipErrorUnknown);
}

static volatile int hang_returned;

static void *hang_call(void *arg)
{
  (void)arg;
  p_hipDeviceSynchronize();
  hang_returned = 1;
  return NULL;
}

static void suite_hang(void)
{
  use_json(MI100);
  setenv("AXL_HIP_DOUBLE_HANG", "hipStreamCreate,hipDeviceSynchronize", 1);
  RC(p_hipInit(0), hipSuccess);
  pthread_t t;
  CHECK(pthread_create(&t, NULL, hang_call, NULL) == 0);
  pthread_detach(t);
  struct timespec ts = {0, 200 * 1000 * 1000};
  nanosleep(&ts, NULL);
  CHECK(!hang_returned);
  /* the hanging call holds no lock: everything else still answers */
  int n = 0;
  RC(p_hipGetDeviceCount(&n), hipSuccess);
  EQ(n, 4);
  void *d;
  RC(p_hipMalloc(&d, 64), hipSuccess);
  RC(p_hipFree(d), hipSuccess);
  CHECK(!hang_returned);
  /* the thread sleeps on; the process exits past it */
}

/* the current device is per thread; the double is one lock */
struct worker {
  int dev, ok;
};

static void *work(void *arg)
{
  struct worker *w = arg;
  w->ok = p_hipSetDevice(w->dev) == hipSuccess;
  unsigned char h[1000], back[1000];
  for (int it = 0; it < 200 && w->ok; it++) {
    int cur = -1;
    void *d = NULL;
    fill(h, sizeof(h), (unsigned)(w->dev + it));
    w->ok = p_hipGetDevice(&cur) == hipSuccess && cur == w->dev && p_hipMalloc(&d, sizeof(h)) == hipSuccess &&
            p_hipMemcpyAsync(d, h, sizeof(h), hipMemcpyHostToDevice, NULL) == hipSuccess &&
            p_hipMemcpyAsync(back, d, sizeof(h), hipMemcpyDeviceToHost, NULL) == hipSuccess &&
            p_hipFree(d) == hipSuccess && same(back, sizeof(back), (unsigned)(w->dev + it), 0);
  }
  return NULL;
}

static void suite_threads(void)
{
  use_json(MI100);
  pthread_t t[4];
  struct worker w[4];
  for (int i = 0; i < 4; i++) {
    w[i].dev = i;
    CHECK(pthread_create(&t[i], NULL, work, &w[i]) == 0);
  }
  for (int i = 0; i < 4; i++) {
    pthread_join(t[i], NULL);
    CHECK(w[i].ok);
  }
  int cur = -1;
  RC(p_hipGetDevice(&cur), hipSuccess);
  EQ(cur, 0); /* the others' hipSetDevice did not touch this thread's */
}

/* ==== the ROCm 5 build =============================================================================== */
static void suite_old(void)
{
  void *lib = open_double(HIPD_OLD_LIB);
  CHECK(dlsym(lib, "hipDeviceGetUuid") == NULL);
  CHECK(dlsym(lib, "hipMemcpyPeerAsync") == NULL);
  __typeof__(hipRuntimeGetVersion) *ver = (__typeof__(hipRuntimeGetVersion) *)dlsym(lib, "hipRuntimeGetVersion");
  __typeof__(hipGetDeviceCount) *count = (__typeof__(hipGetDeviceCount) *)dlsym(lib, "hipGetDeviceCount");
  __typeof__(hipDeviceGetPCIBusId) *bus = (__typeof__(hipDeviceGetPCIBusId) *)dlsym(lib, "hipDeviceGetPCIBusId");
  __typeof__(hipMalloc) *mal = (__typeof__(hipMalloc) *)dlsym(lib, "hipMalloc");
  __typeof__(hipMemcpyAsync) *cpy = (__typeof__(hipMemcpyAsync) *)dlsym(lib, "hipMemcpyAsync");
  __typeof__(hipFree) *fre = (__typeof__(hipFree) *)dlsym(lib, "hipFree");
  CHECK(ver && count && bus && mal && cpy && fre);
  if (!(ver && count && bus && mal && cpy && fre))
    return;
  use_json("telegraf-mi100_rocm571.json");
  int v = 0, n = 0;
  RC(ver(&v), hipSuccess);
  EQ(v / 10000000, 5);
  RC(count(&n), hipSuccess);
  EQ(n, 6);
  char b[32];
  RC(bus(b, sizeof(b), 0), hipSuccess);
  STREQ(b, "0000:1e:00.0");
  unsigned char *d = NULL, h[10] = "0123456789", back[10] = {0};
  RC(mal((void **)&d, 10), hipSuccess);
  RC(cpy(d, h, 10, hipMemcpyHostToDevice, NULL), hipSuccess);
  RC(cpy(back, d, 10, hipMemcpyDefault, NULL), hipSuccess);
  CHECK(memcmp(back, h, 10) == 0);
  RC(fre(d), hipSuccess);
}

/* every fixture: the devices are the capture's cards, at their addresses */
static void suite_fixtures(void)
{
  static const struct {
    const char *file;
    int n;
    const char *bus0, *name0;
    unsigned long long mem0;
  } t[] = {
      {"telegraf-rx6700xt_rocm430.json", 1, "0000:07:00.0", "0x1002", 12868124672ull},
      {"telegraf-rx6700xt_rocm612.json", 1, "0000:07:00.0", "Navi 22 [Radeon RX 6700/6700 XT / 6800M]",
       12868124672ull},
      {"telegraf-vega-10-XT.json", 1, "0000:04:00.0", "AMD Radeon Graphics", 17163091968ull},
      {"telegraf-vega-20-WKS-GL-XE.json", 1, "0000:63:00.0", "Radeon Instinct MI50 32GB", 34342961152ull},
      {"telegraf-mi100_rocm571.json", 6, "0000:1e:00.0", "Arcturus GL-XL [Instinct MI100]", 34342961152ull},
      {MI300X8, 8, "0000:0c:00.0", "AMD Instinct MI300X", 206141652992ull},
  };
  /* one process reads one capture: re-exec per fixture */
  const char *which = getenv("HIPD_FIXTURE");
  if (which) {
    int i = atoi(which);
    use_json(t[i].file);
    int n = 0;
    RC(p_hipGetDeviceCount(&n), hipSuccess);
    EQ(n, t[i].n);
    char buf[64];
    RC(p_hipDeviceGetPCIBusId(buf, sizeof(buf), 0), hipSuccess);
    STREQ(buf, t[i].bus0);
    RC(p_hipDeviceGetName(buf, sizeof(buf), 0), hipSuccess);
    STREQ(buf, t[i].name0);
    size_t total = 0;
    RC(p_hipDeviceTotalMem(&total, 0), hipSuccess);
    EQ(total, t[i].mem0);
    return;
  }
  for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
    char cmd[1200];
    snprintf(cmd, sizeof(cmd), "HIPD_FIXTURE=%zu /proc/%d/exe fixtures", i, (int)getpid());
    int rc = system(cmd);
    if (rc != 0) {
      fprintf(stderr, "[fixtures] %s failed\n", t[i].file);
      failures++;
    }
  }
}

int main(int argc, char **argv)
{
  static const struct {
    const char *name;
    void (*fn)(void);
    int needs_current;
  } suites[] = {
      {"init", suite_init, 1}, {"nodevice", suite_nodevice, 1}, {"badjson", suite_badjson, 1},
      {"enumerate", suite_enumerate, 1}, {"partitions", suite_partitions, 1}, {"fixtures", suite_fixtures, 1},
      {"alloc", suite_alloc, 1}, {"copy", suite_copy, 1}, {"peer", suite_peer, 1}, {"memset", suite_memset, 1},
      {"streams", suite_streams, 1}, {"meminfo", suite_meminfo, 1}, {"allocpaths", suite_allocpaths, 1},
      {"oom", suite_oom, 1}, {"lost", suite_lost, 1}, {"lost_code", suite_lost_code, 1}, {"hang", suite_hang, 1},
      {"threads", suite_threads, 1}, {"old", suite_old, 0},
  };
  if (argc != 2) {
    fprintf(stderr, "usage: %s SUITE\n", argv[0]);
    return 2;
  }
  int ran = 0;
  for (size_t i = 0; i < sizeof(suites) / sizeof(suites[0]); i++) {
    if (strcmp(argv[1], suites[i].name) != 0)
      continue;
    if (!getenv("HIPD_FIXTURE"))
      reset_env();
    suite_name = suites[i].name;
    if (suites[i].needs_current)
      load_current();
    suites[i].fn();
    ran++;
  }
  if (!ran) {
    fprintf(stderr, "usage: %s SUITE\n", argv[0]);
    return 2;
  }
  if (failures)
    fprintf(stderr, "%d failure(s)\n", failures);
  return failures ? 1 : 0;
}
