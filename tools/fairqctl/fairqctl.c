// SPDX-License-Identifier: GPL-2.0-only
/*
 * fairqctl: show and steer fairq, the nfsd dispatcher, over its generic netlink family.
 *
 * Global options first (getopt stops at the command), then a command from the table, each with
 * its own options.  No command means "show".
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fairqctl.h"

#ifndef FAIRQCTL_VERSION
#define FAIRQCTL_VERSION "unknown"
#endif

struct fc_opts fc_opts;

static const char usage_text[] =
	"usage: fairqctl [OPTIONS] [COMMAND [ARGS]]\n"
	"\n"
	"commands:\n"
	"  show                       the active scheduler and a summary of every pool (default)\n"
	"  pools                      every pool's threads, queue and counters\n"
	"  shares [--pool N] [--top N] [--key KEY] [--interval SEC [--sort time|requests]]\n"
	"                             per-key accounting of a keyed scheduler; with --interval,\n"
	"                             requests and threads per second, pools summed\n"
	"  sched                      the schedulers offered, with their tunables\n"
	"  sched set NAME             switch every nfsd pool to scheduler NAME\n"
	"  set PARAM VALUE|default    set a tunable: SCHED.NAME, or NAME of the active scheduler\n"
	"  weight [--check] KEY WEIGHT  weigh the clients KEY stands for (0: the default)\n"
	"  weights [SCHED]            the weights set (needs CAP_NET_ADMIN)\n"
	"  weights prune [KEY...]     remove every weight but those of KEY...\n"
	"  class [list [--names] [NAME]]  the QoS classes of a classed scheduler, with counters\n"
	"  class add|change NAME [match ADDR|PREFIX|v4client:ID]... [rank N] [limit N/s|none]\n"
	"                             [limit P%] [burst N] [weight W|none] [reserve P%|none]\n"
	"                             [per-key|shared]   make a class, or change one\n"
	"  class del NAME             delete a class (its clients go to the next that matches)\n"
	"  class sync [--check]       make the classes those of standard input (fairq-apply's)\n"
	"  showconf                   the running state as fairq.conf lines (fairq-apply's)\n"
	"  watch [-i SEC] [-n COUNT]  per-pool rates, redrawn every SEC until Ctrl-C\n"
	"  monitor [-n COUNT] [-t SEC]  print changes as they happen: switches, tunables,\n"
	"                             weights and classes (CAP_NET_ADMIN), rescues\n"
	"  metrics [--top N] [--textfile PATH]\n"
	"                             Prometheus text format: every pool, the N busiest keys\n"
	"  help, version\n"
	"\n"
	"options (before or after the command; commands may be shortened to a unique prefix):\n"
	"  -j, --json       JSON output (one document per line)\n"
	"  -p, --pretty     indented JSON (implies -j)\n"
	"  -e, --exact      exact numbers instead of 12.3k\n"
	"  -a, --all-netns  the nfsd of every network namespace (needs CAP_NET_ADMIN)\n"
	"  -n, --netns NETNS  the nfsd of network namespace NETNS (a name of ip netns, or\n"
	"                   a path); after the command, --netns only\n"
	"  -h, --help       this text\n"
	"  -V, --version    fairqctl's version\n"
	"\n"
	"Exit codes: 0 ok, 1 refused or failed, 2 usage, 3 fairq not loaded, 4 no privilege,\n"
	"5 no such scheduler/tunable/pool/key/class/netns, 6 not supported by the active scheduler.\n";

void fc_err(const char *fmt, ...)
{
	va_list ap;

	out_flush();
	fflush(stdout);
	fputs("fairqctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* A usage error: one line, a pointer to the help, exit code 2. */
int fc_usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("fairqctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	/* messages that point at the man page already say where to look */
	fputs(strstr(fmt, "(see ") ? "\n" : " (see fairqctl help)\n", stderr);
	return FC_EXIT_USAGE;
}

/*
 * A table of fixed size was full: the kernel sent more than this fairqctl keeps.  Said once
 * per table, on stderr, rather than shown short without a word.
 */
void fc_dropped(const char *what, unsigned int kept)
{
	static const char *said[8];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(said) && said[i]; i++) {
		if (said[i] == what)
			return;
	}
	if (i < ARRAY_SIZE(said))
		said[i] = what;
	fc_err("warning: more %s than this fairqctl shows (%u): the rest are left out; a newer fairqctl shows them",
	       what, kept);
}

/*
 * getopt_long's complaint about @arg, the argument it was reading, as one message: @c is what
 * it returned ('?' or ':'), @cmd the command ("" before one).  A long option given a value it does not take
 * comes back as '?' with optopt set to the option's letter: it is named as written.
 */
/*
 * The options @arg (--PREFIX[=VALUE]) is a prefix of, as "--a, --b", if more than one: getopt
 * reports an ambiguous prefix as an unknown option.
 */
static bool ambiguous(const char *arg, const struct option *all, char *names, size_t size)
{
	size_t len = strcspn(arg + 2, "="), used = 0;
	unsigned int n = 0;

	names[0] = '\0';
	for (; all->name; all++) {
		if (strncmp(all->name, arg + 2, len))
			continue;
		used += snprintf(names + used, used < size ? size - used : 0, "%s--%s",
				 n++ ? ", " : "", all->name);
	}
	return n > 1;
}

static int option_error(int c, const char *arg, const char *cmd, const struct option *all)
{
	const char *sep = *cmd ? ": " : "";
	int len = strcspn(arg, "=");
	char name[64], names[256];

	/* a short option is named by its letter: it may be one of several after one '-' */
	if (strncmp(arg, "--", 2) && optopt)
		snprintf(name, sizeof(name), "-%c", optopt);
	else
		snprintf(name, sizeof(name), "%.*s", len, arg);
	if (c == ':')
		return fc_usage_error("%s%soption '%s' needs a value", cmd, sep, name);
	if (!strncmp(arg, "--", 2) && arg[len] == '=' && optopt)
		return fc_usage_error("%s%soption '%s' takes no value", cmd, sep, name);
	if (!strncmp(arg, "--", 2) && ambiguous(arg, all, names, sizeof(names)))
		return fc_usage_error("%s%soption '%s' is ambiguous (%s)", cmd, sep, name, names);
	return fc_usage_error("%s%sunknown option '%s'", cmd, sep, name);
}

/* A non-negative integer, decimal or 0x hex, that fits 64 bits. */
bool fc_parse_u64(const char *s, uint64_t *val)
{
	char *end;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return false;
	errno = 0;
	*val = strtoull(s, &end, 0);
	return !errno && !*end;
}

/* Options that apply to every command, before or after its name (as ip and tc take them). */
static const struct option global_longopts[] = {
	{ "json", no_argument, NULL, 'j' },
	{ "pretty", no_argument, NULL, 'p' },
	{ "exact", no_argument, NULL, 'e' },
	{ "all-netns", no_argument, NULL, 'a' },
	/* -n only before the command: after it, -n is watch's and monitor's count */
	{ "netns", required_argument, NULL, 'N' },
};

/* One of global_longopts (or its short form): applied; false for any other option. */
static bool global_opt(int c, const char *arg)
{
	switch (c) {
	case 'j':
		fc_out_opts.json = true;
		return true;
	case 'p':
		fc_out_opts.json = true;
		fc_out_opts.pretty = true;
		return true;
	case 'e':
		fc_out_opts.exact = true;
		return true;
	case 'a':
		fc_opts.all_netns = true;
		return true;
	case 'N':
		fc_opts.netns = arg;
		return true;
	}
	return false;
}

/*
 * The options every command takes, once all are read.  -n's namespace is joined when the
 * netlink socket is opened (fc_nl_open), after the command has checked its arguments.
 */
static int global_opts_check(void)
{
	if (fc_opts.netns && fc_opts.all_netns)
		return fc_usage_error("-n and -a together: one network namespace, or all");
	if (fc_opts.netns && !*fc_opts.netns)
		return fc_usage_error("-n: which network namespace? (an empty name)");
	return FC_EXIT_OK;
}

/*
 * A command's options, then its arguments from optind on; the global options are taken here
 * too.  -h/--help prints @usage.  Return: true to go on; false with *rc the exit code (help
 * printed, or a usage error).  @opt returns 0 or an exit code.
 */
bool fc_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts,
	       const char *usage, int (*opt)(int c, const char *arg, void *ctx), void *ctx,
	       int *rc)
{
	struct option all[24] = { { "help", no_argument, NULL, 'h' } };
	unsigned int n = 1, i;
	char spec[64];
	int c, idx;

	for (; longopts && longopts->name; longopts++) {
		if (strcmp(longopts->name, "help") && n < ARRAY_SIZE(all) - ARRAY_SIZE(global_longopts) - 1)
			all[n++] = *longopts;
	}
	for (i = 0; i < ARRAY_SIZE(global_longopts); i++)
		all[n++] = global_longopts[i];
	snprintf(spec, sizeof(spec), "+:hjpea%s", shortopts);
	opterr = 0;
	/* the argument getopt reads next: optind moves past a group of letters only at its end */
	for (idx = optind ? optind : 1; (c = getopt_long(argc, argv, spec, all, NULL)) != -1;
	     idx = optind) {
		if (global_opt(c, optarg))
			continue;
		if (c == 'h') {
			printf("usage: fairqctl %s\n", usage);
			*rc = FC_EXIT_OK;
			return false;
		}
		if (c == '?' || c == ':') {
			*rc = option_error(c, argv[idx], argv[0], all);
			return false;
		}
		*rc = opt(c, optarg, ctx);
		if (*rc)
			return false;
	}
	*rc = global_opts_check();
	return *rc == FC_EXIT_OK;
}

static int cmd_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fputs(usage_text, stdout);
	return FC_EXIT_OK;
}

static int cmd_version(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	printf("fairqctl %s (netlink family %s version %d)\n", FAIRQCTL_VERSION, FAIRQ_FAMILY_NAME,
	       FAIRQ_FAMILY_VERSION);
	return FC_EXIT_OK;
}

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} commands[] = {
	{ "show", cmd_show },
	{ "pools", cmd_pools },
	{ "shares", cmd_shares },
	{ "sched", cmd_sched },
	{ "set", cmd_set },
	{ "weight", cmd_weight },
	{ "weights", cmd_weights },
	{ "class", cmd_class },
	{ "showconf", cmd_showconf },
	{ "watch", cmd_watch },
	{ "monitor", cmd_monitor },
	{ "metrics", cmd_metrics },
	{ "help", cmd_help },
	{ "version", cmd_version },
};

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'p' },
		{ "exact", no_argument, NULL, 'e' },
		{ "all-netns", no_argument, NULL, 'a' },
		{ "netns", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ }
	};
	static char show[] = "show";
	char *show_argv[] = { show, NULL };
	unsigned int i, matches;
	int c, rc, found, idx;

	opterr = 0;
	for (idx = 1; (c = getopt_long(argc, argv, "+:jpeahVn:", longopts, NULL)) != -1;
	     idx = optind) {
		switch (c) {
		case 'j':
		case 'p':
		case 'e':
		case 'a':
			global_opt(c, optarg);
			break;
		case 'n':
			global_opt('N', optarg);
			break;
		case 'h':
			return cmd_help(0, NULL);
		case 'V':
			return cmd_version(0, NULL);
		default:
			return option_error(c, argv[idx], "", longopts);
		}
	}
	argc -= optind;
	argv += optind;
	if (!argc) {
		argc = 1;
		argv = show_argv;
	}
	/* a command by its name, or by a prefix no other command has (ip's abbreviations) */
	for (i = 0, found = -1, matches = 0; i < ARRAY_SIZE(commands); i++) {
		if (!strcmp(argv[0], commands[i].name)) {
			found = i;
			matches = 1;
			break;
		}
		if (!strncmp(argv[0], commands[i].name, strlen(argv[0]))) {
			found = i;
			matches++;
		}
	}
	if (matches > 1) {
		char names[128] = "";

		for (i = 0; i < ARRAY_SIZE(commands); i++) {
			if (!strncmp(argv[0], commands[i].name, strlen(argv[0]))) {
				strncat(names, " ", sizeof(names) - strlen(names) - 1);
				strncat(names, commands[i].name, sizeof(names) - strlen(names) - 1);
			}
		}
		return fc_usage_error("'%s' could be any of:%s", argv[0], names);
	}
	if (found < 0)
		return fc_usage_error("unknown command '%s'", argv[0]);
	fc_cmd = commands[found].name;
	argv[0] = (char *)fc_cmd;
	optind = 0;	/* each command parses its own options */
	rc = commands[found].fn(argc, argv);
	out_flush();	/* JSON a command left unfinished still reaches stdout */
	return rc;
}
