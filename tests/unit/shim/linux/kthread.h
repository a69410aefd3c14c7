/* SPDX-License-Identifier: GPL-2.0-only */
#include "../../kshim.h"

#ifndef KSHIM_KTHREAD_H
#define KSHIM_KTHREAD_H
struct task_struct;
/* a service thread's request context: the test that needs it says which */
void *kthread_data(struct task_struct *task);
#endif
