/* SPDX-License-Identifier: MIT */
/*
 * The vulkan compute backend: any Vulkan 1.2 device (timeline semaphores) through the
 * system's loader, libvulkan.so.1, loaded with dlopen (never linked). Only transfer
 * commands are used: vkCmdCopyBuffer, vkCmdFillBuffer, vkCmdWriteTimestamp. This file
 * holds the loader, errors, opening and closing, the logical device and memory; queues,
 * copies, fills and events are in vulkan_queue.c, the shared structs in vulkan_impl.h.
 *
 * - Devices: PCI address from VK_EXT_pci_bus_info where the device lists it, UUID from
 *   VkPhysicalDeviceIDProperties; a CPU-type device (lavapipe, SwiftShader) is software.
 *   A logical device is made the first time a device is used.
 * - Memory: device memory is DEVICE_LOCAL, pinned memory HOST_VISIBLE|HOST_COHERENT
 *   (HOST_CACHED preferred, for reads) mapped for its lifetime; both are VkBuffers.
 * - Memory info: VK_EXT_memory_budget; else the device-local heap's size, and that
 *   minus what this context allocated as free.
 */
#define _GNU_SOURCE /* posix_memalign with -std=c11 */
#define VK_NO_PROTOTYPES
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vulkan_core.h>

#include <dlfcn.h>
#include <link.h>

#include "ccall.h"
#include "compute_impl.h"
#include "vlib.h"
#include "vulkan_impl.h"

/* The loader, once per process and never unloaded (a worker past its deadline may still
 * be inside it). */
static pthread_mutex_t loader_lock = PTHREAD_MUTEX_INITIALIZER;
static PFN_vkGetInstanceProcAddr loader_gipa;

/*
 * The drivers the loader loads, kept loaded for the life of the process too. The loader
 * dlopens each driver (ICD) in vkCreateInstance or the first vkEnumeratePhysicalDevices
 * and dlcloses it again in vkDestroyInstance, so a program that opens and closes compute
 * contexts would map, initialise and unmap a driver (and the LLVM under lavapipe) each
 * time. It also hides what a driver keeps for the process: Mesa's lavapipe allocates a
 * table once (pthread_once) and holds it in its own data; once the loader unloads the
 * driver that pointer is gone, and LeakSanitizer reports the table as a leak of 128
 * bytes (Mesa 22.3.6, libvulkan1 1.3.239: unit.test_compute_vulkan). GPU runtimes keep
 * their drivers for the process's life; axl does the same: the objects that appear
 * while the first instance is made are marked RTLD_NODELETE (dlopen with RTLD_NOLOAD).
 * What axl itself allocates per context is still freed at close and still checked.
 */
#define PIN_MAX 512
struct pin_set {
	size_t n;
	uintptr_t base[PIN_MAX];
};
static bool drivers_pinned; /* under loader_lock */

static int note_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct pin_set *s = arg;
	if (s->n < PIN_MAX)
		s->base[s->n++] = (uintptr_t)info->dlpi_addr;
	return 0;
}

static int pin_new_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	const struct pin_set *before = arg;
	if (!info->dlpi_name || !info->dlpi_name[0])
		return 0;
	for (size_t i = 0; i < before->n; i++)
		if (before->base[i] == (uintptr_t)info->dlpi_addr)
			return 0;
	if (info->dlpi_name[0] != '/')
		return 0; /* not a file the loader could name again (the vDSO) */
	/* already loaded: no constructor runs, only the NODELETE mark is added (and a
	 * reference that is never dropped); a failure's message is taken and dropped (the
	 * second dlerror() frees glibc's per-thread record of it) */
	if (!dlopen(info->dlpi_name, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE)) {
		(void)dlerror();
		(void)dlerror();
	}
	return 0;
}

/* ---- errors ------------------------------------------------------------------------ */
static int dev_mem(struct vk_dev *d, uint64_t *free_bytes, uint64_t *total_bytes);

/* An AXL_E* code for a failed call, with the device, the call and the size. */
int axl__vk_fail(struct vk_dev *d, VkResult r, const char *call, uint64_t size)
{
	const char *who = d ? d->name : "instance";
	unsigned idx = d ? d->index : 0;
	if (r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY) {
		uint64_t fr = 0, tot = 0;
		if (d && d->ready && dev_mem(d, &fr, &tot) == 0)
			return axl__error(AXL_ENOMEM,
					  "compute vulkan:%u (%s): %s: out of %s memory, %" PRIu64
					  " bytes asked, %" PRIu64 " bytes free",
					  idx, who, call, r == VK_ERROR_OUT_OF_HOST_MEMORY ? "host" : "device", size,
					  fr);
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
	/* the first instance of the process: what it loads stays (drivers_pinned above) */
	struct pin_set *before = NULL;
	pthread_mutex_lock(&loader_lock);
	if (!drivers_pinned && (before = calloc(1, sizeof *before)) != NULL) {
		drivers_pinned = true;
		dl_iterate_phdr(note_object, before);
	}
	pthread_mutex_unlock(&loader_lock);
	VkResult r = create(&ici, NULL, &st->inst);
	if (r != VK_SUCCESS) {
		free(before);
		return axl__vk_fail(NULL, r, "vkCreateInstance", 0);
	}
#define LOAD(fn) st->f.fn = (PFN_##fn)st->gipa(st->inst, #fn);
	VK_INSTANCE_FNS(LOAD)
#undef LOAD
	if (!st->f.vkEnumeratePhysicalDevices || !st->f.vkGetPhysicalDeviceProperties2 || !st->f.vkCreateDevice ||
	    !st->f.vkGetDeviceProcAddr) {
		free(before);
		return axl__error(AXL_EBACKEND, "compute vulkan: the loader lacks Vulkan 1.2's instance functions");
	}
	uint32_t n = 0;
	r = st->f.vkEnumeratePhysicalDevices(st->inst, &n, NULL);
	if (before) {
		/* the drivers are loaded by now (the loader loads them by the first listing) */
		dl_iterate_phdr(pin_new_object, before);
		free(before);
		before = NULL;
	}
	if (r != VK_SUCCESS)
		return axl__vk_fail(NULL, r, "vkEnumeratePhysicalDevices", 0);
	VkPhysicalDevice *pd = calloc(n ? n : 1, sizeof *pd);
	st->devs = calloc(n ? n : 1, sizeof *st->devs);
	a->found = calloc(n ? n : 1, sizeof *a->found);
	if (!pd || !st->devs || !a->found) {
		free(pd);
		return axl__error(AXL_ENOMEM, "compute vulkan: out of memory listing %u devices", n);
	}
	if ((r = st->f.vkEnumeratePhysicalDevices(st->inst, &n, pd)) < 0) {
		free(pd);
		return axl__vk_fail(NULL, r, "vkEnumeratePhysicalDevices", 0);
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
			axl__log(st->ctx, AXL_LOG_INFO,
				 "compute vulkan: %s: no Vulkan 1.2 timeline semaphores, not used", p.deviceName);
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

		VkPhysicalDevicePCIBusInfoPropertiesEXT pci = {
			.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PCI_BUS_INFO_PROPERTIES_EXT
		};
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
		VkPhysicalDeviceProperties2 p2 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
						   .pNext = &id };
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

int axl__vk_open(const axl_context *ctx, const char *library, void **state, struct axl__compute_found **found,
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
		axl__vk_close(st);
		return axl__error(AXL_ENOMEM, "compute vulkan: out of memory");
	}
	struct open_arg a = { st, NULL, 0 };
	int rc = axl__ccall_run(st->cc, open_call, &a, sizeof a, "vkCreateInstance and device listing");
	if (rc) {
		free(a.found);
		/* a worker past its deadline may still use the instance: leave it */
		if (rc != AXL_ETIMEDOUT)
			axl__vk_close(st);
		return rc;
	}
	*state = st;
	*found = a.found;
	*n = a.n;
	return 0;
}

void axl__vk_close(void *state)
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
int axl__vk_dev_ready(struct vk_dev *d)
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
		if (!fam[i].queueCount ||
		    !(fl & (VK_QUEUE_TRANSFER_BIT | VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT)))
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
	VkPhysicalDeviceTimelineSemaphoreFeatures tl = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES, .timelineSemaphore = VK_TRUE
	};
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
		return axl__vk_fail(d, r, "vkCreateDevice", 0);
	}
	bool ok = true;
#define LOAD(fn) ok &= (d->f.fn = (PFN_##fn)st->f.vkGetDeviceProcAddr(d->dev, #fn)) != NULL;
	VK_DEVICE_FNS(LOAD)
#undef LOAD
	if (d->has_import)
		d->f.vkGetMemoryHostPointerPropertiesEXT =
		    (PFN_vkGetMemoryHostPointerPropertiesEXT)st->f.vkGetDeviceProcAddr(
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

static int mem_info_call(void *argp)
{
	struct dev_arg *a = argp;
	int rc = axl__vk_dev_ready(a->d);
	return rc ? rc : dev_mem(a->d, &a->a, &a->b);
}

int axl__vk_mem_info(void *state, void *dev, uint64_t *free_bytes, uint64_t *total_bytes)
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
int axl__vk_mem_type(const struct vk_dev *d, uint32_t bits, VkMemoryPropertyFlags want, VkMemoryPropertyFlags like,
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

void axl__vk_buf_destroy(struct vk_dev *d, struct vk_buf *b)
{
	if (b->buf)
		d->f.vkDestroyBuffer(d->dev, b->buf, NULL);
	if (b->mem)
		d->f.vkFreeMemory(d->dev, b->mem, NULL);
	b->buf = VK_NULL_HANDLE;
	b->mem = VK_NULL_HANDLE;
}

/* A buffer of size bytes; *host gets the mapping of host-visible memory. */
int axl__vk_buf_make(struct vk_dev *d, uint64_t size, bool pinned, struct vk_buf *b, void **host)
{
	*b = (struct vk_buf){ .d = d };
	VkBufferCreateInfo bci = { .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
				   .size = size,
				   .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
				   .sharingMode = VK_SHARING_MODE_EXCLUSIVE };
	VkResult r = d->f.vkCreateBuffer(d->dev, &bci, NULL, &b->buf);
	if (r != VK_SUCCESS)
		return axl__vk_fail(d, r, "vkCreateBuffer", size);
	VkMemoryRequirements req;
	d->f.vkGetBufferMemoryRequirements(d->dev, b->buf, &req);
	int t = pinned ? axl__vk_mem_type(d, req.memoryTypeBits,
					  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
					  VK_MEMORY_PROPERTY_HOST_CACHED_BIT, 0)
		       : axl__vk_mem_type(d, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0,
					  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT);
	if (t < 0) {
		axl__vk_buf_destroy(d, b);
		return axl__error(AXL_EBACKEND, "compute vulkan:%u (%s): no %s memory type for %" PRIu64 " bytes",
				  d->index, d->name, pinned ? "host-visible coherent" : "device-local", size);
	}
	VkMemoryAllocateInfo mai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
				     .allocationSize = req.size,
				     .memoryTypeIndex = (uint32_t)t };
	if ((r = d->f.vkAllocateMemory(d->dev, &mai, NULL, &b->mem)) != VK_SUCCESS) {
		b->mem = VK_NULL_HANDLE;
		axl__vk_buf_destroy(d, b);
		return axl__vk_fail(d, r, "vkAllocateMemory", size);
	}
	if ((r = d->f.vkBindBufferMemory(d->dev, b->buf, b->mem, 0)) != VK_SUCCESS) {
		axl__vk_buf_destroy(d, b);
		return axl__vk_fail(d, r, "vkBindBufferMemory", size);
	}
	if (pinned && (r = d->f.vkMapMemory(d->dev, b->mem, 0, VK_WHOLE_SIZE, 0, host)) != VK_SUCCESS) {
		axl__vk_buf_destroy(d, b);
		return axl__vk_fail(d, r, "vkMapMemory", size);
	}
	return 0;
}

static int alloc_call(void *argp)
{
	struct dev_arg *a = argp;
	struct vk_dev *d = a->d;
	struct axl__cmem *m = a->m;
	int rc = axl__vk_dev_ready(d);
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
	if ((rc = axl__vk_buf_make(d, m->size, m->kind == AXL_MEMORY_PINNED, b, &host))) {
		free(b);
		return rc;
	}
	if (m->kind == AXL_MEMORY_DEVICE)
		atomic_fetch_add(&d->allocated, m->size);
	m->mem = b;
	m->host = host;
	return 0;
}

int axl__vk_alloc(void *state, void *dev, struct axl__cmem *m)
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
	axl__vk_buf_destroy(b->d, b);
	free(b);
	return 0;
}

void axl__vk_free(void *state, struct axl__cmem *m)
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
