/* SPDX-License-Identifier: MIT */
/* A growable NUL-terminated byte buffer. Allocation failure is sticky: once a call
 * fails, the buffer keeps what it had, `failed` is set and later appends are ignored,
 * so callers check once at the end. */
#ifndef AXL_UTIL_STRBUF_H
#define AXL_UTIL_STRBUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

struct axl__sb {
	char *buf;
	size_t len;
	size_t cap;
	bool failed;
};

#define AXL__SB_INIT {NULL, 0, 0, false}

void axl__sb_free(struct axl__sb *sb);
bool axl__sb_reserve(struct axl__sb *sb, size_t extra);
void axl__sb_putc(struct axl__sb *sb, char c);
void axl__sb_put(struct axl__sb *sb, const char *s, size_t n);
void axl__sb_puts(struct axl__sb *sb, const char *s);
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void axl__sb_printf(struct axl__sb *sb, const char *fmt, ...);
void axl__sb_vprintf(struct axl__sb *sb, const char *fmt, va_list ap);
/* The string (never NULL: "" when empty). */
const char *axl__sb_str(const struct axl__sb *sb);
/* Hand the buffer to the caller (malloc'd, NUL-terminated; NULL if failed). */
char *axl__sb_steal(struct axl__sb *sb, size_t *len);

#endif
