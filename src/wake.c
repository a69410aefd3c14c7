// SPDX-License-Identifier: GPL-2.0-only
/*
 * A policy's say over wakeups: which threads are woken for its work (its wake ops: capped's cap
 * on threads woken that have not run yet), and one thread held idle for work expected soon
 * (fq's anticipation).
 */
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/sunrpc/svc.h>
#include "core.h"
#include "kq.h"
#include "wake.h"

/**
 * fairq_pool_hold_thread - keep one of @fp's threads idle for work expected soon
 * @fp: the pool (its lock held)
 * @ns: for how long at most
 *
 * For a policy that expects a favoured client's next request within @ns (fq's
 * anticipation): until then, a thread looking for work sleeps rather than take the pool's
 * last idle place, and no push wakes the last idle thread.  Ends at @ns, or earlier with
 * fairq_pool_release_thread() when the expected work arrives.  Threads that are not needed
 * for it keep running the queue, so this costs at most one thread for @ns.  A pool with a
 * single thread never holds it.
 */
void fairq_pool_hold_thread(struct fairq_pool *fp, u64 ns)
	__must_hold(&fp->lock)
{
	if (fairq_pool_threads(fp->pool) >= 2)
		WRITE_ONCE(fp->hold_until, ktime_get_ns() + ns);
}
EXPORT_SYMBOL_GPL(fairq_pool_hold_thread);

void fairq_pool_release_thread(struct fairq_pool *fp)
	__must_hold(&fp->lock)
{
	WRITE_ONCE(fp->hold_until, 0);
}
EXPORT_SYMBOL_GPL(fairq_pool_release_thread);

bool fairq_pool_holding(const struct fairq_pool *fp)
{
	u64 until = READ_ONCE(fp->hold_until);

	return until && (s64)(ktime_get_ns() - until) < 0;
}
EXPORT_SYMBOL_GPL(fairq_pool_holding);

u64 fairq_pool_hold_skips(const struct fairq_pool *fp)
{
	return atomic_long_read(&fp->hold_skips);
}
EXPORT_SYMBOL_GPL(fairq_pool_hold_skips);

/* fairq_pool_hold_ran_out() of a pool holding a thread. */
bool fairq_pool_hold_ran_out_held(struct fairq_pool *fp)
{
	u64 until = READ_ONCE(fp->hold_until);

	if (!until || (s64)(ktime_get_ns() - until) < 0)
		return false;
	return cmpxchg64(&fp->hold_until, until, 0) == until;
}

/*
 * Whether handing one transport to the kernel queue now would take the held thread.  The
 * transport goes to @self (a thread looking for work) when @self_takes, else to an idle thread
 * other than @self (may be NULL), which must leave another one idle.
 */
bool fairq_pool_hold_keeps_held(struct fairq_pool *fp, const struct svc_rqst *self,
				bool self_takes)
{
	unsigned int need = self_takes ? 1 : 2;

	if (!fairq_pool_holding(fp) || fairq_kq_idle_others(fp->pool, self, need) >= need)
		return false;
	atomic_long_inc(&fp->hold_skips);
	return true;
}

/*
 * The wake ops of @fp's policy, asked under the pool lock: the unlocked look of the inline
 * callers (wake.h) only saves policies without them the lock, and a switch may have come
 * in between.
 */
static const struct fairq_wake_ops *wake_ops_locked(struct fairq_pool *fp)
	__must_hold(&fp->lock)
{
	return fp->ops ? fp->ops->wake : NULL;
}

/* fairq_waking_reserve() of a pool whose policy has a say. */
bool fairq_waking_reserve_policy(struct fairq_pool *fp)
{
	const struct fairq_wake_ops *wake;
	bool ok = true;

	spin_lock_bh(&fp->lock);
	wake = wake_ops_locked(fp);
	if (wake)
		ok = wake->reserve(fp);
	spin_unlock_bh(&fp->lock);
	return ok;
}

/* fairq_waking_commit() of a pool whose policy has a say. */
void fairq_waking_commit_policy(struct fairq_pool *fp, struct task_struct *task)
{
	const struct fairq_wake_ops *wake;

	spin_lock_bh(&fp->lock);
	wake = wake_ops_locked(fp);
	if (wake)
		wake->commit(fp, task);
	spin_unlock_bh(&fp->lock);
}

/* fairq_waking_ran() of a pool whose policy has a say. */
void fairq_waking_ran_policy(struct fairq_pool *fp)
{
	const struct fairq_wake_ops *wake;

	spin_lock_bh(&fp->lock);
	wake = wake_ops_locked(fp);
	if (wake)
		wake->ran(fp);
	spin_unlock_bh(&fp->lock);
}

/* The watchdog found @fp's work stalled and could not wake a thread for it. */
void fairq_waking_stalled(struct fairq_pool *fp)
{
	const struct fairq_wake_ops *wake;

	if (!fairq_pool_wake_ops(fp))
		return;
	spin_lock_bh(&fp->lock);
	wake = wake_ops_locked(fp);
	if (wake && wake->stalled)
		wake->stalled(fp);
	spin_unlock_bh(&fp->lock);
}

/*
 * A time a policy asked for came (fairq_pool_wake_at()): its tick lets go of what it held
 * until then, and threads are woken for that work as for the watchdog's tick.  Softirq
 * context; the pool outlives the call (fairq_serv_free() cancels the timer first), and a pool
 * left by its policy (its service going, a switch to the kernel's dispatch) has no tick.
 */
static enum hrtimer_restart pool_wake_timer_fn(struct hrtimer *timer)
{
	struct fairq_pool *fp = container_of(timer, struct fairq_pool, wake_timer);
	unsigned int released = 0;

	spin_lock_bh(&fp->lock);
	fp->wake_at = 0;
	if (fp->ops && fp->ops->tick)
		released = fp->ops->tick(fp);
	spin_unlock_bh(&fp->lock);
	while (released-- && fairq_pool_push(fp))
		;
	return HRTIMER_NORESTART;
}

void fairq_pool_wake_timer_init(struct fairq_pool *fp)
{
	fairq_hrtimer_setup(&fp->wake_timer, pool_wake_timer_fn, CLOCK_MONOTONIC,
			    HRTIMER_MODE_ABS_SOFT);
}

/**
 * fairq_pool_wake_at - have the policy's tick called for @fp at @ns
 * @fp: the pool (its lock held)
 * @ns: when (ktime_get_ns()); an earlier time already pending stands
 *
 * For work a policy holds back until a known time (fq's class limits), so that it is let go
 * then and not at the watchdog's next tick.  One timer per pool: the policy asks again, from
 * its tick, for what is due later.
 */
void fairq_pool_wake_at(struct fairq_pool *fp, u64 ns)
	__must_hold(&fp->lock)
{
	if (fp->wake_at && fp->wake_at <= ns)
		return;
	fp->wake_at = ns;
	hrtimer_start(&fp->wake_timer, ns_to_ktime(ns), HRTIMER_MODE_ABS_SOFT);
}
EXPORT_SYMBOL_GPL(fairq_pool_wake_at);
