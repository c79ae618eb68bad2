/* SPDX-License-Identifier: MIT */
/*
 * What every vendor-library backend (nvml, rocm-smi, level-zero) does around its own
 * calls: warnings gathered by the worker and handed to the inventory afterwards, the
 * choice between replaying a capture's answers and calling the library, recording into a
 * capture, and waiting for the worker under the deadline (vjob.h).
 */
#ifndef AXL_VLIB_H
#define AXL_VLIB_H

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>

#include "backend.h"
#include "vjob.h"
#include "vrec.h"

/* Warnings a worker collects (it must not touch the inventory). */
#define AXL__VWARN_MAX 64
struct axl__vwarn {
	char *msg[AXL__VWARN_MAX];
	size_t n, dropped;
};
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void axl__vwarn_add(struct axl__vwarn *w, const char *fmt, ...);
/* Into the inventory, under source src; display names the library ("NVML"). */
void axl__vwarn_flush(const struct axl__vwarn *w, struct axl_inventory *inv, const char *src,
		      const char *display);
void axl__vwarn_free(struct axl__vwarn *w);

/* Before a backend loads its library. On a re-rooted tree with no library given
 * explicitly the answers come from the capture's axl-capture/<src>.jsonl: 1 when v now
 * replays them, 0 when there is nothing to replay (the backend does nothing; bad or
 * oversized files are warned about). -1: call the library (live). */
int axl__vlib_replay(struct axl__scan *scan, const char *src, const char *explicit_library,
		     struct axl__vrec *v);
/* A live backend in a recording context records (axl capture). */
void axl__vlib_record(const struct axl__scan *scan, struct axl__vrec *v);
/* Wait for the worker under the context's deadline. false: it missed it; *job is then
 * dropped (NULL) and a warning says that `devices` are described without `display`. */
bool axl__vlib_wait(struct axl_inventory *inv, struct axl__vjob **job, const char *src, const char *display,
		    const char *devices);
/* dlopen(name) with RTLD_NOW | RTLD_LOCAL (a vendor's symbols must not satisfy anything
 * else in the process). NULL with dlerror's text in why; *absent (may be NULL) says
 * whether the file simply is not there (as opposed to there but unloadable). */
void *axl__vlib_dlopen(const char *name, char *why, size_t cap, bool *absent);
/* A function of a vendor library: where its pointer goes in the backend's table, and
 * its symbol names, newest version first (_v3, _v2, base). */
struct axl__vsym {
	size_t off;
	/* the names to try, newest first; "" ends the list. Arrays, not pointers: a table
	 * of them needs no relocation when libaxl is loaded (it stays read-only and shared) */
	char names[3][48];
};
/* Resolve every symbol into table (zeroed first); a missing one stays NULL. */
void axl__vlib_resolve(void *handle, const struct axl__vsym *syms, size_t n, void *table, size_t table_size);

/*
 * The libraries a backend loaded, once per process each and never unloaded (a worker past
 * its deadline may still be inside one). A slot is keyed by what was asked for (a path,
 * or "" for the system's library) and holds the resolved table and two "initialised"
 * flags (an init that succeeded is not called again by this process).
 */
#define AXL__VLIB_SLOTS 4
struct axl__vlib_cache {
	pthread_mutex_t lock;
	struct {
		char key[256];
		void *handle;
		void *table;
		bool flag[2];
	} slot[AXL__VLIB_SLOTS];
	size_t n;
};
#define AXL__VLIB_CACHE_INIT {PTHREAD_MUTEX_INITIALIZER, {{"", NULL, NULL, {false, false}}}, 0}
/* The table of the library `key` names: the cached one, or dlopen the first of names[]
 * that loads (a path given explicitly, or SONAMEs newest first), resolve syms into a new
 * table of table_size bytes and keep it when usable() accepts it (it writes why not).
 * NULL with why; *absent (may be NULL): none of the names is installed at all. */
const void *axl__vlib_load(struct axl__vlib_cache *c, const char *key, const char *const *names, size_t nnames,
			   const struct axl__vsym *syms, size_t nsyms, size_t table_size,
			   bool (*usable)(const void *table, const char *name, char *why, size_t cap), char *why,
			   size_t cap, bool *absent);
/* A library as a backend describes it: its SONAMEs newest first, its symbols, the table
 * they fill (table_size bytes) and what it needs to be usable, the process's copies. */
struct axl__vlibrary {
	const char *const *sonames;
	size_t nsonames;
	const struct axl__vsym *syms;
	size_t nsyms;
	size_t table_size;
	bool (*usable)(const void *table, const char *name, char *why, size_t cap);
	struct axl__vlib_cache *cache;
	/* The folders the vendor installs it in, NULL-terminated (its runtime's
	 * library_dirs): where it is looked for under a driver root. NULL: nowhere (the
	 * loader's own search only). */
	const char *const *dirs;
};
/* axl__vlib_load of l: the library at path, or (NULL) the first SONAME installed. */
const void *axl__vlib_open(const struct axl__vlibrary *l, const char *path, char *why, size_t cap, bool *absent);
/* The same as ctx says: path when given; else, under the context's driver root (when it
 * has one and l names its folders), the first SONAME found in them, its links resolved
 * inside the root (*absent when none is there); else the loader's search. */
const void *axl__vlib_open_ctx(const struct axl__vlibrary *l, const axl_context *ctx, const char *path, char *why,
			       size_t cap, bool *absent);
/* Flag `which` (0 or 1) of the slot holding table; false when the table is not cached. */
bool axl__vlib_flag(struct axl__vlib_cache *c, const void *table, int which);
void axl__vlib_set_flag(struct axl__vlib_cache *c, const void *table, int which);

/* The library a backend loads instead of the system's (ctx->library[], from the
 * variable its struct axl__backend declares), NULL: the system's. */
const char *axl__vdrv_library(const axl_context *ctx, const char *name);
/* This backend's index in the table (its inv->bstate slot); 0 when there is none. */
size_t axl__backend_index(const char *name);

#endif
