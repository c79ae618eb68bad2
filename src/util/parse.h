/* SPDX-License-Identifier: MIT */
/*
 * Strict parsers for the text the kernel publishes. Each takes a NUL-terminated
 * string exactly as read from a file (trailing newline and surrounding blanks are
 * allowed) and returns 0 on success or a negative AXL error (AXL_EPARSE, AXL_ERANGE)
 * leaving the output untouched. None of them allocates.
 */
#ifndef AXL_UTIL_PARSE_H
#define AXL_UTIL_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Strip leading and trailing white space in place; returns the new start. */
char *axl__strip(char *s);

/* Unsigned integer in the given base (0: auto "0x" prefix), whole string. */
int axl__parse_u64(const char *s, int base, uint64_t *out);
/* Signed decimal integer, whole string. */
int axl__parse_i64(const char *s, int64_t *out);
/* "0x10de" style ids up to max (0xffff for PCI ids, 0xffffff for class). */
int axl__parse_hex(const char *s, uint64_t max, uint64_t *out);
/* PCIe link speed ("16.0 GT/s PCIe", "8 GT/s", "2.5 GT/s") -> generation 1..7. */
int axl__parse_link_speed(const char *s, int *gen);
/* A CPU list ("0-3,8,10-11"); counts the CPUs and checks increasing, sane ranges.
 * max_cpu bounds the highest CPU number accepted. */
int axl__parse_cpulist(const char *s, unsigned max_cpu, unsigned *count);
/* A PCI address "dddd:bb:dd.f" (domain may have 4 to 8 hex digits). */
int axl__parse_bdf(const char *s, unsigned *domain, unsigned *bus, unsigned *dev, unsigned *fn);

/*
 * Find "key" in text made of lines "key<sep>value" (for example /proc/meminfo with
 * ':' or KFD properties with ' '). Writes the stripped value (at most cap-1 bytes) to
 * out. Returns 0, AXL_ENOENT when absent, AXL_ETOOBIG when the value does not fit.
 */
int axl__kv_find(const char *text, const char *key, char sep, char *out, size_t cap);

/* A size with an optional unit ("16384 kB" as in /proc/meminfo) -> bytes. */
int axl__parse_kb_size(const char *s, uint64_t *bytes);

/* Is s printable UTF-8/ASCII text with no control characters besides \t\n? */
bool axl__is_text(const char *s, size_t len);

/* Length of the valid UTF-8 sequence at s (at most n bytes, n >= 1): 1-4, or 0 when it
 * is not one (overlong forms, surrogates and code points above U+10FFFF are not). */
size_t axl__utf8_len(const unsigned char *s, size_t n);

#endif
