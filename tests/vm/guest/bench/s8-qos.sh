# SPDX-License-Identifier: GPL-2.0-only
# Scenario 8, QoS classes (fq): issue targets of reservations, weights and limits, each with
# one pool (pool mode global) and with a pool per CPU (percpu: 4 pools on the 4-CPU guest
# tests/bench/run.sh boots for this scenario).  Every window is B8_SECS after 2 s of warm-up;
# a client is fairq-load's NFSv3 GETATTRs from its own namespace (its own address, so its own
# key under the default key), as one connection pinned to each CPU, so that its work reaches
# every pool.
# - rate: a class limited to 200/s alone on the server (D=0), client 1's connections of
#   window 4; fairq's dispatch events of the window are kept, for the spacing of its requests.
# - pct: a class limited to 25% of thread time (client 1) against client 2 in a class with no
#   setting (as the default class, but counted), D=10 ms, windows of 8.
# - reserve: a class reserving 30% at weight 1 (client 1) against nine classes of weight 10
#   (clients 2 to 10), D=10 ms, windows of 8.
# - weights: a class of weight 1 with two keys (clients 1 and 2) against one of weight 2
#   (client 3): owed 1/6, 1/6 and 2/3 of the thread time, D=10 ms, windows of 8.
# - cost: D=0, three clients of 4 unpinned connections of window 4, as fast as the server
#   answers: fifo, fq without classes, fq with three classes of weights and no limit (every
#   client in one), fq with 100 match rules that none of the clients matches; B_REPS rounds,
#   rotated.
# Shares are the classes' thread time (fairq's own counters, before and after each window) and
# the clients' replies (their time series); under D=10 ms the two agree.
B8_SECS=$(secs "${B8_SECS:-10}")
B8_POOLS=${B8_POOLS:-global percpu}
D_US=10000
CTL=fairqctl
T=/sys/kernel/tracing
TRACE_WINDOW=""
[ -d $T/events ] || mount -t tracefs nodev $T || fail "cannot mount tracefs"

classes_clear() {
	local c
	for c in $($CTL -j class list | python3 -c 'import json, sys
print(" ".join(c["name"] for c in json.load(sys.stdin)["classes"] if c["name"] != "default"))'); do
		$CTL class del "$c" >/tmp/ctl.out 2>&1 || fail "class del $c: $(cat /tmp/ctl.out)"
	done
}
ctl() {
	$CTL "$@" >/tmp/ctl.out 2>&1 || fail "fairqctl $*: $(cat /tmp/ctl.out)"
}
# classes_snap FILE: every class's counters
classes_snap() {
	$CTL -j class list >"$1" || fail "class list: $(cat "$1")"
}
fairq_serv_threads() {
	pgrep -x nfsd | wc -l
}
# window KIND POOLS REP [EXTRA]: one measured window of the running loads, with the classes'
# counters before and after (KIND-POOLS-REP.before/.after.json)
window() {
	local tag=$1-$2-$3
	classes_snap "$B_OUT/$tag.before.json"
	window_begin
	# the trace (when one is wanted) covers the window, not the snapshots around it
	[ -z "$TRACE_WINDOW" ] || echo 1 >$T/tracing_on
	sleep "$B8_SECS"
	[ -z "$TRACE_WINDOW" ] || echo 0 >$T/tracing_on
	window_end "$1" fq "$3" "\"pools\":$(fairq_nr_pools),\"threads\":$(fairq_serv_threads),\"pool_mode\":\"$2\",\"classes\":\"$tag\"${4:+,$4}"
	classes_snap "$B_OUT/$tag.after.json"
	log "$tag: $(window_rate), $(class_shares "$tag")"
}
# class_shares TAG: the classes' shares of the thread time in the window, for progress lines
class_shares() {
	python3 - "$B_OUT/$1" <<'PY'
import json, sys
b = {c["name"]: c for c in json.load(open(sys.argv[1] + ".before.json"))["classes"]}
a = {c["name"]: c for c in json.load(open(sys.argv[1] + ".after.json"))["classes"]}
d = {n: a[n]["thread_ns"] - b[n]["thread_ns"] for n in a if n in b}
t = sum(d.values()) or 1
print("thread time " + " ".join("%s %.1f%%" % (n, 100 * v / t) for n, v in d.items() if v))
PY
}
# spread NETNS W: load_start_each's specs of one client as a connection of window W pinned to
# each CPU, so that its work reaches every pool (a transport is queued in the pool of the CPU
# its data is taken in on)
spread() {
	local c
	for c in $(seq 0 $(($(nproc) - 1))); do echo "$1,1,$2,$c"; done
}
pools_paced() {
	awk '$1 == "serv" { for (i = 1; i < NF; i++) if ($i == "paced") printf "%s ", $(i + 1) }' \
		"$FAIRQ_DEBUGFS/pools"
}

bench_meta 8 threads="$FAIRQ_THREADS" delay_us=$D_US secs="$B8_SECS" pool_modes="$B8_POOLS" rate_limit=200 \
	pct_limit=25 reserve_pct=30
log "scenario 8: QoS classes, T=$FAIRQ_THREADS, ${B8_SECS}s windows, pool modes: $B8_POOLS"
cells=0
for mode in $B8_POOLS; do
	fairq_nfsd_restart_in "$mode" || fail "nfsd did not start in pool mode $mode: $(cat /tmp/nfsd-pool-mode.out)"
	pools=$(fairq_nr_pools)
	fairq_set_sched fq
	classes_clear
	log "pool mode $mode: $pools pools"

	# rate: 200/s alone; the dispatch events of the window are kept
	svctime_off
	ctl class add lim match 10.99.0.11 limit 200/s
	load_start_each "rate-$mode" $(spread c1 4)
	echo 0 >$T/tracing_on
	: >$T/trace
	echo 4096 >$T/buffer_size_kb
	echo 1 >$T/events/fairq/fairq_dispatch/enable
	paced0=$(pools_paced)
	TRACE_WINDOW=1 window rate "$mode" 1 "\"limit_per_s\":200,\"burst\":1"
	echo 0 >$T/events/fairq/fairq_dispatch/enable
	sed -n 's/.* \([0-9]*\.[0-9]*\): fairq_dispatch: .* pool=\([0-9]*\) .* key=\([^ ]*\) .*/\1 \2 \3/p' \
		$T/trace >"$B_OUT/rate-$mode.dispatches"
	[ "$(cat $T/per_cpu/cpu*/stats | awk '$1 == "overrun:" { n += $2 } END { print n + 0 }')" = 0 ] ||
		fail "the trace buffer overran"
	log "rate $mode: $(wc -l <"$B_OUT/rate-$mode.dispatches") dispatches traced, paced per pool $(awk -v a="$paced0" -v b="$(pools_paced)" 'BEGIN {
		split(a, x); n = split(b, y); for (i = 1; i <= n; i++) printf "%d ", y[i] - x[i] }')"
	load_stop
	: >$T/trace
	cells=$((cells + 1))
	classes_clear

	svctime_on $D_US
	# pct: 25% of the thread time under contention
	# client 2 in a class with no setting, as in the default class, but counted
	ctl class add quarter match 10.99.0.11 limit 25%
	ctl class add rest match 10.99.0.12
	load_start_each "pct-$mode" $(spread c1 8) $(spread c2 8)
	window pct "$mode" 1 "\"limit_pct\":25,\"per_client\":$(nproc)"
	load_stop
	cells=$((cells + 1))
	classes_clear

	# reserve: 30% at weight 1 against nine classes of weight 10
	ctl class add floor match 10.99.0.11 weight 1 reserve 30%
	specs=($(spread c1 8))
	for i in 2 3 4 5 6 7 8 9 10; do
		ctl class add "heavy$i" match "10.99.0.$((10 + i))" weight 10
		specs+=($(spread "c$i" 8))
	done
	load_start_each "reserve-$mode" "${specs[@]}"
	window reserve "$mode" 1 "\"reserve_pct\":30,\"per_client\":$(nproc)"
	load_stop
	cells=$((cells + 1))
	classes_clear

	# weights: classes 1 (two keys) and 2 (one key)
	ctl class add light match 10.99.0.11 match 10.99.0.12 weight 1
	ctl class add heavy match 10.99.0.13 weight 2
	load_start_each "weights-$mode" $(spread c1 8) $(spread c2 8) $(spread c3 8)
	window weights "$mode" 1 "\"owed\":[0.16666667,0.16666667,0.66666667],\"per_client\":$(nproc)"
	load_stop
	cells=$((cells + 1))
	classes_clear
	svctime_off

	# cost: the same load under fifo, fq, fq with classes of weights, fq with 100 rules
	load_start_each "cost-$mode" c1,4,4 c2,4,4 c3,4,4
	variants=(fifo fq classes rules)
	for rep in $(seq 1 "$B_REPS"); do
		for ((v = 0; v < 4; v++)); do
			variant=${variants[$(((v + rep) % 4))]}
			classes_clear
			case $variant in
			fifo) fairq_set_sched fifo ;;
			fq) fairq_set_sched fq ;;
			classes)
				fairq_set_sched fq
				ctl class add w1 match 10.99.0.11 weight 1
				ctl class add w2 match 10.99.0.12 weight 2
				ctl class add w3 match 10.99.0.13 weight 3
				;;
			rules)
				fairq_set_sched fq
				# 13 classes of 8 subnets (the last of 4): 100 rules, none of them the clients'
				for c in $(seq 0 12); do
					args=()
					for m in $(seq 0 7); do
						[ $((c * 8 + m)) -lt 100 ] && args+=(match "10.$((100 + c)).$m.0/24")
					done
					ctl class add "r$c" "${args[@]}" weight $((c + 1))
				done
				;;
			esac
			sleep "$(secs 2)"
			window_begin
			sleep "$B8_SECS"
			window_end cost "$variant" "$rep" "\"pools\":$pools,\"pool_mode\":\"$mode\""
			log "cost $mode $variant round $rep: $(window_rate)"
			cells=$((cells + 1))
		done
	done
	load_stop
	fairq_set_sched fq
	classes_clear
done
fairq_set_sched fifo
fairq_nfsd_restore_mode
bench_expect "$cells"
