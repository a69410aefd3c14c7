/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Userspace stand-ins for the kernel interfaces that fairq's policies use, so that their pure
 * logic can be tested on the host.  Every kernel header a policy includes maps to this file.
 */
#ifndef FAIRQ_KSHIM_H
#define FAIRQ_KSHIM_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/socket.h>
#include <netinet/in.h>

typedef uint64_t u64;
typedef int64_t s64;
typedef uint32_t u32;
typedef int32_t s32;
typedef uint16_t u16;
typedef uint8_t u8;
typedef uint16_t __be16;
typedef uint32_t __be32;
typedef uint64_t __be64;
#include <endian.h>
#define cpu_to_be64(x) htobe64(x)

#define BIT(n) (1UL << (n))
#define BIT_ULL(n) (1ULL << (n))
#define container_of(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))
#define BUILD_BUG_ON(c) _Static_assert(!(c), #c)
#define READ_ONCE(x) (x)
#define data_race(x) (x)
#define WRITE_ONCE(x, v) ((x) = (v))
#define likely(x) (x)
#define unlikely(x) (x)
#define max_t(t, a, b) ((t)(a) > (t)(b) ? (t)(a) : (t)(b))
#define min_t(t, a, b) ((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define U32_MAX 0xffffffffU
#define U16_MAX 0xffffU
#define div_u64(a, b) ((u64)(a) / (b))
#define div64_s64(a, b) ((s64)(a) / (s64)(b))
#define for_each_set_bit(bit, addr, size) \
	for ((bit) = 0; (bit) < (int)(size); (bit)++) \
		if (!(*(addr) & (1UL << (bit)))) {} else
#define struct_size(p, member, n) (sizeof(*(p)) + (n) * sizeof((p)->member[0]))
#define NSEC_PER_USEC 1000ULL
#define NSEC_PER_MSEC 1000000ULL
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define HZ 250
#define GFP_ATOMIC 0
#define GFP_KERNEL 0
#define __GFP_NOWARN 0
#define __rcu
#define __must_hold(x)
#define EXPORT_SYMBOL_GPL(x)
#define lockdep_is_held(x) 1
#define lockdep_assert_held(x) do { } while (0)

extern unsigned long jiffies;
#define time_before(a, b) ((long)((a) - (b)) < 0)
#define time_after(a, b) time_before(b, a)

/* The simulated clock of the tests (ns). */
extern u64 kshim_now_ns;
static inline u64 ktime_get_ns(void)
{
	return kshim_now_ns;
}
typedef s64 ktime_t;
#define ktime_before(a, b) ((a) < (b))

/* Allocation failures can be injected to test the fallbacks. */
extern int kshim_fail_allocs;
extern size_t kshim_fail_size;	/* also fail every allocation of exactly this size */
static inline void *kzalloc(size_t n, int gfp)
{
	(void)gfp;
	if (kshim_fail_allocs) {
		kshim_fail_allocs--;
		return NULL;
	}
	if (kshim_fail_size && n == kshim_fail_size)
		return NULL;
	return calloc(1, n);
}
#define kcalloc(n, size, gfp) kzalloc((n) * (size), gfp)
#define kfree(p) free(p)
#define kfree_rcu(p, field) free(p)

#define rcu_read_lock() do { } while (0)
#define rcu_read_unlock() do { } while (0)
#define rcu_dereference(p) (p)
#define rcu_dereference_protected(p, c) (p)
#define rcu_assign_pointer(p, v) ((p) = (v))
#define rcu_access_pointer(p) (p)

/* hash.h: a multiplicative hash of a pointer into @bits bits */
static inline u32 hash_ptr(const void *ptr, unsigned int bits)
{
	return (u32)(((u64)(uintptr_t)ptr * 0x61c8864680b583ebULL) >> (64 - bits));
}

static inline u32 jhash(const void *key, u32 len, u32 seed)
{
	const u8 *k = key;
	u32 h = seed ^ 2166136261u;

	while (len--)
		h = (h ^ *k++) * 16777619u;
	return h;
}

static inline bool ipv6_addr_v4mapped(const struct in6_addr *a)
{
	static const u8 pfx[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	return !memcmp(a->s6_addr, pfx, 12);
}

struct list_head { struct list_head *next, *prev; };
struct hlist_head { struct hlist_node *first; };
struct hlist_node { struct hlist_node *next, **pprev; };

static inline void INIT_LIST_HEAD(struct list_head *l) { l->next = l->prev = l; }
static inline bool list_empty(const struct list_head *l) { return l->next == l; }
static inline void __list_add(struct list_head *n, struct list_head *prev, struct list_head *next)
{
	next->prev = n;
	n->next = next;
	n->prev = prev;
	prev->next = n;
}
static inline void list_add_tail(struct list_head *n, struct list_head *h) { __list_add(n, h->prev, h); }
static inline void list_add(struct list_head *n, struct list_head *h) { __list_add(n, h, h->next); }
static inline void list_del(struct list_head *e)
{
	e->next->prev = e->prev;
	e->prev->next = e->next;
	e->next = e->prev = NULL;
}
static inline void list_del_init(struct list_head *e)
{
	e->next->prev = e->prev;
	e->prev->next = e->next;
	INIT_LIST_HEAD(e);
}
static inline void list_move(struct list_head *e, struct list_head *h)
{
	list_del(e);
	list_add(e, h);
}
static inline void list_move_tail(struct list_head *e, struct list_head *h)
{
	list_del(e);
	list_add_tail(e, h);
}
static inline int list_is_singular(const struct list_head *h)
{
	return !list_empty(h) && h->next == h->prev;
}
static inline void list_rotate_left(struct list_head *h)
{
	if (!list_empty(h))
		list_move_tail(h->next, h);
}
#define list_entry(p, t, m) container_of(p, t, m)
#define list_first_entry(h, t, m) list_entry((h)->next, t, m)
#define list_next_entry(p, m) list_entry((p)->m.next, typeof(*(p)), m)
#define list_first_entry_or_null(h, t, m) (list_empty(h) ? NULL : list_first_entry(h, t, m))
#define list_for_each_entry(p, h, m) \
	for (p = list_entry((h)->next, __typeof__(*p), m); &p->m != (h); \
	     p = list_entry(p->m.next, __typeof__(*p), m))
#define list_for_each_entry_reverse(p, h, m) \
	for (p = list_entry((h)->prev, __typeof__(*p), m); &p->m != (h); \
	     p = list_entry(p->m.prev, __typeof__(*p), m))
#define list_for_each_entry_safe(p, n, h, m) \
	for (p = list_entry((h)->next, __typeof__(*p), m), \
	     n = list_entry(p->m.next, __typeof__(*p), m); &p->m != (h); \
	     p = n, n = list_entry(n->m.next, __typeof__(*n), m))

static inline void hlist_add_head(struct hlist_node *n, struct hlist_head *h)
{
	n->next = h->first;
	if (h->first)
		h->first->pprev = &n->next;
	h->first = n;
	n->pprev = &h->first;
}
static inline void hlist_add_behind(struct hlist_node *n, struct hlist_node *prev)
{
	n->next = prev->next;
	prev->next = n;
	n->pprev = &prev->next;
	if (n->next)
		n->next->pprev = &n->next;
}
static inline u32 bitrev32(u32 x)
{
	u32 r = 0;
	int i;

	for (i = 0; i < 32; i++, x >>= 1)
		r = r << 1 | (x & 1);
	return r;
}
static inline void hlist_del(struct hlist_node *n)
{
	*n->pprev = n->next;
	if (n->next)
		n->next->pprev = n->pprev;
}
#define hlist_entry_safe(p, t, m) ((p) ? container_of(p, t, m) : NULL)
#define hlist_for_each_entry(p, h, m) \
	for (p = hlist_entry_safe((h)->first, __typeof__(*p), m); p; \
	     p = hlist_entry_safe(p->m.next, __typeof__(*p), m))
#define hlist_for_each_entry_safe(p, n, h, m) \
	for (p = hlist_entry_safe((h)->first, __typeof__(*p), m); \
	     p && ({ n = p->m.next; 1; }); p = hlist_entry_safe(n, __typeof__(*p), m))

typedef int spinlock_t;
/* the unit tests run on one thread: a lock is taken for nothing */
#define spin_lock_bh(l) ((void)(l))
#define spin_unlock_bh(l) ((void)(l))
struct rcu_head { void *next; };
typedef long atomic_long_t;
#define atomic_long_inc(p) ((*(p))++)
struct mutex { int unused; };
extern struct mutex fairq_sched_mutex;
struct ftrace_regs { unsigned long di; };
struct kref { int refcount; };
#define CONFIG_DYNAMIC_FTRACE_WITH_ARGS 1
#define FAIRQ_HAVE_FTRACE_REGS_GET_ARG 1
#define FAIRQ_HAVE_FTRACE_REGS_SET_IP 1
#define FAIRQ_HAVE_SVC_DESTROY_SERVP 1
#define ftrace_regs_get_argument(f, n) ((f)->di)
#define ftrace_regs_set_instruction_pointer(f, ip) ((f)->di = (ip))

struct svc_serv { const char *sv_name; };
struct svc_pool { int unused; };
struct task_struct;
struct svc_xprt;
/* what the thread records (threads.c) read of a thread's request */
struct svc_rqst {
	struct svc_xprt *rq_xprt;
	ktime_t rq_stime;
	struct task_struct *rq_task;
};
/* xpt_ready is two words on 6.1 and one on 6.7+: the tests use the smaller. */
typedef struct { int counter; } atomic_t;
#define atomic_read(a) ((a)->counter)
#define atomic_inc(a) ((a)->counter++)
#define atomic_dec(a) ((a)->counter--)
#define ATOMIC_INIT(n) { (n) }

/* a module's parameter table, as sunrpc's per-connection limit is found in it */
struct kernel_param {
	const char *name;
	void *arg;
};
struct module {
	unsigned int num_kp;
	const struct kernel_param *kp;
};
/* the unit tests call no hook: nothing is fairq's own text */
#define FAIRQ_HAVE_MODULE_MEM 1
#define THIS_MODULE ((struct module *)0)
#define within_module_mem_type(addr, mod, type) ((void)(addr), false)
struct svc_xprt_class {
	const char *xcl_name;
	struct module *xcl_owner;
};
struct svc_xprt {
	int id;
	struct { void *next; } xpt_ready;
	struct sockaddr_storage xpt_remote;
	atomic_t xpt_nr_rqsts;
	struct svc_xprt_class *xpt_class;
	unsigned long xpt_flags;	/* fairq's marks (mark.h) */
};
#define smp_load_acquire(p) __atomic_load_n(p, __ATOMIC_ACQUIRE)
#define smp_store_release(p, v) __atomic_store_n(p, v, __ATOMIC_RELEASE)
/* one-time notices are counted, so that a test can see one was given */
extern int kshim_notices;
#define pr_info_once(...) ((void)kshim_notices++)
/* Policies print debug counters; the tests do not read them. */
/* a warning is a test failure: fail loudly */
#define WARN_ON_ONCE(cond) ({ bool __w = !!(cond); if (__w) abort(); __w; })

/* 64-bit atomics as fq's class clocks use them (single-threaded tests: plain operations) */
typedef struct { s64 counter; } atomic64_t;
#define atomic64_read(a) ((a)->counter)
#define atomic64_set(a, v) ((a)->counter = (v))
#define atomic64_inc(a) ((a)->counter++)
#define atomic64_inc_return(a) (++(a)->counter)
#define atomic64_dec(a) ((a)->counter--)
#define atomic64_add(v, a) ((a)->counter += (v))
#define atomic64_sub(v, a) ((a)->counter -= (v))
static inline bool atomic64_try_cmpxchg(atomic64_t *a, s64 *old, s64 new)
{
	if (a->counter != *old) {
		*old = a->counter;
		return false;
	}
	a->counter = new;
	return true;
}
#define NSEC_PER_SEC 1000000000ULL
#define MSEC_PER_SEC 1000L
#define U64_MAX UINT64_MAX
#define min(a, b) ((a) < (b) ? (a) : (b))
#define max(a, b) ((a) > (b) ? (a) : (b))
static inline long strscpy(char *dst, const char *src, size_t size)
{
	size_t i;

	for (i = 0; i + 1 < size && src[i]; i++)
		dst[i] = src[i];
	dst[i] = 0;
	return src[i] ? -7 : (long)i;	/* -E2BIG when cut */
}
/* the pool timer (fairq_pool_wake_at()): the tests call the policy's tick themselves */
struct hrtimer { int unused; };
enum hrtimer_restart { HRTIMER_NORESTART };
enum hrtimer_mode { HRTIMER_MODE_ABS_SOFT };
#include <time.h>	/* clockid_t */
#define FAIRQ_HAVE_HRTIMER_SETUP 1
#define hrtimer_setup(t, fn, clock, mode) ((void)(t), (void)(fn), (void)(clock), (void)(mode))
#define ____cacheline_aligned __attribute__((aligned(64)))
#define ____cacheline_aligned_in_smp ____cacheline_aligned
#endif
