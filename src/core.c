// SPDX-License-Identifier: GPL-2.0-only
/*
 * The dispatcher: where ready nfsd transports wait, and how they reach the threads.
 *
 * Ownership.  A transport whose XPT_BUSY bit fairq set, and which sits in a policy's queue, is
 * owned exactly as one sitting in the kernel's pool queue: nobody else queues it, ages it or
 * frees it.  fairq hands it to the kernel's pool queue one at a time, when a thread is about to
 * look for work (pull, from the thread-side hook) or when an idle thread can be woken for it
 * (push, after enqueue).  The unmodified nfsd loop then dequeues, processes, and calls
 * svc_xprt_received(), which clears XPT_BUSY and re-enters svc_xprt_enqueue(): back to us.
 *
 * Locking.  Each pool of each nfsd service has its own fairq lock (fairq_pool.lock), taken
 * with bottom halves off because enqueue runs from socket callbacks.  It covers the policy's
 * queue, the hand-off into the kernel queue (so the kernel queue only ever receives
 * transports in policy order) and the active policy pointer.  Lock order: fairq_servs_lock,
 * then fairq_pool.lock, then (6.1) the kernel's sp_lock.  The kernel never takes our locks.
 * fairq_servs_lock is taken only when a service is first seen, destroyed, or on a switch:
 * never per request.
 *
 * No lost wakeup.  An enqueuer publishes under the pool lock and then looks for an idle
 * thread (full barrier in between); a thread publishes itself idle and then, through the pull
 * hook, looks at the policy under the same lock.  One of the two sees the other.  The details
 * differ per kernel and live in kq.c.  A watchdog checks the claim: work held while a
 * thread sits idle with nothing to do, with no hand-off for two ticks in a row, is rescued and
 * counted.
 *
 * This file is the dispatch path alone (enqueue, feed, pull, push and the request hooks),
 * about 750 lines kept whole: each step's ordering pairs with another's in the argument above.
 * Switching, services, thread records, wake ops and the watchdog have files of their own.
 */
#include <linux/hash.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/jiffies.h>
#include <linux/workqueue.h>
#include <linux/sunrpc/svc.h>
#include <linux/sunrpc/svc_xprt.h>
#include "core.h"
#include "mark.h"
#include "kq.h"
#include "events.h"
#include "v4client.h"
#include "testing.h"
#include "servs.h"
#include "threads.h"
#include "wake.h"
#include "switch.h"
#include <fairq/trace.h>

atomic_long_t fairq_rescues_total = ATOMIC_LONG_INIT(0);

/* A thread fairq woke (counted outside the pool lock). */
static void count_wakeup(struct fairq_pool *fp)
{
	atomic_long_inc(&fp->wakeups);
}

void *fairq_pool_priv(struct fairq_pool *fp)
{
	return fp->priv;
}
EXPORT_SYMBOL_GPL(fairq_pool_priv);

void *fairq_pool_shared(struct fairq_pool *fp)
{
	return fp->serv->shared;
}
EXPORT_SYMBOL_GPL(fairq_pool_shared);

spinlock_t *fairq_pool_shared_lock(struct fairq_pool *fp)
{
	return &fp->serv->shared_lock;
}
EXPORT_SYMBOL_GPL(fairq_pool_shared_lock);

unsigned int fairq_pool_id(const struct fairq_pool *fp)
{
	return fp->id;
}
EXPORT_SYMBOL_GPL(fairq_pool_id);

unsigned int fairq_pool_nr_threads(const struct fairq_pool *fp)
{
	return fairq_pool_threads(fp->pool);
}
EXPORT_SYMBOL_GPL(fairq_pool_nr_threads);

unsigned int fairq_pool_serv_threads(const struct fairq_pool *fp)
{
	return READ_ONCE(fp->serv->serv->sv_nrthreads);
}
EXPORT_SYMBOL_GPL(fairq_pool_serv_threads);

unsigned int fairq_pool_serv_pools(const struct fairq_pool *fp)
{
	return fp->serv->nr_pools;
}
EXPORT_SYMBOL_GPL(fairq_pool_serv_pools);

bool fairq_pool_adopting(const struct fairq_pool *fp)
{
	return fp->adopting;
}
EXPORT_SYMBOL_GPL(fairq_pool_adopting);

spinlock_t *fairq_pool_lockp(struct fairq_pool *fp)
{
	return &fp->lock;
}
EXPORT_SYMBOL_GPL(fairq_pool_lockp);

bool fairq_pool_runs(const struct fairq_pool *fp, const struct fairq_sched_ops *ops)
	__must_hold(&fp->lock)
{
	lockdep_assert_held(&fp->lock);
	return fp->ops == ops;
}
EXPORT_SYMBOL_GPL(fairq_pool_runs);

bool fairq_pool_stopping(const struct fairq_pool *fp)
	__must_hold(&fp->lock)
{
	lockdep_assert_held(&fp->lock);
	return fp->stopping;
}
EXPORT_SYMBOL_GPL(fairq_pool_stopping);

unsigned int fairq_pool_nr_queued(const struct fairq_pool *fp)
	__must_hold(&fp->lock)
{
	lockdep_assert_held(&fp->lock);
	return fp->nr_queued;
}
EXPORT_SYMBOL_GPL(fairq_pool_nr_queued);

bool fairq_pool_kernel_queue_empty(const struct fairq_pool *fp)
{
	return fairq_kq_empty(fp->pool);
}
EXPORT_SYMBOL_GPL(fairq_pool_kernel_queue_empty);

struct svc_pool *fairq_pool_svc_pool(const struct fairq_pool *fp)
{
	return fp->pool;
}
EXPORT_SYMBOL_GPL(fairq_pool_svc_pool);

/* fairq's state of @xprt's service, or NULL (then asked for: the transport stays native). */
static struct fairq_serv *serv_get(struct svc_xprt *xprt)
{
	struct fairq_serv *fs = fairq_serv_lookup(xprt->xpt_server);

	if (likely(fs))
		return fs;
	fairq_serv_want(xprt);
	return NULL;
}

/*
 * The pool a transport waits in: the one whose threads run on this CPU, as learnt from them
 * (fairq_thread_pull()), which is the pool the kernel's own map picks for this CPU in the
 * percpu and pernode modes, whatever nodes exist; until a thread was seen here, a guess.
 * Pools that have no thread or just lost their last one are skipped.
 */
struct fairq_pool *fairq_home_pool(struct fairq_serv *fs)
{
	unsigned int i, start, n = fs->nr_pools, cpu;
	struct fairq_pool *fp;

	if (n == 1)
		return fs->pools[0];
	cpu = raw_smp_processor_id();
	start = READ_ONCE(fs->cpu_pool[cpu]);
	if (start >= n)
		start = (n == nr_node_ids ? numa_node_id() : cpu) % n;
	for (i = 0; i < n; i++) {
		fp = fs->pools[(start + i) % n];
		if (fairq_pool_threads(fp->pool) && !READ_ONCE(fp->orphaned))
			return fp;
	}
	return fs->pools[start];
}

/*
 * Hand one transport from the policy to the kernel queue of @fp's pool.  With @only_if_empty,
 * only if that queue is empty: a transport already there has a thread coming for it.
 */
static void trace_dispatch(struct fairq_pool *fp, struct svc_xprt *xprt, bool pull)
	__must_hold(&fp->lock)
{
	const struct fairq_key_id *key = NULL;
	s64 wait_ns = -1;

	if (fp->ops->keys && fp->ops->keys->picked)
		fp->ops->keys->picked(fp, &key, &wait_ns);
	trace_fairq_dispatch(fp->id, fp->nr_queued, xprt, pull, key, wait_ns);
}

static bool feed_one_locked(struct fairq_pool *fp, bool only_if_empty, u64 *counter)
	__must_hold(&fp->lock)
{
	struct svc_xprt *xprt = NULL;

	/*
	 * Queued work may wait on purpose (a key at its in-flight cap): the policy's pick says,
	 * without a has_work before it that would find the same transport twice.
	 */
	if (fp->ops && fp->nr_queued && (!only_if_empty || fairq_kq_empty(fp->pool))) {
		xprt = fp->ops->pick(fp);
		if (xprt) {
			/* where threads are counted, the first seen with it ends the dispatch */
			fairq_xprt_dispatch(xprt, fp->track_threads);
			WRITE_ONCE(fp->nr_queued, fp->nr_queued - 1);
			if (trace_fairq_dispatch_enabled())
				trace_dispatch(fp, xprt, counter == &fp->stats.fed_pull);
			fairq_kq_feed(fp->pool, xprt);
			WRITE_ONCE(fp->progress, fp->progress + 1);
			(*counter)++;
		}
	}
	return xprt;
}

/* Out of line, as it always was: the cost budget (make budget) probes it by name. */
static noinline bool feed_one(struct fairq_pool *fp, bool only_if_empty, u64 *counter)
{
	bool fed;

	spin_lock_bh(&fp->lock);
	fed = feed_one_locked(fp, only_if_empty, counter);
	spin_unlock_bh(&fp->lock);
	return fed;
}

/* Give a transport we own straight to the kernel queue of @fp's pool, bypassing the policy. */
void fairq_pool_feed_bypass(struct fairq_pool *fp, struct svc_xprt *xprt)
	__must_hold(&fp->lock)
{
	fairq_xprt_unmark(xprt);
	fairq_kq_feed(fp->pool, xprt);
	WRITE_ONCE(fp->progress, fp->progress + 1);
	fp->stats.fed_bypass++;
}

/* Everything @fp's policy holds goes to the kernel queue, in order; returns how many. */
unsigned int fairq_pool_flush(struct fairq_pool *fp)
	__must_hold(&fp->lock)
{
	struct fairq_xlist list;
	struct svc_xprt *xprt;
	unsigned int n;

	fairq_xlist_init(&list);
	fp->ops->drain(fp, &list);
	WARN_ON_ONCE(list.len != fp->nr_queued);
	n = list.len;
	while ((xprt = fairq_xlist_pop(&list)))
		fairq_pool_feed_bypass(fp, xprt);
	WRITE_ONCE(fp->nr_queued, 0);
	return n;
}

/*
 * A closing transport must reach the kernel queue at once: nfsd shutdown loops in
 * svc_xprt_destroy_all() until svc_clean_up_xprts() has found every transport in a kernel
 * pool queue, and a thread that dequeues it deletes it.
 */
static void close_flush(struct svc_xprt *xprt)
{
	unsigned int i, n, serv_threads = 0, tries;
	struct fairq_serv *fs;
	struct fairq_pool *fp;
	bool found;
	int idx;

	/* XPT_CLOSE was set before: pairs with the barrier of the mark in fairq_enqueue() */
	smp_mb();
	if (fairq_xprt_marked_pool(xprt) < 0)
		return;		/* a thread has it, or the kernel queue: the common case */
	fs = fairq_serv_lookup(xprt->xpt_server);
	if (!fs)
		return;
	for (i = 0; i < fs->nr_pools; i++)
		serv_threads += fairq_pool_threads(fs->pools[i]->pool);
	/*
	 * The mark names the pool; it changes only under the lock of the pool it names, so
	 * under that lock it is true.  A transport moving between pools meanwhile (a pool that
	 * lost its last thread) is looked for again where it went.
	 */
	for (tries = 0; tries < 8; tries++) {
		idx = fairq_xprt_marked_pool(xprt);
		if (idx < 0 || idx >= fs->nr_pools)
			return;
		fp = fs->pools[idx];
		n = 0;
		spin_lock_bh(&fp->lock);
		found = fp->ops && fairq_xprt_marked_pool(xprt) == idx;
		if (found && !serv_threads) {
			/*
			 * The service has no thread left (nfsd is shutting down, and closes every
			 * transport in turn): hand all the pool holds to the kernel at once.
			 */
			n = fairq_pool_flush(fp);
		} else if (found) {
			found = fp->ops->remove(fp, xprt);
			if (!WARN_ON_ONCE(!found)) {
				WRITE_ONCE(fp->nr_queued, fp->nr_queued - 1);
				fairq_pool_feed_bypass(fp, xprt);
				n = 1;
			}
		}
		if (found)
			fp->stats.close_flushes++;
		spin_unlock_bh(&fp->lock);
		fairq_kq_kick(fp->pool, n);
		if (found)
			return;
	}
}

/* Whether @fp's policy runs requests in contexts of its own (its work never waits for nfsd's). */
static bool pool_runs_own(struct fairq_pool *fp)
{
	const struct fairq_sched_ops *ops = READ_ONCE(fp->ops);

	return ops && ops->own;
}

/*
 * For policies that run requests in contexts of their own: start one for @fp's queued work
 * (@kick), or say whether one is idle, in *@answer.  Returns false when nfsd's threads serve
 * the pool instead: another policy, or the service is stopping (its work then goes to nfsd's
 * threads while they are still there).
 */
bool fairq_pool_ask_own(struct fairq_pool *fp, bool kick, bool *answer)
{
	const struct fairq_sched_ops *ops = READ_ONCE(fp->ops);
	bool own;

	if (!ops || !ops->own)
		return false;
	spin_lock_bh(&fp->lock);
	own = fp->ops == ops && !fp->stopping;
	if (own)
		*answer = kick ? fp->nr_queued && ops->own->kick(fp) : ops->own->has_idle(fp);
	spin_unlock_bh(&fp->lock);
	return own;
}

/* Queued work in @fp needs a context: start one.  Returns whether one was started. */
bool fairq_pool_push(struct fairq_pool *fp)
{
	bool started;

	if (fairq_pool_ask_own(fp, true, &started))
		return started;
	return !fairq_pool_hold_keeps(fp, NULL, false) && fairq_nfsd_push(fp);
}

/* Start contexts for all of @fp's queued work (each one takes one transport). */
void fairq_pool_push_all(struct fairq_pool *fp)
{
	unsigned int n = READ_ONCE(fp->nr_queued);

	while (n-- && fairq_pool_push(fp))
		;
}

/* A new connection, a close or a TLS handshake: events that keep the kernel's own path. */
bool fairq_xprt_is_control(const struct svc_xprt *xprt)
{
	unsigned long control = BIT(XPT_CONN) | BIT(XPT_CLOSE);

#ifdef FAIRQ_HAVE_XPT_HANDSHAKE
	control |= BIT(XPT_HANDSHAKE);
#endif
	return READ_ONCE(xprt->xpt_flags) & control;
}

static void enqueue_native(struct svc_xprt *xprt)
{
	svc_xprt_enqueue(xprt);
	/* keeps this a real call: a tail call would re-enter the redirect from sunrpc's caller */
	barrier();
}

/*
 * Whether the enqueue that holds @fp's lock hands the policy's next transport to an idle
 * thread itself, as fairq_pool_push() would after it, without taking the lock again.  Not for a
 * policy that runs contexts of its own, nor while a thread is held for anticipation: those
 * are fairq_pool_push()'s to decide.
 */
static bool enqueue_feeds(struct fairq_pool *fp)
	__must_hold(&fp->lock)
{
	return !fp->ops->own && !fairq_pool_holding(fp) && fairq_kq_feeds_then_wakes(fp->pool);
}

/**
 * fairq_pool_undispatch_locked - dispatches of @xprt end with no thread seen with them
 * @fp: the pool that made them
 * @xprt: a transport that closed, or that leaves the kernel queue of a pool without threads
 * @n: how many, already taken off its count (fairq_xprt_end_dispatch[es]())
 *
 * A thread that takes a closed transport only deletes it: its key would otherwise wait one
 * thread short of its cap for each.  Returns whether held work may be servable now.
 */
bool fairq_pool_undispatch_locked(struct fairq_pool *fp, struct svc_xprt *xprt, unsigned int n)
	__must_hold(&fp->lock)
{
	bool freed = false;

	if (!fp->track_threads || !fp->ops || !fp->ops->undispatch)
		return false;	/* counts of a state that counted before: stale, and gone */
	while (n--)
		freed |= fp->ops->undispatch(fp, xprt);
	return freed;
}

/*
 * A transport closes with dispatches on their way: they end here, before the connection's
 * key is forgotten, in the pool the mark names.  (On 6.7+ a thread that dequeues it first
 * ends them itself, at its look for work.)
 */
static void close_undispatch(struct svc_xprt *xprt)
{
	struct fairq_serv *fs;
	struct fairq_pool *fp;
	unsigned int idx;
	bool freed;

	/* the common case: seen on a thread already, or never counted */
	if (!(READ_ONCE(xprt->xpt_flags) & FAIRQ_XPT_DISPATCH_MASK))
		return;
	fs = fairq_serv_lookup(xprt->xpt_server);
	idx = fairq_xprt_mark_pool(xprt);
	if (!fs || idx >= fs->nr_pools)
		return;
	fp = fs->pools[idx];
	spin_lock_bh(&fp->lock);
	freed = fairq_pool_undispatch_locked(fp, xprt, fairq_xprt_end_dispatches(xprt));
	spin_unlock_bh(&fp->lock);
	if (freed) {
		/* publish before looking for an idle thread, as an enqueue does */
		smp_mb();
		fairq_pool_push(fp);
	}
}

/* A new connection, a close or a TLS handshake: the kernel's path, once fairq let go of it. */
static void enqueue_control(struct svc_xprt *xprt)
{
	if (test_bit(XPT_CLOSE, &xprt->xpt_flags)) {
		rcu_read_lock();
		close_flush(xprt);
		close_undispatch(xprt);
		fairq_v4client_forget(xprt);
		rcu_read_unlock();
	}
	enqueue_native(xprt);
}

static void thread_gave_back(struct svc_xprt *xprt)
{
	struct fairq_serv *fs;

	fairq_test_delay(FAIRQ_TEST_DELAY_GIVE_BACK);
	rcu_read_lock();
	fs = fairq_serv_lookup(xprt->xpt_server);
	if (fs)
		fairq_thread_seen_any(fs, fairq_home_pool(fs), xprt);
	rcu_read_unlock();
}

/**
 * fairq_enqueue - svc_xprt_enqueue() for nfsd transports, while a queueing policy is active
 * @xprt: the transport that may have work
 *
 * Called in place of the kernel's function (see hook.c), from softirq or process context.
 * Control events (new connection, close, TLS handshake) keep the kernel's own path.
 */
void fairq_enqueue(struct svc_xprt *xprt)
{
	struct fairq_serv *fs;
	struct fairq_pool *fp;
	bool fed;

	if (unlikely(fairq_xprt_is_control(xprt))) {
		enqueue_control(xprt);
		return;
	}
	/*
	 * A thread giving back the transport it read from (svc_xprt_received): on 6.1 the first
	 * place a thread is seen with what it took; later kernels saw it at the dequeue, so no
	 * lock is taken here for it.  Softirq callers are never threads.
	 */
	if (!FAIRQ_PULL_SEES_DEQUEUE && unlikely(fairq_threads_tracked()) &&
	    in_task())
		thread_gave_back(xprt);
	/* most calls find the transport busy, or without data: they need nothing more */
	if (!fairq_xprt_ready(xprt))
		return;
	rcu_read_lock();
	fs = serv_get(xprt);
	if (!fs)
		goto native;
	if (test_and_set_bit(XPT_BUSY, &xprt->xpt_flags))
		goto out;

	fp = fairq_home_pool(fs);
	if (FAIRQ_TEST_BUILD && fs->nr_pools > 1 &&
	    fairq_pool_threads(fp->pool) == 1)
		fairq_test_delay(FAIRQ_TEST_DELAY_LAST_THREAD);
	spin_lock_bh(&fp->lock);
	while (unlikely(READ_ONCE(fp->orphaned))) {
		/*
		 * It lost its last thread since fairq_home_pool() looked, and moved its work away
		 * (fairq_thread_exiting(), under this lock): nothing would serve it here.  Look
		 * again, unless no pool has a thread (fairq_home_pool() then names this one again).
		 */
		struct fairq_pool *next = fairq_home_pool(fs);

		if (next == fp)
			break;
		spin_unlock_bh(&fp->lock);
		fp = next;
		spin_lock_bh(&fp->lock);
	}
	/*
	 * Marked queued before XPT_CLOSE is tested: a close that sets XPT_CLOSE after the test
	 * then sees the mark (close_flush() searches under this lock), and one before is seen
	 * here.  The bypass clears the mark again.
	 */
	/* a full barrier: pairs with close_flush() */
	fairq_xprt_mark(xprt, fp->id, FAIRQ_PULL_SEES_DEQUEUE);
	if (unlikely(!fp->ops || test_bit(XPT_CLOSE, &xprt->xpt_flags))) {
		/* switching to native, or closed since the test above: no policy for it */
		fairq_pool_feed_bypass(fp, xprt);
		spin_unlock_bh(&fp->lock);
		fairq_kq_kick(fp->pool, 1);
		goto out;
	}
	fp->ops->enqueue(fp, xprt);
	WRITE_ONCE(fp->nr_queued, fp->nr_queued + 1);
	fp->stats.enqueued++;
	trace_fairq_enqueue(fp->id, fp->nr_queued, xprt);
	if (unlikely(fairq_test_fail(FAIRQ_TEST_FAIL_WAKEUP))) {
		/*
		 * test builds: this enqueue's wakeup is lost; the watchdog must find the work
		 * (under a policy that runs its own contexts, only once one of them is idle)
		 */
		fairq_test_lost_wakeup(fp);
		spin_unlock_bh(&fp->lock);
		goto out;
	}
	fed = enqueue_feeds(fp) && feed_one_locked(fp, true, &fp->stats.fed_push);
	spin_unlock_bh(&fp->lock);
	if (fed) {
		fairq_kq_wake_fed(fp->pool);
		count_wakeup(fp);
		goto out;
	}

	/* publish before looking for an idle thread; pairs with the thread's idle publication */
	smp_mb();
	fairq_pool_push(fp);
out:
	rcu_read_unlock();
	return;
native:
	rcu_read_unlock();
	enqueue_native(xprt);
}

/* Whether the running kernel's sunrpc does @feature by itself: see enum fairq_kernel_feature. */
bool fairq_kernel_has(enum fairq_kernel_feature feature)
{
	switch (feature) {
	case FAIRQ_KERNEL_WAKES_ONE_AT_A_TIME:
		return fairq_kq_wakes_one_at_a_time();
	}
	return false;
}
EXPORT_SYMBOL_GPL(fairq_kernel_has);

/*
 * Where a thread is claimed before work is fed to it (6.1): claiming obliges us to wake it, so
 * not for work the policy holds back on purpose (a key at its in-flight cap), or it wakes for
 * nothing, pulls nothing, and its pull wakes the next one for the same work, round and round.
 */
static bool nfsd_push_claimed(struct fairq_pool *fp)
{
	const struct fairq_sched_ops *ops = READ_ONCE(fp->ops);
	struct svc_pool *pool = fp->pool;
	struct svc_rqst *rqstp;
	bool fed = false, reserved;

	if ((!ops || !(ops->flags & FAIRQ_SCHED_ALWAYS_READY) || READ_ONCE(fp->track_threads)) &&
	    !fairq_pool_has_work(fp))
		return false;
	/* the work stays queued when the cap is reached: a running thread pulls it */
	reserved = fairq_waking_reserve(fp);
	if (!reserved)
		return false;
	rcu_read_lock();
	rqstp = fairq_kq_claim_idle(pool);
	if (rqstp) {
		fed = feed_one(fp, false, &fp->stats.fed_push);
		fairq_waking_commit(fp, rqstp->rq_task, reserved);
		fairq_kq_wake_claimed(pool, rqstp);
		count_wakeup(fp);
	} else {
		fairq_waking_commit(fp, NULL, reserved);
	}
	rcu_read_unlock();
	return fed;
}

/**
 * fairq_nfsd_push - hand one of @fp's queued transports to an idle nfsd thread
 * @fp: the pool
 *
 * Only when the kernel queue is empty: a queued transport already has a thread coming for it
 * (the woken one, or the thread that fed it), and that thread pulls the next one through the
 * hook when it dequeues, which keeps the policy's order instead of committing a backlog to
 * the kernel's FIFO.
 *
 * Return: whether a transport was handed over.
 */
bool fairq_nfsd_push(struct fairq_pool *fp)
{
	if (fairq_kq_claims_first())
		return nfsd_push_claimed(fp);
	if (!fairq_kq_has_idle(fp->pool) || !feed_one(fp, true, &fp->stats.fed_push))
		return false;
	fairq_kq_wake_fed(fp->pool);
	count_wakeup(fp);
	return true;
}
EXPORT_SYMBOL_GPL(fairq_nfsd_push);

/*
 * A context looks for work in a pool whose policy runs contexts of its own.  The policy learns
 * of the look (the context stops counting as on its way) in the same locked step that feeds it
 * a transport: between the two, the watchdog would see queued work, an idle context and none
 * on its way, and call it a lost wakeup.  If this context takes a transport the kernel queue
 * already had (a close, an accept), the queued work still needs one.
 */
static void own_pull(struct fairq_pool *fp, struct svc_rqst *rqstp)
{
	const struct fairq_sched_ops *ops;
	bool more;

	spin_lock_bh(&fp->lock);
	ops = fp->ops;
	if (ops && ops->own && ops->own->pulled)
		ops->own->pulled(fp, rqstp);
	more = !feed_one_locked(fp, true, &fp->stats.fed_pull) && fp->nr_queued;
	spin_unlock_bh(&fp->lock);
	if (more)
		fairq_pool_push(fp);
}

/**
 * fairq_thread_pull - a thread of @pool is about to look at its pool queue
 * @rqstp: the thread (on 6.1, whose hook point only sees the pool: the current kthread's data)
 * @pool: its pool
 *
 * Feeds one transport if the kernel queue is empty, so that the thread finds it.  May run
 * with the task already in TASK_IDLE: no sleeping; no allocation but a thread's record, once
 * (GFP_ATOMIC), in a pool whose policy tracks threads.
 */
void fairq_thread_pull(struct svc_rqst *rqstp, struct svc_pool *pool)
{
	struct fairq_serv *fs;
	struct fairq_pool *fp;
	unsigned int idx;

	rcu_read_lock();
	fs = fairq_serv_lookup(rqstp->rq_server);
	if (!fs)
		goto out;
	idx = pool - rqstp->rq_server->sv_pools;
	if (WARN_ON_ONCE(idx >= fs->nr_pools))
		goto out;
	fp = fs->pools[idx];
	if (unlikely(READ_ONCE(fp->orphaned)))
		WRITE_ONCE(fp->orphaned, false);	/* a thread is back */
	/* where this pool's threads run: enqueues on this CPU wait here (fairq_home_pool()) */
	if (fs->cpu_pool && READ_ONCE(fs->cpu_pool[raw_smp_processor_id()]) != idx)
		WRITE_ONCE(fs->cpu_pool[raw_smp_processor_id()], idx);
	/* with a transport: just dequeued (6.7+); without: whatever it had is over */
	if (rqstp->rq_task == current)
		fairq_thread_seen(fp, rqstp->rq_xprt, FAIRQ_SEEN_LOOK);
	/*
	 * A thread that has just dequeued (6.7+ asks again to wake a helper) only needs another
	 * transport fed if an idle thread can take it now.  Otherwise the next thread to finish
	 * pulls, and the policy still decides what it gets: a transport fed early would be
	 * committed to the kernel's FIFO ahead of work that arrives in the meantime.
	 */
	if (rqstp->rq_xprt && !fairq_kq_has_idle(pool))
		goto out;
	fairq_waking_ran(fp);
	/* the held thread sleeps on after its hold ran out: wake it (or another) for the queue */
	if (unlikely(fairq_pool_hold_ran_out(fp)) && READ_ONCE(fp->nr_queued))
		fairq_pool_push(fp);
	if (pool_runs_own(fp)) {
		own_pull(fp, rqstp);
		goto out;
	}
	if (READ_ONCE(fp->nr_queued) && !fairq_pool_hold_keeps(fp, rqstp, !rqstp->rq_xprt) &&
	    feed_one(fp, true, &fp->stats.fed_pull))
		fairq_kq_fed_by_self(pool, rqstp);
	/* a policy with wake ops clocks itself: a running thread that sees more wakes one */
	if (fairq_pool_wake_ops(fp) && READ_ONCE(fp->nr_queued))
		fairq_nfsd_push(fp);
	/*
	 * 6.1 has no wake-next chain of its own for our queue: two enqueues that each missed
	 * an idle thread share one SP_TASK_PENDING, and one thread consumes it.  The thread
	 * that pulled wakes another for what is still queued, as 6.7+'s svc_thread_wake_next()
	 * does through the same hook.
	 */
	else if (!FAIRQ_PULL_SEES_DEQUEUE && READ_ONCE(fp->nr_queued))
		fairq_pool_push(fp);
out:
	rcu_read_unlock();
}

/* The pool whose thread @rqstp is, if fairq tracks its service; under rcu_read_lock(). */
static struct fairq_pool *thread_pool(struct svc_rqst *rqstp)
{
	struct fairq_serv *fs = fairq_serv_lookup(rqstp->rq_server);
	unsigned int idx;

	if (!fs)
		return NULL;
	idx = rqstp->rq_pool - rqstp->rq_server->sv_pools;
	return idx < fs->nr_pools ? fs->pools[idx] : NULL;
}

/*
 * The policy of @fp (or NULL), read once for a request hook's test: a switch to fifo clears
 * the pool's policy under the pool lock while the hooks run without it, so a second read may
 * find none.
 */
static const struct fairq_sched_ops *request_hook_ops(struct fairq_pool *fp)
{
	const struct fairq_sched_ops *ops = fp ? READ_ONCE(fp->ops) : NULL;

	fairq_test_delay(FAIRQ_TEST_DELAY_REQUEST_HOOK);
	return ops;
}

/**
 * fairq_request_start - a thread of a managed service starts processing a request
 * @rqstp: the thread; rq_xprt is the request's transport
 *
 * Dispatches that yield no request (a partial record, a spurious wakeup) never get here, so
 * policies count requests, not hand-offs.
 */
void fairq_request_start(struct svc_rqst *rqstp)
{
	struct svc_xprt *xprt = rqstp->rq_xprt;
	const struct fairq_sched_ops *ops;
	struct fairq_pool *fp;
	void *token;

	if (!xprt)
		return;
	rcu_read_lock();
	fp = thread_pool(rqstp);
	ops = request_hook_ops(fp);
	if (ops && ops->start) {
		spin_lock_bh(&fp->lock);
		token = fairq_request_charge_locked(fp, rqstp);
		if (fp->ops && fp->ops->start && fairq_request_in_state(fp, rqstp))
			fp->ops->start(fp, xprt, token);
		spin_unlock_bh(&fp->lock);
	}
	rcu_read_unlock();
}

/**
 * fairq_request_done - a thread of a managed service is sending its reply
 * @rqstp: the thread; rq_xprt and rq_stime describe the request
 *
 * Lets cost-charging policies account the thread time the request really used.
 */
void fairq_request_done(struct svc_rqst *rqstp)
{
	struct svc_xprt *xprt = rqstp->rq_xprt;
	const struct fairq_sched_ops *ops;
	struct fairq_pool *fp;
	void *token;
	s64 ns;

	if (!xprt)
		return;
	rcu_read_lock();
	fp = thread_pool(rqstp);
	ops = request_hook_ops(fp);
	if (!ops || !ops->complete)
		goto out;
	ns = ktime_to_ns(ktime_sub(ktime_get(), rqstp->rq_stime));
	spin_lock_bh(&fp->lock);
	token = fairq_request_end_locked(fp, rqstp);
	if (fp->ops && fp->ops->complete && fairq_request_in_state(fp, rqstp))
		fp->ops->complete(fp, xprt, ns > 0 ? ns : 0, token);
	fairq_request_uncharge_locked(fp, token);
	spin_unlock_bh(&fp->lock);
out:
	rcu_read_unlock();
}

/* Whether @fp's policy would hand out a transport now; queued work may wait on purpose. */
bool fairq_pool_has_work(struct fairq_pool *fp)
{
	bool work;

	spin_lock_bh(&fp->lock);
	work = fp->ops && fp->nr_queued && fp->ops->has_work(fp);
	spin_unlock_bh(&fp->lock);
	return work;
}

/* The pool policy's own counters into @out (none without a policy). */
void fairq_pool_sched_counters(struct fairq_pool *fp, struct fairq_counters *out)
	__must_hold(&fp->lock)
{
	out->nr = 0;
	if (fp->ops && fp->ops->counters)
		fp->ops->counters(fp, out);
}
