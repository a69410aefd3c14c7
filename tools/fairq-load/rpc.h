/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * XDR (RFC 4506), ONC RPC v2 messages (RFC 5531) and TCP record marking, just what a load
 * generator needs: encoders write into a caller's buffer, decoders read a received record and
 * never run past its end.
 */
#ifndef FAIRQ_LOAD_RPC_H
#define FAIRQ_LOAD_RPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Encoding into a fixed buffer: an overflow is remembered, not written. */
struct xenc {
	uint8_t *buf;
	size_t cap;
	size_t len;
	bool overflow;
};

void xenc_init(struct xenc *x, void *buf, size_t cap);
void xe_u32(struct xenc *x, uint32_t v);
void xe_u64(struct xenc *x, uint64_t v);
void xe_fixed(struct xenc *x, const void *p, size_t n);		/* opaque[n], padded */
void xe_opaque(struct xenc *x, const void *p, size_t n);	/* opaque<>: length, data, pad */
void xe_string(struct xenc *x, const char *s);

/* Decoding a received record: any read past the end sets err and yields zeros. */
struct xdec {
	const uint8_t *buf;
	size_t len;
	size_t pos;
	bool err;
};

void xdec_init(struct xdec *d, const void *buf, size_t len);
uint32_t xd_u32(struct xdec *d);
uint64_t xd_u64(struct xdec *d);
bool xd_fixed(struct xdec *d, void *out, size_t n);		/* opaque[n], padded */
/* opaque<max>: returns the data (not copied) and its length, or NULL on error */
const uint8_t *xd_opaque(struct xdec *d, uint32_t *n, uint32_t max);
size_t xd_left(const struct xdec *d);

/* Record marking (RFC 5531 section 11): a 4-byte mark, top bit = last fragment. */
#define RM_LAST 0x80000000u
#define RM_HDR 4

void rm_mark(uint8_t *hdr, size_t payload_len);

/*
 * Reassembly of the records of one TCP stream.  Bytes are read straight into rm_space(), then
 * rm_commit()ed; rm_next() returns complete records one by one, each valid until the next call.
 */
struct rm_reader {
	uint8_t *in;		/* received bytes not yet consumed */
	size_t in_len, in_cap, in_off;
	uint8_t *rec;		/* the record being reassembled */
	size_t rec_len, rec_cap;
	size_t max_record;
	bool delivered;		/* rec was handed out: start a new one at the next call */
};

int rm_init(struct rm_reader *r, size_t max_record);
void rm_free(struct rm_reader *r);
void rm_reset(struct rm_reader *r);	/* forget everything: a new connection */
uint8_t *rm_space(struct rm_reader *r, size_t want);	/* NULL if out of memory */
void rm_commit(struct rm_reader *r, size_t n);
int rm_feed(struct rm_reader *r, const void *data, size_t n);	/* 0, or -1 out of memory */
/* 1: rec and len give a whole record; 0: more bytes needed; -1: record over max_record */
int rm_next(struct rm_reader *r, const uint8_t **rec, size_t *len);

/* ONC RPC */
#define RPC_VERSION 2
#define AUTH_NONE 0
#define AUTH_SYS 1

struct rpc_cred_sys {
	uint32_t stamp;
	const char *machine;
	uint32_t uid, gid;
};

/* A CALL header; cred NULL means AUTH_NONE.  The verifier is always AUTH_NONE. */
void rpc_call(struct xenc *x, uint32_t xid, uint32_t prog, uint32_t vers, uint32_t proc,
	      const struct rpc_cred_sys *cred);

enum rpc_status {
	RPC_OK,
	RPC_BAD_REPLY,		/* not a well-formed reply */
	RPC_PROG_UNAVAIL,
	RPC_PROG_MISMATCH,	/* low, high */
	RPC_PROC_UNAVAIL,
	RPC_GARBAGE_ARGS,
	RPC_SYSTEM_ERR,
	RPC_VERS_MISMATCH,	/* denied: low, high */
	RPC_AUTH_ERROR,		/* denied: auth_stat */
};

struct rpc_reply {
	uint32_t xid;
	enum rpc_status status;
	uint32_t low, high;	/* supported versions for the mismatches */
	uint32_t auth_stat;
};

/* The xid of a record that may be a reply; false if the record is too short. */
bool rpc_peek_xid(const uint8_t *rec, size_t len, uint32_t *xid);
/* Parses the reply header and leaves d at the procedure's results. */
enum rpc_status rpc_parse_reply(struct xdec *d, struct rpc_reply *r);
/* A human explanation of a failed reply, into buf. */
const char *rpc_reply_str(const struct rpc_reply *r, char *buf, size_t n);

#endif
