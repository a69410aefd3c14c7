// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host-side tests of fc_nl_transact()'s walk of the replies, no module needed: the replies
 * come from a script, handed out by this program's own sendmsg() and recvmsg(), which stand in
 * for libc's on the one netlink socket the test opens.  A do request answered and acked in two
 * reads, an error with its extack text, a dump and a dump that ends in an error, a stale reply
 * passed over, and a read that leaves bytes that are no whole message.  nl.c is included for
 * its struct fc_nl.  Prints "N passed, N failed".
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "../nl.c"
#include "../../../tests/unit/check.h"

#define FAMILY	0x20
#define MAX_READS	4
#define READ_SIZE	1024

/* The script: the reads the next request's replies come in, as built by the cases below. */
static unsigned char reads[MAX_READS][READ_SIZE];
static size_t read_len[MAX_READS];
static unsigned int nr_reads, next_read;
static int test_fd = -1;
static uint32_t request_seq;

/* One message at @buf + *@off: header, a generic netlink header for replies, then @payload. */
static void put_msg(unsigned int r, uint16_t type, uint16_t flags, uint32_t seq,
		    const void *payload, size_t len, bool genl)
{
	unsigned char *p = reads[r] + read_len[r];
	struct nlmsghdr *nlh = (struct nlmsghdr *)p;
	size_t hdr = NLMSG_HDRLEN + (genl ? GENL_HDRLEN : 0);

	memset(p, 0, NLMSG_ALIGN(hdr + len));
	nlh->nlmsg_len = hdr + len;
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = flags;
	nlh->nlmsg_seq = seq;
	if (genl)
		((struct genlmsghdr *)(p + NLMSG_HDRLEN))->cmd = 1;
	memcpy(p + hdr, payload, len);
	read_len[r] += NLMSG_ALIGN(hdr + len);
	if (r >= nr_reads)
		nr_reads = r + 1;
}

/* A reply carrying attribute 1 as a u32 @v. */
static void put_reply(unsigned int r, uint32_t seq, uint16_t flags, uint32_t v)
{
	unsigned char a[8];
	struct nlattr *nla = (struct nlattr *)a;

	nla->nla_len = NLA_HDRLEN + sizeof(v);
	nla->nla_type = 1;
	memcpy(a + NLA_HDRLEN, &v, sizeof(v));
	put_msg(r, FAMILY, flags, seq, a, sizeof(a), true);
}

/* @text as an extack message after the @*len bytes of @b, and the flag that says so. */
static void put_extack(unsigned char *b, size_t *len, uint16_t *flags, const char *text)
{
	struct nlattr *nla = (struct nlattr *)(b + *len);

	if (!text)
		return;
	nla->nla_type = NLMSGERR_ATTR_MSG;
	nla->nla_len = NLA_HDRLEN + strlen(text) + 1;
	strcpy((char *)nla + NLA_HDRLEN, text);
	*len += NLA_ALIGN(nla->nla_len);
	*flags |= NLM_F_ACK_TLVS;
}

/* An NLMSG_ERROR of @err (0: the ack), capped, with @text as its extack message if any. */
static void put_error(unsigned int r, uint32_t seq, int err, const char *text)
{
	unsigned char b[sizeof(struct nlmsgerr) + 64] = { 0 };
	struct nlmsgerr *e = (struct nlmsgerr *)b;
	size_t len = sizeof(*e);
	uint16_t flags = NLM_F_CAPPED;

	e->error = err;
	e->msg.nlmsg_len = NLMSG_HDRLEN;
	put_extack(b, &len, &flags, text);
	put_msg(r, NLMSG_ERROR, flags, seq, b, len, false);
}

/* A dump's end, with @err (and @text as its extack message) if it failed. */
static void put_done(unsigned int r, uint32_t seq, int err, const char *text)
{
	unsigned char b[64] = { 0 };
	size_t len = sizeof(err);
	uint16_t flags = NLM_F_MULTI;

	memcpy(b, &err, sizeof(err));
	put_extack(b, &len, &flags, text);
	put_msg(r, NLMSG_DONE, flags, seq, b, len, false);
}

/* The stand-ins for libc's, on the test's socket only: the request's number, then the script. */
ssize_t sendmsg(int fd, const struct msghdr *m, int flags)
{
	static ssize_t (*real)(int, const struct msghdr *, int);

	if (fd == test_fd) {
		const struct nlmsghdr *nlh = m->msg_iov[0].iov_base;

		request_seq = nlh->nlmsg_seq;
		return nlh->nlmsg_len;
	}
	if (!real)
		real = (ssize_t (*)(int, const struct msghdr *, int))dlsym(RTLD_NEXT, "sendmsg");
	return real(fd, m, flags);
}

ssize_t recvmsg(int fd, struct msghdr *m, int flags)
{
	static ssize_t (*real)(int, struct msghdr *, int);
	size_t n;

	if (fd != test_fd) {
		if (!real)
			real = (ssize_t (*)(int, struct msghdr *, int))dlsym(RTLD_NEXT, "recvmsg");
		return real(fd, m, flags);
	}
	if (next_read == nr_reads)
		return 0;	/* nothing scripted is left: a read that would wait for good */
	n = read_len[next_read];
	if (n > m->msg_iov[0].iov_len)
		n = m->msg_iov[0].iov_len;
	memcpy(m->msg_iov[0].iov_base, reads[next_read], n);
	if (m->msg_name && m->msg_namelen >= sizeof(struct sockaddr_nl)) {
		struct sockaddr_nl *who = m->msg_name;

		memset(who, 0, sizeof(*who));
		who->nl_family = AF_NETLINK;
		m->msg_namelen = sizeof(*who);
	}
	m->msg_flags = 0;
	m->msg_controllen = 0;
	if (!(flags & MSG_PEEK))
		next_read++;
	return n;
}

struct seen {
	unsigned int nr;
	uint32_t last;
};

static int count_reply(struct nlattr **tb, struct nlmsghdr *nlh, void *arg)
{
	struct seen *s = arg;

	(void)nlh;
	s->nr++;
	s->last = tb[1] ? nla_get_u32(tb[1]) : 0;
	return 0;
}

/* The request the script was written for: its sequence number is the socket's next one. */
static uint32_t next_seq(struct fc_nl *nl)
{
	memset(read_len, 0, sizeof(read_len));
	nr_reads = next_read = 0;
	return nl_socket_use_seq(nl->sk) + 1;
}

static int transact(struct fc_nl *nl, bool dump, struct seen *s)
{
	memset(s, 0, sizeof(*s));
	return fc_nl_transact(nl, fc_nl_msg(nl, 1, dump), 1, count_reply, s);
}

int main(void)
{
	struct fc_nl nl = { .family = FAMILY };
	struct seen s;
	uint32_t seq;
	int err;

	nl.sk = nl_socket_alloc();
	if (!nl.sk || nl_connect(nl.sk, NETLINK_GENERIC)) {
		printf("# no netlink socket here: nothing tested\n");
		return 77;	/* skipped, as tests/run.sh counts it */
	}
	test_fd = nl_socket_get_fd(nl.sk);
	nl_socket_set_msg_buf_size(nl.sk, 32768);
	nl_socket_disable_seq_check(nl.sk);

	/* a do request: its reply in one read, the ack in the next */
	seq = next_seq(&nl);
	put_reply(0, seq, 0, 7);
	put_error(1, seq, 0, NULL);
	err = transact(&nl, false, &s);
	CHECK(!err && s.nr == 1 && s.last == 7 && next_read == 2,
	      "a reply and its ack in two reads: error %d, %u replies, last %u, %u reads", err,
	      s.nr, s.last, next_read);

	/* an error, with the kernel's text */
	seq = next_seq(&nl);
	put_error(0, seq, -EINVAL, "no such pool");
	err = transact(&nl, false, &s);
	CHECK(err == -EINVAL && !s.nr && !strcmp(nl.msg, "no such pool"),
	      "an error: %d, %u replies, text '%s'", err, s.nr, nl.msg);

	/* a dump: three replies and its end in one read */
	seq = next_seq(&nl);
	put_reply(0, seq, NLM_F_MULTI, 1);
	put_reply(0, seq, NLM_F_MULTI, 2);
	put_reply(0, seq, NLM_F_MULTI, 3);
	put_done(0, seq, 0, NULL);
	err = transact(&nl, true, &s);
	CHECK(!err && s.nr == 3 && s.last == 3, "a dump: error %d, %u replies, last %u", err,
	      s.nr, s.last);

	/* a dump that fails after a reply: its end carries the errno and the text */
	seq = next_seq(&nl);
	put_reply(0, seq, NLM_F_MULTI, 1);
	put_done(1, seq, -ENOENT, "the pool went away");
	err = transact(&nl, true, &s);
	CHECK(err == -ENOENT && s.nr == 1 && !strcmp(nl.msg, "the pool went away"),
	      "a failed dump: %d, %u replies, text '%s'", err, s.nr, nl.msg);

	/* replies to an earlier request are passed over, not taken as this one's */
	seq = next_seq(&nl);
	put_reply(0, seq - 1, 0, 99);
	put_error(0, seq - 1, -EBUSY, NULL);
	put_reply(0, seq, 0, 5);
	put_error(0, seq, 0, NULL);
	err = transact(&nl, false, &s);
	CHECK(!err && s.nr == 1 && s.last == 5, "after stale replies: error %d, %u replies, last %u",
	      err, s.nr, s.last);

	/* a read that leaves bytes that are no whole message: an error, not another read */
	seq = next_seq(&nl);
	put_reply(0, seq, NLM_F_MULTI, 1);
	put_reply(0, seq, NLM_F_MULTI, 2);
	((struct nlmsghdr *)(reads[0] + read_len[0] / 2))->nlmsg_len = READ_SIZE;
	put_done(1, seq, 0, NULL);
	err = transact(&nl, true, &s);
	CHECK(err == -EPROTO && s.nr == 1 && next_read == 1,
	      "a malformed read: %d (%s), %u replies, %u reads", err, nl.msg, s.nr, next_read);

	nl_socket_free(nl.sk);
	return check_summary();
}
