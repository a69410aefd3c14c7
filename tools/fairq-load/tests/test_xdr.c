// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host-side tests of fairq-load's wire code: XDR, record marking, RPC headers, the NFS and
 * MOUNT encodings and decodings, and the latency histogram.  Prints "N passed, N failed".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "nfs.h"
#include "rpc.h"
#include "../../../tests/unit/check.h"

/* big-endian words into a buffer, for expected encodings */
struct words {
	uint8_t b[1024];
	size_t n;
};

static void w32(struct words *w, uint32_t v)
{
	w->b[w->n++] = v >> 24;
	w->b[w->n++] = v >> 16;
	w->b[w->n++] = v >> 8;
	w->b[w->n++] = v;
}

static void wbytes(struct words *w, const void *p, size_t n)
{
	memcpy(w->b + w->n, p, n);
	w->n += n;
	while (w->n % 4)
		w->b[w->n++] = 0;
}

static bool same(const struct xenc *x, const struct words *w)
{
	return !x->overflow && x->len == w->n && !memcmp(x->buf, w->b, w->n);
}

static void test_xdr_encode(void)
{
	uint8_t buf[64];
	struct xenc x;
	struct words w = { .n = 0 };
	static const uint8_t e1[] = { 0x12, 0x34, 0x56, 0x78 };
	static const uint8_t e2[] = { 0, 0, 0, 1, 0x80, 0, 0, 2 };
	static const uint8_t e3[] = { 0, 0, 0, 5, 'a', 'b', 'c', 'd', 'e', 0, 0, 0 };

	xenc_init(&x, buf, sizeof(buf));
	xe_u32(&x, 0x12345678);
	CHECK(x.len == 4 && !memcmp(buf, e1, 4), "u32 is big-endian");

	xenc_init(&x, buf, sizeof(buf));
	xe_u64(&x, 0x0000000180000002ull);
	CHECK(x.len == 8 && !memcmp(buf, e2, 8), "u64 is two big-endian words, high first");

	xenc_init(&x, buf, sizeof(buf));
	xe_string(&x, "abcde");
	CHECK(x.len == 12 && !memcmp(buf, e3, 12), "opaque<> has its length and zero padding");

	xenc_init(&x, buf, sizeof(buf));
	xe_string(&x, "");
	CHECK(x.len == 4 && !memcmp(buf, "\0\0\0\0", 4), "empty string is one zero word");

	xenc_init(&x, buf, sizeof(buf));
	xe_fixed(&x, "abcd", 4);
	CHECK(x.len == 4, "fixed opaque of 4 has no padding");

	xenc_init(&x, buf, 6);
	xe_u32(&x, 1);
	xe_u32(&x, 2);
	CHECK(x.overflow && x.len == 4, "an overflow is flagged and not written");
	xe_u32(&x, 3);
	CHECK(x.overflow && x.len == 4, "writes after an overflow are dropped");

	w32(&w, 7);
	xenc_init(&x, buf, sizeof(buf));
	xe_u32(&x, 7);
	CHECK(same(&x, &w), "helper agrees");
}

static void test_xdr_decode(void)
{
	static const uint8_t in[] = { 0, 0, 0, 3, 'x', 'y', 'z', 0, 0xff, 0xff, 0xff, 0xfe,
				      0, 0, 0, 9 };
	const uint8_t *p;
	struct xdec d;
	uint32_t n;
	uint8_t out[4];

	xdec_init(&d, in, sizeof(in));
	p = xd_opaque(&d, &n, 16);
	CHECK(p && n == 3 && !memcmp(p, "xyz", 3) && d.pos == 8, "opaque<> skips its padding");
	CHECK(xd_u32(&d) == 0xfffffffe, "u32 decodes big-endian");
	CHECK(xd_left(&d) == 4, "left counts what remains");
	CHECK(xd_u64(&d) == 0 && d.err, "reading past the end is an error and yields 0");
	CHECK(xd_u32(&d) == 0 && d.err && xd_left(&d) == 0, "errors stick");

	xdec_init(&d, in, sizeof(in));
	CHECK(!xd_opaque(&d, &n, 2) && d.err, "opaque over its maximum is refused");

	xdec_init(&d, in, 6);
	xd_u32(&d);
	CHECK(!xd_fixed(&d, out, 3) && d.err, "fixed opaque past the end is refused");

	xdec_init(&d, "\0\0\0\x10" "ab", 6);
	CHECK(!xd_opaque(&d, &n, 100) && d.err, "opaque longer than the record is refused");
}

static void test_record_marking(void)
{
	struct rm_reader r;
	const uint8_t *rec;
	uint8_t hdr[4];
	size_t len;
	size_t i;
	static const uint8_t two[] = {
		0x80, 0, 0, 4, 'a', 'b', 'c', 'd',
		0x80, 0, 0, 2, 'e', 'f',
	};
	static const uint8_t frags[] = {
		0, 0, 0, 3, 'o', 'n', 'e',
		0, 0, 0, 0,
		0x80, 0, 0, 3, 't', 'w', 'o',
	};

	rm_mark(hdr, 0x1234);
	CHECK(hdr[0] == 0x80 && hdr[1] == 0 && hdr[2] == 0x12 && hdr[3] == 0x34,
	      "record mark: last-fragment bit and length");

	CHECK(rm_init(&r, 1 << 20) == 0, "reader init");
	rm_feed(&r, two, sizeof(two));
	CHECK(rm_next(&r, &rec, &len) == 1 && len == 4 && !memcmp(rec, "abcd", 4),
	      "first of two records in one read");
	CHECK(rm_next(&r, &rec, &len) == 1 && len == 2 && !memcmp(rec, "ef", 2),
	      "second of two records in one read");
	CHECK(rm_next(&r, &rec, &len) == 0, "then nothing");

	rm_feed(&r, "\x80\0\0\x08" "abc", 7);
	CHECK(rm_next(&r, &rec, &len) == 0, "half a record");
	rm_reset(&r);
	rm_feed(&r, frags, sizeof(frags));
	CHECK(rm_next(&r, &rec, &len) == 1 && len == 6 && !memcmp(rec, "onetwo", 6),
	      "fragments (one empty) are joined into one record");

	for (i = 0; i < sizeof(two); i++) {
		int got;

		rm_feed(&r, two + i, 1);
		got = rm_next(&r, &rec, &len);
		if (i == 7)
			CHECK(got == 1 && len == 4 && !memcmp(rec, "abcd", 4), "byte by byte: first");
		else if (i == sizeof(two) - 1)
			CHECK(got == 1 && len == 2 && !memcmp(rec, "ef", 2), "byte by byte: second");
		else if (got != 0)
			CHECK(0, "byte by byte: a record after %zu bytes", i + 1);
	}
	rm_free(&r);

	CHECK(rm_init(&r, 16) == 0, "small reader init");
	rm_feed(&r, "\x80\0\0\x11", 4);
	CHECK(rm_next(&r, &rec, &len) == -1, "a record over the maximum is refused");
	rm_free(&r);

	CHECK(rm_init(&r, 16) == 0, "small reader init");
	rm_feed(&r, "\0\0\0\x0a" "0123456789" "\x80\0\0\x0a" "0123456789", 28);
	CHECK(rm_next(&r, &rec, &len) == -1, "fragments adding up over the maximum are refused");
	rm_free(&r);

	CHECK(rm_init(&r, 1 << 20) == 0, "reader init");
	{
		static uint8_t big[200000];
		uint8_t *p;

		big[0] = 0x80;
		big[1] = (uint8_t)((sizeof(big) - 4) >> 16);
		big[2] = (uint8_t)((sizeof(big) - 4) >> 8);
		big[3] = (uint8_t)(sizeof(big) - 4);
		memset(big + 4, 'z', sizeof(big) - 4);
		for (i = 0; i < sizeof(big); i += 65536) {
			size_t n = sizeof(big) - i < 65536 ? sizeof(big) - i : 65536;

			p = rm_space(&r, 65536);
			memcpy(p, big + i, n);
			rm_commit(&r, n);
		}
		CHECK(rm_next(&r, &rec, &len) == 1 && len == sizeof(big) - 4 && rec[len - 1] == 'z',
		      "a record larger than the read buffer");
	}
	rm_free(&r);
}

static void test_rpc_call(void)
{
	struct rpc_cred_sys cred = { .stamp = 0x11, .machine = "host1", .uid = 1000, .gid = 100 };
	struct words w = { .n = 0 };
	uint8_t buf[256];
	struct xenc x;

	xenc_init(&x, buf, sizeof(buf));
	rpc_call(&x, 0xabcd, NFS_PROG, 3, 0, NULL);
	w32(&w, 0xabcd);
	w32(&w, 0);
	w32(&w, 2);
	w32(&w, NFS_PROG);
	w32(&w, 3);
	w32(&w, 0);
	w32(&w, 0);
	w32(&w, 0);
	w32(&w, 0);
	w32(&w, 0);
	CHECK(same(&x, &w), "CALL with AUTH_NONE: 10 words");

	w.n = 0;
	xenc_init(&x, buf, sizeof(buf));
	rpc_call(&x, 7, MOUNT_PROG, 3, 1, &cred);
	w32(&w, 7);
	w32(&w, 0);
	w32(&w, 2);
	w32(&w, MOUNT_PROG);
	w32(&w, 3);
	w32(&w, 1);
	w32(&w, AUTH_SYS);
	w32(&w, 4 + 4 + 8 + 4 + 4 + 4);
	w32(&w, 0x11);
	w32(&w, 5);
	wbytes(&w, "host1", 5);
	w32(&w, 1000);
	w32(&w, 100);
	w32(&w, 0);
	w32(&w, 0);
	w32(&w, 0);
	CHECK(same(&x, &w), "CALL with AUTH_SYS: body length covers the padded machine name");
}

static void test_rpc_reply(void)
{
	struct words w = { .n = 0 };
	struct rpc_reply r;
	struct xdec d;
	uint32_t xid;
	char msg[160];

	w32(&w, 42);
	w32(&w, 1);
	w32(&w, 0);
	w32(&w, AUTH_SYS);	/* a verifier with a body */
	w32(&w, 3);
	wbytes(&w, "abc", 3);
	w32(&w, 0);
	w32(&w, 0xdeadbeef);	/* results */
	CHECK(rpc_peek_xid(w.b, w.n, &xid) && xid == 42, "peek xid");
	xdec_init(&d, w.b, w.n);
	CHECK(rpc_parse_reply(&d, &r) == RPC_OK && r.xid == 42, "accepted SUCCESS");
	CHECK(xd_u32(&d) == 0xdeadbeef, "the decoder is left at the results");

	w.n = 0;
	w32(&w, 1);
	w32(&w, 1);
	w32(&w, 0);
	w32(&w, 0);
	w32(&w, 0);
	w32(&w, 2);
	w32(&w, 2);
	w32(&w, 3);
	xdec_init(&d, w.b, w.n);
	CHECK(rpc_parse_reply(&d, &r) == RPC_PROG_MISMATCH && r.low == 2 && r.high == 3,
	      "PROG_MISMATCH with its versions");
	CHECK(strstr(rpc_reply_str(&r, msg, sizeof(msg)), "2 to 3") != NULL, "mismatch message");

	w.n = 0;
	w32(&w, 1);
	w32(&w, 1);
	w32(&w, 1);
	w32(&w, 1);
	w32(&w, 5);
	xdec_init(&d, w.b, w.n);
	CHECK(rpc_parse_reply(&d, &r) == RPC_AUTH_ERROR && r.auth_stat == 5, "AUTH_ERROR TOOWEAK");
	CHECK(strstr(rpc_reply_str(&r, msg, sizeof(msg)), "--resvport") != NULL,
	      "TOOWEAK suggests --resvport");

	w.n = 0;
	w32(&w, 1);
	w32(&w, 0);		/* a CALL, not a REPLY */
	xdec_init(&d, w.b, w.n);
	CHECK(rpc_parse_reply(&d, &r) == RPC_BAD_REPLY, "a CALL is not a reply");

	w.n = 0;
	w32(&w, 1);
	w32(&w, 1);
	w32(&w, 0);
	w32(&w, 0);
	xdec_init(&d, w.b, w.n);
	CHECK(rpc_parse_reply(&d, &r) == RPC_BAD_REPLY, "a truncated reply is malformed");

	w.n = 0;
	w32(&w, 1);
	w32(&w, 1);
	w32(&w, 0);
	w32(&w, 0);
	w32(&w, 0);
	w32(&w, 9);
	xdec_init(&d, w.b, w.n);
	CHECK(rpc_parse_reply(&d, &r) == RPC_BAD_REPLY, "an unknown accept_stat is malformed");
	CHECK(!rpc_peek_xid(w.b, 3, &xid), "no xid in 3 bytes");
}

static void test_mount_pmap_nfs3(void)
{
	struct words w = { .n = 0 };
	uint8_t buf[256], fh[NFS3_FHSIZE], fh65[65];
	uint32_t st, fhlen, port;
	struct xenc x;
	struct xdec d;

	xenc_init(&x, buf, sizeof(buf));
	pmap_getport_args(&x, MOUNT_PROG, 3, 6);
	w32(&w, MOUNT_PROG);
	w32(&w, 3);
	w32(&w, 6);
	w32(&w, 0);
	CHECK(same(&x, &w), "PMAP GETPORT arguments");
	xdec_init(&d, "\0\0\x4e\x20", 4);
	CHECK(pmap_getport_res(&d, &port) && port == 20000, "GETPORT result");

	/* rpcbind v4 GETADDR, as asked of an IPv6 server */
	w.n = 0;
	xenc_init(&x, buf, sizeof(buf));
	rpcb_getaddr_args(&x, MOUNT_PROG, 3, "tcp6");
	w32(&w, MOUNT_PROG);
	w32(&w, 3);
	w32(&w, 4);
	wbytes(&w, "tcp6", 4);
	w32(&w, 0);
	w32(&w, 0);
	CHECK(same(&x, &w), "RPCB GETADDR arguments");
	xdec_init(&d, "\0\0\0\x0e" "fd99::1.159.23" "\0\0", 20);
	CHECK(rpcb_getaddr_res(&d, &port) && port == 159 * 256 + 23, "GETADDR result: %u", port);
	xdec_init(&d, "\0\0\0\0", 4);
	CHECK(rpcb_getaddr_res(&d, &port) && port == 0, "GETADDR of nothing registered: port 0");
	xdec_init(&d, "\0\0\0\x08" "fd99::1." , 12);
	CHECK(!rpcb_getaddr_res(&d, &port), "GETADDR with no port in the address refused");
	xdec_init(&d, "\0\0\0\x0c" "::.1000.23\0\0", 16);
	CHECK(!rpcb_getaddr_res(&d, &port), "GETADDR with a port byte over 255 refused");

	w.n = 0;
	xenc_init(&x, buf, sizeof(buf));
	mnt3_args(&x, "/srv/nfs");
	w32(&w, 8);
	wbytes(&w, "/srv/nfs", 8);
	CHECK(same(&x, &w), "MNT arguments: the path");

	w.n = 0;
	w32(&w, 0);
	w32(&w, 12);
	wbytes(&w, "filehandle12", 12);
	w32(&w, 1);
	w32(&w, AUTH_SYS);
	xdec_init(&d, w.b, w.n);
	CHECK(mnt3_res(&d, &st, fh, &fhlen) && st == 0 && fhlen == 12 &&
	      !memcmp(fh, "filehandle12", 12), "MNT result: the root filehandle");

	w.n = 0;
	w32(&w, 13);
	xdec_init(&d, w.b, w.n);
	CHECK(mnt3_res(&d, &st, fh, &fhlen) && st == 13 && !strcmp(mnt3_str(st), "MNT3ERR_ACCES"),
	      "MNT refusal");

	w.n = 0;
	w32(&w, 0);
	w32(&w, 65);
	memset(fh65, 1, sizeof(fh65));
	wbytes(&w, fh65, 65);
	xdec_init(&d, w.b, w.n);
	CHECK(!mnt3_res(&d, &st, fh, &fhlen), "a filehandle over 64 bytes is malformed");

	w.n = 0;
	xenc_init(&x, buf, sizeof(buf));
	nfs3_getattr_args(&x, (const uint8_t *)"fh3", 3);
	w32(&w, 3);
	wbytes(&w, "fh3", 3);
	CHECK(same(&x, &w), "GETATTR3 arguments: the filehandle");

	w.n = 0;
	w32(&w, 0);
	memset(w.b + w.n, 0, NFS3_FATTR_SIZE);
	w.n += NFS3_FATTR_SIZE;
	xdec_init(&d, w.b, w.n);
	CHECK(nfs3_getattr_res(&d, &st) && st == 0, "GETATTR3 OK with attributes");
	xdec_init(&d, w.b, w.n - 4);
	CHECK(!nfs3_getattr_res(&d, &st), "GETATTR3 OK with short attributes is malformed");
	xdec_init(&d, "\0\0\0\x46", 4);
	CHECK(nfs3_getattr_res(&d, &st) && st == 70 && !strcmp(nfs3_str(st), "NFS3ERR_STALE"),
	      "GETATTR3 STALE");
	CHECK(!strcmp(nfs3_str(12345), "error 12345"), "unknown status by number");
}

static const uint8_t sid[NFS4_SESSIONID_SIZE] = "0123456789abcdef";

static void test_nfs4_args(void)
{
	struct words w = { .n = 0 };
	uint8_t buf[512];
	struct xenc x;
	static const uint8_t verf[8] = "verifier";

	xenc_init(&x, buf, sizeof(buf));
	nfs4_seq_getattr(&x, sid, 5, 3, 7);
	w32(&w, 0);		/* tag */
	w32(&w, 1);		/* minorversion */
	w32(&w, 3);
	w32(&w, OP_SEQUENCE);
	wbytes(&w, sid, 16);
	w32(&w, 5);
	w32(&w, 3);
	w32(&w, 7);
	w32(&w, 0);
	w32(&w, OP_PUTROOTFH);
	w32(&w, OP_GETATTR);
	w32(&w, 2);
	w32(&w, 0x0010011a);
	w32(&w, 0x0020000a);
	CHECK(same(&x, &w), "SEQUENCE+PUTROOTFH+GETATTR");

	/* --forge-sequence: a COMPOUND of SEQUENCE alone, sequence 1, slot 0, highest slot 0 */
	{
		static const uint8_t forged[] = {
			0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
			0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff,
		};
		static const uint8_t wire[] = {
			0, 0, 0, 0,		/* tag: empty */
			0, 0, 0, 1,		/* minorversion 1 */
			0, 0, 0, 1,		/* one op */
			0, 0, 0, 53,		/* OP_SEQUENCE */
			0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,	/* sessionid */
			0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff,
			0, 0, 0, 1,		/* sequenceid */
			0, 0, 0, 0,		/* slotid */
			0, 0, 0, 0,		/* highest_slotid */
			0, 0, 0, 0,		/* cachethis: false */
		};

		xenc_init(&x, buf, sizeof(buf));
		nfs4_sequence(&x, forged, 1, 0, 0);
		CHECK(!x.overflow && x.len == sizeof(wire) && !memcmp(buf, wire, sizeof(wire)),
		      "forged SEQUENCE alone, byte for byte (%zu bytes)", x.len);
		xenc_init(&x, buf, sizeof(wire) - 1);
		nfs4_sequence(&x, forged, 1, 0, 0);
		CHECK(x.overflow, "forged SEQUENCE: an overflow is flagged");
	}

	w.n = 0;
	xenc_init(&x, buf, sizeof(buf));
	nfs4_exchange_id(&x, verf, "me");
	w32(&w, 0);
	w32(&w, 1);
	w32(&w, 1);
	w32(&w, OP_EXCHANGE_ID);
	wbytes(&w, verf, 8);
	w32(&w, 2);
	wbytes(&w, "me", 2);
	w32(&w, 0x00010000);
	w32(&w, 0);
	w32(&w, 0);
	CHECK(same(&x, &w), "EXCHANGE_ID with SP4_NONE and no implementation id");

	w.n = 0;
	xenc_init(&x, buf, sizeof(buf));
	nfs4_create_session(&x, 0x0102030405060708ull, 9, 64);
	CHECK(!x.overflow && x.len == 4 * 3 + 4 + 8 + 4 + 4 + 2 * 7 * 4 + 4 + 4 + 4,
	      "CREATE_SESSION length (%zu)", x.len);
	CHECK(buf[16] == 1 && buf[23] == 8, "CREATE_SESSION starts with the clientid");
	CHECK(buf[4 * 3 + 4 + 8 + 4 + 4 + 5 * 4 + 3] == 64, "CREATE_SESSION asks for the slots");

	w.n = 0;
	xenc_init(&x, buf, sizeof(buf));
	nfs4_bind_conn(&x, sid);
	w32(&w, 0);
	w32(&w, 1);
	w32(&w, 1);
	w32(&w, OP_BIND_CONN_TO_SESSION);
	wbytes(&w, sid, 16);
	w32(&w, 1);
	w32(&w, 0);
	CHECK(same(&x, &w), "BIND_CONN_TO_SESSION, fore channel");

	w.n = 0;
	xenc_init(&x, buf, sizeof(buf));
	nfs4_destroy_clientid(&x, 5);
	w32(&w, 0);
	w32(&w, 1);
	w32(&w, 1);
	w32(&w, OP_DESTROY_CLIENTID);
	w32(&w, 0);
	w32(&w, 5);
	CHECK(same(&x, &w), "DESTROY_CLIENTID");
}

static void seq_ok(struct words *w)
{
	w32(w, OP_SEQUENCE);
	w32(w, 0);
	wbytes(w, sid, 16);
	w32(w, 5);
	w32(w, 3);
	w32(w, 7);
	w32(w, 15);
	w32(w, 0);
}

static void test_nfs4_res(void)
{
	struct words w = { .n = 0 };
	struct nfs4_res r;
	struct xdec d;

	w32(&w, 0);
	w32(&w, 0);
	w32(&w, 3);
	seq_ok(&w);
	w32(&w, OP_PUTROOTFH);
	w32(&w, 0);
	w32(&w, OP_GETATTR);
	w32(&w, 0);
	w32(&w, 2);
	w32(&w, 0x12);
	w32(&w, 0);
	w32(&w, 8);
	wbytes(&w, "\0\0\0\2\0\0\0\0", 8);
	xdec_init(&d, w.b, w.n);
	CHECK(nfs4_compound_res(&d, &r) && r.status == 0 && r.nres == 3, "compound OK");
	CHECK(r.has_seq && r.seq_seqid == 5 && r.seq_slot == 3 && r.seq_highest == 7 &&
	      r.seq_target == 15, "SEQUENCE result");
	CHECK(r.has_getattr, "GETATTR result");

	w.n = 0;
	w32(&w, 10020);
	w32(&w, 4);
	wbytes(&w, "tag!", 4);
	w32(&w, 2);
	seq_ok(&w);
	w32(&w, OP_PUTROOTFH);
	w32(&w, 10020);
	xdec_init(&d, w.b, w.n);
	CHECK(nfs4_compound_res(&d, &r) && r.status == 10020 && r.failed_op == OP_PUTROOTFH,
	      "a failed op is reported");
	CHECK(!strcmp(nfs4_str(r.status), "NFS4ERR_NOFILEHANDLE") &&
	      !strcmp(nfs4_op_str(r.failed_op), "PUTROOTFH"), "names of status and op");

	w.n = 0;
	w32(&w, 10052);
	w32(&w, 0);
	w32(&w, 1);
	w32(&w, OP_SEQUENCE);
	w32(&w, 10052);
	xdec_init(&d, w.b, w.n);
	CHECK(nfs4_compound_res(&d, &r) && r.status == 10052 && r.failed_op == OP_SEQUENCE,
	      "BADSESSION on SEQUENCE");
	CHECK(!r.has_seq && xd_left(&d) == 0, "BADSESSION: no SEQUENCE result, read to the end");

	/* a SEQUENCE alone that a server accepted */
	w.n = 0;
	w32(&w, 0);
	w32(&w, 0);
	w32(&w, 1);
	seq_ok(&w);
	xdec_init(&d, w.b, w.n);
	CHECK(nfs4_compound_res(&d, &r) && r.status == 0 && r.nres == 1 && r.has_seq &&
	      !r.has_getattr && xd_left(&d) == 0, "SEQUENCE alone, accepted");

	w.n = 0;
	w32(&w, 0);
	w32(&w, 0);
	w32(&w, 3);
	seq_ok(&w);
	w32(&w, OP_PUTROOTFH);
	xdec_init(&d, w.b, w.n);
	CHECK(!nfs4_compound_res(&d, &r), "a truncated compound is malformed");

	w.n = 0;
	w32(&w, 5);
	w32(&w, 0);
	w32(&w, 1);
	w32(&w, OP_SEQUENCE);
	w32(&w, 0);
	xdec_init(&d, w.b, w.n);
	CHECK(!nfs4_compound_res(&d, &r), "a compound error without a failing op is malformed");

	/* EXCHANGE_ID with a server implementation id */
	w.n = 0;
	w32(&w, 0);
	w32(&w, 0);
	w32(&w, 1);
	w32(&w, OP_EXCHANGE_ID);
	w32(&w, 0);
	w32(&w, 0x11);
	w32(&w, 0x22);		/* clientid */
	w32(&w, 1);		/* sequenceid */
	w32(&w, 0x00010001);
	w32(&w, 0);		/* SP4_NONE */
	w32(&w, 0);
	w32(&w, 0);		/* minor id */
	w32(&w, 5);
	wbytes(&w, "major", 5);
	w32(&w, 5);
	wbytes(&w, "scope", 5);
	w32(&w, 1);
	w32(&w, 10);
	wbytes(&w, "kernel.org", 10);
	w32(&w, 5);
	wbytes(&w, "linux", 5);
	w32(&w, 0);
	w32(&w, 0);
	w32(&w, 0);
	xdec_init(&d, w.b, w.n);
	CHECK(nfs4_compound_res(&d, &r) && r.clientid == 0x0000001100000022ull && r.eid_seq == 1 &&
	      xd_left(&d) == 0, "EXCHANGE_ID result, read to the end");

	/* CREATE_SESSION */
	w.n = 0;
	w32(&w, 0);
	w32(&w, 0);
	w32(&w, 1);
	w32(&w, OP_CREATE_SESSION);
	w32(&w, 0);
	wbytes(&w, sid, 16);
	w32(&w, 1);
	w32(&w, 0);
	w32(&w, 0);
	w32(&w, 65536);
	w32(&w, 65536);
	w32(&w, 1024);
	w32(&w, 8);
	w32(&w, 30);		/* fore maxrequests */
	w32(&w, 0);
	w32(&w, 0);
	w32(&w, 4096);
	w32(&w, 4096);
	w32(&w, 0);
	w32(&w, 2);
	w32(&w, 1);
	w32(&w, 1);		/* one rdma_ird */
	w32(&w, 0);
	xdec_init(&d, w.b, w.n);
	CHECK(nfs4_compound_res(&d, &r) && r.cs_maxreqs == 30 && !memcmp(r.sessionid, sid, 16) &&
	      xd_left(&d) == 0, "CREATE_SESSION result: session id and granted slots");
}

static void test_hist(void)
{
	struct hist h, h2;
	uint64_t v;
	unsigned int i;
	bool ok = true;

	for (v = 0; v < 5000000; v = v < 200 ? v + 1 : v + v / 97) {
		i = hist_index(v);
		if (v < hist_lower(i) || v > hist_upper(i))
			ok = false;
	}
	CHECK(ok, "every value falls in its bucket's bounds");
	ok = true;
	for (i = 64; i + 1 < HIST_BUCKETS; i++)
		if (hist_upper(i) + 1 != hist_lower(i + 1))
			ok = false;
	CHECK(ok, "buckets are contiguous");
	ok = true;
	for (i = 64; i < HIST_BUCKETS; i++)
		if ((double)(hist_upper(i) - hist_lower(i)) > hist_lower(i) / 31.0)
			ok = false;
	CHECK(ok, "buckets are at most 1/32 wide");
	CHECK(hist_index(UINT64_MAX) == HIST_BUCKETS - 1, "huge values land in the last bucket");

	hist_init(&h);
	CHECK(hist_pct(&h, 0.5) == 0 && hist_mean(&h) == 0, "empty histogram");
	for (v = 1; v <= 1000; v++)
		hist_add(&h, v * 1000);
	CHECK(h.count == 1000 && h.min == 1000 && h.max == 1000000, "count, min, max");
	v = hist_pct(&h, 0.5);
	CHECK(v > 490000 && v < 510000, "p50 of 1..1000 us is about 500 us (%llu)",
	      (unsigned long long)v);
	v = hist_pct(&h, 0.99);
	CHECK(v > 975000 && v < 1000001, "p99 about 990 us (%llu)", (unsigned long long)v);
	CHECK(hist_pct(&h, 1) == 1000000, "p100 is the max");
	CHECK(hist_mean(&h) == 500500, "mean is exact");

	hist_init(&h2);
	hist_add(&h2, 5);
	hist_add(&h2, 5000000);
	hist_merge(&h2, &h);
	CHECK(h2.count == 1002 && h2.min == 5 && h2.max == 5000000, "merge");
	hist_init(&h);
	hist_add(&h, 7);
	CHECK(hist_pct(&h, 0.5) == 7 && hist_pct(&h, 0.99) == 7, "a single sample");
}

int main(void)
{
	test_xdr_encode();
	test_xdr_decode();
	test_record_marking();
	test_rpc_call();
	test_rpc_reply();
	test_mount_pmap_nfs3();
	test_nfs4_args();
	test_nfs4_res();
	test_hist();
	return check_summary();
}
