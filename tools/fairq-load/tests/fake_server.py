#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""A fake NFSv3 server and mountd for fairq-load's host tests: answers NULL and GETATTR
(program 100003 v3) and MNT/UMNT (100005 v3) over TCP with record marking.  Prints its two
ports, then serves until killed.  --delay-ms holds every reply; --fail-getattr N answers
GETATTR with status N; --close-after N closes each connection after N replies (0: on the
first call, unanswered); --jukebox N answers every Nth GETATTR with NFS3ERR_JUKEBOX.

An NFSv4.1 COMPOUND (100003 v4) of SEQUENCE alone, what --forge-sequence sends, is answered
with the statuses of --sequence-status (comma-separated, used in turn; default 10052,
NFS4ERR_BADSESSION; 0 accepts it with a SEQUENCE result); any other COMPOUND with
NFS4ERR_OP_ILLEGAL.  --seq-log FILE appends one line per SEQUENCE received: the client's
address:port, the calls received on that connection before, the session id in hex, sequenceid, slotid,
highest_slotid, cachethis, minorversion, tag length, number of ops.  --no-v4 answers version 4
with PROG_MISMATCH (versions 3 to 3), like a server without NFSv4."""
import argparse
import socket
import struct
import threading
import time

ap = argparse.ArgumentParser()
ap.add_argument("--delay-ms", type=float, default=0)
ap.add_argument("--fail-getattr", type=int, default=0)
ap.add_argument("--close-after", type=int, default=-1)
ap.add_argument("--jukebox", type=int, default=0)
ap.add_argument("--sequence-status", default="10052")
ap.add_argument("--seq-log")
ap.add_argument("--no-v4", action="store_true")
getattrs = [0]
args = ap.parse_args()
seq_statuses = [int(x) for x in args.sequence_status.split(",")]
seqs = [0]
log_lock = threading.Lock()


def records(conn):
    buf = b""
    rec = b""
    while True:
        while len(buf) < 4:
            d = conn.recv(65536)
            if not d:
                return
            buf += d
        mark = struct.unpack(">I", buf[:4])[0]
        n = mark & 0x7FFFFFFF
        while len(buf) < 4 + n:
            d = conn.recv(65536)
            if not d:
                return
            buf += d
        rec += buf[4:4 + n]
        buf = buf[4 + n:]
        if mark & 0x80000000:
            yield rec
            rec = b""


def reply(xid, body):
    msg = struct.pack(">IIIIII", xid, 1, 0, 0, 0, 0) + body
    return struct.pack(">I", 0x80000000 | len(msg)) + msg


def compound(rec, peer, calls):
    """The results of an NFSv4 COMPOUND call record (after the RPC header and the creds)."""
    pos = 24
    for _ in range(2):                  # cred, verifier
        n = struct.unpack(">I", rec[pos + 4:pos + 8])[0]
        pos += 8 + (n + 3) // 4 * 4
    taglen = struct.unpack(">I", rec[pos:pos + 4])[0]
    pos += 4 + (taglen + 3) // 4 * 4
    minor, nops = struct.unpack(">II", rec[pos:pos + 8])
    pos += 8
    op = struct.unpack(">I", rec[pos:pos + 4])[0] if nops else 0
    if op != 53:
        return struct.pack(">III", 10044, 0, 1) + struct.pack(">II", 10044, 10044)
    sid = rec[pos + 4:pos + 20]
    seqid, slot, highest, cachethis = struct.unpack(">4I", rec[pos + 20:pos + 36])
    if args.seq_log:
        with log_lock, open(args.seq_log, "a") as f:
            print(peer, calls, sid.hex(), seqid, slot, highest, cachethis, minor, taglen,
                  nops, file=f)
    with log_lock:
        st = seq_statuses[seqs[0] % len(seq_statuses)]
        seqs[0] += 1
    body = struct.pack(">III", st, 0, 1) + struct.pack(">II", 53, st)
    if not st:
        body += sid + struct.pack(">5I", seqid, slot, highest, 15, 0)
    return body


def serve(conn):
    sent = 0
    calls = 0
    lock = threading.Lock()
    peer = "%s:%d" % conn.getpeername()[:2]
    try:
        if args.close_after == 0:
            for rec in records(conn):
                break
            conn.close()
            return
        for rec in records(conn):
            xid, _mtype, _rpcvers, prog, vers, proc = struct.unpack(">6I", rec[:24])
            if prog == 100003 and vers == 3 and proc == 0:
                body = b""
            elif prog == 100003 and vers == 3 and proc == 1:
                getattrs[0] += 1
                st = args.fail_getattr
                if args.jukebox and getattrs[0] % args.jukebox == 0:
                    st = 10008
                body = struct.pack(">I", st)
                if not st:
                    body += b"\0" * 84
            elif prog == 100003 and vers == 4 and args.no_v4:
                conn.sendall(struct.pack(">I", 0x80000000 | 32) +
                             struct.pack(">8I", xid, 1, 0, 0, 0, 2, 3, 3))
                calls += 1
                continue
            elif prog == 100003 and vers == 4 and proc == 1:
                body = compound(rec, peer, calls)
            elif prog == 100005 and proc == 1:
                body = struct.pack(">II", 0, 8) + b"fakefh!!" + struct.pack(">II", 1, 1)
            elif prog == 100005 and proc == 3:
                body = b""
            else:
                conn.sendall(struct.pack(">I", 0x80000000 | 24) +
                             struct.pack(">6I", xid, 1, 0, 0, 0, 1))
                continue
            calls += 1
            if args.delay_ms:
                time.sleep(args.delay_ms / 1000)
            with lock:
                conn.sendall(reply(xid, body))
            sent += 1
            if args.close_after > 0 and sent >= args.close_after:
                break
    except OSError:
        pass
    conn.close()


def listener():
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 0))
    s.listen(128)
    return s


def accept_loop(s):
    while True:
        c, _ = s.accept()
        threading.Thread(target=serve, args=(c,), daemon=True).start()


nfs, mnt = listener(), listener()
print(nfs.getsockname()[1], mnt.getsockname()[1], flush=True)
threading.Thread(target=accept_loop, args=(mnt,), daemon=True).start()
accept_loop(nfs)
