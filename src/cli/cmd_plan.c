/* SPDX-License-Identifier: MIT */
/* axl plan: will a model fit on this node (or on nodes described by `axl list --json`
 * files), how should it be split, and how fast will it run (docs/plan.md). */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axl.h"
#include "axl/plan.h"
#include "cli.h"
#include "../util/file.h"

#define PLAN_MAX_NODE_FILES 256
#define PLAN_MAX_FILE (64u << 20)

/* the options (the table at the end of the file) */
static struct {
	const char *model, *params, *quant, *kv_dtype, *devices, *engine, *objective;
	const char *nodes[PLAN_MAX_NODE_FILES];
	const char *registries[PLAN_MAX_NODE_FILES];
	int nnodes, nregistries, here, list;
	long ctx, batch;
	double network, memory_fraction, price_device_hour, price_node_hour;
} a;

/* The whole file (or pipe, as in --node <(ssh n axl list --json)), NUL-terminated; NULL
 * with a message on failure. */
static char *read_node_file(const char *path, size_t *len)
{
	char *text = NULL;
	int r = axl__file_read(path, PLAN_MAX_FILE, AXL__FILE_FIFO, &text, len);
	if (r == -EFBIG)
		fprintf(stderr, "axl: plan: %s: larger than 64 MiB\n", path);
	else if (r)
		fprintf(stderr, "axl: plan: %s: %s\n", path, axl__file_error(r));
	return r ? NULL : text;
}

/* "dir/gpu-node-3.json" -> "gpu-node-3" */
static void node_name(const char *path, char *out, size_t cap)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	size_t n = strlen(b);
	if (n > 5 && strcmp(b + n - 5, ".json") == 0)
		n -= 5;
	if (n >= cap)
		n = cap - 1;
	memcpy(out, b, n);
	out[n] = 0;
}

/* key: v, null when unknown (negative) */
static void json_i64(struct axl__json *w, const char *key, int64_t v)
{
	axl__json_key(w, key);
	if (v < 0)
		axl__json_null(w);
	else
		axl__json_int(w, v);
}

static int plan_list(int json)
{
	size_t n = axl_model_catalog_count();
	struct axl__sb sb = AXL__SB_INIT;
	struct axl__json w;
	if (json) {
		axl__json_init(&w, &sb, false);
		axl__json_obj(&w);
		axl__json_kstr(&w, "schema", "axl.models");
		axl__json_kint(&w, "schema_version", 1);
		axl__json_key(&w, "models");
		axl__json_arr(&w);
	} else
		printf("%-44s %-22s %-16s %9s %9s %6s %9s  %s\n", "ID", "ALIAS", "ARCHITECTURE", "PARAMS(B)",
		       "ACTIVE(B)", "LAYERS", "MAX CTX", "CATALOG ENTRY");
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		const char *id = axl_model_catalog_id(i);
		if (!id)
			break;
		axl_model *m = NULL;
		struct axl_model_info mi;
		memset(&mi, 0, sizeof mi);
		if (axl_model_open(&m, id) != 0 || axl_model_get_info(m, &mi) != 0) {
			fprintf(stderr, "axl: plan: %s: %s\n", id, axl_error_last());
			axl_model_free(m);
			rc = 1;
			continue;
		}
		if (json) {
			axl__json_obj(&w);
			axl__json_kstr(&w, "id", id);
			axl__json_kstr(&w, "alias", mi.alias ? mi.alias : axl_model_catalog_alias(i));
			axl__json_kstr(&w, "architecture", mi.architecture);
			json_i64(&w, "params", mi.params);
			json_i64(&w, "active_params", mi.active_params);
			json_i64(&w, "layers", mi.layers);
			json_i64(&w, "hidden", mi.hidden);
			json_i64(&w, "heads", mi.heads);
			json_i64(&w, "kv_heads", mi.kv_heads);
			json_i64(&w, "experts", mi.experts);
			json_i64(&w, "experts_per_token", mi.experts_per_token);
			json_i64(&w, "max_context", mi.max_context);
			axl__json_kstr(&w, "attention", mi.attention);
			axl__json_kstr(&w, "catalog_id", axl_model_catalog_entry(m));
			axl__json_obj_end(&w);
		} else {
			const char *alias = mi.alias ? mi.alias : axl_model_catalog_alias(i);
			char p[32] = "-", act[32] = "-", l[32] = "-", c[32] = "-";
			if (mi.params >= 0)
				snprintf(p, sizeof p, "%.1f", (double)mi.params / 1e9);
			if (mi.active_params >= 0)
				snprintf(act, sizeof act, "%.1f", (double)mi.active_params / 1e9);
			if (mi.layers >= 0)
				snprintf(l, sizeof l, "%" PRId64, mi.layers);
			if (mi.max_context >= 0)
				snprintf(c, sizeof c, "%" PRId64, mi.max_context);
			const char *entry = axl_model_catalog_entry(m);
			printf("%-44s %-22s %-16s %9s %9s %6s %9s  %s\n", id, alias ? alias : "-",
			       mi.architecture ? mi.architecture : "-", p, act, l, c,
			       entry && strcmp(entry, id) != 0 ? entry : "-");
		}
		axl_model_free(m);
	}
	if (json) {
		axl__json_arr_end(&w);
		axl__json_obj_end(&w);
		rc |= print_doc(&sb, 1);
	}
	return rc;
}

static int cmd_plan(struct opts *o, int argc, char **argv)
{
	(void)argc, (void)argv; /* main.c parsed them into a */
	/* a name given empty (--quant '') is a value forgotten, not the default */
	const struct {
		const char *opt, *v;
	} named[] = {{"--params", a.params},   {"--quant", a.quant},   {"--kv-dtype", a.kv_dtype},
		     {"--devices", a.devices}, {"--engine", a.engine}, {"--objective", a.objective}};
	for (size_t i = 0; i < sizeof named / sizeof *named; i++)
		if (named[i].v && !named[i].v[0]) {
			fprintf(stderr, "axl plan: %s needs a value, not ''\n", named[i].opt);
			return EXIT_USAGE;
		}
	for (int i = 0; i < a.nnodes; i++)
		if (!a.nodes[i][0]) {
			fprintf(stderr, "axl plan: --node needs a file, not ''\n");
			return EXIT_USAGE;
		}
	for (int i = 0; i < a.nregistries; i++)
		if (!a.registries[i][0]) {
			fprintf(stderr, "axl plan: --registry needs a file, not ''\n");
			return EXIT_USAGE;
		}
	const char *model_name = a.model;
	if (a.params) {
		/* a bare size: the same as naming it ("--params 7e9" is "7e9") */
		if (model_name) {
			fprintf(stderr, "axl plan: --params and a model name %s: give one\n", model_name);
			return EXIT_USAGE;
		}
		model_name = a.params;
	}
	/* --registry FILE: a node as ai-hwaccel's registry JSON describes it; counted with the
	 * --node files (another node than this one) */
	const int nnodes = a.nnodes + a.nregistries;
	const char *const *nodes = a.nodes;
	struct axl_plan_request req;
	memset(&req, 0, sizeof req);
	req.version = AXL_PLAN_REQUEST_VERSION;
	req.quantization = a.quant;
	req.kv_dtype = a.kv_dtype;
	req.devices = a.devices;
	req.context_tokens = a.ctx;
	req.batch = a.batch;
	req.network_gbps = a.network;
	req.engine = a.engine;
	req.memory_fraction = a.memory_fraction;
	req.objective = a.objective;
	req.price_per_device_hour = a.price_device_hour;
	req.price_per_node_hour = a.price_node_hour;
	if (a.list) {
		if (model_name || nnodes || a.here || req.quantization || req.kv_dtype || req.devices ||
		    req.context_tokens || req.batch || req.network_gbps > 0 || req.engine || req.memory_fraction > 0 ||
		    req.objective || req.price_per_device_hour > 0 || req.price_per_node_hour > 0) {
			fprintf(stderr, "axl plan: --list takes no model and no other option than --json\n");
			return EXIT_USAGE;
		}
		if (o->sysroot || o->sim || o->backends || o->nenv) {
			fprintf(stderr, "axl plan: --list reads no node (--sysroot, --sim, --backends and --env mean "
					"nothing to it)\n");
			return EXIT_USAGE;
		}
		return plan_list(o->json);
	}
	if (!model_name) {
		fprintf(stderr, "axl plan: which model? A catalog name (axl plan --list), a file or a size such as 7B "
				"(axl help plan)\n");
		return EXIT_USAGE;
	}
	if (a.here && !nnodes) {
		fprintf(stderr, "axl plan: --here is for adding this node to --node or --registry files\n");
		return EXIT_USAGE;
	}
	if (nnodes && !a.here && (o->sysroot || o->sim || o->backends || o->nenv)) {
		fprintf(stderr, "axl plan: --sysroot, --sim, --backends and --env describe this node, which --node "
				"FILE and --registry FILE leave out unless --here is given\n");
		return EXIT_USAGE;
	}

	axl_model *model = NULL;
	if (axl_model_open(&model, model_name) != 0)
		return fail_last("plan"); /* the message names the model */
	axl_planner *planner = NULL;
	if (axl_planner_new(&planner) != 0) {
		axl_model_free(model);
		return fail_last("plan");
	}
	int rc = 0;
	if (!nnodes || a.here) {
		axl_context *ctx;
		axl_inventory *inv;
		if (open_inventory(o, &ctx, &inv)) {
			rc = 1;
		} else {
			if (axl_planner_add_inventory(planner, inv, NULL) != 0)
				rc = fail_last("this node");
			print_warnings(inv);
			axl_inventory_free(inv);
			axl_context_free(ctx);
		}
	}
	for (int i = 0; i < a.nregistries && rc == 0; i++) {
		size_t len = 0;
		char *text = read_node_file(a.registries[i], &len);
		if (!text) {
			rc = 1;
			break;
		}
		char name[64];
		node_name(a.registries[i], name, sizeof name);
		size_t nw = axl_planner_warning_count(planner);
		if (axl_planner_add_hwaccel_json(planner, text, len, name) != 0)
			rc = fail_last(a.registries[i]);
		for (; nw < axl_planner_warning_count(planner); nw++)
			fprintf(stderr, "axl: warning: %s: %s\n", a.registries[i],
				axl_planner_warning(planner, nw)->message);
		free(text);
	}
	for (int i = 0; i < a.nnodes && rc == 0; i++) {
		size_t len = 0;
		char *text = read_node_file(nodes[i], &len);
		if (!text) {
			rc = 1;
			break;
		}
		char name[64];
		node_name(nodes[i], name, sizeof name);
		size_t nw = axl_planner_warning_count(planner);
		if (axl_planner_add_json(planner, text, len, name) != 0)
			rc = fail_last(nodes[i]);
		/* what reading this file noticed (a newer document), named by the file */
		for (; nw < axl_planner_warning_count(planner); nw++)
			fprintf(stderr, "axl: warning: %s: %s\n", nodes[i], axl_planner_warning(planner, nw)->message);
		free(text);
	}
	/* a node without accelerators is planned on its host (docs/plan.md "CPU plans") */
	axl_plan *plan = NULL;
	/* options are checked first; then no devices at all (no accelerator, no host memory
	 * known) is an empty plan whose reason the document gives: exit 0, as ai-hwaccel's
	 * planner returns an empty plan for a registry without devices (docs/plan.md) */
	if (rc == 0 && axl_plan_compute(&plan, planner, model, &req) != 0)
		rc = fail_last("plan");
	if (rc == 0) {
		char *out = NULL;
		size_t len = 0;
		if ((o->json ? axl_plan_json(plan, &out, &len) : axl_plan_text(plan, &out, &len)) != 0) {
			rc = fail_last("plan");
		} else {
			fwrite(out, 1, len, stdout);
			if (len && out[len - 1] != '\n')
				putchar('\n');
			free(out);
		}
	}
	axl_plan_free(plan);
	axl_planner_free(planner);
	axl_model_free(model);
	if (fflush(stdout) != 0)
		rc = 1;
	return rc;
}

static const struct cli_opt options[] = {
	{.type = CLI_OPT_ARG, .name = "MODEL|SIZE", .value = &a.model,
	 .help = "a catalog name (axl plan --list), a config.json, safetensors or GGUF\nfile, or a bare size such as "
	         "7B"},
	{.type = CLI_OPT_FLAG, .name = "list", .value = &a.list,
	 .help = "the built-in model catalog instead of a plan (with --json: axl.models)"},
	{.type = CLI_OPT_STRING, .name = "params", .value = &a.params, .value_name = "N",
	 .help = "a bare size in parameters (7e9), the same as naming 7B"},
	{.type = CLI_OPT_STRING, .name = "quant", .value = &a.quant, .value_name = "Q|auto",
	 .help = "the weights: bf16, fp16, fp8, int8, int4, awq, gptq, mxfp4, q8_0,\nq4_k_m, ...; auto: the "
	         "best-quality format the devices the plan uses run\nnatively that fits (default: the model's own)"},
	{.type = CLI_OPT_COUNT, .name = "ctx", .value = &a.ctx,
	 .help = "context tokens per sequence (default: the model's maximum, at most 8192)", .min = 1,
	 .max = (double)AXL_PLAN_MAX_CONTEXT},
	{.type = CLI_OPT_COUNT, .name = "batch", .value = &a.batch, .help = "sequences decoded together (default 1)",
	 .min = 1, .max = AXL_PLAN_MAX_BATCH},
	{.type = CLI_OPT_STRING, .name = "kv-dtype", .value = &a.kv_dtype, .value_name = "D",
	 .help = "the KV cache's type: fp32, bf16, fp16, fp8, int8 (default bf16; f16 for GGUF)"},
	{.type = CLI_OPT_STRING, .name = "devices", .value = &a.devices, .value_name = "LIST",
	 .help = "only these devices (nvidia:0,nvidia:1; node/id with --node); cpu: plan on\nthe host, its memory and "
	         "memory bandwidth"},
	{.type = CLI_OPT_LIST, .name = "node", .value = a.nodes, .value_name = "FILE",
	 .help = "plan on the node whose axl list --json FILE is (repeatable), instead of\nthis one",
	 .max = PLAN_MAX_NODE_FILES, .count = &a.nnodes},
	{.type = CLI_OPT_LIST, .name = "registry", .value = a.registries, .value_name = "FILE",
	 .help = "plan on the node that ai-hwaccel's registry JSON FILE describes (repeatable;\nits serde layout, "
	         "schema_version 1-3)", .max = PLAN_MAX_NODE_FILES, .count = &a.nregistries},
	{.type = CLI_OPT_FLAG, .name = "here", .value = &a.here,
	 .help = "with --node: this node too (the global node options describe it)"},
	{.type = CLI_OPT_RATE, .name = "network", .value = &a.network,
	 .help = "between nodes, per direction, with its unit: 400Gb/s for a 400G NIC (50\nGB/s), or 50GB/s (default: "
	         "the slowest node's fastest RDMA NIC, else\n100Gb/s)", .min = 0.001, .max = 10000},
	{.type = CLI_OPT_RATE, .name = "network-gbps", .flags = CLI_OPT_REFUSED,
	 .help = "is gone: it read GB/s where a 400G NIC's owner types 400; say --network 400Gb/s (bits) or --network "
	         "50GB/s (bytes)"},
	{.type = CLI_OPT_STRING, .name = "engine", .value = &a.engine, .value_name = "E",
	 .help = "the serving engine the estimates are for: vllm (default), sglang, trt-llm,\nllama.cpp, pytorch "
	         "(docs/plan.md \"Calibration\")"},
	{.type = CLI_OPT_NUMBER, .name = "memory-fraction", .value = &a.memory_fraction, .value_name = "F",
	 .help = "the share of each device's memory the engine gives the model (default:\nthe engine's, vllm 0.90)",
	 .min = 0.01, .max = 1},
	{.type = CLI_OPT_STRING, .name = "objective", .value = &a.objective, .value_name = "O",
	 .help = "devices (default: the fewest devices that fit, then the fastest), latency\n(one sequence's decode), "
	         "throughput (the batch's decode), cost (per\nmillion tokens: needs a price); without case"},
	{.type = CLI_OPT_NUMBER, .name = "price-device-hour", .value = &a.price_device_hour, .value_name = "P",
	 .help = "a price per device-hour, for the cost per million tokens (default: the\nnode file's, or the price "
	         "table's for the node's instance type)", .min = 0.0001, .max = 100000},
	{.type = CLI_OPT_NUMBER, .name = "price-node-hour", .value = &a.price_node_hour, .value_name = "P",
	 .help = "a price per node-hour instead (every node the plan uses is paid whole)", .min = 0.0001,
	 .max = 100000},
	{0},
};

const struct cli_command cli_cmd_plan = {
	"plan", cmd_plan, CLI_G_NODE | CLI_G_JSON, options, NULL,
	"will a model fit, how to split it, how fast it will run",
	"Will a model fit on this node, or on the nodes whose axl list --json are the --node\n"
	"FILEs; how to split it over the devices, and how fast it will decode and prefill\n"
	"(docs/plan.md). Without accelerators, or with --devices cpu, the plan is on the\n"
	"host. When nothing fits, it says how far short the closest split is and what would\n"
	"fit. --list prints the built-in model catalog.",
};
