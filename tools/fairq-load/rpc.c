// SPDX-License-Identifier: GPL-2.0-only
/* XDR, ONC RPC messages and record marking for fairq-load (see rpc.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpc.h"

static size_t pad4(size_t n)
{
	return (4 - (n & 3)) & 3;
}

void xenc_init(struct xenc *x, void *buf, size_t cap)
{
	x->buf = buf;
	x->cap = cap;
	x->len = 0;
	x->overflow = false;
}

static uint8_t *xe_take(struct xenc *x, size_t n)
{
	uint8_t *p;

	if (x->overflow || x->cap - x->len < n) {
		x->overflow = true;
		return NULL;
	}
	p = x->buf + x->len;
	x->len += n;
	return p;
}

void xe_u32(struct xenc *x, uint32_t v)
{
	uint8_t *p = xe_take(x, 4);

	if (!p)
		return;
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

void xe_u64(struct xenc *x, uint64_t v)
{
	xe_u32(x, v >> 32);
	xe_u32(x, (uint32_t)v);
}

void xe_fixed(struct xenc *x, const void *src, size_t n)
{
	uint8_t *p = xe_take(x, n + pad4(n));

	if (!p)
		return;
	if (n)
		memcpy(p, src, n);
	memset(p + n, 0, pad4(n));
}

void xe_opaque(struct xenc *x, const void *src, size_t n)
{
	if (n > UINT32_MAX) {
		x->overflow = true;
		return;
	}
	xe_u32(x, (uint32_t)n);
	xe_fixed(x, src, n);
}

void xe_string(struct xenc *x, const char *s)
{
	xe_opaque(x, s, strlen(s));
}

void xdec_init(struct xdec *d, const void *buf, size_t len)
{
	d->buf = buf;
	d->len = len;
	d->pos = 0;
	d->err = false;
}

static const uint8_t *xd_take(struct xdec *d, size_t n)
{
	const uint8_t *p;

	if (d->err || d->len - d->pos < n) {
		d->err = true;
		return NULL;
	}
	p = d->buf + d->pos;
	d->pos += n;
	return p;
}

uint32_t xd_u32(struct xdec *d)
{
	const uint8_t *p = xd_take(d, 4);

	if (!p)
		return 0;
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

uint64_t xd_u64(struct xdec *d)
{
	uint64_t hi = xd_u32(d), lo = xd_u32(d);

	return d->err ? 0 : hi << 32 | lo;
}

bool xd_fixed(struct xdec *d, void *out, size_t n)
{
	const uint8_t *p = xd_take(d, n + pad4(n));

	if (!p)
		return false;
	if (out && n)
		memcpy(out, p, n);
	return true;
}

const uint8_t *xd_opaque(struct xdec *d, uint32_t *n, uint32_t max)
{
	uint32_t len = xd_u32(d);
	const uint8_t *p;

	if (d->err || len > max) {
		d->err = true;
		return NULL;
	}
	p = xd_take(d, (size_t)len + pad4(len));
	if (!p)
		return NULL;
	*n = len;
	return p;
}

size_t xd_left(const struct xdec *d)
{
	return d->err ? 0 : d->len - d->pos;
}

void rm_mark(uint8_t *hdr, size_t payload_len)
{
	uint32_t v = RM_LAST | (uint32_t)payload_len;

	hdr[0] = v >> 24;
	hdr[1] = v >> 16;
	hdr[2] = v >> 8;
	hdr[3] = v;
}

int rm_init(struct rm_reader *r, size_t max_record)
{
	memset(r, 0, sizeof(*r));
	r->max_record = max_record;
	r->in_cap = 65536;
	r->in = malloc(r->in_cap);
	r->rec_cap = 4096;
	r->rec = malloc(r->rec_cap);
	if (!r->in || !r->rec) {
		rm_free(r);
		return -1;
	}
	return 0;
}

void rm_free(struct rm_reader *r)
{
	free(r->in);
	free(r->rec);
	r->in = r->rec = NULL;
}

void rm_reset(struct rm_reader *r)
{
	r->in_len = r->in_off = r->rec_len = 0;
	r->delivered = false;
}

uint8_t *rm_space(struct rm_reader *r, size_t want)
{
	if (r->in_off && r->in_off == r->in_len) {
		r->in_off = r->in_len = 0;
	} else if (r->in_off > r->in_cap / 2) {
		memmove(r->in, r->in + r->in_off, r->in_len - r->in_off);
		r->in_len -= r->in_off;
		r->in_off = 0;
	}
	if (r->in_cap - r->in_len < want) {
		size_t cap = r->in_cap;
		uint8_t *p;

		while (cap - r->in_len < want)
			cap *= 2;
		p = realloc(r->in, cap);
		if (!p)
			return NULL;
		r->in = p;
		r->in_cap = cap;
	}
	return r->in + r->in_len;
}

void rm_commit(struct rm_reader *r, size_t n)
{
	r->in_len += n;
}

int rm_feed(struct rm_reader *r, const void *data, size_t n)
{
	uint8_t *p = rm_space(r, n);

	if (!p)
		return -1;
	memcpy(p, data, n);
	rm_commit(r, n);
	return 0;
}

int rm_next(struct rm_reader *r, const uint8_t **rec, size_t *len)
{
	if (r->delivered) {
		r->rec_len = 0;
		r->delivered = false;
	}
	for (;;) {
		const uint8_t *h = r->in + r->in_off;
		size_t avail = r->in_len - r->in_off;
		uint32_t mark, flen;

		if (avail < RM_HDR)
			return 0;
		mark = (uint32_t)h[0] << 24 | (uint32_t)h[1] << 16 | (uint32_t)h[2] << 8 | h[3];
		flen = mark & ~RM_LAST;
		if (flen > r->max_record || r->rec_len + flen > r->max_record)
			return -1;
		if (avail - RM_HDR < flen)
			return 0;
		if (r->rec_cap < r->rec_len + flen) {
			size_t cap = r->rec_cap;
			uint8_t *p;

			while (cap < r->rec_len + flen)
				cap *= 2;
			p = realloc(r->rec, cap);
			if (!p)
				return -1;
			r->rec = p;
			r->rec_cap = cap;
		}
		memcpy(r->rec + r->rec_len, h + RM_HDR, flen);
		r->rec_len += flen;
		r->in_off += RM_HDR + flen;
		if (mark & RM_LAST) {
			r->delivered = true;
			*rec = r->rec;
			*len = r->rec_len;
			return 1;
		}
	}
}

void rpc_call(struct xenc *x, uint32_t xid, uint32_t prog, uint32_t vers, uint32_t proc,
	      const struct rpc_cred_sys *cred)
{
	xe_u32(x, xid);
	xe_u32(x, 0);		/* CALL */
	xe_u32(x, RPC_VERSION);
	xe_u32(x, prog);
	xe_u32(x, vers);
	xe_u32(x, proc);
	if (cred) {
		size_t mlen = strlen(cred->machine);

		xe_u32(x, AUTH_SYS);
		/* stamp, machinename<255>, uid, gid, gids<16> (none) */
		xe_u32(x, 4 + 4 + mlen + pad4(mlen) + 4 + 4 + 4);
		xe_u32(x, cred->stamp);
		xe_opaque(x, cred->machine, mlen);
		xe_u32(x, cred->uid);
		xe_u32(x, cred->gid);
		xe_u32(x, 0);
	} else {
		xe_u32(x, AUTH_NONE);
		xe_u32(x, 0);
	}
	xe_u32(x, AUTH_NONE);	/* verifier */
	xe_u32(x, 0);
}

bool rpc_peek_xid(const uint8_t *rec, size_t len, uint32_t *xid)
{
	if (len < 4)
		return false;
	*xid = (uint32_t)rec[0] << 24 | (uint32_t)rec[1] << 16 | (uint32_t)rec[2] << 8 | rec[3];
	return true;
}

enum rpc_status rpc_parse_reply(struct xdec *d, struct rpc_reply *r)
{
	uint32_t n;

	memset(r, 0, sizeof(*r));
	r->xid = xd_u32(d);
	if (xd_u32(d) != 1)		/* REPLY */
		goto bad;
	switch (xd_u32(d)) {
	case 0:				/* MSG_ACCEPTED */
		xd_u32(d);		/* verifier flavor */
		if (!xd_opaque(d, &n, 400))
			goto bad;
		switch (xd_u32(d)) {
		case 0:
			r->status = RPC_OK;
			break;
		case 1:
			r->status = RPC_PROG_UNAVAIL;
			break;
		case 2:
			r->status = RPC_PROG_MISMATCH;
			r->low = xd_u32(d);
			r->high = xd_u32(d);
			break;
		case 3:
			r->status = RPC_PROC_UNAVAIL;
			break;
		case 4:
			r->status = RPC_GARBAGE_ARGS;
			break;
		case 5:
			r->status = RPC_SYSTEM_ERR;
			break;
		default:
			goto bad;
		}
		break;
	case 1:				/* MSG_DENIED */
		switch (xd_u32(d)) {
		case 0:
			r->status = RPC_VERS_MISMATCH;
			r->low = xd_u32(d);
			r->high = xd_u32(d);
			break;
		case 1:
			r->status = RPC_AUTH_ERROR;
			r->auth_stat = xd_u32(d);
			break;
		default:
			goto bad;
		}
		break;
	default:
		goto bad;
	}
	if (d->err)
		goto bad;
	return r->status;
bad:
	r->status = RPC_BAD_REPLY;
	return r->status;
}

static const char *auth_stat_str(uint32_t s)
{
	static const char *const names[] = {
		"AUTH_OK", "AUTH_BADCRED", "AUTH_REJECTEDCRED", "AUTH_BADVERF",
		"AUTH_REJECTEDVERF", "AUTH_TOOWEAK", "AUTH_INVALIDRESP", "AUTH_FAILED",
	};

	return s < sizeof(names) / sizeof(names[0]) ? names[s] : "unknown auth_stat";
}

const char *rpc_reply_str(const struct rpc_reply *r, char *buf, size_t n)
{
	switch (r->status) {
	case RPC_OK:
		snprintf(buf, n, "success");
		break;
	case RPC_BAD_REPLY:
		snprintf(buf, n, "malformed RPC reply");
		break;
	case RPC_PROG_UNAVAIL:
		snprintf(buf, n, "program not available on the server");
		break;
	case RPC_PROG_MISMATCH:
		snprintf(buf, n, "program version not supported (server offers %u to %u)",
			 r->low, r->high);
		break;
	case RPC_PROC_UNAVAIL:
		snprintf(buf, n, "procedure not available");
		break;
	case RPC_GARBAGE_ARGS:
		snprintf(buf, n, "the server could not decode the arguments");
		break;
	case RPC_SYSTEM_ERR:
		snprintf(buf, n, "system error on the server");
		break;
	case RPC_VERS_MISMATCH:
		snprintf(buf, n, "RPC version mismatch (server %u to %u)", r->low, r->high);
		break;
	case RPC_AUTH_ERROR:
		snprintf(buf, n, "authentication refused: %s%s", auth_stat_str(r->auth_stat),
			 r->auth_stat == 5 ? " (the server may want a reserved source port: --resvport)" : "");
		break;
	}
	return buf;
}
