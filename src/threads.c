// SPDX-License-Identifier: GPL-2.0-only
/*
 * Thread records: which transport each nfsd thread of a pool works for, for policies that
 * charge a thread's work to what it serves (fairq_pool_track_threads()).  A record is made at
 * a thread's first look for work and lives as long as the thread; its token is the policy's,
 * given back with @uncharge when the thread next looks for work or leaves.  A policy that
 * charges while the pool does not track threads has each request charged, from its start to
 * its end (fairq_request_charge_locked()), in a record made at the thread's first request.
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

/* A record for the current thread; NULL (counted) if it cannot be allocated. */
static struct fairq_thread *thread_add(struct fairq_pool *fp)
	__must_hold(&fp->lock)
{
	struct fairq_thread *t;

	t = fairq_test_fail(FAIRQ_TEST_FAIL_THREAD) ? NULL :
	    kzalloc(sizeof(*t), GFP_ATOMIC | __GFP_NOWARN);
	if (!t) {
		WRITE_ONCE(fp->untracked, fp->untracked + 1);	/* read unlocked */
		return NULL;
	}
	t->task = current;
	hlist_add_head(&t->node, thread_bucket(fp, current));
	return t;
}

/*
 * The policy's pool state is about to be left or rebuilt: the tokens its threads hold (for
 * what they took, or for the request they run) name what it frees, so they are forgotten
 * (not given back), and the pool stops tracking until the next policy asks.  The records stay
 * for the threads' lifetime.
 */
void fairq_threads_untrack(struct fairq_pool *fp)
	__must_hold(&fp->lock)
{
	struct fairq_thread *t;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(fp->threads); i++) {
		hlist_for_each_entry(t, &fp->threads[i], node) {
			t->charge = NULL;
			t->started = false;
		}
	}
	if (!fp->track_threads)
		return;
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
 * @t's request ended where no hook saw it: newer kernels (6.12, 7.3) drop a request inside
 * svc_process(), with svc_drop() inlined there.  If the policy's @start saw it, it ends now,
 * as a drop ends where the hooks see one, with the thread time unknown (0).  Its transport
 * may be gone by now: the policy is given the token alone.  The charge stays for the caller
 * to give back.
 */
static void request_end_unseen(struct fairq_pool *fp, struct fairq_thread *t)
	__must_hold(&fp->lock)
{
	if (!t->started)
		return;
	t->started = false;
	if (fp->ops->complete)
		fp->ops->complete(fp, NULL, 0, t->charge);
	WRITE_ONCE(fp->unseen_ends, fp->unseen_ends + 1);	/* read unlocked */
}

/* A request's own charge (a pool that does not track threads) goes, its request over. */
static void request_release(struct fairq_pool *fp, struct fairq_thread *t)
	__must_hold(&fp->lock)
{
	request_end_unseen(fp, t);
	fp->ops->uncharge(fp, t->charge);
	t->charge = NULL;
}

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
 * Returns the thread's token for @xprt, NULL if it holds none for that very transport.
 */
static void *thread_seen(struct fairq_pool *fp, struct svc_xprt *xprt, enum fairq_sighting where,
			 struct fairq_thread **found)
	__must_hold(&fp->lock)
{
	struct fairq_thread *t;
	bool dispatched;

	*found = NULL;
	if (!fp->track_threads || !fp->ops)
		return NULL;
	if (where == FAIRQ_SEEN_LOOK && xprt && fairq_xprt_is_control(xprt)) {
		fairq_pool_undispatch_locked(fp, xprt, fairq_xprt_end_dispatches(xprt));
		xprt = NULL;
	}
	t = thread_find(fp, current);
	if (!xprt && t && t->charge) {
		/* a request still started was dropped where no hook saw it (6.12, 7.3) */
		request_end_unseen(fp, t);
		fp->ops->uncharge(fp, t->charge);
		t->charge = NULL;
	}
	if (!t) {
		if (where == FAIRQ_SEEN_GAVE_BACK)
			return NULL;
		t = thread_add(fp);
		if (!t)
			return NULL;
	}
	*found = t;
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

void *fairq_thread_seen_locked(struct fairq_pool *fp, struct svc_xprt *xprt,
			       enum fairq_sighting where)
	__must_hold(&fp->lock)
{
	struct fairq_thread *t;

	return thread_seen(fp, xprt, where, &t);
}

/*
 * A request of @rqstp starts on the current thread of @fp: returns the policy's token for it,
 * as @start takes it.  A pool that tracks threads charged the thread at its take of the
 * transport (or does now, at its first sighting).  A pool that does not still has a policy
 * that charges (@charge) charged for the request alone, from its start to its end: so that
 * both settle on one token, found without a lookup of the policy's own, even if the
 * transport's key changes while the request runs (an NFSv4.1 binding).  Either way the
 * thread's record marks the request started if the policy's @start sees it (the caller's
 * rule, fairq_request_in_state()), so that a drop no hook sees ends it at the thread's next
 * look for work (a pool that tracks threads), its next request, its exit or the watchdog's
 * tick.  A request still marked started when the thread starts another is of such a drop:
 * that request is over, and ends first.
 */
void *fairq_request_charge_locked(struct fairq_pool *fp, struct svc_rqst *rqstp)
	__must_hold(&fp->lock)
{
	struct fairq_thread *t;
	void *token;

	if (fp->track_threads) {
		token = thread_seen(fp, rqstp->rq_xprt, FAIRQ_SEEN_START, &t);
		/* a request still marked started went on without a look for work: it ended */
		if (token)
			request_end_unseen(fp, t);
	} else {
		if (!fp->ops || !fp->ops->charge)
			return NULL;
		t = thread_find(fp, current) ?: thread_add(fp);
		if (!t)
			return NULL;
		if (t->charge)
			request_release(fp, t);
		token = fp->ops->charge(fp, rqstp->rq_xprt, false);
		t->charge = token;
		t->charged = rqstp->rq_xprt;
	}
	if (token) {
		t->rqstp = rqstp;
		t->started = fp->ops->start && fairq_request_in_state(fp, rqstp);
	}
	return token;
}

/*
 * The current thread's request of @rqstp ends: returns its token, as @complete takes it, NULL
 * if the thread holds none for that very transport (the policy then finds what the request
 * counts against itself).  In a pool that charges requests only, the thread lets go of the
 * token: the caller gives it back with fairq_request_uncharge_locked() once the policy has
 * settled the request.
 */
void *fairq_request_end_locked(struct fairq_pool *fp, const struct svc_rqst *rqstp)
	__must_hold(&fp->lock)
{
	struct fairq_thread *t;
	void *token;

	if (!fp->ops || !fp->ops->charge)
		return NULL;
	t = thread_find(fp, current);
	if (!t || !t->charge || t->charged != rqstp->rq_xprt)
		return NULL;
	t->started = false;
	token = t->charge;
	if (!fp->track_threads)
		t->charge = NULL;
	return token;
}

/* After fairq_request_end_locked(): a request's own token goes back to the policy. */
void fairq_request_uncharge_locked(struct fairq_pool *fp, void *token)
	__must_hold(&fp->lock)
{
	if (token && !fp->track_threads)
		fp->ops->uncharge(fp, token);
}

/*
 * From the watchdog: in a pool that charges requests, a thread that holds a request's token
 * but has left its transport (none now, or another one) is past that request, whose end went
 * unseen.  It ends here, else its key would count it in flight, and be kept busy and alive,
 * until the thread's next request.  A thread still in the request has its transport until
 * the reply is sent.  (A pool that tracks threads ends it at the thread's next look.)
 */
void fairq_threads_end_unseen_locked(struct fairq_pool *fp)
	__must_hold(&fp->lock)
{
	struct fairq_thread *t;
	unsigned int i;

	if (fp->track_threads || !fp->ops || !fp->ops->charge)
		return;
	for (i = 0; i < ARRAY_SIZE(fp->threads); i++) {
		hlist_for_each_entry(t, &fp->threads[i], node) {
			/* another thread's field, read racily: it only moves past the request */
			if (t->charge && data_race(READ_ONCE(t->rqstp->rq_xprt)) != t->charged)
				request_release(fp, t);
		}
	}
}

u64 fairq_pool_unseen_ends(const struct fairq_pool *fp)
{
	return READ_ONCE(fp->unseen_ends);
}
EXPORT_SYMBOL_GPL(fairq_pool_unseen_ends);

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
		if (t->charge && fp->ops) {
			/* it leaves between requests: a request still started is an unseen end */
			request_end_unseen(fp, t);
			fp->ops->uncharge(fp, t->charge);
			uncharged = true;
		}
		hlist_del(&t->node);
		kfree(t);
	}
	spin_unlock_bh(&fp->lock);
	return uncharged;
}
