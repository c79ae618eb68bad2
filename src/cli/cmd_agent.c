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

int cmd_agent(struct opts *o, int argc, char **argv)
{
	if (argc) {
		fprintf(stderr, "axl: agent takes no argument ('%s')\n", argv[0]);
		return EXIT_USAGE;
	}
	o->agent = 1; /* --interval: seconds between refreshes, not serve's sampling period */
	if (!o->labels_file && !o->cdi_dir) {
		fprintf(stderr, "axl: agent keeps files current: give --labels-file PATH, --cdi-dir DIR or both "
				"(axl serve only serves)\n");
		return EXIT_USAGE;
	}
	if (o->labels_file && cli_is_stdout(o->labels_file)) {
		fprintf(stderr, "axl: agent: --labels-file takes a file, not standard output\n");
		return EXIT_USAGE;
	}
	if (o->cdi_dir && cli_is_stdout(o->cdi_dir)) {
		fprintf(stderr, "axl: agent: --cdi-dir takes a directory, not standard output\n");
		return EXIT_USAGE;
	}
	struct labels_job lj;
	struct cdi_job cj;
	int rc = 0;
	if (o->labels_file && (rc = labels_setup(&lj, o, o->labels_file)))
		return rc;
	if (o->cdi_dir && (rc = cdi_setup(&cj, o, o->cdi_dir, o->cdi_format)))
		return rc;
	cj.quiet = 1;
	struct watch w;
	if (watch_open(&w, o)) /* blocks SIGINT and SIGTERM before the server's threads start */
		return 1;
	struct serve *sv;
	rc = serve_start(o, 0, &sv);
	if (rc) {
		watch_close(&w);
		if (o->cdi_dir)
			cdi_job_free(&cj);
		return rc;
	}
	fprintf(stderr, "axl: agent: keeping%s%s%s%s current, every %.0f s and when device nodes change\n",
		o->labels_file ? " " : "", o->labels_file ? o->labels_file : "", o->cdi_dir ? " and the CDI specs in " : "",
		o->cdi_dir ? o->cdi_dir : "", w.interval);
	const char *why = "start";
	int ready = 0, labels_ok = !o->labels_file, cdi_ok = !o->cdi_dir;
	do {
		double renew = -1;
		int wrote_l = 0, wrote_c = 0, rl = 0, rcd = 0;
		if (o->labels_file) {
			rl = labels_refresh(&lj, &wrote_l, &renew);
			labels_ok |= !rl;
		}
		if (o->cdi_dir) {
			rcd = cdi_refresh(&cj, &wrote_c);
			cdi_ok |= !rcd;
		}
		if (!ready && labels_ok && cdi_ok) {
			serve_ready(sv);
			ready = 1;
		}
		if (o->verbose)
			fprintf(stderr, "axl: agent (%s): labels %s, CDI specs %s\n", why,
				!o->labels_file ? "-" : rl ? "failed" : wrote_l ? "rewritten" : "unchanged",
				!o->cdi_dir ? "-" : rcd ? "failed" : wrote_c ? "rewritten" : "unchanged");
		if (!watch_wait(&w, renew, &why))
			break;
	} while (1);
	serve_stop(sv);
	watch_close(&w);
	if (o->cdi_dir)
		cdi_job_free(&cj);
	return ready ? 0 : 1;
}
