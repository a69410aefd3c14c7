/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * QoS classes of a keyed policy (classes.c): ordered rules that put each key in a class, and
 * each class's share, reservation and limits, held for a service as a whole by clocks that
 * all of the service's pools share.
 */
#ifndef FAIRQ_SCHED_CLASSES_H
#define FAIRQ_SCHED_CLASSES_H

#include <linux/atomic.h>
#include <linux/cache.h>
#include <linux/rcupdate.h>
#include <linux/spinlock_types.h>
#include <linux/types.h>
#include <fairq/sched.h>
#include "keytab.h"

/* Each class (at most FAIRQ_CLASSES_MAX, uapi) has a slot, the index of its clock. */

/* One class as the rules hold it; the spec as set, and where its clocks are. */
struct fairq_class {
	struct fairq_class_spec spec;
	u32 slot;		/* index of its clock in a service's shared state */
	u32 owner;		/* new for each class made: a reused slot's clock starts afresh */
	u32 gen;		/* new for each limit set: the clock's schedule starts afresh */
};

/* A policy's classes: replaced whole with the change lock held, read under RCU. */
struct fairq_classes {
	struct rcu_head rcu;
	unsigned int nr;
	struct fairq_class cls[];	/* by rank, the default class last */
};

/* What a key keeps of its class: taken when the key is made (a class change rebuilds keys). */
struct fairq_class_ref {
	u8 slot;		/* < FAIRQ_CLASSES_MAX */
	bool counted;		/* a class of the admin's, or the default one with a limit */
	u8 reserve_pct;		/* of the service's thread time; 0: none */
	u8 limit_pct;		/* of the service's thread time; 0: none */
	u32 owner;
	u32 gen;
	u16 weight;		/* the class's as a whole; 0: its keys' weights, added up */
	bool per_key;		/* its limits are each key's (fairq_key_clock) */
	u64 interval_ns;	/* 1 s / limit; 0: no limit */
	u64 tolerance_ns;	/* how far ahead of the clock a start may be: burst - 1 intervals */
};

/*
 * How keys that take turns together share their thread time, service-wide: @key_vtime, their
 * thread time over @active_weight, the weights of those with work, each counted once however
 * many pools it has work in.  A key with work at its share keeps up with @key_vtime (its key
 * clock's @vtime); one far ahead of it waits for the others in every pool.
 */
struct fairq_key_share {
	atomic64_t key_vtime;
	atomic64_t active_weight;
};

/*
 * One class's clock and counters in one service.  @tat is the generic cell rate algorithm's
 * theoretical arrival time: when the next start is on schedule; a start may be made up to the
 * tolerance before it.
 */
struct fairq_class_clock {
	atomic64_t tat;
	u32 owner;
	u32 gen;
	atomic64_t dispatches;
	atomic64_t thread_ns;
	atomic64_t paced;
	atomic64_t paced_ns;
	atomic64_t reserved;
	/*
	 * Thread time as the classes share it: @vtime, thread time divided by the class's
	 * weight (the class with work and the lowest goes first); @keys, as its keys share it
	 * while classes share the threads as classes (its @active_weight is the weight of a
	 * class that has none of its own).
	 */
	atomic64_t vtime;
	struct fairq_key_share keys;
	/*
	 * Thread time in real time at the class's rate (its percent of all threads):
	 * @reserve_at, a class behind it (earlier than now) goes ahead of the others;
	 * @ceiling_at, a class ahead of it (later than now) waits.
	 */
	atomic64_t reserve_at;
	atomic64_t ceiling_at;
	/*
	 * Time the class had work while more than a quantum behind its reservation (@reserve_at
	 * earlier than now), counted by the pools as they look for work, serve the class or see it
	 * run out of work: @below_mark is how far it was counted (or when it last got work), so
	 * that two pools never count the same time.
	 */
	atomic64_t below_ns;
	atomic64_t below_mark;
	atomic64_t keys_waiting;	/* its keys with work, in all pools (a reservation's) */
} ____cacheline_aligned_in_smp;

/*
 * The clocks of one key of a class in one service, which the key's transports in all of the
 * service's pools share: its thread time within its class (@vtime), so that the class's keys
 * share it for the service as a whole, not pool by pool; and where the class limits each key,
 * the starts they book, so that "each client at most N/s" (or P% of the threads) holds for
 * the service.  Found (or made) in the service's table when a pool makes the key, held by
 * that key until freed.
 */
struct fairq_key_clock {
	struct fairq_keytab_node entry;	/* in the service's table, by the key's hash */
	struct fairq_key_id id;
	unsigned int refs;		/* the pools' keys holding it; the service's lock */
	u32 owner;			/* its class's: a clock is one key's in one class */
	u32 gen;			/* the class's limit it schedules */
	spinlock_t *lock;		/* the service's (fairq_pool_shared_lock()) */
	struct fairq_keytab *table;	/* the service's table it is in */
	atomic64_t tat;			/* as a class's @tat, for this key alone */
	atomic64_t ceiling_at;		/* as a class's @ceiling_at, for this key alone */
	atomic64_t paced;		/* times one of its keys waited for it */
	atomic64_t paced_ns;		/* how long, in all */
	atomic64_t vtime;		/* its thread time over its weight (fairq_key_share) */
	atomic64_t with_work;		/* its pools' keys with work, and its weight (fq) */
};

/*
 * A service's shared state as the classes use it: each class's clock, then the key clocks, and
 * how all keys share the threads while they take turns in one rotation (fq, several pools).
 */
struct fairq_classes_shared {
	struct fairq_class_clock clock[FAIRQ_CLASSES_MAX];
	struct fairq_keytab key_clocks;	/* its pages are freed as its last clock goes */
	struct fairq_key_share rotation;
};

struct fairq_key_clock *fairq_key_clock_get(void *shared, spinlock_t *lock,
					    const struct fairq_key_id *id, u32 hash,
					    const struct fairq_class_ref *ref);
void fairq_key_clock_put(struct fairq_key_clock *kc);
void fairq_class_of(struct fairq_classes __rcu **classes, const struct fairq_key_id *id,
		    const struct fairq_key_id *addr_id, struct fairq_class_ref *ref,
		    u32 *key_weight);
struct fairq_class_clock *fairq_class_clock(void *shared, const struct fairq_class_ref *ref);
u64 fairq_class_book(atomic64_t *tat_clock, const struct fairq_class_ref *ref, u64 now);
void fairq_class_unbook(atomic64_t *tat_clock, const struct fairq_class_ref *ref, u64 start,
			u64 now);
s64 fairq_class_time_ns(s64 thread_ns, unsigned int pct, unsigned int threads);
void fairq_class_time_charge(atomic64_t *at, s64 delta_ns, u64 floor_ns);
void fairq_class_below(struct fairq_class_clock *clock, u64 now, u64 slack_ns);
void fairq_class_below_from(struct fairq_class_clock *clock, u64 now);
bool fairq_classes_shared(struct fairq_classes __rcu **classes);
int fairq_classes_set(struct fairq_classes __rcu **classes, const struct fairq_class_spec *spec,
		      const char **why);
int fairq_classes_del(struct fairq_classes __rcu **classes, const char *name, const char **why);
int fairq_classes_walk(struct fairq_classes __rcu **classes, u64 *cursor, fairq_class_fn fn,
		       void *arg);
void fairq_classes_stats(struct fairq_classes __rcu **classes, void *shared, const char *name,
			 struct fairq_class_stats *out);
void fairq_class_name(struct fairq_classes __rcu **classes, const struct fairq_class_ref *ref,
		      char *buf, size_t len);
void fairq_classes_clear(struct fairq_classes __rcu **classes);

#endif
