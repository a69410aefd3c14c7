// SPDX-License-Identifier: GPL-2.0-only
/* The reports fairqctl asks the kernel for, parsed into plain structs; and nfsd's pool_stats. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netlink/genl/genl.h>
#include "fairqctl.h"

#define POOL_STATS "/proc/fs/nfsd/pool_stats"

#define GAUGE(id, a, exact_, summary_, width_, name_, column_, help_) \
	[id] = { FAIRQ_A_POOL_##a, true, exact_, summary_, width_, name_, column_, help_ }
#define COUNT(id, a, summary_, width_, name_, column_, help_) \
	[id] = { FAIRQ_A_POOL_##a, false, false, summary_, width_, name_, column_, help_ }

const struct fc_pool_num_def fc_pool_nums[FC_POOL_NUMS] = {
	GAUGE(FC_THREADS, THREADS, true, true, 7, "threads", "THREADS", "nfsd threads of the pool."),
	GAUGE(FC_THREADS_IDLE, THREADS_IDLE, true, true, 4, "threads_idle", "IDLE",
	      "Threads waiting for work."),
	GAUGE(FC_QUEUED, QUEUED, false, true, 6, "queued", "QUEUED",
	      "Transports waiting in fairq's queue."),
	COUNT(FC_ENQUEUED, ENQUEUED, false, 8, "enqueued", "ENQUEUED",
	      "Transports the scheduler took."),
	COUNT(FC_FED_PULL, FED_PULL, false, 8, "fed_pull", "PULL",
	      "Handed to the kernel queue by a thread looking for work."),
	COUNT(FC_FED_PUSH, FED_PUSH, false, 8, "fed_push", "PUSH",
	      "Handed over with an idle thread woken for it."),
	COUNT(FC_FED_BYPASS, FED_BYPASS, false, 8, "fed_bypass", "BYPASS",
	      "Handed over without the scheduler (close, switch, no thread)."),
	COUNT(FC_WAKEUPS, WAKEUPS, true, 8, "wakeups", "WAKEUPS", "Threads fairq woke."),
	COUNT(FC_CLOSE_FLUSHES, CLOSE_FLUSHES, false, 8, "close_flushes", "FLUSHES",
	      "Connections closed while queued, passed on at once."),
	COUNT(FC_MIGRATED, MIGRATED, false, 8, "migrated", "MIGRATED",
	      "Transports moved to another pool when this one lost its last thread."),
	COUNT(FC_RESCUES, RESCUES, true, 7, "rescues", "RESCUES",
	      "Stalled transports the watchdog handed over (a bug: report it)."),
};

#define MODULE_NUM(id, a, gauge_, name_, text_, help_) \
	[id] = { FAIRQ_A_SCHED_##a, gauge_, name_, text_, help_ }

const struct fc_module_num_def fc_module_nums[FC_MODULE_NUMS] = {
	MODULE_NUM(FC_M_RESCUES, RESCUES_TOTAL, false, "rescues", " rescues %s",
		   "Stalled transports the watchdog handed over since the module was loaded, all services."),
	MODULE_NUM(FC_M_FAILSAFE_SWITCHES, FAILSAFE_SWITCHES, false, "failsafe_switches",
		   ", failsafe_switches %s",
		   "Times fairq switched to fifo by itself because the watchdog kept rescuing stranded work."),
	MODULE_NUM(FC_M_SERV_ALLOC_FAILURES, SERV_ALLOC_FAILURES, false, "serv_alloc_failures",
		   ", serv_alloc_failures %s",
		   "nfsd services whose fairq state could not be allocated (their work kept the kernel's dispatch)."),
	MODULE_NUM(FC_M_SERV_TABLE_FULL, SERV_TABLE_FULL, false, "serv_table_full",
		   ", serv_table_full %s",
		   "Work that took the kernel's dispatch: fairq's table of new services was full, or too many pools."),
	MODULE_NUM(FC_M_V4CLIENT_BOUND, V4CLIENT_BOUND, true, "v4client_bound",
		   "; v4client bound %s", "Connections bound to an NFSv4.1 client id (fq's key=4)."),
	MODULE_NUM(FC_M_V4CLIENT_SKIPPED, V4CLIENT_SKIPPED, false, "v4client_skipped", ", skipped %s",
		   "Connections keyed by address because their client id could not be bound (a table full)."),
	MODULE_NUM(FC_M_V4CLIENT_REFUSED, V4CLIENT_REFUSED, false, "v4client_refused", ", refused %s",
		   "SEQUENCEs nfsd refused, from which nothing was learnt."),
	MODULE_NUM(FC_M_V4CLIENT_MISSED, V4CLIENT_MISSED, false, "v4client_missed", ", missed %s",
		   "SEQUENCEs not seen because too many ran at once."),
};

/* An attribute's value, or @missing (strings) or 0 when the kernel did not send it. */
void fc_attr_str(char *dst, size_t len, struct nlattr *a, const char *missing)
{
	const char *src = a ? nla_get_string(a) : missing;
	size_t n = strnlen(src, len - 1);

	/* as snprintf("%s") would, without its cost in a dump's every key */
	memcpy(dst, src, n);
	dst[n] = '\0';
}

uint64_t fc_attr_u64(struct nlattr *a)
{
	return a ? nla_get_u64(a) : 0;
}

uint32_t fc_attr_u32(struct nlattr *a)
{
	return a ? nla_get_u32(a) : 0;
}

/* A counter nest into @c; false if it is malformed.  @whole: its name was not cut short. */
static bool counter_of(struct nlattr *nest, struct fc_counter *c, bool *whole)
{
	struct nlattr *tb[FAIRQ_A_COUNTER_MAX + 1];

	if (nla_parse_nested(tb, FAIRQ_A_COUNTER_MAX, nest, NULL) || !tb[FAIRQ_A_COUNTER_NAME])
		return false;
	fc_attr_str(c->name, sizeof(c->name), tb[FAIRQ_A_COUNTER_NAME], "");
	c->value = fc_attr_u64(tb[FAIRQ_A_COUNTER_VALUE]);
	*whole = nla_len(tb[FAIRQ_A_COUNTER_NAME]) >= 1 &&
		 (size_t)nla_len(tb[FAIRQ_A_COUNTER_NAME]) <= sizeof(c->name);
	return true;
}

/* A counter nest into @list ("counters of ...": @what, for the warning when it is full). */
static void parse_counter(struct nlattr *nest, struct fc_counter_list *list, const char *what)
{
	struct fc_counter c;
	bool whole;

	if (!counter_of(nest, &c, &whole))
		return;
	if (list->nr >= ARRAY_SIZE(list->c)) {
		fc_dropped(what, ARRAY_SIZE(list->c));
		return;
	}
	list->c[list->nr++] = c;
}

/* Whether @name is one of @list (NULL-terminated). */
static bool name_in(const char *name, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(name, *list))
			return true;
	return false;
}

/*
 * The line of fc_pool_nums (fc_module_nums) for the counter @name, -1 if none has it, or -2
 * for a name fairqctl's output already uses for something else: a gauge, a member beside the
 * counters, or a metric family of its own.
 */
static int pool_num_of(const char *name)
{
	static const char *const taken[] = { "serv", "pool", "sched", "sched_counters",
					     "sched_value", NULL };
	int i;

	if (name_in(name, taken))
		return -2;
	for (i = 0; i < FC_POOL_NUMS; i++)
		if (!strcmp(fc_pool_nums[i].name, name))
			return fc_pool_nums[i].gauge ? -2 : i;
	return -1;
}

static int module_num_of(const char *name)
{
	static const char *const taken[] = { "info", "pools", "keys_visible", NULL };
	int i;

	if (name_in(name, taken) || !strncmp(name, "pool_", 5) || !strncmp(name, "key_", 4))
		return -2;
	for (i = 0; i < FC_MODULE_NUMS; i++)
		if (!strcmp(fc_module_nums[i].name, name))
			return fc_module_nums[i].gauge ? -2 : i;
	return -1;
}

/* A name fit to be a JSON member and part of a metric name: [a-z][a-z0-9_]*. */
static bool name_usable(const char *name)
{
	size_t i;

	if (!islower((unsigned char)name[0]))
		return false;
	for (i = 0; name[i]; i++)
		if (!islower((unsigned char)name[i]) && !isdigit((unsigned char)name[i]) &&
		    name[i] != '_')
			return false;
	return true;
}

/*
 * fairq's own counters by name (core-counter, module-counter): each one fairqctl has a line for
 * goes to @num (over the fixed attribute), any other to @more.  A name that could not be shown
 * as it is (malformed, cut short, taken, or sent twice) is left out, with a warning once: a
 * module bug, which must not make a JSON member or a metric family twice.
 */
static void parse_named(struct nlattr *nest, int (*line_of)(const char *name), uint64_t *num,
			struct fc_counter_list *more, const char *what)
{
	struct fc_counter c;
	unsigned int j;
	bool whole;
	int i;

	if (!counter_of(nest, &c, &whole))
		return;
	i = whole && name_usable(c.name) ? line_of(c.name) : -2;
	for (j = 0; i == -1 && j < more->nr; j++)
		if (!strcmp(more->c[j].name, c.name))
			i = -2;
	if (i >= 0) {
		num[i] = c.value;
	} else if (i == -2) {
		static bool said;

		if (!said)
			fc_err("warning: the module sends a counter named '%s', which fairqctl cannot show by that name: it is left out",
			       c.name);
		said = true;
	} else if (more->nr >= ARRAY_SIZE(more->c)) {
		fc_dropped(what, ARRAY_SIZE(more->c));
	} else {
		more->c[more->nr++] = c;
	}
}

static void parse_tunable(struct nlattr *nest, struct fc_sched *s)
{
	struct nlattr *tb[FAIRQ_A_TUNABLE_MAX + 1];
	struct fc_tunable *t;

	if (s->nr_tunables >= ARRAY_SIZE(s->tunables)) {
		fc_dropped("tunables of a scheduler", ARRAY_SIZE(s->tunables));
		return;
	}
	if (nla_parse_nested(tb, FAIRQ_A_TUNABLE_MAX, nest, NULL))
		return;
	t = &s->tunables[s->nr_tunables++];
	fc_attr_str(t->name, sizeof(t->name), tb[FAIRQ_A_TUNABLE_NAME], "");
	fc_attr_str(t->doc, sizeof(t->doc), tb[FAIRQ_A_TUNABLE_DOC], "");
	t->value = fc_attr_u64(tb[FAIRQ_A_TUNABLE_VALUE]);
	t->min = fc_attr_u64(tb[FAIRQ_A_TUNABLE_MIN_VALUE]);
	t->max = fc_attr_u64(tb[FAIRQ_A_TUNABLE_MAX_VALUE]);
	t->has_def = tb[FAIRQ_A_TUNABLE_DEFAULT_VALUE];	/* older modules do not send it */
	t->def = fc_attr_u64(tb[FAIRQ_A_TUNABLE_DEFAULT_VALUE]);
}

static void parse_sched(struct nlattr *nest, struct fc_scheds *all)
{
	struct nlattr *tb[FAIRQ_A_SCHED_INFO_MAX + 1], *a;
	struct fc_sched *s;
	int rem;

	if (all->nr >= ARRAY_SIZE(all->sched)) {
		fc_dropped("schedulers", ARRAY_SIZE(all->sched));
		return;
	}
	if (nla_parse_nested(tb, FAIRQ_A_SCHED_INFO_MAX, nest, NULL))
		return;
	s = &all->sched[all->nr++];
	fc_attr_str(s->name, sizeof(s->name), tb[FAIRQ_A_SCHED_INFO_NAME], "");
	fc_attr_str(s->alias, sizeof(s->alias), tb[FAIRQ_A_SCHED_INFO_ALIAS], "");
	s->active = tb[FAIRQ_A_SCHED_INFO_ACTIVE];
	s->native = fc_attr_u32(tb[FAIRQ_A_SCHED_INFO_FLAGS]) & FAIRQ_SCHED_FLAGS_NATIVE;
	s->keyed = fc_attr_u32(tb[FAIRQ_A_SCHED_INFO_FLAGS]) & FAIRQ_SCHED_FLAGS_KEYED;
	s->weighted = fc_attr_u32(tb[FAIRQ_A_SCHED_INFO_FLAGS]) & FAIRQ_SCHED_FLAGS_WEIGHTED;
	s->classed = fc_attr_u32(tb[FAIRQ_A_SCHED_INFO_FLAGS]) & FAIRQ_SCHED_FLAGS_CLASSED;
	nla_for_each_nested(a, nest, rem) {
		if (nla_type(a) == FAIRQ_A_SCHED_INFO_TUNABLE)
			parse_tunable(a, s);
	}
}

static int parse_scheds(struct nlattr **tb, struct nlmsghdr *nlh, void *arg)
{
	struct genlmsghdr *gh = nlmsg_data(nlh);
	struct fc_scheds *s = arg;
	struct nlattr *a;
	unsigned int i;
	int rem;

	fc_attr_str(s->active, sizeof(s->active), tb[FAIRQ_A_SCHED_ACTIVE], "");
	s->module.known = tb[FAIRQ_A_SCHED_RESCUES_TOTAL];
	for (i = 0; i < FC_MODULE_NUMS; i++) {
		const struct fc_module_num_def *d = &fc_module_nums[i];

		s->module.num[i] = d->gauge ? fc_attr_u32(tb[d->attr]) : fc_attr_u64(tb[d->attr]);
	}
	/* every attribute in order: one FAIRQ_A_SCHED_SCHED per scheduler, a nest per counter */
	nla_for_each_attr(a, genlmsg_attrdata(gh, 0), genlmsg_attrlen(gh, 0), rem) {
		if (nla_type(a) == FAIRQ_A_SCHED_SCHED)
			parse_sched(a, s);
		else if (nla_type(a) == FAIRQ_A_SCHED_MODULE_COUNTER)
			parse_named(a, module_num_of, s->module.num, &s->module.more,
				    "counters of the module");
	}
	return 0;
}

int fc_get_scheds(struct fc_nl *nl, struct fc_scheds *s)
{
	memset(s, 0, sizeof(*s));
	return fc_nl_transact(nl, fc_nl_msg(nl, FAIRQ_CMD_SCHED_GET, false), FAIRQ_A_SCHED_MAX,
			      parse_scheds, s);
}

/* Room for one more element of a growing array. */
static void *grow(void *arr, unsigned int nr, unsigned int *cap, size_t size)
{
	void *p;

	if (nr < *cap)
		return arr;
	p = realloc(arr, (*cap ? *cap * 2 : 16) * size);
	if (p)
		*cap = *cap ? *cap * 2 : 16;
	return p;
}

static int parse_pool(struct nlattr **tb, struct nlmsghdr *nlh, void *arg)
{
	struct genlmsghdr *gh = nlmsg_data(nlh);
	struct fc_pools *all = arg;
	struct fc_pool *p, *arr;
	struct nlattr *a;
	unsigned int i;
	int rem;

	arr = grow(all->p, all->nr, &all->cap, sizeof(*p));
	if (!arr)
		return -ENOMEM;
	all->p = arr;
	p = &arr[all->nr++];
	memset(p, 0, sizeof(*p));
	p->serv = fc_attr_u32(tb[FAIRQ_A_POOL_SERV_ID]);
	p->pool = fc_attr_u32(tb[FAIRQ_A_POOL_POOL_ID]);
	fc_attr_str(p->sched, sizeof(p->sched), tb[FAIRQ_A_POOL_SCHED], "");
	for (i = 0; i < FC_POOL_NUMS; i++) {
		const struct fc_pool_num_def *d = &fc_pool_nums[i];

		p->num[i] = d->gauge ? fc_attr_u32(tb[d->attr]) : fc_attr_u64(tb[d->attr]);
	}
	/* one nest per counter: every attribute, in order */
	nla_for_each_attr(a, genlmsg_attrdata(gh, 0), genlmsg_attrlen(gh, 0), rem) {
		if (nla_type(a) == FAIRQ_A_POOL_SCHED_COUNTER)
			parse_counter(a, &p->sched_counters, "counters of a pool's scheduler");
		else if (nla_type(a) == FAIRQ_A_POOL_CORE_COUNTER)
			parse_named(a, pool_num_of, p->num, &p->more, "counters of a pool");
	}
	return 0;
}

int fc_get_pools(struct fc_nl *nl, struct fc_pools *p)
{
	struct nl_msg *msg = fc_nl_msg(nl, FAIRQ_CMD_POOL_GET, true);

	p->nr = 0;
	if (msg && fc_opts.all_netns && nla_put_flag(msg, FAIRQ_A_POOL_ALL_NETNS)) {
		nlmsg_free(msg);
		msg = NULL;
	}
	return fc_nl_transact(nl, msg, FAIRQ_A_POOL_MAX, parse_pool, p);
}

static int parse_key(struct nlattr **tb, struct nlmsghdr *nlh, void *arg)
{
	struct fc_keys *all = arg;
	struct fc_key *k, *arr;

	(void)nlh;
	arr = grow(all->k, all->nr, &all->cap, sizeof(*k));
	if (!arr)
		return -ENOMEM;
	all->k = arr;
	k = &arr[all->nr];
	memset(k, 0, sizeof(*k));
	if (fc_key_get(tb[FAIRQ_A_KEY_ID], &k->id))
		return 0;	/* malformed: skipped */
	all->nr++;
	k->serv = fc_attr_u32(tb[FAIRQ_A_KEY_SERV_ID]);
	k->pool = fc_attr_u32(tb[FAIRQ_A_KEY_POOL_ID]);
	k->weight = fc_attr_u32(tb[FAIRQ_A_KEY_WEIGHT]);
	k->queued = fc_attr_u32(tb[FAIRQ_A_KEY_QUEUED]);
	k->in_flight = fc_attr_u32(tb[FAIRQ_A_KEY_IN_FLIGHT]);
	k->dispatches = fc_attr_u64(tb[FAIRQ_A_KEY_DISPATCHES]);
	k->thread_ns = fc_attr_u64(tb[FAIRQ_A_KEY_THREAD_NS]);
	fc_attr_str(k->class, sizeof(k->class), tb[FAIRQ_A_KEY_CLASS], "");
	k->paced = fc_attr_u64(tb[FAIRQ_A_KEY_PACED]);
	k->paced_ns = fc_attr_u64(tb[FAIRQ_A_KEY_PACED_NS]);
	return 0;
}

static int parse_weight(struct nlattr **tb, struct nlmsghdr *nlh, void *arg)
{
	struct fc_weights *all = arg;
	struct fc_weight *w, *arr;

	(void)nlh;
	arr = grow(all->w, all->nr, &all->cap, sizeof(*w));
	if (!arr)
		return -ENOMEM;
	all->w = arr;
	w = &arr[all->nr];
	memset(w, 0, sizeof(*w));
	if (fc_key_get(tb[FAIRQ_A_KEY_ID], &w->id))
		return 0;	/* malformed: skipped */
	all->nr++;
	w->weight = fc_attr_u32(tb[FAIRQ_A_KEY_WEIGHT]);
	if (tb[FAIRQ_A_KEY_SCHED])
		snprintf(all->sched, sizeof(all->sched), "%s", nla_get_string(tb[FAIRQ_A_KEY_SCHED]));
	return 0;
}

/* The weights set for scheduler @sched (NULL: the active one), in the order they were set. */
int fc_get_weights(struct fc_nl *nl, const char *sched, struct fc_weights *w)
{
	struct nl_msg *msg = fc_nl_msg(nl, FAIRQ_CMD_WEIGHT_GET, true);

	w->nr = 0;
	if (msg && sched && nla_put_string(msg, FAIRQ_A_KEY_SCHED, sched)) {
		nlmsg_free(msg);
		msg = NULL;
	}
	return fc_nl_transact(nl, msg, FAIRQ_A_KEY_MAX, parse_weight, w);
}

/*
 * A class's settings into @c, counters zero: its name ("" if none), rank, limits, burst,
 * weight, reservation, per-key and matches, as class-get replies and class-change-ntf events
 * give them.  A module from before class weights sends none of those: none of them, shared.
 */
void fc_class_settings(struct nlattr **tb, struct nlmsghdr *nlh, struct fc_class *c)
{
	struct genlmsghdr *gh = nlmsg_data(nlh);
	struct nlattr *a;
	int rem;

	memset(c, 0, sizeof(*c));
	fc_attr_str(c->name, sizeof(c->name), tb[FAIRQ_A_CLASS_NAME], "");
	c->has_rank = tb[FAIRQ_A_CLASS_RANK];
	c->rank = fc_attr_u32(tb[FAIRQ_A_CLASS_RANK]);
	c->limit_rps = fc_attr_u32(tb[FAIRQ_A_CLASS_LIMIT_RPS]);
	c->burst = fc_attr_u32(tb[FAIRQ_A_CLASS_BURST]);
	c->weight = fc_attr_u32(tb[FAIRQ_A_CLASS_WEIGHT]);
	c->reserve_pct = fc_attr_u32(tb[FAIRQ_A_CLASS_RESERVE]);
	c->limit_pct = fc_attr_u32(tb[FAIRQ_A_CLASS_LIMIT_PCT]);
	c->per_key = tb[FAIRQ_A_CLASS_PER_KEY] && nla_get_u8(tb[FAIRQ_A_CLASS_PER_KEY]);
	/* one nest per match: every attribute, in order */
	nla_for_each_attr(a, genlmsg_attrdata(gh, 0), genlmsg_attrlen(gh, 0), rem) {
		if (nla_type(a) != FAIRQ_A_CLASS_MATCH)
			continue;
		if (c->nr_match >= ARRAY_SIZE(c->match)) {
			fc_dropped("matches of a class", ARRAY_SIZE(c->match));
			break;
		}
		if (!fc_key_get(a, &c->match[c->nr_match]))
			c->nr_match++;
	}
}

static int parse_class(struct nlattr **tb, struct nlmsghdr *nlh, void *arg)
{
	struct fc_classes *all = arg;
	struct fc_class *c, *arr;

	if (!tb[FAIRQ_A_CLASS_NAME])
		return 0;	/* malformed: skipped */
	arr = grow(all->c, all->nr, &all->cap, sizeof(*c));
	if (!arr)
		return -ENOMEM;
	all->c = arr;
	c = &arr[all->nr++];
	fc_class_settings(tb, nlh, c);
	c->dispatches = fc_attr_u64(tb[FAIRQ_A_CLASS_DISPATCHES]);
	c->thread_ns = fc_attr_u64(tb[FAIRQ_A_CLASS_THREAD_NS]);
	c->paced = fc_attr_u64(tb[FAIRQ_A_CLASS_PACED]);
	c->paced_ns = fc_attr_u64(tb[FAIRQ_A_CLASS_PACED_NS]);
	c->reserved = fc_attr_u64(tb[FAIRQ_A_CLASS_RESERVED]);
	c->below_ns = fc_attr_u64(tb[FAIRQ_A_CLASS_BELOW_NS]);
	c->queued = fc_attr_u32(tb[FAIRQ_A_CLASS_QUEUED]);
	c->in_flight = fc_attr_u32(tb[FAIRQ_A_CLASS_IN_FLIGHT]);
	if (tb[FAIRQ_A_CLASS_SCHED])
		fc_attr_str(all->sched, sizeof(all->sched), tb[FAIRQ_A_CLASS_SCHED], "");
	return 0;
}

/* The classes of the active scheduler in rank order, the default last; or class @name only. */
int fc_get_classes(struct fc_nl *nl, const char *name, struct fc_classes *c)
{
	struct nl_msg *msg = fc_nl_msg(nl, FAIRQ_CMD_CLASS_GET, !name);

	c->nr = 0;
	if (msg && ((name && nla_put_string(msg, FAIRQ_A_CLASS_NAME, name)) ||
		    (fc_opts.all_netns && nla_put_flag(msg, FAIRQ_A_CLASS_ALL_NETNS)))) {
		nlmsg_free(msg);
		msg = NULL;
	}
	return fc_nl_transact(nl, msg, FAIRQ_A_CLASS_MAX, parse_class, c);
}

/* Every key, or those of pool id @pool (>= 0), or those the kernel matches with @key. */
int fc_get_keys(struct fc_nl *nl, int pool, const struct fc_key_id *key, struct fc_keys *k)
{
	struct nl_msg *msg = fc_nl_msg(nl, FAIRQ_CMD_KEY_GET, true);

	k->nr = 0;
	if (msg && ((fc_opts.all_netns && nla_put_flag(msg, FAIRQ_A_KEY_ALL_NETNS)) ||
		    (pool >= 0 && nla_put_u32(msg, FAIRQ_A_KEY_POOL_ID, pool)) ||
		    (key && fc_key_put(msg, FAIRQ_A_KEY_ID, key)))) {
		nlmsg_free(msg);
		msg = NULL;
	}
	return fc_nl_transact(nl, msg, FAIRQ_A_KEY_MAX, parse_key, k);
}

/*
 * /proc/fs/nfsd/pool_stats: a "# pool name name ..." header, then one line per pool.  The
 * columns differ between kernels, so they are taken from the header.  Return: 0, or -errno
 * when nfsd's filesystem is not there.
 */
int fc_read_kpools(struct fc_kpools *kp)
{
	char line[512], names[ARRAY_SIZE(kp->p->names)][sizeof(kp->p->names[0])];
	unsigned int nr_names = 0;
	FILE *f;

	kp->nr = 0;
	if (fc_opts.netns)
		return -EXDEV;	/* whose nfsd the file would show is unknown: see netns.c */
	f = fopen(POOL_STATS, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		struct fc_kpool *p;
		char *tok, *save;
		unsigned int i;

		if (line[0] == '#') {
			nr_names = 0;
			tok = strtok_r(line + 1, " \t\n", &save);	/* "pool" */
			while (tok && (tok = strtok_r(NULL, " \t\n", &save))) {
				if (nr_names == ARRAY_SIZE(names)) {
					fc_dropped("columns of nfsd's pool_stats", nr_names);
					break;
				}
				for (i = 0; tok[i] && i < sizeof(names[0]) - 1; i++)
					names[nr_names][i] = tok[i] == '-' ? '_' : tok[i];
				names[nr_names++][i] = '\0';
			}
			continue;
		}
		if (!isdigit((unsigned char)line[0]))
			continue;
		p = grow(kp->p, kp->nr, &kp->cap, sizeof(*kp->p));
		if (!p) {
			fclose(f);
			return -ENOMEM;
		}
		kp->p = p;
		p = &kp->p[kp->nr++];
		memset(p, 0, sizeof(*p));
		tok = strtok_r(line, " \t\n", &save);
		p->pool = strtoul(tok, NULL, 10);
		for (i = 0; i < nr_names && (tok = strtok_r(NULL, " \t\n", &save)); i++) {
			memcpy(p->names[i], names[i], sizeof(p->names[i]));
			p->val[i] = strtoull(tok, NULL, 10);
		}
		p->nr = i;
	}
	fclose(f);
	return 0;
}

/* One line (or a "module" object) of the module's own counters; nothing from older modules. */
void fc_print_module(const struct fc_module *m)
{
	unsigned int i;

	if (!m->known)
		return;
	out_obj_start("module");
	out_text("module:");
	for (i = 0; i < FC_MODULE_NUMS; i++)
		out_num(FC_ANY, fc_module_nums[i].name, fc_module_nums[i].text, m->num[i]);
	for (i = 0; i < m->more.nr; i++) {
		out_text(", %s", m->more.c[i].name);
		out_exact(FC_ANY, m->more.c[i].name, " %s", m->more.c[i].value);
	}
	out_text("\n");
	out_obj_end();
}

void fc_free_kpools(struct fc_kpools *kp)
{
	free(kp->p);
	*kp = (struct fc_kpools){ };
}

/* A pool_stats column: its header in capitals ("/s" for rates), at least 12 wide. */
static int kpool_column(const char *name, bool rate, char *head, size_t len)
{
	unsigned int c;

	snprintf(head, len, "%s%s", name, rate ? "/s" : "");
	for (c = 0; head[c]; c++)
		head[c] = head[c] == '_' ? '-' : toupper((unsigned char)head[c]);
	return strlen(head) > 12 ? (int)strlen(head) : 12;
}

/* nfsd's own counters per pool; with @prev and @secs, as rates since @prev. */
void fc_print_kpools(const struct fc_kpools *kp, const struct fc_kpools *prev, double secs)
{
	bool rates = prev && secs > 0;
	char head[40], fmt[16];
	unsigned int i, j;

	out_arr_start("nfsd_pools");
	for (i = 0; i < kp->nr; i++) {
		const struct fc_kpool *p = &kp->p[i];

		if (i == 0) {
			out_text("%6s", "POOL");
			for (j = 0; j < p->nr; j++) {
				int w = kpool_column(p->names[j], rates, head, sizeof(head));

				out_text(" %*s", w, head);
			}
			out_text("\n");
		}
		out_obj_start(NULL);
		out_exact(FC_ANY, "pool", "%6s", p->pool);
		for (j = 0; j < p->nr; j++) {
			int w = kpool_column(p->names[j], rates, head, sizeof(head));

			snprintf(fmt, sizeof(fmt), " %%%ds", w);
			if (rates && i < prev->nr && p->val[j] >= prev->p[i].val[j])
				out_rate(FC_ANY, p->names[j], fmt,
					 (double)(p->val[j] - prev->p[i].val[j]) / secs);
			else if (rates)
				out_rate(FC_ANY, p->names[j], fmt, 0);	/* nfsd restarted */
			else
				out_num(FC_ANY, p->names[j], fmt, p->val[j]);
		}
		out_obj_end();
		out_text("\n");
	}
	out_arr_end();
}
