/* SPDX-License-Identifier: MIT */
/*
 * A test double of the oneAPI Level Zero loader (libze_loader.so.1) for sysman: it
 * answers zes* calls from a JSON description of devices ($AXL_ZE_DOUBLE_JSON, format in
 * README.md). Built twice: as a current loader (Level Zero 1.5+, zesInit), and with
 * -DZE_DOUBLE_OLD as a loader before zesInit, whose sysman works only when the process
 * was started with ZES_ENABLE_SYSMAN=1 and initialised with zeInit.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "ze_types.h"
#include "jsonr.h"

#define API __attribute__((visibility("default")))
#define MAX_DEVS 32
#define MAX_COMP 64
#define HANG_SECONDS 3600

/* ---- the model ------------------------------------------------------------------------- */
enum kind { K_MEM, K_FREQ, K_PWR, K_ENG, K_PORT, K__N };
static const char *const kind_name[K__N] = {"mem", "freq", "pwr", "eng", "port"};

struct comp {
	enum kind kind;
	unsigned dev, idx;
	const struct axl__jv *j;
	int sub; /* sub-device id, -1: the device itself */
};

struct dev {
	unsigned index;
	const struct axl__jv *j;
	struct comp comps[K__N][MAX_COMP];
	unsigned n[K__N];
};

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct axl__jdoc *g_doc;
static struct dev g_dev[MAX_DEVS];
static unsigned g_ndev;
static bool g_loaded, g_zes_ready, g_core_ready;
static ze_result_t g_load_rc = ZE_RESULT_ERROR_UNINITIALIZED;
static int g_driver; /* its address is the one driver handle */
static bool g_nonsense;

struct rule {
	char name[64];
	int dev; /* -1 any */
	ze_result_t code;
};
static struct rule g_fail[64];
static unsigned g_nfail;
static char g_hang[1024];

/* ---- log ------------------------------------------------------------------------------------ */
#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
static void logline(const char *fmt, ...)
{
	const char *path = getenv("AXL_ZE_DOUBLE_LOG");
	if (!path || !*path)
		return;
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof buf - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof buf - 2)
		n = (int)sizeof buf - 2;
	buf[n++] = '\n';
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	ssize_t w = write(fd, buf, (size_t)n);
	(void)w;
	close(fd);
}

/* ---- faults ------------------------------------------------------------------------------------ */
static const struct {
	const char *name;
	ze_result_t code;
} codes[] = {
	{"SUCCESS", ZE_RESULT_SUCCESS},
	{"DEVICE_LOST", ZE_RESULT_ERROR_DEVICE_LOST},
	{"OUT_OF_HOST_MEMORY", ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY},
	{"DEVICE_REQUIRES_RESET", ZE_RESULT_ERROR_DEVICE_REQUIRES_RESET},
	{"DEVICE_IN_LOW_POWER_STATE", ZE_RESULT_ERROR_DEVICE_IN_LOW_POWER_STATE},
	{"INSUFFICIENT_PERMISSIONS", ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS},
	{"NOT_AVAILABLE", ZE_RESULT_ERROR_NOT_AVAILABLE},
	{"DEPENDENCY_UNAVAILABLE", ZE_RESULT_ERROR_DEPENDENCY_UNAVAILABLE},
	{"UNINITIALIZED", ZE_RESULT_ERROR_UNINITIALIZED},
	{"UNSUPPORTED_VERSION", ZE_RESULT_ERROR_UNSUPPORTED_VERSION},
	{"UNSUPPORTED_FEATURE", ZE_RESULT_ERROR_UNSUPPORTED_FEATURE},
	{"INVALID_ARGUMENT", ZE_RESULT_ERROR_INVALID_ARGUMENT},
	{"UNKNOWN", ZE_RESULT_ERROR_UNKNOWN},
};

static bool parse_code(const char *s, ze_result_t *out)
{
	if (strncmp(s, "ZE_RESULT_ERROR_", 16) == 0)
		s += 16;
	else if (strncmp(s, "ZE_RESULT_", 10) == 0)
		s += 10;
	for (size_t i = 0; i < sizeof codes / sizeof *codes; i++)
		if (strcasecmp(s, codes[i].name) == 0) {
			*out = codes[i].code;
			return true;
		}
	char *end;
	unsigned long v = strtoul(s, &end, 0);
	if (!*s || *end || v > 0x7fffffff)
		return false;
	*out = (ze_result_t)v;
	return true;
}

/* AXL_ZE_DOUBLE_FAIL=name[@dev]=CODE[,...]; false when malformed */
static bool read_faults(void)
{
	g_nfail = 0;
	const char *spec = getenv("AXL_ZE_DOUBLE_FAIL");
	const char *hang = getenv("AXL_ZE_DOUBLE_HANG");
	snprintf(g_hang, sizeof g_hang, "%s", hang ? hang : "");
	const char *nonsense = getenv("AXL_ZE_DOUBLE_NONSENSE");
	g_nonsense = nonsense && strcmp(nonsense, "1") == 0;
	if (!spec || !*spec)
		return true;
	char buf[2048];
	snprintf(buf, sizeof buf, "%s", spec);
	char *save = NULL;
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strrchr(tok, '=');
		if (!eq || g_nfail == sizeof g_fail / sizeof *g_fail)
			return false;
		*eq = '\0';
		struct rule *r = &g_fail[g_nfail];
		r->dev = -1;
		char *at = strchr(tok, '@');
		if (at) {
			*at = '\0';
			char *end;
			long d = strtol(at + 1, &end, 10);
			if (*end || d < 0 || d >= MAX_DEVS)
				return false;
			r->dev = (int)d;
		}
		if (!*tok || strlen(tok) >= sizeof r->name || !parse_code(eq + 1, &r->code))
			return false;
		snprintf(r->name, sizeof r->name, "%s", tok);
		g_nfail++;
	}
	return true;
}

/* The rule for this call, if any: an exact name beats "*" (device-handle calls only). */
static bool faulted(const char *fn, int dev, bool device_call, ze_result_t *out)
{
	const struct rule *star = NULL;
	for (unsigned i = 0; i < g_nfail; i++) {
		const struct rule *r = &g_fail[i];
		if (r->dev >= 0 && r->dev != dev)
			continue;
		if (strcmp(r->name, fn) == 0) {
			*out = r->code;
			return true;
		}
		if (device_call && strcmp(r->name, "*") == 0 && !star)
			star = r;
	}
	if (star) {
		*out = star->code;
		return true;
	}
	return false;
}

static void maybe_hang(const char *fn, bool device_call)
{
	if (!g_hang[0])
		return;
	char buf[sizeof g_hang];
	snprintf(buf, sizeof buf, "%s", g_hang);
	char *save = NULL;
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (strcmp(tok, fn) == 0 || (device_call && strcmp(tok, "*") == 0)) {
			sleep(HANG_SECONDS);
			return;
		}
}

/* ---- the description ------------------------------------------------------------------------ */
static int64_t jint(const struct axl__jv *o, const char *k, int64_t dflt)
{
	int64_t v;
	return axl__jv_int(o, k, &v) ? v : dflt;
}

static double jnum(const struct axl__jv *o, const char *k, double dflt)
{
	double v;
	return axl__jv_num(o, k, &v) ? v : dflt;
}

static const char *jstr(const struct axl__jv *o, const char *k, const char *dflt)
{
	const char *s = axl__jv_str(o, k);
	return s ? s : dflt;
}

static bool jbool(const struct axl__jv *o, const char *k, bool dflt)
{
	const struct axl__jv *v = axl__jv_get(o, k);
	return v && v->type == AXL__J_BOOL ? v->b : dflt;
}

/* "0x8086" or 32902 */
static int64_t jhex(const struct axl__jv *o, const char *k, int64_t dflt)
{
	const char *s = axl__jv_str(o, k);
	if (s)
		return (int64_t)strtoll(s, NULL, 0);
	return jint(o, k, dflt);
}

static int subdev(const struct axl__jv *o)
{
	const struct axl__jv *v = axl__jv_get(o, "subdevice");
	return v && v->type == AXL__J_NUM && v->is_int && v->i >= 0 ? (int)v->i : -1;
}

static bool parse_bdf(const char *s, unsigned *d, unsigned *b, unsigned *v, unsigned *f)
{
	char tail;
	return s && sscanf(s, "%x:%x:%x.%x%c", d, b, v, f, &tail) == 4;
}

#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
static ze_result_t bad(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "ze_double: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	return ZE_RESULT_ERROR_UNKNOWN;
}

static ze_result_t load(void)
{
	if (g_loaded)
		return g_load_rc;
	g_loaded = true;
	if (!read_faults())
		return g_load_rc = bad("AXL_ZE_DOUBLE_FAIL is malformed");
	const char *path = getenv("AXL_ZE_DOUBLE_JSON");
	if (!path || !*path)
		return g_load_rc = ZE_RESULT_ERROR_UNINITIALIZED; /* a loader without a driver */
	FILE *f = fopen(path, "rb");
	if (!f)
		return g_load_rc = bad("%s: cannot open", path);
	char *text = NULL;
	size_t len = 0, cap = 0;
	for (;;) {
		if (len + 4096 > cap) {
			cap = cap ? cap * 2 : 65536;
			char *t = realloc(text, cap);
			if (!t) {
				free(text);
				fclose(f);
				return g_load_rc = ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
			}
			text = t;
		}
		size_t r = fread(text + len, 1, cap - len, f);
		len += r;
		if (r == 0)
			break;
	}
	fclose(f);
	char err[160];
	int rc = axl__jdoc_parse(text, len, &g_doc, err, sizeof err);
	free(text);
	if (rc != 0)
		return g_load_rc = bad("%s: %s", path, err);
	const struct axl__jv *devs = axl__jv_get(axl__jdoc_root(g_doc), "devices");
	if (!devs || devs->type != AXL__J_ARR)
		return g_load_rc = bad("%s: no \"devices\" array", path);
	static const char *const arrays[K__N] = {"memory", "frequency", "power", "engines", "fabric_ports"};
	for (size_t i = 0; i < devs->len && g_ndev < MAX_DEVS; i++) {
		const struct axl__jv *j = &devs->items[i];
		unsigned d, b, v, fn;
		const struct axl__jv *pci = axl__jv_get(j, "pci");
		if (j->type != AXL__J_OBJ || !parse_bdf(jstr(pci, "address", NULL), &d, &b, &v, &fn))
			return g_load_rc = bad("%s: device %zu has no pci.address", path, i);
		struct dev *x = &g_dev[g_ndev];
		x->index = g_ndev;
		x->j = j;
		for (int k = 0; k < K__N; k++) {
			const struct axl__jv *a = axl__jv_get(j, arrays[k]);
			if (!a)
				continue;
			if (a->type != AXL__J_ARR)
				return g_load_rc = bad("%s: device %zu: \"%s\" is not an array", path, i, arrays[k]);
			for (size_t c = 0; c < a->len; c++) {
				const struct axl__jv *cj = &a->items[c];
				/* engines: {"group": ..., "count": n} stands for n engine groups */
				int64_t times = k == K_ENG ? jint(cj, "count", 1) : 1;
				for (int64_t t = 0; t < times && x->n[k] < MAX_COMP; t++) {
					struct comp *cp = &x->comps[k][x->n[k]];
					cp->kind = (enum kind)k;
					cp->dev = g_ndev;
					cp->idx = x->n[k]++;
					cp->j = cj;
					cp->sub = subdev(cj);
				}
			}
		}
		g_ndev++;
	}
	return g_load_rc = ZE_RESULT_SUCCESS;
}

/* ---- handles ----------------------------------------------------------------------------- */
static struct dev *dev_of(const void *h)
{
	const char *p = h;
	if (p < (const char *)g_dev || p >= (const char *)(g_dev + g_ndev) ||
	    (size_t)(p - (const char *)g_dev) % sizeof *g_dev)
		return NULL;
	return (struct dev *)h;
}

static struct comp *comp_of(const void *h, enum kind k)
{
	for (unsigned d = 0; d < g_ndev; d++) {
		struct comp *base = g_dev[d].comps[k];
		const char *p = h;
		if (p >= (const char *)base && p < (const char *)(base + g_dev[d].n[k]) &&
		    (size_t)(p - (const char *)base) % sizeof *base == 0)
			return (struct comp *)h;
	}
	return NULL;
}

static bool ready(void)
{
	return g_zes_ready;
}

/* The checks every device or component call makes, in order: hang, log, initialised,
 * handle, fault rule. */
#define ENTER_DEV(fn, h, out)                                                    \
	maybe_hang(fn, true);                                                    \
	struct dev *D = dev_of(h);                                               \
	logline("%s(%s%u)", fn, D ? "dev" : "bad:", D ? D->index : 0u);          \
	if (!ready())                                                            \
		return ZE_RESULT_ERROR_UNINITIALIZED;                            \
	if (!(h))                                                                \
		return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;                      \
	if (!D)                                                                  \
		return ZE_RESULT_ERROR_INVALID_ARGUMENT;                         \
	if (!(out))                                                              \
		return ZE_RESULT_ERROR_INVALID_NULL_POINTER;                     \
	{                                                                        \
		ze_result_t fr_;                                                 \
		if (faulted(fn, (int)D->index, true, &fr_))                      \
			return fr_;                                              \
	}

#define ENTER_COMP(fn, h, k, out)                                                      \
	maybe_hang(fn, true);                                                          \
	struct comp *C = comp_of(h, k);                                                \
	logline("%s(%s%u/%s%u)", fn, C ? "dev" : "bad:", C ? C->dev : 0u, kind_name[k], \
		C ? C->idx : 0u);                                                      \
	if (!ready())                                                                  \
		return ZE_RESULT_ERROR_UNINITIALIZED;                                  \
	if (!(h))                                                                      \
		return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;                            \
	if (!C)                                                                        \
		return ZE_RESULT_ERROR_INVALID_ARGUMENT;                               \
	if (!(out))                                                                    \
		return ZE_RESULT_ERROR_INVALID_NULL_POINTER;                           \
	{                                                                              \
		ze_result_t fr_;                                                       \
		if (faulted(fn, (int)C->dev, true, &fr_))                              \
			return fr_;                                                    \
	}

/* A string into a fixed field: terminated, or (nonsense) filled to the end without a
 * terminator, starting with control characters and invalid UTF-8. */
static void put(char *dst, size_t cap, const char *s)
{
	if (g_nonsense) {
		static const char junk[] = "\xff\xfe\xc3(\x01\x1b[2J\x7f";
		for (size_t i = 0; i < cap; i++)
			dst[i] = i < sizeof junk - 1 ? junk[i] : 'A';
		return;
	}
	snprintf(dst, cap, "%s", s ? s : "unknown");
}

static bool read_core_env(void);

/* ---- initialisation ------------------------------------------------------------------- */
static ze_result_t init_common(const char *fn, uint32_t flags, bool zes)
{
	maybe_hang(fn, false);
	logline("%s(flags=%u)", fn, flags);
	pthread_mutex_lock(&g_lock);
	ze_result_t r = load();
	if (r == ZE_RESULT_SUCCESS) {
		ze_result_t fr;
		if (faulted(fn, -1, false, &fr))
			r = fr;
		else if (flags > 0x7)
			r = ZE_RESULT_ERROR_INVALID_ENUMERATION;
	}
	if (r == ZE_RESULT_SUCCESS) {
		if (zes) {
			g_zes_ready = true;
		} else if (!read_core_env()) {
			r = bad("AXL_ZE_DOUBLE_OOM_AT or AXL_ZE_DOUBLE_LOST_AFTER is malformed");
		} else {
			g_core_ready = true;
			/* the legacy switch: sysman comes up with the core driver */
			const char *e = getenv("ZES_ENABLE_SYSMAN");
			if (e && strcmp(e, "1") == 0)
				g_zes_ready = true;
		}
	}
	pthread_mutex_unlock(&g_lock);
	return r;
}

static ze_result_t driver_get(const char *fn, bool ok, uint32_t *pCount, ze_driver_handle_t *ph)
{
	maybe_hang(fn, false);
	logline("%s(count=%u)", fn, pCount ? *pCount : 0u);
	if (!ok)
		return ZE_RESULT_ERROR_UNINITIALIZED;
	if (!pCount)
		return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
	ze_result_t fr;
	if (faulted(fn, -1, false, &fr))
		return fr;
	if (*pCount == 0 || !ph) {
		*pCount = 1;
		return ZE_RESULT_SUCCESS;
	}
	ph[0] = (ze_driver_handle_t)(void *)&g_driver;
	*pCount = 1;
	return ZE_RESULT_SUCCESS;
}

static ze_result_t device_get(const char *fn, bool ok, ze_driver_handle_t drv, uint32_t *pCount,
			      ze_device_handle_t *ph)
{
	maybe_hang(fn, false);
	logline("%s(count=%u)", fn, pCount ? *pCount : 0u);
	if (!ok)
		return ZE_RESULT_ERROR_UNINITIALIZED;
	if (!drv)
		return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
	if ((void *)drv != (void *)&g_driver)
		return ZE_RESULT_ERROR_INVALID_ARGUMENT;
	if (!pCount)
		return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
	ze_result_t fr;
	if (faulted(fn, -1, false, &fr))
		return fr;
	uint32_t n = g_ndev;
	if (*pCount == 0 || !ph || *pCount > n) {
		*pCount = n;
		if (!ph)
			return ZE_RESULT_SUCCESS;
	}
	if (*pCount == 0)
		return ZE_RESULT_SUCCESS;
	for (uint32_t i = 0; i < *pCount; i++)
		ph[i] = (ze_device_handle_t)(void *)&g_dev[i];
	return ZE_RESULT_SUCCESS;
}

#ifndef ZE_DOUBLE_OLD
API ze_result_t zesInit(zes_init_flags_t flags)
{
	return init_common("zesInit", flags, true);
}

API ze_result_t zesDriverGet(uint32_t *pCount, zes_driver_handle_t *phDrivers)
{
	return driver_get("zesDriverGet", g_zes_ready, pCount, phDrivers);
}

API ze_result_t zesDeviceGet(zes_driver_handle_t hDriver, uint32_t *pCount, zes_device_handle_t *phDevices)
{
	return device_get("zesDeviceGet", g_zes_ready, hDriver, pCount, phDevices);
}
#endif

API ze_result_t zeInit(ze_init_flags_t flags)
{
	return init_common("zeInit", flags, false);
}

API ze_result_t zeDriverGet(uint32_t *pCount, ze_driver_handle_t *phDrivers)
{
	return driver_get("zeDriverGet", g_core_ready, pCount, phDrivers);
}

API ze_result_t zeDeviceGet(ze_driver_handle_t hDriver, uint32_t *pCount, ze_device_handle_t *phDevices)
{
	return device_get("zeDeviceGet", g_core_ready, hDriver, pCount, phDevices);
}

/* ---- device ------------------------------------------------------------------------------- */
static int mem_type(const char *s)
{
	static const char *const names[] = {"HBM",   "DDR",    "DDR3",  "DDR4",  "DDR5",   "LPDDR", "LPDDR3",
					    "LPDDR4", "LPDDR5", "SRAM",  "L1",    "L3",     "GRF",   "SLM",
					    "GDDR4", "GDDR5",  "GDDR5X", "GDDR6", "GDDR6X", "GDDR7"};
	for (size_t i = 0; s && i < sizeof names / sizeof *names; i++)
		if (strcasecmp(s, names[i]) == 0)
			return (int)i;
	return -1;
}

static void uuid_of(const char *hex, uint8_t out[16])
{
	memset(out, 0, 16);
	for (size_t i = 0; hex && i < 16; i++) {
		if (!isxdigit((unsigned char)hex[2 * i]) || !isxdigit((unsigned char)hex[2 * i + 1]))
			break;
		char b[3] = {hex[2 * i], hex[2 * i + 1], 0};
		out[i] = (uint8_t)strtoul(b, NULL, 16);
	}
}

API ze_result_t zesDeviceGetProperties(zes_device_handle_t hDevice, zes_device_properties_t *p)
{
	ENTER_DEV("zesDeviceGetProperties", hDevice, p)
	const struct axl__jv *j = D->j;
	void *keep = p->pNext;
	uint32_t st = p->stype;
	memset(p, 0, sizeof *p);
	p->stype = st;
	p->pNext = keep;
	ze_device_properties_t *c = &p->core;
	c->stype = 0x3;
	const char *type = jstr(j, "type", "gpu");
	c->type = strcmp(type, "vpu") == 0 || strcmp(type, "npu") == 0 ? ZE_DEVICE_TYPE_VPU : ZE_DEVICE_TYPE_GPU;
	c->vendorId = (uint32_t)jhex(j, "vendor_id", 0x8086);
	c->deviceId = (uint32_t)jhex(j, "device_id", 0);
	c->flags = jbool(j, "integrated", false) ? ZE_DEVICE_PROPERTY_FLAG_INTEGRATED : 0;
	c->coreClockRate = (uint32_t)jint(j, "core_clock_mhz", 0);
	c->maxMemAllocSize = (uint64_t)jint(j, "max_mem_alloc", 0);
	c->maxHardwareContexts = 65536;
	c->numThreadsPerEU = (uint32_t)jint(j, "threads_per_eu", 0);
	c->physicalEUSimdWidth = (uint32_t)jint(j, "simd_width", 0);
	c->numEUsPerSubslice = (uint32_t)jint(j, "eus_per_subslice", 0);
	c->numSubslicesPerSlice = (uint32_t)jint(j, "subslices_per_slice", 0);
	c->numSlices = (uint32_t)jint(j, "slices", 0);
	c->timerResolution = 1;
	c->timestampValidBits = 64;
	c->kernelTimestampValidBits = 32;
	uuid_of(jstr(j, "uuid", NULL), c->uuid.id);
	put(c->name, sizeof c->name, jstr(j, "name", NULL));
	p->numSubdevices = (uint32_t)jint(j, "subdevices", 0);
	put(p->serialNumber, sizeof p->serialNumber, jstr(j, "serial", NULL));
	put(p->boardNumber, sizeof p->boardNumber, jstr(j, "board_number", NULL));
	put(p->brandName, sizeof p->brandName, jstr(j, "brand", NULL));
	put(p->modelName, sizeof p->modelName, jstr(j, "model", NULL));
	put(p->vendorName, sizeof p->vendorName, jstr(j, "vendor", NULL));
	put(p->driverVersion, sizeof p->driverVersion, jstr(j, "driver_version", NULL));
	if (g_nonsense) {
		c->vendorId = 0x8086; /* the device is still found: its contents are nonsense */
		c->numSlices = 0x7fffffff;
		c->numSubslicesPerSlice = 99999;
		c->numEUsPerSubslice = 0xffffffff;
		c->coreClockRate = 0xfffffff0;
		p->numSubdevices = 100000;
		memset(c->uuid.id, 0xff, sizeof c->uuid.id);
	}
	return ZE_RESULT_SUCCESS;
}

static void speed_of(const struct axl__jv *pci, const char *gen, const char *width, const char *bw, zes_pci_speed_t *s)
{
	s->gen = (int32_t)jint(pci, gen, -1);
	s->width = (int32_t)jint(pci, width, -1);
	s->maxBandwidth = jint(pci, bw, -1);
	if (g_nonsense) {
		s->gen = 99;
		s->width = 0x7fffffff;
		s->maxBandwidth = -42;
	}
}

API ze_result_t zesDevicePciGetProperties(zes_device_handle_t hDevice, zes_pci_properties_t *p)
{
	ENTER_DEV("zesDevicePciGetProperties", hDevice, p)
	const struct axl__jv *pci = axl__jv_get(D->j, "pci");
	unsigned d = 0, b = 0, v = 0, f = 0;
	parse_bdf(jstr(pci, "address", NULL), &d, &b, &v, &f);
	p->address.domain = d;
	p->address.bus = b;
	p->address.device = v;
	p->address.function = f;
	speed_of(pci, "max_gen", "max_width", "max_bandwidth", &p->maxSpeed);
	p->haveBandwidthCounters = p->havePacketCounters = p->haveReplayCounters = 0;
	return ZE_RESULT_SUCCESS;
}

API ze_result_t zesDevicePciGetState(zes_device_handle_t hDevice, zes_pci_state_t *s)
{
	ENTER_DEV("zesDevicePciGetState", hDevice, s)
	const struct axl__jv *pci = axl__jv_get(D->j, "pci");
	s->status = 1; /* ZES_PCI_LINK_STATUS_GOOD */
	s->qualityIssues = s->stabilityIssues = 0;
	speed_of(pci, "gen", "width", "bandwidth", &s->speed);
	return ZE_RESULT_SUCCESS;
}

/* count protocol of every zesDeviceEnum* */
static ze_result_t enum_comps(const char *fn, zes_device_handle_t hDevice, enum kind k, uint32_t *pCount, void **ph)
{
	ENTER_DEV(fn, hDevice, pCount)
	uint32_t n = D->n[k];
	if (*pCount == 0 || !ph || *pCount > n) {
		*pCount = n;
		if (!ph)
			return ZE_RESULT_SUCCESS;
	}
	for (uint32_t i = 0; i < *pCount; i++)
		ph[i] = &D->comps[k][i];
	return ZE_RESULT_SUCCESS;
}

API ze_result_t zesDeviceEnumMemoryModules(zes_device_handle_t h, uint32_t *pCount, zes_mem_handle_t *ph)
{
	return enum_comps("zesDeviceEnumMemoryModules", h, K_MEM, pCount, (void **)ph);
}

API ze_result_t zesDeviceEnumFrequencyDomains(zes_device_handle_t h, uint32_t *pCount, zes_freq_handle_t *ph)
{
	return enum_comps("zesDeviceEnumFrequencyDomains", h, K_FREQ, pCount, (void **)ph);
}

API ze_result_t zesDeviceEnumPowerDomains(zes_device_handle_t h, uint32_t *pCount, zes_pwr_handle_t *ph)
{
	return enum_comps("zesDeviceEnumPowerDomains", h, K_PWR, pCount, (void **)ph);
}

API ze_result_t zesDeviceEnumEngineGroups(zes_device_handle_t h, uint32_t *pCount, zes_engine_handle_t *ph)
{
	return enum_comps("zesDeviceEnumEngineGroups", h, K_ENG, pCount, (void **)ph);
}

API ze_result_t zesDeviceEnumFabricPorts(zes_device_handle_t h, uint32_t *pCount, zes_fabric_port_handle_t *ph)
{
	return enum_comps("zesDeviceEnumFabricPorts", h, K_PORT, pCount, (void **)ph);
}

/* ---- memory ---------------------------------------------------------------------------------- */
API ze_result_t zesMemoryGetProperties(zes_mem_handle_t h, zes_mem_properties_t *p)
{
	ENTER_COMP("zesMemoryGetProperties", h, K_MEM, p)
	const struct axl__jv *j = C->j;
	int t = mem_type(jstr(j, "type", NULL));
	p->type = t < 0 ? 0 : (uint32_t)t;
	p->onSubdevice = C->sub >= 0;
	p->subdeviceId = C->sub >= 0 ? (uint32_t)C->sub : 0;
	p->location = strcmp(jstr(j, "location", "device"), "system") == 0 ? 0 : 1;
	p->physicalSize = (uint64_t)jint(j, "size", 0);
	p->busWidth = (int32_t)jint(j, "bus_width", -1);
	p->numChannels = (int32_t)jint(j, "channels", -1);
	if (g_nonsense) {
		p->type = 4242;
		p->physicalSize = 1ull << 62;
		p->busWidth = -7;
	}
	return ZE_RESULT_SUCCESS;
}

API ze_result_t zesMemoryGetState(zes_mem_handle_t h, zes_mem_state_t *s)
{
	ENTER_COMP("zesMemoryGetState", h, K_MEM, s)
	const struct axl__jv *j = C->j;
	static const char *const health[] = {"unknown", "ok", "degraded", "critical", "replace"};
	const char *hs = jstr(j, "health", "ok");
	s->health = 0;
	for (uint32_t i = 0; i < 5; i++)
		if (strcmp(hs, health[i]) == 0)
			s->health = i;
	s->size = (uint64_t)jint(j, "size", 0);
	s->free = (uint64_t)jint(j, "free", (int64_t)s->size);
	if (g_nonsense) {
		s->free = ~0ull;
		s->health = 77;
	}
	return ZE_RESULT_SUCCESS;
}

/* ---- frequency --------------------------------------------------------------------------------- */
API ze_result_t zesFrequencyGetProperties(zes_freq_handle_t h, zes_freq_properties_t *p)
{
	ENTER_COMP("zesFrequencyGetProperties", h, K_FREQ, p)
	const struct axl__jv *j = C->j;
	const char *dom = jstr(j, "domain", "gpu");
	p->type = strcmp(dom, "memory") == 0 ? 1 : strcmp(dom, "media") == 0 ? 2 : 0;
	p->onSubdevice = C->sub >= 0;
	p->subdeviceId = C->sub >= 0 ? (uint32_t)C->sub : 0;
	p->canControl = jbool(j, "can_control", true);
	p->isThrottleEventSupported = 0;
	p->min = jnum(j, "min", -1);
	p->max = jnum(j, "max", -1);
	if (g_nonsense) {
		p->min = 5000;
		p->max = C->idx % 2 ? NAN : 1e12;
	}
	return ZE_RESULT_SUCCESS;
}

/* ---- power ----------------------------------------------------------------------------------------- */
static uint32_t level_of(const char *s)
{
	static const char *const names[] = {"unknown", "sustained", "burst", "peak", "instantaneous"};
	for (uint32_t i = 0; s && i < 5; i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	return 0;
}

static void limit_of(const struct axl__jv *l, zes_power_limit_ext_desc_t *d)
{
	d->level = level_of(jstr(l, "level", NULL));
	d->source = 0; /* ZES_POWER_SOURCE_ANY */
	d->limitUnit = strcmp(jstr(l, "unit", "power"), "current") == 0 ? 1 : 2;
	d->enabledStateLocked = 1;
	d->enabled = jbool(l, "enabled", true);
	d->intervalValueLocked = 0;
	d->interval = (int32_t)jint(l, "interval_ms", 0);
	d->limitValueLocked = 0;
	d->limit = (int32_t)jint(l, "limit_mw", -1);
	if (g_nonsense)
		d->limit = -123456;
}

API ze_result_t zesPowerGetProperties(zes_pwr_handle_t h, zes_power_properties_t *p)
{
	ENTER_COMP("zesPowerGetProperties", h, K_PWR, p)
	const struct axl__jv *j = C->j;
	p->onSubdevice = C->sub >= 0;
	p->subdeviceId = C->sub >= 0 ? (uint32_t)C->sub : 0;
	p->canControl = jbool(j, "can_control", true);
	p->isEnergyThresholdSupported = 0;
	p->defaultLimit = (int32_t)jint(j, "default_mw", -1);
	p->minLimit = (int32_t)jint(j, "min_mw", -1);
	p->maxLimit = (int32_t)jint(j, "max_mw", -1);
	if (g_nonsense) {
		p->defaultLimit = 2147483647;
		p->maxLimit = -5;
	}
#ifndef ZE_DOUBLE_OLD
	/* the power extension (ZES_extension_power_limits): domain and default limit */
	zes_power_ext_properties_t *e = p->pNext;
	if (e && e->stype == ZES_STRUCTURE_TYPE_POWER_EXT_PROPERTIES) {
		static const char *const domains[] = {"unknown", "card", "package", "stack", "memory", "gpu"};
		const char *ds = jstr(j, "domain", "unknown");
		e->domain = 0;
		for (uint32_t i = 0; i < 6; i++)
			if (strcmp(ds, domains[i]) == 0)
				e->domain = i;
		if (e->defaultLimit && e->defaultLimit->stype == ZES_STRUCTURE_TYPE_POWER_LIMIT_EXT_DESC &&
		    jint(j, "default_mw", -1) > 0) {
			zes_power_limit_ext_desc_t *dl = e->defaultLimit;
			dl->level = 1; /* sustained */
			dl->source = 0;
			dl->limitUnit = 2; /* power */
			dl->enabledStateLocked = 1;
			dl->enabled = 1;
			dl->intervalValueLocked = 1;
			dl->interval = 0;
			dl->limitValueLocked = 1;
			dl->limit = g_nonsense ? 0x7fffffff : (int32_t)jint(j, "default_mw", -1);
		}
	}
#endif
	return ZE_RESULT_SUCCESS;
}

#ifndef ZE_DOUBLE_OLD
API ze_result_t zesPowerGetLimitsExt(zes_pwr_handle_t h, uint32_t *pCount, zes_power_limit_ext_desc_t *pSustained)
{
	ENTER_COMP("zesPowerGetLimitsExt", h, K_PWR, pCount)
	const struct axl__jv *lim = axl__jv_get(C->j, "limits");
	uint32_t n = lim && lim->type == AXL__J_ARR ? (uint32_t)lim->len : 0;
	if (*pCount == 0 || !pSustained || *pCount > n) {
		*pCount = n;
		if (!pSustained)
			return ZE_RESULT_SUCCESS;
	}
	for (uint32_t i = 0; i < *pCount; i++)
		limit_of(&lim->items[i], &pSustained[i]);
	return ZE_RESULT_SUCCESS;
}
#endif

API ze_result_t zesPowerGetLimits(zes_pwr_handle_t h, zes_power_sustained_limit_t *pSustained,
				  zes_power_burst_limit_t *pBurst, zes_power_peak_limit_t *pPeak)
{
	ENTER_COMP("zesPowerGetLimits", h, K_PWR, h)
	const struct axl__jv *lim = axl__jv_get(C->j, "limits");
	if (pSustained)
		memset(pSustained, 0, sizeof *pSustained);
	if (pBurst)
		memset(pBurst, 0, sizeof *pBurst);
	if (pPeak)
		pPeak->powerAC = pPeak->powerDC = -1;
	for (size_t i = 0; lim && lim->type == AXL__J_ARR && i < lim->len; i++) {
		zes_power_limit_ext_desc_t d;
		limit_of(&lim->items[i], &d);
		if (d.limitUnit != 2)
			continue;
		if (d.level == 1 && pSustained) {
			pSustained->enabled = d.enabled;
			pSustained->power = d.limit;
			pSustained->interval = d.interval;
		} else if (d.level == 2 && pBurst) {
			pBurst->enabled = d.enabled;
			pBurst->power = d.limit;
		} else if (d.level == 3 && pPeak) {
			pPeak->powerAC = d.limit;
		}
	}
	return ZE_RESULT_SUCCESS;
}

/* ---- engines ----------------------------------------------------------------------------------------- */
API ze_result_t zesEngineGetProperties(zes_engine_handle_t h, zes_engine_properties_t *p)
{
	ENTER_COMP("zesEngineGetProperties", h, K_ENG, p)
	static const char *const groups[] = {
		"all", "compute-all", "media-all", "copy-all", "compute-single", "render-single",
		"media-decode-single", "media-encode-single", "copy-single", "media-enhancement-single",
		"3d-single", "3d-render-compute-all", "render-all", "3d-all", "media-codec-single"};
	const char *g = jstr(C->j, "group", "all");
	p->type = 0;
	for (uint32_t i = 0; i < sizeof groups / sizeof *groups; i++)
		if (strcmp(g, groups[i]) == 0)
			p->type = i;
	p->onSubdevice = C->sub >= 0;
	p->subdeviceId = C->sub >= 0 ? (uint32_t)C->sub : 0;
	if (g_nonsense)
		p->type = 9999;
	return ZE_RESULT_SUCCESS;
}

/* ---- fabric ports ------------------------------------------------------------------------------------ */
static void port_id(const struct axl__jv *a, zes_fabric_port_id_t *id)
{
	memset(id, 0, sizeof *id);
	if (!a || a->type != AXL__J_ARR || a->len != 3)
		return;
	id->fabricId = (uint32_t)a->items[0].i;
	id->attachId = (uint32_t)a->items[1].i;
	id->portNumber = (uint8_t)a->items[2].i;
}

API ze_result_t zesFabricPortGetProperties(zes_fabric_port_handle_t h, zes_fabric_port_properties_t *p)
{
	ENTER_COMP("zesFabricPortGetProperties", h, K_PORT, p)
	const struct axl__jv *j = C->j;
	put(p->model, sizeof p->model, jstr(j, "model", NULL));
	p->onSubdevice = C->sub >= 0;
	p->subdeviceId = C->sub >= 0 ? (uint32_t)C->sub : 0;
	port_id(axl__jv_get(j, "id"), &p->portId);
	p->maxRxSpeed.bitRate = p->maxTxSpeed.bitRate = jint(j, "max_bps", -1);
	p->maxRxSpeed.width = p->maxTxSpeed.width = (int32_t)jint(j, "width", -1);
	if (g_nonsense)
		p->maxRxSpeed.bitRate = p->maxTxSpeed.bitRate = -5;
	return ZE_RESULT_SUCCESS;
}

API ze_result_t zesFabricPortGetState(zes_fabric_port_handle_t h, zes_fabric_port_state_t *s)
{
	ENTER_COMP("zesFabricPortGetState", h, K_PORT, s)
	const struct axl__jv *j = C->j;
	static const char *const status[] = {"unknown", "healthy", "degraded", "failed", "disabled"};
	const char *ss = jstr(j, "status", "unknown");
	s->status = 0;
	for (uint32_t i = 0; i < 5; i++)
		if (strcmp(ss, status[i]) == 0)
			s->status = i;
	s->qualityIssues = s->failureReasons = 0;
	port_id(axl__jv_get(j, "remote"), &s->remotePortId);
	s->rxSpeed.bitRate = s->txSpeed.bitRate = jint(j, "bps", -1);
	s->rxSpeed.width = s->txSpeed.width = (int32_t)jint(j, "width", -1);
	if (g_nonsense)
		s->rxSpeed.bitRate = s->txSpeed.bitRate = 4000000000000000000ll;
	return ZE_RESULT_SUCCESS;
}

/* ---- the core API of a compute data path --------------------------------------------------
 * Device memory is host memory the double keeps a list of, tagged with its device, so a
 * copy knows which devices it touches. Immediate command lists run each append at once
 * (in order, trivially); events are signalled when the append that names them runs.
 * Faults (read by the first zeInit): AXL_ZE_DOUBLE_OOM_AT, _LOST_AFTER, _P2P (README.md). */
enum { O_CTX = 0x7a43, O_LIST = 0x7a4c, O_POOL = 0x7a50, O_EVENT = 0x7a45 };
struct obj {
	int tag;
	int dev; /* command lists: their device */
	struct obj *pool; /* events: their pool */
	bool signalled;
	struct obj *next;
};
struct zalloc {
	unsigned char *p;
	size_t size;
	int dev; /* -1: host memory */
	struct zalloc *next;
};
static struct obj *g_objs;
static struct zalloc *g_allocs;
static uint64_t g_used[MAX_DEVS];
static bool g_lost[MAX_DEVS];
static long long g_copies;
static long long g_lost_after = -1;
static uint64_t g_oom_at;
static bool g_p2p_off, g_core_env_read;

/* AXL_ZE_DOUBLE_OOM_AT, _LOST_AFTER, _P2P; false when malformed */
static bool read_core_env(void)
{
	if (g_core_env_read)
		return true;
	const char *oom = getenv("AXL_ZE_DOUBLE_OOM_AT"), *lost = getenv("AXL_ZE_DOUBLE_LOST_AFTER"),
		   *p2p = getenv("AXL_ZE_DOUBLE_P2P");
	char *end;
	if (oom && *oom) {
		errno = 0;
		g_oom_at = strtoull(oom, &end, 0);
		if (*end || errno)
			return false;
	}
	if (lost && *lost) {
		errno = 0;
		g_lost_after = strtoll(lost, &end, 0);
		if (*end || errno || g_lost_after < 0)
			return false;
	}
	g_p2p_off = p2p && strcmp(p2p, "0") == 0;
	g_core_env_read = true;
	return true;
}

static struct obj *obj_of(const void *h, int tag)
{
	for (struct obj *o = g_objs; o; o = o->next)
		if (o == h && o->tag == tag)
			return o;
	return NULL;
}

static struct obj *obj_new(int tag, int dev)
{
	struct obj *o = calloc(1, sizeof *o);
	if (!o)
		return NULL;
	o->tag = tag;
	o->dev = dev;
	o->next = g_objs;
	g_objs = o;
	return o;
}

static void obj_free(struct obj *o)
{
	for (struct obj **pp = &g_objs; *pp; pp = &(*pp)->next)
		if (*pp == o) {
			*pp = o->next;
			free(o);
			return;
		}
}

/* The allocation holding [p, p + n), NULL when none does wholly. */
static struct zalloc *alloc_of(const void *p, size_t n)
{
	const unsigned char *c = p;
	for (struct zalloc *a = g_allocs; a; a = a->next)
		if (c >= a->p && c < a->p + a->size && n <= (size_t)(a->p + a->size - c))
			return a;
	return NULL;
}

/* A device's memory: the sum of its device-local modules, else of all (an integrated GPU's
 * are system memory), else its largest allocation. */
static uint64_t dev_total(const struct dev *d)
{
	uint64_t local = 0, all = 0;
	const struct axl__jv *m = axl__jv_get(d->j, "memory");
	for (size_t i = 0; m && m->type == AXL__J_ARR && i < m->len; i++) {
		uint64_t s = (uint64_t)jint(&m->items[i], "size", 0);
		all += s;
		if (strcmp(jstr(&m->items[i], "location", "device"), "device") == 0)
			local += s;
	}
	return local ? local : all ? all : (uint64_t)jint(d->j, "max_mem_alloc", 0);
}

#define CORE_ENTER(fn, fmt, ...)                          \
	maybe_hang(fn, false);                            \
	logline("%s(" fmt ")", fn, __VA_ARGS__);          \
	pthread_mutex_lock(&g_lock);                      \
	ze_result_t R = ZE_RESULT_SUCCESS;                \
	if (!g_core_ready) {                              \
		R = ZE_RESULT_ERROR_UNINITIALIZED;        \
		goto out;                                 \
	}                                                 \
	{                                                 \
		ze_result_t fr_;                          \
		if (faulted(fn, -1, false, &fr_)) {       \
			R = fr_;                          \
			goto out;                         \
		}                                         \
	}
#define CORE_EXIT            \
	out:                 \
	pthread_mutex_unlock(&g_lock); \
	return R

/* A device handle's device, lost or not; R set and NULL when it is not one. */
static struct dev *core_dev(const void *h, ze_result_t *r)
{
	struct dev *d = dev_of(h);
	if (!d)
		*r = h ? ZE_RESULT_ERROR_INVALID_ARGUMENT : ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
	return d;
}

API ze_result_t zeDeviceGetProperties(ze_device_handle_t hDevice, ze_device_properties_t *c)
{
	CORE_ENTER("zeDeviceGetProperties", "%p", (void *)hDevice)
	struct dev *D = core_dev(hDevice, &R);
	if (!D)
		goto out;
	if (!c) {
		R = ZE_RESULT_ERROR_INVALID_NULL_POINTER;
		goto out;
	}
	const struct axl__jv *j = D->j;
	void *keep = c->pNext;
	uint32_t st = c->stype;
	memset(c, 0, sizeof *c);
	c->stype = st;
	c->pNext = keep;
	const char *type = jstr(j, "type", "gpu");
	c->type = strcmp(type, "vpu") == 0 || strcmp(type, "npu") == 0 ? ZE_DEVICE_TYPE_VPU : ZE_DEVICE_TYPE_GPU;
	c->vendorId = (uint32_t)jhex(j, "vendor_id", 0x8086);
	c->deviceId = (uint32_t)jhex(j, "device_id", 0);
	c->flags = jbool(j, "integrated", false) ? ZE_DEVICE_PROPERTY_FLAG_INTEGRATED : 0;
	c->coreClockRate = (uint32_t)jint(j, "core_clock_mhz", 0);
	c->maxMemAllocSize = (uint64_t)jint(j, "max_mem_alloc", 0);
	c->maxHardwareContexts = 65536;
	/* timestamps are CLOCK_MONOTONIC nanoseconds: 1 ns a tick (the 1.0 meaning of
	 * timerResolution, which ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES asks for) */
	c->timerResolution = 1;
	c->timestampValidBits = 64;
	c->kernelTimestampValidBits = 32;
	uuid_of(jstr(j, "uuid", NULL), c->uuid.id);
	put(c->name, sizeof c->name, jstr(j, "name", NULL));
	CORE_EXIT;
}

#ifndef ZE_DOUBLE_OLD
API ze_result_t zeDevicePciGetPropertiesExt(ze_device_handle_t hDevice, ze_pci_ext_properties_t *p)
{
	CORE_ENTER("zeDevicePciGetPropertiesExt", "%p", (void *)hDevice)
	struct dev *D = core_dev(hDevice, &R);
	if (!D)
		goto out;
	if (!p) {
		R = ZE_RESULT_ERROR_INVALID_NULL_POINTER;
		goto out;
	}
	const struct axl__jv *pci = axl__jv_get(D->j, "pci");
	unsigned d = 0, b = 0, v = 0, f = 0;
	parse_bdf(jstr(pci, "address", NULL), &d, &b, &v, &f);
	p->address.domain = d;
	p->address.bus = b;
	p->address.device = v;
	p->address.function = f;
	p->maxSpeed.genVersion = (int32_t)jint(pci, "max_gen", -1);
	p->maxSpeed.width = (int32_t)jint(pci, "max_width", -1);
	p->maxSpeed.maxBandwidth = jint(pci, "max_bandwidth", -1);
	CORE_EXIT;
}
#endif

API ze_result_t zeDeviceGetMemoryProperties(ze_device_handle_t hDevice, uint32_t *pCount,
					    ze_device_memory_properties_t *p)
{
	CORE_ENTER("zeDeviceGetMemoryProperties", "%p", (void *)hDevice)
	struct dev *D = core_dev(hDevice, &R);
	if (!D)
		goto out;
	if (!pCount) {
		R = ZE_RESULT_ERROR_INVALID_NULL_POINTER;
		goto out;
	}
	if (*pCount == 0 || !p) {
		*pCount = 1;
		goto out;
	}
	*pCount = 1;
	p->flags = 0;
	p->maxClockRate = 0;
	p->maxBusWidth = 0;
	p->totalSize = dev_total(D);
	snprintf(p->name, sizeof p->name, "%s", "DDR");
	CORE_EXIT;
}

API ze_result_t zeDeviceCanAccessPeer(ze_device_handle_t hDevice, ze_device_handle_t hPeer, ze_bool_t *value)
{
	CORE_ENTER("zeDeviceCanAccessPeer", "%p, %p", (void *)hDevice, (void *)hPeer)
	struct dev *a = core_dev(hDevice, &R), *b = a ? core_dev(hPeer, &R) : NULL;
	if (!b)
		goto out;
	if (!value) {
		R = ZE_RESULT_ERROR_INVALID_NULL_POINTER;
		goto out;
	}
	*value = a != b && !g_p2p_off;
	CORE_EXIT;
}

API ze_result_t zeContextCreate(ze_driver_handle_t hDriver, const ze_context_desc_t *desc,
				ze_context_handle_t *out)
{
	CORE_ENTER("zeContextCreate", "%p", (void *)hDriver)
	if ((void *)hDriver != (void *)&g_driver) {
		R = hDriver ? ZE_RESULT_ERROR_INVALID_ARGUMENT : ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
		goto out;
	}
	if (!desc || !out) {
		R = ZE_RESULT_ERROR_INVALID_NULL_POINTER;
		goto out;
	}
	struct obj *o = obj_new(O_CTX, -1);
	if (!o)
		R = ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
	else
		*out = (ze_context_handle_t)(void *)o;
	CORE_EXIT;
}

API ze_result_t zeContextDestroy(ze_context_handle_t h)
{
	CORE_ENTER("zeContextDestroy", "%p", (void *)h)
	struct obj *o = obj_of(h, O_CTX);
	if (!o)
		R = h ? ZE_RESULT_ERROR_INVALID_ARGUMENT : ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
	else
		obj_free(o);
	CORE_EXIT;
}

static ze_result_t mem_alloc(ze_context_handle_t hContext, size_t size, size_t alignment, int dev, void **pptr)
{
	if (!obj_of(hContext, O_CTX))
		return hContext ? ZE_RESULT_ERROR_INVALID_ARGUMENT : ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
	if (!pptr)
		return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
	if (size == 0)
		return ZE_RESULT_ERROR_INVALID_SIZE;
	if (alignment & (alignment - 1))
		return ZE_RESULT_ERROR_INVALID_ARGUMENT;
	if (dev >= 0 && g_lost[dev])
		return ZE_RESULT_ERROR_DEVICE_LOST;
	if (g_oom_at && size >= g_oom_at)
		return dev >= 0 ? ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY : ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
	if (dev >= 0 && size > dev_total(&g_dev[dev]) - g_used[dev])
		return ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY;
	struct zalloc *a = calloc(1, sizeof *a);
	void *p = NULL;
	if (!a || posix_memalign(&p, alignment > 64 ? alignment : 64, size)) {
		free(a);
		return dev >= 0 ? ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY : ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
	}
	a->p = p;
	a->size = size;
	a->dev = dev;
	a->next = g_allocs;
	g_allocs = a;
	if (dev >= 0)
		g_used[dev] += size;
	*pptr = p;
	return ZE_RESULT_SUCCESS;
}

API ze_result_t zeMemAllocDevice(ze_context_handle_t hContext, const ze_device_mem_alloc_desc_t *desc, size_t size,
				 size_t alignment, ze_device_handle_t hDevice, void **pptr)
{
	CORE_ENTER("zeMemAllocDevice", "size=%zu", size)
	struct dev *D = core_dev(hDevice, &R);
	if (!D)
		goto out;
	R = desc ? mem_alloc(hContext, size, alignment, (int)D->index, pptr) : ZE_RESULT_ERROR_INVALID_NULL_POINTER;
	CORE_EXIT;
}

API ze_result_t zeMemAllocHost(ze_context_handle_t hContext, const ze_host_mem_alloc_desc_t *desc, size_t size,
			       size_t alignment, void **pptr)
{
	CORE_ENTER("zeMemAllocHost", "size=%zu", size)
	R = desc ? mem_alloc(hContext, size, alignment, -1, pptr) : ZE_RESULT_ERROR_INVALID_NULL_POINTER;
	CORE_EXIT;
}

API ze_result_t zeMemFree(ze_context_handle_t hContext, void *ptr)
{
	CORE_ENTER("zeMemFree", "%p", ptr)
	if (!obj_of(hContext, O_CTX)) {
		R = hContext ? ZE_RESULT_ERROR_INVALID_ARGUMENT : ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
		goto out;
	}
	R = ZE_RESULT_ERROR_INVALID_ARGUMENT;
	for (struct zalloc **pp = &g_allocs; *pp; pp = &(*pp)->next)
		if ((*pp)->p == ptr) {
			struct zalloc *a = *pp;
			*pp = a->next;
			if (a->dev >= 0)
				g_used[a->dev] -= a->size;
			free(a->p);
			free(a);
			R = ZE_RESULT_SUCCESS;
			break;
		}
	CORE_EXIT;
}

API ze_result_t zeCommandListCreateImmediate(ze_context_handle_t hContext, ze_device_handle_t hDevice,
					     const ze_command_queue_desc_t *desc, ze_command_list_handle_t *out)
{
	CORE_ENTER("zeCommandListCreateImmediate", "%p", (void *)hDevice)
	struct dev *D = core_dev(hDevice, &R);
	if (!D)
		goto out;
	if (!obj_of(hContext, O_CTX)) {
		R = hContext ? ZE_RESULT_ERROR_INVALID_ARGUMENT : ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
		goto out;
	}
	if (!desc || !out) {
		R = ZE_RESULT_ERROR_INVALID_NULL_POINTER;
		goto out;
	}
	if (g_lost[D->index]) {
		R = ZE_RESULT_ERROR_DEVICE_LOST;
		goto out;
	}
	struct obj *o = obj_new(O_LIST, (int)D->index);
	if (!o)
		R = ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
	else
		*out = (ze_command_list_handle_t)(void *)o;
	CORE_EXIT;
}

API ze_result_t zeCommandListDestroy(ze_command_list_handle_t h)
{
	CORE_ENTER("zeCommandListDestroy", "%p", (void *)h)
	struct obj *o = obj_of(h, O_LIST);
	if (!o)
		R = h ? ZE_RESULT_ERROR_INVALID_ARGUMENT : ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
	else
		obj_free(o);
	CORE_EXIT;
}

/* What every append checks: the list, its device not lost, the wait events, the signal
 * event. The signal event is signalled by the caller when the command has run. */
static ze_result_t append_check(ze_command_list_handle_t h, ze_event_handle_t sig, uint32_t nwait,
				ze_event_handle_t *wait, struct obj **list, struct obj **ev)
{
	*list = obj_of(h, O_LIST);
	if (!*list)
		return h ? ZE_RESULT_ERROR_INVALID_ARGUMENT : ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
	if (g_lost[(*list)->dev])
		return ZE_RESULT_ERROR_DEVICE_LOST;
	if (nwait && !wait)
		return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
	for (uint32_t i = 0; i < nwait; i++)
		if (!obj_of(wait[i], O_EVENT))
			return ZE_RESULT_ERROR_INVALID_ARGUMENT;
	*ev = NULL;
	if (sig && !(*ev = obj_of(sig, O_EVENT)))
		return ZE_RESULT_ERROR_INVALID_ARGUMENT;
	return ZE_RESULT_SUCCESS;
}

API ze_result_t zeCommandListAppendMemoryCopy(ze_command_list_handle_t h, void *dst, const void *src, size_t size,
					      ze_event_handle_t sig, uint32_t nwait, ze_event_handle_t *wait)
{
	CORE_ENTER("zeCommandListAppendMemoryCopy", "size=%zu", size)
	struct obj *list, *ev;
	if ((R = append_check(h, sig, nwait, wait, &list, &ev)))
		goto out;
	if (!dst || !src) {
		R = ZE_RESULT_ERROR_INVALID_NULL_POINTER;
		goto out;
	}
	/* a pointer inside an allocation must lie wholly in it; one outside every allocation
	 * is the caller's host memory (system allocations are valid copy ends) */
	struct zalloc *da = alloc_of(dst, 1), *sa = alloc_of(src, 1);
	if ((da && !alloc_of(dst, size)) || (sa && !alloc_of(src, size))) {
		R = ZE_RESULT_ERROR_INVALID_SIZE;
		goto out;
	}
	int ddev = da ? da->dev : -1, sdev = sa ? sa->dev : -1;
	if ((ddev >= 0 && g_lost[ddev]) || (sdev >= 0 && g_lost[sdev])) {
		R = ZE_RESULT_ERROR_DEVICE_LOST;
		goto out;
	}
	/* memory of another device than the list's needs peer access */
	if ((ddev >= 0 && ddev != list->dev) || (sdev >= 0 && sdev != list->dev)) {
		if (g_p2p_off) {
			R = ZE_RESULT_ERROR_INVALID_ARGUMENT;
			goto out;
		}
	}
	if (g_lost_after >= 0 && g_copies >= g_lost_after) {
		int victim = ddev >= 0 ? ddev : sdev >= 0 ? sdev : list->dev;
		memmove(dst, src, size / 2);
		g_lost[victim] = true;
		g_lost_after = -1; /* one device is lost; the others go on working */
		R = ZE_RESULT_ERROR_DEVICE_LOST;
		goto out;
	}
	memmove(dst, src, size);
	g_copies++;
	if (ev)
		ev->signalled = true;
	CORE_EXIT;
}

API ze_result_t zeCommandListAppendMemoryFill(ze_command_list_handle_t h, void *ptr, const void *pattern,
					      size_t pattern_size, size_t size, ze_event_handle_t sig, uint32_t nwait,
					      ze_event_handle_t *wait)
{
	CORE_ENTER("zeCommandListAppendMemoryFill", "size=%zu", size)
	struct obj *list, *ev;
	if ((R = append_check(h, sig, nwait, wait, &list, &ev)))
		goto out;
	if (!ptr || !pattern) {
		R = ZE_RESULT_ERROR_INVALID_NULL_POINTER;
		goto out;
	}
	/* the specification: a power of two, at most the device's largest fill pattern */
	if (!pattern_size || (pattern_size & (pattern_size - 1)) || pattern_size > 128 || size % pattern_size) {
		R = ZE_RESULT_ERROR_INVALID_SIZE;
		goto out;
	}
	struct zalloc *a = alloc_of(ptr, 1);
	if (a && !alloc_of(ptr, size)) {
		R = ZE_RESULT_ERROR_INVALID_SIZE;
		goto out;
	}
	if (a && a->dev >= 0 && g_lost[a->dev]) {
		R = ZE_RESULT_ERROR_DEVICE_LOST;
		goto out;
	}
	for (size_t i = 0; i < size; i += pattern_size)
		memcpy((unsigned char *)ptr + i, pattern, pattern_size);
	if (ev)
		ev->signalled = true;
	CORE_EXIT;
}

API ze_result_t zeCommandListAppendBarrier(ze_command_list_handle_t h, ze_event_handle_t sig, uint32_t nwait,
					   ze_event_handle_t *wait)
{
	CORE_ENTER("zeCommandListAppendBarrier", "%p", (void *)h)
	struct obj *list, *ev;
	if ((R = append_check(h, sig, nwait, wait, &list, &ev)))
		goto out;
	if (ev)
		ev->signalled = true;
	CORE_EXIT;
}

API ze_result_t zeCommandListAppendWriteGlobalTimestamp(ze_command_list_handle_t h, uint64_t *dst,
							ze_event_handle_t sig, uint32_t nwait, ze_event_handle_t *wait)
{
	CORE_ENTER("zeCommandListAppendWriteGlobalTimestamp", "%p", (void *)h)
	struct obj *list, *ev;
	if ((R = append_check(h, sig, nwait, wait, &list, &ev)))
		goto out;
	if (!dst) {
		R = ZE_RESULT_ERROR_INVALID_NULL_POINTER;
		goto out;
	}
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	*dst = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	if (ev)
		ev->signalled = true;
	CORE_EXIT;
}

#ifndef ZE_DOUBLE_OLD
API ze_result_t zeCommandListHostSynchronize(ze_command_list_handle_t h, uint64_t timeout)
{
	CORE_ENTER("zeCommandListHostSynchronize", "timeout=%llu", (unsigned long long)timeout)
	struct obj *list = obj_of(h, O_LIST);
	if (!list)
		R = h ? ZE_RESULT_ERROR_INVALID_ARGUMENT : ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
	else if (g_lost[list->dev])
		R = ZE_RESULT_ERROR_DEVICE_LOST;
	CORE_EXIT;
}
#endif

API ze_result_t zeEventPoolCreate(ze_context_handle_t hContext, const ze_event_pool_desc_t *desc, uint32_t ndev,
				  ze_device_handle_t *devs, ze_event_pool_handle_t *out)
{
	CORE_ENTER("zeEventPoolCreate", "count=%u", desc ? desc->count : 0u)
	if (!obj_of(hContext, O_CTX)) {
		R = hContext ? ZE_RESULT_ERROR_INVALID_ARGUMENT : ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
		goto out;
	}
	if (!desc || !out || (ndev && !devs)) {
		R = ZE_RESULT_ERROR_INVALID_NULL_POINTER;
		goto out;
	}
	if (desc->count == 0) {
		R = ZE_RESULT_ERROR_INVALID_SIZE;
		goto out;
	}
	struct obj *o = obj_new(O_POOL, (int)desc->count);
	if (!o)
		R = ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
	else
		*out = (ze_event_pool_handle_t)(void *)o;
	CORE_EXIT;
}

API ze_result_t zeEventPoolDestroy(ze_event_pool_handle_t h)
{
	CORE_ENTER("zeEventPoolDestroy", "%p", (void *)h)
	struct obj *o = obj_of(h, O_POOL);
	if (!o) {
		R = h ? ZE_RESULT_ERROR_INVALID_ARGUMENT : ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
		goto out;
	}
	for (struct obj *e = g_objs; e; e = e->next)
		if (e->tag == O_EVENT && e->pool == o) {
			R = ZE_RESULT_ERROR_INVALID_ARGUMENT; /* events of it still live */
			goto out;
		}
	obj_free(o);
	CORE_EXIT;
}

API ze_result_t zeEventCreate(ze_event_pool_handle_t hPool, const ze_event_desc_t *desc, ze_event_handle_t *out)
{
	CORE_ENTER("zeEventCreate", "index=%u", desc ? desc->index : 0u)
	struct obj *pool = obj_of(hPool, O_POOL);
	if (!pool) {
		R = hPool ? ZE_RESULT_ERROR_INVALID_ARGUMENT : ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
		goto out;
	}
	if (!desc || !out) {
		R = ZE_RESULT_ERROR_INVALID_NULL_POINTER;
		goto out;
	}
	if (desc->index >= (uint32_t)pool->dev) {
		R = ZE_RESULT_ERROR_INVALID_ARGUMENT;
		goto out;
	}
	struct obj *o = obj_new(O_EVENT, -1);
	if (!o) {
		R = ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
		goto out;
	}
	o->pool = pool;
	*out = (ze_event_handle_t)(void *)o;
	CORE_EXIT;
}

API ze_result_t zeEventDestroy(ze_event_handle_t h)
{
	CORE_ENTER("zeEventDestroy", "%p", (void *)h)
	struct obj *o = obj_of(h, O_EVENT);
	if (!o)
		R = h ? ZE_RESULT_ERROR_INVALID_ARGUMENT : ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
	else
		obj_free(o);
	CORE_EXIT;
}

API ze_result_t zeEventHostSynchronize(ze_event_handle_t h, uint64_t timeout)
{
	CORE_ENTER("zeEventHostSynchronize", "timeout=%llu", (unsigned long long)timeout)
	struct obj *o = obj_of(h, O_EVENT);
	if (!o)
		R = h ? ZE_RESULT_ERROR_INVALID_ARGUMENT : ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
	else if (!o->signalled)
		R = ZE_RESULT_NOT_READY; /* nothing will signal it: every append has run */
	CORE_EXIT;
}
