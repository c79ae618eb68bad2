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

/* The options and arguments of each subcommand (opt.h); cmd_limit resets them. */
static struct {
	const char *id;
	int64_t memory; /* bytes, < 0: not given */
	long compute;   /* percent, < 0: not given */
} a;

static const struct cli_opt set_options[] = {
	{.type = CLI_OPT_ARG, .name = "ID", .value = &a.id, .flags = CLI_OPT_REQUIRED,
	 .help = "the device (id, UUID or PCI address)"},
	{.type = CLI_OPT_SIZE, .name = "memory", .value = &a.memory,
	 .help = "(set) what a workload may allocate on it: 40GiB, 512MiB, 80GB", .min = 1, .max = 1125899906842624.0},
	{.type = CLI_OPT_COUNT, .name = "compute", .value = &a.compute, .value_name = "PCT",
	 .help = "(set) its share of the device's compute, 1 to 100 percent", .min = 1, .max = 100},
	{0},
};

static const struct cli_opt clear_options[] = {
	{.type = CLI_OPT_ARG, .name = "ID", .value = &a.id, .flags = CLI_OPT_REQUIRED,
	 .help = "the device (id, UUID or PCI address), or a record's UUID"},
	{0},
};

static const struct cli_opt list_options[] = {{0}};

static const struct cli_opt env_options[] = {
	{.type = CLI_OPT_ARG, .name = "ID[,ID...]", .value = &a.id, .flags = CLI_OPT_REQUIRED,
	 .help = "the devices a workload gets, in its order"},
	{0},
};

static const struct cli_sub subs[] = {
	{"set", set_options, "record a device's memory and compute limits"},
	{"clear", clear_options, "forget a device's limits, naming them"},
	{"list", list_options, "the recorded limits"},
	{"env", env_options, "the environment a workload on these devices gets"},
	{NULL, NULL, NULL},
};

/* (declared in cli.h until the command table takes every command's parsing over) */
static int cmd_limit(struct opts *go, int argc, char **argv)
{
	/* the global options (--sysroot, --json, ...) are main.c's, wherever they stand */
	struct opts o = *go;
	memset(&a, 0, sizeof a);
	a.memory = -1;
	a.compute = -1;
	const struct cli_sub *s = cli_sub_parse(&cli_cmd_limit, argc, argv);
	if (!s)
		return EXIT_USAGE;
	if (o.json && s->opts != list_options) {
		fprintf(stderr, "axl limit %s: prints no document (--json is for axl limit list)\n", s->name);
		return EXIT_USAGE;
	}
	if (s->opts == list_options)
		return limit_list(&o);
	if (s->opts == env_options)
		return limit_env(&o, a.id);
	bool is_set = s->opts == set_options;
	if (is_set && a.memory < 0 && a.compute < 0) {
		fprintf(stderr, "axl limit set: --memory SIZE, --compute PCT or both (axl help limit)\n");
		return EXIT_USAGE;
	}
	axl_context *ctx;
	axl_inventory *inv;
	if (open_inventory(&o, &ctx, &inv))
		return 1;
	int rc = is_set ? limit_set(ctx, inv, a.id, a.memory, (int)a.compute) : limit_clear(ctx, inv, a.id);
	axl_inventory_free(inv);
	axl_context_free(ctx);
	return rc;
}

const struct cli_command cli_cmd_limit = {
	"limit", cmd_limit, CLI_G_NODE | CLI_G_JSON, NULL, subs,
	"memory and compute limits of workloads, and their environment",
	"Record a device's limits for workloads in the state directory, forget them, list\n"
	"them, or print the environment a workload on these devices gets (AXL_LIMIT_*, and\n"
	"HAMi-core's CUDA_DEVICE_* for NVIDIA); docs/limits.md. set and clear say what they\n"
	"recorded, replaced and forgot; list prints memory in GiB/MiB.\n\n"
	"--json: (list) the axl.limits document (memory in bytes).",
};
