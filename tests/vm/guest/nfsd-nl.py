#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""nfsd's own settings that the guest's nfs-utils cannot make, through nfsd's netlink family
with the kernel's spec-driven client (YNL), as fairq-nl.py does for fairq's.

usage: nfsd-nl.py pool-mode [MODE]          nfsd's pool mode: set it (global, percpu, pernode),
                                            then print it with the pool count
       nfsd-nl.py threads MAX [MIN]         nfsd's threads: MAX, and (7.3 on) at least MIN,
                                            sunrpc starting and retiring threads between the
                                            two as the load needs; then print them

Prints the reply's attributes as JSON, or "errno N: EXTACK MESSAGE" and exits 1 (errno 2:
this nfsd has no netlink family, or no such command).

The spec is Debian's 6.12 one (Documentation/netlink/specs/nfsd.yaml).  7.3's nfsd adds
min-threads after scope in its server attributes (uapi NFSD_A_SERVER_MIN_THREADS); a copy of
the spec gains it where it lacks it, so that its number still comes from the spec's order.
"""
import importlib.util
import json
import os
import sys
import tempfile

import yaml

_spec = importlib.util.spec_from_file_location(
    "fairq_nl", os.path.join(os.path.dirname(os.path.abspath(__file__)), "fairq-nl.py"))
fairq_nl = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fairq_nl)
family, request = fairq_nl.family, fairq_nl.request


def nfsd_family_with_min_threads():
    path = os.path.join(fairq_nl.YNL, "specs", "nfsd.yaml")
    with open(path) as f:
        text = f.read()
    spec = yaml.safe_load(text)
    server = next(s for s in spec["attribute-sets"] if s["name"] == "server")
    names = [a["name"] for a in server["attributes"]]
    if "min-threads" in names:
        return family("nfsd")
    assert names[-1] == "scope", "nfsd's spec changed: %s" % names
    server["attributes"].append(dict(name="min-threads", type="u32"))
    for op in spec["operations"]["list"]:
        if op["name"] == "threads-set":
            op["do"]["request"]["attributes"].append("min-threads")
        elif op["name"] == "threads-get":
            op["do"]["reply"]["attributes"].append("min-threads")
    # beside the original: the library finds the genetlink schema from the spec's directory
    tmp = tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False,
                                      dir=os.path.dirname(path))
    try:
        # its license line first: YNL refuses a spec without one
        tmp.write(text.splitlines(keepends=True)[0])
        yaml.safe_dump(spec, tmp, sort_keys=False)
        tmp.close()
        return family("nfsd", tmp.name)
    finally:
        os.unlink(tmp.name)


def main(argv):
    usage = len(argv) < 1
    try:
        if not usage and argv[0] == "pool-mode" and len(argv) <= 2:
            nfsd = family("nfsd")
            if len(argv) == 2:
                request(nfsd, "pool-mode-set", dict(mode=argv[1]))
            reply = request(nfsd, "pool-mode-get", {})
            out = dict(mode=reply["mode"], npools=reply["npools"])
        elif not usage and argv[0] == "threads" and len(argv) in (2, 3):
            nfsd = nfsd_family_with_min_threads()
            attrs = dict(threads=[int(argv[1])])
            if len(argv) == 3:
                attrs["min-threads"] = int(argv[2])
            request(nfsd, "threads-set", attrs)
            reply = request(nfsd, "threads-get", {})
            out = {k: reply[k] for k in ("threads", "min-threads") if k in reply}
        else:
            usage = True
    except OSError as e:
        print("errno %d: %s" % (e.errno, e.strerror))
        return 1
    if usage:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
