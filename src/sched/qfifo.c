// SPDX-License-Identifier: GPL-2.0-only
/*
 * qfifo: first come, first served, through fairq's own queue.
 *
 * The same order as the kernel's FIFO, but every transport takes the full fairq path (redirect,
 * policy queue, hand-off, pull).  It is the baseline that measures what the takeover itself
 * costs, and the simplest proof that the takeover loses nothing.  Its queue is the FIFO helper
 * of <fairq/sched.h>, which the policies that keep FIFO order and change something else
 * (capped, wq) share.
 */
#include <linux/module.h>
#include <fairq/sched.h>

const struct fairq_sched_ops fairq_sched_qfifo = {
	.owner		= THIS_MODULE,
	.name		= "qfifo",
	.flags		= FAIRQ_SCHED_ALWAYS_READY,
	.priv_size	= sizeof(struct fairq_qfifo_pool),
	.init_pool	= fairq_qfifo_init_pool,
	.enqueue	= fairq_qfifo_enqueue,
	.pick		= fairq_qfifo_pick,
	.has_work	= fairq_qfifo_has_work,
	.drain		= fairq_qfifo_drain,
	.remove		= fairq_qfifo_remove,
};
