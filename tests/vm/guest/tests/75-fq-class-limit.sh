#!/bin/bash
# fq's QoS classes: a class's request limit holds for the nfsd service as a whole.
# - Client 1 (4 connections x window 4 of GETATTRs) in a class limited to 50/s starts 50
#   requests a second, not more, and sees pacing only: no retransmission, no reconnect.
#   Client 2, in the default class, is not held back.
# - Changed live to 100/s, the class gets 100/s; with no limit, it runs free.
# - Per key (fairqctl class change ... per-key), clients 1 and 2 in the class get 50/s each;
#   fairqctl shares shows their class and how often each waited.
# - With a pool per CPU the limit is still 50/s in all (both pools pace), not 50 per pool;
#   per key, client 1's 50/s holds over both pools too.
# - Switches (qfifo, back to fq, fifo) with keys waiting at the limit lose nothing.
# - Bad class requests are refused with a reason and change nothing.
. /fairq/lib.sh
. /fairq/fairqctl-lib.sh
fairq_need_sched fq
fairq_bench_lib /tmp/class
NL="python3 /fairq/fairq-nl.py"
C1=10.99.0.11
C2=10.99.0.12
cleanup() {
	pkill -INT -x fairq-load
	$NL class-del limited >/dev/null 2>&1
	$NL class-set default limit 0 >/dev/null 2>&1
	fairq_set_sched fifo
	[ -n "${FAIRQ_POOL_MODE0:-}" ] && fairq_nfsd_restore_mode
}
trap cleanup EXIT
fairq_set_sched fq

# jget FILE EXPR: a value of the JSON document in FILE (EXPR in Python, the document as d)
jget() {
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}
# jcmp A B: the class lists A and B are the same but for their counters
jcmp() {
	python3 -c '
import json, sys
strip = lambda f: [{k: v for k, v in c.items() if k not in ("dispatches", "thread-ns", "paced", "paced-ns", "reserved", "below-ns", "queued", "in-flight")}
                   for c in json.load(open(f))]
sys.exit(strip(sys.argv[1]) != strip(sys.argv[2]))' "$1" "$2"
}
# two_loads SECS "NETNS CPU K" "NETNS CPU K": two loads of K connections x window 4 for SECS
# (after a second of warm-up), pinned to CPU (-: any); their rates in RA and RB, and the
# first one's retransmissions and reconnects in RESENT
two_loads() {
	local secs=$1 i=0 spec ns cpu k pin
	shift
	for spec in "$@"; do
		read -r ns cpu k <<<"$spec"
		pin=""
		[ "$cpu" = - ] || pin="taskset -c $cpu"
		ip netns exec "$ns" $pin $FL -j -K "$k" -W 4 -w 1 -d "$secs" --label "load$i" \
			"$B_EXPORT" >/tmp/load$i.json 2>/tmp/load$i.err &
		i=$((i + 1))
	done
	wait -n || fail "a load failed: $(cat /tmp/load0.err /tmp/load1.err)"
	wait -n || fail "a load failed: $(cat /tmp/load0.err /tmp/load1.err)"
	RA=$(jget /tmp/load0.json 'd["client"]["ops_per_s"]')
	RB=$(jget /tmp/load1.json 'd["client"]["ops_per_s"]')
	RESENT=$(jget /tmp/load0.json 'd["resent"] + d["reconnects"]')
}
# load SECS: clients 1 (limited, 4 connections) and 2 (1 connection); rates in R1 and R2
load() {
	two_loads "$1" "c1 - 4" "c2 - 1"
	R1=$RA
	R2=$RB
}
# pool_paced: the paced counts of the pools, in pool order
pool_paced() {
	awk '$1 == "serv" { for (i = 1; i < NF; i++) if ($i == "paced") printf "%s ", $(i + 1) }' \
		"$FAIRQ_DEBUGFS/pools"
}
# within LO HI X: LO <= X <= HI (X may have decimals)
within() {
	awk -v lo="$1" -v hi="$2" -v x="$3" 'BEGIN { exit !(x >= lo && x <= hi) }'
}

$NL class-set limited create match $C1 limit 50 >/tmp/nl.out || fail "class-set: $(cat /tmp/nl.out)"
load 10
log "limit 50/s: client 1 at $R1/s, client 2 (default class) at $R2/s"
within 42 51 "$R1" || fail "client 1, limited to 50/s, ran at $R1/s"
[ "$RESENT" = 0 ] || fail "client 1 retransmitted or reconnected $RESENT times: pacing must not look like loss"
within 100 1000000 "$R2" || fail "client 2 is in no limited class and ran at only $R2/s"
$NL class-get limited >/tmp/cls.json || fail "class-get: $(cat /tmp/cls.json)"
paced=$(jget /tmp/cls.json 'd["paced"]')
disp=$(jget /tmp/cls.json 'd["dispatches"]')
[ "$paced" -gt 0 ] || fail "the limited class never waited: $(cat /tmp/cls.json)"
[ "$disp" -ge "$(jget /tmp/load0.json 'd["client"]["ops"]')" ] ||
	fail "the class counted $disp dispatches for more requests: $(cat /tmp/cls.json)"

# live change of the limit, then none
$NL class-set limited limit 100 >/tmp/nl.out || fail "class-set limit 100: $(cat /tmp/nl.out)"
load 8
log "limit 100/s: client 1 at $R1/s"
within 85 102 "$R1" || fail "client 1, limited to 100/s, ran at $R1/s"
$NL class-set limited limit 0 >/tmp/nl.out || fail "class-set limit 0: $(cat /tmp/nl.out)"
load 5
log "no limit: client 1 at $R1/s"
within 150 1000000 "$R1" || fail "client 1, with its limit taken away, ran at only $R1/s"

# per key: clients 1 and 2 in the class, 50/s each (the class as a whole would give 25 each)
fairqctl class change limited match $C1 match $C2 limit 50/s per-key >/tmp/cl.out 2>&1 ||
	fail "class change per-key: $(cat /tmp/cl.out)"
fairqctl class list | grep -q "^limited .* 50/s/key " || fail "class list shows no 50/s/key: $(fairqctl class list)"
two_loads 10 "c1 - 4" "c2 - 4"
log "limit 50/s per key: client 1 at $RA/s, client 2 at $RB/s"
within 42 51 "$RA" || fail "client 1, limited to 50/s per key, ran at $RA/s"
within 42 51 "$RB" || fail "client 2, limited to 50/s per key, ran at $RB/s"
[ "$RESENT" = 0 ] || fail "client 1 retransmitted or reconnected $RESENT times under its per-key limit"
fairqctl -j shares >/tmp/shares.json || fail "fairqctl -j shares failed"
python3 - /tmp/shares.json "$C1" "$C2" <<'PY' || fail "fairqctl shares does not show both clients waiting for their own limit: $(fairqctl shares)"
import json, sys
keys = json.load(open(sys.argv[1]))["keys"]
for ip in sys.argv[2:]:
    mine = [k for k in keys if k["key"] == ip]
    assert mine and all(k.get("class") == "limited" and k["paced"] > 0 and k["paced_ns"] > 0
                        for k in mine), (ip, mine)
assert all(k["paced"] == 0 for k in keys if k["key"] not in sys.argv[2:]), keys
PY
fairqctl class change limited match $C1 shared >/tmp/cl.out 2>&1 ||
	fail "class change back to shared: $(cat /tmp/cl.out)"

# switches with keys at the limit: every call is answered (fairq-load fails on a lost one)
$NL class-set limited limit 50 >/tmp/nl.out || fail "class-set limit 50: $(cat /tmp/nl.out)"
ip netns exec c1 $FL -j -K 4 -W 4 -d 12 --label sw "$B_EXPORT" >/tmp/sw.json 2>/tmp/sw.err &
pid=$!
for s in qfifo fq fifo fq qfifo fq; do
	sleep 2
	fairq_set_sched $s || fail "switch to $s refused"
done
wait $pid || fail "client 1 failed across switches: $(cat /tmp/sw.err)"
[ "$(jget /tmp/sw.json 'd["resent"] + d["reconnects"]')" = 0 ] ||
	fail "client 1 retransmitted across switches: $(cat /tmp/sw.json)"
sleep 1
[ "$(fairq_pool_sum queued)" = 0 ] || fail "transports left queued after the load: $(cat "$FAIRQ_DEBUGFS/pools")"

# refusals: each leaves the classes as they were
$NL class-dump >/tmp/before.json || fail "class-dump: $(cat /tmp/before.json)"
fairq_nl_refuse "exists" class-set limited create match 10.99.0.12
fairq_nl_refuse "always exists" class-set default create
fairq_nl_refuse "no class of that name" class-set nosuch limit 5
fairq_nl_refuse "no class of that name" class-del nosuch
fairq_nl_refuse "cannot be deleted" class-del default
fairq_nl_refuse "no rank or matches" class-set default match 10.99.0.12
fairq_nl_refuse "class name" class-set "bad/name" create
fairq_nl_refuse "class name" class-set "" create
fairq_nl_refuse "at most 10000000" class-set limited limit 10000001
fairq_nl_refuse "burst is 1 to" class-set limited burst 0
fairq_nl_refuse "at most 8 matches" class-set limited match 10.0.0.1 match 10.0.0.2 match 10.0.0.3 \
	match 10.0.0.4 match 10.0.0.5 match 10.0.0.6 match 10.0.0.7 match 10.0.0.8 match 10.0.0.9
$NL class-set other create match 10.99.0.13 rank 7 >/tmp/nl.out || fail "class-set other: $(cat /tmp/nl.out)"
fairq_nl_refuse "has that rank" class-set limited rank 7
$NL class-del other >/tmp/nl.out || fail "class-del other: $(cat /tmp/nl.out)"
out=$(fairq_as_nobody python3 /fairq/fairq-nl.py class-set limited limit 1)
case $out in *"errno 1:"*) ;; *) fail "an unprivileged class-set was not refused: $out" ;; esac
$NL class-dump >/tmp/after.json || fail "class-dump: $(cat /tmp/after.json)"
jcmp /tmp/before.json /tmp/after.json ||
	fail "refused requests changed the classes: $(cat /tmp/before.json) then $(cat /tmp/after.json)"

# a pool per CPU: the limit is the service's
fairq_nfsd_restart_in percpu 4 ||
	fail "nfsd did not start again in pool mode percpu: $(cat /tmp/nfsd-pool-mode.out)"
if [ "$(fairq_nr_pools)" -ge 2 ]; then
	sleep 11	# the grace period
	fairq_set_sched fq
	# client 1 from both CPUs: one load pinned to each.  Which pool a transport's work is
	# queued in follows the CPU its data is taken in on, and that is the sender's only while
	# no nfsd thread holds the socket (then the thread's CPU takes it): the loads may still
	# meet in one pool.  The limit must hold in every run; until both pools have paced in one
	# run (at most 5), the per-service path has not been tried.
	# over_pools WHAT: client 1 from both CPUs holds the class's 50/s until both pools paced
	over_pools() {
		local spread="" try paced0 paced r0 r1
		for try in 1 2 3 4 5; do
			paced0=$(pool_paced)
			two_loads 10 "c1 0 2" "c1 1 2"
			r0=$RA
			r1=$RB
			paced=$(awk -v a="$paced0" -v b="$(pool_paced)" 'BEGIN {
				split(a, x); n = split(b, y)	# a service fairq has not seen yet has no line
				for (i = 1; i <= n; i++) printf "%d ", y[i] - x[i] }')
			log "$(fairq_nr_pools) pools, $1, run $try: client 1 at $r0/s from CPU 0 and $r1/s from CPU 1; paced per pool: $paced"
			within 42 51 "$(awk -v a="$r0" -v b="$r1" 'BEGIN { print a + b }')" ||
				fail "client 1, $1 over $(fairq_nr_pools) pools, ran at $r0 + $r1/s"
			if [ "$(wc -w <<<"$paced")" -ge 2 ] && ! grep -qw 0 <<<"$paced"; then
				spread=$try
				break
			fi
		done
		[ -n "$spread" ] || fail "$1: in 5 runs the class's work never reached more than one pool"
	}
	over_pools "limit 50/s"
	fairqctl class change limited per-key >/tmp/cl.out 2>&1 || fail "class change per-key: $(cat /tmp/cl.out)"
	over_pools "limit 50/s per key"
else
	log "$(fairq_nr_pools) pool in pool mode percpu with $(nproc) CPUs: the per-service check needs two"
fi
[ "$(fairq_rescues)" = 0 ] || fail "the watchdog rescued transports"
