/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fairq's tracepoints (the "fairq" event system): what happens to a ready transport, which
 * key a policy served and how long it waited, and the rare events an admin is alerted to.
 * Every field is a plain value or a fixed array, so perf, trace-cmd and bpftrace read them
 * from the event's format file, without BTF (DKMS-built modules usually have none).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM fairq

#if !defined(_FAIRQ_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _FAIRQ_TRACE_H

#include <linux/tracepoint.h>
#include <linux/sunrpc/svc_xprt.h>
#include <net/net_namespace.h>
#include <fairq/sched.h>

#ifndef FAIRQ_CLIENT_LEN
/*
 * The shared UDP transport has no remote address (length 0): its zeroed storage is recorded,
 * so that the printer never reads past the event.
 */
#define FAIRQ_CLIENT_LEN(xprt) \
	max_t(size_t, (xprt)->xpt_remotelen, sizeof(struct sockaddr))
#endif

/* a ready transport entered a policy's queue */
TRACE_EVENT(fairq_enqueue,
	    TP_PROTO(unsigned int pool, unsigned int queued, const struct svc_xprt *xprt),
	    TP_ARGS(pool, queued, xprt),
	    TP_STRUCT__entry(__field(unsigned int, netns)
			     __field(unsigned int, pool)
			     __field(unsigned int, queued)
			     __sockaddr(client, FAIRQ_CLIENT_LEN(xprt))),
	    TP_fast_assign(__entry->netns = xprt->xpt_net->ns.inum;
			   __entry->pool = pool;
			   __entry->queued = queued;
			   __assign_sockaddr(client, &xprt->xpt_remote, FAIRQ_CLIENT_LEN(xprt));),
	    TP_printk("netns=%u pool=%u client=%pISpc queued=%u",
		      __entry->netns, __entry->pool, __get_sockaddr(client), __entry->queued)
);

/*
 * A policy handed a transport to a thread: the key it served (empty for keyless policies) and
 * how long that key had waited for this turn: since its previous dispatch, or since it had
 * work queued if it had none (-1: unknown, the key was already waiting when tracing began).
 */
TRACE_EVENT(fairq_dispatch,
	    TP_PROTO(unsigned int pool, unsigned int queued, const struct svc_xprt *xprt,
		     bool pull, const struct fairq_key_id *key, s64 wait_ns),
	    TP_ARGS(pool, queued, xprt, pull, key, wait_ns),
	    TP_STRUCT__entry(__field(unsigned int, netns)
			     __field(unsigned int, pool)
			     __field(unsigned int, queued)
			     __field(bool, pull)
			     __field(s64, wait_us)
			     __array(char, key, FAIRQ_KEY_TEXT_MAX)
			     __sockaddr(client, FAIRQ_CLIENT_LEN(xprt))),
	    TP_fast_assign(__entry->netns = xprt->xpt_net->ns.inum;
			   __entry->pool = pool;
			   __entry->queued = queued;
			   __entry->pull = pull;
			   __entry->wait_us = wait_ns < 0 ? -1 : div_s64(wait_ns, NSEC_PER_USEC);
			   fairq_key_text(__entry->key, sizeof(__entry->key), key);
			   __assign_sockaddr(client, &xprt->xpt_remote, FAIRQ_CLIENT_LEN(xprt));),
	    TP_printk("netns=%u pool=%u client=%pISpc key=%s wait_us=%lld queued=%u by=%s",
		      __entry->netns, __entry->pool, __get_sockaddr(client), __entry->key,
		      __entry->wait_us, __entry->queued, __entry->pull ? "pull" : "push")
);

/* A key of a keyed policy reached its in-flight cap with work queued: it waits off the turns. */
TRACE_EVENT(fairq_hold,
	    TP_PROTO(unsigned int pool, const struct fairq_key_id *key, unsigned int in_flight,
		     unsigned int queued),
	    TP_ARGS(pool, key, in_flight, queued),
	    TP_STRUCT__entry(__field(unsigned int, pool)
			     __field(unsigned int, in_flight)
			     __field(unsigned int, queued)
			     __array(char, key, FAIRQ_KEY_TEXT_MAX)),
	    TP_fast_assign(__entry->pool = pool;
			   __entry->in_flight = in_flight;
			   __entry->queued = queued;
			   fairq_key_text(__entry->key, sizeof(__entry->key), key);),
	    TP_printk("pool=%u key=%s in_flight=%u queued=%u",
		      __entry->pool, __entry->key, __entry->in_flight, __entry->queued)
);

/*
 * A key of a QoS class waits for the class's limit: the start it booked is @wait_ns away.
 * @cls is the class's name.
 */
TRACE_EVENT(fairq_pace,
	    TP_PROTO(unsigned int pool, const struct fairq_key_id *key, const char *cls,
		     u64 wait_ns, unsigned int queued),
	    TP_ARGS(pool, key, cls, wait_ns, queued),
	    TP_STRUCT__entry(__field(unsigned int, pool)
			     __field(unsigned int, queued)
			     __field(u64, wait_us)
			     __array(char, key, FAIRQ_KEY_TEXT_MAX)
			     __array(char, cls, FAIRQ_CLASS_NAME_LEN + 1)),
	    TP_fast_assign(__entry->pool = pool;
			   __entry->queued = queued;
			   __entry->wait_us = div_u64(wait_ns, NSEC_PER_USEC);
			   fairq_key_text(__entry->key, sizeof(__entry->key), key);
			   strscpy(__entry->cls, cls, sizeof(__entry->cls));),
	    TP_printk("pool=%u key=%s class=%s wait_us=%llu queued=%u", __entry->pool,
		      __entry->key, __entry->cls, __entry->wait_us, __entry->queued)
);

/* Hand-offs to a key that no thread was seen taking within a second, given up. */
TRACE_EVENT(fairq_lost_handoff,
	    TP_PROTO(unsigned int pool, const struct fairq_key_id *key, unsigned int handoffs),
	    TP_ARGS(pool, key, handoffs),
	    TP_STRUCT__entry(__field(unsigned int, pool)
			     __field(unsigned int, handoffs)
			     __array(char, key, FAIRQ_KEY_TEXT_MAX)),
	    TP_fast_assign(__entry->pool = pool;
			   __entry->handoffs = handoffs;
			   fairq_key_text(__entry->key, sizeof(__entry->key), key);),
	    TP_printk("pool=%u key=%s handoffs=%u", __entry->pool, __entry->key, __entry->handoffs)
);

/* The watchdog handed over work whose wakeup was lost (each one is a bug to report). */
TRACE_EVENT(fairq_rescue,
	    TP_PROTO(u32 serv, unsigned int pool, long total),
	    TP_ARGS(serv, pool, total),
	    TP_STRUCT__entry(__field(u32, serv)
			     __field(unsigned int, pool)
			     __field(long, total)),
	    TP_fast_assign(__entry->serv = serv;
			   __entry->pool = pool;
			   __entry->total = total;),
	    TP_printk("serv=%u pool=%u total=%ld", __entry->serv, __entry->pool, __entry->total)
);

/* A scheduler switch was asked for: from, to, and its result (0 or a negative errno). */
TRACE_EVENT(fairq_switch,
	    TP_PROTO(const char *from, const char *to, int err),
	    TP_ARGS(from, to, err),
	    TP_STRUCT__entry(__array(char, from, FAIRQ_SCHED_NAME_MAX)
			     __array(char, to, FAIRQ_SCHED_NAME_MAX)
			     __field(int, err)),
	    TP_fast_assign(strscpy(__entry->from, from, sizeof(__entry->from));
			   strscpy(__entry->to, to, sizeof(__entry->to));
			   __entry->err = err;),
	    TP_printk("from=%s to=%s err=%d", __entry->from, __entry->to, __entry->err)
);

#endif /* _FAIRQ_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH fairq
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
