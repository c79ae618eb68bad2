/* SPDX-License-Identifier: MIT */
/* axl limit set|clear|list|env (docs/limits.md). */
#define _GNU_SOURCE
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "axl.h"
#include "cli.h"

static int open_ctx(const struct opts *o, axl_context **ctx)
{
	struct axl_context_options co = AXL_CONTEXT_OPTIONS_INIT;
	co.sysroot = o->sysroot;
	co.backends = o->backends;
	if (axl_context_open(ctx, &co))
		return fail_last("context");
	return 0;
}

static int limit_list(const struct opts *o)
{
	axl_context *ctx;
	if (open_ctx(o, &ctx))
		return 1;
	struct axl_limit *rows = NULL;
	size_t n = 0;
	int rc = axl_limit_list(ctx, &rows, &n);
	if (rc) {
		axl_context_free(ctx);
		return fail_last("limit list");
	}
	if (o->json) {
		struct axl__sb sb = AXL__SB_INIT;
		struct axl__json w;
		axl__json_init(&w, &sb, false);
		axl__json_obj(&w);
		axl__json_kstr(&w, "schema", "axl.limits");
		axl__json_kint(&w, "schema_version", 1);
		axl__json_kstr(&w, "state_dir", axl_state_dir(ctx)); /* null when there is none */
		axl__json_key(&w, "limits");
		axl__json_arr(&w);
		for (size_t i = 0; i < n; i++) {
			axl__json_obj(&w);
			axl__json_kstr(&w, "device", rows[i].device);
			if (rows[i].uuid)
				axl__json_kstr(&w, "uuid", rows[i].uuid);
			if (rows[i].memory_bytes >= 0)
				axl__json_kint(&w, "memory_bytes", rows[i].memory_bytes);
			if (rows[i].compute_percent >= 0)
				axl__json_kint(&w, "compute_percent", rows[i].compute_percent);
			axl__json_kint(&w, "pid", rows[i].pid);
			axl__json_kint(&w, "created", rows[i].created);
			axl__json_obj_end(&w);
		}
		axl__json_arr_end(&w);
		axl__json_obj_end(&w);
		rc = print_doc(&sb, 1);
	} else if (!n) {
		printf("no limits recorded (%s)\n", axl_state_dir(ctx) ? axl_state_dir(ctx) : "no state directory");
	} else {
		printf("%-16s %-42s %12s %8s %8s\n", "DEVICE", "UUID", "MEMORY", "COMPUTE", "PID");
		for (size_t i = 0; i < n; i++) {
			char mem[32] = "-", pct[16] = "-";
			if (rows[i].memory_bytes >= 0)
				human_bytes(rows[i].memory_bytes, mem, sizeof mem);
			if (rows[i].compute_percent >= 0)
				snprintf(pct, sizeof pct, "%d%%", rows[i].compute_percent);
			printf("%-16s %-42s %12s %8s %8d\n", rows[i].device, rows[i].uuid ? rows[i].uuid : "-", mem,
			       pct, rows[i].pid);
		}
	}
	axl_free(rows);
	axl_context_free(ctx);
	return rc;
}

/* "memory 40.0 GiB, compute 50%": one recorded limit, for a person. */
static void limit_text(const struct axl_limit *l, char *out, size_t cap)
{
	char mem[32] = "";
	if (l->memory_bytes >= 0)
		human_bytes(l->memory_bytes, mem, sizeof mem);
	if (l->memory_bytes >= 0 && l->compute_percent >= 0)
		snprintf(out, cap, "memory %s, compute %d%%", mem, l->compute_percent);
	else if (l->memory_bytes >= 0)
		snprintf(out, cap, "memory %s", mem);
	else
		snprintf(out, cap, "compute %d%%", l->compute_percent);
}

static bool same_limit(const struct axl_limit *a, const struct axl_limit *b)
{
	return strcmp(a->device, b->device) == 0 && (a->uuid ? b->uuid && strcmp(a->uuid, b->uuid) == 0 : !b->uuid) &&
	       a->memory_bytes == b->memory_bytes && a->compute_percent == b->compute_percent && a->pid == b->pid &&
	       a->created == b->created;
}

/* axl limit clear ID: the limits it forgot, each named (what was there before and is not
 * after), or that there were none. */
static int limit_clear(axl_context *ctx, const axl_inventory *inv, const char *id)
{
	struct axl_limit *before = NULL, *after = NULL;
	size_t nb = 0, na = 0, removed = 0;
	if (axl_limit_list(ctx, &before, &nb))
		return fail_last("limit clear");
	int rc = axl_limit_clear(ctx, inv, id, &removed);
	if (rc || axl_limit_list(ctx, &after, &na)) {
		axl_free(before);
		return fail_last("limit clear");
	}
	for (size_t i = 0; i < nb; i++) {
		bool kept = false;
		for (size_t k = 0; k < na && !kept; k++)
			kept = same_limit(&before[i], &after[k]);
		if (kept)
			continue;
		char what[96];
		limit_text(&before[i], what, sizeof what);
		printf("forgot the limits of %s%s%s%s: %s\n", before[i].device, before[i].uuid ? " (" : "",
		       before[i].uuid ? before[i].uuid : "", before[i].uuid ? ")" : "", what);
	}
	if (!removed)
		fprintf(stderr, "axl: no limits recorded for %s: nothing to clear\n", id);
	axl_free(before);
	axl_free(after);
	return 0;
}

/* axl limit set: what is recorded now, and what it replaced. */
static int limit_set(axl_context *ctx, const axl_inventory *inv, const char *id, int64_t mem, int pct)
{
	struct axl_limit *before = NULL, *after = NULL;
	size_t nb = 0, na = 0;
	if (axl_limit_list(ctx, &before, &nb))
		return fail_last("limit set");
	if (axl_limit_set(inv, id, mem, pct) || axl_limit_list(ctx, &after, &na)) {
		axl_free(before);
		return fail_last("limit set");
	}
	const axl_device *d = axl_inventory_find(inv, id);
	const char *dev = d ? axl_device_id(d) : id;
	for (size_t k = 0; k < na; k++) {
		if (strcmp(after[k].device, dev) != 0)
			continue;
		bool old = false;
		for (size_t i = 0; i < nb && !old; i++)
			old = same_limit(&before[i], &after[k]);
		if (old)
			continue;
		char now[96], was[96] = "";
		limit_text(&after[k], now, sizeof now);
		for (size_t i = 0; i < nb && !was[0]; i++)
			if (strcmp(before[i].device, dev) == 0 || (before[i].uuid && after[k].uuid &&
								   strcmp(before[i].uuid, after[k].uuid) == 0))
				limit_text(&before[i], was, sizeof was);
		printf("%s%s%s%s: %s%s%s%s\n", dev, after[k].uuid ? " (" : "", after[k].uuid ? after[k].uuid : "",
		       after[k].uuid ? ")" : "", now, was[0] ? " (was: " : "", was, was[0] ? ")" : "");
	}
	axl_free(before);
	axl_free(after);
	return 0;
}

static int limit_env(const struct opts *o, const char *ids)
{
	char *copy = strdup(ids);
	const char *devs[256];
	size_t n = 0;
	for (char *save = NULL, *t = strtok_r(copy, ",", &save); t && n < 256; t = strtok_r(NULL, ",", &save))
		devs[n++] = t;
	if (!n) {
		free(copy);
		fprintf(stderr, "axl: limit env needs device ids (ID[,ID...])\n");
		return EXIT_USAGE;
	}
	axl_context *ctx;
	axl_inventory *inv;
	if (open_inventory(o, &ctx, &inv)) {
		free(copy);
		return 1;
	}
	char **env = NULL;
	int rc = axl_limit_env(inv, devs, n, &env);
	if (rc)
		rc = fail_last("limit env");
	else
		for (size_t i = 0; env[i]; i++)
			printf("%s\n", env[i]);
	axl_free(env);
	axl_inventory_free(inv);
	axl_context_free(ctx);
	free(copy);
	return rc;
}

int cmd_limit(struct opts *go, int argc, char **argv)
{
	/* the global options (--sysroot, --json, ...) are main.c's, wherever they stand */
	struct opts o = *go;
	const char *pos[3] = {NULL, NULL, NULL};
	int npos = 0;
	const char *mem_arg = NULL, *pct_arg = NULL;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		int m;
		if ((m = cli_long_opt(argc, argv, &i, "--memory", &mem_arg)) ||
		    (m = cli_long_opt(argc, argv, &i, "--compute", &pct_arg))) {
			if (m < 0)
				return EXIT_USAGE;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "axl: limit: unknown option '%s'\n", a);
			return EXIT_USAGE;
		} else if (npos < 3) {
			pos[npos++] = a;
		} else {
			fprintf(stderr, "axl: limit: unexpected argument '%s'\n", a);
			return EXIT_USAGE;
		}
	}
	const char *sub = pos[0], *id = pos[1];
	if (!sub) {
		fprintf(stderr, "axl: limit needs set, clear, list or env\n");
		return EXIT_USAGE;
	}
	bool is_set = strcmp(sub, "set") == 0;
	if (o.json && strcmp(sub, "list") != 0) {
		fprintf(stderr, "axl: limit %s prints no document (--json is for axl limit list)\n", sub);
		return EXIT_USAGE;
	}
	if ((mem_arg || pct_arg) && !is_set) {
		fprintf(stderr, "axl: --memory and --compute are for axl limit set\n");
		return EXIT_USAGE;
	}
	if (strcmp(sub, "list") == 0) {
		if (id) {
			fprintf(stderr, "axl: limit list takes no argument\n");
			return EXIT_USAGE;
		}
		return limit_list(&o);
	}
	if (!is_set && strcmp(sub, "clear") && strcmp(sub, "env")) {
		fprintf(stderr, "axl: limit: unknown subcommand '%s' (set, clear, list, env)\n", sub);
		return EXIT_USAGE;
	}
	if (!id || pos[2]) {
		fprintf(stderr, "axl: limit %s takes one device id%s\n", sub,
			strcmp(sub, "env") == 0 ? " list (ID[,ID...])" : "");
		return EXIT_USAGE;
	}
	if (strcmp(sub, "env") == 0)
		return limit_env(&o, id);
	int64_t mem = -1;
	long pct = -1;
	if (is_set) {
		if (!mem_arg && !pct_arg) {
			fprintf(stderr, "axl: limit set needs --memory SIZE and/or --compute PERCENT\n");
			return EXIT_USAGE;
		}
		if (mem_arg && (mem = parse_size(mem_arg)) < 0) {
			fprintf(stderr, "axl: --memory '%s': not a size (bytes, or 16GiB, 512M, 1.5G, 8GB)\n", mem_arg);
			return EXIT_USAGE;
		}
		if (pct_arg) {
			char *end;
			pct = strtol(pct_arg, &end, 10);
			if (*end || end == pct_arg || pct < -1 || pct > 1000) {
				fprintf(stderr, "axl: --compute '%s': not a percentage (1 to 100)\n", pct_arg);
				return EXIT_USAGE;
			}
			if (pct < 1 || pct > 100) {
				fprintf(stderr, "axl: --compute %ld: a compute limit is 1 to 100 percent\n", pct);
				return 1;
			}
		}
		if (mem_arg && mem == 0) {
			fprintf(stderr, "axl: --memory 0: a memory limit is at least 1 byte\n");
			return 1;
		}
	}
	axl_context *ctx;
	axl_inventory *inv;
	if (open_inventory(&o, &ctx, &inv))
		return 1;
	int rc = is_set ? limit_set(ctx, inv, id, mem, (int)pct) : limit_clear(ctx, inv, id);
	axl_inventory_free(inv);
	axl_context_free(ctx);
	return rc;
}

/* Not yet on the option tables (opt.h): the command parses its own arguments, and its help
 * holds its usage */
const struct cli_command cli_cmd_limit = {
	"limit", cmd_limit, CLI_G_NODE | CLI_G_JSON, NULL, NULL, "memory and compute limits of workloads, and their environment",
	"usage: axl limit set ID [--memory SIZE] [--compute PCT]\n"
		 "       axl limit clear ID\n"
		 "       axl limit list [--json]\n"
		 "       axl limit env ID[,ID...]\n"
		 "\n"
		 "Record a device's limits for workloads in the state directory, forget them, list\n"
		 "them, or print the environment a workload on these devices gets (AXL_LIMIT_*, and\n"
		 "HAMi-core's CUDA_DEVICE_* for NVIDIA); docs/limits.md. SIZE: bytes or 16GiB, 512M,\n"
		 "8GB; PCT: 1..100.\n"
		 "\n",
};
