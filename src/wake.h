/* SPDX-License-Identifier: GPL-2.0-only */
/* A policy's say over wakeups: its wake ops and the held thread (wake.c). */
#ifndef _FAIRQ_WAKE_H
#define _FAIRQ_WAKE_H

#include "core.h"

struct svc_rqst;
struct task_struct;

bool fairq_pool_hold_keeps_held(struct fairq_pool *fp, const struct svc_rqst *self,
				bool self_takes);
bool fairq_pool_hold_ran_out_held(struct fairq_pool *fp);
bool fairq_waking_reserve_policy(struct fairq_pool *fp);
void fairq_waking_commit_policy(struct fairq_pool *fp, struct task_struct *task);
void fairq_waking_ran_policy(struct fairq_pool *fp);
void fairq_waking_stalled(struct fairq_pool *fp);
void fairq_pool_wake_timer_init(struct fairq_pool *fp);

/*
 * Whether handing one transport to the kernel queue now would take the held thread: the
 * transport goes to @self (a thread looking for work) when @self_takes, else to an idle
 * thread other than @self (may be NULL), which must leave another one idle.
 */
static inline bool fairq_pool_hold_keeps(struct fairq_pool *fp, const struct svc_rqst *self,
					 bool self_takes)
{
	return READ_ONCE(fp->hold_until) && fairq_pool_hold_keeps_held(fp, self, self_takes);
}

/*
 * A hold that ran out without its work: the first to notice clears it and returns true, and
 * must then wake a thread for the queued work (nothing else would until the next enqueue).
 * Every thread's look for work asks: without a hold, that costs a load.
 */
static inline bool fairq_pool_hold_ran_out(struct fairq_pool *fp)
{
	return READ_ONCE(fp->hold_until) && fairq_pool_hold_ran_out_held(fp);
}

/*
 * The wake ops of @fp's policy, or NULL (read without the pool lock: the callers below check
 * again under it).
 */
static inline const struct fairq_wake_ops *fairq_pool_wake_ops(struct fairq_pool *fp)
{
	const struct fairq_sched_ops *ops = READ_ONCE(fp->ops);

	return ops ? ops->wake : NULL;
}

/* May fairq wake one more thread of @fp's pool?  Unless the policy says otherwise, yes. */
static inline bool fairq_waking_reserve(struct fairq_pool *fp)
{
	return !fairq_pool_wake_ops(fp) || fairq_waking_reserve_policy(fp);
}

/* Name the thread a reserved wakeup woke, or (@task NULL) say that none was. */
static inline void fairq_waking_commit(struct fairq_pool *fp, struct task_struct *task,
				       bool reserved)
{
	if (reserved && fairq_pool_wake_ops(fp))
		fairq_waking_commit_policy(fp, task);
}

/* The current thread looks for work: if the policy let it be woken, it has arrived. */
static inline void fairq_waking_ran(struct fairq_pool *fp)
{
	if (fairq_pool_wake_ops(fp))
		fairq_waking_ran_policy(fp);
}

#endif /* _FAIRQ_WAKE_H */
