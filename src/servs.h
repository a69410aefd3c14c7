/* SPDX-License-Identifier: GPL-2.0-only */
/* fairq's state of each nfsd service: its life (servs.c). */
#ifndef _FAIRQ_SERVS_H
#define _FAIRQ_SERVS_H

#include "core.h"

/* fairq's state of @serv, or NULL; under rcu_read_lock() or fairq_servs_lock. */
static inline struct fairq_serv *fairq_serv_lookup(const struct svc_serv *serv)
{
	struct fairq_serv *fs;

	list_for_each_entry_rcu(fs, &fairq_servs, list) {
		if (fs->serv == serv)
			return fs;
	}
	return NULL;
}

void fairq_serv_want(struct svc_xprt *xprt);
void fairq_serv_unwant(const struct svc_serv *serv);
void fairq_servs_unwant_all(void);
void fairq_servs_alloc_stop(void);
void fairq_serv_free(struct fairq_serv *fs);

#endif /* _FAIRQ_SERVS_H */
