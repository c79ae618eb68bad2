/* SPDX-License-Identifier: MIT */
/* The parsers of the visibility variables and of the device cgroup (visibility.h): pure
 * functions, no I/O. visibility.c applies them to an inventory. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "visibility.h"
#include "util/parse.h"

#define MAXTOK 256

/* ==== the parsers (pure) ============================================================ */

/* Split value at ',' into at most MAXTOK tokens in buf (a copy); empty tokens are kept.
 * getline_style: a trailing empty token is dropped (std::getline, ROCr). */
static size_t split(const char *value, char *buf, size_t cap, char **tok, bool getline_style)
{
	snprintf(buf, cap, "%s", value);
	size_t n = 0;
	char *p = buf;
	for (;;) {
		char *c = strchr(p, ',');
		if (c)
			*c = '\0';
		if (n < MAXTOK && !(getline_style && !c && !*p && n > 0))
			tok[n++] = p;
		if (!c)
			break;
		p = c + 1;
	}
	if (getline_style && n == 1 && !*tok[0] && !*value)
		n = 0;
	return n;
}

static char *trim(char *s)
{
	while (*s && isspace((unsigned char)*s))
		s++;
	size_t l = strlen(s);
	while (l && isspace((unsigned char)s[l - 1]))
		s[--l] = '\0';
	return s;
}

/* r->note = fmt with the entry (cut to 40 characters) for its one %s */
static void note(struct axl__vis_result *r, const char *fmt, const char *tok)
{
	char t[48];
	if (strlen(tok) > 40)
		snprintf(t, sizeof t, "%.40s...", tok);
	else
		snprintf(t, sizeof t, "%s", tok);
	snprintf(r->note, sizeof r->note, fmt, t);
}

static void start(size_t n, int *pos, struct axl__vis_result *r)
{
	memset(r, 0, sizeof *r);
	for (size_t i = 0; i < n; i++)
		pos[i] = AXL__VIS_UNLISTED;
}

static void select_item(const struct axl__vis_item *items, size_t n, int *pos, size_t i, int ord)
{
	pos[i] = ord;
	if (items[i].parent >= 0)
		return;
	for (size_t c = 0; c < n; c++)
		if (items[c].parent == (long)i && pos[c] < 0)
			pos[c] = ord;
}

static void none(size_t n, int *pos, struct axl__vis_result *r)
{
	for (size_t i = 0; i < n; i++)
		pos[i] = AXL__VIS_UNLISTED;
	r->code = AXL__VIS_NONE;
}

/* The n-th whole device (parent < 0), or -1. */
static long nth_gpu(const struct axl__vis_item *items, size_t n, uint64_t k)
{
	for (size_t i = 0; i < n; i++)
		if (items[i].parent < 0 && k-- == 0)
			return (long)i;
	return -1;
}

/* The one item (whole devices when parent_of < -1, else children) whose UUID starts
 * with prefix; -1 none, -2 several. *unknown counts candidates without a UUID. */
static long by_uuid_prefix(const struct axl__vis_item *items, size_t n, bool children, const char *prefix,
			   size_t plen, bool icase, size_t *unknown)
{
	long found = -1;
	for (size_t i = 0; i < n; i++) {
		if ((items[i].parent >= 0) != children)
			continue;
		if (!items[i].uuid) {
			if (unknown)
				(*unknown)++;
			continue;
		}
		if (strlen(items[i].uuid) < plen)
			continue;
		int c = icase ? strncasecmp(items[i].uuid, prefix, plen) : strncmp(items[i].uuid, prefix, plen);
		if (c != 0)
			continue;
		if (found >= 0)
			return -2;
		found = (long)i;
	}
	return found;
}

/* CUDA reads an entry like strtoul (PyTorch's model of it): leading digits, an optional
 * sign; "1gpu" is 1, "x" is not a number. */
static bool cuda_number(const char *s, long long *out)
{
	const char *p = s;
	bool neg = false;
	if (*p == '+' || *p == '-')
		neg = *p++ == '-';
	if (!isdigit((unsigned char)*p))
		return false;
	long long v = 0;
	while (isdigit((unsigned char)*p) && v < 1000000000)
		v = v * 10 + (*p++ - '0');
	*out = neg ? -v : v;
	return true;
}

void axl__vis_cuda(const char *value, const struct axl__vis_item *items, size_t n, bool mig_known,
		   int *pos, struct axl__vis_result *r)
{
	start(n, pos, r);
	if (!value) {
		r->code = AXL__VIS_ALL;
		return;
	}
	if (!*value) {
		none(n, pos, r); /* the note stays empty: the value is */
		return;
	}
	enum { IDX, GPU, MIG } mode = strncmp(value, "GPU-", 4) == 0 ? GPU : strncmp(value, "MIG-", 4) == 0 ? MIG : IDX;
	char buf[4096], *tok[MAXTOK];
	size_t nt = split(value, buf, sizeof buf, tok, false);
	int ord = 0;
	r->code = AXL__VIS_SOME;
	for (size_t t = 0; t < nt; t++) {
		long hit = -1;
		if (mode == IDX) {
			char *s = trim(tok[t]);
			long long x;
			if (!cuda_number(s, &x)) {
				note(r, "CUDA stops at '%s', which is not an index", s);
				break;
			}
			if (x < 0) {
				note(r, "CUDA stops at '%s'", s);
				break;
			}
			hit = nth_gpu(items, n, (uint64_t)x);
			if (hit < 0) {
				note(r, "CUDA stops at '%s': there is no such GPU", s);
				break;
			}
			r->by_index = true;
		} else if (mode == GPU) {
			const char *s = tok[t];
			if (strncmp(s, "GPU-", 4) != 0) {
				note(r, "CUDA stops at '%s', which is not a GPU UUID", s);
				break;
			}
			size_t unknown = 0;
			hit = by_uuid_prefix(items, n, false, s, strlen(s), false, &unknown);
			if (hit == -2) {
				note(r, "CUDA stops at '%s', which matches several GPUs", s);
				break;
			}
			if (hit < 0) {
				if (unknown) {
					note(r, "'%s' matches no GPU whose UUID axl knows", s);
					r->code = AXL__VIS_UNSURE;
				} else {
					note(r, "CUDA stops at '%s', which matches no GPU", s);
				}
				break;
			}
		} else {
			const char *s = tok[t];
			if (strncmp(s, "MIG-", 4) != 0) {
				note(r, "CUDA stops at '%s', which is not a MIG UUID", s);
				break;
			}
			const char *slash = strchr(s, '/');
			if (strncmp(s + 4, "GPU-", 4) == 0 && slash) {
				/* the format of drivers before R470: MIG-<GPU UUID>/<GI>/<CI> */
				long long gi = -1, ci = -1;
				char rest[64];
				snprintf(rest, sizeof rest, "%s", slash + 1);
				char *sl2 = strchr(rest, '/');
				if (sl2) {
					*sl2 = '\0';
					int64_t a, b;
					if (axl__parse_i64(rest, &a) == 0 && axl__parse_i64(sl2 + 1, &b) == 0) {
						gi = a;
						ci = b;
					}
				}
				long g = by_uuid_prefix(items, n, false, s + 4, (size_t)(slash - s - 4), false, NULL);
				if (g >= 0 && gi >= 0)
					for (size_t c = 0; c < n; c++)
						if (items[c].parent == g && items[c].gi == gi && items[c].ci == ci)
							hit = (long)c;
			} else {
				hit = by_uuid_prefix(items, n, true, s, strlen(s), false, NULL);
				if (hit == -2) {
					note(r, "CUDA stops at '%s', which matches several MIG devices", s);
					break;
				}
			}
			if (hit < 0) {
				if (!mig_known) {
					note(r, "'%s' names a MIG device and axl does not know the MIG devices (no NVML)", s);
					r->code = AXL__VIS_UNSURE;
				} else {
					note(r, "CUDA stops at '%s', which matches no MIG device", s);
				}
				break;
			}
		}
		if (pos[hit] >= 0) {
			/* a repeated device: CUDA then shows none at all */
			none(n, pos, r);
			note(r, "'%s' is listed twice, so CUDA shows no GPU", tok[t]);
			return;
		}
		select_item(items, n, pos, (size_t)hit, ord++);
	}
	if (r->code == AXL__VIS_UNSURE)
		for (size_t i = 0; i < n; i++)
			if (pos[i] < 0)
				pos[i] = AXL__VIS_UNKNOWN;
}

void axl__vis_rocr(const char *value, const struct axl__vis_item *items, size_t n, int *pos,
		   struct axl__vis_result *r)
{
	start(n, pos, r);
	if (!value) {
		r->code = AXL__VIS_ALL;
		return;
	}
	if (!*value) {
		none(n, pos, r);
		return;
	}
	char buf[4096], *tok[MAXTOK];
	size_t nt = split(value, buf, sizeof buf, tok, true);
	size_t loop = nt < n ? nt : n;
	int ord = 0;
	r->code = AXL__VIS_SOME;
	size_t t;
	for (t = 0; t < loop; t++) {
		char *s = trim(tok[t]);
		for (char *p = s; *p; p++)
			*p = (char)toupper((unsigned char)*p);
		long idx = -1;
		if (!*s) {
			note(r, "ROCr stops at an empty entry%s", "");
			break;
		}
		if (s[0] == 'G') {
			size_t len = strlen(s);
			if (len < 5 || len > 20) {
				note(r, "ROCr stops at '%s', which is not a GPU UUID", s);
				break;
			}
			idx = by_uuid_prefix(items, n, false, s, len, false, NULL);
			if (idx < 0) {
				note(r, idx == -2 ? "ROCr stops at '%s', which matches several GPUs" :
						    "ROCr stops at '%s', which matches no GPU", s);
				break;
			}
		} else {
			char *end = NULL;
			errno = 0;
			long v = strtol(s, &end, 0);
			if (*end != '\0' || errno) {
				note(r, "ROCr stops at '%s', which is not an index", s);
				break;
			}
			if (v < 0 || (size_t)v >= n) {
				note(r, "ROCr stops at '%s': there is no such GPU", s);
				break;
			}
			idx = v;
		}
		if (pos[idx] >= 0) {
			note(r, "ROCr stops at '%s', listed before", s);
			break;
		}
		pos[idx] = ord++;
	}
	if (t == loop && nt > n)
		snprintf(r->note, sizeof r->note, "ROCr reads only as many entries as there are GPUs (%zu)", n);
	if (ord == 0)
		r->code = AXL__VIS_NONE;
}

static bool canonical_index(const char *s, size_t n, size_t *out)
{
	/* ROCclr: the entry must read back the same through atoi and std::to_string */
	if (!*s || (s[0] == '0' && s[1]) || strlen(s) > 9)
		return false;
	for (const char *p = s; *p; p++)
		if (!isdigit((unsigned char)*p))
			return false;
	size_t v = (size_t)strtoul(s, NULL, 10);
	if (v >= n)
		return false;
	*out = v;
	return true;
}

void axl__vis_hip(const char *value, const struct axl__vis_item *items, size_t n, int *pos,
		  struct axl__vis_result *r)
{
	start(n, pos, r);
	if (!value || !*value) {
		r->code = AXL__VIS_ALL;
		return;
	}
	char buf[4096], *tok[MAXTOK];
	size_t nt = split(value, buf, sizeof buf, tok, true);
	int ord = 0;
	r->code = AXL__VIS_SOME;
	for (size_t t = 0; t < nt; t++) {
		char *s = tok[t];
		char num[32];
		if (strstr(s, "GPU-")) {
			/* a UUID: the first agent whose UUID contains it */
			for (size_t i = 0; i < n; i++)
				if (items[i].uuid && strcasestr(items[i].uuid, s)) {
					snprintf(num, sizeof num, "%zu", i);
					s = num;
					break;
				}
		}
		size_t idx;
		if (!canonical_index(s, n, &idx)) {
			note(r, "HIP stops at '%s'", tok[t]);
			break;
		}
		if (pos[idx] < 0) /* a repeated entry is skipped */
			pos[idx] = ord++;
	}
	if (ord == 0)
		r->code = AXL__VIS_NONE;
}

void axl__vis_nvidia_runtime(const char *value, const struct axl__vis_item *items, size_t n,
			     int *pos, struct axl__vis_result *r)
{
	start(n, pos, r);
	if (!value || !*value || strcmp(value, "void") == 0) {
		r->code = AXL__VIS_OFF;
		return;
	}
	if (strcmp(value, "all") == 0) {
		r->code = AXL__VIS_ALL;
		return;
	}
	if (strcmp(value, "none") == 0) {
		none(n, pos, r);
		snprintf(r->note, sizeof r->note, "the runtime mounts the driver but no GPU");
		return;
	}
	char buf[4096], *tok[MAXTOK];
	size_t nt = split(value, buf, sizeof buf, tok, false);
	int ord = 0;
	r->code = AXL__VIS_SOME;
	for (size_t t = 0; t < nt; t++) {
		char *s = trim(tok[t]);
		long hit = -1;
		uint64_t a, b;
		char *colon = strchr(s, ':');
		if (strncmp(s, "GPU-", 4) == 0) {
			hit = by_uuid_prefix(items, n, false, s, strlen(s), true, NULL);
		} else if (strncmp(s, "MIG-", 4) == 0) {
			hit = by_uuid_prefix(items, n, true, s, strlen(s), true, NULL);
		} else if (colon) {
			/* "<gpu index>:<MIG device index>" */
			*colon = '\0';
			long g = -1;
			if (axl__parse_u64(s, 10, &a) == 0 && axl__parse_u64(colon + 1, 10, &b) == 0)
				g = nth_gpu(items, n, a);
			for (size_t c = 0; g >= 0 && c < n; c++)
				if (items[c].parent == g && b-- == 0) {
					hit = (long)c;
					break;
				}
			*colon = ':';
		} else if (axl__parse_u64(s, 10, &a) == 0) {
			hit = nth_gpu(items, n, a);
		}
		if (hit < 0) {
			if (!r->note[0])
				note(r, "'%s' matches no GPU of this node", s);
			continue;
		}
		if (pos[hit] < 0)
			select_item(items, n, pos, (size_t)hit, ord++);
	}
}

void axl__vis_numbers(const char *value, bool allow_all, const struct axl__vis_item *items,
		      size_t n, int *pos, struct axl__vis_result *r)
{
	start(n, pos, r);
	if (!value || (allow_all && strcasecmp(value, "all") == 0)) {
		r->code = AXL__VIS_ALL;
		return;
	}
	if (!*value) {
		none(n, pos, r);
		return;
	}
	char buf[4096], *tok[MAXTOK];
	size_t nt = split(value, buf, sizeof buf, tok, false);
	int ord = 0;
	r->code = AXL__VIS_SOME;
	for (size_t t = 0; t < nt; t++) {
		char *s = trim(tok[t]);
		uint64_t x;
		if (axl__parse_u64(s, 10, &x) != 0) {
			note(r, "'%s' is not a number: axl reads no further", s);
			break;
		}
		for (size_t i = 0; i < n; i++)
			if (items[i].number >= 0 && (uint64_t)items[i].number == x && pos[i] < 0)
				pos[i] = ord;
		ord++;
	}
	for (size_t i = 0; i < n; i++)
		if (items[i].number < 0 && pos[i] < 0) {
			pos[i] = AXL__VIS_UNKNOWN;
			r->code = AXL__VIS_UNSURE;
		}
}

int axl__vis_cgroup_v1_path(const char *text, char *out, size_t cap)
{
	const char *line = text;
	while (line && *line) {
		const char *eol = strchr(line, '\n');
		size_t len = eol ? (size_t)(eol - line) : strlen(line);
		/* "4:devices:/docker/abc" ; "0::/path" is the v2 hierarchy */
		const char *c1 = memchr(line, ':', len);
		const char *c2 = c1 ? memchr(c1 + 1, ':', len - (size_t)(c1 + 1 - line)) : NULL;
		if (c2) {
			const char *p = c1 + 1;
			while (p < c2) {
				const char *comma = memchr(p, ',', (size_t)(c2 - p));
				const char *e = comma ? comma : c2;
				if (e - p == 7 && memcmp(p, "devices", 7) == 0) {
					size_t pl = len - (size_t)(c2 + 1 - line);
					if (pl + 1 > cap)
						return -1;
					memcpy(out, c2 + 1, pl);
					out[pl] = '\0';
					return 0;
				}
				p = e + 1;
			}
		}
		line = eol ? eol + 1 : NULL;
	}
	return -1;
}

int axl__vis_cgroup_allows(const char *list, char type, unsigned major, unsigned minor, const char *need)
{
	const char *line = list;
	while (line && *line) {
		const char *eol = strchr(line, '\n');
		char l[128];
		size_t len = eol ? (size_t)(eol - line) : strlen(line);
		if (len < sizeof l) {
			memcpy(l, line, len);
			l[len] = '\0';
			char t, mj[16], mn[16], acc[8];
			if (sscanf(l, " %c %15[^:]:%15s %7s", &t, mj, mn, acc) == 4 &&
			    (t == 'a' || t == type)) {
				bool ok = t == 'a' || ((strcmp(mj, "*") == 0 || strtoul(mj, NULL, 10) == major) &&
						       (strcmp(mn, "*") == 0 || strtoul(mn, NULL, 10) == minor));
				for (const char *q = need; ok && *q; q++)
					ok = strchr(acc, *q) != NULL;
				if (ok)
					return 1;
			}
		}
		line = eol ? eol + 1 : NULL;
	}
	return 0;
}
