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
#include <unistd.h>

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
#define TAG_OBJ      0x0B00ull /* | the object's kind */
#define TAG_NODE     0x0D0Dull
#define HANG_SECONDS 3600
#define RING         512
#define VMM_GRANULARITY (2u << 20)
/* reserved virtual ranges (cuMemAddressReserve) live above every device's range */
#define VA_RESERVED_BASE (0x80ull << VA_SHIFT)

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
	uint64_t busy_until;   /* the simulated clock: when the last enqueued kernel ends */
	uint64_t ring[RING][2]; /* the last RING kernels' [start, end) in CLOCK_MONOTONIC ns */
	unsigned ring_next, ring_n;
	uint64_t last_query;   /* axl_cuda_double_utilization */
	size_t ckpt_used;      /* used memory while checkpointed */
	unsigned default_pool; /* object id, 0 until asked for */
	/* the graph memory pool: what graph launches and uploads mapped (in used), and of it
	 * what live graph allocations hold; the high-water marks */
	size_t gp_reserved, gp_used, gp_reserved_high, gp_used_high;
};

#define GRAPH_POOL 0xffffffffu /* struct alloc's pool: a graph allocation (the graph pool's) */

struct alloc {
	uint64_t va;
	size_t size, charged;
	unsigned char *host;
	int dev;
	int mapped;    /* a cuMemMap view of a cuMemCreate handle: host belongs to the handle */
	unsigned pool; /* object id of the pool it came from (cuMemAllocAsync, ...FromPoolAsync), 0 */
};

struct hostalloc {
	void *p;
	size_t size;
};

struct stream {
	int dev;
	int live;
	uint64_t done_at;  /* when its last kernel ends */
	unsigned capture;  /* object id of the graph it captures into, 0 */
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
static int g_ckpt_state;   /* CUprocessState */
static void release_device_objects(int dev);
static void pool_uncharge(unsigned pool, size_t n);
static void pools_sync(int dev);
static int pool_keep(unsigned pool, size_t n);
static void sleep_until(uint64_t ns);
static void util_file_start(void);

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
#define NOT_CHECKPOINTED()                                     \
	do {                                                   \
		if (g_ckpt_state == CU_PROCESS_STATE_CHECKPOINTED) \
			FAIL(CUDA_ERROR_ILLEGAL_STATE);          \
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
		if (rc == CUDA_SUCCESS) {
			g_init = 1;
			util_file_start();
		}
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
	{ CUDA_ERROR_ILLEGAL_STATE, "CUDA_ERROR_ILLEGAL_STATE", "operation not allowed in this state" },
	{ CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "not a module the double reads" },
	{ CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED",
	  "operation not permitted while capturing" },
	{ CUDA_ERROR_STREAM_CAPTURE_UNMATCHED, "CUDA_ERROR_STREAM_CAPTURE_UNMATCHED", "stream is not capturing" },
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

/* CUDA 3.1's: saturates at 4 GiB - 1 */
API CUresult cuDeviceTotalMem(unsigned int *bytes, CUdevice dev)
{
	ENTER("cuDeviceTotalMem");
	if (!bytes)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	DEVICE_OK(dev);
	*bytes = g_dev[dev].total > UINT_MAX ? UINT_MAX : (unsigned)g_dev[dev].total;
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
	if (d->refs == 1)
		NOT_CHECKPOINTED();
	if (--d->refs)
		goto done;
	size_t j = 0;
	for (size_t i = 0; i < g_nallocs; i++) {
		if (g_allocs[i].dev == dev) {
			if (!g_allocs[i].mapped)
				free(g_allocs[i].host);
			if (g_allocs[i].pool != GRAPH_POOL) /* the graph pool goes whole, below */
				d->used -= g_allocs[i].charged;
			pool_uncharge(g_allocs[i].pool, g_allocs[i].charged);
		} else
			g_allocs[j++] = g_allocs[i];
	}
	g_nallocs = j;
	d->used -= d->gp_reserved;
	d->gp_reserved = d->gp_used = 0;
	for (size_t i = 0; i < g_nstreams; i++)
		if (g_streams[i].dev == dev)
			g_streams[i].live = 0;
	for (size_t i = 0; i < g_nevents; i++)
		if (g_events[i].dev == dev)
			g_events[i].live = 0;
	release_device_objects(dev);
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

/* the current context's device (the limiter charges allocations to it) */
API CUresult cuCtxGetDevice(CUdevice *device)
{
	ENTER("cuCtxGetDevice");
	if (!device)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	int dev = current_device(&rc);
	if (dev < 0)
		goto done;
	*device = dev;
	LEAVE;
}

static CUresult ctx_sync(uint64_t *until)
{
	ENTER("cuCtxSynchronize");
	int dev = current_device(&rc);
	if (dev < 0)
		goto done;
	NOT_LOST(dev);
	*until = g_dev[dev].busy_until;
	pools_sync(dev);
	LEAVE;
}

API CUresult cuCtxSynchronize(void)
{
	uint64_t until = 0;
	CUresult rc = ctx_sync(&until);
	if (rc == CUDA_SUCCESS)
		sleep_until(until);
	return rc;
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

/* legacy (CUDA 3.1) allocations' addresses fit 32 bits: their own window, below every
 * device's (is_device_address does not know them: they are allocated, counted and freed,
 * not copied to) */
#define VA32_FIRST 0x10000000ull
#define VA32_END   0x100000000ull
static uint64_t g_next_va32 = VA32_FIRST;

static CUresult alloc_in(int dev, CUdeviceptr *dptr, size_t bytesize, unsigned pool, uint64_t *cursor, uint64_t end);

/* one allocation of device memory on dev, charged to it (and to a pool); lock held */
static CUresult alloc_on(int dev, CUdeviceptr *dptr, size_t bytesize, unsigned pool)
{
	return alloc_in(dev, dptr, bytesize, pool, &g_dev[dev].next_va, UINT64_MAX);
}

/* the same at addresses from *cursor, below end */
static CUresult alloc_in(int dev, CUdeviceptr *dptr, size_t bytesize, unsigned pool, uint64_t *cursor, uint64_t end)
{
	CUresult rc = CUDA_SUCCESS;
	if (!dptr || bytesize == 0)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	NOT_LOST(dev);
	NOT_CHECKPOINTED();
	struct device *d = &g_dev[dev];
	if (bytesize > SIZE_MAX - ALLOC_ALIGN)
		FAIL(CUDA_ERROR_OUT_OF_MEMORY);
	size_t charged = (bytesize + ALLOC_ALIGN - 1) / ALLOC_ALIGN * ALLOC_ALIGN;
	if (oom_fault(bytesize) || charged > d->total - d->used || *cursor > end ||
	    end - *cursor < charged + ALLOC_ALIGN)
		FAIL(CUDA_ERROR_OUT_OF_MEMORY);
	if (grow((void **)&g_allocs, &g_capallocs, g_nallocs + 1, sizeof(*g_allocs)) != 0)
		FAIL(CUDA_ERROR_OUT_OF_MEMORY);
	unsigned char *host = malloc(bytesize);
	if (!host)
		FAIL(CUDA_ERROR_OUT_OF_MEMORY);
	struct alloc *a = &g_allocs[g_nallocs++];
	a->va = *cursor;
	a->size = bytesize;
	a->charged = charged;
	a->host = host;
	a->dev = dev;
	a->mapped = 0;
	a->pool = pool;
	*cursor += charged + ALLOC_ALIGN; /* a gap: one past the end is nobody's */
	d->used += charged;
	*dptr = a->va;
done:
	return rc;
}

API CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
	ENTER("cuMemAlloc_v2");
	int dev = current_device(&rc);
	if (dev < 0)
		goto done;
	rc = alloc_on(dev, dptr, bytesize, 0);
	LEAVE;
}

/* CUDA 3.1's: a 32-bit pointer, from the low window */
API CUresult cuMemAlloc(CUdeviceptr_v1 *dptr, unsigned int bytesize)
{
	ENTER("cuMemAlloc");
	int dev = current_device(&rc);
	if (dev < 0)
		goto done;
	if (!dptr)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	CUdeviceptr p = 0;
	rc = alloc_in(dev, &p, bytesize, 0, &g_next_va32, VA32_END);
	if (rc == CUDA_SUCCESS)
		*dptr = (CUdeviceptr_v1)p;
	LEAVE;
}

/* frees what alloc_on gave; lock held */
static CUresult free_va(CUdeviceptr dptr)
{
	CUresult rc = CUDA_SUCCESS;
	size_t i;
	for (i = 0; i < g_nallocs; i++)
		if (g_allocs[i].va == dptr && !g_allocs[i].mapped)
			break;
	if (i == g_nallocs)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	NOT_LOST(g_allocs[i].dev);
	NOT_CHECKPOINTED();
	free(g_allocs[i].host);
	if (g_allocs[i].pool == GRAPH_POOL) /* back to the graph pool, which keeps it mapped */
		g_dev[g_allocs[i].dev].gp_used -= g_allocs[i].charged;
	else if (!pool_keep(g_allocs[i].pool, g_allocs[i].charged)) /* a pool keeps it reserved */
		g_dev[g_allocs[i].dev].used -= g_allocs[i].charged;
	pool_uncharge(g_allocs[i].pool, g_allocs[i].charged);
	g_allocs[i] = g_allocs[--g_nallocs];
done:
	return rc;
}

API CUresult cuMemFree_v2(CUdeviceptr dptr)
{
	ENTER("cuMemFree_v2");
	rc = free_va(dptr);
	LEAVE;
}

API CUresult cuMemFree(CUdeviceptr_v1 dptr)
{
	ENTER("cuMemFree");
	rc = free_va(dptr);
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
	memset(&g_streams[g_nstreams], 0, sizeof(*s));
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

/* when the work enqueued on a stream so far ends (default streams: all of the device's) */
static uint64_t stream_done(CUstream s, int dev)
{
	struct stream *st = stream_of(s);
	return st ? st->done_at : g_dev[dev].busy_until;
}

static CUresult stream_sync(CUstream stream, uint64_t *until, int query)
{
	ENTER(query ? "cuStreamQuery" : "cuStreamSynchronize");
	int dev = stream_device(stream, &rc);
	if (dev < 0)
		goto done;
	NOT_LOST(dev); /* copies ran at enqueue; kernels end on the device's clock */
	struct stream *st = stream_of(stream);
	if (st && st->capture)
		FAIL(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
	*until = stream_done(stream, dev);
	if (!query)
		pools_sync(dev);
	LEAVE;
}

API CUresult cuStreamSynchronize(CUstream stream)
{
	uint64_t until = 0;
	CUresult rc = stream_sync(stream, &until, 0);
	if (rc == CUDA_SUCCESS)
		sleep_until(until);
	return rc;
}

API CUresult cuStreamQuery(CUstream stream)
{
	uint64_t until = 0;
	CUresult rc = stream_sync(stream, &until, 1);
	if (rc == CUDA_SUCCESS && now_ns() < until)
		rc = CUDA_ERROR_NOT_READY;
	return rc;
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
	uint64_t end = stream_done(stream, sdev); /* the event completes when the stream's work does */
	if (end > e->ns)
		e->ns = end;
	LEAVE;
}

static CUresult event_sync(CUevent event, uint64_t *until, int query)
{
	ENTER(query ? "cuEventQuery" : "cuEventSynchronize");
	struct event *e = event_of(event);
	if (!e)
		FAIL(CUDA_ERROR_INVALID_HANDLE);
	NOT_LOST(e->dev);
	*until = e->recorded ? e->ns : 0;
	if (!query)
		pools_sync(e->dev);
	LEAVE;
}

API CUresult cuEventSynchronize(CUevent event)
{
	uint64_t until = 0;
	CUresult rc = event_sync(event, &until, 0);
	if (rc == CUDA_SUCCESS)
		sleep_until(until);
	return rc;
}

API CUresult cuEventQuery(CUevent event)
{
	uint64_t until = 0;
	CUresult rc = event_sync(event, &until, 1);
	if (rc == CUDA_SUCCESS && now_ns() < until)
		rc = CUDA_ERROR_NOT_READY;
	return rc;
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

/* ---- objects: pools, VMM handles, arrays, modules, functions, graphs, executable graphs ---- */
enum { OBJ_POOL = 1, OBJ_VMM, OBJ_ARRAY, OBJ_MIPMAP, OBJ_MODULE, OBJ_FUNCTION, OBJ_GRAPH, OBJ_EXEC };

#define MAX_KERNELS 32
struct node {
	CUgraphNodeType type;   /* kernel, memory allocation or free */
	CUfunction func;
	unsigned grid[3], block[3], shmem;
	unsigned long long dur; /* microseconds */
	void *params[1];        /* -> dur: what cuGraphKernelNodeGetParams_v2 hands out */
	int dev;                /* memory nodes: the device, bytes, the address */
	size_t bytes;
	uint64_t va;
};

static CUresult graph_add_mem(unsigned graph, CUgraphNodeType type, int dev, size_t bytes, uint64_t va,
			      CUgraphNode *out);
static uint64_t graph_va(int dev, size_t bytes);

struct obj {
	int kind, live, dev;
	size_t charged;          /* device memory it holds (VMM handles, arrays) */
	unsigned char *host;     /* VMM handles' memory */
	size_t size;
	unsigned maps;           /* VMM handles: live cuMemMap views and pieces mapped into arrays */
	unsigned refs;           /* VMM handles: cuMemCreate's and each cuMemRetainAllocationHandle's */
	int tilepool;            /* VMM handles: made with CU_MEM_CREATE_USAGE_TILE_POOL */
	/* sparse and deferred-mapping arrays (cuMemMapArrayAsync): the creation flags, the shape
	 * (width, height, depth or layers as created; layered or cubemap; levels; bytes an
	 * element) and the tile pool memory mapped into them */
	unsigned aflags, alayered, alevels, aelem;
	size_t aw, ah, ad;
	struct tmap *tmaps;
	size_t ntmaps, captmaps;
	size_t pool_used, pool_high, pool_res_high; /* pools */
	size_t pool_kept;        /* pools: freed memory still reserved (until a sync trims it) */
	size_t pool_threshold;   /* pools: CU_MEMPOOL_ATTR_RELEASE_THRESHOLD */
	int is_default;
	char names[MAX_KERNELS][64]; /* modules: the kernels */
	unsigned nnames;
	unsigned module, index;      /* functions */
	struct node **nodes;         /* graphs, executable graphs */
	size_t nnodes, capnodes;
};

/* a box of an array's subresource mapped to a tile pool (cuMemMapArrayAsync): a sparse
 * level's elements [lo, hi) of one level and layer, a mip tail's bytes [lo[0], hi[0]) of one
 * layer, or a deferred-mapping array whole */
enum { TMAP_LEVEL, TMAP_MIPTAIL, TMAP_WHOLE };
struct tmap {
	int sub;
	unsigned level, layer;
	uint64_t lo[3], hi[3];
	unsigned pool; /* the VMM handle's object id */
};

static struct obj *g_objs; /* index = id - 1; ids are never reused */
static void tmaps_drop(struct obj *o);
static size_t g_nobjs, g_capobjs;

static unsigned obj_new(int kind, int dev)
{
	if (grow((void **)&g_objs, &g_capobjs, g_nobjs + 1, sizeof(*g_objs)) != 0)
		return 0;
	struct obj *o = &g_objs[g_nobjs++];
	memset(o, 0, sizeof(*o));
	o->kind = kind;
	o->live = 1;
	o->dev = dev;
	return (unsigned)g_nobjs;
}

static uint64_t obj_handle(unsigned id)
{
	return ((TAG_OBJ | (uint64_t)g_objs[id - 1].kind) << 48) | id;
}

/* the live object of a handle and kind, or 0 */
static unsigned obj_id(uint64_t h, int kind)
{
	if (h >> 48 != (TAG_OBJ | (uint64_t)kind))
		return 0;
	uint64_t id = h & 0xffffffffffffull;
	if (id == 0 || id > g_nobjs || !g_objs[id - 1].live)
		return 0;
	return (unsigned)id;
}
#define OBJ(id) (&g_objs[(id) - 1])

static void free_nodes(struct obj *o)
{
	for (size_t i = 0; i < o->nnodes; i++)
		free(o->nodes[i]);
	free(o->nodes);
	o->nodes = NULL;
	o->nnodes = o->capnodes = 0;
}

static void pool_uncharge(unsigned pool, size_t n)
{
	if (pool && pool <= g_nobjs)
		OBJ(pool)->pool_used -= n;
}

/* freed memory of a live pool stays reserved in it: 1 when it does */
static int pool_keep(unsigned pool, size_t n)
{
	if (!pool || pool > g_nobjs || !OBJ(pool)->live)
		return 0;
	OBJ(pool)->pool_kept += n;
	return 1;
}

/* Give back kept memory of pool id until it reserves at most keep bytes (only memory no
 * allocation uses can go). */
static void pool_trim(unsigned id, size_t keep)
{
	struct obj *p = OBJ(id);
	size_t reserved = p->pool_used + p->pool_kept;
	if (reserved <= keep)
		return;
	size_t give = reserved - keep < p->pool_kept ? reserved - keep : p->pool_kept;
	p->pool_kept -= give;
	g_dev[p->dev].used -= give;
}

/* A synchronisation: every pool of dev holding more than its release threshold gives
 * back what it can (the driver's rule for stream, event and context synchronisation). */
static void pools_sync(int dev)
{
	for (size_t i = 0; i < g_nobjs; i++) {
		struct obj *o = &g_objs[i];
		if (o->live && o->kind == OBJ_POOL && o->dev == dev)
			pool_trim((unsigned)(i + 1), o->pool_threshold);
	}
}

/* the last primary-context release: the device's handles, arrays, pools, modules go */
static void release_device_objects(int dev)
{
	for (size_t i = 0; i < g_nobjs; i++) {
		struct obj *o = &g_objs[i];
		if (!o->live || o->dev != dev)
			continue;
		if (o->kind == OBJ_GRAPH || o->kind == OBJ_EXEC)
			continue; /* graphs are not bound to a context here */
		g_dev[dev].used -= o->charged;
		free(o->host);
		o->host = NULL;
		o->live = 0;
		tmaps_drop(o); /* a pool released while mapped into it goes too */
	}
	g_dev[dev].default_pool = 0;
}

static void charge_obj(unsigned id, int dev, size_t n)
{
	OBJ(id)->charged = n;
	g_dev[dev].used += n;
}

/* ---- more allocation paths ----------------------------------------------------------------- */
API CUresult cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pPitch, size_t WidthInBytes, size_t Height,
				unsigned int ElementSizeBytes)
{
	ENTER("cuMemAllocPitch_v2");
	int dev = current_device(&rc);
	if (dev < 0)
		goto done;
	if (!pPitch || WidthInBytes == 0 || Height == 0 ||
	    (ElementSizeBytes != 4 && ElementSizeBytes != 8 && ElementSizeBytes != 16))
		FAIL(CUDA_ERROR_INVALID_VALUE);
	if (WidthInBytes > SIZE_MAX / 2)
		FAIL(CUDA_ERROR_OUT_OF_MEMORY);
	size_t pitch = (WidthInBytes + ALLOC_ALIGN - 1) / ALLOC_ALIGN * ALLOC_ALIGN;
	if (Height > SIZE_MAX / pitch)
		FAIL(CUDA_ERROR_OUT_OF_MEMORY);
	rc = alloc_on(dev, dptr, pitch * Height, 0);
	if (rc == CUDA_SUCCESS)
		*pPitch = pitch;
	LEAVE;
}

/* CUDA 3.1's: 32-bit pointer and pitch, from the low window */
API CUresult cuMemAllocPitch(CUdeviceptr_v1 *dptr, unsigned int *pPitch, unsigned int WidthInBytes, unsigned int Height,
			     unsigned int ElementSizeBytes)
{
	ENTER("cuMemAllocPitch");
	int dev = current_device(&rc);
	if (dev < 0)
		goto done;
	if (!dptr || !pPitch || WidthInBytes == 0 || Height == 0 ||
	    (ElementSizeBytes != 4 && ElementSizeBytes != 8 && ElementSizeBytes != 16))
		FAIL(CUDA_ERROR_INVALID_VALUE);
	size_t pitch = ((size_t)WidthInBytes + ALLOC_ALIGN - 1) / ALLOC_ALIGN * ALLOC_ALIGN;
	if (pitch > UINT_MAX)
		FAIL(CUDA_ERROR_OUT_OF_MEMORY);
	CUdeviceptr p = 0;
	rc = alloc_in(dev, &p, pitch * Height, 0, &g_next_va32, VA32_END);
	if (rc == CUDA_SUCCESS) {
		*dptr = (CUdeviceptr_v1)p;
		*pPitch = (unsigned)pitch;
	}
	LEAVE;
}

API CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned int flags)
{
	ENTER("cuMemAllocManaged");
	int dev = current_device(&rc);
	if (dev < 0)
		goto done;
	if (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	rc = alloc_on(dev, dptr, bytesize, 0); /* charged to the current device */
	LEAVE;
}

static unsigned default_pool(int dev)
{
	if (!g_dev[dev].default_pool) {
		unsigned id = obj_new(OBJ_POOL, dev);
		if (id)
			OBJ(id)->is_default = 1;
		g_dev[dev].default_pool = id;
	}
	return g_dev[dev].default_pool;
}

static CUresult pool_alloc(unsigned pool, CUdeviceptr *dptr, size_t bytesize)
{
	struct obj *p = OBJ(pool);
	/* kept memory is reused first: the device's usage grows by the rest only */
	size_t reuse = p->pool_kept < bytesize ? p->pool_kept : bytesize;
	p->pool_kept -= reuse;
	g_dev[p->dev].used -= reuse;
	size_t before = g_dev[p->dev].used;
	CUresult rc = alloc_on(p->dev, dptr, bytesize, pool);
	if (rc != CUDA_SUCCESS) {
		OBJ(pool)->pool_kept += reuse;
		g_dev[OBJ(pool)->dev].used += reuse;
	}
	if (rc == CUDA_SUCCESS) {
		p = OBJ(pool);
		p->pool_used += g_dev[p->dev].used - before;
		if (p->pool_used > p->pool_high)
			p->pool_high = p->pool_used;
		if (p->pool_used + p->pool_kept > p->pool_res_high)
			p->pool_res_high = p->pool_used + p->pool_kept;
	}
	return rc;
}

/* into a stream being captured, a stream-ordered allocation adds an allocation node to the
 * graph (its address now, its memory when the graph runs) and a free a free node */
static int captured_alloc(CUstream s, int dev, CUdeviceptr *dptr, size_t bytesize, CUresult *rc)
{
	struct stream *st = stream_of(s);
	if (!st || !st->capture)
		return 0;
	if (!dptr || bytesize == 0 || bytesize > SIZE_MAX / 2) {
		*rc = CUDA_ERROR_INVALID_VALUE;
		return 1;
	}
	uint64_t va = graph_va(dev, bytesize);
	*rc = graph_add_mem(st->capture, CU_GRAPH_NODE_TYPE_MEM_ALLOC, dev, bytesize, va, NULL);
	if (*rc == CUDA_SUCCESS)
		*dptr = va;
	return 1;
}

API CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize, CUstream hStream)
{
	ENTER("cuMemAllocAsync");
	int dev = stream_device(hStream, &rc);
	if (dev < 0)
		goto done;
	if (captured_alloc(hStream, dev, dptr, bytesize, &rc))
		goto done;
	unsigned pool = default_pool(dev);
	if (!pool)
		FAIL(CUDA_ERROR_OUT_OF_MEMORY);
	rc = pool_alloc(pool, dptr, bytesize);
	LEAVE;
}

API CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream)
{
	ENTER("cuMemFreeAsync");
	int dev = stream_device(hStream, &rc);
	if (dev < 0)
		goto done;
	struct stream *st = stream_of(hStream);
	if (st && st->capture) {
		rc = graph_add_mem(st->capture, CU_GRAPH_NODE_TYPE_MEM_FREE, dev, 0, dptr, NULL);
		goto done;
	}
	rc = free_va(dptr); /* released at once, not when the stream gets there */
	LEAVE;
}

API CUresult cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *poolProps)
{
	ENTER("cuMemPoolCreate");
	if (!pool || !poolProps || poolProps->allocType != CU_MEM_ALLOCATION_TYPE_PINNED ||
	    poolProps->location.type != CU_MEM_LOCATION_TYPE_DEVICE)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	DEVICE_OK(poolProps->location.id);
	NOT_LOST(poolProps->location.id);
	unsigned id = obj_new(OBJ_POOL, poolProps->location.id);
	if (!id)
		FAIL(CUDA_ERROR_OUT_OF_MEMORY);
	*pool = (CUmemoryPool)(uintptr_t)obj_handle(id);
	LEAVE;
}

API CUresult cuMemPoolDestroy(CUmemoryPool pool)
{
	ENTER("cuMemPoolDestroy");
	unsigned id = obj_id((uint64_t)(uintptr_t)pool, OBJ_POOL);
	if (!id || OBJ(id)->is_default)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	pool_trim(id, 0); /* what it keeps goes; its live allocations stay until freed */
	OBJ(id)->live = 0;
	LEAVE;
}

API CUresult cuDeviceGetDefaultMemPool(CUmemoryPool *pool_out, CUdevice dev)
{
	ENTER("cuDeviceGetDefaultMemPool");
	if (!pool_out)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	DEVICE_OK(dev);
	NOT_LOST(dev);
	unsigned id = default_pool(dev);
	if (!id)
		FAIL(CUDA_ERROR_OUT_OF_MEMORY);
	*pool_out = (CUmemoryPool)(uintptr_t)obj_handle(id);
	LEAVE;
}

/* the device's current pool: the default one (cuDeviceSetMemPool is not modelled) */
API CUresult cuDeviceGetMemPool(CUmemoryPool *pool, CUdevice dev)
{
	return cuDeviceGetDefaultMemPool(pool, dev);
}

API CUresult cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool, CUstream hStream)
{
	ENTER("cuMemAllocFromPoolAsync");
	int dev = stream_device(hStream, &rc);
	if (dev < 0)
		goto done;
	unsigned id = obj_id((uint64_t)(uintptr_t)pool, OBJ_POOL);
	if (!id)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	if (captured_alloc(hStream, OBJ(id)->dev, dptr, bytesize, &rc))
		goto done;
	rc = pool_alloc(id, dptr, bytesize);
	LEAVE;
}

API CUresult cuMemPoolTrimTo(CUmemoryPool pool, size_t minBytesToKeep)
{
	ENTER("cuMemPoolTrimTo");
	unsigned id = obj_id((uint64_t)(uintptr_t)pool, OBJ_POOL);
	if (!id)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	pool_trim(id, minBytesToKeep);
	LEAVE;
}

API CUresult cuMemPoolGetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void *value)
{
	ENTER("cuMemPoolGetAttribute");
	unsigned id = obj_id((uint64_t)(uintptr_t)pool, OBJ_POOL);
	if (!id || !value)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	struct obj *p = OBJ(id);
	cuuint64_t v;
	switch ((int)attr) {
	case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES:
	case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC:
	case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES: *(int *)value = 1; goto done;
	case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD: v = p->pool_threshold; break;
	case CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT: v = p->pool_used + p->pool_kept; break;
	case CU_MEMPOOL_ATTR_USED_MEM_CURRENT: v = p->pool_used; break;
	case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH: v = p->pool_res_high; break;
	case CU_MEMPOOL_ATTR_USED_MEM_HIGH: v = p->pool_high; break;
	default: FAIL(CUDA_ERROR_INVALID_VALUE);
	}
	*(cuuint64_t *)value = v;
	LEAVE;
}

API CUresult cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void *value)
{
	ENTER("cuMemPoolSetAttribute");
	unsigned id = obj_id((uint64_t)(uintptr_t)pool, OBJ_POOL);
	if (!id || !value)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	switch ((int)attr) {
	case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES:
	case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC:
	case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES: break; /* reuse is not modelled */
	case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD: OBJ(id)->pool_threshold = (size_t)*(cuuint64_t *)value; break;
	case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH:
		OBJ(id)->pool_res_high = OBJ(id)->pool_used + OBJ(id)->pool_kept; /* a reset */
		break;
	case CU_MEMPOOL_ATTR_USED_MEM_HIGH: OBJ(id)->pool_high = OBJ(id)->pool_used; break;
	default: FAIL(CUDA_ERROR_INVALID_VALUE);
	}
	LEAVE;
}

/* ---- virtual memory management ------------------------------------------------------------- */
struct reservation {
	uint64_t va;
	size_t size;
	int live;
};
static struct reservation *g_res;
static size_t g_nres, g_capres;
static uint64_t g_next_reserved = VA_RESERVED_BASE;

API CUresult cuMemGetAllocationGranularity(size_t *granularity, const CUmemAllocationProp *prop,
					   CUmemAllocationGranularity_flags option)
{
	ENTER("cuMemGetAllocationGranularity");
	if (!granularity || !prop || prop->location.type != CU_MEM_LOCATION_TYPE_DEVICE ||
	    (option != CU_MEM_ALLOC_GRANULARITY_MINIMUM && option != CU_MEM_ALLOC_GRANULARITY_RECOMMENDED))
		FAIL(CUDA_ERROR_INVALID_VALUE);
	DEVICE_OK(prop->location.id);
	*granularity = VMM_GRANULARITY;
	LEAVE;
}

API CUresult cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size, const CUmemAllocationProp *prop,
			 unsigned long long flags)
{
	ENTER("cuMemCreate");
	if (!handle || !prop || flags != 0 || size == 0 || size % VMM_GRANULARITY ||
	    prop->type != CU_MEM_ALLOCATION_TYPE_PINNED || prop->location.type != CU_MEM_LOCATION_TYPE_DEVICE ||
	    (prop->allocFlags.usage & ~CU_MEM_CREATE_USAGE_TILE_POOL))
		FAIL(CUDA_ERROR_INVALID_VALUE);
	int dev = prop->location.id;
	DEVICE_OK(dev);
	NOT_LOST(dev);
	NOT_CHECKPOINTED();
	if (oom_fault(size) || size > g_dev[dev].total - g_dev[dev].used)
		FAIL(CUDA_ERROR_OUT_OF_MEMORY);
	unsigned char *host = calloc(1, size);
	if (!host)
		FAIL(CUDA_ERROR_OUT_OF_MEMORY);
	unsigned id = obj_new(OBJ_VMM, dev);
	if (!id) {
		free(host);
		FAIL(CUDA_ERROR_OUT_OF_MEMORY);
	}
	OBJ(id)->host = host;
	OBJ(id)->size = size;
	OBJ(id)->refs = 1;
	OBJ(id)->tilepool = (prop->allocFlags.usage & CU_MEM_CREATE_USAGE_TILE_POOL) != 0;
	charge_obj(id, dev, size);
	*handle = obj_handle(id);
	LEAVE;
}

static void vmm_maybe_free(unsigned id)
{
	struct obj *o = OBJ(id);
	if (o->live || o->maps || !o->host)
		return;
	g_dev[o->dev].used -= o->charged;
	o->charged = 0;
	free(o->host);
	o->host = NULL;
}

API CUresult cuMemRelease(CUmemGenericAllocationHandle handle)
{
	ENTER("cuMemRelease");
	unsigned id = obj_id(handle, OBJ_VMM);
	if (!id)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	NOT_CHECKPOINTED();
	if (--OBJ(id)->refs == 0) {
		OBJ(id)->live = 0; /* the memory goes with the last mapping */
		vmm_maybe_free(id);
	}
	LEAVE;
}

/* The handle of the allocation mapped at addr (any address of a cuMemMap'ed range), the same
 * value cuMemCreate handed out, with one more reference for cuMemRelease to drop: also after
 * the handle's own release while the mapping lives (the memory is not freed yet). */
API CUresult cuMemRetainAllocationHandle(CUmemGenericAllocationHandle *handle, void *addr)
{
	ENTER("cuMemRetainAllocationHandle");
	if (!handle)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	uint64_t a = (uint64_t)(uintptr_t)addr;
	size_t k;
	for (k = 0; k < g_nallocs; k++)
		if (g_allocs[k].mapped && a >= g_allocs[k].va && a - g_allocs[k].va < g_allocs[k].size)
			break;
	if (k == g_nallocs)
		FAIL(CUDA_ERROR_INVALID_VALUE); /* not mapped */
	unsigned id = (unsigned)g_allocs[k].mapped;
	OBJ(id)->refs++;
	OBJ(id)->live = 1;
	*handle = obj_handle(id);
	LEAVE;
}

API CUresult cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment, CUdeviceptr addr,
				 unsigned long long flags)
{
	ENTER("cuMemAddressReserve");
	if (!ptr || size == 0 || size % VMM_GRANULARITY || flags != 0 || (alignment & (alignment - 1)))
		FAIL(CUDA_ERROR_INVALID_VALUE);
	(void)addr; /* a hint, not honoured */
	if (grow((void **)&g_res, &g_capres, g_nres + 1, sizeof(*g_res)) != 0)
		FAIL(CUDA_ERROR_OUT_OF_MEMORY);
	uint64_t a = alignment > VMM_GRANULARITY ? alignment : VMM_GRANULARITY;
	uint64_t va = (g_next_reserved + a - 1) / a * a;
	g_res[g_nres].va = va;
	g_res[g_nres].size = size;
	g_res[g_nres++].live = 1;
	g_next_reserved = va + size + VMM_GRANULARITY;
	*ptr = va;
	LEAVE;
}

API CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size)
{
	ENTER("cuMemAddressFree");
	for (size_t i = 0; i < g_nres; i++)
		if (g_res[i].live && g_res[i].va == ptr && g_res[i].size == size) {
			for (size_t k = 0; k < g_nallocs; k++)
				if (g_allocs[k].mapped && g_allocs[k].va >= ptr && g_allocs[k].va - ptr < size)
					FAIL(CUDA_ERROR_INVALID_VALUE); /* still mapped */
			g_res[i].live = 0;
			goto done;
		}
	FAIL(CUDA_ERROR_INVALID_VALUE);
	LEAVE;
}

API CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle handle,
		      unsigned long long flags)
{
	ENTER("cuMemMap");
	unsigned id = obj_id(handle, OBJ_VMM);
	if (!id || flags != 0 || size == 0 || offset > OBJ(id)->size || size > OBJ(id)->size - offset)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	size_t r;
	for (r = 0; r < g_nres; r++)
		if (g_res[r].live && ptr >= g_res[r].va && ptr - g_res[r].va < g_res[r].size &&
		    size <= g_res[r].size - (ptr - g_res[r].va))
			break;
	if (r == g_nres)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	for (size_t k = 0; k < g_nallocs; k++)
		if (g_allocs[k].mapped && ptr < g_allocs[k].va + g_allocs[k].size && g_allocs[k].va < ptr + size)
			FAIL(CUDA_ERROR_INVALID_VALUE); /* overlaps a mapping */
	if (grow((void **)&g_allocs, &g_capallocs, g_nallocs + 1, sizeof(*g_allocs)) != 0)
		FAIL(CUDA_ERROR_OUT_OF_MEMORY);
	struct alloc *a = &g_allocs[g_nallocs++];
	memset(a, 0, sizeof(*a));
	a->va = ptr;
	a->size = size;
	a->host = OBJ(id)->host + offset;
	a->dev = OBJ(id)->dev;
	a->mapped = (int)id;
	OBJ(id)->maps++;
	LEAVE;
}

/* the cuMemMap'ed range that starts at va: its index, or g_nallocs */
static size_t mapping_at(uint64_t va)
{
	size_t k;
	for (k = 0; k < g_nallocs; k++)
		if (g_allocs[k].mapped && g_allocs[k].va == va)
			break;
	return k;
}

/* "The range must be the entire contiguous address range that was mapped to. In other words,
 * cuMemUnmap cannot unmap a sub-range of an address range mapped by cuMemCreate / cuMemMap"
 * (the Driver API reference): whole mappings, one or several side by side (NVIDIA's own
 * VMM sample, NVIDIA-developer-blog/code-samples posts/cuda-vmm/cuvector.cpp, unmaps all
 * its handles' mappings with one call over their contiguous range). A range that cuts a
 * mapping or holds an unmapped hole: INVALID_VALUE, nothing unmapped. Each handle whose
 * last mapping goes and whose last reference was released is freed ("Any backing memory
 * allocations will be freed if there are no existing mappings and there are no unreleased
 * memory handles"). */
API CUresult cuMemUnmap(CUdeviceptr ptr, size_t size)
{
	ENTER("cuMemUnmap");
	uint64_t end = ptr + size;
	if (size == 0 || end < ptr)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	for (uint64_t va = ptr; va < end;) {
		size_t k = mapping_at(va);
		if (k == g_nallocs || g_allocs[k].size > end - va)
			FAIL(CUDA_ERROR_INVALID_VALUE);
		va += g_allocs[k].size;
	}
	for (uint64_t va = ptr; va < end;) {
		size_t k = mapping_at(va);
		unsigned id = (unsigned)g_allocs[k].mapped;
		va += g_allocs[k].size;
		g_allocs[k] = g_allocs[--g_nallocs];
		OBJ(id)->maps--;
		vmm_maybe_free(id);
	}
	LEAVE;
}

API CUresult cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc, size_t count)
{
	ENTER("cuMemSetAccess");
	if (!desc || count == 0 || size == 0)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	for (size_t i = 0; i < count; i++) {
		if (desc[i].location.type != CU_MEM_LOCATION_TYPE_DEVICE)
			FAIL(CUDA_ERROR_INVALID_VALUE);
		DEVICE_OK(desc[i].location.id);
	}
	/* every byte of the range must be mapped */
	for (uint64_t va = ptr; va < ptr + size;) {
		size_t k;
		for (k = 0; k < g_nallocs; k++)
			if (g_allocs[k].mapped && va >= g_allocs[k].va && va - g_allocs[k].va < g_allocs[k].size)
				break;
		if (k == g_nallocs)
			FAIL(CUDA_ERROR_INVALID_VALUE);
		va = g_allocs[k].va + g_allocs[k].size;
	}
	LEAVE;
}

/* ---- arrays ------------------------------------------------------------------------------- */
static size_t format_bytes(CUarray_format f)
{
	switch (f) {
	case CU_AD_FORMAT_UNSIGNED_INT8:
	case CU_AD_FORMAT_SIGNED_INT8: return 1;
	case CU_AD_FORMAT_UNSIGNED_INT16:
	case CU_AD_FORMAT_SIGNED_INT16:
	case CU_AD_FORMAT_HALF: return 2;
	case CU_AD_FORMAT_UNSIGNED_INT32:
	case CU_AD_FORMAT_SIGNED_INT32:
	case CU_AD_FORMAT_FLOAT: return 4;
	default: return 0;
	}
}

/* width x height x depth (0 counts as 1) x channels x element size, rounded to 512; 0: invalid */
static size_t array_bytes(size_t w, size_t h, size_t d, CUarray_format f, unsigned ch)
{
	size_t e = format_bytes(f);
	if (!e || w == 0 || (ch != 1 && ch != 2 && ch != 4))
		return 0;
	h = h ? h : 1;
	d = d ? d : 1;
	if (w > (1u << 20) || h > (1u << 20) || d > (1u << 20))
		return 0;
	unsigned __int128 n = (unsigned __int128)w * h * d * ch * e;
	if (n > SIZE_MAX / 2)
		return 0;
	return ((size_t)n + ALLOC_ALIGN - 1) / ALLOC_ALIGN * ALLOC_ALIGN;
}

static CUresult array_new(int kind, uint64_t *out, size_t bytes)
{
	CUresult rc = CUDA_SUCCESS;
	int dev = current_device(&rc);
	if (dev < 0)
		goto done;
	NOT_LOST(dev);
	NOT_CHECKPOINTED();
	if (oom_fault(bytes) || bytes > g_dev[dev].total - g_dev[dev].used)
		FAIL(CUDA_ERROR_OUT_OF_MEMORY);
	unsigned id = obj_new(kind, dev);
	if (!id)
		FAIL(CUDA_ERROR_OUT_OF_MEMORY);
	charge_obj(id, dev, bytes);
	*out = obj_handle(id);
done:
	return rc;
}

API CUresult cuArrayCreate_v2(CUarray *pHandle, const CUDA_ARRAY_DESCRIPTOR *pAllocateArray)
{
	ENTER("cuArrayCreate_v2");
	if (!pHandle || !pAllocateArray)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	const CUDA_ARRAY_DESCRIPTOR *a = pAllocateArray;
	size_t bytes = array_bytes(a->Width, a->Height, 0, a->Format, a->NumChannels);
	if (!bytes)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	uint64_t h = 0;
	rc = array_new(OBJ_ARRAY, &h, bytes);
	if (rc == CUDA_SUCCESS)
		*pHandle = (CUarray)(uintptr_t)h;
	LEAVE;
}

/* CUDA 3.1's: 32-bit sizes */
API CUresult cuArrayCreate(CUarray *pHandle, const CUDA_ARRAY_DESCRIPTOR_v1 *pAllocateArray)
{
	ENTER("cuArrayCreate");
	if (!pHandle || !pAllocateArray)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	const CUDA_ARRAY_DESCRIPTOR_v1 *a = pAllocateArray;
	size_t bytes = array_bytes(a->Width, a->Height, 0, a->Format, a->NumChannels);
	if (!bytes)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	uint64_t h = 0;
	rc = array_new(OBJ_ARRAY, &h, bytes);
	if (rc == CUDA_SUCCESS)
		*pHandle = (CUarray)(uintptr_t)h;
	LEAVE;
}

/* flags cuArray3DCreate takes: layered, surface load/store, cubemap, texture gather,
 * sparse, deferred mapping */
#define ARRAY3D_FLAGS (CUDA_ARRAY3D_LAYERED | 0x02u | CUDA_ARRAY3D_CUBEMAP | 0x08u | CUDA_ARRAY3D_SPARSE | \
		       CUDA_ARRAY3D_DEFERRED_MAPPING)

/* a 3D (layered, cubemap) array; a sparse or deferred-mapping one holds no memory of its
 * own (what is mapped into it comes from cuMemCreate's handles); lock held */
static void array_shape(uint64_t h, size_t w, size_t ht, size_t d, CUarray_format f, unsigned ch, unsigned flags,
			unsigned levels);

static CUresult array3d_new(uint64_t *h, size_t w, size_t ht, size_t d, CUarray_format f, unsigned ch, unsigned flags)
{
	CUresult rc = CUDA_SUCCESS;
	if (flags & ~ARRAY3D_FLAGS)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	if ((flags & CUDA_ARRAY3D_CUBEMAP) &&
	    (w != ht || ((flags & CUDA_ARRAY3D_LAYERED) ? d == 0 || d % 6 : d != 6)))
		FAIL(CUDA_ERROR_INVALID_VALUE);
	size_t bytes = array_bytes(w, ht, d, f, ch);
	if (!bytes)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	if (flags & (CUDA_ARRAY3D_SPARSE | CUDA_ARRAY3D_DEFERRED_MAPPING))
		bytes = 0;
	rc = array_new(OBJ_ARRAY, h, bytes);
	if (rc == CUDA_SUCCESS)
		array_shape(*h, w, ht, d, f, ch, flags, 1);
done:
	return rc;
}

API CUresult cuArray3DCreate_v2(CUarray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR *pAllocateArray)
{
	ENTER("cuArray3DCreate_v2");
	if (!pHandle || !pAllocateArray)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	const CUDA_ARRAY3D_DESCRIPTOR *a = pAllocateArray;
	uint64_t h = 0;
	rc = array3d_new(&h, a->Width, a->Height, a->Depth, a->Format, a->NumChannels, a->Flags);
	if (rc == CUDA_SUCCESS)
		*pHandle = (CUarray)(uintptr_t)h;
	LEAVE;
}

/* CUDA 3.1's: 32-bit sizes */
API CUresult cuArray3DCreate(CUarray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR_v1 *pAllocateArray)
{
	ENTER("cuArray3DCreate");
	if (!pHandle || !pAllocateArray)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	const CUDA_ARRAY3D_DESCRIPTOR_v1 *a = pAllocateArray;
	uint64_t h = 0;
	rc = array3d_new(&h, a->Width, a->Height, a->Depth, a->Format, a->NumChannels, a->Flags);
	if (rc == CUDA_SUCCESS)
		*pHandle = (CUarray)(uintptr_t)h;
	LEAVE;
}

API CUresult cuMipmappedArrayCreate(CUmipmappedArray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR *pMipmappedArrayDesc,
				    unsigned int numMipmapLevels)
{
	ENTER("cuMipmappedArrayCreate");
	if (!pHandle || !pMipmappedArrayDesc || numMipmapLevels == 0 || numMipmapLevels > 32)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	const CUDA_ARRAY3D_DESCRIPTOR *a = pMipmappedArrayDesc;
	if (a->Flags & ~ARRAY3D_FLAGS)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	/* a layered or cubemap array's layers are not levels: every level keeps them */
	int layers = (a->Flags & (CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_CUBEMAP)) != 0;
	size_t bytes = 0;
	for (unsigned l = 0; l < numMipmapLevels; l++) {
		size_t w = a->Width >> l, h = a->Height >> l, d = layers ? a->Depth : a->Depth >> l;
		size_t b = array_bytes(w ? w : 1, a->Height ? (h ? h : 1) : 0, a->Depth ? (d ? d : 1) : 0, a->Format,
				       a->NumChannels);
		if (!b || a->Width == 0)
			FAIL(CUDA_ERROR_INVALID_VALUE);
		bytes += b;
	}
	if (a->Flags & (CUDA_ARRAY3D_SPARSE | CUDA_ARRAY3D_DEFERRED_MAPPING))
		bytes = 0;
	uint64_t h = 0;
	rc = array_new(OBJ_MIPMAP, &h, bytes);
	if (rc == CUDA_SUCCESS) {
		array_shape(h, a->Width, a->Height, a->Depth, a->Format, a->NumChannels, a->Flags, numMipmapLevels);
		*pHandle = (CUmipmappedArray)(uintptr_t)h;
	}
	LEAVE;
}

static CUresult array_destroy(uint64_t h, int kind)
{
	CUresult rc = CUDA_SUCCESS;
	unsigned id = obj_id(h, kind);
	if (!id)
		FAIL(CUDA_ERROR_INVALID_HANDLE);
	NOT_CHECKPOINTED();
	g_dev[OBJ(id)->dev].used -= OBJ(id)->charged;
	OBJ(id)->charged = 0;
	OBJ(id)->live = 0;
	tmaps_drop(OBJ(id)); /* its tiles are unmapped with it */
done:
	return rc;
}

API CUresult cuArrayDestroy(CUarray hArray)
{
	ENTER("cuArrayDestroy");
	rc = array_destroy((uint64_t)(uintptr_t)hArray, OBJ_ARRAY);
	LEAVE;
}

API CUresult cuMipmappedArrayDestroy(CUmipmappedArray hMipmappedArray)
{
	ENTER("cuMipmappedArrayDestroy");
	rc = array_destroy((uint64_t)(uintptr_t)hMipmappedArray, OBJ_MIPMAP);
	LEAVE;
}

/* ---- sparse and deferred-mapping arrays: tile pools mapped into them --------------------------
 *
 * cuMemMapArrayAsync as the Driver API reference describes it (CUDA 11.1, cuda.h's comment of
 * the call): each CUarrayMapInfo maps a subresource of a sparse array (a sparse level's
 * region of elements, offsets and extents aligned to the tile's, or a mip tail's bytes,
 * aligned to the tile size) onto a tile pool (cuMemCreate with CU_MEM_CREATE_USAGE_TILE_POOL)
 * at an offset, or unmaps it (memHandle 0); a deferred-mapping array's subresource is ignored
 * (the whole array). The array is 2D, 2D layered or 3D; deviceBitMask has one bit, the
 * stream's device. The reference leaves some things out, and the double chooses: a tile is
 * 64 KiB, shaped by the element's bytes as D3D12's and Vulkan's standard sparse tiles (2D:
 * 256x256 at 1 byte, 256x128 at 2, 128x128 at 4, 128x64 at 8, 64x64 at 16; 3D: 64x32x32,
 * 32x32x32, 32x32x16, 32x16x16, 16x16x16); an extent may stop at the level's edge (a partial
 * tile, as NVIDIA's OptiX Toolkit maps its edge tiles); the levels smaller than a tile in a
 * dimension are the mip tail, one a layer, its size their bytes rounded up to a tile; a map
 * over mapped tiles replaces them (as Vulkan's and D3D12's sparse bindings do); a list with
 * an invalid entry changes nothing. Each mapped piece holds its tile pool's memory like a
 * cuMemMap view: a pool released while mapped is freed with its last piece, unmapped, cut
 * away by a map over it, or dropped with its array ("It's not necessary to unmap the tiles /
 * mip tail when destroying the array", the OptiX Toolkit's SparseTexture.cpp). */
#define TILE_BYTES 65536u

static void array_shape(uint64_t h, size_t w, size_t ht, size_t d, CUarray_format f, unsigned ch, unsigned flags,
			unsigned levels)
{
	unsigned id = (unsigned)(h & 0xffffffffffffull);
	struct obj *o = OBJ(id);
	o->aflags = flags;
	o->aw = w;
	o->ah = ht;
	o->ad = d;
	o->alayered = (flags & (CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_CUBEMAP)) != 0;
	o->alevels = levels;
	o->aelem = (unsigned)format_bytes(f) * ch;
}

static int array_3d(const struct obj *o)
{
	return o->ad && !o->alayered;
}

static void tile_dims(const struct obj *o, uint64_t t[3])
{
	static const unsigned d2[5][2] = { { 256, 256 }, { 256, 128 }, { 128, 128 }, { 128, 64 }, { 64, 64 } };
	static const unsigned d3[5][3] = {
		{ 64, 32, 32 }, { 32, 32, 32 }, { 32, 32, 16 }, { 32, 16, 16 }, { 16, 16, 16 }
	};
	unsigned k = o->aelem == 1 ? 0 : o->aelem == 2 ? 1 : o->aelem == 4 ? 2 : o->aelem == 8 ? 3 : 4;
	if (array_3d(o)) {
		t[0] = d3[k][0];
		t[1] = d3[k][1];
		t[2] = d3[k][2];
	} else {
		t[0] = d2[k][0];
		t[1] = d2[k][1];
		t[2] = 1;
	}
}

/* a level's extent in elements (depth 1 unless 3D) */
static void level_dims(const struct obj *o, unsigned l, uint64_t e[3])
{
	e[0] = o->aw >> l ? o->aw >> l : 1;
	e[1] = o->ah >> l ? o->ah >> l : 1;
	e[2] = array_3d(o) ? (o->ad >> l ? o->ad >> l : 1) : 1;
}

/* the first level of the mip tail (alevels: none) */
static unsigned miptail_first(const struct obj *o)
{
	uint64_t t[3], e[3];
	tile_dims(o, t);
	for (unsigned l = 0; l < o->alevels; l++) {
		level_dims(o, l, e);
		if (e[0] < t[0] || e[1] < t[1] || e[2] < t[2])
			return l;
	}
	return o->alevels;
}

static uint64_t miptail_bytes(const struct obj *o)
{
	uint64_t n = 0, e[3];
	for (unsigned l = miptail_first(o); l < o->alevels; l++) {
		level_dims(o, l, e);
		n += e[0] * e[1] * e[2] * o->aelem;
	}
	return (n + TILE_BYTES - 1) / TILE_BYTES * TILE_BYTES;
}

/* every level's bytes, rounded up to a tile: what a deferred-mapping array takes */
static uint64_t whole_bytes(const struct obj *o)
{
	uint64_t n = 0, e[3];
	unsigned layers = o->alayered ? (unsigned)o->ad : 1;
	for (unsigned l = 0; l < o->alevels; l++) {
		level_dims(o, l, e);
		n += e[0] * e[1] * e[2] * o->aelem * layers;
	}
	return (n + TILE_BYTES - 1) / TILE_BYTES * TILE_BYTES;
}

/* Check one entry (the array on device dev): its array's object id, the region it names and
 * the bytes of tile pool it takes. */
static CUresult tmap_entry(const CUarrayMapInfo *m, int dev, unsigned *aid, struct tmap *r, uint64_t *bytes)
{
	unsigned id;
	if (m->resourceType == CU_RESOURCE_TYPE_ARRAY)
		id = obj_id((uint64_t)(uintptr_t)m->resource.array, OBJ_ARRAY);
	else if (m->resourceType == CU_RESOURCE_TYPE_MIPMAPPED_ARRAY)
		id = obj_id((uint64_t)(uintptr_t)m->resource.mipmap, OBJ_MIPMAP);
	else
		return CUDA_ERROR_INVALID_VALUE;
	if (!id)
		return CUDA_ERROR_INVALID_HANDLE;
	const struct obj *o = OBJ(id);
	if (!(o->aflags & (CUDA_ARRAY3D_SPARSE | CUDA_ARRAY3D_DEFERRED_MAPPING)) || o->ah == 0 || o->dev != dev ||
	    m->flags || m->reserved[0] || m->reserved[1] || m->memHandleType != CU_MEM_HANDLE_TYPE_GENERIC ||
	    m->deviceBitMask != 1u << dev)
		return CUDA_ERROR_INVALID_VALUE;
	*aid = id;
	memset(r, 0, sizeof(*r));
	unsigned layers = o->alayered ? (unsigned)o->ad : 1;
	if (o->aflags & CUDA_ARRAY3D_DEFERRED_MAPPING) {
		r->sub = TMAP_WHOLE;
		for (int i = 0; i < 3; i++)
			r->hi[i] = UINT64_MAX;
		*bytes = whole_bytes(o);
	} else if (m->subresourceType == CU_ARRAY_SPARSE_SUBRESOURCE_TYPE_SPARSE_LEVEL) {
		uint64_t t[3], e[3], off[3], ext[3];
		tile_dims(o, t);
		unsigned level = m->subresource.sparseLevel.level, layer = m->subresource.sparseLevel.layer;
		if (level >= miptail_first(o) || layer >= layers)
			return CUDA_ERROR_INVALID_VALUE;
		level_dims(o, level, e);
		off[0] = m->subresource.sparseLevel.offsetX;
		off[1] = m->subresource.sparseLevel.offsetY;
		off[2] = m->subresource.sparseLevel.offsetZ;
		ext[0] = m->subresource.sparseLevel.extentWidth;
		ext[1] = m->subresource.sparseLevel.extentHeight;
		ext[2] = m->subresource.sparseLevel.extentDepth;
		uint64_t tiles = 1;
		for (int i = 0; i < 3; i++) {
			if (ext[i] == 0 || off[i] % t[i] || off[i] >= e[i] || ext[i] > e[i] - off[i] ||
			    (ext[i] % t[i] && off[i] + ext[i] != e[i]))
				return CUDA_ERROR_INVALID_VALUE;
			tiles *= (ext[i] + t[i] - 1) / t[i];
			r->lo[i] = off[i];
			r->hi[i] = off[i] + ext[i];
		}
		r->sub = TMAP_LEVEL;
		r->level = level;
		r->layer = layer;
		*bytes = tiles * TILE_BYTES;
	} else if (m->subresourceType == CU_ARRAY_SPARSE_SUBRESOURCE_TYPE_MIPTAIL) {
		uint64_t off = m->subresource.miptail.offset, size = m->subresource.miptail.size,
			 tail = miptail_bytes(o);
		if (miptail_first(o) == o->alevels || m->subresource.miptail.layer >= layers || size == 0 ||
		    off % TILE_BYTES || size % TILE_BYTES || off > tail || size > tail - off)
			return CUDA_ERROR_INVALID_VALUE;
		r->sub = TMAP_MIPTAIL;
		r->layer = m->subresource.miptail.layer;
		r->lo[0] = off;
		r->hi[0] = off + size;
		r->hi[1] = r->hi[2] = 1;
		*bytes = size;
	} else {
		return CUDA_ERROR_INVALID_VALUE;
	}
	if (m->memOperationType == CU_MEM_OPERATION_TYPE_MAP) {
		unsigned pool = obj_id(m->memHandle.memHandle, OBJ_VMM);
		if (!pool || !OBJ(pool)->tilepool || OBJ(pool)->dev != dev || m->offset % TILE_BYTES ||
		    m->offset > OBJ(pool)->size || *bytes > OBJ(pool)->size - m->offset)
			return CUDA_ERROR_INVALID_VALUE;
		r->pool = pool;
	} else if (m->memOperationType != CU_MEM_OPERATION_TYPE_UNMAP || m->memHandle.memHandle != 0) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	return CUDA_SUCCESS;
}

static int tmap_add(struct obj *o, const struct tmap *t)
{
	if (grow((void **)&o->tmaps, &o->captmaps, o->ntmaps + 1, sizeof(*o->tmaps)) != 0)
		return -1;
	o->tmaps[o->ntmaps++] = *t;
	OBJ(t->pool)->maps++;
	return 0;
}

/* Unmap region r of array o: each mapped box it meets leaves the pieces outside r (each a
 * piece of the same pool); a pool whose last piece goes may be freed. -1: out of memory
 * (nothing changed: the pieces are made before anything is taken away). */
static int tmap_cut(struct obj *o, const struct tmap *r)
{
	for (size_t i = 0; i < o->ntmaps;) {
		struct tmap b = o->tmaps[i];
		int meets = b.sub == r->sub && b.level == r->level && b.layer == r->layer;
		for (int k = 0; k < 3 && meets; k++)
			meets = b.lo[k] < r->hi[k] && r->lo[k] < b.hi[k];
		if (!meets) {
			i++;
			continue;
		}
		/* b less r: along x, then y, then z */
		struct tmap piece[6];
		int n = 0;
		struct tmap rest = b;
		for (int k = 0; k < 3; k++) {
			if (rest.lo[k] < r->lo[k]) {
				piece[n] = rest;
				piece[n++].hi[k] = r->lo[k];
				rest.lo[k] = r->lo[k];
			}
			if (r->hi[k] < rest.hi[k]) {
				piece[n] = rest;
				piece[n++].lo[k] = r->hi[k];
				rest.hi[k] = r->hi[k];
			}
		}
		if (grow((void **)&o->tmaps, &o->captmaps, o->ntmaps + (size_t)n, sizeof(*o->tmaps)) != 0)
			return -1;
		for (int k = 0; k < n; k++)
			tmap_add(o, &piece[k]); /* room made above: cannot fail */
		o->tmaps[i] = o->tmaps[--o->ntmaps];
		OBJ(b.pool)->maps--;
		vmm_maybe_free(b.pool);
		/* the pieces went to the end, past r: the box now at i is checked next */
	}
	return 0;
}

static void tmaps_drop(struct obj *o)
{
	for (size_t i = 0; i < o->ntmaps; i++) {
		OBJ(o->tmaps[i].pool)->maps--;
		vmm_maybe_free(o->tmaps[i].pool);
	}
	free(o->tmaps);
	o->tmaps = NULL;
	o->ntmaps = o->captmaps = 0;
}

static CUresult map_array(const char *fn, CUarrayMapInfo *mapInfoList, unsigned int count, CUstream hStream)
{
	ENTER(fn);
	int dev = stream_device(hStream, &rc);
	if (dev < 0)
		goto done;
	NOT_LOST(dev);
	NOT_CHECKPOINTED();
	if (!mapInfoList || count == 0)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	for (unsigned i = 0; i < count; i++) {
		unsigned aid;
		struct tmap r;
		uint64_t bytes;
		CUresult e = tmap_entry(&mapInfoList[i], dev, &aid, &r, &bytes);
		if (e != CUDA_SUCCESS)
			FAIL(e);
	}
	for (unsigned i = 0; i < count; i++) {
		unsigned aid;
		struct tmap r;
		uint64_t bytes;
		tmap_entry(&mapInfoList[i], dev, &aid, &r, &bytes);
		if (tmap_cut(OBJ(aid), &r) != 0 ||
		    (mapInfoList[i].memOperationType == CU_MEM_OPERATION_TYPE_MAP && tmap_add(OBJ(aid), &r) != 0))
			FAIL(CUDA_ERROR_OUT_OF_MEMORY);
	}
	LEAVE;
}

API CUresult cuMemMapArrayAsync(CUarrayMapInfo *mapInfoList, unsigned int count, CUstream hStream)
{
	return map_array("cuMemMapArrayAsync", mapInfoList, count, hStream);
}

/* ---- modules and kernels -------------------------------------------------------------------- */
#define MODULE_MAGIC "axl-double-module\n"

API CUresult cuModuleLoadData(CUmodule *module, const void *image)
{
	ENTER("cuModuleLoadData");
	int dev = current_device(&rc);
	if (dev < 0)
		goto done;
	if (!module || !image)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	NOT_LOST(dev);
	const char *s = image;
	if (strncmp(s, MODULE_MAGIC, strlen(MODULE_MAGIC)) != 0)
		FAIL(CUDA_ERROR_INVALID_IMAGE);
	char names[MAX_KERNELS][64];
	unsigned n = 0;
	for (const char *p = s + strlen(MODULE_MAGIC); *p;) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (len == 0 || *p == '#') {
			/* blank or a comment */
		} else if (len > 7 && strncmp(p, "kernel ", 7) == 0 && len - 7 < 64 && n < MAX_KERNELS) {
			memcpy(names[n], p + 7, len - 7);
			names[n][len - 7] = '\0';
			if (strchr(names[n], ' '))
				FAIL(CUDA_ERROR_INVALID_IMAGE);
			n++;
		} else
			FAIL(CUDA_ERROR_INVALID_IMAGE);
		if (!e)
			break;
		p = e + 1;
	}
	unsigned id = obj_new(OBJ_MODULE, dev);
	if (!id)
		FAIL(CUDA_ERROR_OUT_OF_MEMORY);
	memcpy(OBJ(id)->names, names, sizeof(names));
	OBJ(id)->nnames = n;
	*module = (CUmodule)(uintptr_t)obj_handle(id);
	LEAVE;
}

API CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name)
{
	ENTER("cuModuleGetFunction");
	unsigned id = obj_id((uint64_t)(uintptr_t)hmod, OBJ_MODULE);
	if (!id)
		FAIL(CUDA_ERROR_INVALID_HANDLE);
	if (!hfunc || !name)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	unsigned k;
	for (k = 0; k < OBJ(id)->nnames; k++)
		if (strcmp(OBJ(id)->names[k], name) == 0)
			break;
	if (k == OBJ(id)->nnames)
		FAIL(CUDA_ERROR_NOT_FOUND);
	/* one function handle per kernel: look for the one made before */
	for (size_t i = 0; i < g_nobjs; i++)
		if (g_objs[i].live && g_objs[i].kind == OBJ_FUNCTION && g_objs[i].module == id &&
		    g_objs[i].index == k) {
			*hfunc = (CUfunction)(uintptr_t)obj_handle((unsigned)i + 1);
			goto done;
		}
	int dev = OBJ(id)->dev;
	unsigned f = obj_new(OBJ_FUNCTION, dev);
	if (!f)
		FAIL(CUDA_ERROR_OUT_OF_MEMORY);
	OBJ(f)->module = id;
	OBJ(f)->index = k;
	*hfunc = (CUfunction)(uintptr_t)obj_handle(f);
	LEAVE;
}

API CUresult cuModuleUnload(CUmodule hmod)
{
	ENTER("cuModuleUnload");
	unsigned id = obj_id((uint64_t)(uintptr_t)hmod, OBJ_MODULE);
	if (!id)
		FAIL(CUDA_ERROR_INVALID_HANDLE);
	OBJ(id)->live = 0;
	for (size_t i = 0; i < g_nobjs; i++)
		if (g_objs[i].kind == OBJ_FUNCTION && g_objs[i].module == id)
			g_objs[i].live = 0;
	LEAVE;
}

/* the simulated clock: a kernel of dur_us starts when the device and the stream are both done
 * with what came before (or now) and keeps the device busy dur_us */
static void run_kernel(int dev, CUstream s, unsigned long long dur_us)
{
	struct device *d = &g_dev[dev];
	struct stream *st = stream_of(s);
	uint64_t start = now_ns();
	if (d->busy_until > start)
		start = d->busy_until;
	if (st && st->done_at > start)
		start = st->done_at;
	uint64_t end = start + dur_us * 1000ull;
	d->busy_until = end;
	if (st)
		st->done_at = end;
	if (end > start) {
		d->ring[d->ring_next][0] = start;
		d->ring[d->ring_next][1] = end;
		d->ring_next = (d->ring_next + 1) % RING;
		if (d->ring_n < RING)
			d->ring_n++;
	}
}

static unsigned long long kernel_duration(void **kernelParams)
{
	if (!kernelParams || !kernelParams[0])
		return 0;
	unsigned long long v;
	memcpy(&v, kernelParams[0], sizeof(v));
	return v;
}

static CUresult graph_add(unsigned graph, CUfunction f, const unsigned grid[3], const unsigned block[3],
			  unsigned shmem, unsigned long long dur, CUgraphNode *out)
{
	struct obj *g = OBJ(graph);
	if (grow((void **)&g->nodes, &g->capnodes, g->nnodes + 1, sizeof(*g->nodes)) != 0)
		return CUDA_ERROR_OUT_OF_MEMORY;
	struct node *n = calloc(1, sizeof(*n));
	if (!n)
		return CUDA_ERROR_OUT_OF_MEMORY;
	n->func = f;
	memcpy(n->grid, grid, sizeof(n->grid));
	memcpy(n->block, block, sizeof(n->block));
	n->shmem = shmem;
	n->dur = dur;
	n->params[0] = &n->dur;
	g->nodes[g->nnodes++] = n;
	if (out)
		*out = (CUgraphNode)(uintptr_t)((TAG_NODE << 48) | ((uint64_t)graph << 24) | g->nnodes);
	return CUDA_SUCCESS;
}

/* a graph memory node: an allocation (its address given when it is made, fixed for the
 * node's life; its memory mapped when the graph is uploaded or launched) or a free; lock held */
static CUresult graph_add_mem(unsigned graph, CUgraphNodeType type, int dev, size_t bytes, uint64_t va,
			      CUgraphNode *out)
{
	struct obj *g = OBJ(graph);
	if (grow((void **)&g->nodes, &g->capnodes, g->nnodes + 1, sizeof(*g->nodes)) != 0)
		return CUDA_ERROR_OUT_OF_MEMORY;
	struct node *n = calloc(1, sizeof(*n));
	if (!n)
		return CUDA_ERROR_OUT_OF_MEMORY;
	n->type = type;
	n->dev = dev;
	n->bytes = bytes;
	n->va = va;
	n->params[0] = &n->dur;
	g->nodes[g->nnodes++] = n;
	if (out)
		*out = (CUgraphNode)(uintptr_t)((TAG_NODE << 48) | ((uint64_t)graph << 24) | g->nnodes);
	return CUDA_SUCCESS;
}

/* an allocation node's address: from the device's address space, not charged */
static uint64_t graph_va(int dev, size_t bytes)
{
	size_t charged = (bytes + ALLOC_ALIGN - 1) / ALLOC_ALIGN * ALLOC_ALIGN;
	uint64_t va = g_dev[dev].next_va;
	g_dev[dev].next_va += charged + ALLOC_ALIGN;
	return va;
}

/* the live allocation at va, or NULL */
static struct alloc *live_at(uint64_t va)
{
	for (size_t i = 0; i < g_nallocs; i++)
		if (g_allocs[i].va == va && !g_allocs[i].mapped)
			return &g_allocs[i];
	return NULL;
}

/* An executable graph's memory nodes on their devices' graph pools. Each pool first grows
 * by what the graph's allocations need beyond what it holds unused, all or nothing
 * (CUDA_ERROR_OUT_OF_MEMORY changes nothing); a launch then makes each allocation live and
 * frees what each free node names, in order; an upload only maps. Lock held. */
static CUresult graph_mem(unsigned x, int launch)
{
	CUresult rc = CUDA_SUCCESS;
	struct obj *o = OBJ(x);
	size_t need[MAX_DEVICES] = {0};
	for (size_t i = 0; i < o->nnodes; i++) {
		struct node *n = o->nodes[i];
		if (n->type == CU_GRAPH_NODE_TYPE_MEM_ALLOC) {
			if (launch && live_at(n->va))
				FAIL(CUDA_ERROR_INVALID_VALUE); /* an earlier launch's allocation is still live */
			need[n->dev] += (n->bytes + ALLOC_ALIGN - 1) / ALLOC_ALIGN * ALLOC_ALIGN;
		} else if (n->type == CU_GRAPH_NODE_TYPE_MEM_FREE && launch && !live_at(n->va)) {
			int earlier = 0; /* allocated by this graph before the free */
			for (size_t k = 0; k < i && !earlier; k++)
				earlier = o->nodes[k]->type == CU_GRAPH_NODE_TYPE_MEM_ALLOC && o->nodes[k]->va == n->va;
			if (!earlier)
				FAIL(CUDA_ERROR_INVALID_VALUE);
		}
	}
	for (int d = 0; d < g_ndev; d++) {
		struct device *dv = &g_dev[d];
		size_t unused = dv->gp_reserved - dv->gp_used;
		if (need[d] > unused && need[d] - unused > dv->total - dv->used)
			FAIL(CUDA_ERROR_OUT_OF_MEMORY);
	}
	for (int d = 0; d < g_ndev; d++) {
		struct device *dv = &g_dev[d];
		size_t unused = dv->gp_reserved - dv->gp_used;
		if (need[d] > unused) {
			dv->used += need[d] - unused;
			dv->gp_reserved += need[d] - unused;
		}
		if (dv->gp_reserved > dv->gp_reserved_high)
			dv->gp_reserved_high = dv->gp_reserved;
	}
	if (!launch)
		goto done;
	for (size_t i = 0; i < o->nnodes; i++) {
		struct node *n = o->nodes[i];
		if (n->type == CU_GRAPH_NODE_TYPE_MEM_FREE) {
			rc = free_va(n->va);
			if (rc != CUDA_SUCCESS)
				goto done;
			continue;
		}
		if (n->type != CU_GRAPH_NODE_TYPE_MEM_ALLOC)
			continue;
		unsigned char *host = malloc(n->bytes);
		if (!host || grow((void **)&g_allocs, &g_capallocs, g_nallocs + 1, sizeof(*g_allocs)) != 0) {
			free(host);
			FAIL(CUDA_ERROR_OUT_OF_MEMORY);
		}
		struct alloc *a = &g_allocs[g_nallocs++];
		memset(a, 0, sizeof(*a));
		a->va = n->va;
		a->size = n->bytes;
		a->charged = (n->bytes + ALLOC_ALIGN - 1) / ALLOC_ALIGN * ALLOC_ALIGN;
		a->host = host;
		a->dev = n->dev;
		a->pool = GRAPH_POOL;
		g_dev[n->dev].gp_used += a->charged;
		if (g_dev[n->dev].gp_used > g_dev[n->dev].gp_used_high)
			g_dev[n->dev].gp_used_high = g_dev[n->dev].gp_used;
	}
done:
	return rc;
}

/* a launch: runs the kernel on the stream's device, or records it in the graph being captured */
static CUresult launch(const char *fn, CUfunction f, const unsigned grid[3], const unsigned block[3], unsigned shmem,
		       CUstream s, void **kernelParams)
{
	ENTER(fn);
	unsigned id = obj_id((uint64_t)(uintptr_t)f, OBJ_FUNCTION);
	if (!id)
		FAIL(CUDA_ERROR_INVALID_HANDLE);
	if (grid[0] * grid[1] * grid[2] == 0 || block[0] * block[1] * block[2] == 0 ||
	    block[0] * block[1] * block[2] > 1024)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	int dev = stream_device(s, &rc);
	if (dev < 0)
		goto done;
	NOT_LOST(dev);
	NOT_CHECKPOINTED();
	unsigned long long dur = kernel_duration(kernelParams);
	struct stream *st = stream_of(s);
	if (st && st->capture)
		rc = graph_add(st->capture, f, grid, block, shmem, dur, NULL);
	else
		run_kernel(dev, s, dur);
	LEAVE;
}

API CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,
			    unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,
			    unsigned int sharedMemBytes, CUstream hStream, void **kernelParams, void **extra)
{
	(void)extra;
	unsigned grid[3] = { gridDimX, gridDimY, gridDimZ }, block[3] = { blockDimX, blockDimY, blockDimZ };
	return launch("cuLaunchKernel", f, grid, block, sharedMemBytes, hStream, kernelParams);
}

API CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f, void **kernelParams, void **extra)
{
	(void)extra;
	if (!config)
		return CUDA_ERROR_INVALID_VALUE;
	unsigned grid[3] = { config->gridDimX, config->gridDimY, config->gridDimZ };
	unsigned block[3] = { config->blockDimX, config->blockDimY, config->blockDimZ };
	return launch("cuLaunchKernelEx", f, grid, block, config->sharedMemBytes, config->hStream, kernelParams);
}

API CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
				       unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
				       unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
				       void **kernelParams)
{
	unsigned grid[3] = { gridDimX, gridDimY, gridDimZ }, block[3] = { blockDimX, blockDimY, blockDimZ };
	return launch("cuLaunchCooperativeKernel", f, grid, block, sharedMemBytes, hStream, kernelParams);
}

/* ---- graphs ------------------------------------------------------------------------------- */
API CUresult cuStreamBeginCapture_v2(CUstream hStream, CUstreamCaptureMode mode)
{
	ENTER("cuStreamBeginCapture_v2");
	if (hStream == NULL || hStream == CU_STREAM_LEGACY || hStream == CU_STREAM_PER_THREAD)
		FAIL(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
	struct stream *st = stream_of(hStream);
	if (!st)
		FAIL(CUDA_ERROR_INVALID_HANDLE);
	if ((unsigned)mode > CU_STREAM_CAPTURE_MODE_RELAXED)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	if (st->capture)
		FAIL(CUDA_ERROR_ILLEGAL_STATE);
	int dev = st->dev;
	unsigned id = obj_new(OBJ_GRAPH, dev);
	if (!id)
		FAIL(CUDA_ERROR_OUT_OF_MEMORY);
	stream_of(hStream)->capture = id;
	LEAVE;
}

API CUresult cuStreamIsCapturing(CUstream hStream, CUstreamCaptureStatus *captureStatus)
{
	ENTER("cuStreamIsCapturing");
	if (!captureStatus)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	if (hStream == NULL || hStream == CU_STREAM_LEGACY || hStream == CU_STREAM_PER_THREAD) {
		*captureStatus = CU_STREAM_CAPTURE_STATUS_NONE; /* never captured (BeginCapture refuses) */
		goto done;
	}
	struct stream *st = stream_of(hStream);
	if (!st)
		FAIL(CUDA_ERROR_INVALID_HANDLE);
	*captureStatus = st->capture ? CU_STREAM_CAPTURE_STATUS_ACTIVE : CU_STREAM_CAPTURE_STATUS_NONE;
	LEAVE;
}

API CUresult cuStreamEndCapture(CUstream hStream, CUgraph *phGraph)
{
	ENTER("cuStreamEndCapture");
	struct stream *st = stream_of(hStream);
	if (!st)
		FAIL(CUDA_ERROR_INVALID_HANDLE);
	if (!phGraph)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	if (!st->capture)
		FAIL(CUDA_ERROR_ILLEGAL_STATE);
	*phGraph = (CUgraph)(uintptr_t)obj_handle(st->capture);
	st->capture = 0;
	LEAVE;
}

API CUresult cuGraphCreate(CUgraph *phGraph, unsigned int flags)
{
	ENTER("cuGraphCreate");
	if (!phGraph || flags != 0)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	unsigned id = obj_new(OBJ_GRAPH, -1);
	if (!id)
		FAIL(CUDA_ERROR_OUT_OF_MEMORY);
	*phGraph = (CUgraph)(uintptr_t)obj_handle(id);
	LEAVE;
}

/* the node of a handle, or NULL */
static struct node *node_of(CUgraphNode h)
{
	uint64_t v = (uint64_t)(uintptr_t)h;
	if (v >> 48 != TAG_NODE)
		return NULL;
	unsigned graph = (unsigned)((v >> 24) & 0xffffff);
	size_t idx = v & 0xffffff;
	if (!graph || graph > g_nobjs || !OBJ(graph)->live || OBJ(graph)->kind != OBJ_GRAPH || idx == 0 ||
	    idx > OBJ(graph)->nnodes)
		return NULL;
	return OBJ(graph)->nodes[idx - 1];
}

API CUresult cuGraphAddKernelNode_v2(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
				     size_t numDependencies, const CUDA_KERNEL_NODE_PARAMS *nodeParams)
{
	ENTER("cuGraphAddKernelNode_v2");
	unsigned id = obj_id((uint64_t)(uintptr_t)hGraph, OBJ_GRAPH);
	if (!id)
		FAIL(CUDA_ERROR_INVALID_HANDLE);
	if (!phGraphNode || !nodeParams || (numDependencies && !dependencies))
		FAIL(CUDA_ERROR_INVALID_VALUE);
	for (size_t i = 0; i < numDependencies; i++)
		if (!node_of(dependencies[i]))
			FAIL(CUDA_ERROR_INVALID_VALUE);
	if (!obj_id((uint64_t)(uintptr_t)nodeParams->func, OBJ_FUNCTION))
		FAIL(CUDA_ERROR_INVALID_HANDLE);
	const CUDA_KERNEL_NODE_PARAMS *p = nodeParams;
	unsigned grid[3] = { p->gridDimX, p->gridDimY, p->gridDimZ },
		 block[3] = { p->blockDimX, p->blockDimY, p->blockDimZ };
	/* nodes run in the order they were added (dependencies are checked, not ordered by) */
	rc = graph_add(id, p->func, grid, block, p->sharedMemBytes, kernel_duration(p->kernelParams), phGraphNode);
	LEAVE;
}

API CUresult cuGraphGetNodes(CUgraph hGraph, CUgraphNode *nodes, size_t *numNodes)
{
	ENTER("cuGraphGetNodes");
	unsigned id = obj_id((uint64_t)(uintptr_t)hGraph, OBJ_GRAPH);
	if (!id)
		FAIL(CUDA_ERROR_INVALID_HANDLE);
	if (!numNodes)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	size_t n = OBJ(id)->nnodes;
	if (nodes) {
		for (size_t i = 0; i < *numNodes; i++)
			nodes[i] = i < n ? (CUgraphNode)(uintptr_t)((TAG_NODE << 48) | ((uint64_t)id << 24) | (i + 1))
					 : NULL;
		if (*numNodes < n)
			goto done; /* as many as fit; *numNodes unchanged */
	}
	*numNodes = n;
	LEAVE;
}

API CUresult cuGraphKernelNodeGetParams_v2(CUgraphNode hNode, CUDA_KERNEL_NODE_PARAMS *nodeParams)
{
	ENTER("cuGraphKernelNodeGetParams_v2");
	struct node *n = node_of(hNode);
	if (!n)
		FAIL(CUDA_ERROR_INVALID_HANDLE);
	if (!nodeParams || n->type != CU_GRAPH_NODE_TYPE_KERNEL)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	memset(nodeParams, 0, sizeof(*nodeParams));
	nodeParams->func = n->func;
	nodeParams->gridDimX = n->grid[0];
	nodeParams->gridDimY = n->grid[1];
	nodeParams->gridDimZ = n->grid[2];
	nodeParams->blockDimX = n->block[0];
	nodeParams->blockDimY = n->block[1];
	nodeParams->blockDimZ = n->block[2];
	nodeParams->sharedMemBytes = n->shmem;
	nodeParams->kernelParams = n->params; /* [0] -> the duration, valid while the graph lives */
	LEAVE;
}

static CUresult instantiate(const char *fn, CUgraphExec *phGraphExec, CUgraph hGraph)
{
	ENTER(fn);
	unsigned id = obj_id((uint64_t)(uintptr_t)hGraph, OBJ_GRAPH);
	if (!id)
		FAIL(CUDA_ERROR_INVALID_HANDLE);
	if (!phGraphExec)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	unsigned x = obj_new(OBJ_EXEC, -1);
	if (!x)
		FAIL(CUDA_ERROR_OUT_OF_MEMORY);
	struct obj *g = OBJ(id);
	for (size_t i = 0; i < g->nnodes; i++) {
		struct node *n = g->nodes[i];
		if (n->type == CU_GRAPH_NODE_TYPE_KERNEL)
			rc = graph_add(x, n->func, n->grid, n->block, n->shmem, n->dur, NULL);
		else
			rc = graph_add_mem(x, n->type, n->dev, n->bytes, n->va, NULL);
		g = OBJ(id);
		if (rc != CUDA_SUCCESS) {
			free_nodes(OBJ(x));
			OBJ(x)->live = 0;
			goto done;
		}
	}
	*phGraphExec = (CUgraphExec)(uintptr_t)obj_handle(x);
	LEAVE;
}

API CUresult cuGraphInstantiateWithFlags(CUgraphExec *phGraphExec, CUgraph hGraph, unsigned long long flags)
{
	(void)flags;
	return instantiate("cuGraphInstantiateWithFlags", phGraphExec, hGraph);
}

API CUresult cuGraphInstantiate_v2(CUgraphExec *phGraphExec, CUgraph hGraph, CUgraphNode *phErrorNode,
				   char *logBuffer, size_t bufferSize)
{
	if (phErrorNode)
		*phErrorNode = NULL;
	if (logBuffer && bufferSize)
		logBuffer[0] = '\0';
	return instantiate("cuGraphInstantiate_v2", phGraphExec, hGraph);
}

API CUresult cuGraphLaunch(CUgraphExec hGraphExec, CUstream hStream)
{
	ENTER("cuGraphLaunch");
	unsigned id = obj_id((uint64_t)(uintptr_t)hGraphExec, OBJ_EXEC);
	if (!id)
		FAIL(CUDA_ERROR_INVALID_HANDLE);
	int dev = stream_device(hStream, &rc);
	if (dev < 0)
		goto done;
	NOT_LOST(dev);
	NOT_CHECKPOINTED();
	struct stream *st = stream_of(hStream);
	if (st && st->capture)
		FAIL(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
	rc = graph_mem(id, 1);
	if (rc != CUDA_SUCCESS)
		goto done;
	for (size_t i = 0; i < OBJ(id)->nnodes; i++)
		if (OBJ(id)->nodes[i]->type == CU_GRAPH_NODE_TYPE_KERNEL)
			run_kernel(dev, hStream, OBJ(id)->nodes[i]->dur);
	LEAVE;
}

static CUresult graph_upload(const char *fn, CUgraphExec hGraphExec, CUstream hStream);
static CUresult graph_destroy(const char *fn, uint64_t h, int kind);

/* CUDA 12.0's: with CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD the graph is uploaded into
 * hUploadStream at once (cuGraphUpload); a failed upload leaves no executable graph */
API CUresult cuGraphInstantiateWithParams(CUgraphExec *phGraphExec, CUgraph hGraph,
					  CUDA_GRAPH_INSTANTIATE_PARAMS *instantiateParams)
{
	if (!instantiateParams)
		return g_init ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_NOT_INITIALIZED;
	instantiateParams->hErrNode_out = NULL;
	CUresult rc = instantiate("cuGraphInstantiateWithParams", phGraphExec, hGraph);
	if (rc == CUDA_SUCCESS && (instantiateParams->flags & CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD)) {
		/* the double's own functions, not the exported names (which a preloaded
		 * library may interpose) */
		rc = graph_upload("cuGraphInstantiateWithParams", *phGraphExec, instantiateParams->hUploadStream);
		if (rc != CUDA_SUCCESS) {
			graph_destroy("cuGraphInstantiateWithParams", (uint64_t)(uintptr_t)*phGraphExec, OBJ_EXEC);
			*phGraphExec = NULL;
		}
	}
	instantiateParams->result_out =
	    rc == CUDA_SUCCESS ? CUDA_GRAPH_INSTANTIATE_SUCCESS : CUDA_GRAPH_INSTANTIATE_ERROR;
	return rc;
}

/* the graph's allocations mapped ahead of its launch (the graph pool grows), not made live */
static CUresult graph_upload(const char *fn, CUgraphExec hGraphExec, CUstream hStream)
{
	ENTER(fn);
	unsigned id = obj_id((uint64_t)(uintptr_t)hGraphExec, OBJ_EXEC);
	if (!id)
		FAIL(CUDA_ERROR_INVALID_HANDLE);
	int dev = stream_device(hStream, &rc);
	if (dev < 0)
		goto done;
	NOT_LOST(dev);
	NOT_CHECKPOINTED();
	rc = graph_mem(id, 0);
	LEAVE;
}

API CUresult cuGraphUpload(CUgraphExec hGraphExec, CUstream hStream)
{
	return graph_upload("cuGraphUpload", hGraphExec, hStream);
}

API CUresult cuGraphNodeGetType(CUgraphNode hNode, CUgraphNodeType *type)
{
	ENTER("cuGraphNodeGetType");
	struct node *n = node_of(hNode);
	if (!n)
		FAIL(CUDA_ERROR_INVALID_HANDLE);
	if (!type)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	*type = n->type;
	LEAVE;
}

/* a new node's dependencies: nodes, and n of them; lock held */
static int deps_ok(const CUgraphNode *dependencies, size_t n)
{
	if (n && !dependencies)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!node_of(dependencies[i]))
			return 0;
	return 1;
}

/* an allocation node of graph id (its address in *dptr); lock held */
static CUresult add_alloc_node(unsigned id, const CUmemPoolProps *pp, size_t bytesize, CUdeviceptr *dptr,
			       CUgraphNode *out)
{
	if (pp->allocType != CU_MEM_ALLOCATION_TYPE_PINNED || pp->location.type != CU_MEM_LOCATION_TYPE_DEVICE ||
	    bytesize == 0 || bytesize > SIZE_MAX / 2)
		return CUDA_ERROR_INVALID_VALUE;
	int dev = pp->location.id;
	if (dev < 0 || dev >= g_ndev)
		return CUDA_ERROR_INVALID_DEVICE;
	if (bytesize > g_dev[dev].total)
		return CUDA_ERROR_OUT_OF_MEMORY; /* no launch could map it */
	uint64_t va = graph_va(dev, bytesize);
	CUresult rc = graph_add_mem(id, CU_GRAPH_NODE_TYPE_MEM_ALLOC, dev, bytesize, va, out);
	if (rc == CUDA_SUCCESS)
		*dptr = va;
	return rc;
}

/* a free node of graph id; lock held */
static CUresult add_free_node(unsigned id, CUdeviceptr dptr, CUgraphNode *out)
{
	if (!is_device_address((void *)(uintptr_t)dptr))
		return CUDA_ERROR_INVALID_VALUE;
	int dev = (int)((dptr >> VA_SHIFT) - 1);
	if (dev < 0 || dev >= g_ndev)
		return CUDA_ERROR_INVALID_VALUE;
	return graph_add_mem(id, CU_GRAPH_NODE_TYPE_MEM_FREE, dev, 0, dptr, out);
}

API CUresult cuGraphAddMemAllocNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
				    size_t numDependencies, CUDA_MEM_ALLOC_NODE_PARAMS *nodeParams)
{
	ENTER("cuGraphAddMemAllocNode");
	unsigned id = obj_id((uint64_t)(uintptr_t)hGraph, OBJ_GRAPH);
	if (!id)
		FAIL(CUDA_ERROR_INVALID_HANDLE);
	if (!phGraphNode || !nodeParams || !deps_ok(dependencies, numDependencies))
		FAIL(CUDA_ERROR_INVALID_VALUE);
	rc = add_alloc_node(id, &nodeParams->poolProps, nodeParams->bytesize, &nodeParams->dptr, phGraphNode);
	LEAVE;
}

API CUresult cuGraphAddMemFreeNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
				   size_t numDependencies, CUdeviceptr dptr)
{
	ENTER("cuGraphAddMemFreeNode");
	unsigned id = obj_id((uint64_t)(uintptr_t)hGraph, OBJ_GRAPH);
	if (!id)
		FAIL(CUDA_ERROR_INVALID_HANDLE);
	if (!phGraphNode || !deps_ok(dependencies, numDependencies))
		FAIL(CUDA_ERROR_INVALID_VALUE);
	rc = add_free_node(id, dptr, phGraphNode);
	LEAVE;
}

_Static_assert(sizeof(CUgraphNodeParams) == 256, "CUgraphNodeParams is 256 bytes (cuda.h 12.2)");
_Static_assert(offsetof(CUgraphNodeParams, alloc) == 16, "CUgraphNodeParams' union at 16");
_Static_assert(sizeof(CUgraphEdgeData) == 8, "CUgraphEdgeData is 8 bytes (cuda.h 12.3)");

static int all_zero(const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		if (b[i])
			return 0;
	return 1;
}

/* cuGraphAddNode(_v2): the node types the double has (memory allocation and free); every
 * byte past the type's member zero, as the reference demands; the other types
 * CUDA_ERROR_NOT_SUPPORTED (the double's own limit). Edge data: only the default (zero)
 * edge, the double keeps no ports; another: CUDA_ERROR_NOT_SUPPORTED. Lock held. */
static CUresult add_node(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
			 const CUgraphEdgeData *dependencyData, size_t numDependencies, CUgraphNodeParams *p)
{
	unsigned id = obj_id((uint64_t)(uintptr_t)hGraph, OBJ_GRAPH);
	if (!id)
		return CUDA_ERROR_INVALID_HANDLE;
	if (!phGraphNode || !p || !deps_ok(dependencies, numDependencies))
		return CUDA_ERROR_INVALID_VALUE;
	if (dependencyData && !all_zero(dependencyData, numDependencies * sizeof(*dependencyData)))
		return CUDA_ERROR_NOT_SUPPORTED;
	size_t used;
	switch (p->type) {
	case CU_GRAPH_NODE_TYPE_MEM_ALLOC: used = sizeof(p->alloc); break;
	case CU_GRAPH_NODE_TYPE_MEM_FREE: used = sizeof(p->free); break;
	default: return CUDA_ERROR_NOT_SUPPORTED;
	}
	const unsigned char *u = (const unsigned char *)p->reserved1;
	if (!all_zero(p->reserved0, sizeof(p->reserved0)) || !all_zero(u + used, sizeof(p->reserved1) - used) ||
	    p->reserved2)
		return CUDA_ERROR_INVALID_VALUE;
	if (p->type == CU_GRAPH_NODE_TYPE_MEM_ALLOC)
		return add_alloc_node(id, &p->alloc.poolProps, p->alloc.bytesize, &p->alloc.dptr, phGraphNode);
	return add_free_node(id, p->free.dptr, phGraphNode);
}

API CUresult cuGraphAddNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
			    size_t numDependencies, CUgraphNodeParams *nodeParams)
{
	ENTER("cuGraphAddNode");
	rc = add_node(phGraphNode, hGraph, dependencies, NULL, numDependencies, nodeParams);
	LEAVE;
}

API CUresult cuGraphAddNode_v2(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
			       const CUgraphEdgeData *dependencyData, size_t numDependencies,
			       CUgraphNodeParams *nodeParams)
{
	ENTER("cuGraphAddNode_v2");
	rc = add_node(phGraphNode, hGraph, dependencies, dependencyData, numDependencies, nodeParams);
	LEAVE;
}

API CUresult cuGraphMemAllocNodeGetParams(CUgraphNode hNode, CUDA_MEM_ALLOC_NODE_PARAMS *params_out)
{
	ENTER("cuGraphMemAllocNodeGetParams");
	struct node *n = node_of(hNode);
	if (!n)
		FAIL(CUDA_ERROR_INVALID_HANDLE);
	if (!params_out || n->type != CU_GRAPH_NODE_TYPE_MEM_ALLOC)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	memset(params_out, 0, sizeof(*params_out));
	params_out->poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
	params_out->poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	params_out->poolProps.location.id = n->dev;
	params_out->bytesize = n->bytes;
	params_out->dptr = n->va;
	LEAVE;
}

/* what the graph pool holds that no live graph allocation uses goes back */
API CUresult cuDeviceGraphMemTrim(CUdevice device)
{
	ENTER("cuDeviceGraphMemTrim");
	DEVICE_OK(device);
	struct device *d = &g_dev[device];
	d->used -= d->gp_reserved - d->gp_used;
	d->gp_reserved = d->gp_used;
	LEAVE;
}

API CUresult cuDeviceGetGraphMemAttribute(CUdevice device, CUgraphMem_attribute attr, void *value)
{
	ENTER("cuDeviceGetGraphMemAttribute");
	DEVICE_OK(device);
	if (!value)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	const struct device *d = &g_dev[device];
	cuuint64_t v;
	switch (attr) {
	case CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT: v = d->gp_used; break;
	case CU_GRAPH_MEM_ATTR_USED_MEM_HIGH: v = d->gp_used_high; break;
	case CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT: v = d->gp_reserved; break;
	case CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH: v = d->gp_reserved_high; break;
	default: FAIL(CUDA_ERROR_INVALID_VALUE);
	}
	memcpy(value, &v, sizeof(v));
	LEAVE;
}

static CUresult graph_destroy(const char *fn, uint64_t h, int kind)
{
	ENTER(fn);
	unsigned id = obj_id(h, kind);
	if (!id)
		FAIL(CUDA_ERROR_INVALID_HANDLE);
	for (size_t i = 0; i < g_nstreams; i++)
		if (g_streams[i].capture == id)
			FAIL(CUDA_ERROR_ILLEGAL_STATE); /* still being captured into */
	free_nodes(OBJ(id));
	OBJ(id)->live = 0;
	LEAVE;
}

API CUresult cuGraphExecDestroy(CUgraphExec hGraphExec)
{
	return graph_destroy("cuGraphExecDestroy", (uint64_t)(uintptr_t)hGraphExec, OBJ_EXEC);
}

API CUresult cuGraphDestroy(CUgraph hGraph)
{
	return graph_destroy("cuGraphDestroy", (uint64_t)(uintptr_t)hGraph, OBJ_GRAPH);
}

/* ---- waiting and utilisation ----------------------------------------------------------------- */
static void sleep_until(uint64_t ns)
{
	for (;;) {
		uint64_t now = now_ns();
		if (now >= ns)
			return;
		uint64_t left = ns - now;
		struct timespec t = { (time_t)(left / 1000000000ull), (long)(left % 1000000000ull) };
		nanosleep(&t, NULL);
	}
}

/* nanoseconds device d was busy in [from, to) */
static uint64_t busy_ns(const struct device *d, uint64_t from, uint64_t to)
{
	uint64_t sum = 0;
	for (unsigned i = 0; i < d->ring_n; i++) {
		uint64_t s = d->ring[i][0], e = d->ring[i][1];
		if (s < from)
			s = from;
		if (e > to)
			e = to;
		if (e > s)
			sum += e - s;
	}
	return sum;
}

static unsigned percent_busy(const struct device *d, uint64_t from, uint64_t to)
{
	if (to <= from)
		return 0;
	uint64_t b = busy_ns(d, from, to);
	return (unsigned)((b * 100 + (to - from) / 2) / (to - from));
}

API int axl_cuda_double_utilization(int ordinal, unsigned int *percent)
{
	ENTER("axl_cuda_double_utilization");
	if (!percent)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	DEVICE_OK(ordinal);
	struct device *d = &g_dev[ordinal];
	uint64_t now = now_ns(), from = now > 1000000000ull ? now - 1000000000ull : 0;
	if (d->last_query > from)
		from = d->last_query;
	*percent = percent_busy(d, from, now);
	d->last_query = now;
	LEAVE;
}

static void *util_writer(void *arg)
{
	const char *path = arg;
	char tmp[4096];
	snprintf(tmp, sizeof(tmp), "%s.tmp%d", path, (int)getpid());
	for (;;) {
		FILE *f = fopen(tmp, "w");
		if (f) {
			pthread_mutex_lock(&g_lock);
			uint64_t now = now_ns(), from = now > 1000000000ull ? now - 1000000000ull : 0;
			fprintf(f, "# cuda_double utilization: ordinal pci-bus-id busy-percent-of-the-last-second\n");
			for (int i = 0; i < g_ndev; i++)
				fprintf(f, "%d %04X:%02X:%02X.%X %u\n", i, g_dev[i].domain, g_dev[i].bus, g_dev[i].dev,
					g_dev[i].fn, percent_busy(&g_dev[i], from, now));
			pthread_mutex_unlock(&g_lock);
			if (fclose(f) == 0)
				rename(tmp, path);
		}
		struct timespec t = { 0, 100000000 };
		nanosleep(&t, NULL);
	}
	return NULL;
}

/* AXL_CUDA_DOUBLE_UTIL_FILE: a thread rewrites the file every 100 ms; lock held */
static void util_file_start(void)
{
	static char path[4096];
	const char *p = getenv("AXL_CUDA_DOUBLE_UTIL_FILE");
	if (!p || !*p || path[0])
		return;
	snprintf(path, sizeof(path), "%s", p);
	pthread_t th;
	if (pthread_create(&th, NULL, util_writer, path) == 0)
		pthread_detach(th);
}

/* ---- process checkpoints (CUDA 12.8) ------------------------------------------------------- */
#ifndef CUDA_DOUBLE_OLD
#define CKPT_PID(pid)                                    \
	do {                                             \
		if ((pid) != (int)getpid())              \
			FAIL(CUDA_ERROR_INVALID_VALUE); \
	} while (0)

API CUresult cuCheckpointProcessGetState(int pid, CUprocessState *state)
{
	ENTER("cuCheckpointProcessGetState");
	CKPT_PID(pid);
	if (!state)
		FAIL(CUDA_ERROR_INVALID_VALUE);
	*state = (CUprocessState)g_ckpt_state;
	LEAVE;
}

static CUresult ckpt_lock(int pid, uint64_t *until)
{
	ENTER("cuCheckpointProcessLock");
	CKPT_PID(pid);
	if (g_ckpt_state != CU_PROCESS_STATE_RUNNING)
		FAIL(CUDA_ERROR_ILLEGAL_STATE);
	for (int i = 0; i < g_ndev; i++)
		if (g_dev[i].busy_until > *until)
			*until = g_dev[i].busy_until;
	g_ckpt_state = CU_PROCESS_STATE_LOCKED;
	LEAVE;
}

API CUresult cuCheckpointProcessLock(int pid, CUcheckpointLockArgs *args)
{
	uint64_t until = 0;
	CUresult rc = ckpt_lock(pid, &until);
	if (rc == CUDA_SUCCESS) /* the work submitted so far completes first */
		sleep_until(until);
	(void)args;
	return rc;
}

API CUresult cuCheckpointProcessCheckpoint(int pid, CUcheckpointCheckpointArgs *args)
{
	ENTER("cuCheckpointProcessCheckpoint");
	CKPT_PID(pid);
	(void)args;
	if (g_ckpt_state != CU_PROCESS_STATE_LOCKED)
		FAIL(CUDA_ERROR_ILLEGAL_STATE);
	/* device memory goes to host memory (where the double keeps it anyway): the devices are free */
	for (int i = 0; i < g_ndev; i++) {
		g_dev[i].ckpt_used = g_dev[i].used;
		g_dev[i].used = 0;
	}
	g_ckpt_state = CU_PROCESS_STATE_CHECKPOINTED;
	LEAVE;
}

API CUresult cuCheckpointProcessRestore(int pid, CUcheckpointRestoreArgs *args)
{
	ENTER("cuCheckpointProcessRestore");
	CKPT_PID(pid);
	(void)args;
	if (g_ckpt_state != CU_PROCESS_STATE_CHECKPOINTED)
		FAIL(CUDA_ERROR_ILLEGAL_STATE);
	for (int i = 0; i < g_ndev; i++) {
		g_dev[i].used = g_dev[i].ckpt_used;
		g_dev[i].ckpt_used = 0;
	}
	g_ckpt_state = CU_PROCESS_STATE_LOCKED; /* as the reference says: restored, still locked */
	LEAVE;
}

API CUresult cuCheckpointProcessUnlock(int pid, CUcheckpointUnlockArgs *args)
{
	ENTER("cuCheckpointProcessUnlock");
	CKPT_PID(pid);
	(void)args;
	if (g_ckpt_state != CU_PROCESS_STATE_LOCKED)
		FAIL(CUDA_ERROR_ILLEGAL_STATE);
	g_ckpt_state = CU_PROCESS_STATE_RUNNING;
	LEAVE;
}
#endif

/* ---- cuGetProcAddress ------------------------------------------------------------------------- */
/* every entry point the double exports, by its exported name */
#define PROC_COMMON(X)                                                                                              \
	X(cuInit) X(cuDriverGetVersion) X(cuGetErrorName) X(cuGetErrorString) X(cuDeviceGetCount) X(cuDeviceGet)    \
	X(cuDeviceGetName) X(cuDeviceGetPCIBusId) X(cuDeviceGetUuid) X(cuDeviceTotalMem_v2) X(cuDeviceGetAttribute) \
	X(cuDeviceCanAccessPeer) X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease) X(cuCtxSetCurrent)        \
	X(cuCtxGetCurrent) X(cuCtxGetDevice) X(cuCtxSynchronize) X(cuCtxEnablePeerAccess) X(cuMemAlloc_v2)          \
	X(cuMemFree_v2) X(cuMemHostAlloc) X(cuMemFreeHost) X(cuMemGetInfo) X(cuMemcpyHtoDAsync_v2)                  \
	X(cuMemcpyDtoHAsync_v2) X(cuMemcpyDtoDAsync_v2) X(cuMemsetD8Async) X(cuStreamCreate) X(cuStreamDestroy_v2)  \
	X(cuStreamSynchronize) X(cuStreamQuery) X(cuEventCreate) X(cuEventRecord) X(cuEventSynchronize)             \
	X(cuEventQuery) X(cuEventElapsedTime) X(cuEventDestroy_v2) X(cuMemAllocPitch_v2) X(cuMemAllocManaged)       \
	X(cuMemAllocAsync) X(cuMemFreeAsync) X(cuMemPoolCreate) X(cuMemPoolDestroy) X(cuDeviceGetDefaultMemPool)    \
	X(cuMemAllocFromPoolAsync) X(cuMemPoolTrimTo) X(cuMemPoolGetAttribute) X(cuMemPoolSetAttribute)             \
	X(cuDeviceGetMemPool) X(cuMemCreate) X(cuMemRelease) X(cuMemAddressReserve) X(cuMemAddressFree) X(cuMemMap) \
	X(cuMemUnmap) X(cuMemSetAccess) X(cuMemRetainAllocationHandle) X(cuGraphAddNode) X(cuGraphAddNode_v2)       \
	X(cuMemMapArrayAsync) X(cuMemGetAllocationGranularity) X(cuArrayCreate_v2) X(cuArrayDestroy)                \
	X(cuMipmappedArrayCreate) X(cuMipmappedArrayDestroy) X(cuModuleLoadData) X(cuModuleGetFunction)             \
	X(cuModuleUnload) X(cuLaunchKernel) X(cuLaunchKernelEx) X(cuLaunchCooperativeKernel)                        \
	X(cuStreamBeginCapture_v2) X(cuStreamIsCapturing) X(cuStreamEndCapture) X(cuGraphCreate)                    \
	X(cuGraphAddKernelNode_v2) X(cuGraphGetNodes) X(cuGraphKernelNodeGetParams_v2)                              \
	X(cuGraphInstantiateWithFlags) X(cuGraphInstantiate_v2) X(cuGraphLaunch) X(cuGraphExecDestroy)              \
	X(cuGraphDestroy) X(cuGetProcAddress) X(cuGetProcAddress_v2) X(cuMemAlloc) X(cuMemAllocPitch) X(cuMemFree)  \
	X(cuDeviceTotalMem) X(cuArrayCreate) X(cuArray3DCreate) X(cuArray3DCreate_v2) X(cuGraphNodeGetType)         \
	X(cuGraphAddMemAllocNode) X(cuGraphAddMemFreeNode) X(cuGraphMemAllocNodeGetParams) X(cuGraphUpload)         \
	X(cuDeviceGraphMemTrim) X(cuDeviceGetGraphMemAttribute) X(cuGraphInstantiateWithParams)
#ifndef CUDA_DOUBLE_OLD
#define PROC_NEW(X)                                                                                        \
	X(cuDeviceGetUuid_v2) X(cuDevicePrimaryCtxRelease_v2) X(cuMemGetInfo_v2) X(cuMemcpyPeerAsync)      \
	X(cuCheckpointProcessGetState) X(cuCheckpointProcessLock) X(cuCheckpointProcessCheckpoint)         \
	X(cuCheckpointProcessRestore) X(cuCheckpointProcessUnlock)
#else
#define PROC_NEW(X)
#endif

struct proc {
	const char *name;
	void *fn;
};
#define PROC_ENTRY(f) { #f, (void *)f },
static const struct proc procs[] = { PROC_COMMON(PROC_ENTRY) PROC_NEW(PROC_ENTRY) };

/* base names the runtime asks for and the versioned symbol each CUDA version gets (the
 * highest `since` not above the caller's version wins) */
static const struct {
	const char *base, *name;
	int since;
} versioned[] = {
	{ "cuDeviceTotalMem", "cuDeviceTotalMem_v2", 3020 },
	{ "cuMemAlloc", "cuMemAlloc_v2", 3020 },
	{ "cuMemFree", "cuMemFree_v2", 3020 },
	{ "cuMemGetInfo", "cuMemGetInfo_v2", 3020 },
	{ "cuMemAllocPitch", "cuMemAllocPitch_v2", 3020 },
	{ "cuMemcpyHtoDAsync", "cuMemcpyHtoDAsync_v2", 3020 },
	{ "cuMemcpyDtoHAsync", "cuMemcpyDtoHAsync_v2", 3020 },
	{ "cuMemcpyDtoDAsync", "cuMemcpyDtoDAsync_v2", 3020 },
	{ "cuArrayCreate", "cuArrayCreate_v2", 3020 },
	{ "cuArray3DCreate", "cuArray3DCreate_v2", 3020 },
	{ "cuStreamDestroy", "cuStreamDestroy_v2", 4000 },
	{ "cuEventDestroy", "cuEventDestroy_v2", 4000 },
	{ "cuStreamBeginCapture", "cuStreamBeginCapture_v2", 10010 },
	{ "cuGraphInstantiate", "cuGraphInstantiate_v2", 11000 },
	{ "cuGraphInstantiate", "cuGraphInstantiateWithFlags", 12000 },
	{ "cuGraphAddKernelNode", "cuGraphAddKernelNode_v2", 12000 },
	{ "cuGraphAddNode", "cuGraphAddNode_v2", 12030 },
	{ "cuGraphKernelNodeGetParams", "cuGraphKernelNodeGetParams_v2", 12000 },
	{ "cuGetProcAddress", "cuGetProcAddress_v2", 12000 },
#ifndef CUDA_DOUBLE_OLD
	{ "cuDevicePrimaryCtxRelease", "cuDevicePrimaryCtxRelease_v2", 11000 },
	{ "cuDeviceGetUuid", "cuDeviceGetUuid_v2", 11040 },
#endif
};

/* the entry points with a per-thread-default-stream variant (_ptsz, or _ptds for copies) in
 * NVIDIA's driver; the double's default streams are one, so both resolve to the same entry */
static const char *const per_thread[] = {
	"cuMemcpyHtoDAsync_v2", "cuMemcpyDtoHAsync_v2", "cuMemcpyDtoDAsync_v2", "cuMemcpyPeerAsync",
	"cuMemsetD8Async", "cuStreamSynchronize", "cuStreamQuery", "cuEventRecord", "cuLaunchKernel",
	"cuLaunchKernelEx", "cuLaunchCooperativeKernel", "cuMemAllocAsync", "cuMemFreeAsync",
	"cuMemAllocFromPoolAsync", "cuStreamBeginCapture_v2", "cuStreamEndCapture", "cuGraphLaunch", "cuGraphUpload",
	"cuMemMapArrayAsync",
};

static void *proc_exact(const char *name)
{
	for (size_t i = 0; i < sizeof(procs) / sizeof(procs[0]); i++)
		if (strcmp(procs[i].name, name) == 0)
			return procs[i].fn;
	return NULL;
}

static int has_per_thread(const char *name)
{
	for (size_t i = 0; i < sizeof(per_thread) / sizeof(per_thread[0]); i++)
		if (strcmp(per_thread[i], name) == 0)
			return 1;
	return 0;
}

static CUresult get_proc(const char *fn, const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
			 CUdriverProcAddressQueryResult *status)
{
	ENTER(fn);
	CUdriverProcAddressQueryResult st = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
	if (!symbol || !pfn ||
	    (flags & ~(CU_GET_PROC_ADDRESS_LEGACY_STREAM | CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM)))
		FAIL(CUDA_ERROR_INVALID_VALUE);
	*pfn = NULL;
	const char *best = NULL;
	int best_since = -1, base_known = 0;
	for (size_t i = 0; i < sizeof(versioned) / sizeof(versioned[0]); i++)
		if (strcmp(versioned[i].base, symbol) == 0) {
			base_known = 1;
			if (versioned[i].since <= cudaVersion && versioned[i].since > best_since) {
				best = versioned[i].name;
				best_since = versioned[i].since;
			}
		}
	void *f = best ? proc_exact(best) : NULL;
	if (!f)
		f = proc_exact(symbol); /* an unversioned name, or an exact versioned one */
	if (!f) {
		/* a _ptsz / _ptds name */
		size_t n = strlen(symbol);
		char stem[128];
		if (n > 5 && n - 5 < sizeof(stem) &&
		    (strcmp(symbol + n - 5, "_ptsz") == 0 || strcmp(symbol + n - 5, "_ptds") == 0)) {
			memcpy(stem, symbol, n - 5);
			stem[n - 5] = '\0';
			if (has_per_thread(stem))
				f = proc_exact(stem);
		}
	}
	if (!f) {
		if (base_known)
			st = CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT;
		FAIL(CUDA_ERROR_NOT_FOUND);
	}
	*pfn = f;
	st = CU_GET_PROC_ADDRESS_SUCCESS;
done:
	if (status && symbol && pfn)
		*status = st;
	pthread_mutex_unlock(&g_lock);
	return rc;
}

API CUresult cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags)
{
	return get_proc("cuGetProcAddress", symbol, pfn, cudaVersion, flags, NULL);
}

API CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
				 CUdriverProcAddressQueryResult *symbolStatus)
{
	return get_proc("cuGetProcAddress_v2", symbol, pfn, cudaVersion, flags, symbolStatus);
}
