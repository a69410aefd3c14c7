/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef SHIM_SVC_H
#define SHIM_SVC_H
#include <linux/spinlock.h>
struct svc_serv { int unused; };
struct svc_pool { int unused; };
struct svc_rqst { int unused; };
/* xpt_ready is two words on 6.1 and one on 6.7+: the tests use the smaller. */
struct svc_xprt {
	int id;
	struct { void *next; } xpt_ready;
};
#endif
