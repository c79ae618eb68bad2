/* SPDX-License-Identifier: MIT */
/* axl partition list|create|destroy|cleanup|profiles|mode (docs/partitions.md). */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axl.h"
#include "cli.h"

/* A table cell for a count that may be unknown (negative): "-", never -1. */
static const char *cell(int64_t v, char *buf, size_t cap)
{
	if (v < 0)
		return "-";
	snprintf(buf, cap, "%" PRId64, v);
	return buf;
}

/* One partition as a JSON object, which starts a whole document (schema axl.partition,
 * axl partition create --json) when doc is set. */
static void json_row(struct axl__json *w, const struct axl_partition *p, int doc)
{
	axl__json_obj(w);
	if (doc) {
		axl__json_kstr(w, "schema", "axl.partition");
		axl__json_kint(w, "schema_version", 1);
	}
	axl__json_kstr(w, "id", p->id);
	axl__json_kstr(w, "device", p->device);
	axl__json_kstr(w, "parent", p->parent);
	axl__json_kstr(w, "parent_uuid", p->parent_uuid);
	axl__json_kstr(w, "kind", p->kind);
	axl__json_kstr(w, "profile", p->profile);
	if (p->profile_id >= 0)
		axl__json_kint(w, "profile_id", p->profile_id);
	if (p->memory_bytes >= 0)
		axl__json_kint(w, "memory_bytes", p->memory_bytes);
	if (p->compute_units >= 0)
		axl__json_kint(w, "compute_units", p->compute_units);
	axl__json_key(w, "env");
	axl__json_arr(w);
	for (size_t k = 0; p->env[k]; k++)
		axl__json_str(w, p->env[k]);
	axl__json_arr_end(w);
	axl__json_key(w, "device_nodes");
	axl__json_arr(w);
	for (size_t k = 0; p->device_nodes[k]; k++)
		axl__json_str(w, p->device_nodes[k]);
	axl__json_arr_end(w);
	/* whose it is: a workload's (its process) or the operator's; left out when not known */
	if (p->owner == AXL_PARTITION_OWNER_WORKLOAD || p->owner == AXL_PARTITION_OWNER_OPERATOR)
		axl__json_kstr(w, "owner", p->owner == AXL_PARTITION_OWNER_WORKLOAD ? "workload" : "operator");
	/* owner process and creation time only for a partition axl created (0: not known) */
	if (p->owner_pid > 0)
		axl__json_kint(w, "owner_pid", p->owner_pid);
	axl__json_kbool(w, "owner_alive", p->owner_alive);
	if (p->created > 0)
		axl__json_kint(w, "created", p->created);
	axl__json_kstr(w, "source", axl_source_name(p->source));
	axl__json_obj_end(w);
}

/* Whose a partition is, for a person: "operator", "pid 4242 (running)", "pid 4242 (gone)",
 * "-" (not made through axl, or an older axl did not record it). */
static const char *owner_text(const struct axl_partition *p, char *buf, size_t cap)
{
	if (p->owner == AXL_PARTITION_OWNER_OPERATOR)
		return "operator";
	if (p->owner_pid > 0)
		snprintf(buf, cap, "pid %d (%s)", p->owner_pid, p->owner_alive ? "running" : "gone");
	else
		snprintf(buf, cap, "-");
	return buf;
}

/* "MIG-1 (nvidia:0/mig1.0, 1g.10gb, owner operator)": what a destructive command names. */
static void describe(FILE *f, const struct axl_partition *p)
{
	char own[48];
	fprintf(f, "%s (%s, %s, owner %s)", p->id, p->device ? p->device : "gone: record only",
		p->profile ? p->profile : "profile not known", owner_text(p, own, sizeof own));
}

/* One partition as text. */
static void print_row(const struct axl_partition *p)
{
	char own[48];
	printf("id: %s\nprofile: %s\n", p->id, p->profile ? p->profile : "-");
	printf("owner: %s\n", owner_text(p, own, sizeof own));
	printf("device: %s\nparent: %s\n", p->device ? p->device : "- (gone)", p->parent ? p->parent : "-");
	for (size_t k = 0; p->env[k]; k++)
		printf("env: %s\n", p->env[k]);
	for (size_t k = 0; p->device_nodes[k]; k++)
		printf("node: %s\n", p->device_nodes[k]);
}

static int part_profiles(const axl_inventory *inv, const char *id, int json)
{
	const axl_device *d = axl_inventory_find(inv, id);
	if (!d) {
		fprintf(stderr, "axl: partition profiles: no device '%s'\n", id);
		return 1;
	}
	int any = 0;
	struct axl__sb sb = AXL__SB_INIT;
	struct axl__json w;
	if (json) {
		axl__json_init(&w, &sb, false);
		axl__json_obj(&w);
		axl__json_kstr(&w, "schema", "axl.partition_profiles");
		axl__json_kint(&w, "schema_version", 1);
		axl__json_kstr(&w, "device", axl_device_id(d));
		axl__json_key(&w, "profiles");
		axl__json_arr(&w);
	}
	for (size_t i = 0; i < axl_device_partitioning_count(d); i++) {
		const struct axl_partitioning *pt = axl_device_partitioning(d, i);
		for (size_t j = 0; j < pt->profile_count; j++) {
			const struct axl_partition_profile *pp = axl_device_partition_profile(d, i, j);
			if (json) {
				axl__json_obj(&w);
				axl__json_kstr(&w, "technology", pt->technology);
				axl__json_kstr(&w, "name", pt->profiles[j]);
				if (pp) {
					const char *k[] = {"id", "memory_bytes", "compute_units", "slices",
							   "max_instances", "free_instances"};
					int64_t v[] = {pp->id, pp->memory_bytes, pp->compute_units, pp->slices,
						       pp->max_instances, pp->free_instances};
					for (int q = 0; q < 6; q++)
						if (v[q] >= 0)
							axl__json_kint(&w, k[q], v[q]);
				}
				axl__json_obj_end(&w);
			} else {
				if (!any)
					printf("%-8s %-12s %4s %10s %5s %7s %4s %5s\n", "TECH", "PROFILE", "ID",
					       "MEMORY", "SMS", "SLICES", "MAX", "FREE");
				/* unknown (no details, or a value the driver did not give): "-" */
				char mem[32] = "-", c[5][24];
				if (pp && pp->memory_bytes >= 0)
					snprintf(mem, sizeof mem, "%" PRId64 "MiB", pp->memory_bytes >> 20);
				printf("%-8s %-12s %4s %10s %5s %7s %4s %5s\n", pt->technology, pt->profiles[j],
				       cell(pp ? pp->id : -1, c[0], sizeof c[0]), mem,
				       cell(pp ? pp->compute_units : -1, c[1], sizeof c[1]),
				       cell(pp ? pp->slices : -1, c[2], sizeof c[2]),
				       cell(pp ? pp->max_instances : -1, c[3], sizeof c[3]),
				       cell(pp ? pp->free_instances : -1, c[4], sizeof c[4]));
			}
			any = 1;
		}
	}
	if (json) {
		axl__json_arr_end(&w);
		axl__json_obj_end(&w);
		return print_doc(&sb, 1);
	}
	if (!any)
		printf("%s offers no partition profiles\n", axl_device_id(d));
	return 0;
}

/* The row of the partition that id names (its id or its device id), NULL: none. */
static const struct axl_partition *row_of(const struct axl_partition *rows, size_t n, const char *id)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(rows[i].id, id) == 0 || (rows[i].device && strcmp(rows[i].device, id) == 0))
			return &rows[i];
	return NULL;
}

/* axl partition destroy [--dry-run] ID...: each partition named with what it is, then
 * destroyed (or, with --dry-run, only named). */
static int part_destroy(axl_context *ctx, const axl_inventory *inv, const char *dev, const char *const *ids,
			size_t nids, int dry)
{
	struct axl_partition *rows = NULL;
	size_t n = 0;
	if (axl_partition_list(ctx, inv, &rows, &n))
		return fail_last("partition destroy");
	int rc = 0;
	for (size_t i = 0; i < nids && !rc; i++) {
		const struct axl_partition *r = row_of(rows, n, ids[i]);
		if (dry) {
			if (r) {
				printf("would destroy ");
				describe(stdout, r);
				printf("\n");
			} else {
				printf("%s: no such partition (nothing to destroy)\n", ids[i]);
			}
			continue;
		}
		size_t removed = 0;
		if (axl_partition_destroy(ctx, inv, dev, ids[i], 0, &removed)) {
			rc = fail_last("partition destroy");
		} else if (removed) {
			printf("%s: removed: ", ids[i]);
			if (r)
				describe(stdout, r);
			else
				printf("%s", ids[i]);
			printf("\n");
		} else {
			printf("%s: already gone%s\n", ids[i], r && !r->device ? " (its record dropped)" : "");
		}
	}
	if (dry)
		printf("dry run: nothing destroyed\n");
	axl_free(rows);
	return rc;
}

/* axl partition cleanup [--dry-run]: the plan first (what goes, what stays and why), then
 * each change as it is made. */
static int part_cleanup(axl_context *ctx, const axl_inventory *inv, int dry)
{
	struct axl_partition *rows = NULL;
	size_t n = 0;
	if (axl_partition_list(ctx, inv, &rows, &n))
		return fail_last("partition cleanup");
	size_t go = 0, forget = 0, keep = 0;
	static const char *const verb[] = {"keep   ", "destroy", "forget "};
	for (size_t i = 0; i < n; i++) {
		const char *why = NULL;
		int a = axl_partition_cleanup_action(&rows[i], &why);
		go += a == AXL_PARTITION_DESTROY;
		forget += a == AXL_PARTITION_FORGET;
		keep += a == AXL_PARTITION_KEEP;
		printf("%s ", verb[a >= 0 && a <= 2 ? a : 0]);
		describe(stdout, &rows[i]);
		printf(": %s\n", why);
	}
	if (!n)
		printf("no partitions: nothing to clean up\n");
	int rc = 0;
	if (dry) {
		printf("dry run: nothing changed (%zu to destroy, %zu record%s to forget, %zu kept)\n", go, forget,
		       forget == 1 ? "" : "s", keep);
		axl_free(rows);
		return 0;
	}
	/* the plan said what goes; the library applies the same rule (and refuses where axl
	 * must not change anything: a re-rooted context, no privileges) */
	size_t removed = 0;
	if (axl_partition_cleanup(ctx, inv, &removed))
		rc = fail_last("partition cleanup");
	else
		printf("removed %zu partition%s (%zu record%s forgotten, %zu kept)\n", removed, removed == 1 ? "" : "s",
		       forget, forget == 1 ? "" : "s", keep);
	axl_free(rows);
	return rc;
}

/* The partitioning of d that lists mode among its modes, NULL: none. */
static const struct axl_partitioning *partitioning_of(const axl_device *d, const char *mode)
{
	for (size_t i = 0; i < axl_device_partitioning_count(d); i++) {
		const struct axl_partitioning *pt = axl_device_partitioning(d, i);
		for (size_t j = 0; pt && j < pt->profile_count; j++)
			if (strcmp(pt->profiles[j], mode) == 0)
				return pt;
	}
	return NULL;
}

/* axl partition mode DEVICE KIND MODE [--yes | --dry-run]: what changes (current mode ->
 * new mode, the partitions that go), then the switch only with --yes. */
static int part_mode(axl_context *ctx, const axl_inventory *inv, const char *id, const char *kind,
		     const char *mode, int yes, int dry)
{
	const axl_device *d = axl_inventory_find(inv, id);
	if (!d) {
		fprintf(stderr, "axl: partition mode: no device '%s'\n", id);
		return 1;
	}
	const struct axl_partitioning *pt = partitioning_of(d, mode);
	FILE *f = yes || dry ? stdout : stderr;
	fprintf(f, "%s: %s partition mode %s -> %s\n", axl_device_id(d), kind,
		pt && pt->mode && *pt->mode ? pt->mode : "(current mode not known)", mode);
	size_t nk = axl_device_child_count(d);
	if (nk) {
		fprintf(f, "destroys its %zu partition%s:", nk, nk == 1 ? "" : "s");
		for (size_t k = 0; k < nk; k++)
			fprintf(f, " %s", axl_device_id(axl_device_child(d, k)));
		fprintf(f, "\n");
	} else {
		fprintf(f, "destroys every partition of %s (it lists none now); the device must be idle\n",
			axl_device_id(d));
	}
	if (!pt)
		fprintf(f, "%s does not list %s among its partition modes\n", axl_device_id(d), mode);
	if (dry) {
		printf("dry run: nothing changed\n");
		return 0;
	}
	if (!yes) {
		fprintf(stderr,
			"axl: partition mode: nothing changed: add --yes to switch (or --dry-run to only see this)\n");
		return 1;
	}
	if (axl_partition_set_mode(ctx, inv, id, kind, mode, AXL_PARTITION_CONFIRM))
		return fail_last("partition mode");
	printf("%s: %s partition mode is now %s\n", axl_device_id(d), kind, mode);
	return 0;
}

/* The options and arguments of each subcommand (opt.h); cmd_partition resets them. */
static struct {
	const char *device, *profile, *dev, *kind, *mode;
	struct cli_args ids;
	int yes, dry;
} a;

static const struct cli_opt list_options[] = {{0}};

static const struct cli_opt create_options[] = {
	{.type = CLI_OPT_ARG, .name = "DEVICE", .value = &a.device, .flags = CLI_OPT_REQUIRED,
	 .help = "the physical device (id, UUID or PCI address)"},
	{.type = CLI_OPT_ARG, .name = "PROFILE", .value = &a.profile, .flags = CLI_OPT_REQUIRED,
	 .help = "1g.10gb, mig-1g.10gb, an NVML profile id (19), or 1g.7gb: the\nsmallest offered with at least "
		 "that memory"},
	{0},
};

static const struct cli_opt destroy_options[] = {
	{.type = CLI_OPT_STRING, .name = "device", .value = &a.dev, .value_name = "DEV",
	 .help = "(destroy) the partitions must belong to DEV"},
	{.type = CLI_OPT_FLAG, .name = "dry-run", .value = &a.dry,
	 .help = "(destroy, cleanup, mode) say what would change; change nothing"},
	{.type = CLI_OPT_ARGS, .name = "ID", .value = &a.ids, .flags = CLI_OPT_REQUIRED,
	 .help = "a partition's id (MIG-...) or device id (nvidia:0/mig1.0)"},
	{0},
};

static const struct cli_opt cleanup_options[] = {
	{.type = CLI_OPT_FLAG, .name = "dry-run", .value = &a.dry,
	 .help = "(destroy, cleanup, mode) say what would change; change nothing"},
	{0},
};

static const struct cli_opt profiles_options[] = {
	{.type = CLI_OPT_ARG, .name = "DEVICE", .value = &a.device, .flags = CLI_OPT_REQUIRED,
	 .help = "the physical device (id, UUID or PCI address)"},
	{0},
};

static const struct cli_opt mode_options[] = {
	{.type = CLI_OPT_ARG, .name = "DEVICE", .value = &a.device, .flags = CLI_OPT_REQUIRED,
	 .help = "the physical device (id, UUID or PCI address)"},
	{.type = CLI_OPT_ARG, .name = "compute|memory", .value = &a.kind, .flags = CLI_OPT_REQUIRED,
	 .help = "which partition mode"},
	{.type = CLI_OPT_ARG, .name = "MODE", .value = &a.mode, .flags = CLI_OPT_REQUIRED,
	 .help = "one the device lists (SPX, DPX, QPX, CPX; NPS1, NPS4, ...)"},
	{.type = CLI_OPT_FLAG, .name = "yes", .value = &a.yes,
	 .help = "(mode) switch: it destroys the device's partitions"},
	{.type = CLI_OPT_FLAG, .name = "dry-run", .value = &a.dry,
	 .help = "(destroy, cleanup, mode) say what would change; change nothing"},
	{0},
};

static const struct cli_sub subs[] = {
	{"list", list_options, "every partition, with its owner"},
	{"create", create_options, "make one partition; it is the operator's"},
	{"destroy", destroy_options, "remove partitions by id, each named as it goes"},
	{"cleanup", cleanup_options, "remove what workloads that are gone left; the plan first"},
	{"profiles", profiles_options, "the profiles a device offers, with what is free"},
	{"mode", mode_options, "switch an AMD compute or memory partition mode"},
	{NULL, NULL, NULL},
};

/* (declared in cli.h until the command table takes every command's parsing over) */
static int cmd_partition(struct opts *go, int argc, char **argv)
{
	struct opts o = *go;
	memset(&a, 0, sizeof a);
	const struct cli_sub *s = cli_sub_parse(&cli_cmd_partition, argc, argv);
	if (!s)
		return EXIT_USAGE;
	const char *sub = s->name;
	if (o.json && s->opts != list_options && s->opts != create_options && s->opts != profiles_options) {
		fprintf(stderr, "axl partition %s: prints no document (--json is for list, create and profiles)\n",
			sub);
		return EXIT_USAGE;
	}
	if (a.dry && a.yes) {
		fprintf(stderr, "axl partition mode: --dry-run or --yes, not both (axl help partition)\n");
		return EXIT_USAGE;
	}
	if (s->opts == mode_options && strcmp(a.kind, "compute") != 0 && strcmp(a.kind, "memory") != 0) {
		fprintf(stderr, "axl partition mode: '%s': compute or memory (axl help partition)\n", a.kind);
		return EXIT_USAGE;
	}
	axl_context *ctx;
	axl_inventory *inv;
	if (open_inventory(&o, &ctx, &inv))
		return 1;
	int rc = 0;
	if (strcmp(sub, "list") == 0) {
		struct axl_partition *rows = NULL;
		size_t n = 0;
		if (axl_partition_list(ctx, inv, &rows, &n)) {
			rc = fail_last("partition list");
		} else if (o.json) {
			struct axl__sb sb = AXL__SB_INIT;
			struct axl__json w;
			axl__json_init(&w, &sb, false);
			axl__json_obj(&w);
			axl__json_kstr(&w, "schema", "axl.partitions");
			axl__json_kint(&w, "schema_version", 1);
			axl__json_key(&w, "partitions");
			axl__json_arr(&w);
			for (size_t i = 0; i < n; i++)
				json_row(&w, &rows[i], 0);
			axl__json_arr_end(&w);
			axl__json_obj_end(&w);
			rc = print_doc(&sb, 1);
		} else if (!n) {
			printf("no partitions\n");
		} else {
			printf("%-44s %-18s %-10s %s\n", "ID", "DEVICE", "PROFILE", "OWNER");
			for (size_t i = 0; i < n; i++) {
				char own[48];
				printf("%-44s %-18s %-10s %s\n", rows[i].id, rows[i].device ? rows[i].device : "(gone)",
				       rows[i].profile ? rows[i].profile : "-", owner_text(&rows[i], own, sizeof own));
			}
		}
		axl_free(rows);
	} else if (strcmp(sub, "create") == 0) {
		struct axl_partition *p = NULL;
		/* made from the command line: the operator's, not this short-lived process's, so
		 * that cleanup never takes it (docs/partitions.md) */
		if (axl_partition_create(ctx, inv, a.device, a.profile, AXL_PARTITION_OPERATOR, &p)) {
			rc = fail_last("partition create");
		} else if (o.json) {
			struct axl__sb sb = AXL__SB_INIT;
			struct axl__json w;
			axl__json_init(&w, &sb, false);
			json_row(&w, p, 1);
			rc = print_doc(&sb, 1);
		} else {
			print_row(p);
		}
		axl_free(p);
	} else if (strcmp(sub, "destroy") == 0) {
		rc = part_destroy(ctx, inv, a.dev, (const char *const *)a.ids.v, (size_t)a.ids.n, a.dry);
	} else if (strcmp(sub, "cleanup") == 0) {
		rc = part_cleanup(ctx, inv, a.dry);
	} else if (strcmp(sub, "profiles") == 0) {
		rc = part_profiles(inv, a.device, o.json);
	} else {
		rc = part_mode(ctx, inv, a.device, a.kind, a.mode, a.yes, a.dry);
	}
	axl_inventory_free(inv);
	axl_context_free(ctx);
	return rc;
}

/* Not yet on the option tables (opt.h): the command parses its own arguments, and its help
 * holds its usage */
const struct cli_command cli_cmd_partition = {
	"partition", cmd_partition, CLI_G_NODE | CLI_G_JSON, NULL, subs, "MIG instances and AMD partition modes",
	"Create, list and destroy MIG instances, and switch AMD partition modes\n"
	"(docs/partitions.md). What create makes is the operator's: cleanup removes only the\n"
	"partitions of workloads (programs that made them through the library) whose process\n"
	"is gone, and prints what it removes and what it keeps, and why, first. destroy,\n"
	"cleanup and mode take --dry-run; mode changes nothing without --yes.\n\n"
	"--json: (list, create, profiles) the axl.partitions, axl.partition or\n"
	"axl.partition_profiles document.",
};
