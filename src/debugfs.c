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
#include "debugfs.h"

static struct dentry *fairq_debugfs_dir;

static int pools_show(struct seq_file *m, void *v)
{
	struct fairq_serv *fs;
	struct fairq_pool *fp;
	u64 bind_skipped, seq_refused, seq_missed;
	unsigned int bound;

	rcu_read_lock();	/* also for the active policy's name: its module may go */
	seq_printf(m, "scheduler %s\n", fairq_active_sched()->name);
	fairq_for_each_serv(fs) {
		fairq_for_each_pool(fp, fs) {
			struct fairq_counters counters;
			struct fairq_pool_stats st;
			unsigned int queued, c;

			spin_lock_bh(&fp->lock);
			st = fp->stats;
			queued = fp->nr_queued;
			fairq_pool_counters(fp, &counters);
			spin_unlock_bh(&fp->lock);
			seq_printf(m, "serv %u pool %u threads %u queued %u wakeups %ld",
				   fs->id, fp->id, fairq_pool_threads(fp->pool), queued,
				   atomic_long_read(&fp->wakeups));
			for (c = 0; c < fairq_pool_nr_counters; c++)
				seq_printf(m, " %s %llu", fairq_pool_counter_defs[c].name,
					   fairq_pool_stat(&st, &fairq_pool_counter_defs[c]));
			for (c = 0; c < counters.nr; c++)
				seq_printf(m, " %s %llu", counters.c[c].name, counters.c[c].value);
			seq_putc(m, '\n');
		}
		fairq_test_delay(FAIRQ_TEST_DELAY_READER);
	}
	rcu_read_unlock();
	seq_printf(m, "rescues_total %ld serv_alloc_failures %ld serv_table_full %ld failsafe_switches %ld\n",
		   atomic_long_read(&fairq_rescues_total),
		   atomic_long_read(&fairq_serv_alloc_failures),
		   atomic_long_read(&fairq_servs_untracked),
		   atomic_long_read(&fairq_failsafe_switches));
	fairq_v4client_stats(&bound, &bind_skipped, &seq_refused, &seq_missed);
	seq_printf(m, "v4client_bound %u v4client_skipped %llu v4client_refused %llu v4client_missed %llu\n",
		   bound, bind_skipped, seq_refused, seq_missed);
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
