/* SPDX-License-Identifier: MIT */
/* axl capture: what axl reads on this node, and the vendor libraries' answers, in
 * one file to replay elsewhere (docs/capture.md). */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "axl.h"
#include "cli.h"
#include "output.h"
#include "../util/file.h"

/* The command line, for the capture's manifest (arguments with spaces quoted). */
static char *join_args(int argc, char **argv)
{
	size_t n = 1;
	for (int i = 0; i < argc; i++)
		n += strlen(argv[i]) + 3;
	char *s = malloc(n);
	if (!s)
		return NULL;
	size_t o = 0;
	for (int i = 0; i < argc; i++) {
		bool q = strpbrk(argv[i], " \t\"'") != NULL || !argv[i][0];
		o += (size_t)sprintf(s + o, "%s%s%s%s", i ? " " : "", q ? "'" : "", argv[i], q ? "'" : "");
	}
	s[o] = '\0';
	return s;
}

/* "8 accelerators (8 nvidia)", "3 accelerators (1 intel, 1 intelnpu, 1 nvidia)", "no
 * accelerator": what the capture holds, by the kinds of the ids axl list shows (the CPU is
 * not counted). */
static void count_accelerators(const axl_inventory *inv, char *out, size_t cap)
{
	struct {
		char kind[32];
		size_t n;
	} k[16];
	size_t nk = 0, total = 0;
	for (size_t i = 0; i < axl_inventory_device_count(inv); i++) {
		const axl_device *d = axl_inventory_device(inv, i);
		if (axl_device_family(d) == AXL_FAMILY_CPU)
			continue;
		total++;
		const char *id = axl_device_id(d), *colon = strchr(id, ':');
		int len = colon ? (int)(colon - id) : (int)strlen(id);
		size_t j;
		for (j = 0; j < nk && (strncmp(k[j].kind, id, (size_t)len) != 0 || k[j].kind[len]); j++)
			;
		if (j == nk && nk < sizeof k / sizeof *k) {
			snprintf(k[nk].kind, sizeof k[nk].kind, "%.*s", len, id);
			k[nk++].n = 0;
		}
		if (j < nk)
			k[j].n++;
	}
	if (!total) {
		snprintf(out, cap, "no accelerator");
		return;
	}
	size_t o = (size_t)snprintf(out, cap, "%zu accelerator%s (", total, total == 1 ? "" : "s");
	for (size_t j = 0; j < nk && o < cap; j++)
		o += (size_t)snprintf(out + o, cap - o, "%s%zu %s", j ? ", " : "", k[j].n, k[j].kind);
	if (o < cap)
		snprintf(out + o, cap - o, ")");
}

static const char *output;

static int cmd_capture(struct opts *o, int argc, char **argv)
{
	(void)argc, (void)argv;
	char def[320], tmpl[4200] = "";
	const char *out = output;
	int to_stdout = cli_is_stdout(out);
	if (to_stdout && isatty(STDOUT_FILENO)) {
		fprintf(stderr, "axl: capture -o -: standard output is a terminal; redirect it to a file or a pipe\n");
		return EXIT_USAGE;
	}
	if (to_stdout) {
		/* written whole to a temporary file first (the tar stream is finished, and its
		 * size known, before a byte goes out), then copied to standard output */
		const char *td = getenv("TMPDIR");
		snprintf(tmpl, sizeof tmpl, "%s/axl-capture-XXXXXX", td && *td ? td : "/tmp");
		int fd = mkstemp(tmpl);
		if (fd < 0) {
			fprintf(stderr, "axl: %s: %s\n", tmpl, strerror(errno));
			return 1;
		}
		close(fd);
		out = tmpl;
	}
	if (!out) {
		char host[256] = "";
		if (gethostname(host, sizeof host - 1) != 0 || !host[0])
			snprintf(host, sizeof host, "node");
		for (char *p = host; *p; p++)
			if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
			      *p == '-' || *p == '.' || *p == '_'))
				*p = '_';
		snprintf(def, sizeof def, "axl-capture-%s.tar.gz", host);
		out = def;
	}
	axl_context *ctx;
	axl_inventory *inv;
	/* the complete inventory, so the capture holds everything a later run may read */
	if (open_inventory_ex(o, &ctx, &inv, AXL_CONTEXT_RECORD, AXL_INVENTORY_ALL))
		return 1;
	if (axl_context_is_simulated(ctx)) {
		fprintf(stderr, "axl: a simulated node (AXL_SIM) has nothing to capture\n");
		axl_inventory_free(inv);
		axl_context_free(ctx);
		return 1;
	}
	/* one metrics sample while recording, so that the vendor libraries' metric answers
	 * are in the capture too (axl metrics --sysroot CAPTURE replays them). Without
	 * processes: the capture should not carry a sweep of every process's files. */
	axl_sampler *smp_s;
	if (axl_sampler_open(&smp_s, inv, 0) == 0) {
		axl_sample *smp;
		if (axl_sampler_sample(smp_s, &smp) == 0)
			axl_sample_free(smp);
		axl_sampler_free(smp_s);
	}
	struct axl_capture_options co = AXL_CAPTURE_OPTIONS_INIT;
	char *cmdline = join_args(o->full_argc, o->full_argv);
	co.command_line = cmdline;
	size_t members = 0;
	int rc = axl_capture_write(ctx, out, &co, &members);
	free(cmdline);
	print_warnings(inv);
	char accels[256];
	count_accelerators(inv, accels, sizeof accels);
	axl_inventory_free(inv);
	axl_context_free(ctx);
	if (rc) {
		fprintf(stderr, "axl: %s\n", axl_error_last()[0] ? axl_error_last() : axl_strerror(rc));
		if (to_stdout)
			unlink(tmpl);
		return 1;
	}
	if (to_stdout) {
		char *buf = NULL;
		size_t len = 0;
		int r = axl__file_read(tmpl, (size_t)1 << 31, 0, &buf, &len);
		unlink(tmpl);
		if (r) {
			free(buf);
			fprintf(stderr, "axl: %s: %s\n", tmpl, axl__file_error(r));
			return 1;
		}
		r = cli_write_stdout(buf, len);
		free(buf);
		if (!r)
			fprintf(stderr, "axl: wrote the capture to standard output: %s; %zu files, %zu bytes\n", accels,
				members, len);
		return r;
	}
	struct stat st;
	char size[32] = "?";
	if (stat(out, &st) == 0)
		human_bytes((int64_t)st.st_size, size, sizeof size);
	printf("wrote %s: %s; %zu files, %s\n", out, accels, members, size);
	printf("it holds this node's host name and serial numbers; replay it with "
	       "axl list --sysroot %s\n", out);
	return 0;
}

static const struct cli_opt options[] = {
	{.type = CLI_OPT_STRING, .name = "output", .alias = 'o', .value = &output, .value_name = "FILE",
	 .help = "where to write it (default axl-capture-HOSTNAME.tar.gz), atomically;\n- : standard output (not a "
	         "terminal)"},
	{0},
};

const struct cli_command cli_cmd_capture = {
	"capture", cmd_capture, CLI_G_SYSROOT, options, NULL,
	"save what axl reads here to one file, to replay anywhere",
	"Save what axl reads on this node, and the vendor libraries' answers, to one file;\n"
	"replay it anywhere with axl --sysroot FILE (docs/capture.md). It holds the node's host\n"
	"name and serial numbers.",
};
