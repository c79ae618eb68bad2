/* SPDX-License-Identifier: MIT */
/*
 * devicedb_gen: compiles the text device database (data/devices.db) into C tables.
 *
 *     devicedb_gen INPUT.db OUTPUT.c
 *
 * The input is read strictly: anything the format does not describe is an error,
 * reported as "file:line: problem" on stderr with exit status 1, and no output file is
 * left behind. The output defines the tables declared in src/lib/devicedb.h.
 *
 * Format (see data/devices.db for the full description):
 *
 *     # comment line
 *     [entry-key]
 *     key = value
 *
 * Standalone C11, no dependencies beyond the C library.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LINE 1024      /* bytes per line, excluding the newline */
#define MAX_KEY_LEN 64     /* entry key length */
#define MAX_LIST 255       /* compute units, precisions, partitionings, sources, profiles */
#define MAX_ENTRIES 65535  /* axl__db_match.entry is a uint16_t */

/* ------------------------------------------------------------------ */
/* diagnostics                                                          */

static const char *g_file = "?";
static const char *g_out_path;

static void die(long line, const char *fmt, ...)
{
	va_list ap;

	if (line > 0)
		fprintf(stderr, "%s:%ld: ", g_file, line);
	else
		fprintf(stderr, "%s: ", g_file);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (g_out_path)
		remove(g_out_path);
	exit(1);
}

static void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q) {
		fprintf(stderr, "devicedb_gen: out of memory\n");
		exit(1);
	}
	return q;
}

static char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = xrealloc(NULL, n);

	memcpy(d, s, n);
	return d;
}

/* A growable array of pointers. */
struct vec {
	void **v;
	size_t n, cap;
};

static void vec_push(struct vec *a, void *p)
{
	if (a->n == a->cap) {
		a->cap = a->cap ? a->cap * 2 : 8;
		a->v = xrealloc(a->v, a->cap * sizeof(*a->v));
	}
	a->v[a->n++] = p;
}

/* ------------------------------------------------------------------ */
/* the model                                                            */

static const char *const family_names[] = {"gpu", "npu", "tpu", "asic", "fpga"};
static const char *const family_enums[] = {"AXL_FAMILY_GPU", "AXL_FAMILY_NPU", "AXL_FAMILY_TPU",
					   "AXL_FAMILY_ASIC", "AXL_FAMILY_FPGA"};

/* Same order as enum axl_format. */
static const char *const format_names[] = {"FP64", "FP32", "TF32", "BF16", "FP16",
					   "FP8",  "INT8", "FP6",  "FP4",  "INT4"};
static const char *const format_enums[] = {
	"AXL_FORMAT_FP64", "AXL_FORMAT_FP32", "AXL_FORMAT_TF32", "AXL_FORMAT_BF16", "AXL_FORMAT_FP16",
	"AXL_FORMAT_FP8",  "AXL_FORMAT_INT8", "AXL_FORMAT_FP6",  "AXL_FORMAT_FP4",  "AXL_FORMAT_INT4"};

static const char *const support_names[] = {"native", "emulated", "none"};
static const char *const support_enums[] = {"AXL_SUPPORT_NATIVE", "AXL_SUPPORT_EMULATED",
					    "AXL_SUPPORT_NONE"};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

struct cu {
	char *name;
	unsigned long count;
};

struct prec {
	int format;  /* index into format_names */
	int support; /* index into support_names */
	double tflops; /* < 0: not given */
};

struct part {
	char *tech;
	long max; /* < 0: unknown */
	struct vec profiles; /* char * */
};

struct match {
	unsigned vendor, device, subvendor, subdevice, revision;
	int has_sub, has_rev;
	size_t entry;
	long line;
};

struct entry {
	char *key;
	long line; /* of the section header */
	char *name, *vendor, *architecture, *memory_type;
	int family; /* -1 unset */
	int have_memory, have_bus, have_bw, have_l2, have_tdp, have_nvlink, have_ici, have_roce;
	int have_l1, have_shared, have_channels, have_stacks;
	uint64_t memory_bytes, l2_bytes;
	uint64_t l1_bytes, shared_bytes; /* per compute unit */
	unsigned long mem_channels, mem_stacks;
	unsigned long fabric_version, fabric_links;
	double nvlink_gbps;
	const char *ici_topology; /* "2d-torus", "3d-torus", "3d-mesh" */
	unsigned long ici_ports;  /* 0 unknown */
	double ici_gbps;          /* GB/s of one chip and direction, all ports; < 0 unknown */
	unsigned long roce_ports, roce_peer_ports; /* integrated RoCE ports; to each peer on the baseboard */
	double roce_gbps;         /* GB/s per port and direction */
	unsigned long bus_width;
	double bandwidth, tdp;
	struct vec cus;     /* struct cu * */
	struct vec precs;   /* struct prec * */
	struct vec parts;   /* struct part * */
	struct vec sources; /* char * */
	int unknown_memory, unknown_cus, unknown_peaks; /* "unknown" lines: why a fact is left out */
	int unknown_l2, unknown_l1, unknown_shared, unknown_channels;
	size_t n_matches;
};

static struct vec g_entries; /* struct entry * */
static struct vec g_matches; /* struct match * */

/* ------------------------------------------------------------------ */
/* lexical helpers                                                      */

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		*--e = '\0';
	return s;
}

/* Splits off the next whitespace-separated token; returns NULL at the end. */
static char *next_token(char **cursor)
{
	char *s = *cursor, *tok;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s) {
		*cursor = s;
		return NULL;
	}
	tok = s;
	while (*s && *s != ' ' && *s != '\t')
		s++;
	if (*s)
		*s++ = '\0';
	*cursor = s;
	return tok;
}

static int is_name_char(int c)
{
	return isalnum((unsigned char)c) || c == '.' || c == '-' || c == '_' || c == '+';
}

static int valid_token(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!is_name_char(*s))
			return 0;
	return 1;
}

static int lookup_name(const char *s, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(s, names[i]) == 0)
			return (int)i;
	return -1;
}

/* Exactly `digits` hex digits. */
static int parse_hex(const char *s, size_t digits, unsigned *out)
{
	unsigned v = 0;

	if (strlen(s) != digits)
		return -1;
	for (size_t i = 0; i < digits; i++) {
		int c = (unsigned char)s[i];
		unsigned d;

		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			return -1;
		v = v * 16 + d;
	}
	*out = v;
	return 0;
}

/* A decimal integer without sign, leading zeros allowed only for "0". */
static int parse_uint(const char *s, unsigned long long max, unsigned long long *out)
{
	unsigned long long v = 0;

	if (!*s || (s[0] == '0' && s[1]))
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		if (v > (max - (unsigned long long)(*s - '0')) / 10)
			return -1;
		v = v * 10 + (unsigned long long)(*s - '0');
	}
	*out = v;
	return 0;
}

/* A plain decimal number: digits, optionally '.' and more digits. No sign, no exponent. */
static int parse_decimal(const char *s, double *out)
{
	const char *p = s;
	int digits = 0;
	char *end;
	double v;

	while (*p >= '0' && *p <= '9') {
		p++;
		digits++;
	}
	if (digits == 0)
		return -1;
	if (*p == '.') {
		int frac = 0;

		p++;
		while (*p >= '0' && *p <= '9') {
			p++;
			frac++;
		}
		if (frac == 0)
			return -1;
	}
	if (*p)
		return -1;
	if (digits > 12)
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

/* "80 GiB", "80GiB", "512 B": integer and unit, stored in bytes. */
static int parse_size(char *s, uint64_t *out)
{
	static const struct {
		const char *unit;
		uint64_t mult;
	} units[] = {
		{"B", 1ull},
		{"KiB", 1ull << 10},
		{"MiB", 1ull << 20},
		{"GiB", 1ull << 30},
		{"TiB", 1ull << 40},
		{"KB", 1000ull},
		{"MB", 1000000ull},
		{"GB", 1000000000ull},
		{"TB", 1000000000000ull},
	};
	char num[32];
	size_t n = 0;
	const char *u;
	unsigned long long v;

	while (s[n] >= '0' && s[n] <= '9') {
		if (n + 1 >= sizeof(num))
			return -1;
		num[n] = s[n];
		n++;
	}
	num[n] = '\0';
	u = s + n;
	while (*u == ' ' || *u == '\t')
		u++;
	if (parse_uint(num, UINT64_MAX, &v) || v == 0)
		return -1;
	for (size_t i = 0; i < NELEM(units); i++) {
		if (strcmp(u, units[i].unit) == 0) {
			if (v > UINT64_MAX / units[i].mult)
				return -1;
			*out = (uint64_t)v * units[i].mult;
			return 0;
		}
	}
	return -1;
}

/* ------------------------------------------------------------------ */
/* the parser                                                           */

static struct entry *g_cur;

static void check_text(long line, const char *key, const char *v)
{
	if (!*v)
		die(line, "empty value for '%s'", key);
	for (const unsigned char *p = (const unsigned char *)v; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			die(line, "control character in value of '%s'", key);
}

static void set_text(long line, const char *key, char **slot, const char *v)
{
	if (*slot)
		die(line, "'%s' given twice in entry [%s]", key, g_cur->key);
	check_text(line, key, v);
	*slot = xstrdup(v);
}

static void parse_match(long line, char *v)
{
	struct match *m = xrealloc(NULL, sizeof(*m));
	char orig[MAX_LINE + 1];
	char *rev = strchr(v, '/');
	char *parts[4];
	size_t n = 0;
	char *p = v;

	snprintf(orig, sizeof(orig), "%s", v);
	memset(m, 0, sizeof(*m));
	if (rev)
		*rev++ = '\0';
	for (;;) {
		char *colon = strchr(p, ':');

		if (n == 4)
			die(line, "malformed match '%s' (vendor:device[:subvendor:subdevice][/rev])", orig);
		parts[n++] = p;
		if (!colon)
			break;
		*colon = '\0';
		p = colon + 1;
	}
	if (n != 2 && n != 4)
		die(line, "malformed match '%s' (vendor:device[:subvendor:subdevice][/rev])", orig);
	if (parse_hex(parts[0], 4, &m->vendor) || parse_hex(parts[1], 4, &m->device))
		die(line, "malformed number in match '%s' (4 hex digits expected)", orig);
	if (n == 4) {
		if (parse_hex(parts[2], 4, &m->subvendor) || parse_hex(parts[3], 4, &m->subdevice))
			die(line, "malformed number in match '%s' (4 hex digits expected)", orig);
		m->has_sub = 1;
	}
	if (rev) {
		if (parse_hex(rev, 2, &m->revision))
			die(line, "malformed revision in match '%s' (2 hex digits expected)", orig);
		m->has_rev = 1;
	}
	if (m->vendor == 0 || m->vendor == 0xffff)
		die(line, "invalid PCI vendor id %04x in match", m->vendor);
	m->entry = g_entries.n - 1;
	m->line = line;
	g_cur->n_matches++;
	vec_push(&g_matches, m);
}

/* "NAME COUNT": the count is the last word; the name is the words before it, each a
 * token, joined by one blank ("SM", "Tensor Core", "Matrix Core"). */
static void parse_compute_units(long line, char *v)
{
	char *count = strrchr(v, ' ');
	char *tab = strrchr(v, '\t');
	char name[MAX_LINE + 1];
	size_t n = 0;
	unsigned long long c;
	struct cu *cu;

	if (tab && (!count || tab > count))
		count = tab;
	if (!count)
		die(line, "compute_units wants 'NAME COUNT'");
	*count++ = '\0';
	for (char *cur = v, *word; (word = next_token(&cur)) != NULL;) {
		if (!valid_token(word))
			die(line, "invalid compute unit name '%s'", word);
		if (n)
			name[n++] = ' ';
		memcpy(name + n, word, strlen(word));
		n += strlen(word);
	}
	name[n] = '\0';
	if (!n)
		die(line, "compute_units wants 'NAME COUNT'");
	if (parse_uint(count, UINT32_MAX, &c) || c == 0)
		die(line, "malformed number '%s' in compute_units", count);
	for (size_t i = 0; i < g_cur->cus.n; i++)
		if (strcmp(((struct cu *)g_cur->cus.v[i])->name, name) == 0)
			die(line, "compute unit '%s' given twice", name);
	if (g_cur->cus.n >= MAX_LIST)
		die(line, "too many compute_units");
	cu = xrealloc(NULL, sizeof(*cu));
	cu->name = xstrdup(name);
	cu->count = (unsigned long)c;
	vec_push(&g_cur->cus, cu);
}

static void parse_precision(long line, char *v)
{
	char *cur = v;
	char *fmt = next_token(&cur);
	char *sup = next_token(&cur);
	char *peak = next_token(&cur);
	struct prec *pr;
	int f, s;
	double t = -1.0;

	if (!fmt || !sup || next_token(&cur))
		die(line, "precision wants 'FORMAT SUPPORT [PEAK]'");
	f = lookup_name(fmt, format_names, NELEM(format_names));
	if (f < 0)
		die(line, "unknown format '%s'", fmt);
	s = lookup_name(sup, support_names, NELEM(support_names));
	if (s < 0)
		die(line, "unknown support '%s' (native, emulated, none)", sup);
	if (peak) {
		if (s == 2)
			die(line, "a peak figure for an unsupported format");
		if (parse_decimal(peak, &t) || t <= 0)
			die(line, "malformed number '%s' in precision", peak);
	}
	for (size_t i = 0; i < g_cur->precs.n; i++)
		if (((struct prec *)g_cur->precs.v[i])->format == f)
			die(line, "format %s given twice", fmt);
	if (g_cur->precs.n >= MAX_LIST)
		die(line, "too many precision lines");
	pr = xrealloc(NULL, sizeof(*pr));
	pr->format = f;
	pr->support = s;
	pr->tflops = t;
	vec_push(&g_cur->precs, pr);
}

static void parse_partitioning(long line, char *v)
{
	char *cur = v;
	char *tech = next_token(&cur);
	char *max = next_token(&cur);
	char *profiles = next_token(&cur);
	unsigned long long m;
	struct part *pt;

	if (!tech || !max || next_token(&cur))
		die(line, "partitioning wants 'TECHNOLOGY MAX [PROFILE,PROFILE,...]'");
	if (!valid_token(tech))
		die(line, "invalid partitioning technology '%s'", tech);
	for (size_t i = 0; i < g_cur->parts.n; i++)
		if (strcmp(((struct part *)g_cur->parts.v[i])->tech, tech) == 0)
			die(line, "partitioning technology '%s' given twice", tech);
	if (g_cur->parts.n >= MAX_LIST)
		die(line, "too many partitioning lines");
	pt = xrealloc(NULL, sizeof(*pt));
	memset(pt, 0, sizeof(*pt));
	pt->tech = xstrdup(tech);
	if (strcmp(max, "-") == 0) {
		pt->max = -1;
	} else {
		if (parse_uint(max, INT32_MAX, &m) || m == 0)
			die(line, "malformed number '%s' in partitioning", max);
		pt->max = (long)m;
	}
	if (profiles) {
		char *p = profiles;

		for (;;) {
			char *comma = strchr(p, ',');

			if (comma)
				*comma = '\0';
			if (!valid_token(p))
				die(line, "invalid partition profile '%s'", p);
			for (size_t i = 0; i < pt->profiles.n; i++)
				if (strcmp(pt->profiles.v[i], p) == 0)
					die(line, "partition profile '%s' given twice", p);
			if (pt->profiles.n >= MAX_LIST)
				die(line, "too many partition profiles");
			vec_push(&pt->profiles, xstrdup(p));
			if (!comma)
				break;
			p = comma + 1;
		}
	}
	vec_push(&g_cur->parts, pt);
}

/* "VERSION LINKS GBPS": NVLink generation, links of one GPU, GB/s per link and direction. */
static void parse_nvlink(long line, char *v)
{
	char *cur = v;
	char *ver = next_token(&cur);
	char *links = next_token(&cur);
	char *rate = next_token(&cur);
	unsigned long long a, b;
	struct entry *e = g_cur;

	if (e->have_nvlink)
		die(line, "'nvlink' given twice in entry [%s]", e->key);
	if (!ver || !links || !rate || next_token(&cur))
		die(line, "nvlink wants 'VERSION LINKS GBPS'");
	if (parse_uint(ver, 9, &a) || a == 0)
		die(line, "malformed NVLink version '%s' in nvlink (1-9)", ver);
	if (parse_uint(links, 64, &b) || b == 0)
		die(line, "malformed link count '%s' in nvlink (1-64)", links);
	if (parse_decimal(rate, &e->nvlink_gbps) || e->nvlink_gbps <= 0 || e->nvlink_gbps > 1000)
		die(line, "malformed number '%s' in nvlink (GB/s per link and direction)", rate);
	e->fabric_version = (unsigned long)a;
	e->fabric_links = (unsigned long)b;
	e->have_nvlink = 1;
}

/* "TOPOLOGY PORTS GBPS": a TPU's inter-chip interconnect: 2d-torus, 3d-torus or 3d-mesh;
 * ICI ports of one chip ('-' unknown); GB/s of one chip and direction over all its ports
 * ('-' unknown). */
static void parse_ici(long line, char *v)
{
	char *cur = v;
	char *topo = next_token(&cur);
	char *ports = next_token(&cur);
	char *rate = next_token(&cur);
	unsigned long long a = 0;
	struct entry *e = g_cur;

	if (e->have_ici)
		die(line, "'ici' given twice in entry [%s]", e->key);
	if (!topo || !ports || !rate || next_token(&cur))
		die(line, "ici wants 'TOPOLOGY PORTS GBPS'");
	if (strcmp(topo, "2d-torus") && strcmp(topo, "3d-torus") && strcmp(topo, "3d-mesh"))
		die(line, "unknown ICI topology '%s' (2d-torus, 3d-torus, 3d-mesh)", topo);
	if (strcmp(ports, "-") && (parse_uint(ports, 16, &a) || a == 0))
		die(line, "malformed port count '%s' in ici (1-16 or -)", ports);
	e->ici_gbps = -1;
	if (strcmp(rate, "-") && (parse_decimal(rate, &e->ici_gbps) || e->ici_gbps <= 0 || e->ici_gbps > 100000))
		die(line, "malformed number '%s' in ici (GB/s of one chip and direction, or -)", rate);
	e->ici_topology = xstrdup(topo);
	e->ici_ports = (unsigned long)a;
	e->have_ici = 1;
}

/* "PORTS GBPS PEER": RDMA-over-Converged-Ethernet ports integrated in the chip, GB/s per
 * port and direction, and how many of them join the chip to each other chip of the
 * vendor's 8-module baseboard (all to all). */
static void parse_roce(long line, char *v)
{
	char *cur = v;
	char *ports = next_token(&cur);
	char *rate = next_token(&cur);
	char *peer = next_token(&cur);
	unsigned long long a, b;
	struct entry *e = g_cur;

	if (e->have_roce)
		die(line, "'roce' given twice in entry [%s]", e->key);
	if (!ports || !rate || !peer || next_token(&cur))
		die(line, "roce wants 'PORTS GBPS PEER'");
	if (parse_uint(ports, 64, &a) || a == 0)
		die(line, "malformed port count '%s' in roce (1-64)", ports);
	if (parse_decimal(rate, &e->roce_gbps) || e->roce_gbps <= 0 || e->roce_gbps > 1000)
		die(line, "malformed number '%s' in roce (GB/s per port and direction)", rate);
	if (parse_uint(peer, 64, &b) || b == 0 || b * 7 > a)
		die(line, "malformed peer port count '%s' in roce (1 to PORTS/7: 7 peers on the baseboard)", peer);
	e->roce_ports = (unsigned long)a;
	e->roce_peer_ports = (unsigned long)b;
	e->have_roce = 1;
}

#define UNKNOWN_FIELDS "memory, compute_units, peaks, l2_cache, l1_cache, shared_memory, memory_channels"

/* "FIELD REASON": why a fact the entry leaves out is not known (UNKNOWN_FIELDS); the
 * reason names what was looked at. Checked against the entry when it ends. */
static void parse_unknown(long line, char *v)
{
	char *cur = v;
	char *field = next_token(&cur);
	char *reason = cur ? trim(cur) : NULL;
	struct entry *e = g_cur;
	int *flag = NULL; /* die() does not return */

	if (!field || !reason || !*reason)
		die(line, "unknown wants 'FIELD REASON' (" UNKNOWN_FIELDS ")");
	if (strcmp(field, "memory") == 0)
		flag = &e->unknown_memory;
	else if (strcmp(field, "compute_units") == 0)
		flag = &e->unknown_cus;
	else if (strcmp(field, "peaks") == 0)
		flag = &e->unknown_peaks;
	else if (strcmp(field, "l2_cache") == 0)
		flag = &e->unknown_l2;
	else if (strcmp(field, "l1_cache") == 0)
		flag = &e->unknown_l1;
	else if (strcmp(field, "shared_memory") == 0)
		flag = &e->unknown_shared;
	else if (strcmp(field, "memory_channels") == 0)
		flag = &e->unknown_channels;
	else
		die(line, "unknown field '%s' in unknown (" UNKNOWN_FIELDS ")", field);
	if (*flag)
		die(line, "'unknown %s' given twice in entry [%s]", field, e->key);
	check_text(line, "unknown", reason);
	*flag = 1;
}

static void parse_pair(long line, char *key, char *v)
{
	struct entry *e = g_cur;
	unsigned long long u;

	if (strcmp(key, "match") == 0) {
		parse_match(line, v);
	} else if (strcmp(key, "name") == 0) {
		set_text(line, key, &e->name, v);
	} else if (strcmp(key, "vendor") == 0) {
		set_text(line, key, &e->vendor, v);
	} else if (strcmp(key, "architecture") == 0) {
		set_text(line, key, &e->architecture, v);
	} else if (strcmp(key, "memory_type") == 0) {
		set_text(line, key, &e->memory_type, v);
	} else if (strcmp(key, "family") == 0) {
		if (e->family >= 0)
			die(line, "'family' given twice in entry [%s]", e->key);
		e->family = lookup_name(v, family_names, NELEM(family_names));
		if (e->family < 0)
			die(line, "unknown family '%s' (gpu, npu, tpu, asic, fpga)", v);
	} else if (strcmp(key, "memory") == 0) {
		if (e->have_memory)
			die(line, "'memory' given twice in entry [%s]", e->key);
		if (parse_size(v, &e->memory_bytes))
			die(line, "malformed number '%s' in memory (integer and unit expected)", v);
		e->have_memory = 1;
	} else if (strcmp(key, "l2_cache") == 0) {
		if (e->have_l2)
			die(line, "'l2_cache' given twice in entry [%s]", e->key);
		if (parse_size(v, &e->l2_bytes))
			die(line, "malformed number '%s' in l2_cache (integer and unit expected)", v);
		e->have_l2 = 1;
	} else if (strcmp(key, "l1_cache") == 0 || strcmp(key, "shared_memory") == 0) {
		int l1 = strcmp(key, "l1_cache") == 0;
		int *have = l1 ? &e->have_l1 : &e->have_shared;
		uint64_t *bytes = l1 ? &e->l1_bytes : &e->shared_bytes;

		if (*have)
			die(line, "'%s' given twice in entry [%s]", key, e->key);
		if (parse_size(v, bytes))
			die(line, "malformed number '%s' in %s (integer and unit expected)", v, key);
		/* per compute unit: more is a whole-chip figure written by mistake (an L1 of 16 MiB;
		 * a scratchpad of 64 MiB: a NeuronCore-v4's SBUF is 32 MiB) */
		unsigned max_mib = l1 ? 16 : 64;
		if (*bytes == 0 || *bytes > ((uint64_t)max_mib << 20))
			die(line, "implausible %s '%s' per compute unit (1 B to %u MiB)", key, v, max_mib);
		*have = 1;
	} else if (strcmp(key, "memory_channels") == 0 || strcmp(key, "memory_stacks") == 0) {
		int ch = strcmp(key, "memory_channels") == 0;
		int *have = ch ? &e->have_channels : &e->have_stacks;
		unsigned long *n = ch ? &e->mem_channels : &e->mem_stacks;

		if (*have)
			die(line, "'%s' given twice in entry [%s]", key, e->key);
		if (parse_uint(v, ch ? 4096 : 64, &u) || u == 0)
			die(line, "malformed number '%s' in %s (1-%d)", v, key, ch ? 4096 : 64);
		*n = (unsigned long)u;
		*have = 1;
	} else if (strcmp(key, "memory_bus_width") == 0) {
		if (e->have_bus)
			die(line, "'memory_bus_width' given twice in entry [%s]", e->key);
		if (parse_uint(v, UINT32_MAX, &u) || u == 0)
			die(line, "malformed number '%s' in memory_bus_width", v);
		e->bus_width = (unsigned long)u;
		e->have_bus = 1;
	} else if (strcmp(key, "memory_bandwidth") == 0) {
		if (e->have_bw)
			die(line, "'memory_bandwidth' given twice in entry [%s]", e->key);
		if (parse_decimal(v, &e->bandwidth) || e->bandwidth <= 0)
			die(line, "malformed number '%s' in memory_bandwidth", v);
		e->have_bw = 1;
	} else if (strcmp(key, "tdp") == 0) {
		if (e->have_tdp)
			die(line, "'tdp' given twice in entry [%s]", e->key);
		if (parse_decimal(v, &e->tdp) || e->tdp <= 0)
			die(line, "malformed number '%s' in tdp", v);
		e->have_tdp = 1;
	} else if (strcmp(key, "nvlink") == 0) {
		parse_nvlink(line, v);
	} else if (strcmp(key, "ici") == 0) {
		parse_ici(line, v);
	} else if (strcmp(key, "roce") == 0) {
		parse_roce(line, v);
	} else if (strcmp(key, "compute_units") == 0) {
		parse_compute_units(line, v);
	} else if (strcmp(key, "precision") == 0) {
		parse_precision(line, v);
	} else if (strcmp(key, "partitioning") == 0) {
		parse_partitioning(line, v);
	} else if (strcmp(key, "unknown") == 0) {
		parse_unknown(line, v);
	} else if (strcmp(key, "source") == 0) {
		check_text(line, key, v);
		if (e->sources.n >= MAX_LIST)
			die(line, "too many sources");
		vec_push(&e->sources, xstrdup(v));
	} else {
		die(line, "unknown key '%s'", key);
	}
}

static void finish_entry(void)
{
	struct entry *e = g_cur;

	if (!e)
		return;
	if (!e->name)
		die(e->line, "entry [%s] has no name", e->key);
	if (!e->vendor)
		die(e->line, "entry [%s] has no vendor", e->key);
	if (e->family < 0)
		die(e->line, "entry [%s] has no family", e->key);
	if (e->n_matches == 0)
		die(e->line, "entry [%s] has no match", e->key);
	if (e->sources.n == 0)
		die(e->line, "entry [%s] has no source", e->key);
	if (e->unknown_memory && e->have_memory)
		die(e->line, "entry [%s] gives memory and says it is unknown", e->key);
	if (e->unknown_cus && e->cus.n)
		die(e->line, "entry [%s] gives compute_units and says they are unknown", e->key);
	if ((e->unknown_l2 && e->have_l2) || (e->unknown_l1 && e->have_l1) ||
	    (e->unknown_shared && e->have_shared) || (e->unknown_channels && e->have_channels))
		die(e->line, "entry [%s] gives a cache or memory-channel figure and says it is unknown", e->key);
	if (e->unknown_peaks) {
		size_t i;

		for (i = 0; i < e->precs.n; i++)
			if (((struct prec *)e->precs.v[i])->tflops >= 0)
				die(e->line, "entry [%s] gives a peak and says peaks are unknown", e->key);
	}
	g_cur = NULL;
}

static void start_entry(long line, char *s)
{
	size_t len = strlen(s);
	char *key;
	struct entry *e;

	finish_entry();
	if (len < 3 || s[len - 1] != ']')
		die(line, "malformed section header");
	s[len - 1] = '\0';
	key = s + 1;
	if (!*key)
		die(line, "empty entry key");
	if (strlen(key) > MAX_KEY_LEN)
		die(line, "entry key longer than %d characters", MAX_KEY_LEN);
	for (const char *p = key; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '.' || *p == '-'))
			die(line, "invalid character in entry key '%s' ([a-z0-9.-] only)", key);
	for (size_t i = 0; i < g_entries.n; i++) {
		struct entry *o = g_entries.v[i];

		if (strcmp(o->key, key) == 0)
			die(line, "duplicate entry key [%s] (first at line %ld)", key, o->line);
	}
	if (g_entries.n >= MAX_ENTRIES)
		die(line, "too many entries");
	e = xrealloc(NULL, sizeof(*e));
	memset(e, 0, sizeof(*e));
	e->key = xstrdup(key);
	e->line = line;
	e->family = -1;
	vec_push(&g_entries, e);
	g_cur = e;
}

static void parse_line(long line, char *raw)
{
	char *s = trim(raw);
	char *eq, *key, *value;

	if (!*s || *s == '#')
		return;
	if (*s == '[') {
		start_entry(line, s);
		return;
	}
	eq = strchr(s, '=');
	if (!eq)
		die(line, "expected 'key = value' or '[entry-key]'");
	*eq = '\0';
	key = trim(s);
	value = trim(eq + 1);
	if (!*key)
		die(line, "missing key before '='");
	for (const char *p = key; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || *p == '_' || (*p >= '0' && *p <= '9')))
			die(line, "unknown key '%s'", key);
	if (!g_cur)
		die(line, "'%s' outside of an entry (missing section header)", key);
	if (!*value)
		die(line, "empty value for '%s'", key);
	parse_pair(line, key, value);
}

static void parse_file(FILE *f)
{
	char buf[MAX_LINE + 2];
	long line = 0;

	for (;;) {
		size_t n = 0;
		int c;

		line++;
		while ((c = getc(f)) != EOF && c != '\n') {
			if (c == '\0')
				die(line, "NUL byte");
			if (n >= MAX_LINE)
				die(line, "line longer than %d bytes", MAX_LINE);
			buf[n++] = (char)c;
		}
		if (ferror(f))
			die(line, "read error: %s", strerror(errno));
		if (n > 0 && buf[n - 1] == '\r')
			n--;
		buf[n] = '\0';
		if (c == EOF && n == 0)
			break;
		parse_line(line, buf);
		if (c == EOF)
			break;
	}
	finish_entry();
	if (g_entries.n == 0)
		die(line > 1 ? line - 1 : 1, "no entries");
}

/* ------------------------------------------------------------------ */
/* match ordering: must agree with src/lib/devicedb.c                   */

static int match_cmp(const void *pa, const void *pb)
{
	const struct match *a = *(const struct match *const *)pa;
	const struct match *b = *(const struct match *const *)pb;

#define CMP_ASC(x) \
	if (a->x != b->x) \
		return a->x < b->x ? -1 : 1
#define CMP_DESC(x) \
	if (a->x != b->x) \
		return a->x > b->x ? -1 : 1
	CMP_ASC(vendor);
	CMP_ASC(device);
	CMP_DESC(has_sub);
	CMP_ASC(subvendor);
	CMP_ASC(subdevice);
	CMP_DESC(has_rev);
	CMP_ASC(revision);
#undef CMP_ASC
#undef CMP_DESC
	/* Identical rows are reported as an error; order them by line for the message. */
	return a->line < b->line ? -1 : (a->line > b->line);
}

static void check_matches(void)
{
	qsort(g_matches.v, g_matches.n, sizeof(*g_matches.v), match_cmp);
	for (size_t i = 1; i < g_matches.n; i++) {
		const struct match *a = g_matches.v[i - 1], *b = g_matches.v[i];

		if (a->vendor == b->vendor && a->device == b->device && a->has_sub == b->has_sub &&
		    a->subvendor == b->subvendor && a->subdevice == b->subdevice &&
		    a->has_rev == b->has_rev && a->revision == b->revision) {
			const struct entry *ea = g_entries.v[a->entry];

			die(b->line, "match row already used by entry [%s] at line %ld", ea->key, a->line);
		}
	}
}

/* ------------------------------------------------------------------ */
/* output                                                               */

static FILE *g_out;

static void out(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (vfprintf(g_out, fmt, ap) < 0)
		die(0, "write error on %s", g_out_path);
	va_end(ap);
}

/* A C string literal. Every byte outside printable ASCII becomes a three-digit octal
 * escape, so the literal cannot be misread (no trigraphs, no hex-escape run-on). */
static void out_str(const char *s)
{
	if (!s) {
		out("NULL");
		return;
	}
	out("\"");
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			out("\\%c", *p);
		else if (*p == '?')
			out("\\?");
		else if (*p >= 0x20 && *p < 0x7f)
			out("%c", *p);
		else
			out("\\%03o", *p);
	}
	out("\"");
}

static void out_double(double v)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%.15g", v);
	if (!strpbrk(buf, ".eEn"))
		strcat(buf, ".0");
	out("%s", buf);
}

/* The string pool: every distinct string once, at an offset > 0 (offset 0 is the empty
 * string that stands for "none"). */
static struct vec g_pool;      /* char *, in pool order */
static size_t g_pool_size = 1; /* the leading NUL */
static struct vec g_pool_off;  /* offsets, as (void *)(uintptr_t) */

static unsigned long pool_off(const char *s)
{
	if (!s)
		return 0;
	for (size_t i = 0; i < g_pool.n; i++)
		if (strcmp(g_pool.v[i], s) == 0)
			return (unsigned long)(uintptr_t)g_pool_off.v[i];
	size_t off = g_pool_size;
	if (off > 0xffffffffu - strlen(s) - 1)
		die(0, "the string pool passes 4 GiB");
	vec_push(&g_pool, (void *)s);
	vec_push(&g_pool_off, (void *)(uintptr_t)off);
	g_pool_size += strlen(s) + 1;
	return (unsigned long)off;
}

/* a row index of a uint16_t field, or die */
static size_t row16(size_t row, const char *what)
{
	if (row > 0xffff)
		die(0, "more than 65535 rows of %s", what);
	return row;
}

/* text inside a comment of the generated file, without anything that would end it */
static const char *cmt(const char *s)
{
	static char buf[4][160];
	static int k;
	char *b = buf[k++ & 3];
	size_t n = 0;
	for (; s && *s && n + 1 < sizeof buf[0]; s++)
		b[n++] =
		    (s[0] == '*' && s[1] == '/') || (unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f ? '?' : *s;
	b[n] = 0;
	return b;
}

static void emit(void)
{
	size_t n_cu = 0, n_prec = 0, n_part = 0, n_str = 0;

	out("/* Generated by tools/devicedb_gen.c from %s. Do not edit. */\n", g_file);
	out("/* clang-format off */\n");
	out("#include \"devicedb.h\"\n\n");
	out("/* No pointer in these tables (devicedb.h): strings are offsets into axl__db_str, lists\n"
	    " * are rows of one table per kind. */\n\n");

	/* lists, in entry order; each entry's first rows are recorded as the rows are written */
	size_t *first = xrealloc(NULL, (g_entries.n ? g_entries.n : 1) * 4 * sizeof(size_t));
	out("const struct axl__db_cu axl__db_cu_tab[] = {\n");
	for (size_t i = 0; i < g_entries.n; i++) {
		struct entry *e = g_entries.v[i];
		first[4 * i] = row16(n_cu, "compute units");
		for (size_t j = 0; j < e->cus.n; j++, n_cu++) {
			struct cu *c = e->cus.v[j];
			out("\t{.s_name = %luu, .count = %luu}, /* %s: %s */\n", pool_off(c->name), c->count,
			    cmt(e->key), cmt(c->name));
		}
	}
	if (!n_cu)
		out("\t{0},\n");
	out("};\n\nconst struct axl__db_prec axl__db_prec_tab[] = {\n");
	for (size_t i = 0; i < g_entries.n; i++) {
		struct entry *e = g_entries.v[i];
		first[4 * i + 1] = row16(n_prec, "precisions");
		for (size_t j = 0; j < e->precs.n; j++, n_prec++) {
			struct prec *p = e->precs.v[j];
			out("\t{.format = %s, .support = %s, .tflops = ", format_enums[p->format],
			    support_enums[p->support]);
			out_double(p->tflops);
			out("}, /* %s */\n", cmt(e->key));
		}
	}
	if (!n_prec)
		out("\t{0},\n");
	/* the string rows: each entry's parts' profiles, then its sources */
	out("};\n\nconst uint32_t axl__db_str_tab[] = {\n");
	size_t *prof_first = NULL, n_parts_all = 0;
	for (size_t i = 0; i < g_entries.n; i++)
		n_parts_all += ((struct entry *)g_entries.v[i])->parts.n;
	prof_first = xrealloc(NULL, (n_parts_all ? n_parts_all : 1) * sizeof(size_t));
	for (size_t i = 0, pi = 0; i < g_entries.n; i++) {
		struct entry *e = g_entries.v[i];
		for (size_t j = 0; j < e->parts.n; j++, pi++) {
			struct part *p = e->parts.v[j];
			prof_first[pi] = row16(n_str, "strings");
			for (size_t k = 0; k < p->profiles.n; k++, n_str++)
				out("\t%luu, /* %s %s profile: %s */\n", pool_off(p->profiles.v[k]), cmt(e->key),
				    cmt(p->tech), cmt(p->profiles.v[k]));
		}
		first[4 * i + 3] = row16(n_str, "strings");
		for (size_t j = 0; j < e->sources.n; j++, n_str++) {
			out("\t%luu, /* %s source: %s */\n", pool_off(e->sources.v[j]), cmt(e->key),
			    cmt(e->sources.v[j]));
		}
	}
	if (!n_str)
		out("\t0u,\n");
	out("};\n\nconst struct axl__db_part axl__db_part_tab[] = {\n");
	for (size_t i = 0, pi = 0; i < g_entries.n; i++) {
		struct entry *e = g_entries.v[i];
		first[4 * i + 2] = row16(n_part, "partitionings");
		for (size_t j = 0; j < e->parts.n; j++, pi++, n_part++) {
			struct part *p = e->parts.v[j];
			out("\t{.s_technology = %luu, .max_partitions = %ld, .i_profiles = %zuu, .n_profiles = %zuu}, "
			    "/* %s %s */\n",
			    pool_off(p->tech), p->max, p->profiles.n ? prof_first[pi] : 0, p->profiles.n, cmt(e->key),
			    cmt(p->tech));
		}
	}
	if (!n_part)
		out("\t{0},\n");
	out("};\n\n");
	free(prof_first);

	out("const struct axl__db_entry axl__db_entries[] = {\n");
	for (size_t i = 0; i < g_entries.n; i++) {
		struct entry *e = g_entries.v[i];

		out("\t{ /* [%s] */\n", cmt(e->key));
		out("\t\t.s_key = %luu, .s_name = %luu, .s_vendor = %luu, .s_architecture = %luu,\n", pool_off(e->key),
		    pool_off(e->name), pool_off(e->vendor), pool_off(e->architecture));
		out("\t\t.family = %s,\n", family_enums[e->family]);
		out("\t\t.memory_bytes = %lluull,\n",
		    (unsigned long long)(e->have_memory ? e->memory_bytes : 0));
		out("\t\t.s_memory_type = %luu,\n", pool_off(e->memory_type));
		out("\t\t.bus_width_bits = %luu,\n", e->have_bus ? e->bus_width : 0ul);
		out("\t\t.bandwidth_gbps = ");
		out_double(e->have_bw ? e->bandwidth : -1.0);
		out(",\n\t\t.l2_bytes = %lluull,\n", (unsigned long long)(e->have_l2 ? e->l2_bytes : 0));
		out("\t\t.l1_bytes_per_unit = %lluull, .shared_bytes_per_unit = %lluull,\n",
		    (unsigned long long)(e->have_l1 ? e->l1_bytes : 0),
		    (unsigned long long)(e->have_shared ? e->shared_bytes : 0));
		out("\t\t.memory_channels = %luu, .memory_stacks = %luu,\n",
		    e->have_channels ? e->mem_channels : 0ul, e->have_stacks ? e->mem_stacks : 0ul);
		out("\t\t.tdp_watts = ");
		out_double(e->have_tdp ? e->tdp : -1.0);
		out(",\n");
		out("\t\t.fabric_version = %luu, .fabric_links = %luu, .fabric_link_gbps = ",
		    e->have_nvlink ? e->fabric_version : 0ul, e->have_nvlink ? e->fabric_links : 0ul);
		out_double(e->have_nvlink ? e->nvlink_gbps : -1.0);
		out(",\n");
		if (e->have_ici) {
			out("\t\t.s_ici_topology = %luu, .ici_ports = %luu, .ici_gbps = ", pool_off(e->ici_topology),
			    e->ici_ports);
			out_double(e->ici_gbps);
			out(",\n");
		} else {
			out("\t\t.s_ici_topology = 0u, .ici_ports = 0u, .ici_gbps = -1.0,\n");
		}
		out("\t\t.roce_ports = %luu, .roce_peer_ports = %luu, .roce_gbps = ",
		    e->have_roce ? e->roce_ports : 0ul, e->have_roce ? e->roce_peer_ports : 0ul);
		out_double(e->have_roce ? e->roce_gbps : -1.0);
		out(",\n");
		out("\t\t.i_cus = %zuu, .n_cus = %zuu, .i_prec = %zuu, .n_prec = %zuu,\n", e->cus.n ? first[4 * i] : 0,
		    e->cus.n, e->precs.n ? first[4 * i + 1] : 0, e->precs.n);
		out("\t\t.i_parts = %zuu, .n_parts = %zuu, .i_sources = %zuu, .n_sources = %zuu,\n",
		    e->parts.n ? first[4 * i + 2] : 0, e->parts.n, first[4 * i + 3], e->sources.n);
		out("\t},\n");
	}
	out("};\n");
	out("const size_t axl__db_entry_count = %zuu;\n\n", g_entries.n);
	free(first);

	/* the pool, one literal a string (each ends in an explicit NUL) */
	out("const char axl__db_str[] =\n\t\"\\0\"\n");
	for (size_t i = 0; i < g_pool.n; i++) {
		out("\t");
		out_str(g_pool.v[i]);
		out(" \"\\0\"\n");
	}
	out("\t;\n");
	out("const size_t axl__db_str_size = %zuu;\n", g_pool_size);
	out("const size_t axl__db_cu_count = %zuu, axl__db_prec_count = %zuu, axl__db_part_count = %zuu,\n"
	    "\taxl__db_str_tab_count = %zuu;\n\n",
	    n_cu ? n_cu : 1, n_prec ? n_prec : 1, n_part ? n_part : 1, n_str ? n_str : 1);

	out("/* Sorted by (vendor, device, has_sub desc, subvendor, subdevice, has_rev desc, "
	    "revision). */\n");
	out("const struct axl__db_match axl__db_matches[] = {\n");
	for (size_t i = 0; i < g_matches.n; i++) {
		struct match *m = g_matches.v[i];

		out("\t{.vendor = 0x%04xu, .device = 0x%04xu, .subvendor = 0x%04xu, "
		    ".subdevice = 0x%04xu, .has_sub = %du, .revision = 0x%02xu, .has_rev = %du, "
		    ".entry = %zuu},\n",
		    m->vendor, m->device, m->subvendor, m->subdevice, m->has_sub, m->revision,
		    m->has_rev, m->entry);
	}
	out("};\n");
	out("const size_t axl__db_match_count = %zuu;\n", g_matches.n);
}

int main(int argc, char **argv)
{
	FILE *in;

	if (argc != 3) {
		fprintf(stderr, "usage: devicedb_gen INPUT.db OUTPUT.c\n");
		return 2;
	}
	g_file = argv[1];
	in = fopen(argv[1], "rb");
	if (!in)
		die(0, "cannot open: %s", strerror(errno));
	parse_file(in);
	fclose(in);
	check_matches();

	g_out_path = argv[2];
	g_out = fopen(argv[2], "wb");
	if (!g_out) {
		g_out_path = NULL;
		die(0, "cannot create %s: %s", argv[2], strerror(errno));
	}
	emit();
	if (fclose(g_out) != 0)
		die(0, "write error on %s", argv[2]);
	return 0;
}
