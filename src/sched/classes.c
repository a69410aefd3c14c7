// SPDX-License-Identifier: GPL-2.0-only
/*
 * QoS classes of a keyed policy (classes.h).
 *
 * The rules are one table, replaced whole under the change lock and read under RCU: a key
 * takes its class when it is made, and a change rebuilds the policy's keys.  A class's limit
 * is a rate clock (the generic cell rate algorithm, as ATM policers and many rate limiters
 * use) in a state every pool of a service shares: pools book its starts with one
 * compare-and-exchange, so a limit of N/s holds for the service however many pools it has,
 * and nothing is summed or split between them.
 */
#include <linux/ctype.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/time64.h>
#include "classes.h"
#include "keys.h"

#define DEFAULT_NAME	"default"

/*
 * Owners and generations of the clocks: new numbers for each class made and each limit set,
 * so that a clock left by a class that is gone, or a schedule of an older limit, is reset by
 * the first key that uses it.  1 is the default class's owner.  Change lock held.
 */
static u32 next_stamp = 2;

static u32 new_stamp(void)
{
	return next_stamp++;
}

/* The default class as it is while no rule was ever set: no limit, slot 0, last. */
static void default_class(struct fairq_class *c)
{
	memset(c, 0, sizeof(*c));
	strscpy(c->spec.name, DEFAULT_NAME, sizeof(c->spec.name));
	c->spec.burst = 1;
	c->owner = 1;
}

static bool is_default(const char *name)
{
	return !strcmp(name, DEFAULT_NAME);
}

static void ref_of(const struct fairq_class *c, struct fairq_class_ref *ref, u32 *key_weight)
{
	if (key_weight)
		*key_weight = c->spec.per_key ? c->spec.weight : 0;
	ref->slot = c->slot;
	ref->owner = c->owner;
	ref->gen = c->gen;
	ref->counted = c->spec.nr_match || c->spec.limit_rps || c->spec.weight ||
		       c->spec.reserve_pct || c->spec.limit_pct;
	ref->interval_ns = c->spec.limit_rps ? div_u64(NSEC_PER_SEC, c->spec.limit_rps) : 0;
	ref->tolerance_ns = ref->interval_ns * (c->spec.burst ? c->spec.burst - 1 : 0);
	ref->weight = c->spec.per_key ? 0 : c->spec.weight;
	ref->per_key = c->spec.per_key;
	ref->reserve_pct = c->spec.reserve_pct;
	ref->limit_pct = c->spec.limit_pct;
}

/**
 * fairq_class_of - the class of a key
 * @classes: the policy's classes
 * @id: the key
 * @addr_id: its address key (the same as @id unless keyed by NFSv4.1 client id)
 * @ref: what the key keeps of its class
 * @key_weight: if not NULL, the weight its class gives each key (per-key), else 0
 *
 * The first class in rank order with a match for @id, or else for @addr_id; the default
 * class when none has.
 */
void fairq_class_of(struct fairq_classes __rcu **classes, const struct fairq_key_id *id,
		    const struct fairq_key_id *addr_id, struct fairq_class_ref *ref,
		    u32 *key_weight)
{
	const struct fairq_classes *t;
	struct fairq_class dflt;
	unsigned int i, m;

	rcu_read_lock();
	t = rcu_dereference(*classes);
	if (!t) {
		default_class(&dflt);
		ref_of(&dflt, ref, key_weight);
		goto out;
	}
	for (i = 0; i + 1 < t->nr; i++) {
		const struct fairq_class *c = &t->cls[i];

		for (m = 0; m < c->spec.nr_match; m++) {
			if (fairq_key_rule_matches(&c->spec.match[m], id) ||
			    fairq_key_rule_matches(&c->spec.match[m], addr_id)) {
				ref_of(c, ref, key_weight);
				goto out;
			}
		}
	}
	ref_of(&t->cls[t->nr - 1], ref, key_weight);
out:
	rcu_read_unlock();
}

/**
 * fairq_class_clock - a class's clock in a service
 * @shared: the service's shared state (fairq_pool_shared())
 * @ref: the class, as a key keeps it
 *
 * A clock last used by a class that is gone starts afresh (counters too), one with an older
 * limit's schedule starts its schedule afresh.  Two pools doing so at once cost at most a
 * start beyond the limit, once.  A key made before a change (its pool not yet rebuilt) uses
 * the clock as it finds it.
 */
struct fairq_class_clock *fairq_class_clock(void *shared, const struct fairq_class_ref *ref)
{
	struct fairq_classes_shared *state = shared;
	struct fairq_class_clock *clock = &state->clock[ref->slot];
	u32 owner = READ_ONCE(clock->owner);

	BUILD_BUG_ON(sizeof(struct fairq_classes_shared) > FAIRQ_SCHED_SHARED_BYTES);
	if (unlikely(owner != ref->owner) && (s32)(ref->owner - owner) > 0) {
		atomic64_set(&clock->dispatches, 0);
		atomic64_set(&clock->thread_ns, 0);
		atomic64_set(&clock->paced, 0);
		atomic64_set(&clock->paced_ns, 0);
		atomic64_set(&clock->reserved, 0);
		atomic64_set(&clock->below_ns, 0);
		atomic64_set(&clock->below_mark, 0);
		/* @keys_waiting, as @keys.active_weight, is its keys' own count */
		atomic64_set(&clock->tat, 0);
		atomic64_set(&clock->reserve_at, 0);
		atomic64_set(&clock->ceiling_at, 0);
		/*
		 * @vtime is compared with the other classes': a new class starts where the
		 * pool that first serves it is (fq clamps it); @keys.active_weight is its keys'
		 * own count, which they take back as they leave
		 */
		WRITE_ONCE(clock->gen, ref->gen);
		WRITE_ONCE(clock->owner, ref->owner);
	} else if (unlikely(READ_ONCE(clock->gen) != ref->gen) &&
		   (s32)(ref->gen - READ_ONCE(clock->gen)) > 0) {
		atomic64_set(&clock->tat, 0);
		atomic64_set(&clock->reserve_at, 0);
		atomic64_set(&clock->ceiling_at, 0);
		WRITE_ONCE(clock->gen, ref->gen);
	}
	return clock;
}

/**
 * fairq_key_clock_get - the clocks of a key of a class, in a service
 * @shared: the service's shared state (fairq_pool_shared())
 * @lock: the service's lock (fairq_pool_shared_lock())
 * @id: the key
 * @hash: its hash, as its pool's table has it
 * @ref: its class
 *
 * The clock the key's transports in the service's other pools already use, or a new one
 * (GFP_ATOMIC: called as a pool makes the key, under its lock).  A clock is the key's in one
 * class: an NFSv4.1 client whose connections come from addresses of two classes has one in
 * each.  A newer limit of the class (a change; the pools' keys are rebuilt one pool after
 * another) starts its schedule afresh.  Release it with fairq_key_clock_put().
 *
 * Return: the clock, or NULL if none could be allocated.
 */
struct fairq_key_clock *fairq_key_clock_get(void *shared, spinlock_t *lock,
					    const struct fairq_key_id *id, u32 hash,
					    const struct fairq_class_ref *ref)
{
	struct fairq_keytab *t = &((struct fairq_classes_shared *)shared)->key_clocks;
	struct fairq_key_clock *kc;

	spin_lock_bh(lock);
	if (!fairq_keytab_ready(t) && !fairq_keytab_alloc(t)) {
		kc = NULL;
		goto out;
	}
	fairq_keytab_for_each_possible(t, kc, entry, hash) {
		if (kc->entry.hash == hash && kc->owner == ref->owner &&
		    !memcmp(&kc->id, id, sizeof(*id)))
			goto found;
	}
	kc = kzalloc(sizeof(*kc), GFP_ATOMIC | __GFP_NOWARN);
	if (!kc) {
		if (!t->nr)
			fairq_keytab_free(t, NULL);
		goto out;
	}
	kc->id = *id;
	kc->owner = ref->owner;
	kc->gen = ref->gen;
	kc->lock = lock;
	kc->table = t;
	kc->entry.hash = hash;
	fairq_keytab_add(t, &kc->entry);
found:
	/* a key of a pool not yet rebuilt (an older limit) uses the clock as it finds it */
	if (kc->gen != ref->gen && (s32)(ref->gen - kc->gen) > 0) {
		atomic64_set(&kc->tat, 0);
		atomic64_set(&kc->ceiling_at, 0);
		kc->gen = ref->gen;
	}
	kc->refs++;
out:
	spin_unlock_bh(lock);
	return kc;
}

/* A key is done with its clock: the last key of the service frees it. */
void fairq_key_clock_put(struct fairq_key_clock *kc)
{
	spinlock_t *lock = kc->lock;
	struct fairq_keytab *t = kc->table;

	spin_lock_bh(lock);
	if (!--kc->refs) {
		fairq_keytab_del(t, &kc->entry);
		kfree(kc);
		if (!t->nr)
			fairq_keytab_free(t, NULL);
	}
	spin_unlock_bh(lock);
}

/**
 * fairq_class_book - take the next start a limited class's clock allows
 * @tat_clock: the class's clock in the service (or a key's: fairq_key_clock)
 * @ref: the class, with a limit
 * @now: ktime_get_ns()
 *
 * The generic cell rate algorithm as a scheduler rather than a policer: the start is booked
 * at the first time that keeps the class within its limit and burst, @now or later, and the
 * clock moves on by one interval.  Keys that wait for the class, in whichever pool, so get
 * its starts in the order they asked: none is passed over because another pool's key
 * happens to ask first each time a start falls due.
 *
 * Return: when the booked start may be made (at most @now: at once).
 */
u64 fairq_class_book(atomic64_t *tat_clock, const struct fairq_class_ref *ref, u64 now)
{
	s64 tat = atomic64_read(tat_clock);
	s64 start;

	do {
		start = max_t(s64, now, tat - (s64)ref->tolerance_ns);
	} while (!atomic64_try_cmpxchg(tat_clock, &tat,
				       max_t(s64, tat, start) + ref->interval_ns));
	return start;
}

/**
 * fairq_class_unbook - give back a booked start that will not be made
 * @tat_clock: the clock it was booked from
 * @ref: the class, with a limit
 * @start: when the start was booked for
 * @now: ktime_get_ns()
 *
 * A start still to come is taken off the end of the schedule (the next booking comes an
 * interval sooner); one that fell due is spent, and stays so: giving it back would let the
 * class past its burst.
 */
void fairq_class_unbook(atomic64_t *tat_clock, const struct fairq_class_ref *ref, u64 start,
			u64 now)
{
	s64 tat = atomic64_read(tat_clock);

	if (start <= now)
		return;
	do {
		if (tat <= (s64)now)
			return;
	} while (!atomic64_try_cmpxchg(tat_clock, &tat,
				       max_t(s64, now, tat - (s64)ref->interval_ns)));
}

/**
 * fairq_class_time_ns - real time a class's thread time takes at its rate
 * @thread_ns: thread time used (negative: less than was paid for)
 * @pct: the class's percent of the service's threads
 * @threads: the service's threads (at least 1 is assumed)
 *
 * A class with 25% of 8 threads uses two threads' time: 1 ms of thread time takes 0.5 ms
 * of its reservation or its ceiling.
 */
s64 fairq_class_time_ns(s64 thread_ns, unsigned int pct, unsigned int threads)
{
	return div64_s64(thread_ns * 100, pct * max_t(unsigned int, threads, 1));
}

/**
 * fairq_class_time_charge - move a reservation's or a ceiling's clock on by @delta_ns
 * @at: the clock
 * @delta_ns: real time at the class's rate (negative: a request cost less than paid for)
 * @floor_ns: the earliest the clock may be before a charge: a class that had no work does
 *	not save up its rate for later beyond it
 */
void fairq_class_time_charge(atomic64_t *at, s64 delta_ns, u64 floor_ns)
{
	s64 old = atomic64_read(at);

	if (delta_ns < 0) {
		atomic64_add(delta_ns, at);
		return;
	}
	while (!atomic64_try_cmpxchg(at, &old, max_t(s64, old, floor_ns) + delta_ns))
		;
}

/**
 * fairq_class_below - count the time a class with work was behind its reservation
 * @clock: the class's clock in the service
 * @now: ktime_get_ns(), as a pool looking for work found the class with work, served it, or
 *	saw its last work go
 * @slack_ns: how far behind it may be without counting: a class served exactly at its
 *	reservation is always a request or so behind or ahead of it
 *
 * Its reservation clock only moves on as the class is paid, so a class more than @slack_ns
 * behind it now has been since that clock's time plus @slack_ns at the latest: that much,
 * from where the count stands, is added.
 */
void fairq_class_below(struct fairq_class_clock *clock, u64 now, u64 slack_ns)
{
	s64 mark = atomic64_read(&clock->below_mark), from;

	do {
		from = max_t(s64, mark, atomic64_read(&clock->reserve_at) + (s64)slack_ns);
		if (from >= (s64)now)
			return;
	} while (!atomic64_try_cmpxchg(&clock->below_mark, &mark, now));
	atomic64_add(now - from, &clock->below_ns);
}

/**
 * fairq_class_below_from - nothing before @now counts as below the reservation
 * @clock: the class's clock in the service
 * @now: ktime_get_ns(), as the class gets work after it had none (in any pool)
 *
 * A class without work keeps its reservation's clock where it was: the time it had nothing
 * to do is not time it waited for its reservation.
 */
void fairq_class_below_from(struct fairq_class_clock *clock, u64 now)
{
	s64 mark = atomic64_read(&clock->below_mark);

	while (mark < (s64)now && !atomic64_try_cmpxchg(&clock->below_mark, &mark, now))
		;
}

static bool name_valid(const char *name)
{
	size_t i, len = strnlen(name, FAIRQ_CLASS_NAME_LEN + 1);

	if (!len || len > FAIRQ_CLASS_NAME_LEN)
		return false;
	for (i = 0; i < len; i++) {
		if (!isalnum(name[i]) && name[i] != '_' && name[i] != '-' && name[i] != '.')
			return false;
	}
	return true;
}

/* The checks of a set that need no table; *@why says what is wrong. */
static int spec_check(const struct fairq_class_spec *spec, const char **why)
{
	unsigned int i;

	if (!name_valid(spec->name)) {
		*why = "a class name is 1 to 15 letters, digits, '_', '-' or '.'";
		return -EINVAL;
	}
	if (is_default(spec->name) && spec->create) {
		*why = "the default class always exists: change it";
		return -EEXIST;
	}
	if (is_default(spec->name) && (spec->set_rank || spec->set_match)) {
		*why = "the default class takes all other clients: it has no rank or matches";
		return -EINVAL;
	}
	if (spec->set_match && (!spec->nr_match || spec->nr_match > FAIRQ_CLASS_MATCH_MAX)) {
		*why = "a class takes 1 to 8 matches";
		return -EINVAL;
	}
	for (i = 0; spec->set_match && i < spec->nr_match; i++) {
		if (!fairq_key_rule_valid(&spec->match[i])) {
			*why = "a match is an address, a subnet or an NFSv4.1 client id";
			return -EINVAL;
		}
	}
	if (spec->set_limit && spec->limit_rps > FAIRQ_CLASS_LIMIT_MAX) {
		*why = "a limit is at most 10000000 requests per second (0: none)";
		return -ERANGE;
	}
	if (spec->set_burst && (!spec->burst || spec->burst > FAIRQ_CLASS_BURST_MAX)) {
		*why = "a burst is 1 to 100000 requests";
		return -ERANGE;
	}
	if (spec->set_weight && spec->weight > FAIRQ_CLASS_WEIGHT_MAX) {
		*why = "a class's weight is 1 to 10000 (0: none)";
		return -ERANGE;
	}
	if (spec->set_reserve && spec->reserve_pct > 100) {
		*why = "a reservation is 0 to 100 percent of the threads";
		return -ERANGE;
	}
	if (spec->set_limit_pct && spec->limit_pct > 100) {
		*why = "a limit is 1 to 100 percent of the threads (0: none)";
		return -ERANGE;
	}
	return 0;
}

/*
 * The checks of a class as a change leaves it, with the others of @t: reservations that add
 * up, and what per-key applies to.
 */
static int class_check(const struct fairq_classes *t, const struct fairq_class *c,
		       const char **why)
{
	unsigned int i, reserved = 0;

	for (i = 0; i < t->nr; i++)
		reserved += t->cls[i].spec.reserve_pct;
	if (reserved > 100) {
		*why = "the classes' reservations would add up to more than 100%";
		return -ERANGE;
	}
	if (c->spec.limit_pct && c->spec.reserve_pct > c->spec.limit_pct) {
		*why = "a class's reservation cannot be above its own limit";
		return -EINVAL;
	}
	if (c->spec.per_key && !c->spec.weight && !c->spec.limit_rps && !c->spec.limit_pct) {
		*why = "per-key gives each key the class's weight or limits: give it one";
		return -EINVAL;
	}
	/* N clients each promised P% may be more than all the threads: no promise at all */
	if (c->spec.per_key && c->spec.reserve_pct) {
		*why = "per-key applies to a weight and limits, not to a reservation";
		return -EINVAL;
	}
	return 0;
}

/* The table as it is, with the default class made explicit: a copy with room for one more. */
static struct fairq_classes *table_copy(const struct fairq_classes *old)
{
	unsigned int n = old ? old->nr : 1;
	struct fairq_classes *t = kzalloc(struct_size(t, cls, n + 1), GFP_KERNEL);

	if (!t)
		return NULL;
	if (old) {
		memcpy(t->cls, old->cls, n * sizeof(t->cls[0]));
	} else {
		default_class(&t->cls[0]);
		t->cls[0].gen = new_stamp();
	}
	t->nr = n;
	return t;
}

static int find(const struct fairq_classes *t, const char *name)
{
	unsigned int i;

	for (i = 0; i < t->nr; i++) {
		if (!strcmp(t->cls[i].spec.name, name))
			return i;
	}
	return -1;
}

/* A slot no class of @t has: there is one, @t holds fewer than FAIRQ_CLASSES_MAX classes. */
static u32 free_slot(const struct fairq_classes *t)
{
	u32 slot;
	unsigned int i;

	for (slot = 1; slot < FAIRQ_CLASSES_MAX; slot++) {
		for (i = 0; i < t->nr && t->cls[i].slot != slot; i++)
			;
		if (i == t->nr)
			break;
	}
	return slot;
}

/* Back into rank order, the default class last; @i is the class that moved (or came). */
static void reorder(struct fairq_classes *t, unsigned int i)
{
	struct fairq_class c = t->cls[i];

	memmove(&t->cls[i], &t->cls[i + 1], (t->nr - i - 1) * sizeof(c));
	for (i = 0; i + 2 < t->nr && t->cls[i].spec.rank < c.spec.rank; i++)
		;
	memmove(&t->cls[i + 1], &t->cls[i], (t->nr - i - 1) * sizeof(c));
	t->cls[i] = c;
}

static void publish(struct fairq_classes __rcu **classes, struct fairq_classes *t)
{
	struct fairq_classes *old = rcu_dereference_protected(*classes, fairq_change_held());

	rcu_assign_pointer(*classes, t);
	if (old)
		kfree_rcu(old, rcu);
}

/**
 * fairq_classes_set - make or change a class
 * @classes: the policy's classes; the caller holds fairq's change lock
 * @spec: the class; for a change, what it sets
 * @why: on an error, what was refused
 *
 * Return: 0, and the policy's keys take their classes when rebuilt; -EINVAL, -ERANGE for a
 * bad name, match, limit or burst; -EEXIST for a name in use (or "default") with @create;
 * -ENOENT for an unknown class without it; -EBUSY for a rank another class has; -ENOSPC
 * past FAIRQ_CLASSES_MAX classes; -ENOMEM.  Nothing changed on an error.
 */
int fairq_classes_set(struct fairq_classes __rcu **classes, const struct fairq_class_spec *spec,
		      const char **why)
{
	const struct fairq_classes *old = rcu_dereference_protected(*classes, fairq_change_held());
	struct fairq_classes *t;
	struct fairq_class *c;
	unsigned int i;
	int err, at;

	err = spec_check(spec, why);
	if (err)
		return err;
	t = table_copy(old);
	if (!t) {
		*why = "no memory for the classes";
		return -ENOMEM;
	}
	at = find(t, spec->name);
	if (spec->create && at >= 0) {
		*why = "a class of that name exists: change it";
		err = -EEXIST;
		goto fail;
	}
	if (!spec->create && at < 0) {
		*why = "no class of that name";
		err = -ENOENT;
		goto fail;
	}
	if (spec->create && t->nr >= FAIRQ_CLASSES_MAX) {
		*why = "fairq holds at most 32 classes, the default one included";
		err = -ENOSPC;
		goto fail;
	}
	for (i = 0; spec->set_rank && i + 1 < t->nr; i++) {
		if ((int)i != at && t->cls[i].spec.rank == spec->rank) {
			*why = "another class has that rank";
			err = -EBUSY;
			goto fail;
		}
	}
	if (spec->create) {
		/* before the default class, which stays last */
		at = t->nr - 1;
		t->cls[at + 1] = t->cls[at];
		t->nr++;
		c = &t->cls[at];
		memset(c, 0, sizeof(*c));
		strscpy(c->spec.name, spec->name, sizeof(c->spec.name));
		c->spec.set_rank = true;
		c->spec.burst = 1;
		/* the next rank after the last: classes match in the order they were made */
		if (at && !spec->set_rank && t->cls[at - 1].spec.rank == U32_MAX) {
			*why = "no rank is left after the last class's: give the class one";
			err = -ERANGE;
			goto fail;
		}
		c->spec.rank = at ? t->cls[at - 1].spec.rank + 1 : 1;
		c->slot = free_slot(t);
		c->owner = new_stamp();
		c->gen = new_stamp();
	}
	c = &t->cls[at];
	if (spec->set_rank)
		c->spec.rank = spec->rank;
	if (spec->set_match) {
		c->spec.nr_match = spec->nr_match;
		memcpy(c->spec.match, spec->match, spec->nr_match * sizeof(spec->match[0]));
	}
	if ((spec->set_limit && spec->limit_rps != c->spec.limit_rps) ||
	    (spec->set_burst && spec->burst != c->spec.burst) ||
	    (spec->set_reserve && spec->reserve_pct != c->spec.reserve_pct) ||
	    (spec->set_limit_pct && spec->limit_pct != c->spec.limit_pct))
		c->gen = new_stamp();
	if (spec->set_limit)
		c->spec.limit_rps = spec->limit_rps;
	if (spec->set_burst)
		c->spec.burst = spec->burst;
	if (spec->set_weight)
		c->spec.weight = spec->weight;
	if (spec->set_reserve)
		c->spec.reserve_pct = spec->reserve_pct;
	if (spec->set_limit_pct)
		c->spec.limit_pct = spec->limit_pct;
	if (spec->set_per_key)
		c->spec.per_key = spec->per_key;
	err = class_check(t, c, why);
	if (err)
		goto fail;
	c->spec.create = false;
	c->spec.set_match = false;
	c->spec.set_limit = false;
	c->spec.set_burst = false;
	c->spec.set_weight = false;
	c->spec.set_reserve = false;
	c->spec.set_limit_pct = false;
	c->spec.set_per_key = false;
	if (!is_default(c->spec.name))
		reorder(t, at);
	publish(classes, t);
	return 0;
fail:
	kfree(t);
	return err;
}

/**
 * fairq_classes_del - delete a class
 * @classes: the policy's classes; the caller holds fairq's change lock
 * @name: the class
 * @why: on an error, what was refused
 *
 * Return: 0, and its keys take their next class when rebuilt; -ENOENT for an unknown class;
 * -EINVAL for the default class; -ENOMEM.
 */
int fairq_classes_del(struct fairq_classes __rcu **classes, const char *name, const char **why)
{
	const struct fairq_classes *old = rcu_dereference_protected(*classes, fairq_change_held());
	struct fairq_classes *t;
	int at;

	if (is_default(name)) {
		*why = "the default class cannot be deleted";
		return -EINVAL;
	}
	at = old ? find(old, name) : -1;
	if (at < 0) {
		*why = "no class of that name";
		return -ENOENT;
	}
	t = table_copy(old);
	if (!t) {
		*why = "no memory for the classes";
		return -ENOMEM;
	}
	memmove(&t->cls[at], &t->cls[at + 1], (t->nr - at - 1) * sizeof(t->cls[0]));
	t->nr--;
	publish(classes, t);
	return 0;
}

/**
 * fairq_classes_walk - report the classes in matching order, the default one last
 * @classes: the policy's classes
 * @cursor: 0 for the first; where @fn stopped, on a non-zero return
 * @fn: called for each class; must not sleep
 * @arg: for @fn
 *
 * Return: 0, or @fn's non-zero value.
 */
int fairq_classes_walk(struct fairq_classes __rcu **classes, u64 *cursor, fairq_class_fn fn,
		       void *arg)
{
	const struct fairq_classes *t;
	struct fairq_class dflt;
	int err = 0;

	rcu_read_lock();
	t = rcu_dereference(*classes);
	if (!t) {
		default_class(&dflt);
		if (!*cursor)
			err = fn(&dflt.spec, arg);
		if (!err)
			*cursor = 1;
		goto out;
	}
	for (; *cursor < t->nr; (*cursor)++) {
		err = fn(&t->cls[*cursor].spec, arg);
		if (err)
			break;
	}
out:
	rcu_read_unlock();
	return err;
}

/**
 * fairq_classes_stats - add a class's counters in one service to @out
 * @classes: the policy's classes
 * @shared: the service's shared state
 * @name: the class; nothing is added for an unknown one
 * @out: the sums
 */
void fairq_classes_stats(struct fairq_classes __rcu **classes, void *shared, const char *name,
			 struct fairq_class_stats *out)
{
	const struct fairq_classes *t;
	const struct fairq_class_clock *clock;
	int at;

	rcu_read_lock();
	t = rcu_dereference(*classes);
	at = t ? find(t, name) : -1;
	if (at >= 0) {
		clock = &((const struct fairq_classes_shared *)shared)->clock[t->cls[at].slot];
		/* a clock no key of this class has used yet still holds another's counts */
		if (READ_ONCE(clock->owner) == t->cls[at].owner) {
			out->dispatches += atomic64_read(&clock->dispatches);
			out->thread_ns += atomic64_read(&clock->thread_ns);
			out->paced += atomic64_read(&clock->paced);
			out->paced_ns += atomic64_read(&clock->paced_ns);
			out->reserved += atomic64_read(&clock->reserved);
			out->below_ns += atomic64_read(&clock->below_ns);
		}
	}
	rcu_read_unlock();
}

/**
 * fairq_classes_shared - whether classes share the threads as classes
 * @classes: the policy's classes
 *
 * Return: true if a class has a weight of its own (not per key) or a reservation: its keys
 * then take their turns as a class, apart from the others'.  Otherwise every key is in one
 * rotation, as without classes.
 */
bool fairq_classes_shared(struct fairq_classes __rcu **classes)
{
	const struct fairq_classes *t;
	bool shared = false;
	unsigned int i;

	rcu_read_lock();
	t = rcu_dereference(*classes);
	for (i = 0; t && i < t->nr && !shared; i++) {
		const struct fairq_class_spec *c = &t->cls[i].spec;

		shared = (c->weight && !c->per_key) || c->reserve_pct;
	}
	rcu_read_unlock();
	return shared;
}

/**
 * fairq_class_name - the name of a key's class, for a tracepoint
 * @classes: the policy's classes
 * @ref: the class, as the key keeps it
 * @buf: the name, or "?" for a class deleted since the key was made
 * @len: its size
 */
void fairq_class_name(struct fairq_classes __rcu **classes, const struct fairq_class_ref *ref,
		      char *buf, size_t len)
{
	const struct fairq_classes *t;
	unsigned int i;

	strscpy(buf, ref->owner == 1 ? DEFAULT_NAME : "?", len);
	rcu_read_lock();
	t = rcu_dereference(*classes);
	for (i = 0; t && i < t->nr; i++) {
		if (t->cls[i].owner == ref->owner) {
			strscpy(buf, t->cls[i].spec.name, len);
			break;
		}
	}
	rcu_read_unlock();
}

/**
 * fairq_classes_clear - drop every class (the policy is unregistered)
 * @classes: the policy's classes, which no reader uses any more
 */
void fairq_classes_clear(struct fairq_classes __rcu **classes)
{
	struct fairq_classes *t = rcu_dereference_protected(*classes, true);

	rcu_assign_pointer(*classes, NULL);
	if (t)
		kfree_rcu(t, rcu);
}
