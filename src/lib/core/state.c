/* SPDX-License-Identifier: MIT */
/* The state directory (axl/state.h, docs/limits.md): one JSON file, state.json,
 * replaced atomically under an exclusive lock; per-device limits and the environment
 * a workload gets from them. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "state.h"
#include "util/file.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/jsonr.h"

int axl__state_lock_timeout_ms = 10000;

static const char *state_dir_or_fail(const axl_context *ctx, int *rc)
{
	if (!ctx) {
		*rc = axl__error(AXL_EINVAL, "no context");
		return NULL;
	}
	if (!ctx->state_dir) {
		*rc = axl__error(AXL_ENOTSYS,
				 "re-rooted context (%s): axl keeps no state for another node unless "
				 "AXL_STATE_DIR names a directory",
				 ctx->sysroot ? ctx->sysroot : "?");
		return NULL;
	}
	*rc = 0;
	return ctx->state_dir;
}

AXL_API const char *axl_state_dir(const axl_context *ctx)
{
	return ctx ? ctx->state_dir : NULL;
}

/* ---- the records -------------------------------------------------------------- */

void axl__state_free(struct axl__state *st)
{
	if (!st)
		return;
	for (size_t i = 0; i < st->limits.n; i++) {
		free(st->limits.v[i].device);
		free(st->limits.v[i].uuid);
	}
	for (size_t i = 0; i < st->parts.n; i++) {
		struct axl__state_part *p = &st->parts.v[i];
		free(p->device);
		free(p->uuid);
		free(p->kind);
		free(p->partition);
		free(p->profile);
	}
	AXL__VEC_FREE(st->limits);
	AXL__VEC_FREE(st->parts);
}

static unsigned line_of(const char *text, size_t len, size_t off)
{
	unsigned line = 1;
	for (size_t i = 0; i < off && i < len; i++)
		line += text[i] == '\n';
	return line;
}

struct loader {
	const char *path, *text;
	size_t len;
	int rc;
};

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int bad(struct loader *ld, const struct axl__jv *at, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	ld->rc = axl__error(AXL_EPARSE, "%s:%u: %s", ld->path, line_of(ld->text, ld->len, at->off), msg);
	return ld->rc;
}

/* A string member: required or not; NULL (and 0) when absent and optional. */
static int get_str(struct loader *ld, const struct axl__jv *rec, const char *what, size_t i,
		   const char *key, bool required, char **out)
{
	*out = NULL;
	const struct axl__jv *v = axl__jv_get(rec, key);
	if (!v) {
		if (required)
			return bad(ld, rec, "%s[%zu].%s: missing", what, i, key);
		return 0;
	}
	if (v->type != AXL__J_STR || v->len == 0 || v->len > 255)
		return bad(ld, v, "%s[%zu].%s: must be a non-empty string (at most 255 bytes)", what, i, key);
	*out = strdup(v->s);
	return *out ? 0 : (ld->rc = axl__error(AXL_ENOMEM, "out of memory"));
}

/* An integer member in [lo, hi]; *out keeps its default when absent. */
static int get_int(struct loader *ld, const struct axl__jv *rec, const char *what, size_t i,
		   const char *key, int64_t lo, int64_t hi, const char *rule, int64_t *out)
{
	const struct axl__jv *v = axl__jv_get(rec, key);
	if (!v)
		return 0;
	if (v->type != AXL__J_NUM || !v->is_int || v->i < lo || v->i > hi)
		return bad(ld, v, "%s[%zu].%s: must be %s", what, i, key, rule);
	*out = v->i;
	return 0;
}

static const struct axl__jv *get_array(struct loader *ld, const struct axl__jv *root, const char *key)
{
	const struct axl__jv *a = axl__jv_get(root, key);
	if (a && a->type != AXL__J_ARR) {
		bad(ld, a, "%s: must be an array", key);
		return NULL;
	}
	if (a && a->len > 65536) {
		bad(ld, a, "%s: more than 65536 records", key);
		return NULL;
	}
	return a;
}

static int load_limits(struct loader *ld, const struct axl__jv *arr, struct axl__state *st)
{
	for (size_t i = 0; arr && i < arr->len; i++) {
		const struct axl__jv *r = &arr->items[i];
		if (r->type != AXL__J_OBJ)
			return bad(ld, r, "limits[%zu]: must be an object", i);
		struct axl__state_limit *l = AXL__VEC_PUSH(st->limits);
		if (!l)
			return ld->rc = axl__error(AXL_ENOMEM, "out of memory");
		int64_t mem = -1, pct = -1, pid = 0, created = 0;
		if (get_str(ld, r, "limits", i, "device", true, &l->device) ||
		    get_str(ld, r, "limits", i, "uuid", false, &l->uuid) ||
		    get_int(ld, r, "limits", i, "memory_bytes", 1, INT64_MAX, "a positive integer", &mem) ||
		    get_int(ld, r, "limits", i, "compute_percent", 1, 100, "an integer from 1 to 100", &pct) ||
		    get_int(ld, r, "limits", i, "pid", 0, INT32_MAX, "a process id", &pid) ||
		    get_int(ld, r, "limits", i, "created", 0, INT64_MAX, "a non-negative integer (Unix seconds)",
			    &created))
			return ld->rc;
		if (mem < 0 && pct < 0)
			return bad(ld, r, "limits[%zu]: neither memory_bytes nor compute_percent", i);
		l->memory_bytes = mem;
		l->compute_percent = (int)pct;
		l->pid = (int)pid;
		l->created = created;
	}
	return 0;
}

static int load_parts(struct loader *ld, const struct axl__jv *arr, struct axl__state *st)
{
	for (size_t i = 0; arr && i < arr->len; i++) {
		const struct axl__jv *r = &arr->items[i];
		if (r->type != AXL__J_OBJ)
			return bad(ld, r, "partitions[%zu]: must be an object", i);
		struct axl__state_part *p = AXL__VEC_PUSH(st->parts);
		if (!p)
			return ld->rc = axl__error(AXL_ENOMEM, "out of memory");
		int64_t pid = 0, created = 0, gi = -1, start = -1;
		char *owner = NULL;
		if (get_str(ld, r, "partitions", i, "device", true, &p->device) ||
		    get_str(ld, r, "partitions", i, "uuid", false, &p->uuid) ||
		    get_str(ld, r, "partitions", i, "kind", true, &p->kind) ||
		    get_str(ld, r, "partitions", i, "partition", true, &p->partition) ||
		    get_str(ld, r, "partitions", i, "profile", false, &p->profile) ||
		    get_int(ld, r, "partitions", i, "pid", 0, INT32_MAX, "a process id", &pid) ||
		    get_int(ld, r, "partitions", i, "created", 0, INT64_MAX,
			    "a non-negative integer (Unix seconds)", &created) ||
		    get_int(ld, r, "partitions", i, "gpu_instance", 0, 255, "0 to 255", &gi) ||
		    get_int(ld, r, "partitions", i, "placement", 0, 15, "0 to 15", &start) ||
		    get_str(ld, r, "partitions", i, "owner", false, &owner))
			return ld->rc;
		p->owner = !owner ? AXL_PARTITION_OWNER_UNKNOWN
			   : strcmp(owner, "workload") == 0 ? AXL_PARTITION_OWNER_WORKLOAD
			   : strcmp(owner, "operator") == 0 ? AXL_PARTITION_OWNER_OPERATOR
							    : -1;
		free(owner);
		if (p->owner < 0)
			return bad(ld, axl__jv_get(r, "owner"),
				   "partitions[%zu].owner: must be \"workload\" or \"operator\"", i);
		if (p->owner == AXL_PARTITION_OWNER_WORKLOAD && pid == 0)
			return bad(ld, r, "partitions[%zu]: a workload's record needs its pid", i);
		if (p->owner == AXL_PARTITION_OWNER_OPERATOR && pid != 0)
			return bad(ld, r, "partitions[%zu]: the operator's record has no pid (0)", i);
		p->pid = (int)pid;
		p->created = created;
		if ((gi >= 0) != (start >= 0))
			return bad(ld, r, "partitions[%zu]: gpu_instance and placement come together", i);
		p->has_place = gi >= 0;
		p->gi = (int)gi;
		p->start = (int)start;
	}
	return 0;
}

int axl__state_parse(const char *path, const char *text, size_t len, struct axl__state *st)
{
	memset(st, 0, sizeof *st);
	struct loader ld = {path, text, len, 0};
	struct axl__jdoc *doc = NULL;
	char err[256];
	if (axl__jdoc_parse(text, len, &doc, err, sizeof err)) {
		size_t off = 0;
		const char *o = strstr(err, "offset ");
		if (o)
			off = (size_t)strtoull(o + 7, NULL, 10);
		return axl__error(AXL_EPARSE, "%s:%u: not JSON: %s", path, line_of(text, len, off), err);
	}
	const struct axl__jv *root = axl__jdoc_root(doc);
	int rc = 0;
	const struct axl__jv *v;
	if (root->type != AXL__J_OBJ) {
		rc = bad(&ld, root, "the document must be an object");
		goto out;
	}
	const char *schema = axl__jv_str(root, "schema");
	if (!schema || strcmp(schema, AXL__STATE_SCHEMA) != 0) {
		v = axl__jv_get(root, "schema");
		rc = bad(&ld, v ? v : root, "schema: must be \"" AXL__STATE_SCHEMA "\"");
		goto out;
	}
	v = axl__jv_get(root, "schema_version");
	if (!v || v->type != AXL__J_NUM || !v->is_int || v->i < 1) {
		rc = bad(&ld, v ? v : root, "schema_version: must be a positive integer");
		goto out;
	}
	if (v->i > AXL__STATE_VERSION) {
		rc = axl__error(AXL_EVERSION, "%s:%u: schema_version %" PRId64 ": this axl reads %d", path,
				line_of(text, len, v->off), v->i, AXL__STATE_VERSION);
		goto out;
	}
	const struct axl__jv *limits = get_array(&ld, root, "limits");
	if (ld.rc || (rc = load_limits(&ld, limits, st)))
		goto out;
	const struct axl__jv *parts = get_array(&ld, root, "partitions");
	if (ld.rc || (rc = load_parts(&ld, parts, st)))
		goto out;
out:
	if (!rc)
		rc = ld.rc;
	axl__jdoc_free(doc);
	if (rc)
		axl__state_free(st);
	return rc;
}

char *axl__state_format(const struct axl__state *st, size_t *len)
{
	struct axl__sb sb = AXL__SB_INIT;
	struct axl__json w;
	axl__json_init(&w, &sb, true);
	axl__json_obj(&w);
	axl__json_kstr(&w, "schema", AXL__STATE_SCHEMA);
	axl__json_kint(&w, "schema_version", AXL__STATE_VERSION);
	axl__json_key(&w, "limits");
	axl__json_arr(&w);
	for (size_t i = 0; i < st->limits.n; i++) {
		const struct axl__state_limit *l = &st->limits.v[i];
		axl__json_obj(&w);
		axl__json_kstr(&w, "device", l->device);
		if (l->uuid)
			axl__json_kstr(&w, "uuid", l->uuid);
		if (l->memory_bytes >= 0)
			axl__json_kint(&w, "memory_bytes", l->memory_bytes);
		if (l->compute_percent >= 0)
			axl__json_kint(&w, "compute_percent", l->compute_percent);
		axl__json_kint(&w, "pid", l->pid);
		axl__json_kint(&w, "created", l->created);
		axl__json_obj_end(&w);
	}
	axl__json_arr_end(&w);
	axl__json_key(&w, "partitions");
	axl__json_arr(&w);
	for (size_t i = 0; i < st->parts.n; i++) {
		const struct axl__state_part *p = &st->parts.v[i];
		axl__json_obj(&w);
		axl__json_kstr(&w, "device", p->device);
		if (p->uuid)
			axl__json_kstr(&w, "uuid", p->uuid);
		axl__json_kstr(&w, "kind", p->kind);
		axl__json_kstr(&w, "partition", p->partition);
		if (p->profile)
			axl__json_kstr(&w, "profile", p->profile);
		axl__json_kint(&w, "pid", p->pid);
		if (p->owner == AXL_PARTITION_OWNER_WORKLOAD || p->owner == AXL_PARTITION_OWNER_OPERATOR)
			axl__json_kstr(&w, "owner", p->owner == AXL_PARTITION_OWNER_WORKLOAD ? "workload" : "operator");
		axl__json_kint(&w, "created", p->created);
		if (p->has_place) {
			axl__json_kint(&w, "gpu_instance", p->gi);
			axl__json_kint(&w, "placement", p->start);
		}
		axl__json_obj_end(&w);
	}
	axl__json_arr_end(&w);
	axl__json_obj_end(&w);
	axl__sb_putc(&sb, '\n');
	return axl__sb_steal(&sb, len);
}

/* ---- the directory, the lock, the file ----------------------------------------- */

static int ensure_dir(const char *dir)
{
	int made = mkdir(dir, 0700);
	if (made && errno == ENOENT) {
		/* a simulated node's directory (<base>/sim-HASH): make the base first */
		char parent[4096];
		const char *slash = strrchr(dir, '/');
		size_t n = slash ? (size_t)(slash - dir) : 0;
		if (n > 0 && n < sizeof parent && strncmp(slash + 1, "sim-", 4) == 0) {
			memcpy(parent, dir, n);
			parent[n] = 0;
			if (mkdir(parent, 0700) == 0 || errno == EEXIST)
				made = mkdir(dir, 0700);
		}
	}
	if (made && errno != EEXIST)
		return axl__error(errno == EACCES || errno == EPERM ? AXL_EPERM : AXL_EIO,
				  "state directory %s: %s", dir, strerror(errno));
	struct stat sb;
	if (lstat(dir, &sb))
		return axl__error(AXL_EIO, "state directory %s: %s", dir, strerror(errno));
	if (!S_ISDIR(sb.st_mode))
		return axl__error(AXL_EIO, "state directory %s: not a directory", dir);
	if (sb.st_uid != geteuid())
		return axl__error(AXL_EPERM, "state directory %s: belongs to uid %u, not to this user (%u)", dir,
				  (unsigned)sb.st_uid, (unsigned)geteuid());
	if (sb.st_mode & 022)
		return axl__error(AXL_EPERM, "state directory %s: writable by others (mode %03o)", dir,
				  (unsigned)(sb.st_mode & 0777));
	return 0;
}

static int path_in(char *buf, size_t cap, const char *dir, const char *name)
{
	int n = snprintf(buf, cap, "%s/%s", dir, name);
	if (n < 0 || (size_t)n >= cap)
		return axl__error(AXL_EINVAL, "state directory path too long: %s", dir);
	return 0;
}

/* Returns the lock's descriptor (>= 0) or an AXL_E* code. */
static int lock_dir(const char *dir)
{
	char path[4096];
	int rc = path_in(path, sizeof path, dir, "state.lock");
	if (rc)
		return rc;
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return axl__error(errno == EACCES ? AXL_EPERM : AXL_EIO, "%s: %s", path, strerror(errno));
	double deadline = axl__now_ms() + axl__state_lock_timeout_ms;
	for (;;) {
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			return fd;
		if (errno != EWOULDBLOCK && errno != EINTR) {
			rc = axl__error(AXL_EIO, "%s: flock: %s", path, strerror(errno));
			break;
		}
		if (axl__now_ms() >= deadline) {
			rc = axl__error(AXL_EIO, "%s: held by another process for %d ms", path,
					axl__state_lock_timeout_ms);
			break;
		}
		struct timespec ts = {0, 2 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	close(fd);
	return rc;
}

/* Temporary files of writers that died: only a lock holder writes one, so under the
 * lock every one left is stale. */
static void remove_stale(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d)))
		if (strncmp(e->d_name, "state.json.tmp-", 15) == 0)
			unlinkat(dirfd(d), e->d_name, 0);
	closedir(d);
}

int axl__state_load(const char *dir, struct axl__state *st)
{
	memset(st, 0, sizeof *st);
	char path[4096];
	int rc = path_in(path, sizeof path, dir, "state.json");
	if (rc)
		return rc;
	char *text = NULL;
	size_t len = 0;
	int r = axl__file_read(path, AXL__STATE_MAX, AXL__FILE_NOFOLLOW, &text, &len);
	if (r == -ENOENT)
		return 0;
	if (r == -EACCES || r == -EPERM)
		return axl__error(AXL_EPERM, "%s: %s", path, strerror(-r));
	if (r == -EFBIG)
		return axl__error(AXL_ETOOBIG, "%s: more than the %d bytes a state file may have", path,
				  AXL__STATE_MAX);
	if (r == -ENOTSUP || r == -EISDIR || r == -ELOOP)
		return axl__error(AXL_EIO, "%s: not a regular file", path);
	if (r)
		return axl__error(AXL_EIO, "%s: %s", path, axl__file_error(r));
	if (!rc)
		rc = axl__state_parse(path, text, len, st);
	free(text);
	return rc;
}

static int store(const char *dir, const struct axl__state *st)
{
	size_t len;
	char *text = axl__state_format(st, &len);
	if (!text)
		return axl__error(AXL_ENOMEM, "out of memory");
	if (len > AXL__STATE_MAX) {
		free(text);
		return axl__error(AXL_ETOOBIG, "state of %zu bytes: more than the %d a state file may have", len,
				  AXL__STATE_MAX);
	}
	char final[4096];
	int rc = path_in(final, sizeof final, dir, "state.json");
	if (!rc) {
		rc = axl__file_replace(final, text, len, 0600);
		if (rc)
			rc = axl__error(AXL_EIO, "%s: %s", final, strerror(-rc));
	}
	free(text);
	return rc;
}

int axl__state_update(axl_context *ctx, int (*change)(struct axl__state *st, void *arg), void *arg)
{
	int rc;
	const char *dir = state_dir_or_fail(ctx, &rc);
	if (!dir)
		return rc;
	if ((rc = ensure_dir(dir)))
		return rc;
	int lk = lock_dir(dir);
	if (lk < 0)
		return lk;
	remove_stale(dir);
	struct axl__state st;
	rc = axl__state_load(dir, &st);
	if (!rc) {
		rc = change(&st, arg);
		if (rc > 0) /* changed */
			rc = store(dir, &st);
		axl__state_free(&st);
	}
	close(lk); /* releases the lock */
	return rc < 0 ? rc : 0;
}

int axl__state_read(axl_context *ctx, struct axl__state *st)
{
	memset(st, 0, sizeof *st);
	if (!ctx)
		return axl__error(AXL_EINVAL, "no context");
	if (!ctx->state_dir)
		return 0; /* a re-rooted context without a state directory: nothing recorded */
	return axl__state_load(ctx->state_dir, st);
}
