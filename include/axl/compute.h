/* SPDX-License-Identifier: MIT */
/**
 * @file axl/compute.h
 * Moving bytes onto accelerators: device memory, pinned host memory, copies, fills,
 * queues and events, over each vendor's own runtime (loaded with dlopen) and a CPU
 * backend that is always there. docs/compute.md describes it.
 *
 * A compute context is opened over an inventory: every compute device is matched to
 * its inventory device (by PCI address or UUID, never by ordinal) and only devices the
 * inventory marks visible are driven. The host CPU is always device 0.
 *
 * Buffers, queues and events are handles (plain numbers), not pointers: a handle that
 * was freed, never existed or belongs to another context is refused with AXL_EINVAL,
 * never used. 0 is never a valid handle.
 *
 * Every function returns 0 or a negative AXL_E* code with axl_error_last() naming the
 * device, the call and the sizes. A context may be used from several threads at once.
 */
#ifndef AXL_COMPUTE_H
#define AXL_COMPUTE_H

#include <stddef.h>
#include <stdint.h>

#include "common.h"
#include "device.h"
#include "inventory.h"

AXL_BEGIN_DECLS

typedef struct axl_compute axl_compute;
/** A device a compute backend drives; borrowed from its context. */
typedef struct axl_compute_device axl_compute_device;

typedef uint64_t axl_buffer;
typedef uint64_t axl_queue;
typedef uint64_t axl_event;

/** Where a buffer's bytes live. */
typedef enum axl_memory_kind {
	AXL_MEMORY_DEVICE = 1, /**< the device's own memory */
	AXL_MEMORY_PINNED = 2, /**< page-locked host memory the device reaches directly */
	AXL_MEMORY_HOST = 3    /**< ordinary host memory (allocated, or wrapped by pointer) */
} axl_memory_kind;

/** How a copy went. */
typedef enum axl_copy_path {
	AXL_COPY_PATH_HOST = 1,   /**< host memory to host memory, by the CPU */
	AXL_COPY_PATH_DEVICE = 2, /**< by one device: to, from or within its memory */
	AXL_COPY_PATH_PEER = 3,   /**< device to device directly (peer to peer) */
	AXL_COPY_PATH_STAGED = 4  /**< device to device through pinned host memory */
} axl_copy_path;

#define AXL_COMPUTE_OPTIONS_VERSION 1u

struct axl_compute_options {
	/** AXL_COMPUTE_OPTIONS_VERSION */
	unsigned version;
	/** Use only this backend for the accelerators ("cuda", "hip", "level-zero", "opencl",
	 * "vulkan"; "cpu" drives none of them); NULL: $AXL_COMPUTE, else each device's best
	 * backend by priority. The host CPU always has the cpu backend. */
	const char *backend;
};
#define AXL_COMPUTE_OPTIONS_INIT {AXL_COMPUTE_OPTIONS_VERSION, NULL}

/** Open a compute context over inv (which must outlive it). opts may be NULL. */
AXL_API int axl_compute_open(axl_compute **out, const axl_inventory *inv,
			     const struct axl_compute_options *opts);
/** Wait for everything queued, free every buffer, queue and event, close. NULL-safe. */
AXL_API void axl_compute_free(axl_compute *c);

/** Devices: index 0 is the host CPU. */
AXL_API size_t axl_compute_device_count(const axl_compute *c);
AXL_API const axl_compute_device *axl_compute_device_at(const axl_compute *c, size_t i);
/** The compute device of an inventory device (NULL: the host CPU); NULL when no backend
 * drives it (not visible, no runtime, no backend for its vendor). */
AXL_API const axl_compute_device *axl_compute_device_of(const axl_compute *c, const axl_device *dev);
/** Its inventory device; NULL for the host CPU. */
AXL_API const axl_device *axl_compute_device_inventory(const axl_compute_device *d);
/** The backend that drives it ("cpu", "cuda", "hip", "level-zero", "opencl", "vulkan"). */
AXL_API const char *axl_compute_device_backend(const axl_compute_device *d);
/** Its runtime's name for it ("host CPU" for the cpu backend's device). A runtime that
 * emulates a device on the host CPU (PoCL, lavapipe) is driven, as a second device with
 * no inventory device, only when its backend is asked for by name. */
AXL_API const char *axl_compute_device_name(const axl_compute_device *d);
/** Free and total memory as its runtime sees it, bytes. */
AXL_API int axl_compute_device_memory(axl_compute *c, const axl_compute_device *d, uint64_t *free_bytes,
				      uint64_t *total_bytes);
/** Wait until everything queued on the device is done. */
AXL_API int axl_compute_device_sync(axl_compute *c, const axl_compute_device *d);

/** A buffer of size bytes (> 0) of kind on d. AXL_MEMORY_HOST and AXL_MEMORY_PINNED may
 * be asked of any device, the host CPU included; AXL_MEMORY_DEVICE of the host CPU is
 * host memory. Out of memory: AXL_ENOMEM, saying how much was asked and how much is free. */
AXL_API int axl_buffer_alloc(axl_compute *c, const axl_compute_device *d, axl_memory_kind kind, uint64_t size,
			     axl_buffer *out);
/** A buffer over size bytes of the caller's host memory at ptr (AXL_MEMORY_HOST), which
 * must stay valid until the buffer is freed. */
AXL_API int axl_buffer_wrap(axl_compute *c, void *ptr, uint64_t size, axl_buffer *out);
/** Free a buffer after what is queued on it is done. A second free is AXL_EINVAL. */
AXL_API int axl_buffer_free(axl_compute *c, axl_buffer b);
/** Its size, kind and device (any of the outputs may be NULL). */
AXL_API int axl_buffer_info(axl_compute *c, axl_buffer b, uint64_t *size, axl_memory_kind *kind,
			    const axl_compute_device **dev);
/** The CPU's address of a host or pinned buffer; AXL_EINVAL for device memory. */
AXL_API int axl_buffer_host_pointer(axl_compute *c, axl_buffer b, void **ptr);

/** A queue (stream) on d: what is enqueued on one queue runs in order. */
AXL_API int axl_queue_create(axl_compute *c, const axl_compute_device *d, axl_queue *out);
/** Wait for the queue, then free it. */
AXL_API int axl_queue_free(axl_compute *c, axl_queue q);
/** Wait until everything enqueued on q is done. */
AXL_API int axl_queue_sync(axl_compute *c, axl_queue q);

/**
 * Enqueue a copy of size bytes (> 0) from src at src_offset to dst at dst_offset; both
 * ranges must lie inside their buffers, and a copy within one buffer must not overlap.
 * *path (may be NULL) says how it went; *done (may be NULL) gets an event that completes
 * with the copy.
 *
 * Host and pinned memory (of any device) are reached by every device's queues; device
 * memory by its own device's queues. A copy that the queue's device cannot do alone is
 * still done, and is then complete when axl_copy returns (after the queue's earlier
 * work): between host memory and another device's memory, by that device; between
 * device memory of two devices (the queue's and another), peer to peer when the backend
 * and the topology allow it (AXL_COPY_PATH_PEER), else staged through pinned host memory
 * (AXL_COPY_PATH_STAGED). Work on the other device's queues that the copy depends on
 * must be synchronised first. A copy between two other devices' memory is AXL_EINVAL.
 */
AXL_API int axl_copy(axl_compute *c, axl_queue q, axl_buffer dst, uint64_t dst_offset, axl_buffer src,
		     uint64_t src_offset, uint64_t size, axl_copy_path *path, axl_event *done);
/** Enqueue setting size bytes of dst from offset to value (dst: host memory, or device
 * memory of the queue's device). */
AXL_API int axl_fill(axl_compute *c, axl_queue q, axl_buffer dst, uint64_t offset, uint64_t size,
		     uint8_t value, axl_event *done);
/** An event that completes when everything enqueued on q before it is done. */
AXL_API int axl_event_record(axl_compute *c, axl_queue q, axl_event *out);
/** Wait for an event. */
AXL_API int axl_event_wait(axl_compute *c, axl_event e);
/** Nanoseconds between two completed events of one device, from its runtime's timers. */
AXL_API int axl_event_elapsed_ns(axl_compute *c, axl_event start, axl_event end, int64_t *ns);
/**
 * Have e's completion written to a file descriptor, for an event loop (epoll, libuv,
 * asyncio) to wait for it with its other work: once e has completed, or failed, its
 * handle (8 bytes, host byte order) is written to fd, from a thread of libaxl's that
 * waits for it and calls the runtime directly, so the loop is woken once. Returns at once.
 *
 * fd: a pipe's or a socket's write end, blocking (a full non-blocking pipe drops the
 * handle), kept open until the handle came or e was freed: nothing is written after
 * axl_event_free(e) returned. After the handle came, axl_event_wait(e) returns at once
 * with how e ended. One notification per event (a second one: AXL_EINVAL; so is an fd
 * not open for writing).
 *
 * A runtime that hangs never completes e, and nothing is written: wait for the handle
 * with a deadline, then call axl_event_wait(e), which has the vendor deadline
 * ($AXL_VENDOR_TIMEOUT_MS) and says AXL_ETIMEDOUT. axl_event_free(e) (and closing the
 * context) waits for a pending notification up to that deadline, then returns
 * AXL_ETIMEDOUT and leaves the runtime's event unfreed.
 */
AXL_API int axl_event_notify(axl_compute *c, axl_event e, int fd);
/** Free an event (an event asked to notify waits for its notification first: axl_event_notify). */
AXL_API int axl_event_free(axl_compute *c, axl_event e);

/** "host", "device", "peer", "staged"; NULL for an unknown value. */
AXL_API const char *axl_copy_path_name(axl_copy_path p);
/** "device", "pinned", "host"; NULL for an unknown value. */
AXL_API const char *axl_memory_kind_name(axl_memory_kind k);

AXL_END_DECLS

#endif
