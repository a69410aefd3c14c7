// SPDX-License-Identifier: GPL-2.0-only
/*
 * qfifo: first come, first served, through fairq's own queue.
 *
 * The same order as the kernel's FIFO, but every transport takes the full fairq path (redirect,
 * policy queue, hand-off, pull).  It is the baseline that measures what the takeover itself
 * costs, and the simplest proof that the takeover loses nothing.
 */
#include "../fairq.h"

struct qfifo_pool {
	struct fairq_xlist queue;
};

static struct qfifo_pool *qfifo(struct fairq_pool *fp)
{
	return fairq_pool_priv(fp);
}

static void qfifo_init_pool(struct fairq_pool *fp)
{
	fairq_xlist_init(&qfifo(fp)->queue);
}

static void qfifo_enqueue(struct fairq_pool *fp, struct svc_xprt *xprt)
{
	fairq_xlist_push(&qfifo(fp)->queue, xprt);
}

static struct svc_xprt *qfifo_pick(struct fairq_pool *fp)
{
	return fairq_xlist_pop(&qfifo(fp)->queue);
}

static bool qfifo_has_work(struct fairq_pool *fp)
{
	return !fairq_xlist_empty(&qfifo(fp)->queue);
}

static void qfifo_drain(struct fairq_pool *fp, struct fairq_xlist *out)
{
	fairq_xlist_splice(out, &qfifo(fp)->queue);
}

static bool qfifo_remove(struct fairq_pool *fp, struct svc_xprt *xprt)
{
	return fairq_xlist_remove(&qfifo(fp)->queue, xprt);
}

const struct fairq_sched_ops fairq_sched_qfifo = {
	.name		= "qfifo",
	.priv_size	= sizeof(struct qfifo_pool),
	.init_pool	= qfifo_init_pool,
	.enqueue	= qfifo_enqueue,
	.pick		= qfifo_pick,
	.has_work	= qfifo_has_work,
	.drain		= qfifo_drain,
	.remove		= qfifo_remove,
};
