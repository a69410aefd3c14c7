/* SPDX-License-Identifier: GPL-2.0-only */
/* The module's and each pool's own counters, by name, for netlink and debugfs (counters.c). */
#ifndef _FAIRQ_COUNTERS_H
#define _FAIRQ_COUNTERS_H

#include <fairq/sched.h>

struct fairq_pool_stats;

/* The module's counters: each with the fixed attribute the first release sent it as (or 0). */
#define FAIRQ_MODULE_COUNTERS_MAX	12
struct fairq_module_counters {
	unsigned int nr;
	struct {
		const char *name;
		int attr;		/* FAIRQ_A_SCHED_*, or 0: sent by name only */
		u64 value;
	} c[FAIRQ_MODULE_COUNTERS_MAX];
};

void fairq_module_counters(struct fairq_module_counters *out);
void fairq_pool_core_counters(const struct fairq_pool_stats *st, u64 wakeups,
			      struct fairq_counters *out);

#endif
