// SPDX-License-Identifier: GPL-2.0-only
/*
 * Which NFSv4.1 client owns a connection, for keys that group by client.
 *
 * sunrpc knows nothing of NFSv4 clients; nfsd learns the owner of a connection from the
 * SEQUENCE operation that opens nearly every v4.1 compound.  A SEQUENCE names a session, and
 * nfsd builds every session id from its client id (the first 8 bytes; the rest is a counter),
 * so the session id alone names the client: no nfsd structure is ever read.  A probe on
 * nfsd4_sequence records, per transport, the client id of the last SEQUENCE it carried.
 * Transports that never carried one (NFSv3, NFSv4.0, a v4.1 connection before its first
 * SEQUENCE) have no binding and are keyed by address.
 *
 * The probe is registered only while a policy asks for client keys, and again whenever the
 * nfsd module is loaded anew.  Bindings are looked up under RCU from any context; they are
 * added on a connection's first SEQUENCE (the only allocation, GFP_ATOMIC, bounded in
 * number) and forgotten when unused for a while.  A binding is never trusted for a transport
 * with another peer address, so a recycled transport pointer cannot borrow a stale owner.
 */
#include <linux/hashtable.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/ptrace.h>
#include <linux/slab.h>
#include <linux/sunrpc/svc.h>
#include <linux/sunrpc/svc_xprt.h>
#include <linux/workqueue.h>
#include "fairq.h"

#define V4B_HASH_BITS	12
#define V4B_MAX		65536		/* the 50,000 connections the product is sized for */
#define V4B_TTL		(600 * HZ)	/* longer than any client's lease renewal interval */

struct v4_binding {
	struct hlist_node node;
	struct rcu_head rcu;
	const struct svc_xprt *xprt;
	struct sockaddr_in6 peer;	/* the transport's peer when bound (IPv4 fits) */
	u64 clientid;			/* as /proc/fs/nfsd/clients/N/info prints it */
	unsigned long seen;		/* jiffies of the last SEQUENCE */
};

static DEFINE_HASHTABLE(bindings, V4B_HASH_BITS);
static DEFINE_SPINLOCK(bindings_lock);		/* writers only; one add per connection */
static unsigned int nr_bindings;
static atomic64_t bindings_skipped;		/* full table or no memory: keyed by address */

static DEFINE_MUTEX(probe_mutex);
static bool probe_wanted, probe_registered;

static bool same_peer(const struct v4_binding *b, const struct svc_xprt *xprt)
{
	size_t len = min_t(size_t, xprt->xpt_remotelen, sizeof(b->peer));

	return !memcmp(&b->peer, &xprt->xpt_remote, len);
}

static struct v4_binding *find(const struct svc_xprt *xprt)
{
	struct v4_binding *b;

	hash_for_each_possible_rcu(bindings, b, node, (unsigned long)xprt) {
		if (b->xprt == xprt)
			return b;
	}
	return NULL;
}

/**
 * fairq_v4client_of - the NFSv4.1 client that last used @xprt
 * @xprt: a transport of a managed service
 * @clientid: set to the client id when there is one
 *
 * Return: true if @xprt carried a SEQUENCE recently.
 */
bool fairq_v4client_of(const struct svc_xprt *xprt, u64 *clientid)
{
	struct v4_binding *b;
	bool found = false;

	rcu_read_lock();
	b = find(xprt);
	if (b && same_peer(b, xprt)) {
		*clientid = READ_ONCE(b->clientid);
		found = true;
	}
	rcu_read_unlock();
	return found;
}

static void learn(const struct svc_xprt *xprt, u64 clientid)
{
	struct v4_binding *b, *stale = NULL;
	unsigned long flags;

	rcu_read_lock();
	b = find(xprt);
	if (b && same_peer(b, xprt) && READ_ONCE(b->clientid) == clientid) {
		WRITE_ONCE(b->seen, jiffies);	/* the common case: nothing changes */
		rcu_read_unlock();
		return;
	}
	rcu_read_unlock();

	spin_lock_irqsave(&bindings_lock, flags);
	b = find(xprt);
	if (b) {
		hash_del_rcu(&b->node);
		nr_bindings--;
		stale = b;
	}
	b = NULL;
	if (nr_bindings < V4B_MAX)
		b = kzalloc(sizeof(*b), GFP_ATOMIC | __GFP_NOWARN);
	if (b) {
		b->xprt = xprt;
		memcpy(&b->peer, &xprt->xpt_remote,
		       min_t(size_t, xprt->xpt_remotelen, sizeof(b->peer)));
		b->clientid = clientid;
		b->seen = jiffies;
		hash_add_rcu(bindings, &b->node, (unsigned long)xprt);
		nr_bindings++;
	} else {
		atomic64_inc(&bindings_skipped);
	}
	spin_unlock_irqrestore(&bindings_lock, flags);
	if (stale)
		kfree_rcu(stale, rcu);
}

/*
 * nfsd4_sequence(rqstp, cstate, u): the operation's arguments start with the session id,
 * whose first 8 bytes are the owner's client id.
 */
static int notrace sequence_probe(struct kprobe *p, struct pt_regs *regs)
{
	struct svc_rqst *rqstp = (struct svc_rqst *)regs_get_kernel_argument(regs, 0);
	const void *args = (const void *)regs_get_kernel_argument(regs, 2);
	u64 clientid;

	if (!rqstp || !args || !rqstp->rq_xprt || !fairq_serv_is_managed(rqstp->rq_server))
		return 0;
	memcpy(&clientid, args, sizeof(clientid));
	learn(rqstp->rq_xprt, clientid);
	return 0;
}

static struct kprobe sequence_kp;

static void probe_register(void)
{
	int err;

	memset(&sequence_kp, 0, sizeof(sequence_kp));
	sequence_kp.symbol_name = "nfsd4_sequence";
	sequence_kp.pre_handler = sequence_probe;
	err = register_kprobe(&sequence_kp);
	probe_registered = !err;
	if (err)
		pr_info("NFSv4.1 client keys wait for nfsd (cannot probe nfsd4_sequence: %d); v4.1 connections are keyed by address until then\n",
			err);
}

static void probe_unregister(void)
{
	if (!probe_registered)
		return;
	unregister_kprobe(&sequence_kp);
	probe_registered = false;
}

/**
 * fairq_v4client_want - start or stop learning connection owners
 * @on: whether a policy groups by NFSv4.1 client
 *
 * Never fails: without nfsd loaded, learning starts when it loads.
 */
void fairq_v4client_want(bool on)
{
	mutex_lock(&probe_mutex);
	probe_wanted = on;
	if (on && !probe_registered)
		probe_register();
	else if (!on)
		probe_unregister();
	mutex_unlock(&probe_mutex);
}

/* nfsd loaded anew: a probe on the old module's text is dead, set it again. */
static int module_event(struct notifier_block *nb, unsigned long action, void *data)
{
	struct module *mod = data;

	if (strcmp(mod->name, "nfsd"))
		return NOTIFY_DONE;
	mutex_lock(&probe_mutex);
	if (action == MODULE_STATE_GOING)
		probe_unregister();
	else if (action == MODULE_STATE_LIVE && probe_wanted && !probe_registered)
		probe_register();
	mutex_unlock(&probe_mutex);
	return NOTIFY_DONE;
}

static struct notifier_block module_nb = { .notifier_call = module_event };

/* Bindings not refreshed for V4B_TTL are dropped: their transports are gone or idle. */
static void gc_work_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(gc_work, gc_work_fn);

static void gc_work_fn(struct work_struct *work)
{
	struct v4_binding *b;
	struct hlist_node *tmp;
	unsigned int i;

	spin_lock_irq(&bindings_lock);
	hash_for_each_safe(bindings, i, tmp, b, node) {
		if (time_after(jiffies, READ_ONCE(b->seen) + V4B_TTL)) {
			hash_del_rcu(&b->node);
			nr_bindings--;
			kfree_rcu(b, rcu);
		}
	}
	spin_unlock_irq(&bindings_lock);
	schedule_delayed_work(&gc_work, V4B_TTL / 4);
}

/**
 * fairq_v4client_stats - how many connections are bound, and how many could not be
 * @bound: connections with a known owner
 * @skipped: first SEQUENCEs that found the table full or no memory
 */
void fairq_v4client_stats(unsigned int *bound, u64 *skipped)
{
	*bound = READ_ONCE(nr_bindings);
	*skipped = atomic64_read(&bindings_skipped);
}

int fairq_v4client_init(void)
{
	int err = register_module_notifier(&module_nb);

	if (err)
		return err;
	schedule_delayed_work(&gc_work, V4B_TTL / 4);
	return 0;
}

void fairq_v4client_exit(void)
{
	struct v4_binding *b;
	struct hlist_node *tmp;
	unsigned int i;

	fairq_v4client_want(false);
	unregister_module_notifier(&module_nb);
	cancel_delayed_work_sync(&gc_work);
	/* unregister_kprobe waited for running handlers; readers run under the pool locks */
	synchronize_rcu();
	hash_for_each_safe(bindings, i, tmp, b, node) {
		hash_del(&b->node);
		kfree(b);
	}
	nr_bindings = 0;
	rcu_barrier();		/* kfree_rcu of replaced bindings */
}
