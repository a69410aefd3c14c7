#!/bin/bash
# fq's per-key cap holds whichever CPU a thread runs on.  A pool per CPU (pool mode
# percpu), and each nfsd thread moved to the next pool's CPU, as an admin's taskset can leave
# them: the enqueues of a CPU then go to a pool whose threads run elsewhere, and a client's
# key in one pool can sit quiet for seconds while its work goes to the other.  On 6.1 fairq
# sees a thread with a transport only once its request starts (or it gives the transport
# back), so a key held at its cap right after a dispatch shows no thread for a few ms; the
# watchdog must not take such a fresh hand-off for a lost one because the key was quiet
# before it (it then lets the key go past its cap).  Two clients of 4 connections, a cap of 1
# per key (keys are per pool, so two per pool), requests holding their thread 20 ms
# (fairq_svctime): no hand-off is lost while they run, and never more than two requests per
# pool are in processing at once.
. /fairq/lib.sh
fairq_need_sched fq
fairq_bench_lib /tmp/unpinned
cleanup() {
	pkill -INT -x fairq-load
	echo 0 >"$FAIRQ_SYSFS/fq/max_inflight"
	svctime_off
	fairq_set_sched fifo
	fairq_nfsd_restore_mode
}
trap cleanup EXIT
fairq_nfsd_restart_in percpu 4 ||
	fail "nfsd did not start again in pool mode percpu: $(cat /tmp/nfsd-pool-mode.out)"
if [ "$(fairq_nr_pools)" -lt 2 ]; then
	echo "$(fairq_nr_pools) pool in pool mode $(fairq_pool_mode) with $(nproc) CPUs (percpu asked for): this needs two or more"
	exit 4
fi
n=$(nproc)
for p in $(pgrep -x nfsd); do
	# percpu binds each pool's threads to its CPU
	cpu=$(taskset -pc "$p" | sed 's/.*: *//')
	case $cpu in *[!0-9]*) fail "nfsd thread $p is not bound to one CPU: $(taskset -pc "$p")" ;; esac
	taskset -pc $(((cpu + 1) % n)) "$p" >/dev/null || fail "cannot move nfsd thread $p to CPU $(((cpu + 1) % n))"
done
sleep 11	# the grace period
svctime_on 20000
fairq_set_sched fq
echo 1 >"$FAIRQ_SYSFS/fq/max_inflight" || fail "max_inflight 1 refused"
lost0=$(fairq_pool_sum lost_handoffs)
pids=()
for c in 1 2; do
	ip netns exec c$c $FL -j -K 4 -W 2 -d 10 --label "c$c" "$B_EXPORT" >/tmp/up$c.json 2>/tmp/up$c.err &
	pids+=($!)
done
# requests in processing (in the service-time wrapper), sampled while the clients run; the
# hand-offs given up as lost, 9 s in (a hand-off is given up 1 s after it was made): the last
# ones, to connections that close as the clients exit, are lost by design on 6.1
max=0
start=$SECONDS
lost=""
while kill -0 "${pids[0]}" 2>/dev/null; do
	n=$(cat /sys/module/fairq_svctime/parameters/inside)
	[ "$n" -gt "$max" ] && max=$n
	[ -z "$lost" ] && [ $((SECONDS - start)) -ge 9 ] && lost=$(($(fairq_pool_sum lost_handoffs) - lost0))
	sleep 0.05
done
for p in "${pids[@]}"; do
	wait "$p" || fail "a client failed: $(cat /tmp/up1.err /tmp/up2.err)"
done
[ -n "$lost" ] || fail "the clients ended before 9 s"
sleep 1.5
at_exit=$(($(fairq_pool_sum lost_handoffs) - lost0 - lost))
ops=$(python3 -c 'import json,sys; print(" ".join(str(json.load(open(f))["client"]["ops"]) for f in sys.argv[1:]))' /tmp/up1.json /tmp/up2.json)
log "$(fairq_nr_pools) pools, threads moved a CPU on: calls per client $ops; at most $max in processing; $lost hand-offs lost in 9 s ($at_exit more as the clients exited)"
[ "$lost" = 0 ] || fail "$lost hand-offs were never seen on a thread"
[ "$max" -le $((2 * $(fairq_nr_pools))) ] ||
	fail "$max requests in processing with two keys capped at 1 in each of $(fairq_nr_pools) pools"
echo 0 >"$FAIRQ_SYSFS/fq/max_inflight"
