/* SPDX-License-Identifier: MIT */
/*
 * The cuda compute backend: NVIDIA GPUs through the CUDA driver API (libcuda.so.1, loaded
 * with dlopen, never linked). Each device's primary context (the one the CUDA runtime
 * shares) is retained when the device is first used, made current around each call and
 * put back as the caller had it. A queue is a non-blocking stream, an event a timed CUDA
 * event; device memory is cuMemAlloc'd, pinned memory cuMemHostAlloc'd (portable, so any
 * device's stream may copy from it), host memory plain aligned memory.
 *
 * Devices are reported by PCI address (cuDeviceGetPCIBusId) and UUID ("GPU-..." as NVML
 * and the inventory spell it), never by ordinal: CUDA's order follows
 * CUDA_DEVICE_ORDER and CUDA_VISIBLE_DEVICES, the inventory's does not.
 */
#define _GNU_SOURCE /* posix_memalign with -std=c11 */
#include <assert.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccall.h"
#include "cuda_compute.h"
#include "compute_impl.h"
#include "cuda_api.h"
#include "nvidia_runtime.h"
#include "vlib.h"

#define NAME   "cuda"
#define MAXDEV 64

/* ---- the library ------------------------------------------------------------------ */
#define F(x) offsetof(struct axl__cuda_fns, x)
static const struct axl__vsym symbols[] = {
	{ F(Init), { "cuInit" } },
	{ F(DriverGetVersion), { "cuDriverGetVersion" } },
	{ F(GetErrorName), { "cuGetErrorName" } },
	{ F(DeviceGetCount), { "cuDeviceGetCount" } },
	{ F(DeviceGet), { "cuDeviceGet" } },
	{ F(DeviceGetName), { "cuDeviceGetName" } },
	{ F(DeviceGetPCIBusId), { "cuDeviceGetPCIBusId" } },
	{ F(DeviceGetUuid), { "cuDeviceGetUuid_v2", "cuDeviceGetUuid" } },
	{ F(DeviceCanAccessPeer), { "cuDeviceCanAccessPeer" } },
	{ F(DevicePrimaryCtxRetain), { "cuDevicePrimaryCtxRetain" } },
	{ F(DevicePrimaryCtxRelease), { "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease" } },
	{ F(CtxGetCurrent), { "cuCtxGetCurrent" } },
	{ F(CtxSetCurrent), { "cuCtxSetCurrent" } },
	{ F(CtxEnablePeerAccess), { "cuCtxEnablePeerAccess" } },
	{ F(MemAlloc), { "cuMemAlloc_v2" } },
	{ F(MemFree), { "cuMemFree_v2" } },
	{ F(MemHostAlloc), { "cuMemHostAlloc" } },
	{ F(MemFreeHost), { "cuMemFreeHost" } },
	{ F(MemGetInfo), { "cuMemGetInfo_v2" } },
	{ F(MemGetInfoOld), { "cuMemGetInfo" } },
	{ F(MemcpyHtoDAsync), { "cuMemcpyHtoDAsync_v2" } },
	{ F(MemcpyDtoHAsync), { "cuMemcpyDtoHAsync_v2" } },
	{ F(MemcpyDtoDAsync), { "cuMemcpyDtoDAsync_v2" } },
	{ F(MemcpyPeerAsync), { "cuMemcpyPeerAsync" } },
	{ F(MemsetD8Async), { "cuMemsetD8Async" } },
	{ F(StreamCreate), { "cuStreamCreate" } },
	{ F(StreamSynchronize), { "cuStreamSynchronize" } },
	{ F(StreamDestroy), { "cuStreamDestroy_v2" } },
	{ F(EventCreate), { "cuEventCreate" } },
	{ F(EventRecord), { "cuEventRecord" } },
	{ F(EventSynchronize), { "cuEventSynchronize" } },
	{ F(EventElapsedTime), { "cuEventElapsedTime" } },
	{ F(EventDestroy), { "cuEventDestroy_v2" } },
};
#undef F

/* Everything but the optional ones (cuGetErrorName, cuMemcpyPeerAsync, cuDeviceGetUuid,
 * one of the two cuMemGetInfo). */
static bool usable(const void *table, const char *name, char *why, size_t cap)
{
	const struct axl__cuda_fns *f = table;
	if (f->Init && f->DriverGetVersion && f->DeviceGetCount && f->DeviceGet && f->DeviceGetName &&
	    f->DeviceGetPCIBusId && f->DeviceCanAccessPeer && f->DevicePrimaryCtxRetain && f->DevicePrimaryCtxRelease &&
	    f->CtxGetCurrent && f->CtxSetCurrent && f->CtxEnablePeerAccess && f->MemAlloc && f->MemFree &&
	    f->MemHostAlloc && f->MemFreeHost && (f->MemGetInfo || f->MemGetInfoOld) && f->MemcpyHtoDAsync &&
	    f->MemcpyDtoHAsync && f->MemcpyDtoDAsync && f->MemsetD8Async && f->StreamCreate && f->StreamSynchronize &&
	    f->StreamDestroy && f->EventCreate && f->EventRecord && f->EventSynchronize && f->EventElapsedTime &&
	    f->EventDestroy)
		return true;
	snprintf(why, cap, "%s lacks entry points of the CUDA driver API a compute backend needs", name);
	return false;
}

static struct axl__vlib_cache cache = AXL__VLIB_CACHE_INIT;
static const char *const sonames[] = { "libcuda.so.1" };
static const struct axl__vlibrary library = {
	sonames, 1, symbols, sizeof symbols / sizeof *symbols, sizeof(struct axl__cuda_fns), usable, &cache,
	axl__nvidia_lib_dirs};

/* ---- state ------------------------------------------------------------------------ */
struct cu_state;
struct cu_dev {
	struct cu_state *st;
	CUdevice dev;
	int ordinal;
	char label[64]; /* "cuda device 0 (0000:3b:00.0)", for messages */
	CUcontext ctx;  /* retained on first use (under st->lock) */
	/* peer access from this device's context to device i's memory: 0 not tried yet,
	 * 1 enabled, 2 not possible */
	unsigned char peer[MAXDEV];
};

struct cu_state {
	const axl_context *ctx; /* for log lines */
	const struct axl__cuda_fns *f;
	struct axl__ccall *cc;
	pthread_mutex_t lock;
	int ndev;
	struct cu_dev dev[MAXDEV];
};

struct cu_queue {
	struct cu_dev *d;
	CUstream s;
};

struct cu_event {
	struct cu_dev *d;
	CUevent e;
};

/* CUDA has no one "device lost" result: these are what a GPU that fell off the bus, hit
 * an uncorrectable error or faulted (which leaves its context unusable) answers. */
static bool lost(CUresult r)
{
	return r == CUDA_ERROR_DEVICE_UNAVAILABLE || r == CUDA_ERROR_ECC_UNCORRECTABLE ||
	       r == CUDA_ERROR_ILLEGAL_ADDRESS || r == CUDA_ERROR_LAUNCH_FAILED || r == CUDA_ERROR_SYSTEM_NOT_READY;
}

/* axl__error for a failed call: the code's name when the driver can say it. */
static int fail(const struct cu_state *st, const char *who, CUresult r, const char *call, const char *detail)
{
	const char *name = NULL;
	if (!st->f->GetErrorName || st->f->GetErrorName(r, &name) != CUDA_SUCCESS || !name)
		name = "CUDA error";
	int code = r == CUDA_ERROR_OUT_OF_MEMORY ? AXL_ENOMEM : lost(r) ? AXL_EDEVLOST : AXL_EBACKEND;
	return axl__error(code, "%s: %s%s%s failed: %s (%d)%s", who, call, detail && *detail ? " " : "",
			  detail ? detail : "", name, (int)r, code == AXL_EDEVLOST ? ", the device is lost" : "");
}

/* Make d's context current on this thread, remembering the one that was. */
static CUresult push(const struct cu_dev *d, CUcontext *was)
{
	CUresult r = d->st->f->CtxGetCurrent(was);
	if (r != CUDA_SUCCESS)
		return r;
	return *was == d->ctx ? CUDA_SUCCESS : d->st->f->CtxSetCurrent(d->ctx);
}

static void pop(const struct cu_dev *d, CUcontext was)
{
	if (was != d->ctx)
		d->st->f->CtxSetCurrent(was);
}

/* ---- blocking calls, on ccall workers ------------------------------------------------ */
enum {
	J_INIT,
	J_DEVINFO,
	J_RETAIN,
	J_RELEASE,
	J_MEMINFO,
	J_ALLOC,
	J_HOSTALLOC,
	J_FREE,
	J_FREEHOST,
	J_STREAM_NEW,
	J_STREAM_SYNC,
	J_STREAM_FREE,
	J_EVENT_SYNC,
	J_COUNT
};

/* One blocking call: its inputs and outputs (copied to the worker and back). */
struct job {
	int op;
	const struct cu_state *st;
	struct cu_dev *d;
	CUresult r;
	const char *call; /* the entry point that failed */
	int count, version;
	CUdevice dev;
	char name[128], pci[32];
	CUuuid uuid;
	bool has_uuid;
	CUcontext ctx;
	CUdeviceptr ptr;
	void *host;
	size_t size, free, total;
	CUstream s;
	CUevent e;
};

/* The calls that need d's context current run with it. */
static CUresult run_in_ctx(struct job *j)
{
	const struct axl__cuda_fns *f = j->st->f;
	switch (j->op) {
	case J_MEMINFO:
		if (f->MemGetInfo) {
			j->call = "cuMemGetInfo_v2";
			return f->MemGetInfo(&j->free, &j->total);
		} else {
			unsigned int fr = 0, tot = 0;
			j->call = "cuMemGetInfo";
			CUresult r = f->MemGetInfoOld(&fr, &tot);
			j->free = fr;
			j->total = tot;
			return r;
		}
	case J_ALLOC: j->call = "cuMemAlloc_v2"; return f->MemAlloc(&j->ptr, j->size);
	case J_HOSTALLOC:
		j->call = "cuMemHostAlloc";
		return f->MemHostAlloc(&j->host, j->size, CU_MEMHOSTALLOC_PORTABLE);
	case J_FREE: j->call = "cuMemFree_v2"; return f->MemFree(j->ptr);
	case J_FREEHOST: j->call = "cuMemFreeHost"; return f->MemFreeHost(j->host);
	case J_STREAM_NEW: j->call = "cuStreamCreate"; return f->StreamCreate(&j->s, CU_STREAM_NON_BLOCKING);
	default: return CUDA_SUCCESS;
	}
}

static int job_fn(void *arg)
{
	struct job *j = arg;
	const struct axl__cuda_fns *f = j->st->f;
	switch (j->op) {
	case J_INIT:
		j->call = "cuInit";
		if ((j->r = f->Init(0)) != CUDA_SUCCESS)
			return 0;
		j->call = "cuDriverGetVersion";
		if ((j->r = f->DriverGetVersion(&j->version)) != CUDA_SUCCESS)
			return 0;
		j->call = "cuDeviceGetCount";
		j->r = f->DeviceGetCount(&j->count);
		return 0;
	case J_DEVINFO:
		j->call = "cuDeviceGet";
		if ((j->r = f->DeviceGet(&j->dev, j->count)) != CUDA_SUCCESS)
			return 0;
		j->call = "cuDeviceGetPCIBusId";
		if ((j->r = f->DeviceGetPCIBusId(j->pci, sizeof j->pci, j->dev)) != CUDA_SUCCESS)
			return 0;
		j->call = "cuDeviceGetName";
		if (f->DeviceGetName(j->name, sizeof j->name, j->dev) != CUDA_SUCCESS)
			j->name[0] = '\0';
		j->has_uuid = f->DeviceGetUuid && f->DeviceGetUuid(&j->uuid, j->dev) == CUDA_SUCCESS;
		j->r = CUDA_SUCCESS;
		return 0;
	case J_RETAIN:
		j->call = "cuDevicePrimaryCtxRetain";
		j->r = f->DevicePrimaryCtxRetain(&j->ctx, j->d->dev);
		return 0;
	case J_RELEASE:
		j->call = "cuDevicePrimaryCtxRelease";
		j->r = f->DevicePrimaryCtxRelease(j->d->dev);
		return 0;
	case J_STREAM_SYNC:
		j->call = "cuStreamSynchronize";
		j->r = f->StreamSynchronize(j->s);
		return 0;
	case J_STREAM_FREE:
		j->call = "cuStreamDestroy_v2";
		j->r = f->StreamDestroy(j->s);
		return 0;
	case J_EVENT_SYNC:
		j->call = "cuEventSynchronize";
		j->r = f->EventSynchronize(j->e);
		return 0;
	default: {
		/* the calls that need the device's context current (on this worker thread) */
		CUcontext was = NULL;
		j->call = "cuCtxSetCurrent";
		if ((j->r = push(j->d, &was)) != CUDA_SUCCESS)
			return 0;
		j->r = run_in_ctx(j);
		pop(j->d, was);
		return 0;
	}
	}
}

/* Run j under the deadline; 0, or the error (named after who and detail). */
static int run(struct cu_state *st, struct job *j, const char *who, const char *detail)
{
	j->st = st;
	j->r = CUDA_SUCCESS;
	j->call = "";
	char what[160];
	static const char *const names[] = { "cuInit",
					     "cuDeviceGet",
					     "cuDevicePrimaryCtxRetain",
					     "cuDevicePrimaryCtxRelease",
					     "cuMemGetInfo",
					     "cuMemAlloc_v2",
					     "cuMemHostAlloc",
					     "cuMemFree_v2",
					     "cuMemFreeHost",
					     "cuStreamCreate",
					     "cuStreamSynchronize",
					     "cuStreamDestroy_v2",
					     "cuEventSynchronize" };
	static_assert(sizeof names / sizeof *names == J_COUNT, "a name per job");
	snprintf(what, sizeof what, "%s on %s", names[j->op], who);
	int rc = axl__ccall_run(st->cc, job_fn, j, sizeof *j, what);
	if (rc)
		return rc;
	return j->r == CUDA_SUCCESS ? 0 : fail(st, who, j->r, j->call, detail);
}

/* d's primary context, retained on first use. */
static int dev_ctx(struct cu_dev *d)
{
	pthread_mutex_lock(&d->st->lock);
	int rc = 0;
	if (!d->ctx) {
		struct job j = { .op = J_RETAIN, .d = d };
		if ((rc = run(d->st, &j, d->label, NULL)) == 0)
			d->ctx = j.ctx;
	}
	pthread_mutex_unlock(&d->st->lock);
	return rc;
}

/* ---- open and close ----------------------------------------------------------------- */
static void cuda_close(void *state)
{
	struct cu_state *st = state;
	if (!st)
		return;
	for (int i = 0; i < st->ndev; i++)
		if (st->dev[i].ctx) {
			struct job j = { .op = J_RELEASE, .d = &st->dev[i] };
			run(st, &j, st->dev[i].label, NULL);
		}
	axl__ccall_free(st->cc);
	pthread_mutex_destroy(&st->lock);
	free(st);
}

/* "dddd:bb:dd.f" in lower case from CUDA's spelling (upper-case hex, and a domain of
 * 4 or 8 digits across driver versions); "" when it cannot be read. */
static void pci_norm(const char *in, char *out, size_t cap)
{
	unsigned dom, bus, dev, fn;
	out[0] = '\0';
	if (sscanf(in, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) == 4)
		snprintf(out, cap, "%04x:%02x:%02x.%x", dom, bus, dev, fn);
}

static int cuda_open(const axl_context *ctx, const char *path, void **state, struct axl__compute_found **found,
		     size_t *n)
{
	char why[512];
	*state = NULL;
	*found = NULL;
	*n = 0;
	const struct axl__cuda_fns *f = axl__vlib_open_ctx(&library, ctx, path, why, sizeof why, NULL);
	if (!f)
		return axl__error(AXL_ENOTSUP, "compute cuda: %s", why);
	struct cu_state *st = calloc(1, sizeof *st);
	if (!st)
		return axl__error(AXL_ENOMEM, "compute cuda: out of memory");
	st->f = f;
	st->ctx = ctx;
	pthread_mutex_init(&st->lock, NULL);
	if (!(st->cc = axl__ccall_new(NAME, ctx->vendor_timeout_ms))) {
		cuda_close(st);
		return axl__error(AXL_ENOMEM, "compute cuda: out of memory");
	}
	struct job j = { .op = J_INIT };
	int rc = run(st, &j, "compute cuda", NULL);
	if (rc) {
		cuda_close(st);
		return rc;
	}
	axl__log(ctx, AXL_LOG_INFO, "compute cuda: driver API %d.%d, %d devices", j.version / 1000,
		 j.version % 1000 / 10, j.count);
	int count = j.count < 0 ? 0 : j.count > MAXDEV ? MAXDEV : j.count;
	struct axl__compute_found *out = calloc(count ? (size_t)count : 1, sizeof *out);
	if (!out) {
		cuda_close(st);
		return axl__error(AXL_ENOMEM, "compute cuda: out of memory");
	}
	for (int i = 0; i < count; i++) {
		struct job d = { .op = J_DEVINFO, .count = i };
		char who[64];
		snprintf(who, sizeof who, "cuda device %d", i);
		if ((rc = run(st, &d, who, NULL))) {
			/* a device that cannot say where it is cannot be matched: skip it */
			axl__log(ctx, AXL_LOG_INFO, "compute cuda: %s", axl__error_text());
			if (rc == AXL_ETIMEDOUT)
				break;
			continue;
		}
		struct cu_dev *cd = &st->dev[st->ndev];
		cd->st = st;
		cd->dev = d.dev;
		cd->ordinal = i;
		struct axl__compute_found *o = &out[*n];
		pci_norm(d.pci, o->pci, sizeof o->pci);
		snprintf(cd->label, sizeof cd->label, "cuda device %d (%s)", i, o->pci[0] ? o->pci : "no PCI address");
		snprintf(o->name, sizeof o->name, "%s", d.name);
		static const unsigned char zero[16];
		if (d.has_uuid && memcmp(d.uuid.bytes, zero, 16) != 0) {
			const unsigned char *u = (const unsigned char *)d.uuid.bytes;
			snprintf(o->uuid, sizeof o->uuid,
				 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
				 u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14],
				 u[15]);
		}
		o->native = cd;
		st->ndev++;
		(*n)++;
	}
	if (rc == AXL_ETIMEDOUT) {
		free(out);
		*n = 0;
		cuda_close(st);
		return rc;
	}
	*found = out;
	*state = st;
	return 0;
}

/* ---- memory ------------------------------------------------------------------------- */
static int cuda_mem_info(void *state, void *dev, uint64_t *free_bytes, uint64_t *total_bytes)
{
	struct cu_dev *d = dev;
	int rc = dev_ctx(d);
	if (rc)
		return rc;
	struct job j = { .op = J_MEMINFO, .d = d };
	if ((rc = run(state, &j, d->label, NULL)))
		return rc;
	*free_bytes = j.free;
	*total_bytes = j.total;
	return 0;
}

static int cuda_alloc(void *state, void *dev, struct axl__cmem *m)
{
	struct cu_state *st = state;
	struct cu_dev *d = dev;
	char detail[64];
	snprintf(detail, sizeof detail, "of %" PRIu64 " bytes", m->size);
	if (m->size > SIZE_MAX)
		return axl__error(AXL_ENOMEM, "%s: %" PRIu64 " bytes do not fit in this process", d->label, m->size);
	if (m->kind == AXL_MEMORY_HOST) {
		void *p = NULL;
		if (posix_memalign(&p, 4096, (size_t)m->size))
			return axl__error(AXL_ENOMEM, "%s: allocating %" PRIu64 " bytes of host memory failed",
					  d->label, m->size);
		m->mem = m->host = p;
		return 0;
	}
	int rc = dev_ctx(d);
	if (rc)
		return rc;
	struct job j = { .op = m->kind == AXL_MEMORY_PINNED ? J_HOSTALLOC : J_ALLOC, .d = d, .size = (size_t)m->size };
	rc = run(st, &j, d->label, detail);
	if (rc == AXL_ENOMEM) {
		/* say how much there was: the device's free memory (pinned memory comes from the
		 * host, but what the driver can lock is not told) */
		char msg[512];
		snprintf(msg, sizeof msg, "%s", axl__error_text());
		uint64_t fr = 0, tot = 0;
		if (m->kind == AXL_MEMORY_DEVICE && cuda_mem_info(st, d, &fr, &tot) == 0)
			return axl__error(AXL_ENOMEM, "%s; %" PRIu64 " bytes asked, %" PRIu64 " of %" PRIu64 " free",
					  msg, m->size, fr, tot);
		return axl__error(AXL_ENOMEM, "%s; %" PRIu64 " bytes asked", msg, m->size);
	}
	if (rc)
		return rc;
	if (m->kind == AXL_MEMORY_PINNED) {
		m->mem = m->host = j.host;
	} else {
		m->mem = (void *)(uintptr_t)j.ptr;
		m->host = NULL;
	}
	return 0;
}

static void cuda_free(void *state, struct axl__cmem *m)
{
	struct cu_dev *d = m->dev;
	if (m->kind == AXL_MEMORY_HOST) {
		free(m->host);
		return;
	}
	struct job j = { .op = m->kind == AXL_MEMORY_PINNED ? J_FREEHOST : J_FREE, .d = d };
	j.ptr = (CUdeviceptr)(uintptr_t)m->mem;
	j.host = m->host;
	/* a lost device keeps its memory until its context goes (at close): nothing more
	 * to do here than say so */
	if (run(state, &j, d->label, NULL))
		axl__log(d->st->ctx, AXL_LOG_INFO, "compute cuda: %s", axl__error_text());
}

/* ---- queues ------------------------------------------------------------------------- */
static int cuda_queue_create(void *state, void *dev, void **q)
{
	struct cu_dev *d = dev;
	int rc = dev_ctx(d);
	if (rc)
		return rc;
	struct cu_queue *cq = calloc(1, sizeof *cq);
	if (!cq)
		return axl__error(AXL_ENOMEM, "compute cuda: out of memory");
	struct job j = { .op = J_STREAM_NEW, .d = d };
	if ((rc = run(state, &j, d->label, NULL))) {
		free(cq);
		return rc;
	}
	cq->d = d;
	cq->s = j.s;
	*q = cq;
	return 0;
}

static void cuda_queue_free(void *state, void *q)
{
	struct cu_queue *cq = q;
	struct job j = { .op = J_STREAM_FREE, .d = cq->d, .s = cq->s };
	if (run(state, &j, cq->d->label, NULL))
		axl__log(cq->d->st->ctx, AXL_LOG_INFO, "compute cuda: %s", axl__error_text());
	free(cq);
}

static int cuda_queue_sync(void *state, void *q)
{
	struct cu_queue *cq = q;
	struct job j = { .op = J_STREAM_SYNC, .d = cq->d, .s = cq->s };
	return run(state, &j, cq->d->label, NULL);
}

/* ---- copies and fills --------------------------------------------------------------- */
static CUdeviceptr dptr(const struct axl__cmem *m, uint64_t off)
{
	return (CUdeviceptr)(uintptr_t)m->mem + off;
}

static int cuda_copy(void *state, void *q, const struct axl__cmem *dst, uint64_t dst_offset,
		     const struct axl__cmem *src, uint64_t src_offset, uint64_t size, axl_copy_path *path)
{
	struct cu_state *st = state;
	struct cu_queue *cq = q;
	const struct axl__cuda_fns *f = st->f;
	char detail[96];
	snprintf(detail, sizeof detail, "of %" PRIu64 " bytes", size);
	if (dst->host && src->host) {
		/* host to host in the queue's order: what is queued before it finishes first
		 * (CUDA has no host-to-host enqueue without unified memory of the host's own) */
		*path = AXL_COPY_PATH_HOST;
		int rc = cuda_queue_sync(st, q);
		if (rc)
			return rc;
		memcpy((unsigned char *)dst->host + dst_offset, (const unsigned char *)src->host + src_offset,
		       (size_t)size);
		return 0;
	}
	*path = AXL_COPY_PATH_DEVICE;
	CUcontext was = NULL;
	CUresult r = push(cq->d, &was);
	if (r != CUDA_SUCCESS)
		return fail(st, cq->d->label, r, "cuCtxSetCurrent", NULL);
	const char *call;
	if (!dst->host && src->host) {
		call = "cuMemcpyHtoDAsync_v2";
		r = f->MemcpyHtoDAsync(dptr(dst, dst_offset), (const unsigned char *)src->host + src_offset,
				       (size_t)size, cq->s);
	} else if (dst->host) {
		call = "cuMemcpyDtoHAsync_v2";
		r = f->MemcpyDtoHAsync((unsigned char *)dst->host + dst_offset, dptr(src, src_offset), (size_t)size,
				       cq->s);
	} else {
		call = "cuMemcpyDtoDAsync_v2";
		r = f->MemcpyDtoDAsync(dptr(dst, dst_offset), dptr(src, src_offset), (size_t)size, cq->s);
	}
	pop(cq->d, was);
	return r == CUDA_SUCCESS ? 0 : fail(st, cq->d->label, r, call, detail);
}

/* Peer access from a's context to b's memory, enabled once: 0, AXL_ENOTSUP when the two
 * cannot reach each other, or the error. Called with a's context current. */
static int peer_enable(struct cu_state *st, struct cu_dev *a, struct cu_dev *b)
{
	int rc = dev_ctx(b);
	if (rc)
		return rc;
	pthread_mutex_lock(&st->lock);
	unsigned char *p = &a->peer[b - st->dev];
	if (*p == 0) {
		int can = 0;
		CUresult r = st->f->DeviceCanAccessPeer(&can, a->dev, b->dev);
		if (r != CUDA_SUCCESS) {
			pthread_mutex_unlock(&st->lock);
			return fail(st, a->label, r, "cuDeviceCanAccessPeer", b->label);
		}
		if (can) {
			r = st->f->CtxEnablePeerAccess(b->ctx, 0);
			if (r == CUDA_SUCCESS || r == CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED)
				*p = 1;
			else if (r == CUDA_ERROR_PEER_ACCESS_UNSUPPORTED)
				*p = 2;
			else {
				pthread_mutex_unlock(&st->lock);
				return fail(st, a->label, r, "cuCtxEnablePeerAccess", b->label);
			}
		} else {
			*p = 2;
		}
	}
	rc = *p == 1 ? 0 : AXL_ENOTSUP;
	pthread_mutex_unlock(&st->lock);
	if (rc)
		return axl__error(rc, "%s cannot reach %s peer to peer", a->label, b->label);
	return 0;
}

static int cuda_peer_copy(void *state, void *q, const struct axl__cmem *dst, uint64_t dst_offset,
			  const struct axl__cmem *src, uint64_t src_offset, uint64_t size)
{
	struct cu_state *st = state;
	struct cu_queue *cq = q;
	struct cu_dev *dd = dst->dev, *sd = src->dev;
	struct cu_dev *other = cq->d == dd ? sd : dd;
	char detail[160];
	snprintf(detail, sizeof detail, "of %" PRIu64 " bytes from %s to %s", size, sd->label, dd->label);
	CUcontext was = NULL;
	CUresult r = push(cq->d, &was);
	if (r != CUDA_SUCCESS)
		return fail(st, cq->d->label, r, "cuCtxSetCurrent", NULL);
	int rc = peer_enable(st, cq->d, other);
	if (rc == 0) {
		const char *call;
		if (st->f->MemcpyPeerAsync) {
			call = "cuMemcpyPeerAsync";
			r = st->f->MemcpyPeerAsync(dptr(dst, dst_offset), dd->ctx, dptr(src, src_offset), sd->ctx,
						   (size_t)size, cq->s);
		} else {
			/* a driver before cuMemcpyPeerAsync: with unified addressing (every
			 * 64-bit platform) an address says its device, and a device-to-device
			 * copy may span two */
			call = "cuMemcpyDtoDAsync_v2";
			r = st->f->MemcpyDtoDAsync(dptr(dst, dst_offset), dptr(src, src_offset), (size_t)size, cq->s);
		}
		if (r != CUDA_SUCCESS)
			rc = fail(st, cq->d->label, r, call, detail);
	}
	pop(cq->d, was);
	return rc;
}

static int cuda_fill(void *state, void *q, const struct axl__cmem *dst, uint64_t offset, uint64_t size, uint8_t value)
{
	struct cu_state *st = state;
	struct cu_queue *cq = q;
	if (dst->host) {
		/* host memory, in the queue's order (as for a host-to-host copy) */
		int rc = cuda_queue_sync(st, q);
		if (rc)
			return rc;
		memset((unsigned char *)dst->host + offset, value, (size_t)size);
		return 0;
	}
	char detail[64];
	snprintf(detail, sizeof detail, "of %" PRIu64 " bytes", size);
	CUcontext was = NULL;
	CUresult r = push(cq->d, &was);
	if (r != CUDA_SUCCESS)
		return fail(st, cq->d->label, r, "cuCtxSetCurrent", NULL);
	r = st->f->MemsetD8Async(dptr(dst, offset), value, (size_t)size, cq->s);
	pop(cq->d, was);
	return r == CUDA_SUCCESS ? 0 : fail(st, cq->d->label, r, "cuMemsetD8Async", detail);
}

/* ---- events ------------------------------------------------------------------------- */
static int cuda_event_record(void *state, void *q, void **ev)
{
	struct cu_state *st = state;
	struct cu_queue *cq = q;
	struct cu_event *ce = calloc(1, sizeof *ce);
	if (!ce)
		return axl__error(AXL_ENOMEM, "compute cuda: out of memory");
	CUcontext was = NULL;
	CUresult r = push(cq->d, &was);
	const char *call = "cuCtxSetCurrent";
	if (r == CUDA_SUCCESS) {
		call = "cuEventCreate";
		r = st->f->EventCreate(&ce->e, CU_EVENT_DEFAULT);
		if (r == CUDA_SUCCESS) {
			call = "cuEventRecord";
			if ((r = st->f->EventRecord(ce->e, cq->s)) != CUDA_SUCCESS)
				st->f->EventDestroy(ce->e);
		}
		pop(cq->d, was);
	}
	if (r != CUDA_SUCCESS) {
		free(ce);
		return fail(st, cq->d->label, r, call, NULL);
	}
	ce->d = cq->d;
	*ev = ce;
	return 0;
}

static int cuda_event_wait(void *state, void *ev)
{
	struct cu_event *ce = ev;
	struct job j = { .op = J_EVENT_SYNC, .d = ce->d, .e = ce->e };
	return run(state, &j, ce->d->label, NULL);
}

static int cuda_event_elapsed(void *state, void *a, void *b, int64_t *ns)
{
	struct cu_state *st = state;
	struct cu_event *ea = a, *eb = b;
	float ms = 0;
	CUresult r = st->f->EventElapsedTime(&ms, ea->e, eb->e);
	if (r != CUDA_SUCCESS)
		return fail(st, ea->d->label, r, "cuEventElapsedTime", NULL);
	/* CUDA's resolution is about half a microsecond */
	*ns = (int64_t)((double)ms * 1e6);
	return 0;
}

static void cuda_event_free(void *state, void *ev)
{
	struct cu_state *st = state;
	struct cu_event *ce = ev;
	st->f->EventDestroy(ce->e);
	free(ce);
}

const struct axl__compute_ops axl__compute_cuda = {
	.name = NAME,
	.open = cuda_open,
	.close = cuda_close,
	.mem_info = cuda_mem_info,
	.alloc = cuda_alloc,
	.free = cuda_free,
	.queue_create = cuda_queue_create,
	.queue_free = cuda_queue_free,
	.queue_sync = cuda_queue_sync,
	.copy = cuda_copy,
	.peer_copy = cuda_peer_copy,
	.fill = cuda_fill,
	.event_record = cuda_event_record,
	.event_wait = cuda_event_wait,
	.event_elapsed = cuda_event_elapsed,
	.event_free = cuda_event_free,
};
