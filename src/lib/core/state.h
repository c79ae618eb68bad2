/* SPDX-License-Identifier: MIT */
/* The state file (state.c): what axl created on this node, kept across restarts. */
#ifndef AXL_LIB_STATE_H
#define AXL_LIB_STATE_H

#include "internal.h"

#define AXL__STATE_SCHEMA "axl.state"
#define AXL__STATE_VERSION 1
#define AXL__STATE_MAX (1024 * 1024) /* bytes a state file may have */

struct axl__state_limit {
	char *device; /* id when set */
	char *uuid;   /* NULL: none */
	int64_t memory_bytes; /* < 0: none */
	int compute_percent;  /* < 0: none */
	int pid;
	int64_t created;
};

/* A partition axl created (MIG instance, compute partition, ...): recorded by whoever
 * creates it, so a restarted process finds it and removes it. */
struct axl__state_part {
	char *device; /* the parent's id */
	char *uuid;   /* the parent's UUID, NULL: none */
	char *kind;   /* "mig", "amd-compute", ... */
	char *partition; /* the partition's id on its parent */
	char *profile;   /* NULL: none */
	int pid;         /* the owning workload process, 0: none (the operator's, or unknown) */
	/* AXL_PARTITION_OWNER_*: "owner" "workload" or "operator"; absent (UNKNOWN) in
	 * records of an axl that did not say, whose pid may be a command that exited */
	int owner;
	int64_t created;
	/* where a MIG instance is (simulated nodes keep their instances here): its GPU
	 * instance id and start memory slice; has_place false: not recorded */
	bool has_place;
	int gi, start;
};

struct axl__state {
	AXL__VEC(struct axl__state_limit) limits;
	AXL__VEC(struct axl__state_part) parts;
};

/* Wait at most this long for the lock (tests shorten it). */
extern int axl__state_lock_timeout_ms;

void axl__state_free(struct axl__state *st);
/* Parse a state document; path names it in messages ("PATH:LINE: field: rule"). */
int axl__state_parse(const char *path, const char *text, size_t len, struct axl__state *st);
/* The document (malloc'd), NULL on allocation failure. */
char *axl__state_format(const struct axl__state *st, size_t *len);
/* Read DIR/state.json: an absent file is an empty state. */
int axl__state_load(const char *dir, struct axl__state *st);
/* The context's state (empty when it has no state directory). */
int axl__state_read(axl_context *ctx, struct axl__state *st);
/* Under the lock: read, change (returns < 0 error, 0 unchanged, > 0 changed: write). */
int axl__state_update(axl_context *ctx, int (*change)(struct axl__state *st, void *arg), void *arg);

/* Record a limit for a device (replacing the one with the same UUID, or the same id
 * when uuid is NULL); no validation against an inventory. */
int axl__limit_put(axl_context *ctx, const char *device, const char *uuid, int64_t memory_bytes,
		   int compute_percent);
/* Record a partition / forget one (device or uuid matches, and partition); idempotent. */
int axl__state_part_add(axl_context *ctx, const struct axl__state_part *p);
int axl__state_part_remove(axl_context *ctx, const char *device, const char *partition, size_t *removed);

#endif
