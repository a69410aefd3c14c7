/* SPDX-License-Identifier: GPL-2.0-only */
/* fairq's state of each nfsd service: its life, its list and the active policy (servs.c). */
#ifndef _FAIRQ_SERVS_H
#define _FAIRQ_SERVS_H

#include "core.h"

extern struct list_head fairq_servs;
extern spinlock_t fairq_servs_lock;
extern atomic_long_t fairq_serv_alloc_failures;
extern atomic_long_t fairq_servs_untracked;

const struct fairq_sched_ops *fairq_active_sched(void);
void fairq_active_set(const struct fairq_sched_ops *ops);
void fairq_pool_set_ops(struct fairq_pool *fp, const struct fairq_sched_ops *ops);

/* fairq's state of @serv, or NULL; under rcu_read_lock() or fairq_servs_lock. */
static inline struct fairq_serv *fairq_serv_lookup(const struct svc_serv *serv)
{
	struct fairq_serv *fs;

	list_for_each_entry_rcu(fs, &fairq_servs, list) {
		if (fs->serv == serv)
			return fs;
	}
	return NULL;
}

void fairq_serv_want(struct svc_xprt *xprt);
void fairq_serv_unwant(const struct svc_serv *serv);
void fairq_servs_unwant_all(void);
void fairq_servs_alloc_stop(void);
void fairq_serv_free(struct fairq_serv *fs);
void fairq_servs_unlist_all(struct list_head *dead);
struct fairq_serv *fairq_serv_unlist(const struct svc_serv *serv);

/*
 * The services fairq manages, and the pools of one: how the other files walk them, under
 * rcu_read_lock() or with fairq_servs_lock held.  Only this file's changes them.
 */
#define fairq_for_each_serv(fs) \
	list_for_each_entry_rcu(fs, &fairq_servs, list, lockdep_is_held(&fairq_servs_lock))

/* Each pool of @fs in order (fp->id is its index): the array ends with a NULL. */
#define fairq_for_each_pool(fp, fs) \
	for (struct fairq_pool *const *pool_it_ = (fs)->pools; ((fp) = *pool_it_); pool_it_++)

#endif /* _FAIRQ_SERVS_H */
