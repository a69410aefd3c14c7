# SPDX-License-Identifier: GPL-2.0-only
"""Arithmetic shared by the guest's progress lines and the host's report (tests/bench/report.py):
a greedy client's rate over another client's measured interval, from its time series."""
import bisect
import json
import sys


def load_series(path, clock="t"):
    """(times, cumulative replies) of a fairq-load --series file; clock "t" is CLOCK_MONOTONIC,
    "wall" CLOCK_REALTIME"""
    ts, reps = [], []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            try:
                d = json.loads(line)
            except ValueError:
                continue        # a line cut short when the client stopped
            ts.append(d[clock])
            reps.append(d["replies"])
    return ts, reps


def at(series, t):
    """cumulative replies at time t, linearly interpolated"""
    ts, reps = series
    if not ts or t < ts[0] or t > ts[-1]:
        raise ValueError("time %.3f outside the series (%s .. %s)" %
                         (t, ts[0] if ts else None, ts[-1] if ts else None))
    i = bisect.bisect_left(ts, t)
    if ts[i] == t or i == 0:
        return float(reps[i])
    t0, t1, r0, r1 = ts[i - 1], ts[i], reps[i - 1], reps[i]
    return r0 + (r1 - r0) * (t - t0) / (t1 - t0)


def rate(series, t0, t1):
    """replies per second between t0 and t1"""
    return (at(series, t1) - at(series, t0)) / (t1 - t0)


if __name__ == "__main__":
    # share SERIES REPORT: the greedy client's rate over the report's interval, and the share
    series = load_series(sys.argv[2])
    rep = json.load(open(sys.argv[3]))
    g = rate(series, rep["t_start"], rep["t_end"])
    i = rep["client"]["ops_per_s"]
    print("greedy %.0f ops/s, interactive %.1f ops/s, greedy share %.1f%%" % (g, i, 100 * g / (g + i)))
