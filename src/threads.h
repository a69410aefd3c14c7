/* SPDX-License-Identifier: GPL-2.0-only */
/* Thread records of the pools whose policy charges threads' work (threads.c). */
#ifndef _FAIRQ_THREADS_H
#define _FAIRQ_THREADS_H

#include <linux/atomic.h>
#include <linux/ktime.h>
#include <linux/sunrpc/svc.h>
#include "core.h"

/* Pools whose policy tracks threads, over all services: none, in the usual case. */
extern atomic_t fairq_tracking_pools;

static inline bool fairq_threads_tracked(void)
{
	return atomic_read(&fairq_tracking_pools);
}

void fairq_threads_untrack(struct fairq_pool *fp);
void fairq_threads_free(struct fairq_pool *fp);
/* Where a thread is seen (fairq_thread_seen_locked()) */
enum fairq_sighting {
	FAIRQ_SEEN_LOOK,	/* its look for work: after a dequeue (6.7+) with the transport */
	FAIRQ_SEEN_GAVE_BACK,	/* 6.1: its svc_xprt_received() of the transport it took */
	FAIRQ_SEEN_START,	/* the start of a request it read */
};

void *fairq_thread_seen_locked(struct fairq_pool *fp, struct svc_xprt *xprt,
			       enum fairq_sighting where);
void *fairq_request_charge_locked(struct fairq_pool *fp, struct svc_rqst *rqstp);
void *fairq_request_end_locked(struct fairq_pool *fp, const struct svc_rqst *rqstp);
void fairq_request_uncharge_locked(struct fairq_pool *fp, void *token);
void fairq_threads_end_unseen_locked(struct fairq_pool *fp);
void fairq_thread_seen_any(struct fairq_serv *fs, struct fairq_pool *near, struct svc_xprt *xprt);
bool fairq_thread_forget(struct fairq_pool *fp, const struct task_struct *task);

/*
 * Whether @rqstp's request was read under the pool's current policy state (sunrpc stamps
 * rq_stime when the request is read, before svc_process()).  A rebuild (a switch, a tunable
 * that rebuilds the keys) while requests run starts every count afresh: a request read before
 * it is left out at its start and at its end alike, so that the ends of the old requests do not
 * cancel the starts of new ones in the new state's counts.  The policy's @start sees only such
 * a request; so does the thread's record (fairq_request_charge_locked()).
 */
static inline bool fairq_request_in_state(const struct fairq_pool *fp,
					  const struct svc_rqst *rqstp)
	__must_hold(&fp->lock)
{
	return !ktime_before(rqstp->rq_stime, fp->ops_since);
}

/* The current thread of @fp has taken @xprt, or (NULL) looks for work. */
static inline void fairq_thread_seen(struct fairq_pool *fp, struct svc_xprt *xprt,
				     enum fairq_sighting where)
{
	if (!READ_ONCE(fp->track_threads))
		return;
	spin_lock_bh(&fp->lock);
	fairq_thread_seen_locked(fp, xprt, where);
	spin_unlock_bh(&fp->lock);
}

#endif /* _FAIRQ_THREADS_H */
