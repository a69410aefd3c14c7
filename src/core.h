/* SPDX-License-Identifier: GPL-2.0-only */
/* The dispatch path (core.c): enqueue, feed, pull and push of a pool's transports. */
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

void fairq_enqueue(struct svc_xprt *xprt);
void fairq_pool_sched_counters(struct fairq_pool *fp, struct fairq_counters *out);
void fairq_thread_pull(struct svc_rqst *rqstp, struct svc_pool *pool);
void fairq_request_start(struct svc_rqst *rqstp);
void fairq_request_done(struct svc_rqst *rqstp);

/* For the core's own files (servs.c, switch.c, threads.c, watchdog.c): a pool's steps. */
bool fairq_pool_push(struct fairq_pool *fp);
bool fairq_pool_has_work(struct fairq_pool *fp);
bool fairq_pool_ask_own(struct fairq_pool *fp, bool kick, bool *answer);
void fairq_pool_push_all(struct fairq_pool *fp);
void fairq_pool_feed_bypass(struct fairq_pool *fp, struct svc_xprt *xprt);
bool fairq_pool_undispatch_locked(struct fairq_pool *fp, struct svc_xprt *xprt, unsigned int n);
unsigned int fairq_pool_flush(struct fairq_pool *fp);
struct fairq_pool *fairq_home_pool(struct fairq_serv *fs);
bool fairq_xprt_is_control(const struct svc_xprt *xprt);

extern atomic_long_t fairq_rescues_total;

#endif /* _FAIRQ_CORE_H */
