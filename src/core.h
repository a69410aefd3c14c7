/* SPDX-License-Identifier: GPL-2.0-only */
/* The core: fairq's state per nfsd service and pool, and the dispatch and switching on it. */
#ifndef _FAIRQ_CORE_H
#define _FAIRQ_CORE_H

#include <linux/spinlock.h>
#include <linux/rculist.h>
#include <linux/atomic.h>
#include <linux/mutex.h>
#include <fairq/sched.h>
#include <fairq/sched-own.h>
#include "compat/compat.h"
#include "pool.h"

struct svc_serv;
struct svc_pool;
struct svc_rqst;

extern struct mutex fairq_sched_mutex;
extern struct list_head fairq_servs;
extern spinlock_t fairq_servs_lock;

void fairq_enqueue(struct svc_xprt *xprt);
void fairq_pool_counters(struct fairq_pool *fp, struct fairq_counters *out);
void fairq_thread_pull(struct svc_rqst *rqstp, struct svc_pool *pool);
void fairq_request_start(struct svc_rqst *rqstp);
void fairq_request_done(struct svc_rqst *rqstp);
const struct fairq_sched_ops *fairq_active_sched(void);
void fairq_active_set(const struct fairq_sched_ops *ops);

/* For the core's own files (servs.c, switch.c, threads.c, watchdog.c): a pool's steps. */
bool fairq_pool_push(struct fairq_pool *fp);
bool fairq_pool_has_work(struct fairq_pool *fp);
bool fairq_pool_ask_own(struct fairq_pool *fp, bool kick, bool *answer);
void fairq_pool_set_ops(struct fairq_pool *fp, const struct fairq_sched_ops *ops);
void fairq_pool_push_all(struct fairq_pool *fp);
void fairq_pool_feed_bypass(struct fairq_pool *fp, struct svc_xprt *xprt);
unsigned int fairq_pool_flush(struct fairq_pool *fp);
struct fairq_pool *fairq_home_pool(struct fairq_serv *fs);
bool fairq_xprt_is_control(const struct svc_xprt *xprt);

extern atomic_long_t fairq_serv_alloc_failures;
extern atomic_long_t fairq_servs_untracked;
extern atomic_long_t fairq_rescues_total;

#endif /* _FAIRQ_CORE_H */
