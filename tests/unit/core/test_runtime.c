/* SPDX-License-Identifier: MIT */
/* axl_device_runtime (include/axl/runtime.h): the rows each vendor's folder gives, read
 * on a simulated node (tests/sim/mixed.json), and the proof that axl cdi and the
 * TensorFusion provider take their files from it rather than from lists of their own.
 * usage: test_runtime SIM_SPEC CDI_SPEC_C TF_CONTROL_C */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axl.h"
#include "check.h"

static int has(const char *const *list, const char *s)
{
	for (size_t i = 0; list && list[i]; i++)
		if (strcmp(list[i], s) == 0)
			return 1;
	return 0;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	static char buf[1 << 20];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

/* A consumer of the runtime files: asks the library, and spells no library name. */
static void consumer(const char *path)
{
	const char *s = slurp(path);
	CHECK(s != NULL);
	if (!s)
		return;
	CHECK(strstr(s, "axl_device_runtime(") != NULL);
	CHECK(strstr(s, ".so*") == NULL && strstr(s, ".so.*") == NULL && strstr(s, "lib64\"") == NULL);
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: %s SIM_SPEC CDI_SPEC_C TF_CONTROL_C\n", argv[0]);
		return 2;
	}
	CHECK(axl_device_runtime(NULL) == NULL);
	char kind[64];
	CHECK(axl_device_cdi_kind(NULL, kind, sizeof kind) == AXL_EINVAL);
	struct axl_context_options o = AXL_CONTEXT_OPTIONS_INIT;
	o.sim = argv[1];
	axl_context *ctx = NULL;
	axl_inventory *inv = NULL;
	CHECK(axl_context_open(&ctx, &o) == 0);
	CHECK(ctx && axl_inventory_open(&inv, ctx, AXL_INVENTORY_ALL) == 0);
	int kinds = 0;
	for (size_t i = 0; inv && i < axl_inventory_device_count(inv); i++) {
		const axl_device *d = axl_inventory_device(inv, i);
		const struct axl_runtime *rt = axl_device_runtime(d);
		/* axl's CDI kind: never the vendor's; a partition's is its parent's */
		int kn = axl_device_cdi_kind(d, kind, sizeof kind);
		CHECK(kn > 0 && (size_t)kn == strlen(kind) && strncmp(kind, AXL_CDI_VENDOR "/", 8) == 0);
		CHECK(!rt || !rt->kind || strcmp(kind, rt->kind) != 0);
		for (size_t c = 0; c < axl_device_child_count(d); c++) {
			char ck[64];
			CHECK(axl_device_cdi_kind(axl_device_child(d, c), ck, sizeof ck) == kn &&
			      strcmp(ck, kind) == 0);
		}
		char tiny[8] = "x";
		CHECK(axl_device_cdi_kind(d, tiny, sizeof tiny) == AXL_ERANGE && tiny[0] == '\0');
		if (axl_device_family(d) == AXL_FAMILY_CPU) {
			CHECK(rt == NULL);
			CHECK_STR(kind, "axl.dev/cpu");
			continue;
		}
		CHECK(rt != NULL);
		if (!rt)
			continue;
		/* every list is there, possibly empty */
		CHECK(rt->libraries && rt->library_dirs && rt->binaries && rt->binary_dirs && rt->control_nodes &&
		      rt->env && rt->attrs);
		CHECK(has(rt->library_dirs, "/usr/lib64"));
		CHECK(has(rt->binary_dirs, "/usr/bin"));
		/* a partition's files are its parent's */
		for (size_t c = 0; c < axl_device_child_count(d); c++)
			CHECK(axl_device_runtime(axl_device_child(d, c)) == rt);
		if (rt->kind && strcmp(rt->kind, "nvidia.com/gpu") == 0) {
			kinds |= 1;
			CHECK_STR(kind, "axl.dev/nvidia-gpu");
			CHECK_STR(rt->vendor, "NVIDIA");
			CHECK(has(rt->libraries, "libcuda.so.*"));
			CHECK(has(rt->libraries, "libnvidia-ml.so.*"));
			CHECK(has(rt->binaries, "nvidia-smi"));
			CHECK(has(rt->control_nodes, "/dev/nvidiactl"));
			CHECK(has(rt->env, "NVIDIA_VISIBLE_DEVICES=void"));
			CHECK(rt->flags & AXL_RUNTIME_CHILD_NEEDS_PARENT);
			CHECK(rt->partitions && strcmp(rt->partitions, "MIG") == 0);
			CHECK(rt->labels != NULL);
			CHECK(rt->attrs[0].label && rt->attrs[0].attr == AXL_ATTR_CUDA_DRIVER_VERSION);
		} else if (rt->kind && strcmp(rt->kind, "amd.com/gpu") == 0) {
			kinds |= 2;
			CHECK_STR(kind, "axl.dev/amd-gpu");
			CHECK_STR(rt->vendor, "AMD");
			CHECK(has(rt->libraries, "libamdhip64.so.*"));
			CHECK(has(rt->library_dirs, "/opt/rocm/lib"));
			CHECK(has(rt->control_nodes, "/dev/kfd"));
			CHECK(rt->env[0] == NULL);
			CHECK(!(rt->flags & AXL_RUNTIME_CHILD_NEEDS_PARENT));
			CHECK(rt->labels == NULL);
		}
	}
	CHECK(kinds == 3); /* the spec holds both */
	axl_inventory_free(inv);
	axl_context_free(ctx);
	consumer(argv[2]);
	consumer(argv[3]);
	printf("%d passed, %d failed\n", check_passed, check_failed);
	return check_failed ? 1 : 0;
}
