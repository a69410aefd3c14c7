/* SPDX-License-Identifier: GPL-2.0-only */
/* The kernel-queue backend: sunrpc's own pool queue and idle threads. */
#ifndef _FAIRQ_KQ_H
#define _FAIRQ_KQ_H

#include <linux/types.h>
#include <fairq/xlist.h>

struct svc_serv;
struct svc_pool;
struct svc_rqst;
struct svc_xprt;

void fairq_kq_feed(struct svc_pool *pool, struct svc_xprt *xprt);
bool fairq_kq_empty(struct svc_pool *pool);
void fairq_kq_take_all(struct svc_pool *pool, struct fairq_xlist *out);
bool fairq_kq_has_idle(struct svc_pool *pool);
unsigned int fairq_kq_nr_idle(struct svc_pool *pool);
unsigned int fairq_kq_idle_others(struct svc_pool *pool, const struct svc_rqst *self,
				  unsigned int max);
bool fairq_kq_feeds_then_wakes(struct svc_pool *pool);
void fairq_kq_wake_fed(struct svc_pool *pool);
struct svc_rqst *fairq_kq_claim_idle(struct svc_pool *pool);
void fairq_kq_wake_claimed(struct svc_pool *pool, struct svc_rqst *rqstp);
bool fairq_kq_wakes_one_at_a_time(void);
void fairq_kq_kick(struct svc_pool *pool, unsigned int n);
void fairq_kq_fed_by_self(struct svc_pool *pool, struct svc_rqst *self);
bool fairq_kq_stalled(struct svc_pool *pool);
u64 fairq_kq_queued(struct svc_pool *pool);
bool fairq_xprt_ready(struct svc_xprt *xprt);
unsigned int fairq_serv_nr_pools(const struct svc_serv *serv);
unsigned int fairq_pool_threads(const struct svc_pool *pool);

#endif /* _FAIRQ_KQ_H */
