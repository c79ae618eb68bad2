/* SPDX-License-Identifier: MIT */
/*
 * The one JSON reader: strict RFC 8259 into a read-only tree that one free releases.
 * Bounded (nesting depth, input size given by the caller), never recursive without a
 * depth check, and exact for integers: a number written without fraction or exponent
 * that fits int64_t is kept as an integer as well as a double.
 */
#ifndef AXL_UTIL_JSONR_H
#define AXL_UTIL_JSONR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AXL__JSONR_MAX_DEPTH 64

enum axl__jtype { AXL__J_NULL, AXL__J_BOOL, AXL__J_NUM, AXL__J_STR, AXL__J_ARR, AXL__J_OBJ };

struct axl__jv {
	enum axl__jtype type;
	bool b;         /* AXL__J_BOOL */
	bool is_int;    /* AXL__J_NUM: i holds the exact value */
	int64_t i;
	double num;     /* AXL__J_NUM */
	const char *s;  /* AXL__J_STR: NUL-terminated (strings holding U+0000 are refused) */
	size_t len;     /* AXL__J_STR: bytes; AXL__J_ARR/OBJ: members */
	struct axl__jv *items; /* AXL__J_ARR elements, AXL__J_OBJ values */
	const char **keys;     /* AXL__J_OBJ keys, parallel to items */
	size_t off;     /* byte offset of the value's first character in the text (for
			 * messages that name a line) */
};

struct axl__jdoc;

/* Parse text[0..len). Returns 0 and the document (free it with axl__jdoc_free), or -1
 * with a message naming the byte offset in err ("offset N: ..."); *err_off (may be NULL)
 * receives that offset. */
int axl__jdoc_parse(const char *text, size_t len, struct axl__jdoc **out, char *err, size_t errcap);
/* The same, also giving the byte offset of the error. */
int axl__jdoc_parse_at(const char *text, size_t len, struct axl__jdoc **out, char *err, size_t errcap,
		       size_t *err_off);
const struct axl__jv *axl__jdoc_root(const struct axl__jdoc *doc);
void axl__jdoc_free(struct axl__jdoc *doc);

/* Object member by key (the last one when a key repeats); NULL when absent or when v
 * is not an object. */
const struct axl__jv *axl__jv_get(const struct axl__jv *v, const char *key);
/* Typed member access: false when absent or of another type. */
bool axl__jv_int(const struct axl__jv *obj, const char *key, int64_t *out);
bool axl__jv_num(const struct axl__jv *obj, const char *key, double *out);
const char *axl__jv_str(const struct axl__jv *obj, const char *key);

/* The one warning about an axl document of a later schema_version than this axl reads
 * (docs/internals/conventions.md): printf arguments (long long) its version, (int) this axl's. */
#define AXL__NEWER_DOC "schema_version %lld is newer than this axl reads (%d); reading what it understands"

#endif
