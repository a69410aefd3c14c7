// SPDX-License-Identifier: GPL-2.0-only
/*
 * The watchdog: the check under the core's no-lost-wakeup claim.  Every watchdog_ms while a
 * queueing policy is active it lets policies release work they hold for reasons that expire
 * (tick), and rescues work that waits while its pool has an idle thread: each rescue is a
 * fault, counted, logged and announced.
 */
#include <linux/jiffies.h>
#include <linux/workqueue.h>
#include <linux/sunrpc/svc.h>
#include "core.h"
#include "servs.h"
#include "kq.h"
#include "events.h"
#include "wake.h"
#include "threads.h"
#include "watchdog.h"
#include <fairq/trace.h>

unsigned int fairq_watchdog_ms = 100;
static void watchdog_tick(struct work_struct *work);
static DECLARE_DELAYED_WORK(watchdog_work, watchdog_tick);

/* Whether a context that could take @fp's work is idle: the policy's own, or an nfsd thread. */
static bool pool_has_idle(struct fairq_pool *fp)
{
	bool idle;

	return fairq_pool_ask_own(fp, false, &idle) ? idle : fairq_kq_has_idle(fp->pool);
}

/* Every rescue is a fault to report: counted, and logged each time (rate-limited). */
static void count_rescue(struct fairq_serv *fs, struct fairq_pool *fp)
{
	struct fairq_event ev = { .rescue = { .net = fs->net, .serv = fs->id, .pool = fp->id } };
	long total;

	spin_lock_bh(&fp->lock);
	ev.rescue.rescues = ++fp->stats.rescues;
	spin_unlock_bh(&fp->lock);
	/* counted first: a rate-limited printk skips its arguments when it drops a line */
	total = atomic_long_inc_return(&fairq_rescues_total);
	trace_fairq_rescue(fs->id, fp->id, total);
	pr_warn_ratelimited("rescued a stalled transport in pool %u (%ld since load; a lost wakeup: please report)\n",
			    fp->id, total);
	fairq_event_announce(FAIRQ_EVENT_RESCUE, &ev);
}

/*
 * The safety net.  Work a policy would hand out while its pool has an idle thread and an
 * empty kernel queue, with no hand-off since the previous tick, means a wakeup was lost: hand
 * it over, count it, and say so.  Normal operation never gets here.
 */
static void watchdog_tick(struct work_struct *work)
{
	struct fairq_serv *fs;
	struct fairq_pool *fp;

	rcu_read_lock();
	fairq_for_each_serv(fs) {
		fairq_for_each_pool(fp, fs) {
			unsigned long progress = READ_ONCE(fp->progress);
			u64 kq_queued = fairq_kq_queued(fp->pool);
			unsigned int released = 0;
			bool stalled, kq_stalled, own_idle;

			spin_lock_bh(&fp->lock);
			fairq_threads_end_unseen_locked(fp);
			if (fp->ops && fp->ops->tick)
				released = fp->ops->tick(fp);
			spin_unlock_bh(&fp->lock);
			if (fairq_pool_hold_ran_out(fp))
				released++;
			while (released-- && fairq_pool_push(fp))
				;

			/*
			 * A thread held for expected work is idle on purpose, for a few ms.  Work
			 * fed to the kernel queue with nfsd's idle threads asleep is stalled too,
			 * unless the policy's own contexts take it: nothing queued there since
			 * the last tick, by fairq or by the kernel (its own enqueues of
			 * connections and closes leave the queue a moment with the head asleep).
			 */
			kq_stalled = progress == fp->watchdog_seen &&
				     kq_queued == fp->watchdog_kq_seen &&
				     fairq_kq_stalled(fp->pool) &&
				     !fairq_pool_ask_own(fp, false, &own_idle);
			stalled = kq_stalled ||
				  (READ_ONCE(fp->nr_queued) && progress == fp->watchdog_seen &&
				   !fairq_pool_holding(fp) &&
				   fairq_kq_empty(fp->pool) && pool_has_idle(fp) &&
				   fairq_pool_has_work(fp));
			fp->watchdog_seen = progress;
			fp->watchdog_kq_seen = kq_queued;
			/*
			 * Two ticks in a row: an enqueuer between publishing its work and looking
			 * for a context (a thread giving back a transport, preempted there) is
			 * slow, not lost, and wakes one itself when it runs.
			 */
			fp->watchdog_stalls = stalled ? fp->watchdog_stalls + 1 : 0;
			if (fp->watchdog_stalls < 2)
				continue;
			fp->watchdog_stalls = 0;
			if (kq_stalled && fairq_kq_stalled(fp->pool)) {
				fairq_kq_kick(fp->pool, 1);
				count_rescue(fs, fp);
			} else if (fairq_pool_push(fp)) {
				count_rescue(fs, fp);
			} else {
				/* held back by the policy (a wake cap), or no thread claimable */
				fairq_waking_stalled(fp);
			}
		}
	}
	/*
	 * Still in the read section: a policy's module may go once it is no longer active.
	 * The same workqueue as fairq_watchdog_start(): a work item is kept from running
	 * twice at once only within one workqueue.
	 */
	if (!(fairq_active_sched()->flags & FAIRQ_SCHED_NATIVE))
		queue_delayed_work(fairq_percpu_wq, &watchdog_work,
				   msecs_to_jiffies(READ_ONCE(fairq_watchdog_ms)));
	rcu_read_unlock();
}

/* A queueing policy became active: tick from now on (again at once after a switch). */
void fairq_watchdog_start(void)
{
	mod_delayed_work(fairq_percpu_wq, &watchdog_work,
			 msecs_to_jiffies(READ_ONCE(fairq_watchdog_ms)));
}

/* The kernel's own dispatch is back, or fairq unloads: no tick runs after this returns. */
void fairq_watchdog_stop(void)
{
	cancel_delayed_work_sync(&watchdog_work);
}
