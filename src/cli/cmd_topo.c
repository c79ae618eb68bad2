/* SPDX-License-Identifier: MIT */
/*
 * axl topo: the best path between every pair of accelerators and from each to every
 * RDMA NIC, as a matrix in the manner of nvidia-smi topo -m, for every vendor. It uses
 * only libaxl's public API: the inventory's links, NICs, NIC links and switches.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axl.h"
#include "cli.h"

#define WIDTH 80 /* NIC columns move to a table of their own past this */

/* A row, and the column of the same device, is labelled with the device's id: the name
 * axl show, partition and the rest take (nvidia-smi's GPU0 is its own index, which no
 * other axl command would accept). */
struct row {
	const axl_device *dev;
	const char *label;
};

/* The cell for a link: nvidia-smi's codes, and XGMI, NL#, XL#, RC# for the other fabrics. */
static void cell_code(const struct axl_link *l, char *out, size_t cap)
{
	if (!l) {
		snprintf(out, cap, "-");
		return;
	}
	const char *k = l->kind;
	if (strcmp(k, "nvlink") == 0) {
		if (l->link_count >= 0)
			snprintf(out, cap, "NV%d", l->link_count);
		else
			snprintf(out, cap, "NV");
	} else if (strcmp(k, "nvswitch") == 0) {
		/* as nvidia-smi writes a switched pair: the links each GPU brings */
		if (l->link_count >= 0)
			snprintf(out, cap, "NV%d", l->link_count);
		else
			snprintf(out, cap, "NVS");
	} else if (strcmp(k, "xgmi") == 0) {
		snprintf(out, cap, "XGMI");
	} else if (strcmp(k, "neuronlink") == 0) {
		if (l->link_count >= 0)
			snprintf(out, cap, "NL%d", l->link_count);
		else
			snprintf(out, cap, "NL");
	} else if (strcmp(k, "board") == 0) {
		/* two GPUs of one board (the vendor library's "internal" level): a switch on the board */
		snprintf(out, cap, "PIX");
	} else if (strcmp(k, "xelink") == 0) {
		if (l->link_count >= 0)
			snprintf(out, cap, "XL%d", l->link_count);
		else
			snprintf(out, cap, "XL");
	} else if (strcmp(k, "roce") == 0) {
		if (l->link_count >= 0)
			snprintf(out, cap, "RC%d", l->link_count);
		else
			snprintf(out, cap, "RC");
	} else if (strcmp(k, "pcie-switch") == 0) {
		snprintf(out, cap, l->pcie_switches > 1 ? "PXB" : "PIX");
	} else if (strcmp(k, "host-bridge") == 0) {
		snprintf(out, cap, "PHB");
	} else if (strcmp(k, "numa") == 0) {
		snprintf(out, cap, "NODE");
	} else if (strcmp(k, "system") == 0) {
		snprintf(out, cap, "SYS");
	} else { /* a kind this command does not know yet: its first letters */
		size_t i = 0;
		for (; k[i] && i < 4 && i + 1 < cap; i++)
			out[i] = (char)(k[i] >= 'a' && k[i] <= 'z' ? k[i] - 'a' + 'A' : k[i]);
		out[i] = '\0';
	}
}

static const struct axl_link *find_link(const axl_inventory *inv, const char *a, const char *b)
{
	size_t n = axl_inventory_link_count(inv);
	for (size_t i = 0; i < n; i++) {
		const struct axl_link *l = axl_inventory_link(inv, i);
		if ((strcmp(l->a, a) == 0 && strcmp(l->b, b) == 0) || (strcmp(l->a, b) == 0 && strcmp(l->b, a) == 0))
			return l;
	}
	return NULL;
}

static const struct axl_link *find_nic_link(const axl_inventory *inv, const char *dev, const char *nic)
{
	size_t n = axl_inventory_nic_link_count(inv);
	for (size_t i = 0; i < n; i++) {
		const struct axl_link *l = axl_inventory_nic_link(inv, i);
		if (strcmp(l->a, dev) == 0 && strcmp(l->b, nic) == 0)
			return l;
	}
	return NULL;
}

static ptrdiff_t nic_index(const axl_inventory *inv, const char *name)
{
	size_t n = axl_inventory_nic_count(inv);
	for (size_t i = 0; name && i < n; i++)
		if (strcmp(axl_inventory_nic(inv, i)->name, name) == 0)
			return (ptrdiff_t)i;
	return -1;
}

/* A line of fixed-width columns, printed without trailing blanks. */
struct line {
	char buf[1024];
	size_t len;
};

static void col(struct line *l, int width, const char *text)
{
	if (l->len < sizeof l->buf)
		l->len += (size_t)snprintf(l->buf + l->len, sizeof l->buf - l->len, "%-*s", width, text);
	if (l->len >= sizeof l->buf)
		l->len = sizeof l->buf - 1;
}

static void emit(struct line *l)
{
	while (l->len > 0 && l->buf[l->len - 1] == ' ')
		l->len--;
	l->buf[l->len] = '\0';
	puts(l->buf);
	l->len = 0;
}

/* One matrix: accelerator rows; accelerator columns (with the affinities) and/or NIC
 * columns. */
static void print_matrix(const axl_inventory *inv, const struct row *rows, size_t nr, bool devs,
			 size_t nic_from, size_t nic_to, int lw, int cw, int nw, int aw)
{
	char code[16], label[16];
	struct line l = {.len = 0};
	col(&l, lw, "");
	if (devs)
		for (size_t j = 0; j < nr; j++)
			col(&l, cw, rows[j].label);
	for (size_t k = nic_from; k < nic_to; k++) {
		snprintf(label, sizeof label, "NIC%zu", k);
		col(&l, nw, label);
	}
	if (devs) {
		col(&l, aw, "CPU Affinity");
		col(&l, 0, "NUMA");
	}
	emit(&l);
	for (size_t i = 0; i < nr; i++) {
		const char *id = axl_device_id(rows[i].dev);
		col(&l, lw, rows[i].label);
		if (devs)
			for (size_t j = 0; j < nr; j++) {
				if (i == j)
					snprintf(code, sizeof code, " X");
				else
					cell_code(find_link(inv, id, axl_device_id(rows[j].dev)), code, sizeof code);
				col(&l, cw, code);
			}
		for (size_t k = nic_from; k < nic_to; k++) {
			cell_code(find_nic_link(inv, id, axl_inventory_nic(inv, k)->name), code, sizeof code);
			col(&l, nw, code);
		}
		if (devs) {
			const char *cpus = cli_str(rows[i].dev, AXL_ATTR_LOCAL_CPULIST);
			int64_t numa;
			char ns[16] = "N/A";
			if (axl_device_get_int(rows[i].dev, AXL_ATTR_NUMA_NODE, &numa) == 0)
				snprintf(ns, sizeof ns, "%lld", (long long)numa);
			col(&l, aw, cpus ? cpus : "N/A");
			col(&l, 0, ns);
		}
		emit(&l);
	}
}

static void print_devices(const axl_inventory *inv, const struct row *rows, size_t nr, int lw)
{
	printf("\n%-*s%-13s %-12s %s\n", lw, "", "PCI", "NEAREST NIC", "MODEL");
	for (size_t i = 0; i < nr; i++) {
		const axl_device *d = rows[i].dev;
		const char *pci = cli_str(d, AXL_ATTR_PCI_ADDRESS), *model = cli_str(d, AXL_ATTR_MODEL);
		char near[32] = "-";
		ptrdiff_t k = nic_index(inv, cli_str(d, AXL_ATTR_NEAREST_NIC));
		if (k >= 0) {
			char code[16];
			cell_code(find_nic_link(inv, axl_device_id(d), axl_inventory_nic(inv, (size_t)k)->name),
				  code, sizeof code);
			snprintf(near, sizeof near, "NIC%td %s", k, code);
		}
		/* the model fills what is left of the line */
		int room = WIDTH - lw - 13 - 1 - 12 - 1;
		printf("%-*s%-13s %-12s %.*s\n", lw, rows[i].label, pci ? pci : "-", near, room > 8 ? room : 8,
		       model ? model : "(unknown)");
	}
}

static void print_nics(const axl_inventory *inv, int lw)
{
	size_t n = axl_inventory_nic_count(inv);
	if (!n)
		return;
	printf("\n%-*s%-13s %-13s %-5s %-11s %-10s %s\n", lw, "", "NAME", "PCI", "NUMA", "LINK", "RATE", "STATE");
	for (size_t k = 0; k < n; k++) {
		const struct axl_nic *c = axl_inventory_nic(inv, k);
		char l[16], numa[16] = "-", rate[24] = "-";
		snprintf(l, sizeof l, "NIC%zu", k);
		if (c->numa_node >= 0)
			snprintf(numa, sizeof numa, "%d", c->numa_node);
		if (c->rate_gbit >= 0)
			snprintf(rate, sizeof rate, "%g Gb/s", c->rate_gbit);
		printf("%-*s%-13s %-13s %-5s %-11s %-10s %s\n", lw, l, c->name, c->pci_address ? c->pci_address : "-",
		       numa, c->link_layer ? c->link_layer : "-", rate, c->state ? c->state : "-");
	}
}

static void print_switches(const axl_inventory *inv, int lw)
{
	size_t n = axl_inventory_switch_count(inv);
	if (!n)
		return;
	printf("\n%-*s%-13s %-13s %-5s %-11s %s\n", lw, "", "KIND", "PCI", "NUMA", "GENERATION", "DRIVER");
	for (size_t k = 0; k < n; k++) {
		const struct axl_switch *s = axl_inventory_switch(inv, k);
		char l[16], numa[16] = "-", gen[16] = "-";
		snprintf(l, sizeof l, "SW%zu", k);
		if (s->numa_node >= 0)
			snprintf(numa, sizeof numa, "%d", s->numa_node);
		if (s->generation >= 0)
			snprintf(gen, sizeof gen, "%d", s->generation);
		printf("%-*s%-13s %-13s %-5s %-11s %s\n", lw, l, s->kind, s->pci_address, numa, gen,
		       s->driver ? s->driver : "-");
	}
}

/* NVS: what the switched links carry, when every pair says the same. */
static void print_legend(const axl_inventory *inv)
{
	int links = -2;
	double gbps = -2;
	bool xelink = false, ici = false, roce = false;
	size_t n = axl_inventory_link_count(inv);
	for (size_t i = 0; i < n; i++) {
		const struct axl_link *l = axl_inventory_link(inv, i);
		xelink = xelink || strcmp(l->kind, "xelink") == 0;
		ici = ici || strcmp(l->kind, "ici") == 0;
		roce = roce || strcmp(l->kind, "roce") == 0;
		if (strcmp(l->kind, "nvswitch") != 0)
			continue;
		if (links == -2) {
			links = l->link_count;
			gbps = l->bandwidth_gbps;
		} else if (links != l->link_count || gbps != l->bandwidth_gbps) {
			links = -1;
			gbps = -1;
		}
	}
	fputs(cli_topo_legend_paths, stdout);
	if (links >= 0 && gbps >= 0)
		printf("%s%d, %g GB/s per direction\n", cli_topo_legend_switch_pairs, links, gbps);
	else if (links != -2)
		fputs(cli_topo_legend_switch_unknown, stdout);
	fputs(cli_topo_legend_fabrics, stdout);
	if (xelink)
		fputs(cli_topo_legend_xelink, stdout);
	if (ici)
		fputs(cli_topo_legend_ici, stdout);
	if (roce)
		fputs(cli_topo_legend_roce, stdout);
	fputs(cli_topo_legend_unknown, stdout);
}

static int all, timing;

static int cmd_topo(struct opts *o, int argc, char **argv)
{
	(void)argc, (void)argv;
	o->all = all;
	o->timing = timing;
	axl_context *ctx;
	axl_inventory *inv;
	if (open_inventory(o, &ctx, &inv))
		return 1;
	if (o->json) {
		int rc = print_json(inv, o);
		axl_inventory_free(inv);
		axl_context_free(ctx);
		return rc;
	}
	size_t nd = axl_inventory_device_count(inv), nr = 0;
	struct row *rows = calloc(nd ? nd : 1, sizeof *rows);
	if (!rows) {
		fprintf(stderr, "axl: out of memory\n");
		axl_inventory_free(inv);
		axl_context_free(ctx);
		return 1;
	}
	size_t maxlabel = 4;
	for (size_t i = 0; i < nd; i++) {
		const axl_device *d = axl_inventory_device(inv, i);
		axl_family f = axl_device_family(d);
		if (f == AXL_FAMILY_CPU)
			continue;
		rows[nr].dev = d;
		rows[nr].label = axl_device_id(d);
		if (strlen(rows[nr].label) > maxlabel)
			maxlabel = strlen(rows[nr].label);
		nr++;
	}
	/* NIC columns as wide as their names ("NIC10") and codes need, not as the ids */
	size_t nn = axl_inventory_nic_count(inv);
	int nw = (nn > 100 ? 6 : nn > 10 ? 5 : 4) + 1;
	if (nr == 0) {
		printf("(no accelerators found)\n");
	} else {
		int lw = (int)maxlabel + 2, cw = (int)maxlabel + 1;
		size_t aw = strlen("CPU Affinity");
		for (size_t i = 0; i < nr; i++) {
			const char *c = cli_str(rows[i].dev, AXL_ATTR_LOCAL_CPULIST);
			if (c && strlen(c) > aw)
				aw = strlen(c);
		}
		aw += 2;
		size_t devs = (size_t)lw + nr * (size_t)cw + aw + 4, full = devs + nn * (size_t)nw;
		bool together = full <= WIDTH;
		print_matrix(inv, rows, nr, true, 0, together ? nn : 0, lw, cw, nw, (int)aw);
		if (!together && nn) {
			/* NICs in tables of their own, as many columns as fit in 80 or in the
			 * accelerators' matrix when that is wider */
			size_t room = devs > WIDTH ? devs : WIDTH, per = (room - (size_t)lw) / (size_t)nw;
			for (size_t from = 0; from < nn; from += per) {
				printf("\n");
				print_matrix(inv, rows, nr, false, from, from + per < nn ? from + per : nn, lw, cw, nw,
					     0);
			}
		}
		print_devices(inv, rows, nr, lw);
		print_nics(inv, lw);
		print_switches(inv, lw);
		print_legend(inv);
	}
	print_warnings(inv);
	free(rows);
	axl_inventory_free(inv);
	axl_context_free(ctx);
	return 0;
}

static const struct cli_opt options[] = {
	{.type = CLI_OPT_FLAG, .name = "all", .value = &all,
	 .help = "also the host CPU and every PCI function considered (with --json)"},
	{.type = CLI_OPT_FLAG, .name = "timing", .value = &timing,
	 .help = "the time spent per discovery stage (with --json)"},
	{0},
};

const struct cli_command cli_cmd_topo = {
	"topo", cmd_topo, CLI_G_NODE | CLI_G_JSON, options, NULL,
	"the best path between accelerators, and to RDMA NICs",
	"The best path between every pair of accelerators and to every RDMA NIC, as a matrix\n"
	"like nvidia-smi topo -m, for any vendor. --json prints the inventory document, whose\n"
	"links hold the same paths.",
};
