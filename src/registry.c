// SPDX-License-Identifier: GPL-2.0-only
/* The policies fairq can switch between, by name. */
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "fairq.h"
#include <fairq/trace.h>

struct fairq_sched_entry {
	struct list_head list;
	const struct fairq_sched_ops *ops;
};

/* Serialises registration, lookups that lead to a switch, and the switch itself. */
DEFINE_MUTEX(fairq_sched_mutex);
static LIST_HEAD(fairq_scheds);

/*
 * Whether anything may be changed: false until init has set up every part a switch touches,
 * and again from the moment unload begins.  A writer that waited on the mutex across unload's
 * final switch must not bring the hooks back.  Written and read under fairq_sched_mutex.
 */
static bool fairq_changes_open;

/**
 * fairq_change_begin - take fairq_sched_mutex for a change of scheduler, tunable or weight
 *
 * Return: 0 with the mutex held, or -ENODEV (mutex not held) while fairq is loading or
 * unloading: no interface may switch then.
 */
int fairq_change_begin(void)
{
	mutex_lock(&fairq_sched_mutex);
	if (likely(fairq_changes_open))
		return 0;
	mutex_unlock(&fairq_sched_mutex);
	return -ENODEV;
}

void fairq_change_end(void)
{
	mutex_unlock(&fairq_sched_mutex);
}

/* Init is complete: the interfaces may change things from now on. */
void fairq_changes_open_up(void)
{
	mutex_lock(&fairq_sched_mutex);
	fairq_changes_open = true;
	mutex_unlock(&fairq_sched_mutex);
}

/**
 * fairq_changes_close - unload begins: refuse every change, and return to the kernel's dispatch
 *
 * Return: the final switch's error (a bug: it cannot fail towards fifo).
 */
int fairq_changes_close(void)
{
	const struct fairq_sched_ops *old;
	int err;

	mutex_lock(&fairq_sched_mutex);
	fairq_changes_open = false;
	/* hands every held transport back to the kernel, then removes the hooks */
	old = fairq_active_sched();
	err = fairq_switch(&fairq_sched_fifo);
	if (old != &fairq_sched_fifo)
		trace_fairq_switch(old->name, fairq_sched_fifo.name, err);
	if (old != &fairq_sched_fifo && !err) {
		struct fairq_event ev = { .sw = { .from = old->name, .to = "fifo" } };

		pr_info("scheduler: fifo (was %s), unloading, by %s[%d]\n", old->name,
			current->comm, task_pid_nr(current));
		fairq_event_announce(FAIRQ_EVENT_SWITCH, &ev);
	}
	mutex_unlock(&fairq_sched_mutex);
	return err;
}

static bool tunables_complete(const struct fairq_tunable *t)
{
	for (; t && t->name; t++) {
		if (!t->get || !t->set || t->min > t->max || t->def < t->min || t->def > t->max)
			return false;
	}
	return true;
}

static bool ops_complete(const struct fairq_sched_ops *ops)
{
	if (!ops->name || !*ops->name || strlen(ops->name) >= FAIRQ_SCHED_NAME_MAX)
		return false;
	if (ops->flags & FAIRQ_SCHED_NATIVE)
		return true;
	if (ops->kick && !(ops->has_idle && ops->quiesce))
		return false;
	if (!tunables_complete(ops->tunables))
		return false;
	return ops->init_pool && ops->enqueue && ops->pick && ops->has_work && ops->drain &&
	       ops->remove && ops->priv_size <= FAIRQ_SCHED_PRIV_BYTES;
}

static struct fairq_sched_entry *entry_find(const char *name, size_t len)
{
	struct fairq_sched_entry *e;

	list_for_each_entry(e, &fairq_scheds, list) {
		if (strlen(e->ops->name) == len && !strncmp(e->ops->name, name, len))
			return e;
	}
	return NULL;
}

/**
 * fairq_register_sched - offer a policy
 * @ops: its ops table, which must outlive the registration
 *
 * Return: 0; -EINVAL if a mandatory op is missing or the name is bad; -EEXIST for a duplicate
 * name; -EOPNOTSUPP if the policy would do nothing on this kernel (it is then not offered).
 */
int fairq_register_sched(const struct fairq_sched_ops *ops)
{
	struct fairq_sched_entry *e;
	int err = 0;

	if (WARN_ON_ONCE(!ops_complete(ops)))
		return -EINVAL;
	if (ops->supported && !ops->supported())
		return -EOPNOTSUPP;
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	e->ops = ops;
	mutex_lock(&fairq_sched_mutex);
	if (entry_find(ops->name, strlen(ops->name)))
		err = -EEXIST;
	else
		list_add_tail(&e->list, &fairq_scheds);
	mutex_unlock(&fairq_sched_mutex);
	if (err)
		kfree(e);
	return err;
}

/* Unregistering the active queueing policy is the caller's bug: switch away first. */
void fairq_unregister_sched(const struct fairq_sched_ops *ops)
{
	struct fairq_sched_entry *e;

	mutex_lock(&fairq_sched_mutex);
	e = entry_find(ops->name, strlen(ops->name));
	WARN_ON_ONCE(fairq_active_sched() == ops && !(ops->flags & FAIRQ_SCHED_NATIVE));
	if (e)
		list_del(&e->list);
	mutex_unlock(&fairq_sched_mutex);
	if (e && ops->release)
		ops->release();
	kfree(e);
}

/* Caller holds fairq_sched_mutex. */
const struct fairq_sched_ops *fairq_sched_find(const char *name, size_t len)
{
	struct fairq_sched_entry *e;

	lockdep_assert_held(&fairq_sched_mutex);
	e = entry_find(name, len);
	return e ? e->ops : NULL;
}

/* Caller holds fairq_sched_mutex; stops at the first non-zero return of @fn. */
int fairq_sched_for_each(int (*fn)(const struct fairq_sched_ops *ops, void *arg), void *arg)
{
	struct fairq_sched_entry *e;
	int ret;

	lockdep_assert_held(&fairq_sched_mutex);
	list_for_each_entry(e, &fairq_scheds, list) {
		ret = fn(e->ops, arg);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * fairq_sched_select - make the policy called @name active: sysfs and netlink both switch here
 * @name: its name, not necessarily NUL-terminated
 * @len: length of @name
 *
 * A switch that changed something is logged and announced on the netlink "events" group, so
 * that fairqctl watchers see switches made through sysfs too.
 *
 * Return: 0 (also when @name already was active), -ENOENT if no policy has that name on this
 * kernel, -ENODEV while fairq loads or unloads, or the error of the switch (nothing changed
 * then).
 */
int fairq_sched_select(const char *name, size_t len)
{
	const struct fairq_sched_ops *old, *ops;
	int err;

	fairq_test_sleep(FAIRQ_TEST_DELAY_SELECT);
	err = fairq_change_begin();
	if (err)
		return err;
	old = fairq_active_sched();
	ops = fairq_sched_find(name, len);
	err = ops ? fairq_switch(ops) : -ENOENT;
	if (ops && ops != old)
		trace_fairq_switch(old->name, ops->name, err);
	if (!err && ops != old) {
		struct fairq_event ev = { .sw = { .from = old->name, .to = ops->name } };

		pr_info("scheduler: %s (was %s), by %s[%d]\n", ops->name, old->name, current->comm,
			task_pid_nr(current));
		fairq_event_announce(FAIRQ_EVENT_SWITCH, &ev);
	}
	fairq_change_end();
	return err;
}

/* Every setting changed is logged, with who changed it, and announced. */
void fairq_tunable_changed(struct fairq_event *ev)
{
	pr_info("%s%s%s: %llu (was %llu), by %s[%d]\n", ev->tunable.sched ?: "",
		ev->tunable.sched ? "." : "", ev->tunable.name, ev->tunable.value,
		ev->tunable.previous, current->comm, task_pid_nr(current));
	fairq_event_announce(FAIRQ_EVENT_TUNABLE, ev);
}

/**
 * fairq_tunable_set - apply a value to a policy's tunable, range-checked
 * @ops: the policy whose tunable it is
 * @t: the tunable
 * @val: the new value
 *
 * Return: 0, -EINVAL out of range (nothing changes), -ENODEV while fairq loads or unloads, or
 * what the policy's setter returns.
 */
int fairq_tunable_set(const struct fairq_sched_ops *ops, const struct fairq_tunable *t, u64 val)
{
	struct fairq_event ev = { .tunable = { .sched = ops->name, .name = t->name } };
	int err;

	if (val < t->min || val > t->max)
		return -EINVAL;
	err = fairq_change_begin();
	if (err)
		return err;
	ev.tunable.previous = t->get();
	/* the value it has: nothing to do (a rebuild of every pool would lose their accounts) */
	if (val == ev.tunable.previous) {
		fairq_change_end();
		return 0;
	}
	err = t->set(val);
	if (!err) {
		ev.tunable.value = t->get();
		if (ev.tunable.value != ev.tunable.previous)
			fairq_tunable_changed(&ev);
	}
	fairq_change_end();
	return err;
}

/**
 * fairq_weight_changed - log and announce a weight a policy accepted
 * @ops: the policy
 * @id: the clients it stands for
 * @weight: the weight; 0 restored the default
 */
void fairq_weight_changed(const struct fairq_sched_ops *ops, const struct fairq_key_id *id,
			  u32 weight)
{
	struct fairq_event ev = { .weight = { .sched = ops->name, .id = id, .weight = weight } };
	char key[FAIRQ_KEY_TEXT_MAX];

	fairq_key_text(key, sizeof(key), id);
	if (weight)
		pr_info("%s weight of %s: %u, by %s[%d]\n", ops->name, key, weight,
			current->comm, task_pid_nr(current));
	else
		pr_info("%s weight of %s: the default, by %s[%d]\n", ops->name, key,
			current->comm, task_pid_nr(current));
	fairq_event_announce(FAIRQ_EVENT_WEIGHT, &ev);
}

/**
 * fairq_sched_quiesce - stop the request contexts every policy runs of its own for @serv
 * @serv: the service, or NULL for all
 *
 * Without fairq_sched_mutex: called from nfsd's thread-count and teardown paths, which a
 * switch may be waiting on.  The list changes only at load and unload, when no hook is live.
 */
void fairq_sched_quiesce(struct svc_serv *serv)
{
	struct fairq_sched_entry *e;

	list_for_each_entry(e, &fairq_scheds, list) {
		if (e->ops->quiesce)
			e->ops->quiesce(serv);
	}
}
