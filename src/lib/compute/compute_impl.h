/* SPDX-License-Identifier: MIT */
/* The compute layer's insides: the backend interface every compute backend implements,
 * and the handle table. The cpu backend and the vendor-neutral ones (OpenCL, Vulkan) are
 * here; each vendor's own (CUDA, HIP, Level Zero) is in its vendor folder, reached
 * through struct axl__backend.compute. Nothing is exported. */
#ifndef AXL_COMPUTE_IMPL_H
#define AXL_COMPUTE_IMPL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "backend.h"

/* One device a backend found, before it is matched to the inventory (compute.c matches
 * by PCI address, else UUID, never by ordinal). */
struct axl__compute_found {
	char pci[32];   /* "dddd:bb:dd.f", "" when the runtime does not say */
	char uuid[64];  /* as the inventory spells it, "" when not known */
	char name[128]; /* the runtime's name of the device, "" when none */
	/* a device the runtime emulates on the host CPU (PoCL, lavapipe, SwiftShader): it
	 * matches no inventory device, and is driven, as a second face of the host CPU,
	 * only when its backend is asked for by name */
	bool software;
	void *native; /* the backend's own device */
};

/* A buffer as a backend sees it. */
struct axl__cmem {
	void *mem; /* the backend's own handle of the memory */
	/* The CPU's address: set for pinned and host memory (and the cpu backend's "device"
	 * memory, which is host memory), NULL for device memory. Any backend may treat a
	 * buffer with a host address as plain host memory, whoever allocated it. */
	void *host;
	uint64_t size;
	axl_memory_kind kind;
	void *dev; /* the native device it belongs to */
	/* host memory for a device: the NUMA node to place it on (the device's own), -1
	 * for the default policy (the allocating thread's node) */
	int numa_node;
	const struct axl__compute_ops *ops;
};

/*
 * A compute backend. state is what open() made; dev a native device it listed; q and ev
 * what it created. Every call returns 0 or an AXL_E* code with axl__error() naming the
 * device, the call and the sizes: AXL_ENOMEM for out of memory (saying how much was
 * asked and how much is free), AXL_EDEVLOST for a device that stopped answering,
 * AXL_ETIMEDOUT for a call that missed the vendor deadline (ccall.h), AXL_EBACKEND for
 * any other failure of the runtime. The core has checked the arguments (ranges, kinds,
 * handles), so a backend trusts them. Calls may come from several threads at once.
 *
 * The core opens a vendor backend only when the inventory holds a visible device of its
 * vendor, and a vendor-neutral one only when a visible accelerator is left that no
 * vendor backend drives (or when either is asked for by name).
 */
struct axl__compute_ops {
	const char *name;
	/* Load the runtime (library: a file to load instead of the system's, from the
	 * backend row's libs->compute_env; NULL: the system's) and list its devices into
	 * *found (malloc'd, *n of them). Blocking calls go through ccall.h under
	 * ctx->vendor_timeout_ms. */
	int (*open)(const axl_context *ctx, const char *library, void **state, struct axl__compute_found **found,
		    size_t *n);
	/* After every queue, buffer and event is freed. */
	void (*close)(void *state);
	int (*mem_info)(void *state, void *dev, uint64_t *free_bytes, uint64_t *total_bytes);
	/* Fill m->mem and m->host for m->size bytes of m->kind on dev. */
	int (*alloc)(void *state, void *dev, struct axl__cmem *m);
	void (*free)(void *state, struct axl__cmem *m);
	int (*queue_create)(void *state, void *dev, void **q);
	void (*queue_free)(void *state, void *q);
	int (*queue_sync)(void *state, void *q);
	/* Enqueue a copy (ranges checked, non-overlapping); *path says how it goes
	 * (AXL_COPY_PATH_HOST when both ends are host memory, else AXL_COPY_PATH_DEVICE).
	 * Each of dst and src is either host memory (host != NULL, of any backend) or
	 * device memory of q's device; a copy between two host buffers must still run in
	 * the queue's order. */
	int (*copy)(void *state, void *q, const struct axl__cmem *dst, uint64_t dst_offset, const struct axl__cmem *src,
		    uint64_t src_offset, uint64_t size, axl_copy_path *path);
	/* Optional: enqueue on q, a queue of one of the two devices, a copy between device
	 * memory of two devices of this backend, peer to peer (enabling peer access first
	 * where the runtime needs that). AXL_ENOTSUP when the two cannot reach each other:
	 * the core then stages the copy through pinned host memory. */
	int (*peer_copy)(void *state, void *q, const struct axl__cmem *dst, uint64_t dst_offset,
			 const struct axl__cmem *src, uint64_t src_offset, uint64_t size);
	int (*fill)(void *state, void *q, const struct axl__cmem *dst, uint64_t offset, uint64_t size, uint8_t value);
	/* An event that completes with what q holds now. */
	int (*event_record)(void *state, void *q, void **ev);
	int (*event_wait)(void *state, void *ev);
	/* Nanoseconds from a to b, both complete (the core waited for them). */
	int (*event_elapsed)(void *state, void *a, void *b, int64_t *ns);
	void (*event_free)(void *state, void *ev);
	/* Optional (axl_event_notify): have done(arg, rc) called once, from any thread, when
	 * ev completes (rc 0) or fails (an AXL_E code), and return 0; or fail (nothing is
	 * called) and a thread of notify.c waits with event_wait instead. done may run
	 * before this returns. */
	int (*event_notify)(void *state, void *ev, void (*done)(void *arg, int rc), void *arg);
};

/* The cpu backend (cpu.c): always there, drives the host CPU. */
extern const struct axl__compute_ops axl__compute_cpu;
/* The vendor-neutral backends, after every vendor's own in priority (generic.c):
 * NULL-terminated. */
extern const struct axl__compute_ops *const axl__compute_generic[];
/* OpenCL through the ICD loader (opencl.c). */
extern const struct axl__compute_ops axl__compute_opencl;
/* The OpenCL objects (contexts, command queues, buffers, events) the opencl backend has
 * made and not yet released, in the whole process: 0 once every context is closed.
 * LeakSanitizer cannot watch this backend under PoCL (its exit-time scan crashes on
 * the threads PoCL leaves running), so unit.test_compute_opencl checks this instead. */
long axl__opencl_live_objects(void);
/* Vulkan 1.2, through libvulkan.so.1 (vulkan.c). */
extern const struct axl__compute_ops axl__compute_vulkan;

/* ---- handles (handles.c) ------------------------------------------------------------
 * A handle is 64 bits: the context's tag (16), the kind of object (4), a generation (20)
 * and a table index (24). A freed slot's generation moves on, so an old handle, one of
 * another context or a made-up number finds nothing and is refused, never dereferenced.
 * A slot in use carries a count of the calls using its object: freeing marks it dead at
 * once (new lookups fail), then waits until those calls are done. */
enum { AXL__H_BUFFER = 1, AXL__H_QUEUE = 2, AXL__H_EVENT = 3 };

struct axl__hslot {
	void *obj;
	uint32_t gen;
	uint8_t kind; /* 0: free */
	bool dead;
	unsigned refs;
	uint32_t next_free; /* free list, index + 1 (0: end) */
};

struct axl__htable {
	pthread_mutex_t lock;
	pthread_cond_t released;
	uint16_t tag;
	struct axl__hslot *slots;
	uint32_t n, cap;
	uint32_t free_head;
	size_t live; /* slots in use */
};

int axl__htable_init(struct axl__htable *t);
void axl__htable_fini(struct axl__htable *t);
/* A new handle for obj; AXL_ENOMEM when the table is full. */
int axl__handle_new(struct axl__htable *t, int kind, void *obj, uint64_t *out);
/* The object of h (kind), with a reference the caller drops with axl__handle_put();
 * NULL when h is not a live handle of that kind in this table. */
void *axl__handle_get(struct axl__htable *t, uint64_t h, int kind);
void axl__handle_put(struct axl__htable *t, uint64_t h);
/* Retire h: later lookups fail at once; returns its object once no call uses it any
 * more, NULL when h is not live (freed, another context's, never made). */
void *axl__handle_retire(struct axl__htable *t, uint64_t h, int kind);
/* Every live object of kind, for freeing at close: the next one from *cursor (start at
 * 0), retired; NULL at the end. */
void *axl__handle_take_next(struct axl__htable *t, int kind, uint32_t *cursor);
/* The next live object of kind from *cursor (start at 0), with a reference dropped with
 * axl__handle_put(*h); NULL at the end. */
void *axl__handle_get_next(struct axl__htable *t, int kind, uint32_t *cursor, uint64_t *h);

#endif
