#!/bin/bash
# fq without classes, a pool per CPU: a client's share is of the service, not of each pool its
# connections reach.  Client 1 sends from both CPUs (one load pinned to each), clients 2 and 3
# from one CPU each; thread time is made scarce with the service-time helper (4 threads x
# 20 ms, two per pool).  Shared pool by pool, client 1 would get half of all the replies (a
# quarter in each pool) and clients 2 and 3 a quarter each; fq gives each a third.  Which pool
# a connection's work is queued in follows the CPU its data is taken in on, which is the
# sender's only while no nfsd thread holds the socket: the run is repeated (at most 5 times)
# until client 1's work reached both pools and clients 2 and 3 one each, apart.
. /fairq/lib.sh
fairq_need_sched fq
fairq_bench_lib /tmp/pools-share
cleanup() {
	pkill -INT -x fairq-load
	svctime_off
	fairq_set_sched fifo
	[ -n "${FAIRQ_POOL_MODE0:-}" ] && fairq_nfsd_restore_mode
}
trap cleanup EXIT

fairq_nfsd_restart_in percpu 4 ||
	fail "nfsd did not start again in pool mode percpu: $(cat /tmp/nfsd-pool-mode.out)"
if [ "$(fairq_nr_pools)" -lt 2 ]; then
	log "$(fairq_nr_pools) pool in pool mode percpu with $(nproc) CPUs: this test needs two"
	exit 0
fi
sleep 11	# the grace period
svctime_on 20000
fairq_set_sched fq

# run SECS: the four loads (2 connections x window 4 each) for SECS; their reply rates in
# /tmp/ps-load{0..3}.json, and fq's keys before and after in /tmp/ps-keys{0,1}.json
run() {
	local i=0 spec ns cpu
	fairqctl -j shares >/tmp/ps-keys0.json || fail "fairqctl shares: $(cat /tmp/ps-keys0.json)"
	for spec in "c1 0" "c1 1" "c2 0" "c3 1"; do
		read -r ns cpu <<<"$spec"
		ip netns exec "$ns" taskset -c "$cpu" $FL -j -K 2 -W 4 -w 1 -d "$1" --label "load$i" \
			"$B_EXPORT" >/tmp/ps-load$i.json 2>/tmp/ps-load$i.err &
		i=$((i + 1))
	done
	for i in 0 1 2 3; do
		wait -n || fail "a load failed: $(cat /tmp/ps-load*.err)"
	done
	fairqctl -j shares >/tmp/ps-keys1.json || fail "fairqctl shares: $(cat /tmp/ps-keys1.json)"
}

spread=""
for try in 1 2 3 4 5; do
	run 12
	# prints the clients' shares of the replies, then "spread" if the placement was as meant
	out=$(python3 - <<'PY'
import json
rate = [json.load(open("/tmp/ps-load%d.json" % i))["client"]["ops_per_s"] for i in range(4)]
c = [rate[0] + rate[1], rate[2], rate[3]]
total = sum(c)
before = {(k["key"], k["pool"]): k["dispatches"] for k in json.load(open("/tmp/ps-keys0.json"))["keys"]}
pools = {}
for k in json.load(open("/tmp/ps-keys1.json"))["keys"]:
    if k["dispatches"] - before.get((k["key"], k["pool"]), 0) > 20:
        pools.setdefault(k["key"], set()).add(k["pool"])
p1, p2, p3 = (pools.get("10.99.0.%d" % n, set()) for n in (11, 12, 13))
spread = len(p1) == 2 and len(p2) == 1 and len(p3) == 1 and p2 != p3
print(" ".join("%.3f" % (x / total) for x in c), "%.1f/s" % total,
      "pools: 1 %s, 2 %s, 3 %s" % (sorted(p1), sorted(p2), sorted(p3)), "spread" if spread else "")
PY
	) || fail "could not read the loads' results: $(cat /tmp/ps-load*.err)"
	log "run $try: shares of the replies (client 1, 2, 3) $out"
	if [[ $out == *spread ]]; then
		spread=$try
		break
	fi
done
[ -n "$spread" ] || fail "in 5 runs the clients' work never went to the pools as meant"
read -r s1 s2 s3 _ <<<"$out"
# a third each; pool by pool it would be 0.5, 0.25, 0.25
awk -v a="$s1" -v b="$s2" -v c="$s3" 'BEGIN { exit !(a <= 0.40 && b >= 0.28 && c >= 0.28) }' ||
	fail "client 1 in both pools got $s1 of the replies, clients 2 and 3 $s2 and $s3: a third each is theirs"
n=$(awk '$1 == "serv" { for (i = 1; i < NF; i++) if ($i == "keys_ahead") s += $(i + 1) } END { print s + 0 }' \
	"$FAIRQ_DEBUGFS/pools")
[ "$n" -gt 0 ] || fail "no pool counted a pass over client 1 (keys_ahead $n)"
log "keys_ahead in all pools: $n"
[ "$(fairq_rescues)" = 0 ] || fail "the watchdog rescued transports"
