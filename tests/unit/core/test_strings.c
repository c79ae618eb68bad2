/* SPDX-License-Identifier: MIT */
/* Unknown is left out, never "": the string setters (axl__set_str, axl__host_set_str) and
 * the names of partitionings and profiles take an empty, blank or NUL-only value (a file
 * of NULs reads as "") as unknown, and trim the others; the JSON document then has no key
 * for them. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "axl.h"
#include "check.h"
#include "internal.h"

static const char *dstr(const axl_device *d, axl_attr a)
{
	const char *s = NULL;
	return axl_device_get_str(d, a, &s) == 0 ? s : NULL;
}

int main(void)
{
	char root[] = "/tmp/axl-strings-XXXXXX";
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		return 1;
	}
	struct axl_context_options co = AXL_CONTEXT_OPTIONS_INIT;
	co.sysroot = root;
	axl_context *ctx = NULL;
	axl_inventory *inv = NULL;
	CHECK(axl_context_open(&ctx, &co) == 0);
	CHECK(axl_inventory_open(&inv, ctx, 0) == 0);
	if (!inv)
		return 1;

	CHECK(axl__blank(NULL));
	CHECK(axl__blank(""));
	CHECK(axl__blank(" \t\r\n\v\f"));
	CHECK(!axl__blank(" x "));
	CHECK(axl__text(inv, "  \n") == NULL);
	CHECK_STR(axl__text(inv, " \tTesla T4 \n"), "Tesla T4");

	struct axl_device *d = axl__device_new(inv, "test", "test");
	CHECK(d != NULL);
	if (!d)
		return 1;
	d->attr[AXL_ATTR_ID].v.s = "test:0"; /* as the inventory names its devices */
	d->attr[AXL_ATTR_ID].src = AXL_SOURCE_DERIVED;
	static const char nuls[] = "\0\0\0\n";
	const char *unknown[] = {"", " ", "\t \n", nuls, "\n\n"};
	for (size_t i = 0; i < sizeof unknown / sizeof *unknown; i++) {
		axl__set_str(inv, d, AXL_ATTR_SERIAL, AXL_SOURCE_SYSFS, unknown[i]);
		CHECK(!axl__known(d, AXL_ATTR_SERIAL));
		CHECK(dstr(d, AXL_ATTR_SERIAL) == NULL);
		axl__fill_str(inv, d, AXL_ATTR_VBIOS_VERSION, AXL_SOURCE_SYSFS, unknown[i]);
		CHECK(!axl__known(d, AXL_ATTR_VBIOS_VERSION));
		axl__host_set_str(inv, AXL_HOST_CPU_MODEL, AXL_SOURCE_PROCFS, unknown[i]);
		const char *m = NULL;
		CHECK(axl_host_get_str(axl_inventory_host(inv), AXL_HOST_CPU_MODEL, &m) != 0 || m == NULL);
	}
	/* trimmed */
	axl__set_str(inv, d, AXL_ATTR_SERIAL, AXL_SOURCE_SYSFS, "  1650522003820\n");
	CHECK_STR(dstr(d, AXL_ATTR_SERIAL), "1650522003820");
	/* a blank value later does not erase a known one */
	axl__set_str(inv, d, AXL_ATTR_SERIAL, AXL_SOURCE_NVML, " ");
	CHECK_STR(dstr(d, AXL_ATTR_SERIAL), "1650522003820");
	CHECK_INT(axl_device_source(d, AXL_ATTR_SERIAL), AXL_SOURCE_SYSFS);
	axl__host_set_str(inv, AXL_HOST_CPU_MODEL, AXL_SOURCE_PROCFS, "\tAMD EPYC 9654 96-Core Processor  ");
	const char *m = NULL;
	CHECK(axl_host_get_str(axl_inventory_host(inv), AXL_HOST_CPU_MODEL, &m) == 0);
	CHECK_STR(m, "AMD EPYC 9654 96-Core Processor");

	/* partitionings and profiles without a name are not added */
	CHECK(axl__add_part(inv, d, " ", AXL_SOURCE_SYSFS) == NULL);
	CHECK(axl__add_part(inv, d, "", AXL_SOURCE_SYSFS) == NULL);
	struct axl__part *p = axl__add_part(inv, d, "AMD-CPX", AXL_SOURCE_SYSFS);
	CHECK(p != NULL);
	if (p) {
		CHECK(axl__part_add_profile(inv, p, "") != 0);
		CHECK(axl__part_add_profile(inv, p, " \n") != 0);
		CHECK(axl__part_profile(inv, p, "\t", AXL_SOURCE_SYSFS) == NULL);
		CHECK(axl__part_add_profile(inv, p, "CPX") == 0);
		CHECK_INT(p->pub.profile_count, 1);
	}
	CHECK_INT(axl_device_partitioning_count(d), 1);

	/* the document: no "serial": "" anywhere, the host CPU model trimmed */
	char *doc = NULL;
	CHECK(axl_inventory_json(inv, 0, &doc, NULL) == 0);
	if (doc) {
		if (strstr(doc, "\"\""))
			fprintf(stderr, "%s\n", strstr(doc, "\"\"") - 40);
		CHECK(strstr(doc, "\"\"") == NULL);
		CHECK(strstr(doc, "\"model\":\"AMD EPYC 9654 96-Core Processor\"") != NULL);
		axl_free(doc);
	}
	axl_inventory_free(inv);
	axl_context_free(ctx);
	rmdir(root);
	printf("%d passed, %d failed\n", check_passed, check_failed);
	return check_failed ? 1 : 0;
}
