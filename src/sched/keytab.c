// SPDX-License-Identifier: GPL-2.0-only
/*
 * The table of a pool's keys (keytab.h): linear hashing over pages of buckets, chains in
 * bit-reversed hash order, and a walk that resumes by hash.
 */
#include <linux/bitrev.h>
#include <linux/slab.h>
#include "keytab.h"

/* How many low bits of the hash bucket @i stands for. */
static unsigned int bucket_bits(const struct fairq_keytab *t, unsigned int i)
{
	return i < t->split || i >= (1U << t->bits) ? t->bits + 1 : t->bits;
}

/* Into its chain after every entry that comes no later in bit-reversed hash order. */
static void chain_insert(struct hlist_head *head, struct fairq_keytab_node *n)
{
	struct fairq_keytab_node *pos, *last = NULL;
	u32 rev = bitrev32(n->hash);

	hlist_for_each_entry(pos, head, node) {
		if (bitrev32(pos->hash) > rev)
			break;
		last = pos;
	}
	if (last)
		hlist_add_behind(&n->node, &last->node);
	else
		hlist_add_head(&n->node, head);
}

static struct hlist_head *seg_alloc(void)
{
	return kcalloc(FAIRQ_KEYTAB_SEG_SIZE, sizeof(struct hlist_head),
		       GFP_ATOMIC | __GFP_NOWARN);
}

/*
 * Past FAIRQ_KEYTAB_LOAD entries a bucket, split the next bucket: the entries whose next hash
 * bit is set move to the new bucket at the end of the table, in the order they had.
 * O(chain), once per new entry.
 */
static void grow(struct fairq_keytab *t)
{
	unsigned int size = 1U << t->bits, to = size + t->split;
	struct fairq_keytab_node *n;
	struct hlist_node *tmp, *tail = NULL;
	struct hlist_head *dst;

	if (t->nr <= FAIRQ_KEYTAB_LOAD * to || t->bits >= FAIRQ_KEYTAB_MAX_BITS)
		return;
	if (!t->segs[to >> FAIRQ_KEYTAB_SEG_BITS]) {
		t->segs[to >> FAIRQ_KEYTAB_SEG_BITS] = seg_alloc();
		if (!t->segs[to >> FAIRQ_KEYTAB_SEG_BITS]) {
			t->split_failures++;
			return;
		}
	}
	dst = fairq_keytab_bucket(t, to);
	hlist_for_each_entry_safe(n, tmp, fairq_keytab_bucket(t, t->split), node) {
		if (!(n->hash & size))
			continue;
		hlist_del(&n->node);
		if (tail)
			hlist_add_behind(&n->node, tail);
		else
			hlist_add_head(&n->node, dst);
		tail = &n->node;
	}
	if (++t->split == size) {
		t->bits++;
		t->split = 0;
	}
}

/**
 * fairq_keytab_alloc - the first page of buckets, for the first entry
 * @t: a zeroed table
 *
 * Return: whether the table is ready; it can be tried again later (GFP_ATOMIC).
 */
bool fairq_keytab_alloc(struct fairq_keytab *t)
{
	t->segs = kcalloc(FAIRQ_KEYTAB_MAX_SEGS, sizeof(*t->segs), GFP_ATOMIC | __GFP_NOWARN);
	if (!t->segs)
		return false;
	t->segs[0] = seg_alloc();
	if (!t->segs[0]) {
		kfree(t->segs);
		t->segs = NULL;
		return false;
	}
	t->bits = FAIRQ_KEYTAB_SEG_BITS;
	t->split = 0;
	return true;
}

/**
 * fairq_keytab_free - free the table, and each entry with @free_entry (NULL: it has none)
 * @t: the table, ready or not; zeroed after
 * @free_entry: called for every entry still in the table
 */
void fairq_keytab_free(struct fairq_keytab *t, void (*free_entry)(struct fairq_keytab_node *n))
{
	unsigned int i, used = fairq_keytab_buckets(t);
	struct fairq_keytab_node *n;
	struct hlist_node *tmp;

	if (!t->segs)
		return;
	for (i = 0; free_entry && i < used; i++) {
		hlist_for_each_entry_safe(n, tmp, fairq_keytab_bucket(t, i), node)
			free_entry(n);
	}
	for (i = 0; i < FAIRQ_KEYTAB_MAX_SEGS; i++)
		kfree(t->segs[i]);
	kfree(t->segs);
	memset(t, 0, sizeof(*t));
}

/**
 * fairq_keytab_add - add @n (its hash set) to a ready table, which may grow by one bucket
 * @t: the table
 * @n: the new entry
 */
void fairq_keytab_add(struct fairq_keytab *t, struct fairq_keytab_node *n)
{
	chain_insert(fairq_keytab_bucket(t, fairq_keytab_index(t, n->hash)), n);
	t->nr++;
	grow(t);
}

/**
 * fairq_keytab_del - take @n out of the table
 * @t: the table
 * @n: an entry of @t
 */
void fairq_keytab_del(struct fairq_keytab *t, struct fairq_keytab_node *n)
{
	hlist_del(&n->node);
	t->nr--;
}

/*
 * A walk's position: 1 + the bit-reversed hash of the entry to report next, shifted left by
 * 8, plus how many entries of that same hash come before it; 0 is the start.  It means the
 * same however much the table grows in between.
 */
#define CURSOR_TIES	8

/**
 * fairq_keytab_walk - report the entries to @fn from the position *@cursor
 * @t: the table
 * @cursor: 0 for the first entry; where a walk that stopped early left it
 * @fn: called for each entry; a non-zero return stops the walk
 * @arg: for @fn
 *
 * Entries added or deleted between two walks may be missed or reported twice; the others
 * are reported once, in the order of their bit-reversed hashes.
 *
 * Return: 0 at the end of the table, or @fn's non-zero value, with *@cursor at the entry
 * @fn stopped at (reported again by the next walk from there).
 */
int fairq_keytab_walk(const struct fairq_keytab *t, u64 *cursor,
		      int (*fn)(struct fairq_keytab_node *n, void *arg), void *arg)
{
	u64 pos = 0, skip = 0, end;
	unsigned int i, bits, ties;
	struct fairq_keytab_node *n;
	u32 rev, prev = 0;
	bool seen;
	int ret;

	if (!t->segs)
		return 0;
	if (*cursor) {
		pos = (*cursor - 1) >> CURSOR_TIES;
		skip = (*cursor - 1) & ((1U << CURSOR_TIES) - 1);
	}
	/* bucket by bucket, each the stretch of reversed hashes that starts at pos */
	for (; pos < BIT_ULL(32); pos = end, skip = 0) {
		i = fairq_keytab_index(t, bitrev32((u32)pos));
		bits = bucket_bits(t, i);
		end = ((pos >> (32 - bits)) + 1) << (32 - bits);
		ties = 0;
		seen = false;
		hlist_for_each_entry(n, fairq_keytab_bucket(t, i), node) {
			rev = bitrev32(n->hash);
			if (rev < pos)
				continue;
			ties = seen && rev == prev ? ties + 1 : 0;
			prev = rev;
			seen = true;
			if (rev == pos && ties < skip)
				continue;
			ret = fn(n, arg);
			if (ret) {
				*cursor = 1 + ((u64)rev << CURSOR_TIES |
					       min_t(u32, ties, (1U << CURSOR_TIES) - 1));
				return ret;
			}
		}
	}
	return 0;
}
