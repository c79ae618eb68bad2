/* SPDX-License-Identifier: MIT */
/**
 * @file axl/capture.h
 * Captures: a node as axl saw it, in one file, to replay on another machine.
 *
 * Open a context with AXL_CONTEXT_RECORD, take an inventory (AXL_INVENTORY_ALL reads
 * everything there is to read), then write the capture with axl_capture_write(). The
 * file is a gzip-compressed POSIX tar holding the files axl read (with the bytes it
 * read), every directory and symlink on the way to them, the entries of the
 * directories it listed, and axl-capture/: manifest.json and one <library>.jsonl per
 * vendor library with every answer it gave. It contains the host name, serial numbers
 * and UUIDs of the node.
 *
 * Replay: pass the file (or the folder it unpacks to) as the sysroot of a context
 * (axl_context_options.sysroot, `axl --sysroot FILE`, AXL_SYSROOT). A file is checked
 * and unpacked into a private temporary directory when the context opens and removed
 * when it is freed; a truncated, damaged or hostile file is refused (AXL_EPARSE,
 * AXL_EINVAL, AXL_ETOOBIG) with the reason in axl_error_last(). See docs/capture.md.
 */
#ifndef AXL_CAPTURE_H
#define AXL_CAPTURE_H

#include "common.h"
#include "context.h"

AXL_BEGIN_DECLS

#define AXL_CAPTURE_OPTIONS_VERSION 1

struct axl_capture_options {
	/** AXL_CAPTURE_OPTIONS_VERSION of the headers the caller was built with. */
	unsigned version;
	/** None defined yet: 0. */
	unsigned flags;
	/** The command that made the capture, kept in the manifest; NULL for none. */
	const char *command_line;
};

#define AXL_CAPTURE_OPTIONS_INIT {AXL_CAPTURE_OPTIONS_VERSION, 0u, NULL}

/**
 * Write what ctx recorded (ctx must have been opened with AXL_CONTEXT_RECORD) to the
 * capture file `path` (by convention NAME.tar.gz). The file is written under a
 * temporary name in the same directory and renamed into place, so `path` is either
 * the old file or the whole new one; it is created with mode 0600. opts may be NULL.
 * members, when not NULL, receives the number of archive members written.
 * Thread-safe; recording goes on and a later call writes everything so far.
 */
AXL_API int axl_capture_write(axl_context *ctx, const char *path,
			      const struct axl_capture_options *opts, size_t *members);

AXL_END_DECLS

#endif
