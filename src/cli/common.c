/* SPDX-License-Identifier: MIT */
/* What the commands share: opening the node the global options name, printing the
 * inventory document and its warnings, sizes, JSON strings, errors. */
#define _GNU_SOURCE
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "axl.h"
#include "cli.h"

static void log_stderr(axl_log_level level, const char *msg, void *ud)
{
	(void)ud;
	static const char *const names[] = {"error", "warning", "info", "debug"};
	fprintf(stderr, "axl: %s: %s\n", names[level <= AXL_LOG_DEBUG ? level : 0], msg);
}

int open_inventory_ex(const struct opts *o, axl_context **ctx, axl_inventory **inv, unsigned ctx_flags,
		      unsigned inv_flags)
{
	struct axl_context_options co = AXL_CONTEXT_OPTIONS_INIT;
	co.sysroot = o->sysroot;
	co.sim = o->sim;
	co.backends = o->backends;
	co.driver_root = o->driver_root;
	/* --env: an explicit environment, the given variables plus axl's own settings: the
	 * fixed ones, and every AXL_<LIBRARY>_LIBRARY (which library to load instead of a
	 * vendor's: each backend reads its own) */
	enum { NLIB = 16 };
	const char *env[MAX_ENV + 8 + NLIB];
	if (o->nenv) {
		int n = 0;
		for (int i = 0; i < o->nenv; i++)
			env[n++] = o->env[i];
		static const char *const own[] = {"AXL_SYSROOT", "AXL_BACKENDS", "AXL_PCI_IDS", "AXL_VENDOR_TIMEOUT_MS",
						  "AXL_SIM", "AXL_DRIVER_ROOT"};
		enum { NOWN = sizeof own / sizeof *own };
		static char keep[NOWN + NLIB][4096];
		int nk = 0;
		for (int k = 0; k < NOWN; k++) {
			const char *val = getenv(own[k]);
			if (val && strlen(val) < sizeof keep[nk] - 16) {
				snprintf(keep[nk], sizeof keep[nk], "%s=%s", own[k], val);
				env[n++] = keep[nk++];
			}
		}
		for (char **e = environ; e && *e && nk < NOWN + NLIB; e++) {
			const char *eq = strchr(*e, '=');
			size_t nl = eq ? (size_t)(eq - *e) : 0;
			if (nl > 12 && strncmp(*e, "AXL_", 4) == 0 && strncmp(eq - 8, "_LIBRARY", 8) == 0 &&
			    strlen(*e) < sizeof keep[nk]) {
				snprintf(keep[nk], sizeof keep[nk], "%s", *e);
				env[n++] = keep[nk++];
			}
		}
		env[n] = NULL;
		co.env = env;
	}
	co.flags = ctx_flags;
	if (o->verbose) {
		co.log = log_stderr;
		co.log_level = AXL_LOG_DEBUG;
	}
	int rc = axl_context_open(ctx, &co);
	if (rc) {
		fprintf(stderr, "axl: %s\n", axl_error_last()[0] ? axl_error_last() : axl_strerror(rc));
		return 1;
	}
	rc = axl_inventory_open(inv, *ctx, inv_flags | (o->all ? AXL_INVENTORY_ALL : 0));
	if (rc) {
		fprintf(stderr, "axl: %s\n", axl_error_last()[0] ? axl_error_last() : axl_strerror(rc));
		axl_context_free(*ctx);
		return 1;
	}
	return 0;
}

int open_inventory(const struct opts *o, axl_context **ctx, axl_inventory **inv)
{
	return open_inventory_ex(o, ctx, inv, 0, 0);
}

void human_bytes(int64_t b, char *out, size_t cap)
{
	const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	double v = (double)b;
	int u = 0;
	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	snprintf(out, cap, u ? "%.1f %s" : "%.0f %s", v, units[u]);
}

const char *cli_str(const axl_device *d, axl_attr a)
{
	const char *s = NULL;
	return axl_device_get_str(d, a, &s) == 0 ? s : NULL;
}

/* A table cell for a number that may be unknown (negative): "-", never -1. */
const char *cli_cell(int64_t v, char *buf, size_t cap)
{
	if (v < 0)
		return "-";
	snprintf(buf, cap, "%" PRId64, v);
	return buf;
}

int print_json(const axl_inventory *inv, const struct opts *o)
{
	char *doc = NULL;
	unsigned f = (o->compact ? 0 : AXL_JSON_PRETTY) | (o->timing ? AXL_JSON_TIMING : 0);
	int rc = axl_inventory_json(inv, f, &doc, NULL);
	if (rc) {
		fprintf(stderr, "axl: %s\n", axl_error_last());
		return 1;
	}
	fputs(doc, stdout);
	if (o->compact)
		fputc('\n', stdout);
	axl_free(doc);
	return 0;
}

void print_warnings(const axl_inventory *inv)
{
	size_t n = axl_inventory_warning_count(inv);
	for (size_t i = 0; i < n; i++) {
		const struct axl_warning *w = axl_inventory_warning(inv, i);
		fprintf(stderr, "axl: warning: %s%s%s\n", w->path ? w->path : "", w->path ? ": " : "",
			w->message);
	}
}

int print_doc(struct axl__sb *sb, int newline)
{
	int rc = 0;
	if (sb->failed) {
		fprintf(stderr, "axl: out of memory\n");
		rc = 1;
	} else {
		fwrite(axl__sb_str(sb), 1, sb->len, stdout);
		if (newline)
			putchar('\n');
	}
	axl__sb_free(sb);
	return rc;
}


int fail_last(const char *what)
{
	fprintf(stderr, "axl: %s: %s\n", what, axl_error_last()[0] ? axl_error_last() : "failed");
	return 1;
}


void metric_text(const axl_sample *smp, size_t i, axl_metric m, char *buf, size_t cap)
{
	double v;
	if (axl_sample_get(smp, i, m, &v, NULL) != 0) {
		snprintf(buf, cap, "-");
		return;
	}
	const char *unit = axl_metric_unit(m);
	if (m == AXL_METRIC_THROTTLE_REASONS) {
		unsigned bits = (unsigned)v;
		size_t o = 0;
		buf[0] = '\0';
		for (unsigned b = 0; b < 32 && o < cap; b++)
			if (bits & (1u << b) && axl_throttle_name(1u << b))
				o += (size_t)snprintf(buf + o, cap - o, "%s%s", o ? "," : "",
						      axl_throttle_name(1u << b));
		if (!bits)
			snprintf(buf, cap, "none");
	} else if (!strcmp(unit, "percent"))
		snprintf(buf, cap, "%.0f%%", v);
	else if (!strcmp(unit, "bytes"))
		human_bytes((int64_t)v, buf, cap);
	else if (!strcmp(unit, "watts"))
		snprintf(buf, cap, "%.1f W", v);
	else if (!strcmp(unit, "joules"))
		snprintf(buf, cap, v >= 1e6 ? "%.2f MJ" : "%.0f J", v >= 1e6 ? v / 1e6 : v);
	else if (!strcmp(unit, "celsius"))
		snprintf(buf, cap, "%.0f C", v);
	else if (!strcmp(unit, "megahertz"))
		snprintf(buf, cap, "%.0f MHz", v);
	else if (!strcmp(unit, "bytes_per_second")) {
		char h[32];
		human_bytes((int64_t)v, h, sizeof h);
		snprintf(buf, cap, "%s/s", h);
	} else
		snprintf(buf, cap, "%.0f", v);
}
