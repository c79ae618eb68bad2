/* SPDX-License-Identifier: MIT */
/*
 * Visibility (docs/visibility.md): the vendor-neutral part, and the toolkit the backends'
 * visibility operations are written with (struct axl__vis_ops in core/backend.h). This layer
 * sits below the vendor folders: it knows how to check access to a device (its /dev nodes,
 * the device cgroup), how to read a list of entries, and how to turn verdicts into the
 * visible/reason attributes; each vendor folder knows its runtime's variables, their
 * syntax and which devices they number (backend/<vendor>/<vendor>_visibility.c).
 *
 * The parsers are pure functions (no I/O) so that the unit tests and the fuzzer can drive
 * them. Each list parser reads one variable against an ordered list of candidate items (the
 * devices the runtime would number, in its order) and writes, for every item, its position
 * in the resulting list (the runtime's new ordinal), AXL__VIS_UNLISTED or AXL__VIS_UNKNOWN.
 */
#ifndef AXL_VISIBILITY_H
#define AXL_VISIBILITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "axl.h"

#define AXL__VIS_UNLISTED (-1) /* the list leaves it out */
#define AXL__VIS_UNKNOWN (-2)  /* axl cannot tell (an entry it cannot resolve) */

/* Result codes of the list parsers. */
enum {
	AXL__VIS_ALL = 0,     /* no restriction: every item keeps its place (pos[] untouched) */
	AXL__VIS_SOME = 1,    /* pos[] says which items the list keeps */
	AXL__VIS_NONE = 2,    /* the list keeps nothing (empty, or a repeated entry) */
	AXL__VIS_UNSURE = 3,  /* pos[] holds what could be resolved, AXL__VIS_UNKNOWN the rest */
	AXL__VIS_OFF = 4      /* (container-runtime variables) not in effect: "void" or empty */
};

/* One candidate: a device (parent < 0) or a partition of one. */
struct axl__vis_item {
	const char *uuid; /* the UUID a list may name it by; NULL when not known */
	long parent;      /* index of the parent item, -1 for a whole device */
	int64_t gi, ci;   /* partition ids (instance, sub-instance) a list may name; -1 */
	int64_t number;   /* the number a list names it by (module id, device index); -1 */
};

struct axl__vis_result {
	int code;         /* AXL__VIS_* */
	bool by_index;    /* the list named devices by index (the runtime's order matters) */
	char note[160];   /* why the list stops early, keeps nothing or cannot be resolved */
};

/* ==== list-reading machinery, for the vendors' parsers (visibility_parse.c) =========== */

/* The most entries a list is read for. */
#define AXL__VIS_MAXTOK 256
/* Split value at ',' into at most AXL__VIS_MAXTOK tokens in buf (a copy, cut to cap);
 * empty tokens are kept. getline_style: a trailing empty token is dropped, and an empty
 * value gives no token (std::getline). Returns the number of tokens. */
size_t axl__vis_split(const char *value, char *buf, size_t cap, char **tok, bool getline_style);
/* s without the blanks around it (in place). */
char *axl__vis_trim(char *s);
/* Only decimal digits, at least one. */
bool axl__vis_digits(const char *s);
/* r->note = fmt with the entry (cut to 40 characters) for its one %s. */
void axl__vis_note(struct axl__vis_result *r, const char *fmt, const char *tok);
/* A parser's start: r cleared, every item AXL__VIS_UNLISTED. */
void axl__vis_start(size_t n, int *pos, struct axl__vis_result *r);
/* The list keeps nothing: every item unlisted, AXL__VIS_NONE. */
void axl__vis_none(size_t n, int *pos, struct axl__vis_result *r);
/* Start reading a list variable: an unset value (or "all" when allow_all) keeps every
 * item (AXL__VIS_ALL), an empty one none (AXL__VIS_NONE); true when the list has items
 * to read. */
bool axl__vis_begin(const char *value, bool allow_all, size_t n, int *pos, struct axl__vis_result *r);
/* Item i gets ordinal ord; a whole device brings its partitions not selected yet. */
void axl__vis_select(const struct axl__vis_item *items, size_t n, int *pos, size_t i, int ord);
/* The k-th whole device (parent < 0), or -1. */
long axl__vis_nth(const struct axl__vis_item *items, size_t n, uint64_t k);
/* The one whole device (children: the one partition) whose UUID starts with prefix
 * (plen bytes, icase: ignoring case); -1 none, -2 several. *unknown (when not NULL)
 * counts the candidates without a UUID. */
long axl__vis_by_uuid(const struct axl__vis_item *items, size_t n, bool children, const char *prefix,
		      size_t plen, bool icase, size_t *unknown);

/* A list of numbers matched against items[].number (module ids, device indices;
 * allow_all: "all" keeps everything). Reading stops at the first entry that is not a
 * number; an item whose number is not known is AXL__VIS_UNKNOWN. */
void axl__vis_numbers(const char *value, bool allow_all, const struct axl__vis_item *items,
		      size_t n, int *pos, struct axl__vis_result *r);

/* cgroup v1: the path of this process in the "devices" hierarchy, from the text of
 * /proc/self/cgroup. 0 and the path; -1 when there is none (cgroup v2 only). */
int axl__vis_cgroup_v1_path(const char *proc_self_cgroup, char *out, size_t cap);

/* cgroup v1 devices.list: does it allow the device (type 'c' or 'b') with every access
 * in `need` ("rw")? 1 yes, 0 no. A line "a *:* rwm" allows everything. */
int axl__vis_cgroup_allows(const char *devices_list, char type, unsigned major, unsigned minor,
			   const char *need);

/* ==== the stage (visibility.c) ======================================================== */

/* The source of the warnings visibility emits (axl__warn), the backends' included. */
#define AXL__VIS_SRC "visibility"

/* What a /dev node of a device is to its compute runtime (struct axl__vis_ops.node);
 * the access check counts a device's nodes of its highest kind only. */
enum {
	AXL__VIS_NODE_OWN = 0,      /* one of the device's nodes, nothing more known */
	AXL__VIS_NODE_RENDER = 1,   /* a DRM render node (compute needs no card node) */
	AXL__VIS_NODE_COMPUTE = 2,  /* the node the runtime opens the device by (its other
				     * nodes, DRM ones included, do not matter to it) */
	AXL__VIS_NODE_REQUIRED = 3  /* a node the driver shares between its devices and without
				     * which the runtime opens none of them */
};

/* Access (layer 1): can the process open the device's nodes? */
enum { AXL__VIS_ACC_UNKNOWN = -1, AXL__VIS_ACC_NO = 0, AXL__VIS_ACC_YES = 1, AXL__VIS_ACC_PART = 2,
       AXL__VIS_ACC_INHERIT = 3 /* (while deciding) a partition with no node of its own */ };
/* The variables' verdict (layer 2), which a backend's visibility operation writes. */
enum { AXL__VIS_ENV_FREE = 2 /* no variable mentions it */, AXL__VIS_ENV_YES = 1, AXL__VIS_ENV_NO = 0,
       AXL__VIS_ENV_UNKNOWN = -1 };

/* One device or partition being decided. Layer 1 fills access*; a backend's visibility
 * operation fills env, env_why, partial (and runtime_why) for its devices. */
struct axl__vis_dev {
	struct axl_device *d;
	long parent; /* index in axl__vis.v of its parent, -1 for a top-level device */
	int access;  /* AXL__VIS_ACC_* */
	axl_source access_src;
	char access_why[256];
	int env; /* AXL__VIS_ENV_* */
	bool partial; /* only a part of it is kept (env_why says which) */
	char env_why[320];
	char runtime_why[160]; /* what a container-runtime variable says about it */
};

struct axl__scan;
/* The stage's state, handed to the backends' operations. */
struct axl__vis {
	struct axl__scan *scan;
	const struct axl__fs *fs;
	struct axl_inventory *inv;
	const axl_context *ctx;
	bool has_dev; /* the tree has a /dev to check nodes against */
	bool cg_v1;   /* cg_list holds this process's cgroup v1 device list */
	char cg_list[8192];
	char cg_path[512];
	char procdev[8192]; /* /proc/devices */
	struct axl__vis_dev *v; /* every device and partition, parents before their children */
	size_t n;
};

/* A visibility variable's value (the context's: NULL unset, "" set and empty). */
const char *axl__vis_var(const struct axl__vis *v, const char *name);
/* "NAME=value" for reasons, the value cut to 64 characters; buf. */
const char *axl__vis_setting(const struct axl__vis *v, const char *name, char *buf, size_t cap);
/* Can the process open node `path`? 1 yes (or not checkable), 0 no, with why and *src. */
int axl__vis_node_ok(const struct axl__vis *v, const char *path, char *why, size_t cap, axl_source *src);
/* The major number a driver registered under name in /proc/devices; -1 when absent. */
long axl__vis_chr_major(const struct axl__vis *v, const char *name);
/* "major:minor" read from a sysfs dev file (/sys/class/<class>/<name>/dev). */
bool axl__vis_read_devnum(const struct axl__vis *v, const char *sysdev, unsigned *major, unsigned *minor);

/* Mark every device (and child) visible or not, with the reason (visibility.c). */
void axl__visibility_apply(struct axl__scan *scan);

#endif
