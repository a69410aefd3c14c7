#!/bin/bash
# The service-time helper (fairq_svctime.ko, used by the fairness tests and the benchmarks) is
# unloaded while nfsd threads sleep inside its wrapper: the unload waits for them, so no thread
# returns into freed module text.  With 5 s per request, an unload started as soon as one is
# asleep there and over in less than 1.5 s left it behind.
. /fairq/lib.sh
fairq_bench_lib /tmp/helper-unload
trap 'pkill -INT -x fairq-load; svctime_off; rpc.nfsd "$FAIRQ_THREADS"' EXIT
rpc.nfsd 4
svctime_on 5000000
ip netns exec c1 $FL -K 4 -W 1 -d 0 --timeout 60 "$B_EXPORT" >/tmp/helper-unload.out 2>&1 &
load=$!
# the client's mount and connections take their time under TCG: wait for sleepers
for i in $(seq 1 100); do
	[ "$(cat /sys/module/fairq_svctime/parameters/inside)" -gt 0 ] && break
	sleep 0.2
done
n=$(cat /sys/module/fairq_svctime/parameters/inside)
[ "$n" -gt 0 ] || fail "no request reached the helper's wrapper in 20 s: $(tail -n 3 /tmp/helper-unload.out)"
t0=$(date +%s%N)
rmmod fairq_svctime || fail "the helper did not unload"
ms=$((($(date +%s%N) - t0) / 1000000))
[ "$ms" -ge 1500 ] || fail "the helper unloaded in $ms ms with requests asleep in its wrapper"
sleep 2	# the threads are back in nfsd, serving without the helper
kill -INT $load
wait $load || fail "the client failed: $(tail -n 3 /tmp/helper-unload.out)"
log "unload waited $ms ms for the $n requests asleep in the wrapper"
