/* SPDX-License-Identifier: MIT */
/* The compute API (include/axl/compute.h): a context over an inventory, its devices (the
 * host CPU first, then each accelerator a backend drives, matched to the inventory), and
 * buffers, queues and events as checked handles. Every argument is checked here, so the
 * backends (compute_impl.h) trust what they are given. Which backend does a copy is
 * decided in route.c; the structs both share are in compute_core.h. */
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "backend.h"
#include "compute_core.h"
#include "compute_impl.h"
#include "notify.h"

/* the cpu backend, each vendor's, the vendor-neutral ones */
#define NBE (AXL__BACKENDS_MAX + 4)

struct cbackend {
	const struct axl__compute_ops *ops;
	void *state;
};

struct axl_compute {
	const axl_inventory *inv;
	struct axl__htable h;
	struct axl_compute_device *devs;
	size_t ndev;
	struct cbackend be[NBE]; /* [0]: cpu, then vendors', then neutral ones */
	size_t nbe;
	struct axl__notifier *notifier; /* made by the first axl_event_notify */
	pthread_mutex_t notifier_lock;
};

struct cevent {
	const axl_compute_device *dev;
	void *native;
	struct axl__notice *notice; /* axl_event_notify's, set once */
};

/* Free an event no call uses any more: its notice settled first, under the vendor
 * deadline (a notice that misses it keeps the native event, which its thread uses). */
static int event_destroy(axl_compute *c, struct cevent *e)
{
	int rc = 0;
	if (e->notice && (rc = axl__notice_settle(e->notice, c->inv->ctx->vendor_timeout_ms)))
		rc = axl__error(rc, "compute: an event on %s did not complete within %d ms of being freed; "
				"it is left to the runtime", dev_id(e->dev), c->inv->ctx->vendor_timeout_ms);
	else
		e->dev->ops->event_free(e->dev->state, e->native);
	free(e);
	return rc;
}

AXL_API const char *axl_copy_path_name(axl_copy_path p)
{
	switch (p) {
	case AXL_COPY_PATH_HOST: return "host";
	case AXL_COPY_PATH_DEVICE: return "device";
	case AXL_COPY_PATH_PEER: return "peer";
	case AXL_COPY_PATH_STAGED: return "staged";
	}
	return NULL;
}

AXL_API const char *axl_memory_kind_name(axl_memory_kind k)
{
	switch (k) {
	case AXL_MEMORY_DEVICE: return "device";
	case AXL_MEMORY_PINNED: return "pinned";
	case AXL_MEMORY_HOST: return "host";
	}
	return NULL;
}

/* ---- opening: backends and devices ------------------------------------------------ */
/* The inventory device a backend's device is (PCI address, else UUID), NULL when none
 * or when it is not visible to this process. */
static const axl_device *match(const axl_inventory *inv, const struct axl__compute_found *f)
{
	for (size_t i = 0; i < axl_inventory_device_count(inv); i++) {
		const axl_device *d = axl_inventory_device(inv, i);
		const char *pci = NULL, *uuid = NULL;
		bool hit = (f->pci[0] && axl_device_get_str(d, AXL_ATTR_PCI_ADDRESS, &pci) == 0 && pci &&
			    strcasecmp(pci, f->pci) == 0) ||
			   (f->uuid[0] && axl_device_get_str(d, AXL_ATTR_UUID, &uuid) == 0 && uuid &&
			    strcasecmp(uuid, f->uuid) == 0);
		if (!hit)
			continue;
		int64_t vis = 1;
		if (axl_device_get_int(d, AXL_ATTR_VISIBLE, &vis) == 0 && !vis)
			return NULL;
		return d;
	}
	return NULL;
}

/* Devices are added before anyone holds a pointer to one (axl_compute_open), so the
 * array may move. */
static int add_device(axl_compute *c, const axl_device *inv, const struct cbackend *be, void *native,
		      const char *name)
{
	struct axl_compute_device *v = realloc(c->devs, (c->ndev + 1) * sizeof *v);
	if (!v)
		return axl__error(AXL_ENOMEM, "compute: out of memory");
	c->devs = v;
	v[c->ndev] = (struct axl_compute_device){ c, inv, be->ops, be->state, native, "" };
	snprintf(v[c->ndev].name, sizeof v[c->ndev].name, "%s", name && *name ? name : inv ? "device" : "host CPU");
	c->ndev++;
	return 0;
}

static bool taken(const axl_compute *c, const axl_device *d)
{
	for (size_t j = 0; j < c->ndev; j++)
		if (c->devs[j].inv == d)
			return true;
	return false;
}

/* Is d one of row's devices: found by it, or of a vendor it speaks for (a simulated
 * node's devices are the simulator's, with the vendor's id prefix)? */
static bool of_row(const axl_device *d, const struct axl__backend *row)
{
	if (d->owner && strcmp(d->owner, row->name) == 0)
		return true;
	for (const struct axl__pci_vendor *v = row->facts ? row->facts->pci_vendors : NULL; v && v->id; v++)
		if (d->prefix && ((v->prefix && strcmp(v->prefix, d->prefix) == 0) ||
				  (v->npu_prefix && strcmp(v->npu_prefix, d->prefix) == 0)))
			return true;
	return false;
}

/* Is a visible accelerator of the inventory (of backend row; NULL: of any) left that no
 * backend drives yet? A runtime is loaded only for what it may drive. */
static bool wanted(const axl_compute *c, const struct axl__backend *row)
{
	for (size_t i = 0; i < axl_inventory_device_count(c->inv); i++) {
		const axl_device *d = axl_inventory_device(c->inv, i);
		int64_t vis = 1;
		if (axl_device_get_int(d, AXL_ATTR_VISIBLE, &vis) == 0 && !vis)
			continue;
		if ((!row || of_row(d, row)) && !taken(c, d))
			return true;
	}
	return false;
}

/* Open one backend and add the devices it drives that no earlier one took; a software
 * device only when the backend was asked for by name (named). */
static void open_backend(axl_compute *c, const struct axl__compute_ops *ops, const char *library, bool named)
{
	struct cbackend *be = &c->be[c->nbe];
	struct axl__compute_found *found = NULL;
	size_t n = 0;
	if (ops->open(c->inv->ctx, library, &be->state, &found, &n)) {
		/* a missing runtime costs only its backend */
		axl__log(c->inv->ctx, AXL_LOG_INFO, "compute %s: %s", ops->name, axl__error_text());
		return;
	}
	be->ops = ops;
	c->nbe++;
	for (size_t i = 0; i < n; i++) {
		if (found[i].software) {
			if (named)
				add_device(c, NULL, be, found[i].native, found[i].name);
			continue;
		}
		const axl_device *d = match(c->inv, &found[i]);
		if (d && !taken(c, d))
			add_device(c, d, be, found[i].native, found[i].name);
	}
	free(found);
}

AXL_API int axl_compute_open(axl_compute **out, const axl_inventory *inv, const struct axl_compute_options *opts)
{
	if (!out || !inv)
		return axl__error(AXL_EINVAL, "axl_compute_open: %s is NULL", !out ? "out" : "inv");
	*out = NULL;
	if (opts && (opts->version < 1 || opts->version > AXL_COMPUTE_OPTIONS_VERSION))
		return axl__error(AXL_EVERSION, "axl_compute_options version %u, this library knows 1 to %u",
				  opts->version, AXL_COMPUTE_OPTIONS_VERSION);
	/* the option, else $AXL_COMPUTE as the context read it */
	const char *want = opts && opts->backend ? opts->backend : inv->ctx->compute_backend;
	if (want && !*want)
		want = NULL;
	if (want && strcmp(want, axl__compute_cpu.name) != 0) {
		bool known = false;
		for (size_t b = 0; b < axl__backend_total; b++)
			known |= axl__backends[b]->compute && strcmp(axl__backends[b]->compute->name, want) == 0;
		for (size_t g = 0; axl__compute_generic[g]; g++)
			known |= strcmp(axl__compute_generic[g]->name, want) == 0;
		if (!known)
			return axl__error(AXL_EINVAL, "compute backend '%s': no such backend in this axl (%s)", want,
					  opts && opts->backend ? "axl_compute_options.backend" : "AXL_COMPUTE");
	}
	axl_compute *c = calloc(1, sizeof *c);
	if (!c)
		return axl__error(AXL_ENOMEM, "compute: out of memory");
	c->inv = inv;
	c->notifier_lock = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER; /* nothing to undo */
	int rc = axl__htable_init(&c->h);
	if (rc) {
		free(c);
		return axl__error(rc, "compute: cannot make a lock");
	}
	/* the cpu backend is always there: the host CPU is device 0 */
	struct axl__compute_found *none = NULL;
	size_t nn = 0;
	rc = axl__compute_cpu.open(inv->ctx, NULL, &c->be[0].state, &none, &nn);
	free(none);
	if (rc) {
		axl__htable_fini(&c->h);
		free(c);
		return rc;
	}
	c->be[0].ops = &axl__compute_cpu;
	c->nbe = 1;
	if ((rc = add_device(c, NULL, &c->be[0], NULL, NULL))) {
		axl_compute_free(c);
		return rc;
	}
	/* then the vendors' own in the table's order, then the vendor-neutral ones; "cpu"
	 * asked for drives no accelerator. A vendor's runtime drives this machine's
	 * devices: on a simulated or re-rooted node (another machine's, or a test's) it is
	 * loaded only from a library named for it (the backend row's libs->compute_env:
	 * a test double), as checkpoints are (control/checkpoint.c), never the system's.
	 * The system's would find none of the node's devices and may act on this machine:
	 * a vendor's driver library initialised as root without a device may make its
	 * device nodes on this machine, which is no test's to change. A vendor's runtime
	 * drives only that vendor's devices of the inventory (it emulates none): asked for
	 * by name or not, it is loaded only when one is there, so a machine with the
	 * vendor's libraries and none of its devices pays for no dlopen and no driver
	 * init. */
	const axl_context *ctx = inv->ctx;
	bool live = !ctx->sim && !ctx->fs.rerooted;
	for (size_t b = 0; b < axl__backend_total && c->nbe < NBE; b++) {
		const struct axl__compute_ops *ops = axl__backends[b]->compute;
		if (!ops || (!live && !ctx->compute_library[b]) || (want && strcmp(ops->name, want) != 0))
			continue;
		if (wanted(c, axl__backends[b]))
			open_backend(c, ops, ctx->compute_library[b], want != NULL);
	}
	/* The vendor-neutral runtimes list this machine's devices, which can be the
	 * inventory's only on the live system: on a simulated or re-rooted node they are
	 * loaded only when named (for the devices they emulate on the CPU). */
	for (size_t g = 0; axl__compute_generic[g] && c->nbe < NBE; g++) {
		const struct axl__compute_ops *ops = axl__compute_generic[g];
		if (want ? strcmp(ops->name, want) == 0 : live && wanted(c, NULL))
			open_backend(c, ops, NULL, want != NULL);
	}
	*out = c;
	return 0;
}

/* Every queued command, then every object, then the backends. */
AXL_API void axl_compute_free(axl_compute *c)
{
	if (!c)
		return;
	uint32_t cur = 0;
	struct cevent *e;
	while ((e = axl__handle_take_next(&c->h, AXL__H_EVENT, &cur)))
		event_destroy(c, e);
	cur = 0;
	struct axl__cqueue *q;
	while ((q = axl__handle_take_next(&c->h, AXL__H_QUEUE, &cur))) {
		q->dev->ops->queue_free(q->dev->state, q->native);
		free(q);
	}
	cur = 0;
	struct axl__cbuf *b;
	while ((b = axl__handle_take_next(&c->h, AXL__H_BUFFER, &cur))) {
		if (!b->wrapped)
			b->m.ops->free(b->mstate, &b->m);
		free(b);
	}
	axl__notifier_free(c->notifier);
	pthread_mutex_destroy(&c->notifier_lock);
	for (size_t i = 0; i < c->nbe; i++)
		c->be[i].ops->close(c->be[i].state);
	axl__htable_fini(&c->h);
	free(c->devs);
	free(c);
}

/* ---- devices ---------------------------------------------------------------------- */
AXL_API size_t axl_compute_device_count(const axl_compute *c)
{
	return c ? c->ndev : 0;
}

AXL_API const axl_compute_device *axl_compute_device_at(const axl_compute *c, size_t i)
{
	return c && i < c->ndev ? &c->devs[i] : NULL;
}

AXL_API const axl_compute_device *axl_compute_device_of(const axl_compute *c, const axl_device *dev)
{
	if (!c)
		return NULL;
	for (size_t i = 0; i < c->ndev; i++)
		if (c->devs[i].inv == dev)
			return &c->devs[i];
	return NULL;
}

AXL_API const axl_device *axl_compute_device_inventory(const axl_compute_device *d)
{
	return d ? d->inv : NULL;
}

AXL_API const char *axl_compute_device_backend(const axl_compute_device *d)
{
	return d ? d->ops->name : NULL;
}

AXL_API const char *axl_compute_device_name(const axl_compute_device *d)
{
	return d ? d->name : NULL;
}

/* Is d one of c's devices? By address only: a pointer from elsewhere is never read. */
static int check_dev(const axl_compute *c, const axl_compute_device *d, const char *fn)
{
	if (!c)
		return axl__error(AXL_EINVAL, "%s: the compute context is NULL", fn);
	for (size_t i = 0; i < c->ndev; i++)
		if (&c->devs[i] == d)
			return 0;
	return axl__error(AXL_EINVAL, "%s: %s is not a device of this compute context", fn, d ? "the device" : "NULL");
}

AXL_API int axl_compute_device_memory(axl_compute *c, const axl_compute_device *d, uint64_t *free_bytes,
				      uint64_t *total_bytes)
{
	int rc = check_dev(c, d, "axl_compute_device_memory");
	if (rc)
		return rc;
	if (!free_bytes || !total_bytes)
		return axl__error(AXL_EINVAL, "axl_compute_device_memory: an output is NULL");
	return d->ops->mem_info(d->state, d->native, free_bytes, total_bytes);
}

AXL_API int axl_compute_device_sync(axl_compute *c, const axl_compute_device *d)
{
	int rc = check_dev(c, d, "axl_compute_device_sync");
	if (rc)
		return rc;
	uint32_t cur = 0;
	uint64_t h;
	struct axl__cqueue *q;
	while ((q = axl__handle_get_next(&c->h, AXL__H_QUEUE, &cur, &h))) {
		int r = q->dev == d ? q->dev->ops->queue_sync(q->dev->state, q->native) : 0;
		axl__handle_put(&c->h, h);
		if (r && !rc)
			rc = r;
	}
	return rc;
}

/* ---- buffers ---------------------------------------------------------------------- */
static int new_buffer(axl_compute *c, struct axl__cbuf *b, axl_buffer *out)
{
	int rc = axl__handle_new(&c->h, AXL__H_BUFFER, b, out);
	if (rc) {
		if (!b->wrapped)
			b->m.ops->free(b->mstate, &b->m);
		free(b);
	}
	return rc;
}

AXL_API int axl_buffer_alloc(axl_compute *c, const axl_compute_device *d, axl_memory_kind kind, uint64_t size,
			     axl_buffer *out)
{
	int rc = check_dev(c, d, "axl_buffer_alloc");
	if (rc)
		return rc;
	if (!out)
		return axl__error(AXL_EINVAL, "axl_buffer_alloc: out is NULL");
	*out = 0;
	if (!axl_memory_kind_name(kind))
		return axl__error(AXL_EINVAL, "axl_buffer_alloc on %s: %d is not a memory kind", dev_id(d), (int)kind);
	if (!size)
		return axl__error(AXL_EINVAL, "axl_buffer_alloc on %s: a buffer of 0 bytes", dev_id(d));
	struct axl__cbuf *b = calloc(1, sizeof *b);
	if (!b)
		return axl__error(AXL_ENOMEM, "axl_buffer_alloc: out of memory");
	b->dev = d;
	/* Ordinary host memory is the cpu backend's, whichever device it is for: on the
	 * device's NUMA node, so that its copies do not cross the sockets' link. */
	const struct axl_compute_device *by = kind == AXL_MEMORY_HOST ? &c->devs[0] : d;
	int64_t node = -1;
	if (!d->inv || axl_device_get_int(d->inv, AXL_ATTR_NUMA_NODE, &node) != 0 || node < 0 || node > 4095)
		node = -1;
	b->m = (struct axl__cmem){
		.size = size, .kind = kind, .dev = by->native, .ops = by->ops, .numa_node = (int)node
	};
	b->mstate = by->state;
	if ((rc = by->ops->alloc(by->state, by->native, &b->m))) {
		free(b);
		return rc;
	}
	return new_buffer(c, b, out);
}

AXL_API int axl_buffer_wrap(axl_compute *c, void *ptr, uint64_t size, axl_buffer *out)
{
	if (!c || !ptr || !out)
		return axl__error(AXL_EINVAL, "axl_buffer_wrap: %s is NULL", !c ? "the context" : !ptr ? "ptr" : "out");
	*out = 0;
	if (!size)
		return axl__error(AXL_EINVAL, "axl_buffer_wrap: a buffer of 0 bytes");
	uintptr_t end;
	if (size > UINTPTR_MAX || __builtin_add_overflow((uintptr_t)ptr, (uintptr_t)size, &end))
		return axl__error(AXL_EINVAL, "axl_buffer_wrap: %" PRIu64 " bytes at %p run past the address space",
				  size, ptr);
	struct axl__cbuf *b = calloc(1, sizeof *b);
	if (!b)
		return axl__error(AXL_ENOMEM, "axl_buffer_wrap: out of memory");
	b->dev = &c->devs[0];
	b->wrapped = true;
	b->m = (struct axl__cmem){
		.mem = ptr, .host = ptr, .size = size, .kind = AXL_MEMORY_HOST, .ops = c->devs[0].ops, .numa_node = -1
	};
	return new_buffer(c, b, out);
}

/* Wait for every queue of the context: whatever might still read or write a buffer. */
static void sync_all(axl_compute *c)
{
	uint32_t cur = 0;
	uint64_t h;
	struct axl__cqueue *q;
	while ((q = axl__handle_get_next(&c->h, AXL__H_QUEUE, &cur, &h))) {
		q->dev->ops->queue_sync(q->dev->state, q->native);
		axl__handle_put(&c->h, h);
	}
}

AXL_API int axl_buffer_free(axl_compute *c, axl_buffer b)
{
	if (!c)
		return axl__error(AXL_EINVAL, "axl_buffer_free: the compute context is NULL");
	/* refused to everyone from here on; returned once no call is using it */
	struct axl__cbuf *o = axl__handle_retire(&c->h, b, AXL__H_BUFFER);
	if (!o)
		return axl__error(AXL_EINVAL,
				  "axl_buffer_free: 0x%" PRIx64 " is not a buffer of this context (freed already?)", b);
	/* what was enqueued on it finishes first; any queue may hold it */
	sync_all(c);
	if (!o->wrapped)
		o->m.ops->free(o->mstate, &o->m);
	free(o);
	return 0;
}

static struct axl__cbuf *get_buf(axl_compute *c, axl_buffer b, const char *fn)
{
	struct axl__cbuf *o = axl__handle_get(&c->h, b, AXL__H_BUFFER);
	if (!o)
		axl__error(AXL_EINVAL, "%s: 0x%" PRIx64 " is not a live buffer of this context", fn, b);
	return o;
}

AXL_API int axl_buffer_info(axl_compute *c, axl_buffer b, uint64_t *size, axl_memory_kind *kind,
			    const axl_compute_device **dev)
{
	if (!c)
		return axl__error(AXL_EINVAL, "axl_buffer_info: the compute context is NULL");
	struct axl__cbuf *o = get_buf(c, b, "axl_buffer_info");
	if (!o)
		return AXL_EINVAL;
	if (size)
		*size = o->m.size;
	if (kind)
		*kind = o->m.kind;
	if (dev)
		*dev = o->dev;
	axl__handle_put(&c->h, b);
	return 0;
}

AXL_API int axl_buffer_host_pointer(axl_compute *c, axl_buffer b, void **ptr)
{
	if (!c || !ptr)
		return axl__error(AXL_EINVAL, "axl_buffer_host_pointer: %s is NULL", !c ? "the context" : "ptr");
	struct axl__cbuf *o = get_buf(c, b, "axl_buffer_host_pointer");
	if (!o)
		return AXL_EINVAL;
	int rc = 0;
	/* device memory has no CPU address, even where (the host CPU) it happens to */
	if (o->m.kind == AXL_MEMORY_DEVICE || !o->m.host)
		rc = axl__error(AXL_EINVAL, "axl_buffer_host_pointer: buffer 0x%" PRIx64 " is device memory of %s", b,
				dev_id(o->dev));
	else
		*ptr = o->m.host;
	axl__handle_put(&c->h, b);
	return rc;
}

/* ---- queues ------------------------------------------------------------------------- */
AXL_API int axl_queue_create(axl_compute *c, const axl_compute_device *d, axl_queue *out)
{
	int rc = check_dev(c, d, "axl_queue_create");
	if (rc)
		return rc;
	if (!out)
		return axl__error(AXL_EINVAL, "axl_queue_create: out is NULL");
	*out = 0;
	struct axl__cqueue *q = calloc(1, sizeof *q);
	if (!q)
		return axl__error(AXL_ENOMEM, "axl_queue_create: out of memory");
	q->dev = d;
	if ((rc = d->ops->queue_create(d->state, d->native, &q->native))) {
		free(q);
		return rc;
	}
	if ((rc = axl__handle_new(&c->h, AXL__H_QUEUE, q, out))) {
		d->ops->queue_free(d->state, q->native);
		free(q);
	}
	return rc;
}

AXL_API int axl_queue_free(axl_compute *c, axl_queue q)
{
	if (!c)
		return axl__error(AXL_EINVAL, "axl_queue_free: the compute context is NULL");
	struct axl__cqueue *o = axl__handle_retire(&c->h, q, AXL__H_QUEUE);
	if (!o)
		return axl__error(AXL_EINVAL,
				  "axl_queue_free: 0x%" PRIx64 " is not a queue of this context (freed already?)", q);
	o->dev->ops->queue_free(o->dev->state, o->native);
	free(o);
	return 0;
}

AXL_API int axl_queue_sync(axl_compute *c, axl_queue q)
{
	if (!c)
		return axl__error(AXL_EINVAL, "axl_queue_sync: the compute context is NULL");
	struct axl__cqueue *o = axl__handle_get(&c->h, q, AXL__H_QUEUE);
	if (!o)
		return axl__error(AXL_EINVAL, "axl_queue_sync: 0x%" PRIx64 " is not a live queue of this context", q);
	int rc = o->dev->ops->queue_sync(o->dev->state, o->native);
	axl__handle_put(&c->h, q);
	return rc;
}

/* ---- commands ----------------------------------------------------------------------- */
/* Does [off, off + size) lie inside a buffer of len bytes? */
static bool inside(uint64_t off, uint64_t size, uint64_t len)
{
	uint64_t end;
	return !__builtin_add_overflow(off, size, &end) && end <= len;
}

/* An event on q (a reference held by the caller) into *out. */
static int record(axl_compute *c, struct axl__cqueue *q, axl_event *out)
{
	struct cevent *e = calloc(1, sizeof *e);
	if (!e)
		return axl__error(AXL_ENOMEM, "compute: out of memory for an event");
	e->dev = q->dev;
	int rc = q->dev->ops->event_record(q->dev->state, q->native, &e->native);
	if (rc) {
		free(e);
		return rc;
	}
	if ((rc = axl__handle_new(&c->h, AXL__H_EVENT, e, out))) {
		q->dev->ops->event_free(q->dev->state, e->native);
		free(e);
	}
	return rc;
}

AXL_API int axl_copy(axl_compute *c, axl_queue q, axl_buffer dst, uint64_t dst_offset, axl_buffer src,
		     uint64_t src_offset, uint64_t size, axl_copy_path *path, axl_event *done)
{
	if (!c)
		return axl__error(AXL_EINVAL, "axl_copy: the compute context is NULL");
	if (done)
		*done = 0;
	if (!size)
		return axl__error(AXL_EINVAL, "axl_copy: a copy of 0 bytes");
	struct axl__cqueue *qo = axl__handle_get(&c->h, q, AXL__H_QUEUE);
	struct axl__cbuf *d = get_buf(c, dst, "axl_copy (destination)");
	struct axl__cbuf *s = d ? get_buf(c, src, "axl_copy (source)") : NULL;
	int rc = 0;
	if (!qo)
		rc = axl__error(AXL_EINVAL, "axl_copy: 0x%" PRIx64 " is not a live queue of this context", q);
	else if (!d || !s)
		rc = AXL_EINVAL;
	else if (!inside(dst_offset, size, d->m.size))
		rc = axl__error(AXL_EINVAL,
				"axl_copy: %" PRIu64 " bytes at %" PRIu64 " run past the destination's %" PRIu64, size,
				dst_offset, d->m.size);
	else if (!inside(src_offset, size, s->m.size))
		rc = axl__error(AXL_EINVAL, "axl_copy: %" PRIu64 " bytes at %" PRIu64 " run past the source's %" PRIu64,
				size, src_offset, s->m.size);
	else if (d == s && dst_offset < src_offset + size && src_offset < dst_offset + size)
		rc = axl__error(AXL_EINVAL,
				"axl_copy: %" PRIu64 " bytes from %" PRIu64 " to %" PRIu64 " of one buffer overlap",
				size, src_offset, dst_offset);
	if (!rc)
		rc = axl__compute_route(c, qo, d, dst_offset, s, src_offset, size, path);
	if (!rc && done)
		rc = record(c, qo, done);
	if (s)
		axl__handle_put(&c->h, src);
	if (d)
		axl__handle_put(&c->h, dst);
	if (qo)
		axl__handle_put(&c->h, q);
	return rc;
}

AXL_API int axl_fill(axl_compute *c, axl_queue q, axl_buffer dst, uint64_t offset, uint64_t size, uint8_t value,
		     axl_event *done)
{
	if (!c)
		return axl__error(AXL_EINVAL, "axl_fill: the compute context is NULL");
	if (done)
		*done = 0;
	if (!size)
		return axl__error(AXL_EINVAL, "axl_fill: a fill of 0 bytes");
	struct axl__cqueue *qo = axl__handle_get(&c->h, q, AXL__H_QUEUE);
	struct axl__cbuf *d = get_buf(c, dst, "axl_fill");
	int rc = 0;
	if (!qo)
		rc = axl__error(AXL_EINVAL, "axl_fill: 0x%" PRIx64 " is not a live queue of this context", q);
	else if (!d)
		rc = AXL_EINVAL;
	else if (!inside(offset, size, d->m.size))
		rc = axl__error(AXL_EINVAL, "axl_fill: %" PRIu64 " bytes at %" PRIu64 " run past the buffer's %" PRIu64,
				size, offset, d->m.size);
	else if (!near(d, qo->dev))
		rc = axl__error(AXL_EINVAL, "axl_fill: device memory of %s is filled on a queue of %s, not of %s",
				dev_id(d->dev), dev_id(d->dev), dev_id(qo->dev));
	if (!rc) {
		rc = qo->dev->ops->fill(qo->dev->state, qo->native, &d->m, offset, size, value);
		if (!rc && done)
			rc = record(c, qo, done);
	}
	if (d)
		axl__handle_put(&c->h, dst);
	if (qo)
		axl__handle_put(&c->h, q);
	return rc;
}

/* ---- events ------------------------------------------------------------------------- */
AXL_API int axl_event_record(axl_compute *c, axl_queue q, axl_event *out)
{
	if (!c || !out)
		return axl__error(AXL_EINVAL, "axl_event_record: %s is NULL", !c ? "the context" : "out");
	*out = 0;
	struct axl__cqueue *qo = axl__handle_get(&c->h, q, AXL__H_QUEUE);
	if (!qo)
		return axl__error(AXL_EINVAL, "axl_event_record: 0x%" PRIx64 " is not a live queue of this context", q);
	int rc = record(c, qo, out);
	axl__handle_put(&c->h, q);
	return rc;
}

AXL_API int axl_event_wait(axl_compute *c, axl_event e)
{
	if (!c)
		return axl__error(AXL_EINVAL, "axl_event_wait: the compute context is NULL");
	struct cevent *o = axl__handle_get(&c->h, e, AXL__H_EVENT);
	if (!o)
		return axl__error(AXL_EINVAL, "axl_event_wait: 0x%" PRIx64 " is not a live event of this context", e);
	int rc;
	/* notified already: how it ended, without asking the runtime again */
	struct axl__notice *n = __atomic_load_n(&o->notice, __ATOMIC_ACQUIRE);
	if (!n || !axl__notice_done(n, &rc))
		rc = o->dev->ops->event_wait(o->dev->state, o->native);
	axl__handle_put(&c->h, e);
	return rc;
}

AXL_API int axl_event_notify(axl_compute *c, axl_event e, int fd)
{
	if (!c)
		return axl__error(AXL_EINVAL, "axl_event_notify: the compute context is NULL");
	int fl = fd < 0 ? -1 : fcntl(fd, F_GETFL);
	if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY)
		return axl__error(AXL_EINVAL, "axl_event_notify: %d is not a file descriptor open for writing", fd);
	struct cevent *o = axl__handle_get(&c->h, e, AXL__H_EVENT);
	if (!o)
		return axl__error(AXL_EINVAL, "axl_event_notify: 0x%" PRIx64 " is not a live event of this context", e);
	int rc = 0;
	struct axl__notice *n = NULL;
	pthread_mutex_lock(&c->notifier_lock); /* one notice per event */
	if (__atomic_load_n(&o->notice, __ATOMIC_ACQUIRE))
		rc = axl__error(AXL_EINVAL, "axl_event_notify: event 0x%" PRIx64 " is notified already", e);
	else if (!c->notifier && !(c->notifier = axl__notifier_new()))
		rc = axl__error(AXL_ENOMEM, "axl_event_notify: out of memory");
	else if (!(rc = axl__notice_start(c->notifier, o->dev->ops, o->dev->state, o->native, fd, e, &n)))
		__atomic_store_n(&o->notice, n, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&c->notifier_lock);
	axl__handle_put(&c->h, e);
	return rc;
}

AXL_API int axl_event_elapsed_ns(axl_compute *c, axl_event start, axl_event end, int64_t *ns)
{
	if (!c || !ns)
		return axl__error(AXL_EINVAL, "axl_event_elapsed_ns: %s is NULL", !c ? "the context" : "ns");
	struct cevent *a = axl__handle_get(&c->h, start, AXL__H_EVENT);
	struct cevent *b = axl__handle_get(&c->h, end, AXL__H_EVENT);
	int rc = 0;
	if (!a || !b)
		rc = axl__error(AXL_EINVAL, "axl_event_elapsed_ns: 0x%" PRIx64 " is not a live event of this context",
				!a ? start : end);
	else if (a->dev != b->dev)
		rc = axl__error(AXL_EINVAL, "axl_event_elapsed_ns: the events are of two devices (%s, %s)",
				dev_id(a->dev), dev_id(b->dev));
	/* "completed events": waiting costs nothing when they are, and makes them so */
	if (!rc)
		rc = a->dev->ops->event_wait(a->dev->state, a->native);
	if (!rc)
		rc = b->dev->ops->event_wait(b->dev->state, b->native);
	if (!rc)
		rc = a->dev->ops->event_elapsed(a->dev->state, a->native, b->native, ns);
	if (b)
		axl__handle_put(&c->h, end);
	if (a)
		axl__handle_put(&c->h, start);
	return rc;
}

AXL_API int axl_event_free(axl_compute *c, axl_event e)
{
	if (!c)
		return axl__error(AXL_EINVAL, "axl_event_free: the compute context is NULL");
	struct cevent *o = axl__handle_retire(&c->h, e, AXL__H_EVENT);
	if (!o)
		return axl__error(AXL_EINVAL,
				  "axl_event_free: 0x%" PRIx64 " is not an event of this context (freed already?)", e);
	return event_destroy(c, o);
}
