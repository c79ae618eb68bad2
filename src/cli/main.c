/* SPDX-License-Identifier: MIT */
/* The axl command. It uses only libaxl's public API. */
#define _GNU_SOURCE
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "axl.h"
#include "cli.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: axl [global options] <command> [options]\n"
		"\n"
		"commands:\n"
		"  list            the accelerators of this node, one line each\n"
		"  show ID         one device in full (ID: nvidia:0, a UUID or a PCI address)\n"
		"  topo            the best path between every pair of accelerators and to\n"
		"                  every RDMA NIC, as a matrix (like nvidia-smi topo -m)\n"
		"  capture         save what axl reads on this node (and the vendor libraries'\n"
		"                  answers) to one file, to replay elsewhere with --sysroot FILE\n"
		"  metrics [ID]    what every device (or one) is doing now: utilisation, memory,\n"
		"                  power, temperatures, clocks, PCIe, ECC, and its processes\n"
		"  serve           serve live metrics over HTTP for Prometheus: /metrics (text\n"
		"                  format 0.0.4), /healthz, /inventory (docs/metrics.md)\n"
		"  top             a live view of every device (bars, history) and its processes,\n"
		"                  like nvtop; keys: s sort, r reverse, j/k select, d filter,\n"
		"                  +/- interval, p pause, h help, q quit\n"
		"  cdi generate    Container Device Interface specs for this node's accelerators\n"
		"                  (one per kind: nvidia.com/gpu, amd.com/gpu, ...; docs/cdi.md)\n"
		"  cdi list        the fully qualified CDI device names (nvidia.com/gpu=0)\n"
		"  labels          Kubernetes node labels as a Node Feature Discovery feature file\n"
		"                  (count, product, memory, architecture, precisions, partitioning;\n"
		"                  docs/labels.md)\n"
		"  limit set ID --memory SIZE --compute PCT\n"
		"                  record a device's limits for workloads (SIZE: bytes or 16GiB,\n"
		"                  512M, 8GB; PCT: 1..100); either option may be left out\n"
		"  limit clear ID  forget them (succeeds when there are none)\n"
		"  limit list      the recorded limits (--json for a document)\n"
		"  limit env ID[,ID...]  the environment a workload on these devices gets\n"
		"                  (AXL_LIMIT_*, and HAMi-core's CUDA_DEVICE_* for NVIDIA);\n"
		"                  docs/limits.md\n"
		"  partition list|create DEV PROFILE|destroy ID...|cleanup|profiles DEV|mode DEV KIND MODE --yes\n"
		"                  MIG instances and AMD partition modes (docs/partitions.md)\n"
		"  plan MODEL [--quant Q] [--ctx N] [--batch N] [--kv-dtype D] [--devices LIST]\n"
		"       [--node FILE]... [--here] [--network-gbps X]\n"
		"                  will a model (catalog name, config.json, safetensors, GGUF) fit\n"
		"                  on this node, or on the nodes whose axl list --json are the FILEs\n"
		"                  (--here: and this node too); the split and the expected speed\n"
		"                  (docs/plan.md)\n"
		"  plan --list     the built-in model catalog\n"
		"  version         the version of axl and libaxl (also --version, -V)\n"
		"  help [COMMAND]  this text, or one command's usage and options\n"
		"\n"
		"options (the global ones, --sysroot, --sim, --backends, --env, --json, --compact and\n"
		"-v, may come before or after the command):\n"
		"  --json          print the JSON document (schema axl.inventory) instead of a table\n"
		"  --compact       JSON on one line\n"
		"  --all           also the host CPU and every PCI function considered\n"
		"  --timing        time spent per discovery stage (with --json: a \"timing\" object)\n"
		"  --sysroot PATH  read another node: a capture file (.tar.gz, .tar) or a folder\n"
		"  --sim FILE      a simulated node: devices of the device database named by an\n"
		"                  axl.sim JSON spec (docs/sim.md); never touches the hardware\n"
		"  -o, --output FILE  (capture) where to write it; axl-capture-HOSTNAME.tar.gz\n"
		"                  (cdi generate) a directory: one file per kind, axl-KIND.json\n"
		"  --format F      (cdi generate) json (default) or yaml\n"
		"                  (labels) write the feature file there, atomically (a dot-file\n"
		"                  renamed into place); default: standard output. NFD reads\n"
		"                  /etc/kubernetes/node-feature-discovery/features.d/\n"
		"  --expiry WHEN   (labels) '# +expiry-time=': a duration from now (90s, 30m, 12h,\n"
		"                  7d, 1h30m) or an RFC 3339 time (2030-01-01T00:00:00Z)\n"
		"  --prefix DOMAIN (labels) the labels' prefix (default axl.dev; '' for none, which\n"
		"                  NFD turns into feature.node.kubernetes.io)\n"
		"  --gfd           (labels) also the nvidia.com/* names NVIDIA's GPU Feature\n"
		"                  Discovery uses (gpu.product, gpu.count, gpu.memory, ...)\n"
		"  --backends LIST use only these backends (\"nvidia,amdgpu\") or not these (\"-nvidia\")\n"
		"  --env NAME=VALUE  judge visibility as if the environment held only these\n"
		"                  visibility variables (CUDA_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES, ...);\n"
		"                  repeatable; applies under --sysroot too\n"
		"  --interval MS   (metrics, top) sample every MS milliseconds; with --json, one JSON\n"
		"                  document per line; top: default 1000\n"
		"                  (serve) sample at most every MS milliseconds (default 100);\n"
		"                  scrapes in between share the last sample\n"
		"  --count N       (metrics, top) stop after N samples (default: 1, or forever with\n"
		"                  --interval)\n"
		"  --no-processes  (metrics, top) do not list processes (skips the /proc sweep)\n"
		"  --batch         (top) print N (--count, default 1) frames as plain text of\n"
		"                  COLUMNS x LINES (default 80x24) instead of the live screen;\n"
		"                  also when standard input or output is not a terminal\n"
		"  --listen ADDR:PORT  (serve) where to listen: 127.0.0.1:9400 by default,\n"
		"                  0.0.0.0:9400 for every IPv4 address, [::1]:9400 for IPv6\n"
		"  --dcgm          (serve) also dcgm-exporter's DCGM_FI_* names, for its dashboards\n"
		"  --processes     (serve) also per-process series (off by default: one series\n"
		"                  per process and device)\n"
		"  -v, --verbose   log diagnostics to standard error\n"
		"  -h, --help      this text; after a command, that command's (= axl help COMMAND)\n"
		"  -V, --version   the version (= axl version)\n"
		"\n"
		"environment: AXL_SYSROOT, AXL_SIM, AXL_BACKENDS, AXL_PCI_IDS (options win); the visibility\n"
		"variables (docs/visibility.md) on the live system; TMPDIR is where a capture\n"
		"given as sysroot is unpacked while axl runs. AXL_STATE_DIR: where axl limit keeps\n"
		"its records (default /run/axl for root, else $XDG_RUNTIME_DIR/axl or /tmp/axl-UID;\n"
		"under --sysroot only when given). AXL_PCI_LIBRARY, AXL_ZLIB_LIBRARY, AXL_MHD_LIBRARY,\n"
		"AXL_CURSES_LIBRARY: load that file instead of libpci.so.3 (pci.ids names), libz.so.1\n"
		"(capture files), libmicrohttpd.so.12 (serve) or libncursesw.so.6 (top), which axl\n"
		"loads only when it needs them.\n");
}

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
	/* --env: an explicit environment, the given variables plus axl's own settings */
	const char *env[MAX_ENV + 12];
	if (o->nenv) {
		int n = 0;
		for (int i = 0; i < o->nenv; i++)
			env[n++] = o->env[i];
		static const char *const own[] = {"AXL_SYSROOT",          "AXL_BACKENDS",         "AXL_PCI_IDS",
						  "AXL_PCI_LIBRARY",      "AXL_ZLIB_LIBRARY",     "AXL_NVML_LIBRARY",
						  "AXL_ROCM_SMI_LIBRARY",
						  "AXL_ZE_LIBRARY",       "AXL_VENDOR_TIMEOUT_MS", "AXL_SIM"};
		enum { NOWN = sizeof own / sizeof *own };
		static char keep[NOWN][4096];
		for (int k = 0; k < NOWN; k++) {
			const char *val = getenv(own[k]);
			if (val && strlen(val) < sizeof keep[k] - 16) {
				snprintf(keep[k], sizeof keep[k], "%s=%s", own[k], val);
				env[n++] = keep[k];
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

static const char *dstr(const axl_device *d, axl_attr a)
{
	const char *s = NULL;
	return axl_device_get_str(d, a, &s) == 0 ? s : NULL;
}

/* "  (hidden: reason)" for a device this process may not use, "  (partly visible: ...)"
 * for one it may use in part, "  (visibility unknown: ...)" when that cannot be told. */
static void visibility_note(const axl_device *d, char *out, size_t cap)
{
	int64_t vis;
	const char *why = dstr(d, AXL_ATTR_VISIBILITY_REASON);
	static const char partly[] = "partly visible: ";
	if (axl_device_get_int(d, AXL_ATTR_VISIBLE, &vis) != 0) {
		if (why)
			snprintf(out, cap, "  (visibility unknown: %s)", why);
		return;
	}
	if (vis)
		return;
	if (why && strncmp(why, partly, sizeof partly - 1) == 0)
		snprintf(out, cap, "  (partly visible: %s)", why + sizeof partly - 1);
	else
		snprintf(out, cap, "  (hidden%s%s)", why ? ": " : "", why ? why : "");
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

static void print_timing(const axl_inventory *inv)
{
	size_t n = axl_inventory_timing_count(inv);
	double total = 0;
	printf("\n%-12s %10s\n", "STAGE", "MS");
	for (size_t i = 0; i < n; i++) {
		const struct axl_timing *t = axl_inventory_timing(inv, i);
		printf("%-12s %10.3f\n", t->stage, t->milliseconds);
		total += t->milliseconds;
	}
	printf("%-12s %10.3f\n", "total", total);
}

/* A table cell for a number that may be unknown (negative): "-", never -1. */
static const char *cell(int64_t v, char *buf, size_t cap)
{
	if (v < 0)
		return "-";
	snprintf(buf, cap, "%" PRId64, v);
	return buf;
}

/* One line of `axl list`; partitions that exist now follow their device, indented. */
static void list_row(const axl_device *d, int depth)
{
	char mem[32] = "-", link[32] = "-", numa[16] = "-", drv[96] = "-", id[64];
	int64_t v, g, w;
	if (axl_device_get_int(d, AXL_ATTR_MEMORY_TOTAL, &v) == 0)
		human_bytes(v, mem, sizeof mem);
	if (axl_device_get_int(d, AXL_ATTR_LINK_CURRENT_GEN, &g) == 0 &&
	    axl_device_get_int(d, AXL_ATTR_LINK_CURRENT_WIDTH, &w) == 0)
		snprintf(link, sizeof link, "Gen%lld x%lld", (long long)g, (long long)w);
	if (axl_device_get_int(d, AXL_ATTR_NUMA_NODE, &v) == 0)
		snprintf(numa, sizeof numa, "%lld", (long long)v);
	const char *dn = dstr(d, AXL_ATTR_DRIVER), *dv = dstr(d, AXL_ATTR_DRIVER_VERSION);
	if (dn)
		snprintf(drv, sizeof drv, "%s%s%s", dn, dv ? " " : "", dv ? dv : "");
	const char *model = dstr(d, AXL_ATTR_MODEL);
	if (depth) {
		/* a child: its own name is the partition, not the whole model again */
		const char *prof = dstr(d, AXL_ATTR_PARTITION_PROFILE);
		const char *slash = strrchr(axl_device_id(d), '/');
		snprintf(id, sizeof id, "  %s", slash ? slash : axl_device_id(d));
		if (prof)
			model = prof;
		snprintf(link, sizeof link, "-");
		snprintf(drv, sizeof drv, "%s", dstr(d, AXL_ATTR_UUID) ? dstr(d, AXL_ATTR_UUID) : "-");
	} else {
		snprintf(id, sizeof id, "%s", axl_device_id(d));
	}
	char vis[600] = "";
	visibility_note(d, vis, sizeof vis);
	printf("%-14s %-36.36s %-10s %-10s %-5s %s%s\n", id, model ? model : "(unknown)", mem, link, numa, drv, vis);
	for (size_t i = 0; i < axl_device_child_count(d); i++)
		list_row(axl_device_child(d, i), depth + 1);
}

static int cmd_list(const struct opts *o)
{
	axl_context *ctx;
	axl_inventory *inv;
	if (open_inventory(o, &ctx, &inv))
		return 1;
	int rc = 0;
	if (o->json) {
		rc = print_json(inv, o);
	} else {
		size_t n = axl_inventory_device_count(inv);
		printf("%-14s %-36s %-10s %-10s %-5s %s\n", "ID", "MODEL", "MEMORY", "LINK", "NUMA", "DRIVER");
		for (size_t i = 0; i < n; i++)
			list_row(axl_inventory_device(inv, i), 0);
		if (n == 0)
			printf("(no accelerators found)\n");
		if (o->all) {
			size_t np = axl_inventory_pci_function_count(inv);
			printf("\n%-14s %-9s %-6s %-14s %-5s %s\n", "PCI", "ID", "CLASS", "DRIVER", "ACCEL", "WHY");
			for (size_t i = 0; i < np; i++) {
				const struct axl_pci_function *f = axl_inventory_pci_function(inv, i);
				char id[16] = "-", cls[8] = "-"; /* unknown: "-" */
				if (f->vendor_id >= 0 && f->device_id >= 0)
					snprintf(id, sizeof id, "%04x:%04x", f->vendor_id, f->device_id);
				if (f->class_code >= 0)
					snprintf(cls, sizeof cls, "%04x", f->class_code >> 8);
				printf("%-14s %-9s %-6s %-14s %-5s %s%s%s\n", f->address, id, cls,
				       f->driver ? f->driver : "-", f->accelerator ? "yes" : "no",
				       f->reason ? f->reason : "", f->name ? "; " : "", f->name ? f->name : "");
			}
		}
		if (o->timing)
			print_timing(inv);
		print_warnings(inv);
	}
	/* what a new user on a machine without accelerators tries next; standard error,
	 * so that the document on standard output stays what it is */
	size_t accels = 0;
	for (size_t i = 0; i < axl_inventory_device_count(inv); i++)
		accels += axl_device_family(axl_inventory_device(inv, i)) != AXL_FAMILY_CPU;
	if (rc == 0 && accels == 0)
		fprintf(stderr, "axl: no accelerators found; %saxl list --sim FILE shows a simulated node "
				"(axl help list, docs/sim.md)\n",
			o->all ? "" : "axl list --all shows every PCI function considered and why; ");
	axl_inventory_free(inv);
	axl_context_free(ctx);
	return rc;
}

static void kv(const char *k, const char *v)
{
	if (v)
		printf("  %-24s %s\n", k, v);
}

static int cmd_show(const struct opts *o, const char *id)
{
	axl_context *ctx;
	axl_inventory *inv;
	if (open_inventory(o, &ctx, &inv))
		return 1;
	const axl_device *d = axl_inventory_find(inv, id);
	int rc = 0;
	if (!d) {
		fprintf(stderr, "axl: no device '%s' (axl list shows the ids)\n", id);
		rc = 1;
	} else if (o->json) {
		char *doc;
		if (axl_device_json(d, o->compact ? 0 : AXL_JSON_PRETTY, &doc, NULL) == 0 && doc[0] == '{') {
			/* a document of its own (schema axl.device): the device object, the two
			 * keys every document carries first */
			if (o->compact)
				printf("{\"schema\":\"axl.device\",\"schema_version\":1,%s", doc + 1);
			else
				printf("{\n  \"schema\": \"axl.device\",\n  \"schema_version\": 1,%s", doc + 1);
			if (o->compact)
				fputc('\n', stdout);
			axl_free(doc);
		} else {
			rc = 1;
		}
	} else {
		printf("%s\n", axl_device_id(d));
		for (int a = 0; a < AXL_ATTR__COUNT; a++) {
			if (a == AXL_ATTR_ID || axl_device_source(d, (axl_attr)a) == AXL_SOURCE_NONE)
				continue;
			char val[512];
			const char *s;
			int64_t i;
			double f;
			if (axl_device_get_str(d, (axl_attr)a, &s) == 0)
				snprintf(val, sizeof val, "%s", s);
			else if (a == AXL_ATTR_FAMILY && axl_device_get_int(d, (axl_attr)a, &i) == 0)
				snprintf(val, sizeof val, "%s", axl_family_name((axl_family)i));
			else if ((a == AXL_ATTR_VENDOR_ID || a == AXL_ATTR_DEVICE_ID || a == AXL_ATTR_SUBSYSTEM_VENDOR_ID ||
				  a == AXL_ATTR_SUBSYSTEM_DEVICE_ID || a == AXL_ATTR_PCI_CLASS || a == AXL_ATTR_REVISION) &&
				 axl_device_get_int(d, (axl_attr)a, &i) == 0)
				snprintf(val, sizeof val, a == AXL_ATTR_PCI_CLASS ? "0x%06llx" :
							  a == AXL_ATTR_REVISION  ? "0x%02llx" : "0x%04llx",
					 (long long)i);
			else if ((a == AXL_ATTR_VISIBLE || a == AXL_ATTR_ECC_MODE || a == AXL_ATTR_ECC_PENDING_MODE ||
				  a == AXL_ATTR_PERSISTENCE_MODE) &&
				 axl_device_get_int(d, (axl_attr)a, &i) == 0)
				snprintf(val, sizeof val, "%s", i ? "true" : "false");
			else if (a == AXL_ATTR_MEMORY_TOTAL && axl_device_get_int(d, (axl_attr)a, &i) == 0) {
				char h[32];
				human_bytes(i, h, sizeof h);
				snprintf(val, sizeof val, "%lld (%s)", (long long)i, h);
			} else if (axl_device_get_int(d, (axl_attr)a, &i) == 0)
				snprintf(val, sizeof val, "%lld", (long long)i);
			else if (axl_device_get_num(d, (axl_attr)a, &f) == 0)
				snprintf(val, sizeof val, "%g", f);
			else
				continue;
			char key[64];
			snprintf(key, sizeof key, "%s", axl_attr_name((axl_attr)a));
			printf("  %-24s %-40s [%s]\n", key, val, axl_source_name(axl_device_source(d, (axl_attr)a)));
		}
		size_t nn = axl_device_node_count(d);
		for (size_t i = 0; i < nn; i++)
			kv(i == 0 ? "device_nodes" : "", axl_device_node(d, i));
		size_t nc = axl_device_compute_unit_count(d);
		for (size_t i = 0; i < nc; i++) {
			const struct axl_compute_unit *c = axl_device_compute_unit(d, i);
			printf("  %-24s %s x %lld [%s]\n", i == 0 ? "compute_units" : "", c->name, (long long)c->count,
			       axl_source_name(c->source));
		}
		size_t np = axl_device_precision_count(d);
		for (size_t i = 0; i < np; i++) {
			const struct axl_precision *p = axl_device_precision(d, i);
			char peak[32] = "";
			if (p->peak_tflops >= 0)
				snprintf(peak, sizeof peak, " %.1f TFLOPS", p->peak_tflops);
			printf("  %-24s %-5s %s%s [%s]\n", i == 0 ? "precision" : "", axl_format_name(p->format),
			       axl_support_name(p->support), peak, axl_source_name(p->source));
		}
		size_t nparts = axl_device_partitioning_count(d);
		for (size_t i = 0; i < nparts; i++) {
			const struct axl_partitioning *p = axl_device_partitioning(d, i);
			printf("  %-24s %s", i == 0 ? "partitioning" : "", p->technology);
			if (p->mode)
				printf(" mode=%s", p->mode);
			if (p->pending_mode)
				printf(" pending=%s", p->pending_mode);
			if (p->max_partitions >= 0)
				printf(" max=%lld", (long long)p->max_partitions);
			for (size_t j = 0; j < p->profile_count; j++)
				printf("%s%s", j ? "," : " profiles=", p->profiles[j]);
			printf(" [%s]\n", axl_source_name(p->source));
			for (size_t j = 0; j < p->profile_count; j++) {
				const struct axl_partition_profile *x = axl_device_partition_profile(d, i, j);
				if (!x)
					continue;
				char mem[32] = "-";
				if (x->memory_bytes >= 0)
					human_bytes(x->memory_bytes, mem, sizeof mem);
				char c[5][24];
				printf("  %-24s   %-12s id=%s mem=%s units=%s slices=%s instances=%s free=%s\n", "", x->name,
				       cell(x->id, c[0], sizeof c[0]), mem, cell(x->compute_units, c[1], sizeof c[1]),
				       cell(x->slices, c[2], sizeof c[2]), cell(x->max_instances, c[3], sizeof c[3]),
				       cell(x->free_instances, c[4], sizeof c[4]));
			}
		}
		for (size_t i = 0; i < axl_device_port_count(d); i++) {
			const struct axl_port *p = axl_device_port(d, i);
			char ix[24];
			printf("  %-24s %s %s %s", i == 0 ? "ports" : "", p->technology, cell(p->index, ix, sizeof ix),
			       p->active == 1 ? "up" : p->active == 0 ? "down" : "-");
			if (p->remote_kind)
				printf(" to %s", p->remote_kind);
			if (p->remote_id || p->remote_pci)
				printf(" %s", p->remote_id ? p->remote_id : p->remote_pci);
			if (p->bandwidth_gbps >= 0)
				printf(" %.0f GB/s", p->bandwidth_gbps);
			printf(" [%s]\n", axl_source_name(p->source));
		}
		for (size_t i = 0; i < axl_device_child_count(d); i++) {
			const axl_device *c = axl_device_child(d, i);
			const char *prof = dstr(c, AXL_ATTR_PARTITION_PROFILE), *uuid = dstr(c, AXL_ATTR_UUID);
			printf("  %-24s %s%s%s%s%s\n", i == 0 ? "children" : "", axl_device_id(c), prof ? " " : "",
			       prof ? prof : "", uuid ? " " : "", uuid ? uuid : "");
		}
		print_warnings(inv);
	}
	axl_inventory_free(inv);
	axl_context_free(ctx);
	return rc;
}

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

static int cmd_capture(const struct opts *o, int argc, char **argv)
{
	char def[320];
	const char *out = o->output;
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
	char *cmdline = join_args(argc, argv);
	co.command_line = cmdline;
	size_t members = 0;
	int rc = axl_capture_write(ctx, out, &co, &members);
	free(cmdline);
	print_warnings(inv);
	size_t ndev = axl_inventory_device_count(inv);
	axl_inventory_free(inv);
	axl_context_free(ctx);
	if (rc) {
		fprintf(stderr, "axl: %s\n", axl_error_last()[0] ? axl_error_last() : axl_strerror(rc));
		return 1;
	}
	struct stat st;
	char size[32] = "?";
	if (stat(out, &st) == 0)
		human_bytes((int64_t)st.st_size, size, sizeof size);
	printf("wrote %s: %zu members, %s, %zu device%s\n", out, members, size, ndev,
	       ndev == 1 ? "" : "s");
	printf("it holds this node's host name and serial numbers; replay it with "
	       "axl list --sysroot %s\n", out);
	return 0;
}

/* Apply one option; returns 0, or the exit code to leave with (+1). */
static int apply_opt(struct opts *o, int c)
{
	switch (c) {
	case 'j': o->json = 1; return 0;
	case 'a': o->all = 1; return 0;
	case 't': o->timing = 1; return 0;
	case 's': o->sysroot = optarg; return 0;
	case 'S': o->sim = optarg; return 0;
	case 'b': o->backends = optarg; return 0;
	case 'v': o->verbose = 1; return 0;
	case 'c': o->compact = 1; o->json = 1; return 0;
	case 'e':
		if (!strchr(optarg, '=') || optarg[0] == '=') {
			fprintf(stderr, "axl: --env takes NAME=VALUE, not '%s'\n", optarg);
			return EXIT_USAGE + 1;
		}
		if (o->nenv >= MAX_ENV) {
			fprintf(stderr, "axl: at most %d --env options\n", MAX_ENV);
			return EXIT_USAGE + 1;
		}
		o->env[o->nenv++] = optarg;
		return 0;
	case 'o': o->output = optarg; return 0;
	case 'i': {
		char *end;
		long v = strtol(optarg, &end, 10);
		if (*end || end == optarg || v < 1 || v > 86400000) {
			fprintf(stderr, "axl: --interval takes milliseconds (1..86400000), not '%s'\n", optarg);
			return EXIT_USAGE + 1;
		}
		o->interval_ms = (int)v;
		return 0;
	}
	case 'n': {
		char *end;
		long v = strtol(optarg, &end, 10);
		if (*end || end == optarg || v < 1) {
			fprintf(stderr, "axl: --count takes a positive number, not '%s'\n", optarg);
			return EXIT_USAGE + 1;
		}
		o->count = v;
		return 0;
	}
	case 'P': o->no_processes = 1; return 0;
	case 'L': o->listen = optarg; return 0;
	case 'D': o->dcgm = 1; return 0;
	case 'p': o->processes = 1; return 0;
	case 'B': o->batch = 1; return 0;
	case 'F': o->format = optarg; return 0;
	case 'X': o->expiry = optarg; return 0;
	case 'R': o->prefix = optarg; return 0;
	case 'G': o->gfd = 1; return 0;
	case 'h': o->help = 1; return 0;
	case 'V': o->version = 1; return 0;
	default: usage(stderr); return EXIT_USAGE + 1;
	}
}

/* Global options typed after the command name ("axl plan MODEL --sim F", "axl list
 * --sysroot X --json"): taken out of argv[first..argc) wherever they stand, up to a "--",
 * so that each command sees only its own. *argc becomes the new count. Returns 0, or the
 * exit code to leave with (+1). */
static int take_globals(struct opts *o, int *argc, char **argv, int first)
{
	static const struct {
		const char *name;
		int value;
	} g[] = {{"--sysroot", 1}, {"--sim", 1}, {"--backends", 1}, {"--env", 1}, {"--json", 0},
		 {"--compact", 0}, {"--verbose", 0}, {"-v", 0}, {"--help", 0}, {"-h", 0}};
	int out = first;
	for (int i = first; i < *argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--") == 0) { /* the rest is the command's, untouched */
			while (i < *argc)
				argv[out++] = argv[i++];
			break;
		}
		const char *eq = strncmp(a, "--", 2) == 0 ? strchr(a, '=') : NULL;
		size_t len = eq ? (size_t)(eq - a) : strlen(a);
		int k = -1;
		for (int j = 0; j < (int)(sizeof g / sizeof *g); j++)
			if (strlen(g[j].name) == len && strncmp(a, g[j].name, len) == 0)
				k = j;
		if (k < 0) {
			argv[out++] = argv[i];
			continue;
		}
		const char *val = NULL;
		if (g[k].value) {
			if (eq)
				val = eq + 1;
			else if (i + 1 < *argc)
				val = argv[++i];
			if (!val || !*val) {
				fprintf(stderr, "axl: %s needs a value\n", g[k].name);
				return EXIT_USAGE + 1;
			}
		} else if (eq) {
			fprintf(stderr, "axl: %s takes no value\n", g[k].name);
			return EXIT_USAGE + 1;
		}
		int c = 0;
		switch (k) {
		case 0: c = 's'; break;
		case 1: c = 'S'; break;
		case 2: c = 'b'; break;
		case 3: c = 'e'; break;
		case 4: c = 'j'; break;
		case 5: c = 'c'; break;
		case 6:
		case 7: c = 'v'; break;
		default: o->help = 1; continue;
		}
		optarg = (char *)val;
		int r = apply_opt(o, c);
		if (r)
			return r;
	}
	*argc = out;
	argv[out] = NULL;
	return 0;
}

static int print_version(void)
{
	printf("axl %s (libaxl %s)\n", AXL_VERSION_STRING, axl_version());
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o = {0};
	static const struct option longopts[] = {
		{"json", no_argument, NULL, 'j'},      {"all", no_argument, NULL, 'a'},
		{"timing", no_argument, NULL, 't'},    {"sysroot", required_argument, NULL, 's'},
		{"backends", required_argument, NULL, 'b'}, {"verbose", no_argument, NULL, 'v'},
		{"compact", no_argument, NULL, 'c'},   {"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{"env", required_argument, NULL, 'e'},
		{"output", required_argument, NULL, 'o'},
		{"interval", required_argument, NULL, 'i'},
		{"count", required_argument, NULL, 'n'},
		{"no-processes", no_argument, NULL, 'P'},
		{"listen", required_argument, NULL, 'L'},
		{"dcgm", no_argument, NULL, 'D'},
		{"processes", no_argument, NULL, 'p'},
		{"batch", no_argument, NULL, 'B'},
		{"format", required_argument, NULL, 'F'},
		{"expiry", required_argument, NULL, 'X'},
		{"prefix", required_argument, NULL, 'R'},
		{"gfd", no_argument, NULL, 'G'},
		{"sim", required_argument, NULL, 'S'},
		{NULL, 0, NULL, 0},
	};
	int c, r;
	/* options may come before or after the command ("+": stop at the command) */
	while ((c = getopt_long(argc, argv, "+hvVo:", longopts, NULL)) != -1)
		if ((r = apply_opt(&o, c)))
			return r - 1;
	if (o.version)
		return print_version();
	if (optind >= argc) {
		usage(o.help ? stdout : stderr);
		return o.help ? 0 : EXIT_USAGE;
	}
	const char *cmd = argv[optind++];
	const struct cli_command *cc = cli_command_find(cmd);
	if (!cc) {
		fprintf(stderr, "axl: unknown command '%s' (axl help lists them)\n", cmd);
		return EXIT_USAGE;
	}
	/* the global options, wherever they were typed */
	if ((r = take_globals(&o, &argc, argv, optind)))
		return r - 1;
	if (strcmp(cmd, "help") == 0 || o.help) {
		const char *topic = strcmp(cmd, "help") == 0 ? (optind < argc ? argv[optind] : NULL) : cmd;
		const struct cli_command *t = topic ? cli_command_find(topic) : NULL;
		if (topic && !t) {
			fprintf(stderr, "axl: help: no command '%s'\n", topic);
			usage(stderr);
			return EXIT_USAGE;
		}
		if (t)
			cli_command_help(stdout, t);
		else
			usage(stdout);
		return 0;
	}
	if (o.sim && strcmp(cmd, "capture") == 0) {
		fprintf(stderr, "axl: a simulated node has nothing to capture (--sim)\n");
		return EXIT_USAGE;
	}
	const char *bad = cli_global_refusal(cc, &o);
	if (bad) {
		fprintf(stderr, "axl: %s means nothing to axl %s (axl help %s)\n", bad, cmd, cmd);
		return EXIT_USAGE;
	}
	if (o.sim && o.sysroot) {
		fprintf(stderr, "axl: --sim and --sysroot exclude each other (a simulated node has no tree to read)\n");
		return EXIT_USAGE;
	}
	/* axl limit, partition and plan have subcommands and options of their own */
	if (strcmp(cmd, "limit") == 0)
		return cmd_limit(&o, argc, argv, optind);
	if (strcmp(cmd, "partition") == 0)
		return cmd_partition(&o, argc, argv, optind);
	if (strcmp(cmd, "plan") == 0)
		return cmd_plan(&o, argc, argv, optind);
	const char *arg = NULL;
	while (optind < argc) {
		if (argv[optind][0] == '-' && argv[optind][1]) {
			c = getopt_long(argc, argv, "+hvVo:", longopts, NULL);
			if (c == -1)
				break;
			if (c == 'V') {
				fprintf(stderr, "axl: --version goes before the command (axl --version)\n");
				return EXIT_USAGE;
			}
			if ((r = apply_opt(&o, c)))
				return r - 1;
			continue;
		}
		if (arg) {
			fprintf(stderr, "axl: unexpected argument '%s'\n", argv[optind]);
			return EXIT_USAGE;
		}
		arg = argv[optind++];
	}
	if (optind < argc) {
		fprintf(stderr, "axl: unexpected argument '%s'\n", argv[optind]);
		return EXIT_USAGE;
	}
	if (o.output && strcmp(cmd, "capture") != 0 && strcmp(cmd, "cdi") != 0 && strcmp(cmd, "labels") != 0) {
		fprintf(stderr, "axl: -o/--output is for axl capture, axl cdi generate and axl labels\n");
		return EXIT_USAGE;
	}
	if ((o.expiry || o.prefix || o.gfd) && strcmp(cmd, "labels") != 0) {
		fprintf(stderr, "axl: --expiry, --prefix and --gfd are for axl labels\n");
		return EXIT_USAGE;
	}
	if (o.batch && strcmp(cmd, "top") != 0) {
		fprintf(stderr, "axl: --batch is for axl top\n");
		return EXIT_USAGE;
	}
	if (o.format && strcmp(cmd, "cdi") != 0) {
		fprintf(stderr, "axl: --format is for axl cdi generate\n");
		return EXIT_USAGE;
	}
	if (strcmp(cmd, "list") == 0) {
		if (arg) {
			fprintf(stderr, "axl: list takes no argument\n");
			return EXIT_USAGE;
		}
		return cmd_list(&o);
	}
	if (strcmp(cmd, "show") == 0) {
		if (!arg) {
			fprintf(stderr, "axl: show needs a device id (axl list shows them)\n");
			return EXIT_USAGE;
		}
		return cmd_show(&o, arg);
	}
	if (strcmp(cmd, "topo") == 0) {
		if (arg) {
			fprintf(stderr, "axl: topo takes no argument\n");
			return EXIT_USAGE;
		}
		return cmd_topo(&o);
	}
	if (strcmp(cmd, "capture") == 0) {
		if (arg) {
			fprintf(stderr, "axl: capture takes no argument (the file goes after -o)\n");
			return EXIT_USAGE;
		}
		return cmd_capture(&o, argc, argv);
	}
	if (strcmp(cmd, "metrics") == 0)
		return cmd_metrics(&o, arg);
	if (strcmp(cmd, "serve") == 0) {
		if (arg) {
			fprintf(stderr, "axl: serve takes no argument (--listen ADDR:PORT says where)\n");
			return EXIT_USAGE;
		}
		return cmd_serve(&o);
	}
	if (strcmp(cmd, "top") == 0) {
		if (arg) {
			fprintf(stderr, "axl: top takes no argument\n");
			return EXIT_USAGE;
		}
		return cmd_top(&o);
	}
	if (strcmp(cmd, "cdi") == 0)
		return cmd_cdi(&o, arg);
	if (strcmp(cmd, "labels") == 0) {
		if (arg) {
			fprintf(stderr, "axl: labels takes no argument (the file goes after -o)\n");
			return EXIT_USAGE;
		}
		return cmd_labels(&o);
	}
	if (arg) {
		fprintf(stderr, "axl: version takes no argument\n");
		return EXIT_USAGE;
	}
	return print_version();
}
