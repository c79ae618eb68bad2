/* SPDX-License-Identifier: MIT */
/*
 * The hip compute backend: AMD GPUs through the HIP runtime (libamdhip64.so, loaded with
 * dlopen, never linked). Device memory from hipMalloc, pinned memory from hipHostMalloc,
 * a queue is a HIP stream, copies and fills are hipMemcpyAsync / hipMemcpyPeerAsync /
 * hipMemsetAsync on it, events are HIP events. Devices are matched to the inventory by
 * their PCI address (hipDeviceGetPCIBusId), else UUID.
 *
 * HIP's current device is per thread: every call that depends on it is preceded by
 * hipSetDevice on the thread that makes it, a ccall worker included.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccall.h"
#include "compute_impl.h"
#include "hip_api.h"
#include "amd_runtime.h"
#include "vlib.h"

/* ---- loading ------------------------------------------------------------------------ */

#define F(member) offsetof(struct axl__hip_fns, member)
static const struct axl__vsym symbols[] = {
	{F(Init), {"hipInit"}},
	{F(DriverGetVersion), {"hipDriverGetVersion"}},
	{F(RuntimeGetVersion), {"hipRuntimeGetVersion"}},
	{F(GetDeviceCount), {"hipGetDeviceCount"}},
	{F(SetDevice), {"hipSetDevice"}},
	{F(DeviceGetName), {"hipDeviceGetName"}},
	{F(DeviceGetPCIBusId), {"hipDeviceGetPCIBusId"}},
	{F(DeviceGetUuid), {"hipDeviceGetUuid"}},
	{F(Malloc), {"hipMalloc"}},
	{F(Free), {"hipFree"}},
	{F(HostMalloc), {"hipHostMalloc"}},
	{F(HostFree), {"hipHostFree"}},
	{F(MemGetInfo), {"hipMemGetInfo"}},
	{F(MemcpyAsync), {"hipMemcpyAsync"}},
	{F(MemcpyPeerAsync), {"hipMemcpyPeerAsync"}},
	{F(MemsetAsync), {"hipMemsetAsync"}},
	{F(StreamCreate), {"hipStreamCreate"}},
	{F(StreamDestroy), {"hipStreamDestroy"}},
	{F(StreamSynchronize), {"hipStreamSynchronize"}},
	{F(EventCreate), {"hipEventCreate"}},
	{F(EventRecord), {"hipEventRecord"}},
	{F(EventSynchronize), {"hipEventSynchronize"}},
	{F(EventElapsedTime), {"hipEventElapsedTime"}},
	{F(EventDestroy), {"hipEventDestroy"}},
	{F(DeviceCanAccessPeer), {"hipDeviceCanAccessPeer"}},
	{F(DeviceEnablePeerAccess), {"hipDeviceEnablePeerAccess"}},
	{F(GetErrorName), {"hipGetErrorName"}},
};
#undef F

static struct axl__vlib_cache cache = AXL__VLIB_CACHE_INIT;

/* Everything but the optional calls (hipDeviceGetUuid, hipMemcpyPeerAsync, peer access,
 * versions, hipGetErrorName: an old runtime may lack them, and each has a fallback). */
static bool usable(const void *table, const char *name, char *why, size_t cap)
{
	const struct axl__hip_fns *f = table;
	if (f->Init && f->GetDeviceCount && f->SetDevice && f->DeviceGetPCIBusId && f->DeviceGetName && f->Malloc &&
	    f->Free && f->HostMalloc && f->HostFree && f->MemGetInfo && f->MemcpyAsync && f->MemsetAsync &&
	    f->StreamCreate && f->StreamDestroy && f->StreamSynchronize && f->EventCreate && f->EventRecord &&
	    f->EventSynchronize && f->EventElapsedTime && f->EventDestroy)
		return true;
	snprintf(why, cap, "%s lacks a HIP call axl needs (hipInit, hipMalloc, hipMemcpyAsync, hipStreamCreate, ...)",
		 name);
	return false;
}

/* ROCm 6's and ROCm 5's SONAMEs, as a program linked against HIP loads it (the runtime
 * packages ship these), then the development link (libamdhip64-dev, /opt/rocm/lib): a
 * newer release's runtime only where its development files point at it */
static const char *const sonames[] = {"libamdhip64.so.6", "libamdhip64.so.5", "libamdhip64.so"};
static const struct axl__vlibrary library = {
	sonames, 3, symbols, sizeof symbols / sizeof *symbols, sizeof(struct axl__hip_fns), usable, &cache,
	axl__amd_gpu_lib_dirs};

/* ---- state -------------------------------------------------------------------------- */

#define MAX_DEV 64

struct hip_dev {
	int ordinal;
	char id[48]; /* "hip device N (dddd:bb:dd.f)", for messages */
};

struct hip_state {
	const struct axl__hip_fns *f;
	struct axl__ccall *cc;
	int n;
	struct hip_dev dev[MAX_DEV];
	pthread_mutex_t peer_lock;
	bool peer_on[MAX_DEV][MAX_DEV]; /* hipDeviceEnablePeerAccess(to) done from device from */
};

struct hip_queue {
	struct hip_dev *dev;
	hipStream_t s;
};

struct hip_event {
	struct hip_dev *dev;
	hipEvent_t e;
};

static const char *ename(const struct hip_state *st, hipError_t rc)
{
	const char *n = st->f->GetErrorName ? st->f->GetErrorName(rc) : NULL;
	return n ? n : "hipError";
}

/* HIP has no "device lost" code: these are the ones a device that stopped answering
 * leaves behind (the sticky errors of a faulted queue, and no device at all after
 * start-up), after which nothing on it works again. (CUDA's hardware exceptions, 714-718,
 * have no HIP codes: hip_runtime_api.h has none of them, 5.2 to 6.2.) */
static bool lost(hipError_t rc)
{
	switch (rc) {
	case hipErrorNoDevice:
	case hipErrorECCNotCorrectable:
	case hipErrorIllegalAddress:
	case hipErrorAssert:
	case hipErrorLaunchFailure: return true;
	default: return false;
	}
}

/* A failed call as an axl error: the device, the call, what it was asked (extra). */
static int fail(const struct hip_state *st, const struct hip_dev *d, const char *call, hipError_t rc,
		const char *extra)
{
	int code = lost(rc) ? AXL_EDEVLOST : rc == hipErrorOutOfMemory ? AXL_ENOMEM : AXL_EBACKEND;
	return axl__error(code, "compute hip: %s on %s%s%s: %s (%d)%s", call, d ? d->id : "the HIP runtime",
			  extra && *extra ? ", " : "", extra ? extra : "", ename(st, rc), (int)rc,
			  code == AXL_EDEVLOST ? ": the device is lost" : "");
}

/* ---- blocking calls, on ccall workers ---------------------------------------------- */

enum { OP_MALLOC, OP_FREE, OP_HOST_MALLOC, OP_HOST_FREE, OP_MEMINFO, OP_STREAM_CREATE, OP_STREAM_DESTROY,
       OP_STREAM_SYNC, OP_EVENT_SYNC, OP_PEER_ENABLE };

/* One blocking call; copied to the worker and back, so it holds no pointer into itself. */
struct job {
	const struct axl__hip_fns *f;
	int op, ordinal, peer;
	void *ptr;
	size_t size, free_bytes, total_bytes;
	void *handle;
	hipError_t rc;
	const char *call; /* the call that failed */
};

static int run_job(void *arg)
{
	struct job *j = arg;
	const struct axl__hip_fns *f = j->f;
	hipError_t rc = hipSuccess;
	/* the worker's own current device, for the calls that use it */
	if (j->op == OP_MALLOC || j->op == OP_HOST_MALLOC || j->op == OP_MEMINFO || j->op == OP_STREAM_CREATE ||
	    j->op == OP_PEER_ENABLE || j->op == OP_FREE) {
		j->call = "hipSetDevice";
		if ((rc = f->SetDevice(j->ordinal)) != hipSuccess)
			goto out;
	}
	switch (j->op) {
	case OP_MALLOC:
		j->call = "hipMalloc";
		rc = f->Malloc(&j->ptr, j->size);
		break;
	case OP_FREE:
		j->call = "hipFree";
		rc = f->Free(j->ptr);
		break;
	case OP_HOST_MALLOC:
		j->call = "hipHostMalloc";
		rc = f->HostMalloc(&j->ptr, j->size, hipHostMallocDefault);
		break;
	case OP_HOST_FREE:
		j->call = "hipHostFree";
		rc = f->HostFree(j->ptr);
		break;
	case OP_MEMINFO:
		j->call = "hipMemGetInfo";
		rc = f->MemGetInfo(&j->free_bytes, &j->total_bytes);
		break;
	case OP_STREAM_CREATE:
		j->call = "hipStreamCreate";
		rc = f->StreamCreate((hipStream_t *)&j->handle);
		break;
	case OP_STREAM_DESTROY:
		j->call = "hipStreamDestroy";
		rc = f->StreamDestroy((hipStream_t)j->handle);
		break;
	case OP_STREAM_SYNC:
		j->call = "hipStreamSynchronize";
		rc = f->StreamSynchronize((hipStream_t)j->handle);
		break;
	case OP_EVENT_SYNC:
		j->call = "hipEventSynchronize";
		rc = f->EventSynchronize((hipEvent_t)j->handle);
		break;
	case OP_PEER_ENABLE:
		j->call = "hipDeviceEnablePeerAccess";
		rc = f->DeviceEnablePeerAccess(j->peer, 0);
		if (rc == hipErrorPeerAccessAlreadyEnabled) /* by someone else in this process */
			rc = hipSuccess;
		break;
	}
out:
	j->rc = rc;
	return 0;
}

/* Run j on a worker under the deadline: 0, AXL_ETIMEDOUT (said), or the failed call's
 * code (j->rc, j->call) left to the caller to word. */
static int run(const struct hip_state *st, struct job *j, const struct hip_dev *d)
{
	static const char *const names[] = {"hipMalloc", "hipFree", "hipHostMalloc", "hipHostFree",
					    "hipMemGetInfo", "hipStreamCreate", "hipStreamDestroy",
					    "hipStreamSynchronize", "hipEventSynchronize", "hipDeviceEnablePeerAccess"};
	char what[96];
	snprintf(what, sizeof what, "%s on %s", names[j->op], d->id);
	j->f = st->f;
	j->ordinal = d->ordinal;
	j->rc = hipSuccess;
	j->call = NULL;
	return axl__ccall_run(st->cc, run_job, j, sizeof *j, what);
}

/* ---- opening ------------------------------------------------------------------------ */

/* hipInit and the device list: on a worker, as HIP may block starting up. The found
 * array is the caller's heap memory, never freed when the worker is abandoned. */
struct open_job {
	const struct axl__hip_fns *f;
	struct axl__compute_found *found;
	int n;
	hipError_t rc;
	const char *call;
};

static int run_open(void *arg)
{
	struct open_job *j = arg;
	const struct axl__hip_fns *f = j->f;
	j->call = "hipInit";
	if ((j->rc = f->Init(0)) != hipSuccess)
		return 0;
	int n = 0;
	j->call = "hipGetDeviceCount";
	if ((j->rc = f->GetDeviceCount(&n)) != hipSuccess)
		return 0;
	j->n = n < 0 ? 0 : n > MAX_DEV ? MAX_DEV : n;
	for (int i = 0; i < j->n; i++) {
		struct axl__compute_found *x = &j->found[i];
		char bus[sizeof x->pci];
		/* a device whose address HIP does not say is matched by UUID alone */
		if (f->DeviceGetPCIBusId(bus, (int)sizeof bus, i) == hipSuccess) {
			bus[sizeof bus - 1] = '\0';
			snprintf(x->pci, sizeof x->pci, "%s", bus);
		}
		if (f->DeviceGetName(x->name, (int)sizeof x->name, i) != hipSuccess)
			x->name[0] = '\0';
		x->name[sizeof x->name - 1] = '\0';
		/* ROCm's UUID is the GPU's unique id as 16 ASCII hex digits, which the
		 * inventory spells GPU-<unique_id>; anything else is not a UUID we can compare */
		hipUUID u;
		if (f->DeviceGetUuid && f->DeviceGetUuid(&u, i) == hipSuccess) {
			bool hex = true;
			for (int k = 0; k < 16; k++)
				hex &= (u.bytes[k] >= '0' && u.bytes[k] <= '9') ||
				       (u.bytes[k] >= 'a' && u.bytes[k] <= 'f') ||
				       (u.bytes[k] >= 'A' && u.bytes[k] <= 'F');
			if (hex && strspn(u.bytes, "0") < 16) /* all zeros: none */
				snprintf(x->uuid, sizeof x->uuid, "GPU-%.16s", u.bytes);
		}
	}
	return 0;
}

static void hip_close(void *state)
{
	struct hip_state *st = state;
	if (!st)
		return;
	axl__ccall_free(st->cc);
	pthread_mutex_destroy(&st->peer_lock);
	free(st);
}

static int hip_open(const axl_context *ctx, const char *lib, void **state, struct axl__compute_found **found,
		    size_t *n)
{
	char why[512];
	const struct axl__hip_fns *f = axl__vlib_open_ctx(&library, ctx, lib, why, sizeof why, NULL);
	if (!f)
		return axl__error(AXL_ENOTSUP, "compute hip: %s", why);
	struct hip_state *st = calloc(1, sizeof *st);
	struct axl__compute_found *fd = calloc(MAX_DEV, sizeof *fd);
	if (!st || !fd) {
		free(st);
		free(fd);
		return axl__error(AXL_ENOMEM, "compute hip: out of memory");
	}
	st->f = f;
	pthread_mutex_init(&st->peer_lock, NULL);
	if (!(st->cc = axl__ccall_new("hip", ctx->vendor_timeout_ms))) {
		hip_close(st);
		free(fd);
		return axl__error(AXL_ENOMEM, "compute hip: out of memory");
	}
	struct open_job j = {f, fd, 0, hipSuccess, NULL};
	int rc = axl__ccall_run(st->cc, run_open, &j, sizeof j, "hipInit and the device list");
	if (rc) {
		/* fd stays: an abandoned worker may still write into it */
		hip_close(st);
		return rc;
	}
	if (j.rc != hipSuccess) {
		rc = fail(st, NULL, j.call, j.rc, NULL);
		if (j.rc == hipErrorNoDevice)
			rc = axl__error(AXL_ENOENT, "compute hip: %s: no device (hipErrorNoDevice)", j.call);
		hip_close(st);
		free(fd);
		return rc;
	}
	int drv = 0, rt = 0;
	if (f->DriverGetVersion)
		f->DriverGetVersion(&drv);
	if (f->RuntimeGetVersion)
		f->RuntimeGetVersion(&rt);
	axl__log(ctx, AXL_LOG_INFO, "compute hip: runtime %d, driver %d, %d device(s)%s%s", rt, drv, j.n,
		 f->MemcpyPeerAsync ? "" : "; no hipMemcpyPeerAsync: copies between GPUs are staged",
		 f->DeviceGetUuid ? "" : "; no hipDeviceGetUuid: matched by PCI address only");
	st->n = j.n;
	for (int i = 0; i < j.n; i++) {
		st->dev[i].ordinal = i;
		snprintf(st->dev[i].id, sizeof st->dev[i].id, "hip device %d%s%s%s", i, fd[i].pci[0] ? " (" : "",
			 fd[i].pci, fd[i].pci[0] ? ")" : "");
		fd[i].native = &st->dev[i];
	}
	*state = st;
	*found = fd;
	*n = (size_t)j.n;
	return 0;
}

/* ---- memory ------------------------------------------------------------------------- */

static int hip_mem_info(void *state, void *dev, uint64_t *free_bytes, uint64_t *total_bytes)
{
	struct hip_state *st = state;
	struct hip_dev *d = dev;
	struct job j = {.op = OP_MEMINFO};
	int rc = run(st, &j, d);
	if (rc)
		return rc;
	if (j.rc != hipSuccess)
		return fail(st, d, j.call, j.rc, NULL);
	*free_bytes = j.free_bytes;
	*total_bytes = j.total_bytes;
	return 0;
}

static int hip_alloc(void *state, void *dev, struct axl__cmem *m)
{
	struct hip_state *st = state;
	struct hip_dev *d = dev;
	if (m->size > SIZE_MAX)
		return axl__error(AXL_ENOMEM,
				  "compute hip: %" PRIu64 " bytes on %s: more than this process can address", m->size,
				  d->id);
	if (m->kind == AXL_MEMORY_HOST) {
		/* plain host memory: HIP is not needed for it */
		void *p = NULL;
		if (posix_memalign(&p, m->size >= 4096 ? 4096 : 64, (size_t)m->size))
			return axl__error(AXL_ENOMEM, "compute hip: %" PRIu64 " bytes of host memory: out of memory",
					  m->size);
		m->mem = m->host = p;
		return 0;
	}
	bool pinned = m->kind == AXL_MEMORY_PINNED;
	struct job j = {.op = pinned ? OP_HOST_MALLOC : OP_MALLOC, .size = (size_t)m->size};
	int rc = run(st, &j, d);
	if (rc)
		return rc;
	if (j.rc == hipErrorOutOfMemory && !pinned) {
		uint64_t fr = 0, tot = 0;
		if (hip_mem_info(st, d, &fr, &tot))
			return axl__error(AXL_ENOMEM,
					  "compute hip: hipMalloc of %" PRIu64 " bytes on %s: out of memory", m->size,
					  d->id);
		return axl__error(AXL_ENOMEM,
				  "compute hip: hipMalloc of %" PRIu64 " bytes on %s: out of memory (%" PRIu64
				  " bytes free of %" PRIu64 ")",
				  m->size, d->id, fr, tot);
	}
	if (j.rc != hipSuccess) {
		char extra[64];
		snprintf(extra, sizeof extra, "%" PRIu64 " bytes", m->size);
		return fail(st, d, j.call, j.rc, extra);
	}
	m->mem = j.ptr;
	m->host = pinned ? j.ptr : NULL;
	return 0;
}

static void hip_free(void *state, struct axl__cmem *m)
{
	struct hip_state *st = state;
	if (m->kind == AXL_MEMORY_HOST) {
		free(m->mem);
		return;
	}
	/* a lost device's memory is released all the same (hipFree says the device is lost) */
	struct job j = {.op = m->kind == AXL_MEMORY_PINNED ? OP_HOST_FREE : OP_FREE, .ptr = m->mem};
	run(st, &j, m->dev);
}

/* ---- queues ------------------------------------------------------------------------- */

static int hip_queue_create(void *state, void *dev, void **q)
{
	struct hip_state *st = state;
	struct hip_dev *d = dev;
	struct hip_queue *hq = calloc(1, sizeof *hq);
	if (!hq)
		return axl__error(AXL_ENOMEM, "compute hip: out of memory");
	struct job j = {.op = OP_STREAM_CREATE};
	int rc = run(st, &j, d);
	if (!rc && j.rc != hipSuccess)
		rc = fail(st, d, j.call, j.rc, NULL);
	if (rc) {
		free(hq);
		return rc;
	}
	hq->dev = d;
	hq->s = j.handle;
	*q = hq;
	return 0;
}

static void hip_queue_free(void *state, void *q)
{
	struct hip_queue *hq = q;
	struct job j = {.op = OP_STREAM_DESTROY, .handle = hq->s};
	run(state, &j, hq->dev);
	free(hq);
}

static int hip_queue_sync(void *state, void *q)
{
	struct hip_state *st = state;
	struct hip_queue *hq = q;
	struct job j = {.op = OP_STREAM_SYNC, .handle = hq->s};
	int rc = run(st, &j, hq->dev);
	if (!rc && j.rc != hipSuccess)
		rc = fail(st, hq->dev, j.call, j.rc, NULL);
	return rc;
}

/* ---- copies and fills ---------------------------------------------------------------- */

static void *at(const struct axl__cmem *m, uint64_t off)
{
	return (char *)(m->host ? m->host : m->mem) + off;
}

static int hip_copy(void *state, void *q, const struct axl__cmem *dst, uint64_t dst_offset, const struct axl__cmem *src,
		    uint64_t src_offset, uint64_t size, axl_copy_path *path)
{
	struct hip_state *st = state;
	struct hip_queue *hq = q;
	/* host memory (of any backend) is plain host memory to HIP; device memory is the
	 * queue's device's */
	hipMemcpyKind kind = dst->host ? (src->host ? hipMemcpyHostToHost : hipMemcpyDeviceToHost)
			     : (src->host ? hipMemcpyHostToDevice : hipMemcpyDeviceToDevice);
	hipError_t rc = st->f->MemcpyAsync(at(dst, dst_offset), at(src, src_offset), (size_t)size, kind, hq->s);
	if (rc != hipSuccess) {
		static const char *const kinds[] = {"host to host", "host to device", "device to host",
						    "device to device"};
		char extra[128];
		snprintf(extra, sizeof extra, "%s, %" PRIu64 " bytes", kinds[kind], size);
		return fail(st, hq->dev, "hipMemcpyAsync", rc, extra);
	}
	*path = kind == hipMemcpyHostToHost ? AXL_COPY_PATH_HOST : AXL_COPY_PATH_DEVICE;
	return 0;
}

/* Peer access from the queue's device to the other, enabled once per pair. */
static int enable_peer(struct hip_state *st, struct hip_dev *from, struct hip_dev *to)
{
	pthread_mutex_lock(&st->peer_lock);
	int rc = 0;
	if (!st->peer_on[from->ordinal][to->ordinal]) {
		struct job j = {.op = OP_PEER_ENABLE, .peer = to->ordinal};
		rc = run(st, &j, from);
		if (!rc && j.rc != hipSuccess) {
			char extra[64];
			snprintf(extra, sizeof extra, "to hip device %d", to->ordinal);
			rc = fail(st, from, j.call, j.rc, extra);
		}
		if (!rc)
			st->peer_on[from->ordinal][to->ordinal] = true;
	}
	pthread_mutex_unlock(&st->peer_lock);
	return rc;
}

static int hip_peer_copy(void *state, void *q, const struct axl__cmem *dst, uint64_t dst_offset,
			 const struct axl__cmem *src, uint64_t src_offset, uint64_t size)
{
	struct hip_state *st = state;
	struct hip_queue *hq = q;
	struct hip_dev *dd = dst->dev, *sd = src->dev;
	struct hip_dev *other = hq->dev == dd ? sd : dd;
	/* an old runtime without hipMemcpyPeerAsync or peer queries: the core stages */
	if (!st->f->MemcpyPeerAsync || !st->f->DeviceCanAccessPeer || !st->f->DeviceEnablePeerAccess)
		return AXL_ENOTSUP;
	int can = 0;
	hipError_t hr = st->f->DeviceCanAccessPeer(&can, hq->dev->ordinal, other->ordinal);
	if (hr != hipSuccess) {
		char extra[64];
		snprintf(extra, sizeof extra, "with hip device %d", other->ordinal);
		return fail(st, hq->dev, "hipDeviceCanAccessPeer", hr, extra);
	}
	if (!can)
		return AXL_ENOTSUP;
	int rc = enable_peer(st, hq->dev, other);
	if (rc)
		return rc;
	hr = st->f->MemcpyPeerAsync(at(dst, dst_offset), dd->ordinal, at(src, src_offset), sd->ordinal, (size_t)size,
				    hq->s);
	if (hr != hipSuccess) {
		char extra[96];
		snprintf(extra, sizeof extra, "%" PRIu64 " bytes from hip device %d to hip device %d", size,
			 sd->ordinal, dd->ordinal);
		return fail(st, hq->dev, "hipMemcpyPeerAsync", hr, extra);
	}
	return 0;
}

static int hip_fill(void *state, void *q, const struct axl__cmem *dst, uint64_t offset, uint64_t size, uint8_t value)
{
	struct hip_state *st = state;
	struct hip_queue *hq = q;
	if (dst->host) {
		/* hipMemsetAsync takes device memory only: host memory is filled here, in the
		 * queue's order, once what the queue holds is done */
		int rc = hip_queue_sync(st, hq);
		if (rc)
			return rc;
		memset(at(dst, offset), value, (size_t)size);
		return 0;
	}
	hipError_t rc = st->f->MemsetAsync(at(dst, offset), value, (size_t)size, hq->s);
	if (rc != hipSuccess) {
		char extra[64];
		snprintf(extra, sizeof extra, "%" PRIu64 " bytes", size);
		return fail(st, hq->dev, "hipMemsetAsync", rc, extra);
	}
	return 0;
}

/* ---- events ------------------------------------------------------------------------- */

static int hip_event_record(void *state, void *q, void **ev)
{
	struct hip_state *st = state;
	struct hip_queue *hq = q;
	struct hip_event *e = calloc(1, sizeof *e);
	if (!e)
		return axl__error(AXL_ENOMEM, "compute hip: out of memory");
	e->dev = hq->dev;
	/* an event belongs to the current device: this thread's is set first */
	const char *call = "hipSetDevice";
	hipError_t rc = st->f->SetDevice(hq->dev->ordinal);
	if (rc == hipSuccess) {
		call = "hipEventCreate";
		rc = st->f->EventCreate(&e->e);
	}
	if (rc == hipSuccess) {
		call = "hipEventRecord";
		rc = st->f->EventRecord(e->e, hq->s);
		if (rc != hipSuccess)
			st->f->EventDestroy(e->e);
	}
	if (rc != hipSuccess) {
		free(e);
		return fail(st, hq->dev, call, rc, NULL);
	}
	*ev = e;
	return 0;
}

static int hip_event_wait(void *state, void *ev)
{
	struct hip_state *st = state;
	struct hip_event *e = ev;
	struct job j = {.op = OP_EVENT_SYNC, .handle = e->e};
	int rc = run(st, &j, e->dev);
	if (!rc && j.rc != hipSuccess)
		rc = fail(st, e->dev, j.call, j.rc, NULL);
	return rc;
}

static int hip_event_elapsed(void *state, void *a, void *b, int64_t *ns)
{
	struct hip_state *st = state;
	struct hip_event *ea = a, *eb = b;
	float ms = 0;
	hipError_t rc = st->f->EventElapsedTime(&ms, ea->e, eb->e);
	if (rc != hipSuccess)
		return fail(st, ea->dev, "hipEventElapsedTime", rc, NULL);
	/* milliseconds as a float: about a microsecond's resolution over seconds */
	*ns = (int64_t)llround((double)ms * 1e6);
	return 0;
}

static void hip_event_free(void *state, void *ev)
{
	struct hip_state *st = state;
	struct hip_event *e = ev;
	st->f->EventDestroy(e->e);
	free(e);
}

const struct axl__compute_ops axl__compute_hip = {
	.name = "hip",
	.open = hip_open,
	.close = hip_close,
	.mem_info = hip_mem_info,
	.alloc = hip_alloc,
	.free = hip_free,
	.queue_create = hip_queue_create,
	.queue_free = hip_queue_free,
	.queue_sync = hip_queue_sync,
	.copy = hip_copy,
	.peer_copy = hip_peer_copy,
	.fill = hip_fill,
	.event_record = hip_event_record,
	.event_wait = hip_event_wait,
	.event_elapsed = hip_event_elapsed,
	.event_free = hip_event_free,
};
