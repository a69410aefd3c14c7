// SPDX-License-Identifier: GPL-2.0-only
/*
 * fairq-load: a closed-loop ONC RPC load generator for NFS servers.
 *
 * One process is one client (one source address): K TCP connections to nfsd, each keeping at
 * most W calls outstanding (closed loop), or in burst mode N calls spread over the connections,
 * wait for all, idle, repeat.  Calls are NFSv3 NULL/GETATTR (the root filehandle from MOUNT v3)
 * or NFSv4.1 NULL/COMPOUND(SEQUENCE, PUTROOTFH, GETATTR) over one session shared by all the
 * connections.  Reports ops/s and latency percentiles per connection and for the client, and
 * burst completion times, as a table or JSON.  See fairq-load(1).
 *
 * A hostile client (--forge-sequence, NFSv3 only) first sends an NFSv4.1 SEQUENCE of a forged or
 * random session id on each of its connections, counts how the server answers, and then puts its
 * NFSv3 load on those same connections.
 *
 * The file is long (about 1,900 lines) and kept whole on purpose: the options, the set-up calls
 * and the event loop all act on one client's state (its connections, call slots, histograms
 * and deadlines), which lives here as file-local variables.  What stands on its own is apart,
 * with host tests of its own (tests/test_xdr.c): the XDR and RPC encodings (rpc.c), the NFS
 * calls (nfs.c) and the latency histogram (hist.c).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "hist.h"
#include "nfs.h"
#include "rpc.h"

#ifndef FAIRQ_LOAD_VERSION
#define FAIRQ_LOAD_VERSION "unknown"
#endif

#define NSEC 1000000000ull
#define MAX_WINDOW 4096		/* outstanding calls per connection: the low 12 bits of an xid */
#define MAX_CONNS 4096
#define MAX_RECORD (1 << 20)
#define MAX_SLOTS 2048
#define CALL_MAX 512		/* the largest call we build */

enum proto { NFS3, NFS41 };
enum op { OP_NULL_CALL, OP_GETATTR_CALL };
enum v4conn { V4_BIND, V4_SEQUENCE };

static struct opts {
	const char *server;
	char host[256];
	char export_path[MNTPATHLEN + 1];
	enum proto proto;
	enum op op;
	int conns;
	int window;
	int burst;
	double idle_ms;
	double duration;
	bool duration_set;
	double warmup;
	uint64_t calls;
	const char *bind;
	bool resvport;
	int port;
	int mount_port;
	enum v4conn v4conn;
	int slots;
	double timeout;
	const char *series;
	double interval;
	bool json;
	const char *label;
	int verbose;
	bool forge;			/* --forge-sequence */
	bool forge_random;
	uint8_t forge_sid[NFS4_SESSIONID_SIZE];
	int forge_repeat;
} o = {
	.proto = NFS3,
	.op = OP_GETATTR_CALL,
	.conns = 1,
	.window = 0,
	.idle_ms = 50,
	.duration = 10,
	.port = 2049,
	.v4conn = V4_BIND,
	.timeout = 30,
	.interval = 0.1,
};

struct call {
	uint32_t xid;		/* 0: free */
	uint64_t sent;
	int slot;		/* NFSv4.1 session slot, or -1 */
	bool burst;		/* part of the burst in progress */
};

struct conn {
	int id;
	int fd;
	char local[80];
	struct rm_reader rd;
	uint8_t *out;
	size_t out_len, out_off, out_cap;
	bool want_out;
	struct call *calls;
	int *free_idx, nfree;
	int outstanding;
	uint32_t seq;
	uint64_t connected;	/* when connect() completed */
	uint64_t hold_until;	/* the server said "later" (NFS4ERR_DELAY, NFS3ERR_JUKEBOX) */
	int reconnects;
	int closes_in_a_row;	/* closed by the server with no reply in between */
	uint64_t replies_at_close;
	uint64_t replies;	/* all, warm-up and drain included */
	uint64_t ops;		/* completed in the measured interval */
	struct hist lat;
};

static struct conn *conns;
static struct sockaddr_storage srv_addr, bind_addr;
static socklen_t srv_len, bind_len;
static struct rpc_cred_sys cred;
static uint8_t fh[NFS3_FHSIZE];
static uint32_t fhlen;
static int mountd_port;

/* NFSv4.1 session */
static uint64_t clientid;
static uint8_t sessionid[NFS4_SESSIONID_SIZE];
static bool have_session, have_clientid;
static uint32_t nslots, slot_limit;
static uint32_t slot_seq[MAX_SLOTS];
static uint64_t slot_free[MAX_SLOTS / 64];	/* bit set: free */
static uint32_t slots_busy;
static uint32_t slot_target_seen;

/* run state */
static uint64_t t_start, t_meas_start, t_meas_end, t_last_reply;
static bool stopping;
static uint64_t issued, replies_total, outstanding_total;
static uint64_t reconnects_total, resent_total, delayed_total;
static int holds;		/* connections holding off after a DELAY/JUKEBOX */
static volatile sig_atomic_t got_signal;
/* SIGCONT seen: a stopped client cannot have read replies, so the reply timeout starts over */
static volatile sig_atomic_t resumed;
static uint64_t t_resumed;
static int resv_next = 1023;

/* bursts (one client-wide burst at a time) */
static bool burst_active;
static int burst_left, burst_out, burst_rr;
static uint64_t burst_t0, next_burst;
static uint64_t bursts_done, bursts_calls;
static struct hist burst_hist;

static FILE *series_fp;

/* hostile client (--forge-sequence): how the server answered the forged SEQUENCEs */
struct forged_status {
	uint32_t status;
	uint64_t count;
};
static uint64_t forged_sent, forged_refused, forged_accepted;
static struct forged_status *forged_st;	/* by status, ascending */
static int forged_nst;

static void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void fatal(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "fairq-load: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "fairq-load: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'fairq-load --help'.\n");
	exit(2);
}

static void verbose(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void verbose(const char *fmt, ...)
{
	va_list ap;

	if (!o.verbose)
		return;
	fprintf(stderr, "fairq-load: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC + (uint64_t)ts.tv_nsec;
}

static const char *proto_name(void)
{
	return o.proto == NFS3 ? "nfs3" : "nfs4.1";
}

static const char *op_name(void)
{
	return o.op == OP_NULL_CALL ? "null" : "getattr";
}

/* ---- options ---- */

static void help(void)
{
	printf("usage: fairq-load [OPTIONS] SERVER[:/EXPORT]\n"
	       "Closed-loop ONC RPC load against an NFS server (one client per process).\n\n"
	       "  -p, --proto nfs3|nfs4.1    protocol (default nfs3)\n"
	       "  -O, --op null|getattr      call to issue (default getattr; NFSv3 GETATTR needs\n"
	       "                             the export path, taken from SERVER:/EXPORT)\n"
	       "  -K, --connections N        TCP connections (default 1)\n"
	       "  -W, --window N             outstanding calls per connection (default 1, in\n"
	       "                             burst mode the burst size)\n"
	       "  -B, --burst N              burst mode: N calls over the connections, wait for\n"
	       "                             all, idle, repeat\n"
	       "  -I, --idle MS              idle time between bursts (default 50)\n"
	       "  -d, --duration SEC         measured time (default 10; 0: until SIGINT/SIGTERM)\n"
	       "  -w, --warmup SEC           unmeasured time before (default 0)\n"
	       "  -n, --calls N              stop after N calls (all measured)\n"
	       "  -b, --bind ADDR            source address\n"
	       "  -P, --resvport             use reserved source ports (below 1024; root)\n"
	       "      --port N               NFS port (default 2049)\n"
	       "      --mount-port N         mountd port (default: ask rpcbind on port 111)\n"
	       "      --v4-conn bind|sequence  how extra NFSv4.1 connections join the session:\n"
	       "                             BIND_CONN_TO_SESSION (default) or their first SEQUENCE\n"
	       "      --slots N              NFSv4.1 session slots to ask for (default K x W)\n"
	       "      --timeout SEC          connect and set-up timeout, and the longest wait for\n"
	       "                             any reply while calls are outstanding, time stopped\n"
	       "                             (SIGSTOP) not counted (default 30)\n"
	       "      --series FILE          append one JSON line of cumulative replies (total and\n"
	       "                             per connection) every --interval seconds (default 0.1)\n"
	       "      --interval SEC\n"
	       "      --label TEXT           copied into the JSON report\n"
	       "      --forge-sequence random|SESSIONID\n"
	       "                             hostile client (NFSv3 only): on each connection,\n"
	       "                             first an NFSv4.1 SEQUENCE of this session id (32\n"
	       "                             hex digits) or a random one; counts the answers\n"
	       "      --forge-repeat N       forged SEQUENCEs per connection (default 1)\n"
	       "  -j, --json                 JSON report instead of the table\n"
	       "  -v, --verbose              set-up steps on stderr\n"
	       "  -V, --version\n"
	       "  -h, --help\n");
	exit(0);
}

static long parse_int(const char *opt, const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		usage_error("%s: '%s' is not a whole number from %ld to %ld", opt, s, min, max);
	return v;
}

static double parse_num(const char *opt, const char *s, double min, double max)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < min || v > max)
		usage_error("%s: '%s' is not a number from %g to %g", opt, s, min, max);
	return v;
}

/* --forge-sequence: random, or a session id of 32 hex digits (its 16 bytes in wire order) */
static void parse_forge(const char *s)
{
	int i;

	o.forge = true;
	o.forge_random = !strcmp(s, "random");
	if (o.forge_random)
		return;
	for (i = 0; i < 2 * NFS4_SESSIONID_SIZE; i++)
		if (!isxdigit((unsigned char)s[i]))
			break;
	if (i != 2 * NFS4_SESSIONID_SIZE || s[i])
		usage_error("--forge-sequence: '%s' is not random or a session id of %d hex digits",
			    s, 2 * NFS4_SESSIONID_SIZE);
	for (i = 0; i < NFS4_SESSIONID_SIZE; i++) {
		char byte[3] = { s[2 * i], s[2 * i + 1], 0 };

		o.forge_sid[i] = (uint8_t)strtoul(byte, NULL, 16);
	}
}

enum { OPT_PORT = 256, OPT_MOUNT_PORT, OPT_V4CONN, OPT_SLOTS, OPT_TIMEOUT, OPT_SERIES,
	OPT_INTERVAL, OPT_LABEL, OPT_FORGE_SEQ, OPT_FORGE_REPEAT };

static void parse_args(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "proto", required_argument, NULL, 'p' },
		{ "op", required_argument, NULL, 'O' },
		{ "connections", required_argument, NULL, 'K' },
		{ "window", required_argument, NULL, 'W' },
		{ "burst", required_argument, NULL, 'B' },
		{ "idle", required_argument, NULL, 'I' },
		{ "duration", required_argument, NULL, 'd' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "calls", required_argument, NULL, 'n' },
		{ "bind", required_argument, NULL, 'b' },
		{ "resvport", no_argument, NULL, 'P' },
		{ "port", required_argument, NULL, OPT_PORT },
		{ "mount-port", required_argument, NULL, OPT_MOUNT_PORT },
		{ "v4-conn", required_argument, NULL, OPT_V4CONN },
		{ "slots", required_argument, NULL, OPT_SLOTS },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "series", required_argument, NULL, OPT_SERIES },
		{ "interval", required_argument, NULL, OPT_INTERVAL },
		{ "label", required_argument, NULL, OPT_LABEL },
		{ "forge-sequence", required_argument, NULL, OPT_FORGE_SEQ },
		{ "forge-repeat", required_argument, NULL, OPT_FORGE_REPEAT },
		{ "json", no_argument, NULL, 'j' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *colon;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":p:O:K:W:B:I:d:w:n:b:PjvVh", lo, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (!strcmp(optarg, "nfs3") || !strcmp(optarg, "3"))
				o.proto = NFS3;
			else if (!strcmp(optarg, "nfs4.1") || !strcmp(optarg, "4.1"))
				o.proto = NFS41;
			else
				usage_error("--proto: '%s' is not nfs3 or nfs4.1", optarg);
			break;
		case 'O':
			if (!strcmp(optarg, "null"))
				o.op = OP_NULL_CALL;
			else if (!strcmp(optarg, "getattr"))
				o.op = OP_GETATTR_CALL;
			else
				usage_error("--op: '%s' is not null or getattr", optarg);
			break;
		case 'K':
			o.conns = parse_int("--connections", optarg, 1, MAX_CONNS);
			break;
		case 'W':
			o.window = parse_int("--window", optarg, 1, MAX_WINDOW);
			break;
		case 'B':
			o.burst = parse_int("--burst", optarg, 1, 1000000);
			break;
		case 'I':
			o.idle_ms = parse_num("--idle", optarg, 0, 3600000);
			break;
		case 'd':
			o.duration = parse_num("--duration", optarg, 0, 31536000);
			o.duration_set = true;
			break;
		case 'w':
			o.warmup = parse_num("--warmup", optarg, 0, 86400);
			break;
		case 'n':
			o.calls = parse_int("--calls", optarg, 1, 1000000000000L);
			break;
		case 'b':
			o.bind = optarg;
			break;
		case 'P':
			o.resvport = true;
			break;
		case OPT_PORT:
			o.port = parse_int("--port", optarg, 1, 65535);
			break;
		case OPT_MOUNT_PORT:
			o.mount_port = parse_int("--mount-port", optarg, 1, 65535);
			break;
		case OPT_V4CONN:
			if (!strcmp(optarg, "bind"))
				o.v4conn = V4_BIND;
			else if (!strcmp(optarg, "sequence"))
				o.v4conn = V4_SEQUENCE;
			else
				usage_error("--v4-conn: '%s' is not bind or sequence", optarg);
			break;
		case OPT_SLOTS:
			o.slots = parse_int("--slots", optarg, 1, MAX_SLOTS);
			break;
		case OPT_TIMEOUT:
			o.timeout = parse_num("--timeout", optarg, 0.1, 86400);
			break;
		case OPT_SERIES:
			o.series = optarg;
			break;
		case OPT_INTERVAL:
			o.interval = parse_num("--interval", optarg, 0.001, 3600);
			break;
		case OPT_LABEL:
			o.label = optarg;
			break;
		case OPT_FORGE_SEQ:
			parse_forge(optarg);
			break;
		case OPT_FORGE_REPEAT:
			o.forge_repeat = parse_int("--forge-repeat", optarg, 1, 1000000);
			break;
		case 'j':
			o.json = true;
			break;
		case 'v':
			o.verbose++;
			break;
		case 'V':
			printf("fairq-load %s\n", FAIRQ_LOAD_VERSION);
			exit(0);
		case 'h':
			help();
			break;
		case ':':
			usage_error("option '%s' needs a value", argv[optind - 1]);
		default:
			if (optopt)
				usage_error("unknown option '-%c'", optopt);
			usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		usage_error(optind >= argc ? "no server given" : "one server only, got '%s' too",
			    argv[optind + 1 < argc ? optind + 1 : optind]);
	o.server = argv[optind];

	/* SERVER[:/EXPORT]; [v6addr]:/EXPORT for IPv6 */
	colon = NULL;
	if (o.server[0] == '[') {
		const char *rb = strchr(o.server, ']');

		if (!rb)
			usage_error("'%s': unbalanced '['", o.server);
		if ((size_t)(rb - o.server - 1) >= sizeof(o.host))
			usage_error("server name too long");
		memcpy(o.host, o.server + 1, rb - o.server - 1);
		if (rb[1] == ':')
			colon = rb + 1;
		else if (rb[1])
			usage_error("'%s': expected ':/EXPORT' after ']'", o.server);
	} else {
		colon = strchr(o.server, ':');
		if (colon && strchr(colon + 1, ':'))
			colon = NULL;	/* a bare IPv6 address */
		if (strlen(o.server) >= sizeof(o.host))
			usage_error("server name too long");
		memcpy(o.host, o.server, colon ? (size_t)(colon - o.server) : strlen(o.server));
	}
	if (colon) {
		if (colon[1] != '/')
			usage_error("'%s': the export path must start with '/'", colon + 1);
		if (strlen(colon + 1) > MNTPATHLEN)
			usage_error("export path too long");
		strcpy(o.export_path, colon + 1);
	}
	if (!o.host[0])
		usage_error("empty server name");
	if (o.proto == NFS3 && o.op == OP_GETATTR_CALL && !o.export_path[0])
		usage_error("NFSv3 GETATTR needs the export to mount: give SERVER:/EXPORT");
	if (o.burst && o.calls)
		usage_error("--burst and --calls do not go together");
	if (o.calls && !o.duration_set)
		o.duration = 0;
	if (!o.window)
		o.window = o.burst ? (o.burst + o.conns - 1) / o.conns : 1;
	if (o.window > MAX_WINDOW)
		usage_error("a burst of %d over %d connections needs a window of %d (at most %d)",
			    o.burst, o.conns, o.window, MAX_WINDOW);
	if (o.series && o.interval <= 0)
		usage_error("--interval must be positive");
	if (o.forge && o.proto != NFS3)
		usage_error("--forge-sequence is for an NFSv3 load (--proto nfs3)");
	if (o.forge_repeat && !o.forge)
		usage_error("--forge-repeat needs --forge-sequence");
	if (!o.forge_repeat)
		o.forge_repeat = 1;
}

/* ---- sockets ---- */

static void resolve(const char *host, int port, struct sockaddr_storage *ss, socklen_t *len,
		    int family, bool numeric, const char *what)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_family = family };
	struct addrinfo *res;
	char sport[8];
	int err;

	if (numeric)
		hints.ai_flags = AI_NUMERICHOST;
	snprintf(sport, sizeof(sport), "%d", port);
	err = getaddrinfo(host, sport, &hints, &res);
	if (err)
		fatal("%s '%s': %s", what, host, gai_strerror(err));
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*len = res->ai_addrlen;
	freeaddrinfo(res);
}

static void set_port(struct sockaddr_storage *ss, int port)
{
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
}

static void addr_str(const struct sockaddr_storage *ss, socklen_t len, char *buf, size_t n)
{
	char h[64], s[8];

	if (getnameinfo((const struct sockaddr *)ss, len, h, sizeof(h), s, sizeof(s),
			NI_NUMERICHOST | NI_NUMERICSERV)) {
		snprintf(buf, n, "?");
		return;
	}
	snprintf(buf, n, ss->ss_family == AF_INET6 ? "[%s]:%s" : "%s:%s", h, s);
}

static int wait_fd(int fd, short ev, uint64_t deadline)
{
	for (;;) {
		struct pollfd p = { .fd = fd, .events = ev };
		uint64_t now = now_ns();
		int r;

		if (now >= deadline)
			return 0;
		r = poll(&p, 1, (int)((deadline - now + 999999) / 1000000));
		if (r < 0 && errno == EINTR) {
			if (got_signal)
				fatal("interrupted");
			continue;
		}
		if (r < 0)
			fatal("poll: %s", strerror(errno));
		if (r > 0)
			return 1;
	}
}

/* A connected non-blocking TCP socket to port, from the bind address (and a reserved port). */
static int connect_to(int port, const char *what)
{
	struct sockaddr_storage dst = srv_addr, src;
	char dstr[80];
	uint64_t deadline = now_ns() + (uint64_t)(o.timeout * NSEC);
	int fd, one = 1, err;
	socklen_t elen = sizeof(err);

	set_port(&dst, port);
	addr_str(&dst, srv_len, dstr, sizeof(dstr));
	for (;;) {
		fd = socket(dst.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd < 0)
			fatal("socket: %s", strerror(errno));
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (o.bind || o.resvport) {
			socklen_t slen;

			if (o.bind) {
				src = bind_addr;
				slen = bind_len;
			} else {
				memset(&src, 0, sizeof(src));
				src.ss_family = dst.ss_family;
				slen = dst.ss_family == AF_INET ? sizeof(struct sockaddr_in)
								: sizeof(struct sockaddr_in6);
			}
			for (;;) {
				set_port(&src, o.resvport ? resv_next : 0);
				if (!bind(fd, (struct sockaddr *)&src, slen))
					break;
				if (o.resvport && errno == EADDRINUSE && resv_next > 512) {
					resv_next--;
					continue;
				}
				if (errno == EACCES)
					fatal("%s: cannot bind a reserved port: run as root "
					      "(or with CAP_NET_BIND_SERVICE)", what);
				if (o.resvport && errno == EADDRINUSE)
					fatal("%s: no reserved port left from 512 to 1023", what);
				fatal("%s: cannot bind to %s: %s", what, o.bind ? o.bind : "any",
				      strerror(errno));
			}
			if (o.resvport)
				resv_next--;
		}
		if (!connect(fd, (struct sockaddr *)&dst, srv_len))
			break;
		if (errno == EADDRNOTAVAIL && o.resvport && resv_next > 512) {
			close(fd);	/* that 4-tuple is in TIME_WAIT: the next port */
			continue;
		}
		if (errno != EINPROGRESS)
			fatal("%s: cannot connect to %s: %s", what, dstr, strerror(errno));
		if (!wait_fd(fd, POLLOUT, deadline))
			fatal("%s: cannot connect to %s: no answer in %g s", what, dstr, o.timeout);
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) || err)
			fatal("%s: cannot connect to %s: %s", what, dstr, strerror(err));
		break;
	}
	return fd;
}

static void write_all(int fd, const uint8_t *p, size_t n, uint64_t deadline, const char *what)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w > 0) {
			p += w;
			n -= w;
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN) {
			if (!wait_fd(fd, POLLOUT, deadline))
				fatal("%s: the server does not take the call (%g s)", what, o.timeout);
			continue;
		}
		fatal("%s: send: %s", what, w < 0 ? strerror(errno) : "connection closed");
	}
}

static uint32_t next_xid(void)
{
	static uint32_t x;

	if (!x)
		x = (uint32_t)now_ns() ^ (uint32_t)getpid() << 16;
	return ++x;
}

/*
 * One call, waited for: the set-up and clean-up calls.  Returns the decoder at the results;
 * an RPC-level failure is fatal unless tolerate (then returns false).
 */
static bool sync_call(int fd, struct rm_reader *rd, uint32_t prog, uint32_t vers, uint32_t proc,
		      bool auth, void (*args)(struct xenc *, const void *), const void *arg,
		      struct xdec *d, const char *what, bool tolerate)
{
	uint8_t buf[CALL_MAX];
	uint64_t deadline = now_ns() + (uint64_t)(o.timeout * NSEC);
	uint32_t xid = next_xid(), rxid;
	struct rpc_reply r;
	struct xenc x;
	char msg[160];

	xenc_init(&x, buf, sizeof(buf));
	x.len = RM_HDR;
	rpc_call(&x, xid, prog, vers, proc, auth ? &cred : NULL);
	if (args)
		args(&x, arg);
	if (x.overflow)
		fatal("%s: call too large", what);
	rm_mark(buf, x.len - RM_HDR);
	write_all(fd, buf, x.len, deadline, what);
	for (;;) {
		const uint8_t *rec;
		size_t len;
		int got = rm_next(rd, &rec, &len);

		if (got < 0)
			fatal("%s: oversized reply record", what);
		if (got > 0) {
			if (!rpc_peek_xid(rec, len, &rxid) || rxid != xid)
				continue;	/* a stale reply */
			xdec_init(d, rec, len);
			if (rpc_parse_reply(d, &r) == RPC_OK)
				return true;
			if (tolerate)
				return false;
			fatal("%s: %s", what, rpc_reply_str(&r, msg, sizeof(msg)));
		}
		{
			uint8_t *p = rm_space(rd, 65536);
			ssize_t n;

			if (!p)
				fatal("out of memory");
			n = read(fd, p, 65536);
			if (n > 0) {
				rm_commit(rd, n);
				continue;
			}
			if (n == 0) {
				if (tolerate)
					return false;
				fatal("%s: the server closed the connection", what);
			}
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN) {
				if (tolerate)
					return false;
				fatal("%s: receive: %s", what, strerror(errno));
			}
			if (!wait_fd(fd, POLLIN, deadline)) {
				if (tolerate)
					return false;
				fatal("%s: no reply in %g s", what, o.timeout);
			}
		}
	}
}

/* ---- set-up: rpcbind, MOUNT, NFSv4.1 session ---- */

struct pmap_arg {
	uint32_t prog, vers;
};

static void pmap_args_cb(struct xenc *x, const void *a)
{
	const struct pmap_arg *p = a;

	pmap_getport_args(x, p->prog, p->vers, IPPROTO_TCP_NUM);
}

static void mnt_args_cb(struct xenc *x, const void *a)
{
	mnt3_args(x, a);
}

static void rpcb_args_cb(struct xenc *x, const void *a)
{
	const struct pmap_arg *p = a;

	rpcb_getaddr_args(x, p->prog, p->vers, "tcp6");
}

/*
 * mountd's port: GETPORT (rpcbind v2) knows IPv4 registrations only, so an IPv6 server is
 * asked with GETADDR (v4) for mountd's "tcp6" one, which listens on a port of its own.
 */
static int get_mountd_port(void)
{
	struct pmap_arg a = { MOUNT_PROG, MOUNT_V3 };
	bool v6 = srv_addr.ss_family == AF_INET6;
	struct rm_reader rd;
	struct xdec d;
	uint32_t port;
	int fd;

	if (o.mount_port)
		return o.mount_port;
	fd = connect_to(111, "rpcbind");
	if (rm_init(&rd, MAX_RECORD))
		fatal("out of memory");
	if (v6) {
		sync_call(fd, &rd, PMAP_PROG, RPCB_VERS4, RPCBPROC_GETADDR, false, rpcb_args_cb, &a,
			  &d, "rpcbind GETADDR(mountd v3 tcp6)", false);
		if (!rpcb_getaddr_res(&d, &port))
			fatal("rpcbind: malformed GETADDR reply");
	} else {
		sync_call(fd, &rd, PMAP_PROG, PMAP_VERS, PMAPPROC_GETPORT, false, pmap_args_cb, &a,
			  &d, "rpcbind GETPORT(mountd v3 tcp)", false);
		if (!pmap_getport_res(&d, &port))
			fatal("rpcbind: malformed GETPORT reply");
	}
	if (!port || port > 65535)
		fatal("rpcbind on %s knows no mountd v3 over %s: is rpc.mountd running? "
		      "(or give --mount-port)", o.host, v6 ? "TCP on IPv6" : "TCP");
	rm_free(&rd);
	close(fd);
	verbose("mountd v3/tcp is on port %u", port);
	return (int)port;
}

static void mount_export(void)
{
	struct rm_reader rd;
	struct xdec d;
	uint32_t mstat;
	int fd;

	mountd_port = get_mountd_port();
	fd = connect_to(mountd_port, "mountd");
	if (rm_init(&rd, MAX_RECORD))
		fatal("out of memory");
	sync_call(fd, &rd, MOUNT_PROG, MOUNT_V3, MOUNTPROC3_MNT, true, mnt_args_cb, o.export_path,
		  &d, "MOUNT", false);
	if (!mnt3_res(&d, &mstat, fh, &fhlen))
		fatal("mountd: malformed MNT reply");
	if (mstat)
		fatal("mountd refused %s: %s%s", o.export_path, mnt3_str(mstat),
		      mstat == 13 ? " (not exported to this address, or a reserved source port "
				    "is required: --resvport)" : "");
	rm_free(&rd);
	close(fd);
	verbose("mounted %s: %u-byte root filehandle", o.export_path, fhlen);
}

static void unmount_export(void)
{
	struct rm_reader rd;
	struct xdec d;
	int fd;

	fd = connect_to(mountd_port, "mountd");
	if (rm_init(&rd, MAX_RECORD))
		fatal("out of memory");
	if (!sync_call(fd, &rd, MOUNT_PROG, MOUNT_V3, MOUNTPROC3_UMNT, true, mnt_args_cb,
		       o.export_path, &d, "UMNT", true))
		fprintf(stderr, "fairq-load: warning: UMNT of %s failed\n", o.export_path);
	rm_free(&rd);
	close(fd);
}

struct v4arg {
	int kind;
	uint32_t seq, slots;
	const char *owner;
	uint8_t verf[NFS4_VERIFIER_SIZE];
	const uint8_t *sid;		/* SEQUENCE alone: a forged session id */
};

static void v4_args_cb(struct xenc *x, const void *a)
{
	const struct v4arg *v = a;

	switch (v->kind) {
	case OP_EXCHANGE_ID:
		nfs4_exchange_id(x, v->verf, v->owner);
		break;
	case OP_CREATE_SESSION:
		nfs4_create_session(x, clientid, v->seq, v->slots);
		break;
	case OP_BIND_CONN_TO_SESSION:
		nfs4_bind_conn(x, sessionid);
		break;
	case OP_DESTROY_SESSION:
		nfs4_destroy_session(x, sessionid);
		break;
	case OP_DESTROY_CLIENTID:
		nfs4_destroy_clientid(x, clientid);
		break;
	case OP_SEQUENCE:
		nfs4_sequence(x, v->sid, 1, 0, 0);
		break;
	}
}

/*
 * A one-op COMPOUND on conn c, its status left to the caller; an RPC-level failure or a
 * malformed reply is fatal unless tolerate (then returns false).
 */
static bool v4_call(struct conn *c, struct v4arg *a, struct nfs4_res *r, const char *what,
		    bool tolerate)
{
	struct xdec d;

	if (!sync_call(c->fd, &c->rd, NFS_PROG, 4, NFSPROC4_COMPOUND, true, v4_args_cb, a, &d, what,
		       tolerate))
		return false;
	if (!nfs4_compound_res(&d, r)) {
		if (tolerate)
			return false;
		fatal("%s: malformed reply", what);
	}
	return true;
}

/* A one-op COMPOUND on conn c; fatal on failure unless tolerate. */
static bool v4_sync(struct conn *c, struct v4arg *a, struct nfs4_res *r, bool tolerate)
{
	char what[96];

	snprintf(what, sizeof(what), "connection %d: %s", c->id, nfs4_op_str(a->kind));
	if (!v4_call(c, a, r, what, tolerate))
		return false;
	if (r->status) {
		if (tolerate)
			return false;
		fatal("%s: %s%s", what, nfs4_str(r->status),
		      r->status == 10021 ? " (the server does not offer NFSv4.1)" : "");
	}
	return true;
}

static void v4_session(void)
{
	struct v4arg a = { 0 };
	struct nfs4_res r;
	char owner[300], hn[128] = "localhost";
	uint64_t t = now_ns();
	uint32_t want;
	int i;

	gethostname(hn, sizeof(hn) - 1);
	snprintf(owner, sizeof(owner), "fairq-load/%s/%s/%d/%" PRIu64, hn, conns[0].local,
		 (int)getpid(), t);
	a.kind = OP_EXCHANGE_ID;
	a.owner = owner;
	memcpy(a.verf, &t, sizeof(a.verf));
	v4_sync(&conns[0], &a, &r, false);
	clientid = r.clientid;
	have_clientid = true;

	want = o.slots ? (uint32_t)o.slots : (uint32_t)o.conns * (uint32_t)o.window;
	if (want > MAX_SLOTS)
		want = MAX_SLOTS;
	a.kind = OP_CREATE_SESSION;
	a.seq = r.eid_seq;
	a.slots = want;
	v4_sync(&conns[0], &a, &r, false);
	memcpy(sessionid, r.sessionid, sizeof(sessionid));
	have_session = true;
	nslots = r.cs_maxreqs < want ? r.cs_maxreqs : want;
	if (!nslots)
		fatal("CREATE_SESSION: the server granted no slots");
	slot_limit = nslots;
	for (i = 0; i < (int)nslots; i++) {
		slot_seq[i] = 1;
		slot_free[i / 64] |= 1ull << (i % 64);
	}
	verbose("NFSv4.1 session: %u of %u slots granted", r.cs_maxreqs, want);
	if (nslots < want)
		fprintf(stderr, "fairq-load: warning: the server granted %u session slots for %u "
			"wanted: at most %u calls in flight\n", nslots, want, nslots);

	if (o.v4conn == V4_BIND) {
		for (i = 1; i < o.conns; i++) {
			a.kind = OP_BIND_CONN_TO_SESSION;
			v4_sync(&conns[i], &a, &r, false);
		}
	}
}

static void v4_teardown(void)
{
	struct v4arg a = { 0 };
	struct nfs4_res r;

	if (have_session) {
		a.kind = OP_DESTROY_SESSION;
		if (!v4_sync(&conns[0], &a, &r, true))
			fprintf(stderr, "fairq-load: warning: DESTROY_SESSION failed (%s)\n",
				nfs4_str(r.status));
	}
	if (have_clientid) {
		a.kind = OP_DESTROY_CLIENTID;
		if (!v4_sync(&conns[0], &a, &r, true))
			fprintf(stderr, "fairq-load: warning: DESTROY_CLIENTID failed (%s)\n",
				nfs4_str(r.status));
	}
}

/* ---- hostile client: forged SEQUENCEs (--forge-sequence) ---- */

static void random_bytes(void *buf, size_t n)
{
	uint8_t *p = buf;
	ssize_t got;
	int fd;

	while (n) {
		got = getrandom(p, n, 0);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		p += got;
		n -= got;
	}
	if (!n)
		return;
	fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);	/* no getrandom(2): old kernel */
	if (fd < 0)
		fatal("/dev/urandom: %s", strerror(errno));
	while (n) {
		got = read(fd, p, n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			fatal("/dev/urandom: %s", got < 0 ? strerror(errno) : "end of file");
		p += got;
		n -= got;
	}
	close(fd);
}

static void forged_count(uint32_t status)
{
	struct forged_status *t;
	int i;

	for (i = 0; i < forged_nst && forged_st[i].status < status; i++)
		;
	if (i < forged_nst && forged_st[i].status == status) {
		forged_st[i].count++;
		return;
	}
	t = realloc(forged_st, (forged_nst + 1) * sizeof(*t));
	if (!t)
		fatal("out of memory");
	forged_st = t;
	memmove(&t[i + 1], &t[i], (forged_nst - i) * sizeof(*t));
	t[i].status = status;
	t[i].count = 1;
	forged_nst++;
}

/*
 * On a new connection, before any other call: --forge-repeat COMPOUNDs of one SEQUENCE of a
 * session id that is not ours (sequence 1, slot 0, highest slot 0).  Whatever NFSv4 status the
 * server answers is counted, not fatal; an RPC-level failure is.
 */
static void forge_sequence(struct conn *c)
{
	uint8_t sid[NFS4_SESSIONID_SIZE];
	struct v4arg a = { .kind = OP_SEQUENCE, .sid = sid };
	struct nfs4_res r;
	char what[128], hex[2 * NFS4_SESSIONID_SIZE + 1];
	int i, j;

	snprintf(what, sizeof(what), "connection %d (%s): forged SEQUENCE", c->id, c->local);
	for (i = 0; i < o.forge_repeat; i++) {
		if (o.forge_random)
			random_bytes(sid, sizeof(sid));
		else
			memcpy(sid, o.forge_sid, sizeof(sid));
		v4_call(c, &a, &r, what, false);
		if (!r.status && !r.has_seq)
			fatal("%s: an NFS4_OK reply without the SEQUENCE result", what);
		forged_sent++;
		if (r.status) {
			forged_refused++;
			forged_count(r.status);
		} else {
			forged_accepted++;
		}
		if (o.verbose) {
			for (j = 0; j < NFS4_SESSIONID_SIZE; j++)
				snprintf(hex + 2 * j, 3, "%02x", sid[j]);
			verbose("%s of session %s: %s", what, hex,
				r.status ? nfs4_str(r.status) : "accepted");
		}
	}
}

/* ---- the load ---- */

static int ep;

static void conn_init(struct conn *c, int id)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char what[32];
	int i;

	memset(c, 0, sizeof(*c));
	c->id = id;
	snprintf(what, sizeof(what), "connection %d", id);
	c->fd = connect_to(o.port, what);
	c->connected = now_ns();
	if (getsockname(c->fd, (struct sockaddr *)&ss, &len) == 0)
		addr_str(&ss, len, c->local, sizeof(c->local));
	if (rm_init(&c->rd, MAX_RECORD))
		fatal("out of memory");
	c->out_cap = 4096;
	c->out = malloc(c->out_cap);
	c->calls = calloc(o.window, sizeof(*c->calls));
	c->free_idx = malloc(o.window * sizeof(int));
	if (!c->out || !c->calls || !c->free_idx)
		fatal("out of memory");
	for (i = 0; i < o.window; i++)
		c->free_idx[i] = o.window - 1 - i;
	c->nfree = o.window;
	hist_init(&c->lat);
}

static void update_events(struct conn *c)
{
	bool want = c->out_len > c->out_off;
	struct epoll_event ev = { .events = EPOLLIN | (want ? EPOLLOUT : 0), .data.ptr = c };

	if (want != c->want_out) {
		c->want_out = want;
		epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
	}
}

static void reconnect(struct conn *c, const char *why);

static void flush(struct conn *c)
{
	while (c->out_off < c->out_len) {
		ssize_t n = write(c->fd, c->out + c->out_off, c->out_len - c->out_off);

		if (n > 0) {
			c->out_off += n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n < 0 && (errno == EPIPE || errno == ECONNRESET)) {
			reconnect(c, "closed by the server");
			return;
		}
		fatal("connection %d (%s): send: %s", c->id, c->local,
		      n < 0 ? strerror(errno) : "closed");
	}
	if (c->out_off == c->out_len)
		c->out_off = c->out_len = 0;
	update_events(c);
}

static int slot_get(void)
{
	uint32_t w;

	for (w = 0; w * 64 < slot_limit; w++) {
		uint64_t bits = slot_free[w];
		int b;

		if (!bits)
			continue;
		b = __builtin_ctzll(bits);
		if (w * 64 + b >= slot_limit)
			return -1;
		slot_free[w] &= ~(1ull << b);
		slots_busy++;
		return w * 64 + b;
	}
	return -1;
}

/* the highest slot in use, which the Linux client reports as sa_highest_slotid */
static uint32_t slot_highest_busy(void)
{
	int w;

	for (w = (int)((nslots - 1) / 64); w >= 0; w--) {
		uint64_t busy = ~slot_free[w];

		if (w * 64 + 64 > (int)nslots)
			busy &= (1ull << (nslots - w * 64)) - 1;
		if (busy)
			return w * 64 + 63 - __builtin_clzll(busy);
	}
	return 0;
}

static void slot_put(int s)
{
	slot_free[s / 64] |= 1ull << (s % 64);
	slots_busy--;
}

static bool can_issue(struct conn *c)
{
	if (!c->nfree)
		return false;
	if (c->hold_until) {
		if (now_ns() < c->hold_until)
			return false;
		c->hold_until = 0;
		holds--;
	}
	if (o.burst) {
		if (!burst_active || !burst_left)
			return false;
	} else {
		if (stopping)
			return false;
		if (o.calls && issued >= o.calls)
			return false;
	}
	if (o.proto == NFS41 && o.op == OP_GETATTR_CALL && slots_busy >= slot_limit)
		return false;
	return true;
}

/* Appends the call's message (a first transmission or a resend: same xid, same slot) */
static void encode_call(struct conn *c, const struct call *call)
{
	struct xenc x;

	if (c->out_cap - c->out_len < CALL_MAX) {
		if (c->out_off) {
			memmove(c->out, c->out + c->out_off, c->out_len - c->out_off);
			c->out_len -= c->out_off;
			c->out_off = 0;
		}
		while (c->out_cap - c->out_len < CALL_MAX) {
			uint8_t *p = realloc(c->out, c->out_cap * 2);

			if (!p)
				fatal("out of memory");
			c->out = p;
			c->out_cap *= 2;
		}
	}
	xenc_init(&x, c->out + c->out_len, c->out_cap - c->out_len);
	x.len = RM_HDR;
	if (o.proto == NFS3) {
		rpc_call(&x, call->xid, NFS_PROG, 3,
			 o.op == OP_NULL_CALL ? NFSPROC_NULL : NFSPROC3_GETATTR,
			 o.op == OP_NULL_CALL ? NULL : &cred);
		if (o.op == OP_GETATTR_CALL)
			nfs3_getattr_args(&x, fh, fhlen);
	} else if (o.op == OP_NULL_CALL) {
		rpc_call(&x, call->xid, NFS_PROG, 4, NFSPROC_NULL, NULL);
	} else {
		rpc_call(&x, call->xid, NFS_PROG, 4, NFSPROC4_COMPOUND, &cred);
		nfs4_seq_getattr(&x, sessionid, slot_seq[call->slot], call->slot,
				 slot_highest_busy());
	}
	if (x.overflow)
		fatal("internal error: call buffer overflow");
	rm_mark(c->out + c->out_len, x.len - RM_HDR);
	c->out_len += x.len;
}

static bool issue(struct conn *c)
{
	struct call *call;
	int idx, slot = -1;
	uint32_t xid;

	if (!can_issue(c))
		return false;
	if (o.proto == NFS41 && o.op == OP_GETATTR_CALL) {
		slot = slot_get();
		if (slot < 0)
			return false;
	}
	idx = c->free_idx[--c->nfree];
	xid = (++c->seq << 12) | (uint32_t)idx;
	if (!xid)
		xid = (++c->seq << 12) | (uint32_t)idx;
	call = &c->calls[idx];
	call->xid = xid;
	call->slot = slot;
	call->burst = o.burst != 0;
	encode_call(c, call);
	call->sent = now_ns();
	c->outstanding++;
	outstanding_total++;
	issued++;
	if (o.burst) {
		burst_left--;
		burst_out++;
	}
	return true;
}

static void fill(struct conn *c)
{
	bool any = false;

	while (issue(c))
		any = true;
	if (any)
		flush(c);
}

/* Hands out calls one per connection in turn (bursts, and session slots freed by a reply). */
static void fill_all(void)
{
	bool progress = true;
	int i, start = burst_rr;

	while (progress) {
		progress = false;
		for (i = 0; i < o.conns; i++) {
			struct conn *c = &conns[(start + i) % o.conns];

			if (issue(c))
				progress = true;
		}
	}
	burst_rr = (burst_rr + 1) % o.conns;
	for (i = 0; i < o.conns; i++)
		if (conns[i].out_len > conns[i].out_off)
			flush(&conns[i]);
}

/*
 * The server closed the connection (Linux nfsd does so when it drops a request, e.g. while
 * mountd refreshes its export caches): like an NFS client, connect again (and rejoin the
 * session) and send the outstanding calls again, same xids, same slots.  Three closes in a row
 * with no reply in between are fatal.
 */
static void reconnect(struct conn *c, const char *why)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char what[32];
	int i, resent = 0;

	if (c->replies == c->replies_at_close && c->reconnects)
		c->closes_in_a_row++;
	else
		c->closes_in_a_row = 1;
	c->replies_at_close = c->replies;
	if (c->closes_in_a_row > 3)
		fatal("connection %d (%s): %s %.3f s after connecting, after %" PRIu64 " replies, "
		      "%d calls outstanding (and three times in a row without a reply)", c->id,
		      c->local, why, (double)(now_ns() - c->connected) / NSEC, c->replies,
		      c->outstanding);
	if (!reconnects_total)
		fprintf(stderr, "fairq-load: warning: connection %d (%s): %s %.3f s after connecting, "
			"%d calls outstanding: reconnecting and sending them again\n", c->id, c->local,
			why, (double)(now_ns() - c->connected) / NSEC, c->outstanding);
	epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	snprintf(what, sizeof(what), "connection %d", c->id);
	c->fd = connect_to(o.port, what);
	c->connected = now_ns();
	if (getsockname(c->fd, (struct sockaddr *)&ss, &len) == 0)
		addr_str(&ss, len, c->local, sizeof(c->local));
	rm_reset(&c->rd);
	c->out_len = c->out_off = 0;
	c->want_out = false;
	if (o.proto == NFS41 && o.op == OP_GETATTR_CALL && o.v4conn == V4_BIND) {
		struct v4arg a = { .kind = OP_BIND_CONN_TO_SESSION };
		struct nfs4_res r;

		v4_sync(c, &a, &r, false);
	}
	if (o.forge)
		forge_sequence(c);
	{
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = c };

		if (epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev))
			fatal("epoll: %s", strerror(errno));
	}
	for (i = 0; i < o.window; i++) {
		if (c->calls[i].xid) {
			encode_call(c, &c->calls[i]);
			resent++;
		}
	}
	c->reconnects++;
	reconnects_total++;
	resent_total += resent;
	flush(c);
}

static bool in_window(uint64_t t)
{
	return t >= t_meas_start && t < t_meas_end;
}

static void reply_error(struct conn *c, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
static void reply_error(struct conn *c, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fatal("connection %d (%s): %s %s: %s", c->id, c->local, proto_name(),
	      o.op == OP_NULL_CALL ? "NULL" : "GETATTR", msg);
}

/* "Try again later": the call is given up, the connection holds off 100 ms (bursts resend it) */
static void delayed(struct conn *c, struct call *call, uint32_t idx, uint64_t now)
{
	if (call->burst) {
		burst_out--;
		burst_left++;
	}
	call->xid = 0;
	c->free_idx[c->nfree++] = idx;
	c->outstanding--;
	outstanding_total--;
	c->replies++;
	replies_total++;
	delayed_total++;
	t_last_reply = now;
	if (!c->hold_until)
		holds++;
	c->hold_until = now + 100000000ull;
}

static void handle_reply(struct conn *c, const uint8_t *rec, size_t len, uint64_t now)
{
	struct rpc_reply r;
	struct call *call;
	struct xdec d;
	char msg[160];
	uint32_t idx, st;

	if (!rpc_peek_xid(rec, len, &r.xid))
		reply_error(c, "short reply record");
	idx = r.xid & 0xfff;
	if (idx >= (uint32_t)o.window || c->calls[idx].xid != r.xid)
		reply_error(c, "reply to an unknown call (xid %#x)", r.xid);
	call = &c->calls[idx];
	xdec_init(&d, rec, len);
	if (rpc_parse_reply(&d, &r) != RPC_OK)
		reply_error(c, "%s", rpc_reply_str(&r, msg, sizeof(msg)));
	if (o.op == OP_GETATTR_CALL && o.proto == NFS3) {
		if (!nfs3_getattr_res(&d, &st))
			reply_error(c, "malformed result");
		if (st == NFS3ERR_JUKEBOX) {
			delayed(c, call, idx, now);
			return;
		}
		if (st)
			reply_error(c, "%s%s", nfs3_str(st),
				    st == 1 || st == 13 ? " (the export may require a reserved source "
							  "port: --resvport)" : "");
	} else if (o.op == OP_GETATTR_CALL) {
		struct nfs4_res res;

		if (!nfs4_compound_res(&d, &res))
			reply_error(c, "malformed COMPOUND result");
		if (res.status == NFS4ERR_RETRY_UNCACHED_REP && res.failed_op == OP_SEQUENCE) {
			/* a resent call the server had already executed: done */
			res.status = 0;
			res.has_seq = res.has_getattr = true;
			res.seq_target = slot_target_seen;
		} else if (res.status == NFS4ERR_DELAY && res.failed_op != OP_SEQUENCE) {
			slot_seq[call->slot]++;
			slot_put(call->slot);
			delayed(c, call, idx, now);
			return;
		}
		if (res.status)
			reply_error(c, "%s failed: %s", nfs4_op_str(res.failed_op),
				    nfs4_str(res.status));
		if (!res.has_seq || !res.has_getattr)
			reply_error(c, "incomplete COMPOUND result");
		/* the slot's sequence advances once the server has seen the call */
		slot_seq[call->slot]++;
		slot_put(call->slot);
		if (res.seq_target != slot_target_seen) {
			slot_target_seen = res.seq_target;
			slot_limit = res.seq_target + 1 < nslots ? res.seq_target + 1 : nslots;
			verbose("server target highest slot %u: using %u slots", res.seq_target,
				slot_limit);
		}
	}
	call->xid = 0;
	c->free_idx[c->nfree++] = idx;
	c->outstanding--;
	outstanding_total--;
	c->replies++;
	replies_total++;
	t_last_reply = now;
	if (in_window(now)) {
		c->ops++;
		hist_add(&c->lat, now - call->sent);
	}
	if (call->burst) {
		burst_out--;
		if (burst_active && !burst_left && !burst_out) {
			burst_active = false;
			if (burst_t0 >= t_meas_start) {
				bursts_done++;
				hist_add(&burst_hist, now - burst_t0);
			}
			next_burst = now + (uint64_t)(o.idle_ms * 1e6);
		}
	}
}

static void do_read(struct conn *c)
{
	uint64_t now;
	int rounds;

	for (rounds = 0; rounds < 16; rounds++) {
		const uint8_t *rec;
		uint8_t *p = rm_space(&c->rd, 65536);
		size_t len;
		ssize_t n;
		int got;

		if (!p)
			fatal("out of memory");
		n = read(c->fd, p, 65536);
		if (n == 0) {
			reconnect(c, "closed by the server");
			return;
		}
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				break;
			if (errno == ECONNRESET) {
				reconnect(c, "reset by the server");
				return;
			}
			fatal("connection %d (%s): receive: %s", c->id, c->local, strerror(errno));
		}
		rm_commit(&c->rd, n);
		now = now_ns();
		while ((got = rm_next(&c->rd, &rec, &len)) > 0)
			handle_reply(c, rec, len, now);
		if (got < 0)
			fatal("connection %d (%s): reply record over %d bytes", c->id, c->local,
			      MAX_RECORD);
		if (n < 65536)
			break;
	}
}

static void series_line(uint64_t now)
{
	struct timespec wall;
	int i;

	clock_gettime(CLOCK_REALTIME, &wall);
	fprintf(series_fp, "{\"t\":%.6f,\"wall\":%ld.%06ld,\"replies\":%" PRIu64 ",\"conn\":[",
		(double)now / NSEC, (long)wall.tv_sec, wall.tv_nsec / 1000, replies_total);
	for (i = 0; i < o.conns; i++)
		fprintf(series_fp, "%s%" PRIu64, i ? "," : "", conns[i].replies);
	fprintf(series_fp, "]}\n");
	fflush(series_fp);
}

static void on_signal(int sig)
{
	(void)sig;
	got_signal = got_signal + 1;	/* a second signal abandons the outstanding calls */
}

static void on_continue(int sig)
{
	(void)sig;
	resumed = 1;
}

static void start_burst(uint64_t now)
{
	burst_active = true;
	burst_left = o.burst;
	burst_out = 0;
	burst_t0 = now;
	bursts_calls += o.burst;
	fill_all();
}

static void run(void)
{
	struct epoll_event evs[64];
	uint64_t next_series = 0, now;
	int i;

	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0)
		fatal("epoll: %s", strerror(errno));
	for (i = 0; i < o.conns; i++) {
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &conns[i] };

		if (epoll_ctl(ep, EPOLL_CTL_ADD, conns[i].fd, &ev))
			fatal("epoll: %s", strerror(errno));
	}
	now = t_start = now_ns();
	t_meas_start = t_start + (uint64_t)(o.warmup * NSEC);
	t_meas_end = o.duration > 0 ? t_meas_start + (uint64_t)(o.duration * NSEC) : UINT64_MAX;
	t_last_reply = now;
	next_burst = now;
	if (series_fp) {
		series_line(now);
		next_series = now + (uint64_t)(o.interval * NSEC);
	}
	if (!o.burst) {
		for (i = 0; i < o.conns; i++)
			fill(&conns[i]);
	}
	for (;;) {
		uint64_t wake = UINT64_MAX;
		int n, timeout;

		now = now_ns();
		if (resumed) {
			resumed = 0;
			t_resumed = now;
		}
		if (!stopping && (now >= t_meas_end || got_signal ||
				  (o.calls && issued >= o.calls))) {
			stopping = true;
			/* interrupted: the measurement ends now; with --calls, at the last reply */
			if (got_signal && now < t_meas_end)
				t_meas_end = now;
		}
		if (stopping && !outstanding_total && !burst_active)
			break;
		if (o.burst && !stopping && !burst_active && now >= next_burst)
			start_burst(now);
		if (series_fp && now >= next_series) {
			series_line(now);
			next_series += (uint64_t)(o.interval * NSEC);
			if (next_series <= now)
				next_series = now + (uint64_t)(o.interval * NSEC);
		}
		if (outstanding_total &&
		    now - (t_resumed > t_last_reply ? t_resumed : t_last_reply) >
		    (uint64_t)(o.timeout * NSEC))
			fatal("no reply from the server for %g s (%" PRIu64 " calls outstanding)",
			      o.timeout, outstanding_total);
		if (got_signal > 1)
			fatal("interrupted while waiting for %" PRIu64 " outstanding replies",
			      outstanding_total);

		if (!stopping && t_meas_end < wake)
			wake = t_meas_end;
		if (o.burst && !stopping && !burst_active && next_burst < wake)
			wake = next_burst;
		if (series_fp && next_series < wake)
			wake = next_series;
		timeout = 100;
		if (wake != UINT64_MAX) {
			uint64_t ms = wake > now ? (wake - now + 999999) / 1000000 : 0;

			if (ms < (uint64_t)timeout)
				timeout = (int)ms;
		}
		n = epoll_wait(ep, evs, 64, timeout);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			fatal("epoll_wait: %s", strerror(errno));
		}
		for (i = 0; i < n; i++) {
			struct conn *c = evs[i].data.ptr;

			if (evs[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP))
				do_read(c);
			if (evs[i].events & EPOLLOUT)
				flush(c);
		}
		if (o.burst || holds || (o.proto == NFS41 && o.op == OP_GETATTR_CALL))
			fill_all();
		else
			for (i = 0; i < n; i++)
				fill(evs[i].data.ptr);
	}
	if (t_meas_end > t_last_reply + 1)
		t_meas_end = t_last_reply + 1;
	if (series_fp)
		series_line(now_ns());
}

/* ---- reports ---- */

static double measured_s(void)
{
	return t_meas_end > t_meas_start ? (double)(t_meas_end - t_meas_start) / NSEC : 0;
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = *s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

static void json_lat(FILE *f, const char *name, const struct hist *h)
{
	fprintf(f, "\"%s\":{\"count\":%" PRIu64 ",\"min\":%.1f,\"mean\":%.1f,\"p50\":%.1f,"
		"\"p90\":%.1f,\"p99\":%.1f,\"max\":%.1f}", name, h->count,
		h->min / 1e3, hist_mean(h) / 1e3, hist_pct(h, 0.5) / 1e3, hist_pct(h, 0.9) / 1e3,
		hist_pct(h, 0.99) / 1e3, h->max / 1e3);
}

static void report_json(const struct hist *all, uint64_t ops)
{
	double secs = measured_s();
	FILE *f = stdout;
	int i;

	fprintf(f, "{\"tool\":\"fairq-load\",\"version\":");
	json_str(f, FAIRQ_LOAD_VERSION);
	fprintf(f, ",\"label\":");
	json_str(f, o.label ? o.label : "");
	fprintf(f, ",\"server\":");
	json_str(f, o.host);
	fprintf(f, ",\"port\":%d,\"proto\":\"%s\",\"op\":\"%s\",\"connections\":%d,\"window\":%d,",
		o.port, proto_name(), op_name(), o.conns, o.window);
	fprintf(f, "\"source\":");
	json_str(f, o.bind ? o.bind : "");
	if (o.burst)
		fprintf(f, ",\"burst\":{\"calls\":%d,\"idle_ms\":%g}", o.burst, o.idle_ms);
	else
		fprintf(f, ",\"burst\":null");
	if (o.proto == NFS41 && o.op == OP_GETATTR_CALL)
		fprintf(f, ",\"session\":{\"slots\":%u,\"conn_join\":\"%s\"}", nslots,
			o.v4conn == V4_BIND ? "bind" : "sequence");
	fprintf(f, ",\"warmup_s\":%g,\"duration_s\":%.6f,\"t_start\":%.6f,\"t_end\":%.6f",
		o.warmup, secs, (double)t_meas_start / NSEC, (double)t_meas_end / NSEC);
	fprintf(f, ",\"calls_sent\":%" PRIu64 ",\"replies\":%" PRIu64 ",\"reconnects\":%" PRIu64
		",\"resent\":%" PRIu64 ",\"delayed\":%" PRIu64, issued, replies_total, reconnects_total,
		resent_total, delayed_total);
	fprintf(f, ",\"client\":{\"ops\":%" PRIu64 ",\"ops_per_s\":%.3f,", ops,
		secs > 0 ? ops / secs : 0);
	json_lat(f, "latency_us", all);
	if (o.burst) {
		fprintf(f, ",\"bursts\":{\"count\":%" PRIu64 ",", bursts_done);
		json_lat(f, "completion_us", &burst_hist);
		fprintf(f, "}");
	}
	if (o.forge) {
		fprintf(f, ",\"forged_sequence\":{\"sent\":%" PRIu64 ",\"refused\":%" PRIu64
			",\"accepted\":%" PRIu64 ",\"statuses\":{", forged_sent, forged_refused,
			forged_accepted);
		for (i = 0; i < forged_nst; i++)
			fprintf(f, "%s\"%u\":%" PRIu64, i ? "," : "", forged_st[i].status,
				forged_st[i].count);
		fprintf(f, "}}");
	}
	fprintf(f, "},\"per_connection\":[");
	for (i = 0; i < o.conns; i++) {
		struct conn *c = &conns[i];

		fprintf(f, "%s{\"id\":%d,\"local\":", i ? "," : "", c->id);
		json_str(f, c->local);
		fprintf(f, ",\"ops\":%" PRIu64 ",\"ops_per_s\":%.3f,", c->ops,
			secs > 0 ? c->ops / secs : 0);
		json_lat(f, "latency_us", &c->lat);
		fprintf(f, "}");
	}
	fprintf(f, "]}\n");
}

static void table_row(const char *name, const char *local, uint64_t ops, double secs,
		      const struct hist *h)
{
	printf("%-6s %-24s %10" PRIu64 " %10.1f %9.3f %9.3f %9.3f %9.3f\n", name, local, ops,
	       secs > 0 ? ops / secs : 0, hist_pct(h, 0.5) / 1e6, hist_pct(h, 0.9) / 1e6,
	       hist_pct(h, 0.99) / 1e6, h->max / 1e6);
}

static void report_table(const struct hist *all, uint64_t ops)
{
	double secs = measured_s();
	char id[16];
	int i;

	printf("fairq-load: %s %s to %s:%d, %d connection%s x window %d, %.1f s measured\n",
	       proto_name(), op_name(), o.host, o.port, o.conns, o.conns == 1 ? "" : "s", o.window,
	       secs);
	printf("%-6s %-24s %10s %10s %9s %9s %9s %9s\n", "conn", "local", "ops", "ops/s",
	       "p50 ms", "p90 ms", "p99 ms", "max ms");
	for (i = 0; i < o.conns; i++) {
		snprintf(id, sizeof(id), "%d", i);
		table_row(id, conns[i].local, conns[i].ops, secs, &conns[i].lat);
	}
	table_row("all", o.bind ? o.bind : "", ops, secs, all);
	if (reconnects_total || delayed_total)
		printf("the server closed connections %" PRIu64 " times (%" PRIu64 " calls sent again); "
		       "%" PRIu64 " calls were answered \"try again later\"\n", reconnects_total,
		       resent_total, delayed_total);
	if (o.burst)
		printf("bursts of %d, idle %g ms: %" PRIu64 " completed; completion p50 %.3f p90 %.3f "
		       "p99 %.3f max %.3f ms\n", o.burst, o.idle_ms, bursts_done,
		       hist_pct(&burst_hist, 0.5) / 1e6, hist_pct(&burst_hist, 0.9) / 1e6,
		       hist_pct(&burst_hist, 0.99) / 1e6, burst_hist.max / 1e6);
	if (o.forge) {
		printf("forged SEQUENCE: %" PRIu64 " sent, %" PRIu64 " refused", forged_sent,
		       forged_refused);
		for (i = 0; i < forged_nst; i++)
			printf("%s%u x%" PRIu64, i ? ", " : " (statuses: ", forged_st[i].status,
			       forged_st[i].count);
		printf("%s, %" PRIu64 " accepted\n", forged_nst ? ")" : "", forged_accepted);
	}
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	static struct hist all;
	char hn[128] = "fairq-load";
	uint64_t ops = 0;
	int i;

	parse_args(argc, argv);
	signal(SIGPIPE, SIG_IGN);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* unlike a stop signal, it must not turn a blocking call into EINTR */
	sa.sa_handler = on_continue;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGCONT, &sa, NULL);

	gethostname(hn, sizeof(hn) - 1);
	cred.stamp = (uint32_t)time(NULL);
	cred.machine = hn;
	cred.uid = geteuid();
	cred.gid = getegid();

	resolve(o.host, o.port, &srv_addr, &srv_len, AF_UNSPEC, false, "server");
	if (o.bind)
		resolve(o.bind, 0, &bind_addr, &bind_len, srv_addr.ss_family, true,
			"source address (must be numeric, same family as the server)");
	if (o.series) {
		series_fp = fopen(o.series, "a");
		if (!series_fp)
			fatal("%s: %s", o.series, strerror(errno));
	}
	if (o.proto == NFS3 && o.op == OP_GETATTR_CALL)
		mount_export();
	conns = calloc(o.conns, sizeof(*conns));
	if (!conns)
		fatal("out of memory");
	for (i = 0; i < o.conns; i++) {
		conn_init(&conns[i], i);
		if (o.forge)
			forge_sequence(&conns[i]);
	}
	verbose("%d connection%s to %s:%d", o.conns, o.conns == 1 ? "" : "s", o.host, o.port);
	if (o.proto == NFS41 && o.op == OP_GETATTR_CALL)
		v4_session();

	hist_init(&burst_hist);
	run();

	if (o.proto == NFS41 && o.op == OP_GETATTR_CALL)
		v4_teardown();
	if (o.proto == NFS3 && o.op == OP_GETATTR_CALL)
		unmount_export();
	hist_init(&all);
	for (i = 0; i < o.conns; i++) {
		hist_merge(&all, &conns[i].lat);
		ops += conns[i].ops;
		close(conns[i].fd);
	}
	if (o.json)
		report_json(&all, ops);
	else
		report_table(&all, ops);
	if (o.burst && !bursts_done)
		fatal("no burst completed in the measured time");
	if (!ops)
		fatal("no call completed in the measured time");
	return 0;
}
