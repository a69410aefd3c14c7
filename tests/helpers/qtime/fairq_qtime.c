// SPDX-License-Identifier: GPL-2.0-only
/*
 * fairq_qtime: a test-only module that measures nfsd's queue-to-pickup time: from the moment
 * a connection with data becomes ready (svc_xprt_enqueue() finds it idle) to the moment some
 * context starts reading it (svc_tcp_recvfrom()).  Both points are the same whichever path
 * dispatches the transport (the kernel's own, fairq's queue feeding nfsd's threads, or wq's
 * workers), so the paths are compared on equal terms.  The callbacks only observe (no
 * IPMODIFY), so they coexist with fairq's redirect of svc_xprt_enqueue().
 *
 *   /sys/kernel/debug/fairq_qtime/hist    "lower_us upper_us count" per non-empty bucket,
 *                                         then "# samples N collisions N stale N"
 *   writing anything to it starts afresh
 *
 * Buckets: exact below 16 us, then eight per power of two (at most 12.5% wide).
 *
 * Where svc_recv() still returns what it got (before 6.6), a return probe also counts nfsd's
 * passes through it: those that brought no request (-EAGAIN: the pool was empty, or the
 * transport taken held no complete record), those in which the thread slept (its voluntary
 * context switches moved: it was woken, or timed out), and both at once: "a wakeup that found
 * no work" (Banks, 2009), counted the same way whichever scheduler woke the thread.
 *
 *   /sys/kernel/debug/fairq_qtime/passes  "passes N empty N woken N woken_empty N missed N",
 *                                         cumulative (missed: calls the probe had no slot for)
 *
 * hist=0 leaves the two ftrace callbacks (and their lock on every enqueue) out, for runs that
 * only count passes.
 */
#include <linux/debugfs.h>
#include <linux/ftrace.h>
#include <linux/hash.h>
#include <linux/kprobes.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <linux/sunrpc/svc.h>
#include <linux/sunrpc/svc_xprt.h>
#include "compat/compat.h"

#define SLOT_BITS	12
#define EXACT_US	16
#define SUB_BITS	3
#define NR_BUCKETS	(EXACT_US + (32 - 4) * (1 << SUB_BITS))
#define STALE_NS	(10ULL * NSEC_PER_SEC)

/* One pending timestamp per transport, direct-mapped by address: a collision is counted. */
struct pending {
	const struct svc_xprt *xprt;
	u64 since;
};

static struct pending pending[1 << SLOT_BITS];
static u64 hist[NR_BUCKETS];
static u64 samples, collisions, stale;
static DEFINE_SPINLOCK(qtime_lock);
static struct dentry *qtime_dir;

static bool hist_on = true;
module_param_named(hist, hist_on, bool, 0400);
MODULE_PARM_DESC(hist, "measure queue-to-pickup times (default on)");

static unsigned int bucket_of(u64 us)
{
	unsigned int msb;

	if (us < EXACT_US)
		return us;
	us = min_t(u64, us, U32_MAX);
	msb = fls64(us) - 1;
	return EXACT_US + (msb - 4) * (1 << SUB_BITS) +
	       ((us >> (msb - SUB_BITS)) & ((1 << SUB_BITS) - 1));
}

static u64 bucket_lower(unsigned int b)
{
	unsigned int msb, sub;

	if (b < EXACT_US)
		return b;
	msb = (b - EXACT_US) / (1 << SUB_BITS) + 4;
	sub = (b - EXACT_US) % (1 << SUB_BITS);
	return (1ULL << msb) + ((u64)sub << (msb - SUB_BITS));
}

/* Only nfsd's connections: lockd and the callback service are not dispatched by fairq. */
static bool watched(const struct svc_xprt *xprt)
{
	const struct svc_serv *serv = xprt->xpt_server;

	return serv && serv->sv_name && !strcmp(serv->sv_name, "nfsd") &&
	       !test_bit(XPT_LISTENER, &xprt->xpt_flags);
}

static void notrace on_enqueue(unsigned long ip, unsigned long parent_ip,
			       struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	const struct svc_xprt *xprt = (const void *)fairq_fregs_arg0(fregs);
	unsigned long flags = READ_ONCE(xprt->xpt_flags);
	struct pending *p = &pending[hash_ptr(xprt, SLOT_BITS)];
	unsigned long irq;
	u64 now;

	/* busy: it is not queued now, its reader re-enqueues it when done */
	if (!(flags & BIT(XPT_DATA)) || (flags & (BIT(XPT_BUSY) | BIT(XPT_CLOSE))) ||
	    !watched(xprt))
		return;
	now = ktime_get_ns();
	spin_lock_irqsave(&qtime_lock, irq);
	if (p->xprt && p->xprt != xprt && now - p->since > STALE_NS) {
		stale++;		/* its transport went away unread */
		p->xprt = NULL;
	}
	if (!p->xprt) {
		p->xprt = xprt;
		p->since = now;
	} else if (p->xprt != xprt) {
		collisions++;
	}
	spin_unlock_irqrestore(&qtime_lock, irq);
}

static void notrace on_recvfrom(unsigned long ip, unsigned long parent_ip,
				struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	const struct svc_rqst *rqstp = (const void *)fairq_fregs_arg0(fregs);
	const struct svc_xprt *xprt = rqstp->rq_xprt;
	struct pending *p;
	unsigned long irq;
	u64 now, waited;

	if (!xprt)
		return;
	p = &pending[hash_ptr(xprt, SLOT_BITS)];
	now = ktime_get_ns();
	spin_lock_irqsave(&qtime_lock, irq);
	if (p->xprt == xprt) {
		waited = now - p->since;
		p->xprt = NULL;
		if (waited > STALE_NS) {
			stale++;
		} else {
			hist[bucket_of(div_u64(waited, NSEC_PER_USEC))]++;
			samples++;
		}
	}
	spin_unlock_irqrestore(&qtime_lock, irq);
}

static struct ftrace_ops enqueue_ops = { .func = on_enqueue };
static struct ftrace_ops recvfrom_ops = { .func = on_recvfrom };

#ifdef FAIRQ_HAVE_SVC_RQST_ALLOC
static atomic64_t recv_passes, recv_empty, recv_woken, recv_woken_empty;

/* what the thread had done when it entered svc_recv() */
struct recv_entry {
	unsigned long nvcsw;
};

static int on_recv_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct recv_entry *entry = (struct recv_entry *)ri->data;

	/* lockd and the NFSv4 callback service call svc_recv() too: not counted */
	if (strcmp(current->comm, "nfsd"))
		return 1;
	entry->nvcsw = current->nvcsw;
	return 0;
}

static int on_recv_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	const struct recv_entry *entry = (const struct recv_entry *)ri->data;
	/* it went to sleep in there: this pass began with a wakeup (or a timeout) */
	bool woken = current->nvcsw != entry->nvcsw;
	/* an int in the return register: its upper half is not sign-extended */
	bool empty = (int)regs_return_value(regs) == -EAGAIN;

	atomic64_inc(&recv_passes);
	if (woken)
		atomic64_inc(&recv_woken);
	if (empty)
		atomic64_inc(&recv_empty);
	if (woken && empty)
		atomic64_inc(&recv_woken_empty);
	return 0;
}

/*
 * Every idle nfsd thread sleeps inside svc_recv() holding an instance, so there must be one
 * per thread the benchmarks start (scenario 5: 128), with room to spare.
 */
static struct kretprobe recv_probe = {
	.kp.symbol_name = "svc_recv",
	.entry_handler = on_recv_entry,
	.handler = on_recv_return,
	.data_size = sizeof(struct recv_entry),
	.maxactive = 1024,
};

static int passes_show(struct seq_file *m, void *v)
{
	seq_printf(m, "passes %lld empty %lld woken %lld woken_empty %lld missed %d\n",
		   (long long)atomic64_read(&recv_passes), (long long)atomic64_read(&recv_empty),
		   (long long)atomic64_read(&recv_woken),
		   (long long)atomic64_read(&recv_woken_empty), READ_ONCE(recv_probe.nmissed));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(passes);

static int passes_start(void)
{
	int err = register_kretprobe(&recv_probe);

	if (err)
		pr_err("cannot probe svc_recv: %d\n", err);
	return err;
}

static void passes_stop(void)
{
	unregister_kretprobe(&recv_probe);
}
#else
/* svc_recv() returns nothing from 6.6 on: there is no return value to count */
static int passes_start(void)
{
	return 0;
}

static void passes_stop(void)
{
}
#endif

static int hist_show(struct seq_file *m, void *v)
{
	u64 *copy, n, c, s, st;
	unsigned int b;

	copy = kmalloc_array(NR_BUCKETS, sizeof(*copy), GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	spin_lock_irq(&qtime_lock);
	memcpy(copy, hist, sizeof(hist));
	n = samples;
	c = collisions;
	st = stale;
	spin_unlock_irq(&qtime_lock);
	for (b = 0; b < NR_BUCKETS; b++) {
		if (!copy[b])
			continue;
		s = b + 1 < NR_BUCKETS ? bucket_lower(b + 1) : U64_MAX;
		seq_printf(m, "%llu %llu %llu\n", bucket_lower(b), s, copy[b]);
	}
	seq_printf(m, "# samples %llu collisions %llu stale %llu\n", n, c, st);
	kfree(copy);
	return 0;
}

static int hist_open(struct inode *inode, struct file *file)
{
	return single_open(file, hist_show, NULL);
}

static ssize_t hist_write(struct file *file, const char __user *buf, size_t len, loff_t *pos)
{
	spin_lock_irq(&qtime_lock);
	memset(hist, 0, sizeof(hist));
	memset(pending, 0, sizeof(pending));
	samples = 0;
	collisions = 0;
	stale = 0;
	spin_unlock_irq(&qtime_lock);
	return len;
}

static const struct file_operations hist_fops = {
	.owner = THIS_MODULE,
	.open = hist_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.write = hist_write,
	.release = single_release,
};

static int observe(struct ftrace_ops *ops, unsigned char *name)
{
	int err = ftrace_set_filter(ops, name, strlen((char *)name), 0);

	if (!err)
		err = register_ftrace_function(ops);
	if (err) {
		pr_err("cannot watch %s: %d\n", name, err);
		ftrace_free_filter(ops);
	}
	return err;
}

static void unobserve(struct ftrace_ops *ops)
{
	unregister_ftrace_function(ops);
	ftrace_free_filter(ops);
}

static int __init qtime_init(void)
{
	int err;

	if (hist_on) {
		err = observe(&enqueue_ops, (unsigned char *)"svc_xprt_enqueue");
		if (err)
			return err;
		err = observe(&recvfrom_ops, (unsigned char *)"svc_tcp_recvfrom");
		if (err)
			goto out_enqueue;
	}
	err = passes_start();
	if (err)
		goto out_recvfrom;
	qtime_dir = debugfs_create_dir("fairq_qtime", NULL);
	if (hist_on)
		debugfs_create_file("hist", 0600, qtime_dir, NULL, &hist_fops);
#ifdef FAIRQ_HAVE_SVC_RQST_ALLOC
	debugfs_create_file("passes", 0400, qtime_dir, NULL, &passes_fops);
#endif
	return 0;

out_recvfrom:
	if (hist_on)
		unobserve(&recvfrom_ops);
out_enqueue:
	if (hist_on)
		unobserve(&enqueue_ops);
	return err;
}

static void __exit qtime_exit(void)
{
	debugfs_remove_recursive(qtime_dir);
	passes_stop();
	if (hist_on) {
		unobserve(&recvfrom_ops);
		unobserve(&enqueue_ops);
	}
}

module_init(qtime_init);
module_exit(qtime_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("fairq test helper: nfsd queue-to-pickup time, whatever dispatches");
