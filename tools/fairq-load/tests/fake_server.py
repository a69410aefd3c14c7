#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""A fake NFSv3 server and mountd for fairq-load's host tests: answers NULL and GETATTR
(program 100003 v3) and MNT/UMNT (100005 v3) over TCP with record marking.  Prints its two
ports, then serves until killed.  --delay-ms holds every reply; --fail-getattr N answers
GETATTR with status N; --close-after N closes each connection after N replies (0: on the
first call, unanswered); --jukebox N answers every Nth GETATTR with NFS3ERR_JUKEBOX."""
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
getattrs = [0]
args = ap.parse_args()


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


def serve(conn):
    sent = 0
    lock = threading.Lock()
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
            elif prog == 100005 and proc == 1:
                body = struct.pack(">II", 0, 8) + b"fakefh!!" + struct.pack(">II", 1, 1)
            elif prog == 100005 and proc == 3:
                body = b""
            else:
                conn.sendall(struct.pack(">I", 0x80000000 | 24) +
                             struct.pack(">6I", xid, 1, 0, 0, 0, 1))
                continue
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
