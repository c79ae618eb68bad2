/* SPDX-License-Identifier: MIT */
/*
 * One vendor-library call, live, recorded or replayed, whatever the library. A backend's
 * call wrapper makes the live call (AXL__VQ_LIVE: not made while replaying) and hands
 * its answer to axl__vq_answer, which
 *   live:    returns it (terminating the strings a library may have left open);
 *   record:  also writes it as one line of the capture (vrec.h);
 *   replay:  answers from the capture's line for the same call instead.
 * What the output is and how it is written is described by a struct axl__vout (a kind,
 * a size, fields), so a wrapper holds no mode of its own. Every library so far answers
 * 0 for success; a call nobody recorded answers q->missing (its "not supported").
 * Handles (devices, components) are named in records ("0", "0/mig2") so that a replay
 * needs no real ones: axl__vq_handle gives a live handle its name, or makes one up.
 */
#ifndef AXL_VCALL_H
#define AXL_VCALL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vlib.h"
#include "vrec.h"

#define AXL__VQ_MAX_HANDLES 2048

struct axl__vq {
	struct axl__vrec v; /* live, recording or replaying */
	const void *lib;    /* the library's resolved table (live, recording); NULL replaying */
	int missing;        /* what a call nobody recorded answers */
	unsigned calls;     /* how many calls were made (or answered) */
	size_t max_handles; /* at most AXL__VQ_MAX_HANDLES; 0: that */
	struct {
		void *h;
		char id[24];
	} handles[AXL__VQ_MAX_HANDLES];
	size_t nhandles;
};

static inline bool axl__vq_replaying(const struct axl__vq *q)
{
	return q->v.mode == AXL__VREC_REPLAY;
}

/* The live answer of fnptr(...): not called while replaying (0), nofn when the library
 * lacks the function (fnptr NULL). */
#define AXL__VQ_LIVE(q, nofn, fnptr, ...) (axl__vq_replaying(q) ? 0 : (fnptr) ? (fnptr)(__VA_ARGS__) : (nofn))

/* How a call's output is recorded and replayed. */
enum axl__vo_kind {
	AXL__VO_NONE,   /* the return code alone */
	AXL__VO_STR,    /* char[size]: "o":"text" */
	AXL__VO_INT,    /* int */
	AXL__VO_UINT,   /* unsigned */
	AXL__VO_UINT2,  /* unsigned[2]: "o":[a,b] */
	AXL__VO_INT2,   /* int[2]: "o":[a,b], -1 each when not answered */
	AXL__VO_ULL,    /* unsigned long long, written at most INT64_MAX */
	AXL__VO_U64,    /* uint64_t, "0x..." above INT64_MAX (exact both ways) */
	AXL__VO_U64HEX, /* uint64_t, always "0x..." (ids) */
	AXL__VO_U64X2,  /* uint64_t[2]: "o":[a,b], each as AXL__VO_U64 */
	AXL__VO_FIELDS, /* a struct of size bytes: "o":{field:value,...} */
	AXL__VO_CUSTOM, /* put/get below */
};
struct axl__vout {
	enum axl__vo_kind kind;
	size_t size;                      /* STR: the buffer's; FIELDS: the struct's */
	const struct axl__vfield *fields; /* FIELDS */
	/* CUSTOM: write out as "o"'s value; read o (NULL: not recorded) back into out */
	void (*put)(struct axl__json *w, const void *out);
	void (*get)(const struct axl__jv *o, void *out);
};

/* What a call is recorded under: the function, one or two handles' names, integer
 * arguments. */
struct axl__vkey {
	const char *f;
	const char *d, *e;
	const unsigned *args;
	int nargs;
};

/* The answer of one call (see above): live is what the library said (ignored while
 * replaying), out its output (o->kind's type). Counts the call. */
int axl__vq_answer(struct axl__vq *q, const struct axl__vkey *k, const struct axl__vout *o, void *out, int live);

/* A library's initialisation, once per process and library: flag `which` of the cache's
 * slot says it succeeded before (init is then not called again). init(lib) is the live
 * call. Replaying, a capture that recorded no call f answers `absent` (the library was
 * not there when it was taken). */
int axl__vq_init(struct axl__vq *q, struct axl__vlib_cache *c, int which, const char *f, int absent,
		 int (*init)(const void *lib));

/* The name of handle h in records ("?" when it has none). */
const char *axl__vq_hid(const struct axl__vq *q, const void *h);
/* Name the handle a call returned (replaying: make one up); the handle of that name if
 * there is one already. NULL when the table is full. */
void *axl__vq_handle(struct axl__vq *q, void *h, const char *id);

/* 64-bit values as AXL__VO_U64 writes and reads them (for CUSTOM outputs). */
void axl__vq_put_u64(struct axl__json *w, uint64_t v, bool hex);
uint64_t axl__vq_get_u64(const struct axl__jv *o);

#endif
