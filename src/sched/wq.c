// SPDX-License-Identifier: GPL-2.0-only
/*
 * wq: ready transports are served by work contexts that fairq owns and sizes to the load,
 * instead of by waking nfsd's fixed thread pool (Jeff Layton's 2014 workqueue series).
 *
 * Order is FIFO, as in qfifo; what changes is who runs the request.  Each pool has an elastic
 * set of workers: an enqueue wakes an idle worker, or starts a new one when none is idle (up
 * to max_workers per pool), and a worker idle for idle_ms goes away.  So concurrency follows
 * the load: a burst against slow storage grows the set, and a quiet server keeps one worker.
 * nfsd's own threads stay, asleep, for control work (closes, shutdown).
 *
 * Why dedicated kthreads and not the shared workqueue: nfsd needs its contexts to have their
 * own fs_struct with umask 0 (files get exactly the mode the client asked for), and it leaves
 * a request's credentials installed on the task until the next request.  A kworker shares
 * init's fs_struct and runs other work items in between, so either would leak.  Layton's
 * series solved that with a per-request fs_struct switch inside fs/, which a module cannot
 * do.  A worker here does what an nfsd thread does at start (unshare_fs_struct, umask 0).
 *
 * Offered only where sunrpc lets a request context exist outside the thread pool and stops
 * between receiving and processing: svc_rqst_alloc(), svc_recv() returning the request, and
 * svc_process() exported (before 6.6).  Later kernels make svc_recv() process the request
 * itself and park the caller on the pool's idle list, and no longer export the allocation:
 * there a worker would just be an nfsd thread that the thread-count code cannot see.
 *
 * Lifetimes: workers are created and stopped only from process context under wq_mutex.  A
 * service's workers are stopped before it loses its last nfsd thread (nfsd's shutdown
 * then frees the state that requests use), before it is freed, and when wq stops being the
 * active policy.  A worker belongs to one generation of its pool's wq state; after a switch
 * away and back, old workers find their generation gone and wait to be stopped.
 */
#include <linux/atomic.h>
#include <linux/freezer.h>
#include <linux/fs_struct.h>
#include <linux/hashtable.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <linux/sunrpc/svc.h>
#include <linux/sunrpc/svc_xprt.h>
#include <linux/sunrpc/svcsock.h>
#include <fairq/sched-own.h>
#include <fairq/testing.h>

#ifdef FAIRQ_HAVE_SVC_RQST_ALLOC

/* One worker: a kthread with its own request context, serving one pool. */
struct wq_worker {
	struct list_head all;		/* wq_workers, under wq_mutex */
	struct hlist_node by_task;	/* wq_by_task, under wq_mutex; looked up under RCU */
	struct list_head idle;		/* its pool's idle list, under the pool lock */
	struct rcu_head rcu;
	struct task_struct *task;
	struct svc_rqst *rqstp;		/* the kthread's data, as for an nfsd thread */
	struct svc_serv *serv;
	struct fairq_pool *fp;
	u64 gen;
	bool counted;			/* in its pool's nr_workers */
	bool fresh;			/* in its pool's nr_pending: has not looked for work yet */
	bool kicked;			/* in its pool's nr_woken: woken, not looked for work yet */
	bool retired;			/* waits for kthread_stop; the manager reaps it */
};

/* The policy's per-pool state (fairq_pool_priv). */
struct wq_pool {
	struct fairq_xlist queue;
	struct list_head idle;		/* idle workers, most recently idle first */
	u64 gen;
	unsigned int nr_workers;	/* running, idle, or being started */
	unsigned int nr_idle;
	unsigned int nr_starting;	/* asked of the manager, not yet picked up by it */
	unsigned int nr_pending;	/* asked for, not yet looking for work */
	unsigned int nr_woken;		/* idle ones woken for work, not yet looking for it */
	u64 started;
	u64 stopped_idle;
	u64 start_failures;
	u64 at_max;			/* work that found every worker busy and the set full */
};

#define WQ_DEF_MAX_WORKERS	64
#define WQ_DEF_IDLE_MS		5000
static u32 wq_max_workers = WQ_DEF_MAX_WORKERS;
static u32 wq_idle_ms = WQ_DEF_IDLE_MS;
static atomic64_t wq_next_gen = ATOMIC64_INIT(0);

static DEFINE_MUTEX(wq_mutex);
static LIST_HEAD(wq_workers);
static DEFINE_HASHTABLE(wq_by_task, 6);
static void wq_manage(struct work_struct *work);
static DECLARE_WORK(wq_manage_work, wq_manage);

static struct wq_pool *wq_pool(struct fairq_pool *fp)
{
	return fairq_pool_priv(fp);
}

/*
 * @fp's wq state of generation @gen, or NULL if wq left the pool since (even if it came back:
 * a new generation).  Pool lock held.
 */
static struct wq_pool *wq_mine(struct fairq_pool *fp, u64 gen)
{
	if (!fairq_pool_runs(fp, &fairq_sched_wq) || wq_pool(fp)->gen != gen)
		return NULL;
	return wq_pool(fp);
}

static void wq_init_pool(struct fairq_pool *fp)
{
	struct wq_pool *p = wq_pool(fp);

	fairq_xlist_init(&p->queue);
	INIT_LIST_HEAD(&p->idle);
	p->gen = atomic64_inc_return(&wq_next_gen);
}

/* Idle workers of a generation that is ending stop being reachable through the pool. */
static void wq_exit_pool(struct fairq_pool *fp)
{
	struct wq_pool *p = wq_pool(fp);
	struct wq_worker *w, *tmp;

	list_for_each_entry_safe(w, tmp, &p->idle, idle) {
		list_del_init(&w->idle);
		wake_up_process(w->task);	/* finds its generation gone, and retires */
	}
	p->nr_idle = 0;
}

static void wq_enqueue(struct fairq_pool *fp, struct svc_xprt *xprt)
{
	fairq_xlist_push(&wq_pool(fp)->queue, xprt);
}

static struct svc_xprt *wq_pick(struct fairq_pool *fp)
{
	return fairq_xlist_pop(&wq_pool(fp)->queue);
}

static bool wq_has_work(struct fairq_pool *fp)
{
	return !fairq_xlist_empty(&wq_pool(fp)->queue);
}

static void wq_drain(struct fairq_pool *fp, struct fairq_xlist *out)
{
	fairq_xlist_splice(out, &wq_pool(fp)->queue);
}

static bool wq_remove(struct fairq_pool *fp, struct svc_xprt *xprt)
{
	return fairq_xlist_remove(&wq_pool(fp)->queue, xprt);
}

/*
 * @w looks at the queue (wq_pulled()), goes idle, or ends: it no longer counts as on its way.
 * Pool lock held.
 */
static void wq_arrived(struct wq_worker *w)
{
	struct wq_pool *mine = wq_mine(w->fp, w->gen);

	if (w->fresh && mine)
		mine->nr_pending--;
	if (w->kicked && mine)
		mine->nr_woken--;
	w->fresh = false;
	w->kicked = false;
}

/*
 * Contexts on their way to the queue: started or woken, not looking at it yet.  Each takes a
 * transport when it looks (the core's pull, under the pool lock), so queued work beyond them
 * is what still needs one.  Under load a woken worker can wait a long while for a CPU (more
 * so in a VM whose vCPUs the host preempts), before it runs and again between running and
 * looking (svc_recv() allocates pages and yields first); counting it until the look keeps
 * the watchdog from calling that wait a lost wakeup, and keeps enqueues from starting
 * workers for work that already has one coming.
 */
static unsigned int wq_on_the_way(struct wq_pool *p)
{
	return p->nr_pending + p->nr_woken;
}

/* @w no longer counts as one of its pool's workers (idempotent); pool lock held. */
static void wq_uncount(struct wq_worker *w)
{
	struct wq_pool *mine = wq_mine(w->fp, w->gen);

	if (w->counted && mine)
		mine->nr_workers--;
	w->counted = false;
	wq_arrived(w);
}

/* Take @w off its pool's idle list if it is there; pool lock held. */
static void wq_unidle(struct wq_worker *w)
{
	struct wq_pool *mine = wq_mine(w->fp, w->gen);

	if (list_empty(&w->idle))
		return;		/* wq_exit_pool() unlinks idle workers of an ending generation */
	list_del_init(&w->idle);
	if (mine)
		mine->nr_idle--;
}

/* Whether @w still serves its pool; pool lock held. */
static bool wq_current(struct wq_worker *w)
{
	return wq_mine(w->fp, w->gen) && !fairq_pool_stopping(w->fp);
}

/* Wake the most recently idle worker (its cache is warmest), if there is one; pool lock held. */
static bool wq_wake_idle(struct wq_pool *p)
{
	struct wq_worker *w = list_first_entry_or_null(&p->idle, struct wq_worker, idle);

	if (!w)
		return false;
	list_del_init(&w->idle);
	p->nr_idle--;
	w->kicked = true;
	p->nr_woken++;
	wake_up_process(w->task);
	return true;
}

/*
 * A worker that counted as on its way will not come (its start failed): work that enqueues
 * left to it needs another context.  An idle worker if there is one; if the pool has no
 * worker at all, one of nfsd's threads: returns true, and the caller wakes one once the pool
 * lock is dropped (from then on, each context that looks for work asks for a worker again).
 * Never another start from here: it could fail the same way, over and over.  Pool lock held.
 */
static bool wq_not_coming(struct fairq_pool *fp)
{
	struct wq_pool *p = wq_pool(fp);

	if (fairq_pool_stopping(fp) || fairq_pool_nr_queued(fp) <= wq_on_the_way(p) ||
	    !wq_has_work(fp))
		return false;
	return !wq_wake_idle(p) && !p->nr_workers;
}

/*
 * Work is queued: wake an idle worker, or ask the manager for one more.  Returns whether a
 * context was started for it; with every worker busy and the set full, the busy ones take it
 * as they finish.
 */
static bool wq_kick(struct fairq_pool *fp)
{
	struct wq_pool *p = wq_pool(fp);

	/* enough workers are on their way for everything queued */
	if (wq_on_the_way(p) >= fairq_pool_nr_queued(fp))
		return false;
	if (wq_wake_idle(p))
		return true;
	if (p->nr_workers >= READ_ONCE(wq_max_workers)) {
		p->at_max++;
		return false;
	}
	p->nr_workers++;
	p->nr_pending++;
	p->nr_starting++;
	queue_work(system_unbound_wq, &wq_manage_work);
	return true;
}

/* For the watchdog: an idle worker, and queued work that no woken or new one is coming for. */
static bool wq_has_idle(struct fairq_pool *fp)
{
	struct wq_pool *p = wq_pool(fp);

	return p->nr_idle && fairq_pool_nr_queued(fp) > wq_on_the_way(p);
}

static void wq_counters(struct fairq_pool *fp, struct fairq_counters *out)
{
	struct wq_pool *p = wq_pool(fp);

	fairq_counter_add(out, "workers", p->nr_workers);
	fairq_counter_add(out, "idle_workers", p->nr_idle);
	fairq_counter_add(out, "woken_workers", p->nr_woken);
	fairq_counter_add(out, "started", p->started);
	fairq_counter_add(out, "stopped_idle", p->stopped_idle);
	fairq_counter_add(out, "start_failures", p->start_failures);
	fairq_counter_add(out, "at_max", p->at_max);
}

enum wq_next { WQ_RUN, WQ_RETIRE };

/*
 * Between requests: run again while the pool has work (or the kernel queue does: a close
 * handed over directly), else wait on the idle list.  An idle worker that is not woken within
 * idle_ms retires, unless it is the pool's last.
 */
static enum wq_next wq_worker_wait(struct wq_worker *w)
{
	struct fairq_pool *fp = w->fp;
	struct wq_pool *p = wq_pool(fp);
	long left;

	fairq_pool_lock(fp);
	if (!wq_current(w))
		goto retire_locked;
	/* a worker on its way (new, or woken) stays counted until it looks (wq_pulled()) */
	if ((fairq_pool_nr_queued(fp) && wq_has_work(fp)) || !fairq_pool_kernel_queue_empty(fp)) {
		fairq_pool_unlock(fp);
		fairq_test_sleep(FAIRQ_TEST_DELAY_WQ_RUN);
		return WQ_RUN;
	}
	wq_arrived(w);
	set_current_state(TASK_IDLE | TASK_FREEZABLE);
	list_add(&w->idle, &p->idle);
	p->nr_idle++;
	fairq_pool_unlock(fp);

	left = schedule_timeout(msecs_to_jiffies(READ_ONCE(wq_idle_ms)));
	__set_current_state(TASK_RUNNING);

	fairq_pool_lock(fp);
	if (!wq_current(w))
		goto retire_locked;
	if (list_empty(&w->idle)) {
		/* woken by wq_kick(): counted as on its way until it looks */
		fairq_pool_unlock(fp);
		fairq_test_sleep(FAIRQ_TEST_DELAY_WQ_RUN);
		return WQ_RUN;
	}
	wq_unidle(w);
	if (left || p->nr_workers <= 1 || kthread_should_stop()) {
		fairq_pool_unlock(fp);
		return WQ_RUN;
	}
	p->stopped_idle++;
retire_locked:
	wq_unidle(w);
	wq_uncount(w);
	fairq_pool_unlock(fp);
	return WQ_RETIRE;
}

/* The worker that @task is, or NULL (an nfsd thread); RCU read lock held. */
static struct wq_worker *wq_worker_of(const struct task_struct *task)
{
	struct wq_worker *w;

	hash_for_each_possible_rcu(wq_by_task, w, by_task, (unsigned long)task) {
		if (w->task == task)
			return w;
	}
	return NULL;
}

/* A context looks at @fp's queue: if it is one of @fp's workers, it has arrived. */
static void wq_pulled(struct fairq_pool *fp, struct svc_rqst *rqstp)
{
	struct wq_worker *w;

	rcu_read_lock();
	w = wq_worker_of(rqstp->rq_task);
	if (w && w->fp == fp)
		wq_arrived(w);
	rcu_read_unlock();
}

static int wq_worker_fn(void *data)
{
	struct wq_worker *w;
	bool run = true;
	int len;

	/* hashed before the thread was first woken, unhashed after it stopped */
	rcu_read_lock();
	w = wq_worker_of(current);
	rcu_read_unlock();

	/* as every nfsd thread: the client's mode, not init's umask, applies to new files */
	if (unshare_fs_struct() == 0) {
		current->fs->umask = 0;
	} else {
		bool to_nfsd = false;

		fairq_pool_lock(w->fp);
		wq_uncount(w);
		if (wq_mine(w->fp, w->gen)) {
			wq_pool(w->fp)->start_failures++;
			to_nfsd = wq_not_coming(w->fp);
		}
		fairq_pool_unlock(w->fp);
		if (to_nfsd)
			fairq_nfsd_push(w->fp);
		run = false;
	}
	set_freezable();

	while (run && !kthread_should_stop()) {
		if (wq_worker_wait(w) == WQ_RETIRE)
			break;
		/* the pull hook hands this context the pool's next transport, as for a thread */
		len = svc_recv(w->rqstp, 1);
		if (len > 0)
			svc_process(w->rqstp);
	}
	WRITE_ONCE(w->retired, true);
	queue_work(system_unbound_wq, &wq_manage_work);
	while (!kthread_should_stop()) {
		set_current_state(TASK_IDLE);
		if (!kthread_should_stop())
			schedule();
		__set_current_state(TASK_RUNNING);
	}
	return 0;
}

/*
 * Stop and free @w; wq_mutex held (its pool stays valid meanwhile), @w no longer reachable
 * from its pool.
 */
static void wq_worker_free(struct wq_worker *w)
{
	lockdep_assert_held(&wq_mutex);
	list_del(&w->all);
	hash_del_rcu(&w->by_task);
	/* held beyond kthread_stop(): a new thread at its address would take its record */
	get_task_struct(w->task);
	kthread_stop(w->task);
	/* a policy switched to while it was on its way may have counted it as working */
	fairq_context_exit(w->fp, w->task);
	put_task_struct(w->task);
	svc_rqst_free(w->rqstp);
	kfree_rcu(w, rcu);
}

/* Detach @w from its pool (if it is still counted there) and free it; wq_mutex held. */
static void wq_worker_stop(struct wq_worker *w)
{
	struct fairq_pool *fp = w->fp;

	fairq_pool_lock(fp);
	wq_unidle(w);
	wq_uncount(w);
	fairq_pool_unlock(fp);
	wq_worker_free(w);
}

/* Start one worker for @fp (generation @gen) of @serv; wq_mutex held. */
static void wq_start(struct fairq_pool *fp, struct svc_serv *serv, u64 gen)
{
	struct task_struct *task = NULL;
	struct wq_worker *w;
	struct wq_pool *p;
	bool keep, to_nfsd = false;

	lockdep_assert_held(&wq_mutex);
	fairq_test_sleep(FAIRQ_TEST_DELAY_WQ_START);
	w = kzalloc(sizeof(*w), GFP_KERNEL);
	if (w && !fairq_test_fail(FAIRQ_TEST_FAIL_WQ_WORKER))
		w->rqstp = svc_rqst_alloc(serv, fairq_pool_svc_pool(fp), NUMA_NO_NODE);
	if (w && w->rqstp)
		task = kthread_create(wq_worker_fn, w->rqstp, "fairq-wq/%u", fairq_pool_id(fp));
	if (IS_ERR_OR_NULL(task)) {
		if (w && w->rqstp)
			svc_rqst_free(w->rqstp);
		kfree(w);
		fairq_pool_lock(fp);
		p = wq_mine(fp, gen);
		if (p) {
			p->nr_workers--;
			p->nr_pending--;
			p->start_failures++;
			to_nfsd = wq_not_coming(fp);
		}
		fairq_pool_unlock(fp);
		if (to_nfsd)
			fairq_nfsd_push(fp);
		return;
	}
	INIT_LIST_HEAD(&w->idle);
	w->task = task;
	w->rqstp->rq_task = task;
	w->serv = serv;
	w->fp = fp;
	w->gen = gen;
	w->counted = true;
	w->fresh = true;
	list_add(&w->all, &wq_workers);
	hash_add_rcu(wq_by_task, &w->by_task, (unsigned long)task);

	fairq_pool_lock(fp);
	p = wq_mine(fp, gen);
	keep = p && !fairq_pool_stopping(fp);
	if (keep)
		p->started++;
	else
		wq_uncount(w);
	fairq_pool_unlock(fp);
	if (keep)
		wake_up_process(task);
	else
		wq_worker_free(w);
}

/* The pool the manager starts a worker for next, and what it starts it with. */
struct wq_start_req {
	struct fairq_pool *fp;
	struct svc_serv *serv;
	u64 gen;
};

/* Whether @cand (of @serv) asked for a worker: if so, its request is taken into @arg. */
static bool wq_take_start(struct fairq_pool *cand, struct svc_serv *serv, void *arg)
{
	struct wq_start_req *req = arg;
	struct wq_pool *wp;
	bool found = false;

	fairq_pool_lock(cand);
	if (!fairq_pool_runs(cand, &fairq_sched_wq))
		goto out;
	wp = wq_pool(cand);
	/*
	 * A stopping service is being torn down: it may be freed while wq_start() sleeps, so it
	 * gets no worker (see wq_quiesce()), and the workers wq_kick() counted will not come.
	 */
	if (fairq_pool_stopping(cand)) {
		wp->nr_workers -= wp->nr_starting;
		wp->nr_pending -= wp->nr_starting;
		wp->nr_starting = 0;
	}
	if (wp->nr_starting) {
		wp->nr_starting--;
		req->fp = cand;
		req->serv = serv;
		req->gen = wp->gen;
		found = true;
	}
out:
	fairq_pool_unlock(cand);
	return found;
}

/*
 * The manager: starts the workers that enqueues asked for, and reaps retired ones.  Pools
 * stay valid while it holds wq_mutex: a service is freed only after wq_quiesce() has taken it.
 */
static void wq_manage(struct work_struct *work)
{
	struct wq_worker *w, *tmp;
	struct wq_start_req req;

	fairq_test_sleep(FAIRQ_TEST_DELAY_WQ_MANAGE);
	mutex_lock(&wq_mutex);
	list_for_each_entry_safe(w, tmp, &wq_workers, all) {
		if (READ_ONCE(w->retired))
			wq_worker_free(w);
	}
	while (fairq_pools_walk(wq_take_start, &req)) {
		fairq_test_using(req.fp);
		wq_start(req.fp, req.serv, req.gen);
		fairq_test_using(NULL);
	}
	mutex_unlock(&wq_mutex);
}

/*
 * Stop every worker of @serv (of every service when NULL), each after its current request.
 * Sleeps.  New workers for @serv are refused meanwhile by its pools' stopping flag, which the
 * core sets first.
 */
static void wq_quiesce(struct svc_serv *serv)
{
	struct wq_worker *w, *tmp;

	mutex_lock(&wq_mutex);
	list_for_each_entry_safe(w, tmp, &wq_workers, all) {
		if (!serv || w->serv == serv)
			wq_worker_stop(w);
	}
	mutex_unlock(&wq_mutex);
	/*
	 * A manager run that picked one of @serv's pools before its stopping flag was set may
	 * still sleep in wq_start() with that pool: the caller frees the pool next, so wait for
	 * it.  Runs after this one skip @serv's pools.
	 */
	flush_work(&wq_manage_work);
}

static bool wq_supported(void)
{
	return true;
}

static u64 wq_get_max_workers(void)
{
	return READ_ONCE(wq_max_workers);
}

static int wq_set_max_workers(u64 val)
{
	WRITE_ONCE(wq_max_workers, val);
	return 0;
}

static u64 wq_get_idle_ms(void)
{
	return READ_ONCE(wq_idle_ms);
}

static int wq_set_idle_ms(u64 val)
{
	WRITE_ONCE(wq_idle_ms, val);
	return 0;
}

static const struct fairq_tunable wq_tunables[] = {
	{ "max_workers", "workers per pool at most (the set grows with the load up to this)", 1,
	  1024, wq_get_max_workers, wq_set_max_workers, WQ_DEF_MAX_WORKERS },
	{ "idle_ms", "an idle worker beyond a pool's first stops after this many ms", 100,
	  600000, wq_get_idle_ms, wq_set_idle_ms, WQ_DEF_IDLE_MS },
	{ }
};

static const struct fairq_own_ops wq_own_ops = {
	.kick		= wq_kick,
	.has_idle	= wq_has_idle,
	.pulled		= wq_pulled,
	.quiesce	= wq_quiesce,
};

#define wq_own		(&wq_own_ops)

#else /* sunrpc processes inside svc_recv() and keeps request contexts to its threads */

static bool wq_supported(void)
{
	return false;
}

#define wq_init_pool	fairq_qfifo_init_pool
#define wq_enqueue	fairq_qfifo_enqueue
#define wq_pick		fairq_qfifo_pick
#define wq_has_work	fairq_qfifo_has_work
#define wq_drain	fairq_qfifo_drain
#define wq_remove	fairq_qfifo_remove
#define wq_exit_pool	NULL
#define wq_own		NULL
#define wq_counters	NULL
#define wq_tunables	NULL
#define wq_pool		fairq_qfifo_pool

#endif

const struct fairq_sched_ops fairq_sched_wq = {
	.owner		= THIS_MODULE,
	.name		= "wq",
	.flags		= FAIRQ_SCHED_ALWAYS_READY,
	.priv_size	= sizeof(struct wq_pool),
	.init_pool	= wq_init_pool,
	.exit_pool	= wq_exit_pool,
	.enqueue	= wq_enqueue,
	.pick		= wq_pick,
	.has_work	= wq_has_work,
	.drain		= wq_drain,
	.remove		= wq_remove,
	.own		= wq_own,
	.tunables	= wq_tunables,
	.counters	= wq_counters,
	.supported	= wq_supported,
};
