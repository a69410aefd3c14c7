/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The few calls fairq-load makes: rpcbind GETPORT (RFC 1833, v2), MOUNT v3 MNT/UMNT and NFSv3
 * NULL/GETATTR (RFC 1813), NFSv4.1 NULL and the COMPOUNDs of RFC 8881 it needs: EXCHANGE_ID,
 * CREATE_SESSION, BIND_CONN_TO_SESSION, SEQUENCE+PUTROOTFH+GETATTR, SEQUENCE alone,
 * DESTROY_SESSION, DESTROY_CLIENTID.
 */
#ifndef FAIRQ_LOAD_NFS_H
#define FAIRQ_LOAD_NFS_H

#include "rpc.h"

#define PMAP_PROG 100000
#define PMAP_VERS 2
#define PMAPPROC_GETPORT 3
#define RPCB_VERS4 4
#define RPCBPROC_GETADDR 3
#define IPPROTO_TCP_NUM 6

#define MOUNT_PROG 100005
#define MOUNT_V3 3
#define MOUNTPROC3_MNT 1
#define MOUNTPROC3_UMNT 3
#define MNTPATHLEN 1024

#define NFS_PROG 100003
#define NFSPROC_NULL 0
#define NFSPROC3_GETATTR 1
#define NFSPROC4_COMPOUND 1
#define NFS3_FHSIZE 64
#define NFS3_FATTR_SIZE 84

#define NFS4_SESSIONID_SIZE 16
#define NFS4_VERIFIER_SIZE 8

enum nfs4_opnum {
	OP_GETATTR = 9,
	OP_PUTROOTFH = 24,
	OP_BIND_CONN_TO_SESSION = 41,
	OP_EXCHANGE_ID = 42,
	OP_CREATE_SESSION = 43,
	OP_DESTROY_SESSION = 44,
	OP_SEQUENCE = 53,
	OP_DESTROY_CLIENTID = 57,
};

#define NFS4ERR_DELAY 10008
#define NFS4ERR_RETRY_UNCACHED_REP 10068
#define NFS3ERR_JUKEBOX 10008

void pmap_getport_args(struct xenc *x, uint32_t prog, uint32_t vers, uint32_t prot);
bool pmap_getport_res(struct xdec *d, uint32_t *port);
/* rpcbind v4 GETADDR (RFC 1833): the only way to ask for an IPv6 ("tcp6") registration */
void rpcb_getaddr_args(struct xenc *x, uint32_t prog, uint32_t vers, const char *netid);
bool rpcb_getaddr_res(struct xdec *d, uint32_t *port);	/* port 0: not registered */

void mnt3_args(struct xenc *x, const char *path);
/* true if decoded; *mstat is the MOUNT status, and on 0 fh/fhlen hold the root filehandle */
bool mnt3_res(struct xdec *d, uint32_t *mstat, uint8_t fh[NFS3_FHSIZE], uint32_t *fhlen);
const char *mnt3_str(uint32_t mstat);

void nfs3_getattr_args(struct xenc *x, const uint8_t *fh, uint32_t fhlen);
/* true if decoded; *status is the nfsstat3 */
bool nfs3_getattr_res(struct xdec *d, uint32_t *status);
const char *nfs3_str(uint32_t status);

/* NFSv4.1 COMPOUND arguments (tag empty, minorversion 1). */
void nfs4_exchange_id(struct xenc *x, const uint8_t verifier[NFS4_VERIFIER_SIZE],
		      const char *owner);
void nfs4_create_session(struct xenc *x, uint64_t clientid, uint32_t seq, uint32_t slots);
void nfs4_bind_conn(struct xenc *x, const uint8_t sid[NFS4_SESSIONID_SIZE]);
/* SEQUENCE alone (cachethis false): fairq-load's forged SEQUENCEs (--forge-sequence) */
void nfs4_sequence(struct xenc *x, const uint8_t sid[NFS4_SESSIONID_SIZE], uint32_t seqid,
		   uint32_t slot, uint32_t highest);
void nfs4_seq_getattr(struct xenc *x, const uint8_t sid[NFS4_SESSIONID_SIZE], uint32_t seqid,
		      uint32_t slot, uint32_t highest);
void nfs4_destroy_session(struct xenc *x, const uint8_t sid[NFS4_SESSIONID_SIZE]);
void nfs4_destroy_clientid(struct xenc *x, uint64_t clientid);

/* What fairq-load reads from a COMPOUND reply. */
struct nfs4_res {
	uint32_t status;		/* of the compound */
	uint32_t failed_op;		/* the op that returned status, if not 0 */
	uint32_t nres;
	uint64_t clientid;		/* EXCHANGE_ID */
	uint32_t eid_seq, eid_flags, eid_spr;
	uint8_t sessionid[NFS4_SESSIONID_SIZE];	/* CREATE_SESSION, BIND_CONN_TO_SESSION */
	uint32_t cs_flags, cs_maxreqs;
	bool has_seq;			/* SEQUENCE */
	uint32_t seq_seqid, seq_slot, seq_highest, seq_target, seq_flags;
	bool has_getattr;
};

/* false if the reply is malformed; otherwise check r->status. */
bool nfs4_compound_res(struct xdec *d, struct nfs4_res *r);
const char *nfs4_str(uint32_t status);
const char *nfs4_op_str(uint32_t op);

#endif
