/* SPDX-License-Identifier: MIT */
/*
 * Vendor-library answers for captures and replays, one JSON object per line and call:
 *   {"f":"rsmi_dev_name_get","d":"0","e":"1","a":[3],"r":0,"o":...}
 * f the function, d (and e for a pair of devices) the devices by a name the backend
 * gives them (an index, "0/mig2"), a the integer arguments, r the library's return code,
 * o the output on success: a string, an integer, an array, or an object holding a
 * struct's fields by name (axl__vfield tables). A backend wraps each of its library
 * calls: live it calls the library, recording it also writes the line, replaying it
 * answers from the lines (axl__vrec_find). The lines go to axl-capture/<lib>.jsonl.
 */
#ifndef AXL_VREC_H
#define AXL_VREC_H

#include <stdbool.h>
#include <stddef.h>

#include "internal.h"
#include "util/json.h"
#include "util/jsonr.h"
#include "util/strbuf.h"

enum axl__vrec_mode { AXL__VREC_LIVE, AXL__VREC_RECORD, AXL__VREC_REPLAY };

struct axl__vrec_entry;
struct axl__vrec {
	enum axl__vrec_mode mode;
	struct axl__sb rec;            /* recording: the lines */
	struct axl__jdoc *doc;         /* replaying: the parsed lines */
	struct axl__vrec_entry *recs;  /* replaying: sorted by call */
	size_t nrecs;
};

/* Replay from text[0..len) (the .jsonl file); false with a reason on bad input. */
bool axl__vrec_replay_open(struct axl__vrec *r, const char *text, size_t len, char *why, size_t cap);
void axl__vrec_fini(struct axl__vrec *r);
/* Replaying: the output of this call (NULL when it has none), *ret its return code;
 * a call nobody recorded answers `missing` (the library's "not supported"). */
const struct axl__jv *axl__vrec_find(const struct axl__vrec *r, const char *f, const char *d, const char *e,
				     const unsigned *args, int nargs, int missing, int *ret);
/* Recording: a line up to its output (write "o" with w if there is one), then end it. */
void axl__vrec_begin(struct axl__vrec *r, struct axl__json *w, const char *f, const char *d, const char *e,
		     const unsigned *args, int nargs, int ret);
void axl__vrec_end(struct axl__vrec *r, struct axl__json *w);
/* Hand the recorded lines to the context's capture as axl-capture/<lib>.jsonl. Call it
 * on the inventory's thread, never from a worker (it may outlive the context). */
void axl__vrec_flush(struct axl__vrec *r, axl_context *ctx, const char *lib);

/* The fields of a struct, for "o" objects. U8 (a one-byte flag), I32 and I64 are written
 * as signed integers, F64 as a number (null when not finite, read back as NaN), BYTES as
 * lowercase hex. A member may be nested ("core.name": offsetof takes a member path). */
enum { AXL__VF_U32, AXL__VF_U64, AXL__VF_STR, AXL__VF_U8, AXL__VF_I32, AXL__VF_I64, AXL__VF_F64, AXL__VF_BYTES };
struct axl__vfield {
	char name[32]; /* the member's name ("" ends a table): an array, so that the tables
			* need no relocation at load */
	size_t off;
	int type;
	size_t size; /* AXL__VF_STR: the array's size */
};
#define AXL__VF_UINT(T, m) {#m, offsetof(T, m), AXL__VF_U32, 0}
#define AXL__VF_ULL(T, m) {#m, offsetof(T, m), AXL__VF_U64, 0}
#define AXL__VF_CHARS(T, m) {#m, offsetof(T, m), AXL__VF_STR, sizeof(((T *)0)->m)}
#define AXL__VF_BYTE(T, m) {#m, offsetof(T, m), AXL__VF_U8, 0}
#define AXL__VF_INT(T, m) {#m, offsetof(T, m), AXL__VF_I32, 0}
#define AXL__VF_LL(T, m) {#m, offsetof(T, m), AXL__VF_I64, 0}
#define AXL__VF_DBL(T, m) {#m, offsetof(T, m), AXL__VF_F64, 0}
#define AXL__VF_HEX(T, m) {#m, offsetof(T, m), AXL__VF_BYTES, sizeof(((T *)0)->m)}
#define AXL__VF_END {"", 0, 0, 0}
void axl__vrec_put_fields(struct axl__json *w, const struct axl__vfield *fs, const void *p);
void axl__vrec_get_fields(const struct axl__jv *o, const struct axl__vfield *fs, void *p);
/* Terminate every string field of a struct a library wrote (it may not have). */
void axl__vrec_terminate(const struct axl__vfield *fs, void *p);

#endif
