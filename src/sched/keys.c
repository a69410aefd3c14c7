// SPDX-License-Identifier: GPL-2.0-only
/*
 * The key and weight model of keyed policies (keys.h).
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/slab.h>
#include <linux/socket.h>
#include <linux/sunrpc/svc_xprt.h>
#include <net/ipv6.h>
#include "keys.h"

/*
 * The key of @xprt's peer address grouped by @type (not V4CLIENT); UDP and unknown families
 * all share one key.
 */
static void addr_key_of(struct svc_xprt *xprt, u32 type, u32 prefix4, u32 prefix6,
			struct fairq_key_id *id)
{
	const struct sockaddr *sa = (const struct sockaddr *)&xprt->xpt_remote;
	unsigned int bits = 0, i;
	__be16 port = 0;

	memset(id, 0, sizeof(*id));
	id->type = type;
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *sin = (const void *)sa;

		id->family = AF_INET;
		memcpy(id->addr, &sin->sin_addr, 4);
		port = sin->sin_port;
		bits = prefix4;
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *sin6 = (const void *)sa;

		port = sin6->sin6_port;
		if (ipv6_addr_v4mapped(&sin6->sin6_addr)) {
			id->family = AF_INET;
			memcpy(id->addr, &sin6->sin6_addr.s6_addr32[3], 4);
			bits = prefix4;
		} else {
			id->family = AF_INET6;
			memcpy(id->addr, &sin6->sin6_addr, 16);
			bits = prefix6;
		}
	} else {
		id->type = FAIRQ_KEY_TYPE_CONN;	/* the shared UDP transport: one key for all */
		return;
	}

	if (type == FAIRQ_KEY_TYPE_SUBNET) {
		unsigned int len = id->family == AF_INET ? 4 : 16;

		id->prefix_len = bits;
		for (i = 0; i < len; i++) {
			if (bits >= 8) {
				bits -= 8;
			} else {
				id->addr[i] &= (u8)(0xff00 >> bits);
				bits = 0;
			}
		}
	} else if (type == FAIRQ_KEY_TYPE_CONN) {
		id->port = port;	/* address plus source port names one connection */
	} else {
		id->type = FAIRQ_KEY_TYPE_ADDR;
	}
}

/**
 * fairq_key_of - the key @xprt belongs to now
 * @xprt: a transport of the pool
 * @type: FAIRQ_KEY_*: how transports are grouped
 * @prefix4: the subnet of an IPv4 client, for FAIRQ_KEY_TYPE_SUBNET
 * @prefix6: the same for IPv6
 * @id: its key
 * @addr_id: if not NULL, its address key too: weight rules by address still apply to clients
 *	keyed by NFSv4.1 client id
 */
void fairq_key_of(struct svc_xprt *xprt, u32 type, u32 prefix4, u32 prefix6,
		  struct fairq_key_id *id, struct fairq_key_id *addr_id)
{
	__be64 be_clientid;
	u64 clientid;

	addr_key_of(xprt, type == FAIRQ_KEY_TYPE_V4CLIENT ? FAIRQ_KEY_TYPE_ADDR : type, prefix4,
		    prefix6, id);
	if (addr_id)
		*addr_id = *id;
	if (type == FAIRQ_KEY_TYPE_V4CLIENT && id->type == FAIRQ_KEY_TYPE_ADDR &&
	    fairq_v4client_of(xprt, &clientid)) {
		memset(id, 0, sizeof(*id));
		id->type = FAIRQ_KEY_TYPE_V4CLIENT;
		/* bytes in the order /proc/fs/nfsd/clients/N/info prints the id */
		be_clientid = cpu_to_be64(clientid);
		memcpy(id->addr, &be_clientid, sizeof(be_clientid));
	}
}

/**
 * fairq_key_rule_matches - whether a rule's key (an address, a subnet or an NFSv4.1 client
 * id) takes in the key @id
 * @rule: a key fairq_key_rule_valid() accepted
 * @id: a key a transport belongs to
 */
bool fairq_key_rule_matches(const struct fairq_key_id *rule, const struct fairq_key_id *id)
{
	unsigned int bits, i;

	if (rule->type == FAIRQ_KEY_TYPE_V4CLIENT || id->type == FAIRQ_KEY_TYPE_V4CLIENT)
		return rule->type == id->type && !memcmp(rule->addr, id->addr, 8);
	if (rule->family != id->family)
		return false;
	bits = rule->type == FAIRQ_KEY_TYPE_SUBNET ? rule->prefix_len :
	       (id->family == AF_INET ? 32 : 128);
	for (i = 0; bits; i++) {
		u8 mask = bits >= 8 ? 0xff : (u8)(0xff00 >> bits);

		if ((rule->addr[i] ^ id->addr[i]) & mask)
			return false;
		bits -= bits >= 8 ? 8 : bits;
	}
	return true;
}

/* How specific a rule is: a client id beats an address, which beats any subnet. */
static u32 rule_rank(const struct fairq_weight_rule *r)
{
	if (r->id.type == FAIRQ_KEY_TYPE_V4CLIENT)
		return 130;
	return r->id.type == FAIRQ_KEY_TYPE_SUBNET ? r->id.prefix_len : 129;
}

/**
 * fairq_weight_of - the weight of a key
 * @weights: the policy's rules
 * @id: the key
 * @addr_id: its address key (the same as @id unless keyed by NFSv4.1 client id)
 *
 * The most specific rule for @id, or else for its address @addr_id, wins; no rule means
 * weight 1.
 */
u32 fairq_weight_of(struct fairq_weights __rcu **weights, const struct fairq_key_id *id,
		    const struct fairq_key_id *addr_id)
{
	const struct fairq_weights *rules;
	u32 weight = 1, best = 0;
	unsigned int i;

	rcu_read_lock();
	rules = rcu_dereference(*weights);
	for (i = 0; rules && i < rules->nr; i++) {
		const struct fairq_weight_rule *r = &rules->rule[i];
		u32 rank = rule_rank(r);

		if (rank < best)
			continue;
		if (fairq_key_rule_matches(&r->id, id) || fairq_key_rule_matches(&r->id, addr_id)) {
			best = rank;
			weight = r->weight;
		}
	}
	rcu_read_unlock();
	return weight;
}

/**
 * fairq_key_rule_valid - whether @id can name clients in a rule (a weight, a class's match):
 * an address, a subnet with a prefix length its family has, or an NFSv4.1 client id
 * @id: as a caller gave it
 */
bool fairq_key_rule_valid(const struct fairq_key_id *id)
{
	if (id->type != FAIRQ_KEY_TYPE_ADDR && id->type != FAIRQ_KEY_TYPE_SUBNET &&
	    id->type != FAIRQ_KEY_TYPE_V4CLIENT)
		return false;
	if (id->type == FAIRQ_KEY_TYPE_V4CLIENT)
		return !id->family;
	if (id->family != AF_INET && id->family != AF_INET6)
		return false;
	return id->type != FAIRQ_KEY_TYPE_SUBNET ||
	       id->prefix_len <= (id->family == AF_INET ? 32 : 128);
}

/**
 * fairq_weights_set - set the weight of the clients @id stands for
 * @weights: the policy's rules; the caller holds fairq's change lock
 * @id: an address, a subnet or an NFSv4.1 client id
 * @weight: 1 to FAIRQ_WEIGHT_MAX; 0 removes the rule
 *
 * Return: 0, then the policy's keys take the weight when rebuilt; -EALREADY if that is the
 * weight they have (nothing changed); -EOPNOTSUPP for a key type rules cannot name (a
 * connection); -EINVAL for a bad weight or key; -ENOSPC past FAIRQ_WEIGHT_RULES_MAX rules;
 * -ENOMEM.
 */
int fairq_weights_set(struct fairq_weights __rcu **weights, const struct fairq_key_id *id,
		      u32 weight)
{
	struct fairq_weights *old, *new;
	unsigned int i, n;

	if (id->type != FAIRQ_KEY_TYPE_ADDR && id->type != FAIRQ_KEY_TYPE_SUBNET &&
	    id->type != FAIRQ_KEY_TYPE_V4CLIENT)
		return -EOPNOTSUPP;
	if (weight > FAIRQ_WEIGHT_MAX || !fairq_key_rule_valid(id))
		return -EINVAL;
	old = rcu_dereference_protected(*weights, fairq_change_held());
	n = old ? old->nr : 0;
	/* the weight it has (0: none set): a rebuild of every pool would lose their accounts */
	for (i = 0; i < n && memcmp(&old->rule[i].id, id, sizeof(*id)); i++)
		;
	if (i < n ? old->rule[i].weight == weight : !weight)
		return -EALREADY;
	new = kzalloc(struct_size(new, rule, n + 1), GFP_KERNEL);
	if (!new)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (!memcmp(&old->rule[i].id, id, sizeof(*id)))
			continue;	/* replaced (or removed with weight 0) */
		new->rule[new->nr++] = old->rule[i];
	}
	if (weight) {
		if (new->nr >= FAIRQ_WEIGHT_RULES_MAX) {
			kfree(new);
			return -ENOSPC;
		}
		new->rule[new->nr].id = *id;
		new->rule[new->nr].weight = weight;
		new->nr++;
	}
	rcu_assign_pointer(*weights, new);
	if (old)
		kfree_rcu(old, rcu);
	return 0;
}

/**
 * fairq_weights_walk - report the rules, in the order they were set, from *@cursor
 * @weights: the policy's rules
 * @cursor: 0 for the first; where @fn stopped, on a non-zero return
 * @fn: called for each rule; must not sleep
 * @arg: for @fn
 *
 * Return: 0, or @fn's non-zero value.
 */
int fairq_weights_walk(struct fairq_weights __rcu **weights, u64 *cursor, fairq_weight_fn fn,
		       void *arg)
{
	const struct fairq_weights *rules;
	int err = 0;

	rcu_read_lock();
	rules = rcu_dereference(*weights);
	for (; rules && *cursor < rules->nr; (*cursor)++) {
		err = fn(&rules->rule[*cursor].id, rules->rule[*cursor].weight, arg);
		if (err)
			break;
	}
	rcu_read_unlock();
	return err;
}

/**
 * fairq_weights_clear - drop every rule (the policy is unregistered)
 * @weights: the policy's rules, which no reader uses any more
 */
void fairq_weights_clear(struct fairq_weights __rcu **weights)
{
	struct fairq_weights *rules = rcu_dereference_protected(*weights, true);

	rcu_assign_pointer(*weights, NULL);
	if (rules)
		kfree_rcu(rules, rcu);
}
