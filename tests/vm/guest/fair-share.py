#!/usr/bin/python3
"""Judge clients' shares of the replies against their weighted max-min fair shares, given the
pools their work went to.

Which pool a connection's work is queued in follows the CPU its data is taken in on, which
neither a test nor an admin controls; with several pools a client whose work reached a pool
no other client reached is owed all of it.  So a test of shares first finds each client's
pools (from fq's keys: dispatches per pool between two `fairqctl -j shares`), then the fair
share given those pools, each pool holding an equal part of the threads (nfsd spreads its
threads evenly over its pools).

usage: fair-share.py --before KEYS0.json --after KEYS1.json [--tolerance T]
                     KEY[:WEIGHT]=LOAD.json[,LOAD.json...] ...

Prints one line: the clients' shares, "fair" and their fair shares, the replies per second,
"pools" and each client's pools, and a verdict: "fair", "UNFAIR" (a share off its fair one
by more than T), or "moved" (a client's work moved between pools during the run, so there
is no fair share to compare with).  Exits 0 whatever the verdict; 2 on unreadable input.
"""
import argparse
import itertools
import json
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", required=True)
    ap.add_argument("--after", required=True)
    ap.add_argument("--tolerance", type=float, default=0.06)
    ap.add_argument("clients", nargs="+")
    a = ap.parse_args()

    keys, weights, rates = [], [], []
    for spec in a.clients:
        who, loads = spec.split("=", 1)
        key, _, weight = who.partition(":")
        keys.append(key)
        weights.append(float(weight or 1))
        if weights[-1] <= 0:
            raise ValueError("%s: a weight is positive" % spec)
        rates.append(sum(json.load(open(f))["client"]["ops_per_s"] for f in loads.split(",")))
    total = sum(rates)
    got = [r / total if total else 0.0 for r in rates]

    before = {(k["key"], k["pool"]): k["dispatches"] for k in json.load(open(a.before))["keys"]}
    per = {}
    for k in json.load(open(a.after))["keys"]:
        per.setdefault(k["key"], {})[k["pool"]] = k["dispatches"] - before.get((k["key"], k["pool"]), 0)

    # a client's pools: those that served at least a quarter of its requests; a pool that
    # served more than a twentieth but less than a quarter means its work moved
    pools, moved = [], False
    for key in keys:
        d = per.get(key, {})
        n = sum(d.values()) or 1
        pools.append({p for p, x in d.items() if x >= 0.25 * n})
        moved |= any(0.05 * n < x < 0.25 * n for x in d.values()) or not pools[-1]

    fair = [0.0] * len(keys)
    if not moved:
        # weighted max-min: raise one level for every client not yet held (client i gets
        # weight i times the level) until some set of clients fills the pools it reaches
        held = [False] * len(keys)
        subsets = [s for r in range(1, len(keys) + 1) for s in itertools.combinations(range(len(keys)), r)]

        def room(s):
            free = [i for i in s if not held[i]]
            if not free:
                return None
            cap = len(set().union(*(pools[i] for i in s)))  # in pools
            return (cap - sum(fair[i] for i in s if held[i])) / sum(weights[i] for i in free)

        while not all(held):
            levels = [(room(s), s) for s in subsets if room(s) is not None]
            level = min(lv for lv, _ in levels)
            for lv, s in levels:
                if lv <= level + 1e-9:
                    for i in s:
                        if not held[i]:
                            fair[i], held[i] = weights[i] * level, True
        # as parts of all the replies (a pool no client reached adds none)
        fair = [f / sum(fair) for f in fair]

    verdict = "moved" if moved else \
        "UNFAIR" if any(abs(g - f) > a.tolerance for g, f in zip(got, fair)) else "fair"
    print(" ".join("%.3f" % g for g in got), "fair", " ".join("%.3f" % f for f in fair),
          "%.1f/s" % total, "pools", json.dumps([sorted(p) for p in pools]), verdict)


if __name__ == "__main__":
    try:
        main()
    except (OSError, ValueError, KeyError) as e:
        print("fair-share.py: %s" % e, file=sys.stderr)
        sys.exit(2)
