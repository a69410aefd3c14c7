// SPDX-License-Identifier: GPL-2.0-only
/*
 * watch: per-pool rates every interval, redrawn in place on a terminal, plain lines otherwise,
 * with the changes announced meanwhile; monitor: only the announcements (switches, tunables,
 * weights, classes, rescues), each as it comes.  Both stop cleanly on SIGINT or SIGTERM.
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
#include <netlink/genl/genl.h>
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

/* One announcement of the kernel's events groups. */
struct event {
	uint8_t cmd;			/* FAIRQ_CMD_*_NTF */
	uint64_t time_ns;		/* when the kernel made the change (0: not said) */
	char when[24];			/* local time of day, to the millisecond */
	char active[FAIRQ_SCHED_NAME_LEN + 1];	/* switches: to, from */
	char previous[FAIRQ_SCHED_NAME_LEN + 1];
	char reason[16];			/* switches fairq made itself ("failsafe") */
	char sched[FAIRQ_SCHED_NAME_LEN + 1];	/* tunables, weights, classes: whose ("": fairq's) */
	char tunable[FAIRQ_TUNABLE_NAME_LEN + 1];
	uint64_t value, previous_value;
	char key[64];
	uint32_t weight;
	uint32_t serv, pool;
	uint64_t rescues;
	struct fc_class class;		/* its settings as they now are, unless deleted */
	bool made, deleted;		/* a class made by the change; else changed or deleted */
};

struct events {
	unsigned int nr;
	struct event ev[8];	/* the latest ones (watch) */
	bool print;		/* monitor: print each as it is read, none dropped */
	long printed, limit;	/* ... up to @limit (0: no limit) */
};

static void print_event(const struct event *ev);

/* The kernel's time of the change, else ours: local time of day with milliseconds. */
static void event_when(struct event *ev)
{
	struct timespec ts;
	struct tm tm;
	char hms[12];

	if (ev->time_ns) {
		ts.tv_sec = ev->time_ns / 1000000000;
		ts.tv_nsec = ev->time_ns % 1000000000;
	} else {
		clock_gettime(CLOCK_REALTIME, &ts);
		ev->time_ns = (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	}
	strftime(hms, sizeof(hms), "%H:%M:%S", localtime_r(&ts.tv_sec, &tm));
	snprintf(ev->when, sizeof(ev->when), "%s.%03d", hms, (int)(ts.tv_nsec / 1000000) % 1000);
}

static int on_event(struct nlattr **tb, struct nlmsghdr *nlh, void *arg)
{
	struct genlmsghdr *gh = nlmsg_data(nlh);
	struct events *e = arg;
	struct event *ev;
	struct fc_key_id id;

	if (e->nr == ARRAY_SIZE(e->ev)) {
		memmove(&e->ev[0], &e->ev[1], sizeof(e->ev) - sizeof(e->ev[0]));
		e->nr--;
	}
	ev = &e->ev[e->nr++];
	memset(ev, 0, sizeof(*ev));
	ev->cmd = gh->cmd;
	switch (gh->cmd) {
	case FAIRQ_CMD_SCHED_SWITCH_NTF:
		fc_attr_str(ev->active, sizeof(ev->active), tb[FAIRQ_A_SCHED_ACTIVE], "?");
		fc_attr_str(ev->previous, sizeof(ev->previous), tb[FAIRQ_A_SCHED_PREVIOUS], "?");
		fc_attr_str(ev->reason, sizeof(ev->reason), tb[FAIRQ_A_SCHED_REASON], "");
		ev->time_ns = fc_attr_u64(tb[FAIRQ_A_SCHED_TIME]);
		break;
	case FAIRQ_CMD_PARAM_CHANGE_NTF:
		/* none: a setting of fairq itself */
		if (tb[FAIRQ_A_SCHED_NAME])
			fc_attr_str(ev->sched, sizeof(ev->sched), tb[FAIRQ_A_SCHED_NAME], "?");
		fc_attr_str(ev->tunable, sizeof(ev->tunable), tb[FAIRQ_A_SCHED_TUNABLE_NAME], "?");
		ev->value = fc_attr_u64(tb[FAIRQ_A_SCHED_TUNABLE_VALUE]);
		ev->previous_value = fc_attr_u64(tb[FAIRQ_A_SCHED_TUNABLE_PREVIOUS]);
		ev->time_ns = fc_attr_u64(tb[FAIRQ_A_SCHED_TIME]);
		break;
	case FAIRQ_CMD_WEIGHT_CHANGE_NTF:
		fc_attr_str(ev->sched, sizeof(ev->sched), tb[FAIRQ_A_KEY_SCHED], "?");
		if (tb[FAIRQ_A_KEY_ID] && !fc_key_get(tb[FAIRQ_A_KEY_ID], &id))
			fc_key_format(&id, ev->key, sizeof(ev->key));
		else
			snprintf(ev->key, sizeof(ev->key), "?");
		ev->weight = fc_attr_u32(tb[FAIRQ_A_KEY_WEIGHT]);
		ev->time_ns = fc_attr_u64(tb[FAIRQ_A_KEY_TIME]);
		break;
	case FAIRQ_CMD_RESCUE_NTF:
		ev->serv = fc_attr_u32(tb[FAIRQ_A_POOL_SERV_ID]);
		ev->pool = fc_attr_u32(tb[FAIRQ_A_POOL_POOL_ID]);
		ev->rescues = fc_attr_u64(tb[FAIRQ_A_POOL_RESCUES]);
		ev->time_ns = fc_attr_u64(tb[FAIRQ_A_POOL_TIME]);
		break;
	case FAIRQ_CMD_CLASS_CHANGE_NTF:
		fc_attr_str(ev->sched, sizeof(ev->sched), tb[FAIRQ_A_CLASS_SCHED], "?");
		fc_class_settings(tb, nlh, &ev->class);
		if (!ev->class.name[0])
			snprintf(ev->class.name, sizeof(ev->class.name), "?");
		ev->deleted = tb[FAIRQ_A_CLASS_DELETED];
		ev->made = tb[FAIRQ_A_CLASS_CREATE];
		ev->time_ns = fc_attr_u64(tb[FAIRQ_A_CLASS_TIME]);
		break;
	}
	event_when(ev);
	if (e->print) {
		if (!e->limit || e->printed < e->limit) {
			out_doc_start();
			print_event(ev);
			out_text("\n");
			out_doc_end();
			fflush(stdout);
			e->printed++;
		}
		e->nr = 1;	/* tells wait_events() that one came */
	}
	return 0;
}

/*
 * One event, its members inside the current object: the text is one line after the time of
 * day; JSON names the event and keeps the kernel's time in ns.
 */
static void print_event(const struct event *ev)
{
	char line[1024];

	out_str(FC_TEXT, NULL, "%s ", ev->when);
	switch (ev->cmd) {
	case FAIRQ_CMD_SCHED_SWITCH_NTF:
		out_str(FC_JSON, "event", NULL, "sched-switch");
		out_str(FC_ANY, "previous", "scheduler %s", ev->previous);
		out_str(FC_ANY, "active", " -> %s", ev->active);
		if (*ev->reason)
			out_str(FC_ANY, "reason", " (%s)", ev->reason);
		break;
	case FAIRQ_CMD_PARAM_CHANGE_NTF:
		out_str(FC_JSON, "event", NULL, "param-change");
		out_text("set ");
		if (*ev->sched)
			out_str(FC_ANY, "sched", "%s.", ev->sched);
		out_str(FC_ANY, "tunable", "%s", ev->tunable);
		out_exact(FC_ANY, "value", " %s", ev->value);
		out_exact(FC_ANY, "previous_value", " (was %s)", ev->previous_value);
		break;
	case FAIRQ_CMD_WEIGHT_CHANGE_NTF:
		out_str(FC_JSON, "event", NULL, "weight-change");
		out_str(FC_ANY, "sched", "weight %s", ev->sched);
		out_str(FC_ANY, "key", " %s", ev->key);
		if (ev->weight)
			out_exact(FC_ANY, "weight", " %s", ev->weight);
		else
			out_exact(FC_JSON, "weight", NULL, 0);
		out_text(ev->weight ? "" : " default");
		break;
	case FAIRQ_CMD_RESCUE_NTF:
		out_str(FC_JSON, "event", NULL, "rescue");
		out_exact(FC_ANY, "serv", "rescue serv %s", ev->serv);
		out_exact(FC_ANY, "pool", " pool %s", ev->pool);
		out_exact(FC_ANY, "rescues", " (%s in the pool)", ev->rescues);
		break;
	case FAIRQ_CMD_CLASS_CHANGE_NTF:
		/*
		 * text: made, changed or deleted, then the name and, unless deleted, what class
		 * add would take to make the class again
		 */
		out_str(FC_JSON, "event", NULL, "class-change");
		out_str(FC_ANY, "sched", "class %s", ev->sched);
		out_text(ev->made ? " made" : ev->deleted ? " deleted" : " changed");
		out_str(FC_JSON, "class", NULL, ev->class.name);
		out_bool(FC_JSON, "made", NULL, ev->made);
		out_bool(FC_JSON, "deleted", NULL, ev->deleted);
		if (ev->deleted) {
			out_str(FC_TEXT, NULL, " %s", ev->class.name);
			break;
		}
		fc_class_settings_json(&ev->class);
		out_str(FC_TEXT, NULL, " %s", fc_class_line(&ev->class, line, sizeof(line)));
		break;
	}
	out_exact(FC_JSON, "time_ns", NULL, ev->time_ns);
}

static void print_events(const struct events *e)
{
	unsigned int i;

	out_arr_start("events");
	for (i = 0; i < e->nr; i++) {
		out_obj_start(NULL);
		print_event(&e->ev[i]);
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
static bool wait_events(struct fc_nl *nl, int *fd, double secs, struct events *e, bool first)
{
	double end = now() + secs, left;
	struct pollfd pfd = { .fd = *fd, .events = POLLIN };

	while (!stop && (left = end - now()) > 0 && !(first && e->nr)) {
		int n = poll(&pfd, 1, (int)ceil(left * 1000));

		if (n < 0 && errno != EINTR)
			break;
		if (n > 0 && (pfd.revents & POLLIN)) {
			int err = fc_nl_events_read(nl, on_event, e);

			if (err == -ENOBUFS) {
				fc_err("%s: events were lost (they came faster than they were read)",
				       fc_cmd);
			} else if (err < 0) {
				fc_err("%s: cannot read fairq's events any more", fc_cmd);
				*fd = -1;
			}
		}
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
			return fc_usage_error("%s: the interval is 0.1 to 3600 seconds, not '%s'",
					      fc_cmd, arg);
		break;
	case 'n':
		if (!fc_parse_u64(arg, &n) || !n || n > 0x7fffffff)
			return fc_usage_error("%s: -n takes a positive count, not '%s'", fc_cmd,
					      arg);
		o->count = n;
		break;
	case 't':
		o->timeout = strtod(arg, &end);
		if (*end || end == arg || !(o->timeout > 0 && o->timeout <= 86400))
			return fc_usage_error("%s: the timeout is up to 86400 seconds, not '%s'",
					      fc_cmd, arg);
		break;
	}
	return FC_EXIT_OK;
}

static const struct fc_pool *find_pool(const struct fc_pools *p, const struct fc_pool *want)
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
static void print_frame(const struct fc_pools *cur, const struct fc_pools *prev, double secs,
			bool tty)
{
	char clock[16];
	unsigned int i;

	clock_text(clock, sizeof(clock));
	if (tty && cur->nr)
		out_text("SERV POOL SCHED    THREADS IDLE QUEUED    ENQ/s   DISP/s   WAKE/s RESCUES\n");
	out_arr_start("pools");
	for (i = 0; i < cur->nr; i++) {
		const struct fc_pool *p = &cur->p[i], *q = find_pool(prev, p);
		struct fc_pool zero = { 0 };

		if (!q)
			q = &zero;
		out_obj_start(NULL);
		if (!tty)
			out_text("%s ", clock);
		out_exact(FC_ANY, "serv", tty ? "%4s" : "serv %s", p->serv);
		out_exact(FC_ANY, "pool", tty ? " %4s" : " pool %s", p->pool);
		out_str(FC_ANY, "sched", tty ? " %-8s" : " sched %s", p->sched);
		out_exact(FC_ANY, "threads", tty ? " %7s" : " threads %s", p->num[FC_THREADS]);
		out_exact(FC_ANY, "threads_idle", tty ? " %4s" : " idle %s", p->num[FC_THREADS_IDLE]);
		out_num(FC_ANY, "queued", tty ? " %6s" : " queued %s", p->num[FC_QUEUED]);
		out_rate(FC_ANY, "enqueued_per_sec", tty ? " %8s" : " enq/s %s",
			 rate(p->num[FC_ENQUEUED], q->num[FC_ENQUEUED], secs));
		out_rate(FC_ANY, "dispatched_per_sec", tty ? " %8s" : " disp/s %s",
			 rate(p->num[FC_FED_PULL] + p->num[FC_FED_PUSH] + p->num[FC_FED_BYPASS],
			      q->num[FC_FED_PULL] + q->num[FC_FED_PUSH] + q->num[FC_FED_BYPASS], secs));
		out_rate(FC_ANY, "wakeups_per_sec", tty ? " %8s" : " wake/s %s",
			 rate(p->num[FC_WAKEUPS], q->num[FC_WAKEUPS], secs));
		out_num(FC_ANY, "rescues", tty ? " %7s" : " rescues %s", p->num[FC_RESCUES]);
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
	struct fc_pools pools[2] = { };
	struct fc_kpools kp[2] = { };
	struct events ev = { };
	struct fc_scheds s;
	bool tty = !fc_out_opts.json && isatty(STDOUT_FILENO);
	struct fc_nl *nl;
	unsigned int cur = 0;
	long frames = 0;
	double t0, t1;
	int rc, err, fd;
	bool have_sched = false;

	if (!fc_getopt(argc, argv, "i:n:", longopts, "watch [-i SEC] [-n COUNT]", watch_opt, &o,
		       &rc))
		return rc;
	if (optind < argc)
		return fc_usage_error("watch: unexpected argument '%s'", argv[optind]);
	rc = fc_nl_open(&nl);
	if (rc)
		return rc;
	fd = fc_nl_events_fd(nl);
	catch_signals();
	err = fc_get_pools(nl, &pools[cur]);
	fc_read_kpools(&kp[cur]);
	t0 = now();
	while (!err) {
		if (!wait_events(nl, &fd, o.interval, &ev, false))
			break;
		cur ^= 1;
		/* switches are announced: ask for the scheduler only after one, or without events */
		if (!have_sched || ev.nr || fd < 0) {
			err = fc_get_scheds(nl, &s);
			have_sched = !err;
		}
		if (!err)
			err = fc_get_pools(nl, &pools[cur]);
		if (err)
			break;
		fc_read_kpools(&kp[cur]);
		t1 = now();

		if (tty)
			out_text("\033[H\033[J");
		out_doc_start();
		out_text(tty ? "fairqctl watch: every %.1fs, scheduler %s (Ctrl-C to stop)\n" : "",
			 o.interval, s.active);
		out_str(FC_JSON, "scheduler", NULL, s.active);
		out_bool(FC_JSON, "idle", NULL, !pools[cur].nr);
		out_rate(FC_JSON, "interval", NULL, t1 - t0);
		print_frame(&pools[cur], &pools[cur ^ 1], t1 - t0, tty);
		if (!pools[cur].nr) {
			char clock[16];

			if (fc_opts.netns)	/* see netns.c */
				out_text("%s fairq idle, scheduler %s; nfsd's own counters are not shown with -n\n",
					 clock_text(clock, sizeof(clock)), s.active);
			else if (tty)
				out_text("fairq is idle (scheduler %s): nfsd's own counters, per second\n",
					 s.active);
			else
				out_text("%s fairq idle, scheduler %s; nfsd per second:\n",
					 clock_text(clock, sizeof(clock)), s.active);
			fc_print_kpools(&kp[cur], &kp[cur ^ 1], t1 - t0);
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
		rc = fc_nl_fail(nl, err, "watch");
	free(pools[0].p);
	free(pools[1].p);
	fc_free_kpools(&kp[0]);
	fc_free_kpools(&kp[1]);
	fc_nl_close(nl);
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
	struct events ev = { .print = true };
	struct fc_nl *nl;
	double end;
	int rc, fd;

	if (!fc_getopt(argc, argv, "n:t:", longopts, "monitor [-n COUNT] [-t SEC]", watch_opt, &o,
		       &rc))
		return rc;
	if (optind < argc)
		return fc_usage_error("monitor: unexpected argument '%s'", argv[optind]);
	rc = fc_nl_open(&nl);
	if (rc)
		return rc;
	fd = fc_nl_events_fd(nl);
	if (fd < 0) {
		fc_nl_close(nl);
		return FC_EXIT_FAIL;
	}
	if (fc_nl_key_events(nl) == -EPERM)
		fc_err("monitor: weight and class changes name clients and need CAP_NET_ADMIN: not shown");
	else if (fc_nl_key_events(nl))
		fc_err("monitor: this fairq announces no weight or class changes");
	ev.limit = o.count;
	catch_signals();
	end = o.timeout ? now() + o.timeout : 0;
	while (!stop && (!o.count || ev.printed < o.count)) {
		double wait = end ? end - now() : 3600;

		if (wait <= 0) {
			fc_err("monitor: no event within %g seconds", o.timeout);
			rc = FC_EXIT_FAIL;
			break;
		}
		if (!wait_events(nl, &fd, wait, &ev, true))
			break;
		ev.nr = 0;
		if (fd < 0) {
			rc = FC_EXIT_FAIL;
			break;
		}
	}
	fc_nl_close(nl);
	return rc;
}
