// SPDX-License-Identifier: GPL-2.0-only
/*
 * The key table of keyed policies (src/sched/keytab.c) on its own, against the kernel shim:
 * it grows without losing an entry, keeps every chain in order, survives a bucket page that
 * cannot be had, and a walk resumed after any growth, deletion or run of equal hashes
 * reports every entry that stayed exactly once.  Prints "N passed, N failed".
 */
#include "kshim.h"
#include "../../src/sched/keytab.c"
#include "check.h"
#include "kshim-state.h"

struct item {
	struct fairq_keytab_node entry;
	unsigned int id;
};

static unsigned int freed;

static u32 hash_of(unsigned int id)
{
	return jhash(&id, sizeof(id), 0);
}

static struct item *items(unsigned int n)
{
	struct item *it = calloc(n, sizeof(*it));
	unsigned int i;

	for (i = 0; i < n; i++) {
		it[i].id = i;
		it[i].entry.hash = hash_of(i);
	}
	return it;
}

static struct item *find(struct fairq_keytab *t, unsigned int id)
{
	u32 hash = hash_of(id);
	struct item *it;

	fairq_keytab_for_each_possible(t, it, entry, hash) {
		if (it->entry.hash == hash && it->id == id)
			return it;
	}
	return NULL;
}

static unsigned int longest_chain(const struct fairq_keytab *t)
{
	unsigned int i, n, most = 0;
	struct fairq_keytab_node *e;

	for (i = 0; i < fairq_keytab_buckets(t); i++) {
		n = 0;
		hlist_for_each_entry(e, fairq_keytab_bucket(t, i), node)
			n++;
		most = n > most ? n : most;
	}
	return most;
}

/* Entries out of their bucket, or out of bit-reversed hash order in their chain. */
static unsigned int misplaced(const struct fairq_keytab *t)
{
	unsigned int i, bad = 0;
	struct fairq_keytab_node *e;
	u32 prev;

	for (i = 0; i < fairq_keytab_buckets(t); i++) {
		prev = 0;
		hlist_for_each_entry(e, fairq_keytab_bucket(t, i), node) {
			bad += fairq_keytab_index(t, e->hash) != i || bitrev32(e->hash) < prev;
			prev = bitrev32(e->hash);
		}
	}
	return bad;
}

static void count_free(struct fairq_keytab_node *e)
{
	(void)e;
	freed++;
}

/*
 * 50,000 entries: a lookup still walks a chain of a few, and every entry is found.  A bucket
 * page that cannot be allocated postpones splits, nothing else, and the table catches up.
 */
static void test_growth(void)
{
	const unsigned int n = 50000;
	struct item *it = items(n);
	struct fairq_keytab t = { };
	unsigned int i, missing = 0;

	CHECK(!fairq_keytab_ready(&t) && !fairq_keytab_buckets(&t), "not ready before the first page");
	kshim_fail_allocs = 1;
	CHECK(!fairq_keytab_alloc(&t) && !fairq_keytab_ready(&t), "no page: not ready, try later");
	CHECK(fairq_keytab_alloc(&t) && fairq_keytab_buckets(&t) == FAIRQ_KEYTAB_SEG_SIZE,
	      "one page of buckets to start with (%u)", fairq_keytab_buckets(&t));
	for (i = 0; i < n; i++) {
		/* the page the 1025th entry's split needs cannot be had, for a while */
		kshim_fail_size = i >= 1000 && i < 1100 ?
				  FAIRQ_KEYTAB_SEG_SIZE * sizeof(struct hlist_head) : 0;
		fairq_keytab_add(&t, &it[i].entry);
	}
	kshim_fail_size = 0;
	CHECK(t.nr == n, "%u entries counted of %u", t.nr, n);
	CHECK(t.split_failures > 0 && t.split_failures <= 100,
	      "a missing bucket page postponed %llu splits", (unsigned long long)t.split_failures);
	CHECK(t.nr <= FAIRQ_KEYTAB_LOAD * fairq_keytab_buckets(&t) + 1,
	      "the table caught up: %u entries in %u buckets", t.nr, fairq_keytab_buckets(&t));
	CHECK(longest_chain(&t) <= 16, "the longest chain at %u entries: %u", n, longest_chain(&t));
	CHECK(!misplaced(&t), "every entry in its bucket, in order (%u not)", misplaced(&t));
	for (i = 0; i < n; i++)
		missing += find(&t, i) != &it[i];
	CHECK(!missing, "every entry found where it was put (%u not)", missing);
	for (i = 0; i < n; i += 2)
		fairq_keytab_del(&t, &it[i].entry);
	for (i = 0, missing = 0; i < n; i++)
		missing += find(&t, i) != (i % 2 ? &it[i] : NULL);
	CHECK(!missing && t.nr == n / 2, "half deleted: %u entries, %u lookups wrong", t.nr, missing);
	freed = 0;
	fairq_keytab_free(&t, count_free);
	CHECK(freed == n / 2 && !fairq_keytab_ready(&t) && !t.nr,
	      "free gave back the %u entries left (%u) and left an empty table", n / 2, freed);
	fairq_keytab_free(&t, count_free);	/* a table never made ready, or freed: nothing */
	free(it);
}

struct walk {
	unsigned int room;	/* entries this call may report */
	unsigned int *seen;
	unsigned int reported;
};

static int count(struct fairq_keytab_node *e, void *arg)
{
	struct walk *w = arg;

	if (!w->room)
		return -EMSGSIZE;
	w->room--;
	w->seen[container_of(e, struct item, entry)->id]++;
	w->reported++;
	return 0;
}

/*
 * A walk of 5 entries a call, while 40 entries come in each time and the table doubles
 * several times (a dump while clients connect), and while entries already reported go: the
 * entries there from the start and still there are each reported once, and none twice.
 */
static void test_walk_while_changing(void)
{
	const unsigned int first = 3000, more = 20000;
	struct item *it = items(first + more);
	struct walk w = { .seen = calloc(first + more, sizeof(unsigned int)) };
	struct fairq_keytab t = { };
	unsigned int i, added = 0, calls, dup = 0, missed = 0, bits0, gone = 0;
	u64 cursor = 0;

	fairq_keytab_alloc(&t);
	for (i = 0; i < first; i++)
		fairq_keytab_add(&t, &it[i].entry);
	bits0 = t.bits;
	for (calls = 0; calls < 2 * (first + more); calls++) {
		w.room = 5;
		if (!fairq_keytab_walk(&t, &cursor, count, &w))
			break;
		for (i = 0; i < 40 && added < more; i++, added++)
			fairq_keytab_add(&t, &it[first + added].entry);
		/* one entry already reported goes now and then (a key freed when idle) */
		for (i = gone; i < first && calls % 7 == 0; i++) {
			if (w.seen[i]) {
				fairq_keytab_del(&t, &it[i].entry);
				gone = i + 1;
				break;
			}
		}
	}
	for (i = 0; i < first; i++) {
		dup += w.seen[i] > 1;
		missed += !w.seen[i];
	}
	CHECK(t.bits > bits0 + 2, "the table grew during the walk (%u to %u bits)", bits0, t.bits);
	CHECK(!dup && !missed, "of %u entries there from the start: %u reported twice, %u missed",
	      first, dup, missed);
	for (i = first, dup = 0; i < first + added; i++)
		dup += w.seen[i] > 1;
	CHECK(!dup, "no entry that came during the walk was reported twice (%u were)", dup);
	CHECK(calls <= (first + added) / 5 + 1, "%u calls for %u entries: no walk started over",
	      calls, first + added);
	fairq_keytab_free(&t, count_free);
	free(w.seen);
	free(it);
}

/*
 * Entries of one hash (a run of up to 255 is what the cursor can tell apart): a walk of one
 * entry a call reports each once, between entries of other hashes.
 */
static void test_walk_equal_hashes(void)
{
	const unsigned int n = 300, same = 200;
	struct item *it = items(n);
	struct walk w = { .seen = calloc(n, sizeof(unsigned int)) };
	struct fairq_keytab t = { };
	unsigned int i, calls, dup = 0, missed = 0;
	u64 cursor = 0;

	fairq_keytab_alloc(&t);
	for (i = 0; i < n; i++) {
		if (i < same)
			it[i].entry.hash = 0x5a5a5a5a;
		fairq_keytab_add(&t, &it[i].entry);
	}
	for (calls = 0; calls < 2 * n; calls++) {
		w.room = 1;
		if (!fairq_keytab_walk(&t, &cursor, count, &w))
			break;
	}
	for (i = 0; i < n; i++) {
		dup += w.seen[i] > 1;
		missed += !w.seen[i];
	}
	CHECK(!dup && !missed && w.reported == n,
	      "%u entries, %u of one hash, one a call: %u reported twice, %u missed", n, same, dup,
	      missed);
	CHECK(!misplaced(&t), "equal hashes kept in order (%u entries not)", misplaced(&t));
	fairq_keytab_free(&t, count_free);
	free(w.seen);
	free(it);
}

/* A walk of an empty table, or of a table not ready, reports nothing and ends at once. */
static void test_walk_empty(void)
{
	struct walk w = { .room = 1, .seen = calloc(1, sizeof(unsigned int)) };
	struct fairq_keytab t = { };
	u64 cursor = 0;

	CHECK(!fairq_keytab_walk(&t, &cursor, count, &w) && !w.reported, "a table not ready");
	fairq_keytab_alloc(&t);
	CHECK(!fairq_keytab_walk(&t, &cursor, count, &w) && !w.reported, "an empty table");
	fairq_keytab_free(&t, count_free);
	free(w.seen);
}

int main(void)
{
	test_growth();
	test_walk_while_changing();
	test_walk_equal_hashes();
	test_walk_empty();
	return check_summary();
}
