/* SPDX-License-Identifier: GPL-2.0-only */
/* Which NFSv4.1 client owns a connection (the lookups policies use are in <fairq/sched.h>). */
#ifndef _FAIRQ_V4CLIENT_H
#define _FAIRQ_V4CLIENT_H

#include <linux/types.h>
#include <fairq/sched.h>

struct svc_xprt;
struct svc_rqst;

void fairq_v4client_forget(const struct svc_xprt *xprt);
void fairq_v4client_stats(unsigned int *bound, u64 *skipped, u64 *refused, u64 *missed);
int fairq_v4client_init(void);
void fairq_v4client_exit(void);

#endif /* _FAIRQ_V4CLIENT_H */
