/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The few API differences between the supported kernels that are not about the pool queue
 * (those live in kq.c).  Selected by the probes in Kbuild.include, never by version numbers.
 */
#ifndef _FAIRQ_COMPAT_H
#define _FAIRQ_COMPAT_H

#include <linux/ftrace.h>
#include <linux/hrtimer.h>
#include <linux/module.h>
#include <linux/sunrpc/svc.h>

#if !defined(CONFIG_DYNAMIC_FTRACE_WITH_ARGS) && !defined(CONFIG_DYNAMIC_FTRACE_WITH_REGS)
#error "fairq needs CONFIG_DYNAMIC_FTRACE_WITH_ARGS or _WITH_REGS"
#endif

/*
 * fairq's ftrace callbacks take spinlock_t (and allocate with GFP_ATOMIC) from softirq and
 * with the task already set to sleep: on PREEMPT_RT those sleep.  dkms.conf skips such
 * kernels; this says why to a direct build.
 */
#ifdef CONFIG_PREEMPT_RT
#error "fairq does not support PREEMPT_RT kernels: its ftrace callbacks take locks that sleep there"
#endif

/*
 * Whether a thread is claimed before work is fed to it (6.1: setting an idle thread's RQ_BUSY
 * makes us the one who must wake it), rather than woken after the feed (6.7+).  In line, so
 * that the compiler drops the other generation's branch of the push path.
 */
static inline bool fairq_kq_claims_first(void)
{
#ifdef FAIRQ_HAVE_LWQ_POOL
	return false;
#else
	return true;
#endif
}

/*
 * Whether @addr is in fairq's own text: a hooked function called from there is fairq calling
 * the original.  Asked at every hook entry, so one range check: within_module() tests every
 * region of the module, init and data too, and costs more than the rest of the redirect.
 */
static inline bool fairq_own_text(unsigned long addr)
{
#ifdef FAIRQ_HAVE_MODULE_MEM
	return within_module_mem_type(addr, THIS_MODULE, MOD_TEXT);
#else
	/* 6.1: the core region starts with the text */
	unsigned long base = (unsigned long)THIS_MODULE->core_layout.base;

	return base <= addr && addr < base + THIS_MODULE->core_layout.text_size;
#endif
}

static inline unsigned long fairq_fregs_arg0(struct ftrace_regs *fregs)
{
#ifdef FAIRQ_HAVE_FTRACE_REGS_GET_ARG
	return ftrace_regs_get_argument(fregs, 0);
#else
	return fregs->regs.di;
#endif
}

static inline void fairq_fregs_set_ip(struct ftrace_regs *fregs, unsigned long ip)
{
#ifdef FAIRQ_HAVE_FTRACE_REGS_SET_IP
	ftrace_regs_set_instruction_pointer(fregs, ip);
#else
	ftrace_instruction_pointer_set(fregs, ip);
#endif
}

/* The service an svc_destroy() entry is about to free. */
static inline struct svc_serv *fairq_destroy_arg_serv(unsigned long arg0)
{
#ifdef FAIRQ_HAVE_SVC_DESTROY_SERVP
	return *(struct svc_serv **)arg0;
#else
	return container_of((struct kref *)arg0, struct svc_serv, sv_refcnt);
#endif
}

/*
 * The static thread-side function that every nfsd thread calls right before it looks at its
 * pool queue (and before it sleeps): the "pull" point.  Its argument differs.
 */
#ifdef FAIRQ_HAVE_LWQ_POOL
#define FAIRQ_PULL_SYMBOL	"svc_thread_should_sleep"	/* (struct svc_rqst *) */
#else
#define FAIRQ_PULL_SYMBOL	"svc_xprt_dequeue"		/* (struct svc_pool *) */
#endif

/*
 * Whether the pull point also runs right after a dequeue, with the transport taken in rq_xprt
 * (6.7+: svc_thread_wake_next() asks again).  Where it does not (6.1), a thread is first seen
 * with what it took at its svc_xprt_received().
 */
#ifdef FAIRQ_HAVE_LWQ_POOL
#define FAIRQ_PULL_SEES_DEQUEUE	true
#else
#define FAIRQ_PULL_SEES_DEQUEUE	false
#endif

/* The per-CPU system workqueue, under the name the kernel does not warn about. */
#ifdef FAIRQ_HAVE_SYSTEM_PERCPU_WQ
#define fairq_percpu_wq		system_percpu_wq
#else
#define fairq_percpu_wq		system_wq
#endif

/* Linux 6.13: hrtimer_setup() sets a timer's callback with its clock (hrtimer_init() gone). */
static inline void fairq_hrtimer_setup(struct hrtimer *timer,
				       enum hrtimer_restart (*fn)(struct hrtimer *),
				       clockid_t clock, enum hrtimer_mode mode)
{
#ifdef FAIRQ_HAVE_HRTIMER_SETUP
	hrtimer_setup(timer, fn, clock, mode);
#else
	hrtimer_init(timer, clock, mode);
	timer->function = fn;
#endif
}

#endif /* _FAIRQ_COMPAT_H */
