// SPDX-License-Identifier: GPL-2.0-only
/*
 * Moving work between owners, every transport kept and in order: a switch of policy, a pool
 * rebuilt for new settings, a pool that lost its last thread, a service going away, and the
 * way back to the kernel's own dispatch.  Serialised by fairq_sched_mutex (switches, rebuilds)
 * or by the service's own teardown; each pool moves under its own lock.
 */
#include <linux/module.h>
#include <linux/sunrpc/svc.h>
#include <linux/sunrpc/svc_xprt.h>
#include "core.h"
#include "mark.h"
#include "kq.h"
#include "servs.h"
#include "switch.h"
#include "testing.h"
#include "threads.h"
#include "watchdog.h"

static void pool_switch(struct fairq_pool *fp, const struct fairq_sched_ops *new_ops,
			const struct fairq_sched_ops *force);
/* Set once at init (fairq_core_init()), before any hook can call the core. */
static void (*serv_quiesce)(struct svc_serv *serv) __ro_after_init;

/*
 * Serialises switches and everything that changes what a switch uses: the registry takes it
 * for registration, lookups that lead to a switch, tunables and weights.
 */
DEFINE_MUTEX(fairq_sched_mutex);

bool fairq_change_held(void)
{
#ifdef CONFIG_LOCKDEP
	return lockdep_is_held(&fairq_sched_mutex);
#else
	return mutex_is_locked(&fairq_sched_mutex);	/* by someone: all that can be known */
#endif
}
EXPORT_SYMBOL_GPL(fairq_change_held);

/**
 * fairq_requeue_all - rebuild every pool's queue of policy @ops from scratch
 * @ops: the policy whose settings changed (nothing happens if it is not active)
 *
 * For settings that change how transports are grouped (a policy's key): each pool drains in
 * dispatch order, is re-initialised, and takes its transports back.  Called with
 * fairq_sched_mutex held.
 */
int fairq_requeue_all(const struct fairq_sched_ops *ops)
{
	struct fairq_serv *fs;
	struct fairq_pool *fp;

	lockdep_assert_held(&fairq_sched_mutex);
	if (fairq_active_sched() != ops)
		return 0;
	spin_lock_bh(&fairq_servs_lock);
	fairq_for_each_serv(fs) {
		fairq_for_each_pool(fp, fs) {
			spin_lock_bh(&fp->lock);
			if (fp->ops == ops)
				pool_switch(fp, ops, ops);
			spin_unlock_bh(&fp->lock);
			/*
			 * New settings can make held-back work servable at once (a cap lifted):
			 * idle threads take it now, not at the watchdog's next tick.
			 */
			smp_mb();
			fairq_pool_push_all(fp);
		}
	}
	spin_unlock_bh(&fairq_servs_lock);
	return 0;
}
EXPORT_SYMBOL_GPL(fairq_requeue_all);

/*
 * Queue @xprt, which was already waiting elsewhere (another policy's queue, another pool), on
 * @fp's policy: a policy that favours newly active clients must not take it for one.
 */
static void adopt(struct fairq_pool *fp, struct svc_xprt *xprt)
	__must_hold(&fp->lock)
{
	fairq_xprt_mark(xprt, fp->id, FAIRQ_PULL_SEES_DEQUEUE);
	fp->adopting = true;
	fp->ops->enqueue(fp, xprt);
	fp->adopting = false;
}

/*
 * Queue @list (in order) on @fs's pools, as work already waiting.  Used when a pool loses its
 * last thread.
 */
static void requeue_list(struct fairq_serv *fs, struct fairq_pool *from, struct fairq_xlist *list)
{
	unsigned int migrated = 0;
	struct svc_xprt *xprt;
	struct fairq_pool *fp;

	while ((xprt = fairq_xlist_pop(list))) {
		fp = fairq_home_pool(fs);
		spin_lock_bh(&fp->lock);
		/* marked before the control flags are read, as in fairq_enqueue() */
		/* a full barrier: pairs with close_flush() */
		fairq_xprt_mark(xprt, fp->id, FAIRQ_PULL_SEES_DEQUEUE);
		/*
		 * Control events (from the kernel queue) are the kernel's, as in fairq_enqueue();
		 * and a pool without threads (all are going) keeps nothing in a policy's queue.
		 */
		if (fp == from || !fp->ops || fairq_xprt_is_control(xprt) ||
		    !fairq_pool_threads(fp->pool)) {
			fairq_pool_feed_bypass(fp, xprt);
			spin_unlock_bh(&fp->lock);
			fairq_kq_kick(fp->pool, 1);
			continue;
		}
		adopt(fp, xprt);
		WRITE_ONCE(fp->nr_queued, fp->nr_queued + 1);
		spin_unlock_bh(&fp->lock);
		migrated++;
		/* as in fairq_enqueue(): publish, then look for an idle thread */
		smp_mb();
		fairq_pool_push(fp);
	}
	/* counted by the pool they left, under its own lock */
	spin_lock_bh(&from->lock);
	from->stats.migrated += migrated;
	spin_unlock_bh(&from->lock);
}

void fairq_context_exit(struct fairq_pool *fp, const struct task_struct *task)
{
	if (fairq_thread_forget(fp, task)) {
		/* that can make held work servable, and this context will not look for it */
		smp_mb();	/* as after an enqueue: publish, then look for an idle thread */
		fairq_pool_push(fp);
	}
}
EXPORT_SYMBOL_GPL(fairq_context_exit);

/**
 * fairq_thread_exiting - an nfsd thread is leaving (svc_exit_thread)
 * @rqstp: the thread
 *
 * When a pool loses its last thread (pool_threads lowered), the work it holds moves to pools
 * that still have threads, so nothing waits for a thread that will not come.
 */
void fairq_thread_exiting(struct svc_rqst *rqstp)
{
	struct fairq_xlist list, policy;
	struct fairq_serv *fs;
	struct fairq_pool *fp;
	unsigned int idx;

	fairq_xlist_init(&list);
	fairq_xlist_init(&policy);
	rcu_read_lock();
	fs = fairq_serv_lookup(rqstp->rq_server);
	if (!fs)
		goto out;
	idx = rqstp->rq_pool - rqstp->rq_server->sv_pools;
	if (idx >= fs->nr_pools)
		goto out;
	fp = fs->pools[idx];
	fairq_context_exit(fp, rqstp->rq_task);
	if (fs->nr_pools == 1 || fairq_pool_threads(fp->pool) > 1)
		goto out;
	spin_lock_bh(&fp->lock);
	WRITE_ONCE(fp->orphaned, true);
	if (fp->ops && fp->nr_queued) {
		struct fairq_xnode *node;

		fp->ops->drain(fp, &policy);
		WRITE_ONCE(fp->nr_queued, 0);
		/* no longer in this pool's queue: requeue_list() marks each where it goes */
		for (node = policy.head; node; node = node->next)
			fairq_xprt_unmark(fairq_xprt_of(node));
	}
	spin_unlock_bh(&fp->lock);
	/*
	 * The pool's kernel queue too: it can hold what this very thread's last look for work
	 * fed it (6.7+ asks the pull hook before it decides to stop), and what was waiting
	 * before.  Those were dispatched first, so they go first.
	 */
	fairq_kq_take_all(fp->pool, &list);
	if (list.len) {
		struct fairq_xnode *node;
		struct svc_xprt *xprt;

		/*
		 * Each was dispatched here once, and no thread of this pool will be seen with it
		 * (a further count, 6.1, is another pool's thread's, about to be seen)
		 */
		spin_lock_bh(&fp->lock);
		for (node = list.head; node; node = node->next) {
			xprt = fairq_xprt_of(node);
			fairq_pool_undispatch_locked(fp, xprt, fairq_xprt_end_dispatch(xprt));
		}
		spin_unlock_bh(&fp->lock);
	}
	fairq_xlist_splice(&list, &policy);
	requeue_list(fs, fp, &list);
out:
	rcu_read_unlock();
}

/**
 * fairq_serv_threads_changing - the number of nfsd threads of @serv is about to be set
 * @serv: a managed service
 * @to_none: to zero: its last thread goes, and nfsd then frees what requests use
 *
 * Going to zero, every request context a policy runs of its own for @serv finishes its
 * request and stops first, none starts again, and the queued work goes to nfsd's threads
 * while they are still there.  Sleeps.
 */
void fairq_serv_threads_changing(struct svc_serv *serv, bool to_none)
{
	struct fairq_serv *fs;
	unsigned int i;

	rcu_read_lock();
	fs = fairq_serv_lookup(serv);
	for (i = 0; fs && i < fs->nr_pools; i++) {
		spin_lock_bh(&fs->pools[i]->lock);
		WRITE_ONCE(fs->pools[i]->stopping, to_none);
		spin_unlock_bh(&fs->pools[i]->lock);
	}
	rcu_read_unlock();
	if (!fs || !to_none)
		return;
	serv_quiesce(serv);
	rcu_read_lock();
	fs = fairq_serv_lookup(serv);
	for (i = 0; fs && i < fs->nr_pools; i++)
		fairq_pool_push_all(fs->pools[i]);
	rcu_read_unlock();
}

/* Everything a pool holds goes to the kernel queue, in policy order; the policy is left. */
static void pool_drain_to_kernel(struct fairq_pool *fp)
	__must_hold(&fp->lock)
{
	unsigned int n;

	fairq_threads_free(fp);
	if (!fp->ops)
		return;
	n = fairq_pool_flush(fp);
	if (fp->ops->exit_pool)
		fp->ops->exit_pool(fp);
	WRITE_ONCE(fp->ops, NULL);
	WRITE_ONCE(fp->hold_until, 0);
	fairq_kq_kick(fp->pool, n);
}

/**
 * fairq_serv_destroyed - svc_destroy() is about to free @serv
 * @serv: any service
 *
 * By now svc_xprt_destroy_all() has closed every transport, which the close flush moved to the
 * kernel; anything still held here would be a fairq bug, and is handed over and reported.
 * Sleeps: returns once no reader can still see the service's pools through fairq.
 */
void fairq_serv_destroyed(struct svc_serv *serv)
{
	struct fairq_serv *fs;
	unsigned int i;

	fairq_serv_unwant(serv);
	fairq_serv_threads_changing(serv, true);
	fairq_test_sleep(FAIRQ_TEST_DELAY_SERV_UNLIST);
	fs = fairq_serv_unlist(serv);
	if (!fs)
		return;
	for (i = 0; i < fs->nr_pools; i++) {
		struct fairq_pool *fp = fs->pools[i];

		spin_lock_bh(&fp->lock);
		WARN_ONCE(fp->nr_queued, "fairq: %u transports held at service teardown\n",
			  fp->nr_queued);
		pool_drain_to_kernel(fp);
		spin_unlock_bh(&fp->lock);
	}
	synchronize_rcu();
	fairq_serv_free(fs);
}

/*
 * Move one pool from its policy to @new_ops, keeping every transport and its order.  With
 * @force equal to the current policy, rebuild it in place.
 */
static void pool_switch(struct fairq_pool *fp, const struct fairq_sched_ops *new_ops,
			const struct fairq_sched_ops *force)
	__must_hold(&fp->lock)
{
	struct fairq_xlist list;
	struct svc_xprt *xprt;

	if (fp->ops == new_ops && fp->ops != force)
		return;
	fairq_xlist_init(&list);
	if (fp->ops) {
		fp->ops->drain(fp, &list);
		WARN_ON_ONCE(list.len != fp->nr_queued);
		if (fp->ops->exit_pool)
			fp->ops->exit_pool(fp);
	}
	fairq_pool_set_ops(fp, new_ops);
	while ((xprt = fairq_xlist_pop(&list)))
		adopt(fp, xprt);
}

/**
 * fairq_servs_free - the switch to the kernel's dispatch, after the hooks are off
 *
 * Every service's state goes, once no reader can still see it.
 */
void fairq_servs_free(void)
{
	struct fairq_serv *fs, *tmp;
	LIST_HEAD(dead);

	lockdep_assert_held(&fairq_sched_mutex);
	fairq_servs_unlist_all(&dead);
	fairq_servs_alloc_stop();
	synchronize_rcu();
	list_for_each_entry_safe(fs, tmp, &dead, dead)
		fairq_serv_free(fs);
}

/**
 * fairq_switch - make @new_ops the active policy of every nfsd pool
 * @new_ops: a registered policy
 *
 * Called with fairq_sched_mutex held, with fairq's hooks as @new_ops needs them: the registry
 * turns them on before and off after (then calls fairq_servs_free()).  Native -> fairq:
 * services are picked up at their next enqueue.  fairq -> fairq: each pool's queue moves in
 * dispatch order.  fairq -> native: each pool hands its queue to the kernel in order, and no
 * work of fairq's own is left running.
 */
void fairq_switch(const struct fairq_sched_ops *new_ops)
{
	const struct fairq_sched_ops *old_ops = fairq_active_sched();
	bool to_native = new_ops->flags & FAIRQ_SCHED_NATIVE;
	struct fairq_serv *fs;
	struct fairq_pool *fp;

	lockdep_assert_held(&fairq_sched_mutex);
	if (new_ops == old_ops)
		return;
	if (old_ops->flags & FAIRQ_SCHED_NATIVE)
		goto set;

	spin_lock_bh(&fairq_servs_lock);
	fairq_active_set(new_ops);
	/*
	 * Once the hooks are off, svc_destroy() no longer says when a service goes: none may
	 * stay listed for the allocation work from here on.
	 */
	if (to_native)
		fairq_servs_unwant_all();
	fairq_for_each_serv(fs) {
		fairq_for_each_pool(fp, fs) {
			spin_lock_bh(&fp->lock);
			if (to_native)
				pool_drain_to_kernel(fp);
			else
				pool_switch(fp, new_ops, NULL);
			spin_unlock_bh(&fp->lock);
			if (!to_native)
				fairq_pool_push_all(fp);
		}
	}
	spin_unlock_bh(&fairq_servs_lock);
	/* contexts the old policy ran requests in finish them and go; before any pool is freed */
	if (old_ops->own)
		old_ops->own->quiesce(NULL);
	if (to_native) {
		fairq_servs_alloc_stop();
		fairq_watchdog_stop();
	}
	return;

set:
	spin_lock_bh(&fairq_servs_lock);
	fairq_active_set(new_ops);
	spin_unlock_bh(&fairq_servs_lock);
	if (!to_native)
		fairq_watchdog_start();
}

/**
 * fairq_core_init - what the core needs from the layers above it
 * @quiesce: stops the request contexts policies run of their own for a service (the
 *	registry's walk over every policy), before the service loses its last thread
 */
void fairq_core_init(void (*quiesce)(struct svc_serv *serv))
{
	serv_quiesce = quiesce;
}

void fairq_core_exit(void)
{
	fairq_watchdog_stop();
}
