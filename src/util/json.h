/* SPDX-License-Identifier: MIT */
/* The one JSON writer. Keeps the comma/indent state itself; strings are escaped and
 * made valid UTF-8 (invalid bytes become U+FFFD); non-finite numbers become null. */
#ifndef AXL_UTIL_JSON_H
#define AXL_UTIL_JSON_H

#include <stdbool.h>
#include <stdint.h>

#include "strbuf.h"

#define AXL__JSON_MAX_DEPTH 32

struct axl__json {
	struct axl__sb *sb;
	bool pretty;
	int depth;
	bool first[AXL__JSON_MAX_DEPTH];
	bool after_key;
	bool overflow;
};

void axl__json_init(struct axl__json *w, struct axl__sb *sb, bool pretty);
void axl__json_obj(struct axl__json *w);
void axl__json_obj_end(struct axl__json *w);
void axl__json_arr(struct axl__json *w);
void axl__json_arr_end(struct axl__json *w);
void axl__json_key(struct axl__json *w, const char *key);
void axl__json_str(struct axl__json *w, const char *s);
void axl__json_strn(struct axl__json *w, const char *s, size_t n);
void axl__json_int(struct axl__json *w, int64_t v);
void axl__json_num(struct axl__json *w, double v);
void axl__json_bool(struct axl__json *w, bool v);
void axl__json_null(struct axl__json *w);
/* "0x%0*x" hex string, as the contract writes PCI ids */
void axl__json_hex(struct axl__json *w, uint64_t v, int digits);

/* key + value shorthands */
void axl__json_kstr(struct axl__json *w, const char *key, const char *s);
void axl__json_kint(struct axl__json *w, const char *key, int64_t v);
void axl__json_knum(struct axl__json *w, const char *key, double v);
void axl__json_kbool(struct axl__json *w, const char *key, bool v);

/* Escape s as a JSON string body (no quotes) into sb. */
void axl__json_escape(struct axl__sb *sb, const char *s, size_t n);

#endif
