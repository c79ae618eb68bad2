/* SPDX-License-Identifier: MIT */
/*
 * Captures, inside the library (the public side is include/axl/capture.h).
 *
 * For vendor backends: every answer a vendor library gives while the context records
 * is kept with axl__capture_vendor(), one JSON object per call, and lands in the
 * capture as axl-capture/<lib>.jsonl. On replay those files are ordinary files of the
 * sysroot: load them with axl__fs_read_alloc(), e.g.
 *
 *     char *text; size_t len;
 *     if (axl_context_is_rerooted(ctx) &&
 *         axl__fs_read_alloc(&ctx->fs, AXL__FS_ROOT, AXL__CAPTURE_DIR "/nvml.jsonl",
 *                            AXL__CAPTURE_VENDOR_MAX, &text, &len) == 0) { ... free(text); }
 *
 * and serve the recorded answers instead of calling the library.
 */
#ifndef AXL_LIB_CAPTURE_H
#define AXL_LIB_CAPTURE_H

#include <stdbool.h>
#include <stdint.h>

#include "axl/context.h"

#define AXL__CAPTURE_DIR "axl-capture"
#define AXL__CAPTURE_VENDOR_MAX (64u << 20) /* bytes of one <lib>.jsonl */
#define AXL__CAPTURE_VERSION 1 /* the manifest's schema_version this axl writes and reads */

/* Append one record (one line of JSON, no newline in it) to axl-capture/<lib>.jsonl of
 * the capture ctx records. lib: 1-32 characters of [a-z0-9_-] ("nvml", "rocm_smi").
 * A no-op when ctx does not record; thread-safe. A record that cannot be kept (bad
 * name, a newline in the line, over 64 MiB) is dropped with a warning in the log. */
void axl__capture_vendor(axl_context *ctx, const char *lib, const char *json_line);

/* Does ctx record (AXL_CONTEXT_RECORD)? Lets a backend skip building records for
 * nothing. */
bool axl__capture_recording(const axl_context *ctx);

/* Context open/free: when sysroot names a capture file, check it and unpack it into a
 * new private directory under tmpbase; *dir is then that directory (malloc'd), NULL
 * when sysroot is not a regular file. 0 or an AXL_E* code with axl_error_last() set. */
int axl__capture_unpack(const char *sysroot, const char *tmpbase, const char *zlib, char **dir);
/* The schema_version of the manifest (axl-capture/manifest.json) of the tree ctx reads
 * when it is an "axl.capture" of a later version than AXL__CAPTURE_VERSION; 0 when it
 * is not (or there is no manifest: any tree replays). */
int64_t axl__capture_newer(const axl_context *ctx);
/* Remove an unpacked capture (never following a symlink) and free dir. */
void axl__capture_remove(char *dir);

#endif
