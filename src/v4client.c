// SPDX-License-Identifier: GPL-2.0-only
/*
 * Which NFSv4.1 client owns a connection, for keys that group by client.
 *
 * sunrpc knows nothing of NFSv4 clients; nfsd learns the owner of a connection from the
 * SEQUENCE operation that opens nearly every v4.1 compound.  A SEQUENCE names a session, and
 * nfsd builds every session id from its client id (the first 8 bytes; the rest is a counter),
 * so the session id names the client: no nfsd structure is ever read.  A return probe on
 * nfsd4_sequence records, per transport, the client id of the last SEQUENCE nfsd accepted on
 * it.  Only an accepted one counts: nfsd found the session by its whole id, so the session
 * exists and belongs to that client.  A SEQUENCE with a forged, stale or someone else's
 * session id fails there and binds nothing (its connection stays keyed by address), so a
 * client cannot charge another client's key.  Client ids themselves are cheap to create, so
 * the ids bound per client address are bounded too (V4B_IDS_PER_PEER).  Transports
 * that never carried an accepted one (NFSv3, NFSv4.0, a v4.1 connection before its first
 * SEQUENCE) have no binding and are keyed by address.
 *
 * The probe is registered only while a policy asks for client keys, and again whenever the
 * nfsd module is loaded anew.  Bindings are looked up under RCU from any context; they are
 * added on a connection's first accepted SEQUENCE (the only allocations, GFP_ATOMIC, bounded
 * in number overall and per client address) and forgotten when unused for a while.  A binding
 * is never trusted for a transport with another peer address, so a recycled transport pointer
 * cannot borrow a stale owner.
 */
#include <linux/hashtable.h>
#include <linux/jhash.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/ptrace.h>
#include <linux/slab.h>
#include <linux/sunrpc/svc.h>
#include <linux/sunrpc/svc_xprt.h>
#include <linux/workqueue.h>
#include "core.h"
#include "nfsd.h"
#include "v4client.h"
#include "testing.h"

#define V4B_HASH_BITS	12
#define V4B_MAX		65536		/* the 50,000 connections the product is sized for */
#define V4B_PER_PEER	1024		/* per client address: no one address fills the table */
/*
 * Distinct client ids bound per client address.  Anyone can create client ids (EXCHANGE_ID
 * and CREATE_SESSION need no more than AUTH_SYS), each a key of its own: a host that mints
 * them has no more than this many keys (and its address's), while hosts behind one NAT
 * address, or containers with their own NFS client identity, keep one key each up to it.
 */
#define V4B_IDS_PER_PEER	16
#define V4B_TTL		(600 * HZ)	/* longer than any client's lease renewal interval */
#define V4B_PROBES	128		/* nfsd threads in nfsd4_sequence at once, tracked */

/* The bound connections of one client address, and the client ids they are bound to. */
struct v4_peer {
	struct hlist_node node;
	u8 addr[16];			/* IPv4 in the first 4 bytes */
	unsigned int nr;		/* bindings */
	unsigned int nr_ids;
	struct {
		u64 clientid;
		unsigned int bindings;
	} ids[V4B_IDS_PER_PEER];
};

struct v4_binding {
	struct hlist_node node;
	struct rcu_head rcu;
	struct v4_peer *owner;		/* its address's count */
	const struct svc_xprt *xprt;
	struct sockaddr_in6 peer;	/* the transport's peer when bound (IPv4 fits) */
	u64 clientid;			/* as /proc/fs/nfsd/clients/N/info prints it */
	unsigned long seen;		/* jiffies of the last SEQUENCE */
};

static DEFINE_HASHTABLE(bindings, V4B_HASH_BITS);
static DEFINE_HASHTABLE(peers, V4B_HASH_BITS);	/* under bindings_lock only */
static DEFINE_SPINLOCK(bindings_lock);		/* writers only; one add per connection */
static unsigned int nr_bindings;
static atomic64_t bindings_skipped;	/* table or address full, or no memory: keyed by address */
static atomic64_t sequences_refused;	/* SEQUENCEs nfsd refused: nothing learnt from them */

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
EXPORT_SYMBOL_GPL(fairq_v4client_of);

/* The client address of @xprt, port and scope left out (v4-mapped IPv6 kept as it is). */
static void peer_addr(const struct svc_xprt *xprt, u8 addr[16])
{
	const struct sockaddr *sa = (const struct sockaddr *)&xprt->xpt_remote;

	memset(addr, 0, 16);
	if (sa->sa_family == AF_INET)
		memcpy(addr, &((const struct sockaddr_in *)sa)->sin_addr, 4);
	else if (sa->sa_family == AF_INET6)
		memcpy(addr, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
}

static struct v4_peer *peer_find(const u8 addr[16])
	__must_hold(&bindings_lock)
{
	struct v4_peer *p;

	hash_for_each_possible(peers, p, node, jhash(addr, 16, 0)) {
		if (!memcmp(p->addr, addr, 16))
			return p;
	}
	return NULL;
}

/* The slot of @clientid among @p's ids, or -1. */
static int peer_id(const struct v4_peer *p, u64 clientid)
{
	unsigned int i;

	for (i = 0; i < p->nr_ids; i++) {
		if (p->ids[i].clientid == clientid)
			return i;
	}
	return -1;
}

static void binding_del(struct v4_binding *b)
	__must_hold(&bindings_lock)
{
	struct v4_peer *p = b->owner;
	int i = peer_id(p, b->clientid);

	hash_del_rcu(&b->node);
	WRITE_ONCE(nr_bindings, nr_bindings - 1);	/* read without the lock */
	if (!WARN_ON_ONCE(i < 0) && !--p->ids[i].bindings)
		p->ids[i] = p->ids[--p->nr_ids];
	if (!--p->nr) {
		hash_del(&p->node);
		kfree(p);
	}
	kfree_rcu(b, rcu);
}

/*
 * A binding of @xprt to @clientid, whose address has @p (NULL: none yet) bound connections:
 * within the table's and the address's bounds, and if memory allows.
 */
static struct v4_binding *binding_new(struct v4_peer *p, const u8 addr[16], u64 clientid)
	__must_hold(&bindings_lock)
{
	struct v4_binding *b;
	int i = p ? peer_id(p, clientid) : -1;

	if (nr_bindings >= V4B_MAX || (p && p->nr >= V4B_PER_PEER) ||
	    (p && i < 0 && p->nr_ids >= V4B_IDS_PER_PEER) ||
	    fairq_test_fail(FAIRQ_TEST_FAIL_V4BINDING))
		return NULL;
	b = kzalloc(sizeof(*b), GFP_ATOMIC | __GFP_NOWARN);
	if (!b)
		return NULL;
	if (!p) {
		p = kzalloc(sizeof(*p), GFP_ATOMIC | __GFP_NOWARN);
		if (!p) {
			kfree(b);
			return NULL;
		}
		memcpy(p->addr, addr, 16);
		hash_add(peers, &p->node, jhash(addr, 16, 0));
	}
	if (i < 0) {
		i = p->nr_ids++;
		p->ids[i].clientid = clientid;
		p->ids[i].bindings = 0;
	}
	p->ids[i].bindings++;
	p->nr++;
	b->owner = p;
	b->clientid = clientid;
	return b;
}

static void learn(const struct svc_xprt *xprt, u64 clientid)
{
	struct v4_binding *b;
	unsigned long flags;
	u8 addr[16];

	rcu_read_lock();
	b = find(xprt);
	if (b && same_peer(b, xprt) && READ_ONCE(b->clientid) == clientid) {
		WRITE_ONCE(b->seen, jiffies);	/* the common case: nothing changes */
		rcu_read_unlock();
		return;
	}
	rcu_read_unlock();

	peer_addr(xprt, addr);
	spin_lock_irqsave(&bindings_lock, flags);
	b = find(xprt);
	if (b)
		binding_del(b);
	b = binding_new(peer_find(addr), addr, clientid);
	if (b) {
		b->xprt = xprt;
		memcpy(&b->peer, &xprt->xpt_remote,
		       min_t(size_t, xprt->xpt_remotelen, sizeof(b->peer)));
		b->seen = jiffies;
		hash_add_rcu(bindings, &b->node, (unsigned long)xprt);
		WRITE_ONCE(nr_bindings, nr_bindings + 1);
	} else {
		atomic64_inc(&bindings_skipped);
	}
	spin_unlock_irqrestore(&bindings_lock, flags);
}

/**
 * fairq_v4client_forget - @xprt is closing: its binding goes now, not when it expires
 * @xprt: a transport of a managed service
 *
 * Frees its place in the bounds of its client address at once (clients that come and go).
 */
void fairq_v4client_forget(const struct svc_xprt *xprt)
{
	struct v4_binding *b;
	unsigned long flags;

	if (!READ_ONCE(nr_bindings))
		return;
	spin_lock_irqsave(&bindings_lock, flags);
	b = find(xprt);
	if (b)
		binding_del(b);
	spin_unlock_irqrestore(&bindings_lock, flags);
}

/* What nfsd4_sequence(rqstp, cstate, u) was called with, kept until it returns. */
struct sequence_call {
	struct svc_rqst *rqstp;
	const void *args;	/* the operation's arguments: they start with the session id */
};

static int notrace sequence_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct sequence_call *call = (struct sequence_call *)ri->data;

	call->rqstp = (struct svc_rqst *)regs_get_kernel_argument(regs, 0);
	call->args = (const void *)regs_get_kernel_argument(regs, 2);
	if (!call->rqstp || !call->args || !call->rqstp->rq_xprt ||
	    !fairq_serv_is_managed(call->rqstp->rq_server))
		return 1;	/* no return probe for this call */
	return 0;
}

/*
 * nfsd4_sequence() returned: nfs_ok means nfsd found the session by its whole id (and, on a
 * replay, the cached reply of that session's slot), so the session id's client id is the
 * owner of the session this connection now serves.  The arguments outlive the operation: they
 * belong to the compound.
 */
static int notrace sequence_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	const struct sequence_call *call = (const struct sequence_call *)ri->data;
	/* a 32-bit return value: the register's upper half is not part of it */
	__be32 status = (__force __be32)(u32)regs_return_value(regs);
	u64 clientid;

	if (status) {
		atomic64_inc(&sequences_refused);
		return 0;
	}
	memcpy(&clientid, call->args, sizeof(clientid));
	learn(call->rqstp->rq_xprt, clientid);
	return 0;
}

static struct kretprobe sequence_krp;
static void probe_register(void)
{
	int err;

	memset(&sequence_krp, 0, sizeof(sequence_krp));
	sequence_krp.kp.symbol_name = "nfsd4_sequence";
	sequence_krp.entry_handler = sequence_entry;
	sequence_krp.handler = sequence_return;
	sequence_krp.data_size = sizeof(struct sequence_call);
	sequence_krp.maxactive = V4B_PROBES;
	err = register_kretprobe(&sequence_krp);
	probe_registered = !err;
	if (err)
		pr_info("NFSv4.1 client keys wait for nfsd (cannot probe nfsd4_sequence: %d); v4.1 connections are keyed by address until then\n",
			err);
}

static void probe_unregister(void)
{
	if (!probe_registered)
		return;
	unregister_kretprobe(&sequence_krp);
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
EXPORT_SYMBOL_GPL(fairq_v4client_want);

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
		if (time_after(jiffies, READ_ONCE(b->seen) + V4B_TTL))
			binding_del(b);
	}
	spin_unlock_irq(&bindings_lock);
	schedule_delayed_work(&gc_work, V4B_TTL / 4);
}

/* Connections bound to a client id now. */
unsigned int fairq_v4client_bound(void)
{
	return READ_ONCE(nr_bindings);
}

/* Accepted first SEQUENCEs that found the table or their address full, or no memory. */
u64 fairq_v4client_skipped(void)
{
	return atomic64_read(&bindings_skipped);
}

/* SEQUENCEs nfsd refused (a forged or stale session id among them): nothing learnt. */
u64 fairq_v4client_refused(void)
{
	return atomic64_read(&sequences_refused);
}

/* SEQUENCEs not seen, more at once than the return probe tracks (V4B_PROBES). */
u64 fairq_v4client_missed(void)
{
	/* a statistic the kretprobe core counts with plain increments */
	return data_race(sequence_krp.nmissed);
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
	spin_lock_irq(&bindings_lock);
	hash_for_each_safe(bindings, i, tmp, b, node)
		binding_del(b);
	spin_unlock_irq(&bindings_lock);
	rcu_barrier();		/* their kfree_rcu, and those of replaced bindings */
}
