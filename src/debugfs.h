/* SPDX-License-Identifier: GPL-2.0-only */
/* /sys/kernel/debug/fairq/pools: every pool's counters, for bug reports. */
#ifndef _FAIRQ_DEBUGFS_H
#define _FAIRQ_DEBUGFS_H

void fairq_debugfs_init(void);
void fairq_debugfs_exit(void);

#endif /* _FAIRQ_DEBUGFS_H */
