/* SPDX-License-Identifier: MIT */
/*
 * The opencl backend: any device an OpenCL platform lists, through the Khronos ICD loader
 * (libOpenCL.so.1, loaded with dlopen, never linked), with OpenCL 1.2 calls only. It is
 * vendor-neutral: it knows what OpenCL itself reports (a device's type, cl_khr_pci_bus_info,
 * cl_khr_device_uuid) and nothing of any vendor's extensions. A CPU device (PoCL) is a
 * software device (compute_impl.h): driven only when "opencl" is asked for by name.
 *
 * Each device gets its own cl_context and one "service" queue (mapping pinned memory,
 * making allocations real). Choices the API leaves to a backend (docs/compute.md):
 *  - Host memory (m->host != NULL, pinned memory included, whoever allocated it) is
 *    reached with clEnqueueWriteBuffer/ReadBuffer from its host pointer. A pinned buffer
 *    is a persistently mapped CL_MEM_ALLOC_HOST_PTR buffer; it is not used as a cl_mem in
 *    copies because the specification leaves writing into a mapped region undefined.
 *  - A copy or fill between host buffers must run in the queue's order: OpenCL 1.2 has no
 *    command that does it, so the queue is drained (a marker waited for) and the CPU does
 *    it; such a command is complete when it returns.
 *  - clCreateBuffer may allocate lazily, so alloc migrates the new buffer to its device
 *    and waits: out of memory shows at alloc, not at a later copy.
 *  - Free memory: OpenCL has no query for it. For a software device it is the host's
 *    MemAvailable (capped by what remains of CL_DEVICE_GLOBAL_MEM_SIZE); for any other it
 *    is an estimate: CL_DEVICE_GLOBAL_MEM_SIZE less what this backend allocated on it.
 */
#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <CL/cl_ext.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ccall.h"
#include "compute_impl.h"
#include "vlib.h"

/* ---- the library -------------------------------------------------------------------- */
struct ocl_fns {
	cl_int (*clGetPlatformIDs)(cl_uint, cl_platform_id *, cl_uint *);
	cl_int (*clGetDeviceIDs)(cl_platform_id, cl_device_type, cl_uint, cl_device_id *, cl_uint *);
	cl_int (*clGetDeviceInfo)(cl_device_id, cl_device_info, size_t, void *, size_t *);
	cl_context (*clCreateContext)(const cl_context_properties *, cl_uint, const cl_device_id *,
				      void(CL_CALLBACK *)(const char *, const void *, size_t, void *), void *,
				      cl_int *);
	cl_command_queue (*clCreateCommandQueue)(cl_context, cl_device_id, cl_command_queue_properties, cl_int *);
	cl_mem (*clCreateBuffer)(cl_context, cl_mem_flags, size_t, void *, cl_int *);
	void *(*clEnqueueMapBuffer)(cl_command_queue, cl_mem, cl_bool, cl_map_flags, size_t, size_t, cl_uint,
				    const cl_event *, cl_event *, cl_int *);
	cl_int (*clEnqueueUnmapMemObject)(cl_command_queue, cl_mem, void *, cl_uint, const cl_event *, cl_event *);
	cl_int (*clEnqueueMigrateMemObjects)(cl_command_queue, cl_uint, const cl_mem *, cl_mem_migration_flags, cl_uint,
					     const cl_event *, cl_event *);
	cl_int (*clEnqueueWriteBuffer)(cl_command_queue, cl_mem, cl_bool, size_t, size_t, const void *, cl_uint,
				       const cl_event *, cl_event *);
	cl_int (*clEnqueueReadBuffer)(cl_command_queue, cl_mem, cl_bool, size_t, size_t, void *, cl_uint,
				      const cl_event *, cl_event *);
	cl_int (*clEnqueueCopyBuffer)(cl_command_queue, cl_mem, cl_mem, size_t, size_t, size_t, cl_uint,
				      const cl_event *, cl_event *);
	cl_int (*clEnqueueFillBuffer)(cl_command_queue, cl_mem, const void *, size_t, size_t, size_t, cl_uint,
				      const cl_event *, cl_event *);
	cl_int (*clEnqueueMarkerWithWaitList)(cl_command_queue, cl_uint, const cl_event *, cl_event *);
	cl_int (*clWaitForEvents)(cl_uint, const cl_event *);
	cl_int (*clGetEventProfilingInfo)(cl_event, cl_profiling_info, size_t, void *, size_t *);
	cl_int (*clFinish)(cl_command_queue);
	cl_int (*clReleaseMemObject)(cl_mem);
	cl_int (*clReleaseCommandQueue)(cl_command_queue);
	cl_int (*clReleaseContext)(cl_context);
	cl_int (*clReleaseEvent)(cl_event);
	cl_int (*clSetEventCallback)(cl_event, cl_int, void(CL_CALLBACK *)(cl_event, cl_int, void *), void *);
};

#define F(member) offsetof(struct ocl_fns, member), {#member}
static const struct axl__vsym symbols[] = {
	{F(clGetPlatformIDs)},
	{F(clGetDeviceIDs)},
	{F(clGetDeviceInfo)},
	{F(clCreateContext)},
	{F(clCreateCommandQueue)},
	{F(clCreateBuffer)},
	{F(clEnqueueMapBuffer)},
	{F(clEnqueueUnmapMemObject)},
	{F(clEnqueueMigrateMemObjects)},
	{F(clEnqueueWriteBuffer)},
	{F(clEnqueueReadBuffer)},
	{F(clEnqueueCopyBuffer)},
	{F(clEnqueueFillBuffer)},
	{F(clEnqueueMarkerWithWaitList)},
	{F(clWaitForEvents)},
	{F(clGetEventProfilingInfo)},
	{F(clFinish)},
	{F(clReleaseMemObject)},
	{F(clReleaseCommandQueue)},
	{F(clReleaseContext)},
	{F(clReleaseEvent)},
	{F(clSetEventCallback)},
};
#undef F

static struct axl__vlib_cache cache = AXL__VLIB_CACHE_INIT;

/* Every call is needed: a loader older than OpenCL 1.2 lacks the 1.2 ones and is refused. */
static bool usable(const void *table, const char *name, char *why, size_t cap)
{
	for (size_t i = 0; i < sizeof symbols / sizeof *symbols; i++) {
		void (*fn)(void);
		memcpy(&fn, (const char *)table + symbols[i].off, sizeof fn);
		if (!fn) {
			snprintf(why, cap, "%s lacks %s (OpenCL 1.2 is needed)", name, symbols[i].names[0]);
			return false;
		}
	}
	return true;
}

static const char *const sonames[] = {"libOpenCL.so.1"};
static const struct axl__vlibrary library = {
	sonames, 1, symbols, sizeof symbols / sizeof *symbols, sizeof(struct ocl_fns), usable, &cache,
	NULL /* the ICD loader is the image's own, never the driver root's */};

/* ---- state -------------------------------------------------------------------------- */
struct ocl_dev {
	cl_device_id id;
	cl_context cx;
	cl_command_queue service; /* maps pinned memory, migrates new buffers */
	bool software;
	uint64_t total;	    /* CL_DEVICE_GLOBAL_MEM_SIZE */
	uint64_t max_alloc; /* CL_DEVICE_MAX_MEM_ALLOC_SIZE */
	_Atomic uint64_t allocated; /* device memory this backend holds on it */
	char label[160];	    /* "opencl:<index> (<name>)", for messages */
};

/* axl__opencl_live_objects(): +1 for each object made, -1 for each released */
static atomic_long live_objects;
#define MADE(obj) ((obj) ? (void)atomic_fetch_add(&live_objects, 1) : (void)0)
#define RELEASED(rc) ((rc) == CL_SUCCESS ? (void)atomic_fetch_sub(&live_objects, 1) : (void)0)

long axl__opencl_live_objects(void)
{
	return atomic_load(&live_objects);
}

struct ocl_state {
	const axl_context *ctx;
	const struct ocl_fns *f;
	struct axl__ccall *cc;
	struct ocl_dev *devs;
	size_t n;
};

struct ocl_queue {
	struct ocl_dev *d;
	cl_command_queue q;
};

static const char *cl_name(cl_int e)
{
	switch (e) {
	case CL_DEVICE_NOT_FOUND: return "CL_DEVICE_NOT_FOUND";
	case CL_DEVICE_NOT_AVAILABLE: return "CL_DEVICE_NOT_AVAILABLE";
	case CL_MEM_OBJECT_ALLOCATION_FAILURE: return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
	case CL_OUT_OF_RESOURCES: return "CL_OUT_OF_RESOURCES";
	case CL_OUT_OF_HOST_MEMORY: return "CL_OUT_OF_HOST_MEMORY";
	case CL_PROFILING_INFO_NOT_AVAILABLE: return "CL_PROFILING_INFO_NOT_AVAILABLE";
	case CL_MAP_FAILURE: return "CL_MAP_FAILURE";
	case CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST: return "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST";
	case CL_INVALID_VALUE: return "CL_INVALID_VALUE";
	case CL_INVALID_PLATFORM: return "CL_INVALID_PLATFORM";
	case CL_INVALID_DEVICE: return "CL_INVALID_DEVICE";
	case CL_INVALID_CONTEXT: return "CL_INVALID_CONTEXT";
	case CL_INVALID_COMMAND_QUEUE: return "CL_INVALID_COMMAND_QUEUE";
	case CL_INVALID_MEM_OBJECT: return "CL_INVALID_MEM_OBJECT";
	case CL_INVALID_EVENT: return "CL_INVALID_EVENT";
	case CL_INVALID_OPERATION: return "CL_INVALID_OPERATION";
	case CL_INVALID_BUFFER_SIZE: return "CL_INVALID_BUFFER_SIZE";
	case CL_PLATFORM_NOT_FOUND_KHR: return "CL_PLATFORM_NOT_FOUND_KHR";
	}
	return "an OpenCL error";
}

/* The AXL_E* code of an OpenCL error (compute_impl.h). */
static int cl_code(cl_int e)
{
	switch (e) {
	case CL_DEVICE_NOT_AVAILABLE: return AXL_EDEVLOST;
	case CL_MEM_OBJECT_ALLOCATION_FAILURE:
	case CL_OUT_OF_RESOURCES:
	case CL_OUT_OF_HOST_MEMORY:
	case CL_INVALID_BUFFER_SIZE: return AXL_ENOMEM;
	}
	return AXL_EBACKEND;
}

static int fail(const struct ocl_dev *d, cl_int e, const char *call, uint64_t bytes)
{
	return axl__error(cl_code(e), "compute opencl on %s: %s of %" PRIu64 " bytes: %s (%d)",
			  d ? d->label : "(no device)", call, bytes, cl_name(e), (int)e);
}

/* MemAvailable of the live host (the memory a software device allocates from). */
static bool host_available(const axl_context *ctx, uint64_t *avail)
{
	char buf[8192];
	if (!ctx->fs.rerooted && !ctx->sim &&
	    axl__fs_read(&ctx->fs, AXL__FS_ROOT, "/proc/meminfo", buf, sizeof buf) > 0) {
		const char *p = strstr(buf, "MemAvailable:");
		unsigned long long kb;
		if (p && sscanf(p, "MemAvailable: %llu kB", &kb) == 1) {
			*avail = (uint64_t)kb * 1024;
			return true;
		}
	}
	long page = sysconf(_SC_PAGESIZE), av = sysconf(_SC_AVPHYS_PAGES);
	if (page <= 0 || av < 0)
		return false;
	*avail = (uint64_t)av * (uint64_t)page;
	return true;
}

static uint64_t free_of(const struct ocl_state *st, struct ocl_dev *d)
{
	uint64_t used = atomic_load(&d->allocated), fr = used < d->total ? d->total - used : 0, avail;
	if (d->software && host_available(st->ctx, &avail) && avail < fr)
		fr = avail;
	return fr;
}

/* ---- opening ------------------------------------------------------------------------ */
/* Is tok one of the space-separated words of list? */
static bool has_word(const char *list, const char *tok)
{
	size_t n = strlen(tok);
	for (const char *p = list; (p = strstr(p, tok)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return true;
	return false;
}

struct open_arg {
	struct ocl_state *st;
	struct axl__compute_found *found;
	size_t n;
};

/* One device into st->devs and a->found; false when it cannot be driven (logged). */
static bool add_dev(struct open_arg *a, cl_device_id id)
{
	const struct ocl_fns *f = a->st->f;
	struct ocl_dev *d = &a->st->devs[a->n];
	struct axl__compute_found *fd = &a->found[a->n];
	memset(d, 0, sizeof *d);
	memset(fd, 0, sizeof *fd);
	d->id = id;
	char version[128] = "", ext[8192] = "";
	cl_device_type type = 0;
	cl_ulong total = 0, max_alloc = 0;
	f->clGetDeviceInfo(id, CL_DEVICE_NAME, sizeof fd->name - 1, fd->name, NULL);
	f->clGetDeviceInfo(id, CL_DEVICE_VERSION, sizeof version - 1, version, NULL);
	f->clGetDeviceInfo(id, CL_DEVICE_TYPE, sizeof type, &type, NULL);
	f->clGetDeviceInfo(id, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof total, &total, NULL);
	f->clGetDeviceInfo(id, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc, NULL);
	/* a list longer than the buffer is cut off: the extensions looked for are short
	 * and khr ones, listed among the first by every implementation seen */
	size_t extn = 0;
	if (f->clGetDeviceInfo(id, CL_DEVICE_EXTENSIONS, 0, NULL, &extn) == CL_SUCCESS && extn <= sizeof ext)
		f->clGetDeviceInfo(id, CL_DEVICE_EXTENSIONS, sizeof ext, ext, NULL);
	snprintf(d->label, sizeof d->label, "opencl:%zu (%s)", a->n, fd->name);
	int major = 0, minor = 0;
	if (sscanf(version, "OpenCL %d.%d", &major, &minor) != 2 || major * 10 + minor < 12) {
		axl__log(a->st->ctx, AXL_LOG_INFO, "compute opencl: %s is '%s', OpenCL 1.2 is needed", d->label,
			 version);
		return false;
	}
	if (has_word(ext, "cl_khr_pci_bus_info")) {
		cl_device_pci_bus_info_khr pci;
		if (f->clGetDeviceInfo(id, CL_DEVICE_PCI_BUS_INFO_KHR, sizeof pci, &pci, NULL) == CL_SUCCESS)
			snprintf(fd->pci, sizeof fd->pci, "%04x:%02x:%02x.%x", pci.pci_domain, pci.pci_bus,
				 pci.pci_device, pci.pci_function);
	}
	if (has_word(ext, "cl_khr_device_uuid")) {
		cl_uchar u[CL_UUID_SIZE_KHR];
		if (f->clGetDeviceInfo(id, CL_DEVICE_UUID_KHR, sizeof u, u, NULL) == CL_SUCCESS)
			snprintf(fd->uuid, sizeof fd->uuid,
				 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
				 u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14],
				 u[15]);
	}
	d->software = fd->software = (type & CL_DEVICE_TYPE_CPU) != 0;
	d->total = total;
	d->max_alloc = max_alloc;
	cl_int e = CL_SUCCESS;
	d->cx = f->clCreateContext(NULL, 1, &id, NULL, NULL, &e);
	MADE(d->cx);
	if (d->cx && e == CL_SUCCESS) {
		d->service = f->clCreateCommandQueue(d->cx, id, 0, &e);
		MADE(d->service);
	}
	if (!d->cx || !d->service || e != CL_SUCCESS) {
		axl__log(a->st->ctx, AXL_LOG_INFO, "compute opencl: %s: no context or queue: %s (%d)", d->label,
			 cl_name(e), (int)e);
		if (d->cx)
			RELEASED(f->clReleaseContext(d->cx));
		return false;
	}
	fd->native = d;
	return true;
}

static int list_devices(void *arg)
{
	struct open_arg *a = arg;
	const struct ocl_fns *f = a->st->f;
	cl_uint np = 0;
	cl_int e = f->clGetPlatformIDs(0, NULL, &np);
	/* the ICD loader's answer when no platform is installed */
	if (e == CL_PLATFORM_NOT_FOUND_KHR || (e == CL_SUCCESS && np == 0))
		return axl__error(AXL_ENOENT, "compute opencl: no OpenCL platform is installed");
	if (e != CL_SUCCESS)
		return fail(NULL, e, "clGetPlatformIDs", 0);
	cl_platform_id *plats = calloc(np, sizeof *plats);
	if (!plats)
		return axl__error(AXL_ENOMEM, "compute opencl: out of memory");
	if ((e = f->clGetPlatformIDs(np, plats, NULL)) != CL_SUCCESS) {
		free(plats);
		return fail(NULL, e, "clGetPlatformIDs", 0);
	}
	size_t cap = 0;
	for (cl_uint p = 0; p < np; p++) {
		cl_uint nd = 0;
		if (f->clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 0, NULL, &nd) != CL_SUCCESS || !nd)
			continue;
		cl_device_id *ids = calloc(nd, sizeof *ids);
		if (!ids || f->clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, nd, ids, NULL) != CL_SUCCESS) {
			free(ids);
			continue;
		}
		/* room for every device first: found[].native points into devs */
		struct ocl_dev *nv = realloc(a->st->devs, (cap + nd) * sizeof *nv);
		if (nv)
			a->st->devs = nv;
		struct axl__compute_found *nf = nv ? realloc(a->found, (cap + nd) * sizeof *nf) : NULL;
		if (nf)
			a->found = nf;
		if (!nv || !nf) {
			free(ids);
			break;
		}
		cap += nd;
		for (cl_uint i = 0; i < nd; i++)
			if (add_dev(a, ids[i]))
				a->n++;
		free(ids);
	}
	free(plats);
	/* native pointers were taken after the last realloc of devs: fix them up */
	for (size_t i = 0; i < a->n; i++)
		a->found[i].native = &a->st->devs[i];
	a->st->n = a->n;
	return 0;
}

static int ocl_open(const axl_context *ctx, const char *path, void **state, struct axl__compute_found **found,
		    size_t *n)
{
	char why[512];
	bool absent = false;
	const struct ocl_fns *f = axl__vlib_open(&library, path, why, sizeof why, &absent);
	if (!f)
		return axl__error(absent ? AXL_ENOENT : AXL_EBACKEND, "compute opencl: %s", why);
	struct ocl_state *st = calloc(1, sizeof *st);
	if (!st)
		return axl__error(AXL_ENOMEM, "compute opencl: out of memory");
	st->ctx = ctx;
	st->f = f;
	if (!(st->cc = axl__ccall_new("opencl", ctx->vendor_timeout_ms))) {
		free(st);
		return axl__error(AXL_ENOMEM, "compute opencl: out of memory");
	}
	struct open_arg a = {st, NULL, 0};
	int rc = axl__ccall_run(st->cc, list_devices, &a, sizeof a, "clGetPlatformIDs/clGetDeviceIDs");
	if (rc) {
		/* a worker past its deadline may still write these: leave them to it */
		if (rc != AXL_ETIMEDOUT) {
			for (size_t i = 0; i < a.n; i++) {
				RELEASED(f->clReleaseCommandQueue(st->devs[i].service));
				RELEASED(f->clReleaseContext(st->devs[i].cx));
			}
			free(st->devs);
			free(a.found);
			axl__ccall_free(st->cc);
			free(st);
		}
		return rc;
	}
	*state = st;
	*found = a.found;
	*n = a.n;
	return 0;
}

static void ocl_close(void *state)
{
	struct ocl_state *st = state;
	for (size_t i = 0; i < st->n; i++) {
		RELEASED(st->f->clReleaseCommandQueue(st->devs[i].service));
		RELEASED(st->f->clReleaseContext(st->devs[i].cx));
	}
	axl__ccall_free(st->cc);
	free(st->devs);
	free(st);
}

static int ocl_mem_info(void *state, void *dev, uint64_t *free_bytes, uint64_t *total_bytes)
{
	struct ocl_dev *d = dev;
	*total_bytes = d->total;
	*free_bytes = free_of(state, d);
	return 0;
}

/* ---- memory ------------------------------------------------------------------------- */
struct alloc_arg {
	const struct ocl_fns *f;
	struct ocl_dev *d;
	struct axl__cmem *m; /* the caller's: the core waits for this call */
};

static int do_alloc(void *arg)
{
	struct alloc_arg *a = arg;
	const struct ocl_fns *f = a->f;
	struct ocl_dev *d = a->d;
	struct axl__cmem *m = a->m;
	bool pinned = m->kind != AXL_MEMORY_DEVICE;
	cl_int e = CL_SUCCESS;
	cl_mem mem =
	    f->clCreateBuffer(d->cx, pinned ? CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR : CL_MEM_READ_WRITE,
			      (size_t)m->size, NULL, &e);
	MADE(mem);
	if (!mem || e != CL_SUCCESS) {
		if (mem)
			RELEASED(f->clReleaseMemObject(mem));
		return fail(d, e ? e : CL_MEM_OBJECT_ALLOCATION_FAILURE, "clCreateBuffer", m->size);
	}
	const char *call;
	void *host = NULL;
	if (pinned) {
		call = "clEnqueueMapBuffer";
		host = f->clEnqueueMapBuffer(d->service, mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, (size_t)m->size,
					     0, NULL, NULL, &e);
		if (!host && e == CL_SUCCESS)
			e = CL_MAP_FAILURE;
	} else {
		/* the memory exists once something has used it: make that now */
		call = "clEnqueueMigrateMemObjects";
		e = f->clEnqueueMigrateMemObjects(d->service, 1, &mem, CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED, 0, NULL,
						  NULL);
		if (e == CL_SUCCESS) {
			call = "clFinish";
			e = f->clFinish(d->service);
		}
	}
	if (e != CL_SUCCESS) {
		RELEASED(f->clReleaseMemObject(mem));
		return fail(d, e, call, m->size);
	}
	m->mem = mem;
	m->host = host;
	return 0;
}

static int ocl_alloc(void *state, void *dev, struct axl__cmem *m)
{
	struct ocl_state *st = state;
	struct ocl_dev *d = dev;
	/* host memory of any kind is pinned memory here: the device reaches it best */
	uint64_t fr = free_of(st, d);
	bool device = m->kind == AXL_MEMORY_DEVICE;
	if (m->size > SIZE_MAX || m->size > d->max_alloc || (device && m->size > fr))
		return axl__error(AXL_ENOMEM,
				  "compute opencl on %s: allocating %" PRIu64 " bytes of %s memory: %" PRIu64
				  " bytes free (estimate), at most %" PRIu64 " bytes in one buffer",
				  d->label, m->size, axl_memory_kind_name(m->kind), fr, d->max_alloc);
	struct alloc_arg a = {st->f, d, m};
	int rc = axl__ccall_run(st->cc, do_alloc, &a, sizeof a, "clCreateBuffer");
	if (rc == AXL_ENOMEM)
		return axl__error(AXL_ENOMEM, "%s (%" PRIu64 " bytes asked, %" PRIu64 " bytes free, an estimate)",
				  axl__error_text(), m->size, fr);
	if (rc)
		return rc;
	if (device)
		atomic_fetch_add(&d->allocated, m->size);
	return 0;
}

struct free_arg {
	const struct ocl_fns *f;
	struct ocl_dev *d;
	cl_mem mem;
	void *host;
};

static int do_free(void *arg)
{
	struct free_arg *a = arg;
	if (a->host && a->f->clEnqueueUnmapMemObject(a->d->service, a->mem, a->host, 0, NULL, NULL) == CL_SUCCESS)
		a->f->clFinish(a->d->service);
	RELEASED(a->f->clReleaseMemObject(a->mem));
	return 0;
}

static void ocl_free(void *state, struct axl__cmem *m)
{
	struct ocl_state *st = state;
	struct ocl_dev *d = m->dev;
	struct free_arg a = {st->f, d, m->mem, m->host};
	/* a free that misses the deadline leaks the buffer: nothing else is to be done */
	axl__ccall_run(st->cc, do_free, &a, sizeof a, "clReleaseMemObject");
	if (m->kind == AXL_MEMORY_DEVICE)
		atomic_fetch_sub(&d->allocated, m->size);
}

/* ---- queues ------------------------------------------------------------------------- */
static int ocl_queue_create(void *state, void *dev, void **out)
{
	struct ocl_state *st = state;
	struct ocl_dev *d = dev;
	struct ocl_queue *q = calloc(1, sizeof *q);
	if (!q)
		return axl__error(AXL_ENOMEM, "compute opencl: out of memory for a queue");
	cl_int e = CL_SUCCESS;
	/* in order (no CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE); timed for events */
	q->q = st->f->clCreateCommandQueue(d->cx, d->id, CL_QUEUE_PROFILING_ENABLE, &e);
	MADE(q->q);
	if (!q->q || e != CL_SUCCESS) {
		free(q);
		return fail(d, e, "clCreateCommandQueue", 0);
	}
	q->d = d;
	*out = q;
	return 0;
}

struct q_arg {
	const struct ocl_fns *f;
	cl_command_queue q;
};

static int do_finish(void *arg)
{
	struct q_arg *a = arg;
	cl_int e = a->f->clFinish(a->q);
	return e == CL_SUCCESS ? 0 : axl__error(cl_code(e), "%s (%d)", cl_name(e), (int)e);
}

static int ocl_queue_sync(void *state, void *qp)
{
	struct ocl_state *st = state;
	struct ocl_queue *q = qp;
	struct q_arg a = {st->f, q->q};
	int rc = axl__ccall_run(st->cc, do_finish, &a, sizeof a, "clFinish");
	if (rc && rc != AXL_ETIMEDOUT)
		return axl__error(rc, "compute opencl on %s: clFinish: %s", q->d->label, axl__error_text());
	return rc;
}

static void ocl_queue_free(void *state, void *qp)
{
	struct ocl_state *st = state;
	struct ocl_queue *q = qp;
	ocl_queue_sync(state, q);
	RELEASED(st->f->clReleaseCommandQueue(q->q));
	free(q);
}

/* ---- commands ----------------------------------------------------------------------- */
struct wait_arg {
	const struct ocl_fns *f;
	cl_event ev;
};

static int do_wait(void *arg)
{
	struct wait_arg *a = arg;
	cl_int e = a->f->clWaitForEvents(1, &a->ev);
	return e == CL_SUCCESS ? 0 : axl__error(cl_code(e), "%s (%d)", cl_name(e), (int)e);
}

/* Everything on q done, under the deadline: a marker waited for (clFinish would do, but
 * a marker waits only for what is on q now, not for what other threads add meanwhile). */
static int drain(struct ocl_state *st, struct ocl_queue *q, const char *what, uint64_t bytes)
{
	cl_event ev = NULL;
	cl_int e = st->f->clEnqueueMarkerWithWaitList(q->q, 0, NULL, &ev);
	if (e != CL_SUCCESS)
		return fail(q->d, e, "clEnqueueMarkerWithWaitList", bytes);
	MADE(ev);
	struct wait_arg a = {st->f, ev};
	int rc = axl__ccall_run(st->cc, do_wait, &a, sizeof a, "clWaitForEvents");
	if (rc == AXL_ETIMEDOUT)
		return rc; /* the worker still holds ev */
	RELEASED(st->f->clReleaseEvent(ev));
	if (rc)
		return axl__error(rc, "compute opencl on %s: clWaitForEvents before %s of %" PRIu64 " bytes: %s",
				  q->d->label, what, bytes, axl__error_text());
	return 0;
}

static int ocl_copy(void *state, void *qp, const struct axl__cmem *dst, uint64_t dst_offset,
		    const struct axl__cmem *src, uint64_t src_offset, uint64_t size, axl_copy_path *path)
{
	struct ocl_state *st = state;
	struct ocl_queue *q = qp;
	const struct ocl_fns *f = st->f;
	cl_int e;
	const char *call;
	if (dst->host && src->host) {
		int rc = drain(st, q, "a host copy", size);
		if (rc)
			return rc;
		memcpy((char *)dst->host + dst_offset, (const char *)src->host + src_offset, (size_t)size);
		*path = AXL_COPY_PATH_HOST;
		return 0;
	}
	*path = AXL_COPY_PATH_DEVICE;
	if (src->host) {
		call = "clEnqueueWriteBuffer";
		e = f->clEnqueueWriteBuffer(q->q, dst->mem, CL_FALSE, (size_t)dst_offset, (size_t)size,
					    (const char *)src->host + src_offset, 0, NULL, NULL);
	} else if (dst->host) {
		call = "clEnqueueReadBuffer";
		e = f->clEnqueueReadBuffer(q->q, src->mem, CL_FALSE, (size_t)src_offset, (size_t)size,
					   (char *)dst->host + dst_offset, 0, NULL, NULL);
	} else {
		call = "clEnqueueCopyBuffer";
		e = f->clEnqueueCopyBuffer(q->q, src->mem, dst->mem, (size_t)src_offset, (size_t)dst_offset,
					   (size_t)size, 0, NULL, NULL);
	}
	return e == CL_SUCCESS ? 0 : fail(q->d, e, call, size);
}

static int ocl_fill(void *state, void *qp, const struct axl__cmem *dst, uint64_t offset, uint64_t size, uint8_t value)
{
	struct ocl_state *st = state;
	struct ocl_queue *q = qp;
	if (dst->host) {
		int rc = drain(st, q, "a host fill", size);
		if (!rc)
			memset((char *)dst->host + offset, value, (size_t)size);
		return rc;
	}
	cl_int e = st->f->clEnqueueFillBuffer(q->q, dst->mem, &value, 1, (size_t)offset, (size_t)size, 0, NULL, NULL);
	return e == CL_SUCCESS ? 0 : fail(q->d, e, "clEnqueueFillBuffer", size);
}

/* ---- events ------------------------------------------------------------------------- */
struct ocl_event {
	struct ocl_dev *d;
	cl_event ev;
};

static int ocl_event_record(void *state, void *qp, void **out)
{
	struct ocl_state *st = state;
	struct ocl_queue *q = qp;
	struct ocl_event *ev = calloc(1, sizeof *ev);
	if (!ev)
		return axl__error(AXL_ENOMEM, "compute opencl: out of memory for an event");
	cl_int e = st->f->clEnqueueMarkerWithWaitList(q->q, 0, NULL, &ev->ev);
	if (e != CL_SUCCESS) {
		free(ev);
		return fail(q->d, e, "clEnqueueMarkerWithWaitList", 0);
	}
	MADE(ev->ev);
	ev->d = q->d;
	*out = ev;
	return 0;
}

static int ocl_event_wait(void *state, void *evp)
{
	struct ocl_state *st = state;
	struct ocl_event *ev = evp;
	struct wait_arg a = {st->f, ev->ev};
	int rc = axl__ccall_run(st->cc, do_wait, &a, sizeof a, "clWaitForEvents");
	if (rc && rc != AXL_ETIMEDOUT)
		return axl__error(rc, "compute opencl on %s: clWaitForEvents: %s", ev->d->label, axl__error_text());
	return rc;
}

/* clSetEventCallback's callback: what became of the command, and whose notice it is */
struct ocl_notice {
	void (*done)(void *arg, int rc);
	void *arg;
};

static void CL_CALLBACK ocl_completed(cl_event e, cl_int status, void *user)
{
	(void)e;
	struct ocl_notice on = *(struct ocl_notice *)user;
	free(user);
	/* CL_COMPLETE, or the negative error that ended the command */
	on.done(on.arg, status == CL_COMPLETE ? 0 : cl_code(status));
}

static int ocl_event_notify(void *state, void *evp, void (*done)(void *arg, int rc), void *arg)
{
	struct ocl_state *st = state;
	struct ocl_event *ev = evp;
	struct ocl_notice *on = malloc(sizeof *on);
	if (!on)
		return AXL_ENOMEM;
	*on = (struct ocl_notice){ done, arg };
	if (st->f->clSetEventCallback(ev->ev, CL_COMPLETE, ocl_completed, on) != CL_SUCCESS) {
		free(on);
		return AXL_EBACKEND; /* a thread waits instead */
	}
	return 0;
}

static int ocl_event_elapsed(void *state, void *a, void *b, int64_t *ns)
{
	struct ocl_state *st = state;
	struct ocl_event *ea = a, *eb = b;
	cl_ulong ta = 0, tb = 0;
	cl_int e = st->f->clGetEventProfilingInfo(ea->ev, CL_PROFILING_COMMAND_END, sizeof ta, &ta, NULL);
	if (e == CL_SUCCESS)
		e = st->f->clGetEventProfilingInfo(eb->ev, CL_PROFILING_COMMAND_END, sizeof tb, &tb, NULL);
	if (e != CL_SUCCESS)
		return fail(ea->d, e, "clGetEventProfilingInfo(CL_PROFILING_COMMAND_END)", 0);
	*ns = (int64_t)(tb - ta);
	return 0;
}

static void ocl_event_free(void *state, void *evp)
{
	struct ocl_state *st = state;
	struct ocl_event *ev = evp;
	/* OpenCL keeps a released event alive until its command completes */
	RELEASED(st->f->clReleaseEvent(ev->ev));
	free(ev);
}

const struct axl__compute_ops axl__compute_opencl = {
	.name = "opencl",
	.open = ocl_open,
	.close = ocl_close,
	.mem_info = ocl_mem_info,
	.alloc = ocl_alloc,
	.free = ocl_free,
	.queue_create = ocl_queue_create,
	.queue_free = ocl_queue_free,
	.queue_sync = ocl_queue_sync,
	.copy = ocl_copy,
	.fill = ocl_fill,
	.event_record = ocl_event_record,
	.event_wait = ocl_event_wait,
	.event_notify = ocl_event_notify,
	.event_elapsed = ocl_event_elapsed,
	.event_free = ocl_event_free,
};
