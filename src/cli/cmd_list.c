/* SPDX-License-Identifier: MIT */
/* axl list: the accelerators of a node, one line each (and with --all every PCI
 * function considered). */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "axl.h"
#include "cli.h"

/* "  (hidden: reason)" for a device this process may not use, "  (partly visible: ...)"
 * for one it may use in part, "  (visibility unknown: ...)" when that cannot be told. */
static void visibility_note(const axl_device *d, char *out, size_t cap)
{
	int64_t vis;
	const char *why = cli_str(d, AXL_ATTR_VISIBILITY_REASON);
	static const char partly[] = "partly visible: ";
	if (axl_device_get_int(d, AXL_ATTR_VISIBLE, &vis) != 0) {
		if (why)
			snprintf(out, cap, "  (visibility unknown: %s)", why);
		return;
	}
	if (vis)
		return;
	if (why && strncmp(why, partly, sizeof partly - 1) == 0)
		snprintf(out, cap, "  (partly visible: %s)", why + sizeof partly - 1);
	else
		snprintf(out, cap, "  (hidden%s%s)", why ? ": " : "", why ? why : "");
}

static void print_timing(const axl_inventory *inv)
{
	size_t n = axl_inventory_timing_count(inv);
	double total = 0;
	printf("\n%-12s %10s\n", "STAGE", "MS");
	for (size_t i = 0; i < n; i++) {
		const struct axl_timing *t = axl_inventory_timing(inv, i);
		printf("%-12s %10.3f\n", t->stage, t->milliseconds);
		total += t->milliseconds;
	}
	printf("%-12s %10.3f\n", "total", total);
}

/* One line of `axl list`; partitions that exist now follow their device, indented. */
static void list_row(const axl_device *d, int depth)
{
	char mem[32] = "-", link[32] = "-", numa[16] = "-", drv[96] = "-", id[64];
	int64_t v, g, w;
	if (axl_device_get_int(d, AXL_ATTR_MEMORY_TOTAL, &v) == 0)
		human_bytes(v, mem, sizeof mem);
	if (axl_device_get_int(d, AXL_ATTR_LINK_CURRENT_GEN, &g) == 0 &&
	    axl_device_get_int(d, AXL_ATTR_LINK_CURRENT_WIDTH, &w) == 0)
		snprintf(link, sizeof link, "Gen%lld x%lld", (long long)g, (long long)w);
	if (axl_device_get_int(d, AXL_ATTR_NUMA_NODE, &v) == 0)
		snprintf(numa, sizeof numa, "%lld", (long long)v);
	const char *dn = cli_str(d, AXL_ATTR_DRIVER), *dv = cli_str(d, AXL_ATTR_DRIVER_VERSION);
	if (dn)
		snprintf(drv, sizeof drv, "%s%s%s", dn, dv ? " " : "", dv ? dv : "");
	const char *model = cli_str(d, AXL_ATTR_MODEL);
	if (depth) {
		/* a child: its own name is the partition, not the whole model again */
		const char *prof = cli_str(d, AXL_ATTR_PARTITION_PROFILE);
		const char *slash = strrchr(axl_device_id(d), '/');
		snprintf(id, sizeof id, "  %s", slash ? slash : axl_device_id(d));
		if (prof)
			model = prof;
		snprintf(link, sizeof link, "-");
		snprintf(drv, sizeof drv, "%s", cli_str(d, AXL_ATTR_UUID) ? cli_str(d, AXL_ATTR_UUID) : "-");
	} else {
		snprintf(id, sizeof id, "%s", axl_device_id(d));
	}
	char vis[600] = "";
	visibility_note(d, vis, sizeof vis);
	printf("%-14s %-36.36s %-10s %-10s %-5s %s%s\n", id, model ? model : "(unknown)", mem, link, numa, drv, vis);
	for (size_t i = 0; i < axl_device_child_count(d); i++)
		list_row(axl_device_child(d, i), depth + 1);
}

int cmd_list(struct opts *o, int argc, char **argv)
{
	if (argc) {
		fprintf(stderr, "axl: list takes no argument ('%s')\n", argv[0]);
		return EXIT_USAGE;
	}
	axl_context *ctx;
	axl_inventory *inv;
	if (open_inventory(o, &ctx, &inv))
		return 1;
	int rc = 0;
	if (o->json) {
		rc = print_json(inv, o);
	} else {
		size_t n = axl_inventory_device_count(inv);
		printf("%-14s %-36s %-10s %-10s %-5s %s\n", "ID", "MODEL", "MEMORY", "LINK", "NUMA", "DRIVER");
		for (size_t i = 0; i < n; i++)
			list_row(axl_inventory_device(inv, i), 0);
		if (n == 0)
			printf("(no accelerators found)\n");
		if (o->all) {
			size_t np = axl_inventory_pci_function_count(inv);
			printf("\n%-14s %-9s %-6s %-14s %-5s %s\n", "PCI", "ID", "CLASS", "DRIVER", "ACCEL", "WHY");
			for (size_t i = 0; i < np; i++) {
				const struct axl_pci_function *f = axl_inventory_pci_function(inv, i);
				char id[16] = "-", cls[8] = "-"; /* unknown: "-" */
				if (f->vendor_id >= 0 && f->device_id >= 0)
					snprintf(id, sizeof id, "%04x:%04x", f->vendor_id, f->device_id);
				if (f->class_code >= 0)
					snprintf(cls, sizeof cls, "%04x", f->class_code >> 8);
				printf("%-14s %-9s %-6s %-14s %-5s %s%s%s\n", f->address, id, cls,
				       f->driver ? f->driver : "-", f->accelerator ? "yes" : "no",
				       f->reason ? f->reason : "", f->name ? "; " : "", f->name ? f->name : "");
			}
		}
		if (o->timing)
			print_timing(inv);
		print_warnings(inv);
	}
	/* what a new user on a machine without accelerators tries next; standard error,
	 * so that the document on standard output stays what it is */
	size_t accels = 0;
	for (size_t i = 0; i < axl_inventory_device_count(inv); i++)
		accels += axl_device_family(axl_inventory_device(inv, i)) != AXL_FAMILY_CPU;
	if (rc == 0 && accels == 0)
		fprintf(stderr, "axl: no accelerators found; %saxl list --sim FILE shows a simulated node "
				"(axl help list, docs/sim.md)\n",
			o->all ? "" : "axl list --all shows every PCI function considered and why; ");
	axl_inventory_free(inv);
	axl_context_free(ctx);
	return rc;
}

