/* SPDX-License-Identifier: MIT */
/* axl show ID: one device in full, every fact with where it came from. */
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

/* The width of the key column: the longest name shown (set by cmd_show), so that every
 * value starts in one column, as nvidia-smi -q and lspci -vv line theirs up. */
static int kw = 24;

static void kv(const char *k, const char *v)
{
	if (v)
		printf("  %-*s %s\n", kw, k, v);
}

/* One attribute's value as show prints it (the JSON's format for ids and the class);
 * false when it has none to print. */
static bool attr_text(const axl_device *d, int a, char *val, size_t cap)
{
	const char *s;
	int64_t i;
	double f;
	if (a == AXL_ATTR_ID || axl_device_source(d, (axl_attr)a) == AXL_SOURCE_NONE)
		return false;
	if (axl_device_get_str(d, (axl_attr)a, &s) == 0)
		snprintf(val, cap, "%s", s);
	else if (a == AXL_ATTR_FAMILY && axl_device_get_int(d, (axl_attr)a, &i) == 0)
		snprintf(val, cap, "%s", axl_family_name((axl_family)i));
	else if (a == AXL_ATTR_PCI_CLASS && axl_device_get_int(d, (axl_attr)a, &i) == 0)
		/* class and subclass, as the JSON's pci.class and lspci -n write it (0x0302) */
		snprintf(val, cap, "0x%04llx", (unsigned long long)i >> 8);
	else if ((a == AXL_ATTR_VENDOR_ID || a == AXL_ATTR_DEVICE_ID || a == AXL_ATTR_SUBSYSTEM_VENDOR_ID ||
		  a == AXL_ATTR_SUBSYSTEM_DEVICE_ID || a == AXL_ATTR_REVISION) &&
		 axl_device_get_int(d, (axl_attr)a, &i) == 0)
		snprintf(val, cap, a == AXL_ATTR_REVISION ? "0x%02llx" : "0x%04llx", (long long)i);
	else if ((a == AXL_ATTR_VISIBLE || a == AXL_ATTR_ECC_MODE || a == AXL_ATTR_ECC_PENDING_MODE ||
		  a == AXL_ATTR_PERSISTENCE_MODE) &&
		 axl_device_get_int(d, (axl_attr)a, &i) == 0)
		snprintf(val, cap, "%s", i ? "true" : "false");
	else if (a == AXL_ATTR_MEMORY_TOTAL && axl_device_get_int(d, (axl_attr)a, &i) == 0) {
		char h[32];
		human_bytes(i, h, sizeof h);
		snprintf(val, cap, "%lld (%s)", (long long)i, h);
	} else if (axl_device_get_int(d, (axl_attr)a, &i) == 0)
		snprintf(val, cap, "%lld", (long long)i);
	else if (axl_device_get_num(d, (axl_attr)a, &f) == 0)
		snprintf(val, cap, "%g", f);
	else
		return false;
	return true;
}

static const char *id;
static int all;

static int cmd_show(struct opts *o, int argc, char **argv)
{
	(void)argc, (void)argv;
	o->all = all;
	axl_context *ctx;
	axl_inventory *inv;
	if (open_inventory(o, &ctx, &inv))
		return 1;
	const axl_device *d = axl_inventory_find(inv, id);
	int rc = 0;
	if (!d) {
		fprintf(stderr, "axl: no device '%s' (axl list shows the ids)\n", id);
		rc = 1;
	} else if (o->json) {
		char *doc;
		if (axl_device_json(d, o->compact ? 0 : AXL_JSON_PRETTY, &doc, NULL) == 0 && doc[0] == '{') {
			/* a document of its own (schema axl.device): the two keys every document
			 * carries first, then the members of libaxl's device object */
			struct axl__sb sb = AXL__SB_INIT;
			struct axl__json w;
			axl__json_init(&w, &sb, !o->compact);
			axl__json_obj(&w);
			axl__json_kstr(&w, "schema", "axl.device");
			axl__json_kint(&w, "schema_version", 1);
			axl__sb_putc(&sb, ',');
			axl__sb_puts(&sb, doc + 1);
			axl_free(doc);
			rc = print_doc(&sb, o->compact);
		} else {
			rc = 1;
		}
	} else {
		printf("%s\n", axl_device_id(d));
		/* the columns: keys as wide as the longest, values as wide as the longest up to 40
		 * (a longer one pushes only its own source along) */
		char val[512];
		int vw = 0;
		kw = (int)strlen("compute_units"); /* the longest of the sections' names below */
		for (int a = 0; a < AXL_ATTR__COUNT; a++)
			if (attr_text(d, a, val, sizeof val)) {
				int kl = (int)strlen(axl_attr_name((axl_attr)a)), vl = (int)strlen(val);
				kw = kl > kw ? kl : kw;
				vw = vl > vw && vl <= 40 ? vl : vw;
			}
		for (int a = 0; a < AXL_ATTR__COUNT; a++) {
			if (!attr_text(d, a, val, sizeof val))
				continue;
			printf("  %-*s %-*s [%s]\n", kw, axl_attr_name((axl_attr)a), vw, val,
			       axl_source_name(axl_device_source(d, (axl_attr)a)));
		}
		size_t nn = axl_device_node_count(d);
		for (size_t i = 0; i < nn; i++)
			kv(i == 0 ? "device_nodes" : "", axl_device_node(d, i));
		size_t nc = axl_device_compute_unit_count(d);
		for (size_t i = 0; i < nc; i++) {
			const struct axl_compute_unit *c = axl_device_compute_unit(d, i);
			printf("  %-*s %s x %lld [%s]\n", kw, i == 0 ? "compute_units" : "", c->name,
			       (long long)c->count, axl_source_name(c->source));
		}
		size_t np = axl_device_precision_count(d);
		for (size_t i = 0; i < np; i++) {
			const struct axl_precision *p = axl_device_precision(d, i);
			char peak[32] = "";
			if (p->peak_tflops >= 0)
				snprintf(peak, sizeof peak, " %.1f TFLOPS", p->peak_tflops);
			printf("  %-*s %-5s %s%s [%s]\n", kw, i == 0 ? "precision" : "", axl_format_name(p->format),
			       axl_support_name(p->support), peak, axl_source_name(p->source));
		}
		size_t nparts = axl_device_partitioning_count(d);
		for (size_t i = 0; i < nparts; i++) {
			const struct axl_partitioning *p = axl_device_partitioning(d, i);
			printf("  %-*s %s", kw, i == 0 ? "partitioning" : "", p->technology);
			if (p->mode)
				printf(" mode=%s", p->mode);
			if (p->pending_mode)
				printf(" pending=%s", p->pending_mode);
			if (p->max_partitions >= 0)
				printf(" max=%lld", (long long)p->max_partitions);
			for (size_t j = 0; j < p->profile_count; j++)
				printf("%s%s", j ? "," : " profiles=", p->profiles[j]);
			printf(" [%s]\n", axl_source_name(p->source));
			for (size_t j = 0; j < p->profile_count; j++) {
				const struct axl_partition_profile *x = axl_device_partition_profile(d, i, j);
				if (!x)
					continue;
				char mem[32] = "-";
				if (x->memory_bytes >= 0)
					human_bytes(x->memory_bytes, mem, sizeof mem);
				char c[5][24];
				printf("  %-*s   %-12s id=%s mem=%s units=%s slices=%s instances=%s free=%s\n", kw, "",
				       x->name, cli_cell(x->id, c[0], sizeof c[0]), mem,
				       cli_cell(x->compute_units, c[1], sizeof c[1]),
				       cli_cell(x->slices, c[2], sizeof c[2]),
				       cli_cell(x->max_instances, c[3], sizeof c[3]),
				       cli_cell(x->free_instances, c[4], sizeof c[4]));
			}
		}
		for (size_t i = 0; i < axl_device_port_count(d); i++) {
			const struct axl_port *p = axl_device_port(d, i);
			char ix[24];
			printf("  %-*s %s %s %s", kw, i == 0 ? "ports" : "", p->technology,
			       cli_cell(p->index, ix, sizeof ix),
			       p->active == 1   ? "up"
			       : p->active == 0 ? "down"
						: "-");
			if (p->remote_kind)
				printf(" to %s", p->remote_kind);
			if (p->remote_id || p->remote_pci)
				printf(" %s", p->remote_id ? p->remote_id : p->remote_pci);
			if (p->bandwidth_gbps >= 0)
				printf(" %.0f GB/s", p->bandwidth_gbps);
			printf(" [%s]\n", axl_source_name(p->source));
		}
		for (size_t i = 0; i < axl_device_child_count(d); i++) {
			const axl_device *c = axl_device_child(d, i);
			const char *prof = cli_str(c, AXL_ATTR_PARTITION_PROFILE), *uuid = cli_str(c, AXL_ATTR_UUID);
			printf("  %-*s %s%s%s%s%s\n", kw, i == 0 ? "children" : "", axl_device_id(c), prof ? " " : "",
			       prof ? prof : "", uuid ? " " : "", uuid ? uuid : "");
		}
		print_warnings(inv);
	}
	axl_inventory_free(inv);
	axl_context_free(ctx);
	return rc;
}

static const struct cli_opt options[] = {
	{.type = CLI_OPT_ARG, .name = "ID", .value = &id,
	 .help = "an axl id (nvidia:0, nvidia:0/mig1.0), a UUID or a PCI address\n(axl list shows them)",
	 .flags = CLI_OPT_REQUIRED},
	{.type = CLI_OPT_FLAG, .name = "all", .value = &all,
	 .help = "also the host CPU (cpu:0) and every PCI function considered"},
	{0},
};

const struct cli_command cli_cmd_show = {
	"show", cmd_show, CLI_G_NODE | CLI_G_JSON, options, NULL, "one device in full (an id, a UUID or a PCI address)",
	"One device in full, every fact with where it came from.",
};
