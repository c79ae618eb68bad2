/* SPDX-License-Identifier: MIT */
/* axl labels: Kubernetes node labels as a Node Feature Discovery feature file (the
 * "local" source's features.d format: one name=value a line, an optional
 * "# +expiry-time=RFC3339" directive first, at most 64 KiB). Vendor-neutral labels under
 * a prefix (axl.dev by default), and with --gfd also the names the vendor's own
 * labelling tool writes (axl_runtime.labels). The labels are sorted, so the same node gives the same file.
 * See docs/labels.md. Uses only libaxl's public API. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "../util/file.h"

/* NFD's limit on a feature file (source/local: MaxFeatureFileSize) */
#define FEATURE_FILE_MAX 65536
/* a label value, and the name part of a key, are at most 63 characters */
#define LABEL_MAX 63

struct label {
	char *key;
	char *val;
};

struct lset {
	struct label *v;
	size_t n, cap;
	const char *prefix; /* "" for none */
	int failed;         /* out of memory */
};

/* A label value: runs of characters outside [A-Za-z0-9_.-] become one '-', the value
 * begins and ends with an alphanumeric, and is at most 63 characters ("" when nothing
 * is left). Spaces become '-' as GFD does for product names. */
static void sanitize_value(const char *in, char out[LABEL_MAX + 1])
{
	size_t o = 0;
	int dash = 0;
	for (const unsigned char *p = (const unsigned char *)in; *p && o < LABEL_MAX; p++) {
		if (isalnum(*p) || *p == '_' || *p == '.' || *p == '-') {
			if (dash && o > 0 && o < LABEL_MAX)
				out[o++] = '-';
			dash = 0;
			if (o < LABEL_MAX)
				out[o++] = (char)*p;
		} else {
			dash = 1;
		}
	}
	out[o] = '\0';
	/* trim non-alphanumerics at both ends (after truncation too) */
	while (o > 0 && !isalnum((unsigned char)out[o - 1]))
		out[--o] = '\0';
	size_t s = 0;
	while (out[s] && !isalnum((unsigned char)out[s]))
		s++;
	if (s)
		memmove(out, out + s, o - s + 1);
}

/* One dot-separated segment of a key's name: lowercase, [a-z0-9-], no leading or
 * trailing '-' ("AMD-CPX" -> "amd-cpx", "SR-IOV" -> "sr-iov"). */
static void sanitize_segment(const char *in, char *out, size_t cap)
{
	size_t o = 0;
	for (const unsigned char *p = (const unsigned char *)in; *p && o + 1 < cap; p++) {
		char c = isalnum(*p) ? (char)tolower(*p) : '-';
		if (c == '-' && (o == 0 || out[o - 1] == '-'))
			continue;
		out[o++] = c;
	}
	while (o > 0 && out[o - 1] == '-')
		o--;
	out[o] = '\0';
	if (!o)
		snprintf(out, cap, "unknown");
}

/* Does `name` (the part after the prefix) follow the label-name syntax? */
static int valid_name(const char *name)
{
	size_t n = strlen(name);
	if (n == 0 || n > LABEL_MAX || !isalnum((unsigned char)name[0]) || !isalnum((unsigned char)name[n - 1]))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)name[i]) && !strchr("-_.", name[i]))
			return 0;
	return 1;
}

/* A prefix is a DNS subdomain: at most 253 characters, dot-separated lowercase labels of
 * [a-z0-9-] that begin and end with an alphanumeric. "" is allowed (no prefix). */
static int valid_prefix(const char *p)
{
	size_t n = strlen(p);
	if (n == 0)
		return 1;
	if (n > 253)
		return 0;
	size_t seg = 0;
	for (size_t i = 0; i <= n; i++) {
		char c = p[i];
		if (c == '.' || c == '\0') {
			if (seg == 0 || seg > 63 || p[i - 1] == '-')
				return 0;
			seg = 0;
			continue;
		}
		if (!(islower((unsigned char)c) || isdigit((unsigned char)c) || c == '-'))
			return 0;
		if (seg == 0 && c == '-')
			return 0;
		seg++;
	}
	return 1;
}

/* Add full key (already prefixed) = value (sanitised). A key seen before keeps its
 * first value. Values that sanitise to nothing are dropped. */
static void add_full(struct lset *s, const char *key, const char *raw)
{
	char val[LABEL_MAX + 1];
	sanitize_value(raw, val);
	if (!val[0] && raw[0])
		return;
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->v[i].key, key) == 0)
			return;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		struct label *v = realloc(s->v, cap * sizeof *v);
		if (!v) {
			s->failed = 1;
			return;
		}
		s->v = v;
		s->cap = cap;
	}
	char *k = strdup(key), *vv = strdup(val);
	if (!k || !vv) {
		free(k);
		free(vv);
		s->failed = 1;
		return;
	}
	s->v[s->n].key = k;
	s->v[s->n].val = vv;
	s->n++;
}

/* Add <prefix>/<name> = printf(fmt, ...). */
static void add(struct lset *s, const char *name, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add(struct lset *s, const char *name, const char *fmt, ...)
{
	if (!valid_name(name)) {
		fprintf(stderr, "axl: warning: label name '%s' is not valid; left out\n", name);
		return;
	}
	char raw[512], key[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof raw, fmt, ap);
	va_end(ap);
	snprintf(key, sizeof key, "%s%s%s", s->prefix, s->prefix[0] ? "/" : "", name);
	add_full(s, key, raw);
}

static int cmp_label(const void *a, const void *b)
{
	return strcmp(((const struct label *)a)->key, ((const struct label *)b)->key);
}

/* A set of devices: all accelerators of the node, or those of one kind. */
struct group {
	char kind[32]; /* the id's prefix ("nvidia", "amdgpu"); "" for all */
	const axl_device **dev;
	size_t n;
};

/* The most common model of the group (ties: the smallest string); NULL when no device
 * has a model. *rep is the first device with it. */
static const char *common_model(const struct group *g, const axl_device **rep)
{
	const char *best = NULL;
	size_t best_n = 0;
	*rep = g->n ? g->dev[0] : NULL;
	for (size_t i = 0; i < g->n; i++) {
		const char *m = cli_str(g->dev[i], AXL_ATTR_MODEL);
		if (!m)
			continue;
		size_t c = 0;
		const axl_device *first = NULL;
		for (size_t j = 0; j < g->n; j++) {
			const char *mj = cli_str(g->dev[j], AXL_ATTR_MODEL);
			if (mj && strcmp(mj, m) == 0) {
				c++;
				if (!first)
					first = g->dev[j];
			}
		}
		if (c > best_n || (c == best_n && strcmp(m, best) < 0)) {
			best = m;
			best_n = c;
			*rep = first;
		}
	}
	return best;
}

/* The smallest memory (MiB) among the group's devices of `model` (all when NULL); -1
 * when none is known. */
static int64_t group_memory_mib(const struct group *g, const char *model)
{
	int64_t best = -1, v;
	for (size_t i = 0; i < g->n; i++) {
		const char *m = cli_str(g->dev[i], AXL_ATTR_MODEL);
		if (model && (!m || strcmp(m, model) != 0))
			continue;
		if (axl_device_get_int(g->dev[i], AXL_ATTR_MEMORY_TOTAL, &v) == 0 && v > 0)
			if (best < 0 || v / (1024 * 1024) < best)
				best = v / (1024 * 1024);
	}
	return best;
}

/* count, product, memory, family, architecture of a group under name prefix `np`
 * ("" or "nvidia."). Returns the representative device (or NULL). */
static const axl_device *describe(struct lset *s, const struct group *g, const char *np, const char **model_out)
{
	char name[128];
	snprintf(name, sizeof name, "%scount", np);
	add(s, name, "%zu", g->n);
	const axl_device *rep = NULL;
	const char *model = common_model(g, &rep);
	if (model_out)
		*model_out = model;
	if (!rep)
		return NULL;
	if (model) {
		snprintf(name, sizeof name, "%sproduct", np);
		add(s, name, "%s", model);
	}
	int64_t mib = group_memory_mib(g, model);
	if (mib > 0) {
		snprintf(name, sizeof name, "%smemory", np);
		add(s, name, "%lld", (long long)mib);
	}
	axl_family fam = axl_device_family(rep);
	if (fam != AXL_FAMILY_UNKNOWN) {
		snprintf(name, sizeof name, "%sfamily", np);
		add(s, name, "%s", axl_family_name(fam));
	}
	const char *arch = cli_str(rep, AXL_ATTR_ARCHITECTURE);
	if (arch) {
		snprintf(name, sizeof name, "%sarchitecture", np);
		add(s, name, "%s", arch);
	}
	return rep;
}

/* Precision formats every device of the group with a precision table supports:
 * "true" when all support it natively, "emulated" when some only emulate it. */
static void precisions(struct lset *s, const struct group *g, const char *np)
{
	for (int f = 0; f < AXL_FORMAT__COUNT; f++) {
		int with_table = 0, native = 0, emulated = 0;
		for (size_t i = 0; i < g->n; i++) {
			size_t pc = axl_device_precision_count(g->dev[i]);
			if (!pc)
				continue;
			with_table++;
			for (size_t j = 0; j < pc; j++) {
				const struct axl_precision *p = axl_device_precision(g->dev[i], j);
				if ((int)p->format != f)
					continue;
				if (p->support == AXL_SUPPORT_NATIVE)
					native++;
				else if (p->support == AXL_SUPPORT_EMULATED)
					emulated++;
				break;
			}
		}
		if (!with_table || native + emulated != with_table)
			continue;
		char seg[32], name[128];
		sanitize_segment(axl_format_name((axl_format)f), seg, sizeof seg);
		snprintf(name, sizeof name, "%sprecision.%s", np, seg);
		add(s, name, "%s", emulated ? "emulated" : "true");
	}
}

/* Is d of the product the group's labels name (model; any when NULL)? */
static bool of_model(const axl_device *d, const char *model)
{
	const char *m = cli_str(d, AXL_ATTR_MODEL);
	return !model || (m && strcmp(m, model) == 0);
}

/* Partitioning technologies the devices of the group's product (`model`, as product and
 * memory; all devices when NULL) offer, with the current mode and the most partitions when
 * they agree ("mixed" for modes that differ), and the number of partitions that exist now
 * on the whole group. An L4 beside H100s is not labelled MIG-capable by them. */
static void partitioning(struct lset *s, const struct group *g, const char *np, const char *model)
{
	/* the technologies, in the order first seen (the output is sorted later) */
	const char *tech[16];
	size_t nt = 0;
	size_t children = 0;
	for (size_t i = 0; i < g->n; i++) {
		children += axl_device_child_count(g->dev[i]);
		if (!of_model(g->dev[i], model))
			continue;
		for (size_t j = 0; j < axl_device_partitioning_count(g->dev[i]); j++) {
			const char *t = axl_device_partitioning(g->dev[i], j)->technology;
			size_t k;
			for (k = 0; k < nt && strcmp(tech[k], t) != 0; k++)
				;
			if (k == nt && nt < 16)
				tech[nt++] = t;
		}
	}
	char name[160], seg[40];
	for (size_t k = 0; k < nt; k++) {
		const char *mode = NULL;
		int mode_mixed = 0, max_mixed = 0;
		int64_t maxp = -2;
		for (size_t i = 0; i < g->n; i++)
			for (size_t j = 0; of_model(g->dev[i], model) && j < axl_device_partitioning_count(g->dev[i]);
			     j++) {
				const struct axl_partitioning *p = axl_device_partitioning(g->dev[i], j);
				if (strcmp(p->technology, tech[k]) != 0)
					continue;
				if (!mode && !mode_mixed)
					mode = p->mode;
				else if (!mode || !p->mode || strcmp(mode, p->mode) != 0)
					mode_mixed = 1;
				if (maxp == -2)
					maxp = p->max_partitions;
				else if (maxp != p->max_partitions)
					max_mixed = 1;
			}
		sanitize_segment(tech[k], seg, sizeof seg);
		snprintf(name, sizeof name, "%spartition.%s", np, seg);
		add(s, name, "true");
		if (mode_mixed || mode) {
			snprintf(name, sizeof name, "%spartition.%s.mode", np, seg);
			add(s, name, "%s", mode_mixed ? "mixed" : mode);
		}
		if (!max_mixed && maxp > 0) {
			snprintf(name, sizeof name, "%spartition.%s.max", np, seg);
			add(s, name, "%lld", (long long)maxp);
		}
	}
	if (children) {
		snprintf(name, sizeof name, "%spartition.count", np);
		add(s, name, "%zu", children);
	}
}

/* The labels of one kind of device: <kind>.* */
static void describe_kind(struct lset *s, const struct group *g)
{
	char np[48], name[128];
	snprintf(np, sizeof np, "%s.", g->kind);
	const char *model = NULL;
	const axl_device *rep = describe(s, g, np, &model);
	if (!rep)
		return;
	static const struct {
		axl_attr attr;
		const char *suffix;
	} text[] = {{AXL_ATTR_VENDOR, "vendor"},
		    {AXL_ATTR_DRIVER, "driver"},
		    {AXL_ATTR_DRIVER_VERSION, "driver.version"},
		    {AXL_ATTR_COMPUTE_CAPABILITY, "compute-capability"}};
	for (size_t k = 0; k < sizeof text / sizeof *text; k++) {
		const char *v = cli_str(rep, text[k].attr);
		if (v) {
			snprintf(name, sizeof name, "%s%s", np, text[k].suffix);
			add(s, name, "%s", v);
		}
	}
	/* and the attributes the vendor names (axl_device_runtime) */
	const struct axl_runtime *rt = axl_device_runtime(rep);
	for (size_t k = 0; rt && rt->attrs[k].label; k++) {
		const char *v = cli_str(rep, rt->attrs[k].attr);
		if (v) {
			snprintf(name, sizeof name, "%s%s", np, rt->attrs[k].label);
			add(s, name, "%s", v);
		}
	}
	precisions(s, g, np);
	partitioning(s, g, np, model);
}

static void add_vendor_label(const char *key, const char *value, void *userdata)
{
	add_full(userdata, key, value);
}

/* With --gfd: the names the vendor's own labelling tool writes (NVIDIA's GPU Feature
 * Discovery), from what axl knows; the vendor's backend computes them
 * (axl_runtime.labels). */
static void vendor_labels(struct lset *s, const struct group *g)
{
	const axl_device *rep = NULL;
	const char *model = common_model(g, &rep);
	const struct axl_runtime *rt = rep ? axl_device_runtime(rep) : NULL;
	if (!rt || !rt->labels)
		return;
	struct axl_runtime_group rg = {g->dev, g->n, rep, model, group_memory_mib(g, model)};
	rt->labels(&rg, add_vendor_label, s);
}

/* --expiry: a duration ("90s", "30m", "12h", "7d", "1h30m") from now (*secs), or an RFC
 * 3339 time kept as given (in out, *secs 0). 0, or -1 (err says why when it is a
 * duration's fault, else is empty). */
static int expiry_parse(const char *arg, char *out, size_t cap, long long *secs, char *err, size_t err_cap)
{
	err[0] = '\0';
	*secs = 0;
	int y, mo, d, h, mi, sec, n = 0;
	static const char shape[] = "dddd-dd-ddTdd:dd:dd";
	int fits = strlen(arg) >= sizeof shape - 1;
	for (size_t i = 0; fits && i < sizeof shape - 1; i++)
		fits = shape[i] == 'd' ? isdigit((unsigned char)arg[i]) != 0 : arg[i] == shape[i];
	if (fits && sscanf(arg, "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &sec, &n) == 6 && n == 19) {
		const char *p = arg + n;
		if (*p == '.') {
			p++;
			if (!isdigit((unsigned char)*p))
				return -1;
			while (isdigit((unsigned char)*p))
				p++;
		}
		if (strcmp(p, "Z") != 0) {
			if ((p[0] != '+' && p[0] != '-') || strlen(p) != 6 || !isdigit((unsigned char)p[1]) ||
			    !isdigit((unsigned char)p[2]) || p[3] != ':' || !isdigit((unsigned char)p[4]) ||
			    !isdigit((unsigned char)p[5]))
				return -1;
		}
		if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60 || y < 0)
			return -1;
		snprintf(out, cap, "%s", arg);
		return 0;
	}
	/* a duration, with its unit as every duration of the command line ("3600" is refused:
	 * seconds to one reader, milliseconds to the next) */
	int64_t ms;
	if (cli_parse_duration(arg, &ms, err, err_cap) != 0)
		return -1;
	if (ms < 1000 || ms > 100LL * 365 * 86400 * 1000) {
		snprintf(err, err_cap, "%s: out of range (1s to 100 years)", arg);
		return -1;
	}
	*secs = (long long)(ms / 1000);
	return 0;
}

static void rfc3339(long long t, char *out, size_t cap)
{
	time_t tt = (time_t)t;
	struct tm tm;
	gmtime_r(&tt, &tm);
	strftime(out, cap, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int labels_setup(struct labels_job *j, const struct opts *o, const struct labels_opts *lo, const char *path)
{
	memset(j, 0, sizeof *j);
	j->o = o;
	j->lo = lo;
	j->path = path;
	j->prefix = lo->prefix ? lo->prefix : "axl.dev";
	if (!valid_prefix(j->prefix)) {
		fprintf(stderr,
			"axl %s: --prefix '%s' is not a DNS subdomain (lowercase letters, digits, '-' and '.', "
			"at most 253 characters)\n",
			lo->cmd, j->prefix);
		return EXIT_USAGE;
	}
	char err[256];
	if (lo->expiry && expiry_parse(lo->expiry, j->expiry_at, sizeof j->expiry_at, &j->expiry_s, err, sizeof err)) {
		if (isdigit((unsigned char)lo->expiry[0]) && !strchr(lo->expiry, '-') && err[0])
			fprintf(stderr, "axl %s: --expiry %s (axl help %s)\n", lo->cmd, err, lo->cmd);
		else
			fprintf(stderr,
				"axl %s: --expiry takes a duration (90s, 30m, 12h, 7d, 1h30m) or an RFC 3339 time "
				"(2030-01-01T00:00:00Z), not '%s' (axl help %s)\n",
				lo->cmd, lo->expiry, lo->cmd);
		return EXIT_USAGE;
	}
	return 0;
}

/* The feature file's content from a fresh inventory, into *out (malloc'd). 0, or 1
 * after a message. */
static int labels_render(const struct labels_job *j, const char *expiry, char **out, size_t *outlen)
{
	const struct opts *o = j->o;
	*out = NULL;
	axl_context *ctx;
	axl_inventory *inv;
	if (open_inventory(o, &ctx, &inv))
		return 1;
	print_warnings(inv);
	size_t n = axl_inventory_device_count(inv);
	struct group all = {"", calloc(n ? n : 1, sizeof(axl_device *)), 0};
	struct group *kinds = calloc(n ? n : 1, sizeof *kinds);
	size_t nk = 0;
	struct lset s = {NULL, 0, 0, j->prefix, 0};
	int rc = 1;
	if (!all.dev || !kinds)
		goto oom;
	for (size_t i = 0; i < n; i++) {
		const axl_device *d = axl_inventory_device(inv, i);
		if (axl_device_family(d) == AXL_FAMILY_CPU)
			continue;
		all.dev[all.n++] = d;
		char kind[32];
		const char *id = axl_device_id(d), *colon = strchr(id, ':');
		size_t kl = colon ? (size_t)(colon - id) : strlen(id);
		char raw[32];
		snprintf(raw, sizeof raw, "%.*s", (int)(kl < 31 ? kl : 31), id);
		sanitize_segment(raw, kind, sizeof kind);
		size_t k;
		for (k = 0; k < nk && strcmp(kinds[k].kind, kind) != 0; k++)
			;
		if (k == nk) {
			snprintf(kinds[nk].kind, sizeof kinds[nk].kind, "%s", kind);
			kinds[nk].dev = calloc(n, sizeof(axl_device *));
			if (!kinds[nk].dev)
				goto oom;
			nk++;
		}
		kinds[k].dev[kinds[k].n++] = d;
	}
	describe(&s, &all, "", NULL);
	for (size_t k = 0; k < nk; k++) {
		describe_kind(&s, &kinds[k]);
		if (j->lo->gfd)
			vendor_labels(&s, &kinds[k]);
	}
	if (s.failed)
		goto oom;
	qsort(s.v, s.n, sizeof *s.v, cmp_label);

	/* the file */
	size_t cap = 256 + s.n * 8, len = 0;
	for (size_t i = 0; i < s.n; i++)
		cap += strlen(s.v[i].key) + strlen(s.v[i].val);
	char *buf = malloc(cap);
	if (!buf)
		goto oom;
	if (expiry && expiry[0])
		len += (size_t)snprintf(buf + len, cap - len, "# +expiry-time=%s\n", expiry);
	for (size_t i = 0; i < s.n; i++)
		len += (size_t)snprintf(buf + len, cap - len, "%s=%s\n", s.v[i].key, s.v[i].val);
	if (len > FEATURE_FILE_MAX) {
		fprintf(stderr,
			"axl: the labels take %zu bytes, more than the %d a Node Feature Discovery feature "
			"file may hold; nothing written\n",
			len, FEATURE_FILE_MAX);
		rc = 1;
	} else {
		*out = buf;
		*outlen = len;
		buf = NULL;
		rc = 0;
	}
	free(buf);
	goto out;
oom:
	fprintf(stderr, "axl: out of memory\n");
	rc = 1;
out:
	for (size_t i = 0; i < s.n; i++) {
		free(s.v[i].key);
		free(s.v[i].val);
	}
	free(s.v);
	for (size_t k = 0; k < nk; k++)
		free(kinds[k].dev);
	free(kinds);
	free(all.dev);
	axl_inventory_free(inv);
	axl_context_free(ctx);
	return rc;
}

/* The expiry with --expiry DURATION: now + DURATION at the first write, and renewed once
 * half of it has passed (so that the file never lapses while axl runs, and is not
 * rewritten at every refresh only because "now" moved; docs/labels.md). */
int labels_refresh(struct labels_job *j, int *wrote, double *renew_in)
{
	*wrote = 0;
	*renew_in = -1;
	char expiry[96] = "";
	if (j->expiry_s) {
		/* CLOCK_REALTIME, not time(): glibc's time() reads the clock of the last tick,
		 * up to a tick behind, so "now" could be a second older than any other reader's
		 * clock_gettime() taken just before (labels.expiry saw it in CI). */
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		long long now = (long long)ts.tv_sec;
		if (!j->expires || now >= j->expires - j->expiry_s / 2)
			j->expires = now + j->expiry_s;
		rfc3339(j->expires, expiry, sizeof expiry);
		*renew_in = (double)(j->expires - j->expiry_s / 2 - now);
		if (*renew_in < 1)
			*renew_in = 1;
	} else {
		snprintf(expiry, sizeof expiry, "%s", j->expiry_at);
	}
	char *buf;
	size_t len;
	if (labels_render(j, expiry, &buf, &len))
		return 1;
	int rc = 0;
	if (!j->path || cli_is_stdout(j->path)) {
		rc = cli_write_stdout(buf, len);
		*wrote = !rc;
	} else if (!axl__file_same(j->path, buf, len)) {
		rc = cli_write_file(j->path, buf, len, 0644);
		*wrote = !rc;
	}
	free(buf);
	return rc;
}

/* The options (the table closes the file) */
static struct labels_opts lo = {.cmd = "labels"};
static const char *output;
static int watch;
static int64_t interval_ms;

static int cmd_labels(struct opts *o, int argc, char **argv)
{
	(void)argc, (void)argv;
	if (interval_ms && !watch) {
		fprintf(stderr, "axl labels: --interval goes with --watch\n");
		return EXIT_USAGE;
	}
	struct labels_job j;
	int rc = labels_setup(&j, o, &lo, output);
	if (rc)
		return rc;
	if (!watch) {
		int wrote;
		double renew;
		return labels_refresh(&j, &wrote, &renew);
	}
	if (!output || cli_is_stdout(output)) {
		fprintf(stderr, "axl labels: --watch keeps a file current: name it with -o FILE\n");
		return EXIT_USAGE;
	}
	struct watch w;
	if (watch_open(&w, o, interval_ms))
		return 1;
	const char *why = "start";
	int ok = 0;
	do {
		int wrote;
		double renew;
		rc = labels_refresh(&j, &wrote, &renew);
		ok |= !rc;
		if (o->verbose)
			fprintf(stderr, "axl: labels (%s): %s\n", why,
				rc ? "failed" : wrote ? "rewrote the file" : "unchanged, not rewritten");
		if (!watch_wait(&w, renew, &why))
			break;
	} while (1);
	watch_close(&w);
	return ok ? 0 : 1;
}

static const struct cli_opt options[] = {
	{.type = CLI_OPT_STRING, .name = "output", .alias = 'o', .value = &output, .value_name = "FILE",
	 .help = "write it there atomically, only when its content changed (NFD\nreads "
	         "/etc/kubernetes/node-feature-discovery/features.d/); the\nfolder is made when missing; - (or none): "
	         "standard output"},
	{.type = CLI_OPT_STRING, .name = "expiry", .value = &lo.expiry, .value_name = "WHEN",
	 .help = "'# +expiry-time=': a duration from now (90s, 12h, 7d, 1h30m) or\nan RFC 3339 time; with --watch a "
	         "duration is renewed when half\nof it has passed"},
	{.type = CLI_OPT_STRING, .name = "prefix", .value = &lo.prefix, .value_name = "DOMAIN",
	 .help = "the labels' prefix (default axl.dev; '' for none, which NFD turns\ninto feature.node.kubernetes.io)"},
	{.type = CLI_OPT_FLAG, .name = "gfd", .value = &lo.gfd,
	 .help = "also the nvidia.com/* names NVIDIA's GPU Feature Discovery uses\n(gpu.product, gpu.count, "
	         "gpu.memory, ...)"},
	{.type = CLI_OPT_FLAG, .name = "watch", .value = &watch,
	 .help = "keep FILE current: rediscover every --interval and when a device\nnode appears or goes; rewrite "
	         "only when the labels changed;\nSIGTERM or SIGINT ends it"},
	{.type = CLI_OPT_DURATION, .name = "interval", .value = &interval_ms,
	 .help = "(--watch) the period (default 60s)", .min = 1, .max = 86400000},
	{0},
};

const struct cli_command cli_cmd_labels = {
	"labels", cmd_labels, CLI_G_NODE, options, NULL, "Kubernetes node labels as a Node Feature Discovery file",
	"Kubernetes node labels as a Node Feature Discovery feature file (count, product,\n"
	"memory, architecture, precisions, partitioning; docs/labels.md).",
};
