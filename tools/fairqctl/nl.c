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

static int on_valid(struct nl_msg *msg, void *data)
{
	struct fc_tx *tx = data;
	struct nlattr *tb[FC_NL_MAXATTR + 1];
	int err;

	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, tx->maxattr, NULL)) {
		tx->err = -EPROTO;
		tx->done = true;
		return NL_STOP;
	}
	err = tx->parse ? tx->parse(tb, nlmsg_hdr(msg), tx->arg) : 0;
	if (err < 0) {
		tx->err = err;
		tx->done = true;
		return NL_STOP;
	}
	return NL_OK;
}

static int on_finish(struct nl_msg *msg, void *data)
{
	struct fc_tx *tx = data;
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	int err = 0;

	/* a dump that failed says why in its NLMSG_DONE: the errno, then extack attributes */
	if (nlh->nlmsg_len >= NLMSG_HDRLEN + sizeof(err))
		memcpy(&err, nlmsg_data(nlh), sizeof(err));
	if (err < 0) {
		tx->err = err;
		ext_ack(tx->nl, nlh, sizeof(err));
	}
	tx->done = true;
	return NL_STOP;
}

static int on_ack(struct nl_msg *msg, void *data)
{
	struct fc_tx *tx = data;

	(void)msg;
	tx->done = true;
	return NL_STOP;
}

static int on_error(struct sockaddr_nl *who, struct nlmsgerr *e, void *data)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)((char *)e - NLMSG_HDRLEN);
	struct fc_tx *tx = data;
	size_t off = sizeof(*e);

	(void)who;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - NLMSG_HDRLEN;	/* the request, echoed */
	ext_ack(tx->nl, nlh, off);
	tx->err = e->error;
	tx->done = true;
	return NL_STOP;
}

/**
 * fc_nl_transact - send @msg (consumed), hand every reply to @parse, wait for the end
 * @maxattr: the highest attribute of the replies' attribute set
 *
 * Works for do requests (reply, then ack) and dumps (replies, then NLMSG_DONE).  Return: 0, or
 * -errno with the kernel's extack text kept for fc_nl_fail().
 */
int fc_nl_transact(struct fc_nl *nl, struct nl_msg *msg, int maxattr, fc_nl_parse_fn parse,
		   void *arg)
{
	struct fc_tx tx = { .nl = nl, .maxattr = maxattr, .parse = parse, .arg = arg };
	struct nl_cb *cb;
	int err;

	nl->msg[0] = '\0';
	if (!msg)
		return -ENOMEM;
	if (maxattr > FC_NL_MAXATTR) {
		nlmsg_free(msg);
		return -EINVAL;
	}
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, &tx);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, on_finish, &tx);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, &tx);
	nl_cb_err(cb, NL_CB_CUSTOM, on_error, &tx);

	err = nl_send_auto(nl->sk, msg);
	nlmsg_free(msg);
	if (err < 0) {
		nl_cb_put(cb);
		snprintf(nl->msg, sizeof(nl->msg), "%s", nl_geterror(err));
		return -EIO;
	}
	while (!tx.done) {
		err = nl_recvmsgs(nl->sk, cb);
		if (err < 0 && !tx.done) {
			snprintf(nl->msg, sizeof(nl->msg), "%s", nl_geterror(err));
			tx.err = -EIO;
			break;
		}
	}
	nl_cb_put(cb);
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
