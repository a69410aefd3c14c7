// SPDX-License-Identifier: GPL-2.0-only
/*
 * Thread records: which transport each nfsd thread of a pool works for, for policies that
 * charge a thread's work to what it serves (fairq_pool_track_threads()).  A record is made at
 * a thread's first look for work and lives as long as the thread; its token is the policy's,
 * given back with @uncharge when the thread next looks for work or leaves.
 */
#include <linux/hash.h>
#include <linux/kthread.h>
#include <linux/slab.h>
#include <linux/sched.h>
#include "mark.h"
#include "threads.h"
#include "testing.h"

/*
 * Pools whose policy tracks threads, over all services: lets the enqueue path skip looking for
 * a thread when none does, which is every pool unless a policy asks for it.
 */
atomic_t fairq_tracking_pools = ATOMIC_INIT(0);

static struct hlist_head *thread_bucket(struct fairq_pool *fp, const struct task_struct *task)
{
	return &fp->threads[hash_ptr(task, FAIRQ_THREAD_HASH_BITS)];
}

static struct fairq_thread *thread_find(struct fairq_pool *fp, const struct task_struct *task)
	__must_hold(&fp->lock)
{
	struct fairq_thread *t;

	hlist_for_each_entry(t, thread_bucket(fp, task), node) {
		if (t->task == task)
			return t;
	}
	return NULL;
}

/*
 * The policy's pool state is about to be left or rebuilt: the tokens its threads hold name
 * what it frees, so they are forgotten (not given back), and the pool stops tracking until the
 * next policy asks.  The records stay for the threads' lifetime.
 */
void fairq_threads_untrack(struct fairq_pool *fp)
	__must_hold(&fp->lock)
{
	struct fairq_thread *t;
	unsigned int i;

	if (!fp->track_threads)
		return;
	for (i = 0; i < ARRAY_SIZE(fp->threads); i++) {
		hlist_for_each_entry(t, &fp->threads[i], node)
			t->charge = NULL;
	}
	WRITE_ONCE(fp->track_threads, false);
	atomic_dec(&fairq_tracking_pools);
}

void fairq_threads_free(struct fairq_pool *fp)
	__must_hold(&fp->lock)
{
	struct fairq_thread *t;
	struct hlist_node *tmp;
	unsigned int i;

	fairq_threads_untrack(fp);
	for (i = 0; i < ARRAY_SIZE(fp->threads); i++) {
		hlist_for_each_entry_safe(t, tmp, &fp->threads[i], node) {
			hlist_del(&t->node);
			kfree(t);
		}
	}
}

/**
 * fairq_pool_track_threads - charge every thread's work to what the policy says
 * @fp: the pool (its lock held: call from init_pool)
 *
 * From now on the policy's @charge op is told which transport each of the pool's threads has
 * taken, and @uncharge when that thread is done with it.  For as long as the pool state lasts.
 */
void fairq_pool_track_threads(struct fairq_pool *fp)
	__must_hold(&fp->lock)
{
	if (fp->track_threads)
		return;
	WRITE_ONCE(fp->track_threads, true);
	atomic_inc(&fairq_tracking_pools);
}
EXPORT_SYMBOL_GPL(fairq_pool_track_threads);

u64 fairq_pool_untracked(const struct fairq_pool *fp)
{
	return READ_ONCE(fp->untracked);
}
EXPORT_SYMBOL_GPL(fairq_pool_untracked);

/*
 * The current thread of @fp has taken @xprt, or (@xprt NULL) is looking for work, which means
 * whatever it took before is over.  The first sighting of a transport charges it; a thread is
 * seen taking it at its look for work right after the dequeue (6.7+), or else at the first of
 * its svc_xprt_received() and the start of the request (6.1).  A record is created at a
 * thread's first look for work or first charge, never at a sighting that may come from any
 * task (FAIRQ_SEEN_GAVE_BACK): so on 6.1 the svc_xprt_received() of a thread's very first
 * transport, which yields no request when the record is still partial, finds the record.
 *
 * A thread seen with a transport that has dispatches on their way (mark.h), at its look for
 * work (6.7+) or its give-back (6.1), ends one of them.  Other work counts its thread from
 * that sighting, or from its request's start, but ends none: work fed around the policy
 * while it switched, or whose dispatch a close ended.  A connection to accept or to close that
 * a thread dequeues (6.7+) is the kernel's own path, no work of a key: dispatches it carried
 * end with no charge.  On 6.1 a give-back charges only if it ends a dispatch: a thread whose
 * dispatch a close ended is charged at its request's start, if one starts.
 * Returns the thread's token for @xprt, as fairq_thread_token_locked().
 */
void *fairq_thread_seen_locked(struct fairq_pool *fp, struct svc_xprt *xprt,
			       enum fairq_sighting where)
	__must_hold(&fp->lock)
{
	struct fairq_thread *t;
	bool dispatched;

	if (!fp->track_threads || !fp->ops)
		return NULL;
	if (where == FAIRQ_SEEN_LOOK && xprt && fairq_xprt_is_control(xprt)) {
		fairq_pool_undispatch_locked(fp, xprt, fairq_xprt_end_dispatches(xprt));
		xprt = NULL;
	}
	t = thread_find(fp, current);
	if (!xprt && t && t->charge) {
		fp->ops->uncharge(fp, t->charge);
		t->charge = NULL;
	}
	if (!t) {
		if (where == FAIRQ_SEEN_GAVE_BACK)
			return NULL;
		t = fairq_test_fail(FAIRQ_TEST_FAIL_THREAD) ? NULL :
		    kzalloc(sizeof(*t), GFP_ATOMIC | __GFP_NOWARN);
		if (!t) {
			WRITE_ONCE(fp->untracked, fp->untracked + 1);	/* read unlocked */
			return NULL;
		}
		t->task = current;
		hlist_add_head(&t->node, thread_bucket(fp, current));
	}
	if (xprt && !t->charge) {
		/*
		 * A start comes after the thread gave its transport back: a count then is of a
		 * later dispatch, on its way to another thread.
		 */
		dispatched = where != FAIRQ_SEEN_START && fairq_xprt_end_dispatch(xprt);
		if (dispatched || where != FAIRQ_SEEN_GAVE_BACK) {
			t->charge = fp->ops->charge(fp, xprt, dispatched);
			t->charged = xprt;
		}
	}
	return xprt && t->charged == xprt ? t->charge : NULL;
}

/*
 * What the current thread of @fp was charged for taking @xprt, NULL if it holds no charge for
 * that very transport: the policy then finds what @xprt's work counts against itself.  Saves
 * the request hooks a policy's own lookup, and they count against what the thread took even
 * if the transport's key changes while the request runs (an NFSv4.1 binding).
 */
void *fairq_thread_token_locked(struct fairq_pool *fp, const struct svc_xprt *xprt)
	__must_hold(&fp->lock)
{
	struct fairq_thread *t;

	if (!fp->track_threads)
		return NULL;
	t = thread_find(fp, current);
	return t && t->charge && t->charged == xprt ? t->charge : NULL;
}

/*
 * Whether the current task, a thread with a record, took @xprt.  The thread that accepts a
 * connection gives the new transport its first enqueue from svc_xprt_received() too: it was
 * handed the listener, not that transport, and charging it would spend a hand-off that is on
 * its way to another thread.  A record names a task only, so the task is checked to be the
 * service thread its kthread data says (as the 6.1 pull hook does).
 */
static bool current_took(const struct svc_xprt *xprt)
{
	const struct svc_rqst *rqstp;

	if (!(current->flags & PF_KTHREAD))
		return false;
	rqstp = kthread_data(current);
	return rqstp && rqstp->rq_task == current && rqstp->rq_xprt == xprt;
}

/*
 * 6.1's svc_xprt_received() sighting: the current task is one of @fs's threads, of a pool not
 * known here.  Its record is in its own pool: first @near, the one it runs near (its threads
 * are bound there in the percpu and pernode modes), then the others.
 */
void fairq_thread_seen_any(struct fairq_serv *fs, struct fairq_pool *near, struct svc_xprt *xprt)
{
	struct fairq_pool *fp;
	unsigned int i;
	bool found;

	for (i = 0; i <= fs->nr_pools; i++) {
		fp = i ? fs->pools[i - 1] : near;
		if ((i && fp == near) || !READ_ONCE(fp->track_threads))
			continue;
		spin_lock_bh(&fp->lock);
		found = thread_find(fp, current);
		if (found && current_took(xprt))
			fairq_thread_seen_locked(fp, xprt, FAIRQ_SEEN_GAVE_BACK);
		spin_unlock_bh(&fp->lock);
		if (found)
			return;
	}
}

/*
 * @task leaves: what its work was charged to is given back, and its record freed.  Returns
 * whether something was given back (held work may be servable now).
 */
bool fairq_thread_forget(struct fairq_pool *fp, const struct task_struct *task)
{
	struct fairq_thread *t;
	bool uncharged = false;

	spin_lock_bh(&fp->lock);
	t = thread_find(fp, task);
	if (t) {
		if (t->charge && fp->track_threads && fp->ops) {
			fp->ops->uncharge(fp, t->charge);
			uncharged = true;
		}
		hlist_del(&t->node);
		kfree(t);
	}
	spin_unlock_bh(&fp->lock);
	return uncharged;
}
