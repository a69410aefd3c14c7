// SPDX-License-Identifier: GPL-2.0-only
/*
 * /sys/kernel/fairq/: the scheduler switch, as /sys/block/<dev>/queue/scheduler does it, and
 * one directory of tunables per policy that has any.
 */
#include <linux/capability.h>
#include <linux/kobject.h>
#include <linux/module.h>
#include <linux/notifier.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "core.h"
#include "servs.h"
#include "switch.h"
#include "registry.h"
#include "events.h"
#include "sysfs.h"
#include "watchdog.h"

static struct kobject *fairq_kobj;

static int show_one(const struct fairq_sched_ops *ops, void *arg)
{
	char *buf = arg;
	int len = strlen(buf);
	bool active = ops == fairq_active_sched();

	scnprintf(buf + len, PAGE_SIZE - len, active ? "%s[%s]" : "%s%s", len ? " " : "",
		  ops->name);
	return 0;
}

static ssize_t scheduler_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	int len;

	buf[0] = '\0';
	mutex_lock(&fairq_sched_mutex);
	fairq_sched_for_each(show_one, buf);
	mutex_unlock(&fairq_sched_mutex);
	len = strlen(buf);
	return len + sysfs_emit_at(buf, len, "\n");
}

static ssize_t scheduler_store(struct kobject *kobj, struct kobj_attribute *attr,
			       const char *buf, size_t count)
{
	char name[FAIRQ_SCHED_NAME_MAX + 1];
	char *trimmed;
	int err;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (count > FAIRQ_SCHED_NAME_MAX)
		return -EINVAL;
	memcpy(name, buf, count);
	name[count] = '\0';
	trimmed = strim(name);
	if (!*trimmed)
		return -EINVAL;

	err = fairq_sched_select(trimmed, strlen(trimmed));
	if (err == -ENOENT)
		err = -EINVAL;	/* what block's scheduler file answers for an unknown name */
	return err ? err : count;
}

/*
 * fairq's own settings (not a policy's): a number in [@min, @max], logged and announced when
 * it changes, as a policy's tunable is.
 */
static ssize_t setting_store(const char *name, unsigned int *setting, unsigned int min,
			     unsigned int max, const char *buf, size_t count)
{
	struct fairq_event ev = { .tunable = { .name = name } };
	unsigned int val;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (kstrtouint(buf, 10, &val) || val < min || val > max)
		return -EINVAL;
	ev.tunable.previous = xchg(setting, val);
	ev.tunable.value = val;
	if (val != ev.tunable.previous)
		fairq_tunable_changed(&ev);
	return count;
}

static ssize_t watchdog_ms_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(fairq_watchdog_ms));
}

static ssize_t watchdog_ms_store(struct kobject *kobj, struct kobj_attribute *attr,
				 const char *buf, size_t count)
{
	return setting_store("watchdog_ms", &fairq_watchdog_ms, 10, 10000, buf, count);
}

static ssize_t failsafe_rescues_show(struct kobject *kobj, struct kobj_attribute *attr,
				     char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(fairq_failsafe_rescues));
}

static ssize_t failsafe_rescues_store(struct kobject *kobj, struct kobj_attribute *attr,
				      const char *buf, size_t count)
{
	return setting_store("failsafe_rescues", &fairq_failsafe_rescues, 0,
			     FAIRQ_FAILSAFE_RESCUES_MAX, buf, count);
}

static ssize_t rescues_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read(&fairq_rescues_total));
}

static struct kobj_attribute scheduler_attr = __ATTR_RW(scheduler);
static struct kobj_attribute watchdog_ms_attr = __ATTR_RW(watchdog_ms);
static struct kobj_attribute failsafe_rescues_attr = __ATTR_RW(failsafe_rescues);
static struct kobj_attribute rescues_attr = __ATTR_RO(rescues);

static struct attribute *fairq_attrs[] = {
	&scheduler_attr.attr,
	&watchdog_ms_attr.attr,
	&failsafe_rescues_attr.attr,
	&rescues_attr.attr,
	NULL,
};

static const struct attribute_group fairq_group = {
	.attrs = fairq_attrs,
};

/* A policy's tunable as a sysfs file: the kobj_attribute knows which tunable it is. */
struct tunable_attr {
	struct kobj_attribute attr;
	const struct fairq_sched_ops *ops;
	const struct fairq_tunable *tunable;
};

struct sched_dir {
	struct list_head list;
	struct kobject *kobj;
	const char *alias;	/* the name of a link to the directory, for old configurations */
	unsigned int nr;
	struct tunable_attr attrs[];
};

/* Guarded by sched_dirs_lock: policies in other modules come and go independently. */
static LIST_HEAD(sched_dirs);
static DEFINE_MUTEX(sched_dirs_lock);

static ssize_t tunable_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	const struct fairq_tunable *t = container_of(attr, struct tunable_attr, attr)->tunable;

	return sysfs_emit(buf, "%llu\n", t->get());
}

static ssize_t tunable_store(struct kobject *kobj, struct kobj_attribute *attr, const char *buf,
			     size_t count)
{
	const struct tunable_attr *ta = container_of(attr, struct tunable_attr, attr);
	u64 val;
	int err;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (kstrtou64(buf, 0, &val))
		return -EINVAL;
	err = fairq_tunable_set(ta->ops, ta->tunable, val);
	return err ? err : count;
}

static void sched_dir_free(struct sched_dir *dir)
{
	/*
	 * Removed now, once no access to its files runs: a kobject's release may come later
	 * (CONFIG_DEBUG_KOBJECT_RELEASE), after the policy's module is gone.
	 */
	if (dir->alias)
		sysfs_remove_link(fairq_kobj, dir->alias);
	kobject_del(dir->kobj);
	kobject_put(dir->kobj);
	kfree(dir);
}

static int add_tunables(const struct fairq_sched_ops *ops)
{
	const struct fairq_tunable *t;
	struct sched_dir *dir;
	unsigned int i, n = 0;
	int err;

	for (t = ops->tunables; t && t->name; t++)
		n++;
	if (!n)
		return 0;
	dir = kzalloc(struct_size(dir, attrs, n), GFP_KERNEL);
	if (!dir)
		return -ENOMEM;
	dir->kobj = kobject_create_and_add(ops->name, fairq_kobj);
	if (!dir->kobj) {
		kfree(dir);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		struct tunable_attr *ta = &dir->attrs[i];

		ta->ops = ops;
		ta->tunable = &ops->tunables[i];
		sysfs_attr_init(&ta->attr.attr);
		ta->attr.attr.name = ta->tunable->name;
		ta->attr.attr.mode = 0644;
		ta->attr.show = tunable_show;
		ta->attr.store = tunable_store;
		err = sysfs_create_file(dir->kobj, &ta->attr.attr);
		if (err) {
			sched_dir_free(dir);
			return err;
		}
		dir->nr++;
	}
	if (ops->alias) {
		err = sysfs_create_link(fairq_kobj, dir->kobj, ops->alias);
		if (err) {
			sched_dir_free(dir);
			return err;
		}
		dir->alias = ops->alias;
	}
	mutex_lock(&sched_dirs_lock);
	list_add(&dir->list, &sched_dirs);
	mutex_unlock(&sched_dirs_lock);
	return 0;
}

static void remove_tunables(const struct fairq_sched_ops *ops)
{
	struct sched_dir *dir, *tmp, *found = NULL;

	mutex_lock(&sched_dirs_lock);
	list_for_each_entry_safe(dir, tmp, &sched_dirs, list) {
		if (!ops || dir->attrs[0].ops == ops) {
			list_del(&dir->list);
			if (!ops) {
				sched_dir_free(dir);
				continue;
			}
			found = dir;
			break;
		}
	}
	mutex_unlock(&sched_dirs_lock);
	if (found)
		sched_dir_free(found);
}

static int sched_changed(struct notifier_block *nb, unsigned long change, void *data)
{
	const struct fairq_sched_ops *ops = data;

	if (change == FAIRQ_SCHED_REGISTERED)
		return notifier_from_errno(add_tunables(ops));
	remove_tunables(ops);
	return NOTIFY_OK;
}

static struct notifier_block sched_notifier = {
	.notifier_call = sched_changed,
};

int fairq_sysfs_init(void)
{
	int err;

	fairq_kobj = kobject_create_and_add("fairq", kernel_kobj);
	if (!fairq_kobj)
		return -ENOMEM;
	err = sysfs_create_group(fairq_kobj, &fairq_group);
	if (!err)
		err = fairq_scheds_subscribe(&sched_notifier);
	if (err) {
		remove_tunables(NULL);
		kobject_put(fairq_kobj);
	}
	return err;
}

void fairq_sysfs_exit(void)
{
	fairq_scheds_unsubscribe(&sched_notifier);
	remove_tunables(NULL);
	kobject_put(fairq_kobj);
}
