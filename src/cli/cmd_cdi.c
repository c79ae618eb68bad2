/* SPDX-License-Identifier: MIT */
/*
 * axl cdi generate / axl cdi list: Container Device Interface specs for this node's
 * accelerators (docs/cdi.md), built by cdi_spec.c, written as JSON (util's writer) or
 * YAML into the CDI folders, kept in step with the node by --watch.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "axl.h"
#include "cdi_spec.h"
#include "output.h"
#include "../util/file.h"
#include "../util/rootpath.h"

/* DIR/axl-CLASS.EXT for kind axl.dev/CLASS (axl-nvidia-gpu.json); for another kind (an
 * earlier axl's nvidia.com/gpu) DIR/axl-VENDOR-CLASS.EXT (axl-nvidia.com-gpu.json) */
static void kind_path(const char *dir, const char *kind, bool yaml, char *path, size_t cap)
{
	char base[128];
	const char *own = strncmp(kind, CDI_VENDOR "/", sizeof CDI_VENDOR) == 0 ? kind + sizeof CDI_VENDOR : NULL;
	snprintf(base, sizeof base, "axl-%s", own ? own : kind);
	for (char *p = base; *p; p++)
		if (*p == '/')
			*p = '-';
	snprintf(path, cap, "%s/%s.%s", dir, base, yaml ? "yaml" : "json");
}

static void spec_path(const char *dir, const struct val *spec, bool yaml, char *path, size_t cap)
{
	kind_path(dir, vget(spec, "kind")->s, yaml, path, cap);
}

/* The files an earlier axl wrote for this spec's devices under the vendor's own kind
 * (axl-nvidia.com-gpu.json): their names clash with the vendor's own specs in the same
 * folder (nvidia-ctk's nvidia.yaml), so they go once axl's new spec is in place. Only a
 * file of that name that holds that kind is removed. */
static void remove_legacy(const struct cdi_job *j, const char *legacy)
{
	for (int yaml = 0; yaml < 2 && legacy[0]; yaml++) {
		char path[4096];
		kind_path(j->dir, legacy, yaml, path, sizeof path);
		char *text = NULL;
		size_t len = 0;
		if (axl__file_read(path, 1 << 24, AXL__FILE_NOFOLLOW, &text, &len) != 0) {
			free(text);
			continue;
		}
		/* the kind as the spec writer puts it, YAML or JSON (a quoted key) */
		char want[160];
		snprintf(want, sizeof want, "kind%s%s", yaml ? ": " : "\": \"", legacy);
		bool ours = strstr(text, want) != NULL;
		free(text);
		if (!ours)
			continue;
		if (unlink(path) != 0)
			fprintf(stderr, "axl: cdi: %s holds axl's earlier kind %s, which clashes with the vendor's own "
					"specs, and cannot be removed: %s\n", path, legacy, strerror(errno));
		else if (!j->quiet)
			printf("removed %s (axl's earlier kind %s clashes with the vendor's own specs)\n", path,
			       legacy);
		else if (j->o->verbose)
			fprintf(stderr, "axl: cdi: removed %s (axl's earlier kind %s)\n", path, legacy);
	}
}

/* A spec's text, malloc'd. */
static char *spec_text(const struct val *spec, bool yaml, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	if (!f) {
		fprintf(stderr, "axl: out of memory\n");
		exit(1);
	}
	write_spec(f, spec, yaml);
	if (fclose(f) != 0) {
		fprintf(stderr, "axl: out of memory\n");
		exit(1);
	}
	return buf;
}

int cdi_check_host(const struct opts *o)
{
	const char *h = o->driver_root_host ? o->driver_root_host : getenv("AXL_DRIVER_ROOT_HOST");
	if (h && *h && h[0] != '/') {
		fprintf(stderr,
			"axl: %s '%s': the driver root's path on the host must be absolute (where the driver "
			"container's root lies)\n",
			o->driver_root_host ? "--driver-root-host" : "AXL_DRIVER_ROOT_HOST", h);
		return EXIT_USAGE;
	}
	return 0;
}

int cdi_setup(struct cdi_job *j, const struct opts *o, const char *dir, const char *format)
{
	memset(j, 0, sizeof *j);
	j->o = o;
	j->dir = dir;
	int hrc = cdi_check_host(o);
	if (hrc)
		return hrc;
	if (format && strcmp(format, "yaml") == 0)
		j->yaml = 1;
	else if (format && strcmp(format, "json") != 0) {
		fprintf(stderr, "axl: --format takes json or yaml, not '%s'\n", format);
		return EXIT_USAGE;
	}
	/* the folder and those above it are made when missing, as generators do (mkdir -p) */
	if (dir && !cli_is_stdout(dir) && cli_make_dir(dir))
		return 1;
	return 0;
}

void cdi_job_free(struct cdi_job *j)
{
	for (size_t i = 0; i < j->nfiles; i++)
		free(j->files[i]);
	j->nfiles = 0;
}

/* The specs on standard output: one JSON document (an array when there are several
 * kinds), or YAML documents. */
static int print_specs(struct val **specs, size_t ns, bool yaml)
{
	if (yaml) {
		for (size_t i = 0; i < ns; i++) {
			fputs("---\n", stdout);
			write_spec(stdout, specs[i], true);
		}
	} else if (ns == 1) {
		write_spec(stdout, specs[0], false);
	} else {
		struct val arr = {.t = V_ARR, .kids = specs, .n = ns};
		write_spec(stdout, &arr, false);
	}
	if (fflush(stdout) != 0) {
		fprintf(stderr, "axl: standard output: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}

/* Write every spec whose file does not already hold it; forget (remove) the files of
 * kinds this process wrote before that are gone now. */
static int write_specs(struct cdi_job *j, struct val **specs, const char (*legacy)[64], size_t ns, int *wrote)
{
	char *now[CDI_MAX_FILES];
	size_t nnow = 0;
	int rc = 0;
	for (size_t i = 0; i < ns && nnow < CDI_MAX_FILES; i++) {
		char path[4096];
		spec_path(j->dir, specs[i], j->yaml, path, sizeof path);
		size_t len;
		char *text = spec_text(specs[i], j->yaml, &len);
		if (!axl__file_same(path, text, len)) {
			if (cli_write_file(path, text, len, 0644) == 0) {
				(*wrote)++;
				if (!j->quiet)
					printf("wrote %s\n", path);
				if (j->o->verbose && j->quiet)
					fprintf(stderr, "axl: cdi: rewrote %s\n", path);
			} else {
				rc = 1;
			}
		} else if (!j->quiet) {
			printf("unchanged %s\n", path);
		}
		free(text);
		now[nnow++] = strdup(path);
		remove_legacy(j, legacy[i]);
	}
	for (size_t k = 0; k < j->nfiles; k++) {
		bool kept = false;
		for (size_t i = 0; i < nnow && !kept; i++)
			kept = now[i] && strcmp(now[i], j->files[k]) == 0;
		if (!kept && unlink(j->files[k]) == 0) {
			(*wrote)++;
			if (j->o->verbose)
				fprintf(stderr, "axl: cdi: removed %s (its devices are gone)\n", j->files[k]);
		}
	}
	cdi_job_free(j);
	for (size_t i = 0; i < nnow; i++)
		if (now[i])
			j->files[j->nfiles++] = now[i];
	fflush(stdout);
	return rc;
}

int cdi_refresh(struct cdi_job *j, int *wrote)
{
	*wrote = 0;
	axl_context *ctx;
	axl_inventory *inv;
	if (open_inventory(j->o, &ctx, &inv))
		return 1;
	int rc = cdi_refresh_inv(j, ctx, inv, wrote);
	axl_inventory_free(inv);
	axl_context_free(ctx);
	return rc;
}

int cdi_refresh_inv(struct cdi_job *j, const axl_context *ctx, const axl_inventory *inv, int *wrote)
{
	*wrote = 0;
	struct cdi_gen g;
	cdi_gen_init(&g, ctx, j->o);
	struct val *specs[CDI_MAX_KINDS];
	size_t ns = cdi_build_all(&g, inv, specs);
	int rc;
	if (!j->dir || cli_is_stdout(j->dir)) {
		rc = print_specs(specs, ns, j->yaml);
		*wrote = !rc;
	} else {
		rc = write_specs(j, specs, (const char(*)[64])g.legacy, ns, wrote);
	}
	if (ns == 0 && !j->quiet)
		fprintf(stderr, "axl: cdi: no accelerator with device nodes on this node; no spec\n");
	if (g.nodes_missing && !j->quiet)
		fprintf(stderr, "axl: cdi: warning: %u device node%s not found under %s\n", g.nodes_missing,
			g.nodes_missing == 1 ? "" : "s", g.sysroot);
	for (size_t i = 0; i < ns; i++)
		vfree(specs[i]);
	print_warnings(inv);
	return rc;
}

/* The options (the tables close the file) */
static struct {
	const char *output, *format, *driver_root, *driver_root_host;
	int watch;
	int64_t interval_ms;
} a;

static int cdi_watch(struct opts *o, struct cdi_job *j)
{
	if (!a.output || cli_is_stdout(a.output)) {
		fprintf(stderr, "axl cdi generate: --watch keeps a directory current: name it with -o DIR\n");
		return EXIT_USAGE;
	}
	struct watch w;
	if (watch_open(&w, o, a.interval_ms))
		return 1;
	j->quiet = 1;
	const char *why = "start";
	int ok = 0, rc;
	do {
		int wrote;
		rc = cdi_refresh(j, &wrote);
		ok |= !rc;
		if (o->verbose)
			fprintf(stderr, "axl: cdi (%s): %s\n", why,
				rc      ? "failed"
				: wrote ? "rewrote the specs that changed"
					: "unchanged, nothing rewritten");
	} while (watch_wait(&w, -1, &why));
	watch_close(&w);
	cdi_job_free(j);
	return ok ? 0 : 1;
}

static const struct cli_sub subs[];

static int cmd_cdi(struct opts *o, int argc, char **argv)
{
	const struct cli_sub *sub = cli_sub_parse(&cli_cmd_cdi, argc, argv);
	if (!sub)
		return EXIT_USAGE;
	bool generate = sub == &subs[0];
	o->driver_root = a.driver_root;
	o->driver_root_host = a.driver_root_host;
	if (a.interval_ms && !a.watch) {
		fprintf(stderr, "axl cdi generate: --interval goes with --watch\n");
		return EXIT_USAGE;
	}
	if (generate) {
		struct cdi_job j;
		int rc = cdi_setup(&j, o, a.output, a.format);
		if (rc)
			return rc;
		if (a.watch)
			return cdi_watch(o, &j);
		int wrote;
		rc = cdi_refresh(&j, &wrote);
		cdi_job_free(&j);
		return rc;
	}
	int hrc = cdi_check_host(o);
	if (hrc)
		return hrc;
	axl_context *ctx;
	axl_inventory *inv;
	if (open_inventory(o, &ctx, &inv))
		return 1;
	struct cdi_gen g;
	cdi_gen_init(&g, ctx, o);
	struct val *specs[CDI_MAX_KINDS];
	size_t ns = cdi_build_all(&g, inv, specs);
	int rc = 0;
	struct axl__sb sb = AXL__SB_INIT;
	struct axl__json w;
	if (o->json) {
		axl__json_init(&w, &sb, false);
		axl__json_arr(&w);
	}
	for (size_t i = 0; i < ns; i++) {
		const struct val *devs = vget(specs[i], "devices");
		for (size_t k = 0; k < devs->n; k++) {
			char fq[512];
			snprintf(fq, sizeof fq, "%s=%s", vget(specs[i], "kind")->s, vget(devs->kids[k], "name")->s);
			if (o->json)
				axl__json_str(&w, fq);
			else
				puts(fq);
		}
	}
	if (o->json) {
		axl__json_arr_end(&w);
		rc = print_doc(&sb, 1);
	}
	if (ns == 0)
		fprintf(stderr, "axl: cdi: no accelerator with device nodes on this node; no spec\n");
	for (size_t i = 0; i < ns; i++)
		vfree(specs[i]);
	print_warnings(inv);
	axl_inventory_free(inv);
	axl_context_free(ctx);
	return rc;
}

#define DRIVER_ROOT_OPTIONS                                                                                       \
	{.type = CLI_OPT_STRING, .name = "driver-root", .value = &a.driver_root, .value_name = "DIR", .help = \
	 "where the vendor's user-space files are looked for (the host's\n"                                        \
	 "root mounted at /host in a container; default / or $AXL_DRIVER_ROOT):\n"                                 \
	 "links resolve inside it; NVML, ROCm SMI and Level Zero load from it"},                                  \
	{.type = CLI_OPT_STRING, .name = "driver-root-host", .value = &a.driver_root_host, .value_name = "PATH",      \
	 .help =                                                                                                  \
	 "what DIR is on the host (default /: the paths inside DIR are the\n"                                      \
	 "host's; /run/nvidia/driver for the GPU Operator's driver container;\n"                                   \
	 "$AXL_DRIVER_ROOT_HOST)"}

static const struct cli_opt generate_options[] = {
	{.type = CLI_OPT_STRING, .name = "output", .alias = 'o', .value = &a.output, .value_name = "DIR",
	 .help = "write one file per kind there, axl-CLASS.json (or .yaml), each\nreplaced atomically and only when "
	         "its content changed; the\nfolder is made when missing; - (or none): standard output"},
	{.type = CLI_OPT_CHOICE, .name = "format", .value = &a.format, .help = "json (default) or yaml",
	 .choices = "json|yaml"},
	{.type = CLI_OPT_FLAG, .name = "watch", .value = &a.watch,
	 .help = "keep DIR current: rediscover every --interval and when a device\nnode appears or goes; rewrite only "
	         "what changed; remove the spec\nof a kind that is gone; SIGTERM or SIGINT ends it"},
	{.type = CLI_OPT_DURATION, .name = "interval", .value = &a.interval_ms,
	 .help = "(--watch) the period (default 60s)", .min = 1, .max = 86400000},
	DRIVER_ROOT_OPTIONS,
	{0},
};

static const struct cli_opt list_options[] = {
	DRIVER_ROOT_OPTIONS,
	{0},
};

static const struct cli_sub subs[] = {
	{"generate", generate_options, "Container Device Interface specs for the accelerators"},
	{"list", list_options, "the CDI device names (axl.dev/nvidia-gpu=0)"},
	{NULL, NULL, NULL},
};

const struct cli_command cli_cmd_cdi = {
	"cdi", cmd_cdi, CLI_G_NODE | CLI_G_JSON, NULL, subs, NULL,
	"Container Device Interface specs for this node's accelerators, one per kind\n"
	"(axl.dev/nvidia-gpu, axl.dev/amd-gpu, ...: never the vendors' own kinds, which\n"
	"their toolkits write beside), and the fully qualified device names (docs/cdi.md).\n"
	"--json: (list) the names as a JSON array.",
};
