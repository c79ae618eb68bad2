/* SPDX-License-Identifier: MIT */
/*
 * The level-zero compute backend: Intel GPUs through the Level Zero core API of
 * libze_loader.so.1 (the same loader sysman discovery uses, so the intel row's
 * $AXL_ZE_LIBRARY names it for both). One context per driver; USM device memory
 * (zeMemAllocDevice) and USM host memory, which is page-locked, for pinned and host
 * buffers (zeMemAllocHost); a queue is an immediate command list (appends run in order);
 * an event is a global timestamp written by the list, signalling a host-visible event.
 *
 * Devices are matched by PCI address (zeDevicePciGetPropertiesExt, ZE_extension_pci_
 * properties), else by the UUID of ze_device_properties_t as sysman discovery spells it.
 * Level Zero core has no "free memory" call: free is the device's total
 * (zeDeviceGetMemoryProperties) less what this backend holds on it, which is what an
 * allocation of this process can count on when nothing else uses the device.
 */
#define _GNU_SOURCE /* strnlen with -std=c11 */
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccall.h"
#include "compute_impl.h"
#include "runtime_files.h"
#include "vlib.h"
#include "abi/intel/ze.h"

/* The types and prototypes are the specification's, declared once in src/abi/intel/ze.h
 * (compared with Debian's ze_api.h by tests/vendorabi); the table takes each slot's type
 * from its prototype. No result here is axl's own: the optional calls are tested before
 * they are made. */
#define ZE_FN(sym) __typeof__(&sym)
struct zefns {
	ZE_FN(zeInit) zeInit;
	ZE_FN(zeDriverGet) zeDriverGet;
	ZE_FN(zeDeviceGet) zeDeviceGet;
	ZE_FN(zeDeviceGetProperties) zeDeviceGetProperties;
	ZE_FN(zeDevicePciGetPropertiesExt) zeDevicePciGetPropertiesExt;
	ZE_FN(zeDeviceGetMemoryProperties) zeDeviceGetMemoryProperties;
	ZE_FN(zeDeviceCanAccessPeer) zeDeviceCanAccessPeer;
	ZE_FN(zeContextCreate) zeContextCreate;
	ZE_FN(zeContextDestroy) zeContextDestroy;
	ZE_FN(zeMemAllocDevice) zeMemAllocDevice;
	ZE_FN(zeMemAllocHost) zeMemAllocHost;
	ZE_FN(zeMemFree) zeMemFree;
	ZE_FN(zeCommandListCreateImmediate) zeCommandListCreateImmediate;
	ZE_FN(zeCommandListDestroy) zeCommandListDestroy;
	ZE_FN(zeCommandListAppendMemoryCopy) zeCommandListAppendMemoryCopy;
	ZE_FN(zeCommandListAppendMemoryFill) zeCommandListAppendMemoryFill;
	ZE_FN(zeCommandListAppendBarrier) zeCommandListAppendBarrier;
	ZE_FN(zeCommandListAppendWriteGlobalTimestamp) zeCommandListAppendWriteGlobalTimestamp;
	ZE_FN(zeCommandListHostSynchronize) zeCommandListHostSynchronize; /* 1.6+; else a barrier and its event */
	ZE_FN(zeEventPoolCreate) zeEventPoolCreate;
	ZE_FN(zeEventPoolDestroy) zeEventPoolDestroy;
	ZE_FN(zeEventCreate) zeEventCreate;
	ZE_FN(zeEventDestroy) zeEventDestroy;
	ZE_FN(zeEventHostSynchronize) zeEventHostSynchronize;
};

#define F(m) {offsetof(struct zefns, m), {#m}}
static const struct axl__vsym symbols[] = {
	F(zeInit), F(zeDriverGet), F(zeDeviceGet), F(zeDeviceGetProperties), F(zeDevicePciGetPropertiesExt),
	F(zeDeviceGetMemoryProperties), F(zeDeviceCanAccessPeer), F(zeContextCreate), F(zeContextDestroy),
	F(zeMemAllocDevice), F(zeMemAllocHost), F(zeMemFree), F(zeCommandListCreateImmediate),
	F(zeCommandListDestroy), F(zeCommandListAppendMemoryCopy), F(zeCommandListAppendMemoryFill),
	F(zeCommandListAppendBarrier), F(zeCommandListAppendWriteGlobalTimestamp), F(zeCommandListHostSynchronize),
	F(zeEventPoolCreate), F(zeEventPoolDestroy), F(zeEventCreate), F(zeEventDestroy), F(zeEventHostSynchronize),
};
#undef F
/* what may be missing: the PCI extension (then UUIDs match) and list synchronisation */
#define OPTIONAL(off) (off == offsetof(struct zefns, zeDevicePciGetPropertiesExt) || \
		       off == offsetof(struct zefns, zeCommandListHostSynchronize))

static bool usable(const void *table, const char *name, char *why, size_t cap)
{
	for (size_t i = 0; i < sizeof symbols / sizeof *symbols; i++) {
		void *const *fn = (void *const *)((const char *)table + symbols[i].off);
		if (!*fn && !OPTIONAL(symbols[i].off)) {
			snprintf(why, cap, "%s lacks %s", name, symbols[i].names[0]);
			return false;
		}
	}
	return true;
}

static struct axl__vlib_cache cache = AXL__VLIB_CACHE_INIT;
static const char *const sonames[] = {"libze_loader.so.1"};
static const struct axl__vlibrary library = {sonames, 1, symbols, sizeof symbols / sizeof *symbols,
					     sizeof(struct zefns), usable, &cache, axl__runtime_lib_dirs};

struct zdev {
	ze_device_handle_t handle;
	ze_context_handle_t ctx;
	unsigned index;
	char label[160]; /* "level-zero device 1 (0000:03:00.0)" for messages */
	uint64_t total;
	_Atomic uint64_t used;
	uint64_t tick_ns; /* timerResolution */
	uint64_t ts_mask; /* timestampValidBits */
};

struct zstate {
	const struct zefns *f;
	struct axl__ccall *calls;
	ze_context_handle_t ctxs[8];
	unsigned nctx;
	struct zdev *dev;
	unsigned ndev;
};

struct zqueue {
	struct zdev *d;
	ze_command_list_handle_t list;
	pthread_mutex_t lock; /* an immediate list is not to be appended to from two threads */
};

struct zevent {
	struct zdev *d;
	ze_event_pool_handle_t pool;
	ze_event_handle_t ev;
	uint64_t *ts; /* USM host memory the list writes the timestamp to */
};

static int fail(const struct zdev *d, const char *call, ze_result_t r, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* An AXL_E* for what call said, with the device, the call and the sizes (fmt). */
static int fail(const struct zdev *d, const char *call, ze_result_t r, const char *fmt, ...)
{
	char what[200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	int code = r == ZE_RESULT_ERROR_DEVICE_LOST ? AXL_EDEVLOST
		   : r == ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY || r == ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY ? AXL_ENOMEM
											       : AXL_EBACKEND;
	return axl__error(code, "compute level-zero: %s on %s%s%s: result 0x%x%s", call, d ? d->label : "the driver",
			  *what ? ", " : "", what, (unsigned)r,
			  r == ZE_RESULT_ERROR_DEVICE_LOST ? " (device lost)" : "");
}

/* ---- opening: zeInit, drivers, their GPUs, a context per driver (on a worker) ---- */
struct open_job {
	struct zstate *st;
	struct axl__compute_found **found;
	size_t *n;
};

static void found_of(struct zstate *st, struct zdev *d, struct axl__compute_found *fd, const ze_device_properties_t *p)
{
	memset(fd, 0, sizeof *fd);
	ze_pci_ext_properties_t pci = {.stype = ZE_STRUCTURE_TYPE_PCI_EXT_PROPERTIES};
	if (st->f->zeDevicePciGetPropertiesExt &&
	    st->f->zeDevicePciGetPropertiesExt(d->handle, &pci) == ZE_RESULT_SUCCESS)
		snprintf(fd->pci, sizeof fd->pci, "%04x:%02x:%02x.%x", pci.address.domain, pci.address.bus,
			 pci.address.device, pci.address.function);
	bool zero = true;
	for (int k = 0; k < 16; k++)
		zero = zero && p->uuid.id[k] == 0;
	const uint8_t *b = p->uuid.id;
	if (!zero) /* as sysman discovery spells it (ze_apply.c) */
		snprintf(fd->uuid, sizeof fd->uuid,
			 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2], b[3],
			 b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
	snprintf(fd->name, sizeof fd->name, "%.*s", (int)strnlen(p->name, sizeof p->name), p->name);
	snprintf(d->label, sizeof d->label, "level-zero device %u (%s)", d->index, fd->pci[0] ? fd->pci : fd->uuid);
	fd->native = d;
}

static int open_run(void *arg)
{
	struct open_job *j = arg;
	struct zstate *st = j->st;
	const struct zefns *f = st->f;
	ze_result_t r = f->zeInit(ZE_INIT_FLAG_GPU_ONLY);
	if (r)
		return fail(NULL, "zeInit", r, "%s", "");
	ze_driver_handle_t drv[8];
	uint32_t nd = 8;
	if ((r = f->zeDriverGet(&nd, drv)))
		return fail(NULL, "zeDriverGet", r, "%s", "");
	for (uint32_t i = 0; i < nd && i < 8; i++) {
		uint32_t cnt = 0;
		if ((r = f->zeDeviceGet(drv[i], &cnt, NULL)))
			return fail(NULL, "zeDeviceGet", r, "%s", "");
		ze_device_handle_t *hs = calloc(cnt ? cnt : 1, sizeof *hs);
		struct zdev *more = realloc(st->dev, (st->ndev + cnt + 1) * sizeof *more);
		if (!hs || !more) {
			free(hs);
			if (more)
				st->dev = more;
			return axl__error(AXL_ENOMEM, "compute level-zero: out of memory");
		}
		st->dev = more;
		if (cnt && (r = f->zeDeviceGet(drv[i], &cnt, hs))) {
			free(hs);
			return fail(NULL, "zeDeviceGet", r, "%s", "");
		}
		ze_context_handle_t ctx = NULL;
		ze_context_desc_t cd = {.stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC};
		if (cnt && (r = f->zeContextCreate(drv[i], &cd, &ctx))) {
			free(hs);
			return fail(NULL, "zeContextCreate", r, "%s", "");
		}
		if (ctx)
			st->ctxs[st->nctx++] = ctx;
		for (uint32_t k = 0; k < cnt; k++) {
			ze_device_properties_t p = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
			if (f->zeDeviceGetProperties(hs[k], &p) || p.type != ZE_DEVICE_TYPE_GPU)
				continue;
			struct zdev *d = &st->dev[st->ndev];
			memset(d, 0, sizeof *d);
			d->handle = hs[k];
			d->ctx = ctx;
			d->index = st->ndev;
			d->tick_ns = p.timerResolution ? p.timerResolution : 1;
			d->ts_mask = p.timestampValidBits >= 64 || !p.timestampValidBits ? UINT64_MAX
							   : ((uint64_t)1 << p.timestampValidBits) - 1;
			ze_device_memory_properties_t mp[4];
			uint32_t nm = 4;
			memset(mp, 0, sizeof mp);
			for (int m = 0; m < 4; m++)
				mp[m].stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES;
			if (f->zeDeviceGetMemoryProperties(hs[k], &nm, mp) == ZE_RESULT_SUCCESS)
				for (uint32_t m = 0; m < nm && m < 4; m++)
					d->total += mp[m].totalSize;
			st->ndev++;
		}
		free(hs);
	}
	return 0;
}

static void ze_close(void *state)
{
	struct zstate *st = state;
	for (unsigned i = 0; i < st->nctx; i++)
		st->f->zeContextDestroy(st->ctxs[i]);
	axl__ccall_free(st->calls);
	free(st->dev);
	free(st);
}

static int ze_open(const axl_context *ctx, const char *lib, void **state, struct axl__compute_found **found,
		   size_t *n)
{
	char why[512];
	bool absent = false;
	const struct zefns *f = axl__vlib_open_ctx(&library, ctx, lib, why, sizeof why, &absent);
	if (!f)
		return axl__error(absent ? AXL_ENOTSUP : AXL_EBACKEND, "compute level-zero: %s", why);
	struct zstate *st = calloc(1, sizeof *st);
	if (!st || !(st->calls = axl__ccall_new("level-zero", ctx->vendor_timeout_ms))) {
		free(st);
		return axl__error(AXL_ENOMEM, "compute level-zero: out of memory");
	}
	st->f = f;
	struct open_job j = {st, found, n};
	int rc = axl__ccall_run(st->calls, open_run, &j, sizeof j, "zeInit and device enumeration");
	if (rc == AXL_ETIMEDOUT)
		return rc; /* the worker may still write to st: it is left to it */
	struct axl__compute_found *fd = rc ? NULL : calloc(st->ndev ? st->ndev : 1, sizeof *fd);
	if (!rc && !fd)
		rc = axl__error(AXL_ENOMEM, "compute level-zero: out of memory");
	if (rc) {
		ze_close(st);
		return rc;
	}
	for (unsigned i = 0; i < st->ndev; i++) {
		ze_device_properties_t p = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
		f->zeDeviceGetProperties(st->dev[i].handle, &p);
		found_of(st, &st->dev[i], &fd[i], &p);
	}
	*state = st;
	*found = fd;
	*n = st->ndev;
	return 0;
}

/* ---- memory ---- */
static int ze_mem_info(void *state, void *dev, uint64_t *free_bytes, uint64_t *total_bytes)
{
	(void)state;
	struct zdev *d = dev;
	uint64_t used = atomic_load(&d->used);
	*total_bytes = d->total;
	*free_bytes = used < d->total ? d->total - used : 0;
	return 0;
}

struct alloc_job {
	const struct zefns *f;
	struct zdev *d;
	axl_memory_kind kind;
	uint64_t size;
	void *p;
};

static int alloc_run(void *arg)
{
	struct alloc_job *j = arg;
	ze_device_mem_alloc_desc_t dd = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC};
	ze_host_mem_alloc_desc_t hd = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
	ze_result_t r = j->kind == AXL_MEMORY_DEVICE
				? j->f->zeMemAllocDevice(j->d->ctx, &dd, (size_t)j->size, 64, j->d->handle, &j->p)
				: j->f->zeMemAllocHost(j->d->ctx, &hd, (size_t)j->size, 4096, &j->p);
	if (r) {
		uint64_t fr = 0, tot = 0;
		ze_mem_info(NULL, j->d, &fr, &tot);
		return fail(j->d, j->kind == AXL_MEMORY_DEVICE ? "zeMemAllocDevice" : "zeMemAllocHost", r,
			    "%" PRIu64 " bytes asked, %" PRIu64 " bytes free", j->size, fr);
	}
	return 0;
}

static int ze_alloc(void *state, void *dev, struct axl__cmem *m)
{
	struct zstate *st = state;
	struct zdev *d = dev;
	struct alloc_job j = {st->f, d, m->kind, m->size, NULL};
	if (m->size > SIZE_MAX)
		return axl__error(AXL_ENOMEM, "compute level-zero: %" PRIu64 " bytes asked on %s", m->size, d->label);
	int rc = axl__ccall_run(st->calls, alloc_run, &j, sizeof j,
				m->kind == AXL_MEMORY_DEVICE ? "zeMemAllocDevice" : "zeMemAllocHost");
	if (rc)
		return rc;
	m->mem = j.p;
	m->host = m->kind == AXL_MEMORY_DEVICE ? NULL : j.p;
	if (m->kind == AXL_MEMORY_DEVICE)
		atomic_fetch_add(&d->used, m->size);
	return 0;
}

struct free_job {
	const struct zefns *f;
	ze_context_handle_t ctx;
	void *p;
};

static int free_run(void *arg)
{
	struct free_job *j = arg;
	j->f->zeMemFree(j->ctx, j->p);
	return 0;
}

static void ze_free(void *state, struct axl__cmem *m)
{
	struct zstate *st = state;
	struct zdev *d = m->dev;
	struct free_job j = {st->f, d->ctx, m->mem};
	/* a free that misses the deadline leaves the memory to the driver */
	axl__ccall_run(st->calls, free_run, &j, sizeof j, "zeMemFree");
	if (m->kind == AXL_MEMORY_DEVICE)
		atomic_fetch_sub(&d->used, m->size);
}

/* ---- queues: immediate command lists ---- */
static int ze_queue_create(void *state, void *dev, void **out)
{
	struct zstate *st = state;
	struct zdev *d = dev;
	struct zqueue *q = calloc(1, sizeof *q);
	if (!q)
		return axl__error(AXL_ENOMEM, "compute level-zero: out of memory for a queue");
	/* ordinal 0 (the compute engine group, which copies too), in order, asynchronous */
	ze_command_queue_desc_t qd = {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC,
				      .mode = ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS};
	ze_result_t r = st->f->zeCommandListCreateImmediate(d->ctx, d->handle, &qd, &q->list);
	if (r) {
		free(q);
		return fail(d, "zeCommandListCreateImmediate", r, "%s", "");
	}
	q->d = d;
	pthread_mutex_init(&q->lock, NULL);
	*out = q;
	return 0;
}

/* A host-visible event, and USM host memory for a timestamp when ts is asked for. */
static int event_new(struct zstate *st, struct zdev *d, struct zevent *e, bool ts)
{
	ze_event_pool_desc_t pd = {.stype = ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, .flags = ZE_EVENT_POOL_FLAG_HOST_VISIBLE,
				   .count = 1};
	ze_result_t r = st->f->zeEventPoolCreate(d->ctx, &pd, 1, &d->handle, &e->pool);
	if (r)
		return fail(d, "zeEventPoolCreate", r, "%s", "");
	ze_event_desc_t ed = {.stype = ZE_STRUCTURE_TYPE_EVENT_DESC, .signal = ZE_EVENT_SCOPE_FLAG_HOST,
			      .wait = ZE_EVENT_SCOPE_FLAG_HOST};
	if ((r = st->f->zeEventCreate(e->pool, &ed, &e->ev))) {
		st->f->zeEventPoolDestroy(e->pool);
		return fail(d, "zeEventCreate", r, "%s", "");
	}
	ze_host_mem_alloc_desc_t hd = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
	if (ts && (r = st->f->zeMemAllocHost(d->ctx, &hd, sizeof(uint64_t), 8, (void **)&e->ts))) {
		st->f->zeEventDestroy(e->ev);
		st->f->zeEventPoolDestroy(e->pool);
		return fail(d, "zeMemAllocHost", r, "8 bytes for a timestamp");
	}
	e->d = d;
	return 0;
}

static void event_del(struct zstate *st, struct zevent *e)
{
	if (e->ts)
		st->f->zeMemFree(e->d->ctx, e->ts);
	st->f->zeEventDestroy(e->ev);
	st->f->zeEventPoolDestroy(e->pool);
}

struct sync_job {
	const struct zefns *f;
	struct zdev *d;
	ze_command_list_handle_t list;
	ze_event_handle_t ev; /* the fallback's barrier event */
};

static int sync_run(void *arg)
{
	struct sync_job *j = arg;
	ze_result_t r = j->ev ? j->f->zeEventHostSynchronize(j->ev, UINT64_MAX)
		      : j->f->zeCommandListHostSynchronize(j->list, UINT64_MAX);
	return r ? fail(j->d, j->ev ? "zeEventHostSynchronize" : "zeCommandListHostSynchronize", r, "%s", "") : 0;
}

static int ze_queue_sync(void *state, void *qp)
{
	struct zstate *st = state;
	struct zqueue *q = qp;
	struct sync_job j = {st->f, q->d, q->list, NULL};
	if (st->f->zeCommandListHostSynchronize)
		return axl__ccall_run(st->calls, sync_run, &j, sizeof j, "zeCommandListHostSynchronize");
	/* a loader before 1.6: a barrier after everything enqueued, signalling an event */
	struct zevent e = {0};
	int rc = event_new(st, q->d, &e, false);
	if (rc)
		return rc;
	pthread_mutex_lock(&q->lock);
	ze_result_t r = st->f->zeCommandListAppendBarrier(q->list, e.ev, 0, NULL);
	pthread_mutex_unlock(&q->lock);
	if (r)
		rc = fail(q->d, "zeCommandListAppendBarrier", r, "%s", "");
	else {
		j.ev = e.ev;
		rc = axl__ccall_run(st->calls, sync_run, &j, sizeof j, "zeEventHostSynchronize");
	}
	if (rc != AXL_ETIMEDOUT) /* a worker still waiting on it keeps it */
		event_del(st, &e);
	return rc;
}

static void ze_queue_free(void *state, void *qp)
{
	struct zstate *st = state;
	struct zqueue *q = qp;
	ze_queue_sync(state, q);
	st->f->zeCommandListDestroy(q->list);
	pthread_mutex_destroy(&q->lock);
	free(q);
}

/* ---- copies and fills ---- */
static void *addr(const struct axl__cmem *m, uint64_t off)
{
	return (char *)(m->host ? m->host : m->mem) + off;
}

static int append_copy(struct zstate *st, struct zqueue *q, void *dst, const void *src, uint64_t size,
		       const char *kind)
{
	pthread_mutex_lock(&q->lock);
	ze_result_t r = st->f->zeCommandListAppendMemoryCopy(q->list, dst, src, (size_t)size, NULL, 0, NULL);
	pthread_mutex_unlock(&q->lock);
	return r ? fail(q->d, "zeCommandListAppendMemoryCopy", r, "%s copy of %" PRIu64 " bytes", kind, size) : 0;
}

static int ze_copy(void *state, void *qp, const struct axl__cmem *dst, uint64_t dst_offset,
		   const struct axl__cmem *src, uint64_t src_offset, uint64_t size, axl_copy_path *path)
{
	*path = dst->host && src->host ? AXL_COPY_PATH_HOST : AXL_COPY_PATH_DEVICE;
	const char *kind = dst->host && src->host ? "host-to-host"
			   : dst->host		  ? "device-to-host"
			   : src->host		  ? "host-to-device"
						  : "device-to-device";
	return append_copy(state, qp, addr(dst, dst_offset), addr(src, src_offset), size, kind);
}

static int ze_peer_copy(void *state, void *qp, const struct axl__cmem *dst, uint64_t dst_offset,
			const struct axl__cmem *src, uint64_t src_offset, uint64_t size)
{
	struct zstate *st = state;
	struct zqueue *q = qp;
	struct zdev *other = dst->dev == q->d ? src->dev : dst->dev;
	ze_bool_t can = 0;
	ze_result_t r = st->f->zeDeviceCanAccessPeer(q->d->handle, other->handle, &can);
	if (r)
		return fail(q->d, "zeDeviceCanAccessPeer", r, "with %s", other->label);
	if (!can)
		return AXL_ENOTSUP;
	return append_copy(st, q, addr(dst, dst_offset), addr(src, src_offset), size, "peer");
}

static int ze_fill(void *state, void *qp, const struct axl__cmem *dst, uint64_t offset, uint64_t size, uint8_t value)
{
	struct zstate *st = state;
	struct zqueue *q = qp;
	pthread_mutex_lock(&q->lock);
	ze_result_t r =
	    st->f->zeCommandListAppendMemoryFill(q->list, addr(dst, offset), &value, 1, (size_t)size, NULL, 0, NULL);
	pthread_mutex_unlock(&q->lock);
	return r ? fail(q->d, "zeCommandListAppendMemoryFill", r, "%" PRIu64 " bytes", size) : 0;
}

/* ---- events: a global timestamp written in the list's order ---- */
static int ze_event_record(void *state, void *qp, void **out)
{
	struct zstate *st = state;
	struct zqueue *q = qp;
	struct zevent *e = calloc(1, sizeof *e);
	if (!e)
		return axl__error(AXL_ENOMEM, "compute level-zero: out of memory for an event");
	int rc = event_new(st, q->d, e, true);
	if (rc) {
		free(e);
		return rc;
	}
	pthread_mutex_lock(&q->lock);
	ze_result_t r = st->f->zeCommandListAppendWriteGlobalTimestamp(q->list, e->ts, e->ev, 0, NULL);
	pthread_mutex_unlock(&q->lock);
	if (r) {
		event_del(st, e);
		free(e);
		return fail(q->d, "zeCommandListAppendWriteGlobalTimestamp", r, "%s", "");
	}
	*out = e;
	return 0;
}

static int ze_event_wait(void *state, void *evp)
{
	struct zstate *st = state;
	struct zevent *e = evp;
	struct sync_job j = {st->f, e->d, NULL, e->ev};
	return axl__ccall_run(st->calls, sync_run, &j, sizeof j, "zeEventHostSynchronize");
}

static int ze_event_elapsed(void *state, void *a, void *b, int64_t *ns)
{
	(void)state;
	struct zevent *ea = a, *eb = b;
	/* ticks of the device's timer, wrapping at its valid bits */
	uint64_t ticks = (*eb->ts - *ea->ts) & ea->d->ts_mask;
	if (ea->d != eb->d)
		return axl__error(AXL_EINVAL, "compute level-zero: events of %s and %s have different clocks",
				  ea->d->label, eb->d->label);
	*ns = (int64_t)(ticks * ea->d->tick_ns);
	return 0;
}

static void ze_event_free(void *state, void *evp)
{
	struct zevent *e = evp;
	/* the list may not have reached it: it writes the timestamp when it does */
	if (ze_event_wait(state, e) == AXL_ETIMEDOUT)
		return;
	event_del(state, e);
	free(e);
}

const struct axl__compute_ops axl__compute_level_zero = {
	.name = "level-zero",
	.open = ze_open,
	.close = ze_close,
	.mem_info = ze_mem_info,
	.alloc = ze_alloc,
	.free = ze_free,
	.queue_create = ze_queue_create,
	.queue_free = ze_queue_free,
	.queue_sync = ze_queue_sync,
	.copy = ze_copy,
	.peer_copy = ze_peer_copy,
	.fill = ze_fill,
	.event_record = ze_event_record,
	.event_wait = ze_event_wait,
	.event_elapsed = ze_event_elapsed,
	.event_free = ze_event_free,
};
