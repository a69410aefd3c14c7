// SPDX-License-Identifier: GPL-2.0-only
/* rpcbind, MOUNT v3, NFSv3 and NFSv4.1 arguments and results for fairq-load (see nfs.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nfs.h"

struct errname {
	uint32_t code;
	const char *name;
};

static const char *lookup(const struct errname *t, size_t n, uint32_t code)
{
	static char buf[32];
	size_t i;

	for (i = 0; i < n; i++)
		if (t[i].code == code)
			return t[i].name;
	snprintf(buf, sizeof(buf), "error %u", code);
	return buf;
}

#define LOOKUP(t, c) lookup(t, sizeof(t) / sizeof(t[0]), c)

void pmap_getport_args(struct xenc *x, uint32_t prog, uint32_t vers, uint32_t prot)
{
	xe_u32(x, prog);
	xe_u32(x, vers);
	xe_u32(x, prot);
	xe_u32(x, 0);
}

bool pmap_getport_res(struct xdec *d, uint32_t *port)
{
	*port = xd_u32(d);
	return !d->err;
}

void rpcb_getaddr_args(struct xenc *x, uint32_t prog, uint32_t vers, const char *netid)
{
	xe_u32(x, prog);
	xe_u32(x, vers);
	xe_string(x, netid);
	xe_string(x, "");	/* r_addr: any */
	xe_string(x, "");	/* r_owner: any */
}

/* A universal address ends in ".P1.P2", the port's high and low bytes; "" when unregistered. */
bool rpcb_getaddr_res(struct xdec *d, uint32_t *port)
{
	const uint8_t *p;
	char uaddr[128], *lo, *hi, *end;
	unsigned long h, l;
	uint32_t n;

	p = xd_opaque(d, &n, sizeof(uaddr) - 1);
	if (!p)
		return false;
	*port = 0;
	if (!n)
		return true;
	memcpy(uaddr, p, n);
	uaddr[n] = 0;
	lo = strrchr(uaddr, '.');
	if (!lo)
		return false;
	*lo++ = 0;
	hi = strrchr(uaddr, '.');
	if (!hi)
		return false;
	hi++;
	h = strtoul(hi, &end, 10);
	if (end == hi || *end || h > 255)
		return false;
	l = strtoul(lo, &end, 10);
	if (end == lo || *end || l > 255)
		return false;
	*port = (uint32_t)(h << 8 | l);
	return true;
}

void mnt3_args(struct xenc *x, const char *path)
{
	xe_string(x, path);
}

bool mnt3_res(struct xdec *d, uint32_t *mstat, uint8_t fh[NFS3_FHSIZE], uint32_t *fhlen)
{
	const uint8_t *p;
	uint32_t n;

	*mstat = xd_u32(d);
	if (d->err)
		return false;
	if (*mstat)
		return true;
	p = xd_opaque(d, &n, NFS3_FHSIZE);
	if (!p)
		return false;
	memcpy(fh, p, n);
	*fhlen = n;
	return true;		/* the auth flavors that follow are not needed */
}

static const struct errname mnt3_names[] = {
	{ 0, "MNT3_OK" }, { 1, "MNT3ERR_PERM" }, { 2, "MNT3ERR_NOENT" }, { 5, "MNT3ERR_IO" },
	{ 13, "MNT3ERR_ACCES" }, { 20, "MNT3ERR_NOTDIR" }, { 22, "MNT3ERR_INVAL" },
	{ 63, "MNT3ERR_NAMETOOLONG" }, { 10004, "MNT3ERR_NOTSUPP" }, { 10006, "MNT3ERR_SERVERFAULT" },
};

const char *mnt3_str(uint32_t mstat)
{
	return LOOKUP(mnt3_names, mstat);
}

void nfs3_getattr_args(struct xenc *x, const uint8_t *fh, uint32_t fhlen)
{
	xe_opaque(x, fh, fhlen);
}

bool nfs3_getattr_res(struct xdec *d, uint32_t *status)
{
	*status = xd_u32(d);
	if (d->err)
		return false;
	return *status || xd_left(d) >= NFS3_FATTR_SIZE;
}

static const struct errname nfs3_names[] = {
	{ 0, "NFS3_OK" }, { 1, "NFS3ERR_PERM" }, { 2, "NFS3ERR_NOENT" }, { 5, "NFS3ERR_IO" },
	{ 6, "NFS3ERR_NXIO" }, { 13, "NFS3ERR_ACCES" }, { 19, "NFS3ERR_NODEV" },
	{ 20, "NFS3ERR_NOTDIR" }, { 22, "NFS3ERR_INVAL" }, { 70, "NFS3ERR_STALE" },
	{ 71, "NFS3ERR_REMOTE" }, { 10001, "NFS3ERR_BADHANDLE" }, { 10004, "NFS3ERR_NOTSUPP" },
	{ 10005, "NFS3ERR_TOOSMALL" }, { 10006, "NFS3ERR_SERVERFAULT" },
	{ 10008, "NFS3ERR_JUKEBOX" },
};

const char *nfs3_str(uint32_t status)
{
	return LOOKUP(nfs3_names, status);
}

static void compound(struct xenc *x, uint32_t nops)
{
	xe_u32(x, 0);		/* tag: empty */
	xe_u32(x, 1);		/* minorversion */
	xe_u32(x, nops);
}

void nfs4_exchange_id(struct xenc *x, const uint8_t verifier[NFS4_VERIFIER_SIZE],
		      const char *owner)
{
	compound(x, 1);
	xe_u32(x, OP_EXCHANGE_ID);
	xe_fixed(x, verifier, NFS4_VERIFIER_SIZE);
	xe_string(x, owner);
	xe_u32(x, 0x00010000);	/* EXCHGID4_FLAG_USE_NON_PNFS */
	xe_u32(x, 0);		/* state protection: SP4_NONE */
	xe_u32(x, 0);		/* no implementation id */
}

static void channel_attrs(struct xenc *x, uint32_t maxreq, uint32_t maxresp, uint32_t cached,
			  uint32_t maxops, uint32_t maxreqs)
{
	xe_u32(x, 0);		/* headerpadsize */
	xe_u32(x, maxreq);
	xe_u32(x, maxresp);
	xe_u32(x, cached);
	xe_u32(x, maxops);
	xe_u32(x, maxreqs);
	xe_u32(x, 0);		/* no rdma_ird */
}

void nfs4_create_session(struct xenc *x, uint64_t clientid, uint32_t seq, uint32_t slots)
{
	compound(x, 1);
	xe_u32(x, OP_CREATE_SESSION);
	xe_u64(x, clientid);
	xe_u32(x, seq);
	xe_u32(x, 0);		/* flags: no persistence, no back channel on this connection */
	channel_attrs(x, 65536, 65536, 1024, 8, slots);
	channel_attrs(x, 4096, 4096, 0, 2, 1);
	xe_u32(x, 0x40000000);	/* callback program */
	xe_u32(x, 1);		/* one callback security: AUTH_NONE */
	xe_u32(x, AUTH_NONE);
}

void nfs4_bind_conn(struct xenc *x, const uint8_t sid[NFS4_SESSIONID_SIZE])
{
	compound(x, 1);
	xe_u32(x, OP_BIND_CONN_TO_SESSION);
	xe_fixed(x, sid, NFS4_SESSIONID_SIZE);
	xe_u32(x, 1);		/* CDFC4_FORE */
	xe_u32(x, 0);		/* not RDMA mode */
}

static void sequence_op(struct xenc *x, const uint8_t sid[NFS4_SESSIONID_SIZE], uint32_t seqid,
			uint32_t slot, uint32_t highest)
{
	xe_u32(x, OP_SEQUENCE);
	xe_fixed(x, sid, NFS4_SESSIONID_SIZE);
	xe_u32(x, seqid);
	xe_u32(x, slot);
	xe_u32(x, highest);
	xe_u32(x, 0);		/* cachethis: false */
}

void nfs4_sequence(struct xenc *x, const uint8_t sid[NFS4_SESSIONID_SIZE], uint32_t seqid,
		   uint32_t slot, uint32_t highest)
{
	compound(x, 1);
	sequence_op(x, sid, seqid, slot, highest);
}

void nfs4_seq_getattr(struct xenc *x, const uint8_t sid[NFS4_SESSIONID_SIZE], uint32_t seqid,
		      uint32_t slot, uint32_t highest)
{
	compound(x, 3);
	sequence_op(x, sid, seqid, slot, highest);
	xe_u32(x, OP_PUTROOTFH);
	xe_u32(x, OP_GETATTR);
	/* type, change, size, fsid, fileid | mode, numlinks, time_modify */
	xe_u32(x, 2);
	xe_u32(x, 1u << 1 | 1u << 3 | 1u << 4 | 1u << 8 | 1u << 20);
	xe_u32(x, 1u << (33 - 32) | 1u << (35 - 32) | 1u << (53 - 32));
}

void nfs4_destroy_session(struct xenc *x, const uint8_t sid[NFS4_SESSIONID_SIZE])
{
	compound(x, 1);
	xe_u32(x, OP_DESTROY_SESSION);
	xe_fixed(x, sid, NFS4_SESSIONID_SIZE);
}

void nfs4_destroy_clientid(struct xenc *x, uint64_t clientid)
{
	compound(x, 1);
	xe_u32(x, OP_DESTROY_CLIENTID);
	xe_u64(x, clientid);
}

static bool skip_channel_attrs(struct xdec *d, uint32_t *maxreqs)
{
	uint32_t n, i;

	for (i = 0; i < 5; i++)
		xd_u32(d);
	*maxreqs = xd_u32(d);
	n = xd_u32(d);
	if (n > 1)
		return false;
	if (n)
		xd_u32(d);
	return !d->err;
}

/* Decodes the successful result of one op; false if malformed or unknown. */
static bool op_result(struct xdec *d, uint32_t op, struct nfs4_res *r)
{
	uint32_t n, i, dummy;

	switch (op) {
	case OP_EXCHANGE_ID:
		r->clientid = xd_u64(d);
		r->eid_seq = xd_u32(d);
		r->eid_flags = xd_u32(d);
		r->eid_spr = xd_u32(d);
		if (r->eid_spr != 0)		/* we asked for SP4_NONE */
			return false;
		xd_u64(d);			/* server owner: minor id, major id */
		if (!xd_opaque(d, &n, 1024) || !xd_opaque(d, &n, 1024))	/* and scope */
			return false;
		n = xd_u32(d);			/* server implementation id<1> */
		if (n > 1)
			return false;
		if (n && (!xd_opaque(d, &i, 1024) || !xd_opaque(d, &i, 1024)))
			return false;
		if (n) {
			xd_u64(d);
			xd_u32(d);
		}
		break;
	case OP_CREATE_SESSION:
		xd_fixed(d, r->sessionid, NFS4_SESSIONID_SIZE);
		xd_u32(d);			/* sequence */
		r->cs_flags = xd_u32(d);
		if (!skip_channel_attrs(d, &r->cs_maxreqs) || !skip_channel_attrs(d, &dummy))
			return false;
		break;
	case OP_BIND_CONN_TO_SESSION:
		xd_fixed(d, r->sessionid, NFS4_SESSIONID_SIZE);
		xd_u32(d);			/* direction */
		xd_u32(d);			/* rdma mode */
		break;
	case OP_SEQUENCE:
		xd_fixed(d, NULL, NFS4_SESSIONID_SIZE);
		r->seq_seqid = xd_u32(d);
		r->seq_slot = xd_u32(d);
		r->seq_highest = xd_u32(d);
		r->seq_target = xd_u32(d);
		r->seq_flags = xd_u32(d);
		r->has_seq = !d->err;
		break;
	case OP_PUTROOTFH:
	case OP_DESTROY_SESSION:
	case OP_DESTROY_CLIENTID:
		break;
	case OP_GETATTR:
		n = xd_u32(d);			/* bitmap4 */
		if (n > 8)
			return false;
		for (i = 0; i < n; i++)
			xd_u32(d);
		if (!xd_opaque(d, &n, 1 << 20))
			return false;
		r->has_getattr = true;
		break;
	default:
		return false;
	}
	return !d->err;
}

bool nfs4_compound_res(struct xdec *d, struct nfs4_res *r)
{
	uint32_t n, i;

	memset(r, 0, sizeof(*r));
	r->status = xd_u32(d);
	if (!xd_opaque(d, &n, 1024))	/* tag */
		return false;
	r->nres = xd_u32(d);
	if (d->err || r->nres > 64)
		return false;
	for (i = 0; i < r->nres; i++) {
		uint32_t op = xd_u32(d), status = xd_u32(d);

		if (d->err)
			return false;
		if (status) {
			r->failed_op = op;
			return r->status == status;
		}
		if (!op_result(d, op, r))
			return false;
	}
	return true;
}

static const struct errname nfs4_names[] = {
	{ 0, "NFS4_OK" }, { 1, "NFS4ERR_PERM" }, { 2, "NFS4ERR_NOENT" }, { 5, "NFS4ERR_IO" },
	{ 13, "NFS4ERR_ACCESS" }, { 22, "NFS4ERR_INVAL" }, { 70, "NFS4ERR_STALE" },
	{ 10001, "NFS4ERR_BADHANDLE" }, { 10004, "NFS4ERR_NOTSUPP" }, { 10005, "NFS4ERR_TOOSMALL" },
	{ 10006, "NFS4ERR_SERVERFAULT" }, { 10008, "NFS4ERR_DELAY" }, { 10011, "NFS4ERR_EXPIRED" },
	{ 10013, "NFS4ERR_GRACE" }, { 10016, "NFS4ERR_WRONGSEC" }, { 10017, "NFS4ERR_CLID_INUSE" },
	{ 10018, "NFS4ERR_RESOURCE" }, { 10020, "NFS4ERR_NOFILEHANDLE" },
	{ 10021, "NFS4ERR_MINOR_VERS_MISMATCH" }, { 10022, "NFS4ERR_STALE_CLIENTID" },
	{ 10036, "NFS4ERR_BADXDR" }, { 10044, "NFS4ERR_OP_ILLEGAL" },
	{ 10052, "NFS4ERR_BADSESSION" }, { 10053, "NFS4ERR_BADSLOT" },
	{ 10055, "NFS4ERR_CONN_NOT_BOUND_TO_SESSION" }, { 10063, "NFS4ERR_SEQ_MISORDERED" },
	{ 10065, "NFS4ERR_REQ_TOO_BIG" }, { 10066, "NFS4ERR_REP_TOO_BIG" },
	{ 10068, "NFS4ERR_RETRY_UNCACHED_REP" },
	{ 10070, "NFS4ERR_TOO_MANY_OPS" }, { 10071, "NFS4ERR_OP_NOT_IN_SESSION" },
	{ 10074, "NFS4ERR_CLIENTID_BUSY" }, { 10077, "NFS4ERR_BAD_HIGH_SLOT" },
	{ 10078, "NFS4ERR_DEADSESSION" }, { 10081, "NFS4ERR_NOT_ONLY_OP" },
	{ 10082, "NFS4ERR_WRONG_CRED" },
};

const char *nfs4_str(uint32_t status)
{
	return LOOKUP(nfs4_names, status);
}

static const struct errname nfs4_ops[] = {
	{ OP_GETATTR, "GETATTR" }, { OP_PUTROOTFH, "PUTROOTFH" },
	{ OP_BIND_CONN_TO_SESSION, "BIND_CONN_TO_SESSION" }, { OP_EXCHANGE_ID, "EXCHANGE_ID" },
	{ OP_CREATE_SESSION, "CREATE_SESSION" }, { OP_DESTROY_SESSION, "DESTROY_SESSION" },
	{ OP_SEQUENCE, "SEQUENCE" }, { OP_DESTROY_CLIENTID, "DESTROY_CLIENTID" },
};

const char *nfs4_op_str(uint32_t op)
{
	return LOOKUP(nfs4_ops, op);
}
