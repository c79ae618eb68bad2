/* SPDX-License-Identifier: MIT */
/* The CUDA driver API double (README.md): libcuda.so.1 with device memory in host memory,
 * the devices of an `nvidia-smi -q -x` capture (AXL_CUDA_DOUBLE_XML), and fault injection.
 * Built twice: the current driver and, with CUDA_DOUBLE_OLD, one without the later symbols. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda_types.h"
#include "xml.h"

#define API __attribute__((visibility("default")))

#define MAX_DEVICES 64
#define ALLOC_ALIGN 512u
/* device addresses: device d's allocations live at (d + 1) << 48 and up, above every
 * user-space address of x86-64 and AArch64 Linux, so a device pointer is never a valid
 * host pointer; addresses are handed out once and never reused (a freed pointer stays
 * detectable) */
#define VA_SHIFT 48
#define VA_FIRST 0x100000ull
/* opaque handles: a tag in the top 16 bits and an id that is never reused */
#define TAG_CTX      0xC7C7ull
#define TAG_STREAM   0x5757ull
#define TAG_EVENT    0xE7E7ull
#define HANG_SECONDS 3600

#ifdef CUDA_DOUBLE_OLD
#define DEFAULT_DRIVER_VERSION 10020
#else
#define DEFAULT_DRIVER_VERSION 12080
#endif

struct device {
	char name[256];
	unsigned domain, bus, dev, fn;
	unsigned char uuid[16];
	size_t total, used;
	int sms, cc_major, cc_minor;
	unsigned refs;      /* primary context retains */
	int lost;           /* AXL_CUDA_DOUBLE_LOST_AFTER reached on this device */
	uint64_t next_va;   /* bump allocator */
	uint64_t peer_mask; /* peer access enabled from this device's context to these */
};

struct alloc {
	uint64_t va;
	size_t size, charged;
	unsigned char *host;
	int dev;
};

struct hostalloc {
	void *p;
	size_t size;
};

struct stream {
	int dev;
	int live;
};

struct event {
	int dev;
	int live;
	int recorded;
	unsigned flags;
	uint64_t ns;
};

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static int g_loaded, g_init;
static int g_driver_version = DEFAULT_DRIVER_VERSION;
static struct device g_dev[MAX_DEVICES];
static int g_ndev;
static struct alloc *g_allocs;
static size_t g_nallocs, g_capallocs;
static struct hostalloc *g_hosts;
static size_t g_nhosts, g_caphosts;
static struct stream *g_streams; /* index = id - 1 */
static size_t g_nstreams;
static struct event *g_events;
static size_t g_nevents;
static long long g_oom_at = -1, g_lost_after = -1;
static long long g_copies;
static int g_lost_fired; /* the loss happens once: one device is lost */
static int g_no_p2p;
static __thread int t_ctx; /* device + 1 of the current context, 0 for none */

/* ---- environment and hangs ---------------------------------------------------------------- */
static int hang_match(const char *fn)
{
	const char *list = getenv("AXL_CUDA_DOUBLE_HANG");
	if (!list || !*list)
		return 0;
	size_t n = strlen(fn);
	for (const char *p = list; *p;) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if ((len == n && memcmp(p, fn, n) == 0) || (len == 1 && *p == '*'))
			return 1;
		if (!e)
			break;
		p = e + 1;
	}
	return 0;
}

/* sleeps without holding the lock, so other calls keep answering */
static void hang_point(const char *fn)
{
	if (!hang_match(fn))
		return;
	for (;;) {
		struct timespec t = { HANG_SECONDS, 0 }, rem;
		while (nanosleep(&t, &rem) != 0 && errno == EINTR)
			t = rem;
	}
}

static long long env_number(const char *name, int *bad)
{
	const char *s = getenv(name);
	if (!s || !*s)
		return -1;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || *end || *s == '-' || v > (unsigned long long)LLONG_MAX) {
		fprintf(stderr, "cuda_double: %s: not a number: '%s'\n", name, s);
		*bad = 1;
		return -1;
	}
	return (long long)v;
}

/* ---- the document ------------------------------------------------------------------------- */
struct product {
	const char *substr;
	int sms, major, minor;
};

/* SM counts and compute capabilities of the fixtures' products and a few more (public
 * product specifications); the first matching substring wins */
static const struct product products[] = {
	{ "H100 PCIe", 114, 9, 0 },
	{ "H100 NVL", 132, 9, 0 },
	{ "H100", 132, 9, 0 },
	{ "H200", 132, 9, 0 },
	{ "A100", 108, 8, 0 },
	{ "A30", 56, 8, 0 },
	{ "A10G", 80, 8, 6 },
	{ "Tesla T4", 40, 7, 5 },
	{ "RTX 3090", 82, 8, 6 },
	{ "RTX 3080", 68, 8, 6 },
	{ "RTX 3060", 28, 8, 6 },
	{ "RTX 2080", 46, 7, 5 },
	{ "RTX 2070", 36, 7, 5 },
	{ "RTX A5000", 64, 8, 6 },
	{ "GTX 1660 Ti", 24, 7, 5 },
	{ "GT 1030", 3, 6, 1 },
	{ "Quadro P2000", 8, 6, 1 },
	{ "Quadro P400", 2, 6, 1 },
	{ "P4", 20, 6, 1 },
	{ "RTX 4000 SFF Ada", 48, 8, 9 },
	{ "RTX PRO 6000 Blackwell Max-Q", 188, 12, 0 },
};

static int parse_bus_id(const char *s, struct device *d)
{
	unsigned dom, bus, dev, fn;
	int n = 0;
	if (!s || sscanf(s, "%x:%x:%x.%x%n", &dom, &bus, &dev, &fn, &n) != 4 || s[n] != '\0' || bus > 0xff ||
	    dev > 0x1f || fn > 7)
		return -1;
	d->domain = dom;
	d->bus = bus;
	d->dev = dev;
	d->fn = fn;
	return 0;
}

static void parse_uuid(const char *s, unsigned char out[16])
{
	memset(out, 0, 16);
	if (!s)
		return;
	if (strncmp(s, "GPU-", 4) == 0)
		s += 4;
	unsigned char tmp[16];
	int k = 0;
	for (; *s && k < 32; s++) {
		if (*s == '-')
			continue;
		int v;
		if (*s >= '0' && *s <= '9')
			v = *s - '0';
		else if (*s >= 'a' && *s <= 'f')
			v = *s - 'a' + 10;
		else if (*s >= 'A' && *s <= 'F')
			v = *s - 'A' + 10;
		else
			return;
		if (k % 2 == 0)
			tmp[k / 2] = (unsigned char)(v << 4);
		else
			tmp[k / 2] |= (unsigned char)v;
		k++;
	}
	if (k == 32 && *s == '\0')
		memcpy(out, tmp, 16);
}

/* "8192 MiB" -> bytes; 0 when it does not parse */
static size_t parse_mib(const char *s)
{
	if (!s)
		return 0;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s || strcmp(end, " MiB") != 0 || v > (SIZE_MAX >> 20))
		return 0;
	return (size_t)v << 20;
}

/* reads the document and the fault variables; lock held. 0, or a CUresult */
static CUresult load(void)
{
	if (g_loaded)
		return CUDA_SUCCESS;
	int bad = 0;
	g_oom_at = env_number("AXL_CUDA_DOUBLE_OOM_AT", &bad);
	g_lost_after = env_number("AXL_CUDA_DOUBLE_LOST_AFTER", &bad);
	const char *p2p = getenv("AXL_CUDA_DOUBLE_P2P");
	g_no_p2p = p2p && strcmp(p2p, "0") == 0;
	if (bad)
		return CUDA_ERROR_UNKNOWN;
	const char *path = getenv("AXL_CUDA_DOUBLE_XML");
	if (!path || !*path)
		return CUDA_ERROR_NO_DEVICE;
	char err[256];
	struct xml_doc *doc = xml_load(path, err, sizeof(err));
	if (!doc) {
		fprintf(stderr, "cuda_double: %s: %s\n", path, err);
		return CUDA_ERROR_UNKNOWN;
	}
	const struct xml_node *root = xml_root(doc);
	CUresult rc = CUDA_SUCCESS;
	int n = 0;
	if (!root || strcmp(root->name, "nvidia_smi_log") != 0) {
		fprintf(stderr, "cuda_double: %s: the root is not <nvidia_smi_log>\n", path);
		rc = CUDA_ERROR_UNKNOWN;
		goto out;
	}
	const char *cv = xml_path_text(root, "cuda_version");
	unsigned maj, min;
	int k = 0;
#ifndef CUDA_DOUBLE_OLD
	if (cv && sscanf(cv, "%u.%u%n", &maj, &min, &k) == 2 && cv[k] == '\0' && maj < 1000 && min < 100)
		g_driver_version = (int)(maj * 1000 + min * 10);
#else
	(void)cv, (void)maj, (void)min, (void)k;
#endif
	for (const struct xml_node *g = xml_child(root, "gpu"); g; g = xml_next_same(g)) {
		if (n == MAX_DEVICES) {
			fprintf(stderr, "cuda_double: %s: more than %d GPUs\n", path, MAX_DEVICES);
			rc = CUDA_ERROR_UNKNOWN;
			goto out;
		}
		struct device *d = &g_dev[n];
		memset(d, 0, sizeof(*d));
		const char *bus = xml_path_text(g, "pci/pci_bus_id");
		if (!bus)
			bus = xml_attr(g, "id");
		if (parse_bus_id(bus, d) != 0) {
			fprintf(stderr, "cuda_double: %s: line %u: no PCI bus id\n", path, g->line);
			rc = CUDA_ERROR_UNKNOWN;
			goto out;
		}
		const char *name = xml_path_text(g, "product_name");
		snprintf(d->name, sizeof(d->name), "%s", name ? name : "NVIDIA Graphics Device");
		parse_uuid(xml_path_text(g, "uuid"), d->uuid);
		d->total = parse_mib(xml_path_text(g, "fb_memory_usage/total"));
		d->sms = 1;
		d->cc_major = 0;
		for (size_t i = 0; i < sizeof(products) / sizeof(products[0]); i++)
			if (strstr(d->name, products[i].substr)) {
				d->sms = products[i].sms;
				d->cc_major = products[i].major;
				d->cc_minor = products[i].minor;
				break;
			}
		d->next_va = ((uint64_t)(n + 1) << VA_SHIFT) + VA_FIRST;
		n++;
	}
	if (n == 0)
		rc = CUDA_ERROR_NO_DEVICE;
out:
	xml_free(doc);
	if (rc == CUDA_SUCCESS) {
		g_ndev = n;
		g_loaded = 1;
	}
	return rc;
}

/* ---- handles ------------------------------------------------------------------------------ */
static CUcontext ctx_handle(int dev)
{
	return (CUcontext)(uintptr_t)((TAG_CTX << 48) | (uint64_t)(dev + 1));
}

/* the device of a live context, -1 for an unknown handle, -2 for a released one */
static int ctx_device(CUcontext c)
{
	uint64_t v = (uint64_t)(uintptr_t)c;
	if (v >> 48 != TAG_CTX)
		return -1;
	uint64_t id = v & 0xffffffffffffull;
	if (id == 0 || id > (uint64_t)g_ndev)
		return -1;
	return g_dev[id - 1].refs ? (int)(id - 1) : -2;
}

/* the current context's device; CUresult through rc when there is none */
static int current_device(CUresult *rc)
{
	if (t_ctx == 0 || t_ctx > g_ndev) {
		*rc = CUDA_ERROR_INVALID_CONTEXT;
		return -1;
	}
	if (!g_dev[t_ctx - 1].refs) {
		*rc = CUDA_ERROR_CONTEXT_IS_DESTROYED;
		return -1;
	}
	return t_ctx - 1;
}

static struct stream *stream_of(CUstream s)
{
	uint64_t v = (uint64_t)(uintptr_t)s;
	if (v >> 48 != TAG_STREAM)
		return NULL;
	uint64_t id = v & 0xffffffffffffull;
	if (id == 0 || id > g_nstreams || !g_streams[id - 1].live)
		return NULL;
	return &g_streams[id - 1];
}

static struct event *event_of(CUevent e)
{
	uint64_t v = (uint64_t)(uintptr_t)e;
	if (v >> 48 != TAG_EVENT)
		return NULL;
	uint64_t id = v & 0xffffffffffffull;
	if (id == 0 || id > g_nevents || !g_events[id - 1].live)
		return NULL;
	return &g_events[id - 1];
}

/* the device a stream runs on (default streams: the current context's) or -1 with rc */
static int stream_device(CUstream s, CUresult *rc)
{
	if (s == NULL || s == CU_STREAM_LEGACY || s == CU_STREAM_PER_THREAD)
		return current_device(rc);
	struct stream *st = stream_of(s);
	if (!st) {
		*rc = CUDA_ERROR_INVALID_HANDLE;
		return -1;
	}
	return st->dev;
}

/* the allocation holding [va, va + n) (n >= 1), or NULL */
static struct alloc *find_range(uint64_t va, size_t n)
{
	for (size_t i = 0; i < g_nallocs; i++) {
		struct alloc *a = &g_allocs[i];
		if (va >= a->va && va - a->va < a->size && n <= a->size - (va - a->va))
			return a;
	}
	return NULL;
}

static int is_device_address(const void *p)
{
	return ((uint64_t)(uintptr_t)p >> VA_SHIFT) != 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#define ENTER(fn)                                \
	hang_point(fn);                          \
	pthread_mutex_lock(&g_lock);             \
	CUresult rc = CUDA_SUCCESS;              \
	if (!g_init) {                           \
		rc = CUDA_ERROR_NOT_INITIALIZED; \
		goto done;                       \
	}
#define LEAVE                          \
	done:                          \
	pthread_mutex_unlock(&g_lock); \
	return rc
#define FAIL(code)           \
	do {                 \
		rc = (code); \
		goto done;   \
	} while (0)
#define DEVICE_OK(d)                                     \
	do {                                             \
		if ((d) < 0 || (d) >= g_ndev)            \
			FAIL(CUDA_ERROR_INVALID_DEVICE); \
	} while (0)
#define NOT_LOST(d)                                          \
	do {                                                 \
		if (g_dev[d].lost)                           \
			FAIL(CUDA_ERROR_DEVICE_UNAVAILABLE); \
	} while (0)

/* ---- initialisation, versions, errors ------------------------------------------------------ */
API CUresult cuInit(unsigned int flags)
{
	hang_point("cuInit");
	pthread_mutex_lock(&g_lock);
	CUresult rc = CUDA_SUCCESS;
	if (flags != 0)
		rc = CUDA_ERROR_INVALID_VALUE;
	else if (!g_init) {
		rc = load();
		if (rc == CUDA_SUCCESS)
			g_init = 1;
	}
	pthread_mutex_unlock(&g_lock);
	return rc;
}

API CUresult cuDriverGetVersion(int *version)
{
	hang_point("cuDriverGetVersion");
	if (!version)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&g_lock);
	(void)load(); /* the document's <cuda_version> when there is one */
	*version = g_driver_version;
	pthread_mutex_unlock(&g_lock);
	return CUDA_SUCCESS;
}

struct errtext {
	CUresult code;
	const char *name, *text;
};

/* names as the reference lists them; the descriptions are the double's own words */
static const struct errtext errors[] = {
	{ CUDA_SUCCESS, "CUDA_SUCCESS", "no error" },
	{ CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument" },
	{ CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory" },
	{ CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error" },
	{ CUDA_ERROR_DEINITIALIZED, "CUDA_ERROR_DEINITIALIZED", "driver shutting down" },
	{ CUDA_ERROR_STUB_LIBRARY, "CUDA_ERROR_STUB_LIBRARY", "stub library loaded instead of the driver" },
	{ CUDA_ERROR_DEVICE_UNAVAILABLE, "CUDA_ERROR_DEVICE_UNAVAILABLE", "device unavailable" },
	{ CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected" },
	{ CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal" },
	{ CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context" },
	{ CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED", "peer access is not supported" },
	{ CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle" },
	{ CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found" },
	{ CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY", "device not ready" },
	{ CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS", "illegal memory access" },
	{ CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED",
	  "peer access already enabled" },
	{ CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, "CUDA_ERROR_PEER_ACCESS_NOT_ENABLED", "peer access not enabled" },
	{ CUDA_ERROR_CONTEXT_IS_DESTROYED, "CUDA_ERROR_CONTEXT_IS_DESTROYED", "context is destroyed" },
	{ CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported" },
	{ CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN", "unknown error" },
};

static const struct errtext *errtext_of(CUresult e)
{
	for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++)
		if (errors[i].code == e)
			return &errors[i];
	return NULL;
}

API CUresult cuGetErrorName(CUresult error, const char **str)
{
	if (!str)
		return CUDA_ERROR_INVALID_VALUE;
	const struct errtext *t = errtext_of(error);
	*str = t ? t->name : NULL;
	return t ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

API CUresult cuGetErrorString(CUresult error, const char **str)
{
	if (!str)
		return CUDA_ERROR_INVALID_VALUE;
	const struct errtext *t = errtext_of(error);
	*str = t ? t->text : NULL;
	return t ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* ---- devices ------------------------------------------------------------------------------ */
API CUresult cuDeviceGetCount(int *count)
{
	ENTER("cuDeviceGetCount");
	if (!count)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	*count = g_ndev;
	LEAVE;
}

API CUresult cuDeviceGet(CUdevice *device, int ordinal)
{
	ENTER("cuDeviceGet");
	if (!device)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	DEVICE_OK(ordinal);
	*device = ordinal;
	LEAVE;
}

API CUresult cuDeviceGetName(char *name, int len, CUdevice dev)
{
	ENTER("cuDeviceGetName");
	if (!name || len <= 0)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	DEVICE_OK(dev);
	snprintf(name, (size_t)len, "%s", g_dev[dev].name);
	LEAVE;
}

API CUresult cuDeviceGetPCIBusId(char *pciBusId, int len, CUdevice dev)
{
	ENTER("cuDeviceGetPCIBusId");
	if (!pciBusId || len <= 0)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	DEVICE_OK(dev);
	const struct device *d = &g_dev[dev];
	snprintf(pciBusId, (size_t)len, "%04X:%02X:%02X.%X", d->domain, d->bus, d->dev, d->fn);
	LEAVE;
}

static CUresult get_uuid(const char *fn, CUuuid *uuid, CUdevice dev)
{
	ENTER(fn);
	if (!uuid)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	DEVICE_OK(dev);
	memcpy(uuid->bytes, g_dev[dev].uuid, 16);
	LEAVE;
}

API CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice dev)
{
	return get_uuid("cuDeviceGetUuid", uuid, dev);
}
#ifndef CUDA_DOUBLE_OLD
API CUresult cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev)
{
	return get_uuid("cuDeviceGetUuid_v2", uuid, dev);
}
#endif

API CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev)
{
	ENTER("cuDeviceTotalMem_v2");
	if (!bytes)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	DEVICE_OK(dev);
	*bytes = g_dev[dev].total;
	LEAVE;
}

API CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev)
{
	ENTER("cuDeviceGetAttribute");
	if (!pi)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	DEVICE_OK(dev);
	const struct device *d = &g_dev[dev];
	switch ((int)attrib) {
	case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *pi = 1024; break;
	case CU_DEVICE_ATTRIBUTE_WARP_SIZE: *pi = 32; break;
	case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *pi = d->sms; break;
	case CU_DEVICE_ATTRIBUTE_INTEGRATED: *pi = 0; break;
	case CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY: *pi = 1; break;
	case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID: *pi = (int)d->bus; break;
	case CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID: *pi = (int)d->dev; break;
	case CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT: *pi = 2; break;
	case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: *pi = 1; break;
	case CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID: *pi = (int)d->domain; break;
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
		if (!d->cc_major)
			FAIL(CUDA_ERROR_NOT_SUPPORTED);
		*pi = attrib == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR ? d->cc_major : d->cc_minor;
		break;
	default: FAIL(CUDA_ERROR_INVALID_VALUE);
	}
	LEAVE;
}

API CUresult cuDeviceCanAccessPeer(int *canAccessPeer, CUdevice dev, CUdevice peerDev)
{
	ENTER("cuDeviceCanAccessPeer");
	if (!canAccessPeer)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	DEVICE_OK(dev);
	DEVICE_OK(peerDev);
	NOT_LOST(dev);
	NOT_LOST(peerDev);
	*canAccessPeer = dev != peerDev && !g_no_p2p;
	LEAVE;
}

/* ---- contexts ----------------------------------------------------------------------------- */
API CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
	ENTER("cuDevicePrimaryCtxRetain");
	if (!pctx)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	DEVICE_OK(dev);
	NOT_LOST(dev);
	g_dev[dev].refs++;
	*pctx = ctx_handle(dev);
	LEAVE;
}

/* the last release destroys the context: its memory, streams, events and peer mappings */
static CUresult primary_release(const char *fn, CUdevice dev)
{
	ENTER(fn);
	DEVICE_OK(dev);
	struct device *d = &g_dev[dev];
	if (!d->refs)
		FAIL(CUDA_ERROR_INVALID_CONTEXT);
	if (--d->refs)
		goto done;
	size_t j = 0;
	for (size_t i = 0; i < g_nallocs; i++) {
		if (g_allocs[i].dev == dev) {
			free(g_allocs[i].host);
			d->used -= g_allocs[i].charged;
		} else
			g_allocs[j++] = g_allocs[i];
	}
	g_nallocs = j;
	for (size_t i = 0; i < g_nstreams; i++)
		if (g_streams[i].dev == dev)
			g_streams[i].live = 0;
	for (size_t i = 0; i < g_nevents; i++)
		if (g_events[i].dev == dev)
			g_events[i].live = 0;
	d->peer_mask = 0;
	for (int i = 0; i < g_ndev; i++)
		g_dev[i].peer_mask &= ~(1ull << dev);
	LEAVE;
}

API CUresult cuDevicePrimaryCtxRelease(CUdevice dev)
{
	return primary_release("cuDevicePrimaryCtxRelease", dev);
}
#ifndef CUDA_DOUBLE_OLD
API CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
	return primary_release("cuDevicePrimaryCtxRelease_v2", dev);
}
#endif

API CUresult cuCtxSetCurrent(CUcontext ctx)
{
	ENTER("cuCtxSetCurrent");
	if (ctx == NULL) {
		t_ctx = 0;
		goto done;
	}
	int dev = ctx_device(ctx);
	if (dev == -1)
		FAIL(CUDA_ERROR_INVALID_CONTEXT);
	if (dev == -2)
		FAIL(CUDA_ERROR_CONTEXT_IS_DESTROYED);
	t_ctx = dev + 1;
	LEAVE;
}

API CUresult cuCtxGetCurrent(CUcontext *pctx)
{
	ENTER("cuCtxGetCurrent");
	if (!pctx)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	*pctx = t_ctx ? ctx_handle(t_ctx - 1) : NULL;
	LEAVE;
}

API CUresult cuCtxSynchronize(void)
{
	ENTER("cuCtxSynchronize");
	int dev = current_device(&rc);
	if (dev < 0)
		goto done;
	NOT_LOST(dev);
	LEAVE;
}

API CUresult cuCtxEnablePeerAccess(CUcontext peerContext, unsigned int flags)
{
	ENTER("cuCtxEnablePeerAccess");
	int dev = current_device(&rc);
	if (dev < 0)
		goto done;
	if (flags != 0)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	int peer = ctx_device(peerContext);
	if (peer < 0)
		FAIL(CUDA_ERROR_INVALID_CONTEXT);
	NOT_LOST(dev);
	NOT_LOST(peer);
	if (peer == dev || g_no_p2p)
		FAIL(CUDA_ERROR_PEER_ACCESS_UNSUPPORTED);
	if (g_dev[dev].peer_mask & (1ull << peer))
		FAIL(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED);
	g_dev[dev].peer_mask |= 1ull << peer;
	LEAVE;
}

/* ---- memory ------------------------------------------------------------------------------- */
static int grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t n = *cap ? *cap * 2 : 16;
	while (n < need)
		n *= 2;
	void *p = realloc(*arr, n * elem);
	if (!p)
		return -1;
	*arr = p;
	*cap = n;
	return 0;
}

static int oom_fault(size_t size)
{
	return g_oom_at >= 0 && (unsigned long long)size >= (unsigned long long)g_oom_at;
}

API CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
	ENTER("cuMemAlloc_v2");
	int dev = current_device(&rc);
	if (dev < 0)
		goto done;
	if (!dptr || bytesize == 0)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	NOT_LOST(dev);
	struct device *d = &g_dev[dev];
	if (bytesize > SIZE_MAX - ALLOC_ALIGN)
		FAIL(CUDA_ERROR_OUT_OF_MEMORY);
	size_t charged = (bytesize + ALLOC_ALIGN - 1) / ALLOC_ALIGN * ALLOC_ALIGN;
	if (oom_fault(bytesize) || charged > d->total - d->used)
		FAIL(CUDA_ERROR_OUT_OF_MEMORY);
	if (grow((void **)&g_allocs, &g_capallocs, g_nallocs + 1, sizeof(*g_allocs)) != 0)
		FAIL(CUDA_ERROR_OUT_OF_MEMORY);
	unsigned char *host = malloc(bytesize);
	if (!host)
		FAIL(CUDA_ERROR_OUT_OF_MEMORY);
	struct alloc *a = &g_allocs[g_nallocs++];
	a->va = d->next_va;
	a->size = bytesize;
	a->charged = charged;
	a->host = host;
	a->dev = dev;
	d->next_va += charged + ALLOC_ALIGN; /* a gap: one past the end is nobody's */
	d->used += charged;
	*dptr = a->va;
	LEAVE;
}

API CUresult cuMemFree_v2(CUdeviceptr dptr)
{
	ENTER("cuMemFree_v2");
	size_t i;
	for (i = 0; i < g_nallocs; i++)
		if (g_allocs[i].va == dptr)
			break;
	if (i == g_nallocs)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	NOT_LOST(g_allocs[i].dev);
	free(g_allocs[i].host);
	g_dev[g_allocs[i].dev].used -= g_allocs[i].charged;
	g_allocs[i] = g_allocs[--g_nallocs];
	LEAVE;
}

API CUresult cuMemHostAlloc(void **pp, size_t bytesize, unsigned int flags)
{
	ENTER("cuMemHostAlloc");
	int dev = current_device(&rc);
	if (dev < 0)
		goto done;
	if (!pp || bytesize == 0 ||
	    (flags & ~(CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_WRITECOMBINED)))
		FAIL(CUDA_ERROR_INVALID_VALUE);
	NOT_LOST(dev);
	if (oom_fault(bytesize))
		FAIL(CUDA_ERROR_OUT_OF_MEMORY);
	if (grow((void **)&g_hosts, &g_caphosts, g_nhosts + 1, sizeof(*g_hosts)) != 0)
		FAIL(CUDA_ERROR_OUT_OF_MEMORY);
	void *p = NULL;
	if (posix_memalign(&p, 4096, bytesize) != 0)
		FAIL(CUDA_ERROR_OUT_OF_MEMORY);
	g_hosts[g_nhosts].p = p;
	g_hosts[g_nhosts++].size = bytesize;
	*pp = p;
	LEAVE;
}

API CUresult cuMemFreeHost(void *p)
{
	ENTER("cuMemFreeHost");
	size_t i;
	for (i = 0; i < g_nhosts; i++)
		if (g_hosts[i].p == p)
			break;
	if (!p || i == g_nhosts)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	free(p);
	g_hosts[i] = g_hosts[--g_nhosts];
	LEAVE;
}

static CUresult mem_info(const char *fn, size_t *fr, size_t *total)
{
	ENTER(fn);
	int dev = current_device(&rc);
	if (dev < 0)
		goto done;
	if (!fr || !total)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	NOT_LOST(dev);
	*fr = g_dev[dev].total - g_dev[dev].used;
	*total = g_dev[dev].total;
	LEAVE;
}

API CUresult cuMemGetInfo(unsigned int *fr, unsigned int *total)
{
	if (!fr || !total)
		return CUDA_ERROR_INVALID_VALUE;
	size_t f = 0, t = 0;
	CUresult rc = mem_info("cuMemGetInfo", &f, &t);
	if (rc == CUDA_SUCCESS) {
		*fr = f > UINT_MAX ? UINT_MAX : (unsigned)f;
		*total = t > UINT_MAX ? UINT_MAX : (unsigned)t;
	}
	return rc;
}

#ifndef CUDA_DOUBLE_OLD
API CUresult cuMemGetInfo_v2(size_t *fr, size_t *total)
{
	return mem_info("cuMemGetInfo_v2", fr, total);
}
#endif

/* ---- copies ------------------------------------------------------------------------------- */
/* One copy (memmove: overlapping device ranges are allowed); counts it for
 * AXL_CUDA_DOUBLE_LOST_AFTER. `victim` is the device that is lost when the count is reached:
 * it copies half the bytes and answers CUDA_ERROR_DEVICE_UNAVAILABLE */
static CUresult do_copy(void *dst, const void *src, size_t n, int victim)
{
	if (g_lost_after >= 0 && !g_lost_fired && g_copies >= g_lost_after) {
		memmove(dst, src, n / 2);
		g_dev[victim].lost = 1;
		g_lost_fired = 1;
		return CUDA_ERROR_DEVICE_UNAVAILABLE;
	}
	g_copies++;
	memmove(dst, src, n);
	return CUDA_SUCCESS;
}

API CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dstDevice, const void *srcHost, size_t byteCount, CUstream stream)
{
	ENTER("cuMemcpyHtoDAsync_v2");
	int sdev = stream_device(stream, &rc);
	if (sdev < 0)
		goto done;
	if (byteCount == 0)
		goto done;
	struct alloc *a = find_range(dstDevice, byteCount);
	if (!srcHost || is_device_address(srcHost) || !a)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	NOT_LOST(sdev);
	NOT_LOST(a->dev);
	rc = do_copy(a->host + (dstDevice - a->va), srcHost, byteCount, a->dev);
	LEAVE;
}

API CUresult cuMemcpyDtoHAsync_v2(void *dstHost, CUdeviceptr srcDevice, size_t byteCount, CUstream stream)
{
	ENTER("cuMemcpyDtoHAsync_v2");
	int sdev = stream_device(stream, &rc);
	if (sdev < 0)
		goto done;
	if (byteCount == 0)
		goto done;
	struct alloc *a = find_range(srcDevice, byteCount);
	if (!dstHost || is_device_address(dstHost) || !a)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	NOT_LOST(sdev);
	NOT_LOST(a->dev);
	rc = do_copy(dstHost, a->host + (srcDevice - a->va), byteCount, a->dev);
	LEAVE;
}

API CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t byteCount, CUstream stream)
{
	ENTER("cuMemcpyDtoDAsync_v2");
	int sdev = stream_device(stream, &rc);
	if (sdev < 0)
		goto done;
	if (byteCount == 0)
		goto done;
	struct alloc *d = find_range(dstDevice, byteCount), *s = find_range(srcDevice, byteCount);
	if (!d || !s)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	NOT_LOST(sdev);
	NOT_LOST(d->dev);
	NOT_LOST(s->dev);
	rc = do_copy(d->host + (dstDevice - d->va), s->host + (srcDevice - s->va), byteCount, d->dev);
	LEAVE;
}

#ifndef CUDA_DOUBLE_OLD
API CUresult cuMemcpyPeerAsync(CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice, CUcontext srcContext,
			       size_t byteCount, CUstream stream)
{
	ENTER("cuMemcpyPeerAsync");
	int sdev = stream_device(stream, &rc);
	if (sdev < 0)
		goto done;
	int ddev = ctx_device(dstContext), srdev = ctx_device(srcContext);
	if (ddev < 0 || srdev < 0)
		FAIL(CUDA_ERROR_INVALID_CONTEXT);
	if (byteCount == 0)
		goto done;
	struct alloc *d = find_range(dstDevice, byteCount), *s = find_range(srcDevice, byteCount);
	/* each pointer must belong to its context's device */
	if (!d || !s || d->dev != ddev || s->dev != srdev)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	NOT_LOST(sdev);
	NOT_LOST(ddev);
	NOT_LOST(srdev);
	rc = do_copy(d->host + (dstDevice - d->va), s->host + (srcDevice - s->va), byteCount, ddev);
	LEAVE;
}
#endif

API CUresult cuMemsetD8Async(CUdeviceptr dstDevice, unsigned char uc, size_t n, CUstream stream)
{
	ENTER("cuMemsetD8Async");
	int sdev = stream_device(stream, &rc);
	if (sdev < 0)
		goto done;
	if (n == 0)
		goto done;
	struct alloc *a = find_range(dstDevice, n);
	if (!a)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	NOT_LOST(sdev);
	NOT_LOST(a->dev);
	memset(a->host + (dstDevice - a->va), uc, n);
	LEAVE;
}

/* ---- streams and events ------------------------------------------------------------------- */
API CUresult cuStreamCreate(CUstream *phStream, unsigned int flags)
{
	ENTER("cuStreamCreate");
	int dev = current_device(&rc);
	if (dev < 0)
		goto done;
	if (!phStream || (flags & ~CU_STREAM_NON_BLOCKING))
		FAIL(CUDA_ERROR_INVALID_VALUE);
	NOT_LOST(dev);
	struct stream *s = realloc(g_streams, (g_nstreams + 1) * sizeof(*s));
	if (!s)
		FAIL(CUDA_ERROR_OUT_OF_MEMORY);
	g_streams = s;
	g_streams[g_nstreams].dev = dev;
	g_streams[g_nstreams].live = 1;
	g_nstreams++;
	*phStream = (CUstream)(uintptr_t)((TAG_STREAM << 48) | (uint64_t)g_nstreams);
	LEAVE;
}

API CUresult cuStreamDestroy_v2(CUstream stream)
{
	ENTER("cuStreamDestroy_v2");
	struct stream *s = stream_of(stream);
	if (!s)
		FAIL(CUDA_ERROR_INVALID_HANDLE);
	s->live = 0; /* destroying a stream of a lost device still releases it */
	LEAVE;
}

API CUresult cuStreamSynchronize(CUstream stream)
{
	ENTER("cuStreamSynchronize");
	int dev = stream_device(stream, &rc);
	if (dev < 0)
		goto done;
	NOT_LOST(dev); /* copies ran at enqueue: nothing is pending */
	LEAVE;
}

API CUresult cuEventCreate(CUevent *phEvent, unsigned int flags)
{
	ENTER("cuEventCreate");
	int dev = current_device(&rc);
	if (dev < 0)
		goto done;
	if (!phEvent || (flags & ~(CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS)))
		FAIL(CUDA_ERROR_INVALID_VALUE);
	/* the reference: INTERPROCESS needs DISABLE_TIMING */
	if ((flags & CU_EVENT_INTERPROCESS) && !(flags & CU_EVENT_DISABLE_TIMING))
		FAIL(CUDA_ERROR_INVALID_VALUE);
	NOT_LOST(dev);
	struct event *e = realloc(g_events, (g_nevents + 1) * sizeof(*e));
	if (!e)
		FAIL(CUDA_ERROR_OUT_OF_MEMORY);
	g_events = e;
	memset(&g_events[g_nevents], 0, sizeof(*e));
	g_events[g_nevents].dev = dev;
	g_events[g_nevents].live = 1;
	g_events[g_nevents].flags = flags;
	g_nevents++;
	*phEvent = (CUevent)(uintptr_t)((TAG_EVENT << 48) | (uint64_t)g_nevents);
	LEAVE;
}

API CUresult cuEventRecord(CUevent event, CUstream stream)
{
	ENTER("cuEventRecord");
	struct event *e = event_of(event);
	if (!e)
		FAIL(CUDA_ERROR_INVALID_HANDLE);
	int sdev = stream_device(stream, &rc);
	if (sdev < 0)
		goto done;
	if (sdev != e->dev) /* an event and a stream of different contexts */
		FAIL(CUDA_ERROR_INVALID_HANDLE);
	NOT_LOST(sdev);
	e->recorded = 1;
	e->ns = now_ns();
	LEAVE;
}

API CUresult cuEventSynchronize(CUevent event)
{
	ENTER("cuEventSynchronize");
	struct event *e = event_of(event);
	if (!e)
		FAIL(CUDA_ERROR_INVALID_HANDLE);
	NOT_LOST(e->dev);
	LEAVE;
}

API CUresult cuEventElapsedTime(float *pMilliseconds, CUevent start, CUevent end)
{
	ENTER("cuEventElapsedTime");
	if (!pMilliseconds)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	struct event *a = event_of(start), *b = event_of(end);
	if (!a || !b)
		FAIL(CUDA_ERROR_INVALID_HANDLE);
	NOT_LOST(a->dev);
	NOT_LOST(b->dev);
	/* the reference: never recorded, or created with DISABLE_TIMING: INVALID_HANDLE */
	if (!a->recorded || !b->recorded || ((a->flags | b->flags) & CU_EVENT_DISABLE_TIMING))
		FAIL(CUDA_ERROR_INVALID_HANDLE);
	*pMilliseconds = (float)((double)((int64_t)(b->ns - a->ns)) / 1e6);
	LEAVE;
}

API CUresult cuEventDestroy_v2(CUevent event)
{
	ENTER("cuEventDestroy_v2");
	struct event *e = event_of(event);
	if (!e)
		FAIL(CUDA_ERROR_INVALID_HANDLE);
	e->live = 0;
	LEAVE;
}
