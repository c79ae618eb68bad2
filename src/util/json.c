/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "json.h"
#include "parse.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void axl__json_init(struct axl__json *w, struct axl__sb *sb, bool pretty)
{
	memset(w, 0, sizeof *w);
	w->sb = sb;
	w->pretty = pretty;
	w->first[0] = true;
}

static void newline(struct axl__json *w)
{
	if (!w->pretty)
		return;
	axl__sb_putc(w->sb, '\n');
	for (int i = 0; i < w->depth; i++)
		axl__sb_put(w->sb, "  ", 2);
}

/* Before any value or key: separator and indentation. */
static void pre_value(struct axl__json *w)
{
	if (w->after_key) {
		w->after_key = false;
		return;
	}
	if (w->depth > 0) {
		if (!w->first[w->depth])
			axl__sb_putc(w->sb, ',');
		w->first[w->depth] = false;
		newline(w);
	}
}

static void open_(struct axl__json *w, char c)
{
	pre_value(w);
	axl__sb_putc(w->sb, c);
	if (w->depth + 1 >= AXL__JSON_MAX_DEPTH) {
		w->overflow = true;
		w->sb->failed = true;
		return;
	}
	w->depth++;
	w->first[w->depth] = true;
}

static void close_(struct axl__json *w, char c)
{
	if (w->depth == 0)
		return;
	bool empty = w->first[w->depth];
	w->depth--;
	if (!empty)
		newline(w);
	axl__sb_putc(w->sb, c);
	if (w->depth == 0 && w->pretty)
		axl__sb_putc(w->sb, '\n');
}

void axl__json_obj(struct axl__json *w) { open_(w, '{'); }
void axl__json_obj_end(struct axl__json *w) { close_(w, '}'); }
void axl__json_arr(struct axl__json *w) { open_(w, '['); }
void axl__json_arr_end(struct axl__json *w) { close_(w, ']'); }

void axl__json_escape(struct axl__sb *sb, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;
	while (i < n) {
		unsigned char c = s[i];
		size_t run = i;
		/* copy a run of plain ASCII at once */
		while (run < n && s[run] >= 0x20 && s[run] < 0x7f && s[run] != '"' &&
		       s[run] != '\\')
			run++;
		if (run > i) {
			axl__sb_put(sb, str + i, run - i);
			i = run;
			continue;
		}
		switch (c) {
		case '"': axl__sb_put(sb, "\\\"", 2); i++; continue;
		case '\\': axl__sb_put(sb, "\\\\", 2); i++; continue;
		case '\n': axl__sb_put(sb, "\\n", 2); i++; continue;
		case '\t': axl__sb_put(sb, "\\t", 2); i++; continue;
		case '\r': axl__sb_put(sb, "\\r", 2); i++; continue;
		default: break;
		}
		if (c < 0x20 || c == 0x7f) {
			axl__sb_printf(sb, "\\u%04x", c);
			i++;
			continue;
		}
		size_t l = axl__utf8_len(s + i, n - i);
		if (l == 0) {
			axl__sb_put(sb, "\\ufffd", 6);
			i++;
		} else {
			axl__sb_put(sb, str + i, l);
			i += l;
		}
	}
}

void axl__json_key(struct axl__json *w, const char *key)
{
	pre_value(w);
	axl__sb_putc(w->sb, '"');
	axl__json_escape(w->sb, key, strlen(key));
	axl__sb_put(w->sb, w->pretty ? "\": " : "\":", w->pretty ? 3 : 2);
	w->after_key = true;
}

void axl__json_strn(struct axl__json *w, const char *s, size_t n)
{
	pre_value(w);
	axl__sb_putc(w->sb, '"');
	axl__json_escape(w->sb, s, n);
	axl__sb_putc(w->sb, '"');
}

void axl__json_str(struct axl__json *w, const char *s)
{
	if (!s) {
		axl__json_null(w);
		return;
	}
	axl__json_strn(w, s, strlen(s));
}

void axl__json_int(struct axl__json *w, int64_t v)
{
	pre_value(w);
	axl__sb_printf(w->sb, "%lld", (long long)v);
}

void axl__json_num(struct axl__json *w, double v)
{
	if (!isfinite(v)) {
		axl__json_null(w);
		return;
	}
	pre_value(w);
	if (fabs(v) < 1e15 && v == (double)(int64_t)v) {
		axl__sb_printf(w->sb, "%lld", (long long)v);
		return;
	}
	char buf[40];
	/* shortest of %.15g/%.17g that round-trips */
	snprintf(buf, sizeof buf, "%.15g", v);
	double back;
	if (sscanf(buf, "%lf", &back) != 1 || back != v)
		snprintf(buf, sizeof buf, "%.17g", v);
	axl__sb_puts(w->sb, buf);
}

void axl__json_bool(struct axl__json *w, bool v)
{
	pre_value(w);
	axl__sb_puts(w->sb, v ? "true" : "false");
}

void axl__json_null(struct axl__json *w)
{
	pre_value(w);
	axl__sb_puts(w->sb, "null");
}

void axl__json_hex(struct axl__json *w, uint64_t v, int digits)
{
	pre_value(w);
	axl__sb_printf(w->sb, "\"0x%0*llx\"", digits, (unsigned long long)v);
}

void axl__json_kstr(struct axl__json *w, const char *key, const char *s)
{
	axl__json_key(w, key);
	axl__json_str(w, s);
}

void axl__json_kint(struct axl__json *w, const char *key, int64_t v)
{
	axl__json_key(w, key);
	axl__json_int(w, v);
}

void axl__json_knum(struct axl__json *w, const char *key, double v)
{
	axl__json_key(w, key);
	axl__json_num(w, v);
}

void axl__json_kbool(struct axl__json *w, const char *key, bool v)
{
	axl__json_key(w, key);
	axl__json_bool(w, v);
}
