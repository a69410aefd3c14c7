// SPDX-License-Identifier: GPL-2.0-only
/*
 * The only place that diverts sunrpc: its hook points on three ftrace_ops, on while a policy
 * other than fifo is (the request entry points only while that policy charges thread time).
 *
 *  - svc_xprt_enqueue (exported): an IPMODIFY redirect to fairq_enqueue() for nfsd transports.
 *    Calls made from fairq itself are left alone, which is how fairq reaches the original.
 *  - the thread-side pull point (svc_thread_should_sleep on 6.7+, svc_xprt_dequeue on 6.1;
 *    static, found by a kprobe lookup at load): an entry callback that feeds the pool.
 *  - svc_exit_thread (exported): entry callback, to move work off a pool losing its last thread.
 *  - svc_destroy (exported): redirected to a wrapper that drops fairq's state and waits for
 *    an RCU grace period before the real function frees the service's pools.
 *  - svc_set_num_threads (exported; only where the wq policy exists): redirected to a wrapper
 *    that stops wq's request contexts before nfsd's last thread goes.
 *
 * The ops are PERMANENT so that "sysctl kernel.ftrace_enabled=0" cannot silently strand
 * transports that fairq holds.  unregister_ftrace_function() waits for RCU-tasks, so once it
 * returns no task is still running fairq code reached through a hook.
 *
 * They do not ask ftrace for recursion protection (FTRACE_OPS_FL_RECURSION), which would put
 * a wrapper around every callback on the hot path: no callback calls a function it hooks,
 * and fairq's own calls into them (the original svc_xprt_enqueue()) are recognised by their
 * return address and left alone.
 */
#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sunrpc/svc.h>
#include <linux/sunrpc/svc_xprt.h>
#include <linux/wait.h>
#include "core.h"
#include "switch.h"
#include "nfsd.h"
#include "hook.h"
#include "testing.h"

#define FAIRQ_HOOK_FLAGS	FTRACE_OPS_FL_PERMANENT

static bool notrace ip_is(unsigned long ip, void *func)
{
	return ip - (unsigned long)func < 16;
}

/*
 * svc_destroy() frees the service's pools at once, while fairq's readers (the watchdog,
 * netlink, debugfs) may still look at them under RCU.  The wrapper runs in svc_destroy's own
 * sleepable context (an ftrace callback does not), unlinks fairq's shadow of the service, waits
 * for those readers, and only then lets the real function free anything.
 */
/*
 * The wrappers below sleep inside the real functions (for as long as nfsd's threads take to
 * stop) with a return address into fairq.  Removing the hooks does not wait for them (a
 * sleeping task is quiescent for RCU-tasks), so unload waits for this count to drop.
 */
static atomic_t wrappers_running = ATOMIC_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(wrappers_done);

static void wrapper_enter(void)
{
	atomic_inc(&wrappers_running);
}

static void wrapper_leave(void)
{
	if (atomic_dec_and_test(&wrappers_running))
		wake_up(&wrappers_done);
	fairq_test_wrapper_tail();
}

/**
 * fairq_hooks_wait_wrappers - wait until no task runs in a wrapper a redirect sent it to
 *
 * For unload, after the hooks are off: a task sleeping in nfsd's shutdown through a wrapper
 * returns into fairq's text.  The count reaching zero is not enough: the task that dropped it
 * still runs the rest of wrapper_leave() and the wrapper's epilogue, and may be preempted
 * there.  It does not sleep voluntarily before it is back in nfsd's code, so an RCU-tasks grace
 * period (which waits for every task preempted since it began) covers that tail.
 */
void fairq_hooks_wait_wrappers(void)
{
	wait_event(wrappers_done, !atomic_read(&wrappers_running));
	synchronize_rcu_tasks();
}

static void fairq_svc_destroy(void *arg)
{
	struct svc_serv *serv = fairq_destroy_arg_serv((unsigned long)arg);

	wrapper_enter();
	fairq_test_sleep(FAIRQ_TEST_DELAY_WRAPPER);
	if (fairq_serv_is_managed(serv))
		fairq_serv_destroyed(serv);
	svc_destroy(arg);
	wrapper_leave();
}

#ifdef FAIRQ_HAVE_SVC_RQST_ALLOC
/*
 * Policies that run requests in contexts of their own (wq) must stop them before nfsd's last
 * thread goes: nfsd then frees the state requests use.  Where such policies exist, the
 * thread-count setter is wrapped, in its own sleepable context.
 */
static int fairq_svc_set_num_threads(struct svc_serv *serv, struct svc_pool *pool, int nrservs)
{
	int ret;

	wrapper_enter();
	if (fairq_serv_is_managed(serv))
		fairq_serv_threads_changing(serv, !pool && nrservs <= 0);
	ret = svc_set_num_threads(serv, pool, nrservs);
	wrapper_leave();
	return ret;
}
#endif

static void notrace redirect(unsigned long ip, unsigned long parent_ip,
			     struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct svc_xprt *xprt;

	if (fairq_own_text(parent_ip))
		return;
	/* the hot one first: several calls per request */
	if (ip_is(ip, svc_xprt_enqueue)) {
		xprt = (struct svc_xprt *)fairq_fregs_arg0(fregs);
		if (fairq_serv_is_managed(xprt->xpt_server))
			fairq_fregs_set_ip(fregs, (unsigned long)fairq_enqueue);
		return;
	}
	if (ip_is(ip, svc_destroy)) {
		fairq_fregs_set_ip(fregs, (unsigned long)fairq_svc_destroy);
		return;
	}
#ifdef FAIRQ_HAVE_SVC_RQST_ALLOC
	if (ip_is(ip, svc_set_num_threads))
		fairq_fregs_set_ip(fregs, (unsigned long)fairq_svc_set_num_threads);
#endif
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

/*
 * Three ftrace_ops: the redirects, the thread-side entry points every policy needs, and the
 * request entry points that only policies charging thread time need (registered only while
 * such a policy is active: two hook entries per request fewer for the others).  Each
 * unregistration waits for RCU-tasks.  A callback's @ip is the function's fentry site: at its
 * start, or just after the ENDBR64 on IBT kernels.
 */
/*
 * svc_process, svc_send and svc_drop (where a request starts, and where it ends: with a
 * reply, or dropped) are global but not exported on every kernel, and the pull point is
 * static: their addresses come from a kprobe lookup at load.  They are compared against,
 * never called.
 */
static unsigned long process_addr, send_addr, drop_addr, pull_addr;

static void notrace thread_hook(unsigned long ip, unsigned long parent_ip,
				struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	if (ip_is(ip, svc_exit_thread)) {
		struct svc_rqst *rqstp = (struct svc_rqst *)fairq_fregs_arg0(fregs);

		if (fairq_serv_is_managed(rqstp->rq_server))
			fairq_thread_exiting(rqstp);
	} else {
		pull_entry(ip, parent_ip, op, fregs);
	}
}

static void notrace request_hook(unsigned long ip, unsigned long parent_ip,
				 struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct svc_rqst *rqstp = (struct svc_rqst *)fairq_fregs_arg0(fregs);

	if (!fairq_serv_is_managed(rqstp->rq_server))
		return;
	if (ip_is(ip, (void *)process_addr))
		fairq_request_start(rqstp);
	else	/* a dropped request (deferred, or a cache upcall) ends as surely as a sent one */
		fairq_request_done(rqstp);
}

static struct ftrace_ops enqueue_ops = {
	.func = redirect,
	.flags = FAIRQ_HOOK_FLAGS | FTRACE_OPS_FL_IPMODIFY
#ifndef CONFIG_DYNAMIC_FTRACE_WITH_ARGS
		 | FTRACE_OPS_FL_SAVE_REGS
#endif
		 ,
};

static struct ftrace_ops thread_ops = { .func = thread_hook, .flags = FAIRQ_HOOK_FLAGS };
static struct ftrace_ops request_ops = { .func = request_hook, .flags = FAIRQ_HOOK_FLAGS };

#ifdef FAIRQ_TEST_BAD_PULL_SYMBOL
/* Test builds only: proves that a kernel without the pull point is refused at load. */
#undef FAIRQ_PULL_SYMBOL
#define FAIRQ_PULL_SYMBOL "fairq_no_such_function"
#endif

struct fairq_hook_point {
	const char *what;
	struct ftrace_ops *ops;
	unsigned long addr;		/* exported function, or 0 and: */
	unsigned long *resolved;	/* look @what up at load and keep its address here */
	bool optional;			/* a kernel without it loses only some accounting */
};

static struct fairq_hook_point points[] = {
	{ "svc_destroy", &enqueue_ops, (unsigned long)svc_destroy },
#ifdef FAIRQ_HAVE_SVC_RQST_ALLOC
	{ "svc_set_num_threads", &enqueue_ops, (unsigned long)svc_set_num_threads },
#endif
	{ "svc_process", &request_ops, 0, &process_addr },
	{ "svc_send", &request_ops, 0, &send_addr },
	/*
	 * 6.12 and later inline svc_drop into svc_process: a dropped request is not seen there;
	 * it ends when its thread is next seen (threads.c).
	 */
	{ "svc_drop", &request_ops, 0, &drop_addr, true },
	{ "svc_exit_thread", &thread_ops, (unsigned long)svc_exit_thread },
	{ FAIRQ_PULL_SYMBOL, &thread_ops, 0, &pull_addr },
	{ "svc_xprt_enqueue", &enqueue_ops, (unsigned long)svc_xprt_enqueue },
};

/*
 * Registered in this order, removed in reverse: the pull side is live before enqueue, and a
 * request seen to start is seen to end.
 */
enum { HOOKS_THREAD, HOOKS_REQUEST, HOOKS_ENQUEUE };

static struct ftrace_ops *const hook_ops[] = {
	[HOOKS_THREAD] = &thread_ops,
	[HOOKS_REQUEST] = &request_ops,
	[HOOKS_ENQUEUE] = &enqueue_ops,
};

static bool hook_enabled[ARRAY_SIZE(hook_ops)];

static const char *const hooks_what[] = {
	[HOOKS_THREAD] = "thread-side",
	[HOOKS_REQUEST] = "request",
	[HOOKS_ENQUEUE] = "svc_xprt_enqueue",
};

/* Why the last refused registration was refused: for the switch's caller (netlink). */
static bool refused_tracing_off;

static int ops_enable(unsigned int i)
{
	int err;

	if (hook_enabled[i])
		return 0;
	err = register_ftrace_function(hook_ops[i]);
	if (err) {
		/*
		 * Permanent ops are refused while kernel.ftrace_enabled is 0.  The thread-side
		 * ops go first, and once they are in the sysctl cannot go to 0: a later refusal
		 * of the enqueue redirect (IPMODIFY) is another redirect, a live patch.
		 */
		WRITE_ONCE(refused_tracing_off, err == -EBUSY && i != HOOKS_ENQUEUE);
		pr_err("cannot enable the %s hooks (error %d)%s\n", hooks_what[i], err,
		       err != -EBUSY ? "" :
		       refused_tracing_off ? ": kernel.ftrace_enabled is 0" :
		       ": a live patch or tracer already modifies it");
		return err;
	}
	hook_enabled[i] = true;
	return 0;
}

/**
 * fairq_hooks_refused_tracing_off - whether the last switch refused with -EBUSY met
 * kernel.ftrace_enabled=0 (otherwise another user of the enqueue redirect)
 */
bool fairq_hooks_refused_tracing_off(void)
{
	return READ_ONCE(refused_tracing_off);
}

static void ops_disable(unsigned int i)
{
	if (!hook_enabled[i])
		return;
	WARN_ON(unregister_ftrace_function(hook_ops[i]));
	hook_enabled[i] = false;
}

/*
 * sunrpc's own @name.  A bare name is looked up in vmlinux, then in each module, the newest
 * first: a kpatch-style live patch module, which carries its copies of the functions it
 * replaces under their names, would be found before sunrpc.  "sunrpc:NAME" is looked up in
 * sunrpc's symbols alone.  Built into vmlinux, sunrpc comes first anyway.
 */
static unsigned long resolve(const char *name)
{
	char qualified[64];	/* "sunrpc:" and one of our own names */
	struct kprobe kp = { .symbol_name = qualified };
	unsigned long addr;

	if (snprintf(qualified, sizeof(qualified), "%s%s",
		     IS_MODULE(CONFIG_SUNRPC) ? "sunrpc:" : "", name) >= (int)sizeof(qualified))
		return 0;
	if (register_kprobe(&kp))
		return 0;
	addr = (unsigned long)kp.addr;
	unregister_kprobe(&kp);
	return addr;
}

/*
 * Every point is filtered by its address.  A filter by name makes ftrace look up the symbol
 * of every traceable function of the kernel and of each loaded module, the modules' by a walk
 * of their symbol tables: one name cost a modprobe 560 million of its 630 million guest
 * instructions on 6.12, most of a CPU for most of a second on a server already busy.
 */
static int point_set_filter(struct fairq_hook_point *p)
{
	if (p->resolved) {
		*p->resolved = resolve(p->what);
		if (!*p->resolved)
			return -ENOENT;
		p->addr = *p->resolved;
	}
	return ftrace_set_filter_ip(p->ops, p->addr, 0, 0);
}

/**
 * fairq_hooks_probe - check at load that every hook point exists on this kernel
 *
 * A static function inlined away or a symbol renamed would otherwise only show when an admin
 * picks a policy.  Another IPMODIFY user of the redirected functions (a livepatch) is not
 * seen here: setting a filter does not check for one.  It shows at the first switch away from
 * fifo, when registering the ops fails with -EBUSY and the switch is refused.
 */
int fairq_hooks_probe(void)
{
	unsigned int i;
	int err;

	for (i = 0; i < ARRAY_SIZE(points); i++) {
		err = point_set_filter(&points[i]);
		if (err && points[i].optional) {
			pr_info("no %s on this kernel: a dropped request ends when its thread is next seen\n",
				points[i].what);
			continue;
		}
		if (err) {
			pr_err("cannot hook %s on this kernel (error %d): refusing to load\n",
			       points[i].what, err);
			fairq_hooks_release();
			return err;
		}
	}
	return 0;
}

void fairq_hooks_disable(void)
{
	unsigned int i = ARRAY_SIZE(hook_ops);

	while (i--)
		ops_disable(i);
	synchronize_rcu();
}

/**
 * fairq_hooks_enable - divert sunrpc to fairq
 * @requests: also hook where requests start and end (for policies that charge thread time)
 */
int fairq_hooks_enable(bool requests)
{
	unsigned int i;
	int err;

	for (i = 0; i < ARRAY_SIZE(hook_ops); i++) {
		if (i == HOOKS_REQUEST && !requests)
			continue;
		err = ops_enable(i);
		if (err) {
			fairq_hooks_disable();
			return err;
		}
	}
	return 0;
}

/**
 * fairq_hooks_requests - hook where requests start and end, or stop (hooks enabled)
 * @on: whether the next policy charges thread time
 *
 * Returns 0 or the error of the registration; turning them off cannot fail.
 */
int fairq_hooks_requests(bool on)
{
	if (!on) {
		ops_disable(HOOKS_REQUEST);
		return 0;
	}
	return ops_enable(HOOKS_REQUEST);
}

void fairq_hooks_release(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(hook_ops); i++)
		ftrace_free_filter(hook_ops[i]);
}
