// SPDX-License-Identifier: GPL-2.0-only
/*
 * Race-window wideners and allocation failures for the VM race tests, in test builds only
 * (make FAIRQ_TEST_RACES=y): a window of a few instructions is widened to milliseconds so that a
 * test hits it in CI time, and an allocation fails on demand so that its error path runs.
 */
#ifdef FAIRQ_TEST_RACES
#include <linux/delay.h>
#include <linux/module.h>
#include "pool.h"
#include "testing.h"

static unsigned int test_delay_us[FAIRQ_TEST_DELAYS];
module_param_array(test_delay_us, uint, NULL, 0644);
MODULE_PARM_DESC(test_delay_us,
		 "test build: sleep or busy-wait (us) at: select, wrapper, wrapper exit, reader, wq start, wq manage, service unlist, wq run, last thread, request hook, give back");

static unsigned int test_fail_every[FAIRQ_TEST_FAILS];
module_param_array(test_fail_every, uint, NULL, 0644);
MODULE_PARM_DESC(test_fail_every,
		 "test build: fail every Nth (0: never) allocation of: service, thread, v4 binding, wq worker; or lose every Nth enqueue wakeup");

static atomic_t test_fail_count[FAIRQ_TEST_FAILS];
static atomic64_t test_faults_injected;

void fairq_test_delay(enum fairq_test_delay which)
{
	unsigned int us = READ_ONCE(test_delay_us[which]);

	/* busy: some windows are in atomic context, and a sleep would not hold the CPU */
	if (us >= 1000)
		mdelay(us / 1000);
	if (us % 1000)
		udelay(us % 1000);
}

/*
 * Tasks inside a wrapper's tail (after it said it was done, before it returns to sunrpc):
 * unload must not finish while there is one, or it frees the text that task runs.
 */
static atomic_t test_in_tail;

void fairq_test_wrapper_tail(void)
{
	atomic_inc(&test_in_tail);
	fairq_test_delay(FAIRQ_TEST_DELAY_WRAPPER_EXIT);
	atomic_dec(&test_in_tail);
}

void fairq_test_unload_check(void)
{
	WARN(atomic_read(&test_in_tail), "fairq: unload went on while a task ran in a wrapper\n");
}

/* The same windows where the context may sleep: a sleeping task is quiescent for RCU-tasks. */
void fairq_test_sleep(enum fairq_test_delay which)
{
	unsigned int us = READ_ONCE(test_delay_us[which]);

	if (us)
		fsleep(us);
}
EXPORT_SYMBOL_GPL(fairq_test_sleep);

/*
 * One object a context uses while it sleeps in a widened window (wq's manager and the pool it
 * starts a worker for): freeing it meanwhile is the use-after-free the window is there to
 * show, reported when it is freed rather than left to luck when the sleeper wakes.
 */
static const void *test_in_use;

void fairq_test_using(const void *obj)
{
	WRITE_ONCE(test_in_use, obj);
}
EXPORT_SYMBOL_GPL(fairq_test_using);

void fairq_test_freeing(const void *obj)
{
	WARN(obj && READ_ONCE(test_in_use) == obj,
	     "fairq: freeing memory that a sleeping context still uses\n");
}

bool fairq_test_fail(enum fairq_test_fail which)
{
	unsigned int every = READ_ONCE(test_fail_every[which]);

	if (!every || atomic_inc_return(&test_fail_count[which]) % every)
		return false;
	atomic64_inc(&test_faults_injected);
	return true;
}
EXPORT_SYMBOL_GPL(fairq_test_fail);

/* Allocations failed and wakeups lost on purpose, all kinds: a module counter of test builds. */
u64 fairq_test_faults_injected(void)
{
	return atomic64_read(&test_faults_injected);
}

/* An enqueue's wakeup lost on purpose, counted by its pool (under the pool's lock). */
void fairq_test_lost_wakeup(struct fairq_pool *fp)
{
	fp->stats.test_lost_wakeups++;
}
#endif
