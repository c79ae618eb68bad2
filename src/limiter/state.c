/* SPDX-License-Identifier: MIT */
/*
 * The state directory's limit records for the limiter (docs/limits.md, "Where limits come
 * from"): `axl limit set` writes <state dir>/state.json; the limiter reads its "limits"
 * records, keyed by UUID, once per side (CUDA, HIP) when it first reads the devices. The
 * rules are libaxl's (src/lib/core/state.c), read without libaxl: a file that is there but
 * cannot be read, is not JSON, breaks a rule or has a later schema_version makes every
 * device fail closed (allocations refused), because a limit it may hold must never be
 * dropped silently. No file, or no record for a device: no limit from here.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lstate.h"
#include "region.h"
#include "util/jsonr.h"

/* the largest state file read (libaxl's records are a few hundred bytes each) */
#define STATE_MAX_BYTES (16u << 20)

static unsigned line_at(const char *text, size_t len, size_t off)
{
	unsigned line = 1;
	for (size_t i = 0; i < off && i < len; i++)
		line += text[i] == '\n';
	return line;
}

/* the file is unusable: why, naming it (and the line when there is one) */
static int broken(struct axl__lim_state *st, unsigned line, const char *what)
{
	st->broken = 1;
	st->n = 0;
	if (line)
		snprintf(st->msg, sizeof st->msg, "%s:%u: %s", st->path, line, what);
	else
		snprintf(st->msg, sizeof st->msg, "%s: %s", st->path, what);
	return -1;
}

static char *read_all(const char *path, size_t *len, int *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		*err = errno;
		return NULL;
	}
	struct stat sb;
	*err = fstat(fd, &sb) != 0 ? errno : !S_ISREG(sb.st_mode) ? EINVAL
		: (uint64_t)sb.st_size > STATE_MAX_BYTES ? EFBIG : 0;
	if (*err) {
		close(fd);
		return NULL;
	}
	char *buf = malloc((size_t)sb.st_size + 1);
	size_t got = 0;
	while (buf && got < (size_t)sb.st_size) {
		ssize_t r = read(fd, buf + got, (size_t)sb.st_size - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	if (!buf) {
		*err = ENOMEM;
		return NULL;
	}
	buf[got] = 0;
	*len = got;
	return buf;
}

int axl__lim_state_read(struct axl__lim_state *st)
{
	memset(st, 0, sizeof *st);
	char dir[4096];
	if (axl__region_state_dir(dir, sizeof dir) != 0) {
		snprintf(st->path, sizeof st->path, "the state directory");
		return broken(st, 0, "its path is too long");
	}
	snprintf(st->path, sizeof st->path, "%s/state.json", dir);
	size_t len = 0;
	int err = 0;
	char *text = read_all(st->path, &len, &err);
	if (!text) {
		if (err == ENOENT || err == ENOTDIR)
			return 0; /* no records: no limits from here */
		char what[200];
		snprintf(what, sizeof what, "cannot be read: %s",
			 err == EFBIG ? "larger than 16 MiB" : err == EINVAL ? "not a regular file" : strerror(err));
		return broken(st, 0, what);
	}
	char perr[160];
	size_t eoff = 0;
	struct axl__jdoc *doc = NULL;
	if (axl__jdoc_parse_at(text, len, &doc, perr, sizeof perr, &eoff) != 0) {
		broken(st, line_at(text, len, eoff), perr);
		free(text);
		return -1;
	}
	const struct axl__jv *root = axl__jdoc_root(doc);
	const struct axl__jv *v = axl__jv_get(root, "schema_version");
	const char *schema = axl__jv_str(root, "schema");
	const char *why = NULL;
	const struct axl__jv *at = root;
	char msg[200];
	if (root->type != AXL__J_OBJ || !schema || strcmp(schema, "axl.state")) {
		why = "not an axl.state document";
	} else if (!v || v->type != AXL__J_NUM || !v->is_int || v->i < 1) {
		why = "schema_version: must be a positive integer";
		at = v ? v : root;
	} else if (v->i > 1) {
		snprintf(msg, sizeof msg, "schema_version %lld: this limiter reads 1 (install the limiter of the axl "
			 "that wrote it)", (long long)v->i);
		why = msg;
		at = v;
	}
	const struct axl__jv *arr = why ? NULL : axl__jv_get(root, "limits");
	if (!why && arr && arr->type != AXL__J_ARR) {
		why = "limits: must be an array";
		at = arr;
	}
	for (size_t i = 0; !why && arr && i < arr->len; i++) {
		const struct axl__jv *r = &arr->items[i];
		at = r;
		int64_t mem = -1, pct = -1;
		const struct axl__jv *m = r->type == AXL__J_OBJ ? axl__jv_get(r, "memory_bytes") : NULL;
		const struct axl__jv *c = r->type == AXL__J_OBJ ? axl__jv_get(r, "compute_percent") : NULL;
		const struct axl__jv *u = r->type == AXL__J_OBJ ? axl__jv_get(r, "uuid") : NULL;
		if (r->type != AXL__J_OBJ) {
			snprintf(msg, sizeof msg, "limits[%zu]: must be an object", i);
			why = msg;
		} else if (m && (m->type != AXL__J_NUM || !m->is_int || m->i < 1)) {
			snprintf(msg, sizeof msg, "limits[%zu].memory_bytes: must be a positive integer", i);
			why = msg, at = m;
		} else if (c && (c->type != AXL__J_NUM || !c->is_int || c->i < 1 || c->i > 100)) {
			snprintf(msg, sizeof msg, "limits[%zu].compute_percent: must be an integer from 1 to 100", i);
			why = msg, at = c;
		} else if (u && (u->type != AXL__J_STR || u->len == 0 || u->len >= AXL__REGION_UUID_MAX)) {
			snprintf(msg, sizeof msg, "limits[%zu].uuid: must be a string of 1 to %d bytes", i,
				 AXL__REGION_UUID_MAX - 1);
			why = msg, at = u;
		} else if (!m && !c) {
			snprintf(msg, sizeof msg, "limits[%zu]: neither memory_bytes nor compute_percent", i);
			why = msg;
		} else if (!u) {
			st->no_uuid++; /* the limiter matches devices by UUID only */
		} else if (st->n == AXL__LIM_STATE_MAX) {
			snprintf(msg, sizeof msg, "more than %d limits with a UUID", AXL__LIM_STATE_MAX);
			why = msg;
		} else {
			mem = m ? m->i : -1;
			pct = c ? c->i : -1;
			struct axl__lim_state_rec *rec = &st->rec[st->n++];
			snprintf(rec->uuid, sizeof rec->uuid, "%s", u->s);
			rec->memory = mem;
			rec->compute = (int)pct;
		}
	}
	if (why)
		broken(st, line_at(text, len, at->off), why);
	axl__jdoc_free(doc);
	free(text);
	return st->broken ? -1 : 0;
}
