/* SPDX-License-Identifier: MIT */
/*
 * The vulkan compute backend's queues, copies, fills and events, and its ops table
 * (opening, devices and memory are in vulkan.c).
 *
 * - Host memory that is not one of this device's VkBuffers (host buffers, another
 *   backend's pinned memory, wrapped memory) is imported with VK_EXT_external_memory_host
 *   for the copy (the device reads and writes it in queue order, at full speed); a device
 *   without that extension (or an import the driver refuses) has the copy done in order
 *   but synchronously: the queue is drained, then the bytes go through the queue's pinned
 *   staging buffer in chunks.
 * - A queue is a command pool and a timeline semaphore: every command buffer signals
 *   the next value, so events and synchronisation are waits for a value. Every command
 *   buffer starts with a transfer→transfer barrier (Vulkan does not order transfers by
 *   itself) and ends with a transfer→host barrier. axl queues of one device share its
 *   VkQueue, submitted to under a lock.
 * - Events: a timestamp query (×timestampPeriod) where the queue family has
 *   timestampValidBits; else CLOCK_MONOTONIC when the wait first sees the event done.
 */
#define _GNU_SOURCE /* clock_gettime with -std=c11 */
#define VK_NO_PROTOTYPES
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vulkan/vulkan_core.h>

#include "ccall.h"
#include "compute_impl.h"
#include "vulkan_impl.h"

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ---- queues ------------------------------------------------------------------------ */
static void queue_put(struct vk_queue *q)
{
	if (atomic_fetch_sub(&q->refs, 1) != 1)
		return;
	struct vk_dev *d = q->d;
	for (size_t i = 0; i < q->nslots; i++)
		for (struct vk_buf *b = q->slots[i].imports, *nx; b; b = nx) {
			nx = b->next;
			axl__vk_buf_destroy(d, b);
			free(b);
		}
	free(q->slots);
	axl__vk_buf_destroy(d, &q->scratch);
	axl__vk_buf_destroy(d, &q->staging);
	if (q->sem)
		d->f.vkDestroySemaphore(d->dev, q->sem, NULL);
	if (q->pool)
		d->f.vkDestroyCommandPool(d->dev, q->pool, NULL);
	pthread_mutex_destroy(&q->lock);
	free(q);
}

static int queue_create_call(void *argp)
{
	struct dev_arg *a = argp;
	struct vk_dev *d = a->d;
	int rc = axl__vk_dev_ready(d);
	if (rc)
		return rc;
	struct vk_queue *q = calloc(1, sizeof *q);
	if (!q)
		return axl__error(AXL_ENOMEM, "compute vulkan: out of memory for a queue");
	q->d = d;
	atomic_init(&q->refs, 1);
	pthread_mutex_init(&q->lock, NULL);
	VkCommandPoolCreateInfo pci = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
					.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
					.queueFamilyIndex = d->family };
	VkResult r = d->f.vkCreateCommandPool(d->dev, &pci, NULL, &q->pool);
	if (r != VK_SUCCESS) {
		q->pool = VK_NULL_HANDLE;
		queue_put(q);
		return axl__vk_fail(d, r, "vkCreateCommandPool", 0);
	}
	VkSemaphoreTypeCreateInfo sti = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
					  .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE };
	VkSemaphoreCreateInfo sci = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &sti };
	if ((r = d->f.vkCreateSemaphore(d->dev, &sci, NULL, &q->sem)) != VK_SUCCESS) {
		q->sem = VK_NULL_HANDLE;
		queue_put(q);
		return axl__vk_fail(d, r, "vkCreateSemaphore", 0);
	}
	void *unused = NULL;
	if ((rc = axl__vk_buf_make(d, SCRATCH_BYTES, false, &q->scratch, &unused))) {
		queue_put(q);
		return rc;
	}
	a->q = q;
	return 0;
}

static int vk_queue_create(void *state, void *dev, void **out)
{
	struct vk_state *st = state;
	struct dev_arg a = { .d = dev };
	int rc = axl__ccall_run(st->cc, queue_create_call, &a, sizeof a, "vkCreateCommandPool");
	if (!rc)
		*out = a.q;
	return rc;
}

/* q's semaphore was seen at value: remember the highest seen. */
static void note_reached(struct vk_queue *q, uint64_t value)
{
	uint64_t was = atomic_load(&q->reached);
	while (was < value && !atomic_compare_exchange_weak(&q->reached, &was, value))
		;
}

/* Has q's semaphore reached value? Known from an earlier wait or query, else asked
 * (vkGetSemaphoreCounterValue does not wait; the copy path asks it too). An event's wait
 * and then its free each ask: the second, and a wait after a notification, cost no
 * deadline worker's hop. */
static bool has_reached(struct vk_queue *q, uint64_t value)
{
	if (atomic_load(&q->reached) >= value)
		return true;
	uint64_t v = 0;
	if (q->d->f.vkGetSemaphoreCounterValue(q->d->dev, q->sem, &v) != VK_SUCCESS || v < value)
		return false;
	note_reached(q, v);
	return true;
}

/* Wait until q's semaphore reaches value. */
static int wait_value(struct vk_queue *q, uint64_t value)
{
	VkSemaphoreWaitInfo wi = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
				   .semaphoreCount = 1,
				   .pSemaphores = &q->sem,
				   .pValues = &value };
	VkResult r = q->d->f.vkWaitSemaphores(q->d->dev, &wi, UINT64_MAX);
	if (r != VK_SUCCESS)
		return axl__vk_fail(q->d, r, "vkWaitSemaphores", 0);
	note_reached(q, value);
	return 0;
}

static int sync_call(void *argp)
{
	struct dev_arg *a = argp;
	return wait_value(a->q, a->a);
}

static int queue_wait(struct vk_state *st, struct vk_queue *q, uint64_t value)
{
	if (has_reached(q, value))
		return 0;
	struct dev_arg a = { .q = q, .a = value };
	return axl__ccall_run(st->cc, sync_call, &a, sizeof a, "vkWaitSemaphores");
}

static int vk_queue_sync(void *state, void *qp)
{
	struct vk_queue *q = qp;
	pthread_mutex_lock(&q->lock);
	uint64_t upto = q->submitted;
	pthread_mutex_unlock(&q->lock);
	return queue_wait(state, q, upto);
}

static void vk_queue_free(void *state, void *qp)
{
	vk_queue_sync(state, qp);
	queue_put(qp);
}

/* A command buffer to record into, under q->lock: a free one, one whose submission is
 * done (its imports released), or a new one. */
static int slot_take(struct vk_queue *q, struct vk_slot **out)
{
	struct vk_dev *d = q->d;
	uint64_t done = 0;
	if (d->f.vkGetSemaphoreCounterValue(d->dev, q->sem, &done) != VK_SUCCESS)
		done = 0;
	note_reached(q, done);
	for (size_t i = 0; i < q->nslots; i++) {
		struct vk_slot *s = &q->slots[i];
		if (s->value && s->value > done)
			continue;
		for (struct vk_buf *b = s->imports, *nx; b; b = nx) {
			nx = b->next;
			axl__vk_buf_destroy(d, b);
			free(b);
		}
		s->imports = NULL;
		s->value = 0;
		d->f.vkResetCommandBuffer(s->cb, 0);
		*out = s;
		return 0;
	}
	struct vk_slot *v = realloc(q->slots, (q->nslots + 1) * sizeof *v);
	if (!v)
		return axl__error(AXL_ENOMEM, "compute vulkan: out of memory for a command buffer");
	q->slots = v;
	struct vk_slot *s = &v[q->nslots];
	*s = (struct vk_slot){ 0 };
	VkCommandBufferAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
					   .commandPool = q->pool,
					   .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
					   .commandBufferCount = 1 };
	VkResult r = d->f.vkAllocateCommandBuffers(d->dev, &ai, &s->cb);
	if (r != VK_SUCCESS)
		return axl__vk_fail(d, r, "vkAllocateCommandBuffers", 0);
	q->nslots++;
	*out = s;
	return 0;
}

static void barrier(struct vk_dev *d, VkCommandBuffer cb, VkPipelineStageFlags dst_stage, VkAccessFlags dst_access)
{
	VkMemoryBarrier mb = { .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
			       .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
			       .dstAccessMask = dst_access };
	d->f.vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, dst_stage, 0, 1, &mb, 0, NULL, 0, NULL);
}

static int slot_begin(struct vk_queue *q, struct vk_slot *s)
{
	VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
					.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT };
	VkResult r = q->d->f.vkBeginCommandBuffer(s->cb, &bi);
	if (r != VK_SUCCESS)
		return axl__vk_fail(q->d, r, "vkBeginCommandBuffer", 0);
	/* in queue order: what earlier submissions wrote is what this one reads */
	barrier(q->d, s->cb, VK_PIPELINE_STAGE_TRANSFER_BIT,
		VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
	return 0;
}

/* End s and submit it, signalling the queue's next value. On failure s is left free. */
static int slot_submit(struct vk_queue *q, struct vk_slot *s, const char *what, uint64_t size)
{
	struct vk_dev *d = q->d;
	barrier(d, s->cb, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
	VkResult r = d->f.vkEndCommandBuffer(s->cb);
	if (r != VK_SUCCESS)
		return axl__vk_fail(d, r, "vkEndCommandBuffer", size);
	uint64_t value = q->submitted + 1;
	VkTimelineSemaphoreSubmitInfo ts = { .sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
					     .signalSemaphoreValueCount = 1,
					     .pSignalSemaphoreValues = &value };
	VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
			    .pNext = &ts,
			    .commandBufferCount = 1,
			    .pCommandBuffers = &s->cb,
			    .signalSemaphoreCount = 1,
			    .pSignalSemaphores = &q->sem };
	pthread_mutex_lock(&d->qlock);
	r = d->f.vkQueueSubmit(d->queue, 1, &si, VK_NULL_HANDLE);
	pthread_mutex_unlock(&d->qlock);
	if (r != VK_SUCCESS)
		return axl__vk_fail(d, r, what, size);
	q->submitted = value;
	s->value = value;
	return 0;
}

/* Release a slot that was not submitted. */
static void slot_abandon(struct vk_queue *q, struct vk_slot *s)
{
	for (struct vk_buf *b = s->imports, *nx; b; b = nx) {
		nx = b->next;
		axl__vk_buf_destroy(q->d, b);
		free(b);
	}
	s->imports = NULL;
	s->value = 0;
	q->d->f.vkResetCommandBuffer(s->cb, 0);
}

/* Host memory at p (size bytes) as a buffer of q's device for s's lifetime: *buf, *off.
 * Non-zero when the driver cannot import it (the caller falls back). */
static int import_host(struct vk_queue *q, struct vk_slot *s, void *p, uint64_t size, VkBuffer *buf,
		       VkDeviceSize *off)
{
	struct vk_dev *d = q->d;
	if (!d->has_import)
		return -1;
	uintptr_t al = (uintptr_t)d->import_align;
	uintptr_t base = (uintptr_t)p & ~(al - 1);
	uint64_t len = ((uintptr_t)p - base + size + al - 1) & ~(uint64_t)(al - 1);
	VkMemoryHostPointerPropertiesEXT hp = { .sType = VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT };
	if (d->f.vkGetMemoryHostPointerPropertiesEXT(d->dev, VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT,
						     (void *)base, &hp) != VK_SUCCESS)
		return -1;
	struct vk_buf *b = calloc(1, sizeof *b);
	if (!b)
		return -1;
	b->d = d;
	VkExternalMemoryBufferCreateInfo ebi = { .sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO,
						 .handleTypes =
						     VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT };
	VkBufferCreateInfo bci = { .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
				   .pNext = &ebi,
				   .size = len,
				   .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
				   .sharingMode = VK_SHARING_MODE_EXCLUSIVE };
	if (d->f.vkCreateBuffer(d->dev, &bci, NULL, &b->buf) != VK_SUCCESS) {
		free(b);
		return -1;
	}
	VkMemoryRequirements req;
	d->f.vkGetBufferMemoryRequirements(d->dev, b->buf, &req);
	int t = axl__vk_mem_type(d, req.memoryTypeBits & hp.memoryTypeBits, 0, VK_MEMORY_PROPERTY_HOST_CACHED_BIT, 0);
	VkImportMemoryHostPointerInfoEXT imp = { .sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT,
						 .handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT,
						 .pHostPointer = (void *)base };
	VkMemoryAllocateInfo mai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
				     .pNext = &imp,
				     .allocationSize = len,
				     .memoryTypeIndex = 0 };
	if (t < 0 || req.size > len) {
		axl__vk_buf_destroy(d, b);
		free(b);
		return -1;
	}
	mai.memoryTypeIndex = (uint32_t)t;
	if (d->f.vkAllocateMemory(d->dev, &mai, NULL, &b->mem) != VK_SUCCESS) {
		b->mem = VK_NULL_HANDLE;
		axl__vk_buf_destroy(d, b);
		free(b);
		return -1;
	}
	if (d->f.vkBindBufferMemory(d->dev, b->buf, b->mem, 0) != VK_SUCCESS) {
		axl__vk_buf_destroy(d, b);
		free(b);
		return -1;
	}
	b->next = s->imports;
	s->imports = b;
	*buf = b->buf;
	*off = (uintptr_t)p - base;
	return 0;
}

/* One end of a transfer as (buffer, offset): this device's own VkBuffer, or imported
 * host memory. Non-zero: host memory that could not be imported. */
static int end_of(struct vk_queue *q, struct vk_slot *s, const struct axl__cmem *m, uint64_t off, uint64_t size,
		  VkBuffer *buf, VkDeviceSize *boff)
{
	if (m->ops == &axl__compute_vulkan && m->kind != AXL_MEMORY_HOST && ((struct vk_buf *)m->mem)->d == q->d) {
		*buf = ((struct vk_buf *)m->mem)->buf;
		*boff = off;
		return 0;
	}
	return import_host(q, s, (unsigned char *)m->host + off, size, buf, boff);
}

/* Record a fill of [off, off+size) of buf: vkCmdFillBuffer takes 4-byte aligned ranges,
 * so an unaligned head and tail are copied from the queue's scratch, filled first. */
static void record_fill(struct vk_queue *q, VkCommandBuffer cb, VkBuffer buf, VkDeviceSize off, uint64_t size,
			uint8_t value)
{
	struct vk_dev *d = q->d;
	uint32_t word = value * 0x01010101u;
	uint64_t head = (4 - off % 4) % 4;
	if (head > size)
		head = size;
	uint64_t mid = (size - head) & ~(uint64_t)3, tail = size - head - mid;
	if (head || tail) {
		d->f.vkCmdFillBuffer(cb, q->scratch.buf, 0, 4, word);
		barrier(d, cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
	}
	if (head) {
		VkBufferCopy r = { 0, off, head };
		d->f.vkCmdCopyBuffer(cb, q->scratch.buf, buf, 1, &r);
	}
	if (mid)
		d->f.vkCmdFillBuffer(cb, buf, off + head, mid, word);
	if (tail) {
		VkBufferCopy r = { 0, off + head + mid, tail };
		d->f.vkCmdCopyBuffer(cb, q->scratch.buf, buf, 1, &r);
	}
}

/* ---- the synchronous fallback, for host memory the device cannot import ---------- */
static int staging_ready(struct vk_queue *q)
{
	if (q->staging.buf)
		return 0;
	return axl__vk_buf_make(q->d, STAGING_BYTES, true, &q->staging, &q->staging_host);
}

/* Run one recorded piece (under q->lock) and wait for it. */
static int run_now(struct vk_queue *q, struct vk_slot *s, uint64_t size)
{
	int rc = slot_submit(q, s, "vkQueueSubmit", size);
	if (rc) {
		slot_abandon(q, s);
		return rc;
	}
	return wait_value(q, q->submitted);
}

/* A copy or fill with a host end the device cannot import: the queue is drained, then
 * the CPU moves the host bytes through the staging buffer, chunk by chunk, in order. */
static int fallback(struct vk_queue *q, const struct axl__cmem *dst, uint64_t doff, const struct axl__cmem *src,
		    uint64_t soff, uint64_t size, bool fill, uint8_t value)
{
	int rc = wait_value(q, q->submitted);
	if (rc)
		return rc;
	bool dhost = !(dst->ops == &axl__compute_vulkan && dst->kind != AXL_MEMORY_HOST);
	bool shost = fill || !(src->ops == &axl__compute_vulkan && src->kind != AXL_MEMORY_HOST);
	unsigned char *dp = dhost ? (unsigned char *)dst->host + doff : NULL;
	if (dhost && fill) {
		memset(dp, value, (size_t)size);
		return 0;
	}
	if (dhost && shost) {
		memcpy(dp, (const unsigned char *)src->host + soff, (size_t)size);
		return 0;
	}
	if ((rc = staging_ready(q)))
		return rc;
	for (uint64_t done = 0; done < size;) {
		uint64_t n = size - done < STAGING_BYTES ? size - done : STAGING_BYTES;
		struct vk_slot *s;
		if ((rc = slot_take(q, &s)) || (rc = slot_begin(q, s)))
			return rc;
		VkBufferCopy r;
		if (dhost) { /* device → staging → host */
			r = (VkBufferCopy){ soff + done, 0, n };
			q->d->f.vkCmdCopyBuffer(s->cb, ((struct vk_buf *)src->mem)->buf, q->staging.buf, 1, &r);
			if ((rc = run_now(q, s, n)))
				return rc;
			memcpy(dp + done, q->staging_host, (size_t)n);
		} else { /* host → staging → device */
			memcpy(q->staging_host, (const unsigned char *)src->host + soff + done, (size_t)n);
			r = (VkBufferCopy){ 0, doff + done, n };
			q->d->f.vkCmdCopyBuffer(s->cb, q->staging.buf, ((struct vk_buf *)dst->mem)->buf, 1, &r);
			if ((rc = run_now(q, s, n)))
				return rc;
		}
		done += n;
	}
	return 0;
}

/* ---- copies, fills, events --------------------------------------------------------- */
static int vk_copy(void *state, void *qp, const struct axl__cmem *dst, uint64_t dst_offset,
		   const struct axl__cmem *src, uint64_t src_offset, uint64_t size, axl_copy_path *path)
{
	(void)state;
	struct vk_queue *q = qp;
	*path = dst->host && src->host ? AXL_COPY_PATH_HOST : AXL_COPY_PATH_DEVICE;
	pthread_mutex_lock(&q->lock);
	struct vk_slot *s;
	int rc = slot_take(q, &s);
	if (!rc && !(rc = slot_begin(q, s))) {
		VkBuffer db, sb;
		VkDeviceSize dof, sof;
		if (end_of(q, s, dst, dst_offset, size, &db, &dof) || end_of(q, s, src, src_offset, size, &sb, &sof)) {
			slot_abandon(q, s);
			rc = fallback(q, dst, dst_offset, src, src_offset, size, false, 0);
		} else {
			VkBufferCopy r = { sof, dof, size };
			q->d->f.vkCmdCopyBuffer(s->cb, sb, db, 1, &r);
			if ((rc = slot_submit(q, s, "vkQueueSubmit (vkCmdCopyBuffer)", size)))
				slot_abandon(q, s);
		}
	}
	pthread_mutex_unlock(&q->lock);
	return rc;
}

static int vk_fill(void *state, void *qp, const struct axl__cmem *dst, uint64_t offset, uint64_t size, uint8_t value)
{
	(void)state;
	struct vk_queue *q = qp;
	pthread_mutex_lock(&q->lock);
	struct vk_slot *s;
	int rc = slot_take(q, &s);
	if (!rc && !(rc = slot_begin(q, s))) {
		VkBuffer db;
		VkDeviceSize dof;
		if (end_of(q, s, dst, offset, size, &db, &dof)) {
			slot_abandon(q, s);
			rc = fallback(q, dst, offset, dst, 0, size, true, value);
		} else {
			record_fill(q, s->cb, db, dof, size, value);
			if ((rc = slot_submit(q, s, "vkQueueSubmit (vkCmdFillBuffer)", size)))
				slot_abandon(q, s);
		}
	}
	pthread_mutex_unlock(&q->lock);
	return rc;
}

static int vk_event_record(void *state, void *qp, void **out)
{
	(void)state;
	struct vk_queue *q = qp;
	struct vk_dev *d = q->d;
	struct vk_event *ev = calloc(1, sizeof *ev);
	if (!ev)
		return axl__error(AXL_ENOMEM, "compute vulkan: out of memory for an event");
	atomic_init(&ev->host_ns, 0);
	if (d->ts_bits) {
		VkQueryPoolCreateInfo qci = { .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
					      .queryType = VK_QUERY_TYPE_TIMESTAMP,
					      .queryCount = 1 };
		if (d->f.vkCreateQueryPool(d->dev, &qci, NULL, &ev->qp) != VK_SUCCESS)
			ev->qp = VK_NULL_HANDLE; /* host time instead */
	}
	pthread_mutex_lock(&q->lock);
	struct vk_slot *s;
	int rc = slot_take(q, &s);
	if (!rc && !(rc = slot_begin(q, s))) {
		if (ev->qp) {
			d->f.vkCmdResetQueryPool(s->cb, ev->qp, 0, 1);
			d->f.vkCmdWriteTimestamp(s->cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, ev->qp, 0);
		}
		if ((rc = slot_submit(q, s, "vkQueueSubmit (vkCmdWriteTimestamp)", 0)))
			slot_abandon(q, s);
	}
	if (!rc) {
		ev->q = q;
		ev->value = q->submitted;
		atomic_fetch_add(&q->refs, 1);
	}
	pthread_mutex_unlock(&q->lock);
	if (rc) {
		if (ev->qp)
			d->f.vkDestroyQueryPool(d->dev, ev->qp, NULL);
		free(ev);
		return rc;
	}
	*out = ev;
	return 0;
}

static int vk_event_wait(void *state, void *evp)
{
	struct vk_event *ev = evp;
	int rc = queue_wait(state, ev->q, ev->value);
	int64_t zero = 0;
	if (!rc)
		atomic_compare_exchange_strong(&ev->host_ns, &zero, now_ns());
	return rc;
}

static int vk_event_elapsed(void *state, void *a, void *b, int64_t *ns)
{
	(void)state;
	struct vk_event *ea = a, *eb = b;
	struct vk_dev *d = ea->q->d;
	if (ea->qp && eb->qp) {
		uint64_t t[2];
		VkResult r = d->f.vkGetQueryPoolResults(d->dev, ea->qp, 0, 1, sizeof t[0], &t[0], sizeof t[0],
							VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
		if (r == VK_SUCCESS)
			r = d->f.vkGetQueryPoolResults(d->dev, eb->qp, 0, 1, sizeof t[1], &t[1], sizeof t[1],
						       VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
		if (r != VK_SUCCESS)
			return axl__vk_fail(d, r, "vkGetQueryPoolResults", 0);
		uint64_t mask = d->ts_bits >= 64 ? UINT64_MAX : ((uint64_t)1 << d->ts_bits) - 1;
		int64_t ticks = (int64_t)((t[1] - t[0]) & mask);
		if (((t[1] - t[0]) & mask) > mask / 2) /* b before a */
			ticks -= (int64_t)(mask + 1);
		*ns = (int64_t)((double)ticks * d->ts_period);
		return 0;
	}
	*ns = atomic_load(&eb->host_ns) - atomic_load(&ea->host_ns);
	return 0;
}

static void vk_event_free(void *state, void *evp)
{
	struct vk_event *ev = evp;
	/* the queue may not have reached it: its query pool is written until it does */
	queue_wait(state, ev->q, ev->value);
	if (ev->qp)
		ev->q->d->f.vkDestroyQueryPool(ev->q->d->dev, ev->qp, NULL);
	queue_put(ev->q);
	free(ev);
}

const struct axl__compute_ops axl__compute_vulkan = {
	.name = "vulkan",
	.open = axl__vk_open,
	.close = axl__vk_close,
	.mem_info = axl__vk_mem_info,
	.alloc = axl__vk_alloc,
	.free = axl__vk_free,
	.queue_create = vk_queue_create,
	.queue_free = vk_queue_free,
	.queue_sync = vk_queue_sync,
	.copy = vk_copy,
	.peer_copy = NULL,
	.fill = vk_fill,
	.event_record = vk_event_record,
	.event_wait = vk_event_wait,
	.event_elapsed = vk_event_elapsed,
	.event_free = vk_event_free,
};
