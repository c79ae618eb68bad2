/* SPDX-License-Identifier: MIT */
/* axl list: the accelerators of a node, one line each (and with --all every PCI
 * function considered). */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "axl.h"
#include "cli.h"
#include "output.h"

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
	unsigned long long calls = 0;
	printf("\n%-12s %10s %9s\n", "STAGE", "MS", "SYSCALLS");
	for (size_t i = 0; i < n; i++) {
		const struct axl_timing *t = axl_inventory_timing(inv, i);
		printf("%-12s %10.3f %9llu\n", t->stage, t->milliseconds, (unsigned long long)t->syscalls);
		total += t->milliseconds;
		calls += t->syscalls;
	}
	printf("%-12s %10.3f %9llu\n", "total", total, calls);
}

/* The options (the table closes the file) */
static struct {
	int all, timing, visible, hidden;
	const char *family, *vendor, *precision, *best;
	int64_t min_memory;
	int has_min_memory;
	long numa;
	int has_numa;
} a = {.numa = -1};

/* One line of `axl list`; partitions that exist now follow their device, indented. */
static void list_row(const axl_device *d, int depth)
{
	char mem[32] = "-", link[32] = "-", numa[16] = "-", drv[96] = "-", id[64];
	int64_t v, g, w;
	char shared[64] = "";
	if (axl_device_get_int(d, AXL_ATTR_MEMORY_TOTAL, &v) == 0) {
		human_bytes(v, mem, sizeof mem);
	} else if (axl_device_get_int(d, AXL_ATTR_MEMORY_SHARED_SYSTEM, &v) == 0) {
		/* no memory of its own (an NPU): the host's, said as such, not as device memory */
		char h[32];
		human_bytes(v, h, sizeof h);
		snprintf(mem, sizeof mem, "shared");
		snprintf(shared, sizeof shared, "  (shared system memory: %s)", h);
	}
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
	printf("%-14s %-36.36s %-10s %-10s %-5s %s%s%s\n", id, model ? model : "(unknown)", mem, link, numa, drv,
	       shared, vis);
	for (size_t i = 0; i < axl_device_child_count(d); i++)
		list_row(axl_device_child(d, i), depth + 1);
}

/* The filter and rank the options ask for; EXIT_USAGE after a message when one is not
 * understood. *filtered: some option narrows the list. */
static int read_filter(struct axl_device_filter *f, axl_rank *rank, bool *filtered)
{
	*filtered = false;
	*rank = AXL_RANK_NONE;
	if (a.family) {
		for (int i = 0; i < AXL_FAMILY__COUNT && f->family < 0; i++)
			if (i != AXL_FAMILY_UNKNOWN && strcasecmp(a.family, axl_family_name((axl_family)i)) == 0)
				f->family = i;
		if (f->family < 0) {
			char names[128] = "";
			for (int i = 1; i < AXL_FAMILY__COUNT; i++) /* every one but "unknown" */
				snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i > 1 ? ", " : "",
					 axl_family_name((axl_family)i));
			fprintf(stderr, "axl list: --family '%s' is no family (%s)\n", a.family, names);
			return EXIT_USAGE;
		}
		*filtered = true;
	}
	if (a.vendor) {
		if (!*a.vendor) {
			fprintf(stderr, "axl list: --vendor needs a name\n");
			return EXIT_USAGE;
		}
		f->vendor = a.vendor;
		*filtered = true;
	}
	if (a.has_min_memory) {
		f->min_memory_bytes = a.min_memory;
		*filtered = true;
	}
	if (a.precision) {
		for (int i = 0; i < AXL_FORMAT__COUNT && f->precision < 0; i++)
			if (strcasecmp(a.precision, axl_format_name((axl_format)i)) == 0)
				f->precision = i;
		if (f->precision < 0) {
			fprintf(stderr, "axl list: --precision '%s' is no format (fp64, fp32, tf32, bf16, fp16, fp8, "
					"int8, fp6, fp4, int4)\n",
				a.precision);
			return EXIT_USAGE;
		}
		*filtered = true;
	}
	if (a.visible && a.hidden) {
		fprintf(stderr, "axl list: --visible and --hidden exclude each other\n");
		return EXIT_USAGE;
	}
	if (a.visible || a.hidden) {
		f->visible = a.visible;
		*filtered = true;
	}
	if (a.has_numa) {
		f->numa_node = (int)a.numa;
		*filtered = true;
	}
	if (a.best) {
		for (int r = AXL_RANK_MEMORY; r <= AXL_RANK_COMPUTE && !*rank; r++)
			if (strcasecmp(a.best, axl_rank_name((axl_rank)r)) == 0)
				*rank = (axl_rank)r;
		if (!*rank) {
			fprintf(stderr, "axl list: --best ranks by memory, bandwidth or compute, not '%s'\n", a.best);
			return EXIT_USAGE;
		}
		*filtered = true;
	}
	return 0;
}

/* "total: 8 devices, 640.0 GiB of accelerator memory (1 device does not say)" */
static void print_total(const axl_inventory *inv, const struct axl_device_filter *f, size_t listed)
{
	int64_t bytes;
	size_t unknown;
	char mem[32];
	if (axl_inventory_total_memory(inv, f, &bytes, &unknown) != 0)
		return;
	human_bytes(bytes, mem, sizeof mem);
	printf("total: %zu device%s, %s of accelerator memory", listed, listed == 1 ? "" : "s", mem);
	if (unknown)
		printf(" (%zu device%s not say)", unknown, unknown == 1 ? " does" : "s do");
	printf("\n");
}

static int print_selected_json(const axl_inventory *inv, const struct opts *o, const struct axl_device_filter *f,
			       axl_rank rank)
{
	char *doc = NULL;
	unsigned fl = (o->compact ? 0 : AXL_JSON_PRETTY) | (o->timing ? AXL_JSON_TIMING : 0);
	if (axl_inventory_json_select(inv, f, rank, fl, &doc, NULL) != 0) {
		fprintf(stderr, "axl: list: %s\n", axl_error_last());
		return 1;
	}
	fputs(doc, stdout);
	if (o->compact)
		fputc('\n', stdout);
	axl_free(doc);
	return 0;
}

static int cmd_list(struct opts *o, int argc, char **argv)
{
	(void)argc, (void)argv;
	o->all = a.all;
	o->timing = a.timing;
	struct axl_device_filter filter = AXL_DEVICE_FILTER_INIT;
	axl_rank rank;
	bool filtered;
	int bad = read_filter(&filter, &rank, &filtered);
	if (bad)
		return bad;
	axl_context *ctx;
	axl_inventory *inv;
	if (open_inventory(o, &ctx, &inv))
		return 1;
	int rc = 0;
	const axl_device *best = NULL;
	if (rank && axl_inventory_best(inv, &filter, rank, &best) != 0) {
		/* no device matches, or none says: an answer, not a failure of axl */
		fprintf(stderr, "axl: list: --best %s: %s\n", axl_rank_name(rank), axl_error_last());
		rc = 1;
	} else if (o->json) {
		rc = filtered ? print_selected_json(inv, o, &filter, rank) : print_json(inv, o);
	} else {
		size_t n = axl_inventory_device_count(inv), listed = 0;
		printf("%-14s %-36s %-10s %-10s %-5s %s\n", "ID", "MODEL", "MEMORY", "LINK", "NUMA", "DRIVER");
		for (size_t i = 0; i < n; i++) {
			const axl_device *d = axl_inventory_device(inv, i);
			if (best ? d != best : axl_device_filter_match(d, &filter) != 1)
				continue;
			list_row(d, 0);
			listed += axl_device_family(d) != AXL_FAMILY_CPU || filter.family == AXL_FAMILY_CPU;
		}
		if (n == 0)
			printf("(no accelerators found)\n");
		else if (listed == 0)
			printf("(no device matches)\n");
		if (best) {
			double v = 0;
			char val[48];
			axl_device_rank_value(best, rank, &v);
			if (rank == AXL_RANK_MEMORY)
				human_bytes((int64_t)v, val, sizeof val);
			else
				snprintf(val, sizeof val, "%.1f %s", v, rank == AXL_RANK_BANDWIDTH ? "GB/s" : "TFLOPS");
			printf("best by %s: %s (%s)\n", axl_rank_name(rank), axl_device_id(best), val);
		} else if (n) {
			print_total(inv, &filter, listed);
		}
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
	if (rc == 0 && cli_accelerator_count(inv) == 0)
		cli_no_accelerators_hint(o->all);
	axl_inventory_free(inv);
	axl_context_free(ctx);
	return rc;
}

static const struct cli_opt options[] = {
	{.type = CLI_OPT_FLAG, .name = "all", .value = &a.all,
	 .help = "also the host CPU and every PCI function considered, and why"},
	{.type = CLI_OPT_FLAG, .name = "timing", .value = &a.timing,
	 .help = "time spent per discovery stage (with --json: a \"timing\" object)"},
	{.type = CLI_OPT_STRING, .name = "family", .value = &a.family, .value_name = "F",
	 .help = "only devices of family F: gpu, npu, tpu, asic, fpga, cpu (with --all)"},
	{.type = CLI_OPT_STRING, .name = "vendor", .value = &a.vendor, .value_name = "V",
	 .help = "only devices of vendor V (\"NVIDIA\") or id prefix V (\"nvidia\")"},
	{.type = CLI_OPT_SIZE, .name = "min-memory", .value = &a.min_memory,
	 .help = "only devices with at least SIZE of memory (40GiB, 80GB; a unit is needed)",
	 .count = &a.has_min_memory},
	{.type = CLI_OPT_STRING, .name = "precision", .value = &a.precision, .value_name = "P",
	 .help = "only devices that run format P natively: fp64, fp32, tf32, bf16,\nfp16, fp8, int8, fp6, fp4, int4"},
	{.type = CLI_OPT_FLAG, .name = "visible", .value = &a.visible, .help = "only devices this process may use"},
	{.type = CLI_OPT_FLAG, .name = "hidden", .value = &a.hidden, .help = "only devices this process may not use"},
	{.type = CLI_OPT_COUNT, .name = "numa", .value = &a.numa, .help = "only devices on NUMA node N", .max = 65535,
	 .count = &a.has_numa},
	{.type = CLI_OPT_CHOICE, .name = "best", .value = &a.best,
	 .help = "the one matching device ranked first: memory (bytes), bandwidth\n(memory GB/s) or compute (dense "
	         "BF16/FP16/FP32 TFLOPS)", .choices = "memory|bandwidth|compute"},
	{0},
};

const struct cli_command cli_cmd_list = {
	"list", cmd_list, CLI_G_NODE | CLI_G_JSON, options, NULL, "the accelerators of this node, one line each",
	"The accelerators of this node, one line each; partitions that exist now follow their\n"
	"device, indented; then their number and total memory. --json prints the axl.inventory\n"
	"document (schema/axl-inventory.schema.json); with a filter or --best it holds the\n"
	"devices that match and a \"selection\" object (the filter, the rank, the total).",
};
