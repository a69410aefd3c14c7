#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""A bare generic netlink client for the fairq family, for the requests fairqctl never makes,
and for nfsd's pool mode where the guest's nfs-utils has no nfsdctl.

usage: fairq-nl.py pool-get SERV POOL          one pool (the pool-get do request)
       fairq-nl.py key-get SERV POOL ADDR      one IPv4 address key (the key-get do request)
       fairq-nl.py weight-set TYPE ADDR PREFIX WEIGHT
                                               a weight for a key given as sent, bits past
                                               the prefix and IPv4-mapped IPv6 included
                                               (TYPE addr or subnet; fairqctl normalises)
       fairq-nl.py sched-get NAME              the scheduler NAME names (by its name or an alias)
       fairq-nl.py sched-set NAME              switch to it
       fairq-nl.py bare CMD                    a command without any attribute
       fairq-nl.py nfsd-pool-mode [MODE]       nfsd's pool mode: set it (global, percpu,
                                               pernode), then print it with the pool count

Prints the reply's attributes as JSON, or "errno N: EXTACK MESSAGE" and exits 1.  The numbers
below are the uapi header's (include/uapi/linux/fairq.h); fairqctl's host tests check that.
"""
import ipaddress
import json
import os
import socket
import struct
import sys

NETLINK_GENERIC = 16
GENL_ID_CTRL = 0x10
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_ID = 1
CTRL_ATTR_FAMILY_NAME = 2
NLM_F_REQUEST, NLM_F_ACK = 1, 4
NLMSG_ERROR, NLMSG_DONE = 2, 3
NLM_F_ACK_TLVS = 0x200
NLMSGERR_ATTR_MSG = 1
SOL_NETLINK, NETLINK_EXT_ACK, NETLINK_CAP_ACK = 270, 11, 10

# from include/uapi/linux/fairq.h
FAIRQ_CMD = {"sched-get": 1, "sched-set": 2, "param-set": 3, "pool-get": 4, "key-get": 5,
             "weight-set": 6}
POOL = {"serv-id": 2, "pool-id": 3, "sched": 4, "threads": 5, "threads-idle": 6, "queued": 7,
        "enqueued": 8, "fed-pull": 9, "fed-push": 10, "fed-bypass": 11, "close-flushes": 12,
        "rescues": 13, "migrated": 14, "wakeups": 15}
KEY = {"serv-id": 2, "pool-id": 3, "id": 4, "weight": 5, "queued": 6, "in-flight": 7,
       "dispatches": 8, "thread-ns": 9}
SCHED = {"name": 1, "active": 2, "sched": 4}
SCHED_INFO = {"name": 1, "flags": 2, "active": 3, "tunable": 4, "alias": 5}
KEY_ID = {"type": 1, "family": 2, "prefix-len": 3, "port": 4, "addr": 5}
KEY_TYPE = {"addr": 1, "subnet": 2, "conn": 3, "v4client": 4}

# from include/uapi/linux/nfsd_netlink.h (6.11 and later)
NFSD_CMD_POOL_MODE_SET, NFSD_CMD_POOL_MODE_GET = 8, 9
NFSD_A_POOL_MODE_MODE, NFSD_A_POOL_MODE_NPOOLS = 1, 2


def attr(kind, payload):
    return struct.pack("HH", 4 + len(payload), kind) + payload + b"\0" * (-len(payload) % 4)


def attrs(buf):
    out = {}
    while len(buf) >= 4:
        length, kind = struct.unpack_from("HH", buf)
        out[kind & 0x3fff] = buf[4:length]
        buf = buf[(length + 3) & ~3:]
    return out


class Genl:
    def __init__(self, name="fairq"):
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
        self.sock.bind((0, 0))
        self.sock.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
        self.sock.setsockopt(SOL_NETLINK, NETLINK_CAP_ACK, 1)
        self.seq = 0
        reply = self.request(GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
                             attr(CTRL_ATTR_FAMILY_NAME, name.encode() + b"\0"))
        self.family = struct.unpack("H", reply[CTRL_ATTR_FAMILY_ID][:2])[0]

    def request(self, family, cmd, payload=b""):
        """Send one do request; return the reply's attributes, or raise OSError with extack."""
        self.seq += 1
        body = struct.pack("BBH", cmd, 1, 0) + payload
        self.sock.send(struct.pack("IHHII", 16 + len(body), family, NLM_F_REQUEST | NLM_F_ACK,
                                   self.seq, 0) + body)
        reply = None
        while True:
            data = self.sock.recv(65536)
            while data:
                length, kind, flags, seq, _ = struct.unpack_from("IHHII", data)
                msg, data = data[16:length], data[(length + 3) & ~3:]
                if kind == NLMSG_ERROR:
                    err = struct.unpack_from("i", msg)[0]
                    if err == 0:
                        return reply
                    text = ""
                    if flags & NLM_F_ACK_TLVS:
                        tlv = attrs(msg[20:])
                        text = tlv.get(NLMSGERR_ATTR_MSG, b"").rstrip(b"\0").decode()
                    raise OSError(-err, text or os.strerror(-err))
                if kind == NLMSG_DONE:
                    return reply
                reply = attrs(msg[4:])


def u32(v):
    return struct.pack("I", v)


def decode(raw, names):
    out = {}
    for name, kind in names.items():
        if kind not in raw:
            continue
        v = raw[kind]
        if name == "sched":
            out[name] = v.rstrip(b"\0").decode()
        elif name == "id":
            out[name] = {k: attrs(v).get(n, b"").hex() for k, n in KEY_ID.items()}
        else:
            out[name] = struct.unpack({4: "I", 8: "Q"}[len(v)], v)[0]
    return out


def main(argv):
    try:
        if argv[0] == "nfsd-pool-mode" and len(argv) <= 2:
            nl = Genl("nfsd")
            if len(argv) == 2:
                nl.request(nl.family, NFSD_CMD_POOL_MODE_SET,
                           attr(NFSD_A_POOL_MODE_MODE, argv[1].encode() + b"\0"))
            raw = nl.request(nl.family, NFSD_CMD_POOL_MODE_GET)
            print(json.dumps({"mode": raw[NFSD_A_POOL_MODE_MODE].rstrip(b"\0").decode(),
                              "npools": struct.unpack("I", raw[NFSD_A_POOL_MODE_NPOOLS])[0]}))
            return 0
        nl = Genl()
        if argv[0] == "pool-get" and len(argv) == 3:
            raw = nl.request(nl.family, FAIRQ_CMD["pool-get"],
                             attr(POOL["serv-id"], u32(int(argv[1]))) +
                             attr(POOL["pool-id"], u32(int(argv[2]))))
            print(json.dumps(decode(raw, POOL)))
        elif argv[0] == "key-get" and len(argv) == 4:
            key = (attr(KEY_ID["type"], bytes([KEY_TYPE["addr"]])) +
                   attr(KEY_ID["family"], bytes([socket.AF_INET])) +
                   attr(KEY_ID["addr"], socket.inet_aton(argv[3]) + b"\0" * 12))
            raw = nl.request(nl.family, FAIRQ_CMD["key-get"],
                             attr(KEY["serv-id"], u32(int(argv[1]))) +
                             attr(KEY["pool-id"], u32(int(argv[2]))) +
                             struct.pack("HH", 4 + len(key), KEY["id"] | 0x8000) + key)
            print(json.dumps(decode(raw, KEY)))
        elif argv[0] == "weight-set" and len(argv) == 5:
            addr = ipaddress.ip_address(argv[2])
            key = (attr(KEY_ID["type"], bytes([KEY_TYPE[argv[1]]])) +
                   attr(KEY_ID["family"], bytes([socket.AF_INET if addr.version == 4
                                                 else socket.AF_INET6])) +
                   attr(KEY_ID["prefix-len"], bytes([int(argv[3])])) +
                   attr(KEY_ID["addr"], addr.packed + b"\0" * (16 - len(addr.packed))))
            nl.request(nl.family, FAIRQ_CMD["weight-set"],
                       struct.pack("HH", 4 + len(key), KEY["id"] | 0x8000) + key +
                       attr(KEY["weight"], u32(int(argv[4]))))
            print("{}")
        elif argv[0] == "sched-get" and len(argv) == 2:
            raw = nl.request(nl.family, FAIRQ_CMD["sched-get"],
                             attr(SCHED["name"], argv[1].encode() + b"\0"))
            info = attrs(raw[SCHED["sched"]])
            print(json.dumps({k: info[n].rstrip(b"\0").decode()
                              for k, n in SCHED_INFO.items() if k in ("name", "alias") and n in info}))
        elif argv[0] == "sched-set" and len(argv) == 2:
            nl.request(nl.family, FAIRQ_CMD["sched-set"],
                       attr(SCHED["name"], argv[1].encode() + b"\0"))
            print("{}")
        elif argv[0] == "bare" and len(argv) == 2:
            raw = nl.request(nl.family, FAIRQ_CMD[argv[1]])
            print(json.dumps(sorted(raw or {})))
        else:
            print(__doc__.strip().splitlines()[2], file=sys.stderr)
            return 2
    except OSError as e:
        print("errno %d: %s" % (e.errno, e.strerror))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
