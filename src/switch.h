/* SPDX-License-Identifier: GPL-2.0-only */
/* Moving work between owners: switches, rebuilds, pools and services going (switch.c). */
#ifndef _FAIRQ_SWITCH_H
#define _FAIRQ_SWITCH_H

#include "core.h"

/* Serialises switches, tunables and weights, and what they change. */
extern struct mutex fairq_sched_mutex;

void fairq_switch(const struct fairq_sched_ops *new_ops);
void fairq_thread_exiting(struct svc_rqst *rqstp);
void fairq_serv_threads_changing(struct svc_serv *serv, bool to_none);
void fairq_serv_destroyed(struct svc_serv *serv);
void fairq_servs_free(void);
void fairq_core_init(void (*quiesce)(struct svc_serv *serv));
void fairq_core_exit(void);

#endif /* _FAIRQ_SWITCH_H */
