// SPDX-License-Identifier: GPL-2.0-only
/*
 * fairqctl's generic netlink session: the family lookup, and the one place that turns a request
 * into replies, an ack or an error with the kernel's extack text (libnl-3 callbacks).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <netlink/netlink.h>
#include <netlink/genl/genl.h>
#include <netlink/genl/ctrl.h>
#include "fairqctl.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

#define FC_NL_MAXATTR 63

struct fc_nl {
	struct nl_sock *sk;	/* requests and their replies */
	struct nl_sock *ev;	/* the events groups, opened on demand */
	int key_events;		/* 0: joined the key-events group too; else why not (-errno) */
	int family;
	char msg[256];		/* the kernel's extack message about the last failure */
};

/* One request in flight: where its replies go and how it ended. */
struct fc_tx {
	struct fc_nl *nl;
	int maxattr;
	fc_nl_parse_fn parse;
	void *arg;
	uint32_t seq;		/* the request's sequence number, which its replies carry */
	int err;		/* 0 or -errno */
	bool done;
};

static void set_opt(struct nl_sock *sk, int opt)
{
	int one = 1;

	/* older kernels lack these options: messages are then plain errnos */
	(void)setsockopt(nl_socket_get_fd(sk), SOL_NETLINK, opt, &one, sizeof(one));
}

int fc_nl_open(struct fc_nl **nlp)
{
	struct fc_nl *nl;

	*nlp = NULL;
	if (fc_opts.netns) {
		int rc = fc_netns_enter(fc_opts.netns);

		if (rc)
			return rc;
	}
	nl = calloc(1, sizeof(*nl));
	if (!nl) {
		fc_err("out of memory");
		return FC_EXIT_FAIL;
	}
	nl->sk = nl_socket_alloc();
	if (!nl->sk || genl_connect(nl->sk)) {
		fc_err("cannot open a generic netlink socket: %s", strerror(errno));
		fc_nl_close(nl);
		return FC_EXIT_FAIL;
	}
	set_opt(nl->sk, NETLINK_EXT_ACK);
	set_opt(nl->sk, NETLINK_CAP_ACK);
	/*
	 * Read in 32 KiB, the most the kernel puts in one dump message (it sizes them by the
	 * reader's buffer): libnl's default of 16 KiB, each read after a peek at its size, made
	 * a dump of 10,000 keys about 140 rounds of the module's dump callback and two system
	 * calls each, instead of about 70 and one.  A set size ends libnl's peek-and-grow, so no
	 * reply on this socket may be larger: the module's replies are of NLMSG_GOODSIZE, and
	 * its events come on nl->ev, which keeps libnl's defaults.
	 */
	nl_socket_set_msg_buf_size(nl->sk, 32768);
	nl->family = genl_ctrl_resolve(nl->sk, FAIRQ_FAMILY_NAME);
	if (nl->family < 0) {
		if (nl->family == -NLE_OBJ_NOTFOUND) {
			fc_err("fairq is not loaded (modprobe fairq)");
			fc_nl_close(nl);
			return FC_EXIT_NOT_LOADED;
		}
		fc_err("cannot look up the fairq netlink family: %s", nl_geterror(nl->family));
		fc_nl_close(nl);
		return FC_EXIT_FAIL;
	}
	/* every later reply on this socket is matched by fc_nl_transact(), not by libnl */
	nl_socket_disable_seq_check(nl->sk);
	*nlp = nl;
	return FC_EXIT_OK;
}

void fc_nl_close(struct fc_nl *nl)
{
	if (!nl)
		return;
	nl_socket_free(nl->sk);
	nl_socket_free(nl->ev);
	free(nl);
}

struct nl_msg *fc_nl_msg(struct fc_nl *nl, uint8_t cmd, bool dump)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (!msg)
		return NULL;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, nl->family, 0, dump ? NLM_F_DUMP : 0,
			 cmd, FAIRQ_FAMILY_VERSION)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/* The extack attributes that follow an error or a dump's NLMSG_DONE, @off bytes in. */
static void ext_ack(struct fc_nl *nl, struct nlmsghdr *nlh, size_t off)
{
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	int len = (int)nlh->nlmsg_len - NLMSG_HDRLEN - (int)NLMSG_ALIGN(off);

	nl->msg[0] = '\0';
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS) || len <= 0)
		return;
	if (nla_parse(tb, NLMSGERR_ATTR_MAX,
		      (struct nlattr *)((char *)nlmsg_data(nlh) + NLMSG_ALIGN(off)), len, NULL))
		return;
	if (tb[NLMSGERR_ATTR_MSG])
		snprintf(nl->msg, sizeof(nl->msg), "%s", nla_get_string(tb[NLMSGERR_ATTR_MSG]));
#ifdef NLMSGERR_ATTR_MISS_TYPE
	else if (tb[NLMSGERR_ATTR_MISS_TYPE])
		snprintf(nl->msg, sizeof(nl->msg), "attribute %u missing",
			 nla_get_u32(tb[NLMSGERR_ATTR_MISS_TYPE]));
#endif
}

/* A reply with attributes: to the caller's @parse, whose -errno ends the request. */
static void on_valid(struct fc_tx *tx, struct nlmsghdr *nlh)
{
	struct nlattr *tb[FC_NL_MAXATTR + 1];
	int err;

	if (genlmsg_parse(nlh, 0, tb, tx->maxattr, NULL)) {
		tx->err = -EPROTO;
		tx->done = true;
		return;
	}
	err = tx->parse ? tx->parse(tb, nlh, tx->arg) : 0;
	if (err < 0) {
		tx->err = err;
		tx->done = true;
	}
}

/* A dump's end: it says why it failed, if it did, as the errno and then extack attributes. */
static void on_finish(struct fc_tx *tx, struct nlmsghdr *nlh)
{
	int err = 0;

	if (nlh->nlmsg_len >= NLMSG_HDRLEN + sizeof(err))
		memcpy(&err, nlmsg_data(nlh), sizeof(err));
	if (err < 0) {
		tx->err = err;
		ext_ack(tx->nl, nlh, sizeof(err));
	}
	tx->done = true;
}

/* An error, or with 0 the ack that ends a request that is not a dump. */
static void on_error(struct fc_tx *tx, struct nlmsghdr *nlh)
{
	struct nlmsgerr *e = nlmsg_data(nlh);
	size_t off = sizeof(*e);

	tx->done = true;
	if (nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(*e)) {
		tx->err = -EPROTO;
		return;
	}
	if (!e->error)
		return;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - NLMSG_HDRLEN;	/* the request, echoed */
	ext_ack(tx->nl, nlh, off);
	tx->err = e->error;
}

/*
 * One read of replies, each handled where it lies in the buffer.  nl_recvmsgs() copies every
 * message into an nl_msg of its own first: an allocation, a copy and a free a message, which
 * in a dump of 10,000 keys cost as much as parsing them.  Replies to an earlier request (a
 * sequence number not @tx's) are passed over, as a request given up on leaves them.
 */
static int tx_read(struct fc_tx *tx)
{
	struct sockaddr_nl who;
	unsigned char *buf = NULL;
	struct nlmsghdr *nlh;
	int n;

	n = nl_recv(tx->nl->sk, &who, &buf, NULL);
	if (n <= 0) {
		free(buf);
		snprintf(tx->nl->msg, sizeof(tx->nl->msg), "%s",
			 n ? nl_geterror(n) : "an empty read from the netlink socket");
		return -EIO;
	}
	for (nlh = (struct nlmsghdr *)buf; nlmsg_ok(nlh, n) && !tx->done;
	     nlh = nlmsg_next(nlh, &n)) {
		if (nlh->nlmsg_seq != tx->seq)
			continue;
		switch (nlh->nlmsg_type) {
		case NLMSG_NOOP:
			break;
		case NLMSG_DONE:
			on_finish(tx, nlh);
			break;
		case NLMSG_ERROR:
			on_error(tx, nlh);
			break;
		case NLMSG_OVERRUN:
			tx->err = -EOVERFLOW;
			tx->done = true;
			break;
		default:
			on_valid(tx, nlh);
			/* a reply that is not part of a dump is followed by the ack */
			break;
		}
	}
	free(buf);
	/* bytes left that are no whole message: reading on would wait for good */
	if (!tx->done && n > 0) {
		snprintf(tx->nl->msg, sizeof(tx->nl->msg), "a malformed reply from the kernel");
		return -EPROTO;
	}
	return 0;
}

/**
 * fc_nl_transact - send @msg (consumed), hand every reply to @parse, wait for the end
 * @maxattr: the highest attribute of the replies' attribute set
 *
 * Works for do requests (reply, then ack) and dumps (replies, then NLMSG_DONE).  Every reply on
 * this socket after the family lookup is read here, not by libnl's nl_recvmsgs(): the replies
 * are matched to the request's sequence number.  Return: 0, or -errno with the kernel's extack
 * text kept for fc_nl_fail().
 */
int fc_nl_transact(struct fc_nl *nl, struct nl_msg *msg, int maxattr, fc_nl_parse_fn parse,
		   void *arg)
{
	struct fc_tx tx = { .nl = nl, .maxattr = maxattr, .parse = parse, .arg = arg };
	int err;

	nl->msg[0] = '\0';
	if (!msg)
		return -ENOMEM;
	if (maxattr > FC_NL_MAXATTR) {
		nlmsg_free(msg);
		return -EINVAL;
	}
	err = nl_send_auto(nl->sk, msg);
	tx.seq = nlmsg_hdr(msg)->nlmsg_seq;
	nlmsg_free(msg);
	if (err < 0) {
		snprintf(nl->msg, sizeof(nl->msg), "%s", nl_geterror(err));
		return -EIO;
	}
	while (!tx.done) {
		err = tx_read(&tx);
		if (err)
			return err;
	}
	return tx.err;
}

/* Say why a request failed, in one line; return the exit code that goes with it. */
int fc_nl_fail(struct fc_nl *nl, int err, const char *what)
{
	const char *why = nl->msg[0] ? nl->msg : strerror(-err);

	switch (-err) {
	case EPERM:
	case EACCES:
		if (!nl->msg[0])
			why = "permission denied (changing fairq needs CAP_SYS_ADMIN; per-client data, CAP_NET_ADMIN)";
		fc_err("%s: %s", what, why);
		return FC_EXIT_PERM;
	case ENOENT:
		fc_err("%s: %s", what, why);
		return FC_EXIT_NOENT;
	case EOPNOTSUPP:
		fc_err("%s: %s", what, why);
		return FC_EXIT_NOTSUP;
	default:
		fc_err("%s: %s", what, why);
		return FC_EXIT_FAIL;
	}
}

/*
 * The events groups' socket (opened once, non-blocking), for poll(); -1 on failure.  Weight
 * and class changes name clients: their group needs CAP_NET_ADMIN, and is joined only where
 * allowed (fc_nl_key_events() says).
 */
int fc_nl_events_fd(struct fc_nl *nl)
{
	int grp;

	if (nl->ev)
		return nl_socket_get_fd(nl->ev);
	nl->ev = nl_socket_alloc();
	if (!nl->ev || genl_connect(nl->ev)) {
		fc_err("cannot open a generic netlink socket: %s", strerror(errno));
		return -1;
	}
	grp = genl_ctrl_resolve_grp(nl->ev, FAIRQ_FAMILY_NAME, FAIRQ_MCGRP_EVENTS);
	if (grp < 0 || nl_socket_add_membership(nl->ev, grp) < 0 ||
	    nl_socket_set_nonblocking(nl->ev) < 0) {
		fc_err("cannot join fairq's events group: %s",
		       nl_geterror(grp < 0 ? grp : -NLE_FAILURE));
		return -1;
	}
	grp = genl_ctrl_resolve_grp(nl->ev, FAIRQ_FAMILY_NAME, FAIRQ_MCGRP_KEY_EVENTS);
	if (grp < 0)
		nl->key_events = -ENOENT;	/* a module from before weight events */
	else if (nl_socket_add_membership(nl->ev, grp) < 0)
		nl->key_events = errno == EPERM || errno == EACCES ? -EPERM : -errno;
	else
		nl->key_events = 0;
	return nl_socket_get_fd(nl->ev);
}

/*
 * 0 if weight and class changes are heard, else why not: -EPERM (no CAP_NET_ADMIN), -ENOENT
 * (an old module).
 */
int fc_nl_key_events(const struct fc_nl *nl)
{
	return nl->key_events;
}

struct fc_ev {
	fc_nl_parse_fn parse;
	void *arg;
	int err;
};

/*
 * Each event's attributes are those of its set: the switch and tunables', weights', pools',
 * classes'.
 */
static int on_event(struct nl_msg *msg, void *data)
{
	struct genlmsghdr *gh = nlmsg_data(nlmsg_hdr(msg));
	struct nlattr *tb[FC_NL_MAXATTR + 1];
	struct fc_ev *ev = data;
	int maxattr;

	switch (gh->cmd) {
	case FAIRQ_CMD_SCHED_SWITCH_NTF:
	case FAIRQ_CMD_PARAM_CHANGE_NTF:
		maxattr = FAIRQ_A_SCHED_MAX;
		break;
	case FAIRQ_CMD_WEIGHT_CHANGE_NTF:
		maxattr = FAIRQ_A_KEY_MAX;
		break;
	case FAIRQ_CMD_RESCUE_NTF:
		maxattr = FAIRQ_A_POOL_MAX;
		break;
	case FAIRQ_CMD_CLASS_CHANGE_NTF:
		maxattr = FAIRQ_A_CLASS_MAX;
		break;
	default:
		return NL_SKIP;	/* from a newer module */
	}
	_Static_assert(FAIRQ_A_SCHED_MAX <= FC_NL_MAXATTR && FAIRQ_A_KEY_MAX <= FC_NL_MAXATTR &&
		       FAIRQ_A_POOL_MAX <= FC_NL_MAXATTR && FAIRQ_A_CLASS_MAX <= FC_NL_MAXATTR,
		       "an event set outgrew FC_NL_MAXATTR");
	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, maxattr, NULL))
		return NL_SKIP;
	ev->err = ev->parse(tb, nlmsg_hdr(msg), ev->arg);
	return ev->err < 0 ? NL_STOP : NL_OK;
}

static int no_seq_check(struct nl_msg *msg, void *data)
{
	(void)msg;
	(void)data;
	return NL_OK;
}

/* Hand every event waiting on the events socket to @parse.  Return: 0 or -errno. */
int fc_nl_events_read(struct fc_nl *nl, fc_nl_parse_fn parse, void *arg)
{
	struct fc_ev ev = { .parse = parse, .arg = arg };
	struct nl_cb *cb = nl_cb_alloc(NL_CB_DEFAULT);
	int err;

	if (!cb)
		return -ENOMEM;
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_event, &ev);
	/* notifications carry no sequence number of ours */
	nl_cb_set(cb, NL_CB_SEQ_CHECK, NL_CB_CUSTOM, no_seq_check, NULL);
	do {
		err = nl_recvmsgs(nl->ev, cb);
	} while (err >= 0 && !ev.err);
	nl_cb_put(cb);
	if (ev.err)
		return ev.err;
	if (err == -NLE_AGAIN)
		return 0;
	/* the kernel dropped events the socket had no room for: the socket itself goes on */
	return err == -NLE_NOMEM ? -ENOBUFS : -EIO;
}
