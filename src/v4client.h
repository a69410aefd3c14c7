/* SPDX-License-Identifier: GPL-2.0-only */
/* Which NFSv4.1 client owns a connection (the lookups policies use are in <fairq/sched.h>). */
#ifndef _FAIRQ_V4CLIENT_H
#define _FAIRQ_V4CLIENT_H

#include <linux/types.h>
#include <fairq/sched.h>

struct svc_xprt;
struct svc_rqst;

void fairq_v4client_forget(const struct svc_xprt *xprt);
unsigned int fairq_v4client_bound(void);
u64 fairq_v4client_skipped(void);
u64 fairq_v4client_refused(void);
u64 fairq_v4client_missed(void);
int fairq_v4client_init(void);
void fairq_v4client_exit(void);

#endif /* _FAIRQ_V4CLIENT_H */
