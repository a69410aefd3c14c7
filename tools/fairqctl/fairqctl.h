/* SPDX-License-Identifier: GPL-2.0-only */
/* fairqctl: what the commands share. */
#ifndef FAIRQCTL_H
#define FAIRQCTL_H

#include <stdbool.h>
#include <stdint.h>
#include <netlink/attr.h>
#include <linux/fairq.h>
#include "output.h"

/* Exit codes, documented in fairqctl.8. */
enum {
	FC_EXIT_OK = 0,
	FC_EXIT_FAIL = 1,	/* the kernel refused, or something else went wrong */
	FC_EXIT_USAGE = 2,	/* unknown command or option, malformed value */
	FC_EXIT_NOT_LOADED = 3,	/* the fairq module is not loaded */
	FC_EXIT_PERM = 4,	/* a change without CAP_NET_ADMIN */
	FC_EXIT_NOENT = 5,	/* no such scheduler, tunable, pool, key, class or netns */
	FC_EXIT_NOTSUP = 6,	/* the active scheduler cannot do that */
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct fc_opts {
	bool all_netns;
	const char *netns;	/* -n: the network namespace to join, or NULL */
};
extern struct fc_opts fc_opts;

/* main.c: messages.  Every failure is one line on stderr, prefixed "fairqctl: ". */
int fc_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fc_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
bool fc_parse_u64(const char *s, uint64_t *val);
struct option;
bool fc_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts,
	       const char *usage, int (*opt)(int c, const char *arg, void *ctx), void *ctx,
	       int *rc);

/* netns.c: -n. */
int fc_netns_enter(const char *name);

/* nl.c: one generic netlink session. */
struct fc_nl;
struct nlmsghdr;
/* A reply's (or event's) attributes by type; @nlh for attributes that repeat. */
typedef int (*fc_nl_parse_fn)(struct nlattr **tb, struct nlmsghdr *nlh, void *arg);
int fc_nl_open(struct fc_nl **nlp);
void fc_nl_close(struct fc_nl *nl);
struct nl_msg *fc_nl_msg(struct fc_nl *nl, uint8_t cmd, bool dump);
int fc_nl_transact(struct fc_nl *nl, struct nl_msg *msg, int maxattr, fc_nl_parse_fn parse,
		   void *arg);
int fc_nl_fail(struct fc_nl *nl, int err, const char *what);
int fc_nl_events_fd(struct fc_nl *nl);
int fc_nl_key_events(const struct fc_nl *nl);
int fc_nl_events_read(struct fc_nl *nl, fc_nl_parse_fn parse, void *arg);

/* The reports, filled from netlink replies. */
struct fc_tunable {
	char name[FAIRQ_TUNABLE_NAME_LEN + 1];
	char doc[128];
	uint64_t value, min, max, def;
	bool has_def;
};

struct fc_sched {
	char name[FAIRQ_SCHED_NAME_LEN + 1];
	char alias[FAIRQ_SCHED_NAME_LEN + 1];	/* an older name it still answers to, or "" */
	bool active, native, keyed, weighted, classed;
	unsigned int nr_tunables;
	struct fc_tunable tunables[16];
};

/* A counter by name: a scheduler's own (fq's keys), or one of fairq's without a line here. */
struct fc_counter {
	char name[32];
	uint64_t value;
};

/* Counters by name, as many as fit: twice what modules send, so that newer modules fit too. */
#define FC_MAX_COUNTERS 32
struct fc_counter_list {
	unsigned int nr;
	struct fc_counter c[FC_MAX_COUNTERS];
};

/*
 * The module's own numbers, in the order fairqctl shows them; each has a line in fc_module_nums
 * (report.c).  A counter the module sends that has none is shown by its name (fc_module.more).
 */
enum fc_module_num {
	FC_M_RESCUES, FC_M_FAILSAFE_SWITCHES, FC_M_SERV_ALLOC_FAILURES, FC_M_SERV_TABLE_FULL,
	FC_M_V4CLIENT_BOUND, FC_M_V4CLIENT_SKIPPED, FC_M_V4CLIENT_REFUSED, FC_M_V4CLIENT_MISSED,
	FC_MODULE_NUMS
};

struct fc_module_num_def {
	int attr;		/* FAIRQ_A_SCHED_*: its fixed attribute, all a module may send */
	bool gauge;		/* a gauge (u32, metric without _total), else a count up */
	const char *name;	/* JSON member, the module's name; metric fairq_NAME(_total) */
	const char *text;	/* its part of the text line ("%s": the number) */
	const char *help;	/* metric help */
};

extern const struct fc_module_num_def fc_module_nums[FC_MODULE_NUMS];

/* The module's own counters, sent with the schedulers (not by modules before 0.2.0). */
struct fc_module {
	bool known;
	uint64_t num[FC_MODULE_NUMS];
	struct fc_counter_list more;
};
void fc_print_module(const struct fc_module *m);

struct fc_scheds {
	char active[FAIRQ_SCHED_NAME_LEN + 1];
	unsigned int nr;
	struct fc_sched sched[16];
	struct fc_module module;
};

/*
 * fairq's own numbers of a pool, in the order fairqctl shows them.  Each has one line in
 * fc_pool_nums (report.c) saying where it comes from and how it is shown.  A counter the module
 * sends that has none is shown by its name (fc_pool.more): a line here only names its column.
 */
enum fc_pool_num {
	FC_THREADS, FC_THREADS_IDLE, FC_QUEUED, FC_ENQUEUED, FC_FED_PULL, FC_FED_PUSH,
	FC_FED_BYPASS, FC_WAKEUPS, FC_CLOSE_FLUSHES, FC_MIGRATED, FC_RESCUES, FC_POOL_NUMS
};

struct fc_pool_num_def {
	int attr;		/* FAIRQ_A_POOL_*: a u32 gauge, or a u64 counter's fixed attribute */
	bool gauge;		/* a level (metric without _total), else a count up */
	bool exact;		/* never abbreviated in text */
	bool summary;		/* also a column of the short table (pools, show) */
	int width;		/* of its text column */
	const char *name;	/* JSON member, the module's name; metric fairq_pool_NAME(_total) */
	const char *column;	/* text column header */
	const char *help;	/* metric help */
};

extern const struct fc_pool_num_def fc_pool_nums[FC_POOL_NUMS];

struct fc_pool {
	uint32_t serv, pool;
	char sched[FAIRQ_SCHED_NAME_LEN + 1];
	uint64_t num[FC_POOL_NUMS];
	struct fc_counter_list more;	/* fairq's counters without a line in fc_pool_nums */
	struct fc_counter_list sched_counters;
};

struct fc_pools {
	unsigned int nr, cap;
	struct fc_pool *p;
};

struct fc_key_id {
	uint8_t type, family, prefix_len;
	uint16_t port;		/* network order */
	uint8_t addr[FAIRQ_KEY_ADDR_LEN];
};

struct fc_key {
	uint32_t serv, pool;
	struct fc_key_id id;
	uint32_t weight, queued, in_flight;
	uint64_t dispatches, thread_ns;
	double share, entitled;	/* of the pool's thread time: used, and owed by weight */
	char class[FAIRQ_CLASS_NAME_LEN + 1];	/* "" from a scheduler without classes */
	uint64_t paced, paced_ns;	/* waits for its own limit (a class limited per key) */
};

struct fc_keys {
	unsigned int nr, cap;
	struct fc_key *k;
};

/* A weight set for a key (weight-get). */
struct fc_weight {
	struct fc_key_id id;
	uint32_t weight;
};

struct fc_weights {
	char sched[FAIRQ_SCHED_NAME_LEN + 1];
	unsigned int nr, cap;
	struct fc_weight *w;
};

/* A QoS class of a classed scheduler (class-get): the default one has no rank, no matches. */
struct fc_class {
	char name[FAIRQ_CLASS_NAME_LEN + 1];
	bool has_rank;
	uint32_t rank, limit_rps, burst;	/* limit_rps 0: none */
	uint32_t weight, reserve_pct, limit_pct;	/* 0: none */
	bool per_key;	/* the weight is each key's, not the class's as a whole */
	unsigned int nr_match;
	struct fc_key_id match[FAIRQ_CLASS_MATCH_MAX];
	uint32_t queued, in_flight;	/* now, summed key by key */
	uint64_t dispatches, thread_ns, paced, paced_ns, reserved;
	uint64_t below_ns;	/* time it had work while behind its reservation */
};

struct fc_classes {
	char sched[FAIRQ_SCHED_NAME_LEN + 1];	/* "" when no reply named it */
	unsigned int nr, cap;
	struct fc_class *c;
};

/* One row of /proc/fs/nfsd/pool_stats: the kernel's own per-pool counters. */
struct fc_kpool {
	unsigned int pool;
	unsigned int nr;
	char names[8][32];
	uint64_t val[8];
};

/* As many as the file has: a percpu pool mode has one pool per CPU. */
struct fc_kpools {
	unsigned int nr, cap;
	struct fc_kpool *p;
};

void fc_attr_str(char *dst, size_t len, struct nlattr *a, const char *missing);
uint64_t fc_attr_u64(struct nlattr *a);
uint32_t fc_attr_u32(struct nlattr *a);
int fc_get_scheds(struct fc_nl *nl, struct fc_scheds *s);
int fc_get_pools(struct fc_nl *nl, struct fc_pools *p);
int fc_get_keys(struct fc_nl *nl, int pool, const struct fc_key_id *key, struct fc_keys *k);
int fc_get_weights(struct fc_nl *nl, const char *sched, struct fc_weights *w);
int fc_get_classes(struct fc_nl *nl, const char *name, struct fc_classes *c);
void fc_class_settings(struct nlattr **tb, struct nlmsghdr *nlh, struct fc_class *c);
int fc_read_kpools(struct fc_kpools *kp);
void fc_free_kpools(struct fc_kpools *kp);
void fc_dropped(const char *what, unsigned int kept);
void fc_print_kpools(const struct fc_kpools *kp, const struct fc_kpools *prev, double secs);

/* key.c */
int fc_key_parse(const char *s, struct fc_key_id *id);
const char *fc_key_format(const struct fc_key_id *id, char *buf, size_t len);
const char *fc_key_type_name(uint8_t type);
bool fc_key_same(const struct fc_key_id *a, const struct fc_key_id *b);
int fc_key_put(struct nl_msg *msg, int attr, const struct fc_key_id *id);
int fc_key_get(struct nlattr *nest, struct fc_key_id *id);

/*
 * cmd_class.c: a class as fairq.conf and showconf write it (the arguments of class add), and
 * its settings as JSON members (class list, monitor).
 */
const char *fc_class_line(const struct fc_class *c, char *buf, size_t len);
void fc_class_settings_json(const struct fc_class *c);

/* The commands. */
int cmd_show(int argc, char **argv);
int cmd_pools(int argc, char **argv);
int cmd_shares(int argc, char **argv);
int cmd_sched(int argc, char **argv);
int cmd_set(int argc, char **argv);
int cmd_weight(int argc, char **argv);
int cmd_weights(int argc, char **argv);
int cmd_class(int argc, char **argv);
int cmd_showconf(int argc, char **argv);
int cmd_watch(int argc, char **argv);
int cmd_monitor(int argc, char **argv);
int cmd_metrics(int argc, char **argv);

#endif /* FAIRQCTL_H */
