/* SPDX-License-Identifier: GPL-2.0-only */
#include "../../kshim.h"

#ifndef KSHIM_SCHED_H
#define KSHIM_SCHED_H
/* A thread, as the tests name it; the running one is whichever the test sets. */
struct task_struct {
	int pid;
	unsigned int flags;
};

#define PF_KTHREAD	0x00200000

extern struct task_struct *kshim_current;
#define current kshim_current
#endif
