/* SPDX-License-Identifier: MIT */
/* What the axl command's files share. The command uses only libaxl's public API. */
#ifndef AXL_CLI_H
#define AXL_CLI_H

#include <stdio.h>

#include "axl.h"

#define EXIT_USAGE 2

#define MAX_ENV 32

struct opts {
	const char *sysroot;
	const char *sim;    /* --sim FILE: a simulated node */
	const char *backends;
	const char *output; /* capture -o */
	/* --env NAME=VALUE, in the order given */
	const char *env[MAX_ENV];
	int nenv;
	int json;
	int all;
	int timing;
	int verbose;
	int compact;
	/* metrics, top, serve */
	int interval_ms;   /* --interval MS (0: not given) */
	long count;        /* --count N (0: not given) */
	int no_processes;  /* --no-processes */
	const char *listen; /* serve --listen ADDR:PORT */
	int dcgm;          /* serve --dcgm */
	int processes;     /* serve --processes */
	int batch;         /* top --batch: plain-text frames, no curses */
	const char *format; /* cdi generate --format json|yaml */
	/* labels */
	const char *expiry; /* --expiry DURATION|RFC3339 */
	const char *prefix; /* --prefix DOMAIN (NULL: axl.dev) */
	int gfd;            /* --gfd: also NVIDIA GPU Feature Discovery's names */
	int help;           /* -h, --help: the command's help (or axl's) */
	int version;        /* -V, --version */
};

/* A command, and which global options mean something to it (help.c). */
#define CLI_G_NODE 1u    /* --sysroot, --sim, --backends, --env: the node it reads */
#define CLI_G_JSON 2u    /* --json, --compact */
#define CLI_G_SYSROOT 4u /* --sysroot and --backends only (capture) */
struct cli_command {
	const char *name;
	unsigned globals;
	const char *help;
};
const struct cli_command *cli_command_find(const char *name);
/* `axl help NAME`: the command's usage, what it does and its options. */
void cli_command_help(FILE *f, const struct cli_command *c);
/* The first global option given (o) that means nothing to c, or NULL. */
const char *cli_global_refusal(const struct cli_command *c, const struct opts *o);

/* Open a context and take an inventory as the options say; 1 (with a message on
 * standard error) when that fails. */
int open_inventory(const struct opts *o, axl_context **ctx, axl_inventory **inv);
/* The same with context flags (AXL_CONTEXT_RECORD) and inventory flags added. */
int open_inventory_ex(const struct opts *o, axl_context **ctx, axl_inventory **inv, unsigned ctx_flags,
		      unsigned inv_flags);
/* The axl.inventory document on standard output; 1 on failure. */
int print_json(const axl_inventory *inv, const struct opts *o);
/* The inventory's warnings on standard error. */
void print_warnings(const axl_inventory *inv);
/* axl topo (topo.c) */
int cmd_topo(const struct opts *o);
/* axl metrics (metrics.c) */
int cmd_metrics(const struct opts *o, const char *arg);
/* axl serve (serve.c) */
int cmd_serve(const struct opts *o);
/* axl cdi generate|list (cdi.c) */
int cmd_cdi(const struct opts *o, const char *sub);
/* axl labels (labels.c) */
int cmd_labels(const struct opts *o);
/* axl top (top.c, top_draw.c) */
int cmd_top(const struct opts *o);
/* axl limit (limit.c): argv[first..] are its subcommand, arguments and options */
int cmd_limit(const struct opts *o, int argc, char **argv, int first);
/* axl partition (partition.c): argv[first..] are its subcommand and arguments */
int cmd_partition(const struct opts *o, int argc, char **argv, int first);
/* axl plan (plan.c): argv[first..] are its model and options */
int cmd_plan(const struct opts *o, int argc, char **argv, int first);
/* A library a command loads only when it runs (dl.c): axl links libaxl and libc alone,
 * serve loads libmicrohttpd and top curses. A function or data object of it: its name and
 * where its address goes in the command's table. */
struct cli_sym {
	const char *name;
	size_t off;
};
/* dlopen $env (when set and not empty) or soname, and resolve every symbol into table.
 * 0, or 1 after a message on standard error naming what `command` needs and the Debian
 * package that has it. The library stays loaded until the process ends. */
int cli_dlopen(const char *command, const char *env, const char *soname, const char *package,
	       const struct cli_sym *syms, size_t n, void *table);
/* "16GiB", "512M", "8GB", "1000" -> bytes; -1 when malformed */
int64_t parse_size(const char *s);
/* s as a JSON string on standard output ("null" for NULL). */
void print_json_str(const char *s);
/* "axl: WHAT: <axl_error_last()>" on standard error; returns 1 (the exit code). */
int fail_last(const char *what);
/* A sample's value of device i as text in the metric's display unit ("72%", "41.2 W",
 * "-" when unknown), for tables. */
void metric_text(const axl_sample *smp, size_t i, axl_metric m, char *buf, size_t cap);
/* Bytes as "1.5 GiB" */
void human_bytes(int64_t v, char *buf, size_t cap);

#endif
