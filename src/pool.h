/* SPDX-License-Identifier: GPL-2.0-only */
/* fairq's state of an nfsd service and of each of its pools. */
#ifndef _FAIRQ_POOL_H
#define _FAIRQ_POOL_H

#include <linux/atomic.h>
#include <linux/cache.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <fairq/sched.h>

struct svc_pool;
struct svc_serv;
struct net;
struct task_struct;

/*
 * The core's counters of a pool; each is only written under the pool's fairq lock (wakeups,
 * counted outside it, is struct fairq_pool's own).  A new one is a field here and a line in
 * fairq_pool_counter_defs (counters.c): debugfs, netlink (core-counter) and fairqctl show every
 * counter of that table by its name.
 */
struct fairq_pool_stats {
	u64 enqueued;		/* transports the policy took */
	u64 fed_pull;		/* handed to the kernel queue by a thread looking for work */
	u64 fed_push;		/* handed to the kernel queue with an idle thread woken for it */
	u64 fed_bypass;		/* handed over without the policy (closing, draining, no threads) */
	u64 close_flushes;	/* closed while queued: moved to the kernel queue at once */
	u64 rescues;		/* work the watchdog found stalled: each one is a bug */
	u64 migrated;		/* moved to another pool because this one lost its last thread */
#ifdef FAIRQ_TEST_RACES
	u64 test_lost_wakeups;	/* test builds: enqueue wakeups lost on purpose */
#endif
};

/* One of the core's counters of a pool: its name, its fixed netlink attribute, its field. */
struct fairq_pool_counter_def {
	const char *name;
	int attr;		/* FAIRQ_A_POOL_* of the first release, or 0: sent by name only */
	size_t offset;		/* in struct fairq_pool_stats */
};

extern const struct fairq_pool_counter_def fairq_pool_counter_defs[];
extern const unsigned int fairq_pool_nr_counters;

static inline u64 fairq_pool_stat(const struct fairq_pool_stats *st,
				  const struct fairq_pool_counter_def *def)
{
	return *(const u64 *)((const char *)st + def->offset);
}

/*
 * An nfsd thread of a pool that tracks threads, or that charges requests, and what its current
 * work is charged to (a token of the policy's @charge op; NULL between two pieces of work).
 * Keyed by the task: the thread's own context is all that some hook points (6.1's
 * svc_xprt_received) can see of it.
 */
struct fairq_thread {
	struct hlist_node node;
	const struct task_struct *task;
	void *charge;
	const struct svc_xprt *charged;	/* the transport @charge was given for */
	/* the thread's own, for a request's charge: lives as long as the record (thread exit) */
	const struct svc_rqst *rqstp;
	bool started;			/* @start saw a request of @charge, not yet ended */
};

#define FAIRQ_THREAD_HASH_BITS	5

/**
 * struct fairq_pool - fairq's state for one thread pool of one nfsd service
 * @lock: serialises the policy, the hand-off into the kernel queue, and switching.
 * @ops: the active policy, or NULL while the pool passes everything to the kernel.
 * @ops_since: when @ops's state was built (ktime_get()): a request read before that began under
 *	another state, and its start and end are not the new state's to count.
 * @pool: the sunrpc pool this shadows.
 * @nr_queued: transports the policy holds.
 * @orphaned: the pool lost its last thread; new work goes elsewhere until a thread returns.
 * @stopping: the service is stopping its threads: policies may not start contexts of their own
 *	(@kick), and work goes to nfsd's threads.
 * @progress: bumped on every hand-off; the watchdog compares it across ticks.
 * @watchdog_seen: @progress at the previous watchdog tick.
 * @watchdog_kq_seen: transports the kernel queue had taken in all at that tick (fairq's and
 *	the kernel's own).
 * @watchdog_stalls: consecutive watchdog ticks that found the pool stalled.
 * @stats: counters, see struct fairq_pool_stats.
 * @wakeups: threads fairq woke (counted outside the lock).
 * @hold_until: while the clock (ktime_get_ns) is before it, keep one thread idle for work the
 *	policy expects (fairq_pool_hold_thread()); 0 when not holding.
 * @hold_skips: hand-offs not made because they would have taken the held thread.
 * @track_threads: the policy charges each thread's work (its @charge op); see @threads.
 * @untracked: threads whose record could not be allocated: their work is never charged.
 * @unseen_ends: requests whose end no hook saw (a drop inside svc_process() on 6.12 and 7.3),
 *	ended when their thread was next seen (threads.c).
 * @threads: struct fairq_thread of the pool's threads seen while @track_threads, or that
 *	started a request under a policy that charges requests (threads.c), by task.
 * @serv: the service the pool belongs to.
 * @wake_timer: calls the policy's @tick at the time it asked for (fairq_pool_wake_at()).
 * @wake_at: that time (ktime_get_ns()), 0 when none is pending; under @lock.
 * @priv: the policy's per-pool state.
 */
struct fairq_pool {
	spinlock_t lock;	/* see above */
	const struct fairq_sched_ops *ops;
	ktime_t ops_since;
	struct svc_pool *pool;
	unsigned int id;
	unsigned int nr_queued;
	bool orphaned;
	bool stopping;
	bool adopting;		/* handing the policy transports that were already waiting */
	unsigned long progress;
	unsigned long watchdog_seen;
	u64 watchdog_kq_seen;
	unsigned int watchdog_stalls;
	struct fairq_pool_stats stats;
	atomic_long_t wakeups;
	u64 hold_until;
	atomic_long_t hold_skips;
	bool track_threads;
	u64 untracked;
	u64 unseen_ends;
	struct hlist_head threads[1 << FAIRQ_THREAD_HASH_BITS];
	struct fairq_serv *serv;
	struct hrtimer wake_timer;
	u64 wake_at;
	unsigned long priv[FAIRQ_SCHED_PRIV_BYTES / sizeof(unsigned long)];
} ____cacheline_aligned_in_smp;

/* fairq's shadow of one nfsd service (one per network namespace running nfsd). */
struct fairq_serv {
	struct list_head list;	/* in fairq_servs (RCU) */
	struct list_head dead;	/* unlinked, waiting for its readers before it is freed */
	struct svc_serv *serv;
	struct net *net;	/* the namespace of its transports; never dereferenced for reads */
	u32 id;			/* stable name for netlink and debugfs while fairq tracks it */
	unsigned int nr_pools;
	u16 *cpu_pool;		/* with several pools: the pool whose threads run on each CPU */
	/* fairq_pool_shared_lock(): for what a policy changes there other than by atomics */
	spinlock_t shared_lock;
	/* fairq_pool_shared(): what a policy shares among the pools */
	unsigned long shared[FAIRQ_SCHED_SHARED_BYTES / sizeof(unsigned long)]
		____cacheline_aligned;
	struct fairq_pool *pools[];	/* one allocation each, in process context; NULL after */
};

#endif /* _FAIRQ_POOL_H */
