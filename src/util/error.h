/* SPDX-License-Identifier: MIT */
/* The calling thread's last error message, the store behind axl_error_last(). Here in util
 * so that every part of the library, the planner included (which sees only the public API
 * and util), reports errors the same way. */
#ifndef AXL_UTIL_ERROR_H
#define AXL_UTIL_ERROR_H

/* Set the message (printf-style) and return code, so that `return axl__error(...)` works. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
int axl__error(int code, const char *fmt, ...);
void axl__error_clear(void);
/* The message; "" when none. Never NULL. */
const char *axl__error_text(void);

#endif
