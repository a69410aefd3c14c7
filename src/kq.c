// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel side of the hand-off: sunrpc's own pool queue, its idle threads and its readiness
 * rule, for each generation of sunrpc.  Everything here uses exported functions, header inlines
 * and public fields only: no kallsyms, no calls into sealed (IBT) sunrpc internals.
 *
 * 6.1 (before the 6.7 rework): sp_sockets list under sp_lock; a thread is idle when RQ_BUSY is
 * clear, and whoever sets RQ_BUSY on an idle thread owns the duty to wake it.
 * 6.7+: sp_xprts lwq; idle threads on the sp_idle_threads llist; svc_pool_wake_idle_thread()
 * wakes the first idle thread unless it is already running.
 */
#include <linux/sched.h>
#include <linux/sunrpc/svc.h>
#include <linux/sunrpc/svc_xprt.h>
#include "kq.h"
#include "compat/conn_limit.h"

unsigned int fairq_serv_nr_pools(const struct svc_serv *serv)
{
#ifdef FAIRQ_HAVE_SVC_SERV_NRPOOLS
	return svc_serv_nrpools(serv);
#else
	return serv->sv_nrpools;
#endif
}

unsigned int fairq_pool_threads(const struct svc_pool *pool)
{
	return READ_ONCE(pool->sp_nrthreads);
}

static struct fairq_conn_limit conn_limit;

/*
 * sunrpc's svc_xprt_ready() for data: whether a transport with pending requests may be handed
 * to a thread now.  Control events never reach here (the core passes them to the kernel).
 */
bool fairq_xprt_ready(struct svc_xprt *xprt)
{
	unsigned long flags;

	smp_rmb();	/* pairs with the writers of xpt_flags, wspace and xpt_nr_rqsts */
	flags = READ_ONCE(xprt->xpt_flags);
	if (flags & BIT(XPT_BUSY))
		return false;
	if (!(flags & (BIT(XPT_DATA) | BIT(XPT_DEFERRED))))
		return false;
	return xprt->xpt_ops->xpo_has_wspace(xprt) && fairq_conn_limit_allows(&conn_limit, xprt);
}

#ifdef FAIRQ_HAVE_LWQ_POOL

void fairq_kq_feed(struct svc_pool *pool, struct svc_xprt *xprt)
{
	percpu_counter_inc(&pool->sp_sockets_queued);
#ifdef FAIRQ_HAVE_XPT_QTIME
	/* 7.x reports queue time in the dequeue tracepoint: count it from the hand-off. */
	xprt->xpt_qtime = ktime_get();
#endif
	lwq_enqueue(&xprt->xpt_ready, &pool->sp_xprts);
}

bool fairq_kq_empty(struct svc_pool *pool)
{
	return lwq_empty(&pool->sp_xprts);
}

/*
 * Take every transport waiting in @pool's kernel queue, oldest first (a pool that lost its
 * last thread: nobody would dequeue them).  Process context, as lwq's consumer must be.
 */
void fairq_kq_take_all(struct svc_pool *pool, struct fairq_xlist *out)
{
	struct llist_node *n = lwq_dequeue_all(&pool->sp_xprts), *next;

	for (; n; n = next) {
		next = n->next;
		fairq_xlist_push(out, container_of(n, struct svc_xprt, xpt_ready.node));
	}
}

bool fairq_kq_has_idle(struct svc_pool *pool)
{
	return READ_ONCE(pool->sp_idle_threads.first);
}

/*
 * For reports only: a thread leaves the idle llist only from its head, and each walk is bounded
 * by the pool's thread count, so a list changing under the walk only makes the count approximate.
 * svc_rqst is freed after an RCU grace period.
 */
unsigned int fairq_kq_nr_idle(struct svc_pool *pool)
{
	unsigned int n = 0, max = fairq_pool_threads(pool);
	struct llist_node *ln;

	rcu_read_lock();
	for (ln = READ_ONCE(pool->sp_idle_threads.first); ln && n < max; ln = READ_ONCE(ln->next))
		n++;
	rcu_read_unlock();
	return n;
}

/* Idle threads of @pool other than @self, counted up to @max (a thread holds for anticipation). */
unsigned int fairq_kq_idle_others(struct svc_pool *pool, const struct svc_rqst *self,
				  unsigned int max)
{
	unsigned int n = 0, left = fairq_pool_threads(pool);
	struct llist_node *ln;

	rcu_read_lock();
	for (ln = READ_ONCE(pool->sp_idle_threads.first); ln && n < max && left;
	     ln = READ_ONCE(ln->next), left--) {
		if (!self || ln != &self->rq_idle)
			n++;
	}
	rcu_read_unlock();
	return n;
}

/*
 * An enqueue that sees an idle thread may hand a transport to the kernel queue under the
 * pool's fairq lock it already holds, and wake a thread afterwards: here a woken thread takes
 * whatever the queue holds.  One lock round fewer per request than fairq_nfsd_push().
 */
bool fairq_kq_feeds_then_wakes(struct svc_pool *pool)
{
	return fairq_kq_has_idle(pool);
}

void fairq_kq_wake_fed(struct svc_pool *pool)
{
	svc_pool_wake_idle_thread(pool);
}

struct svc_rqst *fairq_kq_claim_idle(struct svc_pool *pool)
{
	WARN_ON_ONCE(1);
	return NULL;
}

void fairq_kq_wake_claimed(struct svc_pool *pool, struct svc_rqst *rqstp)
{
	WARN_ON_ONCE(1);
}

/* 6.7+ wakes at most one thread per pool at a time already: a cap of one adds nothing. */
bool fairq_kq_wakes_one_at_a_time(void)
{
	return true;
}

/* After handing over @n transports without a policy: the woken thread chains to the rest. */
void fairq_kq_kick(struct svc_pool *pool, unsigned int n)
{
	if (n)
		svc_pool_wake_idle_thread(pool);
}

/*
 * @self fed the kernel queue from its own look for work.  On its second look it is already on
 * the idle list (in TASK_IDLE), and leaves the list only from its head: behind a thread that
 * looked before the feed and went to sleep, it sleeps too, leaving the work to that thread
 * (sunrpc's rule: work appears with a wakeup of the head, and a policy's work can become ready
 * with time alone).  Wake the head then.
 */
void fairq_kq_fed_by_self(struct svc_pool *pool, struct svc_rqst *self)
{
	if (!task_is_running(current) &&
	    READ_ONCE(pool->sp_idle_threads.first) != &self->rq_idle)
		svc_pool_wake_idle_thread(pool);
}

/*
 * Work in the kernel queue while the idle list's head sleeps: sunrpc wakes the head for every
 * transport it queues, so nobody is coming (a lost wakeup).  svc_rqst is freed after an RCU
 * grace period.
 */
bool fairq_kq_stalled(struct svc_pool *pool)
{
	struct llist_node *ln;
	bool stalled = false;

	if (lwq_empty(&pool->sp_xprts))
		return false;
	rcu_read_lock();
	ln = READ_ONCE(pool->sp_idle_threads.first);
	if (ln) {
		struct task_struct *task = llist_entry(ln, struct svc_rqst, rq_idle)->rq_task;

		/* preempted in its look (still TASK_IDLE, on a run queue), or frozen: not lost */
		stalled = !task_is_running(task) && !READ_ONCE(task->on_rq) &&
			  !(READ_ONCE(task->__state) & TASK_FROZEN);
	}
	rcu_read_unlock();
	return stalled;
}

/* Transports the kernel queue has taken since the pool was created (for the watchdog). */
u64 fairq_kq_queued(struct svc_pool *pool)
{
	return percpu_counter_sum(&pool->sp_sockets_queued);
}

#else /* 6.1: sp_sockets + RQ_BUSY */

void fairq_kq_feed(struct svc_pool *pool, struct svc_xprt *xprt)
{
	atomic_long_inc(&pool->sp_stats.packets);
	spin_lock_bh(&pool->sp_lock);
	list_add_tail(&xprt->xpt_ready, &pool->sp_sockets);
	pool->sp_stats.sockets_queued++;
	spin_unlock_bh(&pool->sp_lock);
}

bool fairq_kq_empty(struct svc_pool *pool)
{
	return list_empty_careful(&pool->sp_sockets);
}

/* Take every transport waiting in @pool's kernel queue, oldest first (see the 6.7+ version). */
void fairq_kq_take_all(struct svc_pool *pool, struct fairq_xlist *out)
{
	struct svc_xprt *xprt;

	spin_lock_bh(&pool->sp_lock);
	while ((xprt = list_first_entry_or_null(&pool->sp_sockets, struct svc_xprt, xpt_ready))) {
		list_del_init(&xprt->xpt_ready);
		fairq_xlist_push(out, xprt);
	}
	spin_unlock_bh(&pool->sp_lock);
}

bool fairq_kq_has_idle(struct svc_pool *pool)
{
	struct svc_rqst *rqstp;
	bool idle = false;

	rcu_read_lock();
	list_for_each_entry_rcu(rqstp, &pool->sp_all_threads, rq_all) {
		if (!test_bit(RQ_BUSY, &rqstp->rq_flags)) {
			idle = true;
			break;
		}
	}
	rcu_read_unlock();
	return idle;
}

/* For reports only: a thread is idle while its RQ_BUSY is clear. */
unsigned int fairq_kq_nr_idle(struct svc_pool *pool)
{
	struct svc_rqst *rqstp;
	unsigned int n = 0;

	rcu_read_lock();
	list_for_each_entry_rcu(rqstp, &pool->sp_all_threads, rq_all) {
		if (!test_bit(RQ_BUSY, &rqstp->rq_flags))
			n++;
	}
	rcu_read_unlock();
	return n;
}

/* Idle threads of @pool other than @self, counted up to @max (a thread holds for anticipation). */
unsigned int fairq_kq_idle_others(struct svc_pool *pool, const struct svc_rqst *self,
				  unsigned int max)
{
	struct svc_rqst *rqstp;
	unsigned int n = 0;

	rcu_read_lock();
	list_for_each_entry_rcu(rqstp, &pool->sp_all_threads, rq_all) {
		if (n >= max)
			break;
		if (rqstp != self && !test_bit(RQ_BUSY, &rqstp->rq_flags))
			n++;
	}
	rcu_read_unlock();
	return n;
}

/*
 * A 6.1 thread decides to sleep by testing SP_TASK_PENDING and sp_sockets after clearing its
 * RQ_BUSY; that test is inlined and cannot be hooked.  Publishing pending work before looking
 * for an idle thread closes the window: either we see the thread idle and claim it, or it sees
 * the flag, skips the sleep, and its next dequeue pulls through our hook.  A spurious flag costs
 * one extra pass through svc_recv().
 */
struct svc_rqst *fairq_kq_claim_idle(struct svc_pool *pool)
	__must_hold(RCU)
{
	struct svc_rqst *rqstp;

	set_bit(SP_TASK_PENDING, &pool->sp_flags);
	/* the flag is visible before we read RQ_BUSY; pairs with svc_get_next_xprt()'s barrier */
	smp_mb__after_atomic();
	list_for_each_entry_rcu(rqstp, &pool->sp_all_threads, rq_all) {
		if (!test_and_set_bit(RQ_BUSY, &rqstp->rq_flags))
			return rqstp;
	}
	return NULL;
}

/* Setting RQ_BUSY on an idle thread makes us the one who must wake it, work or not. */
void fairq_kq_wake_claimed(struct svc_pool *pool, struct svc_rqst *rqstp)
	__must_hold(RCU)
{
	atomic_long_inc(&pool->sp_stats.threads_woken);
	rqstp->rq_qtime = ktime_get();
	wake_up_process(rqstp->rq_task);
}

/* A thread must be claimed (its RQ_BUSY set) before work is fed for it. */
bool fairq_kq_feeds_then_wakes(struct svc_pool *pool)
{
	return false;
}

/* Never called here (see above); a claim after the feed would break the rule of claiming. */
void fairq_kq_wake_fed(struct svc_pool *pool)
{
	WARN_ON_ONCE(1);
}

/* Before 6.7 every enqueue woke another idle thread: a wake cap changes something here. */
bool fairq_kq_wakes_one_at_a_time(void)
{
	return false;
}

/* A 6.1 thread looks for work with RQ_BUSY set and dequeues right after: it takes what it fed. */
void fairq_kq_fed_by_self(struct svc_pool *pool, struct svc_rqst *self)
{
}

/* Each transport fed here had a thread claimed for it first (fairq_kq_claim_idle()). */
bool fairq_kq_stalled(struct svc_pool *pool)
{
	return false;
}

/* Unused here (fairq_kq_stalled() is never true): no read of sp_stats without sp_lock. */
u64 fairq_kq_queued(struct svc_pool *pool)
{
	return 0;
}

/* 6.1 wakes one thread per queued transport, as its own enqueue does. */
void fairq_kq_kick(struct svc_pool *pool, unsigned int n)
{
	struct svc_rqst *rqstp;

	rcu_read_lock();
	while (n--) {
		rqstp = fairq_kq_claim_idle(pool);
		if (!rqstp)
			break;
		fairq_kq_wake_claimed(pool, rqstp);
	}
	rcu_read_unlock();
}

#endif
