/* SPDX-License-Identifier: MIT */
/* The axl command: the global options, then the command's own (its table, cmd_<name>.c).
 * It uses libaxl's public API, and src/util (the JSON writer). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axl.h"
#include "cli.h"

/* The global options: wherever they are typed, before or after the command */
enum { G_SYSROOT, G_SIM, G_BACKENDS, G_ENV, G_JSON, G_COMPACT, G_VERBOSE, G_HELP, G_VERSION };
static const struct {
	const char *name;
	char alias;
	int value;
} globals[] = {
	[G_SYSROOT] = {"sysroot", 0, 1}, [G_SIM] = {"sim", 0, 1},         [G_BACKENDS] = {"backends", 0, 1},
	[G_ENV] = {"env", 0, 1},         [G_JSON] = {"json", 0, 0},       [G_COMPACT] = {"compact", 0, 0},
	[G_VERBOSE] = {"verbose", 'v', 0}, [G_HELP] = {"help", 'h', 0},   [G_VERSION] = {"version", 'V', 0},
};
#define NGLOBALS (int)(sizeof globals / sizeof *globals)

/* Which global option argv[i] is (-1: none); *eq: its "=VALUE", if any */
static int global_at(const char *a, const char **eq)
{
	*eq = NULL;
	if (a[0] != '-')
		return -1;
	if (a[1] != '-') {
		for (int k = 0; k < NGLOBALS; k++)
			if (globals[k].alias && a[1] == globals[k].alias && !a[2])
				return k;
		return -1;
	}
	const char *e = strchr(a, '=');
	size_t len = e ? (size_t)(e - a - 2) : strlen(a + 2);
	for (int k = 0; k < NGLOBALS; k++)
		if (strlen(globals[k].name) == len && strncmp(a + 2, globals[k].name, len) == 0) {
			*eq = e;
			return k;
		}
	return -1;
}

static int apply_global(struct opts *o, int k, const char *val)
{
	switch (k) {
	case G_SYSROOT: o->sysroot = val; break;
	case G_SIM: o->sim = val; break;
	case G_BACKENDS: o->backends = val; break;
	case G_ENV:
		if (!strchr(val, '=') || val[0] == '=') {
			fprintf(stderr, "axl: --env takes NAME=VALUE, not '%s'\n", val);
			return EXIT_USAGE;
		}
		if (o->nenv >= MAX_ENV) {
			fprintf(stderr, "axl: at most %d --env options\n", MAX_ENV);
			return EXIT_USAGE;
		}
		o->env[o->nenv++] = val;
		break;
	case G_JSON: o->json = 1; break;
	case G_COMPACT: o->compact = o->json = 1; break;
	case G_VERBOSE: o->verbose = 1; break;
	case G_HELP: o->help = 1; break;
	case G_VERSION: o->version = 1; break;
	}
	return 0;
}

/* Take the global options out of argv[first..*argc), up to a "--": the command sees only
 * its own. stop_at_word: stop at the first word that is not an option (the command).
 * Returns 0, or the exit code after a message. */
static int take_globals(struct opts *o, int *argc, char **argv, int first, int stop_at_word)
{
	int out = first;
	for (int i = first; i < *argc; i++) {
		const char *a = argv[i], *eq;
		if (strcmp(a, "--") == 0 || (stop_at_word && a[0] != '-')) {
			while (i < *argc)
				argv[out++] = argv[i++];
			break;
		}
		int k = global_at(a, &eq);
		if (k < 0) {
			argv[out++] = argv[i];
			continue;
		}
		const char *val = NULL;
		if (globals[k].value) {
			if (eq)
				val = eq + 1;
			else if (i + 1 < *argc)
				val = argv[++i];
			if (!val || !*val) {
				fprintf(stderr, "axl: --%s needs a value\n", globals[k].name);
				return EXIT_USAGE;
			}
		} else if (eq) {
			fprintf(stderr, "axl: --%s takes no value\n", globals[k].name);
			return EXIT_USAGE;
		}
		int r = apply_global(o, k, val);
		if (r)
			return r;
	}
	*argc = out;
	argv[out] = NULL;
	return 0;
}

/* An option before the command that is not a global one: name it once, with the way out */
static int misplaced(const char *a)
{
	char bare[64];
	snprintf(bare, sizeof bare, "%.*s", (int)strcspn(a + strspn(a, "-"), "="), a + strspn(a, "-"));
	char which[256];
	cli_commands_taking(bare, which, sizeof which);
	if (which[0]) {
		fprintf(stderr, "axl: %s is an option of %s: put it after the command\n", a, which);
		return EXIT_USAGE;
	}
	const char *names[NGLOBALS];
	for (int k = 0; k < NGLOBALS; k++)
		names[k] = globals[k].name;
	const char *near = cli_closest(bare, names, NGLOBALS);
	if (near)
		fprintf(stderr, "axl: unknown option '%s'; did you mean --%s? (axl help)\n", a, near);
	else
		fprintf(stderr, "axl: unknown option '%s' (axl help)\n", a);
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	struct opts o = {0};
	/* the command line as typed (argv is rearranged below), for capture's manifest */
	static char *typed[4096];
	o.full_argc = argc < 4096 ? argc : 4095;
	memcpy(typed, argv, (size_t)o.full_argc * sizeof *argv);
	o.full_argv = typed;
	int r;
	/* options before the command */
	if ((r = take_globals(&o, &argc, argv, 1, 1)))
		return r;
	if (argc > 1 && argv[1][0] == '-' && strcmp(argv[1], "--") != 0)
		return misplaced(argv[1]);
	int first = argc > 1 && strcmp(argv[1], "--") == 0 ? 2 : 1;
	if (o.version && first >= argc)
		return cli_cmd_version.run(&o, 0, NULL);
	if (first >= argc) {
		cli_usage(o.help ? stdout : stderr);
		return o.help ? 0 : EXIT_USAGE;
	}
	const char *cmd = argv[first];
	const struct cli_command *cc = cli_command_find(cmd);
	if (!cc)
		return cli_cmd_help.run(&o, -1, argv + first); /* names it, with a "did you mean" */
	/* the global options typed after the command */
	if ((r = take_globals(&o, &argc, argv, first + 1, 0)))
		return r;
	if (o.version) {
		fprintf(stderr, "axl: --version goes before the command (axl --version)\n");
		return EXIT_USAGE;
	}
	if (o.help && cc != &cli_cmd_help) {
		cli_command_help(stdout, cc);
		return 0;
	}
	if (o.sim && cc == &cli_cmd_capture) {
		fprintf(stderr, "axl: a simulated node has nothing to capture (--sim)\n");
		return EXIT_USAGE;
	}
	const char *bad = cli_global_refusal(cc, &o);
	if (bad) {
		fprintf(stderr, "axl %s: %s means nothing to this command (axl help %s)\n", cmd, bad, cmd);
		return EXIT_USAGE;
	}
	if (o.sim && o.sysroot) {
		fprintf(stderr, "axl: --sim and --sysroot exclude each other (a simulated node has no tree to read)\n");
		return EXIT_USAGE;
	}
	int nargs = argc - first - 1;
	char **args = argv + first + 1;
	if (cc->opts) {
		if ((r = cli_opt_parse(cmd, cc->opts, nargs, args)))
			return r;
		nargs = 0;
	}
	return cc->run(&o, nargs, args);
}
