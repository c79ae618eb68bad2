/* SPDX-License-Identifier: MIT */
/* The planner's nodes (src/lib/plan_node.c): devices, memory, bandwidth, peak
 * throughput and links from simulated inventories, the same read back from their own
 * axl.inventory documents, replayed golden documents, and the refusal of documents that
 * are not inventories. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axl.h"
#include "check.h"
#include "plan.h"

#ifndef AXL_TEST_SRCDIR
#define AXL_TEST_SRCDIR "."
#endif

static axl_inventory *open_sim(const char *name, axl_context **ctx)
{
	char path[512];
	snprintf(path, sizeof path, "%s/tests/sim/%s", AXL_TEST_SRCDIR, name);
	struct axl_context_options o = AXL_CONTEXT_OPTIONS_INIT;
	o.flags = AXL_CONTEXT_NO_ENV;
	o.sim = path;
	axl_inventory *inv = NULL;
	*ctx = NULL;
	if (axl_context_open(ctx, &o) != 0 || axl_inventory_open(&inv, *ctx, 0) != 0) {
		fprintf(stderr, "%s: %s\n", path, axl_error_last());
		exit(2);
	}
	return inv;
}

static char *read_text(const char *rel, size_t *len)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", AXL_TEST_SRCDIR, rel);
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		exit(2);
	}
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	size_t r;
	while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0) {
		n += r;
		if (n == cap)
			buf = realloc(buf, cap *= 2);
	}
	fclose(f);
	if (!buf)
		exit(2);
	*len = n;
	return buf;
}

static int same_dev(const struct axl__pdev *a, const struct axl__pdev *b)
{
	if (strcmp(a->id, b->id) || strcmp(a->uuid, b->uuid) || strcmp(a->model, b->model) ||
	    strcmp(a->vendor, b->vendor) || a->family != b->family || a->memory_bytes != b->memory_bytes ||
	    a->memory_total != b->memory_total || a->bandwidth_gbps != b->bandwidth_gbps ||
	    a->pcie_gbps != b->pcie_gbps || a->numa_node != b->numa_node) {
		fprintf(stderr, "differs: %s / %s\n", a->id, b->id);
		return 0;
	}
	for (int i = 0; i < AXL__PF__COUNT; i++)
		if (a->tflops[i] != b->tflops[i]) {
			fprintf(stderr, "tflops[%d] differs: %s %g / %g\n", i, a->id, a->tflops[i], b->tflops[i]);
			return 0;
		}
	return 1;
}

/* Node `sim` through the inventory, then through its own JSON: the same devices and
 * links, the second as node 1. Returns the planner (devices 0..n-1 from the inventory). */
static axl_planner *both_ways(const char *sim, size_t expect)
{
	axl_context *ctx;
	axl_inventory *inv = open_sim(sim, &ctx);
	axl_planner *p = NULL;
	CHECK_INT(axl_planner_new(&p), 0);
	CHECK_INT(axl_planner_add_inventory(p, inv, NULL), 0);
	size_t n = axl_planner_device_count(p);
	CHECK_INT(n, expect);
	char *js = NULL;
	size_t len = 0;
	CHECK_INT(axl_inventory_json(inv, 0, &js, &len), 0);
	CHECK_INT(axl_planner_add_json(p, js, len, "copy"), 0);
	free(js);
	CHECK_INT(axl_planner_device_count(p), 2 * n);
	CHECK_INT(p->nnodes, 2);
	/* each node's accelerators, then its host (docs/plan.md "CPU plans"), the same from
	 * the inventory and from its document */
	CHECK_INT(p->nodes[0].first, 0);
	CHECK_INT(p->nodes[0].count, n + 1);
	CHECK_INT(p->nodes[1].first, n + 1);
	CHECK_INT(p->nodes[1].count, n + 1);
	CHECK(p->devs[n].host && p->devs[2 * n + 1].host && !p->devs[0].host);
	CHECK_STR(p->devs[n].id, "cpu");
	CHECK_INT(p->devs[n].memory_bytes, p->devs[2 * n + 1].memory_bytes);
	CHECK(p->devs[n].bandwidth_gbps == p->devs[2 * n + 1].bandwidth_gbps && p->devs[n].bandwidth_gbps > 0);
	CHECK(p->devs[n].tflops[AXL__PF_FP32] == p->devs[2 * n + 1].tflops[AXL__PF_FP32]);
	CHECK_STR(p->nodes[1].name, "copy");
	CHECK(p->nodes[0].name[0] != 0);
	CHECK(p->nodes[0].nic_gbps == p->nodes[1].nic_gbps);
	for (size_t i = 0; i < n && 2 * n == p->ndevs; i++) {
		CHECK(same_dev(&p->devs[i], &p->devs[n + i]));
		CHECK_INT(p->devs[i].node, 0);
		CHECK_INT(p->devs[n + i].node, 1);
		for (size_t j = 0; j < n; j++) {
			const struct axl__plink_info *a = axl__planner_link(p, i, j);
			const struct axl__plink_info *b = axl__planner_link(p, n + i, n + j);
			CHECK_INT(a->kind, b->kind);
			CHECK(a->gbps == b->gbps);
			/* across the two nodes: no link, the network is used */
			CHECK_INT(axl__planner_link(p, i, n + j)->kind, AXL__PL_NONE);
			if (i != j)
				CHECK(a->kind != AXL__PL_NONE);
		}
	}
	axl_inventory_free(inv);
	axl_context_free(ctx);
	return p;
}

static void h100(void)
{
	axl_planner *p = both_ways("h100x8-nvswitch.json", 8);
	CHECK_STR(p->nodes[0].name, "dgx-h100-sim");
	for (size_t i = 0; i < 8; i++) {
		const struct axl__pdev *d = &p->devs[i];
		CHECK_INT(d->family, AXL_FAMILY_GPU);
		CHECK_INT(d->memory_total, 85899345920LL);
		CHECK(d->memory_bytes > 0 && d->memory_bytes <= d->memory_total);
		CHECK(d->bandwidth_gbps == 3350);
		CHECK(d->tflops[AXL__PF_BF16] == 989.4);
		CHECK(d->tflops[AXL__PF_FP8] == 1978.9);
		CHECK(d->tflops[AXL__PF_INT4] < 0);
		CHECK(fabs(d->pcie_gbps - 3.938 * 16) < 1e-9);
		CHECK(strstr(d->model, "H100") != NULL);
		for (size_t j = 0; j < 8; j++)
			if (i != j) {
				CHECK_INT(axl__planner_link(p, i, j)->kind, AXL__PL_FABRIC);
				CHECK(axl__planner_link(p, i, j)->gbps > 100);
			}
	}
	axl_planner_free(p);
}

static void mi300(void)
{
	axl_planner *p = both_ways("mi300x8.json", 8);
	for (size_t i = 0; i < 8; i++) {
		CHECK_INT(p->devs[i].memory_total, 206158430208LL);
		CHECK(p->devs[i].bandwidth_gbps == 5300);
		CHECK(p->devs[i].tflops[AXL__PF_BF16] == 1307.4);
		for (size_t j = 0; j < 8; j++)
			if (i != j)
				CHECK_INT(axl__planner_link(p, i, j)->kind, AXL__PL_FABRIC);
	}
	axl_planner_free(p);
}

static void mixed(void)
{
	axl_planner *p = both_ways("mixed.json", 6);
	CHECK_STR(p->devs[0].id, "nvidia:0");
	CHECK_STR(p->devs[0].uuid, "GPU-mixed-h100-a");
	CHECK_INT(axl__planner_link(p, 0, 1)->kind, AXL__PL_FABRIC);
	CHECK(axl__planner_link(p, 0, 1)->gbps == 450);
	CHECK_INT(axl__planner_link(p, 2, 3)->kind, AXL__PL_PCIE);   /* numa */
	CHECK_INT(axl__planner_link(p, 0, 2)->kind, AXL__PL_SYSTEM);
	CHECK(p->devs[2].bandwidth_gbps == 300);                      /* L4 */
	CHECK(p->devs[2].tflops[AXL__PF_BF16] == 121);
	CHECK(p->devs[4].tflops[AXL__PF_BF16] < 0);                    /* 4090: not known */
	CHECK(p->devs[4].tflops[AXL__PF_FP32] == 82.6);
	CHECK_STR(p->devs[5].id, "amdgpu:0");
	CHECK_INT(p->devs[5].numa_node, 0);
	CHECK_INT(p->devs[2].numa_node, 1);
	axl_planner_free(p);
}

static void golden(const char *name, size_t expect, enum axl__plink kind01)
{
	char rel[256];
	snprintf(rel, sizeof rel, "tests/replay/golden/%s", name);
	size_t len;
	char *text = read_text(rel, &len);
	axl_planner *p = NULL;
	CHECK_INT(axl_planner_new(&p), 0);
	CHECK_INT(axl_planner_add_json(p, text, len, NULL), 0);
	CHECK_INT(axl_planner_device_count(p), expect);
	CHECK_INT(p->nnodes, 1);
	CHECK(p->nodes[0].name[0] != 0);
	/* no CPU device of the document's; the host (its memory known) after the accelerators */
	for (size_t i = 0; i < p->ndevs; i++)
		CHECK(p->devs[i].family != AXL_FAMILY_CPU ||
		      (p->devs[i].host && i == expect && p->ndevs == expect + 1));
	if (expect >= 2)
		CHECK_INT(axl__planner_link(p, 0, 1)->kind, kind01);
	/* the same document twice: two nodes with the same ids */
	CHECK_INT(axl_planner_add_json(p, text, len, "second"), 0);
	CHECK_INT(axl_planner_device_count(p), 2 * expect);
	CHECK_INT(p->nnodes, 2);
	if (expect) {
		size_t second = p->nodes[1].first;
		CHECK_STR(p->devs[0].id, p->devs[second].id);
		CHECK_INT(p->devs[second].node, 1);
	}
	free(text);
	axl_planner_free(p);
}

static void goldens(void)
{
	golden("hgx-8x-h100.json", 8, AXL__PL_FABRIC);
	golden("mi300x-8x.json", 8, AXL__PL_FABRIC);
	golden("laptop-npu-2gpu.json", 3, AXL__PL_PCIE);

	size_t len;
	char *text = read_text("tests/replay/golden/hgx-8x-h100.json", &len);
	axl_planner *p = NULL;
	CHECK_INT(axl_planner_new(&p), 0);
	CHECK_INT(axl_planner_add_json(p, text, len, NULL), 0);
	CHECK_STR(p->nodes[0].name, "hgx-h100-07");
	CHECK(p->nodes[0].nic_gbps == 50);     /* 400 Gb/s */
	CHECK(p->devs[0].bandwidth_gbps == 3350);
	CHECK(p->devs[0].tflops[AXL__PF_BF16] == 989.4);
	CHECK(axl__planner_link(p, 0, 1)->gbps == 450);
	free(text);
	axl_planner_free(p);

	text = read_text("tests/replay/golden/laptop-npu-2gpu.json", &len);
	CHECK_INT(axl_planner_new(&p), 0);
	CHECK_INT(axl_planner_add_json(p, text, len, "laptop"), 0);
	CHECK_STR(p->nodes[0].name, "laptop");
	CHECK(p->nodes[0].nic_gbps < 0);
	CHECK_STR(p->devs[1].id, "intelnpu:0");
	CHECK_INT(p->devs[1].family, AXL_FAMILY_NPU);
	CHECK(p->devs[1].tflops[AXL__PF_FP16] < 0); /* native, but no peak known */
	free(text);
	axl_planner_free(p);
}

static void refuse(const char *doc, const char *what)
{
	axl_planner *p = NULL;
	CHECK_INT(axl_planner_new(&p), 0);
	int rc = axl_planner_add_json(p, doc, strlen(doc), NULL);
	if (rc != AXL_EPARSE)
		fprintf(stderr, "accepted (%d): %s\n", rc, doc);
	CHECK_INT(rc, AXL_EPARSE);
	CHECK(strstr(axl_error_last(), what) != NULL);
	CHECK_INT(axl_planner_device_count(p), 0);
	CHECK_INT(p->nnodes, 0);
	axl_planner_free(p);
}

static void bad(void)
{
	refuse("{\"schema\":\"axl.sim\",\"devices\":[]}", "not an axl.inventory");
	refuse("{\"devices\":[]}", "not an axl.inventory");
	refuse("[1,2]", "not an axl.inventory");
	refuse("{\"schema\":\"axl.inventory\",\"devices\":[{\"id\":\"nvidia:0\"", "offset");
	refuse("", "offset");
	refuse("{\"schema\":\"axl.inventory\"}", "devices");
	refuse("{\"schema\":\"axl.inventory\",\"devices\":{}}", "devices");
	refuse("{\"schema\":\"axl.inventory\",\"devices\":[1]}", "devices[0]");
	refuse("{\"schema\":\"axl.inventory\",\"devices\":[{\"id\":\"a:0\"},\"x\"]}", "devices[1]");
	refuse("{\"schema\":\"axl.inventory\",\"devices\":[{\"id\":7}]}", "id");
	refuse("{\"schema\":\"axl.inventory\",\"devices\":[{}]}", "id");
	refuse("{\"schema\":\"axl.inventory\",\"devices\":[{\"id\":\"a:0\",\"memory\":5}]}", "memory");
	refuse("{\"schema\":\"axl.inventory\",\"devices\":[{\"id\":\"a:0\",\"memory\":{\"total_bytes\":\"8G\"}}]}",
	       "total_bytes");
	refuse("{\"schema\":\"axl.inventory\",\"devices\":[{\"id\":\"a:0\",\"precision\":[{\"format\":1}]}]}",
	       "format");
	refuse("{\"schema\":\"axl.inventory\",\"devices\":[{\"id\":\"a:0\",\"precision\":[3]}]}", "precision");
	refuse("{\"schema\":\"axl.inventory\",\"devices\":[],\"links\":[{\"a\":1}]}", "links[0]");
	refuse("{\"schema\":\"axl.inventory\",\"devices\":[],\"nics\":[{\"rate_gbit\":\"fast\"}]}", "rate_gbit");
	refuse("{\"schema\":\"axl.inventory\",\"schema_version\":2,\"devices\":[],\"nics\":[{\"rate_gbps\":\"fast\"}]}",
	       "rate_gbps");

	/* odd but well-typed: accepted, unknowns stay unknown, long ids truncated */
	axl_planner *p = NULL;
	CHECK_INT(axl_planner_new(&p), 0);
	char doc[2048];
	char longid[200];
	memset(longid, 'x', sizeof longid - 1);
	longid[sizeof longid - 1] = 0;
	snprintf(doc, sizeof doc,
		 "{\"schema\":\"axl.inventory\",\"devices\":[{\"id\":\"%s\",\"family\":\"gpu\","
		 "\"memory\":{\"total_bytes\":1000,\"visible_bytes\":800,\"used_bytes\":900,\"bandwidth_gbps\":-3},"
		 "\"precision\":[{\"format\":\"BF16\",\"support\":\"emulated\",\"peak_tflops\":5},"
		 "{\"format\":\"FP16\",\"support\":\"native\",\"peak_tflops\":7},{\"format\":\"FP6\",\"support\":"
		 "\"native\"}]},"
		 "{\"id\":\"b:0\",\"pci\":{\"link\":{\"current_gen\":3,\"current_width\":8}}},"
		 "{\"id\":\"c:0\",\"pci\":{\"link\":{\"current_gen\":4,\"current_width\":4}}},"
		 "{\"id\":\"cpu:0\",\"family\":\"cpu\"}],"
		 "\"links\":[{\"a\":\"b:0\",\"b\":\"c:0\",\"kind\":\"host-bridge\"},{\"a\":\"b:0\",\"b\":\"zz\","
		 "\"kind\":\"nvlink\"},"
		 "{\"a\":\"b:0\",\"b\":\"%s\",\"kind\":\"warp-drive\"}],"
		 "\"nics\":[{\"state\":\"DOWN\",\"rate_gbit\":800},{\"state\":\"ACTIVE\",\"rate_gbit\":200}]}",
		 longid, longid);
	CHECK_INT(axl_planner_add_json(p, doc, strlen(doc), NULL), 0);
	CHECK_INT(axl_planner_device_count(p), 3);
	CHECK_STR(p->nodes[0].name, "node0");
	CHECK(p->nodes[0].nic_gbps == 25);
	CHECK_INT(strlen(p->devs[0].id), sizeof p->devs[0].id - 1);
	CHECK_INT(p->devs[0].memory_total, 1000);
	CHECK_INT(p->devs[0].memory_bytes, 0);
	CHECK(p->devs[0].bandwidth_gbps < 0);
	CHECK(p->devs[0].tflops[AXL__PF_BF16] < 0);
	CHECK(p->devs[0].tflops[AXL__PF_FP16] == 7);
	CHECK(p->devs[1].memory_bytes < 0);
	CHECK(fabs(p->devs[1].pcie_gbps - 0.985 * 8) < 1e-9);
	CHECK_INT(axl__planner_link(p, 1, 2)->kind, AXL__PL_PCIE);
	CHECK(fabs(axl__planner_link(p, 1, 2)->gbps - 1.969 * 4) < 1e-9); /* the slower end */
	CHECK_INT(axl__planner_link(p, 0, 1)->kind, AXL__PL_NONE);
	CHECK_INT(axl__planner_link(p, 0, 0)->kind, AXL__PL_NONE);
	CHECK_INT(axl__planner_link(p, 0, 99)->kind, AXL__PL_NONE);
	axl_planner_free(p);

	CHECK_INT(axl_planner_add_json(NULL, "{}", 2, NULL), AXL_EINVAL);
	CHECK_INT(axl_planner_add_inventory(NULL, NULL, NULL), AXL_EINVAL);
	CHECK_INT(axl_planner_device_count(NULL), 0);
	axl_planner_free(NULL);
}

static void internals(void)
{
	axl_planner *p = NULL;
	CHECK_INT(axl_planner_new(&p), 0);
	struct axl__pdev d;
	memset(&d, 0, sizeof d);
	snprintf(d.id, sizeof d.id, "x:0");
	CHECK_INT(axl__planner_add_dev(p, &d), -1); /* no node yet */
	size_t ni = 99;
	CHECK_INT(axl__planner_add_node(p, "a", 12.5, &ni), 0);
	CHECK_INT(ni, 0);
	CHECK_INT(axl__planner_add_dev(p, &d), 0);
	CHECK_INT(axl__planner_add_dev(p, &d), 0);
	CHECK_INT(axl__planner_set_link(p, 0, 1, AXL__PL_BOARD, 100), 0);
	CHECK_INT(axl__planner_add_node(p, NULL, -1, &ni), 0);
	CHECK_INT(ni, 1);
	CHECK_STR(p->nodes[1].name, "node1");
	CHECK_INT(axl__planner_add_dev(p, &d), 0);
	CHECK_INT(p->devs[2].node, 1);
	CHECK_INT(axl__planner_set_link(p, 0, 2, AXL__PL_FABRIC, 1), -1); /* different nodes */
	CHECK_INT(axl__planner_link(p, 1, 0)->kind, AXL__PL_BOARD);      /* kept across growth */
	CHECK(axl__planner_link(p, 1, 0)->gbps == 100);
	CHECK_INT(axl__plink_of("xgmi"), AXL__PL_FABRIC);
	CHECK_INT(axl__plink_of("nvswitch"), AXL__PL_FABRIC);
	CHECK_INT(axl__plink_of("board"), AXL__PL_BOARD);
	CHECK_INT(axl__plink_of("pcie-switch"), AXL__PL_PCIE);
	CHECK_INT(axl__plink_of("system"), AXL__PL_SYSTEM);
	CHECK_INT(axl__plink_of("?"), AXL__PL_NONE);
	CHECK_INT(axl__plink_of(NULL), AXL__PL_NONE);
	axl_planner_free(p);
}

/* A document of a later schema_version: read as far as understood (the same node as
 * version 2), one warning naming the node and both versions; a version that is not a
 * positive integer is refused; none is read as before. */
static void versions(void)
{
	size_t len = 0;
	char *text = read_text("tests/replay/golden/hgx-8x-h100.json", &len);
	CHECK(text != NULL);
	if (!text)
		return;
	static const char key[] = "\"schema_version\": 2";
	char *v = memmem(text, len, key, sizeof key - 1);
	CHECK(v != NULL);
	if (!v) {
		free(text);
		return;
	}
	axl_planner *p1 = NULL, *p99 = NULL;
	CHECK_INT(axl_planner_new(&p1), 0);
	CHECK_INT(axl_planner_add_json(p1, text, len, "node-a"), 0);
	CHECK_INT(axl_planner_warning_count(p1), 0);
	/* "schema_version": 2 -> 99, and a key this axl does not know */
	size_t off = (size_t)(v - text) + strlen("\"schema_version\": ");
	char *t99 = malloc(len + 64);
	CHECK(t99 != NULL);
	if (!t99) {
		free(text);
		return;
	}
	int n = snprintf(t99, len + 64, "%.*s99, \"added_later\": {\"x\": [1, 2]}%.*s", (int)off, text,
			 (int)(len - off - 1), text + off + 1);
	CHECK_INT(axl_planner_new(&p99), 0);
	CHECK_INT(axl_planner_add_json(p99, t99, (size_t)n, "node-a"), 0);
	CHECK_INT(axl_planner_warning_count(p99), 1);
	const struct axl_warning *w = axl_planner_warning(p99, 0);
	CHECK(w != NULL);
	if (w) {
		CHECK_STR(w->source, "plan");
		CHECK_STR(w->path, "node-a");
		CHECK_STR(w->message,
			  "schema_version 99 is newer than this axl reads (2); reading what it understands");
	}
	CHECK(axl_planner_warning(p99, 1) == NULL);
	CHECK(axl_planner_warning(NULL, 0) == NULL);
	CHECK_INT(axl_planner_warning_count(NULL), 0);
	/* the same node */
	CHECK_INT(axl_planner_device_count(p99), axl_planner_device_count(p1));
	for (size_t i = 0; i < p1->ndevs && i < p99->ndevs; i++)
		CHECK(same_dev(&p1->devs[i], &p99->devs[i]));
	for (size_t i = 0; i < p1->ndevs * p1->ndevs && p1->ndevs == p99->ndevs; i++)
		CHECK(p1->links[i].kind == p99->links[i].kind && p1->links[i].gbps == p99->links[i].gbps);
	/* a second newer node: its own warning; the node's host name when none is given */
	CHECK_INT(axl_planner_add_json(p99, t99, (size_t)n, NULL), 0);
	CHECK_INT(axl_planner_warning_count(p99), 2);
	CHECK_STR(axl_planner_warning(p99, 1)->path, p99->nodes[1].name);
	axl_planner_free(p1);
	axl_planner_free(p99);
	free(t99);
	free(text);
	refuse("{\"schema\":\"axl.inventory\",\"schema_version\":\"1\",\"devices\":[]}", "schema_version");
	refuse("{\"schema\":\"axl.inventory\",\"schema_version\":0,\"devices\":[]}", "schema_version");
	refuse("{\"schema\":\"axl.inventory\",\"schema_version\":1.5,\"devices\":[]}", "schema_version");
	/* a refused newer document warns of nothing */
	axl_planner *p = NULL;
	CHECK_INT(axl_planner_new(&p), 0);
	const char *badnew = "{\"schema\":\"axl.inventory\",\"schema_version\":7,\"devices\":[1]}";
	CHECK_INT(axl_planner_add_json(p, badnew, strlen(badnew), NULL), AXL_EPARSE);
	CHECK_INT(axl_planner_warning_count(p), 0);
	const char *nover = "{\"schema\":\"axl.inventory\",\"devices\":[{\"id\":\"a:0\"}]}";
	CHECK_INT(axl_planner_add_json(p, nover, strlen(nover), NULL), 0);
	CHECK_INT(axl_planner_warning_count(p), 0);
	axl_planner_free(p);
}

/* The NIC's rate: GB/s in "rate_gbps" from schema_version 2 on; a document of version 1
 * (or without a version) gives Gb/s in "rate_gbit", read as GB/s (over 8); each version
 * reads its own key only. */
static double nic_of(const char *doc)
{
	axl_planner *p = NULL;
	double g = -2;
	CHECK_INT(axl_planner_new(&p), 0);
	CHECK_INT(axl_planner_add_json(p, doc, strlen(doc), NULL), 0);
	CHECK_INT(axl_planner_warning_count(p), 0);
	if (p->nnodes == 1)
		g = p->nodes[0].nic_gbps;
	axl_planner_free(p);
	return g;
}

static void nic_rates(void)
{
#define NICDOC(ver, nic) "{\"schema\":\"axl.inventory\"" ver ",\"devices\":[{\"id\":\"a:0\"}],\"nics\":[" nic "]}"
	CHECK(nic_of(NICDOC(",\"schema_version\":2", "{\"state\":\"ACTIVE\",\"rate_gbps\":50}")) == 50);
	CHECK(nic_of(NICDOC(",\"schema_version\":1", "{\"state\":\"ACTIVE\",\"rate_gbit\":400}")) == 50);
	CHECK(nic_of(NICDOC("", "{\"state\":\"ACTIVE\",\"rate_gbit\":100}")) == 12.5);
	/* the other version's key is not read */
	CHECK(nic_of(NICDOC(",\"schema_version\":2", "{\"state\":\"ACTIVE\",\"rate_gbit\":400}")) < 0);
	CHECK(nic_of(NICDOC(",\"schema_version\":1", "{\"state\":\"ACTIVE\",\"rate_gbps\":50}")) < 0);
	/* the fastest active port */
	CHECK(nic_of(NICDOC(",\"schema_version\":2",
			    "{\"state\":\"ACTIVE\",\"rate_gbps\":12.5},"
			    "{\"state\":\"DOWN\",\"rate_gbps\":100},{\"state\":\"ACTIVE\",\"rate_gbps\":25}")) == 25);
#undef NICDOC
}

int main(void)
{
	h100();
	mi300();
	mixed();
	goldens();
	bad();
	internals();
	versions();
	nic_rates();
	return check_summary();
}
