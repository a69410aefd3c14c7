/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A table of keys for keyed policies (a pool's keys; a service's per-key clocks): grows
 * without rehashing, and a walk of it resumes where it stopped however much it grew in
 * between.
 *
 * Linear hashing: an entry's bucket is its hash's low bits, and each entry added past
 * FAIRQ_KEYTAB_LOAD entries a bucket splits one bucket in two, so lookups stay O(1) at 50,000
 * keys and no insertion ever rehashes the whole table under the pool lock.  Buckets come in
 * pages, allocated as the table reaches them (GFP_ATOMIC); a page that cannot be had only
 * postpones the split.  The table keeps its size until it is freed.
 *
 * Chains are kept in the order of the bit-reversed hash.  Whatever the table's size, a bucket
 * then holds one contiguous stretch of that order, so a walk that resumes after the table grew
 * (a netlink dump, one skb at a time) neither skips nor repeats an entry.
 *
 * The table does no locking of its own: its user serialises every call (the pool lock).
 */
#ifndef FAIRQ_SCHED_KEYTAB_H
#define FAIRQ_SCHED_KEYTAB_H

#include <linux/bits.h>
#include <linux/list.h>
#include <linux/types.h>

#define FAIRQ_KEYTAB_SEG_BITS	9	/* a page of buckets */
#define FAIRQ_KEYTAB_SEG_SIZE	BIT(FAIRQ_KEYTAB_SEG_BITS)
#define FAIRQ_KEYTAB_MAX_BITS	17	/* 131072 buckets at most, in 256 pages */
#define FAIRQ_KEYTAB_MAX_SEGS	BIT(FAIRQ_KEYTAB_MAX_BITS - FAIRQ_KEYTAB_SEG_BITS)
#define FAIRQ_KEYTAB_LOAD	2	/* entries per bucket before a split */

/* Embedded in each entry; @hash is set by the user before fairq_keytab_add(). */
struct fairq_keytab_node {
	struct hlist_node node;		/* its bucket's chain, in bit-reversed hash order */
	u32 hash;
};

struct fairq_keytab {
	struct hlist_head **segs;	/* FAIRQ_KEYTAB_MAX_SEGS pages, allocated as reached */
	unsigned int bits;		/* the table is 1 << bits buckets, */
	unsigned int split;		/* plus this many split off the first ones */
	unsigned int nr;		/* entries */
	u64 split_failures;		/* splits postponed: no page for the new bucket */
};

bool fairq_keytab_alloc(struct fairq_keytab *t);
void fairq_keytab_free(struct fairq_keytab *t, void (*free_entry)(struct fairq_keytab_node *n));
void fairq_keytab_add(struct fairq_keytab *t, struct fairq_keytab_node *n);
void fairq_keytab_del(struct fairq_keytab *t, struct fairq_keytab_node *n);
int fairq_keytab_walk(const struct fairq_keytab *t, u64 *cursor,
		      int (*fn)(struct fairq_keytab_node *n, void *arg), void *arg);

static inline bool fairq_keytab_ready(const struct fairq_keytab *t)
{
	return t->segs;
}

/* Buckets in use (0 before the first page). */
static inline unsigned int fairq_keytab_buckets(const struct fairq_keytab *t)
{
	return t->segs ? (1U << t->bits) + t->split : 0;
}

/* The bucket of @hash: its low bits, one more for the buckets already split. */
static inline unsigned int fairq_keytab_index(const struct fairq_keytab *t, u32 hash)
{
	unsigned int i = hash & ((1U << t->bits) - 1);

	return i < t->split ? hash & ((2U << t->bits) - 1) : i;
}

static inline struct hlist_head *fairq_keytab_bucket(const struct fairq_keytab *t,
						     unsigned int i)
{
	return &t->segs[i >> FAIRQ_KEYTAB_SEG_BITS][i & (FAIRQ_KEYTAB_SEG_SIZE - 1)];
}

/* The chain an entry of hash @hash is in. */
static inline struct hlist_head *fairq_keytab_chain(const struct fairq_keytab *t, u32 hash)
{
	return fairq_keytab_bucket(t, fairq_keytab_index(t, hash));
}

/* Every entry whose hash is @hash, and others: the caller compares.  The table is ready. */
#define fairq_keytab_for_each_possible(t, pos, member, hash)				\
	hlist_for_each_entry(pos, fairq_keytab_chain(t, hash), member.node)

#endif
