/* SPDX-License-Identifier: MIT */
/* The shared parts of the vendor-library backends (vlib.h). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "vlib.h"
#include "capture.h"
#include "util/rootpath.h"

void axl__vwarn_add(struct axl__vwarn *w, const char *fmt, ...)
{
	if (w->n == AXL__VWARN_MAX) {
		w->dropped++;
		return;
	}
	va_list ap;
	va_start(ap, fmt);
	char *m = NULL;
	if (vasprintf(&m, fmt, ap) >= 0 && m)
		w->msg[w->n++] = m;
	va_end(ap);
}

void axl__vwarn_flush(const struct axl__vwarn *w, struct axl_inventory *inv, const char *src,
		      const char *display)
{
	for (size_t i = 0; i < w->n; i++)
		axl__warn(inv, src, NULL, "%s", w->msg[i]);
	if (w->dropped)
		axl__warn(inv, src, NULL, "%zu more %s warnings not shown", w->dropped, display);
}

void axl__vwarn_free(struct axl__vwarn *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->msg[i]);
	w->n = 0;
}

int axl__vlib_replay(struct axl__scan *scan, const char *src, const char *explicit_library,
		     struct axl__vrec *v)
{
	v->mode = AXL__VREC_LIVE;
	if (!scan->ctx->fs.rerooted || explicit_library)
		return -1;
	/* another node: only its recorded answers, never this machine's library */
	char file[64];
	snprintf(file, sizeof file, AXL__CAPTURE_DIR "/%s.jsonl", src);
	size_t len = 0;
	char *text = NULL;
	int rc = axl__fs_read_alloc(scan->fs, AXL__FS_ROOT, file, AXL__CAPTURE_VENDOR_MAX, &text, &len);
	if (rc != 0) {
		if (rc == -EFBIG)
			axl__warn(scan->inv, src, file, "larger than %u MiB; not replayed",
				  AXL__CAPTURE_VENDOR_MAX >> 20);
		return 0;
	}
	char why[256] = "";
	bool ok = axl__vrec_replay_open(v, text, len, why, sizeof why);
	free(text);
	if (!ok) {
		axl__warn(scan->inv, src, file, "%s; not replayed", why);
		axl__vrec_fini(v);
		v->mode = AXL__VREC_LIVE;
		return 0;
	}
	return 1;
}

void axl__vlib_record(const struct axl__scan *scan, struct axl__vrec *v)
{
	/* replaying a capture while recording: the answer file is carried by the recorder */
	if (v->mode == AXL__VREC_LIVE && axl__capture_recording(scan->ctx))
		v->mode = AXL__VREC_RECORD;
}

bool axl__vlib_wait(struct axl_inventory *inv, struct axl__vjob **job, const char *src, const char *display,
		    const char *devices)
{
	int ms = inv->ctx->vendor_timeout_ms;
	if (axl__vjob_wait(*job, ms, src))
		return true;
	*job = NULL;
	axl__warn(inv, src, NULL, "%s did not answer within %d ms (a call hangs); %s are described without it",
		  display, ms, devices);
	return false;
}

size_t axl__backend_index(const char *name)
{
	for (size_t b = 0; b < axl__backend_total; b++)
		if (strcmp(axl__backends[b]->name, name) == 0)
			return b;
	return 0;
}

const char *axl__vdrv_library(const axl_context *ctx, const char *name)
{
	size_t self = axl__backend_index(name);
	return self ? ctx->library[self] : NULL;
}

void *axl__vlib_dlopen(const char *name, char *why, size_t cap, bool *absent)
{
	if (absent)
		*absent = false;
	void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (h)
		return h;
	const char *e = dlerror();
	snprintf(why, cap, "%s", e ? e : "dlopen failed");
	size_t n = strlen(name);
	if (absent)
		*absent = e && strncmp(e, name, n) == 0 && strstr(e + n, "cannot open shared object file");
	return NULL;
}

void axl__vlib_resolve(void *handle, const struct axl__vsym *syms, size_t n, void *table, size_t table_size)
{
	memset(table, 0, table_size);
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < 3 && syms[i].names[k][0]; k++) {
			/* a name that fills its array has no NUL: never passed on */
			if (!memchr(syms[i].names[k], 0, sizeof syms[i].names[k]))
				continue;
			void *sym = dlsym(handle, syms[i].names[k]);
			if (sym) {
				/* POSIX: a symbol's address converts to a function pointer */
				memcpy((char *)table + syms[i].off, &sym, sizeof sym);
				break;
			}
		}
	}
}

const void *axl__vlib_load(struct axl__vlib_cache *c, const char *key, const char *const *names, size_t nnames,
			   const struct axl__vsym *syms, size_t nsyms, size_t table_size,
			   bool (*usable)(const void *table, const char *name, char *why, size_t cap), char *why,
			   size_t cap, bool *absent)
{
	if (absent)
		*absent = false;
	if (strlen(key) >= sizeof c->slot[0].key) {
		snprintf(why, cap, "library path too long");
		return NULL;
	}
	const void *r = NULL;
	pthread_mutex_lock(&c->lock);
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->slot[i].key, key) == 0) {
			r = c->slot[i].table;
			goto out;
		}
	if (c->n == AXL__VLIB_SLOTS) {
		snprintf(why, cap, "too many copies of this library loaded");
		goto out;
	}
	void *h = NULL;
	const char *name = NULL;
	bool all_absent = true;
	char first[512] = "";
	for (size_t i = 0; i < nnames && !h; i++) {
		bool a = false;
		name = names[i];
		h = axl__vlib_dlopen(name, why, cap, &a);
		if (!h && !a && !first[0])
			snprintf(first, sizeof first, "%s", why); /* there, but would not load */
		all_absent &= a;
	}
	if (!h) {
		if (absent)
			*absent = all_absent;
		if (first[0])
			snprintf(why, cap, "%s", first);
		else if (nnames > 1)
			snprintf(why, cap, "none of %s ... %s is installed", names[0], names[nnames - 1]);
		goto out;
	}
	void *table = malloc(table_size);
	if (!table) {
		snprintf(why, cap, "out of memory");
		goto out; /* the handle stays: a library is never unloaded */
	}
	axl__vlib_resolve(h, syms, nsyms, table, table_size);
	if (!usable(table, name, why, cap)) {
		free(table);
		goto out;
	}
	snprintf(c->slot[c->n].key, sizeof c->slot[c->n].key, "%s", key);
	c->slot[c->n].handle = h;
	c->slot[c->n].table = table;
	c->n++;
	r = table;
out:
	pthread_mutex_unlock(&c->lock);
	return r;
}

const void *axl__vlib_open(const struct axl__vlibrary *l, const char *path, char *why, size_t cap, bool *absent)
{
	/* a library asked for by path that is not there is not "absent": worth a warning */
	if (path)
		return axl__vlib_load(l->cache, path, &path, 1, l->syms, l->nsyms, l->table_size, l->usable, why, cap,
				      NULL);
	return axl__vlib_load(l->cache, "", l->sonames, l->nsonames, l->syms, l->nsyms, l->table_size, l->usable, why,
			      cap, absent);
}

/* The first of l's SONAMEs in its folders under root, as a path of this process's tree
 * (root + the file the root's links lead to). 1 found, 0 not. */
static int find_in_root(const struct axl__vlibrary *l, const char *root, char *out, size_t cap)
{
	for (size_t i = 0; i < l->nsonames; i++)
		for (size_t d = 0; l->dirs[d]; d++) {
			char p[1024], r[1024];
			if (snprintf(p, sizeof p, "%s/%s", l->dirs[d], l->sonames[i]) >= (int)sizeof p)
				continue;
			if (axl__root_resolve(root, p, r, sizeof r) == 0 && axl__root_join(root, r, out, cap) == 0 &&
			    access(out, R_OK) == 0)
				return 1;
		}
	return 0;
}

const void *axl__vlib_open_ctx(const struct axl__vlibrary *l, const axl_context *ctx, const char *path, char *why,
			       size_t cap, bool *absent)
{
	const char *root = ctx ? ctx->driver_root : NULL;
	if (path || !root || !l->dirs)
		return axl__vlib_open(l, path, why, cap, absent);
	char found[1024];
	if (!find_in_root(l, root, found, sizeof found)) {
		if (absent)
			*absent = true;
		snprintf(why, cap, "%s is not installed under the driver root %s", l->sonames[0], root);
		return NULL;
	}
	if (absent)
		*absent = false;
	return axl__vlib_load(l->cache, found, (const char *const[]){found}, 1, l->syms, l->nsyms, l->table_size,
			      l->usable, why, cap, NULL);
}

bool axl__vlib_flag(struct axl__vlib_cache *c, const void *table, int which)
{
	bool r = false;
	pthread_mutex_lock(&c->lock);
	for (size_t i = 0; i < c->n; i++)
		if (c->slot[i].table == table)
			r = c->slot[i].flag[which & 1];
	pthread_mutex_unlock(&c->lock);
	return r;
}

void axl__vlib_set_flag(struct axl__vlib_cache *c, const void *table, int which)
{
	pthread_mutex_lock(&c->lock);
	for (size_t i = 0; i < c->n; i++)
		if (c->slot[i].table == table)
			c->slot[i].flag[which & 1] = true;
	pthread_mutex_unlock(&c->lock);
}
