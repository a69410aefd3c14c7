// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host-side tests of fairq's pure logic: the transport list and the queueing policies, compiled
 * against a small shim of kernel types.  Prints "N passed, N failed".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../src/fairq.h"

struct fairq_xnode *fairq_xnode_of(struct svc_xprt *xprt)
{
	return (struct fairq_xnode *)&xprt->xpt_ready;
}

struct svc_xprt *fairq_xprt_of(struct fairq_xnode *node)
{
	return container_of((void *)node, struct svc_xprt, xpt_ready);
}

void *fairq_pool_priv(struct fairq_pool *fp)
{
	return fp->priv;
}

unsigned int fairq_pool_id(const struct fairq_pool *fp)
{
	return fp->id;
}

#include "../../src/sched/qfifo.c"

static int passed, failed;

#define CHECK(cond, ...)                                   \
	do {                                               \
		if (cond) {                                \
			passed++;                          \
		} else {                                   \
			failed++;                          \
			printf("FAIL %s:%d: ", __FILE__, __LINE__); \
			printf(__VA_ARGS__);               \
			printf("\n");                      \
		}                                          \
	} while (0)

#define N 64
static struct svc_xprt xs[N];

static void test_xlist(void)
{
	struct fairq_xlist l, m;
	struct svc_xprt *x;
	int i;

	fairq_xlist_init(&l);
	CHECK(fairq_xlist_empty(&l) && !fairq_xlist_pop(&l), "new list is empty");
	for (i = 0; i < 5; i++)
		fairq_xlist_push(&l, &xs[i]);
	CHECK(l.len == 5, "len 5, got %u", l.len);
	CHECK(fairq_xlist_remove(&l, &xs[4]), "remove tail");
	CHECK(!fairq_xlist_remove(&l, &xs[4]), "remove twice fails");
	fairq_xlist_push(&l, &xs[5]);	/* tail pointer must be right after removing the tail */
	CHECK(fairq_xlist_remove(&l, &xs[0]), "remove head");
	CHECK(fairq_xlist_remove(&l, &xs[2]), "remove middle");
	fairq_xlist_init(&m);
	fairq_xlist_push(&m, &xs[6]);
	fairq_xlist_splice(&l, &m);
	CHECK(fairq_xlist_empty(&m), "splice empties the source");
	int want[] = { 1, 3, 5, 6 };
	for (i = 0; i < 4; i++) {
		x = fairq_xlist_pop(&l);
		CHECK(x && x->id == want[i], "order after edits: want %d got %d", want[i], x ? x->id : -1);
	}
	CHECK(fairq_xlist_empty(&l) && l.len == 0, "list empty at the end (len %u)", l.len);
	fairq_xlist_push(&l, &xs[7]);
	CHECK(fairq_xlist_pop(&l) == &xs[7] && fairq_xlist_empty(&l), "reusable after emptying");
}

/* A random sequence of policy operations checked against a reference FIFO. */
static void test_qfifo_model(const struct fairq_sched_ops *ops, unsigned int seed)
{
	static struct fairq_pool fp;
	int ref[N], nref = 0, i, step, bad = 0;
	bool queued[N] = { false };

	memset(&fp, 0, sizeof(fp));
	ops->init_pool(&fp);
	srand(seed);
	for (step = 0; step < 20000 && !bad; step++) {
		int op = rand() % 10, id = rand() % N;
		struct svc_xprt *x;

		if (op < 5 && !queued[id]) {
			ops->enqueue(&fp, &xs[id]);
			queued[id] = true;
			ref[nref++] = id;
		} else if (op < 8) {
			x = ops->pick(&fp);
			if (!nref) {
				bad |= x != NULL;
				continue;
			}
			bad |= !x || x->id != ref[0];
			if (x)
				queued[x->id] = false;
			memmove(ref, ref + 1, --nref * sizeof(int));
		} else if (op < 9) {
			bool was = queued[id], got = ops->remove(&fp, &xs[id]);

			bad |= was != got;
			if (got) {
				queued[id] = false;
				for (i = 0; ref[i] != id; i++)
					;
				memmove(ref + i, ref + i + 1, (--nref - i) * sizeof(int));
			}
		} else {
			struct fairq_xlist out;

			fairq_xlist_init(&out);
			ops->drain(&fp, &out);
			bad |= (int)out.len != nref || ops->has_work(&fp);
			for (i = 0; i < nref; i++) {
				x = fairq_xlist_pop(&out);
				bad |= !x || x->id != ref[i];
				if (x)
					queued[x->id] = false;
			}
			nref = 0;
		}
		bad |= ops->has_work(&fp) != (nref > 0);
	}
	CHECK(!bad, "%s matches the reference FIFO (seed %u, failed at step %d)", ops->name, seed, step);
}

static void test_ops_table(const struct fairq_sched_ops *ops)
{
	CHECK(ops->priv_size <= FAIRQ_SCHED_PRIV_BYTES, "%s: private state fits", ops->name);
	CHECK(ops->init_pool && ops->enqueue && ops->pick && ops->has_work && ops->drain && ops->remove,
	      "%s: mandatory ops present", ops->name);
	CHECK(strlen(ops->name) < FAIRQ_SCHED_NAME_MAX, "%s: name fits", ops->name);
}

int main(void)
{
	unsigned int seed;
	int i;

	for (i = 0; i < N; i++)
		xs[i].id = i;
	test_xlist();
	test_ops_table(&fairq_sched_qfifo);
	for (seed = 1; seed <= 20; seed++)
		test_qfifo_model(&fairq_sched_qfifo, seed);
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
