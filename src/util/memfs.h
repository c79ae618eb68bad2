/* SPDX-License-Identifier: MIT */
/*
 * An in-memory tree behind the sysroot seam (fs.h), for the whole-tree fuzzers and the
 * tests: the code above the seam runs unchanged, but no file is written or read.
 *
 * A tree holds directories, regular files (their bytes), symbolic links (their
 * targets) and character devices (no content), each readable or not. Paths resolve as
 * the seam resolves them on a re-rooted tree: from the root, absolute link targets and
 * ".." stay inside the root (RESOLVE_IN_ROOT); from an opened directory, a walk that
 * would leave it answers -EXDEV (RESOLVE_BENEATH); more than 40 links answer -ELOOP.
 * The tree is read-only through the seam (opening for writing answers -EROFS).
 *
 * Descriptors are real: a directory opened through the seam is a duplicate of one
 * O_PATH directory descriptor (remembered, so later relative calls find the node), a
 * regular file a memfd holding its bytes (pread and fstat work on it), a character
 * device an O_PATH descriptor of /dev/null; callers close() them as always.
 *
 * Select it with axl__context_open_mtree() (internal: fuzzers and tests). The tree must
 * outlive every context opened on it. Not thread-safe while it is being built; reads
 * through the seam may run on several threads.
 */
#ifndef AXL_UTIL_MEMFS_H
#define AXL_UTIL_MEMFS_H

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>

struct axl__mtree;
struct axl__mnode;

struct axl__mtree *axl__mtree_new(void);
void axl__mtree_free(struct axl__mtree *t);

/* Building (paths relative to the root; missing parent directories are made; a parent
 * that is not a directory, or a link, answers -ENOTDIR; an existing entry of another
 * kind answers -EEXIST). All return 0 or a negative errno. */
int axl__mtree_file(struct axl__mtree *t, const char *path, const void *data, size_t len);
int axl__mtree_dir(struct axl__mtree *t, const char *path);
int axl__mtree_link(struct axl__mtree *t, const char *path, const char *target);
int axl__mtree_chr(struct axl__mtree *t, const char *path);
/* Make an existing entry unreadable (mode 000 for a non-root user): opening it to read
 * answers -EACCES, O_PATH still works. */
int axl__mtree_deny(struct axl__mtree *t, const char *path);
/* Copy a real directory tree (files, links, directories, character devices; what
 * this process cannot read is made unreadable) under the root. */
int axl__mtree_load(struct axl__mtree *t, const char *dir);

/* ---- the seam's side (fs.c) --------------------------------------------------------- */
int axl__mfs_open(struct axl__mtree *t, int dirfd, const char *path, int flags);
long axl__mfs_read(struct axl__mtree *t, int dirfd, const char *path, char *buf, size_t cap);
int axl__mfs_read_alloc(struct axl__mtree *t, int dirfd, const char *path, size_t max, char **out,
			size_t *len);
long axl__mfs_readlink(struct axl__mtree *t, int dirfd, const char *path, char *buf, size_t cap);
/* 0 and *node (a readable directory), or -errno */
int axl__mfs_opendir(struct axl__mtree *t, int dirfd, const char *path, const struct axl__mnode **node);
/* The entry after *next ("." and ".." first), filled into ent; NULL at the end. */
struct dirent *axl__mfs_readdir(const struct axl__mnode *dir, size_t *next, struct dirent *ent);
/* 0 (a file), 1 (a directory), or -errno, following links */
int axl__mfs_kind(struct axl__mtree *t, int dirfd, const char *path);

#endif
