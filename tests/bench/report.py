#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""make bench's report: reads OUT/raw/sN/ (what the guest scenarios wrote) and writes
OUT/results.json (every number, per cell and aggregated over repetitions), OUT/bench.md (the
tables) and OUT/sN-*.png (the plots).  Usage: report.py OUT"""
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

OUT = sys.argv[1]
COLORS = {"fifo": "tab:red", "qfifo": "tab:orange", "fairq": "tab:blue", "capped": "tab:green",
          "wq": "tab:purple"}
USER_HZ = 100   # /proc/stat counts in USER_HZ ticks
STALL_S = 1.0   # a gap this long between a load generator's 0.2 s ticks: the guest stood still


def max_gap(series, t0, t1):
    """the longest gap between consecutive ticks of a series around [t0, t1]"""
    ts = [t for t in series[0] if t0 - 0.3 <= t <= t1 + 0.3]
    return max((b - a for a, b in zip(ts, ts[1:])), default=0.0)


def color(s):
    return COLORS.get(s, "tab:gray")


def load(sc):
    d = os.path.join(OUT, "raw", "s%d" % sc)
    if not os.path.exists(os.path.join(d, "cells.jsonl")):
        return None
    meta = json.load(open(os.path.join(d, "meta.json")))
    host = json.load(open(os.path.join(d, "host.json"))) if os.path.exists(os.path.join(d, "host.json")) else {}
    end = json.load(open(os.path.join(d, "end.json"))) if os.path.exists(os.path.join(d, "end.json")) else {}
    cells = [json.loads(line) for line in open(os.path.join(d, "cells.jsonl")) if line.strip()]
    return {"dir": d, "meta": meta, "host": host, "end": end, "cells": cells}


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


def header(md, title, data):
    m, h = data["meta"], data["host"]
    md.append("## %s\n" % title)
    md.append("Kernel %s (%s), %d guest CPUs under TCG, schedulers %s; scale %s, %s repetitions; "
              "commit %s, %s. Watchdog rescues during the run: %s.\n" %
              (m["kernel"], m["abi"], m["cpus"], ", ".join(m["schedulers"]), m["scale"], m["reps"],
               h.get("commit", "?"), h.get("date", "?"), data["end"].get("rescues", "?")))
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
            alone[(c["W"], c["sched"])] = run["client"]["ops_per_s"]
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
                      "interactive_p99_ms": lat(run)["p99"] / 1e3})
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
                                       "total_ops_per_s", "interactive_p50_ms", "interactive_p99_ms")}
    res["1"] = {"meta": m, "host": data["host"], "alone": [{"W": w, "sched": s, "ops_per_s": v}
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
            "%s %.0f ops/s" % (s, alone[(w, s)]) for s in scheds if (w, s) in alone) + ".\n")
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

    fig, axes = plt.subplots(1, len(ws), figsize=(5.5 * len(ws), 4.2), squeeze=False)
    for ax, w in zip(axes[0], ws):
        kk = [k for k in ks]
        ax.plot(kk, [100 * k / (k + 1) for k in kk], "k--", lw=1, label="K/(K+1)")
        for s in scheds:
            pts = [(k, summary[(k, w, s)]["greedy_share"]) for k in ks if (k, w, s) in summary]
            if not pts:
                continue
            ax.errorbar([p[0] for p in pts], [100 * p[1]["mean"] for p in pts],
                        yerr=[50 * p[1]["spread"] for p in pts], marker="o", capsize=3,
                        color=color(s), label=s)
        ax.set_xscale("log", base=2)
        ax.set_xticks(ks)
        ax.set_xticklabels([str(k) for k in ks])
        ax.set_ylim(0, 100)
        ax.set_xlabel("greedy connections K")
        ax.set_ylabel("greedy share of completed RPCs (%)")
        ax.set_title("interactive window %d" % w)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("Scenario 1: greedy share (T=%d, D=%g ms, %s under TCG)" % (m["threads"], m["delay_us"] / 1000, m["kernel"]))
    fig.tight_layout()
    fig.savefig(os.path.join(OUT, "s1-share.png"), dpi=100)
    plt.close(fig)

    fig, axes = plt.subplots(1, len(ws), figsize=(5.5 * len(ws), 4.2), squeeze=False)
    for ax, w in zip(axes[0], ws):
        for s in scheds:
            pts = [(k, summary[(k, w, s)]["interactive_ops_per_s"]) for k in ks if (k, w, s) in summary]
            if not pts:
                continue
            ax.errorbar([p[0] for p in pts], [p[1]["mean"] for p in pts],
                        yerr=[p[1]["spread"] / 2 for p in pts], marker="o", capsize=3, color=color(s), label=s)
            if (w, s) in alone:
                ax.axhline(alone[(w, s)], color=color(s), ls=":", lw=1)
        ax.set_xscale("log", base=2)
        ax.set_xticks(ks)
        ax.set_xticklabels([str(k) for k in ks])
        ax.set_ylim(bottom=0)
        ax.set_xlabel("greedy connections K")
        ax.set_ylabel("interactive ops/s (dotted: alone)")
        ax.set_title("interactive window %d" % w)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("Scenario 1: the interactive client's throughput")
    fig.tight_layout()
    fig.savefig(os.path.join(OUT, "s1-interactive.png"), dpi=100)
    plt.close(fig)
    md.append("![greedy share](s1-share.png)\n\n![interactive throughput](s1-interactive.png)\n")


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
                r.append("%.0f / %.0f (%.1f×, n=%d)%s" % (c["p50_ms"], c["p99_ms"], c["p50_over_floor"] or 0, c["bursts"],
                                                          "*" if c["stall_s"] >= STALL_S else "")
                         if c else "–")
            rows.append(r)
        table(md, head, rows)

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
    fig.suptitle("Scenario 2: burst completion (T=%d, D=%g ms, %s under TCG)" % (m["threads"], m["delay_us"] / 1000, m["kernel"]))
    fig.tight_layout()
    fig.savefig(os.path.join(OUT, "s2-bursts.png"), dpi=100)
    plt.close(fig)
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
        row["stall_s"] = max(max_gap(cache[name], c["wall_start"], c["wall_end"]) for name in c["series"])
        row.update(ops_per_s=ops, secs=secs, rpcs=rpcs, ctxt_per_rpc=c["ctxt"] / rpcs,
                   cpu_busy=c["busy_jiffies"] / c["total_jiffies"] if c["total_jiffies"] else None,
                   cpu_us_per_rpc=c["busy_jiffies"] * (1e6 / USER_HZ) / rpcs)
        if "nfsd_wakeups" in c:
            row["nfsd_wakeups_per_rpc"] = c["nfsd_wakeups"] / rpcs
            row["nfsd_switches_per_rpc"] = c["nfsd_switches"] / rpcs
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
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    bars(axes[0], scheds, summ, "ops_per_s", "RPC/s (all clients)")
    bars(axes[1], scheds, summ, "ops_vs_fifo", "RPC/s vs fifo, same round (%)", 100)
    fig.suptitle("Scenario 4: GETATTR rate at D=0, T=%d (%s, TCG)" % (m["threads"], m["kernel"]))
    fig.tight_layout()
    fig.savefig(os.path.join(OUT, "s4-overhead.png"), dpi=100)
    plt.close(fig)
    md.append("![overhead](s4-overhead.png)\n")


def scenario5(data, md, res):
    m = data["meta"]
    scheds = m["schedulers"]
    fast = rate_cells(dict(data, cells=[c for c in data["cells"] if c["kind"] == "threads"]))
    slow = rate_cells(dict(data, cells=[c for c in data["cells"] if c["kind"] == "threads_slow"]))
    fields = ("ops_per_s", "ops_vs_fifo", "ctxt_per_rpc", "nfsd_wakeups_per_rpc", "nfsd_switches_per_rpc",
              "runnable_mean", "loadavg1", "cpu_us_per_rpc", "rpcinfo_ms")
    summ = rate_summary(fast, scheds, fields)
    summ_slow = rate_summary(slow, scheds, fields)
    res["5"] = {"meta": m, "host": data["host"], "cells": fast + slow, "summary": summ,
                "summary_slow": summ_slow}
    header(md, "Scenario 5: many threads, tiny requests", data)
    md.append("%d nfsd threads, no injected service time; %d clients × %d connections × window %d of "
              "NFSv3 GETATTR as fast as they can, without pause; schedulers switched live, windows of %s s, "
              "%d rounds. Context switches per RPC from /proc/stat (whole guest); wakeups and switches "
              "of the nfsd threads from schedstats; runnable tasks sampled every 0.2 s in the window; "
              "the 1-minute load average at the end of the window (it lags: it mixes the schedulers); "
              "the wall time of one `rpcinfo -p` from a client namespace in the middle of the window "
              "(SGI's starved portmap).\n" %
              (m["threads"], m["clients"], m["connections"], m["window"], m["secs"], m["rounds"]))

    def rows_of(sm):
        rows = []
        for s in scheds:
            if s not in sm:
                continue
            v = sm[s]
            rows.append([s, fmt(v["ops_per_s"], 0), pct(v["ops_vs_fifo"]) if s != "fifo" else "–",
                         fmt(v["ctxt_per_rpc"], 2), fmt(v["nfsd_wakeups_per_rpc"], 3),
                         fmt(v["nfsd_switches_per_rpc"], 3), fmt(v["runnable_mean"], 1),
                         fmt(v["loadavg1"], 1), fmt(v["cpu_us_per_rpc"], 1), fmt(v["rpcinfo_ms"], 0)])
        return rows
    head = ["scheduler", "RPC/s", "RPC/s vs fifo", "context switches per RPC", "nfsd wakeups per RPC",
            "nfsd switches per RPC", "runnable tasks", "load average", "guest CPU µs per RPC",
            "rpcinfo ms"]
    table(md, head, rows_of(summ))
    stall_note(md, fast)
    if summ_slow:
        md.append("The same load with every request holding its thread for %g ms (threads that block on "
                  "slow storage), %d rounds: a wakeup cap must not leave work queued while woken threads "
                  "are slow to run.\n" % (m.get("slow_us", 0) / 1000.0, m.get("slow_rounds", 0)))
        table(md, head, rows_of(summ_slow))
        stall_note(md, slow)
    md.append("Reconnects by the load clients during the run: %d.\n" % load_reconnects(data))
    fig, axes = plt.subplots(1, 3, figsize=(14, 4))
    bars(axes[0], scheds, summ, "ops_per_s", "RPC/s")
    bars(axes[1], scheds, summ, "nfsd_wakeups_per_rpc", "nfsd wakeups per RPC")
    bars(axes[2], scheds, summ, "ctxt_per_rpc", "context switches per RPC")
    fig.suptitle("Scenario 5: %d threads, GETATTR at D=0 (%s, TCG)" % (m["threads"], m["kernel"]))
    fig.tight_layout()
    fig.savefig(os.path.join(OUT, "s5-threads.png"), dpi=100)
    plt.close(fig)
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
    ax.set_title("Scenario 3: find+stat walk vs nconnect=%d fio (%s, TCG)" % (m["nconnect"], m["kernel"]))
    fig.tight_layout()
    fig.savefig(os.path.join(OUT, "s3-walk.png"), dpi=100)
    plt.close(fig)
    md.append("![walk](s3-walk.png)\n")


def main():
    md = ["# fairq benchmarks\n",
          "Generated by `make bench` (tests/bench/report.py). Under TCG emulation absolute rates mean "
          "little; compare the schedulers side by side within one table. See docs/benchmarks.md.\n"]
    res = {}
    done = []
    for sc, fn in ((1, scenario1), (2, scenario2), (3, scenario3), (4, scenario4), (5, scenario5)):
        data = load(sc)
        if data is None:
            continue
        fn(data, md, res)
        done.append(sc)
    if not done:
        sys.exit("report.py: no scenario results under %s/raw" % OUT)

    def clean(o):
        if isinstance(o, float) and (math.isnan(o) or math.isinf(o)):
            return None
        if isinstance(o, dict):
            return {k: clean(v) for k, v in o.items()}
        if isinstance(o, list):
            return [clean(v) for v in o]
        return o
    json.dump(clean(res), open(os.path.join(OUT, "results.json"), "w"), indent=1)
    open(os.path.join(OUT, "bench.md"), "w").write("\n".join(md) + "\n")
    print("report: scenarios %s -> %s" % (" ".join(map(str, done)), OUT))


main()
