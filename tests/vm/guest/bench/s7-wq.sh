# SPDX-License-Identifier: GPL-2.0-only
# Scenario 7, who runs the requests: fio over NFS from the kernel NFS clients of all client
# namespaces at once (NFSv3, and NFSv4.1 on the last), 4 KiB random 50/50 read/write, direct,
# libaio, B7_JOBS jobs of depth B7_DEPTH each, T=8 nfsd threads.  Per window of B7_SECS one fio
# run per client on a fresh mount: its IOPS and completion latency (p50, p99), and on the
# server the RPCs served, context switches and CPU time spent (all CPUs, /proc/stat), for CPU
# per RPC.  Parts (B7_PARTS):
#  (a) tmpfs: the export as it is;
#  (b) slow: every request holds its context B7_SLOW_US first (fairq_svctime), as a slow disk
#      would: nfsd's 8 threads cap the rate at 8/D, wq's workers grow with the load;
#  (c) soaker: as (a), with one busy loop per guest CPU running throughout.
# Every part measures each scheduler B_REPS times in rotated order.  Layton's workqueue series
# was 2-5% slower than threads on fio, with worse queue-to-pickup latency; here the comparison
# is side by side in one run (fifo is nfsd's own path, qfifo fairq's queue feeding nfsd's
# threads, wq fairq's queue served by its own workers).  Queue-to-pickup is measured directly
# by the fairq_qtime helper (tests/helpers/qtime): from svc_xprt_enqueue() finding a connection
# with data idle to a context entering its recvfrom, the same two points on every path; its
# histogram is read over the same span as the server's counters.
B7_PARTS=${B7_PARTS:-a b c}
B7_SECS=$(secs "${B7_SECS:-8}")
B7_RUNTIME=$(awk -v s="$B7_SECS" 'BEGIN { printf "%d", s + 0.5 }')	# fio takes whole seconds
B7_JOBS=${B7_JOBS:-2}
B7_DEPTH=${B7_DEPTH:-8}
B7_SLOW_US=${B7_SLOW_US:-10000}
B7_SIZE=${B7_SIZE:-8m}
# fifo, and the two queueing paths that differ only in who runs the request
B_SCHEDS=${B_SCHEDS:-qfifo wq}

if ! fairq_scheds | grep -qw wq; then
	log "scenario 7: wq is not offered on $FAIRQ_KERNEL (docs/wq.md): nothing to compare"
	bench_meta 7 skipped="wq not offered"
	return 0 2>/dev/null || exit 0
fi
svctime_off
rpc.nfsd "$FAIRQ_THREADS"
QTIME=/sys/kernel/debug/fairq_qtime/hist
# afresh: an earlier scenario may have left it loaded without the histogram
rmmod fairq_qtime 2>/dev/null || true
insmod /fairq/extra/fairq_qtime.ko || fail "cannot load the queue-to-pickup helper"
bench_meta 7 threads="$FAIRQ_THREADS" clients="$FAIRQ_CLIENTS" jobs="$B7_JOBS" depth="$B7_DEPTH" \
	secs="$B7_RUNTIME" slow_us="$B7_SLOW_US" size="$B7_SIZE" parts="$B7_PARTS"
log "scenario 7: fio from $FAIRQ_CLIENTS clients x $B7_JOBS jobs x depth $B7_DEPTH, ${B7_RUNTIME}s windows, parts $B7_PARTS, $B_REPS reps, schedulers: $(bench_scheds | xargs)"

# served RPCs so far: the first number of /proc/net/rpc/nfsd's rpc line (bash builtins only)
rpc_calls() {
	local key n rest
	while read -r key n rest; do
		[ "$key" = rpc ] && { echo "$n"; return; }
	done </proc/net/rpc/nfsd
	echo 0
}

SOAK_PIDS=()
soak_start() {
	local i
	for i in $(seq 1 "$(nproc)"); do
		sh -c 'while :; do :; done' &
		SOAK_PIDS+=($!)
	done
}
soak_stop() {
	[ ${#SOAK_PIDS[@]} = 0 ] && return 0
	kill "${SOAK_PIDS[@]}" 2>/dev/null
	wait "${SOAK_PIDS[@]}" 2>/dev/null
	SOAK_PIDS=()
}

# window PART SCHED REP: one fio run per client at once, one line of cells.jsonl
window() {
	local part=$1 s=$2 rep=$3 i v pids=() files=() c0 c1 w0 w1
	for i in $(seq 1 "$FAIRQ_CLIENTS"); do
		v=3
		[ "$i" = "$FAIRQ_CLIENTS" ] && [ "$FAIRQ_CLIENTS" -gt 1 ] && v=4.1
		rm -f "/tmp/s7-c$i.json" "/tmp/s7-go-c$i"
		fairq_nfs "$i" "$v" "touch /tmp/s7-go-c$i && fio --name=s7 --size=$B7_SIZE --bs=4k --rw=randrw --rwmixread=50 \
			--ioengine=libaio --iodepth=$B7_DEPTH --direct=1 --numjobs=$B7_JOBS --group_reporting \
			--time_based --runtime=$B7_RUNTIME --ramp_time=1 --output-format=json" \
			>"/tmp/s7-c$i.json" 2>"/tmp/s7-c$i.err" &
		pids+=($!)
		files+=("/tmp/s7-c$i.json")
	done
	# the server's counters over the middle of the runs: from when every client's fio is past
	# its ramp (mounting takes a varying while under emulation) to before the first one ends
	for i in $(seq 1 300); do
		[ "$(ls /tmp/s7-go-c* 2>/dev/null | wc -l)" = "$FAIRQ_CLIENTS" ] && break
		sleep 0.1
	done
	sleep 1.5
	c0=$(rpc_calls)
	echo 0 >"$QTIME"
	window_begin
	sleep "$(awk -v s="$B7_RUNTIME" 'BEGIN { printf "%g", (s > 3 ? s - 2 : 0.5) }')"
	c1=$(rpc_calls)
	cat "$QTIME" >/tmp/s7-qtime
	window_end "$part" "$s" "$rep" "\"rpcs\":$((c1 - c0))"
	for i in "${pids[@]}"; do wait "$i" || fail "fio under $s ($part): $(cat /tmp/s7-c*.err | tail -n 3)"; done
	# window_end wrote the counters: the fio reports join that line
	python3 - "$B_OUT/cells.jsonl" /tmp/s7-qtime "${files[@]}" <<'PY' || fail "fio under $s ($part): no report"
import json, sys
path, qtime, reports = sys.argv[1], sys.argv[2], sys.argv[3:]
lines = open(path).read().splitlines()
cell = json.loads(lines[-1])
# queue-to-pickup: "lower upper count" buckets; a percentile is its bucket's upper bound
buckets, tail = [], {}
for line in open(qtime):
    f = line.split()
    if f[0] == "#":
        tail = dict(zip(f[1::2], map(int, f[2::2])))
    else:
        buckets.append((int(f[0]), int(f[1]), int(f[2])))
n = tail["samples"]
assert n > 0, "no queue-to-pickup samples"
def quantile(q):
    seen = 0
    for lo, hi, c in buckets:
        seen += c
        if seen >= q * n:
            return hi
cell["pickup"] = {"samples": n, "collisions": tail["collisions"], "stale": tail["stale"],
                  "mean_us": sum((lo + hi) / 2 * c for lo, hi, c in buckets) / n,
                  "p50_us": quantile(0.5), "p99_us": quantile(0.99), "p999_us": quantile(0.999)}
runs = []
for f in reports:
    text = open(f).read()
    doc = json.loads(text[text.index("{"):])
    job = doc["jobs"][0]
    run = {"tool": "fio", "error": job["error"]}
    for d in ("read", "write"):
        p = job[d]["clat_ns"].get("percentile", {})
        run[d] = {"iops": job[d]["iops"], "clat_mean_us": job[d]["clat_ns"]["mean"] / 1000,
                  "clat_p50_us": p.get("50.000000", 0) / 1000, "clat_p99_us": p.get("99.000000", 0) / 1000}
    assert run["error"] == 0 and run["read"]["iops"] > 0 and run["write"]["iops"] > 0, run
    runs.append(run)
cell["runs"] = runs
lines[-1] = json.dumps(cell, separators=(",", ":"))
open(path, "w").write("\n".join(lines) + "\n")
print("# %s %s rep %s: %.0f IOPS, read p99 %.1f ms, %d RPCs, queue-to-pickup p50 %d us p99 %d us" % (
    cell["kind"], cell["sched"], cell["rep"], sum(r["read"]["iops"] + r["write"]["iops"] for r in runs),
    max(r["read"]["clat_p99_us"] for r in runs) / 1000, cell["rpcs"], cell["pickup"]["p50_us"],
    cell["pickup"]["p99_us"]))
PY
}

# window_end lists load series; this scenario has none
LOAD_N=0
for part in $B7_PARTS; do
	case $part in
	a) ;;
	b) svctime_on "$B7_SLOW_US" ;;
	c) soak_start ;;
	*) fail "scenario 7: unknown part '$part'" ;;
	esac
	for rep in $(seq 1 "$B_REPS"); do
		for s in $(rotated "$rep"); do
			fairq_set_sched "$s"
			window "$part" "$s" "$rep"
		done
	done
	case $part in
	b) svctime_off ;;
	c) soak_stop ;;
	esac
done
fairq_set_sched fifo
rmmod fairq_qtime
rm -f "$FAIRQ_EXPORT"/c*/s7.*
bench_expect $(($(echo $B7_PARTS | wc -w) * B_REPS * $(bench_scheds | wc -l)))
