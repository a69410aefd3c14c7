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
 * sunrpc writes its own bits, and only under the lock of the pool it names (but for the count
 * of dispatches below).
 */
#if BITS_PER_LONG != 64
#error "fairq needs a 64-bit kernel (it keeps its marks in high bits of xpt_flags)"
#endif
#define FAIRQ_XPT_QUEUED	(BITS_PER_LONG - 1)
#define FAIRQ_XPT_POOL_SHIFT	(BITS_PER_LONG - 17)
/* services with more pools than a mark can name stay native */
#define FAIRQ_XPT_POOLS_MAX	0x10000
#define FAIRQ_XPT_POOL_MASK	(0xffffUL << FAIRQ_XPT_POOL_SHIFT)
/*
 * Dispatches of a transport that no thread has been seen with yet, made by a policy that counts
 * its threads (its pool tracks them): a count below the pool bits.  Only a thread seen with a
 * transport that has one ends a dispatch its key counts as on its way, and a close ends them
 * all (threads.c, core.c).  More than one is rare (6.1: a transport a thread has just given
 * back is dispatched again before that thread is seen); the count saturates, and a dispatch
 * it misses is given up by the policy's watchdog.  Unlike the queued mark, the count changes
 * without the pool's lock, by atomic read-modify-writes of the word.
 */
#define FAIRQ_XPT_DISPATCH_SHIFT	(FAIRQ_XPT_POOL_SHIFT - 4)
#define FAIRQ_XPT_DISPATCH_MASK		(0xfUL << FAIRQ_XPT_DISPATCH_SHIFT)

/*
 * Mark @xprt queued in pool @pool; a full barrier, as every successful cmpxchg is.  @fresh:
 * any dispatch still counted is stale and goes (where every thread is seen before it gives its
 * transport back, 6.7+, a count left at the next enqueue is one no thread could end).
 */
static inline void fairq_xprt_mark(struct svc_xprt *xprt, unsigned int pool, bool fresh)
{
	unsigned long drop = FAIRQ_XPT_POOL_MASK | (fresh ? FAIRQ_XPT_DISPATCH_MASK : 0);
	unsigned long old = READ_ONCE(xprt->xpt_flags), new;

	do {
		new = (old & ~drop) | BIT(FAIRQ_XPT_QUEUED) |
		      ((unsigned long)pool << FAIRQ_XPT_POOL_SHIFT);
	} while (!try_cmpxchg(&xprt->xpt_flags, &old, new));
}

static inline void fairq_xprt_unmark(struct svc_xprt *xprt)
{
	clear_bit(FAIRQ_XPT_QUEUED, &xprt->xpt_flags);
}

/*
 * @xprt leaves its queue for a thread, as fairq_xprt_unmark(); @counted: its pool counts its
 * threads, and one more dispatch is on its way; else any count is stale (of a pool state that
 * counted before) and goes.
 */
static inline void fairq_xprt_dispatch(struct svc_xprt *xprt, bool counted)
{
	unsigned long old = READ_ONCE(xprt->xpt_flags), new, count;

	/*
	 * Without a count to keep or to clear (every pool without a cap), the one atomic bit
	 * clear it always was: a count only grows at a dispatch, under the lock held here.
	 */
	if (!counted && !(old & FAIRQ_XPT_DISPATCH_MASK)) {
		fairq_xprt_unmark(xprt);
		return;
	}
	do {
		count = old & FAIRQ_XPT_DISPATCH_MASK;
		new = old & ~(BIT(FAIRQ_XPT_QUEUED) | FAIRQ_XPT_DISPATCH_MASK);
		if (counted)
			new |= count == FAIRQ_XPT_DISPATCH_MASK ? count :
				count + BIT(FAIRQ_XPT_DISPATCH_SHIFT);
	} while (!try_cmpxchg(&xprt->xpt_flags, &old, new));
}

/* Ends one dispatch of @xprt on its way to a thread: whether there was one. */
static inline bool fairq_xprt_end_dispatch(struct svc_xprt *xprt)
{
	unsigned long old = READ_ONCE(xprt->xpt_flags);

	do {
		if (!(old & FAIRQ_XPT_DISPATCH_MASK))
			return false;
	} while (!try_cmpxchg(&xprt->xpt_flags, &old, old - BIT(FAIRQ_XPT_DISPATCH_SHIFT)));
	return true;
}

/* Ends every dispatch of @xprt on its way to a thread: how many there were. */
static inline unsigned int fairq_xprt_end_dispatches(struct svc_xprt *xprt)
{
	unsigned long old = READ_ONCE(xprt->xpt_flags);

	do {
		if (!(old & FAIRQ_XPT_DISPATCH_MASK))
			return 0;
	} while (!try_cmpxchg(&xprt->xpt_flags, &old, old & ~FAIRQ_XPT_DISPATCH_MASK));
	return (old & FAIRQ_XPT_DISPATCH_MASK) >> FAIRQ_XPT_DISPATCH_SHIFT;
}

/* The pool the mark names, whether or not @xprt is queued there now. */
static inline unsigned int fairq_xprt_mark_pool(const struct svc_xprt *xprt)
{
	return (READ_ONCE(xprt->xpt_flags) & FAIRQ_XPT_POOL_MASK) >> FAIRQ_XPT_POOL_SHIFT;
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
