// SPDX-License-Identifier: GPL-2.0-only
/*
 * fairq_extsched: a test-only dispatch policy, "extfifo", in a module of its own.
 *
 * It proves that a policy needs nothing of fairq but <fairq/sched.h> and the symbols fairq
 * exports: it registers at load, can be selected under load, keeps its module loaded while it
 * is active, and withdraws at unload.  First come, first served through the FIFO helper, with
 * a tunable (a wake cap, /sys/kernel/fairq/extfifo/max_waking, through the wake ops) and
 * counters of its own ("picked": transports it handed out; "waking"), so that its sysfs
 * directory, its netlink tunable, its counters and the wake ops are all exercised.  Its cap
 * counts the threads woken for it that have not looked for work yet, without naming them:
 * any thread's look ends one, which is looser than capped's (a woken thread that exits
 * without looking holds a place until another thread looks).  Having wake ops, it always
 * clocks itself like capped, also without a cap: the path without wake ops is qfifo's and
 * fq's.
 *
 * It can also misbehave on purpose, for the fail-safe test: with strand_ms set, the transport
 * at the head of a pool's queue is hidden (has_work says no) until it has been the head that
 * long, and nothing tells fairq when that time is up, as a policy that holds work back without
 * a tick would.  Every such transport waits for the watchdog to find it.
 */
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/timekeeping.h>
#include <fairq/sched.h>

struct extfifo_pool {
	struct fairq_qfifo_pool fifo;	/* first: the FIFO helper's state */
	u64 picked;
	u64 head_since;			/* ktime_get_ns() when the head became the head */
	unsigned int max_waking;	/* 0: no cap */
	unsigned int waking;
};

/* Other names, to test the registry's: a name or alias already taken is refused. */
static char *name = "extfifo";
module_param(name, charp, 0444);
MODULE_PARM_DESC(name, "the policy's name (default extfifo)");
static char *alias;
module_param(alias, charp, 0444);
MODULE_PARM_DESC(alias, "an old name it also answers to (default none)");

#define EXTFIFO_MAX_WAKING	32
static u32 extfifo_max_waking;	/* 0: no cap */
static u32 extfifo_strand_ms;	/* 0: behave */

static struct extfifo_pool *extfifo(struct fairq_pool *fp)
{
	return fairq_pool_priv(fp);
}

static void extfifo_init_pool(struct fairq_pool *fp)
{
	fairq_qfifo_init_pool(fp);
	extfifo(fp)->max_waking = READ_ONCE(extfifo_max_waking);
}

static bool extfifo_reserve(struct fairq_pool *fp)
{
	struct extfifo_pool *ep = extfifo(fp);

	if (ep->max_waking && ep->waking >= ep->max_waking)
		return false;
	ep->waking++;
	return true;
}

static void extfifo_commit(struct fairq_pool *fp, struct task_struct *task)
{
	if (!task && extfifo(fp)->waking)
		extfifo(fp)->waking--;
}

static void extfifo_ran(struct fairq_pool *fp)
{
	if (extfifo(fp)->waking)
		extfifo(fp)->waking--;
}

static const struct fairq_wake_ops extfifo_wake = {
	.reserve	= extfifo_reserve,
	.commit		= extfifo_commit,
	.ran		= extfifo_ran,
};

static void extfifo_enqueue(struct fairq_pool *fp, struct svc_xprt *xprt)
{
	if (!fairq_qfifo_has_work(fp))
		extfifo(fp)->head_since = ktime_get_ns();
	fairq_qfifo_enqueue(fp, xprt);
}

static bool extfifo_has_work(struct fairq_pool *fp)
{
	u64 strand_ns = (u64)READ_ONCE(extfifo_strand_ms) * NSEC_PER_MSEC;

	return fairq_qfifo_has_work(fp) &&
	       (!strand_ns || ktime_get_ns() - extfifo(fp)->head_since >= strand_ns);
}

static struct svc_xprt *extfifo_pick(struct fairq_pool *fp)
{
	struct svc_xprt *xprt;

	if (!extfifo_has_work(fp))
		return NULL;
	xprt = fairq_qfifo_pick(fp);
	extfifo(fp)->picked++;
	extfifo(fp)->head_since = ktime_get_ns();
	return xprt;
}

static void extfifo_counters(struct fairq_pool *fp, struct fairq_counters *out)
{
	fairq_counter_add(out, "picked", extfifo(fp)->picked);
	fairq_counter_add(out, "waking", extfifo(fp)->waking);
}

static u64 extfifo_get_max_waking(void)
{
	return READ_ONCE(extfifo_max_waking);
}

static u64 extfifo_get_strand_ms(void)
{
	return READ_ONCE(extfifo_strand_ms);
}

static int extfifo_set_strand_ms(u64 val)
{
	WRITE_ONCE(extfifo_strand_ms, val);
	return 0;
}

static struct fairq_sched_ops extfifo_ops;

static int extfifo_set_max_waking(u64 val)
{
	WRITE_ONCE(extfifo_max_waking, val);
	return fairq_requeue_all(&extfifo_ops);	/* pools take the new cap */
}

static const struct fairq_tunable extfifo_tunables[] = {
	FAIRQ_TUNABLE("max_waking", "threads per pool woken but not yet running (0: no cap)", 0,
		      EXTFIFO_MAX_WAKING, 0, extfifo_get_max_waking, extfifo_set_max_waking),
	FAIRQ_TUNABLE("strand_ms", "misbehave: hide a queue head this long (0: never)",
		      0, 10000, 0, extfifo_get_strand_ms, extfifo_set_strand_ms),
	{ }
};

static struct fairq_sched_ops extfifo_ops = {	/* named at load */
	.owner		= THIS_MODULE,
	.priv_size	= sizeof(struct extfifo_pool),
	.init_pool	= extfifo_init_pool,
	.enqueue	= extfifo_enqueue,
	.pick		= extfifo_pick,
	.has_work	= extfifo_has_work,
	.drain		= fairq_qfifo_drain,
	.remove		= fairq_qfifo_remove,
	.counters	= extfifo_counters,
	.tunables	= extfifo_tunables,
	.wake		= &extfifo_wake,
};

/* Charged work the core could never give back: fairq must refuse the policy. */
static void *extfifo_charge(struct fairq_pool *fp, struct svc_xprt *xprt, bool dispatched)
{
	return fp;
}

static int __init extfifo_init(void)
{
	struct fairq_sched_ops broken = extfifo_ops;
	int err;

	broken.name = "extbroken";
	broken.alias = NULL;
	broken.charge = extfifo_charge;
	err = fairq_register_sched(&broken);
	if (err != -EINVAL) {
		pr_err("a policy with charge but no uncharge was not refused (%d)\n", err);
		if (!err)
			fairq_unregister_sched(&broken);
		return -EINVAL;
	}
	extfifo_ops.name = name;
	extfifo_ops.alias = alias;
	return fairq_register_sched(&extfifo_ops);
}

static void __exit extfifo_exit(void)
{
	fairq_unregister_sched(&extfifo_ops);
}

module_init(extfifo_init);
module_exit(extfifo_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Test-only: a fairq dispatch policy in a module of its own");
