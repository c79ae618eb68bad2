/* SPDX-License-Identifier: MIT */
/* A command's options as one table: parsing, usage and help (opt.h). */
#define _GNU_SOURCE
#include "opt.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"

/* ---- quantities -------------------------------------------------------------------- */

/* The number at the start of s (digits, one '.'), its end in *end; -1 when there is none. */
static int leading_number(const char *s, long double *v, const char **end)
{
	const char *p = s;
	int digits = 0, dot = 0;
	while (isdigit((unsigned char)*p) || (*p == '.' && !dot)) {
		if (*p == '.')
			dot = 1;
		else
			digits++;
		p++;
	}
	if (!digits)
		return -1;
	char buf[64];
	if ((size_t)(p - s) >= sizeof buf)
		return -1;
	memcpy(buf, s, (size_t)(p - s));
	buf[p - s] = '\0';
	*v = strtold(buf, NULL);
	*end = p;
	return 0;
}

int cli_parse_size(const char *s, int64_t *bytes, char *err, size_t cap)
{
	static const struct {
		const char *unit;
		long double mult;
	} units[] = {
		{"B", 1},           {"K", 1024.0L},         {"KiB", 1024.0L},        {"KB", 1e3L},
		{"M", 1048576.0L},  {"MiB", 1048576.0L},    {"MB", 1e6L},            {"G", 1073741824.0L},
		{"GiB", 1073741824.0L}, {"GB", 1e9L},       {"T", 1099511627776.0L}, {"TiB", 1099511627776.0L},
		{"TB", 1e12L},
	};
	long double v;
	const char *end;
	if (!s || leading_number(s, &v, &end) != 0) {
		snprintf(err, cap, "'%s' is not a size (say 40GiB, 80GB, 512MiB or 4096B)", s ? s : "");
		return -1;
	}
	if (!*end && v == 0) {
		*bytes = 0; /* nothing is nothing in any unit */
		return 0;
	}
	if (!*end) {
		snprintf(err, cap, "%s: a size needs its unit: %sGiB (2^30 bytes), %sGB (10^9 bytes) or %sB (bytes)", s,
			 s, s, s);
		return -1;
	}
	const char *u = end;
	while (*u == ' ')
		u++;
	for (size_t i = 0; i < sizeof units / sizeof *units; i++) {
		if (strcasecmp(u, units[i].unit) != 0)
			continue;
		long double b = floorl(v * units[i].mult);
		if (!(b >= 0) || b > 9.2e18L) {
			snprintf(err, cap, "%s: too large a size", s);
			return -1;
		}
		*bytes = (int64_t)b;
		return 0;
	}
	snprintf(err, cap, "%s: '%s' is not a unit of size (B; KiB, MiB, GiB, TiB, or K, M, G, T: powers of 1024; KB, "
		 "MB, GB, TB: powers of 1000)", s, u);
	return -1;
}

int cli_parse_rate(const char *s, double *gbps, char *err, size_t cap)
{
	/* bytes or bits per second, case-sensitive on the b: "Gb/s" is bits, "GB/s" bytes */
	static const struct {
		const char *unit;
		double to_gbps; /* GB/s per unit */
	} units[] = {
		{"GB/s", 1.0},        {"GiB/s", 1.073741824},   {"MB/s", 1e-3},    {"MiB/s", 1048576e-9},
		{"TB/s", 1e3},        {"TiB/s", 1099.511627776}, {"Gb/s", 0.125},  {"Gbit/s", 0.125},
		{"Gbps", 0.125},      {"Mb/s", 0.000125},       {"Mbit/s", 0.000125}, {"Tb/s", 125.0},
		{"Tbit/s", 125.0},    {"GBps", 1.0},
	};
	long double v;
	const char *end;
	if (!s || leading_number(s, &v, &end) != 0) {
		snprintf(err, cap, "'%s' is not a rate (say 400Gb/s for a 400G NIC, or 50GB/s)", s ? s : "");
		return -1;
	}
	if (!*end) {
		snprintf(err, cap,
			 "%s: a rate needs its unit: %sGb/s (gigabits, as NICs are sold: 400Gb/s is 50GB/s) or %sGB/s "
			 "(gigabytes)",
			 s, s, s);
		return -1;
	}
	const char *u = end;
	while (*u == ' ')
		u++;
	for (size_t i = 0; i < sizeof units / sizeof *units; i++)
		if (strcmp(u, units[i].unit) == 0) {
			*gbps = (double)v * units[i].to_gbps;
			return 0;
		}
	snprintf(err, cap, "%s: '%s' is not a unit of rate (Gb/s and Mb/s are bits, GB/s, MB/s and GiB/s bytes)", s,
		 u);
	return -1;
}

int cli_parse_duration(const char *s, int64_t *ms, char *err, size_t cap)
{
	/* one or more NUMBER UNIT pairs: "500ms", "60s", "1h30m", "1.5s" */
	static const struct {
		const char *unit;
		long double ms;
	} units[] = {{"ms", 1}, {"s", 1e3L}, {"m", 6e4L}, {"h", 3.6e6L}, {"d", 8.64e7L}};
	long double total = 0;
	const char *p = s;
	if (!s || !*s) {
		snprintf(err, cap, "an empty duration (say 500ms, 60s, 5m or 1h30m)");
		return -1;
	}
	while (*p) {
		long double v;
		const char *end;
		if (leading_number(p, &v, &end) != 0) {
			snprintf(err, cap, "'%s' is not a duration (say 500ms, 60s, 5m or 1h30m)", s);
			return -1;
		}
		if (!*end && p == s && v == 0) {
			*ms = 0;
			return 0;
		}
		if (!*end && p == s) {
			snprintf(err, cap, "%s: a duration needs its unit: %sms, %ss or %sm", s, s, s, s);
			return -1;
		}
		if (!*end) { /* "1h30": the last number has none */
			snprintf(err, cap, "%s: %s needs its unit too (%sm, %ss)", s, p, s, s);
			return -1;
		}
		size_t k = 0, best = 0;
		int found = -1;
		for (size_t i = 0; i < sizeof units / sizeof *units; i++) {
			k = strlen(units[i].unit);
			if (strncmp(end, units[i].unit, k) == 0 && !isalpha((unsigned char)end[k]) && k > best) {
				best = k;
				found = (int)i;
			}
		}
		if (found < 0) {
			snprintf(err, cap, "%s: '%s' is not a unit of time (ms, s, m, h, d)", s, end);
			return -1;
		}
		total += v * units[found].ms;
		p = end + best;
	}
	if (total > 9.2e15L) {
		snprintf(err, cap, "%s: too long a duration", s);
		return -1;
	}
	*ms = (int64_t)llroundl(total);
	return 0;
}

/* ---- did you mean ------------------------------------------------------------------ */

/* Damerau-Levenshtein (optimal string alignment) distance, capped at 9 */
static int distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 40 || lb > 40)
		return 9;
	int d[41][41];
	for (size_t i = 0; i <= la; i++)
		d[i][0] = (int)i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = (int)j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			int cost = a[i - 1] != b[j - 1];
			int v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (d[i - 1][j - 1] + cost < v)
				v = d[i - 1][j - 1] + cost;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	return d[la][lb] > 9 ? 9 : d[la][lb];
}

const char *cli_closest(const char *typed, const char *const *names, size_t n)
{
	const char *best = NULL;
	int bd = 3;
	size_t tl = strlen(typed);
	for (size_t i = 0; i < n; i++) {
		if (!names[i])
			continue;
		size_t nl = strlen(names[i]);
		int dd = distance(typed, names[i]);
		/* a prefix of at least 3 letters ("--inter" for --interval) */
		if (tl >= 3 && nl > tl && strncmp(typed, names[i], tl) == 0)
			dd = dd < 1 ? dd : 1;
		if (dd < bd || (dd == bd && best && nl < strlen(best))) {
			bd = dd;
			best = names[i];
		}
	}
	/* a short word two edits away is another word, not a typo */
	if (best && bd == 2 && tl < 5)
		return NULL;
	return best;
}

/* ---- parsing ----------------------------------------------------------------------- */

static const char *type_value_name(const struct cli_opt *s)
{
	if (s->value_name)
		return s->value_name;
	switch (s->type) {
	case CLI_OPT_CHOICE: return s->choices && strlen(s->choices) < 24 ? s->choices : "VALUE";
	case CLI_OPT_COUNT: return "N";
	case CLI_OPT_NUMBER: return "X";
	case CLI_OPT_SIZE: return "SIZE";
	case CLI_OPT_RATE: return "RATE";
	case CLI_OPT_DURATION: return "DURATION";
	default: return "VALUE";
	}
}

static int takes_value(const struct cli_opt *s)
{
	return s->type != CLI_OPT_FLAG && s->type != CLI_OPT_ARG && s->type != CLI_OPT_ARGS;
}

static int is_option(const struct cli_opt *s)
{
	return s->type != CLI_OPT_ARG && s->type != CLI_OPT_ARGS;
}

/* One line: what was wrong, then where the command's usage is */
static int usage_error(const char *cmd, const char *fmt, const char *a, const char *b)
{
	fprintf(stderr, "axl %s: ", cmd);
	fprintf(stderr, fmt, a, b);
	const char *sp = strchr(cmd, ' ');
	fprintf(stderr, " (axl help %.*s)\n", sp ? (int)(sp - cmd) : (int)strlen(cmd), cmd);
	return EXIT_USAGE;
}

/* A bound as the user would type it: 1d, 100ms, 1TiB, 65535 */
static void bound_text(const struct cli_opt *s, double v, char *out, size_t cap)
{
	static const struct {
		const char *unit;
		double size;
	} ms[] = {{"d", 8.64e7}, {"h", 3.6e6}, {"m", 6e4}, {"s", 1e3}, {"ms", 1}},
	  bytes[] = {{"TiB", 1099511627776.0}, {"GiB", 1073741824.0}, {"MiB", 1048576.0}, {"KiB", 1024.0}, {"B", 1}};
	const __typeof__(ms[0]) *u = s->type == CLI_OPT_DURATION ? ms : s->type == CLI_OPT_SIZE ? bytes : NULL;
	for (int i = 0; u && i < 5; i++)
		if (v >= u[i].size && fmod(v, u[i].size) == 0) {
			snprintf(out, cap, "%.0f%s", v / u[i].size, u[i].unit);
			return;
		}
	if (s->type == CLI_OPT_RATE)
		snprintf(out, cap, "%gGB/s", v);
	else if (u || s->type == CLI_OPT_COUNT)
		snprintf(out, cap, "%.0f", v);
	else
		snprintf(out, cap, "%g", v);
}

static int out_of_range(const char *cmd, const struct cli_opt *s, const char *v)
{
	char lo[32], hi[32];
	bound_text(s, s->min, lo, sizeof lo);
	bound_text(s, s->max, hi, sizeof hi);
	if (s->max >= 1e15) /* no upper bound a user would meet */
		fprintf(stderr, "axl %s: --%s %s: must be at least %s\n", cmd, s->name, v, lo);
	else
		fprintf(stderr, "axl %s: --%s %s: out of range (%s to %s)\n", cmd, s->name, v, lo, hi);
	return EXIT_USAGE;
}

static int bounded(const struct cli_opt *s)
{
	return s->min != 0 || s->max != 0;
}

/* Store v (the value of option s, as typed) where s points. 0 or EXIT_USAGE. */
static int set_value(const char *cmd, const struct cli_opt *s, const char *v)
{
	char err[256];
	switch (s->type) {
	case CLI_OPT_FLAG:
		*(int *)s->value = 1;
		break;
	case CLI_OPT_STRING: /* may be empty: --prefix '' */
		*(const char **)s->value = v;
		break;
	case CLI_OPT_CHOICE: {
		size_t n = strlen(v);
		const char *c = s->choices;
		int ok = 0;
		while (c && *c) {
			const char *e = strchr(c, '|');
			size_t k = e ? (size_t)(e - c) : strlen(c);
			if (k == n && strncmp(c, v, n) == 0)
				ok = 1;
			c = e ? e + 1 : c + k;
		}
		if (!ok) {
			fprintf(stderr, "axl %s: --%s takes one of %s, not '%s'\n", cmd, s->name, s->choices, v);
			return EXIT_USAGE;
		}
		*(const char **)s->value = v;
		break;
	}
	case CLI_OPT_COUNT: {
		char *end;
		errno = 0;
		long long n = strtoll(v, &end, 10);
		if (end == v || *end || errno) {
			fprintf(stderr, "axl %s: --%s takes a whole number, not '%s'\n", cmd, s->name, v);
			return EXIT_USAGE;
		}
		if (bounded(s) && (n < s->min || n > s->max))
			return out_of_range(cmd, s, v);
		*(long *)s->value = (long)n;
		break;
	}
	case CLI_OPT_NUMBER: {
		char *end;
		double n = strtod(v, &end);
		if (end == v || *end || !isfinite(n)) {
			fprintf(stderr, "axl %s: --%s takes a number, not '%s'\n", cmd, s->name, v);
			return EXIT_USAGE;
		}
		if (bounded(s) && (n < s->min || n > s->max))
			return out_of_range(cmd, s, v);
		*(double *)s->value = n;
		break;
	}
	case CLI_OPT_SIZE: {
		int64_t b;
		if (cli_parse_size(v, &b, err, sizeof err) != 0) {
			fprintf(stderr, "axl %s: --%s %s\n", cmd, s->name, err);
			return EXIT_USAGE;
		}
		if (bounded(s) && ((double)b < s->min || (double)b > s->max))
			return out_of_range(cmd, s, v);
		*(int64_t *)s->value = b;
		break;
	}
	case CLI_OPT_RATE: {
		double r;
		if (cli_parse_rate(v, &r, err, sizeof err) != 0) {
			fprintf(stderr, "axl %s: --%s %s\n", cmd, s->name, err);
			return EXIT_USAGE;
		}
		if (bounded(s) && (r < s->min || r > s->max))
			return out_of_range(cmd, s, v);
		*(double *)s->value = r;
		break;
	}
	case CLI_OPT_DURATION: {
		int64_t ms;
		if (cli_parse_duration(v, &ms, err, sizeof err) != 0) {
			fprintf(stderr, "axl %s: --%s %s\n", cmd, s->name, err);
			return EXIT_USAGE;
		}
		if (bounded(s) && ((double)ms < s->min || (double)ms > s->max))
			return out_of_range(cmd, s, v);
		*(int64_t *)s->value = ms;
		break;
	}
	case CLI_OPT_LIST: {
		int *n = s->count;
		if (bounded(s) && *n >= (int)s->max) {
			fprintf(stderr, "axl %s: at most %g --%s options\n", cmd, s->max, s->name);
			return EXIT_USAGE;
		}
		((const char **)s->value)[(*n)++] = v;
		return 0;
	}
	default:
		return EXIT_USAGE;
	}
	if (s->count)
		*s->count = 1;
	return 0;
}

/* The long names of the table, for "did you mean" */
static size_t long_names(const struct cli_opt *specs, const char **out, size_t cap)
{
	size_t n = 0;
	for (const struct cli_opt *s = specs; s->type != CLI_OPT_END && n < cap; s++)
		if (is_option(s) && !(s->flags & CLI_OPT_REFUSED))
			out[n++] = s->name;
	return n;
}

static int unknown_option(const char *cmd, const struct cli_opt *specs, const char *typed)
{
	const char *names[128];
	size_t n = long_names(specs, names, 128);
	const char *bare = typed;
	while (*bare == '-')
		bare++;
	char name[64];
	snprintf(name, sizeof name, "%.*s", (int)strcspn(bare, "="), bare);
	const char *near = cli_closest(name, names, n);
	char others[256];
	cli_commands_taking(name, others, sizeof others);
	if (near) {
		char fix[96];
		snprintf(fix, sizeof fix, "--%s", near);
		return usage_error(cmd, "unknown option '%s'; did you mean %s?", typed, fix);
	}
	if (others[0])
		return usage_error(cmd, "'%s' is not an option of this command, but of %s", typed, others);
	return usage_error(cmd, "unknown option '%s'%s", typed, "");
}

int cli_opt_parse(const char *cmd, const struct cli_opt *specs, int argc, char **argv)
{
	const struct cli_opt *next_arg = specs;
	int dashdash = 0;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (!dashdash && strcmp(a, "--") == 0) {
			dashdash = 1;
			continue;
		}
		if (!dashdash && a[0] == '-' && a[1]) {
			const struct cli_opt *s = NULL;
			const char *val = NULL;
			if (a[1] == '-') {
				const char *eq = strchr(a, '=');
				size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
				for (const struct cli_opt *t = specs; t->type != CLI_OPT_END; t++)
					if (is_option(t) && strlen(t->name) == len && strncmp(t->name, a + 2, len) == 0)
						s = t;
				if (s && eq)
					val = eq + 1;
			} else if (!a[2]) {
				for (const struct cli_opt *t = specs; t->type != CLI_OPT_END; t++)
					if (is_option(t) && t->alias == a[1])
						s = t;
			} else {
				/* -name, as Go's flag package takes a long option (the spellings
				 * of other plugins a command accepts, written in its table) */
				const char *eq = strchr(a, '=');
				size_t len = eq ? (size_t)(eq - a - 1) : strlen(a + 1);
				for (const struct cli_opt *t = specs; t->type != CLI_OPT_END; t++)
					if (is_option(t) && strlen(t->name) == len && strncmp(t->name, a + 1, len) == 0)
						s = t;
				if (s && eq)
					val = eq + 1;
			}
			if (!s)
				return unknown_option(cmd, specs, a);
			if (s->flags & CLI_OPT_REFUSED) {
				fprintf(stderr, "axl %s: --%s %s\n", cmd, s->name, s->help);
				return EXIT_USAGE;
			}
			if (takes_value(s) && !val) {
				if (i + 1 >= argc) {
					fprintf(stderr, "axl %s: --%s needs a value (%s)\n", cmd, s->name,
						type_value_name(s));
					return EXIT_USAGE;
				}
				val = argv[++i];
			} else if (!takes_value(s) && val) {
				fprintf(stderr, "axl %s: --%s takes no value ('%s')\n", cmd, s->name, a);
				return EXIT_USAGE;
			}
			int r = set_value(cmd, s, val ? val : "");
			if (r)
				return r;
			continue;
		}
		/* a positional argument: the next ARG of the table, or ARGS */
		while (next_arg->type != CLI_OPT_END && next_arg->type != CLI_OPT_ARG && next_arg->type != CLI_OPT_ARGS)
			next_arg++;
		if (next_arg->type == CLI_OPT_END)
			return usage_error(cmd, "unexpected argument '%s'%s", a, "");
		if (next_arg->type == CLI_OPT_ARG) {
			*(const char **)next_arg->value = a;
			if (next_arg->count)
				*next_arg->count = 1;
			next_arg++;
		} else {
			struct cli_args *args = next_arg->value;
			if (!args->v)
				args->v = argv + i;
			/* gathered in place: argv[i] moves down to stand after the others */
			args->v[args->n++] = argv[i];
		}
	}
	for (const struct cli_opt *s = specs; s->type != CLI_OPT_END; s++) {
		if (!(s->flags & CLI_OPT_REQUIRED))
			continue;
		int missing = 0;
		if (s->type == CLI_OPT_ARG || s->type == CLI_OPT_STRING || s->type == CLI_OPT_CHOICE)
			missing = *(const char **)s->value == NULL;
		else if (s->type == CLI_OPT_ARGS)
			missing = ((struct cli_args *)s->value)->n == 0;
		else if (s->count)
			missing = *s->count == 0;
		if (missing) {
			char what[80];
			if (is_option(s))
				snprintf(what, sizeof what, "--%s %s", s->name, type_value_name(s));
			else
				snprintf(what, sizeof what, "%s", s->name);
			return usage_error(cmd, "%s is missing%s", what, "");
		}
	}
	return 0;
}

/* ---- usage and help ---------------------------------------------------------------- */

void cli_opt_usage(FILE *f, int first, const char *cmd, const struct cli_opt *specs)
{
	char head[96];
	int col = snprintf(head, sizeof head, "%s axl %s", first ? "usage:" : "      ", cmd);
	fputs(head, f);
	int indent = col + 1 > 40 ? 8 : col + 1;
	for (const struct cli_opt *s = specs; s->type != CLI_OPT_END; s++) {
		if (s->flags & (CLI_OPT_HIDDEN | CLI_OPT_REFUSED))
			continue;
		char item[128];
		int req = (s->flags & CLI_OPT_REQUIRED) != 0;
		if (s->type == CLI_OPT_ARG)
			snprintf(item, sizeof item, req ? "%s" : "[%s]", s->name);
		else if (s->type == CLI_OPT_ARGS)
			snprintf(item, sizeof item, req ? "%s..." : "[%s...]", s->name);
		else if (s->type == CLI_OPT_FLAG)
			snprintf(item, sizeof item, "[--%s]", s->name);
		else
			snprintf(item, sizeof item, req ? "--%s %s%s" : "[--%s %s]%s", s->name, type_value_name(s),
				 s->type == CLI_OPT_LIST ? "..." : "");
		int len = (int)strlen(item);
		if (col + 1 + len > 79) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
		} else {
			fputc(' ', f);
			col++;
		}
		fputs(item, f);
		col += len;
	}
	fputc('\n', f);
}

void cli_wrap(FILE *f, const char *text, int col, int indent)
{
	const char *p = text;
	int line_start = 1;
	while (*p) {
		if (*p == '\n' && p[1] == '\n') { /* a new paragraph */
			fputs("\n\n", f);
			p += 2;
			col = 0;
			line_start = 1;
			continue;
		}
		if (*p == ' ' || *p == '\n') {
			p++;
			continue;
		}
		int k = (int)strcspn(p, " \n");
		int start = col < indent ? indent : col;
		if (!line_start && start + 1 + k > 80) {
			fputc('\n', f);
			col = 0;
			line_start = 1;
			start = indent;
		}
		if (col < indent) {
			fprintf(f, "%*s", indent - col, "");
			col = indent;
		} else if (!line_start) {
			fputc(' ', f);
			col++;
		}
		fwrite(p, 1, (size_t)k, f);
		col += k;
		p += k;
		line_start = 0;
	}
	fputc('\n', f);
}

void cli_opt_help(FILE *f, const struct cli_opt *specs)
{
	for (const struct cli_opt *s = specs; s->type != CLI_OPT_END; s++) {
		if (s->flags & (CLI_OPT_HIDDEN | CLI_OPT_REFUSED) || !s->help)
			continue;
		char left[96];
		if (!is_option(s))
			snprintf(left, sizeof left, "  %s", s->name);
		else if (s->alias && takes_value(s))
			snprintf(left, sizeof left, "  -%c, --%s %s", s->alias, s->name, type_value_name(s));
		else if (s->alias)
			snprintf(left, sizeof left, "  -%c, --%s", s->alias, s->name);
		else if (takes_value(s))
			snprintf(left, sizeof left, "  --%s %s", s->name, type_value_name(s));
		else
			snprintf(left, sizeof left, "  --%s", s->name);
		fputs(left, f);
		int col = (int)strlen(left);
		const char *h = s->help;
		/* the help from column 18, as the global options' help is printed, its words
		 * wrapped at 80 columns */
		if (col > 16) {
			fputc('\n', f);
			col = 0;
		}
		cli_wrap(f, h, col, 18);
	}
}
