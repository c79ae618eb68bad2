/* SPDX-License-Identifier: MIT */
/* What reading a visibility list takes, whichever runtime's syntax (visibility.h): pure
 * functions, no I/O. The vendors' parsers (backend/<vendor>/<vendor>_visibility.c) are built on
 * them; visibility.c applies the verdicts to an inventory. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "visibility.h"
#include "util/parse.h"

size_t axl__vis_split(const char *value, char *buf, size_t cap, char **tok, bool getline_style)
{
	snprintf(buf, cap, "%s", value);
	size_t n = 0;
	char *p = buf;
	for (;;) {
		char *c = strchr(p, ',');
		if (c)
			*c = '\0';
		if (n < AXL__VIS_MAXTOK && !(getline_style && !c && !*p && n > 0))
			tok[n++] = p;
		if (!c)
			break;
		p = c + 1;
	}
	if (getline_style && n == 1 && !*tok[0] && !*value)
		n = 0;
	return n;
}

char *axl__vis_trim(char *s)
{
	while (*s && isspace((unsigned char)*s))
		s++;
	size_t l = strlen(s);
	while (l && isspace((unsigned char)s[l - 1]))
		s[--l] = '\0';
	return s;
}

bool axl__vis_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

void axl__vis_note(struct axl__vis_result *r, const char *fmt, const char *tok)
{
	char t[48];
	if (strlen(tok) > 40)
		snprintf(t, sizeof t, "%.40s...", tok);
	else
		snprintf(t, sizeof t, "%s", tok);
	snprintf(r->note, sizeof r->note, fmt, t);
}

void axl__vis_start(size_t n, int *pos, struct axl__vis_result *r)
{
	memset(r, 0, sizeof *r);
	for (size_t i = 0; i < n; i++)
		pos[i] = AXL__VIS_UNLISTED;
}

void axl__vis_select(const struct axl__vis_item *items, size_t n, int *pos, size_t i, int ord)
{
	pos[i] = ord;
	if (items[i].parent >= 0)
		return;
	for (size_t c = 0; c < n; c++)
		if (items[c].parent == (long)i && pos[c] < 0)
			pos[c] = ord;
}

void axl__vis_none(size_t n, int *pos, struct axl__vis_result *r)
{
	for (size_t i = 0; i < n; i++)
		pos[i] = AXL__VIS_UNLISTED;
	r->code = AXL__VIS_NONE;
}

long axl__vis_nth(const struct axl__vis_item *items, size_t n, uint64_t k)
{
	for (size_t i = 0; i < n; i++)
		if (items[i].parent < 0 && k-- == 0)
			return (long)i;
	return -1;
}

long axl__vis_by_uuid(const struct axl__vis_item *items, size_t n, bool children, const char *prefix,
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

bool axl__vis_begin(const char *value, bool allow_all, size_t n, int *pos, struct axl__vis_result *r)
{
	axl__vis_start(n, pos, r);
	if (!value || (allow_all && strcasecmp(value, "all") == 0)) {
		r->code = AXL__VIS_ALL;
		return false;
	}
	if (!*value) {
		axl__vis_none(n, pos, r); /* the note stays empty: the value is */
		return false;
	}
	return true;
}

void axl__vis_numbers(const char *value, bool allow_all, const struct axl__vis_item *items,
		      size_t n, int *pos, struct axl__vis_result *r)
{
	if (!axl__vis_begin(value, allow_all, n, pos, r))
		return;
	char buf[4096], *tok[AXL__VIS_MAXTOK];
	size_t nt = axl__vis_split(value, buf, sizeof buf, tok, false);
	int ord = 0;
	r->code = AXL__VIS_SOME;
	for (size_t t = 0; t < nt; t++) {
		char *s = axl__vis_trim(tok[t]);
		uint64_t x;
		if (axl__parse_u64(s, 10, &x) != 0) {
			axl__vis_note(r, "'%s' is not a number: axl reads no further", s);
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
