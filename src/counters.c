// SPDX-License-Identifier: GPL-2.0-only
/*
 * The counters fairq keeps of itself, each named once, here: the pools' (struct
 * fairq_pool_stats) and the module's.  netlink sends them as name/value nests and debugfs
 * prints them by the same names, so a new counter shows up in fairqctl without a change there.
 */
#include <linux/stddef.h>
#include <uapi/linux/fairq.h>
#include "core.h"
#include "registry.h"
#include "servs.h"
#include "v4client.h"
#include "testing.h"
#include "counters.h"

#define POOL_COUNTER(field, attr_) \
	{ .name = #field, .attr = attr_, .offset = offsetof(struct fairq_pool_stats, field) }

/*
 * In the order they are shown.  The first release sent these as fixed attributes, which are
 * kept for its readers; a counter added since has attribute 0 and goes out by name only.
 */
const struct fairq_pool_counter_def fairq_pool_counter_defs[] = {
	POOL_COUNTER(enqueued, FAIRQ_A_POOL_ENQUEUED),
	POOL_COUNTER(fed_pull, FAIRQ_A_POOL_FED_PULL),
	POOL_COUNTER(fed_push, FAIRQ_A_POOL_FED_PUSH),
	POOL_COUNTER(fed_bypass, FAIRQ_A_POOL_FED_BYPASS),
	POOL_COUNTER(close_flushes, FAIRQ_A_POOL_CLOSE_FLUSHES),
	POOL_COUNTER(rescues, FAIRQ_A_POOL_RESCUES),
	POOL_COUNTER(migrated, FAIRQ_A_POOL_MIGRATED),
#ifdef FAIRQ_TEST_RACES
	/* test builds: a counter fairqctl has no line for, which it must show by its name */
	POOL_COUNTER(test_lost_wakeups, 0),
#endif
};

/* every field of the struct has its line above */
static_assert(ARRAY_SIZE(fairq_pool_counter_defs) ==
	      sizeof(struct fairq_pool_stats) / sizeof(u64));

const unsigned int fairq_pool_nr_counters = ARRAY_SIZE(fairq_pool_counter_defs);
/* reports copy them, and wakeups, into a struct fairq_counters: a table too long fails here */
static_assert(ARRAY_SIZE(fairq_pool_counter_defs) + 1 <= FAIRQ_SCHED_COUNTERS_MAX);

/* A pool's core counters from a snapshot of its stats, in the table's order, then wakeups. */
void fairq_pool_core_counters(const struct fairq_pool_stats *st, u64 wakeups,
			      struct fairq_counters *out)
{
	unsigned int c;

	out->nr = 0;
	for (c = 0; c < fairq_pool_nr_counters; c++)
		fairq_counter_add(out, fairq_pool_counter_defs[c].name,
				  fairq_pool_stat(st, &fairq_pool_counter_defs[c]));
	fairq_counter_add(out, "wakeups", wakeups);
}

static u64 read_rescues(void)
{
	return atomic_long_read(&fairq_rescues_total);
}

static u64 read_failsafe_switches(void)
{
	return atomic_long_read(&fairq_failsafe_switches);
}

static u64 read_serv_alloc_failures(void)
{
	return atomic_long_read(&fairq_serv_alloc_failures);
}

static u64 read_serv_table_full(void)
{
	return atomic_long_read(&fairq_servs_untracked);
}

/*
 * The module's counters since it was loaded, every service of every namespace: a new one is
 * a line here (attribute 0).  Only counts up: a gauge (v4client's bound connections) is
 * sent on its own.
 */
const struct fairq_module_counter_def fairq_module_counter_defs[] = {
	{ "rescues", FAIRQ_A_SCHED_RESCUES_TOTAL, read_rescues },
	{ "failsafe_switches", FAIRQ_A_SCHED_FAILSAFE_SWITCHES, read_failsafe_switches },
	{ "serv_alloc_failures", FAIRQ_A_SCHED_SERV_ALLOC_FAILURES, read_serv_alloc_failures },
	{ "serv_table_full", FAIRQ_A_SCHED_SERV_TABLE_FULL, read_serv_table_full },
	{ "v4client_skipped", FAIRQ_A_SCHED_V4CLIENT_SKIPPED, fairq_v4client_skipped },
	{ "v4client_refused", FAIRQ_A_SCHED_V4CLIENT_REFUSED, fairq_v4client_refused },
	{ "v4client_missed", FAIRQ_A_SCHED_V4CLIENT_MISSED, fairq_v4client_missed },
#ifdef FAIRQ_TEST_RACES
	/* test builds: as test_lost_wakeups of the pools */
	{ "test_faults_injected", 0, fairq_test_faults_injected },
#endif
};

const unsigned int fairq_module_nr_counters = ARRAY_SIZE(fairq_module_counter_defs);
