// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host-side tests of the QoS classes' words and output, no kernel needed: class add's
 * keywords as parse_spec() reads them, a class as the kernel reports it (fc_class_settings()),
 * as class add's arguments (fc_class_line(): showconf, monitor) and back through class sync's
 * reading, and class list's text and JSON.  cmd_class.c is included for its static functions.
 * Prints "N passed, N failed".
 *
 * usage: tests/test_class [JSONFILE]   JSONFILE: the JSON documents made, one a line, for
 *                                      tests/run.sh to check against the schema
 */
#include <arpa/inet.h>
#include <netlink/genl/genl.h>
#include "../cmd_class.c"
#include "../../../tests/unit/check.h"
#include "capture.h"

static FILE *json_docs;

/* What @print writes on stdout for @arg, in @buf; in JSON, the document's time as T. */
static const char *printed(void (*print)(const void *arg), const void *arg, char *buf,
			   size_t len)
{
	char *t;
	size_t n;

	captured(print, arg, buf, len);
	if (fc_out_opts.json && json_docs)
		fputs(buf, json_docs);
	t = strstr(buf, "\"time\":");
	if (t) {
		t += strlen("\"time\":");
		n = strspn(t, "0123456789");
		memmove(t + 1, t + n, strlen(t + n) + 1);
		*t = 'T';
	}
	return buf;
}

/* @line's words (changed in place: blanks to NULs) as class sync reads a line. */
static int words_of(char *line, char **words, int max)
{
	char *save;
	int n = 0;

	for (words[0] = strtok_r(line, " ", &save); words[n] && n < max - 1;)
		words[++n] = strtok_r(NULL, " ", &save);
	return n;
}

/* parse_spec() of @args (NAME first), as class add (@whole) or class change reads them. */
static int parse(const char *args, struct class_spec *s, bool whole)
{
	char line[512], *words[64];

	snprintf(line, sizeof(line), "%s", args);
	return parse_spec("test", words_of(line, words, 64), words, s, whole);
}

static void test_keywords(void)
{
	struct class_spec s;

	CHECK(!parse("web weight 3 reserve 20% limit 200/s limit 25% burst 5", &s, true) &&
	      s.has_weight && s.weight == 3 && s.has_reserve && s.reserve == 20 &&
	      s.has_limit && s.limit == 200 && s.has_limit_pct && s.limit_pct == 25 &&
	      s.burst == 5 && !s.has_per_key,
	      "every number keyword is read");
	CHECK(!parse("web limit 25% limit 200/s", &s, true) && s.limit == 200 && s.limit_pct == 25,
	      "the two limits in either order");
	CHECK(!parse("web limit 100%", &s, true) && s.has_limit_pct && s.limit_pct == 100 &&
	      !s.has_limit, "limit P%% alone leaves limit N/s as it is");
	CHECK(!parse("web limit none", &s, false) && s.has_limit && !s.limit && s.has_limit_pct &&
	      !s.limit_pct, "limit none takes both limits away");
	CHECK(!parse("web limit none limit 200/s", &s, false) && s.has_limit && s.limit == 200 &&
	      s.has_limit_pct && !s.limit_pct,
	      "limit none beside N/s takes only the percent limit away");
	CHECK(!parse("web limit 30% limit none", &s, false) && s.has_limit && !s.limit &&
	      s.has_limit_pct && s.limit_pct == 30,
	      "limit none beside P%% takes only the rate away");
	CHECK(parse("web limit none limit 5/s limit 10%", &s, false) == FC_EXIT_USAGE,
	      "limit none beside both kinds is refused");
	CHECK(!parse("web weight none reserve none", &s, false) && s.has_weight && !s.weight &&
	      s.has_reserve && !s.reserve, "weight none and reserve none: 0, sent");
	CHECK(!parse("web reserve 0% weight 10000", &s, false) && s.has_reserve && !s.reserve &&
	      s.weight == 10000, "reserve 0%%, weight 10000");
	CHECK(!parse("web weight 3 per-key", &s, true) && s.has_per_key && s.per_key,
	      "per-key sets per-key");
	CHECK(!parse("web shared", &s, false) && s.has_per_key && !s.per_key, "shared clears it");
	CHECK(!parse("web per-key", &s, false) && s.per_key,
	      "class change per-key alone: the weight may be there already");
	CHECK(!parse("web match 10.0.0.0/8 per-key weight 2 rank 4", &s, true) && s.per_key &&
	      s.weight == 2 && s.rank == 4 && s.nr_match == 1,
	      "a flag between keyword pairs");
	CHECK(!parse("web reserve 20% limit 20%", &s, true), "a reservation up to its own limit");
	/* each refusal says why on stderr: run.sh checks the words, these only that it refuses */
	CHECK(parse("web per-key", &s, true) == FC_EXIT_USAGE,
	      "class add per-key without a weight or a limit");
	CHECK(!parse("web limit 200/s per-key", &s, true) && s.per_key && s.limit == 200 && !s.weight,
	      "a limit of requests per key");
	CHECK(!parse("web limit 200/s limit 10% per-key", &s, true) && s.limit_pct == 10,
	      "both limits per key");
	CHECK(parse("web reserve 10% per-key", &s, true) == FC_EXIT_USAGE,
	      "per-key with a reservation");
	CHECK(parse("web weight 5 reserve 21% limit 20%", &s, true) == FC_EXIT_USAGE,
	      "a reservation above its own limit");
}

/* A class as class-get reports it, through fc_class_settings(). */
static void test_settings_from_netlink(void)
{
	struct nlattr *tb[FAIRQ_A_CLASS_MAX + 1];
	struct nl_msg *msg = nlmsg_alloc();
	struct fc_class c;

	CHECK(msg && genlmsg_put(msg, 0, 0, 1, 0, 0, FAIRQ_CMD_CLASS_GET, 1) &&
	      !nla_put_string(msg, FAIRQ_A_CLASS_NAME, "web") &&
	      !nla_put_u32(msg, FAIRQ_A_CLASS_RANK, 2) &&
	      !nla_put_u32(msg, FAIRQ_A_CLASS_WEIGHT, 7) &&
	      !nla_put_u32(msg, FAIRQ_A_CLASS_RESERVE, 0) &&
	      !nla_put_u32(msg, FAIRQ_A_CLASS_LIMIT_PCT, 40) &&
	      !nla_put_u8(msg, FAIRQ_A_CLASS_PER_KEY, 1) &&
	      !genlmsg_parse(nlmsg_hdr(msg), 0, tb, FAIRQ_A_CLASS_MAX, NULL),
	      "a class-get reply is made");
	fc_class_settings(tb, nlmsg_hdr(msg), &c);
	CHECK(!strcmp(c.name, "web") && c.rank == 2 && c.weight == 7 && !c.reserve_pct &&
	      c.limit_pct == 40 && c.per_key,
	      "weight, reserve, limit-pct and per-key are read (%u %u %u %d)", c.weight,
	      c.reserve_pct, c.limit_pct, c.per_key);
	nlmsg_free(msg);

	/* a module from before class weights sends none of them */
	msg = nlmsg_alloc();
	CHECK(msg && genlmsg_put(msg, 0, 0, 1, 0, 0, FAIRQ_CMD_CLASS_GET, 1) &&
	      !nla_put_string(msg, FAIRQ_A_CLASS_NAME, "old") &&
	      !genlmsg_parse(nlmsg_hdr(msg), 0, tb, FAIRQ_A_CLASS_MAX, NULL),
	      "an old class-get reply is made");
	fc_class_settings(tb, nlmsg_hdr(msg), &c);
	CHECK(!c.weight && !c.reserve_pct && !c.limit_pct && !c.per_key,
	      "without the attributes: no weight, reservation or limit, shared");
	nlmsg_free(msg);
}

static struct fc_class class_of(const char *name, uint32_t rank, const char *match)
{
	struct fc_class c = { .has_rank = true, .rank = rank, .burst = 1 };

	snprintf(c.name, sizeof(c.name), "%s", name);
	if (match && !fc_key_parse(match, &c.match[0]))
		c.nr_match = 1;
	return c;
}

/* Classes with each setting, as class list, showconf and monitor are to show them. */
static struct fc_class classes[8];
static struct fc_classes list = { .sched = "fq", .c = classes };

static void make_classes(void)
{
	struct fc_class *c = classes;

	*c = class_of("render", 1, "10.2.0.0/16");
	c->limit_rps = 2000;
	c->weight = 3;
	c->queued = 12;
	c->in_flight = 4;
	c->dispatches = 1234567;
	c->thread_ns = 98765432;
	c->paced = 42;
	c->paced_ns = 5000000;
	*++c = class_of("build", 2, "10.3.0.0/16");
	c->weight = 3;
	c->per_key = true;
	*++c = class_of("db", 3, "10.4.0.7");
	c->reserve_pct = 30;
	c->limit_pct = 50;
	c->reserved = 812;
	c->below_ns = 120000000;
	*++c = class_of("batch", 4, "10.5.0.0/24");
	c->limit_rps = 200;
	c->limit_pct = 25;
	c->burst = 20;
	*++c = class_of("default", 0, NULL);
	c->has_rank = false;
	c->weight = 1;
	list.nr = c - classes + 1;
}

static const char *const lines[] = {
	"render rank 1 match 10.2.0.0/16 limit 2000/s burst 1 weight 3",
	"build rank 2 match 10.3.0.0/16 limit none burst 1 weight 3 per-key",
	"db rank 3 match 10.4.0.7 limit 50% burst 1 reserve 30%",
	"batch rank 4 match 10.5.0.0/24 limit 200/s limit 25% burst 20",
	"default limit none burst 1 weight 1",
};

/* showconf's CLASS lines and monitor's text, and class sync reading them back the same. */
static void test_class_line(void)
{
	char line[1024], *words[64];
	struct class_spec s;
	unsigned int i;

	for (i = 0; i < list.nr; i++) {
		fc_class_line(&classes[i], line, sizeof(line));
		CHECK(!strcmp(line, lines[i]), "class %s is '%s' (got '%s')", classes[i].name,
		      lines[i], line);
		CHECK(!parse_spec("test", words_of(line, words, 64), words, &s, true),
		      "class sync reads '%s'", lines[i]);
		spec_defaults(&s);
		CHECK(!differs(&classes[i], &s) && s.weight == classes[i].weight &&
		      s.reserve == classes[i].reserve_pct && s.limit_pct == classes[i].limit_pct &&
		      s.per_key == classes[i].per_key,
		      "class sync makes class %s again from its line", classes[i].name);
	}
}

/* What class sync does when the file changes a class, and when it no longer gives a setting. */
static void test_sync_changes(void)
{
	struct fc_class c = class_of("web", 1, NULL);
	struct class_spec s;

	c.weight = 3;
	c.reserve_pct = 10;
	CHECK(!parse("web rank 1 weight 4 reserve 10%", &s, true), "a line of sync");
	spec_defaults(&s);
	CHECK(differs(&c, &s), "a weight changed in the file changes the class");
	send_new_settings_changed(&s, &c);
	CHECK(s.has_weight && s.weight == 4 && !s.has_reserve && !s.has_limit_pct &&
	      !s.has_per_key && s.has_limit && s.has_burst,
	      "only the new settings that change are sent, limit and burst always");
	CHECK(!parse("web rank 1 reserve 10%", &s, true), "a line without the weight");
	spec_defaults(&s);
	CHECK(differs(&c, &s), "a weight the file no longer gives is taken away");
	send_new_settings_changed(&s, &c);
	CHECK(s.has_weight && !s.weight, "as weight none");
	c.weight = 0;
	c.reserve_pct = 0;
	CHECK(!parse("web rank 1", &s, true), "a line with none of the new settings");
	spec_defaults(&s);
	CHECK(!differs(&c, &s), "nothing to change");
	send_new_settings_changed(&s, &c);
	CHECK(!s.has_weight && !s.has_reserve && !s.has_limit_pct && !s.has_per_key,
	      "none of the new settings sent: a module before them takes the change");
	c.per_key = true;
	c.weight = 2;
	CHECK(!parse("web rank 1 weight 2", &s, true), "a line without per-key");
	spec_defaults(&s);
	CHECK(differs(&c, &s), "a per-key class the file gives shared changes");
}

static void print_list(const void *arg)
{
	print_classes(arg);
}

static void test_list(void)
{
	static const char text[] =
		"NAME              RANK  WEIGHT RESERVE      LIMIT  BURST MATCHES      QUEUED INFLIGHT DISPATCHES THREAD_TIME    PACED PACED_TIME RESERVED      BELOW\n"
		"render               1       3       -     2000/s      1 10.2.0.0/16      12        4      1.23M      98.8ms       42      5.0ms        0        0ns\n"
		"build                2   3/key       -       none      1 10.3.0.0/16       0        0          0         0ns        0        0ns        0        0ns\n"
		"db                   3       -     30%        50%      1 10.4.0.7          0        0          0         0ns        0        0ns      812    120.0ms\n"
		"batch                4       -       -  200/s,25%     20 10.5.0.0/24       0        0          0         0ns        0        0ns        0        0ns\n"
		"default              -       1       -       none      1 (all others)      0        0          0         0ns        0        0ns        0        0ns\n";
	static const char json[] =
		"{\"output_version\":{\"command\":\"class\",\"vers_major\":2,\"vers_minor\":1},\"time\":T,"
		"\"scheduler\":\"fq\",\"classes\":["
		"{\"name\":\"render\",\"rank\":1,\"limit_rps\":2000,\"burst\":1,\"weight\":3,\"reserve_pct\":0,"
		"\"limit_pct\":0,\"per_key\":false,\"matches\":[\"10.2.0.0/16\"],\"queued\":12,\"in_flight\":4,\"dispatches\":1234567,"
		"\"thread_ns\":98765432,\"paced\":42,\"paced_ns\":5000000,\"reserved\":0,\"below_ns\":0},"
		"{\"name\":\"build\",\"rank\":2,\"limit_rps\":0,\"burst\":1,\"weight\":3,\"reserve_pct\":0,"
		"\"limit_pct\":0,\"per_key\":true,\"matches\":[\"10.3.0.0/16\"],\"queued\":0,\"in_flight\":0,\"dispatches\":0,"
		"\"thread_ns\":0,\"paced\":0,\"paced_ns\":0,\"reserved\":0,\"below_ns\":0},"
		"{\"name\":\"db\",\"rank\":3,\"limit_rps\":0,\"burst\":1,\"weight\":0,\"reserve_pct\":30,"
		"\"limit_pct\":50,\"per_key\":false,\"matches\":[\"10.4.0.7\"],\"queued\":0,\"in_flight\":0,\"dispatches\":0,"
		"\"thread_ns\":0,\"paced\":0,\"paced_ns\":0,\"reserved\":812,\"below_ns\":120000000},"
		"{\"name\":\"batch\",\"rank\":4,\"limit_rps\":200,\"burst\":20,\"weight\":0,\"reserve_pct\":0,"
		"\"limit_pct\":25,\"per_key\":false,\"matches\":[\"10.5.0.0/24\"],\"queued\":0,\"in_flight\":0,\"dispatches\":0,"
		"\"thread_ns\":0,\"paced\":0,\"paced_ns\":0,\"reserved\":0,\"below_ns\":0},"
		"{\"name\":\"default\",\"limit_rps\":0,\"burst\":1,\"weight\":1,\"reserve_pct\":0,"
		"\"limit_pct\":0,\"per_key\":false,\"matches\":[],\"queued\":0,\"in_flight\":0,\"dispatches\":0,\"thread_ns\":0,"
		"\"paced\":0,\"paced_ns\":0,\"reserved\":0,\"below_ns\":0}]}\n";
	char buf[8192];

	fc_cmd = "class";
	printed(print_list, &list, buf, sizeof(buf));
	CHECK(!strcmp(buf, text), "class list's text is\n%s(got)\n%s", text, buf);
	fc_out_opts.json = true;
	printed(print_list, &list, buf, sizeof(buf));
	fc_out_opts.json = false;
	CHECK(!strcmp(buf, json), "class list -j is\n%s(got)\n%s", json, buf);
}

/* The weight and limit columns widen to their widest values; the others stay in line. */
static void test_list_widest(void)
{
	static const char text[] =
		"NAME              RANK    WEIGHT RESERVE           LIMIT  BURST MATCHES      QUEUED INFLIGHT DISPATCHES THREAD_TIME    PACED PACED_TIME RESERVED      BELOW\n"
		"lab                  1 10000/key       -  10000000/s/key      1 10.3.0.0/16       0        0          0         0ns        0        0ns        0        0ns\n"
		"flood                2         -       - 10000000/s,100%      1 10.4.0.0/16       0        0          0         0ns        0        0ns        0        0ns\n"
		"default              -         -       -            none      1 (all others)      0        0          0         0ns        0        0ns        0        0ns\n";
	static struct fc_class wide[3];
	static struct fc_classes widest = { .sched = "fq", .c = wide, .nr = 3 };
	char buf[8192];

	wide[0] = class_of("lab", 1, "10.3.0.0/16");
	wide[0].weight = 10000;
	wide[0].per_key = true;
	wide[0].limit_rps = 10000000;
	wide[1] = class_of("flood", 2, "10.4.0.0/16");
	wide[1].limit_rps = 10000000;
	wide[1].limit_pct = 100;
	wide[2] = class_of("default", 0, NULL);
	wide[2].has_rank = false;
	fc_cmd = "class";
	printed(print_list, &widest, buf, sizeof(buf));
	CHECK(!strcmp(buf, text), "class list's widest values are in line:\n%s(got)\n%s", text, buf);
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		json_docs = fopen(argv[1], "w");
		if (!json_docs) {
			perror(argv[1]);
			return 2;
		}
	}
	test_keywords();
	test_settings_from_netlink();
	make_classes();
	test_class_line();
	test_sync_changes();
	test_list();
	test_list_widest();
	if (json_docs)
		fclose(json_docs);
	return check_summary();
}
