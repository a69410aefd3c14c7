// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host-side tests of the thread records (src/threads.c): how a thread's charge and its
 * request's start and end reach a policy, in a pool that tracks threads (a cap) and in one
 * that charges requests alone, whatever nfsd does with the request: answer it, or drop it
 * where no hook sees it (6.12, 7.3).  The policy here only counts what it is told.  The
 * core's hooks are played by core_start() and core_done(), as fairq_request_start() and
 * fairq_request_done() call the records.  Prints "N passed, N failed".
 */
#include <stdio.h>
#include "../../src/threads.c"
#include "check.h"
#include "kshim-state.h"

/* What the policy was told, per transport (its key is the transport itself here). */
struct key {
	int charged;		/* charges not given back: threads working for it */
	int in_flight;		/* requests started and not completed */
	int unseen;		/* completions with no transport and no time */
};

static struct svc_xprt xprts[4];
static struct key keys[4];

static struct key *key_of(void *token)
{
	return token;
}

static void *policy_charge(struct fairq_pool *fp, struct svc_xprt *xprt, bool dispatched)
{
	(void)fp;
	(void)dispatched;
	keys[xprt->id].charged++;
	return &keys[xprt->id];
}

static void policy_uncharge(struct fairq_pool *fp, void *token)
{
	(void)fp;
	key_of(token)->charged--;
}

static void policy_start(struct fairq_pool *fp, struct svc_xprt *xprt, void *token)
{
	(void)fp;
	(key_of(token) ?: &keys[xprt->id])->in_flight++;
}

static void policy_complete(struct fairq_pool *fp, struct svc_xprt *xprt, u64 thread_ns,
			    void *token)
{
	struct key *k = token ? key_of(token) : xprt ? &keys[xprt->id] : NULL;

	(void)fp;
	if (!k)
		return;
	k->in_flight--;
	if (!xprt && !thread_ns)
		k->unseen++;
}

static const struct fairq_sched_ops policy = {
	.name = "counting",
	.charge = policy_charge,
	.uncharge = policy_uncharge,
	.start = policy_start,
	.complete = policy_complete,
};

/* The core's parts the records call. */
bool fairq_xprt_is_control(const struct svc_xprt *xprt)
{
	(void)xprt;
	return false;
}

bool fairq_pool_undispatch_locked(struct fairq_pool *fp, struct svc_xprt *xprt, unsigned int n)
{
	(void)fp;
	(void)xprt;
	(void)n;
	return false;
}

static struct svc_rqst rqst[2];
static struct task_struct tasks[2] = { { .pid = 1, .flags = PF_KTHREAD },
				       { .pid = 2, .flags = PF_KTHREAD } };

void *kthread_data(struct task_struct *task)
{
	return &rqst[task - tasks];
}

static struct fairq_pool fp;

/* A new pool state of the counting policy; @cap: it tracks threads, as under max_inflight. */
static void pool_begin(bool cap)
{
	unsigned int i;

	fairq_threads_free(&fp);
	memset(&fp, 0, sizeof(fp));
	memset(keys, 0, sizeof(keys));
	for (i = 0; i < ARRAY_SIZE(xprts); i++)
		xprts[i].id = i;
	for (i = 0; i < ARRAY_SIZE(rqst); i++)
		rqst[i] = (struct svc_rqst){ .rq_task = &tasks[i] };
	kshim_now_ns = 1000000;
	fp.ops = &policy;
	fp.ops_since = kshim_now_ns;
	if (cap)
		fairq_pool_track_threads(&fp);
}

/* Thread @n runs; with @xprt, it has just taken it (nfsd's rq_xprt). */
static struct svc_rqst *thread(int n, struct svc_xprt *xprt)
{
	kshim_current = &tasks[n];
	rqst[n].rq_xprt = xprt;
	return &rqst[n];
}

/* Its look for work: in a pool that tracks threads, the one sighting with no transport. */
static void look(int n)
{
	thread(n, NULL);
	fairq_thread_seen_locked(&fp, NULL, FAIRQ_SEEN_LOOK);
}

/* Thread @n takes transport @x: under a cap, seen at its look right after the dequeue (6.7+). */
static void took(int n, int x)
{
	look(n);
	fairq_thread_seen_locked(&fp, &xprts[x], FAIRQ_SEEN_LOOK);
}

/* fairq_request_start(): a request read now (or @before the pool state began). */
static void core_start(struct svc_rqst *rqstp, bool before)
{
	void *token;

	rqstp->rq_stime = before ? fp.ops_since - 1 : (ktime_t)++kshim_now_ns;
	token = fairq_request_charge_locked(&fp, rqstp);
	if (fp.ops->start && fairq_request_in_state(&fp, rqstp))
		fp.ops->start(&fp, rqstp->rq_xprt, token);
}

/* fairq_request_done(): its reply is sent, or a drop a hook saw (6.1's svc_drop). */
static void core_done(struct svc_rqst *rqstp)
{
	void *token = fairq_request_end_locked(&fp, rqstp);

	if (fp.ops->complete && fairq_request_in_state(&fp, rqstp))
		fp.ops->complete(&fp, rqstp->rq_xprt, 1000, token);
	fairq_request_uncharge_locked(&fp, token);
}

/* Thread @n starts a request on transport @x, which it took first (seen at a look) under a cap. */
static void request_on(bool cap, int n, int x, bool before)
{
	if (cap)
		took(n, x);
	core_start(thread(n, &xprts[x]), before);
}

/* nfsd is done with the request, sent or dropped: it lets go of the transport. */
static void release(struct svc_rqst *rqstp)
{
	rqstp->rq_xprt = NULL;
}

static void test_requests_answered(bool cap)
{
	const char *how = cap ? "with a cap" : "without";
	int i;

	pool_begin(cap);
	for (i = 0; i < 3; i++) {
		request_on(cap, 0, 1, false);
		CHECK(keys[1].in_flight == 1, "%s: a started request is in flight (%d)", how,
		      keys[1].in_flight);
		core_done(&rqst[0]);
		release(&rqst[0]);
	}
	look(0);
	CHECK(keys[1].in_flight == 0 && keys[1].charged == 0 && !keys[1].unseen,
	      "%s: answered requests leave nothing (%d in flight, %d charged, %d unseen)", how,
	      keys[1].in_flight, keys[1].charged, keys[1].unseen);
	CHECK(fp.unseen_ends == 0, "%s: no end went unseen (%llu)", how,
	      (unsigned long long)fp.unseen_ends);
}

/*
 * A request dropped inside svc_process() (6.12, 7.3): started, never done.  Under a cap, the
 * thread's next look for work ends it; without one, its next request does.
 */
static void test_drop_unseen_next(bool cap)
{
	const char *how = cap ? "at the next look (cap)" : "at the next request";

	pool_begin(cap);
	request_on(cap, 0, 1, false);
	release(&rqst[0]);	/* dropped: no svc_send, no svc_drop to see */
	if (cap) {
		look(0);
	} else {
		core_start(thread(0, &xprts[2]), false);
		core_done(&rqst[0]);
		release(&rqst[0]);
	}
	CHECK(keys[1].in_flight == 0, "%s: the dropped request ended (%d in flight)", how,
	      keys[1].in_flight);
	CHECK(keys[1].unseen == 1, "%s: as an end with no time (%d)", how, keys[1].unseen);
	CHECK(keys[1].charged == 0, "%s: its charge given back (%d)", how, keys[1].charged);
	CHECK(fp.unseen_ends == 1, "%s: counted once (%llu)", how,
	      (unsigned long long)fp.unseen_ends);
	CHECK(keys[2].in_flight == 0 && keys[2].charged == 0 && !keys[2].unseen,
	      "%s: the next request settles on its own", how);
}

/* Without a cap, the watchdog ends it once the thread has left the transport. */
static void test_drop_unseen_watchdog(void)
{
	pool_begin(false);
	core_start(thread(0, &xprts[1]), false);
	fairq_threads_end_unseen_locked(&fp);
	CHECK(keys[1].in_flight == 1, "a request still running is not ended by the watchdog");
	release(&rqst[0]);
	fairq_threads_end_unseen_locked(&fp);
	CHECK(keys[1].in_flight == 0 && keys[1].charged == 0 && keys[1].unseen == 1,
	      "the watchdog ends a dropped request (%d in flight, %d charged)",
	      keys[1].in_flight, keys[1].charged);
	fairq_threads_end_unseen_locked(&fp);
	CHECK(fp.unseen_ends == 1, "and only once (%llu)", (unsigned long long)fp.unseen_ends);
}

/* A thread that exits after a drop no hook saw ends the request as it goes. */
static void test_drop_unseen_exit(bool cap)
{
	const char *how = cap ? "with a cap" : "without";

	pool_begin(cap);
	request_on(cap, 1, 3, false);
	release(&rqst[1]);
	CHECK(fairq_thread_forget(&fp, &tasks[1]), "%s: the exit gave a charge back", how);
	CHECK(keys[3].in_flight == 0 && keys[3].charged == 0 && keys[3].unseen == 1,
	      "%s: the exit ends the dropped request (%d in flight, %d charged, %d unseen)",
	      how, keys[3].in_flight, keys[3].charged, keys[3].unseen);
	CHECK(fp.unseen_ends == 1, "%s: the exit's end is counted (%llu)", how,
	      (unsigned long long)fp.unseen_ends);
}

/*
 * 6.1 under a cap: no look carries the transport, so the thread is charged at its request's
 * start (or its give-back), and svc_drop() is hooked: a drop is a seen end, nothing unseen.
 */
static void test_capped_start_sighting(void)
{
	pool_begin(true);
	look(0);
	core_start(thread(0, &xprts[2]), false);
	CHECK(keys[2].charged == 1 && keys[2].in_flight == 1,
	      "a start with no sighting before charges the thread (%d charged, %d in flight)",
	      keys[2].charged, keys[2].in_flight);
	core_done(&rqst[0]);	/* svc_drop(), hooked */
	release(&rqst[0]);
	look(0);
	CHECK(keys[2].in_flight == 0 && keys[2].charged == 0 && !keys[2].unseen &&
	      !fp.unseen_ends, "a hooked drop ends its request once (%d in flight, %d unseen)",
	      keys[2].in_flight, keys[2].unseen);
}

/*
 * A thread that starts a request while its record still marks one started (no look for work
 * in between): the earlier one is over, and ends before the new one counts.
 */
static void test_start_ends_marked(void)
{
	pool_begin(true);
	took(0, 1);
	core_start(thread(0, &xprts[1]), false);
	core_start(thread(0, &xprts[1]), false);
	CHECK(keys[1].in_flight == 1 && keys[1].unseen == 1 && fp.unseen_ends == 1,
	      "the earlier request ended unseen, the new one runs (%d in flight, %d unseen)",
	      keys[1].in_flight, keys[1].unseen);
	core_done(&rqst[0]);
	release(&rqst[0]);
	look(0);
	CHECK(keys[1].in_flight == 0 && keys[1].charged == 0 && keys[1].unseen == 1,
	      "and the new one ends as seen (%d in flight, %d charged)", keys[1].in_flight,
	      keys[1].charged);
}

/* A policy that charges threads but has no @start: nothing starts, so no drop ends anything. */
static void test_policy_without_start(void)
{
	static const struct fairq_sched_ops no_start = {
		.name = "counting, no start",
		.charge = policy_charge,
		.uncharge = policy_uncharge,
		.complete = policy_complete,
	};

	pool_begin(true);
	fp.ops = &no_start;
	took(0, 1);
	core_start(thread(0, &xprts[1]), false);
	release(&rqst[0]);
	look(0);
	CHECK(!keys[1].unseen && !fp.unseen_ends && keys[1].charged == 0,
	      "no request of a policy without start ends unseen (%d unseen, %d charged)",
	      keys[1].unseen, keys[1].charged);
}

/*
 * A request read before the pool state began was never started in it: its drop ends no
 * request (the policy would count one that never was), but its charge still goes back.
 */
static void test_drop_before_state(bool cap)
{
	const char *how = cap ? "with a cap" : "without";

	pool_begin(cap);
	request_on(cap, 0, 1, true);
	release(&rqst[0]);
	if (cap)
		look(0);
	else
		fairq_threads_end_unseen_locked(&fp);
	CHECK(keys[1].in_flight == 0 && !keys[1].unseen && fp.unseen_ends == 0,
	      "%s: a request of an earlier state ends nothing here (%d unseen)", how,
	      keys[1].unseen);
	CHECK(keys[1].charged == 0, "%s: its charge goes back (%d)", how, keys[1].charged);
}

/*
 * A rebuild (a switch, a change of max_inflight) forgets the tokens and starts a new pool
 * state: a request read in the old one ends nothing in the new one, seen or not, and a
 * request read in the new one settles as usual.
 */
static void test_rebuild_forgets(bool cap)
{
	const char *how = cap ? "with a cap" : "without";

	pool_begin(cap);
	if (cap) {
		took(0, 1);
		took(1, 2);
	}
	core_start(thread(0, &xprts[1]), false);
	core_start(thread(1, &xprts[2]), false);
	fairq_threads_untrack(&fp);
	memset(keys, 0, sizeof(keys));	/* the old state's keys are gone */
	fp.ops_since = ++kshim_now_ns;
	if (cap)
		fairq_pool_track_threads(&fp);
	core_done(thread(0, &xprts[1]));	/* thread 0's old request is answered */
	release(&rqst[0]);
	release(&rqst[1]);			/* thread 1's is dropped unseen */
	look(0);
	look(1);
	fairq_threads_end_unseen_locked(&fp);
	CHECK(!keys[1].unseen && !keys[1].in_flight && !keys[1].charged && !keys[2].unseen &&
	      !keys[2].in_flight && !keys[2].charged && !fp.unseen_ends,
	      "%s: the new pool state is told nothing of the old one's requests", how);
	request_on(cap, 0, 3, false);
	core_done(&rqst[0]);
	release(&rqst[0]);
	look(0);
	CHECK(keys[3].in_flight == 0 && keys[3].charged == 0 && !keys[3].unseen,
	      "%s: a request of the new state settles (%d in flight, %d charged)", how,
	      keys[3].in_flight, keys[3].charged);
}

int main(void)
{
	test_requests_answered(false);
	test_requests_answered(true);
	test_drop_unseen_next(false);
	test_drop_unseen_next(true);
	test_drop_unseen_watchdog();
	test_drop_unseen_exit(false);
	test_drop_unseen_exit(true);
	test_drop_before_state(false);
	test_drop_before_state(true);
	test_capped_start_sighting();
	test_start_ends_marked();
	test_policy_without_start();
	test_rebuild_forgets(false);
	test_rebuild_forgets(true);
	fairq_threads_free(&fp);
	return check_summary();
}
