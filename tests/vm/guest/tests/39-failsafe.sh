#!/bin/bash
# The fail-safe.  (On 6.1 it also shows that a policy holding work back does not set nfsd's
# threads waking each other for it: that storm served the work before the watchdog could.)
# A scheduler that strands work (the test policy extfifo with strand_ms: each
# queue head hidden, nobody woken, until the watchdog finds it) is replaced by fifo by fairq
# itself once the watchdog has rescued failsafe_rescues transports within 10 s.  The switch is
# logged with its reason, announced (fairqctl monitor: reason failsafe) and counted (module
# counter failsafe_switches in fairqctl pools and metrics); nothing queued is lost (fio
# verifies) and the policy's module is free to go.  With failsafe_rescues 0 the same policy is
# left in place.  Bad values are refused and change nothing.
. /fairq/lib.sh
. /fairq/fairqctl-lib.sh
M=/fairq/extra/fairq_extsched.ko
FS=$FAIRQ_SYSFS/failsafe_rescues
cleanup() {
	pkill -INT -x fio
	[ -n "${mon:-}" ] && kill -INT "$mon" 2>/dev/null
	fairq_set_sched fifo 2>/dev/null
	rmmod fairq_extsched 2>/dev/null
	# the next tests count rescues from 0 (fairq_rescues), as a fresh module does
	rmmod fairq && modprobe fairq
}
trap cleanup EXIT
fairq_expect_rescues
switches() { fairqctl -j pools | fairq_json 'd["module"]["failsafe_switches"]'; }

[ "$(cat "$FS")" = 20 ] || fail "failsafe_rescues is $(cat "$FS") at load, not 20"
fairq_expect_write_fails "$FS" -1
fairq_expect_write_fails "$FS" abc
fairq_expect_write_fails "$FS" 100001
insmod $M || fail "the policy module did not load"
before=$(switches) || fail "fairqctl pools has no module counters"

# off: the policy strands work, the watchdog rescues it, fairq keeps it
echo 0 >"$FS"
fairq_fio_start
sleep 10	# the mounts and the v4 grace period
fairq_set_sched extfifo || fail "extfifo could not be selected"
echo 50 >"$FAIRQ_SYSFS/extfifo/strand_ms" || fail "extfifo refused strand_ms"
r0=$(fairq_rescues)
sleep 10
stranded=$(($(fairq_rescues) - r0))
[ "$stranded" -ge 5 ] || fail "only $stranded rescues in 10 s of stranded work: the test cannot show the fail-safe"
[ "$(fairq_sched)" = extfifo ] || fail "fairq left extfifo with the fail-safe off (now $(fairq_sched))"
log "fail-safe off: $stranded rescues in 10 s, extfifo kept"

# the count is the active policy's: a switch starts it again
rescued_since() {	# rescued_since BASE N: wait (20 s at most) for N rescues after BASE
	local t0=$SECONDS
	while [ $(($(fairq_rescues) - $1)) -lt "$2" ] && [ $((SECONDS - t0)) -lt 20 ]; do sleep 0.2; done
	echo $(($(fairq_rescues) - $1))
}
echo 1000 >"$FS"	# counting, far from tripping
n1=$(rescued_since "$(fairq_rescues)" 4)
[ "$n1" -ge 4 ] || fail "only $n1 rescues in 20 s of stranded work"
echo $((n1 + 3)) >"$FS"	# three more of the same policy's would trip it
fairq_set_sched qfifo && fairq_set_sched extfifo || fail "could not switch away and back"
n2=$(rescued_since "$(fairq_rescues)" 4)
[ "$(fairq_sched)" = extfifo ] ||
	fail "the fail-safe tripped after $n2 rescues: it counted the $n1 from before the switch"
echo 0 >"$FS"
log "a switch starts the count again: $n1 rescues, a switch, $n2 more, no trip at $((n1 + 3))"

# on, at 5: fairq switches to fifo by itself, and says so everywhere
fairqctl -j monitor >/tmp/failsafe-events.json 2>/tmp/failsafe-events.err &
mon=$!
wd=$(cat "$FAIRQ_SYSFS/watchdog_ms")
for i in $(seq 1 60); do	# the monitor listens once it has seen a change (not the fail-safe's)
	echo $((wd + i % 2)) >"$FAIRQ_SYSFS/watchdog_ms"
	sleep 0.5
	grep -q '"tunable":"watchdog_ms"' /tmp/failsafe-events.json && break
done
grep -q '"tunable":"watchdog_ms"' /tmp/failsafe-events.json ||
	fail "fairqctl monitor saw no change in 30 s: $(cat /tmp/failsafe-events.err)"
echo "$wd" >"$FAIRQ_SYSFS/watchdog_ms"
echo 5 >"$FS"
t0=$SECONDS
while [ "$(fairq_sched)" != fifo ] && [ $((SECONDS - t0)) -lt 60 ]; do sleep 0.5; done
[ "$(fairq_sched)" = fifo ] || fail "fairq kept extfifo for 60 s of stranded work with failsafe_rescues 5"
took=$((SECONDS - t0))
sleep 2
kill -INT $mon
wait $mon || fail "fairqctl monitor failed: $(cat /tmp/failsafe-events.err)"
mon=""
dmesg | grep -q 'fairq: scheduler: fifo (was extfifo), fail-safe: the watchdog rescued stranded work [0-9]* times within 10 s' ||
	fail "no kernel log line for the fail-safe switch: $(dmesg | tail -n 5)"
python3 -c '
import json, sys
sw = [j for j in map(json.loads, open(sys.argv[1])) if j["event"] == "sched-switch"]
assert sw and sw[-1]["previous"] == "extfifo" and sw[-1]["active"] == "fifo" and \
    sw[-1].get("reason") == "failsafe", sw' /tmp/failsafe-events.json ||
	fail "fairqctl monitor did not see the fail-safe switch: $(cat /tmp/failsafe-events.json)"
fairq_validate /tmp/failsafe-events.json
[ "$(switches)" = $((before + 1)) ] || fail "failsafe_switches is $(switches), not $((before + 1))"
fairqctl metrics | grep -qx "fairq_failsafe_switches_total $((before + 1))" ||
	fail "fairqctl metrics: $(fairqctl metrics | grep failsafe)"
fairqctl pools | grep -q "failsafe_switches $((before + 1))" || fail "fairqctl pools: no failsafe_switches"

# the clients were served throughout, and the policy's module is no longer held
sleep 3
fairq_fio_stop
rmmod fairq_extsched || fail "extfifo's module is still held after the fail-safe switch"
log "fail-safe on at 5: fifo after ${took}s, announced, logged, counted"
