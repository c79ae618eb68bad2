/* SPDX-License-Identifier: MIT */
/*
 * The vulkan compute backend's private header: the loader's function tables, the state,
 * device, buffer, queue and event structs, and the functions vulkan.c (opening, devices,
 * memory) gives vulkan_queue.c (queues, copies, fills, events, the ops table).
 */
#ifndef AXL_VULKAN_IMPL_H
#define AXL_VULKAN_IMPL_H

#ifndef VK_NO_PROTOTYPES
#define VK_NO_PROTOTYPES
#endif
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <vulkan/vulkan_core.h>

#include "ccall.h"
#include "compute_impl.h"

#define STAGING_BYTES (8u << 20) /* the synchronous fallback's chunk */
#define SCRATCH_BYTES 256u       /* a fill's unaligned head and tail come from here */

/* ---- the loader's functions -------------------------------------------------------- */
#define VK_INSTANCE_FNS(X)                                                                                             \
	X(vkDestroyInstance)                                                                                           \
	X(vkEnumeratePhysicalDevices)                                                                                  \
	X(vkGetPhysicalDeviceProperties)                                                                               \
	X(vkGetPhysicalDeviceProperties2)                                                                              \
	X(vkGetPhysicalDeviceFeatures2)                                                                                \
	X(vkGetPhysicalDeviceQueueFamilyProperties)                                                                    \
	X(vkGetPhysicalDeviceMemoryProperties)                                                                         \
	X(vkGetPhysicalDeviceMemoryProperties2)                                                                        \
	X(vkEnumerateDeviceExtensionProperties)                                                                        \
	X(vkCreateDevice)                                                                                              \
	X(vkGetDeviceProcAddr)

#define VK_DEVICE_FNS(X)                                                                                               \
	X(vkDestroyDevice)                                                                                             \
	X(vkDeviceWaitIdle)                                                                                            \
	X(vkGetDeviceQueue)                                                                                            \
	X(vkCreateBuffer)                                                                                              \
	X(vkDestroyBuffer)                                                                                             \
	X(vkGetBufferMemoryRequirements)                                                                               \
	X(vkAllocateMemory)                                                                                            \
	X(vkFreeMemory)                                                                                                \
	X(vkBindBufferMemory)                                                                                          \
	X(vkMapMemory)                                                                                                 \
	X(vkCreateCommandPool)                                                                                         \
	X(vkDestroyCommandPool)                                                                                        \
	X(vkAllocateCommandBuffers)                                                                                    \
	X(vkResetCommandBuffer)                                                                                        \
	X(vkBeginCommandBuffer)                                                                                        \
	X(vkEndCommandBuffer)                                                                                          \
	X(vkCmdCopyBuffer)                                                                                             \
	X(vkCmdFillBuffer)                                                                                             \
	X(vkCmdPipelineBarrier)                                                                                        \
	X(vkCmdWriteTimestamp)                                                                                         \
	X(vkCmdResetQueryPool)                                                                                         \
	X(vkCreateQueryPool)                                                                                           \
	X(vkDestroyQueryPool)                                                                                          \
	X(vkGetQueryPoolResults)                                                                                       \
	X(vkQueueSubmit)                                                                                               \
	X(vkCreateSemaphore)                                                                                           \
	X(vkDestroySemaphore)                                                                                          \
	X(vkWaitSemaphores)                                                                                            \
	X(vkGetSemaphoreCounterValue)

#define DECL(f) PFN_##f f;
struct vk_ifn {
	VK_INSTANCE_FNS(DECL)
};
struct vk_dfn {
	VK_DEVICE_FNS(DECL)
	PFN_vkGetMemoryHostPointerPropertiesEXT vkGetMemoryHostPointerPropertiesEXT; /* NULL: no import */
};
#undef DECL


struct vk_state;

struct vk_dev {
	struct vk_state *st;
	unsigned index;
	char name[128];
	VkPhysicalDevice phys;
	uint32_t api;
	bool has_budget, has_import, has_pci;
	/* made on first use, under st->lock */
	bool ready;
	VkDevice dev;
	struct vk_dfn f;
	VkQueue queue;
	pthread_mutex_t qlock; /* VkQueue access is externally synchronised */
	uint32_t family;
	uint32_t ts_bits;
	float ts_period;
	uint32_t heap; /* the device-local heap */
	VkPhysicalDeviceMemoryProperties mp;
	VkDeviceSize import_align;
	_Atomic uint64_t allocated; /* device memory this context holds, for the estimate */
};

struct vk_state {
	const axl_context *ctx;
	struct axl__ccall *cc;
	PFN_vkGetInstanceProcAddr gipa;
	VkInstance inst;
	struct vk_ifn f;
	pthread_mutex_t lock;
	struct vk_dev *devs;
	uint32_t ndev;
};

/* A VkBuffer with its memory: device and pinned buffers, and imported host ranges. */
struct vk_buf {
	struct vk_dev *d;
	VkBuffer buf;
	VkDeviceMemory mem;
	struct vk_buf *next; /* imports held by a command buffer */
};

struct vk_slot {
	VkCommandBuffer cb;
	uint64_t value; /* the semaphore value its submission signals; 0: free */
	struct vk_buf *imports;
};

struct vk_queue {
	struct vk_dev *d;
	atomic_int refs; /* the queue and its events */
	pthread_mutex_t lock;
	VkCommandPool pool;
	VkSemaphore sem;
	uint64_t submitted; /* the last value a submission signals */
	_Atomic uint64_t reached; /* a value the semaphore is known to have reached */
	struct vk_slot *slots;
	size_t nslots;
	struct vk_buf scratch; /* device memory: a fill's unaligned bytes */
	struct vk_buf staging; /* pinned, for the fallback; made when first needed */
	void *staging_host;
};

struct vk_event {
	struct vk_queue *q;
	uint64_t value;
	VkQueryPool qp; /* VK_NULL_HANDLE: host time */
	_Atomic int64_t host_ns;
};

struct dev_arg {
	struct vk_dev *d;
	void *q;
	struct axl__cmem *m;
	uint64_t a, b;
};

/* vulkan.c: errors, opening, devices, memory */
int axl__vk_fail(struct vk_dev *d, VkResult r, const char *call, uint64_t size);
int axl__vk_dev_ready(struct vk_dev *d);
int axl__vk_mem_type(const struct vk_dev *d, uint32_t bits, VkMemoryPropertyFlags want, VkMemoryPropertyFlags like,
		     VkMemoryPropertyFlags unlike);
void axl__vk_buf_destroy(struct vk_dev *d, struct vk_buf *b);
int axl__vk_buf_make(struct vk_dev *d, uint64_t size, bool pinned, struct vk_buf *b, void **host);
int axl__vk_open(const axl_context *ctx, const char *library, void **state, struct axl__compute_found **found,
		 size_t *n);
void axl__vk_close(void *state);
int axl__vk_mem_info(void *state, void *dev, uint64_t *free_bytes, uint64_t *total_bytes);
int axl__vk_alloc(void *state, void *dev, struct axl__cmem *m);
void axl__vk_free(void *state, struct axl__cmem *m);

#endif
