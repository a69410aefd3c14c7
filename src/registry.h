/* SPDX-License-Identifier: GPL-2.0-only */
/* The registry: the policies by name, switching between them, their settings, the fail-safe. */
#ifndef _FAIRQ_REGISTRY_H
#define _FAIRQ_REGISTRY_H

#include <fairq/sched.h>

struct notifier_block;
struct svc_serv;

int fairq_change_begin(void);
void fairq_change_end(void);
void fairq_changes_open_up(void);
int fairq_changes_close(void);
const struct fairq_sched_ops *fairq_sched_find(const char *name, size_t len);
bool fairq_sched_get(const struct fairq_sched_ops *ops);
void fairq_sched_put(const struct fairq_sched_ops *ops);
enum fairq_sched_change {
	FAIRQ_SCHED_REGISTERED,
	FAIRQ_SCHED_UNREGISTERED,
};

int fairq_scheds_subscribe(struct notifier_block *nb);
void fairq_scheds_unsubscribe(struct notifier_block *nb);
int fairq_sched_for_each(int (*fn)(const struct fairq_sched_ops *ops, void *arg), void *arg);
int fairq_sched_select(const char *name, size_t len);
void fairq_sched_quiesce(struct svc_serv *serv);
int fairq_tunable_set(const struct fairq_sched_ops *ops, const struct fairq_tunable *t, u64 val);
int fairq_failsafe_init(void);
void fairq_failsafe_exit(void);
extern unsigned int fairq_failsafe_rescues;
extern atomic_long_t fairq_failsafe_switches;
#define FAIRQ_FAILSAFE_WINDOW_S		10
#define FAIRQ_FAILSAFE_RESCUES_MAX	100000
struct fairq_event;
void fairq_tunable_changed(struct fairq_event *ev);
void fairq_weight_changed(const struct fairq_sched_ops *ops, const struct fairq_key_id *id,
			  u32 weight);
enum fairq_class_change { FAIRQ_CLASS_MADE, FAIRQ_CLASS_CHANGED, FAIRQ_CLASS_DELETED };
void fairq_class_changed(const struct fairq_sched_ops *ops, const char *name,
			 enum fairq_class_change change);

#endif /* _FAIRQ_REGISTRY_H */
