/* SPDX-License-Identifier: MIT */
/* The harness the test doubles' own tests share (test_<lib>_double.c): one suite per
 * run, failures counted and named with the suite, and the double opened with dlopen as a
 * host would. RC compares a library's return code (any integer or enum type). */
#ifndef AXL_TEST_DOUBLE_SUITE_H
#define AXL_TEST_DOUBLE_SUITE_H

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
static const char *suite_name;

#define CHECK(cond)                                                                                      \
	do {                                                                                             \
		if (!(cond)) {                                                                           \
			fprintf(stderr, "%s:%d: [%s] CHECK(%s) failed\n", __FILE__, __LINE__, suite_name, #cond); \
			failures++;                                                                      \
		}                                                                                        \
	} while (0)
#define RC(expr, want)                                                                                   \
	do {                                                                                             \
		long long r_ = (long long)(expr), w_ = (long long)(want);                               \
		if (r_ != w_) {                                                                          \
			fprintf(stderr, "%s:%d: [%s] %s = %lld, want %lld\n", __FILE__, __LINE__, suite_name, \
				#expr, r_, w_);                                                          \
			failures++;                                                                      \
		}                                                                                        \
	} while (0)
#define EQ(a, b)                                                                                         \
	do {                                                                                             \
		unsigned long long a_ = (unsigned long long)(a), b_ = (unsigned long long)(b);           \
		if (a_ != b_) {                                                                          \
			fprintf(stderr, "%s:%d: [%s] %s = %llu (0x%llx), want %llu (0x%llx)\n", __FILE__, \
				__LINE__, suite_name, #a, a_, a_, b_, b_);                               \
			failures++;                                                                      \
		}                                                                                        \
	} while (0)
#define STREQ(a, b)                                                                                      \
	do {                                                                                             \
		const char *a_ = (a), *b_ = (b);                                                         \
		if (strcmp(a_, b_) != 0) {                                                               \
			fprintf(stderr, "%s:%d: [%s] %s = \"%s\", want \"%s\"\n", __FILE__, __LINE__,     \
				suite_name, #a, a_, b_);                                                 \
			failures++;                                                                      \
		}                                                                                        \
	} while (0)

static inline void *open_double(const char *path)
{
	void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
		exit(2);
	}
	return lib;
}

#endif
