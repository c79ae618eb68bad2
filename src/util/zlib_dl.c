/* SPDX-License-Identifier: MIT */
/* Loading zlib when a capture file needs it (zlib_dl.h). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <zlib.h>

/* the table, before zlib_dl.h's macros would rename its members */
struct axl__zlib_fns {
	__typeof__(inflateInit2_) *inflateInit2_;
	__typeof__(inflate) *inflate;
	__typeof__(inflateEnd) *inflateEnd;
	__typeof__(deflateInit2_) *deflateInit2_;
	__typeof__(deflate) *deflate;
	__typeof__(deflateEnd) *deflateEnd;
};
static const struct {
	const char *name;
	size_t off;
} syms[] = {
#define S(f) {#f, offsetof(struct axl__zlib_fns, f)}
	S(inflateInit2_), S(inflate), S(inflateEnd), S(deflateInit2_), S(deflate), S(deflateEnd),
#undef S
};

#include "zlib_dl.h"

_Static_assert(sizeof(struct axl__zlib_fns) == sizeof(struct axl__zlib), "one table");

struct axl__zlib axl__zlib;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static bool loaded;

int axl__zlib_load(const char *path, char *why, size_t cap)
{
	int rc = 0;
	pthread_mutex_lock(&lock);
	if (loaded)
		goto out;
	const char *name = path && *path ? path : AXL__ZLIB_SONAME;
	/* RTLD_LOCAL: its symbols satisfy nothing else in the process */
	void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		snprintf(why, cap, "capture files need zlib (%s, Debian package %s): %s", AXL__ZLIB_SONAME,
			 AXL__ZLIB_PACKAGE, e ? e : "dlopen failed");
		rc = -ELIBACC;
		goto out;
	}
	struct axl__zlib_fns t;
	for (size_t i = 0; i < sizeof syms / sizeof *syms; i++) {
		void *sym = dlsym(h, syms[i].name);
		if (!sym) {
			snprintf(why, cap, "capture files need zlib (%s, Debian package %s): %s has no %s",
				 AXL__ZLIB_SONAME, AXL__ZLIB_PACKAGE, name, syms[i].name);
			dlclose(h);
			rc = -ELIBACC;
			goto out;
		}
		/* POSIX: a symbol's address converts to a function pointer */
		memcpy((char *)&t + syms[i].off, &sym, sizeof sym);
	}
	memcpy(&axl__zlib, &t, sizeof t);
	loaded = true;
out:
	pthread_mutex_unlock(&lock);
	return rc;
}
