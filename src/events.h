/* SPDX-License-Identifier: GPL-2.0-only */
/* What changed, for whoever listens: switches, tunables, weights, classes and rescues. */
#ifndef _FAIRQ_EVENTS_H
#define _FAIRQ_EVENTS_H

#include <linux/types.h>
#include <fairq/sched.h>

struct notifier_block;
struct net;

enum fairq_event_type {
	FAIRQ_EVENT_SWITCH,	/* the active scheduler changed */
	FAIRQ_EVENT_TUNABLE,	/* a tunable changed value */
	FAIRQ_EVENT_WEIGHT,	/* a key's weight was set, or restored to the default (0) */
	FAIRQ_EVENT_RESCUE,	/* the watchdog rescued a stalled transport */
	FAIRQ_EVENT_CLASS,	/* a QoS class was made, changed or deleted */
};

struct fairq_event {
	u64 time_ns;		/* CLOCK_REALTIME */
	union {
		struct {
			const char *from, *to;
			const char *reason;	/* NULL: an admin's switch */
		} sw;
		struct {
			const char *sched;	/* NULL: a setting of fairq itself */
			const char *name;
			u64 value, previous;
		} tunable;
		struct {
			const char *sched;
			const struct fairq_key_id *id;
			u32 weight;
		} weight;
		struct {
			const char *sched;
			const char *name;
			const struct fairq_class_spec *spec;	/* as it now is; NULL: deleted */
			bool made;	/* by this change (an audit tells it from a change) */
		} class;
		struct {
			struct net *net;	/* the service's: only its listeners hear of it */
			u32 serv, pool;
			u64 rescues;	/* the pool's, this one included */
		} rescue;
	};
};

int fairq_events_subscribe(struct notifier_block *nb);
void fairq_events_unsubscribe(struct notifier_block *nb);
void fairq_event_announce(enum fairq_event_type type, struct fairq_event *ev);

#endif /* _FAIRQ_EVENTS_H */
