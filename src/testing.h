/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Test builds only: the core's own race-window wideners (src/testing.c); the points a policy
 * may use too, and the numbering of all of them, are in <fairq/testing.h>.
 */
#ifndef _FAIRQ_TESTING_H
#define _FAIRQ_TESTING_H

#include <fairq/testing.h>

struct fairq_pool;

#ifdef FAIRQ_TEST_RACES
void fairq_test_delay(enum fairq_test_delay which);
void fairq_test_wrapper_tail(void);
void fairq_test_unload_check(void);
void fairq_test_freeing(const void *obj);
u64 fairq_test_faults_injected(void);
void fairq_test_lost_wakeup(struct fairq_pool *fp);
#else
static inline void fairq_test_delay(enum fairq_test_delay which)
{
	(void)which;
}

static inline void fairq_test_wrapper_tail(void) { }
static inline void fairq_test_unload_check(void) { }

static inline void fairq_test_freeing(const void *obj)
{
	(void)obj;
}

static inline void fairq_test_lost_wakeup(struct fairq_pool *fp)
{
	(void)fp;
}
#endif

#endif /* _FAIRQ_TESTING_H */
