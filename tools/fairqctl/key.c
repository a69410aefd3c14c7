// SPDX-License-Identifier: GPL-2.0-only
/*
 * Keys as text, both ways (see KEYS in fairqctl.8):
 *
 *   10.0.0.7  2001:db8::7            addr      one client address
 *   10.0.0.0/24  2001:db8::/48       subnet    client addresses under a prefix
 *   10.0.0.7:812  [2001:db8::7]:812  conn      one connection: client address and port
 *   v4client:0123456789abcdef        v4client  an NFSv4.1 client id
 *
 * A type prefix ("addr:", "subnet:", "conn:") may be written; v4-mapped IPv6 addresses are
 * folded to IPv4 and subnet addresses masked, as the kernel keys them.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netlink/msg.h>
#include "fairqctl.h"

const char *fc_key_type_name(uint8_t type)
{
	switch (type) {
	case FAIRQ_KEY_TYPE_ADDR:
		return "addr";
	case FAIRQ_KEY_TYPE_SUBNET:
		return "subnet";
	case FAIRQ_KEY_TYPE_CONN:
		return "conn";
	case FAIRQ_KEY_TYPE_V4CLIENT:
		return "v4client";
	default:
		return "unknown";
	}
}

static bool parse_addr(const char *s, struct fc_key_id *id)
{
	static const uint8_t v4mapped[12] = { [10] = 0xff, [11] = 0xff };
	struct in6_addr a6;
	struct in_addr a4;

	memset(id->addr, 0, sizeof(id->addr));
	if (inet_pton(AF_INET, s, &a4) == 1) {
		id->family = AF_INET;
		memcpy(id->addr, &a4, 4);
		return true;
	}
	if (inet_pton(AF_INET6, s, &a6) == 1) {
		if (!memcmp(&a6, v4mapped, sizeof(v4mapped))) {
			id->family = AF_INET;
			memcpy(id->addr, (uint8_t *)&a6 + 12, 4);
		} else {
			id->family = AF_INET6;
			memcpy(id->addr, &a6, 16);
		}
		return true;
	}
	return false;
}

static bool parse_uint(const char *s, unsigned long max, unsigned long *val)
{
	char *end;

	if (!*s || *s == '-' || *s == '+')
		return false;
	errno = 0;
	*val = strtoul(s, &end, 10);
	return !errno && !*end && *val <= max;
}

static bool parse_v4client(const char *s, struct fc_key_id *id)
{
	unsigned int i;

	if (strlen(s) != 16)
		return false;
	for (i = 0; i < 16; i++) {
		if (!isxdigit((unsigned char)s[i]))
			return false;
	}
	for (i = 0; i < 8; i++) {
		unsigned int byte;

		if (sscanf(s + 2 * i, "%2x", &byte) != 1)
			return false;
		id->addr[i] = byte;
	}
	return true;
}

static bool parse_subnet(char *s, struct fc_key_id *id)
{
	char *slash = strchr(s, '/');
	unsigned long bits, i;

	if (!slash)
		return false;
	*slash = '\0';
	if (!parse_addr(s, id) || !parse_uint(slash + 1, id->family == AF_INET ? 32 : 128, &bits))
		return false;
	id->prefix_len = bits;
	for (i = 0; i < sizeof(id->addr); i++) {
		if (bits >= 8) {
			bits -= 8;
		} else {
			id->addr[i] &= (uint8_t)(0xff00 >> bits);
			bits = 0;
		}
	}
	return true;
}

/* "a.b.c.d:port" or "[v6]:port". */
static bool parse_conn(char *s, struct fc_key_id *id)
{
	unsigned long port;
	char *colon;

	if (*s == '[') {
		char *close = strchr(s, ']');

		if (!close || close[1] != ':')
			return false;
		*close = '\0';
		colon = close + 1;
		s++;
	} else {
		colon = strrchr(s, ':');
		if (!colon || strchr(s, ':') != colon)
			return false;
		*colon = '\0';
	}
	if (!parse_addr(s, id) || !parse_uint(colon + 1, 65535, &port))
		return false;
	id->port = htons(port);
	return true;
}

/* Return: 0, or -EINVAL for text that is no key. */
int fc_key_parse(const char *text, struct fc_key_id *id)
{
	char buf[128], *s = buf;
	bool ok;

	memset(id, 0, sizeof(*id));
	if (snprintf(buf, sizeof(buf), "%s", text) >= (int)sizeof(buf))
		return -EINVAL;
	if (!strncmp(s, "v4client:", 9)) {
		id->type = FAIRQ_KEY_TYPE_V4CLIENT;
		ok = parse_v4client(s + 9, id);
	} else if (!strncmp(s, "subnet:", 7)) {
		id->type = FAIRQ_KEY_TYPE_SUBNET;
		ok = parse_subnet(s + 7, id);
	} else if (!strncmp(s, "conn:", 5)) {
		id->type = FAIRQ_KEY_TYPE_CONN;
		ok = parse_conn(s + 5, id);
	} else if (!strncmp(s, "addr:", 5)) {
		id->type = FAIRQ_KEY_TYPE_ADDR;
		ok = parse_addr(s + 5, id);
	} else if (strchr(s, '/')) {
		id->type = FAIRQ_KEY_TYPE_SUBNET;
		ok = parse_subnet(s, id);
	} else if (*s == '[' || (strchr(s, ':') && strchr(s, ':') == strrchr(s, ':') &&
				 strchr(s, '.'))) {
		id->type = FAIRQ_KEY_TYPE_CONN;
		ok = parse_conn(s, id);
	} else {
		id->type = FAIRQ_KEY_TYPE_ADDR;
		ok = parse_addr(s, id);
	}
	return ok ? 0 : -EINVAL;
}

/* @v in decimal at @p; returns the end. */
static char *put_decimal(char *p, unsigned int v)
{
	char digits[10];
	unsigned int n = 0;

	do {
		digits[n++] = '0' + v % 10;
		v /= 10;
	} while (v);
	while (n)
		*p++ = digits[--n];
	return p;
}

/*
 * An IPv4 key of address, subnet or connection into @buf (room for "255.255.255.255:65535"),
 * written by hand: inet_ntop and snprintf were a third of a 10,000-key dump's user time.
 * Return: false for any other key (fc_key_format's general path).
 */
static bool format_v4(const struct fc_key_id *id, char *buf)
{
	char *p = buf;
	unsigned int i;

	if (id->family != AF_INET || (id->type != FAIRQ_KEY_TYPE_ADDR &&
				      id->type != FAIRQ_KEY_TYPE_SUBNET &&
				      id->type != FAIRQ_KEY_TYPE_CONN))
		return false;
	for (i = 0; i < 4; i++) {
		if (i)
			*p++ = '.';
		p = put_decimal(p, id->addr[i]);
	}
	if (id->type == FAIRQ_KEY_TYPE_SUBNET) {
		*p++ = '/';
		p = put_decimal(p, id->prefix_len);
	} else if (id->type == FAIRQ_KEY_TYPE_CONN) {
		*p++ = ':';
		p = put_decimal(p, ntohs(id->port));
	}
	*p = '\0';
	return true;
}

const char *fc_key_format(const struct fc_key_id *id, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN] = "?";

	if (len >= sizeof("255.255.255.255:65535") && format_v4(id, buf))
		return buf;
	if (id->family == AF_INET || id->family == AF_INET6)
		inet_ntop(id->family, id->addr, a, sizeof(a));
	switch (id->type) {
	case FAIRQ_KEY_TYPE_ADDR:
		snprintf(buf, len, "%s", id->family ? a : "unspec");
		break;
	case FAIRQ_KEY_TYPE_SUBNET:
		snprintf(buf, len, "%s/%u", a, id->prefix_len);
		break;
	case FAIRQ_KEY_TYPE_CONN:
		if (!id->family)
			snprintf(buf, len, "conn:shared");	/* the one UDP transport */
		else
			snprintf(buf, len, id->family == AF_INET6 ? "[%s]:%u" : "%s:%u", a,
				 ntohs(id->port));
		break;
	case FAIRQ_KEY_TYPE_V4CLIENT:
		snprintf(buf, len, "v4client:%02x%02x%02x%02x%02x%02x%02x%02x", id->addr[0],
			 id->addr[1], id->addr[2], id->addr[3], id->addr[4], id->addr[5],
			 id->addr[6], id->addr[7]);
		break;
	default:
		snprintf(buf, len, "type%u", id->type);
	}
	return buf;
}

/* The same clients, as the kernel compares keys (key_id_match in the module's netlink.c). */
bool fc_key_same(const struct fc_key_id *a, const struct fc_key_id *b)
{
	if (a->type != b->type || a->family != b->family ||
	    memcmp(a->addr, b->addr, sizeof(a->addr)))
		return false;
	if (a->type == FAIRQ_KEY_TYPE_SUBNET && a->prefix_len != b->prefix_len)
		return false;
	return a->type != FAIRQ_KEY_TYPE_CONN || a->port == b->port;
}

int fc_key_put(struct nl_msg *msg, int attr, const struct fc_key_id *id)
{
	struct nlattr *nest = nla_nest_start(msg, attr);

	if (!nest || nla_put_u8(msg, FAIRQ_A_KEY_ID_TYPE, id->type) ||
	    nla_put_u8(msg, FAIRQ_A_KEY_ID_FAMILY, id->family) ||
	    nla_put_u8(msg, FAIRQ_A_KEY_ID_PREFIX_LEN, id->prefix_len) ||
	    nla_put_u16(msg, FAIRQ_A_KEY_ID_PORT, id->port) ||
	    nla_put(msg, FAIRQ_A_KEY_ID_ADDR, sizeof(id->addr), id->addr))
		return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

int fc_key_get(struct nlattr *nest, struct fc_key_id *id)
{
	struct nlattr *tb[FAIRQ_A_KEY_ID_MAX + 1];

	memset(id, 0, sizeof(*id));
	if (!nest || nla_parse_nested(tb, FAIRQ_A_KEY_ID_MAX, nest, NULL) ||
	    !tb[FAIRQ_A_KEY_ID_TYPE])
		return -EPROTO;
	id->type = nla_get_u8(tb[FAIRQ_A_KEY_ID_TYPE]);
	if (tb[FAIRQ_A_KEY_ID_FAMILY])
		id->family = nla_get_u8(tb[FAIRQ_A_KEY_ID_FAMILY]);
	if (tb[FAIRQ_A_KEY_ID_PREFIX_LEN])
		id->prefix_len = nla_get_u8(tb[FAIRQ_A_KEY_ID_PREFIX_LEN]);
	if (tb[FAIRQ_A_KEY_ID_PORT])
		id->port = nla_get_u16(tb[FAIRQ_A_KEY_ID_PORT]);
	if (tb[FAIRQ_A_KEY_ID_ADDR])
		nla_memcpy(id->addr, tb[FAIRQ_A_KEY_ID_ADDR], sizeof(id->addr));
	return 0;
}
