// SPDX-License-Identifier: GPL-2.0-only
/*
 * fairq: pluggable dispatch of ready transports to nfsd threads.
 *
 * Loads with the kernel's own dispatch (fifo) and its hooks off; an admin picks a policy
 * through /sys/kernel/fairq/scheduler.  Unloading first returns everything to the kernel.
 */
#include <linux/module.h>
#include "core.h"
#include "switch.h"
#include "registry.h"
#include "hook.h"
#include "v4client.h"
#include "testing.h"
#include "sysfs.h"
#include "debugfs.h"
#include "netlink.h"
#include "version.h"

static const struct fairq_sched_ops *const builtin_scheds[] = {
	&fairq_sched_fifo,
	&fairq_sched_qfifo,
	&fairq_sched_fq,
	&fairq_sched_capped,
	&fairq_sched_wq,
};

static void unregister_builtin(unsigned int n)
{
	while (n--)
		fairq_unregister_sched(builtin_scheds[n]);
}

/*
 * Nothing can change fairq before init has set up every part a switch touches: the
 * interfaces come up last, and accept changes only once all of them are up.
 */
static int __init fairq_init(void)
{
	unsigned int i;
	int err;

	/* the core calls up into the registry only through what it is given here */
	fairq_core_init(fairq_sched_quiesce);
	err = fairq_hooks_probe();
	if (err)
		return err;
	err = fairq_v4client_init();
	if (err)
		goto err_hooks;

	for (i = 0; i < ARRAY_SIZE(builtin_scheds); i++) {
		err = fairq_register_sched(builtin_scheds[i]);
		if (err == -EOPNOTSUPP)
			continue;	/* not offered on this kernel */
		if (err)
			goto err_sched;
	}

	err = fairq_failsafe_init();
	if (err)
		goto err_sched;
	fairq_debugfs_init();
	err = fairq_nl_init();
	if (err)
		goto err_debugfs;
	err = fairq_sysfs_init();
	if (err)
		goto err_nl;
	fairq_changes_open_up();
	pr_info("version %s loaded, scheduler fifo\n", FAIRQ_VERSION);
	return 0;

err_nl:
	fairq_nl_exit();
err_debugfs:
	fairq_debugfs_exit();
	fairq_failsafe_exit();
err_sched:
	unregister_builtin(i);
	fairq_v4client_exit();
err_hooks:
	fairq_hooks_release();
	return err;
}

/*
 * Unload first refuses every change and returns to the kernel's dispatch, in one step: a
 * writer that waited across the final switch finds fairq closed and cannot bring the hooks
 * back.  Only then do the interfaces go.
 */
static void __exit fairq_exit(void)
{
	WARN_ON(fairq_changes_close());
	fairq_sysfs_exit();
	fairq_nl_exit();
	fairq_hooks_wait_wrappers();
	fairq_test_unload_check();
	fairq_core_exit();
	fairq_failsafe_exit();
	fairq_debugfs_exit();
	unregister_builtin(ARRAY_SIZE(builtin_scheds));
	fairq_v4client_exit();
	fairq_hooks_release();
	pr_info("unloaded\n");
}

module_init(fairq_init);
module_exit(fairq_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Pluggable nfsd transport dispatch: fair queueing and friends");
MODULE_AUTHOR("The fairq developers");
MODULE_VERSION(FAIRQ_VERSION);
