/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The scheduler interface of fairq: what a dispatch policy implements.
 *
 * A policy decides in which order the ready transports of one nfsd thread pool are handed to
 * that pool's threads.  The core owns everything else: taking transports from svc_xprt_enqueue,
 * feeding the kernel's pool queue one transport at a time, waking threads, switching policies
 * and draining on unload.  Every op below is called with the pool's fairq lock held (bottom
 * halves off) and must not sleep; none may fail.
 */
#ifndef _FAIRQ_SCHED_H
#define _FAIRQ_SCHED_H

#include <linux/types.h>
#include <linux/list.h>
#include <linux/sysfs.h>
#include <fairq/xlist.h>

struct fairq_pool;
struct svc_xprt;

/* Room for a policy's per-pool state, inside struct fairq_pool: switching never allocates. */
#define FAIRQ_SCHED_PRIV_BYTES	256

#define FAIRQ_SCHED_NAME_MAX	16

/* Scheduler flags. */
#define FAIRQ_SCHED_NATIVE	BIT(0)	/* the kernel's own dispatch: fairq's hooks are off */

/**
 * struct fairq_sched_ops - a dispatch policy
 * @name: what sysfs and netlink call it.
 * @flags: FAIRQ_SCHED_*.
 * @priv_size: bytes of per-pool state the policy keeps in fairq_pool_priv() (at most
 *	FAIRQ_SCHED_PRIV_BYTES); zeroed before @init_pool.
 * @init_pool: set up the per-pool state of one service pool.  Mandatory.
 * @exit_pool: release what @init_pool and later ops set up; the pool holds no transport then.
 *	Optional.
 * @enqueue: take ownership of a ready transport (XPT_BUSY already set by the core).  Mandatory.
 * @pick: remove and return the transport that should run next, or NULL.  Mandatory.
 * @has_work: whether @pick would return a transport.  Mandatory.
 * @drain: move every queued transport to @out in the order @pick would return them.  Used
 *	when switching policy and on unload, so that nothing is lost, duplicated or reordered.
 *	Mandatory.
 * @remove: unlink @xprt if it is queued here (a transport closed while queued); return whether
 *	it was.  May be O(queued): closes are rare.  Mandatory.
 * @attrs: the policy's tunables, shown in /sys/kernel/fairq/<name>/.  Optional.
 * @supported: whether the policy really does something on the running kernel.  A policy that
 *	would be a no-op is not offered.  Optional (default: supported).
 *
 * Native policies (FAIRQ_SCHED_NATIVE) have no queue ops: selecting one turns fairq's hooks off.
 */
struct fairq_sched_ops {
	const char *name;
	unsigned int flags;
	size_t priv_size;
	void (*init_pool)(struct fairq_pool *fp);
	void (*exit_pool)(struct fairq_pool *fp);
	void (*enqueue)(struct fairq_pool *fp, struct svc_xprt *xprt);
	struct svc_xprt *(*pick)(struct fairq_pool *fp);
	bool (*has_work)(struct fairq_pool *fp);
	void (*drain)(struct fairq_pool *fp, struct fairq_xlist *out);
	bool (*remove)(struct fairq_pool *fp, struct svc_xprt *xprt);
	const struct attribute_group *attrs;
	bool (*supported)(void);
};

void *fairq_pool_priv(struct fairq_pool *fp);
unsigned int fairq_pool_id(const struct fairq_pool *fp);

int fairq_register_sched(const struct fairq_sched_ops *ops);
void fairq_unregister_sched(const struct fairq_sched_ops *ops);

/* The built-in policies, one file each under src/sched/. */
extern const struct fairq_sched_ops fairq_sched_fifo;
extern const struct fairq_sched_ops fairq_sched_qfifo;

#endif /* _FAIRQ_SCHED_H */
