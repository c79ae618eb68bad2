/* SPDX-License-Identifier: MIT */
/* A minimal test harness: CHECK counts, the summary line is the plain
 * "N passed, N failed" that CI reads, and the exit code says whether all passed. */
#ifndef AXL_TEST_CHECK_H
#define AXL_TEST_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_passed, check_failed;

#define CHECK(cond)                                                                      \
	do {                                                                             \
		if (cond) {                                                              \
			check_passed++;                                                  \
		} else {                                                                 \
			check_failed++;                                                  \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
		}                                                                        \
	} while (0)

#define CHECK_STR(a, b)                                                                  \
	do {                                                                             \
		const char *check_a_ = (a), *check_b_ = (b);                             \
		if (check_a_ && check_b_ && strcmp(check_a_, check_b_) == 0) {           \
			check_passed++;                                                  \
		} else {                                                                 \
			check_failed++;                                                  \
			fprintf(stderr, "%s:%d: '%s' != '%s' (%s)\n", __FILE__, __LINE__,  \
				check_a_ ? check_a_ : "(null)", check_b_ ? check_b_ : "(null)", #a); \
		}                                                                        \
	} while (0)

#define CHECK_INT(a, b)                                                                  \
	do {                                                                             \
		long long check_a_ = (long long)(a), check_b_ = (long long)(b);          \
		if (check_a_ == check_b_) {                                              \
			check_passed++;                                                  \
		} else {                                                                 \
			check_failed++;                                                  \
			fprintf(stderr, "%s:%d: %lld != %lld (%s)\n", __FILE__, __LINE__, check_a_, \
				check_b_, #a);                                           \
		}                                                                        \
	} while (0)

static inline int check_summary(void)
{
	printf("%d passed, %d failed\n", check_passed, check_failed);
	return check_failed ? 1 : 0;
}

#endif
