/* SPDX-License-Identifier: MIT */
/* The ROCm SMI backend in one process: the library is loaded and rsmi_init called once
 * however many inventories are taken, from one thread or several at once, and every
 * inventory describes the GPUs the same way.
 *   test_rsmi DOUBLE.so CAPTURE.json WORKDIR */
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

/* GPUs listed, and how many have the capture's VRAM and a power cap from ROCm SMI */
static int take(int *gpus, int *described)
{
	struct axl_context_options o = AXL_CONTEXT_OPTIONS_INIT;
	o.sysroot = root;
	axl_context *ctx = NULL;
	axl_inventory *inv = NULL;
	if (axl_context_open(&ctx, &o) != 0)
		return -1;
	int rc = axl_inventory_open(&inv, ctx, 0);
	*gpus = *described = 0;
	for (size_t i = 0; rc == 0 && i < axl_inventory_device_count(inv); i++) {
		const axl_device *d = axl_inventory_device(inv, i);
		int64_t vram = 0;
		double cap = 0;
		(*gpus)++;
		if (axl_device_get_int(d, AXL_ATTR_MEMORY_TOTAL, &vram) == 0 && vram == 34342961152LL &&
		    axl_device_get_num(d, AXL_ATTR_POWER_LIMIT, &cap) == 0 && cap == 290.0 &&
		    axl_device_source(d, AXL_ATTR_POWER_LIMIT) == AXL_SOURCE_ROCM_SMI)
			(*described)++;
	}
	axl_inventory_free(inv);
	axl_context_free(ctx);
	return rc;
}

static void *worker(void *arg)
{
	int *fails = arg;
	for (int i = 0; i < 5; i++) {
		int gpus, described;
		if (take(&gpus, &described) != 0 || gpus != 4 || described != 4)
			(*fails)++;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: test_rsmi DOUBLE.so CAPTURE.json WORKDIR\n");
		return 2;
	}
	char log[4096], dir[4096];
	snprintf(dir, sizeof dir, "%s/empty-root", argv[3]);
	mkdir(argv[3], 0755);
	mkdir(dir, 0755);
	snprintf(log, sizeof log, "%s/calls.log", argv[3]);
	unlink(log);
	root = dir;
	setenv("AXL_ROCM_SMI_LIBRARY", argv[1], 1);
	setenv("AXL_RSMI_DOUBLE_JSON", argv[2], 1);
	setenv("AXL_RSMI_DOUBLE_LOG", log, 1);

	int gpus = 0, described = 0;
	CHECK(take(&gpus, &described) == 0);
	CHECK_INT(gpus, 4);
	CHECK_INT(described, 4);
	CHECK(take(&gpus, &described) == 0);
	CHECK_INT(described, 4);

	int fails[4] = {0};
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, &fails[i]);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < 4; i++)
		CHECK_INT(fails[i], 0);

	/* 22 inventories, one rsmi_init */
	FILE *f = fopen(log, "r");
	CHECK(f != NULL);
	int inits = 0, ids = 0;
	char line[512];
	while (f && fgets(line, sizeof line, f)) {
		if (strncmp(line, "rsmi_init(", 10) == 0)
			inits++;
		if (strncmp(line, "rsmi_dev_pci_id_get(", 20) == 0)
			ids++;
	}
	if (f)
		fclose(f);
	CHECK_INT(inits, 1);
	CHECK_INT(ids, 22 * 4); /* each inventory asks again: a snapshot is a snapshot */
	printf("%d passed, %d failed\n", check_passed, check_failed);
	return check_failed != 0;
}
