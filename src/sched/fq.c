// SPDX-License-Identifier: GPL-2.0-only
/*
 * fq: per-client fair queueing of nfsd threads.
 *
 * Transports are grouped by key (client address by default; subnet or connection by tunable),
 * and keys share the pool's threads by deficit round robin over the thread time their requests
 * really used: a key pays its recent average cost per request when a request starts
 * (svc_process), and the difference when it completes (svc_send).  A hand-off that yields no
 * request (a partial record) costs nothing.  A client of 1 MiB WRITEs and a client of GETATTRs
 * thus get equal thread time, not equal calls, and a client's share no longer grows with the
 * number of connections it opens: each key is one DRR flow, however many transports it has.
 *
 * Latency floor without starvation (fq_codel's new-flow list, with a burst allowance): a key
 * that becomes active after being idle (nothing queued and nothing in flight) joins the "new"
 * list, served first, for one quantum; it also gets an allowance of burst_ms of the whole
 * pool's thread time.  A user's command is a burst of calls, not one (a directory walk, a build
 * step), and one quantum only speeds the first few; so after its first turn the key goes on in
 * the "burst" list, served after new keys but before the "old" rotation, even as its transports
 * come back from the threads, until the allowance is spent.  A key that never idles (a
 * backlog, a deep window on one connection) gets the allowance once: being busy never earns
 * priority.  While old keys wait, at most new_burst consecutive dispatches go to new and
 * bursting keys, so however many clients burst at once, the rotation keeps 1/(new_burst + 1)
 * of the dispatches.
 *
 * Every key has its own object (no shared buckets: an unlucky client never shares another's
 * turn), allocated at its first appearance (GFP_ATOMIC, under the pool lock).  If that fails,
 * the transport goes to the pool's overflow key, which always exists.  Keys are freed after
 * being idle for idle_secs; all key accesses happen under the pool lock, so a plain kfree is
 * safe.  Which key a transport belongs to, and its weight from the rules set over netlink,
 * come from the key model every keyed policy shares (keys.h).
 *
 * The keys of a pool are in a table that grows with them without rehashing, and that a
 * netlink dump walks one skb at a time (keytab.h); it keeps its size until the pool is
 * rebuilt.
 *
 * QoS classes (classes.h) put keys together under limits held for the whole service: a key of
 * a limited class books each start from its class's clocks (or, limited per key, its own),
 * shared by the service's pools, and waits off the rotation (paced) until the start falls due.
 *
 * This file stays whole (about 1000 lines): the rotation, the burst allowance, the per-key
 * cap, pacing and anticipation are one state machine over the same key fields, each step
 * deciding with the others' state under the pool lock; split, each part would reach into
 * the others.
 */
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/hash.h>
#include <linux/jhash.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/sunrpc/svc_xprt.h>
#include <fairq/sched.h>
#include <fairq/trace.h>
#include "classes.h"
#include "keys.h"
#include "keytab.h"

enum fq_list { FQ_IDLE, FQ_NEW, FQ_BURST, FQ_OLD, FQ_HELD, FQ_PACED };

struct fq_key {
	struct fairq_keytab_node entry;	/* in the pool's table, by the hash of @id */
	struct list_head link;		/* new, burst, old, held, paced or idle list */
	struct fairq_xlist queue;
	struct fairq_key_id id;
	u8 list;			/* enum fq_list */
	bool token:1;			/* holds a start of its limited class (admit_or_pace()) */
	bool active:1;			/* its weight is in its class's weight with work */
	bool waiting:1;			/* counted in its class's keys with work (reservation) */
	u16 weight;			/* at most FAIRQ_CLASS_WEIGHT_MAX */
	u32 in_flight;
	u32 handed;			/* dispatched, not yet seen on a thread (cap) or started */
	u32 occupied;			/* threads working for it (cap) or in its requests */
	u32 think_us;			/* moving average: last reply to next request */
	u32 handed_xprt;		/* the transport of the last dispatch (handed_id()) */
	unsigned long handed_at;	/* jiffies of the last dispatch */
	s64 deficit;			/* ns of thread time it may still use this round */
	s64 burst_left;			/* ns it may still use ahead of the rotation */
	u64 avg_cost;			/* ns, moving average per request */
	u64 dispatches;
	u64 thread_ns;
	unsigned long idle_since;	/* jiffies */
	unsigned long last_busy;	/* jiffies of the last request start or completion */
	u64 done_ns;			/* when its last request in flight ended (anticipation) */
	u64 waiting_ns;			/* tracing only: waiting for a turn since (0: unknown) */
	struct fairq_class_ref cls;
	u64 start_ns;			/* ... booked for then */
	u64 due_ns;			/* paced until then: its start, or its class's ceiling */
	u64 paced_at;			/* when it began to wait for that start */
	struct fairq_key_clock *key_clock;	/* its state in the service (classes.h) */
};

/*
 * The key a transport was last dispatched for, by transport: the thread that takes it (with a
 * cap), or starts its request (without), is charged to that key without a lookup of its own,
 * so a request costs one hash, at its enqueue.  Each dispatch is charged once: the charge
 * empties the slot, and a transport whose slot is empty or another's is looked up.  With a
 * cap the charge comes before the transport can be queued again, so it is that very dispatch's
 * key; without, a later dispatch of a busy connection may have taken the slot first, whose key
 * differs only if the connection was bound to an NFSv4.1 client in between.  Entries naming a
 * key are cleared before it is freed (gc_idle()).
 */
#define FQ_MEMO_BITS	5

struct fq_memo {
	const struct svc_xprt *xprt;
	struct fq_key *key;
};

struct fq_pool {
	struct fairq_keytab keys;
	struct list_head new_keys;
	struct list_head burst_keys;	/* past their first turn, allowance left */
	/*
	 * The rotation: one list while classes do not share the threads as classes (all
	 * keys in [0]), else one per class slot, in @old_busy (set as a list gets a key,
	 * cleared as it is found empty)
	 */
	struct list_head old_keys[FAIRQ_CLASSES_MAX];
	u32 old_busy;
	bool classes_shared;		/* fairq_classes_shared() when the pool was built */
	/*
	 * its keys share their classes' time with the service's other pools (key_ahead()):
	 * the service has several pools, or the classes share the threads as classes
	 */
	bool keys_shared;
	bool reserving;			/* the last next_list() served a class's reservation */
	bool passed_ahead;		/* a key ahead was passed over since the last pick */
	u64 vfloor;			/* the vtime of the class last served from the rotation */
	struct list_head idle_keys;	/* oldest first */
	struct list_head held_keys;	/* at their in-flight cap, with work queued */
	struct list_head paced_keys;	/* waiting for their class's limit, with work queued */
	struct fq_key overflow;		/* when a key cannot be allocated */
	unsigned int new_run;		/* consecutive dispatches to new keys */
	unsigned int ahead_run;		/* consecutive dispatches to new or bursting keys */
	u64 alloc_failures;
	u64 holds;			/* turns skipped because a key was at its cap */
	u64 paced;			/* turns deferred because a key's class was at its limit */
	u64 lost_handoffs;		/* hand-offs never seen on a thread, let go after 1 s */
	u64 cap_overruns;		/* threads that took work of a key past its cap */
	u64 handoffs_returned;		/* hand-offs ended with no thread seen (a close) */
	u64 turns_overspent;		/* turns over before they began: the key was in debt */
	u64 keys_ahead;			/* dispatches to another class: the key was ahead */
	u32 cap;			/* max_inflight when the pool state was built (0: none) */
	u64 bursts;			/* allowances given to keys back from idle */
	u64 avg_cost;			/* ns, moving average of the pool's requests */
	struct fq_key *antic_key;	/* the key a thread is held for; compared, never followed */
	u64 anticipations;		/* threads held for a key's next request */
	u64 anticipation_hits;		/* ... that came while the thread was still held */
	unsigned int id;		/* the pool's, for tracepoints */
	struct fq_key *picked;		/* the last dispatch's key: valid until the lock drops */
	s64 picked_wait_ns;		/* how long it had waited (-1: unknown or not tracing) */
	struct fq_memo memo[1 << FQ_MEMO_BITS];
};

/*
 * Settings, global to the policy; changed with fairq's change lock held.  Their values at
 * load are also the tunables' defaults, which a reset writes back.
 */
#define FQ_DEF_KEY		FAIRQ_KEY_TYPE_ADDR
#define FQ_DEF_PREFIX4		24
#define FQ_DEF_PREFIX6		64
#define FQ_DEF_QUANTUM_US	10000
#define FQ_DEF_NEW_BURST	32
#define FQ_DEF_BURST_MS		200
#define FQ_DEF_IDLE_SECS	10

static u32 fq_key_type = FQ_DEF_KEY;
static u32 fq_prefix4 = FQ_DEF_PREFIX4;
static u32 fq_prefix6 = FQ_DEF_PREFIX6;
static u32 fq_quantum_us = FQ_DEF_QUANTUM_US;
/*
 * Measured in make bench's scenario 2 (T=8, D=10 ms, docs/fq.md): 200 ms of the pool
 * carries a burst of 128 calls (160 ms of an idle pool), and with 32 ahead of each turn of the
 * rotation bursts of 32 to 128 calls end within 1.15x of their idle-pool time (16: 1.24x).
 */
static u32 fq_new_burst = FQ_DEF_NEW_BURST;
static u32 fq_burst_ms = FQ_DEF_BURST_MS;
static u32 fq_idle_secs = FQ_DEF_IDLE_SECS;
static u32 fq_max_inflight;		/* 0: no cap */
static u32 fq_anticipate_us;		/* 0: off */

static struct fairq_weights __rcu *fq_weights;
static struct fairq_classes __rcu *fq_classes;

static struct fq_pool *fqp(struct fairq_pool *fp)
{
	BUILD_BUG_ON(sizeof(struct fq_pool) > FAIRQ_SCHED_PRIV_BYTES);
	BUILD_BUG_ON(sizeof(struct fq_key) > 256);	/* the per-key budget */
	BUILD_BUG_ON(FAIRQ_WEIGHT_MAX > U16_MAX || FAIRQ_CLASS_WEIGHT_MAX > U16_MAX);
	return fairq_pool_priv(fp);
}

/*
 * DRR is fair and O(1) only while a turn's allowance covers a typical request: with 100 ms
 * requests and a 10 ms quantum a key would need many turns per request, and the bound on
 * debt would cut heavy requests' cost short, unequally between weights.  So a weight-1
 * turn is quantum_us or the pool's average request cost, whichever is larger.
 */
static u64 quantum_ns(const struct fq_pool *p, const struct fq_key *k)
{
	u64 q = (u64)READ_ONCE(fq_quantum_us) * NSEC_PER_USEC;

	return max_t(u64, q, p->avg_cost) * k->weight;
}

/*
 * A newly active key's allowance ahead of the rotation: burst_ms of every thread of the pool,
 * so that it scales with the pool, and at least one turn (burst_ms 0 is fq_codel's one quantum).
 */
static s64 burst_ns(struct fairq_pool *fp, const struct fq_pool *p, const struct fq_key *k)
{
	u64 pool_ns = (u64)READ_ONCE(fq_burst_ms) * NSEC_PER_MSEC *
		      max_t(unsigned int, 1, fairq_pool_nr_threads(fp));

	return max_t(u64, pool_ns, quantum_ns(p, k));
}

/* The key @xprt belongs to now, and its address key if @addr_id is not NULL. */
static void fq_key_of(struct svc_xprt *xprt, struct fairq_key_id *id, struct fairq_key_id *addr_id)
{
	fairq_key_of(xprt, READ_ONCE(fq_key_type), READ_ONCE(fq_prefix4), READ_ONCE(fq_prefix6),
		     id, addr_id);
}

static u32 fq_key_hash(const struct fairq_key_id *id)
{
	return jhash(id, sizeof(*id), 0);
}

static void fq_key_init(struct fq_key *k, const struct fairq_key_id *id,
			const struct fairq_key_id *addr_id)
{
	INIT_LIST_HEAD(&k->link);
	fairq_xlist_init(&k->queue);
	k->id = *id;
	k->list = FQ_IDLE;
	u32 key_weight;

	fairq_class_of(&fq_classes, id, addr_id, &k->cls, &key_weight);
	k->weight = key_weight ?: fairq_weight_of(&fq_weights, id, addr_id);
	k->avg_cost = (u64)READ_ONCE(fq_quantum_us) * NSEC_PER_USEC / 4;
	k->idle_since = jiffies;
}

static struct fq_key *fq_key_find(struct fq_pool *p, const struct fairq_key_id *id, u32 hash)
{
	struct fq_key *k;

	fairq_keytab_for_each_possible(&p->keys, k, entry, hash) {
		if (k->entry.hash == hash && !memcmp(&k->id, id, sizeof(*id)))
			return k;
	}
	return NULL;
}

static void fq_key_release(struct fq_key *k)
{
	if (k->key_clock)
		fairq_key_clock_put(k->key_clock);
	kfree(k);
}

static struct fq_memo *memo_slot(struct fq_pool *p, const struct svc_xprt *xprt)
{
	return &p->memo[hash_ptr(xprt, FQ_MEMO_BITS)];
}

/* @k is about to be freed: no entry may name it. */
static void memo_forget(struct fq_pool *p, const struct fq_key *k)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(p->memo); i++) {
		if (p->memo[i].key == k) {
			p->memo[i].xprt = NULL;
			p->memo[i].key = NULL;
		}
	}
}

/* Free at most a couple of long-idle keys per call: constant work on the hot path. */
static void gc_idle(struct fq_pool *p)
{
	unsigned long limit = READ_ONCE(fq_idle_secs) * HZ;
	struct fq_key *k;
	int n;

	for (n = 0; n < 2 && !list_empty(&p->idle_keys); n++) {
		k = list_first_entry(&p->idle_keys, struct fq_key, link);
		if (time_before(jiffies, k->idle_since + limit))
			break;
		/*
		 * a request with no token (its thread had no record) that was dropped where no
		 * hook sees it never completes: "in flight" for that long is stale
		 */
		if (k->in_flight && time_before(jiffies, k->last_busy + limit))
			break;
		/*
		 * a thread still works for it (stuck in slow storage), or has not yet been seen
		 * to leave a request it dropped: its token names the key
		 */
		if (k->occupied) {
			k->idle_since = jiffies;
			list_move_tail(&k->link, &p->idle_keys);
			continue;
		}
		list_del(&k->link);
		fairq_keytab_del(&p->keys, &k->entry);
		memo_forget(p, k);
		fq_key_release(k);
	}
}

/*
 * The key of @xprt, created if need be; *@created says whether it was (false for overflow).
 * A key whose class limits each key, or whose pool shares its keys' time with the service
 * (keys_shared), holds its clock in the service from then on.
 */
static struct fq_key *fq_key_get(struct fairq_pool *fp, struct fq_pool *p, struct svc_xprt *xprt,
				 bool *created)
{
	struct fairq_key_id id, addr_id;
	struct fq_key *k;
	u32 hash;

	*created = false;
	if (unlikely(!fairq_keytab_ready(&p->keys)) && !fairq_keytab_alloc(&p->keys)) {
		p->alloc_failures++;
		return &p->overflow;
	}
	fq_key_of(xprt, &id, &addr_id);
	hash = fq_key_hash(&id);
	k = fq_key_find(p, &id, hash);
	if (k)
		return k;
	k = kzalloc(sizeof(*k), GFP_ATOMIC | __GFP_NOWARN);
	if (!k) {
		p->alloc_failures++;
		return &p->overflow;
	}
	fq_key_init(k, &id, &addr_id);
	if (p->keys_shared || (k->cls.per_key && (k->cls.interval_ns || k->cls.limit_pct))) {
		k->key_clock = fairq_key_clock_get(fairq_pool_shared(fp),
						   fairq_pool_shared_lock(fp), &id, hash, &k->cls);
		/*
		 * Without one it books from its class's clock (rate_clock()), and shares its
		 * class's time pool by pool (key_ahead()): counted.
		 */
		if (!k->key_clock)
			p->alloc_failures++;
	}
	k->entry.hash = hash;
	fairq_keytab_add(&p->keys, &k->entry);
	list_add_tail(&k->link, &p->idle_keys);
	*created = true;
	return k;
}

static void fq_init_pool(struct fairq_pool *fp)
{
	struct fq_pool *p = fqp(fp);
	struct fairq_key_id none = { .type = FAIRQ_KEY_TYPE_ADDR };
	unsigned int i;

	INIT_LIST_HEAD(&p->new_keys);
	INIT_LIST_HEAD(&p->burst_keys);
	for (i = 0; i < FAIRQ_CLASSES_MAX; i++)
		INIT_LIST_HEAD(&p->old_keys[i]);
	p->classes_shared = fairq_classes_shared(&fq_classes);
	p->keys_shared = p->classes_shared || fairq_pool_serv_pools(fp) > 1;
	INIT_LIST_HEAD(&p->idle_keys);
	INIT_LIST_HEAD(&p->held_keys);
	INIT_LIST_HEAD(&p->paced_keys);
	fq_key_init(&p->overflow, &none, &none);
	list_del_init(&p->overflow.link);
	p->id = fairq_pool_id(fp);
	/* a cap counts threads, not requests: the core says which thread works for whom */
	p->cap = READ_ONCE(fq_max_inflight);
	if (p->cap)
		fairq_pool_track_threads(fp);
}

static void fq_key_free(struct fairq_keytab_node *entry)
{
	fq_key_release(container_of(entry, struct fq_key, entry));
}

static void fq_exit_pool(struct fairq_pool *fp)
{
	fairq_keytab_free(&fqp(fp)->keys, fq_key_free);
}

/*
 * Without a cap, a hand-off only tells that a key is busy (its transport comes back as soon as
 * a request is read, before that request starts): it counts until the request starts, or for
 * 20 ms when it yields none (part of a record), or until key_busy() finds that its read
 * yielded nothing.
 */
static u32 handed_recently(const struct fq_key *k)
{
	unsigned long expiry = max_t(unsigned long, 2, HZ / 50);

	return time_before(jiffies, k->handed_at + expiry) ? k->handed : 0;
}

/*
 * With a cap, hand-offs count exactly: each one until a thread is seen with it, and from then
 * on as that thread's work (occupied) until the thread looks for work again.  The overflow key
 * has no cap and is never charged (it is in no table): its hand-offs expire as without one.
 */
static u32 handed_out(const struct fq_pool *p, const struct fq_key *k)
{
	return p->cap && k != &p->overflow ? k->handed : handed_recently(k);
}

/*
 * Whether @k has max_inflight threads working for it or on their way.  A key's many
 * connections (or one connection's deep window, back in the queue as soon as a request is
 * read) would otherwise all be dispatched before the first request starts.  Only events
 * re-evaluate it for a key: a hand-off ends at a thread or at its connection's close, and one
 * that neither ends is given up by the watchdog's tick, so has_work never changes without an
 * event.
 */
static bool capped_now(const struct fq_pool *p, const struct fq_key *k)
{
	return p->cap && k != &p->overflow && k->occupied + k->handed >= p->cap;
}

static struct fairq_class_clock *class_clock(struct fairq_pool *fp, const struct fq_key *k)
{
	return fairq_class_clock(fairq_pool_shared(fp), &k->cls);
}

/* @k's own limits, where its class limits each key and its clock could be allocated */
static struct fairq_key_clock *own_limits(const struct fq_key *k)
{
	return k->cls.per_key ? k->key_clock : NULL;
}

/*
 * The clock @k books its starts from: its own where its class limits each key.  A key of such
 * a class whose clock could not be allocated books from its class's clock, which nothing else
 * uses then: such keys share one key's limit, rather than go unlimited.
 */
static atomic64_t *rate_clock(struct fairq_pool *fp, const struct fq_key *k)
{
	return own_limits(k) ? &k->key_clock->tat : &class_clock(fp, k)->tat;
}

/* The clock of @k's ceiling in percent: its own, or its class's, as rate_clock(). */
static atomic64_t *ceiling_clock(struct fairq_pool *fp, const struct fq_key *k)
{
	return own_limits(k) ? &k->key_clock->ceiling_at : &class_clock(fp, k)->ceiling_at;
}

/* vtime is thread time over weight, in 1/1024 ns so that a weight of 10000 still counts */
#define FQ_VTIME_SHIFT	10
/* the most of its reservation a class that had no work keeps for when it has some */
#define FQ_RESERVE_SAVED_NS	(100 * NSEC_PER_MSEC)

/* The longest a pool passes over a key that is ahead (key_ahead()) */
#define FQ_PASS_MAX_MS	200

/* How far ahead in vtime a class, or a key within its class, may get: a few turns. */
static s64 fq_lag(void)
{
	return ((s64)READ_ONCE(fq_quantum_us) * NSEC_PER_USEC * 4) << FQ_VTIME_SHIFT;
}

/*
 * How far behind its reservation a class may be before the time counts as below it: a turn.
 * Served exactly at its reservation, a class is always a request or so behind or ahead.
 */
static u64 below_slack_ns(void)
{
	return (u64)READ_ONCE(fq_quantum_us) * NSEC_PER_USEC;
}

/* The weight @k's class shares the threads with: its own, or its keys' with work. */
static u64 class_weight(struct fairq_class_clock *clock, const struct fq_key *k)
{
	return k->cls.weight ?: max_t(s64, atomic64_read(&clock->keys.active_weight), 1);
}

/*
 * A class that had no work in the pool's rotation starts where the rotation is: it saved up
 * no thread time while it had nothing to do, and cannot take the threads for as long.
 */
static void class_joins(struct fq_pool *p, struct fairq_class_clock *clock)
{
	s64 vt = atomic64_read(&clock->vtime);

	while ((s64)(vt - p->vfloor) < 0 &&
	       !atomic64_try_cmpxchg(&clock->vtime, &vt, p->vfloor))
		;
}

/* The rotation's list of @k: its class's while classes share the threads as classes. */
static struct list_head *old_list(struct fairq_pool *fp, struct fq_pool *p, struct fq_key *k)
{
	u32 slot = p->classes_shared ? k->cls.slot : 0;

	if (p->classes_shared && list_empty(&p->old_keys[slot]))
		class_joins(p, class_clock(fp, k));
	p->old_busy |= BIT(slot);
	return &p->old_keys[slot];
}

/* @k goes to the tail of the rotation (or the head, to go on with its turn). */
static void to_old(struct fairq_pool *fp, struct fq_pool *p, struct fq_key *k, bool head)
{
	struct list_head *old = old_list(fp, p, k);

	k->list = FQ_OLD;
	if (head)
		list_move(&k->link, old);
	else
		list_move_tail(&k->link, old);
}

/*
 * The keys @k takes turns with, service-wide: its class's while classes share the threads as
 * classes, else all of the service's (one rotation).
 */
static struct fairq_key_share *key_share(struct fairq_pool *fp, struct fq_pool *p,
					 const struct fq_key *k)
{
	if (p->classes_shared)
		return &class_clock(fp, k)->keys;
	return &((struct fairq_classes_shared *)fairq_pool_shared(fp))->rotation;
}

/*
 * A key's clock goes on by @vt, but never past twice fq_lag() ahead of the keys it shares with:
 * a client that used threads no other client could (alone in its pools) owes nothing for it
 * later, and one that is ahead is passed over for a few turns at a time, not for its past.
 */
static void key_pay(struct fairq_key_share *share, struct fairq_key_clock *kc, s64 vt)
{
	s64 cap = atomic64_read(&share->key_vtime) + 2 * fq_lag();
	s64 old = atomic64_read(&kc->vtime), new;

	do {
		new = old + vt;
		if ((s64)(new - cap) > 0)
			new = cap;
	} while (!atomic64_try_cmpxchg(&kc->vtime, &old, new));
}

/*
 * What @k's thread time costs its class: @thread_ns more (or less, negative) of its share,
 * and of its reservation.  A ceiling is paid at dispatch instead (ceiling_pay()).
 */
static void class_pay(struct fairq_pool *fp, struct fq_pool *p, struct fq_key *k, s64 thread_ns)
{
	struct fairq_class_clock *clock;
	struct fairq_key_share *share;
	u64 now;

	if (!p->keys_shared)
		return;
	clock = class_clock(fp, k);
	if (p->classes_shared)
		atomic64_add(div64_s64(thread_ns * (1 << FQ_VTIME_SHIFT), class_weight(clock, k)),
			     &clock->vtime);
	/* and as the keys it takes turns with share the time, service-wide (key_ahead()) */
	share = key_share(fp, p, k);
	atomic64_add(div64_s64(thread_ns * (1 << FQ_VTIME_SHIFT),
			       max_t(s64, atomic64_read(&share->active_weight), 1)),
		     &share->key_vtime);
	if (k->key_clock)
		key_pay(share, k->key_clock,
			div64_s64(thread_ns * (1 << FQ_VTIME_SHIFT), k->weight));
	if (!k->cls.reserve_pct)
		return;
	now = ktime_get_ns();
	fairq_class_time_charge(&clock->reserve_at,
				fairq_class_time_ns(thread_ns, k->cls.reserve_pct,
						    fairq_pool_serv_threads(fp)),
				now - FQ_RESERVE_SAVED_NS);
}

/*
 * A class's ceiling in percent of the threads is paid as its transports are handed out (a
 * request's expected cost, settled when it ends), so that the pool's threads do not all
 * take the class's work before its first request starts.
 */
static void ceiling_pay(struct fairq_pool *fp, struct fq_pool *p, struct fq_key *k,
			s64 thread_ns)
{
	unsigned int threads = fairq_pool_serv_threads(fp);
	s64 delta = fairq_class_time_ns(thread_ns, k->cls.limit_pct, threads);
	s64 turn = fairq_class_time_ns(quantum_ns(p, k), k->cls.limit_pct, threads);

	/*
	 * A start that waited after its ceiling allowed it keeps that time, up to a turn's
	 * (a quantum) at the ceiling's rate and one request's thread time: how long a key of
	 * the class may wait for the other keys' turns of the rotation, and then for a thread
	 * to free up.  Else such waits would be lost, and a class whose one client waits a
	 * round of the rotation for each turn would get less than its ceiling.
	 */
	fairq_class_time_charge(ceiling_clock(fp, k), delta,
				ktime_get_ns() - max(delta, turn) - thread_ns);
}

/*
 * What a request cost beyond (or short of) what its key paid for it at dispatch: settled on
 * the ceiling's clock as it is.  Charged as a start instead, a request that cost more than
 * the average would move a clock that is behind (the class waiting for a thread) up to now,
 * and the class would lose that time.
 */
static void ceiling_settle(struct fairq_pool *fp, struct fq_key *k, s64 thread_ns)
{
	atomic64_add(fairq_class_time_ns(thread_ns, k->cls.limit_pct, fairq_pool_serv_threads(fp)),
		     ceiling_clock(fp, k));
}

/*
 * A key at its cap waits off the rotation until one of its requests ends, so that the new,
 * burst and old lists only ever hold keys that can be served: has_work is then exact and a pick
 * never comes back empty while they are not.
 */
static void hold(struct fq_pool *p, struct fq_key *k)
{
	k->list = FQ_HELD;
	list_move_tail(&k->link, &p->held_keys);
	p->holds++;
	trace_fairq_hold(p->id, &k->id, k->in_flight, k->queue.len);
}

static void release_held(struct fairq_pool *fp, struct fq_pool *p, struct fq_key *k)
{
	to_old(fp, p, k, false);
}

/* Whether @k is in the rotation (new, burst or old), not idle, held at its cap or paced. */
static bool in_rotation(const struct fq_key *k)
{
	return k->list == FQ_NEW || k->list == FQ_BURST || k->list == FQ_OLD;
}

/*
 * A key whose class is at its limit waits off the rotation, its transports queued and busy
 * (the client sees pacing, never an error), until the start it booked falls due: the pool's
 * timer brings it back then.  Other classes go on meanwhile.
 */
static void pace(struct fairq_pool *fp, struct fq_pool *p, struct fq_key *k,
		 struct fairq_class_clock *clock, u64 now)
{
	struct fq_key *pos;

	/*
	 * In start order, so that the timer's walk stops at the first key not yet due: a
	 * class's bookings come in order, so this is the tail but where classes interleave.
	 */
	list_for_each_entry_reverse(pos, &p->paced_keys, link) {
		if (pos->due_ns <= k->due_ns)
			break;
	}
	list_move(&k->link, &pos->link);
	k->list = FQ_PACED;
	k->paced_at = now;
	p->paced++;
	if (own_limits(k))
		atomic64_inc(&k->key_clock->paced);
	atomic64_inc(&clock->paced);
	fairq_pool_wake_at(fp, k->due_ns);
	if (trace_fairq_pace_enabled()) {
		char cls[FAIRQ_CLASS_NAME_LEN + 1];

		fairq_class_name(&fq_classes, &k->cls, cls, sizeof(cls));
		trace_fairq_pace(p->id, &k->id, cls, k->due_ns - now, k->queue.len);
	}
}

/*
 * A key of a limited class is in the rotation only with a start of its class's clock in hand
 * (its token) that has fallen due: booked as it joins and again after each dispatch, kept
 * while it idles; if the start is later, the key waits paced until then.  So the rotation
 * holds only keys that can be served, has_work stays exact, and the starts of the class,
 * shared with the service's other pools, go to its keys in the order they booked them.
 */
static void limited_admit_or_pace(struct fairq_pool *fp, struct fq_pool *p, struct fq_key *k)
{
	struct fairq_class_clock *clock;
	u64 now;

	if (!in_rotation(k))
		return;
	clock = class_clock(fp, k);
	now = ktime_get_ns();
	k->due_ns = 0;
	if (k->cls.interval_ns) {
		if (!k->token) {
			k->start_ns = fairq_class_book(rate_clock(fp, k), &k->cls, now);
			k->token = true;
		}
		k->due_ns = k->start_ns;
	}
	/* under a ceiling too, until the class's thread time is back within it */
	if (k->cls.limit_pct)
		k->due_ns = max_t(s64, k->due_ns, atomic64_read(ceiling_clock(fp, k)));
	if (k->due_ns > now)
		pace(fp, p, k, clock, now);
}

/* Called on every enqueue and dispatch: a key of no limited class costs a test here. */
static inline void admit_or_pace(struct fairq_pool *fp, struct fq_pool *p, struct fq_key *k)
{
	if (k->cls.interval_ns || k->cls.limit_pct)
		limited_admit_or_pace(fp, p, k);
}

/* Whether @k's class is above its ceiling now. */
static bool above_ceiling(struct fairq_pool *fp, const struct fq_key *k)
{
	return k->cls.limit_pct && atomic64_read(ceiling_clock(fp, k)) > (s64)ktime_get_ns();
}

/*
 * A start that fell due while its key waited for its turn (a busy pool) is not spent later:
 * a key whose start is more than an interval and the burst's tolerance past books again.
 * Otherwise keys that waited together would start together when their turns come, past the
 * class's burst.
 */
static bool start_stale(const struct fq_key *k)
{
	return k->token && k->cls.interval_ns &&
	       ktime_get_ns() > k->start_ns + k->cls.interval_ns + k->cls.tolerance_ns;
}

/*
 * A booked start that will not be used (its key leaves the pool's state: a switch, a
 * rebuild) goes back to the clock, or the class would wait for it for nothing.
 */
static void give_back_start(struct fairq_pool *fp, struct fq_key *k)
{
	if (!k->token || !k->cls.interval_ns)
		return;
	k->token = false;
	fairq_class_unbook(rate_clock(fp, k), &k->cls, k->start_ns, ktime_get_ns());
}

/*
 * Keys whose booked start fell due go back to the rotation (or wait at their cap); the timer
 * is set for the soonest of the others.
 */
static unsigned int release_paced(struct fairq_pool *fp, struct fq_pool *p)
{
	u64 now = ktime_get_ns(), soonest = U64_MAX;
	struct fq_key *k, *tmp;
	unsigned int released = 0;

	list_for_each_entry_safe(k, tmp, &p->paced_keys, link) {
		if (k->due_ns > now) {
			soonest = k->due_ns;
			break;
		}
		atomic64_add(now - k->paced_at, &class_clock(fp, k)->paced_ns);
		if (own_limits(k))
			atomic64_add(now - k->paced_at, &k->key_clock->paced_ns);
		if (capped_now(p, k)) {
			hold(p, k);
			continue;
		}
		/* a turn the limit cut short goes on where it was */
		to_old(fp, p, k, k->deficit > 0);
		released++;
	}
	if (soonest != U64_MAX)
		fairq_pool_wake_at(fp, soonest);
	return released;
}

/*
 * Which transport a key last handed out, in the 4 bytes its budget leaves: the pointer's low
 * bits.  A start ends whichever hand-off is outstanding, so with several connections the one
 * left may be of another transport than the last: key_busy() may then take a key with nothing
 * in flight for idle while a thread is on its way to it (it earns a burst allowance early).
 * The empty read it is for comes right after the last dispatch of a key's one connection,
 * before or after the start of the request read.
 */
static u32 handed_id(const struct svc_xprt *xprt)
{
	return (u32)(uintptr_t)xprt;
}

/*
 * Whether @k, about to queue @xprt, is busy rather than back from idle.  A transport comes
 * back as soon as a thread has read a request from it, before that request starts: a hand-off
 * still outstanding means busy too.  Where fq has no history (a key just created), it
 * cannot have seen the key's requests start: a transport another policy had queued (a switch,
 * a rebuild) or one with requests in flight belongs to a client already being served.
 */
static bool key_busy(struct fairq_pool *fp, struct fq_key *k, struct svc_xprt *xprt,
		     bool created)
{
	if (k->in_flight || k->occupied || fairq_pool_adopting(fp))
		return true;
	if (handed_out(fqp(fp), k)) {
		/*
		 * Unless the one hand-off outstanding was of @xprt, and no thread holds a slot of
		 * it (one does from before its read until the request ends): that read yielded no
		 * request.  6.1 queues a connection again after the read of each call (its data
		 * flag was set again meanwhile), and the thread that takes it reads nothing:
		 * counting that read would keep a client of one call at a time busy for good, never
		 * back from idle.  With a cap, hand-offs count exactly.
		 */
		if (fqp(fp)->cap || k->handed != 1 || k->handed_xprt != handed_id(xprt) ||
		    atomic_read(&xprt->xpt_nr_rqsts))
			return true;
		k->handed = 0;
		return false;
	}
	return created && atomic_read(&xprt->xpt_nr_rqsts);
}

static struct list_head *next_list(struct fairq_pool *fp, struct fq_pool *p);
static void next_turn(struct fairq_pool *fp, struct fq_pool *p, struct fq_key *k);

/*
 * The key to serve next, at the head of the list to serve next (*@list), or NULL: turns
 * that are over before they began move on, and keys whose start went stale book again (and
 * may be paced).  has_work and pick both ask it, so that has_work says exactly whether pick,
 * at that moment, would serve a key.
 */
static struct fq_key *next_key(struct fairq_pool *fp, struct fq_pool *p, struct list_head **list)
{
	struct fq_key *k;

	while ((*list = next_list(fp, p))) {
		k = list_first_entry(*list, struct fq_key, link);
		/*
		 * Overspent while waiting (completions settle later), or its allowance ran out:
		 * its turn is over before it began.
		 */
		if (k->deficit <= 0 || (k->list != FQ_OLD && k->burst_left <= 0)) {
			p->turns_overspent++;
			next_turn(fp, p, k);
			continue;
		}
		if (unlikely(start_stale(k))) {
			k->token = false;
			admit_or_pace(fp, p, k);
			if (!in_rotation(k))
				continue;
		}
		/* another key of its class, here or in another pool, took it to its ceiling */
		if (unlikely(above_ceiling(fp, k))) {
			admit_or_pace(fp, p, k);
			if (!in_rotation(k))
				continue;
		}
		return k;
	}
	return NULL;
}

static bool fq_has_work(struct fairq_pool *fp)
{
	struct list_head *list;

	return next_key(fp, fqp(fp), &list);
}

/*
 * Anticipation (the anticipatory I/O scheduler's answer to deceptive idleness): a light key
 * whose last request in flight just ended usually sends the next one within its think time,
 * and would then wait for a thread to finish someone else's request: at T threads busy with
 * requests of D, about D/(2T), a few percent of its rate.  If it has been quick to come back
 * and others' work is queued, one thread waits for it, for at most anticipate_us.  Keys that
 * are slow to come back (a burst, then a pause) stop being anticipated; backlogged keys never
 * end up with nothing in flight.
 */
static void anticipate(struct fairq_pool *fp, struct fq_pool *p, struct fq_key *k)
{
	u64 window = READ_ONCE(fq_anticipate_us);

	k->done_ns = ktime_get_ns();
	if (k->list != FQ_IDLE || k->burst_left <= 0 || k->think_us > window ||
	    !fq_has_work(fp) || fairq_pool_holding(fp))
		return;
	p->antic_key = k;
	p->anticipations++;
	fairq_pool_hold_thread(fp, window * NSEC_PER_USEC);
}

/* @k sends work again: a thread held for it is let go (the push that follows wakes it). */
static void anticipation_over(struct fairq_pool *fp, struct fq_pool *p, struct fq_key *k)
{
	if (k != p->antic_key)
		return;
	p->antic_key = NULL;
	if (fairq_pool_holding(fp)) {
		fairq_pool_release_thread(fp);
		p->anticipation_hits++;
	}
}

/* @k is back from idle with nothing in flight: how long its client took since the last reply. */
static void learn_think_time(struct fq_key *k)
{
	u64 think_us;

	if (!k->done_ns)
		return;
	think_us = min_t(u64, div_u64(ktime_get_ns() - k->done_ns, NSEC_PER_USEC), U32_MAX);
	k->think_us = div_u64(3 * (u64)k->think_us + think_us, 4);
	k->done_ns = 0;
}

/*
 * A key's pools' keys with work, in the low half of its clock's @with_work, and the weight
 * they count in their class, in the high half: the first to have work counts it, the last
 * to run out takes back what was counted, even if a rebuild changed the weight in between.
 */
#define FQ_WITH_WORK_ONE	1LL
#define FQ_WITH_WORK_MASK	((s64)U32_MAX)

/*
 * @k has work again, and counts its weight in its class's (once, however many pools it has
 * work in): the weight of a class with none of its own, and what the class's keys share its
 * time by.  A key back from idle (not @busy) saved up none of its class's time: it starts
 * where the class's keys are.  A busy one (work another policy or pool had queued, or that
 * came back while its requests ran) keeps at most a few turns it did not get.
 */
static void key_has_work(struct fairq_pool *fp, struct fq_pool *p, struct fq_key *k, bool busy)
{
	struct fairq_class_clock *clock;
	struct fairq_key_clock *kc = k->key_clock;
	struct fairq_key_share *share;
	s64 old, new, vt, floor;

	if (!p->keys_shared || k == &p->overflow)
		return;
	clock = class_clock(fp, k);
	/* a reservation counts the time below it only from when its class has work */
	if (k->cls.reserve_pct) {
		k->waiting = true;
		if (atomic64_inc_return(&clock->keys_waiting) == 1)
			fairq_class_below_from(clock, ktime_get_ns());
	}
	k->active = true;
	share = key_share(fp, p, k);
	if (!kc) {
		atomic64_add(k->weight, &share->active_weight);
		return;
	}
	old = atomic64_read(&kc->with_work);
	do {
		new = old & FQ_WITH_WORK_MASK ? old + FQ_WITH_WORK_ONE :
		      ((s64)k->weight << 32) + FQ_WITH_WORK_ONE;
	} while (!atomic64_try_cmpxchg(&kc->with_work, &old, new));
	if (old & FQ_WITH_WORK_MASK)
		return;
	atomic64_add(k->weight, &share->active_weight);
	floor = atomic64_read(&share->key_vtime) - (busy ? fq_lag() : 0);
	vt = atomic64_read(&kc->vtime);
	while ((s64)(vt - floor) < 0 && !atomic64_try_cmpxchg(&kc->vtime, &vt, floor))
		;
}

/* @k has no work left here: its weight leaves its class's with its last pool's. */
static void key_no_work(struct fairq_pool *fp, struct fq_pool *p, struct fq_key *k)
{
	struct fairq_key_clock *kc = k->key_clock;
	s64 old, new;

	k->active = false;
	if (!kc) {
		atomic64_sub(k->weight, &key_share(fp, p, k)->active_weight);
		return;
	}
	old = atomic64_read(&kc->with_work);
	do {
		new = (old & FQ_WITH_WORK_MASK) == FQ_WITH_WORK_ONE ? 0 : old - FQ_WITH_WORK_ONE;
	} while (!atomic64_try_cmpxchg(&kc->with_work, &old, new));
	if (!new)
		atomic64_sub(old >> 32, &key_share(fp, p, k)->active_weight);
}

/*
 * Whether @k has had more of its class's time than its weight's share, service-wide, by more
 * than a few turns: a key whose work reaches more of the pools than the class's other keys'
 * would otherwise take the class's time in the pools they do not reach.  Its pool then serves
 * other classes first, and the class's time goes to its other keys where they are.
 */
static bool key_ahead(struct fairq_key_share *share, const struct fq_key *k)
{
	/*
	 * A client's share is of the service, but each pool has its own key of it: one served
	 * in another pool must not leave its work here waiting for good (its connections here
	 * would time out), so a key not served for FQ_PASS_MAX_MS is not passed over.
	 */
	return k->key_clock &&
	       (s64)(atomic64_read(&k->key_clock->vtime) - atomic64_read(&share->key_vtime)) >
	       fq_lag() &&
	       time_before(jiffies, k->handed_at + FQ_PASS_MAX_MS * HZ / MSEC_PER_SEC);
}

/*
 * Whether @k's class has had more than its share, by more than a few turns, of the
 * rotation as this pool last served it: its keys back from idle are then not served ahead.
 * So clients that idle between calls cannot take a class past its weight.
 */
static bool class_ahead(struct fairq_pool *fp, struct fq_pool *p, const struct fq_key *k)
{
	return p->classes_shared &&
	       (s64)(atomic64_read(&class_clock(fp, k)->vtime) - p->vfloor) > fq_lag();
}

static void fq_enqueue(struct fairq_pool *fp, struct svc_xprt *xprt)
{
	struct fq_pool *p = fqp(fp);
	bool created;
	struct fq_key *k = fq_key_get(fp, p, xprt, &created);
	bool busy = key_busy(fp, k, xprt, created);

	anticipation_over(fp, p, k);
	if (!k->in_flight)
		learn_think_time(k);
	fairq_xlist_push(&k->queue, xprt);
	/*
	 * the dispatch tracepoint's wait: from the moment the key has work; unknown for work
	 * another policy or pool had queued (a switch, a rebuild, a migration)
	 */
	if (k->queue.len == 1)
		k->waiting_ns = trace_fairq_dispatch_enabled() && !fairq_pool_adopting(fp) ?
				ktime_get_ns() : 0;
	if (k->list == FQ_HELD && !capped_now(p, k))
		release_held(fp, p, k);
	if (k->list == FQ_IDLE) {
		key_has_work(fp, p, k, busy);
		if (!busy && class_ahead(fp, p, k)) {
			/* its class is past its share: no serving ahead of the others */
			busy = true;
			k->burst_left = 0;
		}
		if (busy) {
			/*
			 * Still busy (its one transport went back to a thread): no new allowance.
			 * It goes on bursting while its allowance lasts, else in the rotation.
			 * With deficit left, its turn goes on at the head; else it waits a round.
			 */
			bool goes_on = k->deficit > 0;

			if (!goes_on)
				k->deficit += quantum_ns(p, k);
			if (k->burst_left > 0) {
				k->list = FQ_BURST;
				if (goes_on)
					list_move(&k->link, &p->burst_keys);
				else
					list_move_tail(&k->link, &p->burst_keys);
			} else {
				to_old(fp, p, k, goes_on);
			}
		} else {
			list_del(&k->link);
			/* back from idle: served ahead while its allowance lasts */
			k->list = FQ_NEW;
			k->deficit = quantum_ns(p, k);
			k->burst_left = burst_ns(fp, p, k);
			p->bursts++;
			list_add_tail(&k->link, &p->new_keys);
		}
		if (capped_now(p, k))
			hold(p, k);
	}
	admit_or_pace(fp, p, k);
	gc_idle(p);
}

/*
 * A key with nothing queued leaves the rotation; it is remembered while requests run.  Its
 * weight leaves its class's weight with work.
 */
static void key_went_empty(struct fairq_pool *fp, struct fq_pool *p, struct fq_key *k)
{
	if (k->waiting) {
		struct fairq_class_clock *clock = class_clock(fp, k);

		fairq_class_below(clock, ktime_get_ns(), below_slack_ns());	/* up to now */
		atomic64_dec(&clock->keys_waiting);
		k->waiting = false;
	}
	if (k->active)
		key_no_work(fp, p, k);
	list_del(&k->link);
	k->list = FQ_IDLE;
	k->idle_since = jiffies;
	if (k == &p->overflow)
		INIT_LIST_HEAD(&k->link);
	else
		list_add_tail(&k->link, &p->idle_keys);
}

/*
 * The end of @k's turn: the tail of the burst list or of the rotation, with its next quantum
 * at once, so that its next turn is a real one.  A spent allowance ends the burst.
 */
static void next_turn(struct fairq_pool *fp, struct fq_pool *p, struct fq_key *k)
{
	s64 q = quantum_ns(p, k);

	/*
	 * Debt is bounded by four quanta when it is made (fq_complete()); a quantum lowered
	 * since then would make the key sit out old/new times more rounds, each one a pass of
	 * fq_pick() under the pool lock: bound it by the quantum in force.
	 */
	if (k->deficit < -4 * q)
		k->deficit = -4 * q;
	if (k->deficit <= 0)
		k->deficit += q;
	if (k->list != FQ_OLD && k->burst_left > 0) {
		k->list = FQ_BURST;
		list_move_tail(&k->link, &p->burst_keys);
	} else {
		to_old(fp, p, k, false);
	}
}

/* Serve one request of @k; a key whose queue ran empty leaves the lists until it is back. */
static struct svc_xprt *dispatch(struct fairq_pool *fp, struct fq_pool *p, struct fq_key *k)
{
	struct svc_xprt *xprt = fairq_xlist_pop(&k->queue);
	struct fq_memo *memo;

	if (k->cls.counted)
		atomic64_inc(&class_clock(fp, k)->dispatches);
	if (p->reserving)
		atomic64_inc(&class_clock(fp, k)->reserved);
	/* served from any list: the time it waited behind its reservation ends here */
	if (k->waiting)
		fairq_class_below(class_clock(fp, k), ktime_get_ns(), below_slack_ns());
	if (k->cls.limit_pct)
		ceiling_pay(fp, p, k, k->avg_cost);
	k->token = false;	/* its start is this one */
	p->picked = k;
	p->picked_wait_ns = -1;
	if (trace_fairq_dispatch_enabled()) {
		u64 now = ktime_get_ns();

		if (k->waiting_ns)
			p->picked_wait_ns = now - k->waiting_ns;
		/* what is still queued waits for the key's next turn from now */
		k->waiting_ns = now;
	} else {
		k->waiting_ns = 0;
	}
	k->handed = handed_out(p, k) + 1;
	k->handed_at = jiffies;
	k->handed_xprt = handed_id(xprt);
	memo = memo_slot(p, xprt);
	memo->xprt = xprt;
	memo->key = k;
	if (fairq_xlist_empty(&k->queue))
		key_went_empty(fp, p, k);
	else if (capped_now(p, k))
		hold(p, k);
	else if (k->deficit <= 0 || (k->list != FQ_OLD && k->burst_left <= 0))
		next_turn(fp, p, k);
	admit_or_pace(fp, p, k);
	return xprt;
}

/*
 * Whether the key at the head of @list (a class's, or the one rotation) is ahead of its class's
 * other keys (key_ahead()), once the head has gone to the tail if the key after it is not: its
 * turn then comes first, and pick finds it at the head where has_work did.  *@passed says
 * whether the head was passed over so.
 */
static bool head_ahead(struct fairq_pool *fp, struct fq_pool *p, struct list_head *list,
		       bool *passed)
{
	struct fq_key *k = list_first_entry(list, struct fq_key, link);
	struct fq_key *next = list_next_entry(k, link);

	*passed = false;
	if (!key_ahead(key_share(fp, p, k), k))
		return false;
	if (list_is_singular(list) || key_ahead(key_share(fp, p, next), next))
		return true;
	list_rotate_left(list);
	*passed = true;
	return false;
}

/* Whether class @a's vtime is more than @by behind class @b's. */
static bool vtime_before(struct fairq_class_clock *a, struct fairq_class_clock *b, s64 by)
{
	return (s64)(atomic64_read(&b->vtime) - atomic64_read(&a->vtime)) > by;
}

/*
 * The rotation's list to serve next, NULL if it is empty.  While classes share the threads
 * as classes: a class behind its reservation first (the one furthest behind), else the
 * class with the least thread time for its weight (@p->reserving says which it was), among
 * those whose key to serve here is not ahead of the class's other keys (key_ahead()) if
 * there are any: the pool still serves the one that is when nothing else is queued.
 */
static struct list_head *next_old(struct fairq_pool *fp, struct fq_pool *p)
{
	struct fairq_class_clock *clock, *fairest = NULL, *reserved = NULL, *fairest_ahead = NULL;
	unsigned long busy;
	u64 now = 0;
	int slot, best = -1, behind = -1, best_ahead = -1;
	u32 passed_in = 0;	/* the classes whose head key was passed over for the next */
	bool ahead, passed;

	p->reserving = false;
	if (!p->classes_shared) {
		if (list_empty(&p->old_keys[0]))
			return NULL;
		if (p->keys_shared) {
			head_ahead(fp, p, &p->old_keys[0], &passed);
			p->passed_ahead |= passed;
		}
		return &p->old_keys[0];
	}
	busy = p->old_busy;
	for_each_set_bit(slot, &busy, FAIRQ_CLASSES_MAX) {
		struct fq_key *k;

		if (list_empty(&p->old_keys[slot])) {
			p->old_busy &= ~BIT(slot);
			continue;
		}
		ahead = head_ahead(fp, p, &p->old_keys[slot], &passed);
		if (passed)
			passed_in |= BIT(slot);
		k = list_first_entry(&p->old_keys[slot], struct fq_key, link);
		clock = class_clock(fp, k);
		if (ahead && (!fairest_ahead || vtime_before(clock, fairest_ahead, 0))) {
			fairest_ahead = clock;
			best_ahead = slot;
		} else if (!ahead && (!fairest || vtime_before(clock, fairest, 0))) {
			fairest = clock;
			best = slot;
		}
		if (k->cls.reserve_pct) {
			now = now ?: ktime_get_ns();
			if (atomic64_read(&clock->reserve_at) <= (s64)now) {
				fairq_class_below(clock, now, below_slack_ns());
				if (!reserved || atomic64_read(&clock->reserve_at) <
						 atomic64_read(&reserved->reserve_at)) {
					reserved = clock;
					behind = slot;
				}
			}
		}
	}
	if (behind >= 0) {
		p->reserving = true;
		p->passed_ahead |= !!(passed_in & BIT(behind));
		return &p->old_keys[behind];
	}
	/*
	 * A class whose keys here are ahead still goes first once it is a few turns behind:
	 * whatever the keys' clocks say, the classes' shares hold.
	 */
	if (best_ahead >= 0 && (best < 0 || vtime_before(fairest_ahead, fairest, fq_lag()))) {
		fairest = fairest_ahead;
		best = best_ahead;
	} else if (best_ahead >= 0 && vtime_before(fairest_ahead, fairest, 0)) {
		p->passed_ahead = true;
	}
	if (best < 0)
		return NULL;
	p->passed_ahead |= !!(passed_in & BIT(best));
	if ((s64)(atomic64_read(&fairest->vtime) - p->vfloor) > 0)
		p->vfloor = atomic64_read(&fairest->vtime);
	return &p->old_keys[best];
}

/*
 * The list to serve next.  Each list goes before the ones after it, but at most new_burst
 * times in a row while a later one waits: newcomers cannot starve a burst, nor bursts the
 * rotation.
 */
static struct list_head *next_list(struct fairq_pool *fp, struct fq_pool *p)
{
	struct list_head *old = next_old(fp, p);
	bool burst = !list_empty(&p->burst_keys);
	u32 limit = READ_ONCE(fq_new_burst);

	if (p->reserving)
		return old;
	if (!list_empty(&p->new_keys) && (!(old || burst) || p->new_run < limit) &&
	    (!old || p->ahead_run < limit))
		return &p->new_keys;
	if (burst && (!old || p->ahead_run < limit))
		return &p->burst_keys;
	return old;
}

static struct svc_xprt *fq_pick(struct fairq_pool *fp)
{
	struct fq_pool *p = fqp(fp);
	struct list_head *list;
	struct fq_key *k = next_key(fp, p, &list);

	if (!k)
		return NULL;
	if (k->list == FQ_OLD) {
		p->ahead_run = 0;
		p->new_run = 0;
		if (p->passed_ahead)
			p->keys_ahead++;
	} else {
		p->ahead_run++;
		p->new_run = list == &p->new_keys ? p->new_run + 1 : 0;
	}
	p->passed_ahead = false;
	return dispatch(fp, p, k);
}

static void fq_picked(struct fairq_pool *fp, const struct fairq_key_id **key, s64 *wait_ns)
{
	struct fq_pool *p = fqp(fp);

	*key = &p->picked->id;
	*wait_ns = p->picked_wait_ns;
}

/*
 * Called by the core's watchdog.  A hand-off that no thread was seen taking and no close
 * ended (the thread's record could not be allocated; more hand-offs of one transport on their
 * way than its mark counts) would hold its key forever: a held key with no dispatch, and no
 * thread taking, starting or finishing its work, for a second has such hand-offs given up,
 * counted, and its requests in flight (reports only) cleared.
 * Threads still working for it keep counting: they are seen when they finish.
 */
static unsigned int fq_tick(struct fairq_pool *fp)
{
	struct fq_pool *p = fqp(fp);
	struct fq_key *k, *tmp;
	unsigned int released = 0;

	list_for_each_entry_safe(k, tmp, &p->held_keys, link) {
		/*
		 * From its last dispatch too: a key quiet for a while in this pool (its client's
		 * work went to other pools) is held as soon as it is handed one transport, and
		 * on 6.1 no thread is seen with it before the request starts.
		 */
		unsigned long seen = time_after(k->handed_at, k->last_busy) ? k->handed_at :
									       k->last_busy;

		if (time_after(jiffies, seen + HZ)) {
			if (k->handed)
				trace_fairq_lost_handoff(p->id, &k->id, k->handed);
			p->lost_handoffs += k->handed;
			k->handed = 0;
			k->in_flight = 0;
		}
		if (capped_now(p, k))
			continue;
		release_held(fp, p, k);
		admit_or_pace(fp, p, k);
		released++;
	}
	return released + release_paced(fp, p);
}

/* The lists that hold keys with queued transports, in dispatch order. */
static struct list_head *queued_lists(struct fq_pool *p, unsigned int i)
{
	struct list_head *lists[] = { &p->new_keys, &p->burst_keys, &p->held_keys,
				      &p->paced_keys };

	if (i < 2)
		return lists[i];
	if (i < 2 + FAIRQ_CLASSES_MAX)
		return &p->old_keys[i - 2];
	i -= FAIRQ_CLASSES_MAX;
	return i < ARRAY_SIZE(lists) ? lists[i] : NULL;
}

/*
 * Dispatch order without dispatching: new keys first, then bursting ones, then the rotation,
 * each key's transports in arrival order.  Deficits are dropped; the receiving policy starts
 * afresh.
 */
static void fq_drain(struct fairq_pool *fp, struct fairq_xlist *out)
{
	struct fq_pool *p = fqp(fp);
	struct list_head *list;
	struct fq_key *k, *tmp;
	unsigned int i;

	for (i = 0; (list = queued_lists(p, i)); i++) {
		list_for_each_entry_safe(k, tmp, list, link) {
			fairq_xlist_splice(out, &k->queue);
			give_back_start(fp, k);
			key_went_empty(fp, p, k);
		}
	}
	/* a key paced and then emptied (its connection closed) idles with its start */
	list_for_each_entry(k, &p->idle_keys, link)
		give_back_start(fp, k);
	p->new_run = 0;
	p->ahead_run = 0;
}

static struct fq_key *fq_key_lookup(struct fq_pool *p, struct svc_xprt *xprt);

static bool fq_remove(struct fairq_pool *fp, struct svc_xprt *xprt)
{
	struct fq_pool *p = fqp(fp);
	struct list_head *list;
	struct fq_key *k;
	unsigned int i;

	/* its key's queue first: only that one holds it, unless the key changed meanwhile */
	k = fq_key_lookup(p, xprt);
	if (!k && !list_empty(&p->overflow.link))
		k = &p->overflow;
	if (k && fairq_xlist_remove(&k->queue, xprt)) {
		if (fairq_xlist_empty(&k->queue))
			key_went_empty(fp, p, k);
		return true;
	}
	/* the key may have changed since it was queued (a v4.1 binding): look everywhere */
	for (i = 0; (list = queued_lists(p, i)); i++) {
		list_for_each_entry(k, list, link) {
			if (!fairq_xlist_remove(&k->queue, xprt))
				continue;
			if (fairq_xlist_empty(&k->queue))
				key_went_empty(fp, p, k);
			return true;
		}
	}
	return false;
}

/* The key @xprt belongs to now, if it has one (not the overflow key). */
static struct fq_key *fq_key_lookup(struct fq_pool *p, struct svc_xprt *xprt)
{
	struct fairq_key_id id;

	if (!fairq_keytab_ready(&p->keys))
		return NULL;
	fq_key_of(xprt, &id, NULL);
	return fq_key_find(p, &id, fq_key_hash(&id));
}

/*
 * The key a request of @xprt counts against: the one its thread was charged for (@token: for
 * its take of @xprt under a cap, else for the request), so that its start and its end settle
 * on one key even if @xprt's key changes meanwhile (an NFSv4.1 binding); else (no record could
 * be made for the thread) the key @xprt belongs to now, looked up.  @xprt is NULL only with a
 * token (a request's unseen end).
 */
static struct fq_key *fq_request_key(struct fq_pool *p, struct svc_xprt *xprt, void *token)
{
	return token ?: fq_key_lookup(p, xprt);
}

/* A request starts: the key pays its average now, so a busy key yields its turn in time. */
static void fq_start(struct fairq_pool *fp, struct svc_xprt *xprt, void *token)
{
	struct fq_pool *p = fqp(fp);
	struct fq_key *k = fq_request_key(p, xprt, token);

	if (!k || k == &p->overflow)
		return;
	k->deficit -= k->avg_cost;
	k->burst_left -= k->avg_cost;
	class_pay(fp, p, k, k->avg_cost);
	if (k->handed && !p->cap)
		k->handed--;
	k->in_flight++;
	k->dispatches++;	/* requests, as the clients count them; not hand-offs */
	k->last_busy = jiffies;
	if (in_rotation(k) && capped_now(p, k))
		hold(p, k);
}

static void fq_complete(struct fairq_pool *fp, struct svc_xprt *xprt, u64 thread_ns,
			void *token)
{
	struct fq_pool *p = fqp(fp);
	struct fq_key *k = fq_request_key(p, xprt, token);

	if (!k || k == &p->overflow)
		return;		/* the overflow key, or keyed differently since: not charged */
	k->last_busy = jiffies;
	/* an end no hook saw (xprt NULL), time unknown: it keeps what it paid, teaches nothing */
	if (!xprt) {
		if (k->in_flight)
			k->in_flight--;
		return;
	}
	k->thread_ns += thread_ns;
	if (k->cls.counted)
		atomic64_add(thread_ns, &class_clock(fp, k)->thread_ns);
	/*
	 * It paid its average at dispatch: settle the difference now.  The debt is bounded so
	 * that one very long request costs a few rounds, not a scan of many.
	 */
	k->deficit += (s64)k->avg_cost - (s64)thread_ns;
	k->deficit = max_t(s64, k->deficit, -4 * (s64)quantum_ns(p, k));
	k->burst_left += (s64)k->avg_cost - (s64)thread_ns;
	class_pay(fp, p, k, (s64)thread_ns - (s64)k->avg_cost);
	if (k->cls.limit_pct)
		ceiling_settle(fp, k, (s64)thread_ns - (s64)k->avg_cost);
	k->avg_cost = k->avg_cost - (k->avg_cost >> 3) + (thread_ns >> 3);
	p->avg_cost = p->avg_cost - (p->avg_cost >> 4) + (thread_ns >> 4);
	if (k->in_flight)
		k->in_flight--;
	if (!k->in_flight && READ_ONCE(fq_anticipate_us))
		anticipate(fp, p, k);
}

/*
 * The key of @xprt's latest dispatch (@take: and that dispatch is now charged), or else the
 * one it belongs to now; NULL for none.
 */
static struct fq_key *fq_dispatched_key(struct fq_pool *p, struct svc_xprt *xprt, bool take)
{
	struct fq_memo *memo = memo_slot(p, xprt);
	struct fq_key *k;

	if (memo->xprt != xprt)
		return fq_key_lookup(p, xprt);
	k = memo->key;
	if (take) {
		memo->xprt = NULL;
		memo->key = NULL;
	}
	return k;
}

/*
 * A thread takes a transport of the key (counted from dispatch) and works for it; without a
 * cap, for the time of one request.  Charged to the key it was dispatched for, even if the
 * transport's key changed since (an NFSv4.1 binding).  A transport of the overflow key is
 * charged to it only so that its request ends there too: it has no cap and pays nothing.
 */
static void *fq_charge(struct fairq_pool *fp, struct svc_xprt *xprt, bool dispatched)
{
	struct fq_pool *p = fqp(fp);
	struct fq_key *k = fq_dispatched_key(p, xprt, true);

	if (!k)
		return NULL;
	/* only the end of a dispatch: work that came another way leaves those on their way */
	if (dispatched && k->handed)
		k->handed--;
	if (k == &p->overflow)
		return k;
	k->occupied++;
	/* only work under way before the cap was set or the pool rebuilt, or untracked threads */
	if (unlikely(p->cap && k->occupied > p->cap))
		p->cap_overruns++;
	k->last_busy = jiffies;
	/* work that did not come through a dispatch (a rebuild under way, a bypass) counts too */
	if (in_rotation(k) && capped_now(p, k))
		hold(p, k);
	return k;
}

/* A held key that a thread or a dispatch gave a place back to joins the rotation again. */
static bool release_if_room(struct fairq_pool *fp, struct fq_pool *p, struct fq_key *k)
{
	if (k->list != FQ_HELD || capped_now(p, k))
		return false;
	release_held(fp, p, k);
	admit_or_pace(fp, p, k);
	return true;
}

/*
 * The thread is done with the key's work, whatever it was (a request, part of a record, a
 * drop) and looks for work next: a held key it frees is in the rotation for that very look.
 */
static void fq_uncharge(struct fairq_pool *fp, void *token)
{
	struct fq_pool *p = fqp(fp);
	struct fq_key *k = token;

	if (k == &p->overflow)
		return;
	if (k->occupied)
		k->occupied--;
	k->last_busy = jiffies;
	release_if_room(fp, p, k);
}

/* A dispatch ends with no thread seen with it (closed on its way): the key's place is back. */
static bool fq_undispatch(struct fairq_pool *fp, struct svc_xprt *xprt)
{
	struct fq_pool *p = fqp(fp);
	struct fq_key *k = fq_dispatched_key(p, xprt, false);

	if (!k || k == &p->overflow || !k->handed)
		return false;
	k->handed--;
	p->handoffs_returned++;
	return release_if_room(fp, p, k);
}

static void fq_counters(struct fairq_pool *fp, struct fairq_counters *out)
{
	struct fq_pool *p = fqp(fp);

	fairq_counter_add(out, "keys", p->keys.nr);
	fairq_counter_add(out, "key_alloc_failures", p->alloc_failures);
	fairq_counter_add(out, "key_buckets", fairq_keytab_buckets(&p->keys));
	fairq_counter_add(out, "split_failures", p->keys.split_failures);
	fairq_counter_add(out, "holds", p->holds);
	fairq_counter_add(out, "paced", p->paced);
	fairq_counter_add(out, "lost_handoffs", p->lost_handoffs);
	fairq_counter_add(out, "handoffs_returned", p->handoffs_returned);
	fairq_counter_add(out, "untracked_threads", fairq_pool_untracked(fp));
	fairq_counter_add(out, "unseen_request_ends", fairq_pool_unseen_ends(fp));
	fairq_counter_add(out, "cap_overruns", p->cap_overruns);
	fairq_counter_add(out, "bursts", p->bursts);
	fairq_counter_add(out, "anticipations", p->anticipations);
	fairq_counter_add(out, "anticipation_hits", p->anticipation_hits);
	fairq_counter_add(out, "hold_skips", fairq_pool_hold_skips(fp));
	fairq_counter_add(out, "turns_overspent", p->turns_overspent);
	fairq_counter_add(out, "keys_ahead", p->keys_ahead);
}

struct report_arg {
	fairq_key_fn fn;
	void *arg;
};

static int report(struct fairq_keytab_node *entry, void *arg)
{
	const struct fq_key *k = container_of(entry, struct fq_key, entry);
	const struct report_arg *ra = arg;
	struct fairq_key_stats ks = {
		.id = k->id,
		.weight = k->weight,
		.queued = k->queue.len,
		.in_flight = k->in_flight,
		.dispatches = k->dispatches,
		.thread_ns = k->thread_ns,
	};

	fairq_class_name(&fq_classes, &k->cls, ks.class, sizeof(ks.class));
	if (own_limits(k)) {
		ks.paced = atomic64_read(&k->key_clock->paced);
		ks.paced_ns = atomic64_read(&k->key_clock->paced_ns);
	}
	return ra->fn(&ks, ra->arg);
}

static int fq_walk_keys(struct fairq_pool *fp, u64 *cursor, fairq_key_fn fn, void *arg)
{
	struct report_arg ra = { .fn = fn, .arg = arg };

	return fairq_keytab_walk(&fqp(fp)->keys, cursor, report, &ra);
}

static int fq_set_weight(const struct fairq_key_id *id, u32 weight)
{
	int err = fairq_weights_set(&fq_weights, id, weight);

	/* existing keys take their new weight when rebuilt */
	return err ?: fairq_requeue_all(&fairq_sched_fq);
}

static int fq_walk_weights(u64 *cursor, fairq_weight_fn fn, void *arg)
{
	return fairq_weights_walk(&fq_weights, cursor, fn, arg);
}

/* Keys take their classes when made: a change rebuilds them, in order, nothing lost. */
static int fq_set_class(const struct fairq_class_spec *spec, const char **why)
{
	int err = fairq_classes_set(&fq_classes, spec, why);

	return err ?: fairq_requeue_all(&fairq_sched_fq);
}

static int fq_del_class(const char *name, const char **why)
{
	int err = fairq_classes_del(&fq_classes, name, why);

	return err ?: fairq_requeue_all(&fairq_sched_fq);
}

static int fq_walk_classes(u64 *cursor, fairq_class_fn fn, void *arg)
{
	return fairq_classes_walk(&fq_classes, cursor, fn, arg);
}

static void fq_class_stats(struct fairq_pool *fp, const char *name, struct fairq_class_stats *out)
{
	fairq_classes_stats(&fq_classes, fairq_pool_shared(fp), name, out);
}

#define FQ_TUNABLE(_name, _var, _requeue)					\
	static u32 *const fq_var_##_name = &(_var);				\
	static u64 fq_get_##_name(void)						\
	{									\
		return READ_ONCE(*fq_var_##_name);				\
	}									\
	static int fq_set_##_name(u64 val)					\
	{									\
		WRITE_ONCE(*fq_var_##_name, val);				\
		return (_requeue) ? fairq_requeue_all(&fairq_sched_fq) : 0;	\
	}

/* Client keys need the connections' owners, learned only while asked for. */
static u64 fq_get_key(void)
{
	return READ_ONCE(fq_key_type);
}

static int fq_set_key(u64 val)
{
	fairq_v4client_want(val == FAIRQ_KEY_TYPE_V4CLIENT);
	WRITE_ONCE(fq_key_type, val);
	return fairq_requeue_all(&fairq_sched_fq);
}

FQ_TUNABLE(prefix4, fq_prefix4, true)
FQ_TUNABLE(prefix6, fq_prefix6, true)
FQ_TUNABLE(quantum_us, fq_quantum_us, false)
FQ_TUNABLE(new_burst, fq_new_burst, false)
FQ_TUNABLE(burst_ms, fq_burst_ms, false)
FQ_TUNABLE(idle_secs, fq_idle_secs, false)
FQ_TUNABLE(anticipate_us, fq_anticipate_us, false)
/* a pool counts its threads' work only while it has a cap: applied by a rebuild */
FQ_TUNABLE(max_inflight, fq_max_inflight, true)

static const struct fairq_tunable fq_tunables[] = {
	{ "key", "group by 1 = client address, 2 = subnet, 3 = connection, 4 = NFSv4.1 client",
	  FAIRQ_KEY_TYPE_ADDR, FAIRQ_KEY_TYPE_V4CLIENT, fq_get_key, fq_set_key, FQ_DEF_KEY },
	{ "prefix4", "IPv4 prefix length of a subnet key", 0, 32, fq_get_prefix4, fq_set_prefix4,
	  FQ_DEF_PREFIX4 },
	{ "prefix6", "IPv6 prefix length of a subnet key", 0, 128, fq_get_prefix6, fq_set_prefix6,
	  FQ_DEF_PREFIX6 },
	{ "quantum_us", "thread time a weight-1 key gets per round (microseconds)", 100, 1000000,
	  fq_get_quantum_us, fq_set_quantum_us, FQ_DEF_QUANTUM_US },
	{ "new_burst", "dispatches newly active keys may take in a row while others wait", 1, 1024,
	  fq_get_new_burst, fq_set_new_burst, FQ_DEF_NEW_BURST },
	{ "burst_ms", "pool time a newly active key may use ahead of the others (milliseconds)",
	  0, 10000, fq_get_burst_ms, fq_set_burst_ms, FQ_DEF_BURST_MS },
	{ "idle_secs", "seconds an idle key is kept before it is freed", 1, 3600,
	  fq_get_idle_secs, fq_set_idle_secs, FQ_DEF_IDLE_SECS },
	{ "anticipate_us", "microseconds a thread waits for a light client's next call (0: off)",
	  0, 100000, fq_get_anticipate_us, fq_set_anticipate_us, 0 },
	{ "max_inflight", "threads one key may occupy at once (0: no cap)", 0, 8192,
	  fq_get_max_inflight, fq_set_max_inflight, 0 },
	{ }
};

/* The policy is unregistered (unload): its weight rules and classes go with it. */
static void fq_release(void)
{
	/* unregistered: no pool, and so no reader, uses the rules any more */
	fairq_weights_clear(&fq_weights);
	fairq_classes_clear(&fq_classes);
}

static const struct fairq_key_ops fq_key_ops = {
	.for_each_key	= fq_walk_keys,
	.picked		= fq_picked,
	.set_weight	= fq_set_weight,
	.for_each_weight = fq_walk_weights,
	.set_class	= fq_set_class,
	.del_class	= fq_del_class,
	.for_each_class	= fq_walk_classes,
	.class_stats	= fq_class_stats,
};

const struct fairq_sched_ops fairq_sched_fq = {
	.owner		= THIS_MODULE,
	.name		= "fq",
	.alias		= "fairq",	/* its name before 0.2, accepted through 0.2.x */
	.priv_size	= sizeof(struct fq_pool),
	.init_pool	= fq_init_pool,
	.exit_pool	= fq_exit_pool,
	.enqueue	= fq_enqueue,
	.pick		= fq_pick,
	.has_work	= fq_has_work,
	.drain		= fq_drain,
	.remove		= fq_remove,
	.start		= fq_start,
	.complete	= fq_complete,
	.charge		= fq_charge,
	.uncharge	= fq_uncharge,
	.undispatch	= fq_undispatch,
	.keys		= &fq_key_ops,
	.counters	= fq_counters,
	.tick		= fq_tick,
	.release	= fq_release,
	.tunables	= fq_tunables,
};
