/* SPDX-License-Identifier: MIT */
/* The registry's questions through the public API (axl/inventory.h) on a simulated node
 * (tests/sim/mixed.json: 2x H100 80GB and an MI300X 192GB on NUMA node 0; 2x L4 and an
 * RTX 4090, 24GB each, on node 1): filters, the best device by each rank, the total
 * memory, the filtered document, and the errors of a bad filter. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axl.h"
#include "check.h"

#define GIB (1ll << 30)

static size_t count(const axl_inventory *inv, const struct axl_device_filter *f)
{
	size_t n = 0;
	CHECK(axl_inventory_select(inv, f, NULL, 0, &n) == 0);
	return n;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s SIM_SPEC\n", argv[0]);
		return 2;
	}
	struct axl_context_options o = AXL_CONTEXT_OPTIONS_INIT;
	o.sim = argv[1];
	o.flags = AXL_CONTEXT_NO_ENV;
	axl_context *ctx = NULL;
	axl_inventory *inv = NULL;
	CHECK(axl_context_open(&ctx, &o) == 0);
	CHECK(ctx && axl_inventory_open(&inv, ctx, 0) == 0);
	if (!inv)
		return 1;

	/* everything, and a short buffer: the count is still the whole */
	const axl_device *devs[8] = {0};
	size_t n = 0;
	CHECK(axl_inventory_select(inv, NULL, devs, 2, &n) == 0 && n == 6);
	CHECK(devs[0] == axl_inventory_device(inv, 0) && devs[1] == axl_inventory_device(inv, 1) && devs[2] == NULL);

	/* the question: GPUs with 40 GiB or more that run FP8 natively */
	struct axl_device_filter f = AXL_DEVICE_FILTER_INIT;
	f.family = AXL_FAMILY_GPU;
	f.min_memory_bytes = 40 * GIB;
	f.precision = AXL_FORMAT_FP8;
	CHECK(axl_inventory_select(inv, &f, devs, 8, &n) == 0 && n == 3);
	CHECK_STR(axl_device_id(devs[0]), "nvidia:0");
	CHECK_STR(axl_device_id(devs[1]), "nvidia:1");
	CHECK_STR(axl_device_id(devs[2]), "amdgpu:0");
	int64_t bytes = 0;
	size_t unknown = 9;
	CHECK(axl_inventory_total_memory(inv, &f, &bytes, &unknown) == 0);
	CHECK(bytes == (80 + 80 + 192) * GIB && unknown == 0);
	CHECK(axl_inventory_total_memory(inv, NULL, &bytes, NULL) == 0 && bytes == 424 * GIB);

	/* vendor by name or by id prefix, any case; NUMA node; families with no device */
	struct axl_device_filter v = AXL_DEVICE_FILTER_INIT;
	v.vendor = "NVIDIA";
	CHECK(count(inv, &v) == 5);
	v.vendor = "amdgpu";
	CHECK(count(inv, &v) == 1);
	v.vendor = "intel";
	CHECK(count(inv, &v) == 0);
	struct axl_device_filter numa = AXL_DEVICE_FILTER_INIT;
	numa.numa_node = 1;
	CHECK(count(inv, &numa) == 3);
	numa.min_memory_bytes = 25 * GIB; /* 24 GiB cards: none */
	CHECK(count(inv, &numa) == 0);
	struct axl_device_filter npu = AXL_DEVICE_FILTER_INIT;
	npu.family = AXL_FAMILY_NPU;
	CHECK(count(inv, &npu) == 0);
	CHECK(axl_device_filter_match(axl_inventory_device(inv, 0), &f) == 1);
	CHECK(axl_device_filter_match(axl_inventory_find(inv, "nvidia:2"), &f) == 0);

	/* the best device, by each rank */
	const axl_device *best = NULL;
	double val = 0;
	CHECK(axl_inventory_best(inv, NULL, AXL_RANK_MEMORY, &best) == 0);
	CHECK(best && strcmp(axl_device_id(best), "amdgpu:0") == 0);
	CHECK(axl_device_rank_value(best, AXL_RANK_MEMORY, &val) == 0 && val == 192.0 * GIB);
	v.vendor = "nvidia";
	CHECK(axl_inventory_best(inv, &v, AXL_RANK_BANDWIDTH, &best) == 0);
	CHECK(best && strcmp(axl_device_id(best), "nvidia:0") == 0); /* the first of two H100s */
	CHECK(axl_inventory_best(inv, &numa, AXL_RANK_MEMORY, &best) == AXL_ENOENT && best == NULL);
	CHECK(axl_inventory_best(inv, NULL, AXL_RANK_NONE, &best) == AXL_EINVAL);
	CHECK(axl_device_rank_value(axl_inventory_device(inv, 0), AXL_RANK_COMPUTE, &val) == 0 && val > 900);
	CHECK_STR(axl_rank_name(AXL_RANK_BANDWIDTH), "bandwidth");
	CHECK(axl_rank_name((axl_rank)42) == NULL);

	/* the filtered document: only the matching devices, and the selection */
	char *doc = NULL;
	CHECK(axl_inventory_json_select(inv, &f, AXL_RANK_NONE, 0, &doc, NULL) == 0);
	CHECK(doc && strstr(doc, "\"selection\":{\"filter\":{\"family\":\"gpu\",\"min_memory_bytes\":42949672960,"
				 "\"precision\":\"FP8\"},\"matched\":3,") != NULL);
	CHECK(doc && strstr(doc, "\"id\":\"nvidia:2\"") == NULL && strstr(doc, "\"id\":\"amdgpu:0\"") != NULL);
	axl_free(doc);
	doc = NULL;
	CHECK(axl_inventory_json_select(inv, NULL, AXL_RANK_MEMORY, 0, &doc, NULL) == 0);
	CHECK(doc && strstr(doc, "\"best_by\":\"memory\"") != NULL && strstr(doc, "\"id\":\"nvidia:0\"") == NULL);
	axl_free(doc);
	doc = NULL;
	CHECK(axl_inventory_json_select(inv, &numa, AXL_RANK_MEMORY, 0, &doc, NULL) == AXL_ENOENT && doc == NULL);

	/* a bad filter is refused, never read as "any" */
	struct axl_device_filter bad = AXL_DEVICE_FILTER_INIT;
	bad.version = 99;
	CHECK(axl_inventory_select(inv, &bad, NULL, 0, &n) == AXL_EVERSION);
	bad = (struct axl_device_filter)AXL_DEVICE_FILTER_INIT;
	bad.family = 42;
	CHECK(axl_inventory_select(inv, &bad, NULL, 0, &n) == AXL_EINVAL);
	bad = (struct axl_device_filter)AXL_DEVICE_FILTER_INIT;
	bad.min_memory_bytes = -1;
	CHECK(axl_inventory_total_memory(inv, &bad, &bytes, NULL) == AXL_EINVAL);
	bad = (struct axl_device_filter)AXL_DEVICE_FILTER_INIT;
	bad.visible = 2;
	CHECK(axl_device_filter_match(axl_inventory_device(inv, 0), &bad) == AXL_EINVAL);
	bad = (struct axl_device_filter)AXL_DEVICE_FILTER_INIT;
	bad.precision = AXL_FORMAT__COUNT;
	CHECK(axl_inventory_best(inv, &bad, AXL_RANK_MEMORY, &best) == AXL_EINVAL);
	CHECK(axl_inventory_select(inv, NULL, NULL, 1, &n) == AXL_EINVAL);

	/* the host's new facts: named, and unknown on a simulated node (no SMBIOS) */
	CHECK_STR(axl_host_attr_name(AXL_HOST_MEMORY_BANDWIDTH), "memory.bandwidth_bytes_per_s");
	CHECK_STR(axl_host_attr_name(AXL_HOST_CLOUD_INSTANCE_TYPE), "runtime.cloud.instance_type");
	int64_t bw;
	CHECK(axl_host_get_int(axl_inventory_host(inv), AXL_HOST_MEMORY_BANDWIDTH, &bw) == AXL_EUNKNOWN);

	axl_inventory_free(inv);
	axl_context_free(ctx);
	return check_summary();
}
