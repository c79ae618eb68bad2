/* SPDX-License-Identifier: MIT */
/* Simulated nodes through the public API (docs/sim.md): the options of every version,
 * AXL_SIM, the getters, the refusal of a sysroot, an inventory and samples; and the
 * spec parser's messages (line and field). */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "axl.h"
#include "check.h"
#include "sim.h"

static char spec[256];

static void write_spec(void)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(spec, sizeof spec, "%s/axl-test-sim-%d.json", tmp && *tmp == '/' ? tmp : "/tmp", (int)getpid());
	FILE *f = fopen(spec, "w");
	if (!f) {
		perror(spec);
		exit(2);
	}
	fputs("{\"schema\":\"axl.sim\",\"schema_version\":1,\"devices\":[{\"model\":\"NVIDIA H100 80GB HBM3\","
	      "\"uuids\":[\"stub-device-0\",\"stub-device-1\"]}]}\n", f);
	fclose(f);
}

static void options_versions(void)
{
	axl_context *ctx;
	/* a version 2 caller's struct ends before sim: whatever follows is not read */
	struct {
		struct axl_context_options o;
		char pad[16];
	} v2;
	memset(&v2, 0, sizeof v2);
	v2.o.version = 2;
	v2.o.flags = AXL_CONTEXT_NO_ENV;
	v2.o.sim = (const char *)(uintptr_t)1; /* garbage beyond a version 2 struct */
	CHECK_INT(axl_context_open(&ctx, &v2.o), 0);
	CHECK_INT(axl_context_is_simulated(ctx), 0);
	axl_context_free(ctx);

	/* a version 3 caller's struct ends before driver_root: garbage there is not read */
	v2.o.version = 3;
	v2.o.sim = NULL;
	v2.o.driver_root = (const char *)(uintptr_t)1;
	CHECK_INT(axl_context_open(&ctx, &v2.o), 0);
	CHECK_STR(axl_context_driver_root(ctx), "/");
	axl_context_free(ctx);
	/* version 4: a driver root that is not an absolute folder is refused */
	struct axl_context_options d4 = AXL_CONTEXT_OPTIONS_INIT;
	d4.flags = AXL_CONTEXT_NO_ENV;
	d4.driver_root = "relative";
	CHECK_INT(axl_context_open(&ctx, &d4), AXL_EINVAL);
	d4.driver_root = "/nonexistent/driver/root";
	CHECK_INT(axl_context_open(&ctx, &d4), AXL_ENOENT);
	d4.driver_root = "/tmp/";
	CHECK_INT(axl_context_open(&ctx, &d4), 0);
	CHECK_STR(axl_context_driver_root(ctx), "/tmp/");
	axl_context_free(ctx);

	struct axl_context_options o = AXL_CONTEXT_OPTIONS_INIT;
	CHECK_INT(o.version, 4);
	o.flags = AXL_CONTEXT_NO_ENV;
	o.sim = spec;
	CHECK_INT(axl_context_open(&ctx, &o), 0);
	CHECK_INT(axl_context_is_simulated(ctx), 1);
	CHECK_INT(axl_context_is_rerooted(ctx), 0);
	CHECK_STR(axl_context_sim_path(ctx), spec);
	axl_inventory *inv;
	CHECK_INT(axl_inventory_open(&inv, ctx, 0), 0);
	CHECK_INT(axl_inventory_device_count(inv), 2);
	CHECK_INT(axl_inventory_warning_count(inv), 0);
	const axl_device *d = axl_inventory_find(inv, "stub-device-1");
	CHECK(d != NULL);
	CHECK_STR(axl_device_id(d), "nvidia:1");
	CHECK_INT(axl_device_source(d, AXL_ATTR_UUID), AXL_SOURCE_SIM);
	CHECK_INT(axl_device_source(d, AXL_ATTR_MEMORY_TOTAL), AXL_SOURCE_DEVICEDB);
	CHECK_STR(axl_source_name(AXL_SOURCE_SIM), "sim");
	axl_sampler *s;
	CHECK_INT(axl_sampler_open(&s, inv, AXL_SAMPLER_PROCESSES), 0);
	double e0 = -1, e1 = -1;
	axl_sample *a, *b;
	CHECK_INT(axl_sampler_sample(s, &a), 0);
	usleep(20000);
	CHECK_INT(axl_sampler_sample(s, &b), 0);
	axl_source src = AXL_SOURCE_NONE;
	CHECK_INT(axl_sample_get(a, 0, AXL_METRIC_ENERGY, &e0, &src), 0);
	CHECK_INT(src, AXL_SOURCE_SIM);
	CHECK_INT(axl_sample_get(b, 0, AXL_METRIC_ENERGY, &e1, NULL), 0);
	CHECK(e1 > e0);
	CHECK_INT(axl_sample_process_count(b), 0);
	axl_sample_free(a);
	axl_sample_free(b);
	axl_sampler_free(s);
	axl_inventory_free(inv);
	axl_context_free(ctx);

	/* a sysroot and a simulation exclude each other */
	o.sysroot = "/";
	CHECK_INT(axl_context_open(&ctx, &o), AXL_EINVAL);
	CHECK(ctx == NULL);
	CHECK(strstr(axl_error_last(), "sysroot") != NULL);

	/* AXL_SIM in an explicit environment */
	char var[300];
	snprintf(var, sizeof var, "AXL_SIM=%s", spec);
	const char *env[] = {var, NULL};
	struct axl_context_options e = AXL_CONTEXT_OPTIONS_INIT;
	e.env = env;
	CHECK_INT(axl_context_open(&ctx, &e), 0);
	CHECK_INT(axl_context_is_simulated(ctx), 1);
	axl_context_free(ctx);
	const char *both[] = {var, "AXL_SYSROOT=/", NULL};
	e.env = both;
	CHECK_INT(axl_context_open(&ctx, &e), AXL_EINVAL);
	/* an option wins over the other's variable */
	e.sysroot = "/";
	e.env = env;
	CHECK_INT(axl_context_open(&ctx, &e), 0);
	CHECK_INT(axl_context_is_simulated(ctx), 0);
	axl_context_free(ctx);
	CHECK_INT(axl_context_is_simulated(NULL), 0);
	CHECK(axl_context_sim_path(NULL) == NULL);

	struct axl_context_options m = AXL_CONTEXT_OPTIONS_INIT;
	m.flags = AXL_CONTEXT_NO_ENV;
	m.sim = "/nonexistent/spec.json";
	CHECK_INT(axl_context_open(&ctx, &m), AXL_ENOENT);
}

static void parse_msg(const char *text, const char *want)
{
	struct axl__sim *sim = NULL;
	char err[512] = "";
	int rc = axl__sim_parse("t.json", text, strlen(text), &sim, err, sizeof err);
	CHECK_INT(rc, -1);
	CHECK(sim == NULL);
	if (!strstr(err, want)) {
		fprintf(stderr, "message '%s' does not hold '%s'\n", err, want);
		CHECK(0);
	}
	axl__sim_free(sim);
}

static void parser(void)
{
	parse_msg("{\n\"schema\":\"axl.sim\",\"schema_version\":1,\n\"devices\":[{\"model\":\"NVIDIA "
		  "L4\",\n\"count\":2000}]}",
		  "t.json:4: devices[0].count: must be an integer 1..1024");
	parse_msg("{\"schema\":\"axl.sim\",\"schema_version\":1,\"devices\":[{\"model\":\"NVIDIA L4\",\"count\":1,"
		  "\"count\":2}]}", "t.json:1: devices[0].count: appears twice");
	parse_msg("{\"schema\":\"axl.sim\",\"schema_version\":1,\"devices\":[{\"count\":1}]}",
		  "t.json:1: devices[0].model: missing");
	parse_msg("{\"schema\":\"axl.sim\",\"schema_version\":1,\"devices\":[{\"model\":\"NVIDIA L4\"}]}",
		  "t.json:1: devices[0]: needs uuids (a list of strings) or count");
	parse_msg("{\"schema\":\"axl.sim\",\"schema_version\":1,\"devices\":[{\"model\":\"NVIDIA L4\",\"count\":1000},"
		  "{\"model\":\"NVIDIA L4\",\"count\":25}]}", "devices[1].count: more than 1024 devices in all");
	parse_msg(
	    "{\"schema\":\"axl.sim\",\"schema_version\":1,\"devices\":[{\"model\":\"NVIDIA L4\",\"uuids\":[\"a b\"]}]}",
	    "devices[0].uuids[0]: 'a b' holds a character other than printable ASCII");
	/* a good one: generated UUIDs are stable and of NVIDIA's form */
	const char *good =
	    "{\"schema\":\"axl.sim\",\"schema_version\":1,\"devices\":[{\"model\":\"nvidia-h100-sxm5-80gb\","
	    "\"count\":3,\"mig\":false}],\"links\":[{\"a\":0,\"b\":2,\"kind\":\"nvlink\",\"count\":4}]}";
	struct axl__sim *s1 = NULL, *s2 = NULL;
	char err[512];
	CHECK_INT(axl__sim_parse("g.json", good, strlen(good), &s1, err, sizeof err), 0);
	CHECK_INT(axl__sim_parse("g.json", good, strlen(good), &s2, err, sizeof err), 0);
	if (s1 && s2) {
		CHECK_INT(s1->n, 3);
		CHECK(strncmp(s1->devs[0].uuid, "GPU-", 4) == 0 && strlen(s1->devs[0].uuid) == 40);
		CHECK_STR(s1->devs[2].uuid, s2->devs[2].uuid);
		CHECK(strcmp(s1->devs[0].uuid, s1->devs[1].uuid) != 0);
		CHECK_INT(s1->devs[0].parts_on, 0);
		CHECK_INT(s1->nlinks, 1);
		CHECK_STR(s1->hostname, "sim");
	}
	axl__sim_free(s1);
	axl__sim_free(s2);
}

int main(void)
{
	write_spec();
	options_versions();
	parser();
	unlink(spec);
	printf("%d passed, %d failed\n", check_passed, check_failed);
	return check_failed != 0;
}
