/* SPDX-License-Identifier: MIT */
/*
 * zlib, loaded with dlopen when a capture file is read or written (tar.c, tar_write.c),
 * never linked: listing a node, the common case, does not load it at every start
 * (ARCHITECTURE.md, "Performance budget"). The six functions used, typed by <zlib.h>
 * (zlib1g-dev), are resolved from libz.so.1 into one table; the macros below route
 * every call, including zlib.h's own inflateInit2/deflateInit2 macros, through it. A
 * call left out of the table is an undefined reference when libaxl is linked
 * (--no-undefined). Include this instead of <zlib.h>, and call axl__zlib_load first.
 */
#ifndef AXL_UTIL_ZLIB_DL_H
#define AXL_UTIL_ZLIB_DL_H

#include <stddef.h>
#include <zlib.h>

#define AXL__ZLIB_SONAME "libz.so.1"
#define AXL__ZLIB_PACKAGE "zlib1g"

struct axl__zlib {
	__typeof__(inflateInit2_) *inflateInit2_;
	__typeof__(inflate) *inflate;
	__typeof__(inflateEnd) *inflateEnd;
	__typeof__(deflateInit2_) *deflateInit2_;
	__typeof__(deflate) *deflate;
	__typeof__(deflateEnd) *deflateEnd;
};
extern struct axl__zlib axl__zlib;

/* Load zlib once per process: path (a file to load instead, NULL: libz.so.1). 0, or
 * -ELIBACC with why (which names the library and its Debian package). Thread-safe. The
 * first library loaded stays for the life of the process. */
int axl__zlib_load(const char *path, char *why, size_t cap);

#define inflateInit2_ (*axl__zlib.inflateInit2_)
#define inflate (*axl__zlib.inflate)
#define inflateEnd (*axl__zlib.inflateEnd)
#define deflateInit2_ (*axl__zlib.deflateInit2_)
#define deflate (*axl__zlib.deflate)
#define deflateEnd (*axl__zlib.deflateEnd)

#endif
