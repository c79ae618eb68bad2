/* SPDX-License-Identifier: MIT */
/*
 * How much does axl's compute layer cost over OpenCL itself? The same three transfers
 * (host -> device, device -> host, device -> device) of SIZE bytes, RUNS times each,
 * first with OpenCL called directly (clEnqueueWriteBuffer/ReadBuffer/CopyBuffer, then
 * clFinish), then through axl (axl_copy, then axl_queue_sync) on the first OpenCL device
 * axl drives ("opencl" asked for by name, so a CPU device such as PoCL's counts). Prints
 * the median GB/s of each and the ratio axl/direct (bench/README.md).
 *
 *   build/tests/bench_compute_opencl [SIZE_MIB [RUNS]]     (64 MiB, 21 runs)
 *
 * OpenCL is loaded with dlopen here too, so the program builds without an OpenCL
 * development package; both sides use the first device of the first platform with one
 * (axl's device is that one when a single platform is installed).
 */
#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "axl.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *t, int n)
{
	qsort(t, (size_t)n, sizeof *t, cmpd);
	return t[n / 2];
}

#define LOAD(name) CL_API_ENTRY __typeof__(name) *p_##name = (__typeof__(name) *)dlsym(lib, #name)

enum { H2D, D2H, D2D, NKIND };
static const char *const kind_name[NKIND] = {"host->device", "device->host", "device->device"};

/* Median seconds of each kind, OpenCL direct. */
static int direct(size_t size, int runs, double out[NKIND])
{
	void *lib = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fprintf(stderr, "libOpenCL.so.1: %s\n", dlerror());
		return -1;
	}
	LOAD(clGetPlatformIDs);
	LOAD(clGetDeviceIDs);
	LOAD(clCreateContext);
	LOAD(clCreateCommandQueue);
	LOAD(clCreateBuffer);
	LOAD(clEnqueueWriteBuffer);
	LOAD(clEnqueueReadBuffer);
	LOAD(clEnqueueCopyBuffer);
	LOAD(clFinish);
	LOAD(clReleaseMemObject);
	LOAD(clReleaseCommandQueue);
	LOAD(clReleaseContext);
	cl_platform_id plats[16];
	cl_uint np = 0;
	cl_device_id dev = NULL;
	if (p_clGetPlatformIDs(16, plats, &np) != CL_SUCCESS)
		return -1;
	for (cl_uint i = 0; i < np && !dev; i++)
		if (p_clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_ALL, 1, &dev, NULL) != CL_SUCCESS)
			dev = NULL;
	if (!dev)
		return -1;
	cl_int e;
	cl_context cx = p_clCreateContext(NULL, 1, &dev, NULL, NULL, &e);
	cl_command_queue q = p_clCreateCommandQueue(cx, dev, 0, &e);
	cl_mem a = p_clCreateBuffer(cx, CL_MEM_READ_WRITE, size, NULL, &e);
	cl_mem b = p_clCreateBuffer(cx, CL_MEM_READ_WRITE, size, NULL, &e);
	char *h = malloc(size);
	if (!h)
		return -1;
	memset(h, 1, size);
	double *t = calloc((size_t)runs, sizeof *t);
	for (int k = 0; k < NKIND; k++) {
		for (int r = -1; r < runs; r++) { /* run -1 warms up */
			double t0 = now();
			if (k == H2D)
				e = p_clEnqueueWriteBuffer(q, a, CL_FALSE, 0, size, h, 0, NULL, NULL);
			else if (k == D2H)
				e = p_clEnqueueReadBuffer(q, a, CL_FALSE, 0, size, h, 0, NULL, NULL);
			else
				e = p_clEnqueueCopyBuffer(q, a, b, 0, 0, size, 0, NULL, NULL);
			p_clFinish(q);
			if (e != CL_SUCCESS)
				return -1;
			if (r >= 0)
				t[r] = now() - t0;
		}
		out[k] = median(t, runs);
	}
	free(t);
	free(h);
	p_clReleaseMemObject(a);
	p_clReleaseMemObject(b);
	p_clReleaseCommandQueue(q);
	p_clReleaseContext(cx);
	return 0;
}

/* The same through axl; the host buffer is ordinary host memory, as above. */
static int through_axl(size_t size, int runs, double out[NKIND])
{
	axl_context *ctx = NULL;
	axl_inventory *inv = NULL;
	axl_compute *c = NULL;
	struct axl_compute_options co = AXL_COMPUTE_OPTIONS_INIT;
	co.backend = "opencl";
	if (axl_context_open(&ctx, NULL) || axl_inventory_open(&inv, ctx, 0) || axl_compute_open(&c, inv, &co))
		return -1;
	const axl_compute_device *d = NULL;
	for (size_t i = 1; i < axl_compute_device_count(c) && !d; i++)
		if (strcmp(axl_compute_device_backend(axl_compute_device_at(c, i)), "opencl") == 0)
			d = axl_compute_device_at(c, i);
	if (!d)
		return -1;
	axl_queue q;
	axl_buffer a, b, h;
	if (axl_queue_create(c, d, &q) || axl_buffer_alloc(c, d, AXL_MEMORY_DEVICE, size, &a) ||
	    axl_buffer_alloc(c, d, AXL_MEMORY_DEVICE, size, &b) ||
	    axl_buffer_alloc(c, axl_compute_device_at(c, 0), AXL_MEMORY_HOST, size, &h))
		return -1;
	void *hp = NULL;
	axl_buffer_host_pointer(c, h, &hp);
	memset(hp, 1, size);
	double *t = calloc((size_t)runs, sizeof *t);
	for (int k = 0; k < NKIND; k++) {
		for (int r = -1; r < runs; r++) {
			double t0 = now();
			int rc = k == H2D   ? axl_copy(c, q, a, 0, h, 0, size, NULL, NULL)
				 : k == D2H ? axl_copy(c, q, h, 0, a, 0, size, NULL, NULL)
					    : axl_copy(c, q, b, 0, a, 0, size, NULL, NULL);
			if (rc || axl_queue_sync(c, q))
				return -1;
			if (r >= 0)
				t[r] = now() - t0;
		}
		out[k] = median(t, runs);
	}
	free(t);
	printf("device: %s\n", axl_compute_device_name(d));
	axl_compute_free(c);
	axl_inventory_free(inv);
	axl_context_free(ctx);
	return 0;
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? (size_t)atoi(argv[1]) : 64;
	int runs = argc > 2 ? atoi(argv[2]) : 21;
	if (!mib || runs < 1) {
		fprintf(stderr, "usage: %s [SIZE_MIB [RUNS]]\n", argv[0]);
		return 2;
	}
	size_t size = mib << 20;
	double dt[NKIND], at[NKIND];
	if (direct(size, runs, dt)) {
		fprintf(stderr, "OpenCL direct: no usable device\n");
		return 1;
	}
	if (through_axl(size, runs, at)) {
		fprintf(stderr, "axl: %s\n", axl_error_last());
		return 1;
	}
	printf("%zu MiB, median of %d\n%-16s %12s %12s %8s\n", mib, runs, "copy", "direct GB/s", "axl GB/s",
	       "axl/direct");
	for (int k = 0; k < NKIND; k++)
		printf("%-16s %12.2f %12.2f %8.2f\n", kind_name[k], (double)size / dt[k] / 1e9,
		       (double)size / at[k] / 1e9, dt[k] / at[k]);
	return 0;
}
