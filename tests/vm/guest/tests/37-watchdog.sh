#!/bin/bash
# The watchdog finds work whose wakeup was lost.  The race build (fairq-races.ko) loses every
# enqueue's wakeup on demand (test_fail_every's fifth entry): with every thread idle between
# one client's requests, only the watchdog can hand the queued transport to a thread.  Every
# request is still served (no I/O error, no retransmission), each rescue is counted and logged
# (rate-limited, not only the first); with the fault off again, no rescue.  A burst faster than
# the log's rate limit is counted whole.  The rescues here are expected, so this test
# tells the harness (fairq_expect_rescues), which otherwise fails a test on any of them.
. /fairq/lib.sh
. /fairq/fairqctl-lib.sh
R=/fairq/extra/fairq-races.ko
F=/sys/module/fairq/parameters/test_fail_every
ROUNDS=8
cleanup() {
	rmmod fairq 2>/dev/null
	modprobe fairq
}
trap cleanup EXIT
fairq_expect_rescues

rmmod fairq
insmod $R || fail "cannot load the race build"
FAIRQ_RESCUES_BASE=0	# a fresh module counts from 0, whatever the one before had counted
# these rescues are the watchdog's own test, not a policy stranding work (the failsafe test)
echo 0 >"$FAIRQ_SYSFS/failsafe_rescues"
wd=$(cat "$FAIRQ_SYSFS/watchdog_ms")
fairq_set_sched qfifo || fail "switch to qfifo refused"
# one client, one request at a time, with pauses in which every thread goes idle
io="for i in \$(seq $ROUNDS); do dd if=/dev/zero of=f bs=4k count=1 conv=fsync 2>/dev/null && cat f >/dev/null || exit 1; sleep 0.3; done"
retrans0=$(fairq_retrans 1)

lines=$(dmesg | wc -l)
echo 0,0,0,0,1 >$F || fail "cannot arm the lost wakeups"
t0=$SECONDS
fairq_nfs 1 3 "$io" || fail "I/O failed while every wakeup was lost"
lost_secs=$((SECONDS - t0))
echo 0,0,0,0,0 >$F
rescues=$(fairq_rescues)
[ "$rescues" -ge "$ROUNDS" ] ||
	fail "$rescues rescues for $ROUNDS rounds of requests whose wakeups were all lost"
logged=$(dmesg | tail -n +$((lines + 1)) | grep -c 'fairq: rescued a stalled transport in pool [0-9]* ([0-9]* since load' || true)
[ "$logged" -ge 2 ] && [ "$logged" -le "$rescues" ] ||
	fail "$logged rescue lines in the kernel log for $rescues rescues (each is logged, rate-limited)"
log "every wakeup lost: $ROUNDS rounds served in ${lost_secs}s through $rescues rescues, $logged logged (watchdog ${wd} ms)"

# The race build's counters of the wakeups it lost (each pool's test_lost_wakeups, the
# module's test_faults_injected) are ones no fairqctl has a line for: it shows them by their
# names, in JSON, text and metrics, as it would a counter a newer module adds.
lost=$(fairq_pool_sum test_lost_wakeups)
[ "$lost" -ge "$ROUNDS" ] || fail "test_lost_wakeups is $lost in debugfs after $ROUNDS rounds"
fairqctl -j pools >/tmp/named.json && fairqctl pools >/tmp/named.txt &&
	fairqctl metrics >/tmp/named.prom || fail "fairqctl pools or metrics failed"
fairq_validate /tmp/named.json
python3 - "$lost" <<'PY' || fail "fairqctl does not show the counters it has no line for: $(cat /tmp/named.txt)"
import json, re, sys
d = json.load(open("/tmp/named.json"))
lost = sum(p["test_lost_wakeups"] for p in d["pools"])
assert lost == int(sys.argv[1]), (lost, sys.argv[1])
assert d["module"]["test_faults_injected"] >= lost, d["module"]
text = open("/tmp/named.txt").read()
shown = sum(int(n) for n in re.findall(r"^ +fairq: test_lost_wakeups ([0-9]+)$", text, re.M))
assert shown == lost, (shown, lost, text)
assert re.search(r"^module: .*, test_faults_injected [0-9]+$", text, re.M), text
prom = open("/tmp/named.prom").read()
metric = sum(int(n) for n in re.findall(r"^fairq_pool_test_lost_wakeups_total\{[^}]*\} ([0-9]+)$", prom, re.M))
assert metric == lost, (metric, lost)
assert re.search(r"^# TYPE fairq_pool_test_lost_wakeups_total counter$", prom, re.M), prom
assert re.search(r"^fairq_test_faults_injected_total [0-9]+$", prom, re.M), prom
print("# counters without a line in fairqctl: test_lost_wakeups %d in JSON, text and metrics; test_faults_injected %d"
      % (lost, d["module"]["test_faults_injected"]))
PY

fairq_nfs 1 3 "$io" || fail "I/O failed with the fault off"
[ "$(fairq_rescues)" = "$rescues" ] || fail "$(($(fairq_rescues) - rescues)) rescues with no wakeup lost"
[ "$(fairq_retrans 1)" = "$retrans0" ] || fail "the client retransmitted: $(($(fairq_retrans 1) - retrans0))"
log "fault off: no rescue; no retransmission"

# A burst of lost wakeups, faster than the log's rate limit (10 lines in 5 s): every rescue is
# still counted, in the total as in the pools, and each is a tracepoint event and a netlink
# event (fairqctl monitor).
TR=/sys/kernel/tracing
[ -d $TR/events ] || mount -t tracefs nodev $TR || fail "cannot mount tracefs"
buf0=$(cat $TR/buffer_size_kb)
echo 16384 >$TR/buffer_size_kb
: >$TR/trace
echo 1 >$TR/events/fairq/fairq_rescue/enable
fairqctl -j monitor >/tmp/rescue-events.json 2>/tmp/rescue-events.err &
mon=$!
# the monitor listens once it has seen a change: watchdog_ms set, again until it is seen
for i in $(seq 1 60); do
	echo $((10 + i % 2)) >"$FAIRQ_SYSFS/watchdog_ms"
	sleep 0.5
	grep -q '"tunable":"watchdog_ms"' /tmp/rescue-events.json && break
done
grep -q '"tunable":"watchdog_ms"' /tmp/rescue-events.json ||
	fail "fairqctl monitor saw no change in 30 s: $(cat /tmp/rescue-events.err)"
echo 10 >"$FAIRQ_SYSFS/watchdog_ms"
before=$(cat "$FAIRQ_SYSFS/rescues")
echo 0,0,0,0,1 >$F
ip netns exec c1 /usr/local/bin/fairq-load -K 4 -W 1 -d 4 "$FAIRQ_SERVER:$FAIRQ_EXPORT" >/tmp/burst.out 2>&1 ||
	fail "the burst with every wakeup lost failed: $(tail -n 3 /tmp/burst.out)"
echo 0,0,0,0,0 >$F
echo "$wd" >"$FAIRQ_SYSFS/watchdog_ms"
total=$(cat "$FAIRQ_SYSFS/rescues")
echo 0 >$TR/events/fairq/fairq_rescue/enable
pools=$(fairq_pool_sum rescues)
traced=$(grep -c ': fairq_rescue: serv=[0-9]* pool=[0-9]* total=' $TR/trace || true)
: >$TR/trace
echo "$buf0" >$TR/buffer_size_kb
[ "$traced" = $((total - before)) ] || fail "$traced rescue events for $((total - before)) rescues"
sleep 1
kill -INT $mon
wait $mon || fail "fairqctl monitor failed: $(cat /tmp/rescue-events.err)"
announced=$(python3 -c '
import json, sys
print(sum(1 for j in map(json.loads, sys.stdin) if j["event"] == "rescue"))' </tmp/rescue-events.json)
[ "$announced" = $((total - before)) ] ||
	fail "$announced rescues announced on netlink for $((total - before)) rescues"
[ "$total" = "$pools" ] || fail "the rescue total says $total, the pools' counters $pools"
[ "$((total - rescues))" -gt 10 ] ||
	fail "only $((total - rescues)) rescues in the burst: the log's rate limit was not reached"
log "burst: $((total - rescues)) rescues in 4 s, all counted (total $total = pools $pools), traced and announced"
