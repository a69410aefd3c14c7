// SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause)
/* Do not edit directly, auto-generated from: */
/*	docs/netlink/fairq.yaml */
/* YNL-GEN kernel source */

#include <net/netlink.h>
#include <net/genetlink.h>

#include "netlink-gen.h"

#include <uapi/linux/fairq.h>

/* Common nested types */
const struct nla_policy fairq_key_id_nl_policy[FAIRQ_A_KEY_ID_ADDR + 1] = {
	[FAIRQ_A_KEY_ID_TYPE] = NLA_POLICY_RANGE(NLA_U8, 1, 4),
	[FAIRQ_A_KEY_ID_FAMILY] = { .type = NLA_U8, },
	[FAIRQ_A_KEY_ID_PREFIX_LEN] = NLA_POLICY_MAX(NLA_U8, 128),
	[FAIRQ_A_KEY_ID_PORT] = { .type = NLA_U16, },
	[FAIRQ_A_KEY_ID_ADDR] = { .type = NLA_BINARY, },
};

/* FAIRQ_CMD_SCHED_GET - do */
const struct nla_policy fairq_sched_get_nl_policy[FAIRQ_A_SCHED_NAME + 1] = {
	[FAIRQ_A_SCHED_NAME] = { .type = NLA_NUL_STRING, .len = FAIRQ_SCHED_NAME_LEN, },
};

/* FAIRQ_CMD_SCHED_SET - do */
const struct nla_policy fairq_sched_set_nl_policy[FAIRQ_A_SCHED_NAME + 1] = {
	[FAIRQ_A_SCHED_NAME] = { .type = NLA_NUL_STRING, .len = FAIRQ_SCHED_NAME_LEN, },
};

/* FAIRQ_CMD_PARAM_SET - do */
const struct nla_policy fairq_param_set_nl_policy[FAIRQ_A_SCHED_TUNABLE_VALUE + 1] = {
	[FAIRQ_A_SCHED_NAME] = { .type = NLA_NUL_STRING, .len = FAIRQ_SCHED_NAME_LEN, },
	[FAIRQ_A_SCHED_TUNABLE_NAME] = { .type = NLA_NUL_STRING, .len = FAIRQ_TUNABLE_NAME_LEN, },
	[FAIRQ_A_SCHED_TUNABLE_VALUE] = { .type = NLA_U64, },
};

/* FAIRQ_CMD_POOL_GET - do */
const struct nla_policy fairq_pool_get_nl_policy[FAIRQ_A_POOL_POOL_ID + 1] = {
	[FAIRQ_A_POOL_ALL_NETNS] = { .type = NLA_FLAG, },
	[FAIRQ_A_POOL_SERV_ID] = { .type = NLA_U32, },
	[FAIRQ_A_POOL_POOL_ID] = { .type = NLA_U32, },
};

/* FAIRQ_CMD_KEY_GET - do */
const struct nla_policy fairq_key_get_nl_policy[FAIRQ_A_KEY_ID + 1] = {
	[FAIRQ_A_KEY_ALL_NETNS] = { .type = NLA_FLAG, },
	[FAIRQ_A_KEY_SERV_ID] = { .type = NLA_U32, },
	[FAIRQ_A_KEY_POOL_ID] = { .type = NLA_U32, },
	[FAIRQ_A_KEY_ID] = NLA_POLICY_NESTED(fairq_key_id_nl_policy),
};

/* FAIRQ_CMD_WEIGHT_SET - do */
const struct nla_policy fairq_weight_set_nl_policy[FAIRQ_A_KEY_WEIGHT + 1] = {
	[FAIRQ_A_KEY_ID] = NLA_POLICY_NESTED(fairq_key_id_nl_policy),
	[FAIRQ_A_KEY_WEIGHT] = { .type = NLA_U32, },
};

/* FAIRQ_CMD_WEIGHT_GET - do */
const struct nla_policy fairq_weight_get_nl_policy[FAIRQ_A_KEY_SCHED + 1] = {
	[FAIRQ_A_KEY_SCHED] = { .type = NLA_NUL_STRING, .len = FAIRQ_SCHED_NAME_LEN, },
	[FAIRQ_A_KEY_ID] = NLA_POLICY_NESTED(fairq_key_id_nl_policy),
};

/* FAIRQ_CMD_CLASS_SET - do */
const struct nla_policy fairq_class_set_nl_policy[FAIRQ_A_CLASS_PER_KEY + 1] = {
	[FAIRQ_A_CLASS_NAME] = { .type = NLA_NUL_STRING, .len = FAIRQ_CLASS_NAME_LEN, },
	[FAIRQ_A_CLASS_CREATE] = { .type = NLA_FLAG, },
	[FAIRQ_A_CLASS_RANK] = { .type = NLA_U32, },
	[FAIRQ_A_CLASS_MATCH] = NLA_POLICY_NESTED(fairq_key_id_nl_policy),
	[FAIRQ_A_CLASS_LIMIT_RPS] = { .type = NLA_U32, },
	[FAIRQ_A_CLASS_BURST] = { .type = NLA_U32, },
	[FAIRQ_A_CLASS_WEIGHT] = { .type = NLA_U32, },
	[FAIRQ_A_CLASS_RESERVE] = { .type = NLA_U32, },
	[FAIRQ_A_CLASS_LIMIT_PCT] = { .type = NLA_U32, },
	[FAIRQ_A_CLASS_PER_KEY] = { .type = NLA_U8, },
	[FAIRQ_A_CLASS_SCHED] = { .type = NLA_NUL_STRING, .len = FAIRQ_SCHED_NAME_LEN, },
};

/* FAIRQ_CMD_CLASS_DEL - do */
const struct nla_policy fairq_class_del_nl_policy[FAIRQ_A_CLASS_SCHED + 1] = {
	[FAIRQ_A_CLASS_NAME] = { .type = NLA_NUL_STRING, .len = FAIRQ_CLASS_NAME_LEN, },
	[FAIRQ_A_CLASS_SCHED] = { .type = NLA_NUL_STRING, .len = FAIRQ_SCHED_NAME_LEN, },
};

/* FAIRQ_CMD_CLASS_GET - do */
const struct nla_policy fairq_class_get_nl_policy[FAIRQ_A_CLASS_SCHED + 1] = {
	[FAIRQ_A_CLASS_NAME] = { .type = NLA_NUL_STRING, .len = FAIRQ_CLASS_NAME_LEN, },
	[FAIRQ_A_CLASS_ALL_NETNS] = { .type = NLA_FLAG, },
	[FAIRQ_A_CLASS_SCHED] = { .type = NLA_NUL_STRING, .len = FAIRQ_SCHED_NAME_LEN, },
};

/* Ops table for fairq */
const struct genl_ops fairq_nl_ops[10] = {
	{
		.cmd		= FAIRQ_CMD_SCHED_GET,
		.doit		= fairq_nl_sched_get_doit,
		.policy		= fairq_sched_get_nl_policy,
		.maxattr	= FAIRQ_A_SCHED_NAME,
	},
	{
		.cmd		= FAIRQ_CMD_SCHED_SET,
		.doit		= fairq_nl_sched_set_doit,
		.policy		= fairq_sched_set_nl_policy,
		.maxattr	= FAIRQ_A_SCHED_NAME,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= FAIRQ_CMD_PARAM_SET,
		.doit		= fairq_nl_param_set_doit,
		.policy		= fairq_param_set_nl_policy,
		.maxattr	= FAIRQ_A_SCHED_TUNABLE_VALUE,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= FAIRQ_CMD_POOL_GET,
		.doit		= fairq_nl_pool_get_doit,
		.dumpit		= fairq_nl_pool_get_dumpit,
		.policy		= fairq_pool_get_nl_policy,
		.maxattr	= FAIRQ_A_POOL_POOL_ID,
	},
	{
		.cmd		= FAIRQ_CMD_KEY_GET,
		.doit		= fairq_nl_key_get_doit,
		.dumpit		= fairq_nl_key_get_dumpit,
		.policy		= fairq_key_get_nl_policy,
		.maxattr	= FAIRQ_A_KEY_ID,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= FAIRQ_CMD_WEIGHT_SET,
		.doit		= fairq_nl_weight_set_doit,
		.policy		= fairq_weight_set_nl_policy,
		.maxattr	= FAIRQ_A_KEY_WEIGHT,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= FAIRQ_CMD_WEIGHT_GET,
		.doit		= fairq_nl_weight_get_doit,
		.dumpit		= fairq_nl_weight_get_dumpit,
		.policy		= fairq_weight_get_nl_policy,
		.maxattr	= FAIRQ_A_KEY_SCHED,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= FAIRQ_CMD_CLASS_SET,
		.doit		= fairq_nl_class_set_doit,
		.policy		= fairq_class_set_nl_policy,
		.maxattr	= FAIRQ_A_CLASS_PER_KEY,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= FAIRQ_CMD_CLASS_DEL,
		.doit		= fairq_nl_class_del_doit,
		.policy		= fairq_class_del_nl_policy,
		.maxattr	= FAIRQ_A_CLASS_SCHED,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= FAIRQ_CMD_CLASS_GET,
		.doit		= fairq_nl_class_get_doit,
		.dumpit		= fairq_nl_class_get_dumpit,
		.policy		= fairq_class_get_nl_policy,
		.maxattr	= FAIRQ_A_CLASS_SCHED,
		.flags		= GENL_ADMIN_PERM,
	},
};

static const struct genl_multicast_group fairq_nl_mcgrps[] = {
	[FAIRQ_NLGRP_EVENTS] = { "events", },
	[FAIRQ_NLGRP_KEY_EVENTS] = { "key-events", .flags = GENL_MCAST_CAP_NET_ADMIN, },
};
