/* SPDX-License-Identifier: MIT */
/* The axl command. It uses libaxl's public API, and src/util (the JSON writer). */
#define _GNU_SOURCE
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "axl.h"
#include "cli.h"

/* The short names of the options that belong to some commands only (the table in
 * commands.c says which); the rest are global. */
#define SHARED_OPTS "atoinPLDpBFXRGyWMQUHNKwlzfTY"

/* Apply one option; returns 0, or the exit code to leave with (+1). */
static int apply_opt(struct opts *o, int c)
{
	if (c > 0 && c < 128 && strchr(SHARED_OPTS, c))
		o->given[c] = 1;
	switch (c) {
	case 'j': o->json = 1; return 0;
	case 'a': o->all = 1; return 0;
	case 't': o->timing = 1; return 0;
	case 's': o->sysroot = optarg; return 0;
	case 'S': o->sim = optarg; return 0;
	case 'b': o->backends = optarg; return 0;
	case 'v': o->verbose = 1; return 0;
	case 'c': o->compact = 1; o->json = 1; return 0;
	case 'e':
		if (!strchr(optarg, '=') || optarg[0] == '=') {
			fprintf(stderr, "axl: --env takes NAME=VALUE, not '%s'\n", optarg);
			return EXIT_USAGE + 1;
		}
		if (o->nenv >= MAX_ENV) {
			fprintf(stderr, "axl: at most %d --env options\n", MAX_ENV);
			return EXIT_USAGE + 1;
		}
		o->env[o->nenv++] = optarg;
		return 0;
	case 'o': o->output = optarg; return 0;
	case 'i': {
		char *end;
		long v = strtol(optarg, &end, 10);
		if (*end || end == optarg || v < 1 || v > 86400000) {
			fprintf(stderr, "axl: --interval takes milliseconds (1..86400000), not '%s'\n", optarg);
			return EXIT_USAGE + 1;
		}
		o->interval_ms = (int)v;
		return 0;
	}
	case 'n': {
		char *end;
		long v = strtol(optarg, &end, 10);
		if (*end || end == optarg || v < 1) {
			fprintf(stderr, "axl: --count takes a positive number, not '%s'\n", optarg);
			return EXIT_USAGE + 1;
		}
		o->count = v;
		return 0;
	}
	case 'P': o->no_processes = 1; return 0;
	case 'L': o->listen = optarg; return 0;
	case 'D': o->dcgm = 1; return 0;
	case 'p': o->processes = 1; return 0;
	case 'B': o->batch = 1; return 0;
	case 'F': o->format = optarg; return 0;
	case 'X': o->expiry = optarg; return 0;
	case 'R': o->prefix = optarg; return 0;
	case 'G': o->gfd = 1; return 0;
	case 'y': o->family = optarg; return 0;
	case 'W': o->vendor = optarg; return 0;
	case 'M': o->min_memory = optarg; return 0;
	case 'Q': o->precision = optarg; return 0;
	case 'U': o->visible = 1; return 0;
	case 'H': o->visible = 2; return 0;
	case 'N': o->numa = optarg; return 0;
	case 'K': o->best = optarg; return 0;
	case 'w': o->watch = 1; return 0;
	case 'l': o->labels_file = optarg; return 0;
	case 'z': o->cdi_dir = optarg; return 0;
	case 'f': o->cdi_format = optarg; return 0;
	case 'T': o->driver_root = optarg; return 0;
	case 'Y': o->driver_root_host = optarg; return 0;
	case 'h': o->help = 1; return 0;
	case 'V': o->version = 1; return 0;
	default: cli_usage(stderr); return EXIT_USAGE + 1;
	}
}

/* Global options typed after the command name ("axl plan MODEL --sim F", "axl list
 * --sysroot X --json"): taken out of argv[first..argc) wherever they stand, up to a "--",
 * so that each command sees only its own. *argc becomes the new count. Returns 0, or the
 * exit code to leave with (+1). */
static int take_globals(struct opts *o, int *argc, char **argv, int first)
{
	static const struct {
		const char *name;
		int value;
	} g[] = {{"--sysroot", 1}, {"--sim", 1}, {"--backends", 1}, {"--env", 1}, {"--json", 0},
		 {"--compact", 0}, {"--verbose", 0}, {"-v", 0}, {"--help", 0}, {"-h", 0}};
	int out = first;
	for (int i = first; i < *argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--") == 0) { /* the rest is the command's, untouched */
			while (i < *argc)
				argv[out++] = argv[i++];
			break;
		}
		const char *eq = strncmp(a, "--", 2) == 0 ? strchr(a, '=') : NULL;
		size_t len = eq ? (size_t)(eq - a) : strlen(a);
		int k = -1;
		for (int j = 0; j < (int)(sizeof g / sizeof *g); j++)
			if (strlen(g[j].name) == len && strncmp(a, g[j].name, len) == 0)
				k = j;
		if (k < 0) {
			argv[out++] = argv[i];
			continue;
		}
		const char *val = NULL;
		if (g[k].value) {
			if (eq)
				val = eq + 1;
			else if (i + 1 < *argc)
				val = argv[++i];
			if (!val || !*val) {
				fprintf(stderr, "axl: %s needs a value\n", g[k].name);
				return EXIT_USAGE + 1;
			}
		} else if (eq) {
			fprintf(stderr, "axl: %s takes no value\n", g[k].name);
			return EXIT_USAGE + 1;
		}
		int c = 0;
		switch (k) {
		case 0: c = 's'; break;
		case 1: c = 'S'; break;
		case 2: c = 'b'; break;
		case 3: c = 'e'; break;
		case 4: c = 'j'; break;
		case 5: c = 'c'; break;
		case 6:
		case 7: c = 'v'; break;
		default: o->help = 1; continue;
		}
		optarg = (char *)val;
		int r = apply_opt(o, c);
		if (r)
			return r;
	}
	*argc = out;
	argv[out] = NULL;
	return 0;
}

static const struct option longopts[] = {
	{"json", no_argument, NULL, 'j'},      {"all", no_argument, NULL, 'a'},
	{"timing", no_argument, NULL, 't'},    {"sysroot", required_argument, NULL, 's'},
	{"backends", required_argument, NULL, 'b'}, {"verbose", no_argument, NULL, 'v'},
	{"compact", no_argument, NULL, 'c'},   {"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, 'V'},
	{"env", required_argument, NULL, 'e'},
	{"output", required_argument, NULL, 'o'},
	{"interval", required_argument, NULL, 'i'},
	{"count", required_argument, NULL, 'n'},
	{"no-processes", no_argument, NULL, 'P'},
	{"listen", required_argument, NULL, 'L'},
	{"dcgm", no_argument, NULL, 'D'},
	{"processes", no_argument, NULL, 'p'},
	{"batch", no_argument, NULL, 'B'},
	{"format", required_argument, NULL, 'F'},
	{"expiry", required_argument, NULL, 'X'},
	{"prefix", required_argument, NULL, 'R'},
	{"gfd", no_argument, NULL, 'G'},
	{"sim", required_argument, NULL, 'S'},
	{"family", required_argument, NULL, 'y'},
	{"vendor", required_argument, NULL, 'W'},
	{"min-memory", required_argument, NULL, 'M'},
	{"precision", required_argument, NULL, 'Q'},
	{"visible", no_argument, NULL, 'U'},
	{"hidden", no_argument, NULL, 'H'},
	{"numa", required_argument, NULL, 'N'},
	{"best", required_argument, NULL, 'K'},
	{"watch", no_argument, NULL, 'w'},
	{"labels-file", required_argument, NULL, 'l'},
	{"cdi-dir", required_argument, NULL, 'z'},
	{"cdi-format", required_argument, NULL, 'f'},
	{"driver-root", required_argument, NULL, 'T'},
	{"driver-root-host", required_argument, NULL, 'Y'},
	{NULL, 0, NULL, 0},
};

/* "--interval" for 'i' */
static const char *opt_name(int c)
{
	for (const struct option *l = longopts; l->name; l++)
		if (l->val == c)
			return l->name;
	return "?";
}

int main(int argc, char **argv)
{
	struct opts o = {0};
	/* the command line as typed (argv is rearranged below), for capture's manifest */
	static char *typed[4096];
	o.full_argc = argc < 4096 ? argc : 4095;
	memcpy(typed, argv, (size_t)o.full_argc * sizeof *argv);
	o.full_argv = typed;
	int c, r;
	/* options before the command ("+": stop at the command) */
	while ((c = getopt_long(argc, argv, "+hvVo:", longopts, NULL)) != -1)
		if ((r = apply_opt(&o, c)))
			return r - 1;
	if (o.version)
		return cmd_version(&o, 0, NULL);
	if (optind >= argc) {
		cli_usage(o.help ? stdout : stderr);
		return o.help ? 0 : EXIT_USAGE;
	}
	const char *cmd = argv[optind++];
	const struct cli_command *cc = cli_command_find(cmd);
	if (!cc) {
		fprintf(stderr, "axl: unknown command '%s' (axl help lists them)\n", cmd);
		return EXIT_USAGE;
	}
	/* the global options, wherever they were typed */
	if ((r = take_globals(&o, &argc, argv, optind)))
		return r - 1;
	if (o.help && cc->run != cmd_help) {
		cli_command_help(stdout, cc);
		return 0;
	}
	if (o.sim && strcmp(cmd, "capture") == 0) {
		fprintf(stderr, "axl: a simulated node has nothing to capture (--sim)\n");
		return EXIT_USAGE;
	}
	const char *bad = cli_global_refusal(cc, &o);
	if (bad) {
		fprintf(stderr, "axl: %s means nothing to axl %s (axl help %s)\n", bad, cmd, cmd);
		return EXIT_USAGE;
	}
	if (o.sim && o.sysroot) {
		fprintf(stderr, "axl: --sim and --sysroot exclude each other (a simulated node has no tree to read)\n");
		return EXIT_USAGE;
	}
	/* the command's own options and arguments: parsed here from the shared options it
	 * takes, or by the command itself */
	char **args = argv + optind;
	int nargs = 0;
	if (cc->options) {
		while (optind < argc) {
			if (argv[optind][0] == '-' && argv[optind][1]) {
				c = getopt_long(argc, argv, "+hvVo:", longopts, NULL);
				if (c == -1)
					break;
				if (c == 'V') {
					fprintf(stderr, "axl: --version goes before the command (axl --version)\n");
					return EXIT_USAGE;
				}
				if ((r = apply_opt(&o, c)))
					return r - 1;
				continue;
			}
			args[nargs++] = argv[optind++]; /* positional arguments, in order */
		}
		while (optind < argc) /* after "--" */
			args[nargs++] = argv[optind++];
	} else {
		nargs = argc - optind;
	}
	/* a shared option (typed before or after the command) that is not this command's */
	for (const char *p = SHARED_OPTS; *p; p++)
		if (o.given[(unsigned char)*p] && !(cc->options && strchr(cc->options, *p))) {
			char which[256];
			cli_commands_taking(*p, which, sizeof which);
			fprintf(stderr, "axl: --%s is not an option of axl %s, but of %s (axl help %s)\n", opt_name(*p), cmd,
				which, cmd);
			return EXIT_USAGE;
		}
	return cc->run(&o, nargs, args);
}
