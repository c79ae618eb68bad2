/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void axl__sb_free(struct axl__sb *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->cap = 0;
	sb->failed = false;
}

bool axl__sb_reserve(struct axl__sb *sb, size_t extra)
{
	if (sb->failed)
		return false;
	if (extra > ((size_t)-1) / 2 - sb->len) {
		sb->failed = true;
		return false;
	}
	size_t need = sb->len + extra + 1;
	if (need <= sb->cap)
		return true;
	size_t cap = sb->cap ? sb->cap : 256;
	while (cap < need)
		cap *= 2;
	char *p = realloc(sb->buf, cap);
	if (!p) {
		sb->failed = true;
		return false;
	}
	sb->buf = p;
	sb->cap = cap;
	return true;
}

void axl__sb_put(struct axl__sb *sb, const char *s, size_t n)
{
	if (!axl__sb_reserve(sb, n))
		return;
	if (n)
		memcpy(sb->buf + sb->len, s, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void axl__sb_putc(struct axl__sb *sb, char c)
{
	axl__sb_put(sb, &c, 1);
}

void axl__sb_puts(struct axl__sb *sb, const char *s)
{
	axl__sb_put(sb, s, strlen(s));
}

void axl__sb_vprintf(struct axl__sb *sb, const char *fmt, va_list ap)
{
	char tmp[256];
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(tmp, sizeof tmp, fmt, ap2);
	va_end(ap2);
	if (n < 0) {
		sb->failed = true;
		return;
	}
	if ((size_t)n < sizeof tmp) {
		axl__sb_put(sb, tmp, (size_t)n);
		return;
	}
	if (!axl__sb_reserve(sb, (size_t)n))
		return;
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
}

void axl__sb_printf(struct axl__sb *sb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	axl__sb_vprintf(sb, fmt, ap);
	va_end(ap);
}

const char *axl__sb_str(const struct axl__sb *sb)
{
	return sb->buf ? sb->buf : "";
}

char *axl__sb_steal(struct axl__sb *sb, size_t *len)
{
	if (sb->failed) {
		axl__sb_free(sb);
		return NULL;
	}
	if (!sb->buf && !axl__sb_reserve(sb, 0))
		return NULL;
	if (!sb->buf)
		return NULL;
	sb->buf[sb->len] = '\0';
	char *p = sb->buf;
	if (len)
		*len = sb->len;
	sb->buf = NULL;
	sb->len = sb->cap = 0;
	return p;
}
