/* SPDX-License-Identifier: GPL-2.0-only */
#include <linux/types.h>
#ifndef SHIM_SPINLOCK
#define SHIM_SPINLOCK
typedef int spinlock_t;
struct list_head { struct list_head *next, *prev; };
struct hlist_node { struct hlist_node *next, **pprev; };
struct rcu_head { void *next; };
typedef long atomic_long_t;
#define atomic_long_inc(p) ((*(p))++)
struct attribute_group { const char *name; };
struct ftrace_regs { unsigned long di; };
struct kref { int refcount; };
#define CONFIG_DYNAMIC_FTRACE_WITH_ARGS 1
#define FAIRQ_HAVE_FTRACE_REGS_GET_ARG 1
#define FAIRQ_HAVE_FTRACE_REGS_SET_IP 1
#define FAIRQ_HAVE_SVC_DESTROY_SERVP 1
#define ftrace_regs_get_argument(f, n) ((f)->di)
#define ftrace_regs_set_instruction_pointer(f, ip) ((f)->di = (ip))
#endif
