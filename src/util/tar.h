/* SPDX-License-Identifier: MIT */
/*
 * The capture file format: a POSIX tar archive (ustar members, pax extended headers
 * for names and link targets longer than 100 bytes), compressed with gzip.
 *
 * The writer makes one; the reader checks one, or checks and unpacks it into a
 * directory, refusing anything that is not a plain tree: absolute names, "..",
 * control characters, hard links, devices, FIFOs, symlinks that point out of the tree,
 * members written through a symlink, members or totals over the limits, bad header
 * checksums, truncated or corrupt gzip streams, data after the end of the archive.
 * It never follows a symlink while unpacking.
 *
 * Functions return 0 or a negative errno: -EINVAL an unsafe member, -EBADMSG a
 * malformed or truncated archive, -EFBIG over a limit, -ENOMEM, or the errno of a
 * failed read or write; -ELIBACC zlib cannot be loaded (zlib_dl.h). Readers fill err
 * with an English sentence.
 */
#ifndef AXL_UTIL_TAR_H
#define AXL_UTIL_TAR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- writing ----------------------------------------------------------------------- */
struct axl__tar_writer;

/* A writer onto fd (which stays the caller's), gzip level 1-9, members dated mtime.
 * zlib: the file to load zlib from (NULL: libz.so.1, zlib_dl.h); -ELIBACC with err
 * when it cannot be loaded. */
int axl__tar_writer_new(struct axl__tar_writer **out, int fd, int level, int64_t mtime, const char *zlib,
			char *err, size_t errcap);
int axl__tar_add_dir(struct axl__tar_writer *w, const char *path);
int axl__tar_add_file(struct axl__tar_writer *w, const char *path, const void *data, size_t len);
int axl__tar_add_symlink(struct axl__tar_writer *w, const char *path, const char *target);
/* The end-of-archive blocks and the end of the gzip stream; frees w in every case. */
int axl__tar_writer_finish(struct axl__tar_writer *w, size_t *members);
void axl__tar_writer_abort(struct axl__tar_writer *w);

/* ---- reading ------------------------------------------------------------------------ */
struct axl__tar_limits {
	uint64_t max_member;  /* bytes of one member */
	uint64_t max_total;   /* bytes of all members together */
	uint64_t max_members; /* members (directories, files, links) */
	uint64_t max_stream;  /* bytes of the uncompressed stream, headers included */
	unsigned max_depth;   /* components of a name */
	const char *zlib;     /* for a gzip stream: the file to load zlib from (NULL: libz.so.1) */
};
#define AXL__TAR_LIMITS_DEFAULT {64ull << 20, 1ull << 30, 1000000, 3ull << 30, 128, NULL}

struct axl__tar_stats {
	uint64_t members, files, dirs, links, bytes;
	bool gzip;
};

/* Is this the start of a capture file (gzip or tar)? Reads the first bytes of fd at
 * offset 0 (pread). 1 yes, 0 no (err says what it looks like), or -errno. */
int axl__tar_sniff(int fd, char *err, size_t errcap);

/* Read the archive in fd from its start. rootfd < 0: only check it. Otherwise unpack
 * it into the (empty, private) directory rootfd too. */
int axl__tar_read(int fd, int rootfd, const struct axl__tar_limits *lim, struct axl__tar_stats *st,
		  char *err, size_t errcap);

/* Remove everything below the directory dirfd, never following a symlink. */
int axl__tar_rmtree(int dirfd);

#endif
