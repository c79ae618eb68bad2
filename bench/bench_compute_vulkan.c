/* SPDX-License-Identifier: MIT */
/*
 * The vulkan compute backend against Vulkan called directly: one copy of SIZE bytes from
 * host-visible memory to device-local memory (vkCmdCopyBuffer, submit, wait for the
 * fence), median of RUNS, on the first device of type TYPE (cpu: lavapipe; any: the
 * first device); then the same copy through axl (pinned buffer → device buffer,
 * axl_copy + axl_queue_sync) on the device axl's vulkan backend lists with the same
 * name. Prints both in GB/s and axl's ratio to the direct figure (target: >= 0.90).
 *
 * usage: bench_compute_vulkan [MIB RUNS]   (defaults 64 MiB, 21 runs)
 */
#define _GNU_SOURCE
#define VK_NO_PROTOTYPES
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vulkan/vulkan_core.h>

#include "axl.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *t, int n)
{
	qsort(t, (size_t)n, sizeof *t, cmp);
	return t[n / 2];
}

#define GET(inst, fn) PFN_##fn fn = (PFN_##fn)gipa(inst, #fn)
#define TRY(x)                                                                                                         \
	do {                                                                                                           \
		VkResult r_ = (x);                                                                                     \
		if (r_ != VK_SUCCESS) {                                                                                \
			fprintf(stderr, "%s: %d\n", #x, (int)r_);                                                      \
			exit(1);                                                                                       \
		}                                                                                                      \
	} while (0)

static uint32_t pick_type(const VkPhysicalDeviceMemoryProperties *mp, uint32_t bits, VkMemoryPropertyFlags want)
{
	for (uint32_t i = 0; i < mp->memoryTypeCount; i++)
		if ((bits & (1u << i)) && (mp->memoryTypes[i].propertyFlags & want) == want)
			return i;
	fprintf(stderr, "no memory type with flags 0x%x\n", (unsigned)want);
	exit(1);
}

/* Direct Vulkan: the median seconds of one copy; the device's name into name. */
static double direct(uint64_t size, int runs, char *name, size_t cap)
{
	void *lib = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fprintf(stderr, "no libvulkan.so.1: %s\n", dlerror());
		exit(1);
	}
	PFN_vkGetInstanceProcAddr gipa = (PFN_vkGetInstanceProcAddr)dlsym(lib, "vkGetInstanceProcAddr");
	GET(NULL, vkCreateInstance);
	VkApplicationInfo app = { .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .apiVersion = VK_API_VERSION_1_2 };
	VkInstanceCreateInfo ici = { .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app };
	VkInstance inst;
	TRY(vkCreateInstance(&ici, NULL, &inst));
	GET(inst, vkEnumeratePhysicalDevices);
	GET(inst, vkGetPhysicalDeviceProperties);
	GET(inst, vkGetPhysicalDeviceMemoryProperties);
	GET(inst, vkGetPhysicalDeviceQueueFamilyProperties);
	GET(inst, vkCreateDevice);
	GET(inst, vkGetDeviceProcAddr);
	uint32_t n = 16;
	VkPhysicalDevice pd[16];
	vkEnumeratePhysicalDevices(inst, &n, pd);
	const char *type = getenv("TYPE");
	VkPhysicalDevice phys = VK_NULL_HANDLE;
	VkPhysicalDeviceProperties p;
	for (uint32_t i = 0; i < n && !phys; i++) {
		vkGetPhysicalDeviceProperties(pd[i], &p);
		if ((type && strcmp(type, "any") == 0) || p.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU)
			phys = pd[i];
	}
	if (!phys) {
		fprintf(stderr, "no Vulkan device of that type\n");
		exit(1);
	}
	snprintf(name, cap, "%s", p.deviceName);
	VkPhysicalDeviceMemoryProperties mp;
	vkGetPhysicalDeviceMemoryProperties(phys, &mp);
	uint32_t nf = 16;
	VkQueueFamilyProperties fam[16];
	vkGetPhysicalDeviceQueueFamilyProperties(phys, &nf, fam);
	uint32_t family = 0;
	while (family < nf && !(fam[family].queueFlags & (VK_QUEUE_TRANSFER_BIT | VK_QUEUE_GRAPHICS_BIT)))
		family++;
	float prio = 1;
	VkDeviceQueueCreateInfo qci = { .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
					.queueFamilyIndex = family,
					.queueCount = 1,
					.pQueuePriorities = &prio };
	VkDeviceCreateInfo dci = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .queueCreateInfoCount = 1, .pQueueCreateInfos = &qci
	};
	VkDevice dev;
	TRY(vkCreateDevice(phys, &dci, NULL, &dev));
#define DGET(fn) PFN_##fn fn = (PFN_##fn)vkGetDeviceProcAddr(dev, #fn)
	DGET(vkGetDeviceQueue);
	DGET(vkCreateBuffer);
	DGET(vkGetBufferMemoryRequirements);
	DGET(vkAllocateMemory);
	DGET(vkBindBufferMemory);
	DGET(vkMapMemory);
	DGET(vkCreateCommandPool);
	DGET(vkAllocateCommandBuffers);
	DGET(vkBeginCommandBuffer);
	DGET(vkEndCommandBuffer);
	DGET(vkCmdCopyBuffer);
	DGET(vkQueueSubmit);
	DGET(vkCreateFence);
	DGET(vkWaitForFences);
	DGET(vkResetFences);
	DGET(vkDestroyDevice);
	DGET(vkDeviceWaitIdle);
	PFN_vkDestroyInstance vkDestroyInstance = (PFN_vkDestroyInstance)gipa(inst, "vkDestroyInstance");
	VkQueue queue;
	vkGetDeviceQueue(dev, family, 0, &queue);
	VkBuffer buf[2];
	VkDeviceMemory mem[2];
	for (int i = 0; i < 2; i++) {
		VkBufferCreateInfo bci = { .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
					   .size = size,
					   .usage =
					       VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT };
		TRY(vkCreateBuffer(dev, &bci, NULL, &buf[i]));
		VkMemoryRequirements req;
		vkGetBufferMemoryRequirements(dev, buf[i], &req);
		VkMemoryAllocateInfo mai = {
			.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
			.allocationSize = req.size,
			.memoryTypeIndex = pick_type(&mp, req.memoryTypeBits,
						     i == 0 ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
								  VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
							    : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)
		};
		TRY(vkAllocateMemory(dev, &mai, NULL, &mem[i]));
		TRY(vkBindBufferMemory(dev, buf[i], mem[i], 0));
	}
	void *host;
	TRY(vkMapMemory(dev, mem[0], 0, VK_WHOLE_SIZE, 0, &host));
	memset(host, 0x5a, size);
	VkCommandPoolCreateInfo pci = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
					.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
					.queueFamilyIndex = family };
	VkCommandPool pool;
	TRY(vkCreateCommandPool(dev, &pci, NULL, &pool));
	VkCommandBufferAllocateInfo cai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
					    .commandPool = pool,
					    .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
					    .commandBufferCount = 1 };
	VkCommandBuffer cb;
	TRY(vkAllocateCommandBuffers(dev, &cai, &cb));
	VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
	VkFence fence;
	TRY(vkCreateFence(dev, &fci, NULL, &fence));
	double *t = calloc((size_t)runs + 1, sizeof *t);
	for (int r = -1; r < runs; r++) { /* one untimed warm-up */
		double t0 = now();
		VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
						.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT };
		TRY(vkBeginCommandBuffer(cb, &bi));
		VkBufferCopy region = { 0, 0, size };
		vkCmdCopyBuffer(cb, buf[0], buf[1], 1, &region);
		TRY(vkEndCommandBuffer(cb));
		VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
				    .commandBufferCount = 1,
				    .pCommandBuffers = &cb };
		TRY(vkQueueSubmit(queue, 1, &si, fence));
		TRY(vkWaitForFences(dev, 1, &fence, VK_TRUE, UINT64_MAX));
		TRY(vkResetFences(dev, 1, &fence));
		if (r >= 0)
			t[r] = now() - t0;
	}
	double m = median(t, runs);
	free(t);
	vkDeviceWaitIdle(dev);
	vkDestroyDevice(dev, NULL); /* buffers and memory go with it on exit */
	vkDestroyInstance(inst, NULL);
	return m;
}

static double through_axl(uint64_t size, int runs, const char *name)
{
	axl_context *ctx = NULL;
	axl_inventory *inv = NULL;
	axl_compute *c = NULL;
	if (axl_context_open(&ctx, NULL) || axl_inventory_open(&inv, ctx, 0)) {
		fprintf(stderr, "axl: %s\n", axl_error_last());
		exit(1);
	}
	struct axl_compute_options co = AXL_COMPUTE_OPTIONS_INIT;
	co.backend = "vulkan";
	if (axl_compute_open(&c, inv, &co)) {
		fprintf(stderr, "axl: %s\n", axl_error_last());
		exit(1);
	}
	const axl_compute_device *d = NULL;
	for (size_t i = 1; i < axl_compute_device_count(c) && !d; i++)
		if (strcmp(axl_compute_device_name(axl_compute_device_at(c, i)), name) == 0)
			d = axl_compute_device_at(c, i);
	if (!d) {
		fprintf(stderr, "axl's vulkan backend does not list %s\n", name);
		exit(1);
	}
	axl_buffer src, dst;
	axl_queue q;
	void *host;
	if (axl_buffer_alloc(c, d, AXL_MEMORY_PINNED, size, &src) ||
	    axl_buffer_alloc(c, d, AXL_MEMORY_DEVICE, size, &dst) || axl_queue_create(c, d, &q) ||
	    axl_buffer_host_pointer(c, src, &host)) {
		fprintf(stderr, "axl: %s\n", axl_error_last());
		exit(1);
	}
	memset(host, 0x5a, size);
	double *t = calloc((size_t)runs + 1, sizeof *t);
	for (int r = -1; r < runs; r++) {
		double t0 = now();
		if (axl_copy(c, q, dst, 0, src, 0, size, NULL, NULL) || axl_queue_sync(c, q)) {
			fprintf(stderr, "axl: %s\n", axl_error_last());
			exit(1);
		}
		if (r >= 0)
			t[r] = now() - t0;
	}
	double m = median(t, runs);
	free(t);
	axl_compute_free(c);
	axl_inventory_free(inv);
	axl_context_free(ctx);
	return m;
}

int main(int argc, char **argv)
{
	uint64_t mib = argc > 1 ? strtoull(argv[1], NULL, 10) : 64;
	int runs = argc > 2 ? atoi(argv[2]) : 21;
	if (!mib || runs < 1) {
		fprintf(stderr, "usage: %s [MIB RUNS]\n", argv[0]);
		return 2;
	}
	uint64_t size = mib << 20;
	char name[256];
	double tv = direct(size, runs, name, sizeof name);
	double ta = through_axl(size, runs, name);
	double gv = (double)size / tv / 1e9, ga = (double)size / ta / 1e9;
	printf("device: %s, %llu MiB host-visible -> device-local, median of %d\n", name, (unsigned long long)mib,
	       runs);
	printf("vulkan direct : %8.2f GB/s (%.3f ms)\n", gv, tv * 1e3);
	printf("axl (vulkan)  : %8.2f GB/s (%.3f ms)\n", ga, ta * 1e3);
	printf("ratio axl/direct: %.3f (target >= 0.90)\n", ga / gv);
	return 0;
}
