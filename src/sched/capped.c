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
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <fairq/sched.h>

/*
 * Banks used 5.  Scenario 5 of make bench (docs/capped.md) measured 1 and 2 alike in
 * throughput, with far fewer context switches than 5; 2 keeps a second waker for when the
 * first is slow to get a CPU.
 */
#define CAPPED_DEF_MAX_WAKING	2
#define CAPPED_MAX_WAKING	32
static u32 capped_max_waking = CAPPED_DEF_MAX_WAKING;

/*
 * A pool's threads on their way: slot i is a thread woken (task[i]), or about to be (NULL),
 * since jiffies when[i] (the low 32 bits, compared unsigned: an age wraps only after 2^32
 * jiffies, and then looks young for at most a second).  Pool lock held for all of it.
 */
struct capped_pool {
	struct fairq_qfifo_pool fifo;	/* first: the FIFO helper's state */
	unsigned int max_waking;
	unsigned int nr_waking;
	struct task_struct *task[CAPPED_MAX_WAKING];
	u32 when[CAPPED_MAX_WAKING];
	u64 overloads_avoided;	/* wakeups not made: max_waking threads were on their way */
	u64 wakers_expired;	/* woken threads that did not run within a second */
	u64 cap_waits;		/* watchdog stalls with the cap full: work waited, a thread idle */
};

static struct capped_pool *capped(struct fairq_pool *fp)
{
	return fairq_pool_priv(fp);
}

static void capped_init_pool(struct fairq_pool *fp)
{
	BUILD_BUG_ON(sizeof(struct capped_pool) > FAIRQ_SCHED_PRIV_BYTES);
	fairq_qfifo_init_pool(fp);
	capped(fp)->max_waking = READ_ONCE(capped_max_waking);
}

static void slot_forget(struct capped_pool *cp, unsigned int i)
{
	unsigned int last = cp->nr_waking - 1;

	cp->task[i] = cp->task[last];
	cp->when[i] = cp->when[last];
	WRITE_ONCE(cp->nr_waking, last);
}

/*
 * A woken thread that has not run within a second (stopped, or starved of CPU) gives its slot
 * back, so that a stalled waker cannot leak capacity.
 */
static bool capped_reserve(struct fairq_pool *fp)
{
	struct capped_pool *cp = capped(fp);
	u32 now = (u32)jiffies;
	unsigned int i;

	for (i = 0; i < cp->nr_waking;) {
		if (cp->task[i] && now - cp->when[i] > HZ) {
			slot_forget(cp, i);
			cp->wakers_expired++;
		} else {
			i++;
		}
	}
	if (cp->nr_waking >= cp->max_waking) {
		cp->overloads_avoided++;
		return false;
	}
	cp->task[cp->nr_waking] = NULL;
	cp->when[cp->nr_waking] = now;
	WRITE_ONCE(cp->nr_waking, cp->nr_waking + 1);
	return true;
}

static void capped_commit(struct fairq_pool *fp, struct task_struct *task)
{
	struct capped_pool *cp = capped(fp);
	unsigned int i;

	for (i = 0; i < cp->nr_waking; i++) {
		if (cp->task[i])
			continue;
		if (task)
			cp->task[i] = task;
		else
			slot_forget(cp, i);
		return;
	}
}

static void capped_ran(struct fairq_pool *fp)
{
	struct capped_pool *cp = capped(fp);
	unsigned int i;

	for (i = 0; i < cp->nr_waking; i++) {
		if (cp->task[i] == current) {
			slot_forget(cp, i);
			return;
		}
	}
}

/*
 * Not lost, held back: the threads the cap waits for have not run for a whole tick.  Counted
 * when the cap is full as the watchdog's wakeup fails: a thread that arrives in between
 * makes it miss one, which a later tick counts if the work still waits.
 */
static void capped_stalled(struct fairq_pool *fp)
{
	struct capped_pool *cp = capped(fp);

	if (cp->nr_waking >= cp->max_waking)
		cp->cap_waits++;
}

static void capped_counters(struct fairq_pool *fp, struct fairq_counters *out)
{
	struct capped_pool *cp = capped(fp);

	fairq_counter_add(out, "waking", cp->nr_waking);
	fairq_counter_add(out, "overloads_avoided", cp->overloads_avoided);
	fairq_counter_add(out, "wakers_expired", cp->wakers_expired);
	fairq_counter_add(out, "cap_waits", cp->cap_waits);
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
		      CAPPED_MAX_WAKING, CAPPED_DEF_MAX_WAKING, capped_get_max_waking,
		      capped_set_max_waking),
	{ }
};

static const struct fairq_wake_ops capped_wake = {
	.reserve	= capped_reserve,
	.commit		= capped_commit,
	.ran		= capped_ran,
	.stalled	= capped_stalled,
};

const struct fairq_sched_ops fairq_sched_capped = {
	.owner		= THIS_MODULE,
	.name		= "capped",
	.flags		= FAIRQ_SCHED_ALWAYS_READY,
	.priv_size	= sizeof(struct capped_pool),
	.init_pool	= capped_init_pool,
	.enqueue	= fairq_qfifo_enqueue,
	.pick		= fairq_qfifo_pick,
	.has_work	= fairq_qfifo_has_work,
	.drain		= fairq_qfifo_drain,
	.remove		= fairq_qfifo_remove,
	.counters	= capped_counters,
	.tunables	= capped_tunables,
	.supported	= capped_supported,
	.wake		= &capped_wake,
};
