/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	docs/netlink/fairq.yaml */
/* YNL-GEN kernel header */

#ifndef _LINUX_FAIRQ_GEN_H
#define _LINUX_FAIRQ_GEN_H

#include <net/netlink.h>
#include <net/genetlink.h>

#include <uapi/linux/fairq.h>

/* Common nested types */
extern const struct nla_policy fairq_key_id_nl_policy[FAIRQ_A_KEY_ID_ADDR + 1];

extern const struct nla_policy fairq_sched_get_nl_policy[FAIRQ_A_SCHED_NAME + 1];

extern const struct nla_policy fairq_sched_set_nl_policy[FAIRQ_A_SCHED_NAME + 1];

extern const struct nla_policy fairq_param_set_nl_policy[FAIRQ_A_SCHED_TUNABLE_VALUE + 1];

extern const struct nla_policy fairq_pool_get_nl_policy[FAIRQ_A_POOL_POOL_ID + 1];

extern const struct nla_policy fairq_key_get_nl_policy[FAIRQ_A_KEY_ID + 1];

extern const struct nla_policy fairq_weight_set_nl_policy[FAIRQ_A_KEY_WEIGHT + 1];

extern const struct nla_policy fairq_weight_get_nl_policy[FAIRQ_A_KEY_SCHED + 1];

extern const struct nla_policy fairq_class_set_nl_policy[FAIRQ_A_CLASS_PER_KEY + 1];

extern const struct nla_policy fairq_class_del_nl_policy[FAIRQ_A_CLASS_SCHED + 1];

extern const struct nla_policy fairq_class_get_nl_policy[FAIRQ_A_CLASS_SCHED + 1];

/* Ops table for fairq */
extern const struct genl_ops fairq_nl_ops[10];

int fairq_nl_sched_get_doit(struct sk_buff *skb, struct genl_info *info);
int fairq_nl_sched_set_doit(struct sk_buff *skb, struct genl_info *info);
int fairq_nl_param_set_doit(struct sk_buff *skb, struct genl_info *info);
int fairq_nl_pool_get_doit(struct sk_buff *skb, struct genl_info *info);
int fairq_nl_pool_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int fairq_nl_key_get_doit(struct sk_buff *skb, struct genl_info *info);
int fairq_nl_key_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int fairq_nl_weight_set_doit(struct sk_buff *skb, struct genl_info *info);
int fairq_nl_weight_get_doit(struct sk_buff *skb, struct genl_info *info);
int fairq_nl_weight_get_dumpit(struct sk_buff *skb,
			       struct netlink_callback *cb);
int fairq_nl_class_set_doit(struct sk_buff *skb, struct genl_info *info);
int fairq_nl_class_del_doit(struct sk_buff *skb, struct genl_info *info);
int fairq_nl_class_get_doit(struct sk_buff *skb, struct genl_info *info);
int fairq_nl_class_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);

enum {
	FAIRQ_NLGRP_EVENTS,
	FAIRQ_NLGRP_KEY_EVENTS,
};

#endif /* _LINUX_FAIRQ_GEN_H */
