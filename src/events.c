// SPDX-License-Identifier: GPL-2.0-only
/*
 * What changed, for whoever listens (netlink's events groups): switches, tunables, weights,
 * classes and rescues.  The parts that change things announce here, and the interfaces
 * subscribe, so that neither knows the other.  An atomic chain: rescues are announced from
 * the watchdog under rcu_read_lock(), so listeners must not sleep.
 */
#include <linux/ktime.h>
#include <linux/notifier.h>
#include "events.h"

static ATOMIC_NOTIFIER_HEAD(fairq_event_chain);

int fairq_events_subscribe(struct notifier_block *nb)
{
	return atomic_notifier_chain_register(&fairq_event_chain, nb);
}

/* Returns once no listener call on @nb is running (the chain is RCU-protected). */
void fairq_events_unsubscribe(struct notifier_block *nb)
{
	atomic_notifier_chain_unregister(&fairq_event_chain, nb);
}

/**
 * fairq_event_announce - tell the listeners what changed, stamped with the wall clock
 * @type: what kind of change
 * @ev: its details (time_ns is filled in here)
 */
void fairq_event_announce(enum fairq_event_type type, struct fairq_event *ev)
{
	ev->time_ns = ktime_get_real_ns();
	atomic_notifier_call_chain(&fairq_event_chain, type, ev);
}
