/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * For a policy that runs requests in execution contexts of its own (it implements @kick, as
 * wq does), beyond what every policy has (<fairq/sched.h>): the pool's lock and the state its
 * contexts coordinate with, nfsd's threads as the fallback when none of its contexts can
 * come, and a walk of the pools of every service fairq manages.  A queue-only policy needs
 * none of this.
 *
 * Lock order: the policy's own mutex, then RCU, then a pool's lock.  Nothing sleeps under a
 * pool's lock.  A pool, and the service it is of, stay valid until the policy's @quiesce for
 * that service has returned: the core calls it before it frees them, and a policy that keeps
 * pools beyond an RCU section (in its contexts, or while it starts one) must make @quiesce
 * wait for those uses.
 */
#ifndef _FAIRQ_SCHED_OWN_H
#define _FAIRQ_SCHED_OWN_H

#include <linux/spinlock.h>
#include <fairq/sched.h>

struct svc_pool;
struct svc_serv;
struct task_struct;

/* The lock under which the core hands a pool's work over; taken with bottom halves off. */
spinlock_t *fairq_pool_lockp(struct fairq_pool *fp);

static __always_inline void fairq_pool_lock(struct fairq_pool *fp)
{
	spin_lock_bh(fairq_pool_lockp(fp));
}

static __always_inline void fairq_pool_unlock(struct fairq_pool *fp)
{
	spin_unlock_bh(fairq_pool_lockp(fp));
}

/* Under the pool's lock: whether @ops is @fp's policy (a switch away and back is not seen). */
bool fairq_pool_runs(const struct fairq_pool *fp, const struct fairq_sched_ops *ops);
/* Under the pool's lock: the service is losing its last thread, or going; start no context. */
bool fairq_pool_stopping(const struct fairq_pool *fp);
/* Under the pool's lock: the transports the policy holds. */
unsigned int fairq_pool_nr_queued(const struct fairq_pool *fp);
/* Whether sunrpc's own queue of @fp's pool is empty (closes and accepts go there). */
bool fairq_pool_kernel_queue_empty(const struct fairq_pool *fp);
/* sunrpc's pool, to make a request context for it. */
struct svc_pool *fairq_pool_svc_pool(const struct fairq_pool *fp);
/*
 * Without the pool's lock: hand one queued transport to an idle nfsd thread, for when none of
 * the policy's contexts can come.  Returns whether one was handed over.
 */
bool fairq_nfsd_push(struct fairq_pool *fp);

/*
 * One of the policy's contexts, @task, has stopped for good: the policy @fp runs now may have
 * handed it work and counted it as working (a context on its way to its look when the
 * scheduler was switched is handed work like one of nfsd's threads), and that count ends here,
 * as it does when an nfsd thread exits.  Does not sleep; takes the pool's lock.
 */
void fairq_context_exit(struct fairq_pool *fp, const struct task_struct *task);

/*
 * Call @fn on each pool of every managed service, under RCU (@fn must not sleep; it may take
 * the pool's lock), until it returns true.  Returns whether it did.
 */
typedef bool (*fairq_pool_fn)(struct fairq_pool *fp, struct svc_serv *serv, void *arg);
bool fairq_pools_walk(fairq_pool_fn fn, void *arg);

#endif /* _FAIRQ_SCHED_OWN_H */
