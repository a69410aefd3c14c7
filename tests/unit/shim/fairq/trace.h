/* SPDX-License-Identifier: GPL-2.0-only */
/* fairq's tracepoints, for the unit tests: the enabled switch is the test's; events are counted. */
#ifndef _FAIRQ_TRACE_H
#define _FAIRQ_TRACE_H

#include <fairq/sched.h>

extern bool unit_trace_on;
extern unsigned int unit_trace_holds, unit_trace_lost_handoffs, unit_trace_paces;

static inline bool trace_fairq_dispatch_enabled(void)
{
	return unit_trace_on;
}

static inline void trace_fairq_hold(unsigned int pool, const struct fairq_key_id *key,
				    unsigned int in_flight, unsigned int queued)
{
	(void)pool, (void)key, (void)in_flight, (void)queued;
	unit_trace_holds++;
}

static inline void trace_fairq_lost_handoff(unsigned int pool, const struct fairq_key_id *key,
					    unsigned int handoffs)
{
	(void)pool, (void)key;
	unit_trace_lost_handoffs += handoffs;
}

static inline bool trace_fairq_pace_enabled(void)
{
	return unit_trace_on;
}

static inline void trace_fairq_pace(unsigned int pool, const struct fairq_key_id *key,
				    const char *cls, u64 wait_ns, unsigned int queued)
{
	(void)pool, (void)key, (void)cls, (void)wait_ns, (void)queued;
	unit_trace_paces++;
}

#endif
