/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The key and weight model of keyed policies: which key a transport belongs to (its client's
 * address, subnet, connection or NFSv4.1 client id), and the weight rules set for keys over
 * netlink (fairqctl weight), the most specific rule winning.
 */
#ifndef FAIRQ_SCHED_KEYS_H
#define FAIRQ_SCHED_KEYS_H

#include <linux/rcupdate.h>
#include <linux/types.h>
#include <fairq/sched.h>

struct svc_xprt;

#define FAIRQ_WEIGHT_MAX	1000
#define FAIRQ_WEIGHT_RULES_MAX	64

void fairq_key_of(struct svc_xprt *xprt, u32 type, u32 prefix4, u32 prefix6,
		  struct fairq_key_id *id, struct fairq_key_id *addr_id);

bool fairq_key_rule_valid(const struct fairq_key_id *id);
bool fairq_key_rule_matches(const struct fairq_key_id *rule, const struct fairq_key_id *id);

struct fairq_weight_rule {
	struct fairq_key_id id;		/* an address, subnet or NFSv4.1 client id */
	u32 weight;
};

/* A policy's weight rules: replaced whole with the change lock held, read under RCU. */
struct fairq_weights {
	struct rcu_head rcu;
	unsigned int nr;
	struct fairq_weight_rule rule[];
};

u32 fairq_weight_of(struct fairq_weights __rcu **weights, const struct fairq_key_id *id,
		    const struct fairq_key_id *addr_id);
int fairq_weights_set(struct fairq_weights __rcu **weights, const struct fairq_key_id *id,
		      u32 weight);
int fairq_weights_walk(struct fairq_weights __rcu **weights, u64 *cursor, fairq_weight_fn fn,
		       void *arg);
void fairq_weights_clear(struct fairq_weights __rcu **weights);

#endif
