/* SPDX-License-Identifier: MIT */
/* axl metrics: one sample as a table, or "axl.metrics" JSON (one document per line with
 * --interval). */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "output.h"

static void print_table(const axl_sample *smp, const char *only)
{
	printf("%-16s %-5s %5s %19s %8s %8s %5s %5s %9s %9s %s\n", "ID", "STATE", "UTIL", "MEMORY USED/TOTAL",
	       "POWER", "LIMIT", "TEMP", "HOT", "SM CLK", "MEM CLK", "ECC CE/UE");
	size_t n = axl_sample_device_count(smp);
	for (size_t i = 0; i < n; i++) {
		const char *id = axl_device_id(axl_sample_device(smp, i));
		if (only && strcmp(only, id) != 0)
			continue;
		char util[16], used[24], tot[24], mem[48], pw[24], lim[24], t[16], hot[16], sm[24], mc[24], ce[24],
		    ue[24], ecc[64];
		metric_text(smp, i, AXL_METRIC_UTILIZATION, util, sizeof util);
		metric_text(smp, i, AXL_METRIC_MEMORY_USED, used, sizeof used);
		metric_text(smp, i, AXL_METRIC_MEMORY_TOTAL, tot, sizeof tot);
		snprintf(mem, sizeof mem, "%s/%s", used, tot);
		metric_text(smp, i, AXL_METRIC_POWER, pw, sizeof pw);
		metric_text(smp, i, AXL_METRIC_POWER_LIMIT, lim, sizeof lim);
		metric_text(smp, i, AXL_METRIC_TEMPERATURE, t, sizeof t);
		metric_text(smp, i, AXL_METRIC_TEMPERATURE_HOTSPOT, hot, sizeof hot);
		metric_text(smp, i, AXL_METRIC_SM_CLOCK, sm, sizeof sm);
		metric_text(smp, i, AXL_METRIC_MEMORY_CLOCK, mc, sizeof mc);
		metric_text(smp, i, AXL_METRIC_ECC_CORRECTED, ce, sizeof ce);
		metric_text(smp, i, AXL_METRIC_ECC_UNCORRECTED, ue, sizeof ue);
		snprintf(ecc, sizeof ecc, "%s/%s", ce, ue);
		printf("%-16s %-5s %5s %19s %8s %8s %5s %5s %9s %9s %s\n", id,
		       axl_sample_state_name(axl_sample_device_state(smp, i)), util, mem, pw, lim, t, hot, sm, mc, ecc);
	}
	size_t np = axl_sample_process_count(smp);
	size_t shown = 0;
	for (size_t k = 0; k < np; k++) {
		const struct axl_process *p = axl_sample_process(smp, k);
		if (only && strcmp(only, p->device) != 0)
			continue;
		if (!shown++)
			printf("\n%-16s %8s %-16s %-8s %10s %5s %s\n", "DEVICE", "PID", "NAME", "TYPE", "MEMORY",
			       "UTIL", "CONTAINER");
		char mem[24] = "-", util[16] = "-";
		if (p->memory_used_bytes >= 0)
			human_bytes(p->memory_used_bytes, mem, sizeof mem);
		if (p->utilization_percent >= 0)
			snprintf(util, sizeof util, "%.0f%%", p->utilization_percent);
		printf("%-16s %8d %-16.16s %-8s %10s %5s %.12s\n", p->device, p->pid, p->name ? p->name : "-",
		       p->type ? p->type : "-", mem, util, p->container_id ? p->container_id : "-");
	}
}

/* Limited workloads (the limiter's regions): usage against the limit. */
static void print_workloads(const axl_sample *smp, const char *only)
{
	size_t n = axl_sample_workload_count(smp), shown = 0;
	for (size_t k = 0; k < n; k++) {
		const struct axl_workload *w = axl_sample_workload(smp, k);
		if (only && (!w->device || strcmp(only, w->device) != 0))
			continue;
		if (!shown++)
			printf("\n%-16s %-20s %10s %10s %8s %8s %5s %s\n", "WORKLOAD DEVICE", "UUID", "MEM USED",
			       "MEM LIMIT", "COMPUTE", "LIMIT", "PROCS", "REGION");
		char mu[24], ml[24] = "-", cu[16] = "-", cl[16] = "-";
		human_bytes(w->memory_used_bytes, mu, sizeof mu);
		if (w->memory_limit_bytes >= 0)
			human_bytes(w->memory_limit_bytes, ml, sizeof ml);
		if (w->compute_used_percent >= 0)
			snprintf(cu, sizeof cu, "%.0f%%", w->compute_used_percent);
		if (w->compute_limit_percent >= 0)
			snprintf(cl, sizeof cl, "%d%%", w->compute_limit_percent);
		printf("%-16s %-20.20s %10s %10s %8s %8s %5d %s\n", w->device ? w->device : "-",
		       w->uuid ? w->uuid : "-", mu, ml, cu, cl, w->processes, w->region);
	}
}

static void print_sample_warnings(const axl_sample *smp)
{
	for (size_t k = 0; k < axl_sample_warning_count(smp); k++)
		fprintf(stderr, "axl: warning: %s\n", axl_sample_warning(smp, k));
}

static volatile sig_atomic_t stop;
static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	while (!stop && nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static const char *device;
static int64_t interval_ms;
static long count_arg;
static int no_processes;

static int cmd_metrics(struct opts *o, int argc, char **argv)
{
	(void)argc, (void)argv;
	const char *only = device;
	axl_context *ctx;
	axl_inventory *inv;
	if (open_inventory(o, &ctx, &inv))
		return 1;
	int rc = 0;
	if (only) {
		const axl_device *d = axl_inventory_find(inv, only);
		if (!d) {
			fprintf(stderr, "axl: no device '%s' (axl list shows them)\n", only);
			axl_inventory_free(inv);
			axl_context_free(ctx);
			return 1;
		}
		only = axl_device_id(d);
	}
	axl_sampler *s;
	if (axl_sampler_open(&s, inv, no_processes ? 0 : AXL_SAMPLER_PROCESSES)) {
		fprintf(stderr, "axl: %s\n", axl_error_last());
		axl_inventory_free(inv);
		axl_context_free(ctx);
		return 1;
	}
	/* nothing to sample: said as axl list says it, once, on standard error (the table's
	 * header and JSON documents still go to standard output, as scripts expect) */
	size_t accels = cli_accelerator_count(inv);
	if (accels == 0)
		cli_no_accelerators_hint(0);
	long count = count_arg ? count_arg : (interval_ms ? 0 : 1);
	/* without --interval, utilisation needs two readings: take a first one 100 ms
	 * before the one shown */
	if (!interval_ms) {
		axl_sample *first;
		if (axl_sampler_sample(s, &first) == 0)
			axl_sample_free(first);
		sleep_ms(100);
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);
	for (long k = 0; !stop && (count == 0 || k < count); k++) {
		if (k)
			sleep_ms((int)interval_ms);
		if (stop)
			break;
		axl_sample *smp;
		if (axl_sampler_sample(s, &smp)) {
			fprintf(stderr, "axl: %s\n", axl_error_last());
			rc = 1;
			break;
		}
		if (o->json) {
			char *txt;
			unsigned fl = (o->compact || interval_ms) ? 0 : AXL_METRICS_PRETTY;
			if (axl_sample_json(smp, fl, &txt, NULL) == 0) {
				fputs(txt, stdout);
				if (!(fl & AXL_METRICS_PRETTY))
					fputc('\n', stdout);
				axl_free(txt);
			} else
				rc = 1;
		} else {
			if (k)
				printf("\n");
			print_table(smp, only);
			if (accels == 0)
				printf("(no accelerators found)\n");
			print_workloads(smp, only);
			print_sample_warnings(smp);
		}
		axl_sample_free(smp);
		if (fflush(stdout) != 0 || ferror(stdout)) {
			rc = 1;
			break;
		}
	}
	if (!o->json && !interval_ms)
		print_warnings(inv);
	axl_sampler_free(s);
	axl_inventory_free(inv);
	axl_context_free(ctx);
	return rc;
}

static const struct cli_opt options[] = {
	{.type = CLI_OPT_ARG, .name = "ID", .value = &device, .help = "only this device (axl list shows the ids)"},
	{.type = CLI_OPT_DURATION, .name = "interval", .value = &interval_ms,
	 .help = "sample every DURATION (500ms, 2s) and go on; with --json, one\ndocument per line", .min = 1,
	 .max = 86400000},
	{.type = CLI_OPT_COUNT, .name = "count", .value = &count_arg,
	 .help = "stop after N samples (default 1, or forever with --interval)", .min = 1, .max = 1e15},
	{.type = CLI_OPT_FLAG, .name = "no-processes", .value = &no_processes,
	 .help = "do not list processes (skips the /proc sweep)"},
	{0},
};

const struct cli_command cli_cmd_metrics = {
	"metrics", cmd_metrics, CLI_G_NODE | CLI_G_JSON, options, NULL,
	"what every device (or one) is doing now, and its processes",
	"What every device (or the one named) is doing now: utilisation, memory, power,\n"
	"temperatures, clocks, PCIe, ECC, throttling, and its processes (docs/metrics.md).",
};
