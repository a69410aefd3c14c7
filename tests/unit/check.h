/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one way the C unit tests check and report: CHECK(cond, fmt, ...) counts a check and
 * prints a failed one with its place; check_summary() prints "N passed, N failed" (what
 * make unit and CI read) and returns the exit status.
 */
#ifndef FAIRQ_TEST_CHECK_H
#define FAIRQ_TEST_CHECK_H
#include <stdio.h>

static int check_passed, check_failed;

#define CHECK(cond, ...)							\
	do {									\
		if (cond) {							\
			check_passed++;						\
		} else {							\
			check_failed++;						\
			printf("FAIL %s:%d: ", __FILE__, __LINE__);		\
			printf(__VA_ARGS__);					\
			printf("\n");						\
		}								\
	} while (0)

static inline int check_summary(void)
{
	printf("%d passed, %d failed\n", check_passed, check_failed);
	return check_failed != 0;
}
#endif
