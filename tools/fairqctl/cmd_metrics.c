// SPDX-License-Identifier: GPL-2.0-only
/*
 * metrics: every pool's counters, and the busiest keys, in the Prometheus text exposition
 * format (version 0.0.4), for node_exporter's textfile collector or any scraper.  Counters are
 * *_total, what can go down is a gauge, and per-key series are bounded by --top (cardinality
 * stays small on a server with thousands of clients).  --textfile writes the file atomically
 * (a temporary file renamed over it), as the textfile collector needs.
 */
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "fairqctl.h"

#define METRICS_TOP_DEFAULT 10

struct metrics_opts {
	uint64_t top;
	const char *textfile;
};

static int metrics_opt(int c, const char *arg, void *ctx)
{
	struct metrics_opts *o = ctx;

	switch (c) {
	case 't':
		if (!fc_parse_u64(arg, &o->top) || o->top > 100000)
			return fc_usage_error("metrics: --top takes a count of keys (0 to 100000), not '%s'",
					      arg);
		break;
	case 'f':
		if (!*arg)
			return fc_usage_error("metrics: --textfile needs a path");
		o->textfile = arg;
		break;
	}
	return FC_EXIT_OK;
}

/* A label value: backslash, double quote and newline escaped, as the format requires. */
static void put_label(FILE *f, const char *name, const char *val)
{
	fprintf(f, "%s=\"", name);
	for (; *val; val++) {
		if (*val == '\\' || *val == '"')
			fputc('\\', f);
		if (*val == '\n')
			fputs("\\n", f);
		else
			fputc(*val, f);
	}
	fputc('"', f);
}

static void family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void pool_labels(FILE *f, const struct fc_pool *p)
{
	fprintf(f, "{serv=\"%u\",pool=\"%u\",", p->serv, p->pool);
	put_label(f, "scheduler", p->sched);
	fputc('}', f);
}

/* The index in @l of the counter @name, or -1. */
static int counter_index(const struct fc_counter_list *l, const char *name)
{
	unsigned int i;

	for (i = 0; i < l->nr; i++)
		if (!strcmp(l->c[i].name, name))
			return (int)i;
	return -1;
}

/*
 * fairq's counters of the pools that fairqctl has no line for (a newer module's): a family
 * fairq_pool_NAME_total each, as their kind (core-counter) only counts up.
 */
static void print_more(FILE *f, const struct fc_pools *pools)
{
	unsigned int i, j, k;

	for (i = 0; i < pools->nr; i++) {
		for (k = 0; k < pools->p[i].more.nr; k++) {
			const char *cname = pools->p[i].more.c[k].name;
			char name[64], help[128];
			bool before = false;

			for (j = 0; j < i && !before; j++)
				before = counter_index(&pools->p[j].more, cname) >= 0;
			if (before || counter_index(&pools->p[i].more, cname) != (int)k)
				continue;	/* its family is written already */
			snprintf(name, sizeof(name), "fairq_pool_%s_total", cname);
			snprintf(help, sizeof(help), "fairq's per-pool counter %s (see the module's documentation).",
				 cname);
			family(f, name, "counter", help);
			for (j = i; j < pools->nr; j++) {
				int c = counter_index(&pools->p[j].more, cname);

				if (c < 0)
					continue;
				fputs(name, f);
				pool_labels(f, &pools->p[j]);
				fprintf(f, " %llu\n", (unsigned long long)pools->p[j].more.c[c].value);
			}
		}
	}
}

static void print_pools(FILE *f, const struct fc_pools *pools)
{
	unsigned int i, j, k;

	for (i = 0; i < FC_POOL_NUMS; i++) {
		const struct fc_pool_num_def *d = &fc_pool_nums[i];
		char name[64];

		snprintf(name, sizeof(name), "fairq_pool_%s%s", d->name, d->gauge ? "" : "_total");
		family(f, name, d->gauge ? "gauge" : "counter", d->help);
		for (j = 0; j < pools->nr; j++) {
			fputs(name, f);
			pool_labels(f, &pools->p[j]);
			fprintf(f, " %llu\n", (unsigned long long)pools->p[j].num[i]);
		}
	}
	print_more(f, pools);
	/*
	 * A scheduler's own numbers differ by scheduler, some gauges and some counters: one
	 * untyped family, named by label.
	 */
	family(f, "fairq_pool_sched_value", "untyped",
	       "A scheduler's own per-pool number by name: gauges keys, key_buckets, waking, workers, idle_workers, woken_workers; the others count up.");
	for (j = 0; j < pools->nr; j++) {
		const struct fc_pool *p = &pools->p[j];

		for (k = 0; k < p->sched_counters.nr; k++) {
			fprintf(f, "fairq_pool_sched_value{serv=\"%u\",pool=\"%u\",", p->serv, p->pool);
			put_label(f, "scheduler", p->sched);
			fputc(',', f);
			put_label(f, "name", p->sched_counters.c[k].name);
			fprintf(f, "} %llu\n", (unsigned long long)p->sched_counters.c[k].value);
		}
	}
}

/* By pool and key, to find a key a dump returned twice (keys changing between its parts). */
static int by_id(const void *a, const void *b)
{
	const struct fc_key *x = a, *y = b;

	if (x->serv != y->serv)
		return x->serv < y->serv ? -1 : 1;
	if (x->pool != y->pool)
		return x->pool < y->pool ? -1 : 1;
	if (x->id.type != y->id.type)
		return x->id.type < y->id.type ? -1 : 1;
	if (x->id.family != y->id.family)
		return x->id.family < y->id.family ? -1 : 1;
	if (x->id.prefix_len != y->id.prefix_len)
		return x->id.prefix_len < y->id.prefix_len ? -1 : 1;
	if (x->id.port != y->id.port)
		return x->id.port < y->id.port ? -1 : 1;
	return memcmp(x->id.addr, y->id.addr, sizeof(x->id.addr));
}

/* One series per key: a scraper refuses a file that repeats one. */
static void drop_repeats(struct fc_keys *keys)
{
	unsigned int i, n = 0;

	if (!keys->nr)
		return;
	qsort(keys->k, keys->nr, sizeof(*keys->k), by_id);
	for (i = 1; i < keys->nr; i++) {
		if (by_id(&keys->k[n], &keys->k[i]))
			keys->k[++n] = keys->k[i];
	}
	keys->nr = n + 1;
}

/* Most thread time first: the keys an admin asks about. */
static int by_thread_time(const void *a, const void *b)
{
	const struct fc_key *x = a, *y = b;

	if (x->thread_ns != y->thread_ns)
		return x->thread_ns < y->thread_ns ? 1 : -1;
	return x->dispatches < y->dispatches ? 1 : x->dispatches > y->dispatches ? -1 : 0;
}

static void key_labels(FILE *f, const struct fc_key *k)
{
	char text[64];

	fprintf(f, "{serv=\"%u\",pool=\"%u\",", k->serv, k->pool);
	put_label(f, "key", fc_key_format(&k->id, text, sizeof(text)));
	fputc('}', f);
}

static void print_keys(FILE *f, const struct fc_keys *keys, unsigned int n)
{
	static const struct {
		const char *name, *type, *help;
	} fams[] = {
		{ "fairq_key_weight", "gauge", "The key's weight." },
		{ "fairq_key_queued", "gauge", "The key's transports waiting." },
		{ "fairq_key_in_flight", "gauge", "The key's requests handed to threads, not finished." },
		{ "fairq_key_dispatches_total", "counter", "Requests of the key started." },
		{ "fairq_key_thread_seconds_total", "counter", "Thread time the key's requests used." },
	};
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(fams); i++) {
		family(f, fams[i].name, fams[i].type, fams[i].help);
		for (j = 0; j < n; j++) {
			const struct fc_key *k = &keys->k[j];

			fputs(fams[i].name, f);
			key_labels(f, k);
			switch (i) {
			case 0:
				fprintf(f, " %u\n", k->weight);
				break;
			case 1:
				fprintf(f, " %u\n", k->queued);
				break;
			case 2:
				fprintf(f, " %u\n", k->in_flight);
				break;
			case 3:
				fprintf(f, " %llu\n", (unsigned long long)k->dispatches);
				break;
			default:
				fprintf(f, " %llu.%09llu\n",
					(unsigned long long)(k->thread_ns / 1000000000ULL),
					(unsigned long long)(k->thread_ns % 1000000000ULL));
			}
		}
	}
}

/*
 * The module's own counters (netlink), each a family fairq_NAME(_total); fairq_rescues_total is
 * written by the caller.  A module before 0.2.0 does not send them.
 */
static void print_module(FILE *f, const struct fc_module *m)
{
	char name[64], help[128];
	unsigned int i;

	if (!m->known)
		return;
	for (i = 0; i < FC_MODULE_NUMS; i++) {
		const struct fc_module_num_def *d = &fc_module_nums[i];

		if (i == FC_M_RESCUES)
			continue;
		snprintf(name, sizeof(name), "fairq_%s%s", d->name, d->gauge ? "" : "_total");
		family(f, name, d->gauge ? "gauge" : "counter", d->help);
		fprintf(f, "%s %llu\n", name, (unsigned long long)m->num[i]);
	}
	for (i = 0; i < m->more.nr; i++) {
		snprintf(name, sizeof(name), "fairq_%s_total", m->more.c[i].name);
		snprintf(help, sizeof(help), "fairq's counter %s (see the module's documentation).",
			 m->more.c[i].name);
		family(f, name, "counter", help);
		fprintf(f, "%s %llu\n", name, (unsigned long long)m->more.c[i].value);
	}
}

/* The loaded module's version and its rescue total, from sysfs ("" and 0 if unreadable). */
static void read_module(char *version, size_t len, unsigned long long *rescues)
{
	FILE *f = fopen("/sys/module/fairq/version", "r");

	*version = '\0';
	if (f) {
		if (fgets(version, len, f))
			version[strcspn(version, "\n")] = '\0';
		fclose(f);
	}
	*rescues = 0;
	f = fopen("/sys/kernel/fairq/rescues", "r");
	if (f) {
		if (fscanf(f, "%llu", rescues) != 1)
			*rescues = 0;
		fclose(f);
	}
}

static int print_all(FILE *f, const struct fc_scheds *s, const struct fc_pools *pools,
		     const struct fc_keys *keys, unsigned int nr_keys, bool keys_visible)
{
	unsigned long long rescues;
	char version[64];

	read_module(version, sizeof(version), &rescues);
	family(f, "fairq_info", "gauge", "fairq's module and fairqctl versions, and the active scheduler (always 1).");
	fputs("fairq_info{", f);
	put_label(f, "version", version);
	fputc(',', f);
	put_label(f, "fairqctl_version", FAIRQCTL_VERSION);
	fputc(',', f);
	put_label(f, "scheduler", s->active);
	fputs("} 1\n", f);
	/* from sysfs where the module does not send its counters */
	family(f, "fairq_rescues_total", "counter", fc_module_nums[FC_M_RESCUES].help);
	fprintf(f, "fairq_rescues_total %llu\n",
		s->module.known ? (unsigned long long)s->module.num[FC_M_RESCUES] : rescues);
	print_module(f, &s->module);
	family(f, "fairq_pools", "gauge", "Pools fairq tracks (0 under a native scheduler such as fifo).");
	fprintf(f, "fairq_pools %u\n", pools->nr);
	print_pools(f, pools);
	family(f, "fairq_keys_visible", "gauge",
	       "1 if per-key series are included: a keyed scheduler, CAP_NET_ADMIN and --top above 0.");
	fprintf(f, "fairq_keys_visible %d\n", keys_visible);
	print_keys(f, keys, nr_keys);
	fflush(f);
	return ferror(f) ? -EIO : 0;
}

/* Write through a temporary file in the same directory, renamed over @path when complete. */
static int write_textfile(const char *path, const struct fc_scheds *s,
			  const struct fc_pools *pools, const struct fc_keys *keys,
			  unsigned int nr_keys, bool keys_visible)
{
	char tmp[4096];
	FILE *f;
	int fd, err;

	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp)) {
		fc_err("metrics: --textfile path too long");
		return FC_EXIT_USAGE;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		fc_err("metrics: cannot create a file beside %s: %s", path, strerror(errno));
		return FC_EXIT_FAIL;
	}
	/* node_exporter runs as its own user: the file is readable by all, as a scrape is */
	if (fchmod(fd, 0644) || !(f = fdopen(fd, "w"))) {
		fc_err("metrics: %s: %s", tmp, strerror(errno));
		close(fd);
		unlink(tmp);
		return FC_EXIT_FAIL;
	}
	err = print_all(f, s, pools, keys, nr_keys, keys_visible);
	if (!err && fsync(fd))
		err = -errno;
	if (fclose(f) || err || rename(tmp, path)) {
		fc_err("metrics: cannot write %s: %s", path, strerror(err ? -err : errno));
		unlink(tmp);
		return FC_EXIT_FAIL;
	}
	return FC_EXIT_OK;
}

int cmd_metrics(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "top", required_argument, NULL, 't' },
		{ "textfile", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	struct metrics_opts o = { .top = METRICS_TOP_DEFAULT };
	struct fc_pools pools = { };
	struct fc_keys keys = { };
	struct fc_scheds s;
	bool keyed = false, visible = false;
	unsigned int i, nr_keys;
	struct fc_nl *nl;
	int rc, err;

	if (!fc_getopt(argc, argv, "t:f:", longopts, "metrics [--top N] [--textfile PATH]",
		       metrics_opt, &o, &rc))
		return rc;
	if (optind < argc)
		return fc_usage_error("metrics: unexpected argument '%s'", argv[optind]);
	rc = fc_nl_open(&nl);
	if (rc)
		goto gone;
	err = fc_get_scheds(nl, &s);
	if (!err)
		err = fc_get_pools(nl, &pools);
	for (i = 0; !err && i < s.nr; i++)
		keyed |= s.sched[i].active && s.sched[i].keyed;
	if (!err && keyed && o.top) {
		err = fc_get_keys(nl, -1, NULL, &keys);
		visible = !err;
		/* per-client data needs CAP_NET_ADMIN: the rest is still worth a scrape */
		if (err == -EPERM || err == -EACCES) {
			err = 0;
			keys.nr = 0;
		}
	}
	if (err) {
		rc = fc_nl_fail(nl, err, "metrics");
		goto out;
	}
	drop_repeats(&keys);
	if (keys.nr)
		qsort(keys.k, keys.nr, sizeof(*keys.k), by_thread_time);
	nr_keys = keys.nr < o.top ? keys.nr : o.top;
	if (o.textfile) {
		rc = write_textfile(o.textfile, &s, &pools, &keys, nr_keys, visible);
	} else if (print_all(stdout, &s, &pools, &keys, nr_keys, visible)) {
		fc_err("metrics: cannot write the output");
		rc = FC_EXIT_FAIL;
	}
out:
	free(keys.k);
	free(pools.p);
	fc_nl_close(nl);
gone:
	/* no numbers (fairq unloaded, say): none rather than old ones a collector keeps exporting */
	if (rc && o.textfile && unlink(o.textfile) && errno != ENOENT)
		fc_err("metrics: cannot remove %s: %s", o.textfile, strerror(errno));
	return rc;
}
