// SPDX-License-Identifier: GPL-2.0-only
/*
 * fairq_ipmodify: a test-only module that stands for a live patch of svc_xprt_enqueue().  It
 * redirects the function (ftrace IPMODIFY, as livepatch and kpatch do) to a wrapper that counts
 * the calls and calls the real function, so that a test can see fairq and another IPMODIFY
 * user of the same function meet: whichever comes second is refused, and the first one goes on
 * working.
 *
 *   /sys/module/fairq_ipmodify/parameters/calls   calls that went through the wrapper
 */
#include <linux/atomic.h>
#include <linux/ftrace.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/rcupdate.h>
#include <linux/sunrpc/svc_xprt.h>
#include "compat/compat.h"

static atomic_long_t calls = ATOMIC_LONG_INIT(0);

static int calls_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read(&calls));
}

static const struct kernel_param_ops calls_ops = { .get = calls_get };
module_param_cb(calls, &calls_ops, NULL, 0444);
MODULE_PARM_DESC(calls, "svc_xprt_enqueue() calls that went through this module");

static void ipmodify_enqueue(struct svc_xprt *xprt)
{
	atomic_long_inc(&calls);
	svc_xprt_enqueue(xprt);
	barrier();	/* a tail call would re-enter the redirect */
}

static void notrace ipmodify_redirect(unsigned long ip, unsigned long parent_ip,
				      struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	if (!within_module(parent_ip, THIS_MODULE))
		fairq_fregs_set_ip(fregs, (unsigned long)ipmodify_enqueue);
}

static struct ftrace_ops ipmodify_ops = {
	.func = ipmodify_redirect,
	.flags = FTRACE_OPS_FL_IPMODIFY | FTRACE_OPS_FL_RECURSION,
};

static int __init ipmodify_init(void)
{
	int err;

	err = ftrace_set_filter_ip(&ipmodify_ops, (unsigned long)svc_xprt_enqueue, 0, 0);
	if (!err)
		err = register_ftrace_function(&ipmodify_ops);
	if (err) {
		pr_err("cannot redirect svc_xprt_enqueue (error %d)\n", err);
		ftrace_free_filter(&ipmodify_ops);
	}
	return err;
}

static void __exit ipmodify_exit(void)
{
	unregister_ftrace_function(&ipmodify_ops);
	/* the wrapper never sleeps: once every task passed a voluntary switch, none is in it */
	synchronize_rcu_tasks();
	ftrace_free_filter(&ipmodify_ops);
}

module_init(ipmodify_init);
module_exit(ipmodify_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("fairq test helper: another IPMODIFY user of svc_xprt_enqueue (a live patch)");
