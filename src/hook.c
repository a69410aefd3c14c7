// SPDX-License-Identifier: GPL-2.0-only
/*
 * The only place that diverts sunrpc: four ftrace hooks, all on or all off.
 *
 *  - svc_xprt_enqueue (exported): an IPMODIFY redirect to fairq_enqueue() for nfsd transports.
 *    Calls made from fairq itself are left alone, which is how fairq reaches the original.
 *  - the thread-side pull point (svc_thread_should_sleep on 6.7+, svc_xprt_dequeue on 6.1;
 *    static, attached by name within sunrpc): an entry callback that feeds the pool.
 *  - svc_exit_thread (exported): entry callback, to move work off a pool losing its last thread.
 *  - svc_destroy (exported): entry callback, to drop fairq's state before the service is freed.
 *
 * The ops are PERMANENT so that "sysctl kernel.ftrace_enabled=0" cannot silently strand
 * transports that fairq holds.  unregister_ftrace_function() waits for RCU-tasks, so once it
 * returns no task is still running fairq code reached through a hook.
 */
#include <linux/ftrace.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sunrpc/svc.h>
#include <linux/sunrpc/svc_xprt.h>
#include "fairq.h"

#define FAIRQ_HOOK_FLAGS	(FTRACE_OPS_FL_RECURSION | FTRACE_OPS_FL_PERMANENT)

static void notrace enqueue_redirect(unsigned long ip, unsigned long parent_ip,
				     struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct svc_xprt *xprt = (struct svc_xprt *)fairq_fregs_arg0(fregs);

	if (within_module(parent_ip, THIS_MODULE))
		return;
	if (!fairq_serv_is_managed(xprt->xpt_server))
		return;
	fairq_fregs_set_ip(fregs, (unsigned long)fairq_enqueue);
}

static void notrace pull_entry(unsigned long ip, unsigned long parent_ip,
			       struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct svc_rqst *rqstp;

#ifdef FAIRQ_HAVE_LWQ_POOL
	rqstp = (struct svc_rqst *)fairq_fregs_arg0(fregs);
#else
	/* 6.1's hook point only sees the pool; the nfsd thread's kthread data is its rqstp */
	if (!(current->flags & PF_KTHREAD))
		return;
	rqstp = kthread_data(current);
	if (!rqstp || rqstp->rq_task != current ||
	    rqstp->rq_pool != (struct svc_pool *)fairq_fregs_arg0(fregs))
		return;
#endif
	if (!fairq_serv_is_managed(rqstp->rq_server))
		return;
	fairq_thread_pull(rqstp, rqstp->rq_pool);
}

static void notrace exit_thread_entry(unsigned long ip, unsigned long parent_ip,
				      struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct svc_rqst *rqstp = (struct svc_rqst *)fairq_fregs_arg0(fregs);

	if (fairq_serv_is_managed(rqstp->rq_server))
		fairq_thread_exiting(rqstp);
}

static void notrace destroy_entry(unsigned long ip, unsigned long parent_ip,
				  struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct svc_serv *serv = fairq_destroy_arg_serv(fairq_fregs_arg0(fregs));

	if (fairq_serv_is_managed(serv))
		fairq_serv_destroyed(serv);
}

static struct ftrace_ops enqueue_ops = {
	.func = enqueue_redirect,
	.flags = FAIRQ_HOOK_FLAGS | FTRACE_OPS_FL_IPMODIFY
#ifndef CONFIG_DYNAMIC_FTRACE_WITH_ARGS
		 | FTRACE_OPS_FL_SAVE_REGS
#endif
		 ,
};

static struct ftrace_ops pull_ops = { .func = pull_entry, .flags = FAIRQ_HOOK_FLAGS };
static struct ftrace_ops exit_thread_ops = { .func = exit_thread_entry, .flags = FAIRQ_HOOK_FLAGS };
static struct ftrace_ops destroy_ops = { .func = destroy_entry, .flags = FAIRQ_HOOK_FLAGS };

#ifdef FAIRQ_TEST_BAD_PULL_SYMBOL
/* Test builds only: proves that a kernel without the pull point is refused at load. */
#undef FAIRQ_PULL_SYMBOL
#define FAIRQ_PULL_SYMBOL "fairq_no_such_function"
#endif

struct fairq_hook {
	const char *what;
	struct ftrace_ops *ops;
	unsigned long addr;		/* exported function, or 0 to match by name */
	const char *name;		/* static functions are matched by name */
	bool enabled;
};

static struct fairq_hook hooks[] = {
	/* enabled in this order and disabled in reverse: the pull hook is live before enqueue */
	{ "svc_destroy", &destroy_ops, (unsigned long)svc_destroy },
	{ "svc_exit_thread", &exit_thread_ops, (unsigned long)svc_exit_thread },
	{ FAIRQ_PULL_SYMBOL, &pull_ops, 0, FAIRQ_PULL_SYMBOL },
	{ "svc_xprt_enqueue", &enqueue_ops, (unsigned long)svc_xprt_enqueue },
};

static int hook_set_filter(struct fairq_hook *h)
{
	char buf[96];

	if (h->addr)
		return ftrace_set_filter_ip(h->ops, h->addr, 0, 0);
	strscpy(buf, h->name, sizeof(buf));
	return ftrace_set_filter(h->ops, buf, strlen(buf), 0);
}

/**
 * fairq_hooks_probe - check at load that every hook point exists on this kernel
 *
 * A static function inlined away, a symbol renamed, or another IPMODIFY user of
 * svc_xprt_enqueue (a livepatch) would otherwise only show when an admin picks a policy.
 */
int fairq_hooks_probe(void)
{
	unsigned int i;
	int err;

	for (i = 0; i < ARRAY_SIZE(hooks); i++) {
		err = hook_set_filter(&hooks[i]);
		if (err) {
			pr_err("cannot hook %s on this kernel (error %d): refusing to load\n",
			       hooks[i].what, err);
			while (i--)
				ftrace_free_filter(hooks[i].ops);
			return err;
		}
	}
	return 0;
}

void fairq_hooks_disable(void)
{
	unsigned int i = ARRAY_SIZE(hooks);

	while (i--) {
		if (!hooks[i].enabled)
			continue;
		WARN_ON(unregister_ftrace_function(hooks[i].ops));
		hooks[i].enabled = false;
	}
	synchronize_rcu();
}

int fairq_hooks_enable(void)
{
	unsigned int i;
	int err;

	for (i = 0; i < ARRAY_SIZE(hooks); i++) {
		err = register_ftrace_function(hooks[i].ops);
		if (err) {
			pr_err("cannot enable the %s hook (error %d)%s\n", hooks[i].what, err,
			       err == -EBUSY ? ": another live patch or tracer modifies it" : "");
			fairq_hooks_disable();
			return err;
		}
		hooks[i].enabled = true;
	}
	return 0;
}

void fairq_hooks_release(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(hooks); i++)
		ftrace_free_filter(hooks[i].ops);
}
