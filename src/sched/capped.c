// SPDX-License-Identifier: GPL-2.0-only
/*
 * capped: FIFO order, with at most max_waking threads per pool woken but not yet running.
 *
 * Greg Banks' 2009 SGI patch: with many nfsd threads and a high rate of tiny requests, waking
 * one idle thread per enqueue wakes far more threads than there is work by the time they run
 * (up to ~15% of wakes found nothing to do), and the run queues fill with nfsd threads.  Work
 * that arrives while max_waking threads are on their way stays queued: the next thread that
 * runs takes it, and a running thread that sees more work wakes one more, so the pool clocks
 * itself.  A woken thread that does not run within a second releases its slot.
 *
 * Linux 6.7 made the kernel itself wake one thread per pool at a time (the woken thread wakes
 * the next), which is this policy with max_waking = 1: there capped would change nothing, so it
 * is not offered.
 */
#include <linux/module.h>
#include <fairq/sched.h>

/*
 * Banks used 5.  Scenario 5 of make bench (docs/capped.md) measured 1 and 2 alike in
 * throughput, with far fewer context switches than 5; 2 keeps a second waker for when the
 * first is slow to get a CPU.
 */
#define CAPPED_DEF_MAX_WAKING	2
static u32 capped_max_waking = CAPPED_DEF_MAX_WAKING;

static void capped_init_pool(struct fairq_pool *fp)
{
	fairq_qfifo_init_pool(fp);
	fairq_pool_set_wake_cap(fp, READ_ONCE(capped_max_waking));
}

static bool capped_supported(void)
{
	return !fairq_kernel_has(FAIRQ_KERNEL_WAKES_ONE_AT_A_TIME);
}

static u64 capped_get_max_waking(void)
{
	return READ_ONCE(capped_max_waking);
}

static int capped_set_max_waking(u64 val)
{
	WRITE_ONCE(capped_max_waking, val);
	return fairq_requeue_all(&fairq_sched_capped);	/* pools take the new cap */
}

static const struct fairq_tunable capped_tunables[] = {
	FAIRQ_TUNABLE("max_waking", "threads per pool woken but not yet running, at most", 1,
		      FAIRQ_WAKE_CAP_MAX, CAPPED_DEF_MAX_WAKING, capped_get_max_waking,
		      capped_set_max_waking),
	{ }
};

const struct fairq_sched_ops fairq_sched_capped = {
	.owner		= THIS_MODULE,
	.name		= "capped",
	.flags		= FAIRQ_SCHED_ALWAYS_READY,
	.priv_size	= sizeof(struct fairq_qfifo_pool),
	.init_pool	= capped_init_pool,
	.enqueue	= fairq_qfifo_enqueue,
	.pick		= fairq_qfifo_pick,
	.has_work	= fairq_qfifo_has_work,
	.drain		= fairq_qfifo_drain,
	.remove		= fairq_qfifo_remove,
	.tunables	= capped_tunables,
	.supported	= capped_supported,
};
