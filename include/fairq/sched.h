/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The scheduler interface of fairq: what a dispatch policy implements.
 *
 * A policy decides in which order the ready transports of one nfsd thread pool are handed to
 * that pool's threads.  The core owns everything else: taking transports from svc_xprt_enqueue,
 * feeding the kernel's pool queue one transport at a time, waking threads, switching policies
 * and draining on unload.  Every op below is called with the pool's fairq lock held (bottom
 * halves off) and must not sleep; none may fail.
 *
 * This header is the whole interface (with <fairq/sched-own.h> for a policy that runs requests
 * in contexts of its own): a policy includes it and nothing of fairq's internals, and may live
 * in a module of its own (set @owner; fairq holds a reference on that module
 * while the policy is active, so it cannot be unloaded under live pools).
 */
#ifndef _FAIRQ_SCHED_H
#define _FAIRQ_SCHED_H

#include <linux/bug.h>
#include <linux/types.h>
#include <linux/list.h>
#include <linux/spinlock_types.h>
#include <linux/sysfs.h>
#include <fairq/xlist.h>
#include <uapi/linux/fairq.h>

struct fairq_pool;
struct module;
struct svc_xprt;
struct svc_rqst;
struct svc_serv;
struct task_struct;

/* Room for a policy's per-pool state, inside struct fairq_pool: switching never allocates. */
#define FAIRQ_SCHED_PRIV_BYTES	2048

/* A name's room with its NUL; the limits are netlink's (uapi). */
#define FAIRQ_SCHED_NAME_MAX	(FAIRQ_SCHED_NAME_LEN + 1)

/**
 * struct fairq_tunable - one setting of a policy, shown as /sys/kernel/fairq/<sched>/<name>
 * and over netlink
 * @name: file name.
 * @doc: one line for fairqctl and the docs.
 * @min: smallest accepted value.
 * @max: largest accepted value; anything outside [min, max] is refused with -EINVAL.
 * @get: current value.
 * @set: apply a value already range-checked; called with fairq_sched_mutex held, may sleep;
 *	returns 0 or a negative errno (the value is then unchanged).
 * @def: the value at load, within [min, max]: what a reset writes back.
 */
struct fairq_tunable {
	const char *name;
	const char *doc;
	u64 min;
	u64 max;
	u64 (*get)(void);
	int (*set)(u64 val);
	u64 def;
};

/**
 * struct fairq_key_id - which clients a key (or a weight) stands for
 * @type: enum fairq_key_type (uapi): what a keyed policy groups transports by.
 * @family: AF_INET or AF_INET6 for address and subnet keys, 0 otherwise.
 * @prefix_len: for subnet keys.
 * @port: connection keys: the client's source port (network order); 0 otherwise.
 * @addr: the client address (IPv4 in the first 4 bytes; the rest zero), or for v4 clients
 *	the 8-byte client id.
 */
struct fairq_key_id {
	u8 type;
	u8 family;
	u8 prefix_len;
	u8 pad;
	__be16 port;
	u8 addr[FAIRQ_KEY_ADDR_LEN];
};

/* A key as text, as fairqctl writes and reads it: "[IPv6]:port" at most; too long ends in '+'. */
#define FAIRQ_KEY_TEXT_MAX	48
void fairq_key_text(char *buf, size_t len, const struct fairq_key_id *id);

/* One key's accounting, as a keyed policy reports it. */
struct fairq_key_stats {
	struct fairq_key_id id;
	u32 weight;
	u32 queued;		/* transports waiting in the policy */
	u32 in_flight;		/* handed to threads, not yet finished */
	u64 dispatches;		/* requests threads started since the key appeared */
	u64 thread_ns;		/* thread time its requests used */
	char class[FAIRQ_CLASS_NAME_LEN + 1];	/* its QoS class; "" for a policy without */
	/* its waits for its own limit (a class limited per key), in the whole service */
	u64 paced;
	u64 paced_ns;
};

/* Receives one key's accounting; a non-zero return stops the walk. */
typedef int (*fairq_key_fn)(const struct fairq_key_stats *ks, void *arg);

/* Receives one weight as set_weight was given it; a non-zero return stops the walk. */
typedef int (*fairq_weight_fn)(const struct fairq_key_id *id, u32 weight, void *arg);

/**
 * struct fairq_class_spec - a QoS class as set (class-set) or reported (for_each_class)
 * @name: NUL-terminated; "default" is the class of every client no other class takes.
 * @create: a new class (the name must be free), else a change of an existing one.
 * @set_rank, @set_match, @set_limit, @set_burst, @set_weight, @set_reserve, @set_limit_pct,
 * @set_per_key: which of the fields below a change sets (the others keep their value); in a
 *	report, @set_rank is false for the default class.
 * @rank: matching order, lowest first; unique.
 * @nr_match: entries of @match.
 * @match: addresses, subnets or NFSv4.1 client ids (key types addr, subnet, v4client).
 * @limit_rps: requests per second for the whole service, however many pools (0: none).
 * @burst: requests it may start back to back after being quiet (1: evenly spaced).
 * @weight: the class's share of the service's thread time among classes with work, its keys
 *	together (0: none, its keys count one by one, each with its own weight).
 * @reserve_pct: percent of the service's thread time it gets first whenever it has work.
 * @limit_pct: percent of the service's thread time it may use at most (0: none).
 * @per_key: @weight and @limit_rps are each key's, not the class's as a whole.
 */
struct fairq_class_spec {
	char name[FAIRQ_CLASS_NAME_LEN + 1];
	bool create;
	bool set_rank;
	bool set_match;
	bool set_limit;
	bool set_burst;
	bool set_weight;
	bool set_reserve;
	bool set_limit_pct;
	bool set_per_key;
	bool per_key;
	u32 rank;
	u32 nr_match;
	struct fairq_key_id match[FAIRQ_CLASS_MATCH_MAX];
	u32 limit_rps;
	u32 burst;
	u32 weight;
	u32 reserve_pct;
	u32 limit_pct;
};

/* A class's counters in one service (counted only while it has matches or a limit). */
struct fairq_class_stats {
	u64 dispatches;		/* hand-offs of its transports to threads */
	u64 thread_ns;		/* thread time its requests used */
	u64 paced;		/* times one of its keys waited for its limit */
	u64 paced_ns;		/* time its keys waited for its limit, in all */
	u64 reserved;		/* requests started ahead of the others, on its reservation */
	u64 below_ns;		/* time it had work waiting while behind its reservation */
};

/* Receives one class; a non-zero return stops the walk. */
typedef int (*fairq_class_fn)(const struct fairq_class_spec *cls, void *arg);

/* One of a policy's own counters for a pool: @name is a stable identifier (snake_case). */
struct fairq_counter {
	const char *name;
	u64 value;
};

/* At most this many counters per policy: reports copy them under the pool lock, on the stack. */
#define FAIRQ_SCHED_COUNTERS_MAX	20

struct fairq_counters {
	unsigned int nr;
	struct fairq_counter c[FAIRQ_SCHED_COUNTERS_MAX];
};

static inline void fairq_counter_add(struct fairq_counters *cs, const char *name, u64 value)
{
	if (!WARN_ON_ONCE(cs->nr >= FAIRQ_SCHED_COUNTERS_MAX))
		cs->c[cs->nr++] = (struct fairq_counter){ name, value };
}

/*
 * A tunable, as a policy's table lists it:
 *	FAIRQ_TUNABLE("quantum_us", "what it does", 1, 100000, 1000, get_quantum, set_quantum)
 */
#define FAIRQ_TUNABLE(_name, _doc, _min, _max, _def, _get, _set) \
	{ .name = (_name), .doc = (_doc), .min = (_min), .max = (_max), .def = (_def), \
	  .get = (_get), .set = (_set) }

/* What the running kernel's sunrpc does by itself, for a policy's @supported. */
enum fairq_kernel_feature {
	/* a pool wakes one idle thread at a time, the woken one wakes the next (6.7+) */
	FAIRQ_KERNEL_WAKES_ONE_AT_A_TIME,
};

bool fairq_kernel_has(enum fairq_kernel_feature feature);

/* Scheduler flags. */
#define FAIRQ_SCHED_NATIVE	BIT(0)	/* the kernel's own dispatch: fairq's hooks are off */
/*
 * @has_work is true whenever a transport is queued (the policy never holds work back): where
 * a thread must be claimed before work is fed to it (6.1), the core then claims one without
 * asking first.  Without the flag it asks, so that no thread is woken for work held back.
 */
#define FAIRQ_SCHED_ALWAYS_READY	BIT(1)

/**
 * struct fairq_wake_ops - a policy's say over how many of a pool's nfsd threads are on their
 * way to its work (capped: SGI's capped wakeups)
 * @reserve: the core is about to wake an idle thread of @fp for queued work: return whether
 *	it may.  Asked only where a thread is claimed before work is fed to it (6.1: the
 *	kernel wakes one thread per transport); 6.7+ wakes one at a time by itself.  A true
 *	return is always followed by @commit.
 * @commit: the thread woken for the last @reserve (@task), or none after all (NULL).
 * @ran: the current thread of @fp looks for work: if the policy let it be woken, it has
 *	arrived.  Called on every thread's look for work: keep it cheap.
 * @stalled: the watchdog found @fp's queued work waiting for two ticks beside an idle
 *	thread and could not wake one (so @reserve refused, or nothing was claimable): the
 *	policy counts it if it held the work back.  Optional.
 *
 * All are called with the pool's fairq lock held.  A policy with these ops clocks itself: a
 * thread that looks for work while more is queued wakes one more, as far as @reserve lets it.
 */
struct fairq_wake_ops {
	bool (*reserve)(struct fairq_pool *fp);
	void (*commit)(struct fairq_pool *fp, struct task_struct *task);
	void (*ran)(struct fairq_pool *fp);
	void (*stalled)(struct fairq_pool *fp);
};

/**
 * struct fairq_key_ops - a keyed policy: transports grouped by client into keys, with weights
 * @for_each_key: report the pool's keys to @fn (pool lock held, @fn must not sleep), from
 *	the position *@cursor (0: the first key; its encoding is the policy's); stop early and
 *	return @fn's value when it is non-zero, with *@cursor at the key @fn stopped at, so that
 *	a later walk (a netlink dump's next skb) starts with it instead of walking the keys
 *	already reported again.  Keys that come or go in between may be missed or reported
 *	twice.
 * @for_each_weight: report the weights set (@set_weight's, in the order they were set) to @fn,
 *	from the position *@cursor (0: the first); stop early and return @fn's value when it is
 *	non-zero, with *@cursor at the weight @fn stopped at.  Called without locks (the policy
 *	protects its own rules); @fn must not sleep.  Optional, with @set_weight.
 * @picked: for the dispatch tracepoint, right after @pick (same locked step): the key of the
 *	transport it returned and how long that key had waited for the turn, in ns (-1 for
 *	unknown); *@key is used before the pool lock is dropped.  Optional.
 * @set_weight: set the weight of the clients @id stands for, in every pool; 0 restores the
 *	default.  -EALREADY if that is the weight they have (nothing changed).  Called with
 *	fairq_sched_mutex held, may sleep.  Optional.
 * @set_class: make or change a QoS class (struct fairq_class_spec); on an error, *@why says
 *	what was refused, and nothing changed.  fairq_sched_mutex held, may sleep.  Optional.
 * @del_class: delete the class @name; *@why on an error.  As @set_class.
 * @for_each_class: report the classes in matching order (the default class last) from
 *	*@cursor, as @for_each_weight.  With @set_class.
 * @class_stats: add the counters of the class @name in @fp's service to @out (@fp: any pool
 *	of it); nothing for an unknown name.  Called under RCU, no lock.  With @set_class.
 *
 * @for_each_key is mandatory in the group.
 */
struct fairq_key_ops {
	int (*for_each_key)(struct fairq_pool *fp, u64 *cursor, fairq_key_fn fn, void *arg);
	void (*picked)(struct fairq_pool *fp, const struct fairq_key_id **key, s64 *wait_ns);
	int (*set_weight)(const struct fairq_key_id *id, u32 weight);
	int (*for_each_weight)(u64 *cursor, fairq_weight_fn fn, void *arg);
	int (*set_class)(const struct fairq_class_spec *spec, const char **why);
	int (*del_class)(const char *name, const char **why);
	int (*for_each_class)(u64 *cursor, fairq_class_fn fn, void *arg);
	void (*class_stats)(struct fairq_pool *fp, const char *name, struct fairq_class_stats *out);
};

/**
 * struct fairq_own_ops - a policy that runs requests in contexts of its own instead of nfsd's
 * threads (<fairq/sched-own.h> has what those contexts need of the core)
 * @kick: work is queued in @fp, start a context for it (wake or create one); return whether
 *	one was started.  Pool lock held.
 * @has_idle: whether a context of @fp is idle (the watchdog's test for a lost wakeup).
 *	Pool lock held.
 * @pulled: a context (@rqstp, the current task: one of the policy's own, or an nfsd thread)
 *	looks at @fp's queue for work; the core hands it a transport in the same locked step.
 *	A context the policy counts as on its way to the work stops counting here, not
 *	earlier: in between, queued work would look forgotten.  Pool lock held.  Optional.
 * @quiesce: stop every context the policy runs for @serv (every service when NULL), each
 *	after its current request; sleeps.  Called before a service loses its last nfsd thread,
 *	before it is freed, and once the policy is no longer active.  No locks held but
 *	possibly fairq_sched_mutex.
 *
 * The core then never wakes an nfsd thread for the pool's work, except while the service is
 * stopping.  @kick, @has_idle and @quiesce are mandatory in the group.
 */
struct fairq_own_ops {
	bool (*kick)(struct fairq_pool *fp);
	bool (*has_idle)(struct fairq_pool *fp);
	void (*pulled)(struct fairq_pool *fp, struct svc_rqst *rqstp);
	void (*quiesce)(struct svc_serv *serv);
};

/**
 * struct fairq_sched_ops - a dispatch policy
 * @owner: the module the ops live in (THIS_MODULE).
 * @name: what sysfs and netlink call it.
 * @alias: an older name, still accepted wherever a name is written (a switch, a tunable's
 *	"<sched>." prefix, its sysfs directory) so that existing configurations keep working
 *	for a release after a rename; never shown.  Optional.
 * @flags: FAIRQ_SCHED_*.
 * @priv_size: bytes of per-pool state the policy keeps in fairq_pool_priv() (at most
 *	FAIRQ_SCHED_PRIV_BYTES); zeroed before @init_pool.
 * @init_pool: set up the per-pool state of one service pool.  Mandatory.
 * @exit_pool: release what @init_pool and later ops set up; the pool holds no transport then.
 *	Optional.
 * @enqueue: take ownership of a ready transport (XPT_BUSY already set by the core).  Mandatory.
 * @pick: remove and return the transport that should run next, or NULL if none may run now
 *	(the core calls it without asking @has_work first).  Mandatory.
 * @has_work: whether @pick would return a transport.  Mandatory.
 * @drain: move every queued transport to @out in the order @pick would return them.  Used
 *	when switching policy and on unload, so that nothing is lost, duplicated or reordered.
 *	Mandatory.
 * @remove: unlink @xprt if it is queued here (a transport closed while queued); return whether
 *	it was.  May be O(queued): closes are rare.  Mandatory.
 * @tunables: the policy's settings, terminated by an entry with a NULL name.  Optional.
 * @start: a thread starts processing a request read from @xprt.  @token is what @charge
 *	returned for that thread's take of @xprt, or for this request (a pool that tracks no
 *	threads); NULL if it has none (the policy has no @charge, @charge returned NULL, the
 *	thread's charge is for another transport, or its record could not be made).  Optional.
 * @complete: a thread finished a request of @xprt that used @thread_ns of thread time (for
 *	policies that charge measured cost), with a reply or by dropping it.  @token as for
 *	@start, and the same one (a request read before a rebuild gets neither).  @xprt NULL:
 *	a request whose end no hook saw (a drop inside svc_process() on 6.12 and 7.3), found
 *	later (the thread's next look for work or request, its exit, or the watchdog), with
 *	@thread_ns 0 for unknown; its transport may be gone, @token (never NULL then) names
 *	the request's charge.  Optional.
 * @charge: a thread of @fp has taken @xprt (to read from it, then to run what it read): return
 *	what the thread's work is to be counted against (the policy's own token, NULL for
 *	nothing).  @dispatched: the policy's @pick handed @xprt out, while the pool tracked
 *	threads, and this thread ends that dispatch (one made before the pool state was rebuilt
 *	too: the policy's own count bounds what it ends); else the work came another way (fed
 *	around the policy while it switched), or its dispatch ended already (@undispatch).
 *	The core keeps the token for that thread and gives it back with @uncharge when
 *	the thread next looks for work or exits, whatever happened in between (a partial record,
 *	a dropped request, a closed connection), after @complete (@xprt NULL, no time) for a
 *	request @start saw whose end no hook saw; tokens of a policy are forgotten, never given
 *	back, when its pool state is rebuilt or left.  In a pool that tracks no threads
 *	(fairq_pool_track_threads() from @init_pool), a policy with @charge, @start and
 *	@complete is charged for each request instead: at its start (@dispatched false, before
 *	@start), given back with @uncharge after @complete, or at the thread's next request or
 *	exit, or by the watchdog, if its end went unseen.  Optional, but only together with
 *	@uncharge (registration refuses one alone); mandatory for a pool that tracks threads.
 * @uncharge: the thread @token was charged for has finished with it.
 * @undispatch: a dispatch of @xprt (as @charge's @dispatched) ends before a thread was seen
 *	with it: the connection closed on its way (a thread that takes it deletes it), or the
 *	pool lost its last thread and the transport moves on.  Return whether held work may be
 *	servable now.  Optional (without it, @tick must give such dispatches up); pool lock held.
 * @tick: periodic (the core's watchdog interval), and at the time a policy asked for with
 *	fairq_pool_wake_at(): let go of work the policy holds back for reasons that can expire
 *	without an event; return how many were let go, and the core wakes threads for them.
 *	Pool lock held.  Optional.
 * @counters: add the pool's own counters of the policy (what it skipped, could not do, or
 *	runs of its own) to @out with fairq_counter_add(); for debugfs, netlink and fairqctl.
 *	Pool lock held.  Optional.
 * @supported: whether the policy really does something on the running kernel.  A policy that
 *	would be a no-op is not offered.  Optional (default: supported).
 * @release: the policy is unregistered: free what it keeps outside its pools (settings,
 *	weight rules).  No pool uses it any more.  Optional.
 * @keys: a keyed policy's ops (struct fairq_key_ops).  Optional (keyless policies).
 * @own: a policy that runs requests in contexts of its own (struct fairq_own_ops).  Optional.
 * @wake: which threads are woken for the policy's work: see struct fairq_wake_ops.
 *	Optional (every transport may wake an idle thread).
 *
 * Native policies (FAIRQ_SCHED_NATIVE) have no queue ops: selecting one turns fairq's hooks off.
 */
struct fairq_sched_ops {
	struct module *owner;
	const char *name;
	const char *alias;
	unsigned int flags;
	size_t priv_size;
	void (*init_pool)(struct fairq_pool *fp);
	void (*exit_pool)(struct fairq_pool *fp);
	void (*enqueue)(struct fairq_pool *fp, struct svc_xprt *xprt);
	struct svc_xprt *(*pick)(struct fairq_pool *fp);
	bool (*has_work)(struct fairq_pool *fp);
	void (*drain)(struct fairq_pool *fp, struct fairq_xlist *out);
	bool (*remove)(struct fairq_pool *fp, struct svc_xprt *xprt);
	const struct fairq_tunable *tunables;
	void (*start)(struct fairq_pool *fp, struct svc_xprt *xprt, void *token);
	void (*complete)(struct fairq_pool *fp, struct svc_xprt *xprt, u64 thread_ns,
			 void *token);
	void *(*charge)(struct fairq_pool *fp, struct svc_xprt *xprt, bool dispatched);
	void (*uncharge)(struct fairq_pool *fp, void *token);
	bool (*undispatch)(struct fairq_pool *fp, struct svc_xprt *xprt);
	void (*counters)(struct fairq_pool *fp, struct fairq_counters *out);
	unsigned int (*tick)(struct fairq_pool *fp);
	bool (*supported)(void);
	void (*release)(void);
	const struct fairq_key_ops *keys;
	const struct fairq_own_ops *own;
	const struct fairq_wake_ops *wake;
};

void *fairq_pool_priv(struct fairq_pool *fp);
/*
 * State a policy shares among the pools of one service (FAIRQ_SCHED_SHARED_BYTES): zeroed when
 * fairq starts to track the service, kept across rebuilds and switches, never locked by the
 * core (use atomics, or the service's lock below).  One user, fq (its classes' rate clocks and
 * the table of its per-key clocks), which checks what it finds.  Whatever a policy allocates
 * for it, it frees before its last pool of the service exits.
 */
#define FAIRQ_SCHED_SHARED_BYTES	4224
void *fairq_pool_shared(struct fairq_pool *fp);
/*
 * The service's lock for its shared state, for what atomics cannot do (a table's inserts and
 * removals).  Taken with BH off, inside a pool lock or not; nothing is taken inside it.
 */
spinlock_t *fairq_pool_shared_lock(struct fairq_pool *fp);
/*
 * Have @tick called for @fp at the latest at @ns (ktime_get_ns()'s clock), for work held back
 * until then; an earlier time already asked for stands.  Pool lock held.
 */
void fairq_pool_wake_at(struct fairq_pool *fp, u64 ns);
unsigned int fairq_pool_id(const struct fairq_pool *fp);
/* The nfsd threads the pool has now. */
unsigned int fairq_pool_nr_threads(const struct fairq_pool *fp);
/* The nfsd threads the pool's service has now, in all its pools. */
unsigned int fairq_pool_serv_threads(const struct fairq_pool *fp);
/* The pools of the pool's service (fixed for the service's life). */
unsigned int fairq_pool_serv_pools(const struct fairq_pool *fp);
/*
 * The core is handing the policy transports that were already waiting before it took the pool
 * over (their wait did not happen under this policy: no latency to account, no hold).
 */
bool fairq_pool_adopting(const struct fairq_pool *fp);
/*
 * Whether the caller holds the lock that serialises switches, tunables and weights (for
 * lockdep and rcu_dereference_protected() over a policy's settings).
 */
bool fairq_change_held(void);

/*
 * For keyed policies: the NFSv4.1 client that owns @xprt's sessions, learnt only from
 * SEQUENCEs nfsd accepted (FAIRQ_KEY_TYPE_V4CLIENT).  Learning costs a probe on nfsd: a policy
 * asks for it with fairq_v4client_want() while it keys by v4 client.
 */
bool fairq_v4client_of(const struct svc_xprt *xprt, u64 *clientid);
void fairq_v4client_want(bool on);

int fairq_register_sched(const struct fairq_sched_ops *ops);
int fairq_requeue_all(const struct fairq_sched_ops *ops);

void fairq_pool_track_threads(struct fairq_pool *fp);
u64 fairq_pool_untracked(const struct fairq_pool *fp);
u64 fairq_pool_unseen_ends(const struct fairq_pool *fp);
void fairq_pool_hold_thread(struct fairq_pool *fp, u64 ns);
void fairq_pool_release_thread(struct fairq_pool *fp);
bool fairq_pool_holding(const struct fairq_pool *fp);
u64 fairq_pool_hold_skips(const struct fairq_pool *fp);
void fairq_unregister_sched(const struct fairq_sched_ops *ops);

/*
 * A FIFO queue of transports as a policy's whole per-pool state (@priv_size is
 * sizeof(struct fairq_qfifo_pool)): the queue ops of the policies that keep FIFO order and
 * change something else, usable as they are in an ops table.
 */
struct fairq_qfifo_pool {
	struct fairq_xlist queue;
};

static inline struct fairq_xlist *fairq_qfifo_queue(struct fairq_pool *fp)
{
	return &((struct fairq_qfifo_pool *)fairq_pool_priv(fp))->queue;
}

static inline void fairq_qfifo_init_pool(struct fairq_pool *fp)
{
	fairq_xlist_init(fairq_qfifo_queue(fp));
}

static inline void fairq_qfifo_enqueue(struct fairq_pool *fp, struct svc_xprt *xprt)
{
	fairq_xlist_push(fairq_qfifo_queue(fp), xprt);
}

static inline struct svc_xprt *fairq_qfifo_pick(struct fairq_pool *fp)
{
	return fairq_xlist_pop(fairq_qfifo_queue(fp));
}

static inline bool fairq_qfifo_has_work(struct fairq_pool *fp)
{
	return !fairq_xlist_empty(fairq_qfifo_queue(fp));
}

static inline void fairq_qfifo_drain(struct fairq_pool *fp, struct fairq_xlist *out)
{
	fairq_xlist_splice(out, fairq_qfifo_queue(fp));
}

static inline bool fairq_qfifo_remove(struct fairq_pool *fp, struct svc_xprt *xprt)
{
	return fairq_xlist_remove(fairq_qfifo_queue(fp), xprt);
}

/* The built-in policies, one file each under src/sched/. */
extern const struct fairq_sched_ops fairq_sched_fifo;
extern const struct fairq_sched_ops fairq_sched_qfifo;
extern const struct fairq_sched_ops fairq_sched_fq;
extern const struct fairq_sched_ops fairq_sched_capped;
extern const struct fairq_sched_ops fairq_sched_wq;

#endif /* _FAIRQ_SCHED_H */
