/* SPDX-License-Identifier: GPL-2.0-only */
/* Internal declarations shared by the core, the hooks, sysfs and debugfs. */
#ifndef _FAIRQ_INTERNAL_H
#define _FAIRQ_INTERNAL_H

#include <linux/spinlock.h>
#include <linux/rculist.h>
#include <linux/atomic.h>
#include <fairq/sched.h>
#include "compat/compat.h"

struct notifier_block;

struct svc_serv;
struct svc_pool;
struct svc_rqst;

/* Per-pool counters; each is only written under the pool's fairq lock. */
struct fairq_pool_stats {
	u64 enqueued;		/* transports the policy took */
	u64 fed_pull;		/* handed to the kernel queue by a thread looking for work */
	u64 fed_push;		/* handed to the kernel queue with an idle thread woken for it */
	u64 fed_bypass;		/* handed over without the policy (closing, draining, no threads) */
	u64 close_flushes;	/* closed while queued: moved to the kernel queue at once */
	u64 rescues;		/* work the watchdog found stalled: each one is a bug */
	u64 migrated;		/* moved to another pool because this one lost its last thread */
	u64 overloads_avoided;	/* wakeups not made because max_waking threads were on their way */
	u64 wakers_expired;	/* woken threads that did not run within a second: cap released */
	u64 cap_waits;		/* a watchdog tick found work held back by the cap, a thread idle */
};

/* A thread fairq woke that has not run yet (the wake cap of the capped policy). */
struct fairq_waker {
	struct task_struct *task;
	unsigned long when;	/* jiffies */
};

/*
 * An nfsd thread of a pool that tracks threads, and what its current work is charged to (a
 * token of the policy's @charge op; NULL between two pieces of work).  Keyed by the task: the
 * thread's own context is all that some hook points (6.1's svc_xprt_received) can see of it.
 */
struct fairq_thread {
	struct hlist_node node;
	const struct task_struct *task;
	void *charge;
};

#define FAIRQ_THREAD_HASH_BITS	5

/**
 * struct fairq_pool - fairq's state for one thread pool of one nfsd service
 * @lock: serialises the policy, the hand-off into the kernel queue, and switching.
 * @ops: the active policy, or NULL while the pool passes everything to the kernel.
 * @pool: the sunrpc pool this shadows.
 * @nr_queued: transports the policy holds.
 * @orphaned: the pool lost its last thread; new work goes elsewhere until a thread returns.
 * @stopping: the service is stopping its threads: policies may not start contexts of their own
 *	(@kick), and work goes to nfsd's threads.
 * @progress: bumped on every hand-off; the watchdog compares it across ticks.
 * @watchdog_seen: @progress at the previous watchdog tick.
 * @watchdog_stalls: consecutive watchdog ticks that found the pool stalled.
 * @stats: counters, see struct fairq_pool_stats.
 * @wakeups: threads fairq woke (counted outside the lock).
 * @max_waking: the policy's cap on threads woken but not yet running (0: no cap).
 * @nr_waking: threads woken but not yet running, listed in @waking.
 * @hold_until: while the clock (ktime_get_ns) is before it, keep one thread idle for work the
 *	policy expects (fairq_pool_hold_thread()); 0 when not holding.
 * @hold_skips: hand-offs not made because they would have taken the held thread.
 * @track_threads: the policy charges each thread's work (its @charge op); see @threads.
 * @untracked: threads whose record could not be allocated: their work is never charged.
 * @threads: struct fairq_thread of the pool's threads seen while @track_threads, by task.
 * @priv: the policy's per-pool state.
 */
struct fairq_pool {
	spinlock_t lock;	/* see above */
	const struct fairq_sched_ops *ops;
	struct svc_pool *pool;
	unsigned int id;
	unsigned int nr_queued;
	bool orphaned;
	bool stopping;
	bool adopting;		/* handing the policy transports that were already waiting */
	unsigned long progress;
	unsigned long watchdog_seen;
	unsigned int watchdog_stalls;
	struct fairq_pool_stats stats;
	atomic_long_t wakeups;
	unsigned int max_waking;
	unsigned int nr_waking;
	struct fairq_waker waking[FAIRQ_WAKE_CAP_MAX];
	u64 hold_until;
	atomic_long_t hold_skips;
	bool track_threads;
	u64 untracked;
	struct hlist_head threads[1 << FAIRQ_THREAD_HASH_BITS];
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
	struct fairq_pool *pools[];	/* one allocation each, in process context */
};

/*
 * Only nfsd is dispatched by fairq; lockd and the NFS client's callback service stay native.
 * Every hook entry asks, several times per request: in line, without strcmp().
 */
static inline bool fairq_serv_is_managed(const struct svc_serv *serv)
{
	const char *name = serv ? serv->sv_name : NULL;

	return name && name[0] == 'n' && name[1] == 'f' && name[2] == 's' && name[3] == 'd' &&
	       !name[4];
}

/* core.c */
extern struct list_head fairq_servs;
extern spinlock_t fairq_servs_lock;
void fairq_enqueue(struct svc_xprt *xprt);
bool fairq_nfsd_push(struct fairq_pool *fp);
void fairq_pool_counters(struct fairq_pool *fp, struct fairq_counters *out);
void fairq_thread_pull(struct svc_rqst *rqstp, struct svc_pool *pool);
void fairq_serv_destroyed(struct svc_serv *serv);
void fairq_thread_exiting(struct svc_rqst *rqstp);
void fairq_serv_threads_changing(struct svc_serv *serv, bool to_none);
void fairq_request_start(struct svc_rqst *rqstp);
void fairq_request_done(struct svc_rqst *rqstp);
void fairq_switch(const struct fairq_sched_ops *new_ops);
void fairq_servs_free(void);
const struct fairq_sched_ops *fairq_active_sched(void);
void fairq_core_init(void (*quiesce)(struct svc_serv *serv));
void fairq_core_exit(void);
extern unsigned int fairq_watchdog_ms;
extern atomic_long_t fairq_serv_alloc_failures;
extern atomic_long_t fairq_servs_untracked;
extern atomic_long_t fairq_rescues_total;

/* registry.c */
int fairq_change_begin(void);
void fairq_change_end(void);
void fairq_changes_open_up(void);
int fairq_changes_close(void);
const struct fairq_sched_ops *fairq_sched_find(const char *name, size_t len);
bool fairq_sched_get(const struct fairq_sched_ops *ops);
void fairq_sched_put(const struct fairq_sched_ops *ops);
enum fairq_sched_change {
	FAIRQ_SCHED_REGISTERED,
	FAIRQ_SCHED_UNREGISTERED,
};

int fairq_scheds_subscribe(struct notifier_block *nb);
void fairq_scheds_unsubscribe(struct notifier_block *nb);
int fairq_sched_for_each(int (*fn)(const struct fairq_sched_ops *ops, void *arg), void *arg);
int fairq_sched_select(const char *name, size_t len);
void fairq_sched_quiesce(struct svc_serv *serv);
int fairq_tunable_set(const struct fairq_sched_ops *ops, const struct fairq_tunable *t, u64 val);
int fairq_failsafe_init(void);
void fairq_failsafe_exit(void);
extern unsigned int fairq_failsafe_rescues;
extern atomic_long_t fairq_failsafe_switches;
#define FAIRQ_FAILSAFE_WINDOW_S		10
#define FAIRQ_FAILSAFE_RESCUES_MAX	100000
struct fairq_event;
void fairq_tunable_changed(struct fairq_event *ev);
void fairq_weight_changed(const struct fairq_sched_ops *ops, const struct fairq_key_id *id,
			  u32 weight);
extern struct mutex fairq_sched_mutex;

/* hook.c */
int fairq_hooks_probe(void);
int fairq_hooks_enable(bool requests);
int fairq_hooks_requests(bool on);
bool fairq_hooks_refused_tracing_off(void);
void fairq_hooks_disable(void);
void fairq_hooks_release(void);
void fairq_hooks_wait_wrappers(void);

/* kq.c: the kernel's own pool queue and idle threads, version by version */
void fairq_kq_feed(struct svc_pool *pool, struct svc_xprt *xprt);
bool fairq_kq_empty(struct svc_pool *pool);
void fairq_kq_take_all(struct svc_pool *pool, struct fairq_xlist *out);
bool fairq_kq_has_idle(struct svc_pool *pool);
unsigned int fairq_kq_nr_idle(struct svc_pool *pool);
unsigned int fairq_kq_idle_others(struct svc_pool *pool, const struct svc_rqst *self,
				  unsigned int max);
bool fairq_kq_feeds_then_wakes(struct svc_pool *pool);
void fairq_kq_wake_fed(struct svc_pool *pool);
struct svc_rqst *fairq_kq_claim_idle(struct svc_pool *pool);
void fairq_kq_wake_claimed(struct svc_pool *pool, struct svc_rqst *rqstp);
bool fairq_kq_wakes_one_at_a_time(void);
void fairq_kq_kick(struct svc_pool *pool, unsigned int n);
bool fairq_xprt_ready(struct svc_xprt *xprt);
unsigned int fairq_serv_nr_pools(const struct svc_serv *serv);
unsigned int fairq_pool_threads(const struct svc_pool *pool);

/* sysfs.c, debugfs.c */
int fairq_sysfs_init(void);
void fairq_sysfs_exit(void);
void fairq_debugfs_init(void);
void fairq_debugfs_exit(void);

/* netlink.c */
int fairq_nl_init(void);
void fairq_nl_exit(void);

/* events.c: what changed, for the listeners of netlink's events group */
enum fairq_event_type {
	FAIRQ_EVENT_SWITCH,	/* the active scheduler changed */
	FAIRQ_EVENT_TUNABLE,	/* a tunable changed value */
	FAIRQ_EVENT_WEIGHT,	/* a key's weight was set, or restored to the default (0) */
	FAIRQ_EVENT_RESCUE,	/* the watchdog rescued a stalled transport */
};

struct fairq_event {
	u64 time_ns;		/* CLOCK_REALTIME */
	union {
		struct {
			const char *from, *to;
			const char *reason;	/* NULL: an admin's switch */
		} sw;
		struct {
			const char *sched;	/* NULL: a setting of fairq itself */
			const char *name;
			u64 value, previous;
		} tunable;
		struct {
			const char *sched;
			const struct fairq_key_id *id;
			u32 weight;
		} weight;
		struct {
			struct net *net;	/* the service's: only its listeners hear of it */
			u32 serv, pool;
			u64 rescues;	/* the pool's, this one included */
		} rescue;
	};
};

int fairq_events_subscribe(struct notifier_block *nb);
void fairq_events_unsubscribe(struct notifier_block *nb);
void fairq_event_announce(enum fairq_event_type type, struct fairq_event *ev);

/* v4client.c: which NFSv4.1 client owns a connection (and <fairq/sched.h>) */
void fairq_v4client_forget(const struct svc_xprt *xprt);
void fairq_v4client_stats(unsigned int *bound, u64 *skipped, u64 *refused, u64 *missed);
int fairq_v4client_init(void);
void fairq_v4client_exit(void);

/*
 * testing.c: test builds (make FAIRQ_TEST_RACES=y, the VM suite's fairq-races.ko) only.  Delays
 * that widen race windows, and allocations made to fail, each set by a module parameter of
 * that build; in every other build these compile to nothing.
 */
enum fairq_test_delay {
	FAIRQ_TEST_DELAY_SELECT,	/* a switch request, before it takes the mutex (sleeps) */
	FAIRQ_TEST_DELAY_WRAPPER,	/* the svc_destroy wrapper, before the real one (sleeps) */
	FAIRQ_TEST_DELAY_WRAPPER_EXIT,	/* a wrapper, after it said it is done */
	FAIRQ_TEST_DELAY_READER,	/* a reader of fairq_servs, on each service */
	FAIRQ_TEST_DELAY_WQ_START,	/* wq's manager, while it starts a worker (sleeps) */
	FAIRQ_TEST_DELAY_WQ_MANAGE,	/* wq's manager, before it takes its mutex (sleeps) */
	FAIRQ_TEST_DELAY_SERV_UNLIST,	/* a quiesced service, before it is unlisted (sleeps) */
	FAIRQ_TEST_DELAY_WQ_RUN,	/* a wq worker, from deciding to run to its look (sleeps) */
	FAIRQ_TEST_DELAY_LAST_THREAD,	/* an enqueue, from choosing a pool down to its last thread
					 * (of several pools) to taking that pool's lock
					 */
	FAIRQ_TEST_DELAYS
};

enum fairq_test_fail {
	FAIRQ_TEST_FAIL_SERV,		/* a service's state */
	FAIRQ_TEST_FAIL_THREAD,		/* a thread record */
	FAIRQ_TEST_FAIL_V4BINDING,	/* an NFSv4.1 binding */
	FAIRQ_TEST_FAIL_WQ_WORKER,	/* a wq worker's request context */
	FAIRQ_TEST_FAIL_WAKEUP,		/* an enqueue's wakeup, lost: for the watchdog to find */
	FAIRQ_TEST_FAILS
};

#ifdef FAIRQ_TEST_RACES
#define FAIRQ_TEST_BUILD	true
void fairq_test_delay(enum fairq_test_delay which);
void fairq_test_sleep(enum fairq_test_delay which);
void fairq_test_wrapper_tail(void);
void fairq_test_unload_check(void);
void fairq_test_using(const void *obj);
void fairq_test_freeing(const void *obj);
bool fairq_test_fail(enum fairq_test_fail which);
#else
#define FAIRQ_TEST_BUILD	false
static inline void fairq_test_delay(enum fairq_test_delay which)
{
	(void)which;
}

static inline void fairq_test_sleep(enum fairq_test_delay which)
{
	(void)which;
}

static inline void fairq_test_wrapper_tail(void) { }
static inline void fairq_test_unload_check(void) { }

static inline void fairq_test_using(const void *obj)
{
	(void)obj;
}

static inline void fairq_test_freeing(const void *obj)
{
	(void)obj;
}

static inline bool fairq_test_fail(enum fairq_test_fail which)
{
	(void)which;
	return false;
}
#endif

#endif /* _FAIRQ_INTERNAL_H */
