/* SPDX-License-Identifier: MIT */
/* The list of axl's commands (each declared with its options in cmd_<name>.c), the help
 * printed from their tables (`axl help`, `axl help COMMAND`, `axl COMMAND --help`), the
 * subcommands' dispatch, and axl version and axl help themselves. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const struct cli_command *const commands[] = {
	&cli_cmd_list,          &cli_cmd_show,       &cli_cmd_topo,  &cli_cmd_capture,   &cli_cmd_metrics,
	&cli_cmd_serve,         &cli_cmd_top,        &cli_cmd_cdi,   &cli_cmd_labels,    &cli_cmd_agent,
	&cli_cmd_device_plugin, &cli_cmd_dra_plugin, &cli_cmd_limit, &cli_cmd_partition, &cli_cmd_plan,
	&cli_cmd_bench,         &cli_cmd_version,    &cli_cmd_help,
};
#define NCOMMANDS (sizeof commands / sizeof *commands)

/* The global options' help (main.c parses them) */
static const char global_help[] =
	"  --json          the JSON document (schema axl.inventory for list, show, topo)\n"
	"  --compact       JSON on one line (implies --json)\n"
	"  --sysroot PATH  read another node: a capture file (.tar.gz, .tar) or a folder\n"
	"  --sim FILE      a simulated node: devices of the device database named by an\n"
	"                  axl.sim JSON spec (docs/sim.md); never touches the hardware\n"
	"  --backends LIST use only these backends (\"nvidia,amdgpu\") or not these\n"
	"                  (\"-nvidia\")\n"
	"  --env NAME=VALUE  judge visibility as if the environment held only these\n"
	"                  visibility variables (CUDA_VISIBLE_DEVICES, ...); repeatable\n"
	"  -v, --verbose   log diagnostics to standard error\n"
	"  -h, --help      this text; after a command, that command's (axl help COMMAND)\n"
	"  -V, --version   the version (= axl version)\n";

/* The overview `axl help` and `axl --help` print: every command of the table */
void cli_usage(FILE *f)
{
	fprintf(f, "usage: axl [global options] <command> [options]\n\ncommands:\n");
	/* the summaries start after the longest name */
	int w = 0;
	for (size_t i = 0; i < NCOMMANDS; i++) {
		int n = (int)strlen(commands[i]->name);
		for (const struct cli_sub *s = commands[i]->subs; s && s->name; s++)
			if (n + 1 + (int)strlen(s->name) > w)
				w = n + 1 + (int)strlen(s->name);
		if (n > w)
			w = n;
	}
	for (size_t i = 0; i < NCOMMANDS; i++) {
		const struct cli_command *c = commands[i];
		if (c->subs) {
			for (const struct cli_sub *s = c->subs; s->name; s++) {
				char name[48];
				snprintf(name, sizeof name, "%s %s", c->name, s->name);
				fprintf(f, "  %-*s", w, name);
				cli_wrap(f, s->summary, 2 + w, 4 + w);
			}
		} else {
			fprintf(f, "  %-*s", w, c->name);
			cli_wrap(f, c->summary, 2 + w, 4 + w);
		}
	}
	fprintf(f, "\nUnits: sizes take one (40GiB, 80GB, 512MiB, 4096B), rates too (400Gb/s is bits,\n"
		   "50GB/s bytes) and durations (500ms, 60s, 5m, 1h30m); a bare number is refused.\n"
		   "\nglobal options (before or after the command):\n%s"
		   "\nenvironment: AXL_SYSROOT, AXL_SIM, AXL_BACKENDS, AXL_PCI_IDS, AXL_DRIVER_ROOT\n"
		   "(options win); the visibility variables (docs/visibility.md) on the live system;\n"
		   "TMPDIR is where a capture given as sysroot is unpacked while axl runs.\n"
		   "AXL_STATE_DIR: where axl limit keeps its records (default /run/axl for root,\n"
		   "else $XDG_RUNTIME_DIR/axl or /tmp/axl-UID). AXL_PCI_LIBRARY, AXL_ZLIB_LIBRARY,\n"
		   "AXL_MHD_LIBRARY, AXL_CURSES_LIBRARY: load that file instead of libpci.so.3\n"
		   "(pci.ids names), libz.so.1 (capture files), libmicrohttpd.so.12 (serve) or\n"
		   "libncursesw.so.6 (top), which axl loads only when it needs them.\n"
		   "\naxl help COMMAND says what a command does and the options it takes.\n",
		global_help);
}

const struct cli_command *cli_command_find(const char *name)
{
	for (size_t i = 0; name && i < NCOMMANDS; i++)
		if (strcmp(commands[i]->name, name) == 0)
			return commands[i];
	return NULL;
}

static int table_takes(const struct cli_opt *t, const char *name)
{
	for (; t && t->type != CLI_OPT_END; t++)
		if (t->type != CLI_OPT_ARG && t->type != CLI_OPT_ARGS && !(t->flags & CLI_OPT_REFUSED) &&
		    strcmp(t->name, name) == 0)
			return 1;
	return 0;
}

void cli_commands_taking(const char *name, char *out, size_t cap)
{
	size_t len = 0;
	out[0] = '\0';
	for (size_t i = 0; i < NCOMMANDS; i++) {
		const struct cli_command *c = commands[i];
		if (table_takes(c->opts, name) && len + 48 < cap)
			len += (size_t)snprintf(out + len, cap - len, "%saxl %s", len ? ", " : "", c->name);
		for (const struct cli_sub *s = c->subs; s && s->name; s++)
			if (table_takes(s->opts, name) && len + 48 < cap)
				len += (size_t)snprintf(out + len, cap - len, "%saxl %s %s", len ? ", " : "", c->name,
							s->name);
	}
}

/* Has an earlier table of the command shown this option already? */
static int shown_before(const struct cli_command *c, const struct cli_sub *upto, const struct cli_opt *o)
{
	for (const struct cli_sub *s = c->subs; s && s != upto; s++)
		if (table_takes(s->opts, o->name))
			return 1;
	return 0;
}

void cli_command_help(FILE *f, const struct cli_command *c)
{
	if (!c->subs && !c->opts) { /* a command whose help holds its usage */
		fputs(c->help, f);
	} else if (c->subs) {
		for (const struct cli_sub *s = c->subs; s->name; s++) {
			char name[48];
			snprintf(name, sizeof name, "%s %s", c->name, s->name);
			cli_opt_usage(f, s == c->subs, name, s->opts);
		}
	} else {
		cli_opt_usage(f, 1, c->name, c->opts);
	}
	if (c->subs || c->opts) {
		fputc('\n', f);
		cli_wrap(f, c->help, 0, 0);
	}
	int header = 0;
	if (c->subs) {
		for (const struct cli_sub *s = c->subs; s->name; s++)
			for (const struct cli_opt *o = s->opts; o->type != CLI_OPT_END; o++) {
				if (o->type == CLI_OPT_ARG || o->type == CLI_OPT_ARGS || shown_before(c, s, o))
					continue;
				struct cli_opt one[2] = {*o, {0}};
				if (!header++)
					fputs("\noptions:\n", f);
				cli_opt_help(f, one);
			}
	} else if (c->opts) {
		for (const struct cli_opt *o = c->opts; o->type != CLI_OPT_END; o++)
			if (!(o->flags & (CLI_OPT_HIDDEN | CLI_OPT_REFUSED)) && o->help)
				header = 1;
		if (header)
			fputs("\noptions:\n", f);
		cli_opt_help(f, c->opts);
	}
	if (!c->globals)
		return;
	fputs("\nglobal options:\n", f);
	if (c->globals & CLI_G_JSON)
		fputs("  --json          the JSON document instead of text\n"
		      "  --compact       JSON on one line (implies --json)\n",
		      f);
	if (c->globals & CLI_G_NODE)
		fputs("  --sysroot PATH  read another node: a capture file (.tar.gz, .tar) or a folder\n"
		      "  --sim FILE      a simulated node (an axl.sim spec, docs/sim.md)\n"
		      "  --backends LIST use only these backends (\"nvidia,amdgpu\") or not these\n"
		      "                  (\"-nvidia\")\n"
		      "  --env NAME=VALUE  judge visibility as if the environment held only these\n"
		      "                  visibility variables (repeatable)\n",
		      f);
	else if (c->globals & CLI_G_SYSROOT)
		fputs("  --sysroot PATH  capture another node's tree (a folder or a capture) again\n"
		      "  --backends LIST use only these backends\n",
		      f);
	fputs("  -v, --verbose   log diagnostics to standard error\n", f);
}

const struct cli_sub *cli_sub_parse(const struct cli_command *c, int argc, char **argv)
{
	const char *names[32];
	size_t n = 0;
	for (const struct cli_sub *s = c->subs; s->name && n < 32; s++)
		names[n++] = s->name;
	char list[256] = "";
	for (size_t i = 0, len = 0; i < n && len + 40 < sizeof list; i++)
		len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? (i + 1 == n ? " or " : ", ") : "",
					names[i]);
	if (argc < 1 || argv[0][0] == '-') {
		fprintf(stderr, "axl %s: which one? %s (axl help %s)\n", c->name, list, c->name);
		return NULL;
	}
	for (const struct cli_sub *s = c->subs; s->name; s++)
		if (strcmp(s->name, argv[0]) == 0) {
			char name[48];
			snprintf(name, sizeof name, "%s %s", c->name, s->name);
			return cli_opt_parse(name, s->opts, argc - 1, argv + 1) ? NULL : s;
		}
	const char *near = cli_closest(argv[0], names, n);
	if (near)
		fprintf(stderr, "axl %s: no subcommand '%s'; did you mean %s? (axl help %s)\n", c->name, argv[0], near,
			c->name);
	else
		fprintf(stderr, "axl %s: no subcommand '%s': it has %s (axl help %s)\n", c->name, argv[0], list,
			c->name);
	return NULL;
}

const char *cli_global_refusal(const struct cli_command *c, const struct opts *o)
{
	if (!(c->globals & CLI_G_JSON) && (o->json || o->compact))
		return o->compact ? "--compact" : "--json";
	if (!(c->globals & (CLI_G_NODE | CLI_G_SYSROOT)) && o->sysroot)
		return "--sysroot";
	if (!(c->globals & CLI_G_NODE) && o->sim)
		return "--sim";
	if (!(c->globals & (CLI_G_NODE | CLI_G_SYSROOT)) && o->backends)
		return "--backends";
	if (!(c->globals & CLI_G_NODE) && o->nenv)
		return "--env";
	return NULL;
}

static const struct cli_opt version_opts[] = {{0}};
static int cmd_version(struct opts *o, int argc, char **argv)
{
	(void)o, (void)argc, (void)argv;
	printf("axl %s (libaxl %s)\n", AXL_VERSION_STRING, axl_version());
	return 0;
}
const struct cli_command cli_cmd_version = {
	"version", cmd_version, 0, version_opts, NULL, "the version of axl and libaxl (also --version, -V)",
	"The version of axl and of the libaxl it runs with (also axl --version, axl -V).",
};

static const char *help_topic;
static const struct cli_opt help_opts[] = {
	{.type = CLI_OPT_ARG, .name = "COMMAND", .value = &help_topic, .help = "the command to describe"},
	{0},
};

/* "no command 'lst'; did you mean list?" */
static int no_command(const char *typed)
{
	const char *names[NCOMMANDS];
	for (size_t i = 0; i < NCOMMANDS; i++)
		names[i] = commands[i]->name;
	const char *near = cli_closest(typed, names, NCOMMANDS);
	if (near)
		fprintf(stderr, "axl: no command '%s'; did you mean %s? (axl help)\n", typed, near);
	else
		fprintf(stderr, "axl: no command '%s' (axl help lists them)\n", typed);
	return EXIT_USAGE;
}

static int cmd_help(struct opts *o, int argc, char **argv)
{
	(void)o;
	if (argc < 0) /* main.c: argv[0] is no command */
		return no_command(argv[0]);
	if (help_topic) {
		const struct cli_command *t = cli_command_find(help_topic);
		if (!t)
			return no_command(help_topic);
		cli_command_help(stdout, t);
	} else {
		cli_usage(stdout);
	}
	return 0;
}
const struct cli_command cli_cmd_help = {
	"help", cmd_help, 0, help_opts, NULL, "this text, or one command's usage and options",
	"What axl does, or what one command does and the options it takes.",
};

/* ---- axl topo's legend: what the matrix's cells mean (help text, in cmd_topo.c's order) */
const char cli_topo_legend_paths[] =
	"\nLegend:\n\n"
	"  X    = Self\n"
	"  SYS  = PCIe and the interconnect between NUMA nodes (UPI, Infinity Fabric)\n"
	"  NODE = PCIe and the interconnect between the host bridges of one NUMA node\n"
	"  PHB  = PCIe and a PCIe host bridge (typically the CPU)\n"
	"  PXB  = PCIe through several PCIe switches, no host bridge\n"
	"  PIX  = PCIe through a single PCIe switch\n"
	"  NV#  = a bonded set of # NVLinks (direct, or into the NVSwitch fabric)\n";
/* followed by "<links>, <GB/s> GB/s per direction" when every switched pair says the same */
const char cli_topo_legend_switch_pairs[] = "  NVSwitch fabric: every pair NV";
const char cli_topo_legend_switch_unknown[] = "  NVS  = the NVSwitch fabric (link count not known)\n";
const char cli_topo_legend_fabrics[] = "  XGMI = AMD Infinity Fabric (one XGMI hive)\n"
				       "  NL#  = # AWS NeuronLink ports\n";
const char cli_topo_legend_xelink[] = "  XL#  = a bonded set of # Intel Xe Links\n";
const char cli_topo_legend_ici[] = "  ICI  = Google TPU inter-chip interconnect (one slice: a torus or mesh)\n";
const char cli_topo_legend_roce[] =
    "  RC#  = # RoCE ports of Intel Gaudi's on-chip Ethernet joining the pair (one 8-module baseboard)\n";
const char cli_topo_legend_unknown[] = "  -    = not known\n";
