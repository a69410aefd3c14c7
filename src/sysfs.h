/* SPDX-License-Identifier: GPL-2.0-only */
/* /sys/kernel/fairq/: the scheduler switch, fairq's settings, the policies' tunables. */
#ifndef _FAIRQ_SYSFS_H
#define _FAIRQ_SYSFS_H

int fairq_sysfs_init(void);
void fairq_sysfs_exit(void);

#endif /* _FAIRQ_SYSFS_H */
