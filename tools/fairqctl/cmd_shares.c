// SPDX-License-Identifier: GPL-2.0-only
/*
 * shares: who got the threads.  Per key of a keyed scheduler: its thread time as a share of
 * its pool's, next to the fair share its weight owes it (weight over the sum of the weights of
 * the pool's keys), since each key appeared.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fairqctl.h"

struct shares_opts {
	int pool;		/* -1: every pool */
	long top;		/* 0: every key */
	bool has_key;
	struct fq_key_id key;
};

static int shares_opt(int c, const char *arg, void *ctx)
{
	struct shares_opts *o = ctx;
	uint64_t v;

	switch (c) {
	case 'P':
		if (!fq_parse_u64(arg, &v) || v > 0x7fffffff)
			return fq_usage_error("shares: --pool takes a pool id, not '%s'", arg);
		o->pool = v;
		break;
	case 't':
		if (!fq_parse_u64(arg, &v) || !v || v > 0x7fffffff)
			return fq_usage_error("shares: --top takes a positive count, not '%s'",
					      arg);
		o->top = v;
		break;
	case 'k':
		if (fq_key_parse(arg, &o->key))
			return fq_usage_error("shares: '%s' is no key (see KEYS in fairqctl(8))",
					      arg);
		o->has_key = true;
		break;
	}
	return FQ_EXIT_OK;
}

/* Most thread time first, then most dispatches, then by pool. */
static int by_use(const void *a, const void *b)
{
	const struct fq_key *x = a, *y = b;

	if (x->thread_ns != y->thread_ns)
		return x->thread_ns < y->thread_ns ? 1 : -1;
	if (x->dispatches != y->dispatches)
		return x->dispatches < y->dispatches ? 1 : -1;
	if (x->serv != y->serv)
		return x->serv < y->serv ? -1 : 1;
	return x->pool < y->pool ? -1 : x->pool > y->pool;
}

/* share and fair share of each key of @rows, within its own pool of @all */
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
static int compute_shares(struct fq_keys *rows, const struct fq_keys *all)
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
		struct fq_key *k = &rows->k[i];
		struct pool_sum *ps = pool_sum_of(sums, &nr, k->serv, k->pool);

		k->share = ps->ns ? (double)k->thread_ns / ps->ns : 0;
		k->fair = ps->weight ? (double)k->weight / ps->weight : 0;
	}
	free(sums);
	return 0;
}

static const struct fq_sched *find_active(const struct fq_scheds *s)
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
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	struct shares_opts o = { .pool = -1 };
	const struct fq_sched *active;
	struct fq_keys keys = { }, pool_keys = { };
	struct fq_scheds s;
	struct fq_nl *nl;
	unsigned int i, shown = 0;
	int rc, err;

	if (!fq_getopt(argc, argv, "P:t:k:", longopts, "shares [--pool N] [--top N] [--key KEY]",
		       shares_opt, &o, &rc))
		return rc;
	if (optind < argc)
		return fq_usage_error("shares: unexpected argument '%s'", argv[optind]);
	rc = fq_nl_open(&nl);
	if (rc)
		return rc;
	err = fq_get_scheds(nl, &s);
	if (!err)
		err = fq_get_keys(nl, o.pool, NULL, &pool_keys);
	/* one key: the kernel picks its rows, the whole pool still gives the shares */
	if (!err && o.has_key)
		err = fq_get_keys(nl, o.pool, &o.key, &keys);
	else if (!err)
		keys = pool_keys;
	if (err) {
		rc = fq_nl_fail(nl, err, "shares");
		goto out;
	}
	active = find_active(&s);
	if (compute_shares(&keys, &pool_keys)) {
		fq_err("out of memory");
		rc = FQ_EXIT_FAIL;
		goto out;
	}
	qsort(keys.k, keys.nr, sizeof(*keys.k), by_use);

	out_doc_start();
	out_str(FQ_JSON, "scheduler", NULL, s.active);
	out_bool(FQ_JSON, "keyed", NULL, active && active->keyed);
	if (!active || !active->keyed)
		out_text("scheduler %s keeps no per-key accounts: shares need a keyed scheduler (fairqctl sched)\n",
			 s.active);
	else if (!keys.nr)
		out_text("no keys yet: no client has sent work since scheduler %s became active\n",
			 s.active);
	else
		out_text("%-24s %4s %4s %6s %6s %8s %10s %10s %6s %6s\n", "KEY", "SERV", "POOL",
			 "WEIGHT", "QUEUED", "INFLIGHT", "DISPATCHES", "THREADTIME", "SHARE", "FAIR");
	out_arr_start("keys");
	for (i = 0; i < keys.nr; i++) {
		const struct fq_key *k = &keys.k[i];
		char text[64];

		if (o.top && shown >= o.top)
			break;
		shown++;
		out_obj_start(NULL);
		out_str(FQ_ANY, "key", "%-24s", fq_key_format(&k->id, text, sizeof(text)));
		out_str(FQ_JSON, "type", NULL, fq_key_type_name(k->id.type));
		out_exact(FQ_ANY, "serv", " %4s", k->serv);
		out_exact(FQ_ANY, "pool", " %4s", k->pool);
		out_exact(FQ_ANY, "weight", " %6s", k->weight);
		out_num(FQ_ANY, "queued", " %6s", k->queued);
		out_num(FQ_ANY, "in_flight", " %8s", k->in_flight);
		out_num(FQ_ANY, "dispatches", " %10s", k->dispatches);
		out_ns(FQ_ANY, "thread_ns", " %10s", k->thread_ns);
		out_pct(FQ_ANY, "share", " %6s", k->share);
		out_pct(FQ_ANY, "fair_share", " %6s", k->fair);
		out_obj_end();
		out_text("\n");
	}
	out_arr_end();
	out_doc_end();
out:
	if (keys.k != pool_keys.k)
		free(keys.k);
	free(pool_keys.k);
	fq_nl_close(nl);
	return rc;
}
