/* SPDX-License-Identifier: GPL-2.0-only */
/* A transport's mark: which pool's policy holds it (core.c, switch.c). */
#ifndef _FAIRQ_MARK_H
#define _FAIRQ_MARK_H

#include <linux/bitops.h>
#include <linux/sunrpc/svc_xprt.h>

/*
 * fairq marks a transport that waits in one of its policies' queues, and the pool it waits
 * in, in high bits of xpt_flags that sunrpc does not use (its own flags end below bit 20 on
 * every supported kernel), so that a close finds it in O(1) instead of searching every queue
 * of every pool.  The mark is written with an atomic read-modify-write of the whole word, as
 * sunrpc writes its own bits, and only under the lock of the pool it names.
 */
#if BITS_PER_LONG != 64
#error "fairq needs a 64-bit kernel (it keeps its marks in high bits of xpt_flags)"
#endif
#define FAIRQ_XPT_QUEUED	(BITS_PER_LONG - 1)
#define FAIRQ_XPT_POOL_SHIFT	(BITS_PER_LONG - 17)
/* services with more pools than a mark can name stay native */
#define FAIRQ_XPT_POOLS_MAX	0x10000
#define FAIRQ_XPT_POOL_MASK	(0xffffUL << FAIRQ_XPT_POOL_SHIFT)

/* Mark @xprt queued in pool @pool; a full barrier, as every successful cmpxchg is. */
static inline void fairq_xprt_mark(struct svc_xprt *xprt, unsigned int pool)
{
	unsigned long old = READ_ONCE(xprt->xpt_flags), new;

	do {
		new = (old & ~FAIRQ_XPT_POOL_MASK) | BIT(FAIRQ_XPT_QUEUED) |
		      ((unsigned long)pool << FAIRQ_XPT_POOL_SHIFT);
	} while (!try_cmpxchg(&xprt->xpt_flags, &old, new));
}

static inline void fairq_xprt_unmark(struct svc_xprt *xprt)
{
	clear_bit(FAIRQ_XPT_QUEUED, &xprt->xpt_flags);
}

/* The pool whose policy holds @xprt, or -1 if none does. */
static inline int fairq_xprt_marked_pool(const struct svc_xprt *xprt)
{
	unsigned long flags = READ_ONCE(xprt->xpt_flags);

	if (!(flags & BIT(FAIRQ_XPT_QUEUED)))
		return -1;
	return (flags & FAIRQ_XPT_POOL_MASK) >> FAIRQ_XPT_POOL_SHIFT;
}

#endif /* _FAIRQ_MARK_H */
