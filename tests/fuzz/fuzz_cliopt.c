/* SPDX-License-Identifier: MIT */
/* The command line's option machinery (src/cli/opt.c) on arbitrary words: the input is
 * split at NUL and newline bytes into argv and parsed against a table holding every type
 * (a flag, a string, a choice, a count, a number, a size, a rate, a duration, a list, an
 * argument and the rest); the whole input also goes to the three quantity parsers and to
 * the "did you mean". Every call returns 0 or the usage status, a value taken is within
 * its option's bounds, a refusal says why, and nothing crashes or reads past a word. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* opt.c names the commands that take an unknown option; no command table here */
void cli_commands_taking(const char *name, char *out, size_t cap)
{
	(void)name;
	if (cap)
		out[0] = '\0';
}

static struct {
	int flag, has_size, has_count, nlist;
	const char *str, *choice, *arg, *list[4];
	long count;
	double num, rate;
	int64_t size, dur;
	struct cli_args rest;
} v;

static const struct cli_opt table[] = {
	{.type = CLI_OPT_FLAG, .name = "all", .alias = 'a', .value = &v.flag, .help = "a flag"},
	{.type = CLI_OPT_STRING, .name = "output", .alias = 'o', .value = &v.str, .help = "a string"},
	{.type = CLI_OPT_CHOICE, .name = "format", .value = &v.choice, .help = "a choice", .choices = "json|yaml"},
	{.type = CLI_OPT_COUNT, .name = "count", .value = &v.count, .help = "a count", .min = 1, .max = 1000,
	 .count = &v.has_count},
	{.type = CLI_OPT_NUMBER, .name = "fraction", .value = &v.num, .help = "a number", .min = 0.01, .max = 1},
	{.type = CLI_OPT_SIZE, .name = "min-memory", .value = &v.size, .help = "a size", .count = &v.has_size},
	{.type = CLI_OPT_RATE, .name = "network", .value = &v.rate, .help = "a rate"},
	{.type = CLI_OPT_DURATION, .name = "interval", .value = &v.dur, .help = "a duration", .min = 1,
	 .max = 86400000},
	{.type = CLI_OPT_LIST, .name = "node", .value = v.list, .help = "a list", .max = 4, .count = &v.nlist},
	{.type = CLI_OPT_STRING, .name = "network-gbps", .help = "is gone", .flags = CLI_OPT_REFUSED},
	{.type = CLI_OPT_ARG, .name = "ID", .value = &v.arg, .help = "an argument"},
	{.type = CLI_OPT_ARGS, .name = "MORE", .value = &v.rest, .help = "the rest"},
	{0},
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 4096)
		return 0;
	/* the words, each its own allocation so that a read past one is caught */
	char *words[65];
	int argc = 0;
	size_t start = 0;
	for (size_t i = 0; i <= size && argc < 64; i++) {
		if (i < size && data[i] != 0 && data[i] != '\n')
			continue;
		char *w = malloc(i - start + 1);
		if (!w)
			abort();
		memcpy(w, data + start, i - start);
		w[i - start] = '\0';
		words[argc++] = w;
		start = i + 1;
	}
	words[argc] = NULL;
	char *argv[65];
	memcpy(argv, words, sizeof argv);
	memset(&v, 0, sizeof v);
	FILE *devnull = fopen("/dev/null", "w");
	if (!devnull)
		abort();
	FILE *saved = stderr;
	stderr = devnull; /* the messages; their content is checked by tests/cli */
	int rc = cli_opt_parse("fuzz", table, argc, argv);
	stderr = saved;
	if (rc != 0 && rc != EXIT_USAGE)
		abort();
	if (rc == 0) { /* what was taken is within its option's bounds */
		if ((v.has_count && (v.count < 1 || v.count > 1000)) || (v.num != 0 && (v.num < 0.01 || v.num > 1)) ||
		    (v.dur != 0 && (v.dur < 1 || v.dur > 86400000)) || (v.has_size && v.size < 0) || v.nlist > 4 ||
		    v.rate < 0)
			abort();
	}
	cli_opt_usage(devnull, 1, "fuzz", table);
	cli_opt_help(devnull, table);
	fclose(devnull);
	/* the parsers on the first word, as a value from elsewhere would come */
	char err[256];
	int64_t b, ms;
	double r;
	err[0] = '\0';
	if (argc && cli_parse_size(words[0], &b, err, sizeof err) != 0 && !err[0])
		abort();
	if (argc && cli_parse_size(words[0], &b, err, sizeof err) == 0 && b < 0)
		abort();
	err[0] = '\0';
	if (argc && cli_parse_rate(words[0], &r, err, sizeof err) != 0 && !err[0])
		abort();
	err[0] = '\0';
	if (argc && cli_parse_duration(words[0], &ms, err, sizeof err) != 0 && !err[0])
		abort();
	if (argc && cli_parse_duration(words[0], &ms, err, sizeof err) == 0 && ms < 0)
		abort();
	static const char *const names[] = {"all", "output", "format", "count", "min-memory", "interval"};
	if (argc)
		(void)cli_closest(words[0], names, sizeof names / sizeof *names);
	for (int i = 0; i < argc; i++)
		free(words[i]);
	return 0;
}
