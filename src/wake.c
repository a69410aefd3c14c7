// SPDX-License-Identifier: GPL-2.0-only
/*
 * A policy's say over wakeups: a cap on the threads woken that have not run yet (capped, SGI's
 * capped wakeups), and one thread held idle for work expected soon (fq's anticipation).
 */
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/sunrpc/svc.h>
#include "core.h"
#include "compat/kq.h"
#include "wake.h"

/**
 * fairq_pool_hold_thread - keep one of @fp's threads idle for work expected soon
 * @fp: the pool (its lock held)
 * @ns: for how long at most
 *
 * For a policy that expects a favoured client's next request within @ns (fairq's
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

/**
 * fairq_pool_set_wake_cap - cap the threads fairq wakes that have not run yet
 * @fp: the pool (its lock held: call from init_pool)
 * @max_waking: the cap, at most FAIRQ_WAKE_CAP_MAX; 0 removes it
 */
void fairq_pool_set_wake_cap(struct fairq_pool *fp, unsigned int max_waking)
{
	WRITE_ONCE(fp->max_waking, min_t(unsigned int, max_waking, FAIRQ_WAKE_CAP_MAX));
}
EXPORT_SYMBOL_GPL(fairq_pool_set_wake_cap);

static void waking_forget(struct fairq_pool *fp, unsigned int i)
	__must_hold(&fp->lock)
{
	WRITE_ONCE(fp->nr_waking, fp->nr_waking - 1);
	fp->waking[i] = fp->waking[fp->nr_waking];
}

/*
 * fairq_waking_reserve() of a pool with a cap: a slot is taken for the thread about to be
 * woken (give it a task, or give it back, with fairq_waking_commit()).  A woken thread that
 * has not run within a second (stopped, or starved of CPU) gives its slot back, so a stalled
 * waker cannot leak capacity.
 */
bool fairq_waking_reserve_capped(struct fairq_pool *fp)
{
	unsigned int i;
	bool ok = true;

	spin_lock_bh(&fp->lock);
	for (i = 0; i < fp->nr_waking;) {
		if (fp->waking[i].task && time_after(jiffies, fp->waking[i].when + HZ)) {
			waking_forget(fp, i);
			fp->stats.wakers_expired++;
		} else {
			i++;
		}
	}
	if (fp->max_waking && fp->nr_waking >= fp->max_waking) {
		/* the watchdog reads it unlocked */
		WRITE_ONCE(fp->stats.overloads_avoided, fp->stats.overloads_avoided + 1);
		ok = false;
	} else if (fp->max_waking) {
		fp->waking[fp->nr_waking].task = NULL;
		fp->waking[fp->nr_waking].when = jiffies;
		WRITE_ONCE(fp->nr_waking, fp->nr_waking + 1);
	}
	spin_unlock_bh(&fp->lock);
	return ok;
}

/* fairq_waking_commit() of a pool with a cap. */
void fairq_waking_commit_capped(struct fairq_pool *fp, struct task_struct *task)
{
	unsigned int i;

	spin_lock_bh(&fp->lock);
	for (i = 0; i < fp->nr_waking; i++) {
		if (fp->waking[i].task)
			continue;
		if (task)
			fp->waking[i].task = task;
		else
			waking_forget(fp, i);
		break;
	}
	spin_unlock_bh(&fp->lock);
}

/* fairq_waking_ran() of a pool with threads on their way. */
void fairq_waking_ran_capped(struct fairq_pool *fp)
{
	unsigned int i;

	spin_lock_bh(&fp->lock);
	for (i = 0; i < fp->nr_waking; i++) {
		if (fp->waking[i].task == current) {
			waking_forget(fp, i);
			break;
		}
	}
	spin_unlock_bh(&fp->lock);
}
