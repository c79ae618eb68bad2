/* SPDX-License-Identifier: MIT */
/* Captures: writing what a recording context saw, and unpacking a capture to replay it.
 * The format is in docs/capture.md. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "capture.h"
#include "util/json.h"
#include "util/file.h"
#include "util/jsonr.h"
#include "util/record.h"
#include "util/tar.h"

bool axl__capture_recording(const axl_context *ctx)
{
	return ctx && ctx->fs.rec;
}

void axl__capture_vendor(axl_context *ctx, const char *lib, const char *json_line)
{
	if (!ctx || !ctx->fs.rec)
		return;
	int rc = axl__rec_vendor(ctx->fs.rec, lib, json_line);
	if (rc)
		axl__log(ctx, AXL_LOG_WARNING, "capture: an answer of '%s' was not recorded: %s",
			 lib ? lib : "(null)",
			 rc == -EINVAL ? "not one line of a valid library name" : strerror(-rc));
}

/* ---- writing -------------------------------------------------------------------------- */

#define VENDOR_PREFIX AXL__CAPTURE_DIR "/"
#define MANIFEST AXL__CAPTURE_DIR "/manifest.json"

struct vendor_file {
	char lib[40];
	size_t records;
	bool live; /* recorded by this context (else carried over from a replayed capture) */
};

struct plan {
	struct axl__rec *rec;
	struct axl__tar_writer *w;
	AXL__VEC(struct vendor_file) vendors;
	size_t dirs, files, links;
	unsigned long long bytes;
	int rc;
};

/* "axl-capture/<lib>.jsonl" -> lib, when path is one */
static bool vendor_path(const char *path, char *lib, size_t cap)
{
	size_t pl = strlen(VENDOR_PREFIX), n = strlen(path);
	if (strncmp(path, VENDOR_PREFIX, pl) != 0 || n < pl + 7 || strcmp(path + n - 6, ".jsonl") != 0)
		return false;
	size_t ll = n - pl - 6;
	if (ll >= cap || memchr(path + pl, '/', ll))
		return false;
	memcpy(lib, path + pl, ll);
	lib[ll] = '\0';
	return true;
}

static struct vendor_file *find_vendor(struct plan *p, const char *lib)
{
	for (size_t i = 0; i < p->vendors.n; i++)
		if (strcmp(p->vendors.v[i].lib, lib) == 0)
			return &p->vendors.v[i];
	return NULL;
}

/* Tree entries the capture writes itself: the manifest, and answers recorded live. */
static bool skipped(struct plan *p, const char *path)
{
	char lib[40];
	if (strcmp(path, AXL__CAPTURE_DIR) == 0 || strcmp(path, MANIFEST) == 0)
		return true;
	if (vendor_path(path, lib, sizeof lib)) {
		struct vendor_file *v = find_vendor(p, lib);
		return v && v->live;
	}
	return false;
}

static int collect_live(const char *lib, const char *text, size_t len, size_t records, void *ud)
{
	struct plan *p = ud;
	(void)text;
	(void)len;
	struct vendor_file *v = AXL__VEC_PUSH(p->vendors);
	if (!v)
		return -ENOMEM;
	snprintf(v->lib, sizeof v->lib, "%s", lib);
	v->records = records;
	v->live = true;
	return 0;
}

static int count_entry(const struct axl__rec_entry *e, void *ud)
{
	struct plan *p = ud;
	char lib[40];
	if (!e->path[0] || skipped(p, e->path))
		return 0;
	if (e->type == AXL__REC_FILE && vendor_path(e->path, lib, sizeof lib)) {
		struct vendor_file *v = AXL__VEC_PUSH(p->vendors);
		if (!v)
			return -ENOMEM;
		snprintf(v->lib, sizeof v->lib, "%s", lib);
		for (size_t i = 0; i < e->len; i++)
			v->records += e->data[i] == '\n';
	}
	if (e->type == AXL__REC_DIR)
		p->dirs++;
	else if (e->type == AXL__REC_LINK)
		p->links++;
	else {
		p->files++;
		p->bytes += e->len;
	}
	return 0;
}

/* A link target that stays inside the tree: an absolute target becomes relative to the
 * link's directory (the path of which has no symlink in it, so "../" climbs exactly),
 * and ".." beyond the root (where the kernel stays at the root) is dropped. */
static void inside_target(const char *path, const char *target, char *out, size_t cap)
{
	size_t depth = 0;
	for (const char *c = path; *c; c++)
		depth += *c == '/';
	size_t o = 0;
	out[0] = '\0';
	if (target[0] == '/') {
		while (*target == '/')
			target++;
		for (size_t i = 0; i < depth && o + 3 < cap; i++)
			o += (size_t)snprintf(out + o, cap - o, "../");
		snprintf(out + o, cap - o, "%s", *target ? target : ".");
		return;
	}
	const char *t = target;
	size_t ups = 0;
	while (t[0] == '.' && t[1] == '.' && (t[2] == '/' || !t[2])) {
		if (ups < depth) {
			if (o + 3 < cap)
				o += (size_t)snprintf(out + o, cap - o, "../");
			ups++;
		}
		t += t[2] ? 3 : 2;
		while (*t == '/')
			t++;
	}
	snprintf(out + o, cap - o, "%s", *t ? t : (o ? "" : "."));
	if (o && !*t)
		out[o - 1] = '\0'; /* "../../" -> "../.." */
}

static int write_entry(const struct axl__rec_entry *e, void *ud)
{
	struct plan *p = ud;
	if (!e->path[0] || skipped(p, e->path))
		return 0;
	if (e->type == AXL__REC_DIR)
		return axl__tar_add_dir(p->w, e->path);
	if (e->type == AXL__REC_LINK) {
		char t[4200];
		inside_target(e->path, e->target ? e->target : ".", t, sizeof t);
		return axl__tar_add_symlink(p->w, e->path, t);
	}
	return axl__tar_add_file(p->w, e->path, e->data ? e->data : "", e->len);
}

static int write_live_vendor(const char *lib, const char *text, size_t len, size_t records, void *ud)
{
	struct plan *p = ud;
	char name[96];
	(void)records;
	snprintf(name, sizeof name, VENDOR_PREFIX "%s.jsonl", lib);
	return axl__tar_add_file(p->w, name, text, len);
}

static int cmp_vendor(const void *a, const void *b)
{
	return strcmp(((const struct vendor_file *)a)->lib, ((const struct vendor_file *)b)->lib);
}

static char *manifest(const axl_context *ctx, struct plan *p, const char *cmdline, time_t now,
		      size_t *len)
{
	struct axl__sb sb = AXL__SB_INIT;
	struct axl__json w;
	struct utsname u;
	char when[32] = "";
	struct tm tm;
	if (gmtime_r(&now, &tm))
		strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
	bool have_u = uname(&u) == 0;
	axl__json_init(&w, &sb, true);
	axl__json_obj(&w);
	axl__json_kstr(&w, "schema", "axl.capture");
	axl__json_kint(&w, "schema_version", AXL__CAPTURE_VERSION);
	axl__json_key(&w, "generator");
	axl__json_obj(&w);
	axl__json_kstr(&w, "name", "axl");
	axl__json_kstr(&w, "version", AXL_VERSION_STRING);
	axl__json_obj_end(&w);
	axl__json_kstr(&w, "created", when);
	if (have_u) {
		axl__json_kstr(&w, "hostname", u.nodename);
		axl__json_kstr(&w, "kernel", u.release);
		axl__json_kstr(&w, "machine", u.machine);
	}
	if (cmdline)
		axl__json_kstr(&w, "command_line", cmdline);
	axl__json_kbool(&w, "rerooted", ctx->fs.rerooted);
	if (ctx->fs.rerooted)
		axl__json_kstr(&w, "sysroot", ctx->sysroot);
	axl__json_key(&w, "tree");
	axl__json_obj(&w);
	axl__json_kint(&w, "directories", (int64_t)p->dirs);
	axl__json_kint(&w, "files", (int64_t)p->files);
	axl__json_kint(&w, "symlinks", (int64_t)p->links);
	axl__json_kint(&w, "bytes", (int64_t)p->bytes);
	axl__json_kint(&w, "unrecorded_paths", (int64_t)axl__rec_missed(p->rec));
	axl__json_obj_end(&w);
	axl__json_key(&w, "vendor_answers");
	axl__json_arr(&w);
	for (size_t i = 0; i < p->vendors.n; i++) {
		char file[96];
		snprintf(file, sizeof file, VENDOR_PREFIX "%s.jsonl", p->vendors.v[i].lib);
		axl__json_obj(&w);
		axl__json_kstr(&w, "library", p->vendors.v[i].lib);
		axl__json_kstr(&w, "file", file);
		axl__json_kint(&w, "records", (int64_t)p->vendors.v[i].records);
		axl__json_kbool(&w, "replayed", !p->vendors.v[i].live);
		axl__json_obj_end(&w);
	}
	axl__json_arr_end(&w);
	axl__json_obj_end(&w);
	axl__sb_putc(&sb, '\n');
	return axl__sb_steal(&sb, len);
}

AXL_API int axl_capture_write(axl_context *ctx, const char *path,
			      const struct axl_capture_options *opts, size_t *members)
{
	struct axl_capture_options dflt = AXL_CAPTURE_OPTIONS_INIT;
	if (members)
		*members = 0;
	if (!ctx || !path || !*path)
		return axl__error(AXL_EINVAL, "axl_capture_write: NULL context or path");
	if (!opts)
		opts = &dflt;
	if (opts->version != AXL_CAPTURE_OPTIONS_VERSION)
		return axl__error(AXL_EVERSION, "axl_capture_options version %u, this library knows %u",
				  opts->version, AXL_CAPTURE_OPTIONS_VERSION);
	if (opts->flags)
		return axl__error(AXL_EINVAL, "axl_capture_write: unknown flags 0x%x", opts->flags);
	if (!ctx->fs.rec)
		return axl__error(AXL_EINVAL, "the context does not record: open it with AXL_CONTEXT_RECORD");
	const char *slash = strrchr(path, '/');
	if (slash && !slash[1])
		return axl__error(AXL_EINVAL, "capture '%s': a file name is needed, not a directory", path);

	struct plan p = {.rec = ctx->fs.rec};
	int rc = axl__rec_vendor_foreach(p.rec, collect_live, &p);
	if (!rc)
		rc = axl__rec_foreach(p.rec, count_entry, &p);
	if (rc) {
		AXL__VEC_FREE(p.vendors);
		return axl__error(AXL_ENOMEM, "out of memory");
	}
	if (p.vendors.n > 1)
		qsort(p.vendors.v, p.vendors.n, sizeof *p.vendors.v, cmp_vendor);
	time_t now = time(NULL);
	size_t mlen = 0;
	char *man = manifest(ctx, &p, opts->command_line, now, &mlen);

	/* a temporary file next to the target, renamed over it when complete */
	struct axl__replace rp;
	if (!man) {
		AXL__VEC_FREE(p.vendors);
		return axl__error(AXL_ENOMEM, "out of memory");
	}
	rc = axl__file_replace_begin(&rp, path, 0600);
	if (rc) {
		int e = -rc;
		rc = axl__error(e == ENOENT || e == ENOTDIR ? AXL_ENOENT : e == EACCES ? AXL_EPERM
							    : e == ENOMEM ? AXL_ENOMEM : AXL_EIO,
				"capture '%s': cannot create a file there: %s", path, strerror(e));
		goto out;
	}
	int fd = rp.fd;
	char zerr[400] = "";
	rc = axl__tar_writer_new(&p.w, fd, 6, (int64_t)now, ctx->zlib_library, zerr, sizeof zerr);
	if (!rc)
		rc = axl__tar_add_dir(p.w, AXL__CAPTURE_DIR);
	if (!rc)
		rc = axl__tar_add_file(p.w, MANIFEST, man, mlen);
	if (!rc)
		rc = axl__rec_vendor_foreach(p.rec, write_live_vendor, &p);
	if (!rc)
		rc = axl__rec_foreach(p.rec, write_entry, &p);
	if (p.w) {
		int rc2 = rc ? (axl__tar_writer_abort(p.w), 0) : axl__tar_writer_finish(p.w, members);
		if (!rc)
			rc = rc2;
	}
	if (!rc)
		rc = axl__file_replace_commit(&rp);
	else
		axl__file_replace_abort(&rp);
	if (rc) {
		if (members)
			*members = 0;
		rc = rc == -ELIBACC ? axl__error(AXL_ENOTSUP, "capture '%s': %s", path, zerr)
				    : axl__error(rc == -ENOMEM ? AXL_ENOMEM : AXL_EIO, "capture '%s': %s", path,
						 rc == -ENAMETOOLONG ? "a recorded path is too long" : strerror(-rc));
	}
out:
	free(man);
	AXL__VEC_FREE(p.vendors);
	return rc;
}

/* ---- replay --------------------------------------------------------------------------- */

int64_t axl__capture_newer(const axl_context *ctx)
{
	char *text = NULL;
	size_t len = 0;
	if (!ctx || axl__fs_read_alloc(&ctx->fs, AXL__FS_ROOT, MANIFEST, 1u << 20, &text, &len) != 0)
		return 0;
	struct axl__jdoc *doc = NULL;
	char err[128];
	int64_t newer = 0;
	if (axl__jdoc_parse(text, len, &doc, err, sizeof err) == 0) {
		const struct axl__jv *root = axl__jdoc_root(doc);
		const char *schema = axl__jv_str(root, "schema");
		const struct axl__jv *v = axl__jv_get(root, "schema_version");
		if (schema && strcmp(schema, "axl.capture") == 0 && v && v->type == AXL__J_NUM && v->is_int &&
		    v->i > AXL__CAPTURE_VERSION)
			newer = v->i;
	}
	axl__jdoc_free(doc);
	free(text);
	return newer;
}

static int tar_error(int e)
{
	switch (e) {
	case -EINVAL: return AXL_EINVAL;
	case -EBADMSG: return AXL_EPARSE;
	case -EFBIG: return AXL_ETOOBIG;
	case -ENOMEM: return AXL_ENOMEM;
	case -ELIBACC: return AXL_ENOTSUP; /* zlib cannot be loaded */
	default: return AXL_EIO;
	}
}

int axl__capture_unpack(const char *sysroot, const char *tmpbase, const char *zlib, char **dir)
{
	*dir = NULL;
	if (!sysroot || !*sysroot || strcmp(sysroot, "/") == 0)
		return 0; /* the running system */
	struct stat sb;
	if (stat(sysroot, &sb) != 0 || !S_ISREG(sb.st_mode))
		return 0; /* a directory (or nothing: fs init says so) */
	int fd = open(sysroot, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return axl__error(errno == EACCES ? AXL_EPERM : AXL_EIO, "sysroot '%s': %s", sysroot,
				  strerror(errno));
	char err[512] = "";
	int rc = axl__tar_sniff(fd, err, sizeof err);
	if (rc <= 0) {
		close(fd);
		return rc < 0 ? axl__error(AXL_EIO, "sysroot '%s': %s", sysroot, strerror(-rc))
			      : axl__error(AXL_EINVAL, "sysroot '%s': %s", sysroot, err);
	}
	/* check the whole file before anything is written, then unpack it */
	struct axl__tar_limits lim = AXL__TAR_LIMITS_DEFAULT;
	lim.zlib = zlib;
	rc = axl__tar_read(fd, -1, &lim, NULL, err, sizeof err);
	if (rc) {
		close(fd);
		return axl__error(tar_error(rc), "capture '%s' refused: %s", sysroot, err);
	}
	char *tmpl = malloc(strlen(tmpbase) + 32);
	if (!tmpl) {
		close(fd);
		return axl__error(AXL_ENOMEM, "out of memory");
	}
	sprintf(tmpl, "%s/axl-replay-XXXXXX", tmpbase);
	if (!mkdtemp(tmpl)) { /* mode 0700 */
		int e = errno;
		close(fd);
		free(tmpl);
		return axl__error(AXL_EIO, "capture '%s': cannot make a directory in %s: %s", sysroot,
				  tmpbase, strerror(e));
	}
	int rfd = open(tmpl, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	rc = rfd < 0 ? -errno : axl__tar_read(fd, rfd, &lim, NULL, err, sizeof err);
	close(fd);
	if (rfd >= 0)
		close(rfd);
	if (rc) {
		if (rfd < 0)
			snprintf(err, sizeof err, "%s", strerror(-rc));
		axl__capture_remove(tmpl);
		return axl__error(tar_error(rc), "capture '%s' refused: %s", sysroot, err);
	}
	*dir = tmpl;
	return 0;
}

void axl__capture_remove(char *dir)
{
	if (!dir)
		return;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0) {
		axl__tar_rmtree(fd);
		close(fd);
	}
	rmdir(dir);
	free(dir);
}
