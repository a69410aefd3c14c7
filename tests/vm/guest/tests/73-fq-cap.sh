#!/bin/bash
# fq's per-key cap (max_inflight): off by default and range-checked; with a cap of 2, a
# client of 8 connections (window 4 each) never has more than 2 requests in processing (sampled
# from fairqctl shares) and gets about 2 threads' worth of an 8-thread pool of 20 ms requests,
# where without a cap it takes most of the pool; a second client is capped alike, not starved.
# Threads taking work past the cap are counted (cap_overruns): none, also while the client opens
# new connections all along, and none in the race build, whose dispatches stay on their way to
# a thread 5 ms (6.1).  A connection that closes with a dispatch on its way gives the key its
# place back at once.  Switching schedulers, unloading the module and restarting nfsd with the cap on
# (threads holding charges) lose nothing, warn of nothing, and the watchdog rescues nothing;
# with the cap back at 0 the client's rate comes back.
. /fairq/lib.sh
. /fairq/fairqctl-lib.sh
fairq_need_sched fq
fairq_bench_lib /tmp/cap
TUN=$FAIRQ_SYSFS/fq/max_inflight
R=/fairq/extra/fairq-races.ko
warnings0=$(dmesg | grep -c 'WARNING:')
cleanup() {
	touch "$B_OUT/churned" "$B_OUT/stop" "$B_OUT/reset"
	echo 0 >"$TUN"
	pkill -INT -x fairq-load
	svctime_off
	fairq_set_sched fifo
	if [ -e /sys/module/fairq/parameters/test_delay_us ]; then
		rmmod fairq
		modprobe fairq
	fi
	grep -q '^fairq ' /proc/modules || modprobe fairq
	rpc.nfsd "$FAIRQ_THREADS"
}
trap cleanup EXIT

[ "$(cat "$TUN")" = 0 ] || fail "the cap is on by default ($(cat "$TUN"))"
for bad in 8193 -1 abc; do
	fairq_expect_write_fails "$TUN" "$bad"
done
fairqctl set fq.max_inflight 9000 2>/tmp/set.err && fail "fairqctl set accepted 9000"
grep -q . /tmp/set.err || fail "fairqctl set refused 9000 without a reason"

D_US=20000
rpc.nfsd 8
svctime_on "$D_US"
fairq_set_sched fq

# rate NAME: client 1's calls per second over a 4 s window (after 1 s of warm-up), in RATE
rate() {
	local name=$1
	ip netns exec c1 $FL -j -K 8 -W 4 -w 1 -d 4 --label "$name" "$B_EXPORT" \
		>"$B_OUT/$name.json" 2>"$B_OUT/$name.err" || fail "client 1 ($name): $(cat "$B_OUT/$name.err")"
	RATE=$(python3 -c 'import json,sys; print(int(json.load(open(sys.argv[1]))["client"]["ops"] / 4))' \
		"$B_OUT/$name.json")
}
per_thread=$((1000000 / D_US))	# calls a second one thread can serve

# churn_start: client 1 opens a connection every 20 ms (holding up to 50) until churn_stop.  On
# 6.1 the thread that accepts one gives it its first enqueue, and was once charged for it: that
# spent a dispatch on its way to another thread, and a third thread then worked for the key.
churn_start() {
	rm -f "$B_OUT/churned"
	ip netns exec c1 python3 -c '
import os, socket, sys, time
held = []
while not os.path.exists(sys.argv[2]):
	try:
		held.append(socket.create_connection((sys.argv[1], 2049), timeout=5))
	except OSError:
		pass
	if len(held) > 50:
		held.pop(0).close()
	time.sleep(0.02)
print(len(held))
' "$FAIRQ_SERVER" "$B_OUT/churned" >"$B_OUT/churn" 2>&1 &
	churn=$!
}
churn_stop() {
	touch "$B_OUT/churned"
	wait "$churn" || fail "the connecting client failed: $(cat "$B_OUT/churn")"
}

rate free
free_rate=$RATE
log "8 connections, no cap: $free_rate calls/s (one thread serves at most $per_thread)"
[ "$free_rate" -gt $((3 * per_thread)) ] || fail "without a cap the client had less than 3 threads"

fairqctl set fq.max_inflight 2 || fail "fairqctl set fq.max_inflight 2 failed"
[ "$(cat "$TUN")" = 2 ] || fail "max_inflight reads $(cat "$TUN") after setting 2"
holds0=$(fairq_pool_sum holds)
wakeups0=$(fairq_pool_sum wakeups)
pushed0=$(fairq_pool_sum fed_push)
overruns0=$(fairq_pool_sum cap_overruns)
# sample every key's requests in processing (column 6) for as long as the capped load runs
rm -f "$B_OUT/stop"
(
	while [ ! -e "$B_OUT/stop" ]; do
		fairqctl shares 2>/dev/null | awk 'NR > 1 && $6 > m { m = $6 } END { print m + 0 }'
	done
) >"$B_OUT/inflight" &
sampler=$!
churn_start
ip netns exec c2 $FL -j -K 1 -W 4 -w 1 -d 4 --label other "$B_EXPORT" >"$B_OUT/other.json" 2>"$B_OUT/other.err" &
other=$!
rate capped
capped_rate=$RATE
wait "$other" || fail "the second client failed: $(cat "$B_OUT/other.err")"
touch "$B_OUT/stop"
wait "$sampler"
churn_stop
overruns=$(($(fairq_pool_sum cap_overruns) - overruns0))
other_rate=$(python3 -c 'import json,sys; print(int(json.load(open(sys.argv[1]))["client"]["ops"] / 4))' "$B_OUT/other.json")
max_inflight=$(sort -n "$B_OUT/inflight" | tail -n 1)
samples=$(grep -c . "$B_OUT/inflight")
holds=$(($(fairq_pool_sum holds) - holds0))
log "cap 2: 8 connections $capped_rate calls/s, the 1-connection client $other_rate; most in processing for one key $max_inflight ($samples samples); $holds holds; $overruns overruns, $(cat "$B_OUT/churn") new connections held at the end"
[ "$samples" -ge 3 ] || fail "only $samples samples of the keys"
[ "${max_inflight:-9}" -le 2 ] || fail "a key had $max_inflight requests in processing under a cap of 2"
[ "$overruns" = 0 ] || fail "$overruns times a third thread took the capped key's work (cap_overruns)"
# 2 threads of 20 ms: 100 calls/s; generous for emulation, but well below the uncapped rate
[ "$capped_rate" -le $((2 * per_thread * 115 / 100)) ] ||
	fail "capped at 2, the client got $capped_rate calls/s (2 threads serve $((2 * per_thread)))"
[ "$other_rate" -le $((2 * per_thread * 115 / 100)) ] || fail "the second client was not capped ($other_rate calls/s)"
# lower bounds against the uncapped rate of the same run, not emulated calls/s: 2 of 8
# threads are a quarter of it, and the one-connection client is not starved
[ $((capped_rate * 8)) -ge "$free_rate" ] ||
	fail "capped at 2, the client got $capped_rate calls/s, under an eighth of its uncapped $free_rate"
[ $((other_rate * 16)) -ge "$free_rate" ] ||
	fail "the second client was starved: $other_rate calls/s against the uncapped $free_rate"
[ "$holds" -gt 0 ] || fail "no key was ever held at its cap"
# a thread woken is a thread handed work: none is woken for a key held at its cap (6.1 claims
# a thread before the hand-off, and used to wake it for nothing)
wakeups=$(($(fairq_pool_sum wakeups) - wakeups0))
idle_wakeups=$((wakeups - ($(fairq_pool_sum fed_push) - pushed0)))
log "cap 2: $wakeups threads woken, $idle_wakeups of them for nothing"
[ $((idle_wakeups * 10)) -le "$wakeups" ] || fail "$idle_wakeups of $wakeups wakeups handed the thread nothing"

# 1 MiB writes under a cap of 1: most records arrive in pieces, and a thread that read only a
# piece gives its place back when it looks for work again (6.1: at its svc_xprt_received)
fairqctl set fq.max_inflight 1 || fail "max_inflight 1 refused"
lost0=$(fairq_pool_sum lost_handoffs)
timeout 300 bash -c ". /fairq/lib.sh; fairq_nfs 2 3 'dd if=/dev/zero of=big bs=1M count=16 conv=fsync 2>/dev/null && rm -f big'" ||
	fail "16 MiB of writes under a cap of 1 failed or stalled"
[ "$(fairq_pool_sum lost_handoffs)" = "$lost0" ] ||
	fail "hand-offs of the writes were never seen on a thread: $(fairq_pool_sum lost_handoffs)"

# Connections that close with a dispatch on its way: client 1 keeps one call at a time in
# processing while it opens connections that each send a call, once accepted, and reset at once.
# fq hands such a connection out when its call arrives, and the thread that takes it only
# deletes it: the dispatch ends at the close (handoffs_returned), and the key keeps its place
# under its cap.  A dispatch that never ended held the busy key one thread short, at its cap
# with no thread working for it once two had: the watchdog then gave them up after a second
# (lost_handoffs).
fairqctl set fq.max_inflight 2 || fail "max_inflight 2 refused"
lost0=$(fairq_pool_sum lost_handoffs)
closed0=$(fairq_pool_sum handoffs_returned)
overruns0=$(fairq_pool_sum cap_overruns)
rm -f "$B_OUT/reset"
ip netns exec c1 python3 -c '
import os, socket, struct, sys, time
# an NFSv3 NULL call, AUTH_NONE, in one record
call = struct.pack(">IIIIIIIIII", 1, 0, 2, 100003, 3, 0, 0, 0, 0, 0)
sent = 0
while not os.path.exists(sys.argv[2]):
	try:
		s = socket.create_connection((sys.argv[1], 2049), timeout=5)
		s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
		time.sleep(0.03)	# accepted by then: the call reaches a transport, not a backlog
		s.sendall(struct.pack(">I", 0x80000000 | len(call)) + call)
		s.close()
		sent += 1
	except OSError:
		pass
	time.sleep(0.01)
print(sent)
' "$FAIRQ_SERVER" "$B_OUT/reset" >"$B_OUT/resets" 2>&1 &
resetter=$!
ip netns exec c1 $FL -j -K 1 -W 1 -d 8 --label resets "$B_EXPORT" >"$B_OUT/resets.json" \
	2>"$B_OUT/resets.err" || fail "client 1 beside its resets: $(cat "$B_OUT/resets.err")"
touch "$B_OUT/reset"
wait "$resetter" || fail "the resetting client failed: $(cat "$B_OUT/resets")"
lost=$(($(fairq_pool_sum lost_handoffs) - lost0))
closed=$(($(fairq_pool_sum handoffs_returned) - closed0))
log "cap 2, $(cat "$B_OUT/resets") connections reset after a call: $closed dispatches ended at the close, $lost given up"
[ "$lost" = 0 ] || fail "$lost dispatches of connections that closed on their way were given up for lost"
overruns=$(($(fairq_pool_sum cap_overruns) - overruns0))
[ "$overruns" = 0 ] || fail "a dispatch ended twice: $overruns times a third thread took the key's work"
[ "$closed" -gt 0 ] || fail "no connection closed with a dispatch on its way: the case was not provoked"
# a single dispatch never ended is never given up while the key stays busy: its 8 connections
# would then get one thread, not two
rate after_resets
log "cap 2 after the resets: $RATE calls/s (before: $capped_rate)"
[ $((RATE * 4)) -ge $((capped_rate * 3)) ] ||
	fail "after the resets the capped client got $RATE calls/s, against $capped_rate before: a closed connection's dispatch kept its place"

# switches under the capped load: nothing lost (the clients time out on a lost call)
ip netns exec c1 $FL -j -K 8 -W 4 -d 0 --label sw "$B_EXPORT" >"$B_OUT/sw.json" 2>"$B_OUT/sw.err" &
sw_pid=$!
fairq_switch_storm 40 "echo \$((1 + RANDOM % 3)) >$TUN"
echo 2 >"$TUN"
sleep 2
kill -0 "$sw_pid" || fail "the client died during the switches: $(cat "$B_OUT/sw.err")"
# unload while threads hold charges under the cap: everything goes back to the kernel
rmmod fairq || fail "rmmod with a cap set under load failed"
modprobe fairq || fail "reload failed"
fairq_set_sched fq
fairqctl set fq.max_inflight 2 || fail "max_inflight 2 refused after the reload"
sleep 2
kill -0 "$sw_pid" || fail "the client died across the unload: $(cat "$B_OUT/sw.err")"
kill -INT "$sw_pid"
wait "$sw_pid" || fail "the client: $(cat "$B_OUT/sw.err")"
# nfsd stops and starts with the cap set: its threads' records go with the service
timeout 60 rpc.nfsd 0 || fail "nfsd shutdown with a cap set did not finish within 60 s"
sleep 1
fairq_nfsd_up 8 || fail "nfsd restart failed"
for try in $(seq 1 30); do
	ip netns exec c1 $FL -O null -n 1 "$B_EXPORT" >/dev/null 2>&1 && break
	sleep 1
done

# The race build holds every thread's svc_xprt_received() 5 ms before the thread is seen with
# its transport (6.1 only: later kernels see it at the dequeue, and never get there): dispatches
# stay on their way that long, and the connections client 1 opens meanwhile are accepted while
# they do.
if [ "$FAIRQ_SERIES" = 6.1 ]; then
	rmmod fairq || fail "rmmod before the race build failed"
	insmod $R test_delay_us=0,0,0,0,0,0,0,0,0,0,5000 || fail "cannot load the race build"
	fairq_set_sched fq || fail "race build: switch to fq refused"
	fairqctl set fq.max_inflight 2 || fail "race build: max_inflight 2 refused"
	overruns0=$(fairq_pool_sum cap_overruns)
	holds0=$(fairq_pool_sum holds)
	lost0=$(fairq_pool_sum lost_handoffs)
	churn_start
	ip netns exec c1 $FL -j -K 8 -W 4 -d 4 --label race "$B_EXPORT" >"$B_OUT/race.json" \
		2>"$B_OUT/race.err" || fail "client 1 (race build): $(cat "$B_OUT/race.err")"
	churn_stop
	overruns=$(($(fairq_pool_sum cap_overruns) - overruns0))
	holds=$(($(fairq_pool_sum holds) - holds0))
	sleep 2	# a key held by dispatches never ended is given up a second after its last work
	lost=$(($(fairq_pool_sum lost_handoffs) - lost0))
	log "race build: $(cat "$B_OUT/churn") new connections held at the end, $overruns overruns, $holds holds, $lost dispatches given up"
	[ "$holds" -gt 0 ] || fail "race build: the key was never held at its cap"
	[ "$overruns" = 0 ] ||
		fail "race build: $overruns times a third thread took the capped key's work (cap_overruns)"
	# a transport given back is dispatched again before its thread is seen: both dispatches end
	[ "$lost" = 0 ] || fail "race build: $lost dispatches were never ended by a thread (lost_handoffs)"
	rmmod fairq || fail "rmmod of the race build failed"
	modprobe fairq || fail "reload after the race build failed"
	fairq_set_sched fq || fail "switch to fq refused after the race build"
fi

echo 0 >"$TUN" || fail "max_inflight 0 refused"
rate again
again=$RATE
log "cap back to 0: $again calls/s"
[ "$again" -ge $((capped_rate * 2)) ] || fail "without the cap the client stayed at $again calls/s"
sleep 1
[ "$(fairq_pool_sum queued)" = 0 ] || fail "transports left queued: $(cat "$FAIRQ_DEBUGFS/pools")"
[ "$(fairq_rescues)" = 0 ] || fail "the watchdog rescued transports"
log "lost hand-offs $(fairq_pool_sum lost_handoffs), untracked threads $(fairq_pool_sum untracked_threads)"
[ "$(fairq_pool_sum untracked_threads)" = 0 ] || fail "threads could not be tracked"
[ "$(dmesg | grep -c 'WARNING:')" = "$warnings0" ] || fail "kernel warnings: $(dmesg | grep -A5 'WARNING:' | tail -n 20)"
log "ok: the cap held, switches lost nothing"
