/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The shim's state (kshim.h declares it): the simulated clock, task, and injected failures.
 * Included once by each unit test, which is a program of one file.
 */
#ifndef FAIRQ_KSHIM_STATE_H
#define FAIRQ_KSHIM_STATE_H
#include "kshim.h"

unsigned long jiffies = 1000;
struct task_struct *kshim_current;
u64 kshim_now_ns;
int kshim_fail_allocs;
int kshim_notices;
size_t kshim_fail_size;
struct mutex fairq_sched_mutex;
#endif
