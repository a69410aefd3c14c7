// SPDX-License-Identifier: GPL-2.0-only
/*
 * fairq's tracepoints are instantiated here, with the text form of a key they (and the kernel
 * log) carry: the same text fairqctl prints and accepts, so that a key seen in a trace can be
 * given a weight as it is.
 */
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/socket.h>
#include <linux/string.h>

#define CREATE_TRACE_POINTS
#include <fairq/trace.h>

void fairq_key_text(char *buf, size_t len, const struct fairq_key_id *id)
{
	bool v6 = id && id->family == AF_INET6;
	int n;

	if (!id) {
		buf[0] = '\0';
		return;
	}
	/* the key of clients whose own could not be allocated: as fairqctl names it */
	if ((id->type == FAIRQ_KEY_TYPE_ADDR || id->type == FAIRQ_KEY_TYPE_SUBNET) && !id->family) {
		strscpy(buf, "unspec", len);
		return;
	}
	switch (id->type) {
	case FAIRQ_KEY_TYPE_ADDR:
		n = v6 ? snprintf(buf, len, "%pI6c", id->addr) :
			 snprintf(buf, len, "%pI4", id->addr);
		break;
	case FAIRQ_KEY_TYPE_SUBNET:
		n = v6 ? snprintf(buf, len, "%pI6c/%u", id->addr, id->prefix_len) :
			 snprintf(buf, len, "%pI4/%u", id->addr, id->prefix_len);
		break;
	case FAIRQ_KEY_TYPE_CONN:
		if (!id->family)
			n = snprintf(buf, len, "conn:shared");	/* the one UDP transport */
		else
			n = v6 ? snprintf(buf, len, "[%pI6c]:%u", id->addr, ntohs(id->port)) :
				 snprintf(buf, len, "%pI4:%u", id->addr, ntohs(id->port));
		break;
	case FAIRQ_KEY_TYPE_V4CLIENT:
		n = snprintf(buf, len, "v4client:%8phN", id->addr);
		break;
	default:
		n = snprintf(buf, len, "type%u", id->type);
	}
	if (n >= len && len > 1)
		buf[len - 2] = '+';
}
EXPORT_SYMBOL_GPL(fairq_key_text);
