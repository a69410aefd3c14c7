#!/bin/bash
# fq without classes, a pool per CPU: a client's share is of the service, not of each pool its
# connections reach.  Client 1 sends from both CPUs (one load pinned to each), clients 2 and 3
# from one CPU each; thread time is made scarce with the service-time helper (4 threads x
# 20 ms, two per pool).  Shared pool by pool, client 1 would get half of all the replies (a
# quarter in each pool) and clients 2 and 3 a quarter each; fq gives each a third.  Which pool
# a connection's work is queued in follows the CPU its data is taken in on, which is the
# sender's only while no nfsd thread holds the socket: the run is repeated (at most 5 times)
# until client 1's work reached both pools and clients 2 and 3 one each, apart.  Every run,
# whatever pools the clients' work went to, must give each client its max-min fair share of
# the service given those pools (each pool half of the threads): a client that had a pool to
# itself in one run owes nothing for it in the next.
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
	# the clients' shares of the replies, their max-min fair shares given the pools their
	# work went to, and a verdict (fair-share.py)
	out=$(python3 /fairq/fair-share.py --before /tmp/ps-keys0.json --after /tmp/ps-keys1.json \
		10.99.0.11=/tmp/ps-load0.json,/tmp/ps-load1.json 10.99.0.12=/tmp/ps-load2.json \
		10.99.0.13=/tmp/ps-load3.json
	) || fail "could not read the loads' results: $(cat /tmp/ps-load*.err)"
	log "run $try: shares of the replies (client 1, 2, 3) $out"
	[[ $out == *UNFAIR ]] && fail "run $try: the clients' shares are not their fair shares for the pools their work went to: $out"
	# spread, as meant: client 1's work in both pools, clients 2 and 3 one each, apart
	if [[ $out == *"pools [[0, 1], [0], [1]] fair" || $out == *"pools [[0, 1], [1], [0]] fair" ]]; then
		spread=$try
		break
	fi
done
if [ -n "$spread" ]; then
	n=$(awk '$1 == "serv" { for (i = 1; i < NF; i++) if ($i == "keys_ahead") s += $(i + 1) } END { print s + 0 }' \
		"$FAIRQ_DEBUGFS/pools")
	[ "$n" -gt 0 ] || fail "no pool counted a pass over client 1 (keys_ahead $n)"
	log "client 1 in both pools held to its third; keys_ahead in all pools: $n"
else
	# not a failure: each run's shares were the fair ones for where the work went
	log "in 5 runs client 1's work never reached both pools with 2 and 3 apart"
fi
[ "$(fairq_rescues)" = 0 ] || fail "the watchdog rescued transports"
