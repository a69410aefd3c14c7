// SPDX-License-Identifier: GPL-2.0-only
/*
 * /sys/kernel/debug/fairq/pools: the per-pool counters, for developers and the test suite.
 * Not an ABI: fairqctl reads the same numbers over netlink.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/sunrpc/svc.h>
#include "core.h"
#include "servs.h"
#include "registry.h"
#include "kq.h"
#include "v4client.h"
#include "testing.h"
#include "counters.h"
#include "debugfs.h"

static struct dentry *fairq_debugfs_dir;

static void counters_show(struct seq_file *m, const struct fairq_counters *cs)
{
	unsigned int c;

	for (c = 0; c < cs->nr; c++)
		seq_printf(m, " %s %llu", cs->c[c].name, cs->c[c].value);
}

/* The module's counters, then v4client's bound connections (a gauge). */
static void module_show(struct seq_file *m)
{
	unsigned int c;

	seq_puts(m, "module");
	for (c = 0; c < fairq_module_nr_counters; c++)
		seq_printf(m, " %s %llu", fairq_module_counter_defs[c].name,
			   fairq_module_counter_defs[c].read());
	seq_printf(m, " v4client_bound %u\n", fairq_v4client_bound());
}

/*
 * A line per pool: "serv S pool P threads T queued Q", fairq's own counters by name, then
 * "sched NAME" and the scheduler's own.  Last, one "module" line of the module's counters.
 */
static int pools_show(struct seq_file *m, void *v)
{
	struct fairq_serv *fs;
	struct fairq_pool *fp;

	rcu_read_lock();	/* also for the active policy's name: its module may go */
	seq_printf(m, "scheduler %s\n", fairq_active_sched()->name);
	fairq_for_each_serv(fs) {
		fairq_for_each_pool(fp, fs) {
			struct fairq_counters counters, core;
			struct fairq_pool_stats st;
			const char *sched;
			unsigned int queued;

			spin_lock_bh(&fp->lock);
			st = fp->stats;
			queued = fp->nr_queued;
			sched = fp->ops ? fp->ops->name : fairq_sched_fifo.name;
			fairq_pool_sched_counters(fp, &counters);
			spin_unlock_bh(&fp->lock);
			fairq_pool_core_counters(&st, atomic_long_read(&fp->wakeups), &core);
			seq_printf(m, "serv %u pool %u threads %u queued %u", fs->id, fp->id,
				   fairq_pool_threads(fp->pool), queued);
			counters_show(m, &core);
			seq_printf(m, " sched %s", sched);
			counters_show(m, &counters);
			seq_putc(m, '\n');
		}
		fairq_test_delay(FAIRQ_TEST_DELAY_READER);
	}
	rcu_read_unlock();
	module_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pools);

void fairq_debugfs_init(void)
{
	fairq_debugfs_dir = debugfs_create_dir("fairq", NULL);
	debugfs_create_file("pools", 0400, fairq_debugfs_dir, NULL, &pools_fops);
}

void fairq_debugfs_exit(void)
{
	debugfs_remove_recursive(fairq_debugfs_dir);
}
