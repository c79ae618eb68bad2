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
 * the caller frees it either way. */
int axl__read_fd_alloc(int fd, size_t max, char **out, size_t *len);

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

#endif
