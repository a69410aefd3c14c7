// SPDX-License-Identifier: GPL-2.0-only
/*
 * /sys/kernel/fairq/: the scheduler switch, as /sys/block/<dev>/queue/scheduler does it, and
 * one directory of tunables per policy that has any.
 */
#include <linux/capability.h>
#include <linux/kobject.h>
#include <linux/module.h>
#include <linux/string.h>
#include "fairq.h"

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
	const struct fairq_sched_ops *ops;
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

	mutex_lock(&fairq_sched_mutex);
	ops = fairq_sched_find(trimmed, strlen(trimmed));
	err = ops ? fairq_switch(ops) : -EINVAL;
	mutex_unlock(&fairq_sched_mutex);
	if (!err && ops)
		pr_info("scheduler: %s\n", ops->name);
	return err ? err : count;
}

static ssize_t watchdog_ms_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(fairq_watchdog_ms));
}

static ssize_t watchdog_ms_store(struct kobject *kobj, struct kobj_attribute *attr,
				 const char *buf, size_t count)
{
	unsigned int val;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (kstrtouint(buf, 10, &val) || val < 10 || val > 10000)
		return -EINVAL;
	WRITE_ONCE(fairq_watchdog_ms, val);
	return count;
}

static ssize_t rescues_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read(&fairq_rescues_total));
}

static struct kobj_attribute scheduler_attr = __ATTR_RW(scheduler);
static struct kobj_attribute watchdog_ms_attr = __ATTR_RW(watchdog_ms);
static struct kobj_attribute rescues_attr = __ATTR_RO(rescues);

static struct attribute *fairq_attrs[] = {
	&scheduler_attr.attr,
	&watchdog_ms_attr.attr,
	&rescues_attr.attr,
	NULL,
};

static const struct attribute_group fairq_group = {
	.attrs = fairq_attrs,
};

static int add_tunables(const struct fairq_sched_ops *ops, void *arg)
{
	return ops->attrs ? sysfs_create_group(fairq_kobj, ops->attrs) : 0;
}

static int remove_tunables(const struct fairq_sched_ops *ops, void *arg)
{
	if (ops->attrs)
		sysfs_remove_group(fairq_kobj, ops->attrs);
	return 0;
}

int fairq_sysfs_init(void)
{
	int err;

	fairq_kobj = kobject_create_and_add("fairq", kernel_kobj);
	if (!fairq_kobj)
		return -ENOMEM;
	err = sysfs_create_group(fairq_kobj, &fairq_group);
	if (!err) {
		mutex_lock(&fairq_sched_mutex);
		err = fairq_sched_for_each(add_tunables, NULL);
		if (err)
			fairq_sched_for_each(remove_tunables, NULL);
		mutex_unlock(&fairq_sched_mutex);
	}
	if (err)
		kobject_put(fairq_kobj);
	return err;
}

void fairq_sysfs_exit(void)
{
	mutex_lock(&fairq_sched_mutex);
	fairq_sched_for_each(remove_tunables, NULL);
	mutex_unlock(&fairq_sched_mutex);
	kobject_put(fairq_kobj);
}
