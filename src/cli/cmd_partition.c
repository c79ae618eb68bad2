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

/* One partition; with json, an object, which starts a whole document (schema axl.partition,
 * axl partition create --json) when doc is set. */
static void print_row(const struct axl_partition *p, int json, int doc)
{
	if (json) {
		printf("{");
		if (doc)
			printf("\"schema\":\"axl.partition\",\"schema_version\":1,");
		printf("\"id\":");
		print_json_str(p->id);
		printf(",\"device\":");
		print_json_str(p->device);
		printf(",\"parent\":");
		print_json_str(p->parent);
		printf(",\"parent_uuid\":");
		print_json_str(p->parent_uuid);
		printf(",\"kind\":");
		print_json_str(p->kind);
		printf(",\"profile\":");
		print_json_str(p->profile);
		if (p->profile_id >= 0)
			printf(",\"profile_id\":%" PRId64, p->profile_id);
		if (p->memory_bytes >= 0)
			printf(",\"memory_bytes\":%" PRId64, p->memory_bytes);
		if (p->compute_units >= 0)
			printf(",\"compute_units\":%" PRId64, p->compute_units);
		printf(",\"env\":[");
		for (size_t k = 0; p->env[k]; k++) {
			printf("%s", k ? "," : "");
			print_json_str(p->env[k]);
		}
		printf("],\"device_nodes\":[");
		for (size_t k = 0; p->device_nodes[k]; k++) {
			printf("%s", k ? "," : "");
			print_json_str(p->device_nodes[k]);
		}
		/* owner and creation time only for a partition axl created (0: not known) */
		printf("]");
		if (p->owner_pid > 0)
			printf(",\"owner_pid\":%d", p->owner_pid);
		printf(",\"owner_alive\":%s", p->owner_alive ? "true" : "false");
		if (p->created > 0)
			printf(",\"created\":%" PRId64, p->created);
		printf(",\"source\":");
		print_json_str(axl_source_name(p->source));
		printf("}");
		return;
	}
	printf("id: %s\nprofile: %s\n", p->id, p->profile ? p->profile : "-");
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
	if (json) {
		printf("{\"schema\":\"axl.partition_profiles\",\"schema_version\":1,\"device\":");
		print_json_str(axl_device_id(d));
		printf(",\"profiles\":[");
	}
	for (size_t i = 0; i < axl_device_partitioning_count(d); i++) {
		const struct axl_partitioning *pt = axl_device_partitioning(d, i);
		for (size_t j = 0; j < pt->profile_count; j++) {
			const struct axl_partition_profile *pp = axl_device_partition_profile(d, i, j);
			if (json) {
				printf("%s{\"technology\":", any ? "," : "");
				print_json_str(pt->technology);
				printf(",\"name\":");
				print_json_str(pt->profiles[j]);
				if (pp) {
					const char *k[] = {"id", "memory_bytes", "compute_units", "slices", "max_instances",
							   "free_instances"};
					int64_t v[] = {pp->id, pp->memory_bytes, pp->compute_units, pp->slices,
						       pp->max_instances, pp->free_instances};
					for (int q = 0; q < 6; q++)
						if (v[q] >= 0)
							printf(",\"%s\":%" PRId64, k[q], v[q]);
				}
				printf("}");
			} else {
				if (!any)
					printf("%-8s %-12s %4s %10s %5s %7s %4s %5s\n", "TECH", "PROFILE", "ID", "MEMORY", "SMS",
					       "SLICES", "MAX", "FREE");
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
	if (json)
		printf("]}\n");
	else if (!any)
		printf("%s offers no partition profiles\n", axl_device_id(d));
	return 0;
}

int cmd_partition(struct opts *go, int argc, char **argv)
{
	struct opts o = *go;
	const char *pos[16] = {0}, *dev = NULL;
	int npos = 0, yes = 0;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--yes") == 0)
			yes = 1;
		else if (strcmp(a, "--device") == 0 && i + 1 < argc)
			dev = argv[++i];
		else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "axl: partition: unknown option '%s'\n", a);
			return EXIT_USAGE;
		} else if (npos < 16)
			pos[npos++] = a;
		else {
			fprintf(stderr, "axl: partition: too many arguments\n");
			return EXIT_USAGE;
		}
	}
	const char *sub = npos ? pos[0] : NULL;
	static const struct {
		const char *name;
		int min, max;
	} subs[] = {{"list", 1, 1}, {"create", 3, 3}, {"destroy", 2, 16}, {"cleanup", 1, 1}, {"profiles", 2, 2},
		    {"mode", 4, 4}};
	static const int has_json[] = {1, 1, 0, 0, 1, 0};
	int known = -1;
	for (int k = 0; sub && k < 6; k++)
		if (strcmp(sub, subs[k].name) == 0)
			known = k;
	if (known < 0 || npos < subs[known].min || npos > subs[known].max) {
		fprintf(stderr, "axl: usage: axl partition list | create DEVICE PROFILE | destroy [--device DEV] ID... |\n"
				"       cleanup | profiles DEVICE | mode DEVICE compute|memory MODE --yes  [--json]\n");
		return EXIT_USAGE;
	}
	if (o.json && !has_json[known]) {
		fprintf(stderr, "axl: partition %s prints no document (--json is for list, create and profiles)\n", sub);
		return EXIT_USAGE;
	}
	if (dev && strcmp(sub, "destroy") != 0) {
		fprintf(stderr, "axl: --device is for axl partition destroy\n");
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
			printf("{\"schema\":\"axl.partitions\",\"schema_version\":1,\"partitions\":[");
			for (size_t i = 0; i < n; i++) {
				printf("%s", i ? "," : "");
				print_row(&rows[i], 1, 0);
			}
			printf("]}\n");
		} else if (!n) {
			printf("no partitions\n");
		} else {
			printf("%-44s %-18s %-10s %8s %s\n", "ID", "DEVICE", "PROFILE", "OWNER", "");
			for (size_t i = 0; i < n; i++) {
				char own[24];
				printf("%-44s %-18s %-10s %8s %s\n", rows[i].id, rows[i].device ? rows[i].device : "(gone)",
				       rows[i].profile ? rows[i].profile : "-",
				       cell(rows[i].owner_pid > 0 ? rows[i].owner_pid : -1, own, sizeof own),
				       rows[i].owner_pid > 0 ? (rows[i].owner_alive ? "running" : "gone") : "");
			}
		}
		axl_free(rows);
	} else if (strcmp(sub, "create") == 0) {
		struct axl_partition *p = NULL;
		if (axl_partition_create(ctx, inv, pos[1], pos[2], 0, &p)) {
			rc = fail_last("partition create");
		} else {
			print_row(p, o.json, 1);
			if (o.json)
				printf("\n");
		}
		axl_free(p);
	} else if (strcmp(sub, "destroy") == 0) {
		for (int i = 1; i < npos && !rc; i++) {
			size_t removed = 0;
			if (axl_partition_destroy(ctx, inv, dev, pos[i], 0, &removed))
				rc = fail_last("partition destroy");
			else
				printf("%s: %s\n", pos[i], removed ? "removed" : "already gone");
		}
	} else if (strcmp(sub, "cleanup") == 0) {
		size_t removed = 0;
		if (axl_partition_cleanup(ctx, inv, &removed))
			rc = fail_last("partition cleanup");
		else
			printf("removed %zu partition%s\n", removed, removed == 1 ? "" : "s");
	} else if (strcmp(sub, "profiles") == 0) {
		rc = part_profiles(inv, pos[1], o.json);
	} else {
		if (axl_partition_set_mode(ctx, inv, pos[1], pos[2], pos[3], yes ? AXL_PARTITION_CONFIRM : 0))
			rc = fail_last("partition mode");
		else
			printf("%s: %s partition mode %s\n", pos[1], pos[2], pos[3]);
	}
	axl_inventory_free(inv);
	axl_context_free(ctx);
	return rc;
}
