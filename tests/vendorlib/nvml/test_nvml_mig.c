/* SPDX-License-Identifier: MIT */
/* NVIDIA MIG control (src/lib/backend/nvml_mig.c) against the NVML double with MIG
 * forced on an 8x H100 capture: every H100 profile, filling the GPU, the new UUID as the
 * next inventory's child, access nodes from a synthetic mig-minors, destroy twice, busy,
 * MIG disabled, two threads at once, no library, and a hang that ends at the deadline.
 *   test_nvml_mig DOUBLE.so CAPTURE.xml WORKDIR */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "axl.h"
#include "check.h"
#include "backend.h"
#include "nvml_mig.h"

static const char *root;

static axl_context *open_ctx(void)
{
	struct axl_context_options o = AXL_CONTEXT_OPTIONS_INIT;
	o.sysroot = root;
	axl_context *ctx = NULL;
	return axl_context_open(&ctx, &o) == 0 ? ctx : NULL;
}

/* children of GPU 0 in a new inventory; *found set when one has UUID uuid */
static int children(axl_context *ctx, const char *uuid, int *found)
{
	axl_inventory *inv = NULL;
	if (axl_inventory_open(&inv, ctx, 0) != 0)
		return -1;
	const axl_device *g = axl_inventory_device(inv, 0);
	int n = (int)axl_device_child_count(g);
	*found = 0;
	for (int i = 0; i < n; i++) {
		const char *u = NULL;
		axl_device_get_str(axl_device_child(g, (size_t)i), AXL_ATTR_UUID, &u);
		if (u && uuid && strcmp(u, uuid) == 0)
			*found = 1;
	}
	axl_inventory_free(inv);
	return n;
}

/* the profile the next inventory names GPU 0's child with UUID uuid by (NULL: none) */
static const char *child_profile(axl_context *ctx, const char *uuid, char *buf, size_t cap)
{
	axl_inventory *inv = NULL;
	if (axl_inventory_open(&inv, ctx, 0) != 0)
		return NULL;
	const axl_device *g = axl_inventory_device(inv, 0);
	const char *out = NULL;
	for (size_t i = 0; i < axl_device_child_count(g) && !out; i++) {
		const char *u = NULL, *p = NULL;
		const axl_device *c = axl_device_child(g, i);
		axl_device_get_str(c, AXL_ATTR_UUID, &u);
		if (u && strcmp(u, uuid) == 0 && axl_device_get_str(c, AXL_ATTR_PARTITION_PROFILE, &p) == 0 && p) {
			snprintf(buf, cap, "%s", p);
			out = buf;
		}
	}
	axl_inventory_free(inv);
	return out;
}

static void test_minors(void)
{
	const char *t = "config 1\nmonitor 2\ngpu0/gi1/access 12\ngpu0/gi1/ci0/access 13\ngpu0/gi2/access 21\n"
			"gpu1/gi1/access 102\ngpu0/gi1/ci1/access 14\ngarbage/gi1/access x\ngpu0/gi1/access 99 extra";
	struct axl__part_made m;
	memset(&m, 0, sizeof m);
	CHECK_INT((int)axl__mig_minor_nodes(t, strlen(t), 0, 1, 0, &m), 2);
	CHECK_STR(m.nodes[0], "/dev/nvidia-caps/nvidia-cap12");
	CHECK_STR(m.nodes[1], "/dev/nvidia-caps/nvidia-cap13");
	memset(&m, 0, sizeof m);
	CHECK_INT((int)axl__mig_minor_nodes(t, strlen(t), 1, 1, 0, &m), 1);
	CHECK_STR(m.nodes[0], "/dev/nvidia-caps/nvidia-cap102");
	memset(&m, 0, sizeof m);
	CHECK_INT((int)axl__mig_minor_nodes(t, strlen(t), 0, 1, -1, &m), 1); /* no CI: the GI's only */
	CHECK_INT((int)axl__mig_minor_nodes("", 0, 0, 1, 0, &m), 0);
}

struct th {
	axl_context *ctx;
	const struct axl_device *gpu;
	struct axl__part_made made;
	int rc;
};

static void *create_thread(void *arg)
{
	struct th *t = arg;
	t->rc = axl__nvml_mig_create(t->ctx, t->gpu, 19, &t->made);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: test_nvml_mig DOUBLE.so CAPTURE.xml WORKDIR\n");
		return 2;
	}
	test_minors();

	/* an empty root but for the driver's mig-minors */
	char dir[4096], path[4096];
	snprintf(dir, sizeof dir, "%s/root", argv[3]);
	const char *mk[] = {"", "/proc", "/proc/driver", "/proc/driver/nvidia-caps"};
	mkdir(argv[3], 0755);
	for (size_t i = 0; i < sizeof mk / sizeof *mk; i++) {
		snprintf(path, sizeof path, "%s%s", dir, mk[i]);
		mkdir(path, 0755);
	}
	snprintf(path, sizeof path, "%s/proc/driver/nvidia-caps/mig-minors", dir);
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	for (int gi = 0; gi < 15; gi++)
		fprintf(f, "gpu0/gi%d/access %d\ngpu0/gi%d/ci0/access %d\n", gi, 3 + gi * 9, gi, 4 + gi * 9);
	fclose(f);
	root = dir;
	setenv("AXL_NVML_LIBRARY", argv[1], 1);
	setenv("AXL_NVML_DOUBLE_XML", argv[2], 1);
	setenv("AXL_NVML_DOUBLE_MIG", "1", 1);
	unsetenv("AXL_NVML_DOUBLE_STATE");

	axl_context *ctx = open_ctx();
	CHECK(ctx != NULL);
	axl_inventory *inv = NULL;
	CHECK(axl_inventory_open(&inv, ctx, 0) == 0);
	CHECK(axl_inventory_device_count(inv) == 8);
	const struct axl_device *gpu = axl_inventory_device(inv, 0);
	int found = 0;
	CHECK_INT(children(ctx, NULL, &found), 0);

	/* every H100 80GB profile, alone */
	static const struct {
		int id;
		const char *name;
		long long mib;
	} profs[] = {{19, "1g.10gb", 9984},   {20, "1g.10gb+me", 9984}, {15, "1g.20gb", 20096}, {14, "2g.20gb", 20096},
		     {9, "3g.40gb", 40448},   {5, "4g.40gb", 40448},    {0, "7g.80gb", 81152}};
	for (size_t i = 0; i < sizeof profs / sizeof *profs; i++) {
		struct axl__part_made m;
		memset(&m, 0, sizeof m);
		CHECK_INT(axl__nvml_mig_create(ctx, gpu, profs[i].id, &m), 0);
		CHECK_STR(m.profile, profs[i].name);
		CHECK(strncmp(m.id, "MIG-", 4) == 0);
		CHECK(m.profile_id == profs[i].id);
		CHECK(m.memory_bytes == profs[i].mib << 20);
		CHECK(m.compute_units > 0);
		CHECK(m.gpu_instance >= 1 && m.compute_instance == 0);
		CHECK_INT((int)m.nnodes, 2);
		char want[64];
		snprintf(want, sizeof want, "/dev/nvidia-caps/nvidia-cap%d", 3 + m.gpu_instance * 9);
		CHECK_STR(m.nodes[0], want);
		CHECK_INT(children(ctx, m.id, &found), 1);
		CHECK(found);
		/* discovered by its engines too: 1g.10gb+me has 1g.10gb's slices and memory */
		char prof[64];
		const char *seen = child_profile(ctx, m.id, prof, sizeof prof);
		CHECK(seen != NULL);
		if (seen)
			CHECK_STR(seen, profs[i].name);
		size_t removed = 9;
		CHECK_INT(axl__nvml_mig_destroy(ctx, gpu, m.id, &removed), 0);
		CHECK(removed == 1);
		CHECK_INT(children(ctx, m.id, &found), 0);
	}

	/* fill the GPU with 1g.10gb: seven fit, the eighth has no room */
	struct axl__part_made seven[7];
	for (int i = 0; i < 7; i++)
		CHECK_INT(axl__nvml_mig_create(ctx, gpu, 19, &seven[i]), 0);
	struct axl__part_made m;
	CHECK_INT(axl__nvml_mig_create(ctx, gpu, 19, &m), AXL_ENOSPC);
	CHECK(strstr(axl_error_last(), "nvmlDeviceCreateGpuInstance") != NULL);
	CHECK_INT(axl__nvml_mig_create(ctx, gpu, 0, &m), AXL_ENOSPC);
	CHECK_INT(children(ctx, seven[3].id, &found), 7);
	CHECK(found);
	for (int i = 1; i < 7; i++)
		CHECK(strcmp(seven[i].id, seven[0].id) != 0);
	for (int i = 0; i < 7; i++) {
		size_t removed = 0;
		CHECK_INT(axl__nvml_mig_destroy(ctx, gpu, seven[i].id, &removed), 0);
		CHECK(removed == 1);
	}
	/* already gone */
	size_t removed = 9;
	CHECK_INT(axl__nvml_mig_destroy(ctx, gpu, seven[0].id, &removed), 0);
	CHECK(removed == 0);
	/* an unknown profile id */
	CHECK_INT(axl__nvml_mig_create(ctx, gpu, 7, &m), AXL_ENOENT);

	/* two threads at once */
	struct th t[2];
	memset(t, 0, sizeof t);
	for (int i = 0; i < 2; i++) {
		t[i].ctx = ctx;
		t[i].gpu = gpu;
		t[i].rc = -1;
	}
	pthread_t tid[2];
	for (int i = 0; i < 2; i++)
		CHECK(pthread_create(&tid[i], NULL, create_thread, &t[i]) == 0);
	for (int i = 0; i < 2; i++)
		pthread_join(tid[i], NULL);
	CHECK_INT(t[0].rc, 0);
	CHECK_INT(t[1].rc, 0);
	CHECK(strcmp(t[0].made.id, t[1].made.id) != 0);
	CHECK(t[0].made.gpu_instance != t[1].made.gpu_instance);

	/* processes on it: busy, and it stays */
	setenv("AXL_NVML_DOUBLE_BUSY", "1", 1);
	CHECK_INT(axl__nvml_mig_destroy(ctx, gpu, t[0].made.id, &removed), AXL_EBUSY);
	CHECK(removed == 0);
	unsetenv("AXL_NVML_DOUBLE_BUSY");
	CHECK_INT(children(ctx, t[0].made.id, &found), 2);
	CHECK(found);
	for (int i = 0; i < 2; i++)
		CHECK_INT(axl__nvml_mig_destroy(ctx, gpu, t[i].made.id, &removed), 0);

	/* a permission error and an unknown one, mapped */
	setenv("AXL_NVML_DOUBLE_FAIL", "nvmlDeviceCreateGpuInstance=NO_PERMISSION", 1);
	CHECK_INT(axl__nvml_mig_create(ctx, gpu, 19, &m), AXL_EPERM);
	setenv("AXL_NVML_DOUBLE_FAIL", "nvmlGpuInstanceCreateComputeInstance=UNKNOWN", 1);
	CHECK_INT(axl__nvml_mig_create(ctx, gpu, 19, &m), AXL_EBACKEND);
	CHECK(strstr(axl_error_last(), "nvmlGpuInstanceCreateComputeInstance") != NULL);
	unsetenv("AXL_NVML_DOUBLE_FAIL");
	CHECK_INT(children(ctx, NULL, &found), 0); /* the GPU instance was destroyed again */

	/* MIG disabled: the capture's own mode */
	unsetenv("AXL_NVML_DOUBLE_MIG");
	CHECK_INT(axl__nvml_mig_create(ctx, gpu, 19, &m), AXL_ENOTSUP);
	CHECK(strstr(axl_error_last(), "MIG is disabled") != NULL);
	CHECK(strstr(axl_error_last(), "nvidia-smi -i") != NULL);
	setenv("AXL_NVML_DOUBLE_MIG", "1", 1);

	/* no library */
	setenv("AXL_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
	axl_context *none = open_ctx();
	CHECK(none != NULL);
	CHECK_INT(axl__nvml_mig_create(none, gpu, 19, &m), AXL_ENOTSUP);
	CHECK_INT(axl__nvml_mig_destroy(none, gpu, "MIG-x", &removed), AXL_ENOTSUP);
	axl_context_free(none);

	/* a hang ends at the deadline (the MIG floor), and NVML is not called again */
	setenv("AXL_NVML_DOUBLE_HANG", "nvmlDeviceCreateGpuInstance", 1);
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	CHECK_INT(axl__nvml_mig_create(ctx, gpu, 19, &m), AXL_EBACKEND);
	clock_gettime(CLOCK_MONOTONIC, &b);
	CHECK(strstr(axl_error_last(), "did not answer") != NULL);
	CHECK(b.tv_sec - a.tv_sec < AXL__MIG_MIN_TIMEOUT_MS / 1000 + 10);
	CHECK_INT(axl__nvml_mig_destroy(ctx, gpu, "MIG-x", &removed), AXL_EBACKEND);

	axl_inventory_free(inv);
	axl_context_free(ctx);
	return check_summary();
}
