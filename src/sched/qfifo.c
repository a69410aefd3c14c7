// SPDX-License-Identifier: GPL-2.0-only
/*
 * qfifo: first come, first served, through fairq's own queue.
 *
 * The same order as the kernel's FIFO, but every transport takes the full fairq path (redirect,
 * policy queue, hand-off, pull).  It is the baseline that measures what the takeover itself
 * costs, and the simplest proof that the takeover loses nothing.  Its queue ops are shared
 * with the policies that keep FIFO order and change something else (capped).
 */
#include "../fairq.h"

static struct fairq_qfifo_pool *qfifo(struct fairq_pool *fp)
{
	return fairq_pool_priv(fp);
}

void fairq_qfifo_init_pool(struct fairq_pool *fp)
{
	fairq_xlist_init(&qfifo(fp)->queue);
}

void fairq_qfifo_enqueue(struct fairq_pool *fp, struct svc_xprt *xprt)
{
	fairq_xlist_push(&qfifo(fp)->queue, xprt);
}

struct svc_xprt *fairq_qfifo_pick(struct fairq_pool *fp)
{
	return fairq_xlist_pop(&qfifo(fp)->queue);
}

bool fairq_qfifo_has_work(struct fairq_pool *fp)
{
	return !fairq_xlist_empty(&qfifo(fp)->queue);
}

void fairq_qfifo_drain(struct fairq_pool *fp, struct fairq_xlist *out)
{
	fairq_xlist_splice(out, &qfifo(fp)->queue);
}

bool fairq_qfifo_remove(struct fairq_pool *fp, struct svc_xprt *xprt)
{
	return fairq_xlist_remove(&qfifo(fp)->queue, xprt);
}

const struct fairq_sched_ops fairq_sched_qfifo = {
	.name		= "qfifo",
	.priv_size	= sizeof(struct fairq_qfifo_pool),
	.init_pool	= fairq_qfifo_init_pool,
	.enqueue	= fairq_qfifo_enqueue,
	.pick		= fairq_qfifo_pick,
	.has_work	= fairq_qfifo_has_work,
	.drain		= fairq_qfifo_drain,
	.remove		= fairq_qfifo_remove,
};
