/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Test builds only (make FAIRQ_TEST_RACES=y, the VM suite's fairq-races.ko): the points where a
 * policy widens a race window or fails an allocation on purpose, each set by a module
 * parameter of that build (test_delay_us and test_fail_every, by the index below: the tests
 * write them by number, so entries are only ever added at the end).  In every other build
 * these compile to nothing.
 */
#ifndef _FAIRQ_PUBLIC_TESTING_H
#define _FAIRQ_PUBLIC_TESTING_H

#include <linux/types.h>

enum fairq_test_delay {
	FAIRQ_TEST_DELAY_SELECT,	/* a switch request, before it takes the mutex (sleeps) */
	FAIRQ_TEST_DELAY_WRAPPER,	/* the svc_destroy wrapper, before the real one (sleeps) */
	FAIRQ_TEST_DELAY_WRAPPER_EXIT,	/* a wrapper, after it said it is done */
	FAIRQ_TEST_DELAY_READER,	/* a reader of fairq_servs, on each service */
	FAIRQ_TEST_DELAY_WQ_START,	/* wq's manager, while it starts a worker (sleeps) */
	FAIRQ_TEST_DELAY_WQ_MANAGE,	/* wq's manager, before it takes its mutex (sleeps) */
	FAIRQ_TEST_DELAY_SERV_UNLIST,	/* a quiesced service, before it is unlisted (sleeps) */
	FAIRQ_TEST_DELAY_WQ_RUN,	/* a wq worker, from deciding to run to its look (sleeps) */
	FAIRQ_TEST_DELAY_LAST_THREAD,	/* an enqueue, from choosing a pool down to its last thread
					 * (of several pools) to taking that pool's lock
					 */
	FAIRQ_TEST_DELAY_REQUEST_HOOK,	/* a request hook, from reading the pool's policy to
					 * using it
					 */
	FAIRQ_TEST_DELAY_GIVE_BACK,	/* 6.1: a thread's svc_xprt_received(), before it is
					 * seen with the transport (a dispatch stays on its way)
					 */
	FAIRQ_TEST_DELAYS
};

enum fairq_test_fail {
	FAIRQ_TEST_FAIL_SERV,		/* a service's state */
	FAIRQ_TEST_FAIL_THREAD,		/* a thread record */
	FAIRQ_TEST_FAIL_V4BINDING,	/* an NFSv4.1 binding */
	FAIRQ_TEST_FAIL_WQ_WORKER,	/* a wq worker's request context */
	FAIRQ_TEST_FAIL_WAKEUP,		/* an enqueue's wakeup, lost: for the watchdog to find */
	FAIRQ_TEST_FAILS
};

#ifdef FAIRQ_TEST_RACES
#define FAIRQ_TEST_BUILD	true
/* a widened window where the caller may sleep (a sleeping task is quiescent for RCU-tasks) */
void fairq_test_sleep(enum fairq_test_delay which);
/* @obj is in use while the caller sleeps in a window: freeing it then is reported */
void fairq_test_using(const void *obj);
/* whether this allocation is made to fail */
bool fairq_test_fail(enum fairq_test_fail which);
#else
#define FAIRQ_TEST_BUILD	false
static inline void fairq_test_sleep(enum fairq_test_delay which)
{
	(void)which;
}

static inline void fairq_test_using(const void *obj)
{
	(void)obj;
}

static inline bool fairq_test_fail(enum fairq_test_fail which)
{
	(void)which;
	return false;
}
#endif

#endif /* _FAIRQ_PUBLIC_TESTING_H */
