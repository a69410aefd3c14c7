#!/bin/bash
# fq's anticipation (anticipate_us): off by default, range-checked; when on, with a greedy
# client keeping 8 threads of 10 ms busy, threads are held for a window-1 client's next call
# and the holds are used (the pool counters anticipations, anticipation_hits and hold_skips);
# switching schedulers under that load loses nothing and the watchdog rescues nothing; turned
# off, no thread is held any more.  How much it gains is measured by make bench (scenario 1).
. /fairq/lib.sh
fairq_need_sched fq
fairq_bench_lib /tmp/antic
TUN=$FAIRQ_SYSFS/fq/anticipate_us
trap 'echo 0 >$TUN; pkill -INT -x fairq-load; svctime_off; fairq_set_sched fifo; rpc.nfsd $FAIRQ_THREADS' EXIT

[ "$(cat "$TUN")" = 0 ] || fail "anticipation is on by default ($(cat "$TUN"))"
for bad in 100001 -1 abc; do
	! echo "$bad" >"$TUN" 2>/dev/null || fail "anticipate_us accepted $bad"
done
[ "$(cat "$TUN")" = 0 ] || fail "a refused value changed anticipate_us to $(cat "$TUN")"

rpc.nfsd 8
svctime_on 10000
fairq_set_sched fq
echo 5000 >"$TUN" || fail "anticipate_us 5000 refused"
greedy_start greedy 8 8
skips0=$(fairq_pool_sum hold_skips)
client 2 -K 1 -W 1 -w 1 -d 8 --label light "$B_EXPORT" >/tmp/light.json
antic=$(fairq_pool_sum anticipations)
hits=$(fairq_pool_sum anticipation_hits)
skips=$(($(fairq_pool_sum hold_skips) - skips0))
ops=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["client"]["ops"])' /tmp/light.json)
log "window-1 client: $ops calls in 8 s; threads held $antic times, $hits used, $skips hand-offs held back"
[ "$ops" -gt 0 ] || fail "the window-1 client made no progress"
[ "$antic" -gt 10 ] || fail "no thread was held for the window-1 client ($antic)"
# each hit is a call that found its thread waiting; under emulation some replies take the
# client longer than 5 ms to answer, and those holds run out
[ $((hits * 4)) -ge "$antic" ] || fail "only $hits of $antic holds were used"
[ "$skips" -gt 0 ] || fail "no hand-off was held back: the held thread took other work"

# switches under the load, holds under way: nothing lost (the clients time out on a lost call)
ip netns exec c2 $FL -j -K 1 -W 1 -d 0 --label light2 "$B_EXPORT" >/tmp/light2.json 2>/tmp/light2.err &
light_pid=$!
fairq_switch_storm 60
sleep 2
kill -0 "$light_pid" || fail "the window-1 client died during the switches: $(cat /tmp/light2.err)"

echo 0 >"$TUN"
sleep 1
antic=$(fairq_pool_sum anticipations)
sleep 3
[ "$(fairq_pool_sum anticipations)" = "$antic" ] || fail "threads still held with anticipate_us 0"
kill -INT "$light_pid"
wait "$light_pid" || fail "the window-1 client: $(cat /tmp/light2.err)"
greedy_stop
sleep 1
[ "$(fairq_pool_sum queued)" = 0 ] || fail "transports left queued: $(cat "$FAIRQ_DEBUGFS/pools")"
[ "$(fairq_rescues)" = 0 ] || fail "the watchdog rescued transports"
log "ok: held threads were used, switches lost nothing"
