/* SPDX-License-Identifier: GPL-2.0-only */
/* fairqctl: what the commands share. */
#ifndef FAIRQCTL_H
#define FAIRQCTL_H

#include <stdbool.h>
#include <stdint.h>
#include <netlink/attr.h>
#include <linux/fairq.h>

/* Exit codes, documented in fairqctl.8. */
enum {
	FQ_EXIT_OK = 0,
	FQ_EXIT_FAIL = 1,	/* the kernel refused, or something else went wrong */
	FQ_EXIT_USAGE = 2,	/* unknown command or option, malformed value */
	FQ_EXIT_NOT_LOADED = 3,	/* the fairq module is not loaded */
	FQ_EXIT_PERM = 4,	/* a change without CAP_NET_ADMIN */
	FQ_EXIT_NOENT = 5,	/* no such scheduler, tunable, pool, key or netns */
	FQ_EXIT_NOTSUP = 6,	/* the active scheduler cannot do that */
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The version of the -j documents; bump the minor for additions, the major for changes. */
#define FQ_JSON_MAJOR	1
#define FQ_JSON_MINOR	5

struct fq_opts {
	bool json;
	bool pretty;
	bool exact;
	bool all_netns;
	const char *netns;	/* -n: the network namespace to join, or NULL */
};
extern struct fq_opts fq_opts;
extern const char *fq_cmd;	/* the running command, for messages and JSON */

/* main.c: messages.  Every failure is one line on stderr, prefixed "fairqctl: ". */
int fq_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fq_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
bool fq_parse_u64(const char *s, uint64_t *val);
struct option;
bool fq_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts,
	       const char *usage, int (*opt)(int c, const char *arg, void *ctx), void *ctx,
	       int *rc);

/* netns.c: -n. */
int fq_netns_enter(const char *name);

/* nl.c: one generic netlink session. */
struct fq_nl;
struct nlmsghdr;
/* A reply's (or event's) attributes by type; @nlh for attributes that repeat. */
typedef int (*fq_nl_parse_fn)(struct nlattr **tb, struct nlmsghdr *nlh, void *arg);
int fq_nl_open(struct fq_nl **nlp);
void fq_nl_close(struct fq_nl *nl);
struct nl_msg *fq_nl_msg(struct fq_nl *nl, uint8_t cmd, bool dump);
int fq_nl_transact(struct fq_nl *nl, struct nl_msg *msg, int maxattr, fq_nl_parse_fn parse,
		   void *arg);
int fq_nl_fail(struct fq_nl *nl, int err, const char *what);
int fq_nl_events_fd(struct fq_nl *nl);
int fq_nl_key_events(const struct fq_nl *nl);
int fq_nl_events_read(struct fq_nl *nl, fq_nl_parse_fn parse, void *arg);

/* output.c: one call per field, for text and JSON alike (iproute2's json_print). */
enum fq_out { FQ_ANY, FQ_TEXT, FQ_JSON };
void out_doc_start(void);
void out_doc_end(void);
void out_flush(void);
void out_obj_start(const char *key);
void out_obj_end(void);
void out_arr_start(const char *key);
void out_arr_end(void);
void out_str(enum fq_out w, const char *key, const char *fmt, const char *val);
void out_num(enum fq_out w, const char *key, const char *fmt, uint64_t val);
void out_exact(enum fq_out w, const char *key, const char *fmt, uint64_t val);
void out_ns(enum fq_out w, const char *key, const char *fmt, uint64_t ns);
void out_pct(enum fq_out w, const char *key, const char *fmt, double frac);
void out_rate(enum fq_out w, const char *key, const char *fmt, double per_sec);
void out_bool(enum fq_out w, const char *key, const char *fmt, bool val);
void out_text(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *fq_human(uint64_t v, char *buf, size_t len);

/* The reports, filled from netlink replies. */
struct fq_tunable {
	char name[FAIRQ_TUNABLE_NAME_LEN + 1];
	char doc[128];
	uint64_t value, min, max, def;
	bool has_def;
};

struct fq_sched {
	char name[FAIRQ_SCHED_NAME_LEN + 1];
	bool active, native, keyed, weighted;
	unsigned int nr_tunables;
	struct fq_tunable tunables[16];
};

/* The module's own counters, sent with the schedulers (not by modules before 0.2.0). */
struct fq_module {
	bool known;
	uint64_t rescues, failsafe_switches, serv_alloc_failures, serv_table_full;
	uint32_t v4client_bound;
	uint64_t v4client_skipped, v4client_refused, v4client_missed;
};

struct fq_scheds {
	char active[FAIRQ_SCHED_NAME_LEN + 1];
	unsigned int nr;
	struct fq_sched sched[16];
	struct fq_module module;
};
void fq_print_module(const struct fq_module *m);

/* One of the pool scheduler's own counters (fairq's keys, wq's workers). */
struct fq_counter {
	char name[32];
	uint64_t value;
};

/* Twice what the module sends at most (16 a scheduler), so that newer modules fit too. */
#define FQ_MAX_SCHED_COUNTERS 32

struct fq_pool {
	uint32_t serv, pool;
	char sched[FAIRQ_SCHED_NAME_LEN + 1];
	uint32_t threads, idle, waking, queued;
	uint64_t enqueued, fed_pull, fed_push, fed_bypass, close_flushes, rescues, migrated;
	uint64_t wakeups, overloads_avoided, wakers_expired, cap_waits;
	unsigned int nr_counters;
	struct fq_counter counters[FQ_MAX_SCHED_COUNTERS];
};

struct fq_pools {
	unsigned int nr, cap;
	struct fq_pool *p;
};

struct fq_key_id {
	uint8_t type, family, prefix_len;
	uint16_t port;		/* network order */
	uint8_t addr[FAIRQ_KEY_ADDR_LEN];
};

struct fq_key {
	uint32_t serv, pool;
	struct fq_key_id id;
	uint32_t weight, queued, in_flight;
	uint64_t dispatches, thread_ns;
	double share, entitled;	/* of the pool's thread time: used, and owed by weight */
};

struct fq_keys {
	unsigned int nr, cap;
	struct fq_key *k;
};

/* A weight set for a key (weight-get). */
struct fq_weight {
	struct fq_key_id id;
	uint32_t weight;
};

struct fq_weights {
	char sched[FAIRQ_SCHED_NAME_LEN + 1];
	unsigned int nr, cap;
	struct fq_weight *w;
};

/* One row of /proc/fs/nfsd/pool_stats: the kernel's own per-pool counters. */
struct fq_kpool {
	unsigned int pool;
	unsigned int nr;
	char names[8][32];
	uint64_t val[8];
};

/* As many as the file has: a percpu pool mode has one pool per CPU. */
struct fq_kpools {
	unsigned int nr, cap;
	struct fq_kpool *p;
};

void fq_attr_str(char *dst, size_t len, struct nlattr *a, const char *missing);
uint64_t fq_attr_u64(struct nlattr *a);
uint32_t fq_attr_u32(struct nlattr *a);
int fq_get_scheds(struct fq_nl *nl, struct fq_scheds *s);
int fq_get_pools(struct fq_nl *nl, struct fq_pools *p);
int fq_get_keys(struct fq_nl *nl, int pool, const struct fq_key_id *key, struct fq_keys *k);
int fq_get_weights(struct fq_nl *nl, const char *sched, struct fq_weights *w);
int fq_read_kpools(struct fq_kpools *kp);
void fq_free_kpools(struct fq_kpools *kp);
void fq_dropped(const char *what, unsigned int kept);
void fq_print_kpools(const struct fq_kpools *kp, const struct fq_kpools *prev, double secs);

/* key.c */
int fq_key_parse(const char *s, struct fq_key_id *id);
const char *fq_key_format(const struct fq_key_id *id, char *buf, size_t len);
const char *fq_key_type_name(uint8_t type);
bool fq_key_same(const struct fq_key_id *a, const struct fq_key_id *b);
int fq_key_put(struct nl_msg *msg, int attr, const struct fq_key_id *id);
int fq_key_get(struct nlattr *nest, struct fq_key_id *id);

/* The commands. */
int cmd_show(int argc, char **argv);
int cmd_pools(int argc, char **argv);
int cmd_shares(int argc, char **argv);
int cmd_sched(int argc, char **argv);
int cmd_set(int argc, char **argv);
int cmd_weight(int argc, char **argv);
int cmd_weights(int argc, char **argv);
int cmd_showconf(int argc, char **argv);
int cmd_watch(int argc, char **argv);
int cmd_monitor(int argc, char **argv);
int cmd_metrics(int argc, char **argv);

#endif /* FAIRQCTL_H */
