/* SPDX-License-Identifier: MIT */
/* A command's options and arguments as one table, from which the command line is parsed and
 * the usage and help are printed: the shape of libgit2's src/cli/opt.h (cli_opt_spec), one
 * table per cmd_<name>.c. Values go where the table points (the command's own static
 * variables, as libgit2's commands keep them).
 *
 * Quantities are typed: a size, a rate and a duration each take a unit, and a bare number is
 * refused with the fix in the message ("--min-memory 40: a size needs its unit: 40GiB or
 * 40GB"), because "40" reads as gigabytes to one user and bytes to the next. */
#ifndef AXL_CLI_OPT_H
#define AXL_CLI_OPT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum cli_opt_type {
	CLI_OPT_END = 0,  /* ends a table */
	CLI_OPT_FLAG,     /* --name: *(int *)value = 1 */
	CLI_OPT_STRING,   /* --name VALUE: *(const char **)value */
	CLI_OPT_CHOICE,   /* --name VALUE, one of `choices` ("none|single|mixed"): const char * */
	CLI_OPT_COUNT,    /* --name N: *(long *)value, a whole number in [min, max] */
	CLI_OPT_NUMBER,   /* --name X: *(double *)value, a number in [min, max] (a fraction, a price) */
	CLI_OPT_SIZE,     /* --name SIZE: *(int64_t *)value, bytes; a unit required: 40GiB, 80GB,
			   * 512MiB, 4096B (K/M/G/T alone are KiB/MiB/GiB/TiB) */
	CLI_OPT_RATE,     /* --name RATE: *(double *)value, GB/s (10^9 bytes/s); a unit required:
			   * 400Gb/s (bits: 50 GB/s), 50GB/s, 25GiB/s */
	CLI_OPT_DURATION, /* --name DURATION: *(int64_t *)value, milliseconds; a unit required: 500ms,
			   * 60s, 5m, 1h30m, 7d */
	CLI_OPT_LIST,     /* repeatable --name VALUE: appended to (const char **)value, *count values,
			   * at most max */
	CLI_OPT_ARG,      /* a positional argument (name: its placeholder, "ID"): const char * */
	CLI_OPT_ARGS,     /* every remaining positional argument: struct cli_args */
};

/* flags */
#define CLI_OPT_REQUIRED 1u /* an ARG or option that must be given */
#define CLI_OPT_HIDDEN 2u   /* parsed but not shown (an old spelling) */
#define CLI_OPT_REFUSED 4u  /* an old option that is refused: `help` is the message (the fix) */

struct cli_args {
	char **v;
	int n;
};

struct cli_opt {
	enum cli_opt_type type;
	const char *name;       /* the long name without "--" ("min-memory"); ARG/ARGS: the placeholder */
	char alias;             /* the short name ('o'), 0: none */
	void *value;            /* where the value goes (see the types) */
	const char *value_name; /* "SIZE", "ADDR:PORT": in the usage (NULL: from the type) */
	const char *help;       /* what it does; '\n' for more lines */
	unsigned flags;
	double min, max;        /* COUNT, NUMBER, SIZE (bytes), DURATION (ms), LIST (max values); both
				 * 0: no bounds */
	const char *choices;    /* CHOICE: "a|b|c" */
	int *count;             /* LIST: how many values; optional elsewhere: set to 1 when given */
};

/* Parse argv[0..argc) (a command's arguments, the global options already taken out) against
 * specs. Options may stand before, between or after the positional arguments, up to "--";
 * "--name=VALUE" and "--name VALUE" both work, short aliases as "-o VALUE". cmd is the command
 * as the user typed it ("partition create"), for the messages. 0, or EXIT_USAGE (2) after one
 * or two lines on standard error: what was wrong, a "did you mean" when an option is near one
 * that exists (or names the commands that take it), and "axl help CMD". */
int cli_opt_parse(const char *cmd, const struct cli_opt *specs, int argc, char **argv);

/* "usage: axl CMD [--all] [--family F] ... ID", wrapped at 80 columns under the command;
 * first: "usage:", else the spaces of a further usage line (a command's subcommands). */
void cli_opt_usage(FILE *f, int first, const char *cmd, const struct cli_opt *specs);
/* Each shown option and argument with its help, aligned. */
void cli_opt_help(FILE *f, const struct cli_opt *specs);

/* text's words from column col (indent: where each line starts), wrapped at 80 columns;
 * "\n\n" starts a paragraph, a single '\n' is a space. A newline ends it. */
void cli_wrap(FILE *f, const char *text, int col, int indent);

/* The parsers behind the types, for values that come from elsewhere (a file, the
 * environment). Each returns 0, or -1 with a message (no newline, names the value and
 * says the fix) in err. */
int cli_parse_size(const char *s, int64_t *bytes, char *err, size_t cap);
int cli_parse_rate(const char *s, double *gbps, char *err, size_t cap);
int cli_parse_duration(const char *s, int64_t *ms, char *err, size_t cap);

/* The closest of n candidate names to `typed` (Damerau-Levenshtein distance at most 2, or
 * one a prefix of the other), NULL when none is close. */
const char *cli_closest(const char *typed, const char *const *names, size_t n);

#endif
