// SPDX-License-Identifier: GPL-2.0-only
/*
 * watch: per-pool rates every interval, redrawn in place on a terminal, plain lines otherwise,
 * with scheduler switches as they are announced; monitor: only the announcements.  Both stop
 * cleanly on SIGINT or SIGTERM.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "fairqctl.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* No SA_RESTART: a signal must interrupt poll(). */
static void catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static const char *clock_text(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	strftime(buf, len, "%H:%M:%S", localtime_r(&t, &tm));
	return buf;
}

struct event {
	char active[FAIRQ_SCHED_NAME_LEN + 1];
	char previous[FAIRQ_SCHED_NAME_LEN + 1];
	char when[16];
};

struct events {
	unsigned int nr;
	struct event ev[8];	/* the latest ones */
};

static int on_event(struct nlattr **tb, struct nlmsghdr *nlh, void *arg)
{
	struct events *e = arg;
	struct event *ev;

	(void)nlh;
	if (e->nr == ARRAY_SIZE(e->ev)) {
		memmove(&e->ev[0], &e->ev[1], sizeof(e->ev) - sizeof(e->ev[0]));
		e->nr--;
	}
	ev = &e->ev[e->nr++];
	snprintf(ev->active, sizeof(ev->active), "%s",
		 tb[FAIRQ_A_SCHED_ACTIVE] ? nla_get_string(tb[FAIRQ_A_SCHED_ACTIVE]) : "?");
	snprintf(ev->previous, sizeof(ev->previous), "%s",
		 tb[FAIRQ_A_SCHED_PREVIOUS] ? nla_get_string(tb[FAIRQ_A_SCHED_PREVIOUS]) : "?");
	clock_text(ev->when, sizeof(ev->when));
	return 0;
}

static void print_events(const struct events *e)
{
	unsigned int i;

	out_arr_start("events");
	for (i = 0; i < e->nr; i++) {
		out_obj_start(NULL);
		out_str(FQ_TEXT, NULL, "%s ", e->ev[i].when);
		out_str(FQ_JSON, "event", NULL, "sched-switch");
		out_str(FQ_ANY, "previous", "scheduler %s", e->ev[i].previous);
		out_str(FQ_ANY, "active", " -> %s", e->ev[i].active);
		out_obj_end();
		out_text("\n");
	}
	out_arr_end();
}

/*
 * Wait up to @secs for events (collected in @e), or only until the first with @first; false
 * once a signal asked to stop.  Without an events socket (*@fd < 0) it only sleeps; a socket
 * that fails (events lost to an overflow) is given up, with *@fd set to -1.
 */
static bool wait_events(struct fq_nl *nl, int *fd, double secs, struct events *e, bool first)
{
	double end = now() + secs, left;
	struct pollfd pfd = { .fd = *fd, .events = POLLIN };

	while (!stop && (left = end - now()) > 0 && !(first && e->nr)) {
		int n = poll(&pfd, 1, (int)ceil(left * 1000));

		if (n < 0 && errno != EINTR)
			break;
		if (n > 0 && (pfd.revents & POLLIN) && fq_nl_events_read(nl, on_event, e) < 0)
			*fd = -1;
		pfd.fd = *fd;
	}
	return !stop;
}

struct watch_opts {
	double interval;
	long count;
	double timeout;
};

static int watch_opt(int c, const char *arg, void *ctx)
{
	struct watch_opts *o = ctx;
	char *end;
	uint64_t n;

	switch (c) {
	case 'i':
		o->interval = strtod(arg, &end);
		if (*end || end == arg || !(o->interval >= 0.1 && o->interval <= 3600))
			return fq_usage_error("%s: the interval is 0.1 to 3600 seconds, not '%s'",
					      fq_cmd, arg);
		break;
	case 'n':
		if (!fq_parse_u64(arg, &n) || !n || n > 0x7fffffff)
			return fq_usage_error("%s: -n takes a positive count, not '%s'", fq_cmd,
					      arg);
		o->count = n;
		break;
	case 't':
		o->timeout = strtod(arg, &end);
		if (*end || end == arg || !(o->timeout > 0 && o->timeout <= 86400))
			return fq_usage_error("%s: the timeout is up to 86400 seconds, not '%s'",
					      fq_cmd, arg);
		break;
	}
	return FQ_EXIT_OK;
}

static const struct fq_pool *find_pool(const struct fq_pools *p, const struct fq_pool *want)
{
	unsigned int i;

	for (i = 0; i < p->nr; i++) {
		if (p->p[i].serv == want->serv && p->p[i].pool == want->pool)
			return &p->p[i];
	}
	return NULL;
}

static double rate(uint64_t cur, uint64_t prev, double secs)
{
	return cur >= prev && secs > 0 ? (double)(cur - prev) / secs : 0;
}

/* One frame: every pool's rates since @prev (a new pool starts from zero). */
static void print_frame(const struct fq_pools *cur, const struct fq_pools *prev, double secs,
			bool tty)
{
	char clock[16];
	unsigned int i;

	clock_text(clock, sizeof(clock));
	if (tty && cur->nr)
		out_text("SERV POOL SCHED    THREADS IDLE QUEUED    ENQ/s   DISP/s   WAKE/s RESCUES\n");
	out_arr_start("pools");
	for (i = 0; i < cur->nr; i++) {
		const struct fq_pool *p = &cur->p[i], *q = find_pool(prev, p);
		struct fq_pool zero = { 0 };

		if (!q)
			q = &zero;
		out_obj_start(NULL);
		if (!tty)
			out_text("%s ", clock);
		out_exact(FQ_ANY, "serv", tty ? "%4s" : "serv %s", p->serv);
		out_exact(FQ_ANY, "pool", tty ? " %4s" : " pool %s", p->pool);
		out_str(FQ_ANY, "sched", tty ? " %-8s" : " sched %s", p->sched);
		out_exact(FQ_ANY, "threads", tty ? " %7s" : " threads %s", p->threads);
		out_exact(FQ_ANY, "threads_idle", tty ? " %4s" : " idle %s", p->idle);
		out_num(FQ_ANY, "queued", tty ? " %6s" : " queued %s", p->queued);
		out_rate(FQ_ANY, "enqueued_per_sec", tty ? " %8s" : " enq/s %s",
			 rate(p->enqueued, q->enqueued, secs));
		out_rate(FQ_ANY, "dispatched_per_sec", tty ? " %8s" : " disp/s %s",
			 rate(p->fed_pull + p->fed_push + p->fed_bypass,
			      q->fed_pull + q->fed_push + q->fed_bypass, secs));
		out_rate(FQ_ANY, "wakeups_per_sec", tty ? " %8s" : " wake/s %s",
			 rate(p->wakeups, q->wakeups, secs));
		out_num(FQ_ANY, "rescues", tty ? " %7s" : " rescues %s", p->rescues);
		out_obj_end();
		out_text("\n");
	}
	out_arr_end();
}

int cmd_watch(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	struct watch_opts o = { .interval = 1 };
	struct fq_pools pools[2] = { };
	struct fq_kpools kp[2];
	struct events ev = { };
	struct fq_scheds s;
	bool tty = !fq_opts.json && isatty(STDOUT_FILENO);
	struct fq_nl *nl;
	unsigned int cur = 0;
	long frames = 0;
	double t0, t1;
	int rc, err, fd;
	bool have_sched = false;

	if (!fq_getopt(argc, argv, "i:n:", longopts, "watch [-i SEC] [-n COUNT]", watch_opt, &o,
		       &rc))
		return rc;
	if (optind < argc)
		return fq_usage_error("watch: unexpected argument '%s'", argv[optind]);
	rc = fq_nl_open(&nl);
	if (rc)
		return rc;
	fd = fq_nl_events_fd(nl);
	catch_signals();
	err = fq_get_pools(nl, &pools[cur]);
	fq_read_kpools(&kp[cur]);
	t0 = now();
	while (!err) {
		if (!wait_events(nl, &fd, o.interval, &ev, false))
			break;
		cur ^= 1;
		/* switches are announced: ask for the scheduler only after one, or without events */
		if (!have_sched || ev.nr || fd < 0) {
			err = fq_get_scheds(nl, &s);
			have_sched = !err;
		}
		if (!err)
			err = fq_get_pools(nl, &pools[cur]);
		if (err)
			break;
		fq_read_kpools(&kp[cur]);
		t1 = now();

		if (tty)
			out_text("\033[H\033[J");
		out_doc_start();
		out_text(tty ? "fairqctl watch: every %.1fs, scheduler %s (Ctrl-C to stop)\n" : "",
			 o.interval, s.active);
		out_str(FQ_JSON, "scheduler", NULL, s.active);
		out_bool(FQ_JSON, "idle", NULL, !pools[cur].nr);
		out_exact(FQ_JSON, "time", NULL, (uint64_t)time(NULL));
		out_rate(FQ_JSON, "interval", NULL, t1 - t0);
		print_frame(&pools[cur], &pools[cur ^ 1], t1 - t0, tty);
		if (!pools[cur].nr) {
			char clock[16];

			if (tty)
				out_text("fairq is idle (scheduler %s): nfsd's own counters, per second\n",
					 s.active);
			else
				out_text("%s fairq idle, scheduler %s; nfsd per second:\n",
					 clock_text(clock, sizeof(clock)), s.active);
			fq_print_kpools(&kp[cur], &kp[cur ^ 1], t1 - t0);
		}
		print_events(&ev);
		ev.nr = 0;
		out_doc_end();
		fflush(stdout);
		t0 = t1;
		if (o.count && ++frames >= o.count)
			break;
	}
	if (err)
		rc = fq_nl_fail(nl, err, "watch");
	free(pools[0].p);
	free(pools[1].p);
	fq_nl_close(nl);
	return rc;
}

int cmd_monitor(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "count", required_argument, NULL, 'n' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	struct watch_opts o = { };
	struct events ev = { };
	struct fq_nl *nl;
	long seen = 0;
	double end;
	int rc, fd;

	if (!fq_getopt(argc, argv, "n:t:", longopts, "monitor [-n COUNT] [-t SEC]", watch_opt, &o,
		       &rc))
		return rc;
	if (optind < argc)
		return fq_usage_error("monitor: unexpected argument '%s'", argv[optind]);
	rc = fq_nl_open(&nl);
	if (rc)
		return rc;
	fd = fq_nl_events_fd(nl);
	if (fd < 0) {
		fq_nl_close(nl);
		return FQ_EXIT_FAIL;
	}
	catch_signals();
	end = o.timeout ? now() + o.timeout : 0;
	while (!stop && (!o.count || seen < o.count)) {
		unsigned int i;
		double wait = end ? end - now() : 3600;

		if (wait <= 0) {
			fq_err("monitor: no scheduler switch within %g seconds", o.timeout);
			rc = FQ_EXIT_FAIL;
			break;
		}
		if (!wait_events(nl, &fd, wait, &ev, true))
			break;
		for (i = 0; i < ev.nr && (!o.count || seen < o.count); i++, seen++) {
			out_doc_start();
			out_str(FQ_TEXT, NULL, "%s ", ev.ev[i].when);
			out_str(FQ_JSON, "event", NULL, "sched-switch");
			out_str(FQ_ANY, "previous", "scheduler %s", ev.ev[i].previous);
			out_str(FQ_ANY, "active", " -> %s\n", ev.ev[i].active);
			out_doc_end();
			fflush(stdout);
		}
		ev.nr = 0;
	}
	fq_nl_close(nl);
	return rc;
}
