/* SPDX-License-Identifier: MIT */
/*
 * The vulkan compute backend: any Vulkan 1.2 device (timeline semaphores) through the
 * system's loader, libvulkan.so.1, loaded with dlopen (never linked). Only transfer
 * commands are used: vkCmdCopyBuffer, vkCmdFillBuffer, vkCmdWriteTimestamp.
 *
 * - Devices: PCI address from VK_EXT_pci_bus_info where the device lists it, UUID from
 *   VkPhysicalDeviceIDProperties; a CPU-type device (lavapipe, SwiftShader) is software.
 *   A logical device is made the first time a device is used.
 * - Memory: device memory is DEVICE_LOCAL, pinned memory HOST_VISIBLE|HOST_COHERENT
 *   (HOST_CACHED preferred, for reads) mapped for its lifetime; both are VkBuffers.
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
 * - Memory info: VK_EXT_memory_budget; else the device-local heap's size, and that
 *   minus what this context allocated as free.
 */
#define _GNU_SOURCE /* clock_gettime, posix_memalign with -std=c11 */
#define VK_NO_PROTOTYPES
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <vulkan/vulkan_core.h>

#include <dlfcn.h>

#include "ccall.h"
#include "compute_impl.h"
#include "vlib.h"

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

/* The loader, once per process and never unloaded (a worker past its deadline may still
 * be inside it). */
static pthread_mutex_t loader_lock = PTHREAD_MUTEX_INITIALIZER;
static PFN_vkGetInstanceProcAddr loader_gipa;

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

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ---- errors ------------------------------------------------------------------------ */
static int dev_mem(struct vk_dev *d, uint64_t *free_bytes, uint64_t *total_bytes);

/* An AXL_E* code for a failed call, with the device, the call and the size. */
static int vkfail(struct vk_dev *d, VkResult r, const char *call, uint64_t size)
{
	const char *who = d ? d->name : "instance";
	unsigned idx = d ? d->index : 0;
	if (r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY) {
		uint64_t fr = 0, tot = 0;
		if (d && d->ready && dev_mem(d, &fr, &tot) == 0)
			return axl__error(AXL_ENOMEM,
					  "compute vulkan:%u (%s): %s: out of %s memory, %" PRIu64
					  " bytes asked, %" PRIu64 " bytes free",
					  idx, who, call, r == VK_ERROR_OUT_OF_HOST_MEMORY ? "host" : "device", size, fr);
		return axl__error(AXL_ENOMEM, "compute vulkan:%u (%s): %s: out of memory, %" PRIu64 " bytes asked", idx,
				  who, call, size);
	}
	if (r == VK_ERROR_DEVICE_LOST)
		return axl__error(AXL_EDEVLOST, "compute vulkan:%u (%s): %s: the device was lost (%" PRIu64 " bytes)",
				  idx, who, call, size);
	return axl__error(AXL_EBACKEND, "compute vulkan:%u (%s): %s failed with VkResult %d (%" PRIu64 " bytes)", idx,
			  who, call, (int)r, size);
}

/* ---- opening ----------------------------------------------------------------------- */
static bool has_ext(const VkExtensionProperties *e, uint32_t n, const char *name)
{
	for (uint32_t i = 0; i < n; i++)
		if (strcmp(e[i].extensionName, name) == 0)
			return true;
	return false;
}

struct open_arg {
	struct vk_state *st;
	struct axl__compute_found *found;
	size_t n;
};

static int open_call(void *argp)
{
	struct open_arg *a = argp;
	struct vk_state *st = a->st;
	PFN_vkCreateInstance create = (PFN_vkCreateInstance)st->gipa(VK_NULL_HANDLE, "vkCreateInstance");
	PFN_vkEnumerateInstanceVersion ver =
	    (PFN_vkEnumerateInstanceVersion)st->gipa(VK_NULL_HANDLE, "vkEnumerateInstanceVersion");
	uint32_t iver = VK_API_VERSION_1_0;
	if (!create || !ver || ver(&iver) != VK_SUCCESS || iver < VK_API_VERSION_1_2)
		return axl__error(AXL_ENOTSUP, "compute vulkan: the loader offers Vulkan %u.%u; 1.2 is needed",
				  VK_API_VERSION_MAJOR(iver), VK_API_VERSION_MINOR(iver));
	VkApplicationInfo app = { .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
				  .pApplicationName = "axl",
				  .pEngineName = "axl",
				  .apiVersion = VK_API_VERSION_1_2 };
	VkInstanceCreateInfo ici = { .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app };
	VkResult r = create(&ici, NULL, &st->inst);
	if (r != VK_SUCCESS)
		return vkfail(NULL, r, "vkCreateInstance", 0);
#define LOAD(fn) st->f.fn = (PFN_##fn)st->gipa(st->inst, #fn);
	VK_INSTANCE_FNS(LOAD)
#undef LOAD
	if (!st->f.vkEnumeratePhysicalDevices || !st->f.vkGetPhysicalDeviceProperties2 || !st->f.vkCreateDevice ||
	    !st->f.vkGetDeviceProcAddr)
		return axl__error(AXL_EBACKEND, "compute vulkan: the loader lacks Vulkan 1.2's instance functions");
	uint32_t n = 0;
	if ((r = st->f.vkEnumeratePhysicalDevices(st->inst, &n, NULL)) != VK_SUCCESS)
		return vkfail(NULL, r, "vkEnumeratePhysicalDevices", 0);
	VkPhysicalDevice *pd = calloc(n ? n : 1, sizeof *pd);
	st->devs = calloc(n ? n : 1, sizeof *st->devs);
	a->found = calloc(n ? n : 1, sizeof *a->found);
	if (!pd || !st->devs || !a->found) {
		free(pd);
		return axl__error(AXL_ENOMEM, "compute vulkan: out of memory listing %u devices", n);
	}
	if ((r = st->f.vkEnumeratePhysicalDevices(st->inst, &n, pd)) < 0) {
		free(pd);
		return vkfail(NULL, r, "vkEnumeratePhysicalDevices", 0);
	}
	for (uint32_t i = 0; i < n; i++) {
		VkPhysicalDeviceProperties p;
		st->f.vkGetPhysicalDeviceProperties(pd[i], &p);
		/* timeline semaphores are what queues and events are made of */
		VkPhysicalDeviceTimelineSemaphoreFeatures tl = {
			.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES
		};
		VkPhysicalDeviceFeatures2 f2 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &tl };
		if (p.apiVersion >= VK_API_VERSION_1_2)
			st->f.vkGetPhysicalDeviceFeatures2(pd[i], &f2);
		if (p.apiVersion < VK_API_VERSION_1_2 || !tl.timelineSemaphore) {
			axl__log(st->ctx, AXL_LOG_INFO, "compute vulkan: %s: no Vulkan 1.2 timeline semaphores, not used",
				 p.deviceName);
			continue;
		}
		uint32_t ne = 0;
		VkExtensionProperties *ext = NULL;
		if (st->f.vkEnumerateDeviceExtensionProperties(pd[i], NULL, &ne, NULL) == VK_SUCCESS && ne) {
			ext = calloc(ne, sizeof *ext);
			if (!ext || st->f.vkEnumerateDeviceExtensionProperties(pd[i], NULL, &ne, ext) < 0)
				ne = 0;
		}
		struct vk_dev *d = &st->devs[st->ndev];
		d->st = st;
		d->index = st->ndev;
		d->phys = pd[i];
		d->api = p.apiVersion;
		d->has_pci = has_ext(ext, ne, VK_EXT_PCI_BUS_INFO_EXTENSION_NAME);
		d->has_budget = has_ext(ext, ne, VK_EXT_MEMORY_BUDGET_EXTENSION_NAME);
		d->has_import = has_ext(ext, ne, VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME);
		free(ext);
		snprintf(d->name, sizeof d->name, "%s", p.deviceName);
		pthread_mutex_init(&d->qlock, NULL);

		VkPhysicalDevicePCIBusInfoPropertiesEXT pci = { .sType =
								    VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PCI_BUS_INFO_PROPERTIES_EXT };
		VkPhysicalDeviceExternalMemoryHostPropertiesEXT imp = {
			.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT
		};
		VkPhysicalDeviceIDProperties id = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES };
		void *chain = NULL;
		if (d->has_pci) {
			pci.pNext = chain;
			chain = &pci;
		}
		if (d->has_import) {
			imp.pNext = chain;
			chain = &imp;
		}
		id.pNext = chain;
		VkPhysicalDeviceProperties2 p2 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &id };
		st->f.vkGetPhysicalDeviceProperties2(pd[i], &p2);
		d->import_align = imp.minImportedHostPointerAlignment;
		struct axl__compute_found *fd = &a->found[a->n++];
		snprintf(fd->name, sizeof fd->name, "%s", p.deviceName);
		fd->software = p.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
		fd->native = d;
		if (d->has_pci)
			snprintf(fd->pci, sizeof fd->pci, "%04x:%02x:%02x.%x", pci.pciDomain, pci.pciBus, pci.pciDevice,
				 pci.pciFunction);
		const uint8_t *u = id.deviceUUID;
		snprintf(fd->uuid, sizeof fd->uuid,
			 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2], u[3],
			 u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
		st->ndev++;
	}
	free(pd);
	return 0;
}

static void vk_close(void *state);

static int vk_open(const axl_context *ctx, const char *library, void **state, struct axl__compute_found **found,
		   size_t *n)
{
	*found = NULL;
	*n = 0;
	pthread_mutex_lock(&loader_lock);
	if (!loader_gipa) {
		char why[256] = "";
		void *h = axl__vlib_dlopen(library ? library : "libvulkan.so.1", why, sizeof why, NULL);
		if (h)
			loader_gipa = (PFN_vkGetInstanceProcAddr)dlsym(h, "vkGetInstanceProcAddr");
		if (!loader_gipa) {
			pthread_mutex_unlock(&loader_lock);
			return axl__error(AXL_ENOTSUP, "compute vulkan: no Vulkan loader (%s)",
					  h ? "no vkGetInstanceProcAddr" : why);
		}
	}
	pthread_mutex_unlock(&loader_lock);
	struct vk_state *st = calloc(1, sizeof *st);
	if (!st)
		return axl__error(AXL_ENOMEM, "compute vulkan: out of memory");
	st->ctx = ctx;
	st->gipa = loader_gipa;
	pthread_mutex_init(&st->lock, NULL);
	if (!(st->cc = axl__ccall_new("vulkan", ctx->vendor_timeout_ms))) {
		vk_close(st);
		return axl__error(AXL_ENOMEM, "compute vulkan: out of memory");
	}
	struct open_arg a = { st, NULL, 0 };
	int rc = axl__ccall_run(st->cc, open_call, &a, sizeof a, "vkCreateInstance and device listing");
	if (rc) {
		free(a.found);
		/* a worker past its deadline may still use the instance: leave it */
		if (rc != AXL_ETIMEDOUT)
			vk_close(st);
		return rc;
	}
	*state = st;
	*found = a.found;
	*n = a.n;
	return 0;
}

static void vk_close(void *state)
{
	struct vk_state *st = state;
	for (uint32_t i = 0; i < st->ndev; i++) {
		struct vk_dev *d = &st->devs[i];
		if (d->ready) {
			d->f.vkDeviceWaitIdle(d->dev);
			d->f.vkDestroyDevice(d->dev, NULL);
		}
		pthread_mutex_destroy(&d->qlock);
	}
	if (st->inst)
		st->f.vkDestroyInstance(st->inst, NULL);
	if (st->cc)
		axl__ccall_free(st->cc);
	pthread_mutex_destroy(&st->lock);
	free(st->devs);
	free(st);
}

/* The logical device, made on first use (on a ccall worker). */
static int dev_ready(struct vk_dev *d)
{
	struct vk_state *st = d->st;
	pthread_mutex_lock(&st->lock);
	if (d->ready) {
		pthread_mutex_unlock(&st->lock);
		return 0;
	}
	uint32_t nf = 0;
	st->f.vkGetPhysicalDeviceQueueFamilyProperties(d->phys, &nf, NULL);
	VkQueueFamilyProperties *fam = calloc(nf ? nf : 1, sizeof *fam);
	if (!fam) {
		pthread_mutex_unlock(&st->lock);
		return axl__error(AXL_ENOMEM, "compute vulkan: out of memory");
	}
	st->f.vkGetPhysicalDeviceQueueFamilyProperties(d->phys, &nf, fam);
	/* every family with graphics or compute can transfer; a transfer-only one is the
	 * copy engine, preferred */
	int best = -1, score = -1;
	for (uint32_t i = 0; i < nf; i++) {
		VkQueueFlags fl = fam[i].queueFlags;
		if (!fam[i].queueCount || !(fl & (VK_QUEUE_TRANSFER_BIT | VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT)))
			continue;
		int s = (fl & (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT)) ? 1 : 2;
		s = s * 2 + (fam[i].timestampValidBits ? 1 : 0);
		if (s > score) {
			score = s;
			best = (int)i;
		}
	}
	if (best < 0) {
		free(fam);
		pthread_mutex_unlock(&st->lock);
		return axl__error(AXL_EBACKEND, "compute vulkan:%u (%s): no queue family can transfer", d->index,
				  d->name);
	}
	d->family = (uint32_t)best;
	d->ts_bits = fam[best].timestampValidBits;
	free(fam);
	VkPhysicalDeviceProperties p;
	st->f.vkGetPhysicalDeviceProperties(d->phys, &p);
	d->ts_period = p.limits.timestampPeriod;
	st->f.vkGetPhysicalDeviceMemoryProperties(d->phys, &d->mp);
	d->heap = 0;
	for (uint32_t i = 0; i < d->mp.memoryHeapCount; i++)
		if (d->mp.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) {
			d->heap = i;
			break;
		}

	float prio = 1.0f;
	VkDeviceQueueCreateInfo qci = { .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
					.queueFamilyIndex = d->family,
					.queueCount = 1,
					.pQueuePriorities = &prio };
	VkPhysicalDeviceTimelineSemaphoreFeatures tl = { .sType =
							     VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES,
							 .timelineSemaphore = VK_TRUE };
	const char *exts[2];
	uint32_t ne = 0;
	if (d->has_import)
		exts[ne++] = VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME;
	if (d->has_budget)
		exts[ne++] = VK_EXT_MEMORY_BUDGET_EXTENSION_NAME;
	VkDeviceCreateInfo dci = { .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
				   .pNext = &tl,
				   .queueCreateInfoCount = 1,
				   .pQueueCreateInfos = &qci,
				   .enabledExtensionCount = ne,
				   .ppEnabledExtensionNames = exts };
	VkResult r = st->f.vkCreateDevice(d->phys, &dci, NULL, &d->dev);
	if (r != VK_SUCCESS) {
		pthread_mutex_unlock(&st->lock);
		return vkfail(d, r, "vkCreateDevice", 0);
	}
	bool ok = true;
#define LOAD(fn) ok &= (d->f.fn = (PFN_##fn)st->f.vkGetDeviceProcAddr(d->dev, #fn)) != NULL;
	VK_DEVICE_FNS(LOAD)
#undef LOAD
	if (d->has_import)
		d->f.vkGetMemoryHostPointerPropertiesEXT = (PFN_vkGetMemoryHostPointerPropertiesEXT)st->f.vkGetDeviceProcAddr(
		    d->dev, "vkGetMemoryHostPointerPropertiesEXT");
	d->has_import = d->f.vkGetMemoryHostPointerPropertiesEXT && d->import_align;
	if (!ok) {
		PFN_vkDestroyDevice destroy = (PFN_vkDestroyDevice)st->f.vkGetDeviceProcAddr(d->dev, "vkDestroyDevice");
		if (destroy)
			destroy(d->dev, NULL);
		pthread_mutex_unlock(&st->lock);
		return axl__error(AXL_EBACKEND, "compute vulkan:%u (%s): the driver lacks Vulkan 1.2 device functions",
				  d->index, d->name);
	}
	d->f.vkGetDeviceQueue(d->dev, d->family, 0, &d->queue);
	d->ready = true;
	pthread_mutex_unlock(&st->lock);
	return 0;
}

/* ---- memory ------------------------------------------------------------------------ */
static int dev_mem(struct vk_dev *d, uint64_t *free_bytes, uint64_t *total_bytes)
{
	VkDeviceSize size = d->mp.memoryHeaps[d->heap].size;
	if (d->has_budget && d->st->f.vkGetPhysicalDeviceMemoryProperties2) {
		VkPhysicalDeviceMemoryBudgetPropertiesEXT b = {
			.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT
		};
		VkPhysicalDeviceMemoryProperties2 m2 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2,
							 .pNext = &b };
		d->st->f.vkGetPhysicalDeviceMemoryProperties2(d->phys, &m2);
		if (b.heapBudget[d->heap]) {
			*total_bytes = size;
			*free_bytes = b.heapBudget[d->heap] > b.heapUsage[d->heap]
					  ? b.heapBudget[d->heap] - b.heapUsage[d->heap]
					  : 0;
			if (*free_bytes > size)
				*free_bytes = size;
			return 0;
		}
	}
	uint64_t used = atomic_load(&d->allocated);
	*total_bytes = size;
	*free_bytes = used < size ? size - used : 0;
	return 0;
}

struct dev_arg {
	struct vk_dev *d;
	void *q;
	struct axl__cmem *m;
	uint64_t a, b;
};

static int mem_info_call(void *argp)
{
	struct dev_arg *a = argp;
	int rc = dev_ready(a->d);
	return rc ? rc : dev_mem(a->d, &a->a, &a->b);
}

static int vk_mem_info(void *state, void *dev, uint64_t *free_bytes, uint64_t *total_bytes)
{
	struct vk_state *st = state;
	struct dev_arg a = { .d = dev };
	int rc = axl__ccall_run(st->cc, mem_info_call, &a, sizeof a, "vkGetPhysicalDeviceMemoryProperties2");
	if (!rc) {
		*free_bytes = a.a;
		*total_bytes = a.b;
	}
	return rc;
}

/* The best memory type of bits with want (and, for a bonus, like; avoiding unlike). */
static int mem_type(const struct vk_dev *d, uint32_t bits, VkMemoryPropertyFlags want, VkMemoryPropertyFlags like,
		    VkMemoryPropertyFlags unlike)
{
	int best = -1, score = -1;
	for (uint32_t i = 0; i < d->mp.memoryTypeCount; i++) {
		VkMemoryPropertyFlags fl = d->mp.memoryTypes[i].propertyFlags;
		if (!(bits & (1u << i)) || (fl & want) != want)
			continue;
		int s = ((fl & like) == like ? 2 : 0) + ((fl & unlike) ? 0 : 1);
		if (s > score) {
			score = s;
			best = (int)i;
		}
	}
	return best;
}

static void buf_destroy(struct vk_dev *d, struct vk_buf *b)
{
	if (b->buf)
		d->f.vkDestroyBuffer(d->dev, b->buf, NULL);
	if (b->mem)
		d->f.vkFreeMemory(d->dev, b->mem, NULL);
	b->buf = VK_NULL_HANDLE;
	b->mem = VK_NULL_HANDLE;
}

/* A buffer of size bytes; *host gets the mapping of host-visible memory. */
static int buf_make(struct vk_dev *d, uint64_t size, bool pinned, struct vk_buf *b, void **host)
{
	*b = (struct vk_buf){ .d = d };
	VkBufferCreateInfo bci = { .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
				   .size = size,
				   .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
				   .sharingMode = VK_SHARING_MODE_EXCLUSIVE };
	VkResult r = d->f.vkCreateBuffer(d->dev, &bci, NULL, &b->buf);
	if (r != VK_SUCCESS)
		return vkfail(d, r, "vkCreateBuffer", size);
	VkMemoryRequirements req;
	d->f.vkGetBufferMemoryRequirements(d->dev, b->buf, &req);
	int t = pinned ? mem_type(d, req.memoryTypeBits,
				  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
				  VK_MEMORY_PROPERTY_HOST_CACHED_BIT, 0)
		       : mem_type(d, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0,
				  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT);
	if (t < 0) {
		buf_destroy(d, b);
		return axl__error(AXL_EBACKEND, "compute vulkan:%u (%s): no %s memory type for %" PRIu64 " bytes",
				  d->index, d->name, pinned ? "host-visible coherent" : "device-local", size);
	}
	VkMemoryAllocateInfo mai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
				     .allocationSize = req.size,
				     .memoryTypeIndex = (uint32_t)t };
	if ((r = d->f.vkAllocateMemory(d->dev, &mai, NULL, &b->mem)) != VK_SUCCESS) {
		b->mem = VK_NULL_HANDLE;
		buf_destroy(d, b);
		return vkfail(d, r, "vkAllocateMemory", size);
	}
	if ((r = d->f.vkBindBufferMemory(d->dev, b->buf, b->mem, 0)) != VK_SUCCESS) {
		buf_destroy(d, b);
		return vkfail(d, r, "vkBindBufferMemory", size);
	}
	if (pinned && (r = d->f.vkMapMemory(d->dev, b->mem, 0, VK_WHOLE_SIZE, 0, host)) != VK_SUCCESS) {
		buf_destroy(d, b);
		return vkfail(d, r, "vkMapMemory", size);
	}
	return 0;
}

static int alloc_call(void *argp)
{
	struct dev_arg *a = argp;
	struct vk_dev *d = a->d;
	struct axl__cmem *m = a->m;
	int rc = dev_ready(d);
	if (rc)
		return rc;
	if (m->kind == AXL_MEMORY_HOST) {
		/* plain host memory: copies import it like any other */
		void *p = NULL;
		if (m->size > SIZE_MAX || posix_memalign(&p, 4096, (size_t)m->size))
			return axl__error(AXL_ENOMEM, "compute vulkan:%u (%s): %" PRIu64 " bytes of host memory asked",
					  d->index, d->name, m->size);
		m->mem = NULL;
		m->host = p;
		return 0;
	}
	struct vk_buf *b = malloc(sizeof *b);
	if (!b)
		return axl__error(AXL_ENOMEM, "compute vulkan: out of memory");
	void *host = NULL;
	if ((rc = buf_make(d, m->size, m->kind == AXL_MEMORY_PINNED, b, &host))) {
		free(b);
		return rc;
	}
	if (m->kind == AXL_MEMORY_DEVICE)
		atomic_fetch_add(&d->allocated, m->size);
	m->mem = b;
	m->host = host;
	return 0;
}

static int vk_alloc(void *state, void *dev, struct axl__cmem *m)
{
	struct vk_state *st = state;
	struct dev_arg a = { .d = dev, .m = m };
	return axl__ccall_run(st->cc, alloc_call, &a, sizeof a, "vkAllocateMemory");
}

static int free_call(void *argp)
{
	struct dev_arg *a = argp;
	struct axl__cmem *m = a->m;
	struct vk_buf *b = m->mem;
	if (m->kind == AXL_MEMORY_DEVICE)
		atomic_fetch_sub(&b->d->allocated, m->size);
	buf_destroy(b->d, b);
	free(b);
	return 0;
}

static void vk_free(void *state, struct axl__cmem *m)
{
	struct vk_state *st = state;
	if (m->kind == AXL_MEMORY_HOST) {
		free(m->host);
		return;
	}
	struct dev_arg a = { .m = m };
	/* a missed deadline leaves the memory to the wedged driver */
	axl__ccall_run(st->cc, free_call, &a, sizeof a, "vkFreeMemory");
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
			buf_destroy(d, b);
			free(b);
		}
	free(q->slots);
	buf_destroy(d, &q->scratch);
	buf_destroy(d, &q->staging);
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
	int rc = dev_ready(d);
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
		return vkfail(d, r, "vkCreateCommandPool", 0);
	}
	VkSemaphoreTypeCreateInfo sti = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
					  .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE };
	VkSemaphoreCreateInfo sci = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &sti };
	if ((r = d->f.vkCreateSemaphore(d->dev, &sci, NULL, &q->sem)) != VK_SUCCESS) {
		q->sem = VK_NULL_HANDLE;
		queue_put(q);
		return vkfail(d, r, "vkCreateSemaphore", 0);
	}
	void *unused = NULL;
	if ((rc = buf_make(d, SCRATCH_BYTES, false, &q->scratch, &unused))) {
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

/* Wait until q's semaphore reaches value. */
static int wait_value(struct vk_queue *q, uint64_t value)
{
	VkSemaphoreWaitInfo wi = {
		.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO, .semaphoreCount = 1, .pSemaphores = &q->sem, .pValues = &value
	};
	VkResult r = q->d->f.vkWaitSemaphores(q->d->dev, &wi, UINT64_MAX);
	return r == VK_SUCCESS ? 0 : vkfail(q->d, r, "vkWaitSemaphores", 0);
}

static int sync_call(void *argp)
{
	struct dev_arg *a = argp;
	return wait_value(a->q, a->a);
}

static int queue_wait(struct vk_state *st, struct vk_queue *q, uint64_t value)
{
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
	for (size_t i = 0; i < q->nslots; i++) {
		struct vk_slot *s = &q->slots[i];
		if (s->value && s->value > done)
			continue;
		for (struct vk_buf *b = s->imports, *nx; b; b = nx) {
			nx = b->next;
			buf_destroy(d, b);
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
		return vkfail(d, r, "vkAllocateCommandBuffers", 0);
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
		return vkfail(q->d, r, "vkBeginCommandBuffer", 0);
	/* in queue order: what earlier submissions wrote is what this one reads */
	barrier(q->d, s->cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
	return 0;
}

/* End s and submit it, signalling the queue's next value. On failure s is left free. */
static int slot_submit(struct vk_queue *q, struct vk_slot *s, const char *what, uint64_t size)
{
	struct vk_dev *d = q->d;
	barrier(d, s->cb, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
	VkResult r = d->f.vkEndCommandBuffer(s->cb);
	if (r != VK_SUCCESS)
		return vkfail(d, r, "vkEndCommandBuffer", size);
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
		return vkfail(d, r, what, size);
	q->submitted = value;
	s->value = value;
	return 0;
}

/* Release a slot that was not submitted. */
static void slot_abandon(struct vk_queue *q, struct vk_slot *s)
{
	for (struct vk_buf *b = s->imports, *nx; b; b = nx) {
		nx = b->next;
		buf_destroy(q->d, b);
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
						 .handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT };
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
	int t = mem_type(d, req.memoryTypeBits & hp.memoryTypeBits, 0, VK_MEMORY_PROPERTY_HOST_CACHED_BIT, 0);
	VkImportMemoryHostPointerInfoEXT imp = { .sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT,
						 .handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT,
						 .pHostPointer = (void *)base };
	VkMemoryAllocateInfo mai = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .pNext = &imp, .allocationSize = len, .memoryTypeIndex = 0
	};
	if (t < 0 || req.size > len) {
		buf_destroy(d, b);
		free(b);
		return -1;
	}
	mai.memoryTypeIndex = (uint32_t)t;
	if (d->f.vkAllocateMemory(d->dev, &mai, NULL, &b->mem) != VK_SUCCESS) {
		b->mem = VK_NULL_HANDLE;
		buf_destroy(d, b);
		free(b);
		return -1;
	}
	if (d->f.vkBindBufferMemory(d->dev, b->buf, b->mem, 0) != VK_SUCCESS) {
		buf_destroy(d, b);
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
	return buf_make(q->d, STAGING_BYTES, true, &q->staging, &q->staging_host);
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
			return vkfail(d, r, "vkGetQueryPoolResults", 0);
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
	.open = vk_open,
	.close = vk_close,
	.mem_info = vk_mem_info,
	.alloc = vk_alloc,
	.free = vk_free,
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
