/* SPDX-License-Identifier: GPL-2.0-only */
/* The generic netlink family "fairq" (docs/netlink/fairq.yaml). */
#ifndef _FAIRQ_NETLINK_H
#define _FAIRQ_NETLINK_H

int fairq_nl_init(void);
void fairq_nl_exit(void);

#endif /* _FAIRQ_NETLINK_H */
