/* SPDX-License-Identifier: MIT */
/* axl agent: what a node of a fleet runs (deploy/, docs/deploy.md), in one process: it
 * serves /metrics, /healthz and /inventory as axl serve does, and keeps the Node Feature
 * Discovery feature file (--labels-file) and the CDI specs (--cdi-dir) current as
 * axl labels --watch and axl cdi generate --watch do: rediscovered every --interval
 * seconds and when a device node appears or goes (watch.c), rewritten only when their
 * content changed. /healthz answers 503 until both were written once, then 200. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* The options (the table closes the file) */
static struct serve_opts so;
static struct labels_opts lo = {.cmd = "agent"};
static struct {
	const char *labels_file, *cdi_dir, *cdi_format, *driver_root, *driver_root_host;
	int64_t interval_ms;
} a;

static int cmd_agent(struct opts *o, int argc, char **argv)
{
	(void)argc, (void)argv;
	o->driver_root = a.driver_root;
	o->driver_root_host = a.driver_root_host;
	if (!a.labels_file && !a.cdi_dir) {
		fprintf(stderr, "axl agent: keeps files current: give --labels-file PATH, --cdi-dir DIR or both "
				"(axl serve only serves)\n");
		return EXIT_USAGE;
	}
	if (a.labels_file && cli_is_stdout(a.labels_file)) {
		fprintf(stderr, "axl agent: --labels-file takes a file, not standard output\n");
		return EXIT_USAGE;
	}
	if (a.cdi_dir && cli_is_stdout(a.cdi_dir)) {
		fprintf(stderr, "axl agent: --cdi-dir takes a directory, not standard output\n");
		return EXIT_USAGE;
	}
	struct labels_job lj;
	struct cdi_job cj;
	int rc = 0;
	if (a.labels_file && (rc = labels_setup(&lj, o, &lo, a.labels_file)))
		return rc;
	if (a.cdi_dir && (rc = cdi_setup(&cj, o, a.cdi_dir, a.cdi_format)))
		return rc;
	cj.quiet = 1;
	struct watch w;
	if (watch_open(&w, o, a.interval_ms)) /* blocks SIGINT and SIGTERM before the server's threads start */
		return 1;
	struct serve *sv;
	rc = serve_start(o, &so, 0, &sv);
	if (rc) {
		watch_close(&w);
		if (a.cdi_dir)
			cdi_job_free(&cj);
		return rc;
	}
	fprintf(stderr, "axl: agent: keeping%s%s%s%s current, every %.0f s and when device nodes change\n",
		a.labels_file ? " " : "", a.labels_file ? a.labels_file : "", a.cdi_dir ? " and the CDI specs in " : "",
		a.cdi_dir ? a.cdi_dir : "", w.interval);
	const char *why = "start";
	int ready = 0, labels_ok = !a.labels_file, cdi_ok = !a.cdi_dir;
	do {
		double renew = -1;
		int wrote_l = 0, wrote_c = 0, rl = 0, rcd = 0;
		if (a.labels_file) {
			rl = labels_refresh(&lj, &wrote_l, &renew);
			labels_ok |= !rl;
		}
		if (a.cdi_dir) {
			rcd = cdi_refresh(&cj, &wrote_c);
			cdi_ok |= !rcd;
		}
		if (!ready && labels_ok && cdi_ok) {
			serve_ready(sv);
			ready = 1;
		}
		if (o->verbose)
			fprintf(stderr, "axl: agent (%s): labels %s, CDI specs %s\n", why,
				!a.labels_file ? "-" : rl ? "failed" : wrote_l ? "rewritten" : "unchanged",
				!a.cdi_dir ? "-" : rcd ? "failed" : wrote_c ? "rewritten" : "unchanged");
		if (!watch_wait(&w, renew, &why))
			break;
	} while (1);
	serve_stop(sv);
	watch_close(&w);
	if (a.cdi_dir)
		cdi_job_free(&cj);
	return ready ? 0 : 1;
}

static const struct cli_opt options[] = {
	{.type = CLI_OPT_STRING, .name = "listen", .value = &so.listen, .value_name = "ADDR:PORT",
	 .help = "127.0.0.1:9400 by default; 0.0.0.0:9400, [::1]:9400"},
	{.type = CLI_OPT_STRING, .name = "labels-file", .value = &a.labels_file, .value_name = "PATH",
	 .help = "the feature file to keep current (as axl labels -o PATH)"},
	{.type = CLI_OPT_STRING, .name = "cdi-dir", .value = &a.cdi_dir, .value_name = "DIR",
	 .help = "the directory of CDI specs to keep current (as axl cdi generate\n-o DIR)"},
	{.type = CLI_OPT_CHOICE, .name = "cdi-format", .value = &a.cdi_format, .help = "json (default) or yaml",
	 .choices = "json|yaml"},
	{.type = CLI_OPT_DURATION, .name = "interval", .value = &a.interval_ms,
	 .help = "rediscover this often (default 60s), and when a device node\nappears or goes", .min = 1,
	 .max = 86400000},
	{.type = CLI_OPT_FLAG, .name = "dcgm", .value = &so.dcgm, .help = "also dcgm-exporter's DCGM_FI_* names"},
	{.type = CLI_OPT_FLAG, .name = "processes", .value = &so.processes, .help = "also per-process series"},
	{.type = CLI_OPT_STRING, .name = "expiry", .value = &lo.expiry, .value_name = "WHEN",
	 .help = "(labels) a duration, renewed when half of it has passed, or an\nRFC 3339 time"},
	{.type = CLI_OPT_STRING, .name = "prefix", .value = &lo.prefix, .value_name = "DOMAIN",
	 .help = "(labels) the labels' prefix (default axl.dev)"},
	{.type = CLI_OPT_FLAG, .name = "gfd", .value = &lo.gfd,
	 .help = "(labels) also the nvidia.com/* names of GPU Feature Discovery"},
	{.type = CLI_OPT_STRING, .name = "driver-root", .value = &a.driver_root, .value_name = "DIR",
	 .help = "where the vendor's user-space files are looked for (the host's\n"
		 "root mounted at /host in a container; default / or $AXL_DRIVER_ROOT)"},
	{.type = CLI_OPT_STRING, .name = "driver-root-host", .value = &a.driver_root_host, .value_name = "PATH",
	 .help = "what DIR is on the host (default /; $AXL_DRIVER_ROOT_HOST)"},
	{0},
};

const struct cli_command cli_cmd_agent = {
	"agent", cmd_agent, CLI_G_NODE, options, NULL,
	"serve metrics, keep the labels and CDI specs current",
	"What a node of a fleet runs (docs/deploy.md), in one process: serve /metrics,\n"
	"/healthz and /inventory as axl serve does, and keep the Node Feature Discovery\n"
	"feature file and the CDI specs current as axl labels --watch and axl cdi generate\n"
	"--watch do. /healthz answers 503 until both were written once, then 200.\n"
	"SIGTERM or SIGINT ends it (docs/metrics.md).",
};
