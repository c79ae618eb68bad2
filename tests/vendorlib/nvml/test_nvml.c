/* SPDX-License-Identifier: MIT */
/* The NVML backend in one process: the library is loaded and initialised once however
 * many inventories are taken, from one thread or several at once, and every inventory
 * describes the GPUs the same way.
 *   test_nvml DOUBLE.so CAPTURE.xml WORKDIR */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "axl.h"
#include "check.h"

static const char *root;

static int take(char *model, size_t cap, int *children)
{
	struct axl_context_options o = AXL_CONTEXT_OPTIONS_INIT;
	o.sysroot = root;
	axl_context *ctx = NULL;
	axl_inventory *inv = NULL;
	if (axl_context_open(&ctx, &o) != 0)
		return -1;
	int rc = axl_inventory_open(&inv, ctx, 0);
	if (rc == 0 && axl_inventory_device_count(inv) == 1) {
		const axl_device *d = axl_inventory_device(inv, 0);
		const char *m = NULL;
		axl_device_get_str(d, AXL_ATTR_MODEL, &m);
		snprintf(model, cap, "%s", m ? m : "");
		*children = (int)axl_device_child_count(d);
	} else if (rc == 0) {
		rc = -2;
	}
	axl_inventory_free(inv);
	axl_context_free(ctx);
	return rc;
}

static void *worker(void *arg)
{
	int *fails = arg;
	for (int i = 0; i < 5; i++) {
		char model[128];
		int children = -1;
		if (take(model, sizeof model, &children) != 0 || strcmp(model, "NVIDIA A100-SXM4-80GB") != 0 ||
		    children != 4)
			(*fails)++;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: test_nvml DOUBLE.so CAPTURE.xml WORKDIR\n");
		return 2;
	}
	char log[4096], dir[4096];
	snprintf(dir, sizeof dir, "%s/empty-root", argv[3]);
	mkdir(argv[3], 0755);
	mkdir(dir, 0755);
	snprintf(log, sizeof log, "%s/calls.log", argv[3]);
	unlink(log);
	root = dir;
	setenv("AXL_NVML_LIBRARY", argv[1], 1);
	setenv("AXL_NVML_DOUBLE_XML", argv[2], 1);
	setenv("AXL_NVML_DOUBLE_LOG", log, 1);

	char model[128];
	int children = -1;
	CHECK(take(model, sizeof model, &children) == 0);
	CHECK_STR(model, "NVIDIA A100-SXM4-80GB");
	CHECK_INT(children, 4);
	CHECK(take(model, sizeof model, &children) == 0);
	CHECK_INT(children, 4);

	int fails[4] = {0};
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, &fails[i]);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < 4; i++)
		CHECK_INT(fails[i], 0);

	/* 22 inventories, one nvmlInit */
	FILE *f = fopen(log, "r");
	CHECK(f != NULL);
	int inits = 0, names = 0;
	char line[512];
	while (f && fgets(line, sizeof line, f)) {
		if (strncmp(line, "nvmlInit", 8) == 0)
			inits++;
		if (strncmp(line, "nvmlDeviceGetName(", 18) == 0)
			names++;
	}
	if (f)
		fclose(f);
	CHECK_INT(inits, 1);
	CHECK_INT(names, 22); /* each inventory asks again: a snapshot is a snapshot */
	printf("%d passed, %d failed\n", check_passed, check_failed);
	return check_failed != 0;
}
