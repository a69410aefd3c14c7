#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""udp-calls.py SERVER [--calls N] [--window W] [--rate R] [--seconds S] [--progress FILE]
                    [--prog P --vers V --proc C]

ONC RPC calls over UDP, the way a UDP client sends them (the guests' kernel NFS client no
longer speaks UDP: Debian builds it with NFS_DISABLE_UDP_SUPPORT): at most W calls
outstanding (and at most R a second), each resent after a second without its reply, until N
calls are answered (0: no
limit), S seconds have passed, or SIGINT, after which the calls outstanding are still waited
for (resent) for up to 30 s.  --progress FILE: the calls answered so far, rewritten twice a
second.  Default: NFSv3 NULL on port 2049.  Prints one JSON line: calls sent and answered,
resends, replies that were not accepted, and the run's length.  Exit 1 when a call sent was
never answered, 2 on a reply that was not an accepted success.
"""
import argparse
import json
import os
import select
import signal
import socket
import struct
import sys
import time


def call(xid, prog, vers, proc):
    # CALL, RPC version 2, AUTH_NONE credential and verifier
    return struct.pack(">IIIIIIIIII", xid, 0, 2, prog, vers, proc, 0, 0, 0, 0)


def accepted_ok(reply):
    if len(reply) < 24:
        return False
    _, mtype, stat = struct.unpack(">III", reply[:12])
    if mtype != 1 or stat != 0:	# REPLY, MSG_ACCEPTED
        return False
    vlen = struct.unpack(">I", reply[16:20])[0]
    off = 20 + ((vlen + 3) & ~3)
    return len(reply) >= off + 4 and struct.unpack(">I", reply[off:off + 4])[0] == 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("server")
    ap.add_argument("--port", type=int, default=2049)
    ap.add_argument("--calls", type=int, default=1000)
    ap.add_argument("--window", type=int, default=4)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--prog", type=int, default=100003)
    ap.add_argument("--vers", type=int, default=3)
    ap.add_argument("--proc", type=int, default=0)
    ap.add_argument("--progress")
    ap.add_argument("--rate", type=float, default=0, help="calls per second at most (0: no limit)")
    a = ap.parse_args()
    stop = []
    signal.signal(signal.SIGINT, lambda *_: stop.append(time.monotonic()))

    family = socket.AF_INET6 if ":" in a.server else socket.AF_INET
    s = socket.socket(family, socket.SOCK_DGRAM)
    s.connect((a.server, a.port))
    s.setblocking(False)
    base = int.from_bytes(os.urandom(4), "big") & 0x7fffffff
    refused = 0

    def send(xid):
        nonlocal refused
        try:
            s.send(call(xid, a.prog, a.vers, a.proc))
        except ConnectionRefusedError:
            refused += 1	# an ICMP port unreachable: nothing listens (yet); resent later

    pending = {}	# xid -> time last sent
    sent = answered = resends = bad = 0
    t0 = time.monotonic()
    deadline = t0 + a.seconds
    reported = 0
    while True:
        now = time.monotonic()
        if stop or now >= deadline or (a.calls and sent >= a.calls):
            if not pending:
                break
            if now >= (stop[0] if stop else deadline) + 30:
                break	# calls still unanswered 30 s after the end: lost
        if a.progress and now - reported >= 0.5:
            with open(a.progress + ".new", "w") as f:
                f.write("%d\n" % answered)
            os.replace(a.progress + ".new", a.progress)
            reported = now
        while not stop and now < deadline and len(pending) < a.window and \
                (not a.calls or sent < a.calls) and (not a.rate or sent < a.rate * (now - t0) + 1):
            xid = base + sent
            sent += 1
            send(xid)
            pending[xid] = now
        for xid, when in list(pending.items()):
            if now - when > 1.0:
                send(xid)
                pending[xid] = now
                resends += 1
        try:
            r, _, _ = select.select([s], [], [], 0.2)
        except InterruptedError:
            continue
        if not r:
            continue
        while True:
            try:
                reply = s.recv(65536)
            except BlockingIOError:
                break
            except ConnectionRefusedError:
                refused += 1
                break
            if len(reply) < 4:
                continue
            xid = struct.unpack(">I", reply[:4])[0]
            if xid not in pending:
                continue	# the reply to a resent call, answered already
            del pending[xid]
            answered += 1
            if not accepted_ok(reply):
                bad += 1
    out = {"sent": sent, "answered": answered, "resends": resends, "not_accepted": bad,
           "refused": refused, "seconds": round(time.monotonic() - t0, 3)}
    print(json.dumps(out))
    if bad:
        return 2
    return 0 if answered == sent else 1


if __name__ == "__main__":
    sys.exit(main())
