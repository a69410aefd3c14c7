// SPDX-License-Identifier: GPL-2.0-only
/*
 * class add|change|del|list|sync: the QoS classes of a classed scheduler (fq).  A class takes
 * the clients its matches name (addresses, subnets, NFSv4.1 client ids; the class of lowest
 * rank that matches wins, the rest go to the class named default) and holds them together to
 * a rate of requests for the nfsd service as a whole.  sync makes the running classes those
 * of a list, changing in place what it can: fairq-apply's CLASS lines (as weights prune is
 * for its WEIGHT lines).
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
#define SPEC_ARGS "NAME [match ADDR|PREFIX|v4client:ID]... [rank N] [limit N/s|none] [burst N]"

/* A class as the command line gives it: what it does not give is left as it is. */
struct class_spec {
	char name[FAIRQ_CLASS_NAME_LEN + 1];
	bool has_rank, has_limit, has_burst;
	uint32_t rank, limit, burst;	/* limit 0: none */
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

/* "N/s", requests per second from 1 on; or "none" (0). */
static bool parse_limit(const char *arg, uint32_t *rps)
{
	size_t len = strlen(arg);
	char num[24];
	uint64_t v;

	if (!strcmp(arg, "none")) {
		*rps = 0;
		return true;
	}
	if (len < 3 || len - 2 >= sizeof(num) || strcmp(arg + len - 2, "/s"))
		return false;
	memcpy(num, arg, len - 2);
	num[len - 2] = '\0';
	if (!fc_parse_u64(num, &v) || !v || v > FAIRQ_CLASS_LIMIT_MAX)
		return false;
	*rps = v;
	return true;
}

static bool parse_u32(const char *arg, uint64_t min, uint64_t max, uint32_t *val)
{
	uint64_t v;

	if (!fc_parse_u64(arg, &v) || v < min || v > max)
		return false;
	*val = v;
	return true;
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

/*
 * NAME and its keywords (argv[0] on) into @s, or a usage error naming @what.  The rules of
 * the default class are the kernel's too; they are said here before anything is sent.
 */
static int parse_spec(const char *what, int argc, char **argv, struct class_spec *s)
{
	int i, rc;

	memset(s, 0, sizeof(*s));
	if (argc < 1)
		return fc_usage_error("%s: which class? (a NAME)", what);
	if (!name_ok(argv[0]))
		return bad_name(what, argv[0]);
	strcpy(s->name, argv[0]);
	for (i = 1; i < argc; i += 2) {
		const char *kw = argv[i], *val;
		bool *given, ok;

		if (strcmp(kw, "match") && strcmp(kw, "rank") && strcmp(kw, "limit") &&
		    strcmp(kw, "burst"))
			return fc_usage_error("%s: unknown keyword '%s' (match, rank, limit or burst)",
					      what, kw);
		if (i + 1 == argc)
			return fc_usage_error("%s: %s needs a value", what, kw);
		val = argv[i + 1];
		if (!strcmp(kw, "match")) {
			rc = add_match(what, val, s);
			if (rc)
				return rc;
			continue;
		}
		if (!strcmp(kw, "rank")) {
			given = &s->has_rank;
			ok = parse_u32(val, 0, UINT32_MAX, &s->rank);
		} else if (!strcmp(kw, "limit")) {
			given = &s->has_limit;
			ok = parse_limit(val, &s->limit);
		} else {
			given = &s->has_burst;
			ok = parse_u32(val, 1, FAIRQ_CLASS_BURST_MAX, &s->burst);
		}
		if (*given)
			return fc_usage_error("%s: %s given twice", what, kw);
		*given = true;
		if (!ok && !strcmp(kw, "limit"))
			return fc_usage_error("%s: limit takes N/s (requests per second, 1 to %u) or none, not '%s'",
					      what, FAIRQ_CLASS_LIMIT_MAX, val);
		if (!ok && !strcmp(kw, "burst"))
			return fc_usage_error("%s: burst takes an integer from 1 to %u, not '%s'", what,
					      FAIRQ_CLASS_BURST_MAX, val);
		if (!ok)
			return fc_usage_error("%s: rank takes an integer from 0 to %u, not '%s'", what,
					      UINT32_MAX, val);
	}
	if (strcmp(s->name, DEFAULT_CLASS))
		return FC_EXIT_OK;
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
	bad = nla_put_string(msg, FAIRQ_A_CLASS_NAME, s->name) ||
	      (create && nla_put_flag(msg, FAIRQ_A_CLASS_CREATE)) ||
	      (s->has_rank && nla_put_u32(msg, FAIRQ_A_CLASS_RANK, s->rank)) ||
	      (s->has_limit && nla_put_u32(msg, FAIRQ_A_CLASS_LIMIT_RPS, s->limit)) ||
	      (s->has_burst && nla_put_u32(msg, FAIRQ_A_CLASS_BURST, s->burst));
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

/* The arguments of class add that make @c again: fairq.conf's CLASS value. */
const char *fc_class_line(const struct fc_class *c, char *buf, size_t len)
{
	char rank[24] = "", matches[FAIRQ_CLASS_MATCH_MAX * 88], rate[24];

	if (c->has_rank)
		snprintf(rank, sizeof(rank), " rank %u", c->rank);
	matches_text(c, " match ", matches, sizeof(matches));
	snprintf(buf, len, "%s%s%s%s limit %s burst %u", c->name, rank, c->nr_match ? " match " : "",
		 matches, rate_text(c->limit_rps, rate, sizeof(rate)), c->burst);
	return buf;
}

/*
 * @c's settings as JSON members, as class list and monitor give them: rank (none for the
 * default class), limit_rps (0: none), burst and the matches as class add takes them.
 */
void fc_class_settings_json(const struct fc_class *c)
{
	unsigned int i;
	char key[80];

	if (c->has_rank)
		out_exact(FC_JSON, "rank", NULL, c->rank);
	out_exact(FC_JSON, "limit_rps", NULL, c->limit_rps);
	out_exact(FC_JSON, "burst", NULL, c->burst);
	out_arr_start("matches");
	for (i = 0; i < c->nr_match; i++)
		out_str(FC_JSON, NULL, NULL, fc_key_format(&c->match[i], key, sizeof(key)));
	out_arr_end();
}

static void print_classes(const struct fc_classes *c)
{
	char matches[FAIRQ_CLASS_MATCH_MAX * 82], fmt[16], buf[24];
	int width = (int)strlen("(all others)");
	unsigned int i;

	for (i = 0; i < c->nr; i++) {
		int n = strlen(matches_text(&c->c[i], ",", matches, sizeof(matches)));

		width = n > width ? n : width;
	}
	snprintf(fmt, sizeof(fmt), " %%-%ds", width);
	out_doc_start();
	out_str(FC_JSON, "scheduler", NULL, c->sched);
	out_text("%-15s %6s %10s %6s %-*s %10s %11s %8s %10s\n", "NAME", "RANK", "LIMIT", "BURST",
		 width, "MATCHES", "DISPATCHES", "THREAD_TIME", "PACED", "PACED_TIME");
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
		out_str(FC_TEXT, NULL, " %10s", rate_text(cl->limit_rps, buf, sizeof(buf)));
		out_exact(FC_TEXT, NULL, " %6s", cl->burst);
		matches_text(cl, ",", matches, sizeof(matches));
		out_str(FC_TEXT, NULL, fmt, *matches ? matches :
			!strcmp(cl->name, DEFAULT_CLASS) ? "(all others)" : "-");
		out_num(FC_ANY, "dispatches", " %10s", cl->dispatches);
		out_ns(FC_ANY, "thread_ns", " %11s", cl->thread_ns);
		out_num(FC_ANY, "paced", " %8s", cl->paced);
		out_ns(FC_ANY, "paced_ns", " %10s", cl->paced_ns);
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

/* Whether @s, made whole (every attribute given), would change @c. */
static bool differs(const struct fc_class *c, const struct class_spec *s)
{
	unsigned int i, j;

	if ((s->has_rank && s->rank != c->rank) || s->limit != c->limit_rps ||
	    s->burst != c->burst || (s->nr_match && s->nr_match != c->nr_match))
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
		rc = parse_spec(what, n, words, s);
		if (!rc && find_spec(l, s->name))
			rc = fc_usage_error("%s: class %s given twice", what, s->name);
		else if (!rc && s->has_rank && rank_wanted(l, s->rank, s->name))
			rc = fc_usage_error("%s: rank %u given twice", what, s->rank);
		if (!rc)
			l->nr++;
	}
	free(line);
	return rc ?: rank_in_line_order(l);
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
 * to take them, then change (only what differs) or add each; the default class goes back to
 * no limit and burst 1 if @l does not name it.  What @l does not give is the default: no
 * limit, burst 1, no matches; every rank is given (rank_in_line_order()).
 */
static int sync_classes(struct fc_nl *nl, const struct class_specs *l)
{
	static const struct class_spec no_default = { .name = DEFAULT_CLASS };
	unsigned int i, added = 0, changed = 0, deleted = 0;
	struct fc_classes cur = { };
	bool *moved = NULL;
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
		if (!want.has_limit)
			want.limit = 0;
		if (!want.has_burst)
			want.burst = 1;
		want.has_limit = want.has_burst = true;
		if (differs(c, &want))
			err = class_set(nl, &want, false);
		else if (!moved[c - cur.c])
			continue;
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
		rc = parse_spec("class add", argc, argv, &s);
		if (!rc && !strcmp(s.name, DEFAULT_CLASS))
			return fc_usage_error("class add: the default class always exists: change it (class change default limit N/s)");
		return rc ? rc : class_do("class add", &s, true, false);
	case 1:
		rc = parse_spec("class change", argc, argv, &s);
		if (!rc && !s.has_rank && !s.has_limit && !s.has_burst && !s.nr_match)
			return fc_usage_error("class change: nothing to change (match, rank, limit or burst)");
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
