/* SPDX-License-Identifier: MIT */
/*
 * The sysroot seam. Every read of sysfs, procfs and /dev goes through these calls,
 * relative to a root directory: "/" on a live system, a captured or synthetic tree
 * otherwise. On a re-rooted tree, absolute symlinks and ".." resolve inside the root
 * (openat2 RESOLVE_IN_ROOT), so a hostile tree cannot make axl read the host's files.
 *
 * All calls return 0 (or a length) on success and a negative errno on failure:
 * -ENOENT missing, -EISDIR a directory, -ELOOP a loop, -EFBIG larger than the cap,
 * -EACCES unreadable, -EAGAIN a FIFO or socket (never blocks), ...
 */
#ifndef AXL_UTIL_FS_H
#define AXL_UTIL_FS_H

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define AXL__FS_ROOT (-100) /* dirfd meaning "relative to the root" */

/* Recording (axl capture): when fs->rec is set, every path opened, read, listed or
 * read as a link is also recorded (record.h). Without it the calls cost one branch
 * more: no lock, no allocation. */

struct axl__rec; /* record.h: what a capture saves; NULL unless recording */
struct axl__mtree; /* memfs.h: an in-memory tree; NULL for a real one */

struct axl__fs {
	int root_fd;
	bool rerooted;
	bool have_openat2;
	struct axl__rec *rec;
	/* Every call below first asks whether the tree is in memory (fuzzers, tests):
	 * one predictable branch on the real path. */
	struct axl__mtree *mem;
	/* the system calls made through the seam so far (opens, reads, link reads,
	 * directory reads, stats, closes): what `axl list --timing` shows per stage;
	 * counted with relaxed atomics (samplers share a context's seam) */
	unsigned long calls;
};

/* The system calls made through fs so far. */
unsigned long axl__fs_calls(const struct axl__fs *fs);
/* The running system's own tree, not recording: what the kernel shows needs no second
 * look (a link into /sys/bus/pci/drivers leads to the driver) and nothing is saved. */
static inline bool axl__fs_live(const struct axl__fs *fs)
{
	return !fs->rerooted && !fs->rec && !fs->mem;
}

int axl__fs_init(struct axl__fs *fs, const char *sysroot);
/* The in-memory tree t as the root (re-rooted; t outlives fs; nothing is recorded). */
void axl__fs_init_mem(struct axl__fs *fs, struct axl__mtree *t);
void axl__fs_fini(struct axl__fs *fs);

/* Open path (relative to dirfd, or to the root with AXL__FS_ROOT; a leading '/' is
 * ignored). flags are open(2) flags; O_CLOEXEC and O_NOCTTY are added. */
int axl__fs_open(const struct axl__fs *fs, int dirfd, const char *path, int flags);
/* Open a directory for later relative reads (O_PATH|O_DIRECTORY). */
int axl__fs_opendir_fd(const struct axl__fs *fs, int dirfd, const char *path);
/* Read a whole file into buf (NUL-terminated). Returns its length; -EFBIG when the
 * file holds more than cap-1 bytes. */
long axl__fs_read(const struct axl__fs *fs, int dirfd, const char *path, char *buf, size_t cap);
/* Read a whole file into a malloc'd, NUL-terminated buffer (*out, freed by the caller;
 * *len its length without the NUL). Returns 0, -EFBIG when the file holds more than max
 * bytes (nothing is returned then), or -errno. */
int axl__fs_read_alloc(const struct axl__fs *fs, int dirfd, const char *path, size_t max,
		       char **out, size_t *len);
/* Read a symlink's target (NUL-terminated). Returns its length or -errno. */
long axl__fs_readlink(const struct axl__fs *fs, int dirfd, const char *path, char *buf,
		      size_t cap);
/* A directory stream: opened, read entry by entry (readdir(3)'s d_name, d_type and
 * d_ino; "." and ".." included, in no particular order) and closed through the seam. */
typedef struct axl__dir axl__dir;
/* NULL with errno set on failure. */
axl__dir *axl__fs_opendir(const struct axl__fs *fs, int dirfd, const char *path);
struct dirent *axl__fs_readdir(axl__dir *d);
void axl__fs_closedir(axl__dir *d);
/* 1 if path exists (following links), 0 if not. */
bool axl__fs_exists(const struct axl__fs *fs, int dirfd, const char *path);
/* Is path a directory (following links)? */
bool axl__fs_isdir(const struct axl__fs *fs, int dirfd, const char *path);

/* Write all of buf to fd (retrying short writes and EINTR): 0 or -errno. */
int axl__write_all(int fd, const void *buf, size_t n);

#endif
