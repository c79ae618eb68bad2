/* SPDX-License-Identifier: MIT */
/*
 * The HIP runtime double (README.md): libamdhip64.so.6 (and, built with HIP_DOUBLE_OLD,
 * libamdhip64.so.5) giving the devices of a rocm-smi --json capture (the ROCm SMI double's
 * fixtures, so that HIP devices meet the recorded GPUs by PCI address) a data path on host
 * memory: allocations, copies, memsets, streams and events, with fault injection.
 *
 * Device pointers are addresses of PROT_NONE reservations, never memory: a caller that
 * dereferences one faults. Each maps to a separate host mapping that the copies use. Every
 * pointer and range is checked against the allocations before a byte moves; freed
 * allocations keep their reservation, so a stale pointer is always recognised.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "hip_types.h"
#include "jsonr.h"

#define API __attribute__((visibility("default")))
#define MAX_DEV 64

#ifdef HIP_DOUBLE_OLD
#define HIPD_VERSION 50731921 /* 5.7.31921: major * 10^7 + minor * 10^5 + patch */
#else
#define HIPD_VERSION 60241134 /* 6.2.41134 */
#endif

struct dev {
  char name[256];
  unsigned domain, bus, devno, fn;
  uint64_t total;     /* VRAM bytes */
  uint64_t used;      /* VRAM the capture saw in use (other processes) */
  uint64_t allocated; /* live hipMalloc bytes */
  int cus;
  char uuid[16];
  int lost;
  unsigned char peer[MAX_DEV]; /* hipDeviceEnablePeerAccess done from this device */
};

struct alloc {
  uintptr_t base; /* what the caller sees */
  size_t size;
  unsigned char *host; /* the bytes: a separate mapping (device), the block itself (pinned) */
  int dev;             /* -1: hipHostMalloc */
  int freed;
  struct alloc *next;
};

struct ihipStream_t {
  int dev;
  struct ihipStream_t *next;
};

struct ihipEvent_t {
  int dev, recorded;
  struct timespec t;
  struct ihipEvent_t *next;
};

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static int g_loaded;
static hipError_t g_init_rc;
static struct dev g_dev[MAX_DEV];
static int g_n;
static struct alloc *g_allocs;
static struct ihipStream_t *g_streams;
static struct ihipEvent_t *g_events;
static int g_has_oom;
static uint64_t g_oom_at;
static long long g_lost_after = -1; /* copies that succeed before the device is lost */
static long long g_copies;
static hipError_t g_lost_code = hipErrorLaunchFailure;
static _Thread_local int t_cur;

static void complain(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void complain(const char *fmt, ...)
{
  char line[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof(line), fmt, ap);
  va_end(ap);
  fprintf(stderr, "hip_double: %s\n", line);
}

/* AXL_HIP_DOUBLE_HANG=name[,name]: that entry point sleeps forever, before the lock */
static void hang_if(const char *fn)
{
  const char *h = getenv("AXL_HIP_DOUBLE_HANG");
  size_t n = strlen(fn);
  while (h && *h) {
    size_t len = strcspn(h, ",");
    if (len == n && strncmp(h, fn, n) == 0)
      for (;;)
        sleep(3600);
    h += len;
    if (*h == ',')
      h++;
  }
}

/* ---- reading the capture ----------------------------------------------------------------------- */

static const char *val(const struct axl__jv *obj, const char *const *keys)
{
  for (; *keys; keys++) {
    const char *s = axl__jv_str(obj, *keys);
    if (s && *s && strncmp(s, "N/A", 3) != 0)
      return s;
  }
  return NULL;
}
#define VAL(obj, ...) val(obj, (const char *const[]){__VA_ARGS__, NULL})

static int parse_u64(const char *s, int base, uint64_t *out)
{
  if (!s)
    return -1;
  while (*s == ' ')
    s++;
  if (base == 16 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
    s += 2;
  if (!isxdigit((unsigned char)*s))
    return -1;
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, base);
  if (errno || *end)
    return -1;
  *out = v;
  return 0;
}

/* compute units by product, for hipDeviceAttributeMultiprocessorCount (a capture has none) */
static int cus_of(const char *name)
{
  static const struct {
    const char *part;
    int cus;
  } t[] = {{"MI300X", 304}, {"MI300A", 228}, {"MI250X", 110}, {"MI210", 104}, {"MI100", 120},
           {"MI50", 60},    {"MI60", 64},    {"RX 6700", 40},  {"RX 6800", 60}};
  for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
    if (strstr(name, t[i].part))
      return t[i].cus;
  return 64;
}

struct card {
  unsigned num;
  const struct axl__jv *obj;
};

static int card_order(const void *a, const void *b)
{
  const struct card *x = a, *y = b;
  return x->num < y->num ? -1 : x->num > y->num;
}

static hipError_t read_env(void)
{
  const char *s = getenv("AXL_HIP_DOUBLE_OOM_AT");
  uint64_t v;
  if (s && *s) {
    if (parse_u64(s, 10, &v)) {
      complain("AXL_HIP_DOUBLE_OOM_AT=%s: not a byte count", s);
      return hipErrorNotInitialized;
    }
    g_has_oom = 1;
    g_oom_at = v;
  }
  s = getenv("AXL_HIP_DOUBLE_LOST_AFTER");
  if (s && *s) {
    if (parse_u64(s, 10, &v) || v > INT64_MAX) {
      complain("AXL_HIP_DOUBLE_LOST_AFTER=%s: not a copy count", s);
      return hipErrorNotInitialized;
    }
    g_lost_after = (long long)v;
  }
  s = getenv("AXL_HIP_DOUBLE_LOST_CODE");
  if (s && *s) {
    if (parse_u64(s, 10, &v) || v == 0 || v > 100000) {
      complain("AXL_HIP_DOUBLE_LOST_CODE=%s: not an error code", s);
      return hipErrorNotInitialized;
    }
    g_lost_code = (hipError_t)v;
  }
  return hipSuccess;
}

/* the devices of the capture; with the lock held */
static hipError_t load(void)
{
  hipError_t rc = read_env();
  if (rc)
    return rc;
  const char *path = getenv("AXL_HIP_DOUBLE_JSON");
  if (!path || !*path)
    return hipErrorNoDevice;
  FILE *f = fopen(path, "rb");
  if (!f) {
    complain("%s: %s", path, strerror(errno));
    return hipErrorNotInitialized;
  }
  size_t cap = 16 << 20;
  char *text = malloc(cap);
  size_t len = text ? fread(text, 1, cap, f) : 0;
  fclose(f);
  if (!text)
    return hipErrorOutOfMemory;
  struct axl__jdoc *doc = NULL;
  char err[160];
  if (axl__jdoc_parse(text, len, &doc, err, sizeof(err))) {
    complain("%s: %s", path, err);
    free(text);
    return hipErrorNotInitialized;
  }
  const struct axl__jv *root = axl__jdoc_root(doc);
  struct card cards[MAX_DEV];
  int n = 0;
  for (size_t k = 0; root->type == AXL__J_OBJ && k < root->len && n < MAX_DEV; k++) {
    const char *key = root->keys[k];
    if (strncmp(key, "card", 4) || !isdigit((unsigned char)key[4]) || root->items[k].type != AXL__J_OBJ)
      continue;
    cards[n].num = (unsigned)strtoul(key + 4, NULL, 10);
    cards[n++].obj = &root->items[k];
  }
  qsort(cards, (size_t)n, sizeof(cards[0]), card_order);
  memset(g_dev, 0, sizeof(g_dev));
  g_n = 0;
  for (int i = 0; i < n; i++) {
    struct dev *d = &g_dev[g_n];
    const char *bdf = VAL(cards[i].obj, "PCI Bus");
    char tail;
    if (!bdf || sscanf(bdf, "%x:%x:%x.%x%c", &d->domain, &d->bus, &d->devno, &d->fn, &tail) != 4 ||
        d->bus > 0xff || d->devno > 0x1f || d->fn > 7) {
      complain("%s: card%u has no PCI address; left out", path, cards[i].num);
      memset(d, 0, sizeof(*d));
      continue;
    }
    const char *name = VAL(cards[i].obj, "Device Name", "Card series", "Card Series");
    snprintf(d->name, sizeof(d->name), "%s", name ? name : "");
    uint64_t v;
    if (parse_u64(VAL(cards[i].obj, "VRAM Total Memory (B)"), 10, &v) == 0)
      d->total = v;
    if (parse_u64(VAL(cards[i].obj, "VRAM Total Used Memory (B)"), 10, &v) == 0)
      d->used = v;
    if (parse_u64(VAL(cards[i].obj, "Unique ID"), 16, &v) == 0) {
      char hex[17];
      snprintf(hex, sizeof(hex), "%016" PRIx64, v);
      memcpy(d->uuid, hex, 16);
    }
    g_n++;
  }
  /* the partitions of a GPU (several cards at one address) share the first one's name,
   * memory and compute units equally */
  uint64_t total0[MAX_DEV], used0[MAX_DEV];
  for (int i = 0; i < g_n; i++) {
    total0[i] = g_dev[i].total;
    used0[i] = g_dev[i].used;
  }
  for (int i = 0; i < g_n; i++) {
    int first = -1, parts = 0;
    for (int j = 0; j < g_n; j++)
      if (g_dev[j].domain == g_dev[i].domain && g_dev[j].bus == g_dev[i].bus && g_dev[j].devno == g_dev[i].devno &&
          g_dev[j].fn == g_dev[i].fn) {
        if (first < 0)
          first = j;
        parts++;
      }
    if (!g_dev[i].name[0])
      snprintf(g_dev[i].name, sizeof(g_dev[i].name), "%s",
               g_dev[first].name[0] ? g_dev[first].name : "AMD Radeon Graphics");
    g_dev[i].cus = cus_of(g_dev[i].name) / parts;
    g_dev[i].total = total0[first] / (unsigned)parts;
    g_dev[i].used = used0[first] / (unsigned)parts;
  }
  axl__jdoc_free(doc);
  free(text);
  return g_n ? hipSuccess : hipErrorNoDevice;
}

/* ---- entering a call ---------------------------------------------------------------------------- */

/* Take the lock and initialise (HIP initialises on the first call of any kind). */
static hipError_t enter(const char *fn)
{
  hang_if(fn);
  pthread_mutex_lock(&g_mu);
  if (!g_loaded) {
    g_init_rc = load();
    g_loaded = 1;
  }
  return g_init_rc;
}

static hipError_t leave(hipError_t rc)
{
  pthread_mutex_unlock(&g_mu);
  return rc;
}

#define ENTER()                                                                                              \
  do {                                                                                                       \
    hipError_t e_ = enter(__func__);                                                                         \
    if (e_ != hipSuccess)                                                                                    \
      return leave(e_);                                                                                      \
  } while (0)

static int bad_dev(int d)
{
  return d < 0 || d >= g_n;
}

static int cur(void)
{
  return t_cur < g_n ? t_cur : 0;
}

static int stream_ok(hipStream_t s, int *dev)
{
  if (!s) {
    *dev = cur();
    return 1;
  }
  for (struct ihipStream_t *p = g_streams; p; p = p->next)
    if (p == s) {
      *dev = p->dev;
      return 1;
    }
  return 0;
}

static int event_ok(hipEvent_t e)
{
  for (struct ihipEvent_t *p = g_events; p; p = p->next)
    if (p == e)
      return 1;
  return 0;
}

/* [ptr, ptr+n): 0 and *out the allocation holding it (NULL: host memory the double does not
 * know), -1 when it is NULL, freed, runs past its allocation or into one */
static int resolve(const void *ptr, size_t n, struct alloc **out)
{
  uintptr_t p = (uintptr_t)ptr;
  if (!ptr || n > UINTPTR_MAX - p)
    return -1;
  for (struct alloc *a = g_allocs; a; a = a->next) {
    if (p >= a->base && p - a->base < a->size) {
      if (a->freed || n > a->size - (p - a->base))
        return -1;
      *out = a;
      return 0;
    }
    if (a->base > p && a->base - p < n)
      return -1;
  }
  *out = NULL;
  return 0;
}

static unsigned char *bytes_of(const void *ptr, const struct alloc *a)
{
  return a ? a->host + ((uintptr_t)ptr - a->base) : (unsigned char *)(uintptr_t)ptr;
}

static int dev_of(const struct alloc *a)
{
  return a ? a->dev : -1;
}

static struct alloc *new_alloc(size_t size, int dev)
{
  struct alloc *a = calloc(1, sizeof(*a));
  if (!a)
    return NULL;
  int prot = dev < 0 ? PROT_READ | PROT_WRITE : PROT_NONE;
  void *base = mmap(NULL, size, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED) {
    free(a);
    return NULL;
  }
  void *host = base;
  if (dev >= 0) {
    host = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (host == MAP_FAILED) {
      munmap(base, size);
      free(a);
      return NULL;
    }
  }
  a->base = (uintptr_t)base;
  a->size = size;
  a->host = host;
  a->dev = dev;
  a->next = g_allocs;
  g_allocs = a;
  return a;
}

/* the live allocation starting at ptr, of a device (dev >= 0) or pinned (dev < 0) */
static struct alloc *block_at(const void *ptr, int pinned)
{
  for (struct alloc *a = g_allocs; a; a = a->next)
    if (a->base == (uintptr_t)ptr && !a->freed && (a->dev < 0) == pinned)
      return a;
  return NULL;
}

/* ---- versions, devices -------------------------------------------------------------------------- */

API hipError_t hipInit(unsigned int flags)
{
  ENTER();
  return leave(flags ? hipErrorInvalidValue : hipSuccess);
}

API hipError_t hipDriverGetVersion(int *driverVersion)
{
  hang_if(__func__);
  if (!driverVersion)
    return hipErrorInvalidValue;
  *driverVersion = HIPD_VERSION;
  return hipSuccess;
}

API hipError_t hipRuntimeGetVersion(int *runtimeVersion)
{
  hang_if(__func__);
  if (!runtimeVersion)
    return hipErrorInvalidValue;
  *runtimeVersion = HIPD_VERSION;
  return hipSuccess;
}

API hipError_t hipGetDeviceCount(int *count)
{
  hipError_t rc = enter(__func__);
  if (count)
    *count = rc == hipSuccess ? g_n : 0;
  return leave(!count ? hipErrorInvalidValue : rc);
}

API hipError_t hipSetDevice(int deviceId)
{
  ENTER();
  if (bad_dev(deviceId))
    return leave(hipErrorInvalidDevice);
  t_cur = deviceId;
  return leave(hipSuccess);
}

API hipError_t hipGetDevice(int *deviceId)
{
  ENTER();
  if (!deviceId)
    return leave(hipErrorInvalidValue);
  *deviceId = cur();
  return leave(hipSuccess);
}

API hipError_t hipDeviceGetName(char *name, int len, hipDevice_t device)
{
  ENTER();
  if (!name || len <= 0)
    return leave(hipErrorInvalidValue);
  if (bad_dev(device))
    return leave(hipErrorInvalidDevice);
  snprintf(name, (size_t)len, "%s", g_dev[device].name);
  return leave(hipSuccess);
}

API hipError_t hipDeviceGetPCIBusId(char *pciBusId, int len, int device)
{
  ENTER();
  if (!pciBusId || len <= 0)
    return leave(hipErrorInvalidValue);
  if (bad_dev(device))
    return leave(hipErrorInvalidDevice);
  const struct dev *d = &g_dev[device];
  char buf[32];
  int n = snprintf(buf, sizeof(buf), "%04x:%02x:%02x.%x", d->domain, d->bus, d->devno, d->fn);
  if (n >= len)
    return leave(hipErrorInvalidValue);
  memcpy(pciBusId, buf, (size_t)n + 1);
  return leave(hipSuccess);
}

API hipError_t hipDeviceTotalMem(size_t *bytes, hipDevice_t device)
{
  ENTER();
  if (!bytes)
    return leave(hipErrorInvalidValue);
  if (bad_dev(device))
    return leave(hipErrorInvalidDevice);
  *bytes = (size_t)g_dev[device].total;
  return leave(hipSuccess);
}

API hipError_t hipDeviceGetAttribute(int *pi, hipDeviceAttribute_t attr, int deviceId)
{
  ENTER();
  if (!pi)
    return leave(hipErrorInvalidValue);
  if (bad_dev(deviceId))
    return leave(hipErrorInvalidDevice);
  const struct dev *d = &g_dev[deviceId];
  switch (attr) {
  case hipDeviceAttributeMultiprocessorCount:
    *pi = d->cus;
    break;
  case hipDeviceAttributePciBusId:
    *pi = (int)d->bus;
    break;
  case hipDeviceAttributePciDeviceId:
    *pi = (int)d->devno;
    break;
  case hipDeviceAttributePciDomainID:
    *pi = (int)d->domain;
    break;
  default:
    return leave(hipErrorInvalidValue);
  }
  return leave(hipSuccess);
}

#ifndef HIP_DOUBLE_OLD
API hipError_t hipDeviceGetUuid(hipUUID *uuid, hipDevice_t device)
{
  ENTER();
  if (!uuid)
    return leave(hipErrorInvalidValue);
  if (bad_dev(device))
    return leave(hipErrorInvalidDevice);
  memcpy(uuid->bytes, g_dev[device].uuid, 16);
  return leave(hipSuccess);
}
#endif

/* ---- memory ------------------------------------------------------------------------------------- */

/* an allocation of size bytes on device d; with the lock held */
static hipError_t dev_alloc(void **ptr, size_t size, int d)
{
  if (!ptr)
    return hipErrorInvalidValue;
  if (g_dev[d].lost)
    return g_lost_code;
  if (size == 0) {
    *ptr = NULL;
    return hipSuccess;
  }
  struct dev *v = &g_dev[d];
  uint64_t inuse = v->used + v->allocated;
  if (size > v->total || inuse > v->total - size ||
      (g_has_oom && (v->allocated > g_oom_at || size > g_oom_at - v->allocated)))
    return hipErrorOutOfMemory;
  struct alloc *a = new_alloc(size, d);
  if (!a)
    return hipErrorOutOfMemory;
  v->allocated += size;
  *ptr = (void *)a->base;
  return hipSuccess;
}

API hipError_t hipMalloc(void **ptr, size_t size)
{
  ENTER();
  return leave(dev_alloc(ptr, size, cur()));
}

/* managed memory: device memory of the current device here (the double has no migration) */
API hipError_t hipMallocManaged(void **ptr, size_t size, unsigned int flags)
{
  ENTER();
  if (flags & ~3u) /* hipMemAttachGlobal 1, hipMemAttachHost 2 */
    return leave(hipErrorInvalidValue);
  return leave(dev_alloc(ptr, size, cur()));
}

/* hipExtMallocWithFlags: the flags (fine-grained, uncached, ...) change nothing here */
API hipError_t hipExtMallocWithFlags(void **ptr, size_t sizeBytes, unsigned int flags)
{
  (void)flags;
  ENTER();
  return leave(dev_alloc(ptr, sizeBytes, cur()));
}

/* stream-ordered: allocated at once on the stream's device (nothing is asynchronous) */
API hipError_t hipMallocAsync(void **ptr, size_t size, hipStream_t stream)
{
  ENTER();
  int d;
  if (!stream_ok(stream, &d))
    return leave(hipErrorInvalidHandle);
  return leave(dev_alloc(ptr, size, d));
}

/* free a device block; with the lock held */
static hipError_t dev_free(void *ptr)
{
  if (!ptr)
    return hipSuccess;
  struct alloc *a = block_at(ptr, 0);
  if (!a)
    return hipErrorInvalidValue;
  munmap(a->host, a->size);
  a->host = NULL;
  a->freed = 1; /* the reservation stays: the address is never handed out again */
  g_dev[a->dev].allocated -= a->size;
  return g_dev[a->dev].lost ? g_lost_code : hipSuccess;
}

API hipError_t hipFree(void *ptr)
{
  ENTER();
  return leave(dev_free(ptr));
}

API hipError_t hipFreeAsync(void *ptr, hipStream_t stream)
{
  ENTER();
  int d;
  if (!stream_ok(stream, &d))
    return leave(hipErrorInvalidHandle);
  return leave(dev_free(ptr));
}

API hipError_t hipStreamGetDevice(hipStream_t stream, hipDevice_t *device)
{
  ENTER();
  int d;
  if (!device)
    return leave(hipErrorInvalidValue);
  if (!stream_ok(stream, &d))
    return leave(hipErrorInvalidHandle);
  *device = d;
  return leave(hipSuccess);
}

API hipError_t hipHostMalloc(void **ptr, size_t size, unsigned int flags)
{
  ENTER();
  if (!ptr)
    return leave(hipErrorInvalidValue);
  if (size == 0) {
    *ptr = NULL;
    return leave(hipSuccess);
  }
  struct alloc *a = new_alloc(size, -1);
  if (!a)
    return leave(hipErrorOutOfMemory);
  *ptr = (void *)a->base;
  return leave(hipSuccess);
}

API hipError_t hipHostFree(void *ptr)
{
  ENTER();
  if (!ptr)
    return leave(hipSuccess);
  struct alloc *a = block_at(ptr, 1);
  if (!a)
    return leave(hipErrorInvalidValue);
  mprotect((void *)a->base, a->size, PROT_NONE); /* kept mapped: never reused */
  a->freed = 1;
  return leave(hipSuccess);
}

API hipError_t hipMemGetInfo(size_t *free, size_t *total)
{
  ENTER();
  if (!free || !total)
    return leave(hipErrorInvalidValue);
  const struct dev *v = &g_dev[cur()];
  if (v->lost)
    return leave(g_lost_code);
  uint64_t inuse = v->used + v->allocated;
  *free = (size_t)(inuse < v->total ? v->total - inuse : 0);
  *total = (size_t)v->total;
  return leave(hipSuccess);
}

/* One copy, checked; with the lock held. dst_dev/src_dev >= 0: the allocation must be that
 * device's (hipMemcpyPeerAsync). */
static hipError_t copy(void *dst, const void *src, size_t n, hipMemcpyKind kind, hipStream_t stream, int dst_dev,
                       int src_dev)
{
  int sdev;
  if (!stream_ok(stream, &sdev))
    return hipErrorInvalidHandle;
  if (n == 0)
    return hipSuccess;
  struct alloc *da, *sa;
  if (resolve(dst, n, &da) || resolve(src, n, &sa))
    return hipErrorInvalidValue;
  int dd = dev_of(da), ds = dev_of(sa);
  int ok;
  switch (kind) {
  case hipMemcpyHostToHost: ok = dd < 0 && ds < 0; break;
  case hipMemcpyHostToDevice: ok = dd >= 0 && ds < 0; break;
  case hipMemcpyDeviceToHost: ok = dd < 0 && ds >= 0; break;
  case hipMemcpyDeviceToDevice: ok = dd >= 0 && ds >= 0; break;
  default: ok = 1; break;
  }
  if (dst_dev >= 0 && (dd != dst_dev || ds != src_dev))
    ok = 0;
  if (!ok)
    return hipErrorInvalidValue;
  if ((dd >= 0 && g_dev[dd].lost) || (ds >= 0 && g_dev[ds].lost) || g_dev[sdev].lost)
    return g_lost_code;
  unsigned char *to = bytes_of(dst, da);
  const unsigned char *from = bytes_of(src, sa);
  if (g_lost_after >= 0 && g_copies >= g_lost_after) {
    /* lost mid-copy: the first half arrived */
    memmove(to, from, n / 2);
    if (dd >= 0)
      g_dev[dd].lost = 1;
    if (ds >= 0)
      g_dev[ds].lost = 1;
    if (dd < 0 && ds < 0)
      g_dev[sdev].lost = 1;
    return g_lost_code;
  }
  g_copies++;
  memmove(to, from, n);
  return hipSuccess;
}

API hipError_t hipMemcpyAsync(void *dst, const void *src, size_t sizeBytes, hipMemcpyKind kind, hipStream_t stream)
{
  ENTER();
  if ((unsigned)kind > hipMemcpyDefault)
    return leave(hipErrorInvalidMemcpyDirection);
  return leave(copy(dst, src, sizeBytes, kind, stream, -1, -1));
}

#ifndef HIP_DOUBLE_OLD
API hipError_t hipMemcpyPeerAsync(void *dst, int dstDeviceId, const void *src, int srcDevice, size_t sizeBytes,
                                  hipStream_t stream)
{
  ENTER();
  if (bad_dev(dstDeviceId) || bad_dev(srcDevice))
    return leave(hipErrorInvalidDevice);
  return leave(copy(dst, src, sizeBytes, hipMemcpyDeviceToDevice, stream, dstDeviceId, srcDevice));
}
#endif

API hipError_t hipMemsetAsync(void *dst, int value, size_t sizeBytes, hipStream_t stream)
{
  ENTER();
  int sdev;
  if (!stream_ok(stream, &sdev))
    return leave(hipErrorInvalidHandle);
  if (sizeBytes == 0)
    return leave(hipSuccess);
  struct alloc *a;
  if (resolve(dst, sizeBytes, &a) || !a || a->dev < 0)
    return leave(hipErrorInvalidValue);
  if (g_dev[a->dev].lost || g_dev[sdev].lost)
    return leave(g_lost_code);
  memset(bytes_of(dst, a), value, sizeBytes);
  return leave(hipSuccess);
}

/* ---- streams, events, synchronisation ---------------------------------------------------------- */

API hipError_t hipStreamCreate(hipStream_t *stream)
{
  ENTER();
  if (!stream)
    return leave(hipErrorInvalidValue);
  if (g_dev[cur()].lost)
    return leave(g_lost_code);
  struct ihipStream_t *s = calloc(1, sizeof(*s));
  if (!s)
    return leave(hipErrorOutOfMemory);
  s->dev = cur();
  s->next = g_streams;
  g_streams = s;
  *stream = s;
  return leave(hipSuccess);
}

API hipError_t hipStreamDestroy(hipStream_t stream)
{
  ENTER();
  for (struct ihipStream_t **p = &g_streams; *p; p = &(*p)->next)
    if (*p == stream) {
      *p = stream->next;
      free(stream);
      return leave(hipSuccess);
    }
  return leave(hipErrorInvalidHandle);
}

API hipError_t hipStreamSynchronize(hipStream_t stream)
{
  ENTER();
  int d;
  if (!stream_ok(stream, &d))
    return leave(hipErrorInvalidHandle);
  return leave(g_dev[d].lost ? g_lost_code : hipSuccess);
}

API hipError_t hipDeviceSynchronize(void)
{
  ENTER();
  return leave(g_dev[cur()].lost ? g_lost_code : hipSuccess);
}

API hipError_t hipEventCreate(hipEvent_t *event)
{
  ENTER();
  if (!event)
    return leave(hipErrorInvalidValue);
  struct ihipEvent_t *e = calloc(1, sizeof(*e));
  if (!e)
    return leave(hipErrorOutOfMemory);
  e->dev = cur();
  e->next = g_events;
  g_events = e;
  *event = e;
  return leave(hipSuccess);
}

API hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream)
{
  ENTER();
  int d;
  if (!event_ok(event) || !stream_ok(stream, &d))
    return leave(hipErrorInvalidHandle);
  if (g_dev[d].lost)
    return leave(g_lost_code);
  clock_gettime(CLOCK_MONOTONIC, &event->t);
  event->recorded = 1;
  event->dev = d;
  return leave(hipSuccess);
}

API hipError_t hipEventSynchronize(hipEvent_t event)
{
  ENTER();
  if (!event_ok(event))
    return leave(hipErrorInvalidHandle);
  return leave(event->recorded && g_dev[event->dev].lost ? g_lost_code : hipSuccess);
}

API hipError_t hipEventElapsedTime(float *ms, hipEvent_t start, hipEvent_t stop)
{
  ENTER();
  if (!ms)
    return leave(hipErrorInvalidValue);
  if (!event_ok(start) || !event_ok(stop) || !start->recorded || !stop->recorded)
    return leave(hipErrorInvalidHandle);
  double d = (double)(stop->t.tv_sec - start->t.tv_sec) * 1e3 + (double)(stop->t.tv_nsec - start->t.tv_nsec) / 1e6;
  *ms = (float)d;
  return leave(hipSuccess);
}

API hipError_t hipEventDestroy(hipEvent_t event)
{
  ENTER();
  for (struct ihipEvent_t **p = &g_events; *p; p = &(*p)->next)
    if (*p == event) {
      *p = event->next;
      free(event);
      return leave(hipSuccess);
    }
  return leave(hipErrorInvalidHandle);
}

/* ---- peers ---------------------------------------------------------------------------------------- */

API hipError_t hipDeviceCanAccessPeer(int *canAccessPeer, int deviceId, int peerDeviceId)
{
  ENTER();
  if (!canAccessPeer)
    return leave(hipErrorInvalidValue);
  if (bad_dev(deviceId) || bad_dev(peerDeviceId))
    return leave(hipErrorInvalidDevice);
  *canAccessPeer = deviceId != peerDeviceId;
  return leave(hipSuccess);
}

API hipError_t hipDeviceEnablePeerAccess(int peerDeviceId, unsigned int flags)
{
  ENTER();
  if (flags)
    return leave(hipErrorInvalidValue);
  int d = cur();
  if (bad_dev(peerDeviceId) || peerDeviceId == d)
    return leave(hipErrorInvalidDevice);
  if (g_dev[d].lost)
    return leave(g_lost_code);
  if (g_dev[d].peer[peerDeviceId])
    return leave(hipErrorPeerAccessAlreadyEnabled);
  g_dev[d].peer[peerDeviceId] = 1;
  return leave(hipSuccess);
}

/* ---- errors --------------------------------------------------------------------------------------- */

static const struct {
  hipError_t code;
  const char *name, *text;
} g_errors[] = {
    {hipSuccess, "hipSuccess", "no error"},
    {hipErrorInvalidValue, "hipErrorInvalidValue", "invalid argument"},
    {hipErrorOutOfMemory, "hipErrorOutOfMemory", "out of memory"},
    {hipErrorNotInitialized, "hipErrorNotInitialized", "initialization error"},
    {hipErrorDeinitialized, "hipErrorDeinitialized", "driver shutting down"},
    {hipErrorInvalidDevicePointer, "hipErrorInvalidDevicePointer", "invalid device pointer"},
    {hipErrorInvalidMemcpyDirection, "hipErrorInvalidMemcpyDirection", "invalid copy direction"},
    {hipErrorInsufficientDriver, "hipErrorInsufficientDriver", "driver version is insufficient for runtime version"},
    {hipErrorNoDevice, "hipErrorNoDevice", "no ROCm-capable device is detected"},
    {hipErrorInvalidDevice, "hipErrorInvalidDevice", "invalid device ordinal"},
    {hipErrorInvalidContext, "hipErrorInvalidContext", "invalid device context"},
    {hipErrorPeerAccessUnsupported, "hipErrorPeerAccessUnsupported",
     "peer access is not supported between these two devices"},
    {hipErrorInvalidHandle, "hipErrorInvalidHandle", "invalid resource handle"},
    {hipErrorNotReady, "hipErrorNotReady", "device not ready"},
    {hipErrorIllegalAddress, "hipErrorIllegalAddress", "an illegal memory access was encountered"},
    {hipErrorPeerAccessAlreadyEnabled, "hipErrorPeerAccessAlreadyEnabled", "peer access is already enabled"},
    {hipErrorPeerAccessNotEnabled, "hipErrorPeerAccessNotEnabled", "peer access has not been enabled"},
    {hipErrorLaunchFailure, "hipErrorLaunchFailure", "unspecified launch failure"},
    {hipErrorNotSupported, "hipErrorNotSupported", "operation not supported"},
    {hipErrorUnknown, "hipErrorUnknown", "unknown error"},
};

API const char *hipGetErrorName(hipError_t hip_error)
{
  for (size_t i = 0; i < sizeof(g_errors) / sizeof(g_errors[0]); i++)
    if (g_errors[i].code == hip_error)
      return g_errors[i].name;
  return "hipErrorUnknown";
}

API const char *hipGetErrorString(hipError_t hip_error)
{
  for (size_t i = 0; i < sizeof(g_errors) / sizeof(g_errors[0]); i++)
    if (g_errors[i].code == hip_error)
      return g_errors[i].text;
  return "unknown error";
}
