/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sunrpc.svc_rpc_per_connection_limit is a static of sunrpc; its address is found once in
 * sunrpc's own module parameter table, so the readiness rule stays exactly the kernel's
 * without kallsyms.  The table is reached through the owner of sunrpc's own TCP or UDP
 * transport class: other classes belong to other modules (RDMA's to rpcrdma), so the first
 * transport seen may not lead there.  With sunrpc built in there is no module to ask, and the
 * limit (0, off, by default) is not applied; that is said once.
 *
 * A header of its own so that the unit tests can put transports of several classes to it.
 */
#ifndef FAIRQ_COMPAT_CONN_LIMIT_H
#define FAIRQ_COMPAT_CONN_LIMIT_H

#include <linux/module.h>
#include <linux/string.h>
#include <linux/sunrpc/svc_xprt.h>

struct fairq_conn_limit {
	unsigned int *limit;	/* sunrpc's parameter; NULL when not found (not applied) */
	bool looked_up;		/* a transport of sunrpc's own class has been asked */
};

static inline bool fairq_class_is_sunrpc_own(const struct svc_xprt_class *xcl)
{
	return xcl && (!strcmp(xcl->xcl_name, "tcp") || !strcmp(xcl->xcl_name, "udp"));
}

static inline void fairq_conn_limit_find(struct fairq_conn_limit *cl,
					 const struct svc_xprt *xprt)
{
	const struct module *owner;
	unsigned int *limit = NULL;
	unsigned int i;

	if (!fairq_class_is_sunrpc_own(xprt->xpt_class))
		return;		/* ask again with a transport of sunrpc's own */
	owner = xprt->xpt_class->xcl_owner;
	if (owner) {
		for (i = 0; i < owner->num_kp; i++) {
			if (!strcmp(owner->kp[i].name, "svc_rpc_per_connection_limit")) {
				limit = owner->kp[i].arg;
				break;
			}
		}
	}
	if (!limit)
		pr_info_once("sunrpc's svc_rpc_per_connection_limit not found among its module parameters: not applied\n");
	WRITE_ONCE(cl->limit, limit);	/* enqueues on several CPUs may each store it */
	/* publishes the limit's address before the flag that says it was looked up */
	smp_store_release(&cl->looked_up, true);
}

/* Whether @xprt has fewer requests in processing than sunrpc's per-connection limit allows. */
static inline bool fairq_conn_limit_allows(struct fairq_conn_limit *cl, struct svc_xprt *xprt)
{
	unsigned int *limit_param, limit;
	int nrqsts;

	/* pairs with the release in fairq_conn_limit_find() */
	if (unlikely(!smp_load_acquire(&cl->looked_up)))
		fairq_conn_limit_find(cl, xprt);
	limit_param = READ_ONCE(cl->limit);
	limit = limit_param ? READ_ONCE(*limit_param) : 0;
	nrqsts = atomic_read(&xprt->xpt_nr_rqsts);
	return limit == 0 || (nrqsts >= 0 && (unsigned int)nrqsts < limit);
}

#endif
