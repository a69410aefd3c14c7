// SPDX-License-Identifier: GPL-2.0-only
/*
 * The link of <fairq/xlist.h>: a transport's own xpt_ready, unused while fairq owns the
 * transport.  Out of line so that the header needs no sunrpc definitions, and so that the unit
 * tests can count how many transports a search visits.
 */
#include <linux/export.h>
#include <linux/sunrpc/svc_xprt.h>
#include <fairq/xlist.h>

struct fairq_xnode *fairq_xnode_of(struct svc_xprt *xprt)
{
	BUILD_BUG_ON(sizeof(xprt->xpt_ready) < sizeof(struct fairq_xnode));
	return (struct fairq_xnode *)&xprt->xpt_ready;
}
EXPORT_SYMBOL_GPL(fairq_xnode_of);

struct svc_xprt *fairq_xprt_of(struct fairq_xnode *node)
{
	return container_of((void *)node, struct svc_xprt, xpt_ready);
}
EXPORT_SYMBOL_GPL(fairq_xprt_of);
