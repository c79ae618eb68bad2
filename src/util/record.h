/* SPDX-License-Identifier: MIT */
/*
 * The recorder behind `axl capture`: the set of paths axl touched, kept so that the
 * tree can be rebuilt elsewhere and read the same way.
 *
 * fs.c calls the axl__rec_* hooks when fs->rec is set. Each path is resolved component
 * by component the way the kernel resolves it inside the root, so every symlink met on
 * the way is kept as a symlink and every directory as a directory; the final object is
 * kept as a directory (with its entries when axl listed it), a symlink (when axl read
 * the link) or a file with the bytes axl read. Paths are relative to the root, without
 * a leading '/', and physical (no symlink in them).
 *
 * All hooks are thread-safe (one mutex, taken only when recording).
 */
#ifndef AXL_UTIL_RECORD_H
#define AXL_UTIL_RECORD_H

#include <stdbool.h>
#include <stddef.h>

#include "fs.h"

enum { AXL__REC_DIR = 1, AXL__REC_FILE = 2, AXL__REC_LINK = 3 };

struct axl__rec_entry {
	const char *path;   /* relative to the root, e.g. "sys/bus/pci/devices/0000:01:00.0" */
	int type;           /* AXL__REC_* */
	const char *target; /* LINK: the link's target as read */
	const char *data;   /* FILE: the bytes axl read (NULL: none were read) */
	size_t len;
};

struct axl__rec *axl__rec_new(void);
void axl__rec_free(struct axl__rec *r);

/* Hooks (fs.c). dirfd is AXL__FS_ROOT or a descriptor an axl__fs_* call returned. */
void axl__rec_open(const struct axl__fs *fs, int dirfd, const char *path, int fd, int flags);
/* A file read through fd: len bytes of data, and `more` (a byte, or -1) past them. */
void axl__rec_read(const struct axl__fs *fs, int dirfd, const char *path, int fd,
		   const char *data, size_t len, int more);
void axl__rec_link(const struct axl__fs *fs, int dirfd, const char *path, const char *target);

/* One answer of a vendor library, appended as one line to <lib>.jsonl. lib: 1-32 of
 * [a-z0-9_-]; line: one line (no '\n', '\r'), not empty. 0, -EINVAL or -ENOMEM/-EFBIG. */
int axl__rec_vendor(struct axl__rec *r, const char *lib, const char *line);

/* Everything recorded, sorted by path (parents before children), under the recorder's
 * lock: cb returns 0 to go on; its first non-zero return is returned. */
int axl__rec_foreach(struct axl__rec *r, int (*cb)(const struct axl__rec_entry *e, void *ud),
		     void *ud);
/* The vendor answer files, by library name: text holds `records` lines. */
int axl__rec_vendor_foreach(struct axl__rec *r,
			    int (*cb)(const char *lib, const char *text, size_t len, size_t records,
				      void *ud),
			    void *ud);
/* Paths that could not be recorded (a descriptor of unknown path, names too long). */
size_t axl__rec_missed(struct axl__rec *r);

#endif
