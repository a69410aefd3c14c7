/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A FIFO of transports linked through their own xpt_ready field.
 *
 * A transport owned by fairq (XPT_BUSY set by us, not in any kernel pool queue) has an unused
 * xpt_ready, so queueing needs no allocation.  xpt_ready is a list_head on 6.1 and a single
 * llist_node on 6.7+, so only its first word is used: a singly linked list with a tail pointer.
 */
#ifndef _FAIRQ_XLIST_H
#define _FAIRQ_XLIST_H

#include <linux/types.h>

struct svc_xprt;

struct fairq_xnode {
	struct fairq_xnode *next;
};

struct fairq_xlist {
	struct fairq_xnode *head;
	struct fairq_xnode **tail;
	unsigned int len;
};

struct fairq_xnode *fairq_xnode_of(struct svc_xprt *xprt);
struct svc_xprt *fairq_xprt_of(struct fairq_xnode *node);

static inline void fairq_xlist_init(struct fairq_xlist *l)
{
	l->head = NULL;
	l->tail = &l->head;
	l->len = 0;
}

static inline bool fairq_xlist_empty(const struct fairq_xlist *l)
{
	return !l->head;
}

static inline void fairq_xlist_push(struct fairq_xlist *l, struct svc_xprt *xprt)
{
	struct fairq_xnode *n = fairq_xnode_of(xprt);

	n->next = NULL;
	*l->tail = n;
	l->tail = &n->next;
	l->len++;
}

static inline struct svc_xprt *fairq_xlist_pop(struct fairq_xlist *l)
{
	struct fairq_xnode *n = l->head;

	if (!n)
		return NULL;
	l->head = n->next;
	if (!l->head)
		l->tail = &l->head;
	l->len--;
	return fairq_xprt_of(n);
}

/* Move every entry of @from to the tail of @to, keeping order. */
static inline void fairq_xlist_splice(struct fairq_xlist *to, struct fairq_xlist *from)
{
	if (!from->head)
		return;
	*to->tail = from->head;
	to->tail = from->tail;
	to->len += from->len;
	fairq_xlist_init(from);
}

/* O(n): only for rare events (a transport closed while queued). */
static inline bool fairq_xlist_remove(struct fairq_xlist *l, struct svc_xprt *xprt)
{
	struct fairq_xnode *n = fairq_xnode_of(xprt);
	struct fairq_xnode **pp;

	for (pp = &l->head; *pp; pp = &(*pp)->next) {
		if (*pp != n)
			continue;
		*pp = n->next;
		if (l->tail == &n->next)
			l->tail = pp;
		l->len--;
		return true;
	}
	return false;
}

#endif /* _FAIRQ_XLIST_H */
