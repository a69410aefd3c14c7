/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Generic netlink differences between the supported kernels, for netlink.c.  Selected by the
 * probes in Kbuild.include, never by version numbers.
 */
#ifndef _FAIRQ_COMPAT_NETLINK_H
#define _FAIRQ_COMPAT_NETLINK_H

#include <linux/netlink.h>
#include <net/genetlink.h>

/* The header of a reply to @info; without genlmsg_iput(), genl_info does not know @family. */
static inline void *fairq_genlmsg_iput(struct sk_buff *skb, const struct genl_info *info,
				       const struct genl_family *family)
{
#ifdef FAIRQ_HAVE_GENLMSG_IPUT
	return genlmsg_iput(skb, info);
#else
	return genlmsg_put(skb, info->snd_portid, info->snd_seq, family, 0, info->genlhdr->cmd);
#endif
}

/* The request attributes of a dump, parsed and checked against the op's policy. */
static inline struct nlattr **fairq_dump_attrs(struct netlink_callback *cb)
{
#ifdef FAIRQ_HAVE_GENL_INFO_DUMP
	return genl_info_dump(cb)->attrs;
#else
	return genl_dumpit_info(cb)->attrs;
#endif
}

/* A value outside [@min, @max]: the range is in the message where the kernel can format one. */
static inline void fairq_nl_err_range(struct netlink_ext_ack *extack, const struct nlattr *attr,
				      u64 min, u64 max)
{
#ifdef FAIRQ_HAVE_NL_ERR_MSG_FMT
	NL_SET_ERR_MSG_ATTR_FMT(extack, attr, "value out of the tunable's range [%llu, %llu]",
				min, max);
#else
	NL_SET_ERR_MSG_ATTR(extack, attr, "value out of the tunable's range");
#endif
}

#endif /* _FAIRQ_COMPAT_NETLINK_H */
