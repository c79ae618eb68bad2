/* SPDX-License-Identifier: MIT */
/* axl_process_checkpoint (axl/checkpoint.h) against the CUDA driver double: the state
 * machine, device memory kept across checkpoint and restore (allocated through the same
 * double in this process), bad arguments, and the old double without the calls.
 * usage: test_checkpoint current|old  (AXL_CUDA_DOUBLE_XML set by ctest) */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "axl.h"
#include "check.h"

typedef int (*init_fn)(unsigned);
typedef int (*devget_fn)(int *, int);
typedef int (*ctx_retain_fn)(void **, int);
typedef int (*ctx_set_fn)(void *);
typedef int (*alloc_fn)(unsigned long long *, size_t);
typedef int (*htod_fn)(unsigned long long, const void *, size_t, void *);
typedef int (*dtoh_fn)(void *, unsigned long long, size_t, void *);
typedef int (*meminfo_fn)(size_t *, size_t *);

static axl_inventory *open_inv(axl_context **ctx, const char *lib, const char *sim)
{
	static char var[1024];
	snprintf(var, sizeof var, "AXL_CUDA_LIBRARY=%s", lib);
	const char *env[] = {var, NULL};
	struct axl_context_options o = AXL_CONTEXT_OPTIONS_INIT;
	o.env = env;
	o.sim = sim;
	CHECK_INT(axl_context_open(ctx, &o), 0);
	axl_inventory *inv = NULL;
	CHECK_INT(axl_inventory_open(&inv, *ctx, 0), 0);
	return inv;
}

static void t_current(void)
{
	axl_context *ctx;
	axl_inventory *inv = open_inv(&ctx, CUDAD_LIB, NULL);
	int pid = (int)getpid(), st = -1;
	/* the same library axl loads: the same driver state */
	void *h = dlopen(CUDAD_LIB, RTLD_NOW | RTLD_LOCAL);
	CHECK(h != NULL);
	init_fn cuInit = (init_fn)dlsym(h, "cuInit");
	devget_fn cuDeviceGet = (devget_fn)dlsym(h, "cuDeviceGet");
	ctx_retain_fn retain = (ctx_retain_fn)dlsym(h, "cuDevicePrimaryCtxRetain");
	ctx_set_fn set = (ctx_set_fn)dlsym(h, "cuCtxSetCurrent");
	alloc_fn alloc = (alloc_fn)dlsym(h, "cuMemAlloc_v2");
	htod_fn htod = (htod_fn)dlsym(h, "cuMemcpyHtoDAsync_v2");
	dtoh_fn dtoh = (dtoh_fn)dlsym(h, "cuMemcpyDtoHAsync_v2");
	meminfo_fn meminfo = (meminfo_fn)dlsym(h, "cuMemGetInfo_v2");
	if (!(cuInit && cuDeviceGet && retain && set && alloc && htod && dtoh && meminfo)) {
		CHECK(0);
		return;
	}
	int dev;
	void *cctx;
	CHECK_INT(cuInit(0), 0);
	CHECK_INT(cuDeviceGet(&dev, 0), 0);
	CHECK_INT(retain(&cctx, dev), 0);
	CHECK_INT(set(cctx), 0);
	unsigned long long p = 0;
	CHECK_INT(alloc(&p, 4096), 0);
	unsigned char in[4096], out[4096];
	for (size_t i = 0; i < sizeof in; i++)
		in[i] = (unsigned char)(i * 7 + 3);
	CHECK_INT(htod(p, in, sizeof in, NULL), 0);
	size_t fr0, tot0, fr, tot;
	CHECK_INT(meminfo(&fr0, &tot0), 0);

	CHECK_INT(axl_process_checkpoint(inv, NULL, pid, AXL_CHECKPOINT_STATE, &st), 0);
	CHECK_INT(st, AXL_CHECKPOINT_RUNNING);
	/* out of order: nothing changes */
	CHECK_INT(axl_process_checkpoint(inv, NULL, pid, AXL_CHECKPOINT_CHECKPOINT, NULL), AXL_EINVAL);
	CHECK(strstr(axl_error_last(), "running") != NULL);
	CHECK_INT(axl_process_checkpoint(inv, NULL, pid, AXL_CHECKPOINT_UNLOCK, NULL), AXL_EINVAL);
	CHECK_INT(axl_process_checkpoint(inv, NULL, pid, AXL_CHECKPOINT_LOCK, &st), 0);
	CHECK_INT(st, AXL_CHECKPOINT_LOCKED);
	CHECK_INT(axl_process_checkpoint(inv, NULL, pid, AXL_CHECKPOINT_LOCK, NULL), AXL_EINVAL);
	CHECK_INT(axl_process_checkpoint(inv, NULL, pid, AXL_CHECKPOINT_CHECKPOINT, &st), 0);
	CHECK_INT(st, AXL_CHECKPOINT_CHECKPOINTED);
	/* the device memory is on the host meanwhile: none used, no allocation */
	CHECK_INT(meminfo(&fr, &tot), 0);
	CHECK_INT(fr, tot);
	unsigned long long q = 0;
	CHECK(alloc(&q, 512) != 0);
	CHECK_INT(axl_process_checkpoint(inv, NULL, pid, AXL_CHECKPOINT_STATE, &st), 0);
	CHECK_INT(st, AXL_CHECKPOINT_CHECKPOINTED);
	CHECK_INT(axl_process_checkpoint(inv, NULL, pid, AXL_CHECKPOINT_RESTORE, &st), 0);
	CHECK_INT(st, AXL_CHECKPOINT_LOCKED);
	CHECK_INT(axl_process_checkpoint(inv, NULL, pid, AXL_CHECKPOINT_UNLOCK, &st), 0);
	CHECK_INT(st, AXL_CHECKPOINT_RUNNING);
	CHECK_INT(meminfo(&fr, &tot), 0);
	CHECK_INT(fr, fr0);
	memset(out, 0, sizeof out);
	CHECK_INT(dtoh(out, p, sizeof out, NULL), 0);
	CHECK(memcmp(in, out, sizeof in) == 0);

	/* bad arguments */
	CHECK_INT(axl_process_checkpoint(NULL, NULL, pid, AXL_CHECKPOINT_STATE, NULL), AXL_EINVAL);
	CHECK_INT(axl_process_checkpoint(inv, NULL, 0, AXL_CHECKPOINT_STATE, NULL), AXL_EINVAL);
	CHECK_INT(axl_process_checkpoint(inv, NULL, -5, AXL_CHECKPOINT_LOCK, NULL), AXL_EINVAL);
	CHECK_INT(axl_process_checkpoint(inv, NULL, pid, (axl_checkpoint_op)5, NULL), AXL_EINVAL);
	CHECK_INT(axl_process_checkpoint(inv, NULL, pid, (axl_checkpoint_op)-1, NULL), AXL_EINVAL);
	/* a pid the driver does not know (the double knows only its own process) */
	CHECK_INT(axl_process_checkpoint(inv, NULL, pid + 100000, AXL_CHECKPOINT_LOCK, NULL), AXL_EINVAL);
	CHECK_INT(axl_process_checkpoint(inv, "no-such-device", pid, AXL_CHECKPOINT_STATE, NULL), AXL_ENOENT);
	axl_inventory_free(inv);
	axl_context_free(ctx);

	/* a simulated node: its NVIDIA devices dispatch to the double given explicitly */
	inv = open_inv(&ctx, CUDAD_LIB, AXL_TEST_SIM);
	CHECK_INT(axl_process_checkpoint(inv, "nvidia:0", pid, AXL_CHECKPOINT_STATE, &st), 0);
	CHECK_INT(st, AXL_CHECKPOINT_RUNNING);
	axl_inventory_free(inv);
	axl_context_free(ctx);
	/* ... and without one it drives nothing */
	axl_context *c2;
	struct axl_context_options o = AXL_CONTEXT_OPTIONS_INIT;
	o.sim = AXL_TEST_SIM;
	CHECK_INT(axl_context_open(&c2, &o), 0);
	CHECK_INT(axl_inventory_open(&inv, c2, 0), 0);
	CHECK_INT(axl_process_checkpoint(inv, "nvidia:0", pid, AXL_CHECKPOINT_LOCK, NULL), AXL_ENOTSYS);
	axl_inventory_free(inv);
	axl_context_free(c2);
}

static void t_old(void)
{
	axl_context *ctx;
	axl_inventory *inv = open_inv(&ctx, CUDAD_OLD_LIB, NULL);
	for (int op = 0; op <= 4; op++) {
		CHECK_INT(axl_process_checkpoint(inv, NULL, (int)getpid(), (axl_checkpoint_op)op, NULL), AXL_ENOTSUP);
		CHECK(strstr(axl_error_last(), "cuCheckpointProcess") != NULL);
	}
	printf("old: %s\n", axl_error_last());
	axl_inventory_free(inv);
	axl_context_free(ctx);
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "old") == 0)
		t_old();
	else
		t_current();
	return check_summary();
}
