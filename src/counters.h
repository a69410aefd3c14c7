/* SPDX-License-Identifier: GPL-2.0-only */
/* The module's and each pool's own counters, by name, for netlink and debugfs (counters.c). */
#ifndef _FAIRQ_COUNTERS_H
#define _FAIRQ_COUNTERS_H

#include <fairq/sched.h>

struct fairq_pool_stats;

void fairq_pool_core_counters(const struct fairq_pool_stats *st, u64 wakeups,
			      struct fairq_counters *out);

/* One of the module's counters: its name, its fixed netlink attribute, how it is read. */
struct fairq_module_counter_def {
	const char *name;
	int attr;		/* FAIRQ_A_SCHED_* of the first release, or 0: sent by name only */
	u64 (*read)(void);
};

extern const struct fairq_module_counter_def fairq_module_counter_defs[];
extern const unsigned int fairq_module_nr_counters;

#endif
