// SPDX-License-Identifier: GPL-2.0-only
/*
 * The policies fairq can switch between, by name: its own, and those other modules register
 * (fairq holds a reference on such a module while its policy is active).
 */
#include <linux/module.h>
#include <linux/notifier.h>
#include <linux/rwsem.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include "core.h"
#include "switch.h"
#include "servs.h"
#include "registry.h"
#include "hook.h"
#include "events.h"
#include "testing.h"
#include <fairq/trace.h>

struct fairq_sched_entry {
	struct list_head list;
	const struct fairq_sched_ops *ops;
};

static LIST_HEAD(fairq_scheds);
/*
 * Changes of fairq_scheds also take this, for fairq_sched_quiesce(), which walks the list
 * from nfsd's paths that a switch holding fairq_sched_mutex may be waiting on.  Held only for
 * the list change itself.
 */
static DECLARE_RWSEM(fairq_scheds_rwsem);
/*
 * Policies come and go: sysfs gives each its directory of tunables.  A raw chain: its
 * subscribers come and go at fairq's load and unload only, when no other module can be
 * registering (they depend on fairq), and it is called without fairq_sched_mutex on
 * unregistration (see there).
 */
static RAW_NOTIFIER_HEAD(fairq_sched_chain);

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

/*
 * Every switch goes through here: fairq's hooks around the core's part.  The hooks that charge
 * requests go on before a policy that charges them takes over, and off after the last one
 * left; all of them go off only once every pool has handed its work back to the kernel.
 */
static int switch_to(const struct fairq_sched_ops *new_ops)
{
	const struct fairq_sched_ops *old_ops = fairq_active_sched();
	bool from_native = old_ops->flags & FAIRQ_SCHED_NATIVE;
	bool to_native = new_ops->flags & FAIRQ_SCHED_NATIVE;
	bool charges = new_ops->start || new_ops->complete;
	int err = 0;

	if (new_ops == old_ops)
		return 0;
	if (from_native && !to_native)
		err = fairq_hooks_enable(charges);
	else if (!from_native && charges)
		err = fairq_hooks_requests(true);
	if (err)
		return err;
	fairq_switch(new_ops);
	if (!from_native && to_native) {
		/* returns once no CPU or task can still be in fairq's enqueue or pull path */
		fairq_hooks_disable();
		fairq_servs_free();
	} else if (!from_native && !charges) {
		fairq_hooks_requests(false);
	}
	return 0;
}

/**
 * switch_announced - switch, and say so
 * @new_ops: the policy to make active; the caller holds its module (fairq_sched_get())
 * @reason: for the event when fairq switches by itself ("failsafe"), else NULL
 * @warn: log as a warning (fairq's own decision), not as information (an admin's)
 * @fmt: why, for the log line after "scheduler: NEW (was OLD), "
 *
 * Every switch is traced; one that happened is logged and announced, and fairq then lets go
 * of the old policy's module, after the last use of its name.  A failed one lets go of the
 * new policy's instead.  Caller holds fairq_sched_mutex.
 *
 * Return: 0 (also when @new_ops already was active), or the switch's error.
 */
static __printf(4, 5) int switch_announced(const struct fairq_sched_ops *new_ops,
					   const char *reason, bool warn, const char *fmt, ...)
{
	const struct fairq_sched_ops *old = fairq_active_sched();
	struct fairq_event ev = { .sw = { .to = new_ops->name, .reason = reason } };
	char why[160];
	va_list args;
	int err;

	if (new_ops == old)
		return 0;
	err = switch_to(new_ops);
	trace_fairq_switch(old->name, new_ops->name, err);
	if (err) {
		fairq_sched_put(new_ops);
		return err;
	}
	va_start(args, fmt);
	vscnprintf(why, sizeof(why), fmt, args);
	va_end(args);
	if (warn)
		pr_warn("scheduler: %s (was %s), %s\n", new_ops->name, old->name, why);
	else
		pr_info("scheduler: %s (was %s), %s\n", new_ops->name, old->name, why);
	ev.sw.from = old->name;
	fairq_event_announce(FAIRQ_EVENT_SWITCH, &ev);
	fairq_sched_put(old);
	return 0;
}

/**
 * fairq_changes_close - unload begins: refuse every change, and return to the kernel's dispatch
 *
 * Return: the final switch's error (a bug: it cannot fail towards fifo).
 */
int fairq_changes_close(void)
{
	int err;

	mutex_lock(&fairq_sched_mutex);
	fairq_changes_open = false;
	/* hands every held transport back to the kernel, then removes the hooks */
	err = switch_announced(&fairq_sched_fifo, NULL, false, "unloading, by %s[%d]",
			       current->comm, task_pid_nr(current));
	mutex_unlock(&fairq_sched_mutex);
	return err;
}

#ifdef MODULE
static const bool fairq_is_module = true;
#else
static const bool fairq_is_module;	/* built in: policies built in with it have no owner */
#endif

static bool tunables_complete(const struct fairq_tunable *tunables)
{
	const struct fairq_tunable *t, *u;

	for (t = tunables; t && t->name; t++) {
		if (!*t->name || !t->get || !t->set || t->min > t->max || t->def < t->min ||
		    t->def > t->max)
			return false;
		/* one file each in the policy's sysfs directory */
		for (u = tunables; u != t; u++) {
			if (!strcmp(u->name, t->name))
				return false;
		}
	}
	return true;
}

/* The names of fairq's own files in /sys/kernel/fairq/, beside the policies' directories. */
static bool name_reserved(const char *name)
{
	static const char *const own[] = {
		"scheduler", "watchdog_ms", "failsafe_rescues", "rescues",
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(own); i++) {
		if (!strcmp(name, own[i]))
			return true;
	}
	return false;
}

static bool name_valid(const char *name)
{
	return *name && strlen(name) < FAIRQ_SCHED_NAME_MAX && !name_reserved(name);
}

static bool ops_complete(const struct fairq_sched_ops *ops)
{
	if (!ops->name || !name_valid(ops->name) ||
	    (ops->alias && (!name_valid(ops->alias) || !strcmp(ops->alias, ops->name))))
		return false;
	/* a policy in a module must say which, or it could be unloaded while active */
	if (!ops->owner && fairq_is_module)
		return false;
	if (ops->flags & FAIRQ_SCHED_NATIVE)
		return true;
	if (ops->own && !(ops->own->kick && ops->own->has_idle && ops->own->quiesce))
		return false;
	if (ops->keys && !ops->keys->for_each_key)
		return false;
	if (ops->wake && !(ops->wake->reserve && ops->wake->commit && ops->wake->ran))
		return false;
	if (!tunables_complete(ops->tunables))
		return false;
	return ops->init_pool && ops->enqueue && ops->pick && ops->has_work && ops->drain &&
	       ops->remove && ops->priv_size <= FAIRQ_SCHED_PRIV_BYTES;
}

static bool name_is(const char *name, const char *s, size_t len)
{
	return name && strlen(name) == len && !strncmp(name, s, len);
}

/* The policy called @name, by its name or its alias. */
static struct fairq_sched_entry *entry_find(const char *name, size_t len)
{
	struct fairq_sched_entry *e;

	list_for_each_entry(e, &fairq_scheds, list) {
		if (name_is(e->ops->name, name, len) || name_is(e->ops->alias, name, len))
			return e;
	}
	return NULL;
}

/* Whether a name or alias of @ops is taken: one name means one policy. */
static bool names_taken(const struct fairq_sched_ops *ops)
{
	return entry_find(ops->name, strlen(ops->name)) ||
	       (ops->alias && entry_find(ops->alias, strlen(ops->alias)));
}

/**
 * fairq_register_sched - offer a policy
 * @ops: its ops table, which must outlive the registration
 *
 * Return: 0; -EINVAL if a mandatory op or the owner is missing, an op is given without its
 * pair (charge and uncharge), or the name is bad; -EEXIST for a name or alias already taken;
 * -EOPNOTSUPP if the policy would do nothing on this kernel (it is then not offered); -ENOMEM.
 */
int fairq_register_sched(const struct fairq_sched_ops *ops)
{
	struct fairq_sched_entry *e;
	int err = 0;

	/* what the core charges it gives back: one without the other would crash or leak */
	if (!ops->charge != !ops->uncharge) {
		pr_err("policy %s refused: it has charge or uncharge without the other\n",
		       ops->name ?: "(unnamed)");
		return -EINVAL;
	}
	if (WARN_ON_ONCE(!ops_complete(ops)))
		return -EINVAL;
	if (ops->supported && !ops->supported())
		return -EOPNOTSUPP;
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	e->ops = ops;
	mutex_lock(&fairq_sched_mutex);
	if (names_taken(ops)) {
		err = -EEXIST;
	} else {
		down_write(&fairq_scheds_rwsem);
		list_add_tail(&e->list, &fairq_scheds);
		up_write(&fairq_scheds_rwsem);
		/* under the mutex: a subscriber that walks the list as it comes sees it once */
		err = notifier_to_errno(raw_notifier_call_chain(&fairq_sched_chain,
								FAIRQ_SCHED_REGISTERED,
								(void *)ops));
		if (err) {
			down_write(&fairq_scheds_rwsem);
			list_del(&e->list);
			up_write(&fairq_scheds_rwsem);
		}
	}
	mutex_unlock(&fairq_sched_mutex);
	if (err)
		kfree(e);
	else if (ops->owner != THIS_MODULE)
		pr_info("scheduler %s offered by module %s\n", ops->name, module_name(ops->owner));
	/* the module loader may report it as another error: say it here */
	if (err == -EEXIST)
		pr_warn("scheduler %s of module %s not offered: its name or alias is taken\n",
			ops->name, module_name(ops->owner));
	return err;
}
EXPORT_SYMBOL_GPL(fairq_register_sched);

/**
 * fairq_unregister_sched - withdraw a policy
 * @ops: what fairq_register_sched() was given
 *
 * Never the active queueing policy: fairq holds its module while it is active, and switches
 * its own away before it unregisters them.  Returns once no sysfs access to its tunables runs.
 */
void fairq_unregister_sched(const struct fairq_sched_ops *ops)
{
	struct fairq_sched_entry *e;

	mutex_lock(&fairq_sched_mutex);
	e = entry_find(ops->name, strlen(ops->name));
	if (e && e->ops != ops)
		e = NULL;
	/*
	 * fairq holds the active policy's module: only a forced unload (rmmod -f) gets here with
	 * it active.  Its work goes back to the kernel before its code does.
	 */
	if (e && fairq_active_sched() == ops)
		WARN_ON_ONCE(switch_announced(&fairq_sched_fifo, NULL, true,
					      "its module is going away while active"));
	if (e) {
		down_write(&fairq_scheds_rwsem);
		list_del(&e->list);
		up_write(&fairq_scheds_rwsem);
	}
	mutex_unlock(&fairq_sched_mutex);
	if (!e)
		return;
	/*
	 * Without the mutex: removing its sysfs files waits for writers in them, which may be
	 * waiting for the mutex (they find the policy gone once they have it).
	 */
	raw_notifier_call_chain(&fairq_sched_chain, FAIRQ_SCHED_UNREGISTERED, (void *)ops);
	if (ops->release)
		ops->release();
	if (ops->owner != THIS_MODULE)
		pr_info("scheduler %s withdrawn\n", ops->name);
	kfree(e);
}
EXPORT_SYMBOL_GPL(fairq_unregister_sched);

/**
 * fairq_scheds_subscribe - hear of every policy, registered now or later
 * @nb: called with FAIRQ_SCHED_REGISTERED (fairq_sched_mutex held) and
 *	FAIRQ_SCHED_UNREGISTERED (not held), and the ops as data; may sleep
 *
 * @nb is called for each policy registered already before this returns.
 *
 * Return: 0, or the first error @nb returned (then it is not subscribed).
 */
int fairq_scheds_subscribe(struct notifier_block *nb)
{
	struct fairq_sched_entry *e;
	int err = 0;

	mutex_lock(&fairq_sched_mutex);
	list_for_each_entry(e, &fairq_scheds, list) {
		err = notifier_to_errno(nb->notifier_call(nb, FAIRQ_SCHED_REGISTERED,
							  (void *)e->ops));
		if (err)
			break;
	}
	if (!err)
		err = raw_notifier_chain_register(&fairq_sched_chain, nb);
	mutex_unlock(&fairq_sched_mutex);
	return err;
}

void fairq_scheds_unsubscribe(struct notifier_block *nb)
{
	raw_notifier_chain_unregister(&fairq_sched_chain, nb);
}

/**
 * fairq_sched_get - keep a policy's ops valid past fairq_sched_mutex
 * @ops: a registered policy, found under the mutex
 *
 * Return: whether it is kept (false: its module is unloading).  Undo with fairq_sched_put().
 */
bool fairq_sched_get(const struct fairq_sched_ops *ops)
{
	if (ops->owner == THIS_MODULE)
		return true;
	/*
	 * Not while its module is still loading: an init that fails after registering frees the
	 * module whatever references it has.
	 */
	if (ops->owner && READ_ONCE(ops->owner->state) != MODULE_STATE_LIVE)
		return false;
	return try_module_get(ops->owner);
}

void fairq_sched_put(const struct fairq_sched_ops *ops)
{
	if (ops->owner != THIS_MODULE)
		module_put(ops->owner);
}

static bool sched_registered(const struct fairq_sched_ops *ops)
{
	struct fairq_sched_entry *e;

	lockdep_assert_held(&fairq_sched_mutex);
	list_for_each_entry(e, &fairq_scheds, list) {
		if (e->ops == ops)
			return true;
	}
	return false;
}

/* Caller holds fairq_sched_mutex. */
const struct fairq_sched_ops *fairq_sched_find(const char *name, size_t len)
{
	struct fairq_sched_entry *e;

	lockdep_assert_held(&fairq_sched_mutex);
	e = entry_find(name, len);
	if (e && name_is(e->ops->alias, name, len))
		pr_notice_once("scheduler name %s is now %s; the old name will go in a later release\n",
			       e->ops->alias, e->ops->name);
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
	/* the active policy's module stays loaded: a reference from here to the next switch */
	if (ops && ops != old && !fairq_sched_get(ops))
		ops = NULL;	/* its module is unloading */
	err = ops ? switch_announced(ops, NULL, false, "by %s[%d]", current->comm,
				     task_pid_nr(current)) : -ENOENT;
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
	/* a writer that waited while the policy was withdrawn */
	if (!sched_registered(ops)) {
		fairq_change_end();
		return -ENOENT;
	}
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

/* Finds the class @arg names (its name first) and copies it over @arg. */
static int class_copy(const struct fairq_class_spec *cls, void *arg)
{
	struct fairq_class_spec *out = arg;

	if (strcmp(cls->name, out->name))
		return 0;
	*out = *cls;
	return 1;
}

/**
 * fairq_class_changed - log and announce a class a policy made, changed or deleted
 * @ops: the policy
 * @name: the class
 * @change: what was done to it
 *
 * A class made or changed is announced with its settings as they now are, read back from the
 * policy: a change names only what it sets.  Under the change lock, as the change was, so
 * announcements come in order.
 */
void fairq_class_changed(const struct fairq_sched_ops *ops, const char *name,
			 enum fairq_class_change change)
{
	static const char * const what[] = {
		[FAIRQ_CLASS_MADE] = "made",
		[FAIRQ_CLASS_CHANGED] = "changed",
		[FAIRQ_CLASS_DELETED] = "deleted",
	};
	struct fairq_event ev = {
		.class = { .sched = ops->name, .name = name, .made = change == FAIRQ_CLASS_MADE },
	};
	struct fairq_class_spec *spec = NULL;
	u64 cursor = 0;

	pr_info("%s class %s %s, by %s[%d]\n", ops->name, name, what[change], current->comm,
		task_pid_nr(current));
	if (change != FAIRQ_CLASS_DELETED) {
		/* the matches make it too big for the stack; without memory, no announcement */
		spec = kzalloc(sizeof(*spec), GFP_KERNEL);
		if (!spec)
			return;
		strscpy(spec->name, name, sizeof(spec->name));
		if (ops->keys->for_each_class(&cursor, class_copy, spec) <= 0) {
			kfree(spec);
			return;
		}
		ev.class.spec = spec;
	}
	fairq_event_announce(FAIRQ_EVENT_CLASS, &ev);
	kfree(spec);
}

/**
 * fairq_sched_quiesce - stop the request contexts every policy runs of its own for @serv
 * @serv: the service, or NULL for all
 *
 * Without fairq_sched_mutex: called from nfsd's thread-count and teardown paths, which a
 * switch may be waiting on.
 */
void fairq_sched_quiesce(struct svc_serv *serv)
{
	struct fairq_sched_entry *e;

	down_read(&fairq_scheds_rwsem);
	list_for_each_entry(e, &fairq_scheds, list) {
		if (e->ops->own)
			e->ops->own->quiesce(serv);
	}
	up_read(&fairq_scheds_rwsem);
}

/*
 * The fail-safe, as sched_ext has one: a policy that keeps stranding work (the watchdog hands
 * it over again and again) is replaced by fifo, the kernel's own dispatch, by fairq itself.
 * fairq_failsafe_rescues rescues within FAIRQ_FAILSAFE_WINDOW_S seconds (a window that opens
 * at the first rescue after a quiet one) trip it; 0 turns it off.  A lost wakeup now and then
 * (a bug to report, each one logged) stays far below.  The count is the active policy's: every
 * switch starts it again, and a trip counted under another policy switches nothing.
 */
unsigned int fairq_failsafe_rescues = 20;
atomic_long_t fairq_failsafe_switches = ATOMIC_LONG_INIT(0);

static DEFINE_SPINLOCK(failsafe_lock);
static unsigned long failsafe_window_start;	/* jiffies */
static unsigned int failsafe_seen;		/* rescues since then */
static unsigned int failsafe_tripped_at;	/* the limit that tripped, for the log */
static unsigned long failsafe_policy;		/* switches seen: which policy's rescues */
static unsigned long failsafe_tripped_for;	/* ... the trip counted */

/* Switch from a work item: the watchdog that counts the rescues cannot wait for a switch. */
static void failsafe_switch(struct work_struct *work)
{
	const struct fairq_sched_ops *old;
	bool stale;

	if (fairq_change_begin())
		return;		/* loading or unloading: fairq goes to fifo anyway */
	old = fairq_active_sched();
	spin_lock_bh(&failsafe_lock);
	stale = failsafe_tripped_for != failsafe_policy;
	spin_unlock_bh(&failsafe_lock);
	if (stale || (old->flags & FAIRQ_SCHED_NATIVE)) {
		fairq_change_end();
		return;		/* an admin switched in between */
	}
	if (!switch_announced(&fairq_sched_fifo, "failsafe", true,
			      "fail-safe: the watchdog rescued stranded work %u times within %d s (failsafe_rescues)",
			      READ_ONCE(failsafe_tripped_at), FAIRQ_FAILSAFE_WINDOW_S))
		atomic_long_inc(&fairq_failsafe_switches);
	fairq_change_end();
}

static DECLARE_WORK(failsafe_work, failsafe_switch);

/* Rescues are announced from the watchdog, under rcu_read_lock(): count, never sleep. */
static int failsafe_count(struct notifier_block *nb, unsigned long type, void *data)
{
	unsigned int limit = READ_ONCE(fairq_failsafe_rescues);
	bool trip;

	if (type == FAIRQ_EVENT_SWITCH) {
		spin_lock_bh(&failsafe_lock);
		failsafe_seen = 0;
		failsafe_policy++;
		spin_unlock_bh(&failsafe_lock);
		return NOTIFY_OK;
	}
	if (type != FAIRQ_EVENT_RESCUE || !limit)
		return NOTIFY_DONE;
	spin_lock_bh(&failsafe_lock);
	if (!failsafe_seen ||
	    time_after(jiffies, failsafe_window_start + FAIRQ_FAILSAFE_WINDOW_S * HZ)) {
		failsafe_window_start = jiffies;
		failsafe_seen = 0;
	}
	trip = ++failsafe_seen >= limit;
	if (trip) {
		failsafe_seen = 0;
		failsafe_tripped_for = failsafe_policy;
		WRITE_ONCE(failsafe_tripped_at, limit);
	}
	spin_unlock_bh(&failsafe_lock);
	if (trip)
		schedule_work(&failsafe_work);
	return NOTIFY_OK;
}

static struct notifier_block failsafe_nb = {
	.notifier_call = failsafe_count,
};

int fairq_failsafe_init(void)
{
	return fairq_events_subscribe(&failsafe_nb);
}

/* After the watchdog has stopped: no rescue can queue the switch again. */
void fairq_failsafe_exit(void)
{
	fairq_events_unsubscribe(&failsafe_nb);
	cancel_work_sync(&failsafe_work);
}
