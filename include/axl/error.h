/* SPDX-License-Identifier: MIT */
/**
 * @file axl/error.h
 * Error codes. Every axl function that can fail returns an int: 0 on success or a
 * negative AXL_E* code. The codes, their names and their messages come from one list.
 * A more specific message for the last failure of the calling thread is kept in
 * axl_error_last(), which never returns NULL.
 */
#ifndef AXL_ERROR_H
#define AXL_ERROR_H

#include "common.h"

AXL_BEGIN_DECLS

/* X(name, value, message) */
#define AXL_ERROR_LIST(X)                                                   \
	X(OK, 0, "success")                                                 \
	X(EINVAL, -1, "invalid argument")                                   \
	X(ENOMEM, -2, "out of memory")                                      \
	X(ENOENT, -3, "not found")                                          \
	X(EIO, -4, "input/output error")                                    \
	X(EPARSE, -5, "malformed input")                                    \
	X(ERANGE, -6, "value out of range")                                 \
	X(EUNKNOWN, -7, "value not known")                                  \
	X(ENOTSUP, -8, "not supported")                                     \
	X(EPERM, -9, "permission denied")                                   \
	X(EVERSION, -10, "incompatible version")                            \
	X(ETOOBIG, -11, "input too large")                                  \
	X(EBACKEND, -12, "backend failure")                                 \
	X(ENOTSYS, -13, "not this system (re-rooted context)")             \
	X(EBUSY, -14, "device busy")                                        \
	X(ENOSPC, -15, "no room left")                                      \
	X(ETIMEDOUT, -16, "timed out")                                      \
	X(EDEVLOST, -17, "device lost")

typedef enum axl_error {
#define AXL__ERR_ENUM(name, value, msg) AXL_##name = (value),
	AXL_ERROR_LIST(AXL__ERR_ENUM)
#undef AXL__ERR_ENUM
	AXL_E__LAST = -18
} axl_error;

/** A static English message for a code ("unknown error" for codes not in the list). */
AXL_API const char *axl_strerror(int code);

/** The code's symbolic name without prefix, e.g. "ENOENT" ("EUNKNOWNCODE" if not listed). */
AXL_API const char *axl_err_name(int code);

/**
 * The detailed message of the last error in this thread (for example the path and the
 * reason). Never NULL; "" when no error happened yet. Valid until the next axl call
 * in the same thread.
 */
AXL_API const char *axl_error_last(void);

AXL_END_DECLS

#endif /* AXL_ERROR_H */
