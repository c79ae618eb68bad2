/* SPDX-License-Identifier: MIT */
/* Whole files into memory, bounded: what the sysroot seam (fs.c) and the readers of
 * files a user names (a simulated node's spec, a config.json, an inventory document, the
 * state file) share. No axl types. */
#ifndef AXL_UTIL_FILE_H
#define AXL_UTIL_FILE_H

#include <stddef.h>

/* Read fd to its end into a malloc'd, NUL-terminated buffer (*out, *len without the
 * NUL): up to max + 1 bytes, one more than max meaning too big. 0, -EFBIG, -ENOMEM or
 * -errno; on failure *out is the part read (NULL when nothing could be allocated), and
 * the caller frees it either way. reads, when not NULL, counts the read calls made
 * (atomically). */
int axl__read_fd_alloc(int fd, size_t max, char **out, size_t *len, unsigned long *reads);

/* A file named by the user (a spec, a config, a document), not through the sysroot:
 * read whole into a malloc'd, NUL-terminated buffer (*out, freed by the caller; *len its
 * length without the NUL). It must be a regular file (or, with AXL__FILE_FIFO, a pipe
 * such as <(axl list --json)) of at most max bytes. Returns 0, -ENOENT and other
 * -errno values of open/read, -EISDIR a directory, -ENOTSUP another kind of file,
 * -EFBIG more than max bytes; axl__file_error() words each. */
#define AXL__FILE_NOFOLLOW 1u /* refuse a symlink (O_NOFOLLOW: -ELOOP) */
#define AXL__FILE_FIFO 2u     /* accept a pipe, read to its end */
int axl__file_read(const char *path, size_t max, unsigned flags, char **out, size_t *len);
const char *axl__file_error(int rc);

/* Replacing a file whole, so that a reader sees the old content or the new, never part
 * of either (and a crash leaves the old one): the content goes into a temporary file in
 * the target's directory (".NAME.XXXXXX", which tools that skip dot-files ignore), is
 * fsync'd, renamed over the target, and the directory is fsync'd. The writer either
 * hands the bytes over at once (axl__file_replace) or writes them itself to r.fd between
 * begin and commit (a tar stream). Every function returns 0 or -errno; on failure the
 * temporary file is gone. mode is the new file's (0644, 0600). */
struct axl__replace {
	int fd;           /* the temporary file, open for writing */
	char *tmp, *path; /* malloc'd */
	unsigned mode;
};
int axl__file_replace_begin(struct axl__replace *r, const char *path, unsigned mode);
int axl__file_replace_commit(struct axl__replace *r); /* fsync, rename, fsync the directory */
void axl__file_replace_abort(struct axl__replace *r);  /* close and unlink; NULL-safe state */
int axl__file_replace(const char *path, const void *buf, size_t len, unsigned mode);
/* Does the file at path hold exactly these bytes? 1 yes, 0 no (or unreadable). */
int axl__file_same(const char *path, const void *buf, size_t len);

/* mkdir -p: every missing folder of dir made with mode (0755 for what generators write),
 * those that exist kept as they are. 0, or -errno with *at the length of dir's prefix
 * that failed: -ENOTDIR that prefix exists and is not a directory; -EACCES, -EROFS ...
 * it could not be made (in its parent) or looked at. */
int axl__mkdirs(const char *dir, unsigned mode, size_t *at);

#endif
