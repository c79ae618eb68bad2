/* SPDX-License-Identifier: MIT */
/*
 * A program that uses an installed libaxl as any user would: built by
 * tests/install/check_install.sh with only `pkg-config --cflags --libs libaxl`, and with
 * find_package(axl) (tests/install/consumer). It prints where the library it runs with
 * was loaded from, the versions, and the devices of a simulated node.
 *
 *   hello SIM-SPEC.json
 */
#define _GNU_SOURCE
#include <axl.h>

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: hello SIM-SPEC.json\n");
		return 2;
	}
	/* the object axl_version() comes from: libaxl.so, or this program when static */
	Dl_info info;
	const char *from = "?";
	if (dladdr((void *)axl_version, &info) && info.dli_fname)
		from = info.dli_fname;
	printf("library: %s\n", from);
	printf("version: %s (headers %s)\n", axl_version(), AXL_VERSION_STRING);
	if (strcmp(axl_version(), AXL_VERSION_STRING) != 0 || axl_version_number() != AXL_VERSION_NUMBER) {
		fprintf(stderr, "hello: library %s, headers %s\n", axl_version(), AXL_VERSION_STRING);
		return 1;
	}

	struct axl_context_options opts = AXL_CONTEXT_OPTIONS_INIT;
	opts.flags = AXL_CONTEXT_NO_ENV;
	opts.sim = argv[1];
	axl_context *ctx = NULL;
	if (axl_context_open(&ctx, &opts) != 0) {
		fprintf(stderr, "hello: axl_context_open: %s\n", axl_error_last());
		return 1;
	}
	axl_inventory *inv = NULL;
	if (axl_inventory_open(&inv, ctx, 0) != 0) {
		fprintf(stderr, "hello: axl_inventory_open: %s\n", axl_error_last());
		axl_context_free(ctx);
		return 1;
	}
	size_t n = axl_inventory_device_count(inv);
	printf("devices: %zu\n", n);
	for (size_t i = 0; i < n; i++)
		printf("device: %s\n", axl_device_id(axl_inventory_device(inv, i)));
	printf("simulated: %d\n", axl_context_is_simulated(ctx));
	axl_inventory_free(inv);
	axl_context_free(ctx);
	return 0;
}
