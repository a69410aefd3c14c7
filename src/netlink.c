// SPDX-License-Identifier: GPL-2.0-only
/*
 * The generic netlink family "fairq": what fairqctl reads and sets.
 *
 * The attribute policies, the ops table and the uapi header are generated from
 * docs/netlink/fairq.yaml (tools/ynl-regen.sh).  The generator writes no family struct for a
 * genetlink-legacy family but does write its multicast groups as a static table, so its output
 * is compiled as part of this file rather than on its own.
 *
 * Setting things takes fairq_sched_mutex, exactly as sysfs does; switching goes through
 * fairq_sched_select() for both.  Reports walk fairq_servs under RCU and copy each pool's
 * counters under its pool lock (bottom halves off, no sleeping); a keyed policy's keys are put
 * into the skb from inside ops->for_each_key(), under that lock, which nla_put() allows.  A dump
 * resumes by position (service, pool, key) from where the previous skb filled up: services and
 * keys come and go between two skbs, so a dump that races with them may repeat or miss one.
 *
 * A caller sees the nfsd services of its own network namespace; the all-netns flag shows every
 * one and needs CAP_NET_ADMIN in the initial user namespace.
 *
 * One file for the family (about 1,200 lines): its commands share the privilege check, the
 * key parsing, the filters and the dump positions, which would otherwise be a header of
 * helpers between halves of the same interface.
 */
#include <linux/capability.h>
#include <linux/module.h>
#include <linux/socket.h>
#include <linux/string.h>
#include <net/genetlink.h>
#include <net/sock.h>
#include "core.h"
#include "servs.h"
#include "switch.h"
#include "registry.h"
#include "counters.h"
#include "hook.h"
#include "kq.h"
#include "events.h"
#include "v4client.h"
#include "testing.h"
#include "netlink.h"
#include "compat/netlink.h"
#include "netlink-gen.c"

/* .resv_start_op stays 0: every command is new, so every one is validated strictly. */
static struct genl_family fairq_nl_family __ro_after_init = {
	.name		= FAIRQ_FAMILY_NAME,
	.version	= FAIRQ_FAMILY_VERSION,
	.netnsok	= true,
	.parallel_ops	= true,
	.module		= THIS_MODULE,
	.ops		= fairq_nl_ops,
	.n_ops		= ARRAY_SIZE(fairq_nl_ops),
	.mcgrps		= fairq_nl_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(fairq_nl_mcgrps),
};

#define MSG_NO_SCHED "no scheduler of that name on this kernel"
#define MSG_NOT_LIVE "fairq is loading or unloading: nothing can be changed now"

/*
 * Changing fairq changes nfsd's dispatch for the whole host: the same privilege as a write to
 * its sysfs files (CAP_SYS_ADMIN in the initial user namespace), not only the CAP_NET_ADMIN
 * that admin-perm operations already checked.
 */
static int may_change(const struct sk_buff *skb, struct netlink_ext_ack *extack)
{
	if (netlink_capable(skb, CAP_SYS_ADMIN))
		return 0;
	NL_SET_ERR_MSG(extack, "changing fairq needs CAP_SYS_ADMIN, as its sysfs files do");
	return -EPERM;
}

/* Where a dump stopped, kept in the callback between two skbs. */
struct fairq_nl_dump_pos {
	unsigned long serv;	/* matching services sent completely */
	unsigned long pool;	/* pools of the current service sent completely */
	u64 key;		/* the policy's cursor in the current pool's keys */
};

static struct fairq_nl_dump_pos *dump_pos(struct netlink_callback *cb)
{
	BUILD_BUG_ON(sizeof(struct fairq_nl_dump_pos) > sizeof(cb->ctx));
	return (struct fairq_nl_dump_pos *)cb->ctx;
}

/* Which pools (and keys) a report covers. */
struct fairq_nl_filter {
	struct net *net;	/* NULL: every network namespace */
	bool has_serv, has_pool, has_key;
	u32 serv, pool;
	struct fairq_key_id key;
};

static bool serv_match(const struct fairq_serv *fs, const struct fairq_nl_filter *f)
{
	return (!f->net || net_eq(fs->net, f->net)) && (!f->has_serv || fs->id == f->serv);
}

/* Same clients: the fields a key type does not use are not compared. */
static bool key_id_match(const struct fairq_key_id *k, const struct fairq_key_id *want)
{
	if (k->type != want->type || k->family != want->family ||
	    memcmp(k->addr, want->addr, sizeof(k->addr)))
		return false;
	if (k->type == FAIRQ_KEY_TYPE_SUBNET && k->prefix_len != want->prefix_len)
		return false;
	return k->type != FAIRQ_KEY_TYPE_CONN || k->port == want->port;
}

/*
 * One key, one spelling, as the policies make keys from addresses: an IPv4-mapped IPv6 address
 * folded to IPv4, a subnet's host bits cleared, fields its type does not use zeroed.  Weights
 * are then replaced and removed by the clients they stand for, whoever sent them.
 */
static int key_id_normalise(struct fairq_key_id *id, struct nlattr **tb,
			    struct netlink_ext_ack *extack)
{
	static const u8 mapped[12] = { [10] = 0xff, [11] = 0xff };
	unsigned int bits, i;

	if (id->type == FAIRQ_KEY_TYPE_V4CLIENT)
		return 0;
	if (id->family == AF_INET6 && !memcmp(id->addr, mapped, sizeof(mapped))) {
		if (id->type == FAIRQ_KEY_TYPE_SUBNET && id->prefix_len < 96) {
			NL_SET_ERR_MSG_ATTR(extack, tb[FAIRQ_A_KEY_ID_PREFIX_LEN],
					    "an IPv4-mapped prefix is at least 96 bits");
			return -EINVAL;
		}
		memmove(id->addr, id->addr + 12, 4);
		memset(id->addr + 4, 0, sizeof(id->addr) - 4);
		id->family = AF_INET;
		if (id->type == FAIRQ_KEY_TYPE_SUBNET)
			id->prefix_len -= 96;
	}
	if (id->family == AF_INET6 && id->prefix_len > 128) {
		NL_SET_ERR_MSG_ATTR(extack, tb[FAIRQ_A_KEY_ID_PREFIX_LEN],
				    "an IPv6 prefix is at most 128 bits");
		return -EINVAL;
	}
	bits = id->family == AF_INET ? 32 : id->family == AF_INET6 ? 128 : 0;
	if (id->type != FAIRQ_KEY_TYPE_SUBNET)
		id->prefix_len = 0;
	else
		bits = min_t(unsigned int, bits, id->prefix_len);
	if (id->type != FAIRQ_KEY_TYPE_CONN)
		id->port = 0;
	/* clear every bit past the address, or past the prefix */
	for (i = 0; i < sizeof(id->addr); i++) {
		if (bits >= 8 * (i + 1))
			continue;
		id->addr[i] &= bits > 8 * i ? (u8)(0xff << (8 - (bits - 8 * i))) : 0;
	}
	return 0;
}

static int key_id_parse(const struct nlattr *nest, struct fairq_key_id *id,
			struct netlink_ext_ack *extack)
{
	struct nlattr *tb[FAIRQ_A_KEY_ID_MAX + 1];
	int err;

	err = nla_parse_nested(tb, FAIRQ_A_KEY_ID_MAX, nest, fairq_key_id_nl_policy, extack);
	if (err)
		return err;
	if (NL_REQ_ATTR_CHECK(extack, nest, tb, FAIRQ_A_KEY_ID_TYPE)) {
		NL_SET_ERR_MSG(extack, "a key needs its type");
		return -EINVAL;
	}
	memset(id, 0, sizeof(*id));
	id->type = nla_get_u8(tb[FAIRQ_A_KEY_ID_TYPE]);
	if (tb[FAIRQ_A_KEY_ID_FAMILY])
		id->family = nla_get_u8(tb[FAIRQ_A_KEY_ID_FAMILY]);
	if (id->family != 0 && id->family != AF_INET && id->family != AF_INET6) {
		NL_SET_ERR_MSG_ATTR(extack, tb[FAIRQ_A_KEY_ID_FAMILY],
				    "a key's family is AF_INET, AF_INET6 or none");
		return -EINVAL;
	}
	if (tb[FAIRQ_A_KEY_ID_PREFIX_LEN])
		id->prefix_len = nla_get_u8(tb[FAIRQ_A_KEY_ID_PREFIX_LEN]);
	if (id->family == AF_INET && id->prefix_len > 32) {
		NL_SET_ERR_MSG_ATTR(extack, tb[FAIRQ_A_KEY_ID_PREFIX_LEN],
				    "an IPv4 prefix is at most 32 bits");
		return -EINVAL;
	}
	if (tb[FAIRQ_A_KEY_ID_PORT])
		id->port = nla_get_be16(tb[FAIRQ_A_KEY_ID_PORT]);
	if (tb[FAIRQ_A_KEY_ID_ADDR]) {
		if (nla_len(tb[FAIRQ_A_KEY_ID_ADDR]) > sizeof(id->addr)) {
			NL_SET_ERR_MSG_ATTR(extack, tb[FAIRQ_A_KEY_ID_ADDR],
					    "a key's address is at most 16 bytes");
			return -EINVAL;
		}
		nla_memcpy(id->addr, tb[FAIRQ_A_KEY_ID_ADDR], sizeof(id->addr));
	}
	return key_id_normalise(id, tb, extack);
}

/*
 * The filter of a pool or key request; the two attribute sets number their attributes each on
 * its own, hence the ids passed in.  Return: 0, or a negative errno with the reason in @extack.
 */
static int filter_parse(struct fairq_nl_filter *f, struct nlattr **tb, const struct sk_buff *skb,
			struct net *net, int a_all, int a_serv, int a_pool,
			struct netlink_ext_ack *extack)
{
	memset(f, 0, sizeof(*f));
	f->net = net;
	if (tb[a_all]) {
		if (!netlink_capable(skb, CAP_NET_ADMIN)) {
			NL_SET_ERR_MSG_ATTR(extack, tb[a_all],
					    "all-netns needs CAP_NET_ADMIN in the initial user namespace");
			return -EPERM;
		}
		f->net = NULL;
	}
	if (tb[a_serv]) {
		f->has_serv = true;
		f->serv = nla_get_u32(tb[a_serv]);
	}
	if (tb[a_pool]) {
		f->has_pool = true;
		f->pool = nla_get_u32(tb[a_pool]);
	}
	return 0;
}

/*
 * One pool's numbers, copied under its lock so that they are consistent with each other.  The
 * policy's name and its counters' names point into the policy's module: put into the message
 * in the same RCU read section, which the unload of that module waits for.
 */
struct pool_snap {
	struct fairq_pool_stats st;
	struct fairq_counters counters;
	const char *sched;
	unsigned int queued;
	unsigned int threads;
	unsigned int idle;
	u64 wakeups;
};

static void pool_snap(struct fairq_pool *fp, struct pool_snap *s)
{
	spin_lock_bh(&fp->lock);
	s->st = fp->stats;
	s->queued = fp->nr_queued;
	/* a pool without a policy passes everything to the kernel, as fifo does */
	s->sched = fp->ops ? fp->ops->name : fairq_sched_fifo.name;
	fairq_pool_sched_counters(fp, &s->counters);
	spin_unlock_bh(&fp->lock);
	s->wakeups = atomic_long_read(&fp->wakeups);
	s->threads = fairq_pool_threads(fp->pool);
	s->idle = fairq_kq_nr_idle(fp->pool);
}

static int put_u64(struct sk_buff *skb, int attr, u64 val, int pad)
{
	return nla_put_u64_64bit(skb, attr, val, pad);
}

/* A counter by name, in a nest of type @attr (sched-counter, core-counter, module-counter). */
static int counter_put(struct sk_buff *skb, int attr, const struct fairq_counter *c)
{
	struct nlattr *nest = nla_nest_start(skb, attr);

	if (!nest ||
	    nla_put_string(skb, FAIRQ_A_COUNTER_NAME, c->name) ||
	    put_u64(skb, FAIRQ_A_COUNTER_VALUE, c->value, FAIRQ_A_COUNTER_PAD))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

static int counters_put(struct sk_buff *skb, int attr, const struct fairq_counters *cs)
{
	unsigned int c;

	for (c = 0; c < cs->nr; c++)
		if (counter_put(skb, attr, &cs->c[c]))
			return -EMSGSIZE;
	return 0;
}

static int pool_stats_put(struct sk_buff *skb, u32 serv, unsigned int idx,
			  const struct pool_snap *s)
{
	struct fairq_counters core;
	unsigned int c;

	/* the first release's fixed attributes, for its readers; core-counter has them all */
	for (c = 0; c < fairq_pool_nr_counters; c++) {
		const struct fairq_pool_counter_def *def = &fairq_pool_counter_defs[c];

		if (def->attr &&
		    put_u64(skb, def->attr, fairq_pool_stat(&s->st, def), FAIRQ_A_POOL_PAD))
			return -EMSGSIZE;
	}
	if (nla_put_u32(skb, FAIRQ_A_POOL_SERV_ID, serv) ||
	    nla_put_u32(skb, FAIRQ_A_POOL_POOL_ID, idx) ||
	    nla_put_string(skb, FAIRQ_A_POOL_SCHED, s->sched) ||
	    nla_put_u32(skb, FAIRQ_A_POOL_THREADS, s->threads) ||
	    nla_put_u32(skb, FAIRQ_A_POOL_THREADS_IDLE, s->idle) ||
	    nla_put_u32(skb, FAIRQ_A_POOL_QUEUED, s->queued) ||
	    put_u64(skb, FAIRQ_A_POOL_WAKEUPS, s->wakeups, FAIRQ_A_POOL_PAD))
		return -EMSGSIZE;
	fairq_pool_core_counters(&s->st, s->wakeups, &core);
	if (counters_put(skb, FAIRQ_A_POOL_SCHED_COUNTER, &s->counters) ||
	    counters_put(skb, FAIRQ_A_POOL_CORE_COUNTER, &core))
		return -EMSGSIZE;
	return 0;
}

/* The key's attributes in a nest @attr, as key-get reports them. */
static int key_id_put_as(struct sk_buff *skb, int attr, const struct fairq_key_id *id)
{
	struct nlattr *nest = nla_nest_start(skb, attr);

	if (!nest ||
	    nla_put_u8(skb, FAIRQ_A_KEY_ID_TYPE, id->type) ||
	    nla_put_u8(skb, FAIRQ_A_KEY_ID_FAMILY, id->family) ||
	    nla_put_u8(skb, FAIRQ_A_KEY_ID_PREFIX_LEN, id->prefix_len) ||
	    nla_put_be16(skb, FAIRQ_A_KEY_ID_PORT, id->port) ||
	    nla_put(skb, FAIRQ_A_KEY_ID_ADDR, sizeof(id->addr), id->addr))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

static int key_id_put(struct sk_buff *skb, const struct fairq_key_id *id)
{
	return key_id_put_as(skb, FAIRQ_A_KEY_ID, id);
}

static int key_stats_put(struct sk_buff *skb, u32 serv, unsigned int pool,
			 const struct fairq_key_stats *ks)
{
	if (nla_put_u32(skb, FAIRQ_A_KEY_SERV_ID, serv) ||
	    nla_put_u32(skb, FAIRQ_A_KEY_POOL_ID, pool))
		return -EMSGSIZE;
	if (key_id_put(skb, &ks->id) ||
	    nla_put_u32(skb, FAIRQ_A_KEY_WEIGHT, ks->weight) ||
	    nla_put_u32(skb, FAIRQ_A_KEY_QUEUED, ks->queued) ||
	    nla_put_u32(skb, FAIRQ_A_KEY_IN_FLIGHT, ks->in_flight) ||
	    put_u64(skb, FAIRQ_A_KEY_DISPATCHES, ks->dispatches, FAIRQ_A_KEY_PAD) ||
	    put_u64(skb, FAIRQ_A_KEY_THREAD_NS, ks->thread_ns, FAIRQ_A_KEY_PAD) ||
	    (ks->class[0] && nla_put_string(skb, FAIRQ_A_KEY_CLASS, ks->class)) ||
	    /* the class names each key; paced only a key that waited for a limit of its own */
	    (ks->paced && (put_u64(skb, FAIRQ_A_KEY_PACED, ks->paced, FAIRQ_A_KEY_PAD) ||
			   put_u64(skb, FAIRQ_A_KEY_PACED_NS, ks->paced_ns, FAIRQ_A_KEY_PAD))))
		return -EMSGSIZE;
	return 0;
}

/* The service @f names, if the caller may see it.  Caller holds rcu_read_lock(). */
static struct fairq_serv *serv_find(const struct fairq_nl_filter *f)
{
	struct fairq_serv *fs;

	fairq_for_each_serv(fs) {
		if (serv_match(fs, f))
			return fs;
	}
	return NULL;
}

struct sched_put_arg {
	struct sk_buff *skb;
	const char *only;
	bool found;
};

static int tunable_put(struct sk_buff *skb, const struct fairq_tunable *t)
{
	struct nlattr *nest = nla_nest_start(skb, FAIRQ_A_SCHED_INFO_TUNABLE);

	if (!nest ||
	    nla_put_string(skb, FAIRQ_A_TUNABLE_NAME, t->name) ||
	    nla_put_string(skb, FAIRQ_A_TUNABLE_DOC, t->doc ? t->doc : "") ||
	    put_u64(skb, FAIRQ_A_TUNABLE_VALUE, t->get(), FAIRQ_A_TUNABLE_PAD) ||
	    put_u64(skb, FAIRQ_A_TUNABLE_MIN_VALUE, t->min, FAIRQ_A_TUNABLE_PAD) ||
	    put_u64(skb, FAIRQ_A_TUNABLE_MAX_VALUE, t->max, FAIRQ_A_TUNABLE_PAD) ||
	    put_u64(skb, FAIRQ_A_TUNABLE_DEFAULT_VALUE, t->def, FAIRQ_A_TUNABLE_PAD))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

/* fairq_sched_for_each() callback of sched-get; fairq_sched_mutex is held. */
static int sched_put(const struct fairq_sched_ops *ops, void *data)
{
	struct sched_put_arg *arg = data;
	const struct fairq_tunable *t;
	struct nlattr *nest;
	u32 flags = 0;

	if (arg->only && strcmp(arg->only, ops->name) &&
	    (!ops->alias || strcmp(arg->only, ops->alias)))
		return 0;
	arg->found = true;
	if (ops->flags & FAIRQ_SCHED_NATIVE)
		flags |= FAIRQ_SCHED_FLAGS_NATIVE;
	if (ops->keys)
		flags |= FAIRQ_SCHED_FLAGS_KEYED;
	if (ops->keys && ops->keys->set_weight)
		flags |= FAIRQ_SCHED_FLAGS_WEIGHTED;
	if (ops->keys && ops->keys->set_class)
		flags |= FAIRQ_SCHED_FLAGS_CLASSED;
	nest = nla_nest_start(arg->skb, FAIRQ_A_SCHED_SCHED);
	if (!nest ||
	    nla_put_string(arg->skb, FAIRQ_A_SCHED_INFO_NAME, ops->name) ||
	    nla_put_u32(arg->skb, FAIRQ_A_SCHED_INFO_FLAGS, flags) ||
	    (ops->alias && nla_put_string(arg->skb, FAIRQ_A_SCHED_INFO_ALIAS, ops->alias)) ||
	    (ops == fairq_active_sched() && nla_put_flag(arg->skb, FAIRQ_A_SCHED_INFO_ACTIVE)))
		return -EMSGSIZE;
	for (t = ops->tunables; t && t->name; t++) {
		if (tunable_put(arg->skb, t))
			return -EMSGSIZE;
	}
	nla_nest_end(arg->skb, nest);
	return 0;
}

/*
 * The module's own counters: each by name (module-counter), and as its fixed attribute of the
 * first release for that release's readers; v4client-bound, a gauge, on its own.  They count
 * every namespace's services: a caller in another network namespace sees them only with
 * CAP_NET_ADMIN, as it would every namespace's pools.
 */
static int module_counters_put(struct sk_buff *skb)
{
	unsigned int c;

	for (c = 0; c < fairq_module_nr_counters; c++) {
		const struct fairq_module_counter_def *def = &fairq_module_counter_defs[c];
		struct fairq_counter one = { def->name, def->read() };

		if ((def->attr && put_u64(skb, def->attr, one.value, FAIRQ_A_SCHED_PAD)) ||
		    counter_put(skb, FAIRQ_A_SCHED_MODULE_COUNTER, &one))
			return -EMSGSIZE;
	}
	return nla_put_u32(skb, FAIRQ_A_SCHED_V4CLIENT_BOUND, fairq_v4client_bound()) ?
	       -EMSGSIZE : 0;
}

/**
 * fairq_nl_sched_get_doit - the schedulers offered with their tunables, and module counters
 * @skb: the request
 * @info: its attributes: an optional scheduler name to report only that one
 *
 * Return: 0 with the reply sent, -ENOENT for an unknown name, or -ENOMEM/-EMSGSIZE.
 */
int fairq_nl_sched_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *name = info->attrs[FAIRQ_A_SCHED_NAME];
	struct sched_put_arg arg = { };
	struct sk_buff *msg;
	void *hdr;
	int err;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = fairq_genlmsg_iput(msg, info, &fairq_nl_family);
	if (!hdr) {
		err = -EMSGSIZE;
		goto err_free_msg;
	}
	arg.skb = msg;
	arg.only = name ? nla_data(name) : NULL;
	mutex_lock(&fairq_sched_mutex);
	err = nla_put_string(msg, FAIRQ_A_SCHED_ACTIVE, fairq_active_sched()->name);
	if (!err)
		err = fairq_sched_for_each(sched_put, &arg);
	mutex_unlock(&fairq_sched_mutex);
	if (!err && (net_eq(genl_info_net(info), &init_net) ||
		     netlink_capable(skb, CAP_NET_ADMIN)))
		err = module_counters_put(msg);
	if (err) {
		NL_SET_ERR_MSG(info->extack, "the scheduler list does not fit in one message");
		goto err_free_msg;
	}
	if (name && !arg.found) {
		NL_SET_ERR_MSG_ATTR(info->extack, name, MSG_NO_SCHED);
		err = -ENOENT;
		goto err_free_msg;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err_free_msg:
	nlmsg_free(msg);
	return err;
}

/**
 * fairq_nl_sched_set_doit - switch every nfsd pool to another scheduler, live
 * @skb: the request
 * @info: its attributes: the scheduler's name
 *
 * The same switch as a write to /sys/kernel/fairq/scheduler, announced on the events group.
 *
 * Return: 0 (also when it already was active), -ENOENT for an unknown name, or the switch's
 * error (nothing changed then).
 */
int fairq_nl_sched_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *name = info->attrs[FAIRQ_A_SCHED_NAME];
	int err;

	err = may_change(skb, info->extack);
	if (err)
		return err;
	if (GENL_REQ_ATTR_CHECK(info, FAIRQ_A_SCHED_NAME)) {
		NL_SET_ERR_MSG(info->extack, "which scheduler? (name missing)");
		return -EINVAL;
	}
	err = fairq_sched_select(nla_data(name), strlen(nla_data(name)));
	if (err == -ENOENT)
		NL_SET_ERR_MSG_ATTR(info->extack, name, MSG_NO_SCHED);
	else if (err == -ENODEV)
		NL_SET_ERR_MSG(info->extack, MSG_NOT_LIVE);
	else if (err == -EBUSY && fairq_hooks_refused_tracing_off())
		NL_SET_ERR_MSG(info->extack, "kernel.ftrace_enabled is 0: nothing changed");
	else if (err == -EBUSY)
		NL_SET_ERR_MSG(info->extack,
			       "a live patch or tracer already modifies svc_xprt_enqueue: nothing changed");
	else if (err)
		NL_SET_ERR_MSG(info->extack, "the switch failed and changed nothing (see dmesg)");
	return err;
}

/**
 * fairq_nl_param_set_doit - set a scheduler's tunable
 * @skb: the request
 * @info: its attributes: tunable name and value, and the scheduler (default: the active one)
 *
 * Range-checked and applied by fairq_tunable_set(), as a write to the tunable's sysfs file.
 *
 * Return: 0, -ENOENT for an unknown scheduler or tunable, -EINVAL for a value out of range,
 * or the scheduler's own refusal.
 */
int fairq_nl_param_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *sched = info->attrs[FAIRQ_A_SCHED_NAME];
	const struct fairq_sched_ops *ops;
	const struct fairq_tunable *t;
	const char *param;
	struct nlattr *a_val;
	u64 val;
	int err;

	err = may_change(skb, info->extack);
	if (err)
		return err;
	if (GENL_REQ_ATTR_CHECK(info, FAIRQ_A_SCHED_TUNABLE_NAME) ||
	    GENL_REQ_ATTR_CHECK(info, FAIRQ_A_SCHED_TUNABLE_VALUE)) {
		NL_SET_ERR_MSG(info->extack, "a tunable name and a value are needed");
		return -EINVAL;
	}
	param = nla_data(info->attrs[FAIRQ_A_SCHED_TUNABLE_NAME]);
	a_val = info->attrs[FAIRQ_A_SCHED_TUNABLE_VALUE];
	val = nla_get_u64(a_val);

	mutex_lock(&fairq_sched_mutex);
	ops = sched ? fairq_sched_find(nla_data(sched), strlen(nla_data(sched))) :
	      fairq_active_sched();
	/* its tunables are its module's: kept loaded until the value is set */
	if (ops && !fairq_sched_get(ops))
		ops = NULL;
	mutex_unlock(&fairq_sched_mutex);
	if (!ops) {
		NL_SET_ERR_MSG_ATTR(info->extack, sched, MSG_NO_SCHED);
		return -ENOENT;
	}
	for (t = ops->tunables; t && t->name; t++) {
		if (!strcmp(t->name, param))
			break;
	}
	if (!t || !t->name) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[FAIRQ_A_SCHED_TUNABLE_NAME],
				    "the scheduler has no tunable of that name");
		err = -ENOENT;
	} else if (val < t->min || val > t->max) {
		fairq_nl_err_range(info->extack, a_val, t->min, t->max);
		err = -EINVAL;
	} else {
		err = fairq_tunable_set(ops, t, val);
		if (err == -ENODEV)
			NL_SET_ERR_MSG(info->extack, MSG_NOT_LIVE);
		else if (err == -ENOENT)
			NL_SET_ERR_MSG_ATTR(info->extack, sched, MSG_NO_SCHED);
		else if (err)
			NL_SET_ERR_MSG_ATTR(info->extack, a_val, "the scheduler refused the value");
	}
	fairq_sched_put(ops);
	return err;
}

/**
 * fairq_nl_pool_get_doit - one pool's state and counters
 * @skb: the request
 * @info: its attributes: service and pool id, and all-netns to look beyond the caller's netns
 *
 * Return: 0 with the reply sent, -ENOENT if fairq tracks no such pool (visible to the caller),
 * -EPERM for all-netns without CAP_NET_ADMIN.
 */
int fairq_nl_pool_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct fairq_nl_filter f;
	struct fairq_serv *fs;
	struct pool_snap s;
	struct sk_buff *msg;
	void *hdr;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, FAIRQ_A_POOL_SERV_ID) ||
	    GENL_REQ_ATTR_CHECK(info, FAIRQ_A_POOL_POOL_ID)) {
		NL_SET_ERR_MSG(info->extack, "a service and a pool id are needed (or dump)");
		return -EINVAL;
	}
	err = filter_parse(&f, info->attrs, skb, genl_info_net(info), FAIRQ_A_POOL_ALL_NETNS,
			   FAIRQ_A_POOL_SERV_ID, FAIRQ_A_POOL_POOL_ID, info->extack);
	if (err)
		return err;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = fairq_genlmsg_iput(msg, info, &fairq_nl_family);
	if (!hdr) {
		err = -EMSGSIZE;
		goto err_free_msg;
	}
	rcu_read_lock();
	fs = serv_find(&f);
	if (!fs || f.pool >= fs->nr_pools) {
		rcu_read_unlock();
		NL_SET_ERR_MSG(info->extack, "fairq tracks no such service and pool");
		err = -ENOENT;
		goto err_free_msg;
	}
	pool_snap(fs->pools[f.pool], &s);
	err = pool_stats_put(msg, fs->id, f.pool, &s);
	rcu_read_unlock();
	if (err)
		goto err_free_msg;
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err_free_msg:
	nlmsg_free(msg);
	return err;
}

/**
 * fairq_nl_pool_get_dumpit - every pool fairq tracks, with its state and counters
 * @skb: the skb to fill
 * @cb: the dump; its request may name a service, a pool id, and all-netns
 *
 * Nothing while fairq's hooks are off (a native scheduler): fairq then tracks no service.
 *
 * Return: the bytes put in @skb (0 when done), or a negative errno.
 */
int fairq_nl_pool_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct fairq_nl_dump_pos *pos = dump_pos(cb);
	struct fairq_nl_filter f;
	struct fairq_serv *fs;
	unsigned long n = 0;
	struct pool_snap s;
	void *hdr;
	int err;

	err = filter_parse(&f, fairq_dump_attrs(cb), cb->skb, sock_net(cb->skb->sk),
			   FAIRQ_A_POOL_ALL_NETNS, FAIRQ_A_POOL_SERV_ID, FAIRQ_A_POOL_POOL_ID,
			   cb->extack);
	if (err)
		return err;
	rcu_read_lock();
	fairq_for_each_serv(fs) {
		if (!serv_match(fs, &f))
			continue;
		if (n++ < pos->serv)
			continue;
		for (; pos->pool < fs->nr_pools; pos->pool++) {
			if (f.has_pool && pos->pool != f.pool)
				continue;
			pool_snap(fs->pools[pos->pool], &s);
			hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
					  &fairq_nl_family, NLM_F_MULTI, FAIRQ_CMD_POOL_GET);
			if (!hdr)
				goto full;
			if (pool_stats_put(skb, fs->id, pos->pool, &s)) {
				genlmsg_cancel(skb, hdr);
				goto full;
			}
			genlmsg_end(skb, hdr);
		}
		pos->pool = 0;
		pos->serv++;
		fairq_test_delay(FAIRQ_TEST_DELAY_READER);
	}
full:
	rcu_read_unlock();
	return skb->len;
}

struct key_walk {
	struct sk_buff *skb;
	struct netlink_callback *cb;
	const struct fairq_nl_filter *f;
	u32 serv;
	unsigned int pool;
};

/* ops->for_each_key() callback of the key dump: pool lock held, no sleeping. */
static int key_dump_one(const struct fairq_key_stats *ks, void *data)
{
	struct key_walk *w = data;
	void *hdr;

	if (w->f->has_key && !key_id_match(&ks->id, &w->f->key))
		return 0;
	hdr = genlmsg_put(w->skb, NETLINK_CB(w->cb->skb).portid, w->cb->nlh->nlmsg_seq,
			  &fairq_nl_family, NLM_F_MULTI, FAIRQ_CMD_KEY_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (key_stats_put(w->skb, w->serv, w->pool, ks)) {
		genlmsg_cancel(w->skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(w->skb, hdr);
	return 0;
}

/*
 * Walk one pool's keys from @cursor; a keyless or native pool has none.  Return: 0, or @fn's
 * non-zero value with @cursor at the key it stopped at.
 */
static int pool_keys(struct fairq_pool *fp, u64 *cursor,
		     int (*fn)(const struct fairq_key_stats *ks, void *data), void *data)
{
	int err = 0;

	spin_lock_bh(&fp->lock);
	if (fp->ops && fp->ops->keys)
		err = fp->ops->keys->for_each_key(fp, cursor, fn, data);
	spin_unlock_bh(&fp->lock);
	return err;
}

static int key_filter_parse(struct fairq_nl_filter *f, struct nlattr **tb,
			    const struct sk_buff *skb, struct net *net,
			    struct netlink_ext_ack *extack)
{
	int err;

	err = filter_parse(f, tb, skb, net, FAIRQ_A_KEY_ALL_NETNS, FAIRQ_A_KEY_SERV_ID,
			   FAIRQ_A_KEY_POOL_ID, extack);
	if (err || !tb[FAIRQ_A_KEY_ID])
		return err;
	f->has_key = true;
	return key_id_parse(tb[FAIRQ_A_KEY_ID], &f->key, extack);
}

/**
 * fairq_nl_key_get_dumpit - every key of every pool, as the active keyed scheduler counts them
 * @skb: the skb to fill
 * @cb: the dump; its request may name a service, a pool id, a key, and all-netns
 *
 * Nothing under a keyless scheduler.
 *
 * Return: the bytes put in @skb (0 when done), or a negative errno.
 */
int fairq_nl_key_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct fairq_nl_dump_pos *pos = dump_pos(cb);
	struct fairq_nl_filter f;
	struct key_walk w = { .skb = skb, .cb = cb, .f = &f };
	struct fairq_serv *fs;
	unsigned long n = 0;
	int err;

	err = key_filter_parse(&f, fairq_dump_attrs(cb), cb->skb, sock_net(cb->skb->sk),
			       cb->extack);
	if (err)
		return err;
	rcu_read_lock();
	fairq_for_each_serv(fs) {
		if (!serv_match(fs, &f))
			continue;
		if (n++ < pos->serv)
			continue;
		w.serv = fs->id;
		for (; pos->pool < fs->nr_pools; pos->pool++) {
			if (f.has_pool && pos->pool != f.pool)
				continue;
			w.pool = pos->pool;
			err = pool_keys(fs->pools[pos->pool], &pos->key, key_dump_one, &w);
			if (err)
				goto full;
			pos->key = 0;
		}
		pos->pool = 0;
		pos->serv++;
		fairq_test_delay(FAIRQ_TEST_DELAY_READER);
	}
full:
	rcu_read_unlock();
	return skb->len;
}

struct key_find {
	const struct fairq_key_id *want;
	struct fairq_key_stats ks;
	bool found;
};

static int key_find_one(const struct fairq_key_stats *ks, void *data)
{
	struct key_find *kf = data;

	if (!key_id_match(&ks->id, kf->want))
		return 0;
	kf->ks = *ks;
	kf->found = true;
	return 1;
}

/**
 * fairq_nl_key_get_doit - one key of one pool
 * @skb: the request
 * @info: its attributes: service, pool, key id, and all-netns to look beyond the caller's netns
 *
 * Return: 0 with the reply sent, -ENOENT if that pool has no such key (or does not exist).
 */
int fairq_nl_key_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct key_find kf = { };
	struct fairq_nl_filter f;
	struct fairq_serv *fs;
	struct sk_buff *msg;
	u32 serv_id;
	void *hdr;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, FAIRQ_A_KEY_SERV_ID) ||
	    GENL_REQ_ATTR_CHECK(info, FAIRQ_A_KEY_POOL_ID) ||
	    GENL_REQ_ATTR_CHECK(info, FAIRQ_A_KEY_ID)) {
		NL_SET_ERR_MSG(info->extack, "a service, a pool and a key are needed (or dump)");
		return -EINVAL;
	}
	err = key_filter_parse(&f, info->attrs, skb, genl_info_net(info), info->extack);
	if (err)
		return err;
	kf.want = &f.key;
	rcu_read_lock();
	fs = serv_find(&f);
	if (fs && f.pool < fs->nr_pools) {
		u64 from_first = 0;

		pool_keys(fs->pools[f.pool], &from_first, key_find_one, &kf);
	}
	serv_id = fs ? fs->id : 0;
	rcu_read_unlock();
	if (!kf.found) {
		NL_SET_ERR_MSG(info->extack, "no such key in that pool");
		return -ENOENT;
	}

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = fairq_genlmsg_iput(msg, info, &fairq_nl_family);
	if (!hdr) {
		err = -EMSGSIZE;
		goto err_free_msg;
	}
	err = key_stats_put(msg, serv_id, f.pool, &kf.ks);
	if (err)
		goto err_free_msg;
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err_free_msg:
	nlmsg_free(msg);
	return err;
}

/*
 * A reason chosen at run time as the error's message: NL_SET_ERR_MSG() takes literals only.
 * Literals of fairq or of the policy's module, which stays loaded while it is used.
 */
static void set_why(struct netlink_ext_ack *extack, const char *why)
{
	if (extack && why)
		extack->_msg = why;
}

/*
 * The policy a weight or class request is about: the one @name names, else the active one,
 * if it has the ops @has tests for (else the error says @named or @active).  Kept with
 * fairq_sched_get() (its module stays loaded): fairq_sched_put() it when done.
 */
static const struct fairq_sched_ops *keyed_sched_of(const struct nlattr *name,
						    bool (*has)(const struct fairq_key_ops *keys),
						    const char *named, const char *active,
						    struct netlink_ext_ack *extack, int *err)
{
	const struct fairq_sched_ops *ops;

	mutex_lock(&fairq_sched_mutex);
	ops = name ? fairq_sched_find(nla_data(name), strlen(nla_data(name))) :
	      fairq_active_sched();
	if (ops && !fairq_sched_get(ops))
		ops = NULL;
	mutex_unlock(&fairq_sched_mutex);
	*err = 0;
	if (!ops) {
		NL_SET_ERR_MSG_ATTR(extack, name, MSG_NO_SCHED);
		*err = -ENOENT;
	} else if (!ops->keys || !has(ops->keys)) {
		NL_SET_BAD_ATTR(extack, name);
		set_why(extack, name ? named : active);
		*err = -EOPNOTSUPP;
		fairq_sched_put(ops);
	}
	return *err ? NULL : ops;
}

static bool has_weights(const struct fairq_key_ops *keys)
{
	return keys->for_each_weight;
}

static bool has_classes(const struct fairq_key_ops *keys)
{
	return keys->set_class;
}

static const struct fairq_sched_ops *weights_of(const struct nlattr *name,
						struct netlink_ext_ack *extack, int *err)
{
	return keyed_sched_of(name, has_weights, "that scheduler has no per-key weights",
			      "the active scheduler has no per-key weights", extack, err);
}

static int weight_put(struct sk_buff *skb, const char *sched, const struct fairq_key_id *id,
		      u32 weight)
{
	if (nla_put_string(skb, FAIRQ_A_KEY_SCHED, sched) || key_id_put(skb, id) ||
	    nla_put_u32(skb, FAIRQ_A_KEY_WEIGHT, weight))
		return -EMSGSIZE;
	return 0;
}

struct weight_find {
	const struct fairq_key_id *want;
	u32 weight;
};

static int weight_find_one(const struct fairq_key_id *id, u32 weight, void *data)
{
	struct weight_find *wf = data;

	if (!key_id_match(id, wf->want))
		return 0;
	wf->weight = weight;
	return 1;
}

/**
 * fairq_nl_weight_get_doit - the weight set for one key
 * @skb: the request
 * @info: its attributes: the key, and the scheduler (default: the active one)
 *
 * Return: 0 with the reply sent, -ENOENT if no weight is set for exactly that key (it has the
 * default) or no scheduler has that name, -EOPNOTSUPP for a scheduler without weights.
 */
int fairq_nl_weight_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	const struct fairq_sched_ops *ops;
	struct fairq_key_id id;
	struct weight_find wf = { .want = &id };
	struct sk_buff *msg;
	u64 cursor = 0;
	void *hdr;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, FAIRQ_A_KEY_ID)) {
		NL_SET_ERR_MSG(info->extack, "a key is needed (or dump)");
		return -EINVAL;
	}
	err = key_id_parse(info->attrs[FAIRQ_A_KEY_ID], &id, info->extack);
	if (err)
		return err;
	ops = weights_of(info->attrs[FAIRQ_A_KEY_SCHED], info->extack, &err);
	if (!ops)
		return err;
	if (!ops->keys->for_each_weight(&cursor, weight_find_one, &wf)) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[FAIRQ_A_KEY_ID],
				    "no weight is set for that key: it has the default");
		err = -ENOENT;
		goto out;
	}
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg) {
		err = -ENOMEM;
		goto out;
	}
	hdr = fairq_genlmsg_iput(msg, info, &fairq_nl_family);
	if (!hdr || weight_put(msg, ops->name, &id, wf.weight)) {
		nlmsg_free(msg);
		err = -EMSGSIZE;
		goto out;
	}
	genlmsg_end(msg, hdr);
	err = genlmsg_reply(msg, info);
out:
	fairq_sched_put(ops);
	return err;
}

struct weight_walk {
	struct sk_buff *skb;
	struct netlink_callback *cb;
	const char *sched;
};

static int weight_dump_one(const struct fairq_key_id *id, u32 weight, void *data)
{
	struct weight_walk *w = data;
	void *hdr;

	hdr = genlmsg_put(w->skb, NETLINK_CB(w->cb->skb).portid, w->cb->nlh->nlmsg_seq,
			  &fairq_nl_family, NLM_F_MULTI, FAIRQ_CMD_WEIGHT_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (weight_put(w->skb, w->sched, id, weight)) {
		genlmsg_cancel(w->skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(w->skb, hdr);
	return 0;
}

/**
 * fairq_nl_weight_get_dumpit - every weight set for a scheduler
 * @skb: the skb to fill
 * @cb: the dump; its request may name the scheduler (default: the active one)
 *
 * Resumes where the previous skb filled up; weights set or removed in between may be missed or
 * repeated.
 *
 * Return: the bytes put in @skb (0 when done), or a negative errno.
 */
int fairq_nl_weight_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct fairq_nl_dump_pos *pos = dump_pos(cb);
	struct weight_walk w = { .skb = skb, .cb = cb };
	const struct fairq_sched_ops *ops;
	int err;

	ops = weights_of(fairq_dump_attrs(cb)[FAIRQ_A_KEY_SCHED], cb->extack, &err);
	if (!ops)
		return err;
	w.sched = ops->name;
	err = ops->keys->for_each_weight(&pos->key, weight_dump_one, &w);
	fairq_sched_put(ops);
	/* a full skb with nothing in it: one entry can never fit */
	if (err == -EMSGSIZE && !skb->len)
		return err;
	return err == -EMSGSIZE ? skb->len : err;
}

/**
 * fairq_nl_weight_set_doit - weigh the clients a key stands for, in every pool
 * @skb: the request
 * @info: its attributes: the key id and the weight (0 restores the default)
 *
 * Return: 0, -EOPNOTSUPP if the active scheduler has no weights (or none for this key type),
 * or the scheduler's refusal.
 */
int fairq_nl_weight_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	const struct fairq_sched_ops *ops;
	struct fairq_key_id id;
	u32 weight;
	int err;

	err = may_change(skb, info->extack);
	if (err)
		return err;
	if (GENL_REQ_ATTR_CHECK(info, FAIRQ_A_KEY_ID) ||
	    GENL_REQ_ATTR_CHECK(info, FAIRQ_A_KEY_WEIGHT)) {
		NL_SET_ERR_MSG(info->extack, "a key and a weight are needed");
		return -EINVAL;
	}
	err = key_id_parse(info->attrs[FAIRQ_A_KEY_ID], &id, info->extack);
	if (err)
		return err;

	err = fairq_change_begin();
	if (err) {
		NL_SET_ERR_MSG(info->extack, MSG_NOT_LIVE);
		return err;
	}
	ops = fairq_active_sched();
	weight = nla_get_u32(info->attrs[FAIRQ_A_KEY_WEIGHT]);
	err = ops->keys && ops->keys->set_weight ? ops->keys->set_weight(&id, weight) : -EOPNOTSUPP;
	if (!err)
		fairq_weight_changed(ops, &id, weight);
	else if (err == -EALREADY)
		err = 0;	/* the weight it had: no change to log or announce */
	fairq_change_end();

	if (!ops->keys || !ops->keys->set_weight)
		NL_SET_ERR_MSG(info->extack, "the active scheduler has no per-key weights");
	else if (err == -EOPNOTSUPP)
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[FAIRQ_A_KEY_ID],
				    "the active scheduler has no weights for keys of this type");
	else if (err == -ENOSPC)
		NL_SET_ERR_MSG(info->extack, "the active scheduler holds no more weights");
	else if (err)
		NL_SET_ERR_MSG(info->extack, "the active scheduler refused this key or weight");
	return err;
}

static const struct fairq_sched_ops *classes_of(const struct nlattr *name,
						struct netlink_ext_ack *extack, int *err)
{
	return keyed_sched_of(name, has_classes, "that scheduler has no QoS classes",
			      "the active scheduler has no QoS classes (fq has)", extack, err);
}

static int class_name_parse(const struct nlattr *attr, char *name, struct netlink_ext_ack *extack)
{
	if (!attr) {
		NL_SET_ERR_MSG(extack, "a class name is needed");
		return -EINVAL;
	}
	if (nla_strscpy(name, attr, FAIRQ_CLASS_NAME_LEN + 1) < 0) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "a class name is at most 15 characters");
		return -EINVAL;
	}
	return 0;
}

/* A class-set request as the policy takes it; the matches are every match attribute sent. */
static int class_spec_parse(struct genl_info *info, struct fairq_class_spec *spec)
{
	struct nlattr **tb = info->attrs;
	const struct nlattr *a;
	int rem, err;

	memset(spec, 0, sizeof(*spec));
	err = class_name_parse(tb[FAIRQ_A_CLASS_NAME], spec->name, info->extack);
	if (err)
		return err;
	spec->create = tb[FAIRQ_A_CLASS_CREATE];
	if (tb[FAIRQ_A_CLASS_RANK]) {
		spec->set_rank = true;
		spec->rank = nla_get_u32(tb[FAIRQ_A_CLASS_RANK]);
	}
	if (tb[FAIRQ_A_CLASS_LIMIT_RPS]) {
		spec->set_limit = true;
		spec->limit_rps = nla_get_u32(tb[FAIRQ_A_CLASS_LIMIT_RPS]);
	}
	if (tb[FAIRQ_A_CLASS_BURST]) {
		spec->set_burst = true;
		spec->burst = nla_get_u32(tb[FAIRQ_A_CLASS_BURST]);
	}
	if (tb[FAIRQ_A_CLASS_WEIGHT]) {
		spec->set_weight = true;
		spec->weight = nla_get_u32(tb[FAIRQ_A_CLASS_WEIGHT]);
	}
	if (tb[FAIRQ_A_CLASS_RESERVE]) {
		spec->set_reserve = true;
		spec->reserve_pct = nla_get_u32(tb[FAIRQ_A_CLASS_RESERVE]);
	}
	if (tb[FAIRQ_A_CLASS_LIMIT_PCT]) {
		spec->set_limit_pct = true;
		spec->limit_pct = nla_get_u32(tb[FAIRQ_A_CLASS_LIMIT_PCT]);
	}
	if (tb[FAIRQ_A_CLASS_PER_KEY]) {
		spec->set_per_key = true;
		spec->per_key = nla_get_u8(tb[FAIRQ_A_CLASS_PER_KEY]);
	}
	nlmsg_for_each_attr(a, info->nlhdr, GENL_HDRLEN, rem) {
		if (nla_type(a) != FAIRQ_A_CLASS_MATCH)
			continue;
		if (spec->nr_match == FAIRQ_CLASS_MATCH_MAX) {
			NL_SET_ERR_MSG_ATTR(info->extack, a, "a class takes at most 8 matches");
			return -E2BIG;
		}
		err = key_id_parse(a, &spec->match[spec->nr_match], info->extack);
		if (err)
			return err;
		spec->nr_match++;
		spec->set_match = true;
	}
	return 0;
}

/**
 * fairq_nl_class_set_doit - make or change a QoS class
 * @skb: the request
 * @info: its attributes: the name, create for a new class, and what to set
 *
 * Return: 0, or the policy's refusal with its reason; nothing changed then.
 */
int fairq_nl_class_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	const struct fairq_sched_ops *ops;
	struct fairq_class_spec *spec;
	const char *why = NULL;
	int err;

	err = may_change(skb, info->extack);
	if (err)
		return err;
	/* the matches make it too big for the stack */
	spec = kmalloc(sizeof(*spec), GFP_KERNEL);
	if (!spec)
		return -ENOMEM;
	err = class_spec_parse(info, spec);
	if (err)
		goto out_free;
	ops = classes_of(info->attrs[FAIRQ_A_CLASS_SCHED], info->extack, &err);
	if (!ops)
		goto out_free;
	err = fairq_change_begin();
	if (err) {
		NL_SET_ERR_MSG(info->extack, MSG_NOT_LIVE);
	} else {
		err = ops->keys->set_class(spec, &why);
		if (!err)
			fairq_class_changed(ops, spec->name,
					    spec->create ? FAIRQ_CLASS_MADE : FAIRQ_CLASS_CHANGED);
		fairq_change_end();
		if (err)
			set_why(info->extack, why);
	}
	fairq_sched_put(ops);
out_free:
	kfree(spec);
	return err;
}

/**
 * fairq_nl_class_del_doit - delete a QoS class
 * @skb: the request
 * @info: its attributes: the name
 *
 * Return: 0, or the policy's refusal with its reason.
 */
int fairq_nl_class_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	char name[FAIRQ_CLASS_NAME_LEN + 1];
	const struct fairq_sched_ops *ops;
	const char *why = NULL;
	int err;

	err = may_change(skb, info->extack);
	if (err)
		return err;
	err = class_name_parse(info->attrs[FAIRQ_A_CLASS_NAME], name, info->extack);
	if (err)
		return err;
	ops = classes_of(info->attrs[FAIRQ_A_CLASS_SCHED], info->extack, &err);
	if (!ops)
		return err;
	err = fairq_change_begin();
	if (err) {
		NL_SET_ERR_MSG(info->extack, MSG_NOT_LIVE);
	} else {
		err = ops->keys->del_class(name, &why);
		if (!err)
			fairq_class_changed(ops, name, FAIRQ_CLASS_DELETED);
		fairq_change_end();
		if (err)
			set_why(info->extack, why);
	}
	fairq_sched_put(ops);
	return err;
}

/* A class report: its settings, and its counters summed over the services @net sees. */
struct class_walk {
	struct sk_buff *skb;
	const struct fairq_sched_ops *ops;
	struct net *net;		/* NULL: every network namespace */
	const char *only;		/* a do: the class asked for */
	bool found;
	/* a dump */
	struct netlink_callback *cb;
	struct class_gauges_all *gauges;	/* every class's, from one walk of the keys */
	/* a do */
	struct genl_info *info;
};

/* What a class is set to: name, rank, limits, burst, weight, reserve, matches (reports, events). */
static int class_settings_put(struct sk_buff *skb, const struct fairq_class_spec *cls)
{
	unsigned int i;

	if (nla_put_string(skb, FAIRQ_A_CLASS_NAME, cls->name) ||
	    (cls->set_rank && nla_put_u32(skb, FAIRQ_A_CLASS_RANK, cls->rank)) ||
	    nla_put_u32(skb, FAIRQ_A_CLASS_LIMIT_RPS, cls->limit_rps) ||
	    nla_put_u32(skb, FAIRQ_A_CLASS_BURST, cls->burst) ||
	    nla_put_u32(skb, FAIRQ_A_CLASS_WEIGHT, cls->weight) ||
	    nla_put_u32(skb, FAIRQ_A_CLASS_RESERVE, cls->reserve_pct) ||
	    nla_put_u32(skb, FAIRQ_A_CLASS_LIMIT_PCT, cls->limit_pct) ||
	    nla_put_u8(skb, FAIRQ_A_CLASS_PER_KEY, cls->per_key))
		return -EMSGSIZE;
	for (i = 0; i < cls->nr_match; i++) {
		if (key_id_put_as(skb, FAIRQ_A_CLASS_MATCH, &cls->match[i]))
			return -EMSGSIZE;
	}
	return 0;
}

/* A class's gauges, summed key by key: what its keys have queued and on threads now. */
struct class_gauges {
	char name[FAIRQ_CLASS_NAME_LEN + 1];
	u32 queued, in_flight;
};

/* Every class's gauges, named from the class table, for a dump: one walk for all of them. */
struct class_gauges_all {
	unsigned int nr;
	struct class_gauges c[FAIRQ_CLASSES_MAX];
};

/* ops->for_each_key() callback: pool lock held, no sleeping. */
static int class_gauges_add(const struct fairq_key_stats *ks, void *data)
{
	struct class_gauges *g = data;

	if (!strcmp(ks->class, g->name)) {
		g->queued += ks->queued;
		g->in_flight += ks->in_flight;
	}
	return 0;
}

/* ops->for_each_key() callback: pool lock held, no sleeping. */
static int class_gauges_add_all(const struct fairq_key_stats *ks, void *data)
{
	struct class_gauges_all *all = data;
	unsigned int i;

	/* only the classes named beforehand: a key of a class deleted meanwhile counts nowhere */
	for (i = 0; i < all->nr; i++) {
		if (!strcmp(all->c[i].name, ks->class)) {
			all->c[i].queued += ks->queued;
			all->c[i].in_flight += ks->in_flight;
			break;
		}
	}
	return 0;
}

/* keys->for_each_class() callback: a class to count the gauges of. */
static int class_gauges_name(const struct fairq_class_spec *cls, void *data)
{
	struct class_gauges_all *all = data;

	if (all->nr == ARRAY_SIZE(all->c))
		return 1;
	strscpy(all->c[all->nr++].name, cls->name, sizeof(all->c[0].name));
	return 0;
}

/*
 * Whether the class report @w covers service @fs: the network namespace asked for, and the
 * policy whose classes are reported running there.
 */
static bool class_serv_covered(const struct class_walk *w, const struct fairq_serv *fs)
{
	return (!w->net || net_eq(fs->net, w->net)) && fs->nr_pools &&
	       READ_ONCE(fs->pools[0]->ops) == w->ops;
}

/*
 * The keys of every service @w covers, in every pool, each pool's under its lock in turn,
 * through @fn.  Called under the RCU read lock, which keeps the services while they are read.
 */
static void class_keys_walk(const struct class_walk *w, fairq_key_fn fn, void *data)
{
	struct fairq_serv *fs;
	unsigned int i;
	u64 cursor;

	fairq_for_each_serv(fs) {
		if (!class_serv_covered(w, fs))
			continue;
		for (i = 0; i < fs->nr_pools; i++) {
			cursor = 0;
			pool_keys(fs->pools[i], &cursor, fn, data);
		}
	}
}

/*
 * The counters the policy keeps per class come from one place per service; the gauges are
 * its keys' own, in every pool, read under each pool's lock in turn: a dump walks the keys
 * once for all its classes (per skb it fills), a single class's report once for it.  No
 * request path pays for either.
 */
static int class_put(struct sk_buff *skb, const struct class_walk *w,
		     const struct fairq_class_spec *cls)
{
	struct class_gauges g = {};
	struct fairq_class_stats st = {};
	struct fairq_serv *fs;
	unsigned int i;

	/* the walk holds the RCU read lock: the services stay while they are read */
	fairq_for_each_serv(fs) {
		if (class_serv_covered(w, fs))
			w->ops->keys->class_stats(fs->pools[0], cls->name, &st);
	}
	if (w->gauges) {
		for (i = 0; i < w->gauges->nr; i++) {
			if (!strcmp(w->gauges->c[i].name, cls->name)) {
				g = w->gauges->c[i];
				break;
			}
		}
	} else {
		strscpy(g.name, cls->name, sizeof(g.name));
		class_keys_walk(w, class_gauges_add, &g);
	}
	if (class_settings_put(skb, cls) ||
	    put_u64(skb, FAIRQ_A_CLASS_DISPATCHES, st.dispatches, FAIRQ_A_CLASS_PAD) ||
	    put_u64(skb, FAIRQ_A_CLASS_THREAD_NS, st.thread_ns, FAIRQ_A_CLASS_PAD) ||
	    put_u64(skb, FAIRQ_A_CLASS_PACED, st.paced, FAIRQ_A_CLASS_PAD) ||
	    put_u64(skb, FAIRQ_A_CLASS_PACED_NS, st.paced_ns, FAIRQ_A_CLASS_PAD) ||
	    put_u64(skb, FAIRQ_A_CLASS_RESERVED, st.reserved, FAIRQ_A_CLASS_PAD) ||
	    put_u64(skb, FAIRQ_A_CLASS_BELOW_NS, st.below_ns, FAIRQ_A_CLASS_PAD) ||
	    nla_put_u32(skb, FAIRQ_A_CLASS_QUEUED, g.queued) ||
	    nla_put_u32(skb, FAIRQ_A_CLASS_IN_FLIGHT, g.in_flight) ||
	    nla_put_string(skb, FAIRQ_A_CLASS_SCHED, w->ops->name))
		return -EMSGSIZE;
	return 0;
}

static int class_dump_one(const struct fairq_class_spec *cls, void *data)
{
	struct class_walk *w = data;
	void *hdr;

	hdr = genlmsg_put(w->skb, NETLINK_CB(w->cb->skb).portid, w->cb->nlh->nlmsg_seq,
			  &fairq_nl_family, NLM_F_MULTI, FAIRQ_CMD_CLASS_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (class_put(w->skb, w, cls)) {
		genlmsg_cancel(w->skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(w->skb, hdr);
	return 0;
}

static int class_find_one(const struct fairq_class_spec *cls, void *data)
{
	struct class_walk *w = data;

	if (strcmp(cls->name, w->only))
		return 0;
	w->found = true;
	return class_put(w->skb, w, cls) ?: 1;
}

/* The network namespace a class report covers: the caller's, or all (CAP_NET_ADMIN). */
static int class_net(struct nlattr **tb, const struct sk_buff *skb, struct net **net,
		     struct netlink_ext_ack *extack)
{
	struct fairq_nl_filter f;
	int err;

	err = filter_parse(&f, tb, skb, sock_net(skb->sk), FAIRQ_A_CLASS_ALL_NETNS, 0, 0,
			   extack);
	*net = f.net;
	return err;
}

/**
 * fairq_nl_class_get_doit - one QoS class, with its counters
 * @skb: the request
 * @info: its attributes: the name, all-netns, the scheduler (default: the active one)
 *
 * Return: 0 with the reply sent, -ENOENT for an unknown class or scheduler, -EOPNOTSUPP for a
 * scheduler without classes.
 */
int fairq_nl_class_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	char name[FAIRQ_CLASS_NAME_LEN + 1];
	struct class_walk w = { .only = name, .info = info };
	struct sk_buff *msg;
	u64 cursor = 0;
	void *hdr;
	int err;

	err = class_name_parse(info->attrs[FAIRQ_A_CLASS_NAME], name, info->extack) ?:
	      class_net(info->attrs, skb, &w.net, info->extack);
	if (err)
		return err;
	w.ops = classes_of(info->attrs[FAIRQ_A_CLASS_SCHED], info->extack, &err);
	if (!w.ops)
		return err;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg) {
		err = -ENOMEM;
		goto out;
	}
	w.skb = msg;
	hdr = fairq_genlmsg_iput(msg, info, &fairq_nl_family);
	err = hdr ? w.ops->keys->for_each_class(&cursor, class_find_one, &w) : -EMSGSIZE;
	if (err < 0 || !w.found) {
		if (!w.found && err >= 0) {
			NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[FAIRQ_A_CLASS_NAME],
					    "no class of that name");
			err = -ENOENT;
		}
		nlmsg_free(msg);
		goto out;
	}
	genlmsg_end(msg, hdr);
	err = genlmsg_reply(msg, info);
out:
	fairq_sched_put(w.ops);
	return err;
}

/**
 * fairq_nl_class_get_dumpit - every QoS class, in matching order, with its counters
 * @skb: the skb to fill
 * @cb: the dump; its request may ask for all-netns and name the scheduler
 *
 * Return: the bytes put in @skb (0 when done), or a negative errno.
 */
int fairq_nl_class_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct fairq_nl_dump_pos *pos = dump_pos(cb);
	struct class_walk w = { .skb = skb, .cb = cb };
	struct nlattr **tb = fairq_dump_attrs(cb);
	u64 cursor = 0;
	int err;

	err = class_net(tb, cb->skb, &w.net, cb->extack);
	if (err)
		return err;
	w.ops = classes_of(tb[FAIRQ_A_CLASS_SCHED], cb->extack, &err);
	if (!w.ops)
		return err;
	w.gauges = kzalloc(sizeof(*w.gauges), GFP_KERNEL);
	if (!w.gauges) {
		fairq_sched_put(w.ops);
		return -ENOMEM;
	}
	/* the classes first, then their keys: at most one entry per class, never a stale name */
	w.ops->keys->for_each_class(&cursor, class_gauges_name, w.gauges);
	rcu_read_lock();
	class_keys_walk(&w, class_gauges_add_all, w.gauges);
	rcu_read_unlock();
	err = w.ops->keys->for_each_class(&pos->key, class_dump_one, &w);
	kfree(w.gauges);
	fairq_sched_put(w.ops);
	if (err == -EMSGSIZE && !skb->len)
		return err;
	return err == -EMSGSIZE ? skb->len : err;
}

static int event_fill(struct sk_buff *msg, unsigned long type, const struct fairq_event *ev)
{
	switch (type) {
	case FAIRQ_EVENT_SWITCH:
		return nla_put_string(msg, FAIRQ_A_SCHED_ACTIVE, ev->sw.to) ||
		       nla_put_string(msg, FAIRQ_A_SCHED_PREVIOUS, ev->sw.from) ||
		       put_u64(msg, FAIRQ_A_SCHED_TIME, ev->time_ns, FAIRQ_A_SCHED_PAD) ||
		       (ev->sw.reason &&
			nla_put_string(msg, FAIRQ_A_SCHED_REASON, ev->sw.reason));
	case FAIRQ_EVENT_TUNABLE:
		return (ev->tunable.sched &&
			nla_put_string(msg, FAIRQ_A_SCHED_NAME, ev->tunable.sched)) ||
		       nla_put_string(msg, FAIRQ_A_SCHED_TUNABLE_NAME, ev->tunable.name) ||
		       put_u64(msg, FAIRQ_A_SCHED_TUNABLE_VALUE, ev->tunable.value,
			       FAIRQ_A_SCHED_PAD) ||
		       put_u64(msg, FAIRQ_A_SCHED_TUNABLE_PREVIOUS, ev->tunable.previous,
			       FAIRQ_A_SCHED_PAD) ||
		       put_u64(msg, FAIRQ_A_SCHED_TIME, ev->time_ns, FAIRQ_A_SCHED_PAD);
	case FAIRQ_EVENT_WEIGHT:
		return nla_put_string(msg, FAIRQ_A_KEY_SCHED, ev->weight.sched) ||
		       key_id_put(msg, ev->weight.id) ||
		       nla_put_u32(msg, FAIRQ_A_KEY_WEIGHT, ev->weight.weight) ||
		       put_u64(msg, FAIRQ_A_KEY_TIME, ev->time_ns, FAIRQ_A_KEY_PAD);
	case FAIRQ_EVENT_CLASS:
		return nla_put_string(msg, FAIRQ_A_CLASS_SCHED, ev->class.sched) ||
		       (ev->class.spec ? class_settings_put(msg, ev->class.spec) :
			nla_put_string(msg, FAIRQ_A_CLASS_NAME, ev->class.name) ||
			nla_put_flag(msg, FAIRQ_A_CLASS_DELETED)) ||
		       (ev->class.made && nla_put_flag(msg, FAIRQ_A_CLASS_CREATE)) ||
		       put_u64(msg, FAIRQ_A_CLASS_TIME, ev->time_ns, FAIRQ_A_CLASS_PAD);
	case FAIRQ_EVENT_RESCUE:
		return nla_put_u32(msg, FAIRQ_A_POOL_SERV_ID, ev->rescue.serv) ||
		       nla_put_u32(msg, FAIRQ_A_POOL_POOL_ID, ev->rescue.pool) ||
		       put_u64(msg, FAIRQ_A_POOL_RESCUES, ev->rescue.rescues, FAIRQ_A_POOL_PAD) ||
		       put_u64(msg, FAIRQ_A_POOL_TIME, ev->time_ns, FAIRQ_A_POOL_PAD);
	}
	return -EINVAL;
}

/* Room for the largest event: a class with all its matches, a name and three numbers. */
#define FAIRQ_NL_EVENT_SIZE	1024

/*
 * A switch or a tunable affects every nfsd: announced on the events group to listeners in
 * every network namespace.  A rescue concerns one service: its namespace only, as pool-get
 * shows a caller its own services.  A weight or a class names clients: the key-events group
 * of the initial namespace only, which needs CAP_NET_ADMIN to join.  Called in atomic context
 * (the watchdog's rescues); a notification that cannot be allocated is dropped: nothing fails
 * for it.
 */
static int fairq_nl_event(struct notifier_block *nb, unsigned long type, void *data)
{
	static const u8 cmds[] = {
		[FAIRQ_EVENT_SWITCH] = FAIRQ_CMD_SCHED_SWITCH_NTF,
		[FAIRQ_EVENT_TUNABLE] = FAIRQ_CMD_PARAM_CHANGE_NTF,
		[FAIRQ_EVENT_WEIGHT] = FAIRQ_CMD_WEIGHT_CHANGE_NTF,
		[FAIRQ_EVENT_RESCUE] = FAIRQ_CMD_RESCUE_NTF,
		[FAIRQ_EVENT_CLASS] = FAIRQ_CMD_CLASS_CHANGE_NTF,
	};
	struct sk_buff *msg;
	void *hdr;

	if (type >= ARRAY_SIZE(cmds))
		return NOTIFY_DONE;
	if ((type == FAIRQ_EVENT_WEIGHT || type == FAIRQ_EVENT_CLASS) &&
	    !genl_has_listeners(&fairq_nl_family, &init_net, FAIRQ_NLGRP_KEY_EVENTS))
		return NOTIFY_DONE;
	msg = genlmsg_new(FAIRQ_NL_EVENT_SIZE, GFP_ATOMIC);
	if (!msg)
		return NOTIFY_DONE;
	hdr = genlmsg_put(msg, 0, 0, &fairq_nl_family, 0, cmds[type]);
	if (!hdr || event_fill(msg, type, data)) {
		nlmsg_free(msg);
		return NOTIFY_DONE;
	}
	genlmsg_end(msg, hdr);
	if (type == FAIRQ_EVENT_WEIGHT || type == FAIRQ_EVENT_CLASS)
		genlmsg_multicast(&fairq_nl_family, msg, 0, FAIRQ_NLGRP_KEY_EVENTS, GFP_ATOMIC);
	else if (type == FAIRQ_EVENT_RESCUE)
		genlmsg_multicast_netns(&fairq_nl_family, ((struct fairq_event *)data)->rescue.net,
					msg, 0, FAIRQ_NLGRP_EVENTS, GFP_ATOMIC);
	else
		genlmsg_multicast_allns(&fairq_nl_family, msg, 0, FAIRQ_NLGRP_EVENTS);
	return NOTIFY_OK;
}

static struct notifier_block fairq_nl_events = {
	.notifier_call = fairq_nl_event,
};

int fairq_nl_init(void)
{
	int err;

	err = genl_register_family(&fairq_nl_family);
	if (err)
		return err;
	err = fairq_events_subscribe(&fairq_nl_events);
	if (err)
		genl_unregister_family(&fairq_nl_family);
	return err;
}

void fairq_nl_exit(void)
{
	/* returns once no announcement can still reach the family that goes next */
	fairq_events_unsubscribe(&fairq_nl_events);
	genl_unregister_family(&fairq_nl_family);
}
