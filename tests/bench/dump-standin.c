// SPDX-License-Identifier: GPL-2.0-only
/*
 * dump-standin: an LD_PRELOAD library that answers fairqctl's generic netlink requests as the
 * fairq module would, from N made-up connection keys, so that fairqctl's own cost of a dump
 * can be counted on the host (tests/bench/dump-profile.sh, under callgrind).  It stands in
 * for the module's replies only: nothing here measures the kernel's side of a dump, which
 * scenario 6 (c) measures in the guest.
 *
 *   DUMP_KEYS=N LD_PRELOAD=dump-standin.so fairqctl -j shares
 *
 * Requests to the netlink socket are taken at sendmsg(); the replies are handed out by
 * recvmsg() in "skbs" as the kernel sizes a dump's: as large as the biggest buffer the reader
 * has offered (a page at least, 32 KiB at most), MSG_PEEK and MSG_TRUNC as the kernel answers
 * them.  Only the three requests `fairqctl -j shares` makes are known: the family lookup,
 * the scheduler list (fq, keyed) and the key dump.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include "linux/fairq.h"

#define FAMILY_ID	0x30
#define SKB_MIN		4096
#define SKB_MAX		32768
#define SKB_OVERHEAD	320	/* what the kernel's skb keeps of its allocation */

static unsigned char *reply;	/* the replies to the last request, skb after skb */
static size_t len, cap, skb_start;
static size_t *skb_end;		/* where each skb ends in @reply */
static unsigned int nr_skbs, skb_cap, next_skb;
static size_t reader_max = SKB_MIN;	/* the largest buffer recvmsg() was given */
static int netlink_fd = -1;		/* the socket the requests came on */

static void *room(size_t n)
{
	if (len + n > cap) {
		cap = (len + n) * 2;
		reply = realloc(reply, cap);
		if (!reply)
			abort();
	}
	return reply + len;
}

static void skb_cut(size_t at)
{
	if (at == skb_start)
		return;
	if (nr_skbs == skb_cap) {
		skb_cap = skb_cap ? 2 * skb_cap : 64;
		skb_end = realloc(skb_end, skb_cap * sizeof(*skb_end));
		if (!skb_end)
			abort();
	}
	skb_end[nr_skbs++] = at;
	skb_start = at;
}

static size_t msg_start(uint16_t type, uint16_t flags, uint32_t seq, uint8_t cmd)
{
	struct nlmsghdr *h = room(NLMSG_HDRLEN + GENL_HDRLEN);
	struct genlmsghdr *g = NLMSG_DATA(h);
	size_t at = len;

	memset(h, 0, NLMSG_HDRLEN + GENL_HDRLEN);
	h->nlmsg_type = type;
	h->nlmsg_flags = flags;
	h->nlmsg_seq = seq;
	g->cmd = cmd;
	g->version = FAIRQ_FAMILY_VERSION;
	len += NLMSG_HDRLEN + GENL_HDRLEN;
	return at;
}

static void msg_end(size_t at)
{
	((struct nlmsghdr *)(reply + at))->nlmsg_len = len - at;
}

static void put(uint16_t type, const void *data, size_t n)
{
	struct nlattr *a = room(NLA_HDRLEN + NLA_ALIGN(n));

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + n;
	if (n)
		memcpy((char *)a + NLA_HDRLEN, data, n);
	memset((char *)a + NLA_HDRLEN + n, 0, NLA_ALIGN(n) - n);
	len += NLA_HDRLEN + NLA_ALIGN(n);
}

static void put_u8(uint16_t type, uint8_t v)
{
	put(type, &v, sizeof(v));
}

static void put_u32(uint16_t type, uint32_t v)
{
	put(type, &v, sizeof(v));
}

/* a u64 aligned to 8 bytes with a pad attribute first where needed, as nla_put_64bit() */
static void put_u64(uint16_t type, uint64_t v, uint16_t pad)
{
	if ((len + NLA_HDRLEN) % 8)
		put(pad, NULL, 0);
	put(type, &v, sizeof(v));
}

static size_t nest_start(uint16_t type)
{
	struct nlattr *a = room(NLA_HDRLEN);
	size_t at = len;

	a->nla_type = type | NLA_F_NESTED;
	len += NLA_HDRLEN;
	return at;
}

static void nest_end(size_t at)
{
	((struct nlattr *)(reply + at))->nla_len = len - at;
}

/* NLMSG_DONE or an ack (NLMSG_ERROR 0), each in an skb of its own */
static void control(uint16_t type, uint32_t seq)
{
	size_t n = type == NLMSG_DONE ? sizeof(int) : sizeof(struct nlmsgerr);
	struct nlmsghdr *h = room(NLMSG_HDRLEN + n);

	memset(h, 0, NLMSG_HDRLEN + n);
	h->nlmsg_type = type;
	h->nlmsg_flags = type == NLMSG_DONE ? NLM_F_MULTI : NLM_F_CAPPED;
	h->nlmsg_seq = seq;
	h->nlmsg_len = NLMSG_HDRLEN + n;
	len += NLMSG_HDRLEN + n;
	skb_cut(len);
}

static void family_reply(uint32_t seq, bool ack)
{
	size_t at = msg_start(GENL_ID_CTRL, 0, seq, CTRL_CMD_NEWFAMILY);
	uint16_t id = FAMILY_ID;

	put(CTRL_ATTR_FAMILY_ID, &id, sizeof(id));
	put(CTRL_ATTR_FAMILY_NAME, FAIRQ_FAMILY_NAME, sizeof(FAIRQ_FAMILY_NAME));
	put_u32(CTRL_ATTR_VERSION, FAIRQ_FAMILY_VERSION);
	put_u32(CTRL_ATTR_HDRSIZE, 0);
	put_u32(CTRL_ATTR_MAXATTR, FAIRQ_A_KEY_MAX);
	msg_end(at);
	skb_cut(len);
	if (ack)
		control(NLMSG_ERROR, seq);
}

static void sched_reply(uint32_t seq)
{
	size_t at = msg_start(FAMILY_ID, 0, seq, FAIRQ_CMD_SCHED_GET), nest;

	put(FAIRQ_A_SCHED_ACTIVE, "fq", 3);
	nest = nest_start(FAIRQ_A_SCHED_SCHED);
	put(FAIRQ_A_SCHED_INFO_NAME, "fq", 3);
	put_u32(FAIRQ_A_SCHED_INFO_FLAGS, FAIRQ_SCHED_FLAGS_KEYED);
	put(FAIRQ_A_SCHED_INFO_ACTIVE, NULL, 0);
	nest_end(nest);
	msg_end(at);
	skb_cut(len);
	control(NLMSG_ERROR, seq);
}

/* key @i: a connection from 10.99.x.y, port 700 + i, in one of two pools */
static void key_reply(uint32_t seq, unsigned int i)
{
	size_t at = msg_start(FAMILY_ID, NLM_F_MULTI, seq, FAIRQ_CMD_KEY_GET), nest;
	uint8_t addr[16] = { 10, 99, i / 250 % 256, i % 250 + 1 };
	uint16_t port = htons(700 + i % 60000);

	put_u32(FAIRQ_A_KEY_SERV_ID, 1);
	put_u32(FAIRQ_A_KEY_POOL_ID, i % 2);
	nest = nest_start(FAIRQ_A_KEY_ID);
	put_u8(FAIRQ_A_KEY_ID_TYPE, FAIRQ_KEY_TYPE_CONN);
	put_u8(FAIRQ_A_KEY_ID_FAMILY, AF_INET);
	put_u8(FAIRQ_A_KEY_ID_PREFIX_LEN, 32);
	put(FAIRQ_A_KEY_ID_PORT, &port, sizeof(port));
	put(FAIRQ_A_KEY_ID_ADDR, addr, sizeof(addr));
	nest_end(nest);
	put_u32(FAIRQ_A_KEY_WEIGHT, 1);
	put_u32(FAIRQ_A_KEY_QUEUED, i % 3);
	put_u32(FAIRQ_A_KEY_IN_FLIGHT, i % 2);
	put_u64(FAIRQ_A_KEY_DISPATCHES, 1000 + 7 * i, FAIRQ_A_KEY_PAD);
	put_u64(FAIRQ_A_KEY_THREAD_NS, 123456789ULL + 1000ULL * i, FAIRQ_A_KEY_PAD);
	msg_end(at);
}

static void keys_reply(uint32_t seq, unsigned int keys)
{
	size_t skb = reader_max < SKB_MIN ? SKB_MIN : reader_max > SKB_MAX ? SKB_MAX : reader_max;
	unsigned int i;

	for (i = 0; i < keys; i++) {
		size_t at = len;

		key_reply(seq, i);
		if (len - skb_start > skb - SKB_OVERHEAD)
			skb_cut(at);	/* this key starts the next skb */
	}
	skb_cut(len);
	control(NLMSG_DONE, seq);
}

static void answer(const struct nlmsghdr *req)
{
	const struct genlmsghdr *g = NLMSG_DATA(req);
	const char *keys = getenv("DUMP_KEYS");

	len = 0;
	skb_start = 0;
	nr_skbs = 0;
	next_skb = 0;
	if (req->nlmsg_type == GENL_ID_CTRL)
		family_reply(req->nlmsg_seq, req->nlmsg_flags & NLM_F_ACK);
	else if (g->cmd == FAIRQ_CMD_SCHED_GET)
		sched_reply(req->nlmsg_seq);
	else if (g->cmd == FAIRQ_CMD_KEY_GET)
		keys_reply(req->nlmsg_seq, keys ? strtoul(keys, NULL, 10) : 10000);
	else
		abort();	/* not a request of `fairqctl -j shares` */
}

ssize_t sendmsg(int fd, const struct msghdr *m, int flags)
{
	static ssize_t (*real)(int fd, const struct msghdr *m, int flags);
	const struct sockaddr_nl *to = m->msg_name;

	if (!to || to->nl_family != AF_NETLINK) {
		if (!real)
			real = dlsym(RTLD_NEXT, "sendmsg");
		return real(fd, m, flags);
	}
	netlink_fd = fd;
	answer(m->msg_iov[0].iov_base);
	return m->msg_iov[0].iov_len;
}

ssize_t recvmsg(int fd, struct msghdr *m, int flags)
{
	static ssize_t (*real)(int fd, struct msghdr *m, int flags);
	size_t start, n, offered = m->msg_iov[0].iov_len;

	if (fd != netlink_fd) {
		if (!real)
			real = dlsym(RTLD_NEXT, "recvmsg");
		return real(fd, m, flags);
	}
	if (next_skb == nr_skbs) {
		errno = EAGAIN;
		return -1;
	}
	start = next_skb ? skb_end[next_skb - 1] : 0;
	n = skb_end[next_skb] - start;
	if (offered > reader_max)
		reader_max = offered;
	memcpy(m->msg_iov[0].iov_base, reply + start, n < offered ? n : offered);
	if (m->msg_name) {
		struct sockaddr_nl *from = m->msg_name;

		memset(from, 0, sizeof(*from));
		from->nl_family = AF_NETLINK;
		m->msg_namelen = sizeof(*from);
	}
	m->msg_controllen = 0;
	m->msg_flags = n > offered ? MSG_TRUNC : 0;
	if (!(flags & MSG_PEEK))
		next_skb++;
	return (flags & MSG_TRUNC) || n < offered ? (ssize_t)n : (ssize_t)offered;
}
