// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host-side tests of fairq's pure logic: the transport list and the queueing policies, compiled
 * against a small shim of kernel types.  Prints "N passed, N failed".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include "../../src/core.h"
#include "../../src/compat/conn_limit.h"

#include "kshim-state.h"
static int requeue_calls;

/* The core rebuilds the queues after a weight change; the policy only asks for it. */
int fairq_requeue_all(const struct fairq_sched_ops *ops)
{
	(void)ops;
	requeue_calls++;
	return 0;
}

static unsigned long xnode_lookups;
struct fairq_xnode *fairq_xnode_of(struct svc_xprt *xprt)
{
	xnode_lookups++;
	return (struct fairq_xnode *)&xprt->xpt_ready;
}

struct svc_xprt *fairq_xprt_of(struct fairq_xnode *node)
{
	return container_of((void *)node, struct svc_xprt, xpt_ready);
}

/* 6.1's sunrpc: a thread woken per transport, where capped is offered. */
bool fairq_kernel_has(enum fairq_kernel_feature feature)
{
	(void)feature;
	return false;
}

void *fairq_pool_priv(struct fairq_pool *fp)
{
	return fp->priv;
}

unsigned int fairq_pool_id(const struct fairq_pool *fp)
{
	return fp->id;
}

/* Which NFSv4.1 client owns each test transport (0: none seen yet), as v4client.c learns it. */
static u64 v4owner[256];
static bool v4client_wanted;

bool fairq_v4client_of(const struct svc_xprt *xprt, u64 *clientid)
{
	if (!v4owner[xprt->id])
		return false;
	*clientid = v4owner[xprt->id];
	return true;
}

void fairq_v4client_want(bool on)
{
	v4client_wanted = on;
}

/* The simulated pool's threads, for the burst allowance (burst_ms of every thread). */
static unsigned int unit_pool_threads = 1;

unsigned int fairq_pool_nr_threads(const struct fairq_pool *fp)
{
	(void)fp;
	return unit_pool_threads;
}

/* The service's threads: the tests' pools are one service, of unit_pool_threads each. */
static unsigned int unit_serv_threads;

/* The service's pools: as many as a test makes of one service at once. */
static unsigned int unit_serv_pools = 1;

unsigned int fairq_pool_serv_pools(const struct fairq_pool *fp)
{
	(void)fp;
	return unit_serv_pools;
}

unsigned int fairq_pool_serv_threads(const struct fairq_pool *fp)
{
	(void)fp;
	return unit_serv_threads ?: unit_pool_threads;
}

bool fairq_pool_adopting(const struct fairq_pool *fp)
{
	return fp->adopting;
}

/* Settings and weights change in the tests' own order: the lock is as good as held. */
bool fairq_change_held(void)
{
	return true;
}

/* The core's thread hold, as fairq_pool_hold_thread() and friends keep it. */
void fairq_pool_hold_thread(struct fairq_pool *fp, u64 ns)
{
	if (unit_pool_threads >= 2)
		fp->hold_until = kshim_now_ns + ns;
}

void fairq_pool_release_thread(struct fairq_pool *fp)
{
	fp->hold_until = 0;
}

bool fairq_pool_holding(const struct fairq_pool *fp)
{
	return fp->hold_until && kshim_now_ns < fp->hold_until;
}

u64 fairq_pool_hold_skips(const struct fairq_pool *fp)
{
	return fp->hold_skips;
}

/* The core's thread tracking: the simulator charges and uncharges as the core's hooks do. */
void fairq_pool_track_threads(struct fairq_pool *fp)
{
	fp->track_threads = true;
}

u64 fairq_pool_untracked(const struct fairq_pool *fp)
{
	return fp->untracked;
}

u64 fairq_pool_unseen_ends(const struct fairq_pool *fp)
{
	return fp->unseen_ends;
}

/* One service's shared state (its pools share it: the tests' pools are all of one service). */
static unsigned long unit_shared[FAIRQ_SCHED_SHARED_BYTES / sizeof(unsigned long)]
	__attribute__((aligned(64)));

void *fairq_pool_shared(struct fairq_pool *fp)
{
	(void)fp;
	return unit_shared;
}

static spinlock_t unit_shared_lock;

spinlock_t *fairq_pool_shared_lock(struct fairq_pool *fp)
{
	(void)fp;
	return &unit_shared_lock;
}

/* The service's per-key clocks (classes.h), for the tests of limits per key. */
#define unit_key_clocks() (&((struct fairq_classes_shared *)unit_shared)->key_clocks)

/* The pool timer: the simulator calls the policy's tick at the time asked for. */
void fairq_pool_wake_at(struct fairq_pool *fp, u64 ns)
{
	if (!fp->wake_at || ns < fp->wake_at)
		fp->wake_at = ns;
}

/* The tracepoints' stand-ins (shim/fairq/trace.h): whether tracing is on, and what fired. */
bool unit_trace_on;
unsigned int unit_trace_holds, unit_trace_lost_handoffs, unit_trace_paces;

#include "../../src/sched/qfifo.c"
#include "../../src/sched/keytab.c"
#include "../../src/sched/keys.c"
#include "../../src/sched/classes.c"
#include "../../src/sched/fq.c"
#include "../../src/sched/capped.c"
#include "check.h"

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
	if (ops->counters) {
		/* one more than fits would WARN (abort here) and drop the last from every report */
		struct fairq_pool fp;
		struct fairq_counters cs = { 0 };

		memset(&fp, 0, sizeof(fp));
		ops->init_pool(&fp);
		ops->counters(&fp, &cs);
		CHECK(cs.nr > 0 && cs.nr < FAIRQ_SCHED_COUNTERS_MAX, "%s: its %u counters fit, with room",
		      ops->name, cs.nr);
		if (ops->exit_pool)
			ops->exit_pool(&fp);
	}
	/* before any test changes them: every tunable is at the default it reports */
	for (const struct fairq_tunable *t = ops->tunables; t && t->name; t++)
		CHECK(t->def >= t->min && t->def <= t->max && t->get() == t->def,
		      "%s.%s: at its default %llu, within range (it reads %llu)", ops->name, t->name,
		      (unsigned long long)t->def, (unsigned long long)t->get());
}

/*
 * capped's wake cap: at most max_waking threads woken and not yet running; a woken thread's
 * first look for work frees its slot, a wakeup that found no thread gives it back, and a
 * thread that has not run within a second loses it (counted).  The watchdog's stall counts
 * as a wait behind the cap only while the cap is full.
 */
static void test_capped_wake_cap(void)
{
	const struct fairq_wake_ops *w = fairq_sched_capped.wake;
	struct task_struct t[3] = { { .pid = 1 }, { .pid = 2 }, { .pid = 3 } };
	struct fairq_counters cs = { 0 };
	struct fairq_pool fp;
	unsigned int i;

	memset(&fp, 0, sizeof(fp));
	fairq_sched_capped.init_pool(&fp);	/* the default cap, 2 */
	CHECK(w && w->reserve(&fp), "capped: a first wakeup is allowed");
	w->commit(&fp, &t[0]);
	CHECK(w->reserve(&fp), "capped: a second wakeup is allowed");
	w->commit(&fp, &t[1]);
	w->stalled(&fp);
	CHECK(!w->reserve(&fp), "capped: a third is refused while two are on their way");
	kshim_current = &t[2];
	w->ran(&fp);		/* a thread it did not wake frees nothing */
	CHECK(!w->reserve(&fp), "capped: a thread it did not wake frees no slot");
	kshim_current = &t[0];
	w->ran(&fp);
	CHECK(w->reserve(&fp), "capped: a woken thread's first look frees its slot");
	w->commit(&fp, NULL);	/* no idle thread after all: the slot goes back */
	CHECK(w->reserve(&fp), "capped: a wakeup that woke nothing gives its slot back");
	w->commit(&fp, &t[2]);
	jiffies += HZ + 1;
	CHECK(w->reserve(&fp), "capped: threads that did not run within a second lose their slots");
	w->commit(&fp, &t[0]);
	fairq_sched_capped.counters(&fp, &cs);
	for (i = 0; i < cs.nr; i++)
		if (!strcmp(cs.c[i].name, "overloads_avoided"))
			CHECK(cs.c[i].value == 2, "capped: 2 wakeups refused (%llu)",
			      (unsigned long long)cs.c[i].value);
		else if (!strcmp(cs.c[i].name, "wakers_expired"))
			CHECK(cs.c[i].value == 2, "capped: 2 slots expired (%llu)",
			      (unsigned long long)cs.c[i].value);
		else if (!strcmp(cs.c[i].name, "waking"))
			CHECK(cs.c[i].value == 1, "capped: 1 thread on its way (%llu)",
			      (unsigned long long)cs.c[i].value);
		else if (!strcmp(cs.c[i].name, "cap_waits"))
			CHECK(cs.c[i].value == 1, "capped: 1 stall behind the full cap (%llu)",
			      (unsigned long long)cs.c[i].value);
	CHECK(cs.nr == 4, "capped: 4 counters (%u)", cs.nr);
	w->stalled(&fp);	/* one of two on its way: not the cap's doing */
	cs.nr = 0;
	fairq_sched_capped.counters(&fp, &cs);
	CHECK(cs.c[3].value == 1, "capped: a stall below the cap is not a wait behind it");
	/* a thread that never ran, its slot found only 2^31 jiffies later: long gone, not young */
	jiffies += 0x80000000UL;
	CHECK(w->reserve(&fp), "capped: a wakeup after 2^31 jiffies is allowed");
	cs.nr = 0;
	fairq_sched_capped.counters(&fp, &cs);
	CHECK(cs.c[2].value == 3 && cs.c[0].value == 1,
	      "capped: a slot 2^31 jiffies old expired (expired %llu, waking %llu)",
	      (unsigned long long)cs.c[2].value, (unsigned long long)cs.c[0].value);
}

/* ---- the fq policy, driven by a small discrete-event model of a thread pool ---- */

#define NX 256
static struct svc_xprt fx[NX];

static void set_addr(struct svc_xprt *x, const char *ip, int port)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)&x->xpt_remote;

	memset(&x->xpt_remote, 0, sizeof(x->xpt_remote));
	if (strchr(ip, ':')) {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&x->xpt_remote;

		sin6->sin6_family = AF_INET6;
		inet_pton(AF_INET6, ip, &sin6->sin6_addr);
		sin6->sin6_port = htons(port);
		return;
	}
	sin->sin_family = AF_INET;
	inet_pton(AF_INET, ip, &sin->sin_addr);
	sin->sin_port = htons(port);
}

struct sim {
	struct fairq_pool fp;
	int threads;
	u64 now;
	u64 busy_until[64];
	struct svc_xprt *running[64];
	u64 cost[NX];		/* ns per request of each transport */
	u64 jitter[NX];		/* its requests cost that much more and less in turn */
	u64 run_cost[64];	/* what each thread's request costs */
	u64 started[NX];	/* requests started of each transport */
	bool backlogged[NX];	/* re-queued as soon as a request is read */
	int calls[NX];		/* or while it has calls left to read (a burst) */
	u64 last_done[NX];
	u64 thread_ns[NX];
	u64 served[NX];
	u64 think[NX];		/* a window-1 client: its next call this long after a reply */
	u64 back_at[NX];	/* when that call arrives (0: none pending) */
	bool empty_reads[NX];	/* as on 6.1: queued again after each read, then read empty */
	bool unread[NX];	/* so queued, and no call has arrived since */
	void *charge[64];	/* what each thread's work is charged to, as the core keeps it */
	u32 max_occupied;	/* the most threads one key had at once (key of transport 0) */
};

static void sim_init(struct sim *sm, int threads)
{
	int i;

	/* requests a previous run left running never gave their slots back */
	for (i = 0; i < NX; i++)
		fx[i].xpt_nr_rqsts.counter = 0;
	memset(sm, 0, sizeof(*sm));
	sm->threads = threads;
	fairq_sched_fq.init_pool(&sm->fp);
}

/* As the core: a thread looking for work is done with what it was charged for. */
static void sim_thread_free(struct sim *sm, int t)
{
	if (sm->charge[t]) {
		fairq_sched_fq.uncharge(&sm->fp, sm->charge[t]);
		sm->charge[t] = NULL;
	}
}

/* As the core: a thread seen with @x (just dequeued) is charged for it. */
static void sim_thread_took(struct sim *sm, int t, struct svc_xprt *x)
{
	struct fq_key *k;

	if (!sm->fp.track_threads)
		return;
	sm->charge[t] = fairq_sched_fq.charge(&sm->fp, x, true);
	k = fq_key_lookup(fqp(&sm->fp), &fx[0]);
	if (k && k->occupied + k->handed > sm->max_occupied)
		sm->max_occupied = k->occupied + k->handed;
}

static void sim_exit(struct sim *sm)
{
	struct fairq_xlist out;

	fairq_xlist_init(&out);
	fairq_sched_fq.drain(&sm->fp, &out);
	fairq_sched_fq.exit_pool(&sm->fp);
}

/* has_work must say exactly whether pick returns a transport: the core relies on it. */
static int pick_mismatches;

/* Run until @end ns; a free thread picks, "receives" (re-queues a backlogged transport), runs. */
static void sim_run(struct sim *sm, u64 end)
{
	const struct fairq_sched_ops *ops = &fairq_sched_fq;
	int t, best;

	while (sm->now < end) {
		u64 next = 0;
		int i;

		kshim_now_ns = sm->now;
		/* the pool timer, as the core's: the policy's tick at the time it asked for */
		if (sm->fp.wake_at && sm->fp.wake_at <= sm->now) {
			sm->fp.wake_at = 0;
			ops->tick(&sm->fp);
		}
		for (i = 0; i < NX; i++) {
			if (sm->back_at[i] && sm->back_at[i] <= sm->now) {
				sm->back_at[i] = 0;
				/* already queued (XPT_BUSY): whoever takes it reads the call */
				if (sm->unread[i])
					sm->unread[i] = false;
				else
					ops->enqueue(&sm->fp, &fx[i]);
			}
		}
		for (t = 0; t < sm->threads; t++) {
			struct svc_xprt *x;
			int u, others_idle = 0;

			if (sm->busy_until[t] > sm->now)
				continue;
			if (sm->running[t]) {
				x = sm->running[t];
				ops->complete(&sm->fp, x, sm->run_cost[t], sm->charge[t]);
				atomic_dec(&x->xpt_nr_rqsts);	/* its slot, until svc_xprt_release */
				sm->thread_ns[x->id] += sm->run_cost[t];
				sm->served[x->id]++;
				sm->last_done[x->id] = sm->now;
				sm->running[t] = NULL;
				if (sm->think[x->id])
					sm->back_at[x->id] = sm->now + sm->think[x->id];
			}
			sim_thread_free(sm, t);
			/* as the core's pull: a held thread stays idle unless another one is */
			for (u = 0; u < sm->threads; u++)
				others_idle += u != t && !sm->running[u];
			if (fairq_pool_holding(&sm->fp) && !others_idle) {
				sm->fp.hold_skips++;
				continue;
			}
			{
				bool work = ops->has_work(&sm->fp);

				x = ops->pick(&sm->fp);
				if (work != !!x)
					pick_mismatches++;
			}
			if (!x)
				continue;
			sim_thread_took(sm, t, x);
			if (sm->unread[x->id]) {
				/* nothing to read: the thread looks for work again at once */
				sm->unread[x->id] = false;
				t--;
				continue;
			}
			atomic_inc(&x->xpt_nr_rqsts);	/* as svc_xprt_reserve_slot(), before the read */
			/* as svc_xprt_received does: the transport is back before the request starts */
			if (sm->backlogged[x->id] || (sm->calls[x->id] && --sm->calls[x->id])) {
				ops->enqueue(&sm->fp, x);
			} else if (sm->empty_reads[x->id]) {
				sm->unread[x->id] = true;
				ops->enqueue(&sm->fp, x);
			}
			ops->start(&sm->fp, x, sm->charge[t]);
			sm->running[t] = x;
			sm->run_cost[t] = sm->cost[x->id];
			if (sm->jitter[x->id])
				sm->run_cost[t] += sm->started[x->id] & 1 ? sm->jitter[x->id] :
					-sm->jitter[x->id];
			sm->started[x->id]++;
			sm->busy_until[t] = sm->now + sm->run_cost[t];
		}
		best = -1;
		for (t = 0; t < sm->threads; t++)
			if (sm->running[t] && (best < 0 || sm->busy_until[t] < sm->busy_until[best]))
				best = t;
		if (best >= 0)
			next = sm->busy_until[best];
		for (i = 0; i < NX; i++)
			if (sm->back_at[i] && (!next || sm->back_at[i] < next))
				next = sm->back_at[i];
		if (fairq_pool_holding(&sm->fp) && (!next || sm->fp.hold_until < next))
			next = sm->fp.hold_until;
		if (sm->fp.wake_at && (!next || sm->fp.wake_at < next))
			next = sm->fp.wake_at;
		if (!next)
			break;
		sm->now = next;
		jiffies = 1000 + sm->now / 4000000;
	}
}

static double share(struct sim *sm, int from, int to, int all_from, int all_to)
{
	u64 part = 0, all = 0;
	int i;

	for (i = all_from; i < all_to; i++) {
		all += sm->thread_ns[i];
		if (i >= from && i < to)
			part += sm->thread_ns[i];
	}
	return all ? (double)part / all : 0;
}

/* 16 connections of one client against 1 of another: thread time splits evenly. */
static void test_fairq_connections(void)
{
	static struct sim sm;
	double s;
	int i;

	sim_init(&sm, 8);
	for (i = 0; i < 17; i++) {
		set_addr(&fx[i], i < 16 ? "10.0.0.1" : "10.0.0.2", 700 + i);
		sm.cost[i] = 10000000;
		sm.backlogged[i] = true;
		fairq_sched_fq.enqueue(&sm.fp, &fx[i]);
	}
	sim_run(&sm, 20ULL * 1000000000);
	s = share(&sm, 16, 17, 0, 17);
	CHECK(s > 0.47 && s < 0.53, "1-connection client share %.3f against 16 connections", s);
	sim_exit(&sm);
}

/* Ten clients of 1 to 32 connections each: every one within 10% of a tenth, Jain >= 0.98. */
static void test_fairq_ten_clients(void)
{
	static const int conns[10] = { 1, 2, 4, 8, 16, 32, 1, 2, 4, 8 };
	static struct sim sm;
	double sh[10], sum = 0, sq = 0, worst = 0;
	int c, i, n = 0, first[11];

	sim_init(&sm, 8);
	for (c = 0; c < 10; c++) {
		char ip[32];

		first[c] = n;
		snprintf(ip, sizeof(ip), "10.0.0.%d", 1 + c);
		for (i = 0; i < conns[c]; i++, n++) {
			set_addr(&fx[n], ip, 700 + i);
			sm.cost[n] = 10000000;
			sm.backlogged[n] = true;
			fairq_sched_fq.enqueue(&sm.fp, &fx[n]);
		}
	}
	first[10] = n;
	sim_run(&sm, 60ULL * 1000000000);
	for (c = 0; c < 10; c++) {
		sh[c] = share(&sm, first[c], first[c + 1], 0, n);
		sum += sh[c];
		sq += sh[c] * sh[c];
		if (fabs(sh[c] - 0.1) / 0.1 > worst)
			worst = fabs(sh[c] - 0.1) / 0.1;
	}
	CHECK(worst <= 0.10, "ten clients: worst deviation from a tenth %.1f%%", 100 * worst);
	CHECK(sum * sum / (10 * sq) >= 0.98, "ten clients: Jain %.4f", sum * sum / (10 * sq));
	sim_exit(&sm);
}

/* Cheap and expensive requests: equal thread time, not equal calls. */
static void test_fairq_cost(void)
{
	static struct sim sm;
	double s;

	sim_init(&sm, 4);
	set_addr(&fx[0], "10.0.0.1", 1);
	set_addr(&fx[1], "10.0.0.2", 1);
	sm.cost[0] = 1000000;		/* GETATTR-like */
	sm.cost[1] = 10000000;		/* 1 MiB WRITE-like */
	sm.backlogged[0] = sm.backlogged[1] = true;
	/* several connections each, so both always have work */
	fairq_sched_fq.enqueue(&sm.fp, &fx[0]);
	fairq_sched_fq.enqueue(&sm.fp, &fx[1]);
	set_addr(&fx[2], "10.0.0.1", 2);
	set_addr(&fx[3], "10.0.0.2", 2);
	set_addr(&fx[4], "10.0.0.1", 3);
	set_addr(&fx[5], "10.0.0.2", 3);
	sm.cost[2] = sm.cost[4] = 1000000;
	sm.cost[3] = sm.cost[5] = 10000000;
	sm.backlogged[2] = sm.backlogged[3] = sm.backlogged[4] = sm.backlogged[5] = true;
	fairq_sched_fq.enqueue(&sm.fp, &fx[2]);
	fairq_sched_fq.enqueue(&sm.fp, &fx[3]);
	fairq_sched_fq.enqueue(&sm.fp, &fx[4]);
	fairq_sched_fq.enqueue(&sm.fp, &fx[5]);
	sim_run(&sm, 20ULL * 1000000000);
	s = (double)(sm.thread_ns[0] + sm.thread_ns[2] + sm.thread_ns[4]) /
	    (sm.thread_ns[0] + sm.thread_ns[1] + sm.thread_ns[2] + sm.thread_ns[3] + sm.thread_ns[4] + sm.thread_ns[5]);
	CHECK(s > 0.45 && s < 0.55, "cheap-request client thread-time share %.3f", s);
	sim_exit(&sm);
}

/* A 4:1 weight between two subnets gives 80% +/- 3% under saturation. */
static void test_fairq_weights(void)
{
	struct fairq_key_id id = { .type = FAIRQ_KEY_TYPE_SUBNET, .family = AF_INET, .prefix_len = 24 };
	static struct sim sm;
	double s;
	int i;

	inet_pton(AF_INET, "10.1.0.0", id.addr);
	CHECK(fairq_sched_fq.keys->set_weight(&id, 4) == 0, "weight rule accepted");
	/* the weight it has: nothing changes, and no pool is rebuilt for it */
	CHECK(fairq_sched_fq.keys->set_weight(&id, 4) == -EALREADY, "the same weight again changes nothing");
	CHECK(requeue_calls > 0, "a weight change asks for the queues to be rebuilt");
	sim_init(&sm, 8);
	for (i = 0; i < 8; i++) {
		char ip[32];

		snprintf(ip, sizeof(ip), "10.%d.0.%d", i < 4 ? 1 : 2, 1 + i % 4);
		set_addr(&fx[i], ip, 1);
		sm.cost[i] = 5000000;
		sm.backlogged[i] = true;
		fairq_sched_fq.enqueue(&sm.fp, &fx[i]);
	}
	sim_run(&sm, 30ULL * 1000000000);
	s = share(&sm, 0, 4, 0, 8);
	CHECK(s > 0.77 && s < 0.83, "4:1 weighted subnet share %.3f (per-address keys)", s);
	sim_exit(&sm);
	CHECK(fairq_sched_fq.keys->set_weight(&id, 0) == 0, "weight rule removed");
	CHECK(fairq_sched_fq.keys->set_weight(&id, 0) == -EALREADY, "removing it again changes nothing");
	id.prefix_len = 33;
	CHECK(fairq_sched_fq.keys->set_weight(&id, 2) == -EINVAL, "bad prefix refused");
	id.prefix_len = 24;
	CHECK(fairq_sched_fq.keys->set_weight(&id, 1001) == -EINVAL, "weight over 1000 refused");
}

/*
 * Requests ten times the quantum (100 ms under the helper) keep weights exact: a 3:1 weight
 * gives 75%, with the heavier client on one connection against two.
 */
static void test_fairq_heavy_weights(void)
{
	struct fairq_key_id id = { .type = FAIRQ_KEY_TYPE_ADDR, .family = AF_INET };
	static struct sim sm;
	double s;
	int i;

	inet_pton(AF_INET, "10.0.0.2", id.addr);
	CHECK(fairq_sched_fq.keys->set_weight(&id, 3) == 0, "weight rule accepted");
	sim_init(&sm, 4);
	for (i = 0; i < 3; i++) {
		set_addr(&fx[i], i ? "10.0.0.1" : "10.0.0.2", 700 + i);
		sm.cost[i] = 100000000;
		sm.backlogged[i] = true;
		fairq_sched_fq.enqueue(&sm.fp, &fx[i]);
	}
	sim_run(&sm, 120ULL * 1000000000);
	s = share(&sm, 0, 1, 0, 3);
	CHECK(s > 0.72 && s < 0.78, "3:1 weight with 100 ms requests: share %.3f", s);
	sim_exit(&sm);
	CHECK(fairq_sched_fq.keys->set_weight(&id, 0) == 0, "weight rule removed");
}

/*
 * Deep windows: three clients of one connection each keep more requests in flight than their
 * key's quantum covers, as fio or a deep NFS client does.  A weight 4 on the subnet of two of
 * them must still leave the third 1/5 (each request is paid for when it starts, so a bound on
 * debt must not forgive what is still running).
 */
static void test_fairq_deep_weights(void)
{
	struct fairq_key_id id = { .type = FAIRQ_KEY_TYPE_SUBNET, .family = AF_INET, .prefix_len = 30 };
	static const char * const ips[] = { "10.99.0.9", "10.99.0.13", "10.99.0.14" };
	static struct sim sm;
	double s0, s1;
	int i;

	fq_key_type = FAIRQ_KEY_TYPE_SUBNET;
	fq_prefix4 = 30;
	inet_pton(AF_INET, "10.99.0.12", id.addr);
	CHECK(fairq_sched_fq.keys->set_weight(&id, 4) == 0, "weight 4 on 10.99.0.12/30 accepted");
	sim_init(&sm, 8);
	for (i = 0; i < 3; i++) {
		set_addr(&fx[i], ips[i], 800 + i);
		sm.cost[i] = 20000000;
		sm.backlogged[i] = true;
		fairq_sched_fq.enqueue(&sm.fp, &fx[i]);
	}
	sim_run(&sm, 60ULL * 1000000000);
	s0 = share(&sm, 0, 1, 0, 3);
	s1 = share(&sm, 1, 2, 0, 3);
	CHECK(s0 > 0.17 && s0 < 0.23, "deep windows, weight 1 against a weight-4 subnet: %.3f (owed 0.2)", s0);
	CHECK(s1 > 0.37 && s1 < 0.43, "deep windows, one of the weight-4 subnet's two: %.3f (owed 0.4)", s1);
	sim_exit(&sm);
	CHECK(fairq_sched_fq.keys->set_weight(&id, 0) == 0, "weight rule removed");
	fq_key_type = FAIRQ_KEY_TYPE_ADDR;
	fq_prefix4 = 24;
}

/*
 * Debt made under a large quantum_us, then quantum_us lowered under load: the next pick must
 * not sit out thousands of rounds of tiny quanta (each one a pass under the pool lock).
 */
static void test_fairq_quantum_lowered(void)
{
	static struct sim sm;
	struct fq_pool *p;
	struct fq_key *k;
	u64 before;
	int i, keys = 0;

	CHECK(fq_set_quantum_us(1000000) == 0, "quantum_us 1 s accepted");
	sim_init(&sm, 2);
	for (i = 0; i < 8; i++) {
		char ip[24];

		snprintf(ip, sizeof(ip), "10.0.1.%d", i + 1);
		set_addr(&fx[i], ip, 900 + i);
		sm.cost[i] = 1000000;
		sm.backlogged[i] = true;
		fairq_sched_fq.enqueue(&sm.fp, &fx[i]);
	}
	sim_run(&sm, 2ULL * 1000000000);
	p = fqp(&sm.fp);
	/* the deepest debt fq_complete() allows under the 1 s quantum, on every waiting key */
	while (!list_empty(&p->burst_keys)) {
		k = list_first_entry(&p->burst_keys, struct fq_key, link);
		k->burst_left = 0;
		list_move_tail(&k->link, &p->old_keys[0]);
	}
	list_for_each_entry(k, &p->old_keys[0], link) {
		k->list = FQ_OLD;
		k->deficit = -4 * (s64)quantum_ns(p, k);
		keys++;
	}
	CHECK(list_empty(&p->new_keys), "no new key waits");
	CHECK(keys >= 4, "keys in the rotation: %d", keys);
	CHECK(fq_set_quantum_us(100) == 0, "quantum_us 100 us accepted");
	before = p->turns_overspent;
	CHECK(fairq_sched_fq.pick(&sm.fp) != NULL, "a pick after lowering the quantum");
	CHECK(p->turns_overspent - before <= 6 * (u64)keys,
	      "turns sat out by %d indebted keys after quantum_us 1 s -> 100 us: %llu (at most %d)",
	      keys, (unsigned long long)(p->turns_overspent - before), 6 * keys);
	sim_exit(&sm);
	CHECK(fq_set_quantum_us(10000) == 0, "quantum_us back to 10 ms");
}

/* An idle client's request goes ahead of a backlog; many of them cannot starve it. */
static void test_fairq_new_keys(void)
{
	static struct sim sm;
	struct svc_xprt *x;
	int i, old = 0, n = 0;

	sim_init(&sm, 1);
	for (i = 0; i < 16; i++) {
		set_addr(&fx[i], "10.0.0.1", 100 + i);
		fairq_sched_fq.enqueue(&sm.fp, &fx[i]);
	}
	for (i = 0; i < 20; i++) {	/* the backlog is served past its first allowance */
		x = fairq_sched_fq.pick(&sm.fp);
		fairq_sched_fq.start(&sm.fp, x, NULL);
		fairq_sched_fq.complete(&sm.fp, x, 1000000, NULL);
		fairq_sched_fq.enqueue(&sm.fp, x);
	}
	set_addr(&fx[100], "10.0.0.9", 1);
	fairq_sched_fq.enqueue(&sm.fp, &fx[100]);
	x = fairq_sched_fq.pick(&sm.fp);
	CHECK(x == &fx[100], "a newly active client is served next (got %d)", x ? x->id : -1);
	fairq_sched_fq.start(&sm.fp, x, NULL);
	fairq_sched_fq.complete(&sm.fp, x, 1000000, NULL);

	/* 100 light clients keep arriving; the backlogged one still gets its turns */
	bool queued[NX] = { false };

	for (i = 0; i < 2000; i++) {
		struct svc_xprt *l = &fx[101 + i % 100];

		if (!queued[l->id]) {	/* XPT_BUSY: a transport is queued once */
			set_addr(l, "10.0.1.1", 0);
			((struct sockaddr_in *)&l->xpt_remote)->sin_addr.s_addr =
				htonl(0x0a000200 + i % 100);
			fairq_sched_fq.enqueue(&sm.fp, l);
			queued[l->id] = true;
		}
		x = fairq_sched_fq.pick(&sm.fp);
		if (!x)
			break;
		n++;
		queued[x->id] = false;
		if (x->id < 16) {
			old++;
			fairq_sched_fq.enqueue(&sm.fp, x);
		}
		fairq_sched_fq.start(&sm.fp, x, NULL);
		fairq_sched_fq.complete(&sm.fp, x, 1000000, NULL);
	}
	/* at most new_burst newcomers in a row while it waits: at least 1/(new_burst + 1) */
	CHECK(old * (int)(fq_new_burst + 1) >= n - (int)fq_new_burst,
	      "backlogged client got %d of %d turns", old, n);
	sim_exit(&sm);
}

/*
 * 16 backlogged connections of one client (fx[0..15]), costs around 10 ms, so that the
 * threads do not all free at once as in lockstep.
 */
static void sim_backlog(struct sim *sm)
{
	int i;

	for (i = 0; i < 16; i++) {
		set_addr(&fx[i], "10.0.0.1", 100 + i);
		sm->cost[i] = 10000000 + (i - 8) * 300000;
		sm->backlogged[i] = true;
		fairq_sched_fq.enqueue(&sm->fp, &fx[i]);
	}
}

/*
 * A burst of N calls on one connection from an idle client, against 16 backlogged connections
 * of another: its completion time over its floor (the same burst on an idle pool).
 */
static double burst_ratio(int n)
{
	static struct sim sm;
	u64 t0, floor_ns;

	unit_pool_threads = 8;
	sim_init(&sm, 8);
	set_addr(&fx[20], "10.0.0.9", 1);
	sm.cost[20] = 10000000;
	sm.calls[20] = n;
	fairq_sched_fq.enqueue(&sm.fp, &fx[20]);
	sim_run(&sm, 10ULL * 1000000000);
	floor_ns = sm.last_done[20];
	sim_exit(&sm);

	sim_init(&sm, 8);
	sim_backlog(&sm);
	sim_run(&sm, 5ULL * 1000000000);	/* the backlog's own allowance is long spent */
	t0 = sm.now;
	sm.cost[20] = 10000000;
	sm.calls[20] = n;
	fairq_sched_fq.enqueue(&sm.fp, &fx[20]);
	sim_run(&sm, t0 + 10ULL * 1000000000);
	sim_exit(&sm);
	unit_pool_threads = 1;
	return (double)(sm.last_done[20] - t0) / floor_ns;
}

/*
 * A burst goes ahead of a backlog for the whole of its allowance, not for its first call.  No
 * work-conserving dispatcher can do better than this: with all 8 threads busy when the burst
 * arrives, they free one by one over D, so its N calls (plus the 1 in new_burst + 1 turns the
 * backlog keeps) cannot all have started before N (new_burst + 1) / new_burst / 8 D, against
 * ceil(N / 8) D on an idle pool.  Within 5% of that bound; and 1.2x for large bursts.
 */
static void test_fairq_bursts(void)
{
	static const int ns[] = { 1, 8, 32, 64, 128 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ns); i++) {
		double waves = ns[i] * (fq_new_burst + 1.0) / fq_new_burst / 8;
		double bound = (waves + 1) / ((ns[i] + 7) / 8);
		double r = burst_ratio(ns[i]);

		CHECK(r <= 1.05 * bound, "burst of %d calls against a backlog: %.2fx its floor (bound %.2fx)",
		      ns[i], r, bound);
		if (ns[i] >= 64)
			CHECK(r <= 1.2, "burst of %d calls against a backlog: %.2fx its floor", ns[i], r);
	}
}

/*
 * Only a client back from idle gets the burst allowance: not one whose transports another
 * policy had queued (a switch), nor one first seen with requests already in flight.
 */
static void test_fairq_busy_on_arrival(void)
{
	static struct sim sm;
	struct fq_pool *p;

	sim_init(&sm, 8);
	p = fqp(&sm.fp);
	set_addr(&fx[0], "10.0.0.1", 1);
	set_addr(&fx[1], "10.0.0.2", 1);
	set_addr(&fx[2], "10.0.0.3", 1);
	sm.fp.adopting = true;
	fairq_sched_fq.enqueue(&sm.fp, &fx[0]);
	sm.fp.adopting = false;
	CHECK(p->bursts == 0, "a transport handed over by a switch got a burst allowance");
	fx[1].xpt_nr_rqsts.counter = 2;
	fairq_sched_fq.enqueue(&sm.fp, &fx[1]);
	fx[1].xpt_nr_rqsts.counter = 0;
	CHECK(p->bursts == 0, "a client first seen with requests in flight got a burst allowance");
	fairq_sched_fq.enqueue(&sm.fp, &fx[2]);
	CHECK(p->bursts == 1, "a client arriving idle got no burst allowance");
	CHECK(fairq_sched_fq.pick(&sm.fp) == &fx[2], "the idle arrival is not served first");
	sim_exit(&sm);
}

/*
 * A connection queued again while a thread reads from it (the thread holds a slot of it) is
 * busy, not back from idle; queued again once that read yielded nothing and no thread holds a
 * slot, it is back from idle.
 */
static void test_fairq_requeue_during_read(void)
{
	static struct sim sm;
	struct fq_pool *p;
	u64 bursts;

	sim_init(&sm, 8);
	p = fqp(&sm.fp);
	set_addr(&fx[0], "10.0.0.1", 1);
	fairq_sched_fq.enqueue(&sm.fp, &fx[0]);
	CHECK(fairq_sched_fq.pick(&sm.fp) == &fx[0], "the connection was not dispatched");
	bursts = p->bursts;
	fx[0].xpt_nr_rqsts.counter = 1;
	fairq_sched_fq.enqueue(&sm.fp, &fx[0]);
	CHECK(p->bursts == bursts, "queued again during its read, it got a burst allowance");
	CHECK(fairq_sched_fq.pick(&sm.fp) == &fx[0], "queued again, it was not dispatched");
	/* the first read's request runs and ends; the second read yields nothing */
	fairq_sched_fq.start(&sm.fp, &fx[0], NULL);
	fairq_sched_fq.complete(&sm.fp, &fx[0], 1000000, NULL);
	fx[0].xpt_nr_rqsts.counter = 0;
	fairq_sched_fq.enqueue(&sm.fp, &fx[0]);
	CHECK(p->bursts == bursts + 1, "after a read that yielded nothing, it was not back from idle");
	sim_exit(&sm);
}

/*
 * A window-1 client (10 ms requests, @think between a reply and its next call) against 16
 * backlogged connections on 8 threads, over 20 s: its rate as a fraction of its rate alone,
 * and the backlog's use of the threads.  With @empty_reads its connection is queued again
 * after each read, and the thread that takes it reads nothing, as 6.1 does.
 */
static double window1_rate(u32 anticipate_us, u64 think, bool empty_reads, double *backlog_use,
			   u64 *antic, u64 *hits)
{
	static struct sim sm;
	u64 t0, served0, backlog0 = 0, backlog1 = 0;
	int i;

	fq_anticipate_us = anticipate_us;
	unit_pool_threads = 8;
	sim_init(&sm, 8);
	sim_backlog(&sm);
	set_addr(&fx[20], "10.0.0.9", 1);
	sm.cost[20] = 10000000;
	sm.think[20] = think;
	sm.empty_reads[20] = empty_reads;
	fairq_sched_fq.enqueue(&sm.fp, &fx[20]);
	sim_run(&sm, 5ULL * 1000000000);
	t0 = sm.now;
	served0 = sm.served[20];
	for (i = 0; i < 16; i++)
		backlog0 += sm.thread_ns[i];
	sim_run(&sm, t0 + 20ULL * 1000000000);
	for (i = 0; i < 16; i++)
		backlog1 += sm.thread_ns[i];
	*backlog_use = (double)(backlog1 - backlog0) / (8.0 * (sm.now - t0));
	*antic = fqp(&sm.fp)->anticipations;
	*hits = fqp(&sm.fp)->anticipation_hits;
	sim_exit(&sm);
	fq_anticipate_us = 0;
	unit_pool_threads = 1;
	return (double)(sm.served[20] - served0) / ((sm.now - t0) / (double)(10000000 + think));
}

/*
 * Anticipation: with a thread held for the window-1 client's next call, it keeps 95% of its
 * rate alone (without: it waits for a thread each time), the backlog loses at most the held
 * thread's wait, and a client slow to come back is soon no longer waited for.
 */
static void test_fairq_anticipation(void)
{
	double use0, use1, r0, r1;
	u64 antic, hits;

	r0 = window1_rate(0, 2000000, false, &use0, &antic, &hits);
	CHECK(antic == 0, "no thread held with anticipation off (%llu)", (unsigned long long)antic);
	r1 = window1_rate(5000, 2000000, false, &use1, &antic, &hits);
	CHECK(r1 >= 0.95 && r1 > r0, "window-1 client: %.3f of its rate alone anticipated, %.3f not",
	      r1, r0);
	CHECK(antic > 1000 && hits * 100 >= antic * 95,
	      "threads held %llu times, %llu of them used", (unsigned long long)antic,
	      (unsigned long long)hits);
	/* each hold idles a thread for the client's 2 ms: 2/12 of its calls' share of one thread */
	CHECK(use1 >= use0 - 0.03, "backlog's use of the threads: %.3f anticipated, %.3f not", use1,
	      use0);
	r1 = window1_rate(5000, 20000000, false, &use1, &antic, &hits);
	CHECK(antic <= 3, "a client 20 ms from reply to call was waited for %llu times",
	      (unsigned long long)antic);
	CHECK(r1 > 0.8, "and keeps its rate (%.3f)", r1);
	/*
	 * A read that yields nothing is no sign of a busy client: it comes back idle, earns its
	 * allowance again and is anticipated for the whole run, not only its first allowance.
	 */
	r1 = window1_rate(5000, 2000000, true, &use1, &antic, &hits);
	CHECK(r1 >= 0.95, "window-1 client read empty after each call: %.3f of its rate alone "
	      "anticipated", r1);
	CHECK(antic > 1000 && hits * 100 >= antic * 95,
	      "read empty after each call: threads held %llu times, %llu of them used",
	      (unsigned long long)antic, (unsigned long long)hits);
}

/* Keys: subnets group, connections split, v4-mapped IPv6 is the IPv4 client. */
static void test_fairq_keys(void)
{
	struct fairq_key_id a, b;

	set_addr(&fx[0], "10.0.0.1", 1);
	set_addr(&fx[1], "::ffff:10.0.0.1", 2);
	fq_key_of(&fx[0], &a, NULL);
	fq_key_of(&fx[1], &b, NULL);
	CHECK(!memcmp(&a, &b, sizeof(a)), "v4-mapped IPv6 folds to the IPv4 client");
	fq_key_type = FAIRQ_KEY_TYPE_SUBNET;
	fq_prefix4 = 24;
	set_addr(&fx[1], "10.0.0.77", 2);
	fq_key_of(&fx[1], &b, NULL);
	fq_key_of(&fx[0], &a, NULL);
	CHECK(!memcmp(&a, &b, sizeof(a)), "one /24 is one key");
	set_addr(&fx[1], "10.0.1.77", 2);
	fq_key_of(&fx[1], &b, NULL);
	CHECK(memcmp(&a, &b, sizeof(a)), "another /24 is another key");
	fq_key_type = FAIRQ_KEY_TYPE_CONN;
	set_addr(&fx[1], "10.0.0.1", 2);
	fq_key_of(&fx[0], &a, NULL);
	fq_key_of(&fx[1], &b, NULL);
	CHECK(memcmp(&a, &b, sizeof(a)), "two connections of one client are two keys");
	fq_key_type = FAIRQ_KEY_TYPE_ADDR;
}

/* A walk that takes at most @room keys per call, as a netlink dump fills one skb at a time. */
struct key_walk_probe {
	unsigned int room;
	unsigned int seen[NX];
	unsigned int reported;
};

static int count_key(const struct fairq_key_stats *ks, void *arg)
{
	struct key_walk_probe *w = arg;
	unsigned int port = ntohs(ks->id.port);

	if (!w->room)
		return -EMSGSIZE;
	w->room--;
	if (port >= 1000 && port < 1000 + NX)
		w->seen[port - 1000]++;
	w->reported++;
	return 0;
}

/* Keys walked a few at a time from the cursor: each one exactly once, however the walk is cut. */
static void test_fairq_key_walk(void)
{
	static struct key_walk_probe w;
	static struct sim sm;
	u64 cursor;
	unsigned int i, calls, room, dup, missed;

	fq_key_type = FAIRQ_KEY_TYPE_CONN;
	for (room = 1; room <= 7; room += 3) {
		sim_init(&sm, 8);
		for (i = 0; i < NX; i++) {
			set_addr(&fx[i], "10.0.0.1", 1000 + i);
			fairq_sched_fq.enqueue(&sm.fp, &fx[i]);
		}
		memset(&w, 0, sizeof(w));
		cursor = 0;
		for (calls = 0; calls < 2 * NX; calls++) {
			w.room = room;
			if (!fairq_sched_fq.keys->for_each_key(&sm.fp, &cursor, count_key, &w))
				break;
		}
		for (i = 0, dup = 0, missed = 0; i < NX; i++) {
			dup += w.seen[i] > 1;
			missed += !w.seen[i];
		}
		CHECK(!dup && !missed && w.reported == NX,
		      "%u keys walked %u at a time: %u reported, %u twice, %u missed", NX, room,
		      w.reported, dup, missed);
		CHECK(calls <= NX / room + 1, "%u walks of %u for %u keys (no re-walk from the start)",
		      calls + 1, room, NX);
		sim_exit(&sm);
	}
	fq_key_type = FAIRQ_KEY_TYPE_ADDR;
}

/* Connection @i of a large set: a distinct address and port, keyed by connection. */
static void set_conn(struct svc_xprt *x, unsigned int i)
{
	char ip[32];

	snprintf(ip, sizeof(ip), "10.%u.%u.%u", 1 + i / 65536, (i / 256) % 256, i % 256);
	set_addr(x, ip, 1000 + i % 7);
}

/*
 * fq's keys in the table (its own tests are test_keytab.c): at 50,000 keys every key is found,
 * and a bucket page that cannot be allocated postpones a split, nothing else.
 */
static void test_fairq_key_table(void)
{
	const unsigned int nkeys = 50000;
	struct svc_xprt *xs = calloc(nkeys, sizeof(*xs));
	static struct sim sm;
	struct fq_pool *p;
	unsigned int i, missing = 0;

	fq_key_type = FAIRQ_KEY_TYPE_CONN;
	sim_init(&sm, 8);
	p = fqp(&sm.fp);
	for (i = 0; i < nkeys; i++) {
		set_conn(&xs[i], i);
		/* the page the 1025th key's split needs cannot be had, for a while */
		kshim_fail_size = i >= 1000 && i < 1100 ?
				  FAIRQ_KEYTAB_SEG_SIZE * sizeof(struct hlist_head) : 0;
		fairq_sched_fq.enqueue(&sm.fp, &xs[i]);
	}
	kshim_fail_size = 0;
	CHECK(p->keys.nr == nkeys && !p->alloc_failures, "%u keys, %llu allocation failures",
	      p->keys.nr, (unsigned long long)p->alloc_failures);
	CHECK(p->keys.split_failures > 0 && p->keys.split_failures <= 100,
	      "a missing bucket page postponed %llu splits",
	      (unsigned long long)p->keys.split_failures);
	CHECK(p->keys.nr <= FAIRQ_KEYTAB_LOAD * fairq_keytab_buckets(&p->keys) + 1,
	      "the table caught up: %u keys in %u buckets", p->keys.nr,
	      fairq_keytab_buckets(&p->keys));
	for (i = 0; i < nkeys; i++)
		missing += fq_key_lookup(p, &xs[i]) != fq_key_get(&sm.fp, p, &xs[i], &(bool){ false });
	CHECK(!missing && p->keys.nr == nkeys, "every key found where it was put (%u not)", missing);
	sim_exit(&sm);
	fq_key_type = FAIRQ_KEY_TYPE_ADDR;
	free(xs);
}

struct growing_walk {
	unsigned int room;
	unsigned int *seen;
	unsigned int first;	/* keys present from the start: ports 1000.., 10.1.x.y */
};

static int count_conn(const struct fairq_key_stats *ks, void *arg)
{
	struct growing_walk *w = arg;
	unsigned int i = ks->id.addr[1] - 1;

	if (!w->room)
		return -EMSGSIZE;
	w->room--;
	i = i * 65536 + ks->id.addr[2] * 256 + ks->id.addr[3];
	w->seen[i]++;
	return 0;
}

/* A walk that resumes after the table grew (a dump while clients connect) skips and repeats none. */
static void test_fairq_walk_while_growing(void)
{
	const unsigned int first = 3000, more = 20000;
	struct svc_xprt *xs = calloc(first + more, sizeof(*xs));
	struct growing_walk w = { .seen = calloc(first + more, sizeof(unsigned int)) };
	static struct sim sm;
	unsigned int i, added = 0, calls, dup = 0, missed = 0, bits0;
	u64 cursor = 0;

	fq_key_type = FAIRQ_KEY_TYPE_CONN;
	sim_init(&sm, 8);
	for (i = 0; i < first; i++) {
		set_conn(&xs[i], i);
		fairq_sched_fq.enqueue(&sm.fp, &xs[i]);
	}
	bits0 = fqp(&sm.fp)->keys.bits;
	for (calls = 0; calls < 2 * (first + more); calls++) {
		w.room = 5;
		if (!fairq_sched_fq.keys->for_each_key(&sm.fp, &cursor, count_conn, &w))
			break;
		for (i = 0; i < 40 && added < more; i++, added++) {
			set_conn(&xs[first + added], first + added);
			fairq_sched_fq.enqueue(&sm.fp, &xs[first + added]);
		}
	}
	for (i = 0; i < first; i++) {
		dup += w.seen[i] > 1;
		missed += !w.seen[i];
	}
	CHECK(fqp(&sm.fp)->keys.bits > bits0 + 2, "the table grew during the walk (%u to %u bits)",
	      bits0, fqp(&sm.fp)->keys.bits);
	CHECK(!dup && !missed, "of %u keys there from the start: %u reported twice, %u missed", first,
	      dup, missed);
	for (i = first, dup = 0; i < first + added; i++)
		dup += w.seen[i] > 1;
	CHECK(!dup, "no key that came during the walk was reported twice (%u were)", dup);
	CHECK(calls <= (first + added) / 5 + 1, "%u calls for %u keys: no walk started over", calls,
	      first + added);
	sim_exit(&sm);
	fq_key_type = FAIRQ_KEY_TYPE_ADDR;
	free(w.seen);
	free(xs);
}

/*
 * NFSv4.1 client keys: connections from two addresses bound to one client are one key, an
 * unbound connection falls back to its address, and weights apply by client id or address.
 */
static void test_fairq_v4client(void)
{
	struct fairq_key_id a, b, addr, rule = { .type = FAIRQ_KEY_TYPE_V4CLIENT };
	static struct sim sm;
	double s;
	int i;

	CHECK(fq_set_key(FAIRQ_KEY_TYPE_V4CLIENT) == 0 && v4client_wanted,
	      "client keys start learning connection owners");
	set_addr(&fx[0], "10.0.0.1", 1);
	set_addr(&fx[1], "10.0.9.9", 2);
	set_addr(&fx[2], "10.0.0.1", 3);
	v4owner[0] = v4owner[1] = 0x0102030405060708ULL;
	fq_key_of(&fx[0], &a, &addr);
	fq_key_of(&fx[1], &b, NULL);
	CHECK(a.type == FAIRQ_KEY_TYPE_V4CLIENT && !memcmp(&a, &b, sizeof(a)),
	      "two addresses, one NFSv4.1 client: one key");
	CHECK(a.addr[0] == 1 && a.addr[7] == 8, "the id reads as /proc/fs/nfsd prints it");
	CHECK(addr.type == FAIRQ_KEY_TYPE_ADDR && addr.family == AF_INET, "its address key is kept");
	fq_key_of(&fx[2], &b, NULL);
	CHECK(b.type == FAIRQ_KEY_TYPE_ADDR, "an unbound connection (NFSv3, v4.0) is keyed by address");

	/* client 1 (two connections, two addresses) weight 3 against client 2 (six connections) */
	memcpy(rule.addr, a.addr, 8);
	CHECK(fq_set_weight(&rule, 3) == 0, "a weight by client id is accepted");
	rule.family = AF_INET;
	CHECK(fq_set_weight(&rule, 3) == -EINVAL, "a client id with a family is refused");
	rule.family = 0;
	sim_init(&sm, 8);
	for (i = 0; i < 8; i++) {
		char ip[32];

		snprintf(ip, sizeof(ip), "10.0.%d.%d", i < 2 ? 1 + i : 5, 1 + i);
		set_addr(&fx[i], ip, 1);
		v4owner[i] = i < 2 ? 0x0102030405060708ULL : 0x1111;
		sm.cost[i] = 5000000;
		sm.backlogged[i] = true;
		fairq_sched_fq.enqueue(&sm.fp, &fx[i]);
	}
	sim_run(&sm, 30ULL * 1000000000);
	s = share(&sm, 0, 2, 0, 8);
	CHECK(s > 0.72 && s < 0.78, "3:1 client-id weight share %.3f (two addresses vs six connections)", s);
	sim_exit(&sm);
	CHECK(fq_set_weight(&rule, 0) == 0, "client weight removed");
	for (i = 0; i < 8; i++)
		v4owner[i] = 0;
	CHECK(fq_set_key(FAIRQ_KEY_TYPE_ADDR) == 0 && !v4client_wanted, "address keys stop learning");
}

/* A pool of 4 threads and one client with three connections ready: its key. */
static struct fq_key *one_client_three_connections(struct sim *sm)
{
	int i;

	sim_init(sm, 4);
	for (i = 0; i < 3; i++) {
		set_addr(&fx[i], "10.0.0.1", 1 + i);
		fairq_sched_fq.enqueue(&sm->fp, &fx[i]);
	}
	return fq_key_lookup(fqp(&sm->fp), &fx[0]);
}

/*
 * An in-flight cap: a client with many connections never has more than the cap of threads
 * working for it (on their way included), the others get the rest of the threads, and nothing
 * stalls or is lost.
 */
static void test_fairq_inflight_cap(void)
{
	static struct sim sm;
	struct fq_key *k;
	void *a, *b;
	u64 end;
	int i;

	fq_max_inflight = 2;
	sim_init(&sm, 8);
	unit_trace_holds = 0;
	unit_trace_lost_handoffs = 0;
	CHECK(sm.fp.track_threads, "a pool with a cap tracks its threads");
	for (i = 0; i < 9; i++) {
		set_addr(&fx[i], i < 8 ? "10.0.0.1" : "10.0.0.2", 700 + i);
		sm.cost[i] = 10000000;
		sm.backlogged[i] = true;
		fairq_sched_fq.enqueue(&sm.fp, &fx[i]);
	}
	sim_run(&sm, 5ULL * 1000000000);
	CHECK(sm.max_occupied == 2, "the 8-connection client had at most 2 threads (%u)",
	      sm.max_occupied);
	for (i = 0, end = 0; i < 8; i++)
		end += sm.served[i];
	/*
	 * 8 threads of 10 ms for 5 s: each client 2 of them, whatever its connections; the cap is
	 * per key and applies to both, so the other 4 threads idle (a cap is not work-conserving)
	 */
	CHECK(end > 900 && end <= 1001, "the 8-connection client had 2 threads' worth: %llu",
	      (unsigned long long)end);
	CHECK(sm.served[8] > 900 && sm.served[8] <= 1001,
	      "the 1-connection client had 2 threads' worth too: %llu",
	      (unsigned long long)sm.served[8]);
	CHECK(fqp(&sm.fp)->holds > 0, "holds are counted");
	CHECK(unit_trace_holds == fqp(&sm.fp)->holds, "one hold event per hold (%u events, %llu holds)",
	      unit_trace_holds, (unsigned long long)fqp(&sm.fp)->holds);
	sim_exit(&sm);

	/*
	 * Work that never ends in a reply (part of a record, a request 6.12+ drops unseen) frees
	 * its thread's place when the thread looks for work again.
	 */
	k = one_client_three_connections(&sm);
	CHECK(fairq_sched_fq.pick(&sm.fp) == &fx[0], "first hand-off");
	CHECK(fairq_sched_fq.pick(&sm.fp) == &fx[1], "second hand-off");
	CHECK(!fairq_sched_fq.has_work(&sm.fp) && k->list == FQ_HELD,
	      "two hand-offs on their way: the key is held");
	a = fairq_sched_fq.charge(&sm.fp, &fx[0], true);
	b = fairq_sched_fq.charge(&sm.fp, &fx[1], true);
	CHECK(a == k && b == k && k->occupied == 2 && !k->handed, "both seen on threads");
	fairq_sched_fq.start(&sm.fp, &fx[0], a);	/* a request that is dropped unseen */
	CHECK(!fairq_sched_fq.has_work(&sm.fp), "still held while both threads work");
	fairq_sched_fq.uncharge(&sm.fp, b);		/* a partial record: no request */
	CHECK(fairq_sched_fq.has_work(&sm.fp) && k->occupied == 1,
	      "a thread back from a partial record frees its place at once");
	CHECK(fairq_sched_fq.pick(&sm.fp) == &fx[2], "and the next transport goes");
	fairq_sched_fq.uncharge(&sm.fp, a);		/* the dropped request's thread */
	CHECK(k->occupied == 0 && k->handed == 1, "a dropped request's thread frees its place");

	/* a thread stuck in slow storage keeps its key alive past idle_secs */
	fairq_sched_fq.charge(&sm.fp, &fx[2], true);
	k->in_flight = 0;
	jiffies += (fq_idle_secs + 1) * HZ;
	gc_idle(fqp(&sm.fp));
	CHECK(fq_key_lookup(fqp(&sm.fp), &fx[0]) == k, "a key a thread works for is not freed");
	sim_exit(&sm);

	/* a hand-off no thread is seen taking and no close ends: the tick gives it up */
	k = one_client_three_connections(&sm);
	fairq_sched_fq.pick(&sm.fp);
	fairq_sched_fq.pick(&sm.fp);
	a = fairq_sched_fq.charge(&sm.fp, &fx[0], true);
	CHECK(!fairq_sched_fq.has_work(&sm.fp), "held: one thread working, one hand-off out");
	CHECK(fq_tick(&sm.fp) == 0, "nothing is let go while the key is busy");
	jiffies += 2 * HZ;
	CHECK(fq_tick(&sm.fp) == 1 && fairq_sched_fq.has_work(&sm.fp),
	      "a hand-off not seen for a second is given up");
	CHECK(fqp(&sm.fp)->lost_handoffs == 1 && k->occupied == 1, "counted; the working thread still counts");
	CHECK(unit_trace_lost_handoffs == 1, "a lost hand-off event, for one hand-off (%u)",
	      unit_trace_lost_handoffs);
	CHECK(fairq_sched_fq.pick(&sm.fp) == &fx[2], "and the queued transport is served");
	fairq_sched_fq.uncharge(&sm.fp, a);

	/*
	 * work that came without a dispatch (a bypass, a rebuild under way) counts too, and ends
	 * none of the key's dispatches on their way
	 */
	fairq_sched_fq.enqueue(&sm.fp, &fx[0]);
	fairq_sched_fq.enqueue(&sm.fp, &fx[1]);
	CHECK(fairq_sched_fq.has_work(&sm.fp) && k->handed == 1 && !k->occupied,
	      "one hand-off on its way: room for one more");
	a = fairq_sched_fq.charge(&sm.fp, &fx[1], false);
	CHECK(!fairq_sched_fq.has_work(&sm.fp) && k->list == FQ_HELD && k->handed == 1 &&
	      k->occupied == 1, "a thread working for it around fq: held, the hand-off still out");
	b = fairq_sched_fq.charge(&sm.fp, &fx[2], true);
	CHECK(k->list == FQ_HELD && !k->handed && k->occupied == 2,
	      "the hand-off seen on a thread: two threads working");
	fairq_sched_fq.uncharge(&sm.fp, a);
	fairq_sched_fq.uncharge(&sm.fp, b);
	CHECK(fairq_sched_fq.has_work(&sm.fp), "let go when they are done");
	sim_exit(&sm);

	/* a hand-off whose connection closes on its way gives its place back at once */
	k = one_client_three_connections(&sm);
	fairq_sched_fq.pick(&sm.fp);
	fairq_sched_fq.pick(&sm.fp);
	a = fairq_sched_fq.charge(&sm.fp, &fx[0], true);
	CHECK(!fairq_sched_fq.has_work(&sm.fp), "held: one thread working, one hand-off out");
	CHECK(fairq_sched_fq.undispatch(&sm.fp, &fx[1]),
	      "the closed hand-off frees the key's place");
	CHECK(fairq_sched_fq.has_work(&sm.fp) && !k->handed && k->occupied == 1 &&
	      fqp(&sm.fp)->handoffs_returned == 1, "the key is back in the rotation, and it is counted");
	CHECK(fairq_sched_fq.pick(&sm.fp) == &fx[2], "and its queued transport is served");
	set_addr(&fx[4], "10.0.0.2", 1);
	CHECK(!fairq_sched_fq.undispatch(&sm.fp, &fx[4]) && k->handed == 1,
	      "a connection of another key gives nothing back");
	fairq_sched_fq.uncharge(&sm.fp, a);
	CHECK(fq_tick(&sm.fp) == 0 && fqp(&sm.fp)->lost_handoffs == 0, "and nothing is lost");
	sim_exit(&sm);

	/* the overflow key has no cap and is never charged: its hand-offs still expire */
	sim_init(&sm, 4);
	set_addr(&fx[0], "10.0.0.9", 1);
	for (i = 0; i < 50; i++) {
		kshim_fail_allocs = 1;
		fairq_sched_fq.enqueue(&sm.fp, &fx[0]);
		kshim_fail_allocs = 0;
		CHECK(fairq_sched_fq.pick(&sm.fp) == &fx[0], "overflow hand-off %d", i);
		jiffies += HZ;
	}
	k = &fqp(&sm.fp)->overflow;
	CHECK(k->handed <= 1 && !handed_out(fqp(&sm.fp), k),
	      "the overflow key's hand-offs expire under a cap (%u)", k->handed);
	fq_max_inflight = 0;
	sim_exit(&sm);

	sim_init(&sm, 4);
	CHECK(!sm.fp.track_threads, "no cap: no thread tracking");
	sim_exit(&sm);
}

/*
 * A request whose connection is bound to an NFSv4.1 client while it runs (by its SEQUENCE)
 * ends on the key it started on, the one its thread was charged for: that key's requests in
 * flight come back to none and it pays the thread time, however the connection is keyed now.
 */
static void test_fairq_request_token(void)
{
	static struct sim sm;
	struct fq_key *k;
	void *a, *b;

	CHECK(fq_set_key(FAIRQ_KEY_TYPE_V4CLIENT) == 0, "client keys");
	fq_max_inflight = 2;
	sim_init(&sm, 4);
	set_addr(&fx[0], "10.0.0.1", 1);
	v4owner[0] = 0;
	fairq_sched_fq.enqueue(&sm.fp, &fx[0]);
	CHECK(fairq_sched_fq.pick(&sm.fp) == &fx[0], "the connection is dispatched");
	a = fairq_sched_fq.charge(&sm.fp, &fx[0], true);
	k = a;
	CHECK(k && k->id.type == FAIRQ_KEY_TYPE_ADDR, "unbound, its thread is charged to its address");
	fairq_sched_fq.start(&sm.fp, &fx[0], a);
	CHECK(k->in_flight == 1, "one request in flight");
	v4owner[0] = 0x0102030405060708ULL;
	fairq_sched_fq.complete(&sm.fp, &fx[0], 3000000, a);
	CHECK(!k->in_flight && k->thread_ns == 3000000,
	      "bound meanwhile, the request ends on its address key: %u in flight, %llu ns", k->in_flight,
	      (unsigned long long)k->thread_ns);
	fairq_sched_fq.uncharge(&sm.fp, a);
	v4owner[0] = 0;
	fq_max_inflight = 0;
	sim_exit(&sm);

	/*
	 * Without a cap the core charges each request alone, from its start to its end (the
	 * thread's record holds the token): the same settling, without a lookup at the end.
	 */
	sim_init(&sm, 4);
	CHECK(!sm.fp.track_threads, "no cap: no thread tracking");
	fairq_sched_fq.enqueue(&sm.fp, &fx[0]);
	CHECK(fairq_sched_fq.pick(&sm.fp) == &fx[0], "the connection is dispatched");
	a = fairq_sched_fq.charge(&sm.fp, &fx[0], false);
	k = a;
	CHECK(k && k->id.type == FAIRQ_KEY_TYPE_ADDR && k->occupied == 1,
	      "its request is charged to its address key, and the key is busy");
	fairq_sched_fq.start(&sm.fp, &fx[0], a);
	v4owner[0] = 0x0102030405060708ULL;
	fairq_sched_fq.complete(&sm.fp, &fx[0], 3000000, a);
	fairq_sched_fq.uncharge(&sm.fp, a);
	CHECK(!k->in_flight && !k->occupied && k->thread_ns == 3000000,
	      "bound meanwhile, the request ends on its address key: %u in flight, %llu ns",
	      k->in_flight, (unsigned long long)k->thread_ns);

	/* bound now: the next dispatch is for the client key, and so is the next charge */
	fairq_sched_fq.enqueue(&sm.fp, &fx[0]);
	CHECK(fairq_sched_fq.pick(&sm.fp) == &fx[0], "dispatched again");
	b = fairq_sched_fq.charge(&sm.fp, &fx[0], false);
	CHECK(b && b != a && ((struct fq_key *)b)->id.type == FAIRQ_KEY_TYPE_V4CLIENT,
	      "charged to the client key it was dispatched for");
	fairq_sched_fq.uncharge(&sm.fp, b);

	/*
	 * A charge goes to the key of the dispatch even if the transport is keyed differently
	 * by then, and once: a second charge finds the key the transport has now.
	 */
	set_addr(&fx[1], "10.0.0.3", 2);
	v4owner[1] = 0;
	fairq_sched_fq.enqueue(&sm.fp, &fx[1]);
	CHECK(fairq_sched_fq.pick(&sm.fp) == &fx[1], "an unbound connection is dispatched");
	v4owner[1] = 0x0102030405060708ULL;
	a = fairq_sched_fq.charge(&sm.fp, &fx[1], false);
	k = a;
	CHECK(k && k->id.type == FAIRQ_KEY_TYPE_ADDR,
	      "charged to the address key it was dispatched for");
	b = fairq_sched_fq.charge(&sm.fp, &fx[1], false);
	CHECK(b && ((struct fq_key *)b)->id.type == FAIRQ_KEY_TYPE_V4CLIENT,
	      "a charge with no dispatch of its own goes to the key of the transport now");
	fairq_sched_fq.uncharge(&sm.fp, b);
	fairq_sched_fq.uncharge(&sm.fp, a);

	/* a key that is freed takes the memory of its dispatches with it */
	v4owner[1] = 0;
	fairq_sched_fq.enqueue(&sm.fp, &fx[1]);
	CHECK(fairq_sched_fq.pick(&sm.fp) == &fx[1] && memo_slot(fqp(&sm.fp), &fx[1])->key == k,
	      "dispatched for its address key again, not yet charged");
	v4owner[1] = 0x0102030405060708ULL;
	jiffies += (fq_idle_secs + 1) * HZ;
	gc_idle(fqp(&sm.fp));
	gc_idle(fqp(&sm.fp));
	CHECK(!memo_slot(fqp(&sm.fp), &fx[1])->xprt, "the freed key is no longer remembered");
	CHECK(!fairq_sched_fq.charge(&sm.fp, &fx[1], false),
	      "a transport no dispatch is remembered for is charged to its key now: none, all freed");
	v4owner[0] = v4owner[1] = 0;
	sim_exit(&sm);

	/* a request of the overflow key starts and ends there, and pays nothing */
	sim_init(&sm, 4);
	set_addr(&fx[0], "10.0.0.9", 1);
	kshim_fail_allocs = 1;
	fairq_sched_fq.enqueue(&sm.fp, &fx[0]);
	kshim_fail_allocs = 0;
	CHECK(fairq_sched_fq.pick(&sm.fp) == &fx[0], "an overflow dispatch");
	k = &fqp(&sm.fp)->overflow;
	a = fairq_sched_fq.charge(&sm.fp, &fx[0], false);
	CHECK(a == k, "charged to the overflow key");
	fairq_sched_fq.enqueue(&sm.fp, &fx[1]);		/* 10.0.0.1 has a key of its own */
	set_addr(&fx[0], "10.0.0.1", 1);		/* its key now exists: still not charged */
	fairq_sched_fq.start(&sm.fp, &fx[0], a);
	fairq_sched_fq.complete(&sm.fp, &fx[0], 3000000, a);
	fairq_sched_fq.uncharge(&sm.fp, a);
	CHECK(!k->in_flight && !k->thread_ns && !k->occupied, "the overflow key pays nothing");
	k = fq_key_lookup(fqp(&sm.fp), &fx[1]);
	CHECK(k && !k->in_flight && !k->thread_ns, "and the key of the transport now nothing either");
	sim_exit(&sm);
	CHECK(fq_set_key(FAIRQ_KEY_TYPE_ADDR) == 0, "address keys again");
}

/*
 * The dispatch tracepoint's key and wait: the key served, and how long it had waited for the
 * turn (since it had work, then since its previous dispatch); unknown for a key that was
 * already waiting when tracing began, and never a stale stamp from an earlier trace.
 */
static void test_fairq_trace_wait(void)
{
	static struct sim sm;
	const struct fairq_key_id *key;
	s64 wait;

	sim_init(&sm, 4);
	set_addr(&fx[0], "10.0.0.1", 700);
	set_addr(&fx[1], "10.0.0.1", 701);
	set_addr(&fx[2], "10.0.0.2", 702);
	unit_trace_on = true;
	kshim_now_ns = 1000000;
	fairq_sched_fq.enqueue(&sm.fp, &fx[0]);
	fairq_sched_fq.enqueue(&sm.fp, &fx[1]);
	kshim_now_ns += 3000;
	fairq_sched_fq.enqueue(&sm.fp, &fx[2]);
	kshim_now_ns += 5000;
	CHECK(fairq_sched_fq.pick(&sm.fp) == &fx[0], "the first key first");
	fairq_sched_fq.keys->picked(&sm.fp, &key, &wait);
	CHECK(key->type == FAIRQ_KEY_TYPE_ADDR && key->addr[3] == 1 && wait == 8000,
	      "key 10.0.0.1, waited 8 us since it had work (%lld)", (long long)wait);
	kshim_now_ns += 2000;
	/* a new key is served ahead while its allowance lasts: its second transport is next */
	CHECK(fairq_sched_fq.pick(&sm.fp) == &fx[1], "the first key's second transport");
	fairq_sched_fq.keys->picked(&sm.fp, &key, &wait);
	CHECK(key->addr[3] == 1 && wait == 2000, "waited since the key's previous dispatch (%lld)",
	      (long long)wait);
	kshim_now_ns += 1000;
	CHECK(fairq_sched_fq.pick(&sm.fp) == &fx[2], "then the second key");
	fairq_sched_fq.keys->picked(&sm.fp, &key, &wait);
	CHECK(key->addr[3] == 2 && wait == 8000, "key 10.0.0.2 waited 8 us (%lld)", (long long)wait);

	/*
	 * tracing off for a dispatch, on again while the key still waits: its wait is unknown,
	 * not counted from the stamp before the dispatch that tracing did not see
	 */
	fairq_sched_fq.enqueue(&sm.fp, &fx[0]);
	fairq_sched_fq.enqueue(&sm.fp, &fx[1]);
	unit_trace_on = false;
	fairq_sched_fq.pick(&sm.fp);
	fairq_sched_fq.keys->picked(&sm.fp, &key, &wait);
	CHECK(wait == -1, "not tracing: no wait (%lld)", (long long)wait);
	unit_trace_on = true;
	kshim_now_ns += 50000;
	fairq_sched_fq.pick(&sm.fp);
	fairq_sched_fq.keys->picked(&sm.fp, &key, &wait);
	CHECK(key->addr[3] == 1 && wait == -1, "waiting from before tracing: unknown (%lld)",
	      (long long)wait);

	/* work another policy had queued (a switch, a rebuild): its wait is unknown */
	sm.fp.adopting = true;
	fairq_sched_fq.enqueue(&sm.fp, &fx[2]);
	sm.fp.adopting = false;
	kshim_now_ns += 1000;
	fairq_sched_fq.pick(&sm.fp);
	fairq_sched_fq.keys->picked(&sm.fp, &key, &wait);
	CHECK(key->addr[3] == 2 && wait == -1, "adopted work: unknown (%lld)", (long long)wait);
	unit_trace_on = false;
	sim_exit(&sm);
}

/* Allocation failures, removal and draining lose nothing. */
static void test_fairq_nothing_lost(void)
{
	static struct sim sm;
	struct fairq_xlist out;
	bool seen[NX] = { false };
	struct svc_xprt *x;
	int i, n = 0;

	sim_init(&sm, 1);
	for (i = 0; i < 40; i++) {
		char ip[32];

		snprintf(ip, sizeof(ip), "10.0.%d.%d", i % 3, i % 7);
		set_addr(&fx[i], ip, i);
		if (i % 5 == 0)
			kshim_fail_allocs = 1;	/* this key cannot be allocated: overflow key */
		fairq_sched_fq.enqueue(&sm.fp, &fx[i]);
	}
	kshim_fail_allocs = 0;
	CHECK(fairq_sched_fq.remove(&sm.fp, &fx[7]), "remove a queued transport");
	CHECK(!fairq_sched_fq.remove(&sm.fp, &fx[7]), "remove it twice fails");
	for (i = 0; i < 10; i++) {
		x = fairq_sched_fq.pick(&sm.fp);
		CHECK(x && !seen[x->id] && x->id != 7, "pick %d is new and not the removed one", i);
		if (x)
			seen[x->id] = true;
		n++;
	}
	fairq_xlist_init(&out);
	fairq_sched_fq.drain(&sm.fp, &out);
	while ((x = fairq_xlist_pop(&out))) {
		CHECK(!seen[x->id] && x->id != 7, "drained %d once", x->id);
		seen[x->id] = true;
		n++;
	}
	CHECK(n == 39, "every transport came out once (%d of 39)", n);
	CHECK(!fairq_sched_fq.has_work(&sm.fp), "nothing left after draining");
	fairq_sched_fq.exit_pool(&sm.fp);
}

/* Unregistering the policy (unload) frees its weight rules: nothing is left for kmemleak. */
static void test_fairq_release(void)
{
	struct fairq_key_id id = { .type = FAIRQ_KEY_TYPE_ADDR, .family = AF_INET };

	inet_pton(AF_INET, "10.0.9.9", id.addr);
	CHECK(fairq_sched_fq.keys->set_weight(&id, 5) == 0, "a weight rule before unload");
	CHECK(rcu_access_pointer(fq_weights), "the rules exist");
	CHECK(fairq_sched_fq.release, "the policy has a release op");
	if (fairq_sched_fq.release)
		fairq_sched_fq.release();
	CHECK(!rcu_access_pointer(fq_weights), "release freed the weight rules");
}

/*
 * A close of a queued transport finds it through its own key, not by searching every key's
 * queue: closes of busy transports must not cost O(queued) under the pool lock (M2).
 */
static void test_fairq_remove_by_key(void)
{
	static struct sim sm;
	int i, keys = 200;
	unsigned long visits;

	sim_init(&sm, 1);
	for (i = 0; i < keys; i++) {
		char ip[32];

		snprintf(ip, sizeof(ip), "10.1.%d.%d", i / 250, i % 250 + 1);
		set_addr(&fx[i], ip, 800);
		fairq_sched_fq.enqueue(&sm.fp, &fx[i]);
	}
	xnode_lookups = 0;
	CHECK(fairq_sched_fq.remove(&sm.fp, &fx[keys - 1]), "remove the last key's transport");
	visits = xnode_lookups;
	CHECK(visits <= 2, "queues searched to remove one transport among %d keys: %lu", keys, visits);
	CHECK(!fairq_sched_fq.remove(&sm.fp, &fx[keys - 1]), "removed once");
	sim_exit(&sm);
}

/*
 * sunrpc's per-connection limit is looked up through sunrpc's own transport class only: a
 * first transport of another class (RDMA's, owned by rpcrdma) must not end the search with
 * nothing found, leaving the limit unapplied for good (review M4).
 */
static void test_conn_limit_by_class(void)
{
	static unsigned int limit = 1;
	static const struct kernel_param sunrpc_kp[] = {
		{ "auth_hashtable_size", NULL },
		{ "svc_rpc_per_connection_limit", &limit },
	};
	static const struct kernel_param rpcrdma_kp[] = { { "max_requests", NULL } };
	struct module sunrpc = { 2, sunrpc_kp }, rpcrdma = { 1, rpcrdma_kp };
	struct svc_xprt_class tcp = { "tcp", &sunrpc }, rdma = { "rdma", &rpcrdma };
	struct svc_xprt_class builtin = { "tcp", NULL };
	struct fairq_conn_limit cl = { 0 }, cl_builtin = { 0 };
	struct svc_xprt x = { 0 };
	int notices = kshim_notices;

	x.xpt_class = &rdma;
	x.xpt_nr_rqsts.counter = 0;
	CHECK(fairq_conn_limit_allows(&cl, &x), "an idle RDMA transport may be served");
	CHECK(!cl.looked_up, "rpcrdma's parameters were not taken for sunrpc's");
	x.xpt_class = &tcp;
	x.xpt_nr_rqsts.counter = 1;
	CHECK(!fairq_conn_limit_allows(&cl, &x),
	      "a TCP transport at sunrpc's limit of 1 waits, though an RDMA transport came first");
	x.xpt_nr_rqsts.counter = 0;
	CHECK(fairq_conn_limit_allows(&cl, &x), "a TCP transport under the limit may be served");
	x.xpt_class = &rdma;
	x.xpt_nr_rqsts.counter = 1;
	CHECK(!fairq_conn_limit_allows(&cl, &x), "once found, the limit holds for every class");
	limit = 0;
	CHECK(fairq_conn_limit_allows(&cl, &x), "a limit of 0 is off");
	CHECK(kshim_notices == notices, "no notice when the limit was found");

	/* sunrpc built in: no module to ask, so the limit is not applied, and that is said once */
	x.xpt_class = &builtin;
	x.xpt_nr_rqsts.counter = 5;
	CHECK(fairq_conn_limit_allows(&cl_builtin, &x) && fairq_conn_limit_allows(&cl_builtin, &x),
	      "without sunrpc's parameter no limit is applied");
	CHECK(kshim_notices == notices + 1, "said once that it is not applied (%d notices)",
	      kshim_notices - notices);
}

/* ---- QoS classes: the rules, the rate clock, and fq pacing a limited class ---- */

static struct fairq_class_spec class_spec(const char *name, bool create)
{
	struct fairq_class_spec spec = { .create = create };

	strscpy(spec.name, name, sizeof(spec.name));
	return spec;
}

static void class_match(struct fairq_class_spec *spec, const char *ip, unsigned int prefix)
{
	struct fairq_key_id *m = &spec->match[spec->nr_match++];

	memset(m, 0, sizeof(*m));
	m->type = prefix ? FAIRQ_KEY_TYPE_SUBNET : FAIRQ_KEY_TYPE_ADDR;
	m->family = AF_INET;
	m->prefix_len = prefix;
	inet_pton(AF_INET, ip, m->addr);
	spec->set_match = true;
}

static struct fairq_class_ref class_of_ip(const char *ip)
{
	struct fairq_key_id id = { .type = FAIRQ_KEY_TYPE_ADDR, .family = AF_INET };
	struct fairq_class_ref ref;

	inet_pton(AF_INET, ip, id.addr);
	fairq_class_of(&fq_classes, &id, &id, &ref, NULL);
	return ref;
}

static int class_name_at(const struct fairq_class_spec *cls, void *arg)
{
	char *names = arg;

	strcat(names, cls->name);
	strcat(names, " ");
	return 0;
}

/*
 * The generic cell rate algorithm as a scheduler: starts booked at once are evenly spaced at
 * the limit, a burst after a quiet time goes at once, and no more.
 */
static void test_class_clock(void)
{
	struct fairq_class_clock clock = { 0 };
	struct fairq_class_ref ref = { .interval_ns = 10000000 };
	u64 t0 = 1000000000, start;
	int i, n;

	CHECK(fairq_class_book(&clock.tat, &ref, t0) == t0, "a first start goes at once");
	start = fairq_class_book(&clock.tat, &ref, t0 + 5000000);
	CHECK(start == t0 + 10000000, "the next one is booked an interval later (+%lld ns)",
	      (long long)(start - t0));
	start = fairq_class_book(&clock.tat, &ref, t0 + 5000000);
	CHECK(start == t0 + 20000000, "and the one after it another interval later (+%lld ns)",
	      (long long)(start - t0));
	ref.tolerance_ns = 4 * ref.interval_ns;	/* burst 5 */
	for (n = 0; n < 100 && (start = fairq_class_book(&clock.tat, &ref, 2 * t0)) == 2 * t0; n++)
		;
	CHECK(n == 5, "after a quiet second, a burst of 5 at once (%d)", n);
	CHECK(start == 2 * t0 + 10000000, "the sixth an interval later (+%lld ns)",
	      (long long)(start - 2 * t0));
	for (i = 2; i <= 100; i++) {
		start = fairq_class_book(&clock.tat, &ref, 2 * t0);
		if (start != 2 * t0 + (u64)i * 10000000)
			break;
	}
	CHECK(i == 101, "then one start per interval, booking after booking (%d)", i);
}

static void test_class_rules(void)
{
	struct fairq_class_spec spec;
	struct fairq_class_ref ref;
	const char *why = NULL;
	char names[512] = "";
	u64 cursor = 0;
	int i, err;

	ref = class_of_ip("10.1.2.3");
	CHECK(ref.slot == 0 && !ref.counted && !ref.interval_ns,
	      "with no class, every key is in the default one, uncounted and unlimited");
	spec = class_spec("web", true);
	class_match(&spec, "10.1.0.0", 16);
	spec.set_limit = true;
	spec.limit_rps = 200;
	CHECK(fairq_sched_fq.keys->set_class(&spec, &why) == 0, "class web made");
	ref = class_of_ip("10.1.2.3");
	CHECK(ref.slot && ref.counted && ref.interval_ns == 5000000 && !ref.tolerance_ns,
	      "10.1.2.3 is in web: 200/s, burst 1");
	CHECK(!class_of_ip("10.2.0.1").slot, "10.2.0.1 is not");
	err = fairq_sched_fq.keys->set_class(&spec, &why);
	CHECK(err == -EEXIST && why, "a name in use is refused (%d: %s)", err, why);
	spec = class_spec("host", true);
	class_match(&spec, "10.1.2.3", 0);
	spec.set_rank = true;
	spec.rank = 0;
	CHECK(fairq_sched_fq.keys->set_class(&spec, &why) == 0, "class host made, ranked first");
	CHECK(class_of_ip("10.1.2.3").slot != class_of_ip("10.1.2.4").slot,
	      "the first class in rank order that matches wins");
	spec = class_spec("other", true);
	spec.set_rank = true;
	spec.rank = 0;
	err = fairq_sched_fq.keys->set_class(&spec, &why);
	CHECK(err == -EBUSY, "a rank in use is refused (%d: %s)", err, why);
	spec = class_spec("nosuch", false);
	CHECK(fairq_sched_fq.keys->set_class(&spec, &why) == -ENOENT, "an unknown class is refused");
	spec = class_spec("default", true);
	CHECK(fairq_sched_fq.keys->set_class(&spec, &why) == -EEXIST, "default cannot be made");
	spec = class_spec("default", false);
	class_match(&spec, "10.9.0.0", 16);
	CHECK(fairq_sched_fq.keys->set_class(&spec, &why) == -EINVAL, "default takes no match");
	spec = class_spec("bad/name", true);
	CHECK(fairq_sched_fq.keys->set_class(&spec, &why) == -EINVAL, "a bad name is refused");
	spec = class_spec("web", false);
	spec.set_limit = true;
	spec.limit_rps = FAIRQ_CLASS_LIMIT_MAX + 1;
	CHECK(fairq_sched_fq.keys->set_class(&spec, &why) == -ERANGE, "a limit too high is refused");
	spec = class_spec("web", false);
	spec.set_burst = true;
	CHECK(fairq_sched_fq.keys->set_class(&spec, &why) == -ERANGE, "burst 0 is refused");
	spec = class_spec("web", false);
	for (i = 0; i < FAIRQ_CLASS_MATCH_MAX; i++)
		class_match(&spec, "10.7.0.0", 16);
	spec.nr_match++;
	CHECK(fairq_sched_fq.keys->set_class(&spec, &why) == -EINVAL, "a ninth match is refused");
	ref = class_of_ip("10.1.2.4");
	CHECK(ref.interval_ns == 5000000, "refusals changed nothing");
	fairq_sched_fq.keys->for_each_class(&cursor, class_name_at, names);
	CHECK(!strcmp(names, "host web default "), "classes in rank order, default last: %s", names);

	/* a deleted class's slot, taken by a new class, starts with its counters at 0 */
	ref = class_of_ip("10.1.2.4");
	atomic64_set(&fairq_class_clock(unit_shared, &ref)->dispatches, 7);
	CHECK(fairq_sched_fq.keys->del_class("web", &why) == 0, "class web deleted");
	CHECK(!class_of_ip("10.1.2.4").slot, "its clients are in the default class again");
	CHECK(fairq_sched_fq.keys->del_class("default", &why) == -EINVAL, "default cannot be deleted");
	CHECK(fairq_sched_fq.keys->del_class("web", &why) == -ENOENT, "nor web twice");
	spec = class_spec("web2", true);
	class_match(&spec, "10.1.0.0", 16);
	CHECK(fairq_sched_fq.keys->set_class(&spec, &why) == 0, "class web2 made");
	ref = class_of_ip("10.1.2.4");
	CHECK(!atomic64_read(&fairq_class_clock(unit_shared, &ref)->dispatches),
	      "a reused slot's counters start at 0");
	for (i = 0; i < FAIRQ_CLASSES_MAX; i++) {
		char name[16];

		snprintf(name, sizeof(name), "c%d", i);
		spec = class_spec(name, true);
		err = fairq_sched_fq.keys->set_class(&spec, &why);
		if (err)
			break;
	}
	CHECK(err == -ENOSPC && i == FAIRQ_CLASSES_MAX - 3,
	      "32 classes at most, default included (%d more made, then %d)", i, err);
	fairq_classes_clear(&fq_classes);
	memset(unit_shared, 0, sizeof(unit_shared));
}

/* A class made with one match, a weight, a reservation and a ceiling (0: not set). */
static void class_make(const char *name, const char *prefix, unsigned int len, u32 weight,
		       u32 reserve, u32 limit_pct, bool per_key)
{
	struct fairq_class_spec spec = class_spec(name, true);
	const char *why = NULL;
	int err;

	class_match(&spec, prefix, len);
	spec.set_weight = weight;
	spec.weight = weight;
	spec.set_reserve = reserve;
	spec.reserve_pct = reserve;
	spec.set_limit_pct = limit_pct;
	spec.limit_pct = limit_pct;
	spec.set_per_key = per_key;
	spec.per_key = per_key;
	err = fairq_sched_fq.keys->set_class(&spec, &why);
	CHECK(!err, "class %s made (%d: %s)", name, err, why ? why : "");
}

static void classes_done(struct sim *sm)
{
	sim_exit(sm);
	fairq_classes_clear(&fq_classes);
	memset(unit_shared, 0, sizeof(unit_shared));
	unit_serv_threads = 0;
}

/* Each of @n transports from @from on: a backlogged client of its own at 1 ms a request. */
static void clients(struct sim *sm, int from, int n, const char *net, int port)
{
	char ip[32];
	int i;

	for (i = from; i < from + n; i++) {
		snprintf(ip, sizeof(ip), "%s.%d", net, i - from + 1);
		set_addr(&fx[i], ip, port + i);
		sm->cost[i] = 1000000;
		sm->backlogged[i] = true;
		fairq_sched_fq.enqueue(&sm->fp, &fx[i]);
	}
}

static u64 thread_sum(const struct sim *sm, int from, int to)
{
	u64 n = 0;
	int i;

	for (i = from; i < to; i++)
		n += sm->thread_ns[i];
	return n;
}

/*
 * The percent of thread time transports [0, @part) had among [0, @all) over 10 s, after 2 s
 * past the keys' first allowance ahead of the rotation (200 ms of every thread each).
 */
static double steady_share(struct sim *sm, int part, int all)
{
	u64 p0, a0;

	sim_run(sm, 2ULL * 1000000000);
	p0 = thread_sum(sm, 0, part);
	a0 = thread_sum(sm, 0, all);
	sim_run(sm, 12ULL * 1000000000);
	return 100.0 * (thread_sum(sm, 0, part) - p0) / (thread_sum(sm, 0, all) - a0);
}

/* A share of @total within @tol percent of @want percent. */
static bool share_near(u64 part, u64 total, double want, double tol)
{
	double got = total ? 100.0 * part / total : 0;

	return got >= want - tol && got <= want + tol;
}

/*
 * Weights between classes: a class of one key at weight 1, one of three keys at weight 3,
 * and the default class's two keys, which count one each (no weight of its own): 1:3:2.
 */
static void test_fairq_class_weights(void)
{
	static struct sim sm;
	u64 a, b, d, all;

	class_make("one", "10.5.0.0", 16, 1, 0, 0, false);
	class_make("three", "10.6.0.0", 16, 3, 0, 0, false);
	kshim_now_ns = 0;
	sim_init(&sm, 4);
	CHECK(fqp(&sm.fp)->classes_shared, "classes with weights share the threads as classes");
	clients(&sm, 0, 1, "10.5.0", 900);
	clients(&sm, 1, 3, "10.6.0", 900);
	clients(&sm, 4, 2, "10.7.0", 900);
	sim_run(&sm, 10ULL * 1000000000);
	a = thread_sum(&sm, 0, 1);
	b = thread_sum(&sm, 1, 4);
	d = thread_sum(&sm, 4, 6);
	all = a + b + d;
	CHECK(share_near(a, all, 100.0 / 6, 0.34) && share_near(b, all, 50, 1) &&
	      share_near(d, all, 100.0 / 3, 0.67),
	      "weights 1, 3 and two default keys got 1:3:2 within 2%% (%.1f%%, %.1f%%, %.1f%%)",
	      100.0 * a / all, 100.0 * b / all, 100.0 * d / all);
	CHECK(share_near(sm.thread_ns[1], b, 100.0 / 3, 0.67) &&
	      share_near(sm.thread_ns[2], b, 100.0 / 3, 0.67),
	      "the keys of a class share its time equally (%.1f%%, %.1f%% of it)",
	      100.0 * sm.thread_ns[1] / b, 100.0 * sm.thread_ns[2] / b);
	classes_done(&sm);
}

/* Transport @i, from @ip (@port), backlogged at 1 ms a request in pool @sm. */
static void backlog_in(struct sim *sm, int i, const char *ip, int port)
{
	set_addr(&fx[i], ip, port);
	sm->cost[i] = 1000000;
	sm->backlogged[i] = true;
	fairq_sched_fq.enqueue(&sm->fp, &fx[i]);
}

/* As the core leaves a pool's policy state: drained in order into @out, freed. */
static void sim_leave(struct sim *sm, struct fairq_xlist *out)
{
	fairq_xlist_init(out);
	fairq_sched_fq.drain(&sm->fp, out);
	fairq_sched_fq.exit_pool(&sm->fp);
	memset(sm->fp.priv, 0, sizeof(sm->fp.priv));
	memset(sm->charge, 0, sizeof(sm->charge));	/* as the core: tokens forgotten */
	sm->fp.wake_at = 0;
}

/* ... and makes it anew, taking back what was queued */
static void sim_adopt(struct sim *sm, struct fairq_xlist *out)
{
	struct svc_xprt *x;

	fairq_sched_fq.init_pool(&sm->fp);
	sm->fp.adopting = true;
	while ((x = fairq_xlist_pop(out)))
		fairq_sched_fq.enqueue(&sm->fp, x);
	sm->fp.adopting = false;
}

/* As the core rebuilds a pool: drained, made anew, taken back. */
static void sim_rebuild(struct sim *sm)
{
	struct fairq_xlist out;

	sim_leave(sm, &out);
	sim_adopt(sm, &out);
}

/*
 * Two pools of 2 threads, until @end: client 1 of class "one" (weight 1) has work in both
 * pools, client 2 of the class in the second only, and class "two"'s client (weight 2) in
 * both.  The thread time of each client over the last 10 s in @c (1, 2, 3).  @stale: after
 * 1 s, the clocks of class one's clients are put far ahead of their class's, as if it had lost
 * count.  @rebuild_at: when both pools leave fq's state and come back at once, as in a
 * switch to another policy and back (0: never).
 * Return: the turns the first pool gave class two because client 1 was ahead.
 */
static u64 keys_two_pools(bool stale, u64 rebuild_at, u64 end, u64 c[3])
{
	static struct sim a, b;
	u64 t, passed;
	int i;

	class_make("one", "10.5.0.0", 16, 1, 0, 0, false);
	class_make("two", "10.6.0.0", 16, 2, 0, 0, false);
	kshim_now_ns = 0;
	unit_serv_threads = 4;
	sim_init(&a, 2);
	sim_init(&b, 2);
	/* 0-1: client 1 in a, 2-3 client 3 in a; 4 client 1 in b, 5 client 2, 6-7 client 3 */
	for (i = 0; i < 8; i++)
		backlog_in(i < 4 ? &a : &b, i, i == 0 || i == 1 || i == 4 ? "10.5.0.1" :
				 i == 5 ? "10.5.0.2" : "10.6.0.1", 1400 + i);
	for (t = 1000000; t <= end; t += 1000000) {
		sim_run(&a, t);
		sim_run(&b, t);
		if (t == rebuild_at) {
			struct fairq_xlist qa, qb;

			sim_leave(&a, &qa);
			sim_leave(&b, &qb);
			sim_adopt(&a, &qa);
			sim_adopt(&b, &qb);
		}
		if (stale && t == 1000000000) {
			atomic64_add(10LL * 1000000000 << FQ_VTIME_SHIFT,
				     &fq_key_lookup(fqp(&a.fp), &fx[0])->key_clock->vtime);
			atomic64_add(10LL * 1000000000 << FQ_VTIME_SHIFT,
				     &fq_key_lookup(fqp(&b.fp), &fx[5])->key_clock->vtime);
		}
		if (t == end - 10ULL * 1000000000) {
			for (i = 0; i < 8; i++)
				a.thread_ns[i] = b.thread_ns[i] = 0;
		}
	}
	c[0] = thread_sum(&a, 0, 2) + b.thread_ns[4];
	c[1] = b.thread_ns[5];
	c[2] = thread_sum(&a, 2, 4) + thread_sum(&b, 6, 8);
	passed = fqp(&a.fp)->keys_ahead;
	sim_exit(&b);
	classes_done(&a);
	return passed;
}

/*
 * The keys of a class share its time for the service as a whole, not pool by pool: shared
 * pool by pool, the first pool would give all of its class "one" time to client 1 (1/4 of the
 * threads in all, and client 2 1/12).
 */
static void test_fairq_class_keys_two_pools(void)
{
	u64 c[3], all, passed;

	passed = keys_two_pools(false, 0, 12ULL * 1000000000, c);
	all = c[0] + c[1] + c[2];
	CHECK(share_near(c[0], all, 100.0 / 6, 1) && share_near(c[1], all, 100.0 / 6, 1) &&
	      share_near(c[2], all, 200.0 / 3, 1),
	      "over two pools the clients of class one share it: 1/6 each, class two 2/3 (%.1f%%, %.1f%%, %.1f%%)",
	      100.0 * c[0] / all, 100.0 * c[1] / all, 100.0 * c[2] / all);
	CHECK(passed > 0, "the first pool counted the turns client 1 was passed over (%llu)",
	      (unsigned long long)passed);
	/* whatever the keys' clocks say, a class is never held back from its share */
	keys_two_pools(true, 0, 12ULL * 1000000000, c);
	all = c[0] + c[1] + c[2];
	CHECK(share_near(c[0] + c[1], all, 100.0 / 3, 1),
	      "with its keys' clocks far ahead, class one still gets 1/3 (%.1f%%)",
	      100.0 * (c[0] + c[1]) / all);
	/* clocks made anew start near their class's, not at 0 */
	keys_two_pools(false, 30ULL * 1000000000, 40ULL * 1000000000, c);

	all = c[0] + c[1] + c[2];
	CHECK(share_near(c[0], all, 100.0 / 6, 1) && share_near(c[1], all, 100.0 / 6, 1),
	      "after a switch away and back at 30 s, still 1/6 each (%.1f%%, %.1f%%)",
	      100.0 * c[0] / all, 100.0 * c[1] / all);
}

/* Two pools of 2 threads each, one service, from time 0. */
static void two_pools(struct sim *a, struct sim *b)
{
	kshim_now_ns = 0;
	unit_serv_threads = 4;
	unit_serv_pools = 2;
	sim_init(a, 2);
	sim_init(b, 2);
}

/* ... which leave no key clock behind */
static void two_pools_done(struct sim *a, struct sim *b)
{
	sim_exit(a);
	sim_exit(b);
	CHECK(!unit_key_clocks()->nr, "no key clock left (%u)", unit_key_clocks()->nr);
	memset(unit_shared, 0, sizeof(unit_shared));
	unit_serv_threads = 0;
	unit_serv_pools = 1;
}

/*
 * Without classes too, a client's share is of the service, not of each pool it reaches: a
 * client with connections in both pools of a service against one other client in each got
 * half of all the threads (a quarter in each pool), where a third is each client's.
 * @limited: client 1 is alone in a class limited to 90% (far above what it gets), whose
 * keys take turns with the default class's in one rotation.
 */
static void keys_two_pools_alone(bool limited)
{
	static struct sim a, b;
	u64 t, c[3], all;
	int i;

	if (limited)
		class_make("lim", "10.5.0.1", 32, 0, 0, 90, false);
	two_pools(&a, &b);
	CHECK(fqp(&a.fp)->keys_shared && !fqp(&a.fp)->classes_shared,
	      "a service of two pools shares its keys' time without classes");
	/* 0-1: client 1 in a, 2-3 client 2; 4-5 client 1 in b, 6-7 client 3 */
	for (i = 0; i < 8; i++)
		backlog_in(i < 4 ? &a : &b, i, i < 2 || i == 4 || i == 5 ? "10.5.0.1" :
				 i < 4 ? "10.5.0.2" : "10.5.0.3", 1500 + i);
	for (t = 1000000; t <= 12ULL * 1000000000; t += 1000000) {
		sim_run(&a, t);
		sim_run(&b, t);
		if (t == 2ULL * 1000000000) {
			for (i = 0; i < 8; i++)
				a.thread_ns[i] = b.thread_ns[i] = 0;
		}
	}
	c[0] = thread_sum(&a, 0, 2) + thread_sum(&b, 4, 6);
	c[1] = thread_sum(&a, 2, 4);
	c[2] = thread_sum(&b, 6, 8);
	all = c[0] + c[1] + c[2];
	CHECK(share_near(c[0], all, 100.0 / 3, 1) && share_near(c[1], all, 100.0 / 3, 1) &&
	      share_near(c[2], all, 100.0 / 3, 1),
	      "the client in both pools%s and one in each: a third each (%.1f%%, %.1f%%, %.1f%%)",
	      limited ? ", alone in its class," : "", 100.0 * c[0] / all, 100.0 * c[1] / all, 100.0 * c[2] / all);
	CHECK(fqp(&a.fp)->keys_ahead > 0 && fqp(&b.fp)->keys_ahead > 0,
	      "both pools passed the client over (%llu, %llu)",
	      (unsigned long long)fqp(&a.fp)->keys_ahead, (unsigned long long)fqp(&b.fp)->keys_ahead);
	two_pools_done(&a, &b);
	fairq_classes_clear(&fq_classes);
}

static void test_fairq_keys_two_pools(void)
{
	keys_two_pools_alone(false);
	keys_two_pools_alone(true);
}

/*
 * A client that had a pool to itself (half of the threads, with nobody else there) owes
 * nothing for it when another client joins it there: client 2 alone in pool a for 5 s, clients
 * 1 and 3 in pool b; then client 1 moves to pool a, and clients 1 and 2 share it evenly.
 */
static void test_fairq_keys_no_debt(void)
{
	static struct sim a, b;
	u64 t, c1, c2;
	int i;

	two_pools(&a, &b);
	/* 0-1: client 1 in b, then 6-7 in a; 2-3 client 2 in a; 4-5 client 3 in b */
	for (i = 0; i < 8; i++) {
		set_addr(&fx[i], i < 2 || i >= 6 ? "10.5.0.1" : i < 4 ? "10.5.0.2" : "10.5.0.3",
			 1600 + i);
		a.cost[i] = b.cost[i] = 1000000;
		a.backlogged[i] = b.backlogged[i] = true;
		if (i < 6)
			fairq_sched_fq.enqueue(i == 2 || i == 3 ? &a.fp : &b.fp, &fx[i]);
	}
	for (t = 1000000; t <= 9ULL * 1000000000; t += 1000000) {
		sim_run(&a, t);
		sim_run(&b, t);
		if (t == 5ULL * 1000000000) {
			b.backlogged[0] = b.backlogged[1] = false;
			fairq_sched_fq.enqueue(&a.fp, &fx[6]);
			fairq_sched_fq.enqueue(&a.fp, &fx[7]);
		}
		/* from its first allowance on (200 ms of the pool's threads) */
		if (t == 5500000000ULL) {
			for (i = 0; i < 8; i++)
				a.thread_ns[i] = b.thread_ns[i] = 0;
		}
	}
	c1 = a.thread_ns[6] + a.thread_ns[7];
	c2 = a.thread_ns[2] + a.thread_ns[3];
	CHECK(share_near(c1, c1 + c2, 50, 2),
	      "clients 1 and 2 in one pool share it evenly, whatever client 2 had before (%.1f%%, %.1f%%)",
	      100.0 * c1 / (c1 + c2), 100.0 * c2 / (c1 + c2));
	two_pools_done(&a, &b);
}

/*
 * A client served in one pool is not left waiting for good in another: client 1 has pool a
 * to itself (half of the threads, always ahead of its share) and also work in pool b, beside
 * client 3.  Passed over there each time, its connections in pool b would get no reply at
 * all (and time out); they are served at least every FQ_PASS_MAX_MS.
 */
static void test_fairq_keys_not_stranded(void)
{
	static struct sim a, b;
	u64 t, before = 0;
	int i;

	two_pools(&a, &b);
	/* 0-1: client 1 in a; 4-5 client 1 in b, 6-7 client 3 */
	for (i = 0; i < 8; i++) {
		if (i == 2 || i == 3)
			continue;
		backlog_in(i < 4 ? &a : &b, i, i < 6 ? "10.5.0.1" : "10.5.0.3", 1700 + i);
	}
	for (t = 1000000; t <= 12ULL * 1000000000; t += 1000000) {
		sim_run(&a, t);
		sim_run(&b, t);
		if (t == 2ULL * 1000000000)
			before = b.served[4] + b.served[5];
	}
	CHECK(b.served[4] + b.served[5] - before >= 40,
	      "client 1's connections in pool b were served %llu times in 10 s (at least every 200 ms)",
	      (unsigned long long)(b.served[4] + b.served[5] - before));
	two_pools_done(&a, &b);
}

/* per-key: each key of the class has the weight, as a weight rule gives it. */
static void test_fairq_class_per_key(void)
{
	static struct sim sm;
	u64 p, d;

	class_make("each", "10.5.0.0", 16, 3, 0, 0, true);
	kshim_now_ns = 0;
	sim_init(&sm, 2);
	CHECK(!fqp(&sm.fp)->classes_shared, "per-key weights alone keep one rotation");
	clients(&sm, 0, 2, "10.5.0", 950);
	clients(&sm, 2, 2, "10.7.0", 950);
	sim_run(&sm, 10ULL * 1000000000);
	p = thread_sum(&sm, 0, 2);
	d = thread_sum(&sm, 2, 4);
	CHECK(share_near(p, p + d, 75, 1.5), "two keys at weight 3 each against two at 1: 75%% (%.1f%%)",
	      100.0 * p / (p + d));
	classes_done(&sm);
}

/* A reservation holds against weights that alone would give the class 1/91. */
static void test_fairq_class_reserve(void)
{
	static struct sim sm;
	double r;

	class_make("floor", "10.5.0.0", 16, 1, 30, 0, false);
	class_make("big", "10.6.0.0", 16, 90, 0, 0, false);
	kshim_now_ns = 0;
	sim_init(&sm, 8);
	unit_pool_threads = 8;
	clients(&sm, 0, 2, "10.5.0", 1000);
	clients(&sm, 2, 6, "10.6.0", 1000);
	r = steady_share(&sm, 2, 8);
	CHECK(r >= 29.5 && r <= 31.5, "a class reserving 30%% at weight 1 against weight 90 got %.1f%%",
	      r);
	CHECK(atomic64_read(&class_clock(&sm.fp, fq_key_lookup(fqp(&sm.fp), &fx[0]))->reserved) >
	      1000, "its starts are counted as reserved");
	unit_pool_threads = 1;
	classes_done(&sm);
}

/*
 * The time a class with work was more than a quantum (10 ms) behind its reservation is
 * counted: a class reserving 50% of one thread whose client arrives 10 ms after another
 * class's 500 ms request took the thread waits 490 ms for it, then catches up on the 100 ms of
 * reservation it keeps (the other class's requests now take 1 ms): about 580 ms.  Before its
 * client came, and once it has caught up (within a request of its reservation), nothing.
 */
static void test_fairq_class_below_reserve(void)
{
	static struct sim sm;
	struct fairq_class_clock *clock;
	u64 below, later;

	class_make("floor", "10.5.0.0", 16, 1, 50, 0, false);
	class_make("big", "10.6.0.0", 16, 1, 0, 0, false);
	kshim_now_ns = 0;
	sim_init(&sm, 1);
	set_addr(&fx[1], "10.6.0.1", 1001);
	sm.cost[1] = 500000000;
	sm.backlogged[1] = true;
	fairq_sched_fq.enqueue(&sm.fp, &fx[1]);
	sim_run(&sm, 10000000);
	sm.cost[1] = 1000000;	/* the 500 ms request goes on */
	set_addr(&fx[0], "10.5.0.1", 1000);
	sm.cost[0] = 1000000;
	sm.backlogged[0] = true;
	fairq_sched_fq.enqueue(&sm.fp, &fx[0]);
	sim_run(&sm, 2ULL * 1000000000);
	clock = class_clock(&sm.fp, fq_key_lookup(fqp(&sm.fp), &fx[0]));
	below = atomic64_read(&clock->below_ns);
	CHECK(below >= 560000000 && below <= 600000000,
	      "the reserving class was counted %llu ms below its reservation (560 to 600)",
	      (unsigned long long)(below / 1000000));
	sim_run(&sm, 4ULL * 1000000000);
	later = atomic64_read(&clock->below_ns) - below;
	CHECK(!later, "served at its reservation, it was %llu ms more below it in 2 s",
	      (unsigned long long)(later / 1000000));
	classes_done(&sm);
}

/*
 * A reservation holds against many classes, each of which alone would have its share: 30% at
 * weight 1 against nine classes of weight 10 (the QoS bench's case).
 */
static void test_fairq_class_reserve_many(void)
{
	static struct sim sm;
	char name[16], net[32];
	double r;
	unsigned int c;

	class_make("floor", "10.5.0.0", 16, 1, 30, 0, false);
	for (c = 0; c < 9; c++) {
		snprintf(name, sizeof(name), "heavy%u", c % 10);
		snprintf(net, sizeof(net), "10.%u.0.0", 20 + c);
		class_make(name, net, 16, 10, 0, 0, false);
	}
	kshim_now_ns = 0;
	sim_init(&sm, 8);
	unit_pool_threads = 8;
	clients(&sm, 0, 1, "10.5.0", 1100);
	for (c = 0; c < 9; c++) {
		snprintf(net, sizeof(net), "10.%u.0", 20 + c);
		clients(&sm, 1 + c, 1, net, 1100);
	}
	r = steady_share(&sm, 1, 10);
	CHECK(r >= 29.5 && r <= 31.5,
	      "a class reserving 30%% at weight 1 against nine of weight 10 got %.1f%%", r);
	unit_pool_threads = 1;
	classes_done(&sm);
}

/*
 * The share of 4 threads a class limited to @pct% takes, its @n clients (10.5.0.1 on, matched
 * by @match/@len) against three greedy clients of the default class.
 */
static double ceiling_contended(const char *match, unsigned int len, u32 pct, int n, int port)
{
	static struct sim sm;
	double got;

	class_make("ceiling", match, len, 0, 0, pct, false);
	kshim_now_ns = 0;
	sim_init(&sm, 4);
	unit_pool_threads = 4;
	clients(&sm, 0, n, "10.5.0", port);
	clients(&sm, n, 3, "10.7.0", port);
	got = steady_share(&sm, n, n + 3);
	unit_pool_threads = 1;
	classes_done(&sm);
	return got;
}

/* A ceiling of 25% of the threads holds under contention and alone, threads idle. */
static void test_fairq_class_ceiling(void)
{
	static struct sim sm;
	double got;
	u64 l;

	got = ceiling_contended("10.5.0.0", 16, 25, 3, 1100);
	CHECK(got >= 24 && got <= 26, "limited to 25%% under contention: %.1f%%", got);

	class_make("quarter", "10.5.0.0", 16, 0, 0, 25, false);
	kshim_now_ns = 0;
	sim_init(&sm, 4);
	unit_pool_threads = 4;
	clients(&sm, 0, 3, "10.5.0", 1200);
	sim_run(&sm, 10ULL * 1000000000);
	l = thread_sum(&sm, 0, 3);
	CHECK(share_near(l, 4ULL * 10 * 1000000000, 25, 1),
	      "limited to 25%% alone, threads idle: %.1f%% of the threads' time",
	      100.0 * l / (4.0 * 10 * 1000000000));
	CHECK(fqp(&sm.fp)->paced > 0, "the class waited at its ceiling (paced)");
	unit_pool_threads = 1;
	classes_done(&sm);
}

/*
 * A class of one client limited to 10% against three greedy clients (whose rotation it would
 * share at 25%) gets its 10%: it waits a round of the others' turns after each of its own,
 * and keeps its ceiling for that time (it got 5.6% when it kept one request's).
 */
static void test_fairq_class_ceiling_one_client(void)
{
	double got = ceiling_contended("10.5.0.1", 32, 10, 1, 1400);

	CHECK(got >= 9 && got <= 11, "one client limited to 10%% under contention: %.1f%%", got);
}

/*
 * A ceiling per key: each of three clients of the class at most 10% of the threads' time
 * (30% together, where a 10% ceiling for the class would give them 10% together) against
 * three greedy clients of the default class, who would otherwise get as much.
 */
static void test_fairq_class_ceiling_per_key(void)
{
	static struct sim sm;
	u64 a0[3], all0, all;
	int i;

	class_make("tenth", "10.5.0.0", 16, 0, 0, 10, true);
	kshim_now_ns = 0;
	sim_init(&sm, 4);
	unit_pool_threads = 4;
	clients(&sm, 0, 3, "10.5.0", 1300);
	clients(&sm, 3, 3, "10.7.0", 1300);
	sim_run(&sm, 2ULL * 1000000000);
	for (i = 0; i < 3; i++)
		a0[i] = sm.thread_ns[i];
	all0 = thread_sum(&sm, 0, 6);
	sim_run(&sm, 12ULL * 1000000000);
	all = thread_sum(&sm, 0, 6) - all0;
	for (i = 0; i < 3; i++)
		CHECK(share_near(sm.thread_ns[i] - a0[i], all, 10, 1),
		      "client %d of the class, at most 10%% per key: %.1f%%", i,
		      100.0 * (sm.thread_ns[i] - a0[i]) / all);
	CHECK(unit_key_clocks()->nr == 3, "each client has its own ceiling (%u clocks)",
	      unit_key_clocks()->nr);
	unit_pool_threads = 1;
	classes_done(&sm);
}

/* Transports @from to @from + 3: one backlogged client (key) of 4 connections at 0.7 and 1.3 ms. */
static void uneven_client(struct sim *sm, int from, const char *ip, int port)
{
	int i;

	for (i = from; i < from + 4; i++) {
		set_addr(&fx[i], ip, port + i);
		sm->cost[i] = 1000000;
		sm->jitter[i] = 300000;
		sm->backlogged[i] = true;
		fairq_sched_fq.enqueue(&sm->fp, &fx[i]);
	}
}

/*
 * A ceiling holds under contention where requests do not all cost the same: two clients of 4
 * connections, 8 threads, requests of 0.7 and 1.3 ms in turn, one client limited to 25%.  What
 * a request cost beyond what its key paid at dispatch is settled on the class's clock, not
 * charged as a new start, and a start that waited for a thread keeps up to a request's thread
 * time of that wait: else the class loses the time it waited (20% where 25% is owed).
 */
static void test_fairq_class_ceiling_uneven(void)
{
	static struct sim sm;
	double got;
	u64 l;

	class_make("quarter", "10.5.0.0", 16, 0, 0, 25, false);
	kshim_now_ns = 0;
	sim_init(&sm, 8);
	unit_pool_threads = 8;
	uneven_client(&sm, 0, "10.5.0.1", 1400);
	uneven_client(&sm, 4, "10.7.0.1", 1400);
	got = steady_share(&sm, 4, 8);
	CHECK(got >= 24 && got <= 26, "limited to 25%% under contention, uneven requests: %.1f%%", got);
	unit_pool_threads = 1;
	classes_done(&sm);

	/* alone, the other threads idle: no more than the ceiling either */
	class_make("quarter", "10.5.0.0", 16, 0, 0, 25, false);
	kshim_now_ns = 0;
	sim_init(&sm, 8);
	unit_pool_threads = 8;
	uneven_client(&sm, 0, "10.5.0.1", 1500);
	sim_run(&sm, 2ULL * 1000000000);
	l = thread_sum(&sm, 0, 4);
	sim_run(&sm, 12ULL * 1000000000);
	l = thread_sum(&sm, 0, 4) - l;
	CHECK(share_near(l, 8ULL * 10 * 1000000000, 25, 1),
	      "limited to 25%% alone, uneven requests: %.1f%% of the threads' time",
	      100.0 * l / (8.0 * 10 * 1000000000));
	unit_pool_threads = 1;
	classes_done(&sm);
}

/* Two pools of one service: a class's ceiling holds for both together. */
static void test_fairq_class_ceiling_two_pools(void)
{
	static struct sim a, b;
	u64 t, l;

	class_make("quarter", "10.5.0.0", 16, 0, 0, 25, false);
	kshim_now_ns = 0;
	unit_serv_threads = 4;
	sim_init(&a, 2);
	sim_init(&b, 2);
	clients(&a, 0, 2, "10.5.0", 1300);
	clients(&b, 2, 2, "10.5.1", 1300);
	for (t = 1000000; t <= 10ULL * 1000000000; t += 1000000) {
		sim_run(&a, t);
		sim_run(&b, t);
	}
	l = thread_sum(&a, 0, 2) + thread_sum(&b, 2, 4);
	CHECK(share_near(l, 4ULL * 10 * 1000000000, 25, 1),
	      "25%% of the service's 4 threads over two pools: %.1f%%",
	      100.0 * l / (4.0 * 10 * 1000000000));
	sim_exit(&b);
	classes_done(&a);
}

/* What classes refuse, with a reason, changing nothing. */
static void test_fairq_class_share_refusals(void)
{
	struct fairq_class_spec spec;
	const char *why;
	u64 cursor = 0;
	char names[64] = "";

	class_make("a", "10.5.0.0", 16, 0, 60, 0, false);
	spec = class_spec("b", true);
	class_match(&spec, "10.6.0.0", 16);
	spec.set_reserve = true;
	spec.reserve_pct = 41;
	CHECK(fairq_sched_fq.keys->set_class(&spec, &why) == -ERANGE && strstr(why, "100%"),
	      "reservations past 100%% refused (%s)", why);
	spec.reserve_pct = 40;
	spec.set_limit_pct = true;
	spec.limit_pct = 30;
	CHECK(fairq_sched_fq.keys->set_class(&spec, &why) == -EINVAL && strstr(why, "limit"),
	      "a reservation above the class's own limit refused (%s)", why);
	spec = class_spec("b", true);
	class_match(&spec, "10.6.0.0", 16);
	spec.set_per_key = spec.per_key = true;
	CHECK(fairq_sched_fq.keys->set_class(&spec, &why) == -EINVAL && strstr(why, "weight"),
	      "per-key without a weight or a limit refused (%s)", why);
	spec.set_weight = true;
	spec.weight = 2;
	spec.set_reserve = true;
	spec.reserve_pct = 10;
	CHECK(fairq_sched_fq.keys->set_class(&spec, &why) == -EINVAL && strstr(why, "per-key"),
	      "per-key with a reservation refused (%s)", why);
	spec = class_spec("b", true);
	spec.set_weight = true;
	spec.weight = FAIRQ_CLASS_WEIGHT_MAX + 1;
	CHECK(fairq_sched_fq.keys->set_class(&spec, &why) == -ERANGE, "a weight past 10000 refused");
	spec = class_spec("a", false);
	spec.set_limit_pct = true;
	spec.limit_pct = 101;
	CHECK(fairq_sched_fq.keys->set_class(&spec, &why) == -ERANGE, "a limit past 100%% refused");
	fairq_classes_walk(&fq_classes, &cursor, class_name_at, names);
	CHECK(!strcmp(names, "a default "), "nothing was made by the refusals (%s)", names);
	fairq_classes_clear(&fq_classes);
}

/* fq paces a limited class at its limit; the rest of the pool's threads serve the others. */
static void test_fairq_class_limit(void)
{
	static struct sim sm;
	struct fairq_class_spec spec = class_spec("farm", true);
	const char *why;
	int i;

	class_match(&spec, "10.5.0.0", 16);
	spec.set_limit = true;
	spec.limit_rps = 50;
	CHECK(fairq_sched_fq.keys->set_class(&spec, &why) == 0, "class farm at 50/s");
	kshim_now_ns = 0;	/* the simulation's time, from which the class's clock starts */
	sim_init(&sm, 4);
	for (i = 0; i < 8; i++) {
		set_addr(&fx[i], i < 4 ? "10.5.0.1" : "10.6.0.1", 700 + i);
		sm.cost[i] = 1000000;
		sm.backlogged[i] = true;
		fairq_sched_fq.enqueue(&sm.fp, &fx[i]);
	}
	unit_trace_on = true;
	unit_trace_paces = 0;
	sim_run(&sm, 10ULL * 1000000000);
	unit_trace_on = false;
	CHECK(unit_trace_paces == fqp(&sm.fp)->paced, "one pace event per pacing (%u events, %llu paced)",
	      unit_trace_paces, (unsigned long long)fqp(&sm.fp)->paced);
	CHECK(sm.served[0] + sm.served[1] + sm.served[2] + sm.served[3] >= 499 &&
	      sm.served[0] + sm.served[1] + sm.served[2] + sm.served[3] <= 501,
	      "the limited client started 500 requests in 10 s (%llu)",
	      (unsigned long long)(sm.served[0] + sm.served[1] + sm.served[2] + sm.served[3]));
	CHECK(sm.served[4] + sm.served[5] + sm.served[6] + sm.served[7] > 30000,
	      "the other client had the rest of the threads (%llu)",
	      (unsigned long long)(sm.served[4] + sm.served[5] + sm.served[6] + sm.served[7]));
	CHECK(fqp(&sm.fp)->paced > 0, "the limited key was paced");
	sim_exit(&sm);
	fairq_classes_clear(&fq_classes);
	memset(unit_shared, 0, sizeof(unit_shared));
}

/* Two pools of one service share the class's clock: 50/s in all, not 50 per pool. */
static void test_fairq_class_two_pools(void)
{
	static struct sim a, b;
	struct fairq_class_spec spec = class_spec("farm", true);
	const char *why;
	u64 t;
	int i;

	class_match(&spec, "10.5.0.0", 16);
	spec.set_limit = true;
	spec.limit_rps = 50;
	CHECK(fairq_sched_fq.keys->set_class(&spec, &why) == 0, "class farm at 50/s");
	kshim_now_ns = 0;
	sim_init(&a, 2);
	sim_init(&b, 2);
	for (i = 0; i < 4; i++) {
		set_addr(&fx[i], "10.5.0.1", 800 + i);
		a.cost[i] = b.cost[i] = 1000000;
		a.backlogged[i] = b.backlogged[i] = true;
		fairq_sched_fq.enqueue(i < 2 ? &a.fp : &b.fp, &fx[i]);
	}
	for (t = 1000000; t <= 10ULL * 1000000000; t += 1000000) {
		sim_run(&a, t);
		sim_run(&b, t);
	}
	CHECK(a.served[0] + a.served[1] + b.served[2] + b.served[3] <= 501 &&
	      a.served[0] + a.served[1] > 100 && b.served[2] + b.served[3] > 100,
	      "two pools started %llu and %llu requests of the class in 10 s: 500 in all",
	      (unsigned long long)(a.served[0] + a.served[1]),
	      (unsigned long long)(b.served[2] + b.served[3]));
	sim_exit(&a);
	sim_exit(&b);
	fairq_classes_clear(&fq_classes);
	memset(unit_shared, 0, sizeof(unit_shared));
}

static void class_reset(void)
{
	fairq_classes_clear(&fq_classes);
	memset(unit_shared, 0, sizeof(unit_shared));
}

/* served[] of transports [from, to) */
static u64 served_sum(const struct sim *sm, int from, int to)
{
	u64 n = 0;
	int i;

	for (i = from; i < to; i++)
		n += sm->served[i];
	return n;
}

/* Class "ws": 10.5.0.0/16, each of its keys at most @rps requests a second. */
static void class_per_key_limit(u32 rps)
{
	struct fairq_class_spec spec = class_spec("ws", true);
	const char *why = NULL;

	class_match(&spec, "10.5.0.0", 16);
	spec.set_limit = true;
	spec.limit_rps = rps;
	spec.set_per_key = spec.per_key = true;
	CHECK(fairq_sched_fq.keys->set_class(&spec, &why) == 0, "class ws at %u/s per key (%s)",
	      rps, why ?: "");
}

/*
 * A limit per key holds for each key: two clients of the class get 50/s each (500 in 10 s),
 * not 50/s together, and a client of no class has the rest of the threads.
 */
static void test_fairq_class_per_key_limit(void)
{
	static struct sim sm;
	u64 a, b;
	int i;

	class_per_key_limit(50);
	kshim_now_ns = 0;
	sim_init(&sm, 4);
	for (i = 0; i < 6; i++) {
		set_addr(&fx[i], i < 2 ? "10.5.0.1" : i < 4 ? "10.5.0.2" : "10.6.0.1", 700 + i);
		sm.cost[i] = 1000000;
		sm.backlogged[i] = true;
		fairq_sched_fq.enqueue(&sm.fp, &fx[i]);
	}
	CHECK(unit_key_clocks()->nr == 2, "one clock per key of the class (%u)",
	      unit_key_clocks()->nr);
	sim_run(&sm, 10ULL * 1000000000);
	a = served_sum(&sm, 0, 2);
	b = served_sum(&sm, 2, 4);
	CHECK(a >= 499 && a <= 501 && b >= 499 && b <= 501,
	      "each client of the class started 500 requests in 10 s (%llu, %llu)",
	      (unsigned long long)a, (unsigned long long)b);
	CHECK(served_sum(&sm, 4, 6) > 30000, "the other client had the rest of the threads (%llu)",
	      (unsigned long long)served_sum(&sm, 4, 6));
	sim_exit(&sm);
	CHECK(!unit_key_clocks()->nr && !unit_key_clocks()->segs,
	      "the keys' clocks went with their keys (%u left)", unit_key_clocks()->nr);
	class_reset();
}

/*
 * A key with transports in two pools of one service books from one clock: 50/s for the
 * client in all, as for its class's limit (not 50 per pool); another key of the class, in one
 * of the pools, has its own 50/s.
 */
static void test_fairq_class_per_key_two_pools(void)
{
	static struct sim a, b;
	u64 t, one, other;
	int i;

	class_per_key_limit(50);
	kshim_now_ns = 0;
	sim_init(&a, 2);
	sim_init(&b, 2);
	for (i = 0; i < 6; i++) {
		set_addr(&fx[i], i < 4 ? "10.5.0.1" : "10.5.0.2", 800 + i);
		a.cost[i] = b.cost[i] = 1000000;
		a.backlogged[i] = b.backlogged[i] = true;
		fairq_sched_fq.enqueue(i < 2 ? &a.fp : &b.fp, &fx[i]);
	}
	CHECK(unit_key_clocks()->nr == 2, "the client in two pools has one clock (%u clocks)",
	      unit_key_clocks()->nr);
	for (t = 1000000; t <= 10ULL * 1000000000; t += 1000000) {
		sim_run(&a, t);
		sim_run(&b, t);
	}
	one = served_sum(&a, 0, 2) + served_sum(&b, 2, 4);
	other = served_sum(&b, 4, 6);
	CHECK(one >= 499 && one <= 501 && served_sum(&a, 0, 2) > 100 && served_sum(&b, 2, 4) > 100,
	      "the client in two pools started %llu and %llu requests in 10 s: 500 in all",
	      (unsigned long long)served_sum(&a, 0, 2), (unsigned long long)served_sum(&b, 2, 4));
	CHECK(other >= 499 && other <= 501, "the other client of the class had its own 500 (%llu)",
	      (unsigned long long)other);
	sim_exit(&a);
	CHECK(unit_key_clocks()->nr == 2, "clocks still held by the other pool's keys stay (%u)",
	      unit_key_clocks()->nr);
	sim_exit(&b);
	CHECK(!unit_key_clocks()->nr && !unit_key_clocks()->segs, "no clock left (%u)",
	      unit_key_clocks()->nr);
	class_reset();
}

/*
 * Keys of the class whose clocks cannot be allocated do not go unlimited: they book from the
 * class's clock, together at one key's limit, and each failure is counted.
 */
static void test_fairq_class_per_key_no_memory(void)
{
	static struct sim sm;
	struct fq_pool *p;
	u64 n;
	int i;

	class_per_key_limit(50);
	kshim_now_ns = 0;
	sim_init(&sm, 2);
	p = fqp(&sm.fp);
	kshim_fail_size = sizeof(struct fairq_key_clock);
	for (i = 0; i < 4; i++) {
		set_addr(&fx[i], i < 2 ? "10.5.0.1" : "10.5.0.2", 900 + i);
		sm.cost[i] = 1000000;
		sm.backlogged[i] = true;
		fairq_sched_fq.enqueue(&sm.fp, &fx[i]);
	}
	CHECK(p->alloc_failures == 2 && p->keys.nr == 2 && !unit_key_clocks()->nr,
	      "two keys without their clocks, each failure counted (%llu)",
	      (unsigned long long)p->alloc_failures);
	sim_run(&sm, 10ULL * 1000000000);
	kshim_fail_size = 0;
	n = served_sum(&sm, 0, 4);
	CHECK(n >= 499 && n <= 501, "together they were held to one key's limit (%llu in 10 s)",
	      (unsigned long long)n);
	sim_exit(&sm);
	class_reset();
}

static void class_limit_50(const char *prefix)
{
	struct fairq_class_spec spec = class_spec("farm", true);
	const char *why;

	class_match(&spec, prefix, 16);
	spec.set_limit = true;
	spec.limit_rps = 50;
	CHECK(fairq_sched_fq.keys->set_class(&spec, &why) == 0, "class farm at 50/s");
}

/*
 * A rebuild (a weight, a class or a tunable changed) drops the keys and the starts they had
 * booked ahead: those go back to the class's clock, or the class would wait for them for
 * nothing (20 clients waiting at 50/s: 400 ms without a start after each change).
 */
static void test_fairq_class_rebuild(void)
{
	static struct sim sm;
	u64 before;
	int i;

	class_limit_50("10.5.0.0");
	kshim_now_ns = 0;
	sim_init(&sm, 4);
	for (i = 0; i < 20; i++) {
		char ip[32];

		snprintf(ip, sizeof(ip), "10.5.0.%d", i + 1);
		set_addr(&fx[i], ip, 900);
		sm.cost[i] = 1000000;
		sm.backlogged[i] = true;
		fairq_sched_fq.enqueue(&sm.fp, &fx[i]);
	}
	sim_run(&sm, 3ULL * 1000000000);
	sim_rebuild(&sm);
	before = served_sum(&sm, 0, 20);
	sim_run(&sm, 5ULL * 1000000000);
	CHECK(served_sum(&sm, 0, 20) - before >= 98,
	      "after a rebuild the class goes on at its limit: %llu starts in 2 s at 50/s",
	      (unsigned long long)(served_sum(&sm, 0, 20) - before));
	sim_exit(&sm);
	class_reset();
}

/*
 * A key paced for a start still to come that loses its transport (a close) and gets one again
 * waits for that start: it does not go at once.
 */
static void test_fairq_class_idle_token(void)
{
	static struct sim sm;
	struct fairq_class_spec spec = class_spec("slow", true);
	const char *why;
	struct svc_xprt *x;

	class_match(&spec, "10.5.0.0", 16);
	spec.set_limit = true;
	spec.limit_rps = 10;
	CHECK(fairq_sched_fq.keys->set_class(&spec, &why) == 0, "class slow at 10/s");
	kshim_now_ns = 0;
	sim_init(&sm, 1);
	set_addr(&fx[0], "10.5.0.1", 901);
	fairq_sched_fq.enqueue(&sm.fp, &fx[0]);
	x = fairq_sched_fq.pick(&sm.fp);
	CHECK(x == &fx[0], "the first request goes at once");
	kshim_now_ns = 1000000;
	fairq_sched_fq.enqueue(&sm.fp, &fx[0]);
	CHECK(!fairq_sched_fq.has_work(&sm.fp), "the next one waits 100 ms for its start");
	CHECK(fairq_sched_fq.remove(&sm.fp, &fx[0]), "its connection closes while it waits");
	kshim_now_ns = 2000000;
	fairq_sched_fq.enqueue(&sm.fp, &fx[0]);
	CHECK(!fairq_sched_fq.has_work(&sm.fp), "back 1 ms later, it still waits for that start");
	kshim_now_ns = 100000000;
	fairq_sched_fq.tick(&sm.fp);
	CHECK(fairq_sched_fq.has_work(&sm.fp), "and goes when the start falls due");
	sim_exit(&sm);
	class_reset();
}

/*
 * Clients of a limited class that waited together behind a long request (their starts fell
 * due meanwhile) do not all start together when the thread frees: they book again.
 */
static void test_fairq_class_stale_starts(void)
{
	static struct sim sm;
	int i;

	class_limit_50("10.5.0.0");
	kshim_now_ns = 0;
	sim_init(&sm, 1);
	set_addr(&fx[0], "10.6.0.1", 902);	/* unlimited: one request of 500 ms */
	sm.cost[0] = 500000000;
	fairq_sched_fq.enqueue(&sm.fp, &fx[0]);
	for (i = 1; i <= 10; i++) {
		char ip[32];

		snprintf(ip, sizeof(ip), "10.5.0.%d", i);
		set_addr(&fx[i], ip, 902);
		sm.cost[i] = 1000000;
		sm.backlogged[i] = true;
		fairq_sched_fq.enqueue(&sm.fp, &fx[i]);
	}
	sim_run(&sm, 515000000);
	CHECK(sm.served[0] == 1, "the long request ran first");
	CHECK(served_sum(&sm, 1, 11) <= 2,
	      "15 ms after the thread freed, the class started %llu requests (50/s, burst 1)",
	      (unsigned long long)served_sum(&sm, 1, 11));
	sim_run(&sm, 1500000000);
	CHECK(served_sum(&sm, 1, 11) >= 49 && served_sum(&sm, 1, 11) <= 52,
	      "and one per 20 ms from then on (%llu by 1.5 s)",
	      (unsigned long long)served_sum(&sm, 1, 11));
	sim_exit(&sm);
	class_reset();
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
	test_ops_table(&fairq_sched_fq);
	test_ops_table(&fairq_sched_capped);
	test_capped_wake_cap();
	for (i = 0; i < NX; i++)
		fx[i].id = i;
	test_fairq_keys();
	test_fairq_key_walk();
	test_fairq_key_table();
	test_fairq_walk_while_growing();
	test_fairq_connections();
	test_fairq_cost();
	test_fairq_ten_clients();
	test_fairq_weights();
	test_fairq_heavy_weights();
	test_fairq_deep_weights();
	test_fairq_quantum_lowered();
	test_fairq_new_keys();
	test_fairq_bursts();
	test_fairq_busy_on_arrival();
	test_fairq_requeue_during_read();
	test_fairq_anticipation();
	test_fairq_nothing_lost();
	test_fairq_v4client();
	test_fairq_request_token();
	test_fairq_inflight_cap();
	test_fairq_trace_wait();
	test_class_clock();
	test_class_rules();
	test_fairq_class_limit();
	test_fairq_class_two_pools();
	test_fairq_class_per_key_limit();
	test_fairq_class_per_key_two_pools();
	test_fairq_class_per_key_no_memory();
	test_fairq_class_rebuild();
	test_fairq_class_idle_token();
	test_fairq_class_stale_starts();
	test_fairq_class_weights();
	test_fairq_class_keys_two_pools();
	test_fairq_keys_two_pools();
	test_fairq_keys_no_debt();
	test_fairq_keys_not_stranded();
	test_fairq_class_per_key();
	test_fairq_class_reserve();
	test_fairq_class_reserve_many();
	test_fairq_class_below_reserve();
	test_fairq_class_ceiling_one_client();
	test_fairq_class_ceiling_per_key();
	test_fairq_class_ceiling();
	test_fairq_class_ceiling_uneven();
	test_fairq_class_ceiling_two_pools();
	test_fairq_class_share_refusals();
	CHECK(!pick_mismatches, "has_work agreed with pick at every step (%d mismatches)", pick_mismatches);
	test_fairq_release();
	test_fairq_remove_by_key();
	test_conn_limit_by_class();
	return check_summary();
}
