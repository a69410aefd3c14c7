// SPDX-License-Identifier: GPL-2.0-only
/*
 * fairq's state of each nfsd service: asked for by an enqueue that finds none, allocated in
 * process context, published on fairq_servs, and freed when the service goes or the kernel's
 * dispatch comes back.
 */
#include <linux/export.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <linux/sunrpc/svc.h>
#include <linux/sunrpc/svc_xprt.h>
#include "core.h"
#include "kq.h"
#include "servs.h"
#include "testing.h"
#include "threads.h"
#include "wake.h"
#include "mark.h"

LIST_HEAD(fairq_servs);
DEFINE_SPINLOCK(fairq_servs_lock);

/*
 * The policy every service's pools run.  Written under fairq_servs_lock (and
 * fairq_sched_mutex), with the pools switched over; read locklessly.
 */
static const struct fairq_sched_ops *fairq_active = &fairq_sched_fifo;

const struct fairq_sched_ops *fairq_active_sched(void)
{
	return READ_ONCE(fairq_active);
}

void fairq_active_set(const struct fairq_sched_ops *ops)
	__must_hold(&fairq_servs_lock)
{
	WRITE_ONCE(fairq_active, ops);
}

/* A pool's policy state, empty, for @ops (NULL: none, the kernel's dispatch). */
void fairq_pool_set_ops(struct fairq_pool *fp, const struct fairq_sched_ops *ops)
{
	fairq_threads_untrack(fp);
	memset(fp->priv, 0, sizeof(fp->priv));
	WRITE_ONCE(fp->hold_until, 0);
	fp->ops_since = ktime_get();
	WRITE_ONCE(fp->ops, ops);
	if (ops)
		ops->init_pool(fp);
}

/*
 * Services seen by an enqueue (softirq context) before fairq has state for them.  Their state
 * is allocated by a work item in process context, one pool at a time (no high-order atomic
 * allocation however many pools a service has); until it is there, their transports take the
 * kernel's own path.  A service stays alive while it is listed here: its teardown
 * (fairq_serv_destroyed()) and the switch to the kernel's dispatch take it off the list first,
 * under fairq_servs_lock, and then wait for the work.
 */
#define FAIRQ_SERVS_WANTED	16

struct serv_wanted {
	struct svc_serv *serv;
	struct net *net;
};

static struct serv_wanted servs_wanted[FAIRQ_SERVS_WANTED];
static unsigned long serv_alloc_retry_jiffies;
atomic_long_t fairq_servs_untracked = ATOMIC_LONG_INIT(0);
atomic_long_t fairq_serv_alloc_failures = ATOMIC_LONG_INIT(0);
static void serv_alloc_work_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(serv_alloc_work, serv_alloc_work_fn);

static struct serv_wanted *wanted_find(const struct svc_serv *serv)
	__must_hold(&fairq_servs_lock)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(servs_wanted); i++) {
		if (servs_wanted[i].serv == serv)
			return &servs_wanted[i];
	}
	return NULL;
}

/* Run the allocation work now, or when the retry delay after a failure ends. */
static void serv_alloc_schedule(void)
	__must_hold(&fairq_servs_lock)
{
	unsigned long delay = 0;

	if (time_before(jiffies, serv_alloc_retry_jiffies))
		delay = serv_alloc_retry_jiffies - jiffies;
	mod_delayed_work(fairq_percpu_wq, &serv_alloc_work, delay);
}

/*
 * Whether @serv is already asked for, without the lock: every enqueue of a service whose
 * state is on its way comes here, and must not queue on the global lock to learn it.  A stale
 * answer costs one more native enqueue, or one more look under the lock.
 */
static bool wanted_already(const struct svc_serv *serv)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(servs_wanted); i++) {
		if (READ_ONCE(servs_wanted[i].serv) == serv)
			return true;
	}
	return false;
}

/* Empty a slot of the table; lockless readers see its service go, never half of it. */
static void wanted_clear(struct serv_wanted *w)
	__must_hold(&fairq_servs_lock)
{
	WRITE_ONCE(w->serv, NULL);
	w->net = NULL;
}

/* Forget every wanted service (the switch to the kernel's dispatch). */
void fairq_servs_unwant_all(void)
	__must_hold(&fairq_servs_lock)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(servs_wanted); i++)
		wanted_clear(&servs_wanted[i]);
}

/* Ask for state for @xprt's service; its transports stay native until it exists. */
void fairq_serv_want(struct svc_xprt *xprt)
{
	struct svc_serv *serv = xprt->xpt_server;
	struct serv_wanted *w;

	if (wanted_already(serv))
		return;
	spin_lock_bh(&fairq_servs_lock);
	if (!wanted_find(serv) && !fairq_serv_lookup(serv) &&
	    !(fairq_active_sched()->flags & FAIRQ_SCHED_NATIVE)) {
		w = wanted_find(NULL);
		if (w) {
			w->net = xprt->xpt_net;
			WRITE_ONCE(w->serv, serv);
			serv_alloc_schedule();
		} else {
			atomic_long_inc(&fairq_servs_untracked);
		}
	}
	spin_unlock_bh(&fairq_servs_lock);
}

/* Forget a wanted service (it is going away). */
static void serv_unwant(const struct svc_serv *serv)
{
	struct serv_wanted *w;

	spin_lock_bh(&fairq_servs_lock);
	w = wanted_find(serv);
	if (w)
		wanted_clear(w);
	spin_unlock_bh(&fairq_servs_lock);
}

/*
 * @serv is going away: it is no longer asked for, and an allocation for it that is under way
 * has found it unwanted, or has published it, when this returns.  Sleeps.
 */
void fairq_serv_unwant(const struct svc_serv *serv)
{
	serv_unwant(serv);
	flush_delayed_work(&serv_alloc_work);
}

/* No allocation work runs after this returns (the switch to the kernel's dispatch). */
void fairq_servs_alloc_stop(void)
{
	cancel_delayed_work_sync(&serv_alloc_work);
}

void fairq_serv_free(struct fairq_serv *fs)
{
	unsigned int i;

	for (i = 0; i < fs->nr_pools && fs->pools[i]; i++) {
		fairq_test_freeing(fs->pools[i]);
		/* unlisted and without a policy: a pending call finds nothing, none comes after */
		hrtimer_cancel(&fs->pools[i]->wake_timer);
		kfree(fs->pools[i]);
	}
	kfree(fs->cpu_pool);
	kfree(fs);
}

static struct fairq_serv *serv_alloc(unsigned int n)
{
	struct fairq_serv *fs;
	unsigned int i;

	fs = kzalloc(struct_size(fs, pools, n + 1), GFP_KERNEL);	/* a NULL after the last */
	if (!fs)
		return NULL;
	fs->nr_pools = n;
	spin_lock_init(&fs->shared_lock);
	if (n > 1) {
		fs->cpu_pool = kmalloc_array(nr_cpu_ids, sizeof(*fs->cpu_pool), GFP_KERNEL);
		if (!fs->cpu_pool) {
			kfree(fs);
			return NULL;
		}
		memset(fs->cpu_pool, 0xff, nr_cpu_ids * sizeof(*fs->cpu_pool));	/* unknown */
	}
	for (i = 0; i < n; i++) {
		fs->pools[i] = kzalloc(sizeof(*fs->pools[i]), GFP_KERNEL);
		if (!fs->pools[i]) {
			fairq_serv_free(fs);
			return NULL;
		}
		fs->pools[i]->serv = fs;
		fairq_pool_wake_timer_init(fs->pools[i]);
	}
	return fs;
}

/*
 * Allocate the state of the first wanted service, then publish it if the service is still
 * wanted (neither torn down nor dropped by a switch to the kernel's dispatch meanwhile) and a
 * queueing policy is still active.  A failed allocation is counted and retried a second later.
 */
static void serv_alloc_work_fn(struct work_struct *work)
{
	static atomic_t next_id = ATOMIC_INIT(0);
	const struct fairq_sched_ops *ops;
	struct fairq_serv *fs;
	struct serv_wanted want = {}, *w;
	unsigned int i, n = 0;

	spin_lock_bh(&fairq_servs_lock);
	for (i = 0; i < ARRAY_SIZE(servs_wanted) && !want.serv; i++) {
		if (servs_wanted[i].serv) {
			want = servs_wanted[i];
			/* alive while listed: read it now */
			n = fairq_serv_nr_pools(want.serv);
		}
	}
	spin_unlock_bh(&fairq_servs_lock);
	if (!want.serv)
		return;
	if (WARN_ON_ONCE(n > FAIRQ_XPT_POOLS_MAX)) {
		/* more pools than a transport's mark can name: the service stays native */
		serv_unwant(want.serv);
		atomic_long_inc(&fairq_servs_untracked);
		return;
	}

	fs = fairq_test_fail(FAIRQ_TEST_FAIL_SERV) ? NULL : serv_alloc(n);
	spin_lock_bh(&fairq_servs_lock);
	w = wanted_find(want.serv);
	ops = fairq_active_sched();
	if (!fs) {
		atomic_long_inc(&fairq_serv_alloc_failures);
		serv_alloc_retry_jiffies = jiffies + HZ;
		pr_warn_ratelimited("no memory for the state of an nfsd service (%u pools): its transports keep the kernel's dispatch until a retry succeeds\n",
				    n);
	} else if (w && !fairq_serv_lookup(want.serv) && !(ops->flags & FAIRQ_SCHED_NATIVE)) {
		fs->serv = want.serv;
		fs->net = want.net;
		fs->id = atomic_inc_return(&next_id);
		for (i = 0; i < n; i++) {
			struct fairq_pool *fp = fs->pools[i];

			spin_lock_init(&fp->lock);
			fp->pool = &want.serv->sv_pools[i];
			fp->id = i;
			atomic_long_set(&fp->wakeups, 0);
			fairq_pool_set_ops(fp, ops);
		}
		list_add_tail_rcu(&fs->list, &fairq_servs);
		wanted_clear(w);
		fs = NULL;
	} else if (w) {
		wanted_clear(w);	/* nothing to do for it any more */
	}
	/* more services wanted (or this one again after a failure): run again */
	for (i = 0; i < ARRAY_SIZE(servs_wanted); i++) {
		if (servs_wanted[i].serv) {
			serv_alloc_schedule();
			break;
		}
	}
	spin_unlock_bh(&fairq_servs_lock);
	if (fs)
		fairq_serv_free(fs);
}

/*
 * @serv is going: its state leaves the list (readers under RCU may still stand on it) and is
 * returned for the caller to quiesce and free, or NULL if fairq had none.
 */
struct fairq_serv *fairq_serv_unlist(const struct svc_serv *serv)
{
	struct fairq_serv *fs;

	spin_lock_bh(&fairq_servs_lock);
	fs = fairq_serv_lookup(serv);
	if (fs)
		list_del_rcu(&fs->list);
	spin_unlock_bh(&fairq_servs_lock);
	return fs;
}

/*
 * Every service leaves the list, for the caller to free on @dead once no reader can see it:
 * readers (the watchdog, netlink dumps, debugfs) may still walk the list under RCU, so each
 * entry is unlinked with list_del_rcu(), and a reader standing on one keeps a valid ->next.
 * None is wanted for the allocation work any more either.
 */
void fairq_servs_unlist_all(struct list_head *dead)
{
	struct fairq_serv *fs, *tmp;

	spin_lock_bh(&fairq_servs_lock);
	fairq_servs_unwant_all();
	list_for_each_entry_safe(fs, tmp, &fairq_servs, list) {
		list_del_rcu(&fs->list);
		list_add(&fs->dead, dead);
	}
	spin_unlock_bh(&fairq_servs_lock);
}

/**
 * fairq_pools_walk - call @fn on each pool of every managed service until it returns true
 * @fn: called under RCU, with the pool and its service; must not sleep, may take the pool lock
 * @arg: for @fn
 *
 * Return: whether @fn returned true.
 */
bool fairq_pools_walk(fairq_pool_fn fn, void *arg)
{
	struct fairq_serv *fs;
	struct fairq_pool *fp;
	bool done = false;

	rcu_read_lock();
	fairq_for_each_serv(fs) {
		fairq_for_each_pool(fp, fs) {
			done = fn(fp, fs->serv, arg);
			if (done)
				goto out;
		}
	}
out:
	rcu_read_unlock();
	return done;
}
EXPORT_SYMBOL_GPL(fairq_pools_walk);
