// SPDX-License-Identifier: GPL-2.0-only
/*
 * class add|change|del|list|sync: the QoS classes of a classed scheduler (fq).  A class takes
 * the clients its matches name (addresses, subnets, NFSv4.1 client ids; the class of lowest
 * rank that matches wins, the rest go to the class named default) and holds them together to
 * a rate of requests and a percent of the threads' time at most for the nfsd service as a
 * whole, shares the threads with the other classes by its weight, and gets a percent of them
 * ahead of the others.  sync makes the running classes those of a list, changing in place what
 * it can: fairq-apply's CLASS lines (as weights prune is for its WEIGHT lines).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netlink/msg.h>
#include "fairqctl.h"

#define DEFAULT_CLASS "default"
#define SPEC_ARGS "NAME [match ADDR|PREFIX|v4client:ID]... [rank N] [limit N/s|none] [limit P%]" \
		  " [burst N] [weight W|none] [reserve P%|none] [per-key|shared]"
#define SPEC_KEYWORDS "match, rank, limit, burst, weight, reserve, per-key or shared"

/* A class as the command line gives it: what it does not give is left as it is. */
struct class_spec {
	char name[FAIRQ_CLASS_NAME_LEN + 1];
	bool has_rank, has_limit, has_burst, has_weight, has_reserve, has_limit_pct, has_per_key;
	bool limit_none;	/* limit none given: the kind not given otherwise is taken away */
	bool per_key;
	uint32_t rank, limit, burst;	/* limit 0: none */
	uint32_t weight, reserve, limit_pct;	/* 0: none */
	unsigned int nr_match;
	struct fc_key_id match[FAIRQ_CLASS_MATCH_MAX];
};

struct class_opts {
	bool names;	/* list --names */
	bool check;	/* sync --check */
};

static int class_opt(int c, const char *arg, void *ctx)
{
	struct class_opts *o = ctx;

	(void)arg;
	if (c == 'N')
		o->names = true;
	else if (c == 'c')
		o->check = true;
	return FC_EXIT_OK;
}

/* 1 to 15 of [A-Za-z0-9_.-], as the kernel takes them. */
static bool name_ok(const char *s)
{
	size_t n = strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-");

	return n && !s[n] && n <= FAIRQ_CLASS_NAME_LEN;
}

static int bad_name(const char *what, const char *name)
{
	return fc_usage_error("%s: '%s' is no class name (1 to %d letters, digits, '_', '.' or '-')",
			      what, name, FAIRQ_CLASS_NAME_LEN);
}

static bool parse_u32(const char *arg, uint64_t min, uint64_t max, uint32_t *val)
{
	uint64_t v;

	if (!fc_parse_u64(arg, &v) || v < min || v > max)
		return false;
	*val = v;
	return true;
}

/* An integer from @min to @max written with @unit after it ("/s", "%"). */
static bool parse_with_unit(const char *arg, const char *unit, uint64_t min, uint64_t max,
			    uint32_t *val)
{
	size_t len = strlen(arg), unit_len = strlen(unit);
	char num[24];

	if (len <= unit_len || len - unit_len >= sizeof(num) || strcmp(arg + len - unit_len, unit))
		return false;
	memcpy(num, arg, len - unit_len);
	num[len - unit_len] = '\0';
	return parse_u32(num, min, max, val);
}

/*
 * limit's value into @s: N/s (requests per second, from 1 on), P% (of the threads' time, from
 * 1 on), or none.  A class may have one of each.  none takes away the kind not given beside
 * it: alone, both; with 200/s, the percent limit (one change, so the rate's schedule goes on).
 */
static int parse_limit(const char *what, const char *arg, struct class_spec *s)
{
	uint32_t val;
	bool pct;

	if (!strcmp(arg, "none")) {
		if (s->limit_none || (s->has_limit && s->has_limit_pct))
			goto twice;
		s->limit_none = true;
		if (!s->has_limit)
			s->limit = 0;
		if (!s->has_limit_pct)
			s->limit_pct = 0;
		s->has_limit = s->has_limit_pct = true;
		return FC_EXIT_OK;
	}
	if (parse_with_unit(arg, "/s", 1, FAIRQ_CLASS_LIMIT_MAX, &val))
		pct = false;
	else if (parse_with_unit(arg, "%", 1, 100, &val))
		pct = true;
	else
		return fc_usage_error("%s: limit takes N/s (requests per second, 1 to %u), P%% (of the threads' time, 1 to 100) or none, not '%s'",
				      what, FAIRQ_CLASS_LIMIT_MAX, arg);
	/* a kind given once; beside none, a kind none did not take yet (its value 0) */
	if (pct ? s->has_limit_pct && !(s->limit_none && !s->limit_pct) :
		  s->has_limit && !(s->limit_none && !s->limit))
		goto twice;
	if (pct) {
		s->has_limit_pct = true;
		s->limit_pct = val;
	} else {
		s->has_limit = true;
		s->limit = val;
	}
	if (!s->limit_none || !s->limit || !s->limit_pct)
		return FC_EXIT_OK;
twice:
	return fc_usage_error("%s: limit given twice (at most once N/s and once P%%, or one of them and none for the other)",
			      what);
}

static int add_match(const char *what, const char *arg, struct class_spec *s)
{
	struct fc_key_id id;
	unsigned int i;

	if (fc_key_parse(arg, &id) || id.type == FAIRQ_KEY_TYPE_CONN)
		return fc_usage_error("%s: '%s' is no address, subnet or v4client:ID to match (see KEYS in fairqctl(8))",
				      what, arg);
	for (i = 0; i < s->nr_match; i++) {
		if (fc_key_same(&s->match[i], &id))
			return fc_usage_error("%s: match %s given twice", what, arg);
	}
	if (s->nr_match == FAIRQ_CLASS_MATCH_MAX)
		return fc_usage_error("%s: more than %d matches", what, FAIRQ_CLASS_MATCH_MAX);
	s->match[s->nr_match++] = id;
	return FC_EXIT_OK;
}

/* rank, burst, weight or reserve (@kw: parse_spec() refuses the other words) into @s. */
static int parse_number(const char *what, const char *kw, const char *val, struct class_spec *s)
{
	char form[64];
	bool *given, ok;

	if (!strcmp(kw, "rank")) {
		given = &s->has_rank;
		ok = parse_u32(val, 0, UINT32_MAX, &s->rank);
		snprintf(form, sizeof(form), "an integer from 0 to %u", UINT32_MAX);
	} else if (!strcmp(kw, "burst")) {
		given = &s->has_burst;
		ok = parse_u32(val, 1, FAIRQ_CLASS_BURST_MAX, &s->burst);
		snprintf(form, sizeof(form), "an integer from 1 to %u", FAIRQ_CLASS_BURST_MAX);
	} else if (!strcmp(kw, "weight")) {
		given = &s->has_weight;
		s->weight = 0;
		ok = !strcmp(val, "none") || parse_u32(val, 1, FAIRQ_CLASS_WEIGHT_MAX, &s->weight);
		snprintf(form, sizeof(form), "an integer from 1 to %u or none", FAIRQ_CLASS_WEIGHT_MAX);
	} else {
		given = &s->has_reserve;
		s->reserve = 0;
		ok = !strcmp(val, "none") || parse_with_unit(val, "%", 0, 100, &s->reserve);
		snprintf(form, sizeof(form), "P%% (of the threads' time, 0 to 100) or none");
	}
	if (*given)
		return fc_usage_error("%s: %s given twice", what, kw);
	*given = true;
	if (!ok)
		return fc_usage_error("%s: %s takes %s, not '%s'", what, kw, form, val);
	return FC_EXIT_OK;
}

/*
 * What the kernel refuses of a class's settings together, said before anything is sent: of
 * those @s gives, or of the whole class when what it does not give is the default (@whole:
 * class add, a line of class sync).  Whether the reservations of all classes fit is for
 * class sync, which has them all, or the kernel.
 */
static int settings_conflict(const char *what, const struct class_spec *s, bool whole)
{
	if (s->per_key && (whole || (s->has_weight && s->has_limit && s->has_limit_pct)) &&
	    !s->weight && !s->limit && !s->limit_pct)
		return fc_usage_error("%s: per-key gives each of the class's keys its weight or its limits: give it one (weight W, limit N/s, limit P%%)",
				      what);
	if (s->per_key && s->reserve)
		return fc_usage_error("%s: per-key applies to a weight and limits: a reservation is for the class's keys together",
				      what);
	if (s->limit_pct && s->reserve > s->limit_pct)
		return fc_usage_error("%s: reserve %u%% is above the class's limit %u%%", what,
				      s->reserve, s->limit_pct);
	return FC_EXIT_OK;
}

/*
 * NAME and its keywords (argv[0] on) into @s, or a usage error naming @what; @whole for a
 * class whose settings not given are the defaults (class add and sync), not left as they are.
 * The rules of the default class are the kernel's too; they are said here before anything is
 * sent.
 */
static int parse_spec(const char *what, int argc, char **argv, struct class_spec *s, bool whole)
{
	static const char *const valued[] = { "match", "rank", "limit", "burst", "weight",
					      "reserve" };
	unsigned int k;
	int i, rc;

	memset(s, 0, sizeof(*s));
	if (argc < 1)
		return fc_usage_error("%s: which class? (a NAME)", what);
	if (!name_ok(argv[0]))
		return bad_name(what, argv[0]);
	strcpy(s->name, argv[0]);
	for (i = 1; i < argc; i++) {
		const char *kw = argv[i], *val;

		/* one setting in two words without a value: the weight each key's, or the class's */
		if (!strcmp(kw, "per-key") || !strcmp(kw, "shared")) {
			if (s->has_per_key)
				return fc_usage_error("%s: per-key or shared given twice", what);
			s->has_per_key = true;
			s->per_key = !strcmp(kw, "per-key");
			continue;
		}
		for (k = 0; k < ARRAY_SIZE(valued) && strcmp(kw, valued[k]); k++)
			;
		if (k == ARRAY_SIZE(valued))
			return fc_usage_error("%s: unknown keyword '%s' (" SPEC_KEYWORDS ")", what, kw);
		if (++i == argc)
			return fc_usage_error("%s: %s needs a value", what, kw);
		val = argv[i];
		if (!strcmp(kw, "match"))
			rc = add_match(what, val, s);
		else if (!strcmp(kw, "limit"))
			rc = parse_limit(what, val, s);
		else
			rc = parse_number(what, kw, val, s);
		if (rc)
			return rc;
	}
	rc = settings_conflict(what, s, whole);
	if (rc || strcmp(s->name, DEFAULT_CLASS))
		return rc;
	if (s->has_rank)
		return fc_usage_error("%s: the default class has no rank: it comes after every other",
				      what);
	if (s->nr_match)
		return fc_usage_error("%s: the default class has no matches: it takes every client no other class matches",
				      what);
	return FC_EXIT_OK;
}

/* class-set for @s, with what it gives and nothing else; @create for a new class. */
static int class_set(struct fc_nl *nl, const struct class_spec *s, bool create)
{
	struct nl_msg *msg = fc_nl_msg(nl, FAIRQ_CMD_CLASS_SET, false);
	unsigned int i;
	bool bad;

	if (!msg)
		return -ENOMEM;
	/*
	 * A new class has none of the settings classes gained with weights: those at their
	 * default are not sent, so that a module from before them makes the class all the same.
	 */
	bad = nla_put_string(msg, FAIRQ_A_CLASS_NAME, s->name) ||
	      (create && nla_put_flag(msg, FAIRQ_A_CLASS_CREATE)) ||
	      (s->has_rank && nla_put_u32(msg, FAIRQ_A_CLASS_RANK, s->rank)) ||
	      (s->has_limit && nla_put_u32(msg, FAIRQ_A_CLASS_LIMIT_RPS, s->limit)) ||
	      (s->has_burst && nla_put_u32(msg, FAIRQ_A_CLASS_BURST, s->burst)) ||
	      (s->has_weight && (!create || s->weight) &&
	       nla_put_u32(msg, FAIRQ_A_CLASS_WEIGHT, s->weight)) ||
	      (s->has_reserve && (!create || s->reserve) &&
	       nla_put_u32(msg, FAIRQ_A_CLASS_RESERVE, s->reserve)) ||
	      (s->has_limit_pct && (!create || s->limit_pct) &&
	       nla_put_u32(msg, FAIRQ_A_CLASS_LIMIT_PCT, s->limit_pct)) ||
	      (s->has_per_key && (!create || s->per_key) &&
	       nla_put_u8(msg, FAIRQ_A_CLASS_PER_KEY, s->per_key));
	for (i = 0; !bad && i < s->nr_match; i++)
		bad = fc_key_put(msg, FAIRQ_A_CLASS_MATCH, &s->match[i]);
	if (bad) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	return fc_nl_transact(nl, msg, FAIRQ_A_CLASS_MAX, NULL, NULL);
}

static int class_del(struct fc_nl *nl, const char *name)
{
	struct nl_msg *msg = fc_nl_msg(nl, FAIRQ_CMD_CLASS_DEL, false);

	if (msg && nla_put_string(msg, FAIRQ_A_CLASS_NAME, name)) {
		nlmsg_free(msg);
		msg = NULL;
	}
	return fc_nl_transact(nl, msg, FAIRQ_A_CLASS_MAX, NULL, NULL);
}

/* One request on a socket of its own; return the exit code. */
static int class_do(const char *what, const struct class_spec *s, bool create, bool del)
{
	struct fc_nl *nl;
	int rc, err;

	rc = fc_nl_open(&nl);
	if (rc)
		return rc;
	err = del ? class_del(nl, s->name) : class_set(nl, s, create);
	if (err)
		rc = fc_nl_fail(nl, err, what);
	fc_nl_close(nl);
	return rc;
}

static const char *rate_text(uint32_t rps, char *buf, size_t len)
{
	if (rps)
		snprintf(buf, len, "%u/s", rps);
	else
		snprintf(buf, len, "none");
	return buf;
}

/* class list's LIMIT: N/s, P%, both (N/s,P%) or none; /key after them for each key's. */
static const char *limits_text(const struct fc_class *c, char *buf, size_t len)
{
	const char *each = c->per_key && (c->limit_rps || c->limit_pct) ? "/key" : "";

	if (c->limit_rps && c->limit_pct)
		snprintf(buf, len, "%u/s,%u%%%s", c->limit_rps, c->limit_pct, each);
	else if (c->limit_pct)
		snprintf(buf, len, "%u%%%s", c->limit_pct, each);
	else if (c->limit_rps)
		snprintf(buf, len, "%u/s%s", c->limit_rps, each);
	else
		rate_text(0, buf, len);
	return buf;
}

/* class list's WEIGHT: the class's, N/key for each of its keys (per-key), or - for none. */
static const char *weight_text(const struct fc_class *c, char *buf, size_t len)
{
	if (!c->weight)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, c->per_key ? "%u/key" : "%u", c->weight);
	return buf;
}

/* class list's RESERVE: P%, or - for none. */
static const char *reserve_text(const struct fc_class *c, char *buf, size_t len)
{
	if (c->reserve_pct)
		snprintf(buf, len, "%u%%", c->reserve_pct);
	else
		snprintf(buf, len, "-");
	return buf;
}

/* @c's matches, separated by @sep, into @buf. */
static const char *matches_text(const struct fc_class *c, const char *sep, char *buf, size_t len)
{
	size_t used = 0;
	unsigned int i;
	char key[80];

	buf[0] = '\0';
	for (i = 0; i < c->nr_match && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%s", i ? sep : "",
				 fc_key_format(&c->match[i], key, sizeof(key)));
	return buf;
}

/*
 * The arguments of class add that make @c again: fairq.conf's CLASS value.  Limit and burst
 * always (limit none for neither limit), the settings classes gained later only when set, so
 * that a class without them reads as it did before them.
 */
const char *fc_class_line(const struct fc_class *c, char *buf, size_t len)
{
	char rank[24] = "", matches[FAIRQ_CLASS_MATCH_MAX * 88], rate[24], rps[32] = "";
	char pct[24] = "", weight[24] = "", reserve[24] = "";

	if (c->has_rank)
		snprintf(rank, sizeof(rank), " rank %u", c->rank);
	matches_text(c, " match ", matches, sizeof(matches));
	if (c->limit_rps || !c->limit_pct)
		snprintf(rps, sizeof(rps), " limit %s", rate_text(c->limit_rps, rate, sizeof(rate)));
	if (c->limit_pct)
		snprintf(pct, sizeof(pct), " limit %u%%", c->limit_pct);
	if (c->weight)
		snprintf(weight, sizeof(weight), " weight %u", c->weight);
	if (c->reserve_pct)
		snprintf(reserve, sizeof(reserve), " reserve %u%%", c->reserve_pct);
	snprintf(buf, len, "%s%s%s%s%s%s burst %u%s%s%s", c->name, rank,
		 c->nr_match ? " match " : "", matches, rps, pct, c->burst, weight,
		 c->per_key ? " per-key" : "", reserve);
	return buf;
}

/*
 * @c's settings as JSON members, as class list and monitor give them: rank (none for the
 * default class), limit_rps (0: none), burst, weight, reserve_pct and limit_pct (0: none),
 * per_key and the matches as class add takes them.
 */
void fc_class_settings_json(const struct fc_class *c)
{
	unsigned int i;
	char key[80];

	if (c->has_rank)
		out_exact(FC_JSON, "rank", NULL, c->rank);
	out_exact(FC_JSON, "limit_rps", NULL, c->limit_rps);
	out_exact(FC_JSON, "burst", NULL, c->burst);
	out_exact(FC_JSON, "weight", NULL, c->weight);
	out_exact(FC_JSON, "reserve_pct", NULL, c->reserve_pct);
	out_exact(FC_JSON, "limit_pct", NULL, c->limit_pct);
	out_bool(FC_JSON, "per_key", NULL, c->per_key);
	out_arr_start("matches");
	for (i = 0; i < c->nr_match; i++)
		out_str(FC_JSON, NULL, NULL, fc_key_format(&c->match[i], key, sizeof(key)));
	out_arr_end();
}

static void print_classes(const struct fc_classes *c)
{
	char matches[FAIRQ_CLASS_MATCH_MAX * 82], fmt[16], wfmt[16], lfmt[16], buf[32];
	int width = (int)strlen("(all others)"), wwidth = 7, lwidth = 10;
	unsigned int i;

	/* the columns as wide as their widest value (10000/key, 10000000/s,100%) */
	for (i = 0; i < c->nr; i++) {
		int n = strlen(matches_text(&c->c[i], ",", matches, sizeof(matches)));

		width = n > width ? n : width;
		n = strlen(weight_text(&c->c[i], buf, sizeof(buf)));
		wwidth = n > wwidth ? n : wwidth;
		n = strlen(limits_text(&c->c[i], buf, sizeof(buf)));
		lwidth = n > lwidth ? n : lwidth;
	}
	snprintf(fmt, sizeof(fmt), " %%-%ds", width);
	snprintf(wfmt, sizeof(wfmt), " %%%ds", wwidth);
	snprintf(lfmt, sizeof(lfmt), " %%%ds", lwidth);
	out_doc_start();
	out_str(FC_JSON, "scheduler", NULL, c->sched);
	out_text("%-15s %6s %*s %7s %*s %6s %-*s %6s %8s %10s %11s %8s %10s %8s %10s\n", "NAME",
		 "RANK", wwidth, "WEIGHT", "RESERVE", lwidth, "LIMIT", "BURST", width, "MATCHES",
		 "QUEUED", "INFLIGHT", "DISPATCHES", "THREAD_TIME", "PACED", "PACED_TIME", "RESERVED",
		 "BELOW");
	out_arr_start("classes");
	for (i = 0; i < c->nr; i++) {
		const struct fc_class *cl = &c->c[i];

		out_obj_start(NULL);
		out_str(FC_ANY, "name", "%-15s", cl->name);
		fc_class_settings_json(cl);
		if (cl->has_rank)
			out_exact(FC_TEXT, NULL, " %6s", cl->rank);
		else
			out_str(FC_TEXT, NULL, " %6s", "-");
		out_str(FC_TEXT, NULL, wfmt, weight_text(cl, buf, sizeof(buf)));
		out_str(FC_TEXT, NULL, " %7s", reserve_text(cl, buf, sizeof(buf)));
		out_str(FC_TEXT, NULL, lfmt, limits_text(cl, buf, sizeof(buf)));
		out_exact(FC_TEXT, NULL, " %6s", cl->burst);
		matches_text(cl, ",", matches, sizeof(matches));
		out_str(FC_TEXT, NULL, fmt, *matches ? matches :
			!strcmp(cl->name, DEFAULT_CLASS) ? "(all others)" : "-");
		out_num(FC_ANY, "queued", " %6s", cl->queued);
		out_num(FC_ANY, "in_flight", " %8s", cl->in_flight);
		out_num(FC_ANY, "dispatches", " %10s", cl->dispatches);
		out_ns(FC_ANY, "thread_ns", " %11s", cl->thread_ns);
		out_num(FC_ANY, "paced", " %8s", cl->paced);
		out_ns(FC_ANY, "paced_ns", " %10s", cl->paced_ns);
		out_num(FC_ANY, "reserved", " %8s", cl->reserved);
		out_ns(FC_ANY, "below_ns", " %10s", cl->below_ns);
		out_obj_end();
		out_text("\n");
	}
	out_arr_end();
	out_doc_end();
}

static int class_list(int argc, char **argv, const struct class_opts *o)
{
	struct fc_classes c = { };
	const char *name = NULL;
	struct fc_scheds s;
	struct fc_nl *nl;
	unsigned int i;
	int rc, err;

	if (argc > 1)
		return fc_usage_error("class list: unexpected argument '%s'", argv[1]);
	if (argc && !name_ok(argv[0]))
		return bad_name("class list", argv[0]);
	if (argc)
		name = argv[0];
	rc = fc_nl_open(&nl);
	if (rc)
		return rc;
	err = fc_get_classes(nl, name, &c);
	if (err) {
		rc = fc_nl_fail(nl, err, "class list");
	} else if (o->names) {	/* for scripts and completion: one name per line */
		for (i = 0; i < c.nr; i++)
			printf("%s\n", c.c[i].name);
	} else {
		if (!c.sched[0] && !fc_get_scheds(nl, &s))
			snprintf(c.sched, sizeof(c.sched), "%s", s.active);
		print_classes(&c);
	}
	free(c.c);
	fc_nl_close(nl);
	return rc;
}

/* The class named @name of @c, or NULL. */
static struct fc_class *find_class(const struct fc_classes *c, const char *name)
{
	unsigned int i;

	for (i = 0; i < c->nr; i++) {
		if (!strcmp(c->c[i].name, name))
			return &c->c[i];
	}
	return NULL;
}

struct class_specs {
	unsigned int nr, cap;
	struct class_spec *s;
};

static const struct class_spec *find_spec(const struct class_specs *l, const char *name)
{
	unsigned int i;

	for (i = 0; i < l->nr; i++) {
		if (!strcmp(l->s[i].name, name))
			return &l->s[i];
	}
	return NULL;
}

/* Whether a class of @l other than @name is to have rank @rank. */
static bool rank_wanted(const struct class_specs *l, uint32_t rank, const char *name)
{
	unsigned int i;

	for (i = 0; i < l->nr; i++) {
		if (l->s[i].has_rank && l->s[i].rank == rank && strcmp(l->s[i].name, name))
			return true;
	}
	return false;
}

/*
 * @s made whole, as class sync takes a line: what it does not give is the default (no limits,
 * burst 1, no weight, no reservation, shared), every setting but rank and matches given.
 */
static void spec_defaults(struct class_spec *s)
{
	if (!s->has_burst)
		s->burst = 1;
	/* the others are 0 where not given (parse_spec()) */
	s->has_limit = s->has_limit_pct = s->has_burst = true;
	s->has_weight = s->has_reserve = s->has_per_key = true;
}

/*
 * Of a whole @s that changes @c, send the settings classes gained with weights only where
 * they change it: a module from before them refuses attributes it does not know, and a file
 * without them is still to apply there.
 */
static void send_new_settings_changed(struct class_spec *s, const struct fc_class *c)
{
	s->has_weight = s->weight != c->weight;
	s->has_reserve = s->reserve != c->reserve_pct;
	s->has_limit_pct = s->limit_pct != c->limit_pct;
	s->has_per_key = s->per_key != c->per_key;
}

/* Whether @s, made whole (spec_defaults()), would change @c. */
static bool differs(const struct fc_class *c, const struct class_spec *s)
{
	unsigned int i, j;

	if ((s->has_rank && s->rank != c->rank) || s->limit != c->limit_rps ||
	    s->burst != c->burst || s->limit_pct != c->limit_pct || s->weight != c->weight ||
	    s->reserve != c->reserve_pct || s->per_key != c->per_key ||
	    (s->nr_match && s->nr_match != c->nr_match))
		return true;
	for (i = 0; i < s->nr_match; i++) {
		for (j = 0; j < c->nr_match && !fc_key_same(&s->match[i], &c->match[j]); j++)
			;
		if (j == c->nr_match)
			return true;
	}
	return false;
}

/*
 * Lines without a rank match in line order, after those with one: the file means the same
 * whether its classes are made anew (at boot) or exist already with other ranks.  And no
 * more classes than the kernel holds, before anything is changed.
 */
static int rank_in_line_order(struct class_specs *l)
{
	unsigned int i, named = 0;
	uint64_t next = 1;	/* the kernel's first rank */

	for (i = 0; i < l->nr; i++) {
		if (l->s[i].has_rank && l->s[i].rank >= next)
			next = (uint64_t)l->s[i].rank + 1;
		named += !!strcmp(l->s[i].name, DEFAULT_CLASS);
	}
	if (named > FAIRQ_CLASSES_MAX - 1)
		return fc_usage_error("class sync: %u classes: the kernel holds %d besides the default one",
				      named, FAIRQ_CLASSES_MAX - 1);
	for (i = 0; i < l->nr; i++) {
		if (l->s[i].has_rank || !strcmp(l->s[i].name, DEFAULT_CLASS))
			continue;
		if (next > UINT32_MAX)
			return fc_usage_error("class sync: no rank left for class %s after the highest given",
					      l->s[i].name);
		l->s[i].has_rank = true;
		l->s[i].rank = next++;
	}
	return FC_EXIT_OK;
}

/* The kernel refuses reservations that add up to more than all the threads: said first. */
static int reservations_fit(const struct class_specs *l)
{
	unsigned int i, sum = 0;

	for (i = 0; i < l->nr; i++)
		sum += l->s[i].reserve;
	if (sum > 100)
		return fc_usage_error("class sync: the reservations add up to %u%%: at most 100%% of the threads' time",
				      sum);
	return FC_EXIT_OK;
}

/*
 * Standard input, one class a line as class add takes it ('#' lines and blank ones skipped),
 * into @l; every name and every rank given once.
 */
static int read_specs(FILE *f, struct class_specs *l)
{
	char *line = NULL, *words[64], *save, what[48];
	unsigned int lineno = 0;
	size_t size = 0;
	int rc = FC_EXIT_OK, n;

	while (!rc && getline(&line, &size, f) >= 0) {
		struct class_spec *s;

		lineno++;
		snprintf(what, sizeof(what), "class sync: line %u", lineno);
		n = 0;
		for (words[0] = strtok_r(line, " \t\r\n", &save); words[n] && n < 63;)
			words[++n] = strtok_r(NULL, " \t\r\n", &save);
		if (!n || words[0][0] == '#')
			continue;
		if (n == 63) {
			rc = fc_usage_error("%s: too many words", what);
			break;
		}
		if (l->nr == l->cap) {
			s = realloc(l->s, (l->cap ? l->cap * 2 : 8) * sizeof(*s));
			if (!s) {
				fc_err("class sync: out of memory");
				rc = FC_EXIT_FAIL;
				break;
			}
			l->s = s;
			l->cap = l->cap ? l->cap * 2 : 8;
		}
		s = &l->s[l->nr];
		rc = parse_spec(what, n, words, s, true);
		if (!rc && find_spec(l, s->name))
			rc = fc_usage_error("%s: class %s given twice", what, s->name);
		else if (!rc && s->has_rank && rank_wanted(l, s->rank, s->name))
			rc = fc_usage_error("%s: rank %u given twice", what, s->rank);
		if (!rc)
			l->nr++;
	}
	free(line);
	return rc ?: reservations_fit(l) ?: rank_in_line_order(l);
}

/* What sync did: one line each, or the counts in JSON. */
static void said(const char *done, const char *name, unsigned int *count)
{
	(*count)++;
	out_text("%s class %s\n", done, name);
}

/*
 * Make the running classes those of @l: delete those it does not name (and those it names
 * without matches while they have some: a change cannot take matches away, so they are made
 * anew), move ranks out of the way (above every rank in use or wanted) where another class is
 * to take them, lower the reservations that go down (so that those going up fit, whatever
 * their order), then change (only what differs) or add each; the default class goes back to
 * no limit, burst 1, no weight and no reservation if @l does not name it.  What @l does not
 * give is the default (spec_defaults()), and no matches; every rank is given
 * (rank_in_line_order()).
 */
static int sync_classes(struct fc_nl *nl, const struct class_specs *l)
{
	static const struct class_spec no_default = { .name = DEFAULT_CLASS };
	unsigned int i, added = 0, changed = 0, deleted = 0;
	struct fc_classes cur = { };
	bool *moved = NULL;	/* changed already, a step ahead (rank, reservation): said changed */
	uint64_t base = 0;
	int rc = FC_EXIT_OK, err;
	char what[64] = "class sync";

	err = fc_get_classes(nl, NULL, &cur);
	if (err == -EOPNOTSUPP && !l->nr)
		goto done;	/* a scheduler without classes has none to remove */
	moved = calloc(cur.nr + 1, sizeof(*moved));
	if (!err && !moved)
		err = -ENOMEM;
	for (i = 0; !err && i < cur.nr; i++) {
		struct fc_class *c = &cur.c[i];
		const struct class_spec *s = find_spec(l, c->name);

		if (!strcmp(c->name, DEFAULT_CLASS) || (s && (s->nr_match || !c->nr_match)))
			continue;
		snprintf(what, sizeof(what), "class sync: class %s", c->name);
		err = class_del(nl, c->name);
		if (!err)
			said("deleted", c->name, &deleted);
		c->name[0] = '\0';	/* gone */
	}
	for (i = 0; !err && i < l->nr; i++) {
		if (l->s[i].has_rank && l->s[i].rank >= base)
			base = (uint64_t)l->s[i].rank + 1;
	}
	for (i = 0; !err && i < cur.nr; i++) {
		if (cur.c[i].name[0] && cur.c[i].has_rank && cur.c[i].rank >= base)
			base = (uint64_t)cur.c[i].rank + 1;
	}
	for (i = 0; !err && i < cur.nr; i++) {
		struct fc_class *c = &cur.c[i];
		const struct class_spec *s = find_spec(l, c->name);
		struct class_spec tmp = { .has_rank = true };

		if (!c->name[0] || !c->has_rank || !s ||
		    !((s->has_rank && s->rank != c->rank) || rank_wanted(l, c->rank, c->name)))
			continue;
		if (base > UINT32_MAX) {
			fc_err("class sync: no rank free above %u to move class %s to", c->rank, c->name);
			rc = FC_EXIT_FAIL;
			goto out;
		}
		strcpy(tmp.name, c->name);
		tmp.rank = c->rank = base++;
		snprintf(what, sizeof(what), "class sync: class %s", c->name);
		err = class_set(nl, &tmp, false);
		moved[i] = true;
	}
	for (i = 0; !err && i < cur.nr; i++) {
		struct fc_class *c = &cur.c[i];
		const struct class_spec *s = find_spec(l, c->name);
		struct class_spec tmp = { .has_reserve = true };

		/* the default class not named goes back to none; the others not named are gone */
		tmp.reserve = s ? s->reserve : 0;
		if (!c->name[0] || tmp.reserve >= c->reserve_pct)
			continue;
		strcpy(tmp.name, c->name);
		c->reserve_pct = tmp.reserve;
		snprintf(what, sizeof(what), "class sync: class %s", c->name);
		err = class_set(nl, &tmp, false);
		moved[i] = true;
	}
	/* those with a rank first: a class added without one takes the next free rank */
	for (i = 0; !err && i <= 2 * l->nr; i++) {
		struct class_spec want = i < 2 * l->nr ? l->s[i % l->nr] : no_default;
		struct fc_class *c = find_class(&cur, want.name);

		if (i < 2 * l->nr && want.has_rank != (i < l->nr))
			continue;
		if (i == 2 * l->nr && (!c || find_spec(l, DEFAULT_CLASS)))
			break;	/* the default class was named, or is not there */
		snprintf(what, sizeof(what), "class sync: class %s", want.name);
		if (!c) {
			err = class_set(nl, &want, true);
			if (!err)
				said("added", want.name, &added);
			continue;
		}
		spec_defaults(&want);
		if (differs(c, &want)) {
			send_new_settings_changed(&want, c);
			err = class_set(nl, &want, false);
		} else if (!moved[c - cur.c]) {
			continue;
		}
		if (!err)
			said("changed", want.name, &changed);
	}
	if (err) {
		rc = fc_nl_fail(nl, err, what);
		goto out;
	}
done:
	if (fc_out_opts.json) {
		out_doc_start();
		out_exact(FC_JSON, "added", NULL, added);
		out_exact(FC_JSON, "changed", NULL, changed);
		out_exact(FC_JSON, "deleted", NULL, deleted);
		out_doc_end();
	}
out:
	free(moved);
	free(cur.c);
	return rc;
}

static int class_sync(int argc, char **argv, const struct class_opts *o)
{
	struct class_specs l = { };
	struct fc_nl *nl;
	int rc;

	if (argc)
		return fc_usage_error("class sync: unexpected argument '%s' (the classes come on standard input)",
				      argv[0]);
	/* an empty input removes every class: not from a terminal left waiting */
	if (isatty(STDIN_FILENO))
		return fc_usage_error("class sync: the classes come on standard input (one a line), not a terminal");
	rc = read_specs(stdin, &l);
	if (!rc && !o->check) {
		rc = fc_nl_open(&nl);
		if (!rc) {
			rc = sync_classes(nl, &l);
			fc_nl_close(nl);
		}
	}
	free(l.s);
	return rc;
}

static const struct option list_opts[] = {
	{ "names", no_argument, NULL, 'N' },
	{ }
};

static const struct option sync_opts[] = {
	{ "check", no_argument, NULL, 'c' },
	{ }
};

static const struct {
	const char *name;	/* as messages name it */
	const char *usage;
	const struct option *longopts;
} subcommands[] = {
	{ "class add", "class add " SPEC_ARGS, NULL },
	{ "class change", "class change " SPEC_ARGS, NULL },
	{ "class del", "class del NAME", NULL },
	{ "class list", "class list [--names] [NAME]", list_opts },
	{ "class sync", "class sync [--check] <CLASSES  (one a line, as class add takes them)",
	  sync_opts },
};

int cmd_class(int argc, char **argv)
{
	static const char usage[] =
		"class [list [--names] [NAME]]\n"
		"       fairqctl class add " SPEC_ARGS "\n"
		"       fairqctl class change " SPEC_ARGS "\n"
		"       fairqctl class del NAME\n"
		"       fairqctl class sync [--check] <CLASSES";
	struct class_opts o = { };
	struct class_spec s;
	unsigned int i;
	int rc;

	if (!fc_getopt(argc, argv, "", NULL, usage, class_opt, &o, &rc))
		return rc;
	argc -= optind;
	argv += optind;
	if (!argc)
		return class_list(0, argv, &o);
	for (i = 0; i < ARRAY_SIZE(subcommands) && strcmp(argv[0], subcommands[i].name + 6); i++)
		;
	if (i == ARRAY_SIZE(subcommands))
		return fc_usage_error("class: unknown subcommand '%s' (add, change, del, list or sync)",
				      argv[0]);
	/* the subcommand's own options, and the global ones after it too */
	argv[0] = (char *)subcommands[i].name;
	optind = 0;
	if (!fc_getopt(argc, argv, "", subcommands[i].longopts, subcommands[i].usage, class_opt, &o,
		       &rc))
		return rc;
	argc -= optind;
	argv += optind;
	switch (i) {
	case 0:
		rc = parse_spec("class add", argc, argv, &s, true);
		if (!rc && !strcmp(s.name, DEFAULT_CLASS))
			return fc_usage_error("class add: the default class always exists: change it (class change default limit N/s)");
		return rc ? rc : class_do("class add", &s, true, false);
	case 1:
		rc = parse_spec("class change", argc, argv, &s, false);
		if (!rc && argc == 1)	/* NAME alone */
			return fc_usage_error("class change: nothing to change (" SPEC_KEYWORDS ")");
		return rc ? rc : class_do("class change", &s, false, false);
	case 2:
		if (argc != 1)
			return argc ? fc_usage_error("class del: unexpected argument '%s'", argv[1]) :
				      fc_usage_error("class del: which class? (a NAME)");
		if (!name_ok(argv[0]))
			return bad_name("class del", argv[0]);
		if (!strcmp(argv[0], DEFAULT_CLASS))
			return fc_usage_error("class del: the default class cannot be deleted (it takes every client no other class matches)");
		strcpy(s.name, argv[0]);
		return class_do("class del", &s, false, true);
	case 3:
		return class_list(argc, argv, &o);
	default:
		return class_sync(argc, argv, &o);
	}
}
