/* SPDX-License-Identifier: GPL-2.0-only */
/* A policy's say over wakeups: the wake cap and the held thread (wake.c). */
#ifndef _FAIRQ_WAKE_H
#define _FAIRQ_WAKE_H

#include "core.h"

struct svc_rqst;
struct task_struct;

bool fairq_pool_hold_keeps_held(struct fairq_pool *fp, const struct svc_rqst *self,
				bool self_takes);
bool fairq_pool_hold_ran_out_held(struct fairq_pool *fp);
bool fairq_waking_reserve_capped(struct fairq_pool *fp);
void fairq_waking_commit_capped(struct fairq_pool *fp, struct task_struct *task);
void fairq_waking_ran_capped(struct fairq_pool *fp);

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

/* May fairq wake one more thread of @fp's pool?  Without a cap, always. */
static inline bool fairq_waking_reserve(struct fairq_pool *fp)
{
	return !READ_ONCE(fp->max_waking) || fairq_waking_reserve_capped(fp);
}

/* Name the thread a reserved slot is for, or (@task NULL) give the slot back. */
static inline void fairq_waking_commit(struct fairq_pool *fp, struct task_struct *task,
				       bool reserved)
{
	if (reserved && READ_ONCE(fp->max_waking))
		fairq_waking_commit_capped(fp, task);
}

/* The current thread runs: if fairq woke it, its slot is free again. */
static inline void fairq_waking_ran(struct fairq_pool *fp)
{
	if (READ_ONCE(fp->nr_waking))
		fairq_waking_ran_capped(fp);
}

#endif /* _FAIRQ_WAKE_H */
