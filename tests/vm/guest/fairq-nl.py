#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The netlink requests fairqctl never makes, made with the kernel's own spec-driven client (YNL);
nfsd-nl.py makes nfsd's with it.

usage: fairq-nl.py pool-get SERV POOL          one pool (the pool-get do request)
       fairq-nl.py key-get SERV POOL ADDR      one IPv4 address key (the key-get do request)
       fairq-nl.py weight-set TYPE ADDR PREFIX WEIGHT
                                               a weight for a key given as sent, bits past
                                               the prefix and IPv4-mapped IPv6 included
                                               (TYPE addr or subnet; fairqctl normalises)
       fairq-nl.py sched-get NAME              the scheduler NAME names (by its name or an alias)
       fairq-nl.py sched-set NAME              switch to it
       fairq-nl.py class-set NAME [create] [rank N] [limit N] [burst N] [weight N] [reserve N]
                             [limit-pct N] [per-key 0|1] [match ADDR[/LEN]]...
                                               make (create) or change a class, as sent:
                                               fairqctl checks more before it sends
       fairq-nl.py class-del NAME
       fairq-nl.py class-get NAME              one class, with its counters
       fairq-nl.py class-dump                  every class (a list)
       fairq-nl.py bare CMD                    a command without any attribute

Prints the reply's attributes as JSON, or "errno N: EXTACK MESSAGE" and exits 1.

Nothing here knows an attribute number: requests are encoded and replies decoded from the
specs (fairq's docs/netlink/fairq.yaml, nfsd's Documentation/netlink/specs/nfsd.yaml) by
tools/net/ynl/lib of Debian's linux-source, which the harness copies into $FAIRQ_YNL with the
specs and the genetlink schemas.  The library validates each spec against its schema as it
loads it.
"""
import ipaddress
import json
import os
import socket
import sys

YNL = os.environ.get("FAIRQ_YNL", "/fairq/ynl")
sys.path.insert(0, YNL)
from lib import NlError, YnlFamily  # noqa: E402  (from $FAIRQ_YNL, not from the tree)


def family(name, path=None):
    """The family of specs/NAME.yaml (or of the spec at PATH); a family the kernel lacks is
    errno 2, as the kernel says."""
    try:
        return YnlFamily(path or os.path.join(YNL, "specs", name + ".yaml"), process_unknown=True)
    except Exception as e:  # YNL says "not supported by the kernel" with a bare Exception
        if "not supported by the kernel" in str(e):
            raise OSError(2, "no %s netlink family in this kernel" % name) from e
        raise


def request(fam, op, attrs):
    """One do request; its reply's attributes, or OSError with the kernel's extack message."""
    try:
        return fam.do(op, attrs) or {}
    except NlError as e:
        msg = (e.nl_msg.extack or {}).get("msg") or os.strerror(e.error)
        raise OSError(e.error, msg) from e


def printable(value):
    """A reply as JSON can hold it: binary attributes as hex."""
    if isinstance(value, dict):
        return {k: printable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [printable(v) for v in value]
    if isinstance(value, bytes):
        return value.hex()
    return value


def key_id(kind, addr, prefix=None):
    ip = ipaddress.ip_address(addr)
    out = {"type": kind, "family": socket.AF_INET if ip.version == 4 else socket.AF_INET6,
           "addr": ip.packed + b"\0" * (16 - len(ip.packed))}
    if prefix is not None:
        out["prefix-len"] = prefix
    return out


def class_spec(name, args):
    """class-set's attributes from its words."""
    attrs = {"name": name}
    words = list(args)
    while words:
        w = words.pop(0)
        if w == "create":
            attrs["create"] = True
        elif w in ("rank", "burst", "weight", "reserve", "limit-pct", "per-key") and words:
            attrs[w] = int(words.pop(0))
        elif w == "limit" and words:
            attrs["limit-rps"] = int(words.pop(0))
        elif w == "match" and words:
            addr, _, plen = words.pop(0).partition("/")
            match = key_id("subnet", addr, int(plen)) if plen else key_id("addr", addr)
            attrs.setdefault("match", []).append(match)
        else:
            raise SystemExit("class-set: cannot use '%s'" % w)
    return attrs


def main(argv):
    if not argv:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    try:
        fq = family("fairq")
        if argv[0] == "pool-get" and len(argv) == 3:
            reply = request(fq, "pool-get", {"serv-id": int(argv[1]), "pool-id": int(argv[2])})
        elif argv[0] == "key-get" and len(argv) == 4:
            reply = request(fq, "key-get", {"serv-id": int(argv[1]), "pool-id": int(argv[2]),
                                            "id": key_id("addr", argv[3])})
        elif argv[0] == "weight-set" and len(argv) == 5:
            request(fq, "weight-set", {"id": key_id(argv[1], argv[2], int(argv[3])),
                                       "weight": int(argv[4])})
            reply = {}
        elif argv[0] == "sched-get" and len(argv) == 2:
            info = request(fq, "sched-get", {"name": argv[1]})["sched"][0]  # multi-attr
            reply = {k: info[k] for k in ("name", "alias") if k in info}
        elif argv[0] == "sched-set" and len(argv) == 2:
            request(fq, "sched-set", {"name": argv[1]})
            reply = {}
        elif argv[0] == "class-set" and len(argv) >= 2:
            request(fq, "class-set", class_spec(argv[1], argv[2:]))
            reply = {}
        elif argv[0] == "class-del" and len(argv) == 2:
            request(fq, "class-del", {"name": argv[1]})
            reply = {}
        elif argv[0] == "class-get" and len(argv) == 2:
            reply = request(fq, "class-get", {"name": argv[1]})
        elif argv[0] == "class-dump" and len(argv) == 1:
            try:
                reply = fq.dump("class-get", {})
            except NlError as e:
                raise OSError(e.error, (e.nl_msg.extack or {}).get("msg") or
                              os.strerror(e.error)) from e
        elif argv[0] == "bare" and len(argv) == 2:
            reply = sorted(request(fq, argv[1], {}))
        else:
            print(__doc__.strip().splitlines()[2], file=sys.stderr)
            return 2
    except OSError as e:
        print("errno %d: %s" % (e.errno, e.strerror))
        return 1
    print(json.dumps(printable(reply)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
