// SPDX-License-Identifier: GPL-2.0-only
/*
 * show (the default) and pools.  With a native scheduler (fifo) fairq tracks no service; nfsd's
 * own per-pool counters from /proc/fs/nfsd/pool_stats are shown instead, and say so.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fairqctl.h"

static int no_opt(int c, const char *arg, void *ctx)
{
	(void)c;
	(void)arg;
	(void)ctx;
	return FC_EXIT_OK;
}

/* The scheduler lines: "scheduler qfifo  (offered: fifo [qfifo] fq)". */
static void print_sched_line(const struct fc_scheds *s)
{
	unsigned int i;

	out_str(FC_ANY, "scheduler", "scheduler %s", s->active);
	out_text("  (offered:");
	out_arr_start("schedulers");
	for (i = 0; i < s->nr; i++) {
		out_str(FC_JSON, NULL, NULL, s->sched[i].name);
		out_text(s->sched[i].active ? " [%s]" : " %s", s->sched[i].name);
	}
	out_arr_end();
	out_text(")\n");
}

static const struct fc_sched *active_sched(const struct fc_scheds *s)
{
	unsigned int i;

	for (i = 0; i < s->nr; i++) {
		if (s->sched[i].active)
			return &s->sched[i];
	}
	return NULL;
}

/* Why there is no fairq pool to show, and nfsd's own counters instead. */
static void print_idle(const struct fc_scheds *s, const struct fc_kpools *kp, int kerr)
{
	const struct fc_sched *a = active_sched(s);

	if (a && a->native)
		out_text("fairq is idle: nfsd uses the kernel's own dispatch (scheduler %s).\n",
			 s->active);
	else
		out_text("fairq tracks no nfsd service yet: none runs in this network namespace, or none had work since the switch.\n");
	if (kerr == -EXDEV) {
		out_text("nfsd's own counters are not shown with -n: fairqctl cannot tell whose nfsd file system it would read.\n");
		return;
	}
	if (kerr) {
		out_text("nfsd is not running here (no /proc/fs/nfsd/pool_stats).\n");
		return;
	}
	out_text("nfsd's own counters (/proc/fs/nfsd/pool_stats):\n");
	fc_print_kpools(kp, NULL, 0);
}

/*
 * Counters by name under the pool's row with @full ("          wq: workers 3 idle_workers 1"),
 * labelled @label; in JSON, members of the object @obj (NULL: of the pool itself).
 */
static void print_named(const struct fc_counter_list *list, const char *label, const char *obj,
			bool full)
{
	unsigned int i;

	if (obj)
		out_obj_start(obj);
	if (full && list->nr)
		out_text("\n          %s:", label);
	for (i = 0; i < list->nr; i++) {
		if (full)
			out_text(" %s", list->c[i].name);
		out_exact(full ? FC_ANY : FC_JSON, list->c[i].name, " %s", list->c[i].value);
	}
	if (obj)
		out_obj_end();
}

/* One pool as a table row (the summary, or every counter with @full) and as a JSON object. */
static void print_pool(const struct fc_pool *p, bool full)
{
	unsigned int i;

	out_obj_start(NULL);
	out_exact(FC_ANY, "serv", "%4s", p->serv);
	out_exact(FC_ANY, "pool", " %4s", p->pool);
	out_str(FC_ANY, "sched", " %-8s", p->sched);
	for (i = 0; i < FC_POOL_NUMS; i++) {
		const struct fc_pool_num_def *d = &fc_pool_nums[i];
		enum fc_out w = full || d->summary ? FC_ANY : FC_JSON;
		char fmt[8];

		snprintf(fmt, sizeof(fmt), " %%%ds", d->width);
		if (d->exact)
			out_exact(w, d->name, fmt, p->num[i]);
		else
			out_num(w, d->name, fmt, p->num[i]);
		/* the short table's one column for the three ways work is handed over */
		if (!full && i == FC_FED_BYPASS)
			out_num(FC_TEXT, NULL, " %10s", p->num[FC_FED_PULL] + p->num[FC_FED_PUSH] +
				p->num[FC_FED_BYPASS]);
	}
	/* fairq's counters this fairqctl has no column for, then the scheduler's own */
	print_named(&p->more, "fairq", NULL, full);
	print_named(&p->sched_counters, p->sched, "sched_counters", full);
	out_obj_end();
	out_text("\n");
}

static void print_pools(const struct fc_pools *p, bool full)
{
	unsigned int i;

	if (p->nr) {
		out_text("SERV POOL SCHED   ");
		for (i = 0; i < FC_POOL_NUMS; i++) {
			if (full || fc_pool_nums[i].summary)
				out_text(" %*s", fc_pool_nums[i].width, fc_pool_nums[i].column);
			if (!full && i == FC_FED_BYPASS)
				out_text(" DISPATCHED");
		}
		out_text("\n");
	}
	out_arr_start("pools");
	for (i = 0; i < p->nr; i++)
		print_pool(&p->p[i], full);
	out_arr_end();
}

static int show(int argc, char **argv, bool full)
{
	struct fc_pools pools = { };
	struct fc_scheds scheds;
	struct fc_kpools kp = { };
	struct fc_nl *nl;
	int rc, err, kerr;

	if (!fc_getopt(argc, argv, "", NULL, full ? "pools" : "[show]", no_opt, NULL, &rc))
		return rc;
	if (optind < argc)
		return fc_usage_error("%s: unexpected argument '%s'", argv[0], argv[optind]);
	rc = fc_nl_open(&nl);
	if (rc)
		return rc;
	err = fc_get_scheds(nl, &scheds);
	if (!err)
		err = fc_get_pools(nl, &pools);
	if (err) {
		rc = fc_nl_fail(nl, err, argv[0]);
		goto out;
	}
	kerr = fc_read_kpools(&kp);

	out_doc_start();
	print_sched_line(&scheds);
	out_bool(FC_JSON, "idle", NULL, !pools.nr);
	print_pools(&pools, full);
	if (!pools.nr)
		print_idle(&scheds, &kp, kerr);
	else if (!kerr && fc_out_opts.json)
		fc_print_kpools(&kp, NULL, 0);
	/* the module's counters: in every JSON document, in the text of pools only */
	if (full || fc_out_opts.json)
		fc_print_module(&scheds.module);
	out_doc_end();
out:
	free(pools.p);
	fc_free_kpools(&kp);
	fc_nl_close(nl);
	return rc;
}

int cmd_show(int argc, char **argv)
{
	return show(argc, argv, false);
}

int cmd_pools(int argc, char **argv)
{
	return show(argc, argv, true);
}
