// SPDX-License-Identifier: GPL-2.0-only
/*
 * shares: who got the threads.  Per key of a keyed scheduler: its thread time as a share of
 * its pool's, next to the share its weight entitles it to (weight over the sum of the weights
 * of the pool's keys), since each key appeared.  With --interval: what each key used in that
 * interval, summed over its service's pools, as rates.
 */
#include <errno.h>
#include <getopt.h>
#include <time.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fairqctl.h"

struct shares_opts {
	int pool;		/* -1: every pool */
	long top;		/* 0: every key */
	bool has_key;
	struct fc_key_id key;
	double interval;	/* 0: since each key appeared */
	bool by_requests;	/* --sort requests: most requests per second first */
};

static int shares_opt(int c, const char *arg, void *ctx)
{
	struct shares_opts *o = ctx;
	uint64_t v;

	switch (c) {
	case 'P':
		if (!fc_parse_u64(arg, &v) || v > 0x7fffffff)
			return fc_usage_error("shares: --pool takes a pool id, not '%s'", arg);
		o->pool = v;
		break;
	case 't':
		if (!fc_parse_u64(arg, &v) || !v || v > 0x7fffffff)
			return fc_usage_error("shares: --top takes a positive count, not '%s'",
					      arg);
		o->top = v;
		break;
	case 'k':
		if (fc_key_parse(arg, &o->key))
			return fc_usage_error("shares: '%s' is no key (see KEYS in fairqctl(8))",
					      arg);
		o->has_key = true;
		break;
	case 'i': {
		char *end;

		o->interval = strtod(arg, &end);
		if (*end || end == arg || !(o->interval >= 0.1 && o->interval <= 3600))
			return fc_usage_error("shares: the interval is 0.1 to 3600 seconds, not '%s'",
					      arg);
		break;
	}
	case 's':
		if (!strcmp(arg, "requests"))
			o->by_requests = true;
		else if (strcmp(arg, "time"))
			return fc_usage_error("shares: --sort takes time or requests, not '%s'", arg);
		break;
	}
	return FC_EXIT_OK;
}

/*
 * Most thread time first, then most dispatches, then by pool.  Keys are sorted by pointer:
 * moving whole keys was a fifth of a 10,000-key dump's time.
 */
static int by_use(const void *a, const void *b)
{
	const struct fc_key *x = *(const struct fc_key *const *)a;
	const struct fc_key *y = *(const struct fc_key *const *)b;

	if (x->thread_ns != y->thread_ns)
		return x->thread_ns < y->thread_ns ? 1 : -1;
	if (x->dispatches != y->dispatches)
		return x->dispatches < y->dispatches ? 1 : -1;
	if (x->serv != y->serv)
		return x->serv < y->serv ? -1 : 1;
	return x->pool < y->pool ? -1 : x->pool > y->pool;
}

/* share and entitlement of each key of @rows, within its own pool of @all */
/* One pool's totals; a server has few pools, so a short array searched linearly will do. */
struct pool_sum {
	uint32_t serv, pool;
	uint64_t ns, weight;
};

static struct pool_sum *pool_sum_of(struct pool_sum *sums, unsigned int *nr, uint32_t serv,
				    uint32_t pool)
{
	unsigned int i;

	for (i = 0; i < *nr; i++) {
		if (sums[i].serv == serv && sums[i].pool == pool)
			return &sums[i];
	}
	sums[*nr] = (struct pool_sum){ .serv = serv, .pool = pool };
	return &sums[(*nr)++];
}

/* Each pool is summed once: a dump of 50,000 keys must not cost 50,000 passes over it. */
static int compute_shares(struct fc_keys *rows, const struct fc_keys *all)
{
	struct pool_sum *sums = calloc(all->nr + rows->nr + 1, sizeof(*sums));
	unsigned int i, nr = 0;

	if (!sums)
		return -ENOMEM;
	for (i = 0; i < all->nr; i++) {
		struct pool_sum *ps = pool_sum_of(sums, &nr, all->k[i].serv, all->k[i].pool);

		ps->ns += all->k[i].thread_ns;
		ps->weight += all->k[i].weight;
	}
	for (i = 0; i < rows->nr; i++) {
		struct fc_key *k = &rows->k[i];
		struct pool_sum *ps = pool_sum_of(sums, &nr, k->serv, k->pool);

		k->share = ps->ns ? (double)k->thread_ns / ps->ns : 0;
		k->entitled = ps->weight ? (double)k->weight / ps->weight : 0;
	}
	free(sums);
	return 0;
}

/* One key's use over an interval, summed over its service's pools. */
struct key_rate {
	uint32_t serv;
	struct fc_key_id id;
	uint32_t weight;
	double requests, threads, share;	/* per second; thread-seconds per second; of all */
};

static const struct fc_key *find_key(const struct fc_keys *k, const struct fc_key *want)
{
	unsigned int i;

	for (i = 0; i < k->nr; i++) {
		if (k->k[i].serv == want->serv && k->k[i].pool == want->pool &&
		    fc_key_same(&k->k[i].id, &want->id))
			return &k->k[i];
	}
	return NULL;
}

/* a counter that went down was started again (the pool was rebuilt): all of it is new */
static uint64_t grew(uint64_t now, uint64_t before)
{
	return now >= before ? now - before : now;
}

/* @now minus @before per second, one row per service and key, in @rates (caller frees). */
static int compute_rates(const struct fc_keys *now, const struct fc_keys *before, double secs,
			 struct key_rate **rates, unsigned int *nr)
{
	struct key_rate *r = calloc(now->nr + 1, sizeof(*r));
	double total = 0;
	unsigned int i, j, n = 0;

	if (!r)
		return -ENOMEM;
	for (i = 0; i < now->nr; i++) {
		const struct fc_key *k = &now->k[i], *b = find_key(before, k);
		double reqs = grew(k->dispatches, b ? b->dispatches : 0);
		double ns = grew(k->thread_ns, b ? b->thread_ns : 0);

		for (j = 0; j < n && !(r[j].serv == k->serv && fc_key_same(&r[j].id, &k->id)); j++)
			;
		if (j == n)
			r[n++] = (struct key_rate){ .serv = k->serv, .id = k->id, .weight = k->weight };
		r[j].requests += reqs / secs;
		r[j].threads += ns / 1e9 / secs;
		total += ns / 1e9 / secs;
	}
	for (j = 0; j < n; j++)
		r[j].share = total > 0 ? r[j].threads / total : 0;
	*rates = r;
	*nr = n;
	return 0;
}

static int by_threads(const void *a, const void *b)
{
	const struct key_rate *x = a, *y = b;

	if (x->threads != y->threads)
		return x->threads < y->threads ? 1 : -1;
	return x->requests < y->requests ? 1 : x->requests > y->requests ? -1 : 0;
}

static int by_requests(const void *a, const void *b)
{
	const struct key_rate *x = a, *y = b;

	if (x->requests != y->requests)
		return x->requests < y->requests ? 1 : -1;
	return x->threads < y->threads ? 1 : x->threads > y->threads ? -1 : 0;
}

static double now_secs(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * --interval: a second read @o->interval after the first (@first, at @t0), then each key's
 * rates, as one document; nothing is printed if the second read fails.
 */
static int print_rates(struct fc_nl *nl, const struct shares_opts *o, const char *sched,
		       bool keyed, const struct fc_keys *first, double t0)
{
	struct fc_keys second = { };
	struct key_rate *r = NULL;
	unsigned int i, n = 0, shown = 0;
	double secs = 0;
	char text[64];
	int err = 0;

	if (keyed) {
		usleep((useconds_t)(o->interval * 1e6));
		err = fc_get_keys(nl, o->pool, o->has_key ? &o->key : NULL, &second);
		secs = now_secs() - t0;
		if (!err)
			err = compute_rates(&second, first, secs > 0 ? secs : o->interval, &r, &n);
		free(second.k);
		if (err)
			return err;
		qsort(r, n, sizeof(*r), o->by_requests ? by_requests : by_threads);
	}
	out_doc_start();
	out_str(FC_JSON, "scheduler", NULL, sched);
	out_bool(FC_JSON, "keyed", NULL, keyed);
	out_rate(FC_JSON, "interval", NULL, secs);
	if (!keyed) {
		out_text("scheduler %s keeps no per-key accounts: shares need a keyed scheduler (fairqctl sched)\n",
			 sched);
		out_arr_start("keys");
		out_arr_end();
		out_doc_end();
		return 0;
	}
	out_text("over %.1f s, summed over each service's pools\n", secs);
	out_text("%-24s %4s %6s %10s %8s %6s\n", "KEY", "SERV", "WEIGHT", "REQUESTS/S", "THREADS",
		 "SHARE");
	out_arr_start("keys");
	for (i = 0; i < n && (!o->top || shown < (unsigned long)o->top); i++, shown++) {
		char busy[32];

		out_obj_start(NULL);
		out_str(FC_ANY, "key", "%-24s", fc_key_format(&r[i].id, text, sizeof(text)));
		out_str(FC_JSON, "type", NULL, fc_key_type_name(r[i].id.type));
		out_exact(FC_ANY, "serv", " %4s", r[i].serv);
		out_exact(FC_ANY, "weight", " %6s", r[i].weight);
		out_rate(FC_ANY, "requests_per_sec", " %10s", r[i].requests);
		/* threads busy for it on average: thread-seconds per second */
		snprintf(busy, sizeof(busy), "%.2f", r[i].threads);
		out_str(FC_TEXT, NULL, " %8s", busy);
		out_rate(FC_JSON, "threads", NULL, r[i].threads);
		out_pct(FC_ANY, "share", " %6s", r[i].share);
		out_obj_end();
		out_text("\n");
	}
	out_arr_end();
	out_doc_end();
	free(r);
	return 0;
}

static const struct fc_sched *find_active(const struct fc_scheds *s)
{
	unsigned int i;

	for (i = 0; i < s->nr; i++) {
		if (s->sched[i].active)
			return &s->sched[i];
	}
	return NULL;
}

int cmd_shares(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "pool", required_argument, NULL, 'P' },
		{ "top", required_argument, NULL, 't' },
		{ "key", required_argument, NULL, 'k' },
		{ "interval", required_argument, NULL, 'i' },
		{ "sort", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	struct shares_opts o = { .pool = -1 };
	const struct fc_sched *active;
	struct fc_keys keys = { }, pool_keys = { };
	const struct fc_key **order = NULL;
	struct fc_scheds s;
	struct fc_nl *nl;
	unsigned int i, shown = 0;
	char class_head[32];	/* as each row's " %-15s %8s" */
	bool classed;
	double t0;
	int rc, err;

	if (!fc_getopt(argc, argv, "P:t:k:i:s:", longopts,
		       "shares [--pool N] [--top N] [--key KEY] [--interval SEC [--sort time|requests]]",
		       shares_opt, &o, &rc))
		return rc;
	if (o.by_requests && !o.interval)
		return fc_usage_error("shares: --sort goes with --interval");
	if (optind < argc)
		return fc_usage_error("shares: unexpected argument '%s'", argv[optind]);
	rc = fc_nl_open(&nl);
	if (rc)
		return rc;
	err = fc_get_scheds(nl, &s);
	if (!err)
		err = fc_get_keys(nl, o.pool, NULL, &pool_keys);
	/* one key: the kernel picks its rows, the whole pool still gives the shares */
	if (!err && o.has_key)
		err = fc_get_keys(nl, o.pool, &o.key, &keys);
	else if (!err)
		keys = pool_keys;
	t0 = now_secs();
	if (err) {
		rc = fc_nl_fail(nl, err, "shares");
		goto out;
	}
	active = find_active(&s);
	classed = active && active->classed;
	snprintf(class_head, sizeof(class_head), " %-15s %8s", "CLASS", "PACED");
	if (o.interval) {
		err = print_rates(nl, &o, s.active, active && active->keyed, &keys, t0);
		if (err)
			rc = fc_nl_fail(nl, err, "shares");
		goto out;
	}
	order = calloc(keys.nr + 1, sizeof(*order));
	if (!order || compute_shares(&keys, &pool_keys)) {
		fc_err("out of memory");
		rc = FC_EXIT_FAIL;
		goto out;
	}
	for (i = 0; i < keys.nr; i++)
		order[i] = &keys.k[i];
	qsort(order, keys.nr, sizeof(*order), by_use);

	out_doc_start();
	out_str(FC_JSON, "scheduler", NULL, s.active);
	out_bool(FC_JSON, "keyed", NULL, active && active->keyed);
	if (!active || !active->keyed)
		out_text("scheduler %s keeps no per-key accounts: shares need a keyed scheduler (fairqctl sched)\n",
			 s.active);
	else if (!keys.nr)
		out_text("no keys yet: no client has sent work since scheduler %s became active\n",
			 s.active);
	else
		out_text("%-24s %4s %4s %6s %6s %8s %10s %10s %6s %8s%s\n", "KEY", "SERV", "POOL",
			 "WEIGHT", "QUEUED", "INFLIGHT", "DISPATCHES", "THREADTIME", "SHARE",
			 "ENTITLED", classed ? class_head : "");
	out_arr_start("keys");
	for (i = 0; i < keys.nr; i++) {
		const struct fc_key *k = order[i];
		char text[64];

		if (o.top && shown >= o.top)
			break;
		shown++;
		out_obj_start(NULL);
		out_str(FC_ANY, "key", "%-24s", fc_key_format(&k->id, text, sizeof(text)));
		out_str(FC_JSON, "type", NULL, fc_key_type_name(k->id.type));
		out_exact(FC_ANY, "serv", " %4s", k->serv);
		out_exact(FC_ANY, "pool", " %4s", k->pool);
		out_exact(FC_ANY, "weight", " %6s", k->weight);
		out_num(FC_ANY, "queued", " %6s", k->queued);
		out_num(FC_ANY, "in_flight", " %8s", k->in_flight);
		out_num(FC_ANY, "dispatches", " %10s", k->dispatches);
		out_ns(FC_ANY, "thread_ns", " %10s", k->thread_ns);
		out_pct(FC_ANY, "share", " %6s", k->share);
		/*
		 * What its weight entitles it to while every key has work waiting; not its
		 * max-min fair share, which would need each key's demand.  fair_share is the
		 * same number under its name before format 1.4.
		 */
		out_pct(FC_ANY, "entitled", " %8s", k->entitled);
		out_pct(FC_JSON, "fair_share", NULL, k->entitled);
		/* its class, and how often it waited for a limit of its own (a class's per-key) */
		if (k->class[0])
			out_str(FC_JSON, "class", NULL, k->class);
		if (classed) {
			out_str(FC_TEXT, NULL, " %-15s", k->class[0] ? k->class : "-");
			out_num(FC_TEXT, NULL, " %8s", k->paced);
		}
		out_num(FC_JSON, "paced", NULL, k->paced);
		out_ns(FC_JSON, "paced_ns", NULL, k->paced_ns);
		out_obj_end();
		out_text("\n");
	}
	out_arr_end();
	out_doc_end();
out:
	free(order);
	if (keys.k != pool_keys.k)
		free(keys.k);
	free(pool_keys.k);
	fc_nl_close(nl);
	return rc;
}
