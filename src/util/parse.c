/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "parse.h"

#include <stdint.h>
#include <string.h>

#include "axl/error.h"

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

char *axl__strip(char *s)
{
	while (is_space(*s))
		s++;
	size_t n = strlen(s);
	while (n && is_space(s[n - 1]))
		s[--n] = '\0';
	return s;
}

static int digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return 99;
}

/* Parse digits in [s, end) strictly. */
static int parse_digits(const char *s, const char *end, int base, uint64_t *out)
{
	if (s == end)
		return AXL_EPARSE;
	uint64_t v = 0;
	for (; s < end; s++) {
		int d = digit_value(*s);
		if (d >= base)
			return AXL_EPARSE;
		if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			return AXL_ERANGE;
		v = v * (uint64_t)base + (uint64_t)d;
	}
	*out = v;
	return 0;
}

static void trim_bounds(const char **b, const char **e)
{
	while (*b < *e && is_space(**b))
		(*b)++;
	while (*e > *b && is_space((*e)[-1]))
		(*e)--;
}

int axl__parse_u64(const char *s, int base, uint64_t *out)
{
	if (!s)
		return AXL_EINVAL;
	const char *b = s, *e = s + strlen(s);
	trim_bounds(&b, &e);
	if (b < e && *b == '+')
		b++;
	if (base == 0 || base == 16) {
		if (e - b > 2 && b[0] == '0' && (b[1] == 'x' || b[1] == 'X')) {
			b += 2;
			base = 16;
		} else if (base == 0) {
			base = 10;
		}
	}
	return parse_digits(b, e, base, out);
}

int axl__parse_i64(const char *s, int64_t *out)
{
	if (!s)
		return AXL_EINVAL;
	const char *b = s, *e = s + strlen(s);
	trim_bounds(&b, &e);
	bool neg = false;
	if (b < e && (*b == '-' || *b == '+')) {
		neg = *b == '-';
		b++;
	}
	uint64_t v;
	int rc = parse_digits(b, e, 10, &v);
	if (rc)
		return rc;
	if (neg) {
		if (v > (uint64_t)INT64_MAX + 1)
			return AXL_ERANGE;
		*out = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
	} else {
		if (v > (uint64_t)INT64_MAX)
			return AXL_ERANGE;
		*out = (int64_t)v;
	}
	return 0;
}

int axl__parse_hex(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v;
	int rc = axl__parse_u64(s, 16, &v);
	if (rc)
		return rc;
	if (v > max)
		return AXL_ERANGE;
	*out = v;
	return 0;
}

int axl__parse_link_speed(const char *s, int *gen)
{
	if (!s)
		return AXL_EINVAL;
	/* "<number> GT/s[ PCIe]" */
	const char *p = s;
	while (is_space(*p))
		p++;
	unsigned whole = 0, frac = 0, frac_digits = 0;
	const char *start = p;
	while (*p >= '0' && *p <= '9' && p - start < 6)
		whole = whole * 10 + (unsigned)(*p++ - '0');
	if (p == start)
		return AXL_EPARSE;
	if (*p == '.') {
		p++;
		while (*p >= '0' && *p <= '9' && frac_digits < 3) {
			frac = frac * 10 + (unsigned)(*p++ - '0');
			frac_digits++;
		}
	}
	while (frac_digits < 3) {
		frac *= 10;
		frac_digits++;
	}
	while (*p >= '0' && *p <= '9')
		p++;
	while (*p == ' ')
		p++;
	if (strncmp(p, "GT/s", 4) != 0)
		return AXL_EPARSE;
	p += 4;
	while (*p == ' ')
		p++;
	if (strncmp(p, "PCIe", 4) == 0)
		p += 4;
	while (is_space(*p))
		p++;
	if (*p)
		return AXL_EPARSE;
	unsigned milli = whole * 1000 + frac;
	static const unsigned speeds[] = {2500, 5000, 8000, 16000, 32000, 64000, 128000};
	for (int i = 0; i < 7; i++) {
		if (milli == speeds[i]) {
			*gen = i + 1;
			return 0;
		}
	}
	return AXL_ERANGE;
}

static const char *parse_uint_at(const char *p, unsigned *v)
{
	if (*p < '0' || *p > '9')
		return NULL;
	unsigned long x = 0;
	while (*p >= '0' && *p <= '9') {
		x = x * 10 + (unsigned long)(*p - '0');
		if (x > 0xffffffffUL)
			return NULL;
		p++;
	}
	*v = (unsigned)x;
	return p;
}

int axl__parse_cpulist(const char *s, unsigned max_cpu, unsigned *count)
{
	if (!s)
		return AXL_EINVAL;
	const char *p = s;
	while (is_space(*p))
		p++;
	unsigned n = 0;
	long last = -1;
	if (!*p) {
		*count = 0; /* an empty list is valid: no CPUs (memory-only NUMA node) */
		return 0;
	}
	for (;;) {
		unsigned a, b;
		p = parse_uint_at(p, &a);
		if (!p)
			return AXL_EPARSE;
		b = a;
		if (*p == '-') {
			p = parse_uint_at(p + 1, &b);
			if (!p)
				return AXL_EPARSE;
		}
		if (b < a || (long)a <= last || b > max_cpu)
			return AXL_ERANGE;
		n += b - a + 1;
		last = b;
		if (*p == ',') {
			p++;
			continue;
		}
		while (is_space(*p))
			p++;
		if (*p)
			return AXL_EPARSE;
		break;
	}
	*count = n;
	return 0;
}

int axl__parse_bdf(const char *s, unsigned *domain, unsigned *bus, unsigned *dev, unsigned *fn)
{
	if (!s)
		return AXL_EINVAL;
	const char *p = s;
	unsigned v[3] = {0, 0, 0};
	int lens[3] = {0, 0, 0};
	for (int part = 0; part < 3; part++) {
		while (digit_value(*p) < 16 && lens[part] < 9) {
			v[part] = v[part] * 16 + (unsigned)digit_value(*p);
			p++;
			lens[part]++;
		}
		char want = part < 2 ? ':' : '.';
		if (*p != want)
			return AXL_EPARSE;
		p++;
	}
	if (lens[0] < 4 || lens[0] > 8 || lens[1] != 2 || lens[2] != 2)
		return AXL_EPARSE;
	if (*p < '0' || *p > '7' || p[1] != '\0')
		return AXL_EPARSE;
	if (v[2] > 31)
		return AXL_ERANGE;
	*domain = v[0];
	*bus = v[1];
	*dev = v[2];
	*fn = (unsigned)(*p - '0');
	return 0;
}

int axl__kv_find(const char *text, const char *key, char sep, char *out, size_t cap)
{
	if (!text || !key || !out || cap == 0)
		return AXL_EINVAL;
	size_t klen = strlen(key);
	const char *line = text;
	while (*line) {
		const char *eol = strchr(line, '\n');
		if (!eol)
			eol = line + strlen(line);
		const char *p = line;
		while (p < eol && (*p == ' ' || *p == '\t'))
			p++;
		if ((size_t)(eol - p) > klen && memcmp(p, key, klen) == 0) {
			const char *q = p + klen;
			bool ok;
			if (sep == ' ')
				ok = *q == ' ' || *q == '\t';
			else {
				while (q < eol && (*q == ' ' || *q == '\t'))
					q++;
				ok = q < eol && *q == sep;
				if (ok)
					q++;
			}
			if (ok) {
				while (q < eol && (*q == ' ' || *q == '\t'))
					q++;
				const char *e = eol;
				while (e > q && is_space(e[-1]))
					e--;
				size_t n = (size_t)(e - q);
				if (n >= cap)
					return AXL_ETOOBIG;
				memcpy(out, q, n);
				out[n] = '\0';
				return 0;
			}
		}
		line = *eol ? eol + 1 : eol;
	}
	return AXL_ENOENT;
}

int axl__parse_kb_size(const char *s, uint64_t *bytes)
{
	if (!s)
		return AXL_EINVAL;
	const char *b = s, *e = s + strlen(s);
	trim_bounds(&b, &e);
	uint64_t mult = 1;
	if (e - b >= 2 && (e[-2] == 'k' || e[-2] == 'K') && (e[-1] == 'B' || e[-1] == 'b')) {
		mult = 1024;
		e -= 2;
	} else if (e - b >= 2 && e[-2] == 'M' && e[-1] == 'B') {
		mult = 1024 * 1024;
		e -= 2;
	}
	trim_bounds(&b, &e);
	uint64_t v;
	int rc = parse_digits(b, e, 10, &v);
	if (rc)
		return rc;
	if (v > UINT64_MAX / mult)
		return AXL_ERANGE;
	*bytes = v * mult;
	return 0;
}

bool axl__is_text(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 && c != '\t' && c != '\n')
			return false;
		if (c == 0x7f)
			return false;
	}
	return true;
}

size_t axl__utf8_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	size_t len;
	uint32_t cp;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}
