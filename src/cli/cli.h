/* SPDX-License-Identifier: MIT */
/* What the axl command's files share. The command uses libaxl's public API, and src/util
 * (strbuf, the JSON writer) that it shares with the library: every JSON document the
 * command writes itself goes through util's writer (docs/internals/conventions.md). */
#ifndef AXL_CLI_H
#define AXL_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "axl.h"
#include "../util/json.h"
#include "opt.h"

#define EXIT_USAGE 2

#define MAX_ENV 32

struct opts {
	/* the global options (main.c), which every command that reads a node takes */
	const char *sysroot;
	const char *sim;    /* --sim FILE: a simulated node */
	const char *backends;
	/* --env NAME=VALUE, in the order given */
	const char *env[MAX_ENV];
	int nenv;
	int json;
	int compact;
	int verbose;
	int help;    /* -h, --help: the command's help (or axl's) */
	int version; /* -V, --version */
	/* how the command opens its node, set by the command from its own options (common.c
	 * reads them): every PCI function considered (list --all), the stage times (--timing),
	 * and where the vendor's user-space files are (--driver-root, $AXL_DRIVER_ROOT through
	 * the context) and what that folder is on the host (--driver-root-host,
	 * $AXL_DRIVER_ROOT_HOST; "/" when not given) */
	int all;
	int timing;
	const char *driver_root;
	const char *driver_root_host;
	/* the whole command line (capture writes it into its manifest) */
	int full_argc;
	char **full_argv;
};

/* Every command, as its cmd_<name>.c declares it, with its own options (opt.h):
 *  - run: main.c has parsed the global options (wherever they were typed) and, for a
 *    command with a table (opts), its options and arguments into the table's variables;
 *    argc/argv are then empty. A command with subcommands (subs) gets its arguments and
 *    parses each subcommand's table itself (cli_sub_parse).
 *  - globals: which global options mean something to it (CLI_G_*). */
#define CLI_G_NODE 1u    /* --sysroot, --sim, --backends, --env: the node it reads */
#define CLI_G_JSON 2u    /* --json, --compact */
#define CLI_G_SYSROOT 4u /* --sysroot and --backends only (capture) */
typedef int (*cli_run)(struct opts *o, int argc, char **argv);
struct cli_opt;
struct cli_sub {
	const char *name;           /* "generate" */
	const struct cli_opt *opts; /* its options and arguments */
	const char *summary;        /* one line for axl help */
};
struct cli_command {
	const char *name;
	cli_run run;
	unsigned globals;
	const struct cli_opt *opts; /* the options and arguments (NULL with subs) */
	const struct cli_sub *subs; /* the subcommands ({NULL} ends), NULL: none */
	const char *summary;        /* one line for axl help */
	const char *help;           /* what it does, printed between the usage and the options */
};
/* The commands (cmd_<name>.c) */
extern const struct cli_command cli_cmd_list, cli_cmd_show, cli_cmd_topo, cli_cmd_capture, cli_cmd_metrics,
    cli_cmd_serve, cli_cmd_top, cli_cmd_cdi, cli_cmd_labels, cli_cmd_agent, cli_cmd_device_plugin, cli_cmd_dra_plugin,
    cli_cmd_limit, cli_cmd_partition, cli_cmd_plan, cli_cmd_bench, cli_cmd_version, cli_cmd_help;
const struct cli_command *cli_command_find(const char *name);
/* The subcommand argv[0] of c, its table parsed from argv[1..argc) ("axl cdi generate
 * ..."): the subcommand, or NULL after a message (unknown or missing subcommand, a bad
 * option). */
const struct cli_sub *cli_sub_parse(const struct cli_command *c, int argc, char **argv);
/* "axl capture, axl cdi generate, axl labels": the commands that take --NAME (name
 * without the dashes); "" when none. */
void cli_commands_taking(const char *name, char *out, size_t cap);
/* `axl help NAME`: the command's usage, what it does and its options. */
void cli_command_help(FILE *f, const struct cli_command *c);
/* The first global option given (o) that means nothing to c, or NULL. */
const char *cli_global_refusal(const struct cli_command *c, const struct opts *o);
/* axl's usage text (commands.c) */
void cli_usage(FILE *f);

/* ---- common.c ---------------------------------------------------------------------- */
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
/* A device's string attribute, NULL when unknown. */
/* axl topo's legend (commands.c, with the other help texts) */
extern const char cli_topo_legend_paths[], cli_topo_legend_switch_pairs[],
	cli_topo_legend_switch_unknown[], cli_topo_legend_fabrics[], cli_topo_legend_xelink[], cli_topo_legend_ici[],
	cli_topo_legend_roce[], cli_topo_legend_unknown[];
const char *cli_str(const axl_device *d, axl_attr a);
/* A table cell for a number that may be unknown (negative): "-", never -1. */
const char *cli_cell(int64_t v, char *buf, size_t cap);
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
/* A document util's writer wrote into sb, on standard output (then a newline when
 * newline is set: the compact writer ends without one); sb is freed. 1 (with a message on
 * standard error) when the buffer could not be built. */
int print_doc(struct axl__sb *sb, int newline);
/* "axl: WHAT: <axl_error_last()>" on standard error; returns 1 (the exit code). */
int fail_last(const char *what);
/* A sample's value of device i as text in the metric's display unit ("72%", "41.2 W",
 * "-" when unknown), for tables. */
void metric_text(const axl_sample *smp, size_t i, axl_metric m, char *buf, size_t cap);
/* Bytes as "1.5 GiB" */
void human_bytes(int64_t v, char *buf, size_t cap);


/* ---- output.c: where the writers' output goes -------------------------------------- */
/* -o - / --output -: standard output */
int cli_is_stdout(const char *output);
/* Replace path with buf atomically (a temporary file in its directory, fsync'd, renamed
 * over it: util/file.h). 0, or 1 after a message on standard error. */
int cli_write_file(const char *path, const void *buf, size_t len, unsigned mode);
/* buf on standard output; 0, or 1 after a message */
int cli_write_stdout(const void *buf, size_t len);

/* ---- watch.c: the refresh loop of --watch and axl agent -------------------------- */
struct watch {
	int sigfd;        /* SIGINT, SIGTERM */
	int ino;          /* inotify on the device node directories, -1: none */
	int wd_dev;       /* the watch of DEV itself (subdirectories appear under it) */
	char dev[4096];   /* ROOT/dev */
	double interval;  /* seconds */
	int verbose;
};
/* The refresh loop with the period interval_ms (--interval; 0: the default, 60 s). Blocks
 * SIGINT and SIGTERM (before any thread starts), and watches the device node directories
 * of the node (the live one, or a --sysroot folder; a capture or a simulated node: the
 * period only). 0, or 1 after a message. */
int watch_open(struct watch *w, const struct opts *o, int64_t interval_ms);
/* Wait at most max seconds (< 0: the period) for the next refresh. 1: refresh now (*why
 * says what woke it), 0: a signal asked to stop. */
int watch_wait(struct watch *w, double max, const char **why);
void watch_close(struct watch *w);
/* The monotonic clock, seconds */
double watch_now(void);

/* ---- what axl agent runs: serve (cmd_serve.c), labels, cdi ------------------------- */
struct serve;
/* serve's options (axl serve, axl agent) */
struct serve_opts {
	const char *listen;  /* --listen ADDR:PORT (NULL: 127.0.0.1:9400) */
	int64_t interval_ms; /* --interval: sample at most this often (0: 100 ms) */
	int dcgm;            /* --dcgm */
	int processes;       /* --processes */
};
/* Start serving /metrics, /healthz, /inventory as axl serve does (SIGINT and SIGTERM
 * blocked by the caller). ready: /healthz answers 200 from the start, else 503 until
 * serve_ready. 0, or the exit code after a message. */
int serve_start(const struct opts *o, const struct serve_opts *so, int ready, struct serve **out);
void serve_ready(struct serve *s);
void serve_stop(struct serve *s);

/* labels' options (axl labels, axl agent) */
struct labels_opts {
	const char *cmd;    /* the command, for messages: "labels", "agent" */
	const char *expiry; /* --expiry WHEN */
	const char *prefix; /* --prefix DOMAIN (NULL: axl.dev) */
	int gfd;            /* --gfd */
};
/* axl labels as a file kept current (cmd_labels.c) */
struct labels_job {
	const struct opts *o;
	const struct labels_opts *lo;
	const char *path;    /* the feature file */
	const char *prefix;
	char expiry_at[96];  /* --expiry RFC3339: written as given */
	long long expiry_s;  /* --expiry DURATION: renewed (docs/labels.md) */
	long long expires;   /* the expiry written last (epoch seconds), 0: none yet */
};
/* Check the options; 0, or the exit code after a message. */
int labels_setup(struct labels_job *j, const struct opts *o, const struct labels_opts *lo, const char *path);
/* Rediscover and rewrite the file when its content changed (*wrote says so). 0, or 1
 * after a message. *renew_in: seconds until the expiry must be renewed, < 0 none. */
int labels_refresh(struct labels_job *j, int *wrote, double *renew_in);

/* axl cdi generate as a directory kept current (cmd_cdi.c) */
#define CDI_MAX_FILES 32
struct cdi_job {
	const struct opts *o;
	const char *dir;
	int yaml;
	int quiet;                     /* no "wrote" lines on standard output */
	char *files[CDI_MAX_FILES];    /* the specs this process wrote (removed when their kind goes) */
	size_t nfiles;
};
/* format: json or yaml (NULL: json) */
int cdi_setup(struct cdi_job *j, const struct opts *o, const char *dir, const char *format);
/* --driver-root-host (or $AXL_DRIVER_ROOT_HOST) is an absolute path: 0, or EXIT_USAGE
 * after a message (cdi_setup checks it too). */
int cdi_check_host(const struct opts *o);
/* axl device-plugin: the specs axl cdi generate would write for inv (cdi_val.h trees,
 * at most cap, for the caller to vfree), with each device's CDI device names handed to
 * fn as they are made: its index name ("0", "0:1" for a partition) and, when it has a
 * UUID, that one (by_uuid). quiet: devices left out are not said (a rediscovery). */
struct val;
typedef void (*cdi_named_fn)(void *ud, const axl_device *dev, const char *kind, const char *name, int by_uuid);
size_t cdi_build_specs(const axl_inventory *inv, const axl_context *ctx, const struct opts *o, struct val **specs,
		       size_t cap, cdi_named_fn fn, void *ud, int quiet);
int cdi_refresh(struct cdi_job *j, int *wrote);
/* cdi_refresh from an inventory the caller discovered (and frees): one discovery serving
 * several users (axl dra-plugin's rediscovery) */
int cdi_refresh_inv(struct cdi_job *j, const axl_context *ctx, const axl_inventory *inv, int *wrote);
void cdi_job_free(struct cdi_job *j);

#endif
