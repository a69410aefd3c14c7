#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""The instructions each RPC executes, by function, on each dispatch path (make budget INSNS=1).

insns.py RAW PROFILE [UNIT]

RAW holds the guest's files: insns.txt ("SCHEDULER RPCS" per profiled window, in order),
kallsyms (text symbols of /proc/kallsyms), kallsyms.dynamic (ftrace's trampolines, named
while each scheduler's hooks were on) and budget.txt (the call counts).  PROFILE holds
the plugin's snapshots insns.1, insns.2, ... ("start-address instructions" per translation
block); window i (from 0) of insns.txt is snapshot 2i+2, the one its closing mark wrote.

Prints, for each scheduler, the instructions per RPC in all (the whole guest: server,
clients and network), in the kernel, and in user space, then the functions whose
instructions per RPC differ most from fifo's, and fairq's own functions in full.

Without a fifo window (make dump-profile GUEST=1: windows "dump KEYS"), the instructions
per UNIT (default RPC) of each window, and the kernel functions that execute the most.
"""
import bisect
import os
import sys

USER_TOP = 0x800000000000
ROWS = 40


def load_symbols(*paths):
    syms = set()
    for line in (line for path in paths if os.path.exists(path) for line in open(path)):
        w = line.split()
        if len(w) < 3:
            continue
        name = w[2] + (" " + w[3] if len(w) > 3 else "")
        syms.add((int(w[0], 16), name))
    syms = sorted(syms)
    return [a for a, _ in syms], [n for _, n in syms]


def alone(labels, units, prof_by, unit):
    """Windows with nothing to compare with: each one's instructions per unit, and where."""
    def per(i, f):
        return prof_by[i].get(f, 0) / units[i] if units[i] else 0.0

    total = [sum(p.values()) / n if n else 0 for p, n in zip(prof_by, units)]
    user = [per(i, "[user space]") for i in range(len(labels))]
    heads = ["%s %d" % (label, i + 1) for i, label in enumerate(labels)]
    print("Instructions per %s (the whole guest), instruction clock:" % unit)
    print()
    print("| | " + " | ".join(heads) + " |")
    print("|---|" + "---|" * len(heads))
    print("| all | " + " | ".join("%.0f" % t for t in total) + " |")
    print("| kernel | " + " | ".join("%.0f" % (t - u) for t, u in zip(total, user)) + " |")
    print("| user space | " + " | ".join("%.0f" % u for u in user) + " |")
    print("| %ss in the window | " % unit + " | ".join(str(n) for n in units) + " |")
    print()
    funcs = set()
    for p in prof_by:
        funcs |= set(p)
    funcs.discard("[user space]")
    print("The %d kernel functions that execute the most instructions per %s:" % (ROWS, unit))
    print()
    print("| function | " + " | ".join(heads) + " |")
    print("|---|" + "---|" * len(heads))
    for f in sorted(funcs, key=lambda f: -max(per(i, f) for i in range(len(labels))))[:ROWS]:
        print("| `%s` | " % f + " | ".join("%.0f" % per(i, f) for i in range(len(labels))) + " |")
    own = [f for f in funcs if f.endswith("[fairq]")]
    print("| all of fairq's own | " + " | ".join(
        "%.0f" % sum(per(i, f) for f in own) for i in range(len(labels))) + " |")


def main():
    raw, prof = sys.argv[1], sys.argv[2]
    unit = sys.argv[3] if len(sys.argv) > 3 else "RPC"
    addrs, names = load_symbols(os.path.join(raw, "kallsyms"), os.path.join(raw, "kallsyms.dynamic"))
    if not addrs:
        sys.exit("insns.py: no symbols in kallsyms (was it read as root?)")
    windows = [line.split() for line in open(os.path.join(raw, "insns.txt")) if line.strip()]
    found = sorted(int(f.split(".")[1]) for f in os.listdir(prof) if f.startswith("insns."))
    if len(found) < 2 * len(windows):
        sys.exit("insns.py: %d profile snapshots for %d windows (2 per window expected)"
                 % (len(found), len(windows)))

    def by_function(snapshot):
        per = {}
        for line in open(os.path.join(prof, "insns.%d" % snapshot)):
            a, n = line.split()
            a, n = int(a, 16), int(n)
            if a < USER_TOP:
                f = "[user space]"
            else:
                i = bisect.bisect_right(addrs, a) - 1
                f = names[i] if i >= 0 else "[kernel, no symbol]"
            per[f] = per.get(f, 0) + n
        return per

    scheds, rpcs, prof_by = [], [], []
    for i, (s, n) in enumerate(windows):
        scheds.append(s)
        rpcs.append(int(n))
        prof_by.append(by_function(2 * i + 2))
    if "fifo" not in scheds:
        alone(scheds, rpcs, prof_by, unit)
        return
    base = scheds.index("fifo")

    def per_rpc(i, f):
        return prof_by[i].get(f, 0) / rpcs[i] if rpcs[i] else 0.0

    print("Instructions per RPC (the whole guest: server, load clients, network), instruction clock:")
    print()
    print("| | " + " | ".join(scheds) + " |")
    print("|---|" + "---|" * len(scheds))
    total = [sum(p.values()) / r if r else 0 for p, r in zip(prof_by, rpcs)]
    user = [per_rpc(i, "[user space]") for i in range(len(scheds))]
    print("| all | " + " | ".join("%.0f" % t for t in total) + " |")
    print("| kernel | " + " | ".join("%.0f" % (t - u) for t, u in zip(total, user)) + " |")
    print("| user space | " + " | ".join("%.0f" % u for u in user) + " |")
    print("| over fifo | " + " | ".join("%+.0f" % (t - total[base]) for t in total) + " |")
    print("| RPCs in the window | " + " | ".join(str(r) for r in rpcs) + " |")
    print()

    funcs = set()
    for p in prof_by:
        funcs |= set(p)

    def spread(f):
        return max(abs(per_rpc(i, f) - per_rpc(base, f)) for i in range(len(scheds)))

    def row(f):
        cells = ["%.0f" % per_rpc(i, f) if i == base else
                 "%.0f (%+.0f)" % (per_rpc(i, f), per_rpc(i, f) - per_rpc(base, f))
                 for i in range(len(scheds))]
        return "| `%s` | " % f + " | ".join(cells) + " |"

    print("The %d functions whose instructions per RPC differ most from fifo's (difference in"
          % ROWS)
    print("brackets):")
    print()
    print("| function | " + " | ".join(scheds) + " |")
    print("|---|" + "---|" * len(scheds))
    for f in sorted(funcs, key=spread, reverse=True)[:ROWS]:
        print(row(f))
    print()
    own = sorted((f for f in funcs if f.endswith("[fairq]")),
                 key=lambda f: -max(per_rpc(i, f) for i in range(len(scheds))))
    print("fairq's own functions:")
    print()
    print("| function | " + " | ".join(scheds) + " |")
    print("|---|" + "---|" * len(scheds))
    for f in own:
        print(row(f))
    print("| all of fairq | " + " | ".join(
        "%.0f" % sum(per_rpc(i, f) for f in own) for i in range(len(scheds))) + " |")


main()
