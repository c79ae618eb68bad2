/* SPDX-License-Identifier: MIT */
/* axl plan: will a model fit on this node (or on nodes described by `axl list --json`
 * files), how should it be split, and how fast will it run (docs/plan.md). */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "axl.h"
#include "axl/plan.h"
#include "cli.h"
#include "../util/file.h"

#define PLAN_MAX_NODE_FILES 256
#define PLAN_MAX_FILE (64u << 20)

static int usage_plan(void)
{
	fprintf(stderr, "axl: usage: axl plan MODEL|SIZE [--params N] [--quant Q|auto] [--ctx N] [--batch N] [--kv-dtype D] [--devices LIST]\n"
			"       [--node FILE]... [--here] [--network RATE] [--engine E] [--memory-fraction F]\n"
			"       [--objective devices|latency|throughput|cost] [--price-device-hour P | --price-node-hour P] [--json]\n"
			"       axl plan --list [--json]\n");
	return EXIT_USAGE;
}

/* A positive integer, all of s; -1 when it is not one. */
static int64_t parse_pos_int(const char *s)
{
	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	char *end;
	long long v = strtoll(s, &end, 10);
	if (errno || *end || v <= 0)
		return -1;
	return (int64_t)v;
}

/* A positive finite number, all of s; -1 when it is not one. */
static double parse_pos_num(const char *s)
{
	if (!s || !((*s >= '0' && *s <= '9') || *s == '.'))
		return -1;
	errno = 0;
	char *end;
	double v = strtod(s, &end);
	if (errno || *end || !isfinite(v) || !(v > 0))
		return -1;
	return v;
}

/* A rate with its unit, in GB/s (10^9 bytes/s): "400Gb/s" (bits) is 50, "50GB/s" 50; -1 when
 * it is not one (a bare number included). */
static double parse_rate(const char *s)
{
	static const struct {
		const char *unit;
		double gbps;
	} units[] = {{"GB/s", 1}, {"GBps", 1}, {"GiB/s", 1.073741824}, {"TB/s", 1000}, {"MB/s", 1e-3},
		     {"Gb/s", 0.125}, {"Gbit/s", 0.125}, {"Gbps", 0.125}, {"Tb/s", 125}, {"Tbit/s", 125},
		     {"Mb/s", 0.000125}, {"Mbit/s", 0.000125}};
	if (!s || !((*s >= '0' && *s <= '9') || *s == '.'))
		return -1;
	errno = 0;
	char *end;
	double v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || !(v > 0))
		return -1;
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (strcmp(end, units[i].unit) == 0)
			return v * units[i].gbps;
	return -1;
}

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
		printf("%-44s %-22s %-16s %9s %9s %6s %9s  %s\n", "ID", "ALIAS", "ARCHITECTURE", "PARAMS(B)", "ACTIVE(B)",
		       "LAYERS", "MAX CTX", "CATALOG ENTRY");
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
			char p[32] = "-", a[32] = "-", l[32] = "-", c[32] = "-";
			if (mi.params >= 0)
				snprintf(p, sizeof p, "%.1f", (double)mi.params / 1e9);
			if (mi.active_params >= 0)
				snprintf(a, sizeof a, "%.1f", (double)mi.active_params / 1e9);
			if (mi.layers >= 0)
				snprintf(l, sizeof l, "%" PRId64, mi.layers);
			if (mi.max_context >= 0)
				snprintf(c, sizeof c, "%" PRId64, mi.max_context);
			const char *entry = axl_model_catalog_entry(m);
			printf("%-44s %-22s %-16s %9s %9s %6s %9s  %s\n", id, alias ? alias : "-",
			       mi.architecture ? mi.architecture : "-", p, a, l, c,
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

int cmd_plan(struct opts *go, int argc, char **argv)
{
	struct opts o = *go;
	const char *model_name = NULL;
	const char *nodes[PLAN_MAX_NODE_FILES];
	int nnodes = 0, here = 0, list = 0;
	struct axl_plan_request req;
	memset(&req, 0, sizeof req);
	req.version = AXL_PLAN_REQUEST_VERSION;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(a, "--json") == 0) {
			o.json = 1;
		} else if (strcmp(a, "--list") == 0) {
			list = 1;
		} else if (strcmp(a, "--here") == 0) {
			here = 1;
		} else if (strcmp(a, "--params") == 0) {
			/* a bare size: the same as naming it ("--params 7e9" is "7e9") */
			if (!v || !*v) {
				fprintf(stderr, "axl: plan: --params needs a value\n");
				return EXIT_USAGE;
			}
			if (model_name) {
				fprintf(stderr, "axl: plan: --params and a model name %s: give one\n", model_name);
				return EXIT_USAGE;
			}
			model_name = v;
			i++;
		} else if (strcmp(a, "--quant") == 0 || strcmp(a, "--kv-dtype") == 0 || strcmp(a, "--devices") == 0 ||
			   strcmp(a, "--node") == 0 || strcmp(a, "--objective") == 0) {
			if (!v || !*v) {
				fprintf(stderr, "axl: plan: %s needs a value\n", a);
				return EXIT_USAGE;
			}
			i++;
			if (a[2] == 'o')
				req.objective = v;
			else if (a[2] == 'q')
				req.quantization = v;
			else if (a[2] == 'k')
				req.kv_dtype = v;
			else if (a[2] == 'd')
				req.devices = v;
			else if (nnodes >= PLAN_MAX_NODE_FILES) {
				fprintf(stderr, "axl: plan: at most %d --node files\n", PLAN_MAX_NODE_FILES);
				return EXIT_USAGE;
			} else
				nodes[nnodes++] = v;
		} else if (strcmp(a, "--ctx") == 0 || strcmp(a, "--batch") == 0) {
			int64_t n = parse_pos_int(v);
			int64_t max = a[2] == 'c' ? AXL_PLAN_MAX_CONTEXT : AXL_PLAN_MAX_BATCH;
			if (n < 0 || n > max) {
				fprintf(stderr, "axl: plan: %s takes a whole number from 1 to %lld%s, not '%s'\n", a,
					(long long)max, a[2] == 'c' ? " (tokens)" : "", v ? v : "");
				return EXIT_USAGE;
			}
			i++;
			if (a[2] == 'c')
				req.context_tokens = n;
			else
				req.batch = n;
		} else if (strcmp(a, "--engine") == 0) {
			if (!v || !*v) {
				fprintf(stderr, "axl: plan: --engine needs a value (vllm, sglang, trt-llm, llama.cpp, pytorch)\n");
				return EXIT_USAGE;
			}
			i++;
			req.engine = v;
		} else if (strcmp(a, "--memory-fraction") == 0) {
			double x = parse_pos_num(v);
			if (x < 0 || x > 1) {
				fprintf(stderr,
					"axl: plan: --memory-fraction takes the share of each device's memory the engine "
					"gives the model (more than 0, at most 1), not '%s'\n",
					v ? v : "");
				return EXIT_USAGE;
			}
			i++;
			req.memory_fraction = x;
		} else if (strcmp(a, "--price-device-hour") == 0 || strcmp(a, "--price-node-hour") == 0) {
			double x = parse_pos_num(v);
			if (x < 0) {
				fprintf(stderr, "axl: plan: %s takes a price per hour (a positive number), not '%s'\n", a,
					v ? v : "");
				return EXIT_USAGE;
			}
			i++;
			if (a[8] == 'd')
				req.price_per_device_hour = x;
			else
				req.price_per_node_hour = x;
		} else if (strcmp(a, "--network-gbps") == 0 || strncmp(a, "--network-gbps=", 15) == 0) {
			/* read as GB/s by some and Gb/s by others: refused, never reinterpreted */
			fprintf(stderr, "axl: plan: --network-gbps is gone: it read GB/s where a 400G NIC's owner types 400; "
					"say --network 400Gb/s (bits) or --network 50GB/s (bytes)\n");
			return EXIT_USAGE;
		} else if (strcmp(a, "--network") == 0) {
			double x = parse_rate(v);
			if (!(x > 0)) {
				if (v && parse_pos_num(v) > 0)
					fprintf(stderr, "axl: plan: --network %s: a rate needs its unit: %sGb/s (gigabits, as NICs "
							"are sold: 400Gb/s is 50GB/s) or %sGB/s (gigabytes)\n", v, v, v);
				else
					fprintf(stderr, "axl: plan: --network takes a rate per direction with its unit (400Gb/s "
							"for a 400G NIC, or 50GB/s), not '%s'\n", v ? v : "");
				return EXIT_USAGE;
			}
			i++;
			req.network_gbps = x;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "axl: plan: unknown option '%s'\n", a);
			return usage_plan();
		} else if (model_name) {
			fprintf(stderr, "axl: plan: unexpected argument '%s' (one model at a time)\n", a);
			return EXIT_USAGE;
		} else {
			model_name = a;
		}
	}
	if (list) {
		if (model_name || nnodes || here || req.quantization || req.kv_dtype || req.devices || req.context_tokens ||
		    req.batch || req.network_gbps > 0 || req.engine || req.memory_fraction > 0 || req.objective ||
		    req.price_per_device_hour > 0 || req.price_per_node_hour > 0) {
			fprintf(stderr, "axl: plan: --list takes no model and no other option than --json\n");
			return EXIT_USAGE;
		}
		if (o.sysroot || o.sim || o.backends || o.nenv) {
			fprintf(stderr, "axl: plan: --list reads no node (--sysroot, --sim, --backends and --env mean nothing to it)\n");
			return EXIT_USAGE;
		}
		return plan_list(o.json);
	}
	if (!model_name) {
		fprintf(stderr, "axl: plan: which model? (a catalog name, see axl plan --list, or a file)\n");
		return usage_plan();
	}
	if (here && !nnodes) {
		fprintf(stderr, "axl: plan: --here is for adding this node to --node files\n");
		return EXIT_USAGE;
	}
	if (nnodes && !here && (o.sysroot || o.sim || o.backends || o.nenv)) {
		fprintf(stderr, "axl: plan: --sysroot, --sim, --backends and --env describe this node, which --node "
				"FILE leaves out unless --here is given\n");
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
	if (!nnodes || here) {
		axl_context *ctx;
		axl_inventory *inv;
		if (open_inventory(&o, &ctx, &inv)) {
			rc = 1;
		} else {
			if (axl_planner_add_inventory(planner, inv, NULL) != 0)
				rc = fail_last("this node");
			print_warnings(inv);
			axl_inventory_free(inv);
			axl_context_free(ctx);
		}
	}
	for (int i = 0; i < nnodes && rc == 0; i++) {
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
	int prc;
	if (rc == 0 && (prc = axl_plan_compute(&plan, planner, model, &req)) != 0) {
		/* options are checked first: only "no devices at all" gets the hint */
		if (prc == AXL_ENOENT && axl_planner_device_count(planner) == 0)
			fprintf(stderr, "axl: plan: no accelerators to plan on%s, and the host's memory is not known\n",
				nnodes ? " in the --node files" : " on this node (--node FILE plans on another's axl list --json)");
		else
			fail_last("plan");
		rc = 1;
	}
	if (rc == 0) {
		char *out = NULL;
		size_t len = 0;
		if ((o.json ? axl_plan_json(plan, &out, &len) : axl_plan_text(plan, &out, &len)) != 0) {
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

/* Not yet on the option tables (opt.h): the command parses its own arguments, and its help
 * holds its usage */
const struct cli_command cli_cmd_plan = {
	"plan", cmd_plan, CLI_G_NODE | CLI_G_JSON, NULL, NULL, "will a model fit, how to split it, how fast it will run",
	"usage: axl plan MODEL|SIZE [--params N] [--quant Q|auto] [--ctx N] [--batch N] [--kv-dtype D]\n"
		 "                [--devices LIST] [--node FILE]... [--here] [--network-gbps X]\n"
		 "                [--engine E] [--memory-fraction F] [--objective O]\n"
		 "                [--price-device-hour P | --price-node-hour P] [--json]\n"
		 "       axl plan --list [--json]\n"
		 "\n"
		 "Will a model (a catalog name, a config.json, safetensors or GGUF file, or a bare\n"
		 "size such as 7B) fit on this node, or on the nodes whose axl list --json are the\n"
		 "FILEs; how to split it and how fast it will run (docs/plan.md). --list prints the\n"
		 "built-in model catalog.\n"
		 "\n"
		 "  --params N      a bare size in parameters (7e9), the same as naming 7B\n"
		 "  --quant Q       bf16, fp16, fp8, int8, int4, awq, gptq, mxfp4, q8_0, q4_k_m, ...;\n"
		 "                  auto: the best-quality format the devices run natively that fits\n"
		 "  --ctx N         context tokens per sequence\n"
		 "  --batch N       sequences decoded together\n"
		 "  --kv-dtype D    the KV cache's type (bf16, fp8, ...)\n"
		 "  --devices LIST  only these devices (nvidia:0,nvidia:1)\n"
		 "  --node FILE     plan on that node (repeatable); --here: and on this one too\n"
		 "  --network-gbps X  GB/s per direction between nodes\n"
		 "  --engine E      the serving engine the estimates are calibrated for: vllm (default),\n"
		 "                  sglang, trt-llm, llama.cpp, pytorch\n"
		 "  --memory-fraction F  the share of each device's memory the engine gives the model,\n"
		 "                  0 < F <= 1 (default: the engine's, vllm 0.90)\n"
		 "  --objective O   devices (default: the fewest devices that fit, then the fastest),\n"
		 "                  latency (one sequence's decode), throughput (the batch's decode),\n"
		 "                  cost (per million tokens: needs a price)\n"
		 "  --price-device-hour P, --price-node-hour P\n"
		 "                  a price per hour, for the cost per million tokens (else the\n"
		 "                  node file's, or the price table's for the node's instance type)\n"
		 "  --devices cpu   plan on the host: its memory and memory bandwidth\n"
		 "                  (the node options describe this node: not with --node unless --here)\n",
};
