#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""make bench's report: reads OUT/raw/sN/ (what the guest scenarios wrote) and writes
OUT/results.json (every number, per cell and aggregated over repetitions), OUT/bench.md (the
tables) and OUT/sN-*.png (the plots).  Usage: report.py OUT

The plots are drawn from results.json alone: with no OUT/raw/, report.py OUT redraws them from
OUT/results.json (report.py docs/bench redraws the published ones in place).  OUT/anticipation.json,
where present, holds runs whose raw results were not kept, as docs/benchmarks.md gives them, and
adds their plot, anticipation.png."""
import json
import math
import os
import statistics
import sys

sys.dont_write_bytecode = True  # benchcalc lives in the guest tree, whose hash keys the guest build
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "vm", "guest", "bench"))
import benchcalc  # noqa: E402

import matplotlib  # noqa: E402
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402

OUT = sys.argv[1]
COLORS = {"fifo": "tab:red", "qfifo": "tab:orange", "fq": "tab:blue", "capped": "tab:green",
          "wq": "tab:purple"}
USER_HZ = 100   # /proc/stat counts in USER_HZ ticks
STALL_S = 1.0   # a gap this long between a load generator's 0.2 s ticks: the guest stood still


def max_gap(series, t0, t1):
    """the longest gap between consecutive ticks of a series around [t0, t1]"""
    ts = [t for t in series[0] if t0 - 0.3 <= t <= t1 + 0.3]
    return max((b - a for a, b in zip(ts, ts[1:])), default=0.0)


def color(s):
    if "=" in s:    # a variant with tunables set (fq:anticipate_us=N): apart from its base
        return "tab:cyan"
    return COLORS.get(s.split(":")[0], "tab:gray")   # capped:N is capped at max_waking N


def load(sc):
    d = os.path.join(OUT, "raw", "s%d" % sc)
    if not os.path.exists(os.path.join(d, "cells.jsonl")):
        return None
    meta = json.load(open(os.path.join(d, "meta.json")))
    host = json.load(open(os.path.join(d, "host.json"))) if os.path.exists(os.path.join(d, "host.json")) else {}
    end = json.load(open(os.path.join(d, "end.json"))) if os.path.exists(os.path.join(d, "end.json")) else {}
    cells = [current_names(json.loads(line)) for line in open(os.path.join(d, "cells.jsonl")) if line.strip()]
    meta["schedulers"] = [current_name(s) for s in meta.get("schedulers", [])]
    return {"dir": d, "meta": meta, "host": host, "end": end, "cells": cells}


def current_name(sched):
    """results recorded before the fair-queueing policy was renamed call it fairq"""
    base, sep, rest = sched.partition(":")
    return ("fq" if base == "fairq" else base) + sep + rest


def current_names(cell):
    if isinstance(cell.get("sched"), str):
        cell["sched"] = current_name(cell["sched"])
    return cell


def agg(values):
    """mean, spread (max - min), n"""
    values = [v for v in values if v is not None]
    if not values:
        return None
    return {"mean": statistics.mean(values), "spread": max(values) - min(values), "n": len(values),
            "values": values}


def fmt(a, digits=1, pct=False):
    if a is None:
        return "–"
    m = a["mean"] * (100 if pct else 1)
    if a["n"] < 2:
        return "%.*f" % (digits, m)
    return "%.*f ±%.*f" % (digits, m, digits, a["spread"] * (100 if pct else 1) / 2)


def on_icount(m):
    return m.get("clock", "wall").startswith("icount")


def clock(m, short=False):
    """Which clock a scenario's numbers came from (results of before the clock was recorded: wall)."""
    c = m.get("clock", "wall")
    if on_icount(m):
        shift = c.partition("shift=")[2] or "0"
        if short:
            return "qemu TCG emulation, instruction clock"
        return ("TCG with the instruction clock (1 guest instruction = 2^%s ns: rates count "
                "instructions, not hardware time)" % shift)
    if short:
        return "qemu TCG emulation, wall clock"
    return "TCG on the host's wall clock (the host's load moves every rate)"


def header(md, title, data):
    m, h = data["meta"], data["host"]
    md.append("## %s\n" % title)
    md.append("Kernel %s (%s), %d guest CPUs under %s, schedulers %s; scale %s, %s repetitions; "
              "commit %s, %s. Watchdog rescues during the run: %s.\n" %
              (m["kernel"], m["abi"], m["cpus"], clock(m), ", ".join(m["schedulers"]), m["scale"], m["reps"],
               h.get("commit", "?"), h.get("date", "?"), data["end"].get("rescues", "?")))
    if m.get("tune"):
        md.append("**Tunables other than the defaults** (`B_TUNE`): `%s`.\n" % m["tune"])
    if h.get("health"):
        md.append("**The guest kernel reported problems during this scenario** (the numbers are kept; "
                  "see docs/benchmarks.md on emulation stalls):\n\n```\n%s\n```\n" % h["health"])


def table(md, head, rows):
    md.append("| " + " | ".join(head) + " |")
    md.append("|" + "---|" * len(head))
    for r in rows:
        md.append("| " + " | ".join(str(c) for c in r) + " |")
    md.append("")


def lat(run, key="latency_us"):
    return run["client"][key]


# ---- scenario 1 ----

def scenario1(data, md, res):
    m = data["meta"]
    scheds = m["schedulers"]
    series = {}
    alone = {}
    cells = []
    for c in data["cells"]:
        run = c["runs"][0]
        if c["kind"] == "alone":
            alone[(c["W"], c["sched"])] = {"ops_per_s": run["client"]["ops_per_s"],
                                           "p50_ms": lat(run)["p50"] / 1e3, "p99_ms": lat(run)["p99"] / 1e3}
            continue
        g = c["greedy"]
        if g not in series:
            series[g] = benchcalc.load_series(os.path.join(data["dir"], g + ".series"))
        grate = benchcalc.rate(series[g], run["t_start"], run["t_end"])
        irate = run["client"]["ops_per_s"]
        cells.append({"K": c["K"], "W": c["W"], "sched": c["sched"], "rep": c["rep"],
                      "stall_s": max_gap(series[g], run["t_start"], run["t_end"]),
                      "greedy_ops_per_s": grate, "interactive_ops_per_s": irate,
                      "greedy_share": grate / (grate + irate), "total_ops_per_s": grate + irate,
                      "interactive_p50_ms": lat(run)["p50"] / 1e3,
                      "interactive_p90_ms": lat(run)["p90"] / 1e3,
                      "interactive_p99_ms": lat(run)["p99"] / 1e3,
                      "interactive_max_ms": lat(run)["max"] / 1e3})
    ks = sorted({c["K"] for c in cells})
    ws = sorted({c["W"] for c in cells})
    summary = {}
    for k in ks:
        for w in ws:
            for s in scheds:
                sel = [c for c in cells if (c["K"], c["W"], c["sched"]) == (k, w, s) and c["stall_s"] < STALL_S]
                if not sel:
                    continue
                summary[(k, w, s)] = {f: agg([c[f] for c in sel]) for f in
                                      ("greedy_share", "interactive_ops_per_s", "greedy_ops_per_s",
                                       "total_ops_per_s", "interactive_p50_ms", "interactive_p90_ms",
                                       "interactive_p99_ms", "interactive_max_ms")}
    res["1"] = {"meta": m, "host": data["host"], "alone": [dict(W=w, sched=s, **v)
                                                          for (w, s), v in sorted(alone.items())],
                "cells": cells,
                "summary": [dict(K=k, W=w, sched=s, **v) for (k, w, s), v in summary.items()]}

    header(md, "Scenario 1: greedy vs interactive", data)
    md.append("T=%d nfsd threads, D=%g ms per request (fairq_svctime), ceiling T/D = %d ops/s. Greedy "
              "client: K connections of window %d (NFSv3 GETATTR); interactive client: one connection "
              "of window W. Each cell: %s s measured after %s s of warm-up, the scheduler switched live "
              "under the running greedy client. Values are the mean over repetitions ± half the "
              "spread (max − min).\n" % (m["threads"], m["delay_us"] / 1000, m["threads"] * 1e6 / m["delay_us"],
                                         m["greedy_window"], m["secs"], m["warmup"]))
    for w in ws:
        md.append("### Interactive window %d\n" % w)
        md.append("Interactive client alone: " + ", ".join(
            "%s %.0f ops/s" % (s, alone[(w, s)]["ops_per_s"]) for s in scheds if (w, s) in alone) + ".\n")
        head = ["K", "K/(K+1)"] + ["%s greedy share %%" % s for s in scheds] + \
               ["%s interactive ops/s" % s for s in scheds] + ["%s total ops/s" % s for s in scheds]
        rows = []
        for k in ks:
            r = [k, "%.0f%%" % (100 * k / (k + 1))]
            r += [fmt(summary.get((k, w, s), {}).get("greedy_share"), 1, pct=True) for s in scheds]
            r += [fmt(summary.get((k, w, s), {}).get("interactive_ops_per_s"), 0) for s in scheds]
            r += [fmt(summary.get((k, w, s), {}).get("total_ops_per_s"), 0) for s in scheds]
            rows.append(r)
        table(md, head, rows)
        head = ["K"] + ["%s interactive p50 / p99 ms" % s for s in scheds]
        rows = []
        for k in ks:
            r = [k]
            for s in scheds:
                v = summary.get((k, w, s))
                r.append("%.1f / %.1f" % (v["interactive_p50_ms"]["mean"], v["interactive_p99_ms"]["mean"])
                         if v else "–")
            rows.append(r)
        table(md, head, rows)
    stalled = [c for c in cells if c["stall_s"] >= STALL_S]
    md.append("Cells left out because the guest stood still for %g s or more during them (a gap in the "
              "greedy client's ticks): %d of %d%s.\n" % (STALL_S, len(stalled), len(cells), "".join(
                  " (K=%d W=%d %s rep %d: %.1f s)" % (c["K"], c["W"], c["sched"], c["rep"], c["stall_s"]) for c in stalled)))
    md.append("Reconnects (the server closed a connection, see fairq-load(1)): greedy clients %d, "
              "interactive clients %d.\n" % (load_reconnects(data),
                                             sum(c["runs"][0].get("reconnects", 0) for c in data["cells"])))
    spreads = [v["greedy_share"]["spread"] * 100 for v in summary.values() if v["greedy_share"]["n"] > 1]
    if spreads:
        md.append("Run-to-run spread (max − min) of the greedy share over all cells: median %.1f, "
                  "largest %.1f percentage points.\n" % (statistics.median(spreads), max(spreads)))
        res["1"]["share_spread_pp"] = {"median": statistics.median(spreads), "max": max(spreads)}

    md.append("![greedy share](s1-share.png)\n")
    md.append("The solid black line is the max-min fair split: the interactive client gets what it asks "
              "for (its rate alone) up to half of what the pool completes, the greedy client the rest.%s\n" %
              (" A window-1 client has one call in flight and asks for little, so under fair queueing the "
               "greedy client keeps most of the pool: a high greedy share there is not unfairness."
               if 1 in ws else ""))
    md.append("![interactive throughput](s1-interactive.png)\n\n![interactive latency](s1-latency.png)\n")
    if s1_anticipation(res["1"]):
        md.append("![anticipation](s1-anticipation.png)\n")


# ---- scenario 2 ----

def scenario2(data, md, res):
    m = data["meta"]
    scheds = m["schedulers"]
    floor = {}
    cells = []
    series = {}
    for c in data["cells"]:
        run = c["runs"][0]
        b = run["client"]["bursts"]
        row = {"N": c["N"], "sched": c["sched"], "bursts": b["count"],
               "p50_ms": b["completion_us"]["p50"] / 1e3, "p99_ms": b["completion_us"]["p99"] / 1e3,
               "max_ms": b["completion_us"]["max"] / 1e3}
        if c["kind"] == "floor":
            floor[(c["N"], c["sched"])] = row
        else:
            row["K"] = c["K"]
            g = c["greedy"]
            if g not in series:
                series[g] = benchcalc.load_series(os.path.join(data["dir"], g + ".series"))
            row["stall_s"] = max_gap(series[g], run["t_start"], run["t_end"])
            cells.append(row)
    for r in cells:
        f = floor.get((r["N"], r["sched"]))
        r["floor_p50_ms"] = f["p50_ms"] if f else None
        r["p50_over_floor"] = r["p50_ms"] / f["p50_ms"] if f else None
        r["p99_over_floor"] = r["p99_ms"] / f["p50_ms"] if f else None
    ks = sorted({c["K"] for c in cells})
    ns = sorted({c["N"] for c in cells} | {n for n, _ in floor})
    res["2"] = {"meta": m, "host": data["host"], "floor": list(floor.values()), "cells": cells}
    byk = {(c["K"], c["N"], c["sched"]): c for c in cells}
    stalled = [c for c in cells if c["stall_s"] >= STALL_S]

    header(md, "Scenario 2: burst completion", data)
    md.append("T=%d, D=%g ms. The interactive client (one connection) sends N calls at once, waits "
              "for all replies, idles %g ms, repeats; completion = first call to last reply. Floor: the "
              "same bursts with no other load, under the same scheduler. Greedy client: K connections "
              "of window %d. Cells of %s s (and at least one whole burst). Entries: p50 / p99 completion "
              "in ms, then p50 as a multiple of the floor; n = bursts measured.\n" %
              (m["threads"], m["delay_us"] / 1000, m["idle_ms"], m["greedy_window"], m["secs"]))
    head = ["N"] + ["floor %s p50 / p99 ms" % s for s in scheds]
    md.append("Cells during which the guest stood still for %g s or more (marked *): %d of %d. "
              "Reconnects: greedy clients %d, interactive clients %d.\n" %
              (STALL_S, len(stalled), len(cells), load_reconnects(data),
               sum(c["runs"][0].get("reconnects", 0) for c in data["cells"])))
    table(md, head, [[n] + ["%.1f / %.1f" % (floor[(n, s)]["p50_ms"], floor[(n, s)]["p99_ms"])
                            if (n, s) in floor else "–" for s in scheds] for n in ns])
    for s in scheds:
        md.append("### %s\n" % s)
        head = ["N \\ K"] + ["K=%d" % k for k in ks]
        rows = []
        for n in ns:
            r = [n]
            for k in ks:
                c = byk.get((k, n, s))
                r.append("%.0f / %.0f (%.2f×, n=%d)%s" % (c["p50_ms"], c["p99_ms"], c["p50_over_floor"] or 0, c["bursts"],
                                                          "*" if c["stall_s"] >= STALL_S else "")
                         if c else "–")
            rows.append(r)
        table(md, head, rows)

    md.append("![burst completion](s2-bursts.png)\n")


# ---- scenarios 4 and 5 ----

def rate_cells(data):
    """per window: the load's RPC rate from the clients' time series, and per-RPC costs"""
    cache = {}
    out = []
    for c in data["cells"]:
        ops = 0.0
        for name in c["series"]:
            if name not in cache:
                cache[name] = benchcalc.load_series(os.path.join(data["dir"], name + ".series"), "wall")
            ops += benchcalc.rate(cache[name], c["wall_start"], c["wall_end"])
        secs = c["wall_end"] - c["wall_start"]
        rpcs = ops * secs
        row = {k: v for k, v in c.items() if k != "series"}
        gap = max(max_gap(cache[name], c["wall_start"], c["wall_end"]) for name in c["series"])
        if on_icount(data["meta"]):
            # the instruction clock cannot stand still: a gap is a load generator starved of CPU
            # inside the guest, and the total over the common window stays exact (a starved
            # client has at most its window of calls answered and unread)
            row["stall_s"], row["starved_s"] = 0.0, gap
        else:
            row["stall_s"] = gap
        row.update(ops_per_s=ops, secs=secs, rpcs=rpcs, ctxt_per_rpc=c["ctxt"] / rpcs,
                   cpu_busy=c["busy_jiffies"] / c["total_jiffies"] if c["total_jiffies"] else None,
                   cpu_us_per_rpc=c["busy_jiffies"] * (1e6 / USER_HZ) / rpcs)
        if "nfsd_wakeups" in c:
            row["nfsd_wakeups_per_rpc"] = c["nfsd_wakeups"] / rpcs
            row["nfsd_switches_per_rpc"] = c["nfsd_switches"] / rpcs
        if "nfsd_empty_passes" in c:
            row["nfsd_empty_per_rpc"] = c["nfsd_empty_passes"] / rpcs
        if "nfsd_woken_empty" in c:
            row["nfsd_woken_empty_per_rpc"] = c["nfsd_woken_empty"] / rpcs
        out.append(row)
    # paired with fifo's window of the same round: slow drifts of the emulation cancel out
    fifo = {c["rep"]: c for c in out if c["sched"] == "fifo" and c["stall_s"] < STALL_S}
    for c in out:
        f = fifo.get(c["rep"])
        c["ops_vs_fifo"] = c["ops_per_s"] / f["ops_per_s"] - 1 if f else None
        c["cpu_vs_fifo"] = c["cpu_us_per_rpc"] / f["cpu_us_per_rpc"] - 1 if f else None
    return out


def rate_summary(cells, scheds, fields):
    """per scheduler, over the windows in which the guest did not stand still"""
    ok = [c for c in cells if c["stall_s"] < STALL_S]
    return {s: {f: agg([c.get(f) for c in ok if c["sched"] == s]) for f in fields} for s in scheds
            if any(c["sched"] == s for c in ok)}


def stall_note(md, cells):
    starved = [c for c in cells if c.get("starved_s", 0) >= STALL_S]
    if any("starved_s" in c for c in cells):
        md.append("Windows in which a load generator did not run for %g s of guest time or more (starved "
                  "of CPU inside the guest, whose CPUs the load saturates; kept, since the total over the "
                  "common window stays exact): %d of %d%s.\n" % (STALL_S, len(starved), len(cells), "".join(
                      " (%s round %d: %.1f s)" % (c["sched"], c["rep"], c["starved_s"]) for c in starved)))
        return
    stalled = [c for c in cells if c["stall_s"] >= STALL_S]
    md.append("Windows left out because the guest stood still for %g s or more during them (a gap in "
              "the load generators' 0.2 s ticks): %d of %d%s.\n" % (STALL_S, len(stalled), len(cells), "".join(
                  " (%s round %d: %.1f s)" % (c["sched"], c["rep"], c["stall_s"]) for c in stalled)))


def pct(a):
    if a is None:
        return "–"
    return "%+.1f%% ±%.1f" % (100 * a["mean"], 50 * a["spread"])


def load_reconnects(data):
    n = 0
    for f in os.listdir(data["dir"]):
        if f.endswith(".json") and f.startswith(("load-", "greedy-")):
            try:
                n += json.load(open(os.path.join(data["dir"], f))).get("reconnects", 0)
            except ValueError:
                pass
    return n


def bars(ax, scheds, summ, field, ylabel, scale=1):
    ss = [s for s in scheds if s in summ and summ[s][field]]
    ax.bar(ss, [scale * summ[s][field]["mean"] for s in ss],
           yerr=[scale * summ[s][field]["spread"] / 2 for s in ss], color=[color(s) for s in ss], capsize=4)
    for i, s in enumerate(ss):
        for v in summ[s][field]["values"]:
            ax.plot(i, scale * v, "k.", ms=4)
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3, axis="y")


def scenario4(data, md, res):
    m = data["meta"]
    scheds = m["schedulers"]
    cells = rate_cells(data)
    fields = ("ops_per_s", "ops_vs_fifo", "cpu_us_per_rpc", "cpu_vs_fifo", "ctxt_per_rpc", "cpu_busy")
    summ = rate_summary(cells, scheds, fields)
    res["4"] = {"meta": m, "host": data["host"], "cells": cells, "summary": summ}
    header(md, "Scenario 4: dispatch overhead (D=0)", data)
    md.append("No injected service time; T=%d; %d clients × %d connections × window %d of NFSv3 GETATTR "
              "as fast as the server answers, without pause; the scheduler is switched live under the "
              "load, and each window of %s s (after %s s) measures one scheduler; a round measures all "
              "of them back to back, %d rounds. Under TCG the guest's CPUs are the bottleneck, so the "
              "RPC rate and the guest CPU time per RPC (server and clients together, /proc/stat) compare "
              "the cost of the dispatch paths. \"vs fifo\" pairs each window with fifo's window of the "
              "same round. Mean ± half the spread over rounds.\n" %
              (m["threads"], m["clients"], m["connections"], m["window"], m["secs"], m["settle"], m["rounds"]))
    if on_icount(m):
        shift = int(m["clock"].partition("shift=")[2] or 0)
        md.append("Under the instruction clock the guest executes %g instructions per µs of its time, "
                  "shared by its %d CPUs, so a µs of one CPU's time is %g instructions: the CPU time per "
                  "RPC counts the instructions each RPC costs, server, clients and network together. It "
                  "weighs every instruction alike: an atomic or a cache miss costs more on hardware.\n"
                  % (1000 / 2 ** shift, m["cpus"], 1000 / 2 ** shift / m["cpus"]))
    rows = []
    for s in scheds:
        if s not in summ:
            continue
        v = summ[s]
        rows.append([s, fmt(v["ops_per_s"], 0), pct(v["ops_vs_fifo"]) if s != "fifo" else "–",
                     fmt(v["cpu_us_per_rpc"], 1), pct(v["cpu_vs_fifo"]) if s != "fifo" else "–",
                     fmt(v["ctxt_per_rpc"], 2), "%.0f%%" % (100 * v["cpu_busy"]["mean"])])
    table(md, ["scheduler", "RPC/s", "RPC/s vs fifo", "guest CPU µs per RPC", "CPU per RPC vs fifo",
               "context switches per RPC", "CPU busy"], rows)
    md.append("Reconnects by the load clients during the run: %d.\n" % load_reconnects(data))
    stall_note(md, cells)
    md.append("![overhead](s4-overhead.png)\n")


def scenario5(data, md, res):
    m = data["meta"]
    scheds = m["schedulers"]
    fast = rate_cells(dict(data, cells=[c for c in data["cells"] if c["kind"] == "threads"]))
    slow = rate_cells(dict(data, cells=[c for c in data["cells"] if c["kind"] == "threads_slow"]))
    bound = rate_cells(dict(data, cells=[c for c in data["cells"] if c["kind"] == "threads_bound"]))
    fields = ("ops_per_s", "ops_vs_fifo", "ctxt_per_rpc", "nfsd_wakeups_per_rpc", "nfsd_woken_empty_per_rpc",
              "nfsd_empty_per_rpc",
              "nfsd_switches_per_rpc", "runnable_mean", "server_runnable_mean", "nfsd_runnable_mean", "loadavg1",
              "cpu_us_per_rpc",
              "rpcinfo_ms")
    summ = rate_summary(fast, scheds, fields)
    summ_slow = rate_summary(slow, scheds, fields)
    summ_bound = rate_summary(bound, scheds, fields)
    res["5"] = {"meta": m, "host": data["host"], "cells": fast + slow + bound, "summary": summ,
                "summary_slow": summ_slow, "summary_bound": summ_bound}
    header(md, "Scenario 5: many threads, tiny requests", data)
    md.append("%d nfsd threads, no injected service time; %d clients × %d connections × window %d of "
              "NFSv3 GETATTR as fast as they can, without pause%s; schedulers switched live, windows of %s s, "
              "%d rounds. Context switches per RPC from /proc/stat (whole guest); wakeups and switches "
              "of the nfsd threads from schedstats; runnable tasks, and runnable nfsd threads (state R: "
              "the part of the load the dispatcher decides), and the runnable tasks less the load generators "
              "(which stand for other machines) and the sampler itself (the server side's own load), "
              "sampled every 0.2 s in the window; "
              "the 1-minute load average at the end of the window (it lags: it mixes the schedulers, and "
              "it is still climbing through the first minutes of the run); "
              "the wall time of one `rpcinfo -p` from a client namespace in the middle of the window%s "
              "(SGI's starved portmap)%s. Passes that found no work: nfsd's passes through svc_recv() "
              "that brought no request (it returned -EAGAIN: nothing to take, or a connection without a "
              "whole request); wakeups that found no work: those of them in which the thread had slept "
              "(woken or timed out); both counted by the fairq_qtime helper where svc_recv() returns what "
              "it got (before 6.6).\n" %
              (m["threads"], m["clients"], m["connections"], m["window"],
               " (at nice %s: they stand for clients on other machines)" % m["load_nice"] if "load_nice" in m else "",
               m["secs"], m["rounds"],
               ", as user %s" % m["rpcinfo_user"] if "rpcinfo_user" in m else "",
               "; the same with no load at all took %s ms (median of 3)" % m["rpcinfo_idle_ms"]
               if "rpcinfo_idle_ms" in m else ""))

    def rows_of(sm):
        rows = []
        for s in scheds:
            if s not in sm:
                continue
            v = sm[s]
            rows.append([s, fmt(v["ops_per_s"], 0), pct(v["ops_vs_fifo"]) if s != "fifo" else "–",
                         fmt(v["ctxt_per_rpc"], 2), fmt(v["nfsd_wakeups_per_rpc"], 3),
                         fmt(v["nfsd_woken_empty_per_rpc"], 3), fmt(v["nfsd_empty_per_rpc"], 3),
                         fmt(v["nfsd_switches_per_rpc"], 3), fmt(v["runnable_mean"], 1),
                         fmt(v["server_runnable_mean"], 1), fmt(v["nfsd_runnable_mean"], 1), fmt(v["loadavg1"], 1), fmt(v["cpu_us_per_rpc"], 1), fmt(v["rpcinfo_ms"], 0)])
        return rows
    head = ["scheduler", "RPC/s", "RPC/s vs fifo", "context switches per RPC", "nfsd wakeups per RPC",
            "wakeups that found no work, per RPC", "passes that found no work, per RPC",
            "nfsd switches per RPC", "runnable tasks", "runnable on the server side", "runnable nfsd threads",
            "load average",
            "guest CPU µs per RPC",
            "rpcinfo ms"]
    table(md, head, rows_of(summ))
    stall_note(md, fast)
    if summ_slow:
        md.append("The same load with every request holding its thread for %g ms (threads that block on "
                  "slow storage), %d rounds: a wakeup cap must not leave work queued while woken threads "
                  "are slow to run.\n" % (m.get("slow_us", 0) / 1000.0, m.get("slow_rounds", 0)))
        table(md, head, rows_of(summ_slow))
        stall_note(md, slow)
    if summ_bound:
        bound_us = m.get("bound_us", m.get("slow_us", 0))
        md.append("The same load with only %d nfsd threads, every request holding its thread for %g ms, "
                  "%d rounds: the threads, not the emulated CPUs, bound the rate here (at most %d RPC/s), "
                  "so it repeats closely enough to judge throughput against fifo at a few percent.\n" %
                  (m["bound_threads"], bound_us / 1000.0, m["bound_rounds"],
                   m["bound_threads"] * 1e6 / bound_us if bound_us else 0))
        table(md, head, rows_of(summ_bound))
        stall_note(md, bound)
    md.append("Reconnects by the load clients during the run: %d.\n" % load_reconnects(data))
    md.append("![many threads](s5-threads.png)\n")


# ---- scenario 3 ----

def scenario3(data, md, res):
    m = data["meta"]
    scheds = m["schedulers"]
    cells = [{k: v for k, v in c.items() if k != "runs"} for c in data["cells"]]
    res["3"] = {"meta": m, "host": data["host"], "cells": cells}
    header(md, "Scenario 3: real clients", data)
    md.append("Kernel NFS clients, NFSv%s, every request held %g ms (fairq_svctime), T=%d. Client 1 mounts "
              "with nconnect=%d and runs fio (%s); client 2 walks a tree of %d files in %d directories "
              "with find and stat on a fresh mount (cold caches). Walk completion time in seconds "
              "(mean ± half the spread), and the RPCs the walk sent.\n" %
              (m["vers"], m["delay_us"] / 1000, m["threads"], m["nconnect"], m["fio"], m["files"], m["dirs"]))
    rows = []
    for s in scheds:
        a = agg([c["walk_s"] for c in cells if c["sched"] == s and c["kind"] == "alone"])
        b = agg([c["walk_s"] for c in cells if c["sched"] == s and c["kind"] == "contended"])
        rpcs = agg([c["walk_rpcs"] for c in cells if c["sched"] == s and c["kind"] == "contended"])
        fio = agg([c["fio_iops"] for c in cells if c["sched"] == s and c["kind"] == "contended" and c.get("fio_iops")])
        rows.append([s, fmt(a, 2), fmt(b, 2), "%.1f×" % (b["mean"] / a["mean"]) if a and b else "–",
                     fmt(rpcs, 0), fmt(fio, 0)])
    table(md, ["scheduler", "walk alone s", "walk under fio s", "slowdown", "walk RPCs", "fio IOPS during the walk"], rows)
    md.append("![walk](s3-walk.png)\n")


# ---- scenario 6 ----

def window_rates(data, c, cache):
    """each load client's RPC rate over a window, and the longest gap in their ticks"""
    rates, gap = [], 0.0
    for name in c["series"]:
        if name not in cache:
            cache[name] = benchcalc.load_series(os.path.join(data["dir"], name + ".series"), "wall")
        rates.append(benchcalc.rate(cache[name], c["wall_start"], c["wall_end"]))
        gap = max(gap, max_gap(cache[name], c["wall_start"], c["wall_end"]))
    return rates, gap


def jain(xs):
    return sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs)) if any(xs) else None


def s6_fair(data, cache):
    out = []
    for c in data["cells"]:
        if c["kind"] != "fair":
            continue
        rates, gap = window_rates(data, c, cache)
        total = sum(rates)
        shares = [r / total for r in rates]
        fair = [w / sum(c["weights"]) for w in c["weights"]]
        norm = [s / f for s, f in zip(shares, fair)]
        out.append({"sched": c["sched"], "rep": c["rep"], "stall_s": gap, "conns": c["conns"],
                    "addrs": c["addrs"], "ops_per_s": total, "shares": shares, "fair_shares": fair,
                    "deviation": [x - 1 for x in norm], "max_deviation": max(abs(x - 1) for x in norm),
                    "jain": jain(norm)})
    return out


TIMELINE_STEP_S = 0.5   # a step holds two or three of a load generator's 0.2 s ticks


def s6_timeline(data, cache):
    """(a)'s clients through the whole load, the scheduler switched live under it: each one's
    RPC rate per TIMELINE_STEP_S, over the time all of them were running, and the measured
    windows (the switch itself comes during the settle time before each window)"""
    cells = [c for c in data["cells"] if c["kind"] == "fair"]
    if not cells:
        return None
    series = []
    for name in cells[0]["series"]:
        if name not in cache:
            cache[name] = benchcalc.load_series(os.path.join(data["dir"], name + ".series"), "wall")
        series.append(cache[name])
    t0 = max(ts[0] for ts, _ in series)
    n = int((min(ts[-1] for ts, _ in series) - t0) / TIMELINE_STEP_S)
    edges = [t0 + i * TIMELINE_STEP_S for i in range(n + 1)]
    out = {"step_s": TIMELINE_STEP_S, "conns": cells[0]["conns"], "addrs": cells[0]["addrs"],
           "t": [round(a - t0 + TIMELINE_STEP_S / 2, 3) for a in edges[:-1]],
           "rates": [[round(benchcalc.rate(sr, a, b), 1) for a, b in zip(edges, edges[1:])] for sr in series],
           "windows": [{"sched": c["sched"], "rep": c["rep"], "start": round(c["wall_start"] - t0, 3),
                        "end": round(c["wall_end"] - t0, 3)} for c in cells]}
    # after the windows, the same load through a switch to fq, rmmod and modprobe (B6_UNLOAD)
    path = os.path.join(data["dir"], "fair-events.json")
    if os.path.exists(path):
        out["events"] = [dict({k: round(v - t0, 3) for k, v in e.items() if k.startswith("wall")},
                              what=e["what"]) for e in json.load(open(path))]
    return out


def s6_subnet(data, cache):
    out = []
    for c in data["cells"]:
        if c["kind"] != "subnet":
            continue
        rates, gap = window_rates(data, c, cache)
        total = sum(rates)
        mine = [n == c["weighted"] for n in c["subnets"]]
        w = sum(r for r, x in zip(rates, mine) if x)
        conns = sum(k for k, x in zip(c["conns"], mine) if x)
        out.append({"sched": c["sched"], "rep": c["rep"], "stall_s": gap, "ops_per_s": total,
                    "weighted": c["weighted"], "weight": c["weight"], "weight_set": c["weight_set"],
                    "weighted_share": w / total, "conn_share": conns / sum(c["conns"]),
                    "weight_share": c["weight"] / (c["weight"] + 1)})
    return out


def s6_keys(data):
    ticks = None
    path = os.path.join(data["dir"], "keys-ticks.series")
    if os.path.exists(path):
        ticks = benchcalc.load_series(path, "wall")
    steps = []
    for c in data["cells"]:
        if c["kind"] != "keys":
            continue
        s = dict(c)
        if "keys_before_free" in c:
            freed = c["keys_before_free"] - c["keys_after_free"]
            s["keys_freed"] = freed
            s["slab_bytes_per_key"] = c["slab_bytes_freed"] / freed if freed > 0 else None
            # runs before the cache was found by its fall counted kmalloc-192's alone
            s["kmalloc_key_size"] = c.get("kmalloc_key_size", 192)
            fell = c.get("kmalloc_key_freed", c.get("kmalloc192_freed", 0))
            s["kmalloc_per_key"] = fell / freed if freed > 0 else None
            s["slab_kb_per_key"] = c["slab_kb_freed"] / freed if freed > 0 else None
            s["mem_kb_per_conn"] = (c["mem_available_kb_before"] - c["mem_available_kb"]) / c["connections"]
            if "mem_available_kb_stopped" in c:
                s["mem_kb_per_conn_stopped"] = ((c["mem_available_kb_before"] - c["mem_available_kb_stopped"]) /
                                                c["connections"])
        dumps = [d for d in data["cells"] if d["kind"] == "dump" and d["target"] == c["target"]]
        for d in dumps:
            d["stall_s"] = max_gap(ticks, d["dump_start"], d["dump_start"] + d["wall_s"]) if ticks else 0.0
            d["complete"] = (d["json_keys"] >= d["conns"] and not d["conns_missing"] and not d["duplicates"])
        s["dumps"] = dumps
        for state in ("busy", "idle"):
            ok = [d for d in dumps if d["state"] == state and d["stall_s"] < STALL_S]
            stalled = len([d for d in dumps if d["state"] == state]) - len(ok)
            if not ok:     # better a number marked as stalled than none
                ok = [d for d in dumps if d["state"] == state]
            s[state] = {"n": len(ok), "stalled": stalled, "all_stalled": stalled == len(ok) > 0,
                        "wall_ms_median": 1e3 * statistics.median(d["wall_s"] for d in ok) if ok else None,
                        "user_ms_median": 1e3 * statistics.median(d["user_s"] for d in ok) if ok else None,
                        "sys_ms_median": 1e3 * statistics.median(d["sys_s"] for d in ok) if ok else None,
                        "json_keys": max((d["json_keys"] for d in ok), default=None),
                        "json_bytes": max((d["json_bytes"] for d in ok), default=None)}
        s["json_complete"] = bool(dumps) and all(d["complete"] for d in dumps)
        steps.append(s)
    return steps


def s6_watch(data):
    cells = rate_cells(dict(data, cells=[c for c in data["cells"] if c["kind"] == "watch"]))
    for c in cells:
        c.pop("ops_vs_fifo", None)
        c.pop("cpu_vs_fifo", None)
        c["watch_cpu"] = (c["watch_utime"] + c["watch_stime"]) / USER_HZ / c["secs"]
    pairs = []
    by = {(c["sched"], c["rep"], c["pair"], c["watch"]): c for c in cells}
    for (s, rep, pair, on), c in sorted(by.items()):
        off = by.get((s, rep, pair, 0))
        if not on or not off or c["stall_s"] >= STALL_S or off["stall_s"] >= STALL_S:
            continue
        pairs.append({"sched": s, "rep": rep, "pair": pair, "ops_with": c["ops_per_s"],
                      "ops_without": off["ops_per_s"], "cost": 1 - c["ops_per_s"] / off["ops_per_s"],
                      "watch_cpu": c["watch_cpu"]})
    return cells, pairs


def scenario6(data, md, res):
    m = data["meta"]
    scheds = m["schedulers"]
    cache = {}
    fair = s6_fair(data, cache)
    subnet = s6_subnet(data, cache)
    steps = s6_keys(data)
    watch, pairs = s6_watch(data)
    timeline = s6_timeline(data, cache)
    r6 = res["6"] = {"meta": m, "host": data["host"], "fair": fair, "subnet": subnet, "keys": steps,
                     "watch": watch, "watch_pairs": pairs}
    if timeline:
        r6["fair_timeline"] = timeline
    header(md, "Scenario 6: keys and reports", data)
    md.append("T=%d nfsd threads, D=%g ms per request (fairq_svctime) in (a) to (c), D=0 in (d). Loads "
              "run throughout while the scheduler is switched live; windows of %s s after %s s of "
              "settling, %d rounds in rotated order. Mean over windows ± half the spread (max − min); "
              "windows during which the guest stood still for %g s or more are left out.\n" %
              (m["threads"], m["delay_us"] / 1000, m["secs"], m["settle"], m["rounds"], STALL_S))

    summ = {}
    if fair:
        md.append("### (a) Ten backlogged clients of 1 to 32 connections\n")
        conns, addrs = fair[0]["conns"], fair[0]["addrs"]
        md.append("Each client is one fairq-load from its own address, K connections of window %d of NFSv3 "
                  "GETATTR; fq keyed by client address (key=1). Every client is backlogged, so its "
                  "max-min fair share is 1/%d. Deviation: share ÷ fair share − 1; Jain's index over the "
                  "shares normalised to the fair share (1 = perfectly fair). Target under fq: every "
                  "client within 10%% of its fair share and Jain ≥ 0.98, in every window.\n" %
                  (m["window"], len(conns)))
        for s in scheds:
            ok = [c for c in fair if c["sched"] == s and c["stall_s"] < STALL_S]
            if ok:
                summ[s] = {"share": [agg([c["shares"][i] for c in ok]) for i in range(len(conns))],
                           "max_deviation": agg([c["max_deviation"] for c in ok]),
                           "jain": agg([c["jain"] for c in ok]),
                           "ops_per_s": agg([c["ops_per_s"] for c in ok]),
                           "worst_deviation": max(c["max_deviation"] for c in ok),
                           "worst_jain": min(c["jain"] for c in ok)}
        ss = [s for s in scheds if s in summ]
        rows = []
        for i, (k, a) in enumerate(zip(conns, addrs)):
            rows.append([a, k, "%.1f%%" % (100 * fair[0]["fair_shares"][i])] +
                        ["%s%% (%+.0f%%)" % (fmt(summ[s]["share"][i], 1, pct=True),
                                             100 * (summ[s]["share"][i]["mean"] / fair[0]["fair_shares"][i] - 1))
                         for s in ss])
        table(md, ["client", "connections", "fair share"] + ["%s share (vs fair)" % s for s in ss], rows)
        rows = []
        for s in ss:
            v = summ[s]
            met = v["worst_deviation"] <= 0.10 and v["worst_jain"] >= 0.98
            rows.append([s, fmt(v["ops_per_s"], 0), fmt(v["max_deviation"], 1, pct=True),
                         "%.1f%%" % (100 * v["worst_deviation"]), fmt(v["jain"], 3), "%.3f" % v["worst_jain"],
                         ("yes" if met else "**no**") if s == "fq" else "–"])
        table(md, ["scheduler", "total RPC/s", "max deviation %", "worst window", "Jain", "worst window",
                   "fq target met"], rows)
        md.append("For reference, shares in proportion to connections (what per-connection FIFO turns "
                  "give) would put the %d-connection client at %.1f%% and the 1-connection one at %.1f%%; "
                  "Jain %.3f.\n" % (max(conns), 100 * max(conns) / sum(conns), 100 / sum(conns),
                                    jain([k / sum(conns) * len(conns) for k in conns])))
        stall_note(md, fair)
        r6["fair_summary"] = {s: {k: v for k, v in summ[s].items()} for s in ss}
        if timeline:
            md.append("![shares over time](s6-timeline.png)\n")
            md.append("Each client's share and the pool's total through the whole load, in steps of %g s. "
                      "Shaded: the measured windows, coloured by scheduler; the scheduler is switched live "
                      "at the start of the white gap before each one.%s\n" % (TIMELINE_STEP_S, unload_note(timeline)))

    ssum = {}
    if subnet:
        c0 = subnet[0]
        md.append("### (b) Two subnets weighted %d:1\n" % c0["weight"])
        sc = [c for c in data["cells"] if c["kind"] == "subnet"][0]
        md.append("Subnet %s (clients of %s connections) has weight %d (`fairqctl weight %s %d`), the "
                  "other subnet (clients of %s connections) weight 1; window %d, all backlogged; fq "
                  "keyed by subnet (key=2, prefix4=24). Its weighted fair share is %.0f%%; what its "
                  "connections would get is %.1f%%. Target under fq: %.0f%% ± 3 in every window.\n" %
                  (c0["weighted"], ", ".join(str(k) for k, n in zip(sc["conns"], sc["subnets"]) if n == c0["weighted"]),
                   c0["weight"], c0["weighted"], c0["weight"],
                   ", ".join(str(k) for k, n in zip(sc["conns"], sc["subnets"]) if n != c0["weighted"]),
                   m["window"], 100 * c0["weight_share"], 100 * c0["conn_share"], 100 * c0["weight_share"]))
        rows = []
        for s in scheds:
            ok = [c for c in subnet if c["sched"] == s and c["stall_s"] < STALL_S]
            if not ok:
                continue
            ssum[s] = {"weighted_share": agg([c["weighted_share"] for c in ok]),
                       "ops_per_s": agg([c["ops_per_s"] for c in ok]),
                       "worst_error": max(abs(c["weighted_share"] - c["weight_share"]) for c in ok)}
            met = ssum[s]["worst_error"] <= 0.03
            rows.append([s, fmt(ssum[s]["weighted_share"], 1, pct=True) + "%",
                         "%.1f" % (100 * max(abs(c["weighted_share"] - c["weight_share"]) for c in ok)),
                         fmt(ssum[s]["ops_per_s"], 0), ("yes" if met else "**no**") if s == "fq" else "–"])
        table(md, ["scheduler", "%s share" % c0["weighted"], "worst window's distance from %.0f%% (points)" %
                   (100 * c0["weight_share"]), "total RPC/s", "fq target met"], rows)
        stall_note(md, subnet)
        r6["subnet_summary"] = ssum

    if steps:
        md.append("### (c) Many keys\n")
        md.append("fq keyed by connection (key=3, idle_secs=3600); N connections of NFSv3 NULL of window 1 "
                  "from the client namespaces (fairq-load, at most 4096 connections each), D=%g ms, opened in "
                  "steps; a step lasts until the pools hold N keys (debugfs `keys`, summed over pools). "
                  "Dump: one `fairqctl -j shares`, wall clock in the guest, median of up to %d (within a "
                  "time budget), under the running load (\"busy\") and with the clients stopped and the "
                  "server drained (\"idle\"); user and system CPU of the fairqctl process (system: the "
                  "kernel's netlink dump). Complete: every dump's JSON has one key for each established "
                  "connection (`ss` on the server), no duplicates. Slab per key: with the clients stopped, "
                  "changing the key tunable (to 1 and back) rebuilds the pools and frees every key while every socket "
                  "stays; the fall of the slab caches' active bytes (/proc/slabinfo), of the active objects of "
                  "the kmalloc size that fell most (where a struct fq_key lives) and of /proc/meminfo Slab, "
                  "over the keys freed. Memory per connection: the fall of MemAvailable since before the first step, "
                  "over the connections open, when the step's keys were all there and again with the "
                  "clients stopped after the dumps (both TCP ends, nfsd's and fairq-load's state); a "
                  "step that the memory left would not hold at the larger figure is skipped. The target for a dump of 10,000 keys is "
                  "50 ms%s.\n" % (m["delay_us"] / 1000, m["dumps"],
                                  " of guest time, which on this clock counts the instructions the guest's CPUs "
                                  "execute, 2^%s ns each" % (m.get("clock", "").partition("shift=")[2] or "0")
                                  if on_icount(m) else " on hardware; TCG on a wall clock is much slower"))
        rows = []
        for s in steps:
            if s.get("skipped"):
                rows.append([s["target"], "skipped: %s" % s["skipped"]] + [""] * 7)
                continue

            def dump(st):
                v = s[st]
                if not v["n"]:
                    return "–"
                return "%.0f ms (user %.0f, sys %.0f; n=%d%s)" % (
                    v["wall_ms_median"], v["user_ms_median"], v["sys_ms_median"], v["n"],
                    ", every one stalled" if v["all_stalled"] else
                    ", %d stalled left out" % v["stalled"] if v["stalled"] else "")
            rows.append([s["target"], "%d in %d processes" % (s["connections"], s["processes"]),
                         "%d%s%s" % (s["keys"], " in %d buckets" % s["key_buckets"] if "key_buckets" in s else "",
                                     " (%s)" % s["error"] if s["error"] else ""),
                         "%.0f" % s["setup_s"], dump("busy"), dump("idle"),
                         ("yes (%d keys, %.1f MB)" % (s["busy"]["json_keys"] or s["idle"]["json_keys"],
                                                      (s["busy"]["json_bytes"] or s["idle"]["json_bytes"]) / 1e6)
                          if s["json_complete"] else "**no**"),
                         "%s B (kmalloc-%d %.2f objects, Slab %.0f B)" % (
                             "%.0f" % s["slab_bytes_per_key"] if s["slab_bytes_per_key"] is not None else "–",
                             s["kmalloc_key_size"], s["kmalloc_per_key"] or 0, 1024 * (s["slab_kb_per_key"] or 0)),
                         "%.0f kB%s" % (s["mem_kb_per_conn"], ", %.0f kB after the dumps" % s["mem_kb_per_conn_stopped"]
                                        if "mem_kb_per_conn_stopped" in s else "")])
        table(md, ["connections", "opened", "keys", "setup s", "dump busy, median", "dump idle, median",
                   "JSON complete", "slab per key", "memory per connection"], rows)
        dumps = [d for s in steps for d in s["dumps"]]
        bad = [d for d in dumps if not d["complete"]]
        if bad:
            md.append("Incomplete dumps: %s.\n" % "; ".join(
                "%d %s #%d: %d keys for %d connections, %d missing, %d duplicates" %
                (d["target"], d["state"], d["n"], d["json_keys"], d["conns"], d["conns_missing"], d["duplicates"])
                for d in bad))

    wsum = {}
    if watch:
        md.append("### (d) The cost of `fairqctl watch -i 0.1`\n")
        md.append("D=0, %d clients × %d connections × window %d of NFSv3 GETATTR as fast as the server answers "
                  "(as scenario 4). One `fairqctl watch -i 0.1 >/dev/null` runs on the server throughout, "
                  "stopped (SIGSTOP) in the windows without it. Per round and scheduler (%s s after the "
                  "switch), %d pairs of windows of %s s back to back, one with the watch and one without, "
                  "in alternating order; %d rounds. Cost: 1 − RPC/s with ÷ RPC/s without: over all pairs "
                  "(sums), the median pair, and the mean ± half the spread. Watch CPU: the watch's user + "
                  "system time in its windows (one CPU = 100%%). Target: a cost of at most 1%%.\n" %
                  (m["watch_clients"], m["watch_k"], m["watch_w"], m["watch_settle"], m["watch_pairs"],
                   m["watch_secs"], m["watch_rounds"]))
        rows = []
        for s in scheds + ["all"]:
            ps = [p for p in pairs if p["sched"] == s or s == "all"]
            if not ps:
                continue
            wsum[s] = {f: agg([p[f] for p in ps]) for f in ("ops_without", "ops_with", "cost", "watch_cpu")}
            v = wsum[s]
            # over all pairs: the total with over the total without, steadier than a mean of ratios
            v["cost_pooled"] = 1 - sum(p["ops_with"] for p in ps) / sum(p["ops_without"] for p in ps)
            v["cost_median"] = statistics.median(p["cost"] for p in ps)
            rows.append([s, fmt(v["ops_without"], 0), fmt(v["ops_with"], 0), "%+.1f%%" % (100 * v["cost_pooled"]),
                         "%+.1f%%" % (100 * v["cost_median"]), pct(v["cost"]),
                         "%.1f%%" % (100 * v["watch_cpu"]["mean"]), v["cost"]["n"]])
        table(md, ["scheduler", "RPC/s without", "RPC/s with watch", "cost (all pairs)", "cost, median pair",
                   "cost, mean ± half spread", "watch CPU", "pairs"], rows)
        stall_note(md, watch)
        r6["watch_summary"] = wsum

    if summ or ssum:
        md.append("![shares](s6-keys.png)\n")


# ---- scenario 7 ----

S7_PARTS = {"a": "tmpfs export", "b": "slow export (every request held %g ms)", "c": "tmpfs, a CPU soaker on every guest CPU (guest CPU per RPC includes the soaker's)"}


def s7_cell(c):
    """one window: fio over every client, and the server's counters"""
    runs = c["runs"]
    iops = sum(r["read"]["iops"] + r["write"]["iops"] for r in runs)
    rpcs = c["rpcs"]
    secs = c["wall_end"] - c["wall_start"]
    return {"part": c["kind"], "sched": c["sched"], "rep": c["rep"], "iops": iops,
            "read_p50_ms": statistics.mean(r["read"]["clat_p50_us"] for r in runs) / 1000,
            "read_p99_ms": max(r["read"]["clat_p99_us"] for r in runs) / 1000,
            "write_p99_ms": max(r["write"]["clat_p99_us"] for r in runs) / 1000,
            "rpc_per_s": rpcs / secs if secs > 0 else None,
            "cpu_us_per_rpc": c["busy_jiffies"] * 1e6 / USER_HZ / rpcs if rpcs else None,
            "ctxt_per_rpc": c["ctxt"] / rpcs if rpcs else None,
            "pickup_p50_us": c["pickup"]["p50_us"] if "pickup" in c else None,
            "pickup_p99_us": c["pickup"]["p99_us"] if "pickup" in c else None}


def scenario7(data, md, res):
    m = data["meta"]
    if m.get("skipped"):
        md.append("## Scenario 7: who runs the requests (wq)\n")
        md.append("Not run on %s: %s.\n" % (m["kernel"], m["skipped"]))
        res["7"] = {"meta": m, "skipped": m["skipped"]}
        return
    scheds = m["schedulers"]
    cells = [s7_cell(c) for c in data["cells"]]
    for c in cells:   # pair each window with fifo's of the same part and repetition
        f = [x for x in cells if x["sched"] == "fifo" and x["part"] == c["part"] and x["rep"] == c["rep"]]
        c["iops_vs_fifo"] = c["iops"] / f[0]["iops"] - 1 if f and f[0]["iops"] else None
        c["read_p99_minus_fifo_ms"] = c["read_p99_ms"] - f[0]["read_p99_ms"] if f else None
    parts = [p for p in m["parts"].split() if any(c["part"] == p for c in cells)]
    fields = ("iops", "iops_vs_fifo", "read_p50_ms", "read_p99_ms", "read_p99_minus_fifo_ms",
              "write_p99_ms", "rpc_per_s", "cpu_us_per_rpc", "ctxt_per_rpc", "pickup_p50_us",
              "pickup_p99_us")
    summ = {p: {s: {f: agg([c[f] for c in cells if c["part"] == p and c["sched"] == s]) for f in fields}
                for s in scheds} for p in parts}
    res["7"] = {"meta": m, "host": data["host"], "cells": cells, "summary": summ}
    header(md, "Scenario 7: who runs the requests (wq)", data)
    md.append("fio over NFS from %d kernel clients at once (NFSv3; NFSv4.1 on the last), 4 KiB random "
              "50/50 read/write, direct, %d jobs × depth %d each, T=%d nfsd threads; one fio run per client "
              "and window of %s s on a fresh mount. fifo is nfsd's own dispatch, qfifo fairq's queue "
              "feeding nfsd's threads, wq the same queue served by fairq's own workers. IOPS over all "
              "clients; latency percentiles are fio's completion latency (the worst client's p99). "
              "Queue-to-pickup is measured on the server by the fairq_qtime helper, the same way on every "
              "path: from svc_xprt_enqueue() finding a connection with data idle to a context starting to "
              "read it (svc_tcp_recvfrom), percentiles as bucket upper bounds (buckets at most 12.5%% wide). "
              "Guest CPU per RPC "
              "counts every CPU (server and clients, /proc/stat) over the server's RPCs. \"vs fifo\" pairs "
              "each window with fifo's of the same repetition. Mean ± half the spread over %s repetitions.\n" %
              (m["clients"], m["jobs"], m["depth"], m["threads"], m["secs"], m["reps"]))
    for p in parts:
        md.append("**(%s) %s**\n" % (p, S7_PARTS[p] % (m["slow_us"] / 1000) if p == "b" else S7_PARTS[p]))
        rows = []
        for s in scheds:
            v = summ[p][s]
            if not v["iops"]:
                continue
            rows.append([s, fmt(v["iops"], 0), pct(v["iops_vs_fifo"]) if s != "fifo" else "–",
                         fmt(v["read_p50_ms"], 2), fmt(v["read_p99_ms"], 2),
                         ("%+.2f" % v["read_p99_minus_fifo_ms"]["mean"]) if s != "fifo" and v["read_p99_minus_fifo_ms"] else "–",
                         fmt(v["write_p99_ms"], 2), fmt(v["rpc_per_s"], 0), fmt(v["cpu_us_per_rpc"], 0),
                         fmt(v["ctxt_per_rpc"], 2), fmt(v["pickup_p50_us"], 0), fmt(v["pickup_p99_us"], 0)])
        table(md, ["scheduler", "IOPS", "IOPS vs fifo", "read p50 ms", "read p99 ms", "p99 − fifo ms",
                   "write p99 ms", "server RPC/s", "guest CPU µs per RPC", "context switches per RPC",
                   "queue-to-pickup p50 µs", "p99 µs"], rows)
    md.append("![wq](s7-wq.png)\n")


# ---- scenario 8 ----

def s8_thread_shares(data, tag):
    """each class's thread time in the window, ns (fairq's counters before and after)"""
    snap = {}
    for edge in ("before", "after"):
        snap[edge] = {c["name"]: c for c in json.load(open(os.path.join(data["dir"], "%s.%s.json" % (tag, edge))))["classes"]}
    return {n: snap["after"][n]["thread_ns"] - snap["before"][n]["thread_ns"] for n in snap["after"] if n in snap["before"]}


def s8_spacing(path, rate):
    """the most requests of one key in any closed interval, beyond what the rate allows over it:
    max over i <= j of (j - i + 1) - rate * (t_j - t_i); a token bucket of depth b keeps it <= b"""
    ts = sorted(float(line.split()[0]) for line in open(path) if line.strip())
    worst, low = 0.0, None
    for j, t in enumerate(ts):
        v = j - rate * t
        low = v if low is None else min(low, v)
        worst = max(worst, v - low + 1)
    pools = {}
    for line in open(path):
        f = line.split()
        if len(f) >= 2:
            pools[f[1]] = pools.get(f[1], 0) + 1
    return {"dispatches": len(ts), "largest_burst": worst, "per_pool": [pools[k] for k in sorted(pools, key=int)]}


def scenario8(data, md, res):
    # the scenario measures fq (its classes), and fifo as the cost's baseline, whatever else
    # the kernel offers
    m = data["meta"] = dict(data["meta"], schedulers=["fifo", "fq"])
    cache = {}
    modes = [p for p in m["pool_modes"].split() if any(c.get("pool_mode") == p for c in data["cells"])]
    out = {}
    for mode in modes:
        cells = [c for c in data["cells"] if c.get("pool_mode") == mode]
        r = {"pools": cells[0]["pools"]}
        for c in cells:
            if c["kind"] == "cost":
                continue
            loads, gap = window_rates(data, c, cache)
            k = c.get("per_client", 1)   # each client as k loads, one pinned to each CPU
            rates = [sum(loads[i:i + k]) for i in range(0, len(loads), k)]
            ns = s8_thread_shares(data, c["classes"])
            used = sum(ns.values())
            shares = {n: v / used for n, v in ns.items()} if used else {}
            # the service's thread time in the window: what a percent of the threads is of
            capacity = c["threads"] * (c["wall_end"] - c["wall_start"]) * 1e9
            total = sum(rates)
            row = {"ops_per_s": total, "client_rates": rates, "class_thread_shares": shares,
                   "threads_busy": used / capacity, "starved_s": gap}
            if c["kind"] == "rate":
                row.update(s8_spacing(os.path.join(data["dir"], "rate-%s.dispatches" % mode), c["limit_per_s"]))
                row["burst"] = c["burst"]
                row["error"] = total / c["limit_per_s"] - 1
            elif c["kind"] == "pct":
                row["share"] = ns.get("quarter", 0) / capacity
                row["client_share"] = rates[0] / total if total else None
            elif c["kind"] == "reserve":
                row["share"] = shares.get("floor", 0.0)
                row["client_share"] = rates[0] / total if total else None
            elif c["kind"] == "weights":
                owed = c["owed"]
                got = [x / total for x in rates]
                norm = [g / o for g, o in zip(got, owed)]
                row.update(owed=owed, client_shares=got, deviation=[x - 1 for x in norm],
                           max_deviation=max(abs(x - 1) for x in norm), jain=jain(norm))
            r[c["kind"]] = row
        cost = rate_cells(dict(data, cells=[c for c in cells if c["kind"] == "cost"]))
        summ = rate_summary(cost, ["fifo", "fq", "classes", "rules"], ("ops_per_s", "ops_vs_fifo", "cpu_us_per_rpc"))
        fq = {c["rep"]: c for c in cost if c["sched"] == "fq"}
        for c in cost:   # the variants of fq against fq without classes, paired by round
            f = fq.get(c["rep"])
            c["ops_vs_fq"] = c["ops_per_s"] / f["ops_per_s"] - 1 if f else None
            c["cpu_vs_fq"] = c["cpu_us_per_rpc"] / f["cpu_us_per_rpc"] - 1 if f else None
        for v in ("classes", "rules"):
            if v in summ:
                summ[v]["ops_vs_fq"] = agg([c["ops_vs_fq"] for c in cost if c["sched"] == v])
                summ[v]["cpu_vs_fq"] = agg([c["cpu_vs_fq"] for c in cost if c["sched"] == v])
        r["cost"] = {"cells": cost, "summary": summ}
        out[mode] = r
    res["8"] = {"meta": m, "host": data["host"], "modes": out}

    header(md, "Scenario 8: QoS classes", data)
    md.append("fq's classes against the targets of docs/fq.md's QoS chapter, with one pool (pool mode "
              "global) and with a pool per CPU (percpu). Each window lasts %s s after 2 s of warm-up; each "
              "client is a load generator of NFSv3 GETATTRs from its own address (one key each), pinned "
              "to one CPU per load, one load per CPU (a connection's work is queued in the pool of the CPU "
              "that takes its data in, so every client reaches every pool). Thread time is fairq's class "
              "counters over the window (a limit in percent is of the threads' whole time: threads × "
              "window); client rates are the clients' own replies. T=%d nfsd threads; D is the service time the fixed-service-time helper adds "
              "to every request.\n" % (m["secs"], m["threads"]))
    ok = lambda c: "yes" if c else "**no**"
    rows = []
    for mode, r in out.items():
        p = "%d (%s)" % (r["pools"], mode)
        if "rate" in r:
            x = r["rate"]
            rows.append([p, "limit %d/s alone (D=0), client on every CPU" % m["rate_limit"], "%d/s ±2%%" % m["rate_limit"],
                         "%.1f/s (%+.1f%%)" % (x["ops_per_s"], 100 * x["error"]), ok(abs(x["error"]) <= 0.02)])
            rows.append([p, "largest burst of that class (requests in any interval beyond the rate)",
                         "≤ burst %d" % x["burst"], "%.2f (%d dispatches; per pool %s)" % (
                             x["largest_burst"], x["dispatches"], " ".join(map(str, x["per_pool"]))),
                         ok(x["largest_burst"] <= x["burst"] + 0.05)])
        if "pct" in r:
            x = r["pct"]
            rows.append([p, "limit %d%% against a greedy client (D=10 ms)" % m["pct_limit"], "%d ±1%%" % m["pct_limit"],
                         "%.2f%% of the threads' time (threads %.1f%% busy; its replies %.2f%%)" % (
                             100 * x["share"], 100 * x["threads_busy"], 100 * x["client_share"]),
                         ok(abs(100 * x["share"] - m["pct_limit"]) <= 1)])
        if "reserve" in r:
            x = r["reserve"]
            rows.append([p, "reserve %d%% at weight 1 vs nine classes of weight 10" % m["reserve_pct"], "≥ 29.5%",
                         "%.2f%% of the thread time used (threads %.1f%% busy; its replies %.2f%%)" % (
                             100 * x["share"], 100 * x["threads_busy"], 100 * x["client_share"]),
                         ok(100 * x["share"] >= 29.5)])
        if "weights" in r:
            x = r["weights"]
            rows.append([p, "weights 1 (two keys) : 2 (one key)", "each within 2%, Jain ≥ 0.98",
                         "%s of owed %s; worst %+.1f%%, Jain %.4f" % (
                             " ".join("%.1f%%" % (100 * g) for g in x["client_shares"]),
                             " ".join("%.1f%%" % (100 * o) for o in x["owed"]),
                             100 * max(x["deviation"], key=abs), x["jain"]),
                         ok(x["max_deviation"] <= 0.02 and x["jain"] >= 0.98)])
        cs = r["cost"]["summary"]
        for v, what in (("classes", "three weighted classes, none limited"), ("rules", "100 match rules")):
            if v in cs and cs[v].get("ops_vs_fq"):
                rows.append([p, "%s: RPC/s and CPU per RPC vs fq without classes (D=0)" % what, "within 1%",
                             "%s, %s" % (pct(cs[v]["ops_vs_fq"]), pct(cs[v]["cpu_vs_fq"])),
                             ok(abs(cs[v]["ops_vs_fq"]["mean"]) <= 0.01 and abs(cs[v]["cpu_vs_fq"]["mean"]) <= 0.01)])
    table(md, ["pools", "measure", "target", "measured", "met"], rows)
    for mode, r in out.items():
        cs = r["cost"]["summary"]
        md.append("**Cost, %d pool%s (%s)**: the same load of 3 clients × 4 connections (not pinned) × window 4 at D=0 "
                  "under each variant, %s rounds (\"vs fifo\" paired by round).\n" % (
                      r["pools"], "s" if r["pools"] > 1 else "", mode, m["reps"]))
        table(md, ["variant", "RPC/s", "vs fifo", "guest CPU µs per RPC"],
              [[v, fmt(cs[v]["ops_per_s"], 0), pct(cs[v]["ops_vs_fifo"]) if v != "fifo" else "–",
                fmt(cs[v]["cpu_us_per_rpc"], 1)] for v in ("fifo", "fq", "classes", "rules") if v in cs])
    md.append("![qos](s8-qos.png)\n")


def plot_s8(r):
    m = r["meta"]
    modes = list(r["modes"])
    fig, axes = plt.subplots(1, 4, figsize=(14, 3.6))
    labels = ["%d pool%s" % (r["modes"][p]["pools"], "s" if r["modes"][p]["pools"] > 1 else "") for p in modes]
    panels = ((axes[0], "rate", lambda x: x["ops_per_s"], m["rate_limit"], "requests/s (limit %d/s)" % m["rate_limit"]),
              (axes[1], "pct", lambda x: 100 * x["share"], m["pct_limit"], "thread time %% (limit %d%%)" % m["pct_limit"]),
              (axes[2], "reserve", lambda x: 100 * x["share"], m["reserve_pct"], "thread time %% (reserve %d%%)" % m["reserve_pct"]))
    for ax, kind, val, target, yl in panels:
        vals = [val(r["modes"][p][kind]) if kind in r["modes"][p] else 0 for p in modes]
        ax.bar(labels, vals, color="tab:blue", edgecolor="k")
        ax.axhline(target, color="k", ls="--", lw=1)
        ax.set_ylabel(yl)
        ax.grid(alpha=0.3, axis="y")
    ax = axes[3]
    width = 0.8 / max(1, len(modes))
    for i, p in enumerate(modes):
        w = r["modes"][p].get("weights")
        if not w:
            continue
        xs = [j + (i - (len(modes) - 1) / 2) * width for j in range(len(w["owed"]))]
        ax.bar(xs, [100 * g for g in w["client_shares"]], width=width, edgecolor="k", label=labels[i])
        ax.plot(range(len(w["owed"])), [100 * o for o in w["owed"]], "k_", ms=20, mew=2)
    ax.set_xticks(range(3))
    ax.set_xticklabels(["client 1\n(w 1)", "client 2\n(w 1)", "client 3\n(w 2)"])
    ax.set_ylabel("thread time % (owed: black)")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3, axis="y")
    fig.suptitle("Scenario 8: QoS classes (%s, %s)" % (m["kernel"], clock(m, True)))
    savefig(fig, "s8-qos.png")


# ---- plots: drawn from results.json alone, so that a published results.json redraws them ----

def savefig(fig, name):
    fig.tight_layout()
    fig.savefig(os.path.join(OUT, name), dpi=100)
    plt.close(fig)


def log2_k_axis(ax, ks, label="greedy connections K"):
    ax.set_xscale("log", base=2)
    ax.set_xticks(ks)
    ax.set_xticklabels([str(k) for k in ks])
    ax.set_xlabel(label)


def s1_panel(ax, ks, w, ylabel, legend_loc, ylim=None):
    """one window's panel of a scenario 1 figure: K on a log2 axis, titled by the window"""
    log2_k_axis(ax, ks)
    if ylim:
        ax.set_ylim(*ylim)
    ax.set_ylabel(ylabel)
    ax.set_title("interactive window %d" % w)
    ax.legend(fontsize=8, loc=legend_loc)


def log_ms_axis(ax):
    """a log scale labelled in plain milliseconds (1, 2, 5, 10, 20, ...): 10^1 and 10^2 alone do
    not read at a glance"""
    ax.set_yscale("log")
    lo, hi = ax.get_ylim()
    ticks = [m * 10 ** e for e in range(-1, 6) for m in (1, 2, 5) if lo <= m * 10 ** e <= hi]
    ax.set_yticks(ticks)
    ax.set_yticklabels(["%g" % t for t in ticks])
    ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())


def s1_index(r):
    """scenario 1's summary by (K, W, scheduler), and the interactive client's rate alone by
    (W, scheduler)"""
    summ = {(v["K"], v["W"], v["sched"]): v for v in r["summary"]}
    alone = {(a["W"], a["sched"]): a for a in r["alone"]}
    return summ, alone


def s1_maxmin(r):
    """The max-min fair split of each (K, W): the interactive client gets what it asks for, its
    rate alone, up to half of what the pool completed (the mean total of the schedulers in that
    cell); the greedy client gets the rest.  What a client asks for is its own: it is taken from
    fifo, the kernel's own path, where no scheduler of fairq's has a say."""
    summ, alone = s1_index(r)
    out = {}
    for (k, w) in {(k, w) for k, w, _ in summ}:
        totals = [v["total_ops_per_s"]["mean"] for (k2, w2, _), v in summ.items() if (k2, w2) == (k, w)]
        asks = [a["ops_per_s"] for (w2, s), a in alone.items() if w2 == w and s == "fifo"] or \
               [a["ops_per_s"] for (w2, s), a in alone.items() if w2 == w]
        if not asks:
            continue
        total, ask = statistics.mean(totals), statistics.mean(asks)
        out[(k, w)] = {"total": total, "asks": ask, "interactive": min(ask, total / 2)}
    return out


def variant_label(s):
    base, _, tune = s.partition(":")
    return "%s, %s" % (base, tune.replace(",", ", ")) if tune else s


def s1_anticipation(r):
    """the scheduler variants of scenario 1 that set anticipate_us (fq:anticipate_us=N)"""
    return [s for s in r["meta"]["schedulers"] if "anticipate_us=" in s]


def s1_tradeoff_points(r):
    """per K, for the smallest interactive window: its rate as a % of its rate alone under the
    same scheduler, and the pool's total against fifo's total in the same cell"""
    summ, alone = s1_index(r)
    w = min(w for _, w, _ in summ)
    points = []
    for (k, w2, s), v in sorted(summ.items()):
        f = summ.get((k, w, "fifo"))
        if w2 != w or (w, s) not in alone or not f:
            continue
        points.append({"K": k, "sched": s,
                       "pct_of_alone": 100 * v["interactive_ops_per_s"]["mean"] / alone[(w, s)]["ops_per_s"],
                       "total_vs_fifo_pct": 100 * (v["total_ops_per_s"]["mean"] / f["total_ops_per_s"]["mean"] - 1)})
    return w, points


def draw_tradeoff(gain, cost, points, title):
    """anticipation's gain (the light client's rate, % of its rate alone: up is better) over its
    cost (the pool's total against fifo's in the same cell: below zero is throughput lost), per K"""
    scheds = []
    for p in points:
        if p["sched"] not in scheds:
            scheds.append(p["sched"])
    ks = sorted({p["K"] for p in points})
    markers = {"fifo": "s", "fq": "o"}
    for s in scheds:
        pts = sorted((p for p in points if p["sched"] == s), key=lambda p: p["K"])
        gain.plot([p["K"] for p in pts], [p["pct_of_alone"] for p in pts], marker=markers.get(s, "D"),
                  color=color(s), label=variant_label(s))
    gain.axhline(100, color="k", lw=1, ls="--", label="its rate alone")
    log2_k_axis(gain, ks, "")
    gain.set_ylim(0, 110)
    gain.set_ylabel("light client's rate,\n% of its rate alone")
    gain.set_title(title, fontsize=10)
    gain.grid(alpha=0.3)
    gain.legend(fontsize=8, loc="lower left")
    others = [s for s in scheds if s != "fifo"]
    for j, s in enumerate(others):
        pts = sorted((p for p in points if p["sched"] == s), key=lambda p: p["K"])
        cost.bar([p["K"] * 2 ** ((j - (len(others) - 1) / 2) * 0.3) for p in pts],
                 [p["total_vs_fifo_pct"] for p in pts], width=[p["K"] * 0.18 for p in pts],
                 color=color(s), label=variant_label(s))
    cost.axhline(0, color="k", lw=1)
    log2_k_axis(cost, ks)
    lim = max([3.0] + [abs(p["total_vs_fifo_pct"]) + 0.5 for p in points])
    cost.set_ylim(-lim, lim)
    cost.set_ylabel("pool's total\nvs fifo (%)")
    cost.grid(alpha=0.3, axis="y")


def tradeoff_figure(panels, suptitle, name):
    """panels: (title, points) side by side, gain above cost"""
    fig, axes = plt.subplots(2, len(panels), figsize=(5.8 * len(panels), 5.6), squeeze=False,
                             gridspec_kw={"height_ratios": [2.2, 1]}, sharex="col")
    for j, (title, points) in enumerate(panels):
        draw_tradeoff(axes[0][j], axes[1][j], points, title)
    fig.suptitle(suptitle, fontsize=10)
    savefig(fig, name)


def plot_s1(r):
    m = r["meta"]
    scheds = m["schedulers"]
    summ, alone = s1_index(r)
    mm = s1_maxmin(r)
    ks = sorted({k for k, _, _ in summ})
    ws = sorted({w for _, w, _ in summ})
    where = "T=%d, D=%g ms, %s, %s" % (m["threads"], m["delay_us"] / 1000, m["kernel"], clock(m, True))

    # (1) the greedy share against the max-min fair split
    fig, axes = plt.subplots(1, len(ws), figsize=(max(7, 5.5 * len(ws)), 4.6), squeeze=False)
    for ax, w in zip(axes[0], ws):
        fair = [(k, mm[(k, w)]) for k in ks if (k, w) in mm]
        ax.plot([k for k, _ in fair], [100 * (1 - f["interactive"] / f["total"]) for k, f in fair], "k-",
                lw=2.5, alpha=0.8, label="max-min fair", zorder=1)
        # per-connection turns are what fifo gives when both clients are backlogged; a client
        # that asks for less than half is not, and the line would only mislead there
        if fair and all(f["asks"] >= f["total"] / 2 for _, f in fair):
            ax.plot(ks, [100 * k / (k + 1) for k in ks], color="0.3", ls=":", lw=1.5, zorder=4,
                    label="one turn per connection, K/(K+1)")
        for s in scheds:
            pts = [(k, summ[(k, w, s)]["greedy_share"]) for k in ks if (k, w, s) in summ]
            if pts:
                ax.errorbar([p[0] for p in pts], [100 * p[1]["mean"] for p in pts],
                            yerr=[50 * p[1]["spread"] for p in pts], marker="o", capsize=3,
                            color=color(s), label=variant_label(s), zorder=2)
        if fair and all(f["asks"] < f["total"] / 2 for _, f in fair):
            ask = statistics.mean(f["asks"] for _, f in fair)
            ax.text(0.03, 0.04, "the interactive client asks for only %.0f ops/s\n(its rate alone), "
                    "so the greedy client's fair share\nstays near %.0f%%" %
                    (ask, 100 * (1 - statistics.mean(f["interactive"] / f["total"] for _, f in fair))),
                    transform=ax.transAxes, fontsize=8, va="bottom",
                    bbox={"facecolor": "white", "edgecolor": "0.8"})
        ax.grid(alpha=0.3)
        s1_panel(ax, ks, w, "greedy client's share of completed RPCs (%)", "lower right", (0, 100))
    fig.suptitle("Scenario 1: the greedy client's share against the fair split\n(%s)" % where, fontsize=11)
    savefig(fig, "s1-share.png")

    # (2) the interactive client's rate as a % of its rate alone
    fig, axes = plt.subplots(1, len(ws), figsize=(max(7, 5.5 * len(ws)), 4.6), squeeze=False)
    for ax, w in zip(axes[0], ws):
        fair = [(k, mm[(k, w)]) for k in ks if (k, w) in mm]
        ax.plot([k for k, _ in fair], [100 * f["interactive"] / f["asks"] for _, f in fair], "k-", lw=2.5,
                alpha=0.8, label="max-min fair", zorder=1)
        for s in scheds:
            if (w, s) not in alone:
                continue
            a = alone[(w, s)]["ops_per_s"]
            pts = [(k, summ[(k, w, s)]["interactive_ops_per_s"]) for k in ks if (k, w, s) in summ]
            if pts:
                ax.errorbar([p[0] for p in pts], [100 * p[1]["mean"] / a for p in pts],
                            yerr=[50 * p[1]["spread"] / a for p in pts], marker="o", capsize=3,
                            color=color(s), label="%s (alone: %.0f ops/s)" % (variant_label(s), a), zorder=2)
        ax.grid(alpha=0.3)
        s1_panel(ax, ks, w, "interactive client's rate, % of its rate alone", "lower left", (0, 110))
    fig.suptitle("Scenario 1: what the interactive client keeps of its rate alone\n(%s)" % where, fontsize=11)
    savefig(fig, "s1-interactive.png")

    # (3) the interactive client's latency: p50 (dot) to p99 (top of the bar) per scheduler;
    # p90 and the maximum where the run recorded them
    fig, axes = plt.subplots(1, len(ws), figsize=(max(7, 5.5 * len(ws)), 4.6), squeeze=False)
    for ax, w in zip(axes[0], ws):
        for j, s in enumerate(scheds):
            pts = [(k, summ[(k, w, s)]) for k in ks if (k, w, s) in summ]
            if not pts:
                continue
            xs = [k * 2 ** ((j - (len(scheds) - 1) / 2) * 0.15) for k, _ in pts]
            p50 = [v["interactive_p50_ms"]["mean"] for _, v in pts]
            p99 = [v["interactive_p99_ms"]["mean"] for _, v in pts]
            p90 = all(v.get("interactive_p90_ms") for _, v in pts)
            top = all(v.get("interactive_max_ms") for _, v in pts)
            ax.vlines(xs, p50, p99, color=color(s), lw=5, alpha=0.45)
            ax.plot(xs, p50, "o-", color=color(s), ms=5, lw=1, label="%s: p50 (dot)%s to p99 (bar top)%s" %
                    (variant_label(s), ", p90 (tick)" if p90 else "", ", max (x)" if top else ""))
            if p90:
                ax.plot(xs, [v["interactive_p90_ms"]["mean"] for _, v in pts], "_", color=color(s), ms=10, mew=2)
            if top:
                ax.plot(xs, [v["interactive_max_ms"]["mean"] for _, v in pts], "x", color=color(s), ms=5)
        ax.axhline(m["delay_us"] / 1000, color="k", ls="--", lw=1, label="one request's service time D")
        if alone.get((w, "fifo"), {}).get("p50_ms"):
            ax.axhline(alone[(w, "fifo")]["p50_ms"], color="0.4", ls=":", lw=1.2, label="p50 alone (fifo)")
        log_ms_axis(ax)
        ax.grid(alpha=0.3, which="both")
        s1_panel(ax, ks, w, "one call's round trip (ms, log scale)", "upper left")
    fig.suptitle("Scenario 1: the interactive client's latency, per scheduler\n(%s)" % where, fontsize=11)
    savefig(fig, "s1-latency.png")

    # (4) anticipation, when the run compared fq with anticipate_us variants
    if s1_anticipation(r):
        w, points = s1_tradeoff_points(r)
        tradeoff_figure([("interactive window %d" % w, points)],
                        "Scenario 1: anticipation's gain (top) and cost (bottom)\n(%s)" % where,
                        "s1-anticipation.png")


def plot_anticipation_runs(path):
    """Published runs of scenario 1 with and without anticipation whose raw results are not kept:
    their figures, as the tables of docs/benchmarks.md give them (docs/bench/anticipation.json)."""
    runs = json.load(open(path))["runs"]
    r0 = runs[0]
    tradeoff_figure([("D=%g ms: the threads' ceiling T/D is %d ops/s" %
                      (run["delay_us"] / 1000, run["threads"] * 1e6 / run["delay_us"]), run["points"])
                     for run in runs],
                    "fq's anticipation: the window-%d client's gain (top) and the pool's cost (bottom)\n"
                    "(T=%d, %s, %s, commit %s, %d repetitions)" %
                    (r0["window"], r0["threads"], clock(r0, True), r0["date"], r0["commit"], r0["reps"]),
                    "anticipation.png")


def plot_s2(r):
    m = r["meta"]
    scheds = m["schedulers"]
    cells = r["cells"]
    floor = {(f["N"], f["sched"]): f for f in r["floor"]}
    ks = sorted({c["K"] for c in cells})
    ns = sorted({c["N"] for c in cells} | {n for n, _ in floor})
    byk = {(c["K"], c["N"], c["sched"]): c for c in cells}
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    n0 = 32 if 32 in ns else ns[len(ns) // 2]
    ax = axes[0]
    for s in scheds:
        pts = [(k, byk[(k, n0, s)]) for k in ks if (k, n0, s) in byk]
        if pts:
            ax.plot([p[0] for p in pts], [p[1]["p50_ms"] for p in pts], "o-", color=color(s), label="%s p50" % s)
            ax.plot([p[0] for p in pts], [p[1]["p99_ms"] for p in pts], "x:", color=color(s), label="%s p99" % s)
    if (n0, "fifo") in floor:
        ax.axhline(floor[(n0, "fifo")]["p50_ms"], color="k", ls="--", lw=1, label="floor p50")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(ks)
    ax.set_xticklabels([str(k) for k in ks])
    ax.set_xlabel("greedy connections K")
    ax.set_ylabel("burst completion (ms)")
    ax.set_title("bursts of N=%d" % n0)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7)
    ax = axes[1]
    k0 = 16 if 16 in ks else ks[len(ks) // 2]
    for s in scheds:
        pts = [(n, byk[(k0, n, s)]) for n in ns if (k0, n, s) in byk]
        if pts:
            ax.plot([p[0] for p in pts], [p[1]["p50_ms"] for p in pts], "o-", color=color(s), label="%s p50" % s)
    fl = [(n, floor[(n, "fifo")]["p50_ms"]) for n in ns if (n, "fifo") in floor]
    if fl:
        ax.plot([p[0] for p in fl], [p[1] for p in fl], "k--", lw=1, label="floor p50")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(ns)
    ax.set_xticklabels([str(n) for n in ns])
    ax.set_xlabel("burst size N")
    ax.set_ylabel("burst completion p50 (ms)")
    ax.set_title("against K=%d greedy connections" % k0)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7)
    fig.suptitle("Scenario 2: burst completion (T=%d, D=%g ms, %s, %s)" % (m["threads"], m["delay_us"] / 1000, m["kernel"], clock(m, True)))
    savefig(fig, "s2-bursts.png")


def plot_s3(r):
    m = r["meta"]
    scheds = m["schedulers"]
    cells = r["cells"]
    fig, ax = plt.subplots(figsize=(6, 4))
    ss = [s for s in scheds if any(c["sched"] == s for c in cells)]
    for kind, off, hatch in (("alone", -0.2, ""), ("contended", 0.2, "//")):
        vals = [agg([c["walk_s"] for c in cells if c["sched"] == s and c["kind"] == kind]) for s in ss]
        ax.bar([i + off for i in range(len(ss))], [v["mean"] if v else 0 for v in vals], width=0.4,
               color=[color(s) for s in ss], hatch=hatch, edgecolor="k",
               label="walk alone" if kind == "alone" else "walk under fio")
    ax.set_xticks(range(len(ss)))
    ax.set_xticklabels(ss)
    ax.set_ylabel("walk completion (s)")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3, axis="y")
    ax.set_title("Scenario 3: find+stat walk vs nconnect=%d fio\n(%s, %s)" % (m["nconnect"], m["kernel"], clock(m, True)),
                 fontsize=10)
    savefig(fig, "s3-walk.png")


def plot_s4(r):
    m = r["meta"]
    scheds = m["schedulers"]
    summ = r["summary"]
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    bars(axes[0], scheds, summ, "ops_per_s", "RPC/s (all clients)")
    bars(axes[1], scheds, summ, "ops_vs_fifo", "RPC/s vs fifo, same round (%)", 100)
    fig.suptitle("Scenario 4: GETATTR rate at D=0, T=%d (%s, %s)" % (m["threads"], m["kernel"], clock(m, True)))
    savefig(fig, "s4-overhead.png")


def plot_s5(r):
    m = r["meta"]
    scheds = m["schedulers"]
    summ = r["summary"]
    fig, axes = plt.subplots(1, 3, figsize=(14, 4))
    bars(axes[0], scheds, summ, "ops_per_s", "RPC/s")
    bars(axes[1], scheds, summ, "nfsd_wakeups_per_rpc", "nfsd wakeups per RPC")
    bars(axes[2], scheds, summ, "ctxt_per_rpc", "context switches per RPC")
    fig.suptitle("Scenario 5: %d threads, GETATTR at D=0 (%s, %s)" % (m["threads"], m["kernel"], clock(m, True)))
    savefig(fig, "s5-threads.png")


def plot_s6(r):
    m = r["meta"]
    scheds = m["schedulers"]
    fair, subnet = r["fair"], r["subnet"]
    summ, ssum = r.get("fair_summary", {}), r.get("subnet_summary", {})
    if not (summ or ssum):
        return
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.3), gridspec_kw={"width_ratios": [3, 1]})
    ax = axes[0]
    ss = [s for s in scheds if s in summ]
    if ss:
        n = len(fair[0]["conns"])
        width = 0.8 / len(ss)
        for j, s in enumerate(ss):
            ax.bar([i + (j - (len(ss) - 1) / 2) * width for i in range(n)],
                   [100 * a["mean"] for a in summ[s]["share"]], width,
                   yerr=[50 * a["spread"] for a in summ[s]["share"]], color=color(s), label=s, capsize=2)
        ax.axhline(100 / n, color="k", ls="--", lw=1, label="fair share")
        ax.axhspan(90 / n, 110 / n, color="k", alpha=0.08)
        ax.set_xticks(range(n))
        ax.set_xticklabels(["%s\n%d conn." % (a.rsplit(".", 1)[-1], k)
                            for a, k in zip(fair[0]["addrs"], fair[0]["conns"])], fontsize=8)
        ax.set_ylabel("share of completed RPCs (%)")
        ax.set_title("(a) ten backlogged clients (client address, connections)")
        ax.grid(alpha=0.3, axis="y")
        ax.legend(fontsize=8)
    ax = axes[1]
    ss = [s for s in scheds if s in ssum]
    if ss:
        bars(ax, ss, ssum, "weighted_share", "weighted subnet's share (%)", 100)
        ax.axhline(100 * subnet[0]["weight_share"], color="k", ls="--", lw=1)
        ax.axhspan(100 * subnet[0]["weight_share"] - 3, 100 * subnet[0]["weight_share"] + 3, color="k", alpha=0.08)
        ax.axhline(100 * subnet[0]["conn_share"], color="tab:red", ls=":", lw=1)
        ax.set_ylim(0, 100)
        ax.set_title("(b) weight %d:1 (dashed), connections (dotted)" % subnet[0]["weight"], fontsize=9)
    fig.suptitle("Scenario 6: shares (T=%d, D=%g ms, %s, %s)" % (m["threads"], m["delay_us"] / 1000, m["kernel"], clock(m, True)))
    savefig(fig, "s6-keys.png")


def unload_note(tl):
    """What the clients saw of the rmmod and modprobe after the windows, for the text"""
    ev = {e["what"]: e for e in tl.get("events", [])}
    if "rmmod" not in ev or "modprobe" not in ev:
        return ""
    totals = [sum(x) for x in zip(*tl["rates"])]

    def mean(a, b):
        v = [x for t, x in zip(tl["t"], totals) if a <= t < b]
        return sum(v) / len(v) if v else float("nan")
    def lowest(e, after):
        # the lowest step from one step before the event to one after its end (or @after s)
        end = e.get("wall_end", e["wall"] + after)
        return min((x for t, x in zip(tl["t"], totals) if e["wall"] - tl["step_s"] <= t <= end + tl["step_s"]),
                   default=float("nan"))
    fq, rm, mp = ev.get("fq", ev["rmmod"])["wall"], ev["rmmod"], ev["modprobe"]
    took = " (it took %.2f s)" % (mp["wall_end"] - mp["wall"]) if "wall_end" in mp else ""
    return (" Last, under the same load: fq, then `rmmod fairq` (it took %.2f s) and `modprobe "
            "fairq`%s (dotted lines; shaded grey, each one's time where longer than a step). The pool's total was %.0f RPC/s under fq before the unload, %.0f RPC/s "
            "at the lowest in the %g s steps around it, %.0f RPC/s between unload and load (the kernel's own "
            "dispatch), %.0f RPC/s at the lowest around the load, and %.0f RPC/s after it (fifo)." %
            (rm["wall_end"] - rm["wall"], took, mean(fq + 1, rm["wall"]), lowest(rm, 0), tl["step_s"],
             mean(rm["wall_end"] + 1, mp["wall"]), lowest(mp, 1), mean(mp.get("wall_end", mp["wall"]) + 1,
                                                                        tl["t"][-1] + 1)))


def plot_s6_timeline(r):
    """(a)'s clients through the live switches: each one's share (top) and the pool's total
    (bottom) over time, the measured windows shaded by scheduler"""
    tl = r.get("fair_timeline")
    if not tl:
        return
    m = r["meta"]
    t = tl["t"]
    totals = [sum(x) for x in zip(*tl["rates"])]
    fig, axes = plt.subplots(2, 1, figsize=(13, 6.2), sharex=True, gridspec_kw={"height_ratios": [2.2, 1]})
    for ax in axes:
        for w in tl["windows"]:
            ax.axvspan(w["start"], w["end"], color=color(w["sched"]), alpha=0.12, lw=0)
    for w in tl["windows"]:
        axes[0].text((w["start"] + w["end"]) / 2, 1.01, variant_label(w["sched"]), ha="center", va="bottom",
                     fontsize=9, color=color(w["sched"]), transform=axes[0].get_xaxis_transform())
    # one colour per connection count, from light (1) to dark (the most): the story is that
    # the count stops mattering under fair queueing
    ks = sorted(set(tl["conns"]))
    cmap = matplotlib.colormaps["viridis_r"]
    seen = set()
    for k, rates in zip(tl["conns"], tl["rates"]):
        share = [100 * x / tot if tot else float("nan") for x, tot in zip(rates, totals)]
        axes[0].plot(t, share, color=cmap(0.15 + 0.85 * ks.index(k) / max(1, len(ks) - 1)), lw=1.3,
                     label=None if k in seen else "%d connection%s" % (k, "" if k == 1 else "s"))
        seen.add(k)
    axes[0].axhline(100 / len(tl["conns"]), color="k", ls="--", lw=1.2, label="fair share (1/%d)" % len(tl["conns"]))
    axes[0].set_ylabel("client's share of completed RPCs (%)")
    axes[0].set_ylim(bottom=0)
    axes[0].grid(alpha=0.3)
    axes[0].legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))
    axes[1].plot(t, totals, color="k", lw=1.3)
    # the switch to fq, rmmod and modprobe that end the load, where the run made them
    labels = {"fq": "switch to fq", "rmmod": "rmmod fairq", "modprobe": "modprobe fairq"}
    for e in [e for e in tl.get("events", []) if e["what"] != "fq"]:
        for ax in axes:
            if "wall_end" in e and e["wall_end"] - e["wall"] > tl["step_s"]:
                ax.axvspan(e["wall"], e["wall_end"], color="0.6", alpha=0.3, lw=0)
            ax.axvline(e["wall"], color="0.3", ls=":", lw=1.2)
        axes[0].text(e["wall"], 1.01, labels.get(e["what"], e["what"]), ha="center", va="bottom", fontsize=9,
                     color="0.2", transform=axes[0].get_xaxis_transform())
    axes[1].set_ylim(bottom=0)
    axes[1].set_ylabel("pool's total (RPC/s)")
    axes[1].set_xlabel("time since every client was running (s); shaded: measured windows, by scheduler")
    axes[1].grid(alpha=0.3)
    fig.suptitle("Scenario 6 (a): %d backlogged clients while the scheduler is switched live\n(T=%d, D=%g ms, "
                 "%s, %s; steps of %g s)" % (len(tl["conns"]), m["threads"], m["delay_us"] / 1000, m["kernel"],
                                             clock(m, True), tl["step_s"]), fontsize=10)
    savefig(fig, "s6-timeline.png")


def plot_s7(r):
    m = r["meta"]
    if m.get("skipped"):
        return
    scheds = m["schedulers"]
    summ = r["summary"]
    parts = [p for p in m["parts"].split() if p in summ]
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    width = 0.8 / max(1, len(scheds))
    for i, s in enumerate(scheds):
        xs = [j + (i - (len(scheds) - 1) / 2) * width for j in range(len(parts))]
        for ax, f, scale in ((axes[0], "iops", 1), (axes[1], "read_p99_ms", 1)):
            vals = [summ[p][s][f]["mean"] * scale if summ[p][s][f] else 0 for p in parts]
            ax.bar(xs, vals, width=width, color=color(s), edgecolor="k", label=s)
    for ax, yl in ((axes[0], "IOPS (all clients)"), (axes[1], "read completion p99 (ms)")):
        ax.set_xticks(range(len(parts)))
        ax.set_xticklabels(["(%s)" % p for p in parts])
        ax.set_ylabel(yl)
        ax.grid(alpha=0.3, axis="y")
    axes[0].legend(fontsize=8)
    fig.suptitle("Scenario 7: fio over NFS, nfsd threads vs wq workers (%s, %s)" % (m["kernel"], clock(m, True)))
    savefig(fig, "s7-wq.png")


PLOTS = (("1", plot_s1), ("2", plot_s2), ("3", plot_s3), ("4", plot_s4), ("5", plot_s5), ("6", plot_s6),
         ("6", plot_s6_timeline), ("7", plot_s7), ("8", plot_s8))


def plot_all(res):
    for sc, fn in PLOTS:
        if sc in res:
            fn(res[sc])
    runs = os.path.join(OUT, "anticipation.json")
    if os.path.exists(runs):
        plot_anticipation_runs(runs)


def main():
    md = ["# fairq benchmarks\n",
          "Generated by `make bench` (tests/bench/report.py). Under TCG emulation absolute rates mean "
          "little; compare the schedulers side by side within one table. Each scenario says which "
          "clock its numbers came from. See docs/benchmarks.md.\n"]
    res = {}
    done = []
    for sc, fn in ((1, scenario1), (2, scenario2), (3, scenario3), (4, scenario4), (5, scenario5),
                    (6, scenario6), (7, scenario7), (8, scenario8)):
        data = load(sc)
        if data is None:
            continue
        fn(data, md, res)
        done.append(sc)
    path = os.path.join(OUT, "results.json")
    if not done:
        if not os.path.exists(path):
            sys.exit("report.py: no scenario results under %s/raw, and no %s" % (OUT, path))
        res = json.load(open(path))
        plot_all(res)
        print("report: plots of scenarios %s redrawn from %s" % (" ".join(sorted(res)), path))
        return

    def clean(o):
        if isinstance(o, float) and (math.isnan(o) or math.isinf(o)):
            return None
        if isinstance(o, dict):
            return {k: clean(v) for k, v in o.items()}
        if isinstance(o, list):
            return [clean(v) for v in o]
        return o
    json.dump(clean(res), open(path, "w"), indent=1)
    open(os.path.join(OUT, "bench.md"), "w").write("\n".join(md) + "\n")
    # drawn from results.json as written, not from the objects in memory: a published copy of it
    # (docs/bench/results.json) then redraws exactly the published plots
    plot_all(json.load(open(path)))
    print("report: scenarios %s -> %s" % (" ".join(map(str, done)), OUT))


main()
