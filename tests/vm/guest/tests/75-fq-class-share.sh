#!/bin/bash
# fq's QoS classes share the threads by weight, reservation and ceiling, for real clients.
# Thread time is made the scarce resource with the fixed-service-time helper (4 threads x
# 20 ms a request: 200 requests a second in all), so that a client's rate is its share of the
# threads; three clients of 4 connections x window 4 keep every thread busy.
# - Weights: client 1 in a class of weight 1, client 2 in one of weight 3, client 3 in the
#   default class (one key, so one share): 1:3:1.  Changed live to 1:1:1.
# - A reservation of 30% at weight 1 holds against a class of weight 50 (which alone would
#   leave it 1/52).
# - A ceiling of 25%: client 1 gets a quarter of the threads under contention, and a quarter
#   alone, the other threads idle; paced, never refused: no retransmission.  Per key, clients
#   1 and 2 at 20% each beside client 3.
# With several pools (pool mode percpu or pernode) a client's work goes to the pools of the
# CPUs its data is taken in on, which the test does not control: shares by weight are judged
# against the weighted max-min fair shares given the pools each client's work reached
# (fair-share.py), a reservation as a floor of what the service served, and ceilings as rates
# of the service's 200 requests a second, which hold wherever the work went.
# - Switches with classes at their shares and ceilings lose nothing.
# - Bad class requests are refused with a reason and change nothing.
# Classes are set with fairqctl, as an admin sets them; the refusals go through raw netlink,
# since fairqctl refuses most of them before the kernel sees them.
. /fairq/lib.sh
. /fairq/fairqctl-lib.sh
fairq_need_sched fq
fairq_bench_lib /tmp/share
NL="python3 /fairq/fairq-nl.py"
C1=10.99.0.11
C2=10.99.0.12
cleanup() {
	pkill -INT -x fairq-load
	fairqctl class del one >/dev/null 2>&1
	fairqctl class del three >/dev/null 2>&1
	fairq_set_sched fifo
	svctime_off
	rpc.nfsd "$FAIRQ_THREADS"
}
trap cleanup EXIT
rpc.nfsd 4
svctime_on 20000
fairq_set_sched fq

jget() {
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}
within() {
	awk -v lo="$1" -v hi="$2" -v x="$3" 'BEGIN { exit !(x >= lo && x <= hi) }'
}
# loads SECS NETNS...: one load of 4 connections x window 4 from each client namespace for
# SECS (after 2 s of warm-up); their rates in R[0..], their shares of the sum in P[0..] (in
# percent), their retransmissions and reconnects summed in RESENT
loads() {
	local secs=$1 i=0 ns
	shift
	fairqctl -j shares >/tmp/keys0.json || fail "fairqctl shares: $(cat /tmp/keys0.json)"
	for ns in "$@"; do
		ip netns exec "$ns" $FL -j -K 4 -W 4 -w 2 -d "$secs" --label "load$i" \
			"$B_EXPORT" >/tmp/load$i.json 2>/tmp/load$i.err &
		i=$((i + 1))
	done
	for ns in "$@"; do
		wait -n || fail "a load failed: $(cat /tmp/load*.err)"
	done
	fairqctl -j shares >/tmp/keys1.json || fail "fairqctl shares: $(cat /tmp/keys1.json)"
	R=()
	P=()
	RESENT=0
	local sum=0
	for i in $(seq 0 $(($# - 1))); do
		R[i]=$(jget /tmp/load$i.json 'd["client"]["ops_per_s"]')
		RESENT=$((RESENT + $(jget /tmp/load$i.json 'd["resent"] + d["reconnects"]')))
		sum=$(awk -v a="$sum" -v b="${R[i]}" 'BEGIN { print a + b }')
	done
	for i in $(seq 0 $(($# - 1))); do
		P[i]=$(awk -v a="${R[i]}" -v s="$sum" 'BEGIN { printf "%.1f", s ? 100 * a / s : 0 }')
	done
}

# fair WEIGHT...: the last loads' shares against their weighted max-min fair shares given the
# pools their work went to (client N's weight the Nth), in FAIR[0..] (in percent); the
# verdict in VERDICT (fair, UNFAIR or moved); the whole line in JUDGED
fair() {
	local i=0 w clients=()
	for w in "$@"; do
		clients+=("10.99.0.$((11 + i)):$w=/tmp/load$i.json")
		i=$((i + 1))
	done
	JUDGED=$(python3 /fairq/fair-share.py --tolerance 0.07 --before /tmp/keys0.json \
		--after /tmp/keys1.json "${clients[@]}") || fail "fair-share.py: could not judge the loads"
	VERDICT=${JUDGED##* }
	read -r -a FAIR <<<"$(echo "$JUDGED" | awk '{ for (i = 1; i <= NF; i++) if ($i == "fair") f = 1; else if ($i ~ /\/s$/) f = 0; else if (f) printf "%.1f ", 100 * $i }')"
}
# judged SECS TITLE WEIGHT...: loads from c1.. (one per weight), their shares judged by fair
# WEIGHT..., run again (at most 3 runs; always once with one pool) while a client's work moved
# between pools during the run; RESENT summed over the runs
judged() {
	local secs=$1 title=$2 try ns=() i resent=0
	shift 2
	for i in $(seq 1 $#); do
		ns+=("c$i")
	done
	for try in 1 2 3; do
		loads "$secs" "${ns[@]}"
		resent=$((resent + RESENT))
		fair "$@"
		log "$title: ${R[*]} requests/s; shares, fair shares, pools: $JUDGED"
		[ "$VERDICT" = moved ] || break
	done
	RESENT=$resent
}
# weighted SECS TITLE WEIGHT...: judged, each share within 7 points of its fair one
weighted() {
	judged "$@"
	[ "$VERDICT" = fair ] || fail "$2 gave shares of ${P[*]}% (${FAIR[*]}% owed): $JUDGED"
}

# ctl ARGS...: fairqctl ARGS, which must succeed
ctl() {
	fairqctl "$@" >/tmp/ctl.out 2>&1 || fail "fairqctl $*: $(cat /tmp/ctl.out)"
}
# class_json NAME: class list -j of class NAME alone into /tmp/cls.json, its object as d
class_json() {
	fairqctl -j class list "$1" | python3 -c 'import json, sys; print(json.dumps(json.load(sys.stdin)["classes"][0]))' \
		>/tmp/cls.json || fail "class list $1: $(cat /tmp/cls.json)"
}

# weights 1 : 3 : the default class's one key
ctl class add one match $C1 weight 1
ctl class add three match $C2 weight 3
weighted 12 "weights 1:3:1" 1 3 1
[ "$RESENT" = 0 ] || fail "$RESENT retransmissions or reconnects under weights"

# changed live: 1 : 1 : 1
ctl class change three weight 1
weighted 10 "weights 1:1:1" 1 1 1

# a reservation against weight: 30% at weight 1 against weight 50
ctl class change one reserve 30%
ctl class change three weight 50
# owed: 30% of what the service served (the reservation is of all its threads' time, whichever
# pools the work went to, and every request here holds a thread alike), or more where its
# weighted share given the pools is more.  Of the requests served, not of the nominal 200 a
# second: a guest short of CPU (a busy host under TCG) serves fewer, and the floor holds on
# what there is.
judged 12 "reserve 30% at weight 1 against weight 50 (shares by weight alone)" 1 50
owed=$(awk -v f="${FAIR[0]}" 'BEGIN { printf "%.1f", (f > 30 ? f : 30) }')
[ "$VERDICT" = moved ] && owed=30.0
within "$(awk -v o="$owed" 'BEGIN { print o - 3 }')" "$(awk -v o="$owed" 'BEGIN { print o + 10 }')" "${P[0]}" ||
	fail "a class reserving 30% got ${P[0]}% of its clients' ${R[*]} requests/s (${owed}% owed)"
class_json one
[ "$(jget /tmp/cls.json 'd["reserved"]')" -gt 0 ] ||
	fail "no start was counted as reserved: $(cat /tmp/cls.json)"
[ "$(jget /tmp/cls.json 'd["reserve_pct"]')" = 30 ] ||
	fail "class list does not say reserve 30%: $(cat /tmp/cls.json)"
# met, the reservation leaves the class below it only while a thread frees up for it
below=$(jget /tmp/cls.json 'd["below_ns"]')
log "reserve 30%: below it for $((below / 1000000)) ms of the 12 s"
[ "$below" -le 1200000000 ] || fail "a class given its reservation was below it for $below ns of 12 s"

# a ceiling of 25%: 50 of the 200 requests a second, against another client and alone (no
# weights: client 1 would get half the threads without its ceiling)
ctl class change one reserve none weight none limit 25%
ctl class change three weight none
loads 12 c1 c2
log "limit 25%: ${R[*]} requests/s, shares ${P[*]}%"
within 38 56 "${R[0]}" || fail "a class limited to 25% of 200 requests/s got ${R[0]}/s (rates ${R[*]})"
[ "$RESENT" = 0 ] || fail "$RESENT retransmissions or reconnects at the ceiling"
loads 12 c1
log "limit 25% alone: ${R[0]} requests/s of 200"
within 38 53 "${R[0]}" || fail "a class limited to 25% ran alone at ${R[0]}/s (50 owed)"
[ "$RESENT" = 0 ] || fail "$RESENT retransmissions or reconnects at the ceiling, alone"
class_json one
[ "$(jget /tmp/cls.json 'd["paced"]')" -gt 0 ] || fail "the class never waited at its ceiling: $(cat /tmp/cls.json)"

# a ceiling per key: clients 1 and 2 at most 20% each (40 of the 200 requests a second), where
# the class's ceiling would give them 20% together; client 3, in the default class, the rest
ctl class change one match $C1 match $C2 limit 20% per-key
loads 12 c1 c2 c3
log "limit 20% per key: ${R[*]} requests/s, shares ${P[*]}%"
within 30 46 "${R[0]}" && within 30 46 "${R[1]}" ||
	fail "clients limited to 20% each of 200 requests/s got ${R[0]}/s and ${R[1]}/s (rates ${R[*]})"
[ "$RESENT" = 0 ] || fail "$RESENT retransmissions or reconnects at the ceilings per key"
fairqctl class list | grep -q "^one .* 20%/key " || fail "class list shows no 20%/key: $(fairqctl class list)"
ctl class change one match $C1 limit 25% shared

# switches with classes at work: every call is answered (fairq-load fails on a lost one)
ctl class change three weight 3
for ns in c1 c2; do
	ip netns exec $ns $FL -j -K 4 -W 4 -d 14 --label sw "$B_EXPORT" >/tmp/sw-$ns.json 2>/tmp/sw-$ns.err &
done
for s in qfifo fq fifo fq; do
	sleep 3
	fairq_set_sched $s || fail "switch to $s refused"
done
ctl class change one limit 50%
wait -n && wait -n || fail "a client failed across switches: $(cat /tmp/sw-*.err)"
for ns in c1 c2; do
	[ "$(jget /tmp/sw-$ns.json 'd["resent"] + d["reconnects"]')" = 0 ] ||
		fail "client $ns retransmitted across switches: $(cat /tmp/sw-$ns.json)"
done
sleep 1
[ "$(fairq_pool_sum queued)" = 0 ] || fail "transports left queued after the load: $(cat "$FAIRQ_DEBUGFS/pools")"

# refusals, each leaving the classes as they were
ctl class change three reserve 60%
$NL class-dump >/tmp/before.json || fail "class-dump: $(cat /tmp/before.json)"
fairq_nl_refuse "more than 100%" class-set one reserve 41
fairq_nl_refuse "above its own limit" class-set one reserve 40 limit-pct 30
fairq_nl_refuse "weight is 1 to 10000" class-set one weight 10001
fairq_nl_refuse "percent of the threads" class-set one limit-pct 101
fairq_nl_refuse "weight or limits: give it one" class-set other create match 10.99.0.13 per-key 1
fairq_nl_refuse "not to a reservation" class-set three per-key 1
$NL class-dump >/tmp/after.json || fail "class-dump: $(cat /tmp/after.json)"
python3 -c '
import json, sys
strip = lambda f: [{k: v for k, v in c.items() if k not in ("dispatches", "thread-ns", "paced", "paced-ns", "reserved", "below-ns", "queued", "in-flight")}
                   for c in json.load(open(f))]
sys.exit(strip(sys.argv[1]) != strip(sys.argv[2]))' /tmp/before.json /tmp/after.json ||
	fail "refused requests changed the classes: $(cat /tmp/before.json) then $(cat /tmp/after.json)"
[ "$(fairq_rescues)" = 0 ] || fail "the watchdog rescued transports"
