#!/bin/bash
# fairqctl and sysfs switch the same scheduler; every switch, from either, is announced on the
# netlink events group, as are tunables and weights (these to CAP_NET_ADMIN only), each with
# its time and a kernel log line; every -j document of every command validates against the
# schema.
. /fairq/lib.sh
. /fairq/fairqctl-lib.sh
[ "$(fairq_sched)" = fifo ] || fail "not starting from fifo"

names=$(fairqctl sched --names | sort | tr '\n' ' ')
[ "$names" = "$(fairq_scheds | tr ' ' '\n' | sort | tr '\n' ' ')" ] ||
	fail "fairqctl offers '$names', sysfs '$(fairq_scheds)'"

fairqctl -j monitor -n 3 -t 120 >/tmp/monitor.json 2>/tmp/monitor.err &
mon=$!
sleep 3	# subscribed before the first switch

fairqctl sched set qfifo || fail "fairqctl sched set qfifo failed"
[ "$(fairq_sched)" = qfifo ] || fail "sysfs shows $(fairq_sched) after fairqctl switched to qfifo"
dmesg | tail -n 5 | grep -q 'fairq: scheduler: qfifo' || fail "no dmesg line for the switch"
fairq_set_sched fifo
[ "$(fairqctl -j sched | fairq_json 'd["active"]')" = fifo ] ||
	fail "fairqctl does not see the sysfs switch to fifo"
fairqctl sched set fifo || fail "switching to the active scheduler must succeed"
fairqctl sched set qfifo || fail "second switch failed"
wait $mon || fail "monitor failed: $(cat /tmp/monitor.err)"
events=$(python3 -c 'import json,sys; print(" ".join("%s>%s" % (j["previous"], j["active"]) for j in map(json.loads, sys.stdin)))' </tmp/monitor.json)
[ "$events" = "fifo>qfifo qfifo>fifo fifo>qfifo" ] ||
	fail "events seen: '$events' (expected the netlink, sysfs and netlink switches, no event for a no-op)"
log "events: $events"

# Every change is announced with the kernel's time, and logged with who made it: tunables
# (a write of the value already set is no change), fairq's own watchdog_ms, weights (to root,
# who may join their group), in order; the schema check below covers these documents too.
fairq_set_sched fq
q0=$(cat $FAIRQ_SYSFS/fq/quantum_us)
wd0=$(cat $FAIRQ_SYSFS/watchdog_ms)
fairqctl -j monitor -n 5 -t 120 >/tmp/changes.json 2>/tmp/changes.err &
mon=$!
sleep 3
t0=$(date +%s)
lines=$(dmesg | wc -l)
echo 7000 >$FAIRQ_SYSFS/fq/quantum_us || fail "quantum_us 7000 refused"
echo 7000 >$FAIRQ_SYSFS/fq/quantum_us || fail "quantum_us 7000 refused the second time"
fairqctl set fq.quantum_us "$q0" || fail "fairqctl set fq.quantum_us $q0 failed"
echo 250 >$FAIRQ_SYSFS/watchdog_ms || fail "watchdog_ms 250 refused"
echo "$wd0" >$FAIRQ_SYSFS/watchdog_ms
fairqctl weight 10.99.0.11 4 || fail "fairqctl weight failed"
wait $mon || fail "monitor failed: $(cat /tmp/changes.err)"
changes=$(python3 -c '
import json, sys
t0 = int(sys.argv[1])
out = []
for j in map(json.loads, sys.stdin):
    assert abs(j["time_ns"] / 1e9 - t0) < 60, "a time far from now: %r" % j
    e = j["event"]
    if e == "param-change":
        out.append("%s%s=%d<%d" % (j["sched"] + "." if "sched" in j else "", j["tunable"], j["value"], j["previous_value"]))
    elif e == "weight-change":
        out.append("%s:%s=%d" % (j["sched"], j["key"], j["weight"]))
    else:
        out.append(e)
print(" ".join(out))' "$t0" </tmp/changes.json) || fail "the change events do not read right: $(cat /tmp/changes.json)"
[ "$changes" = "fq.quantum_us=7000<$q0 fq.quantum_us=$q0<7000 watchdog_ms=250<$wd0 watchdog_ms=$wd0<250 fq:10.99.0.11=4" ] ||
	fail "change events: '$changes'"
log "change events: $changes"
new=$(dmesg | tail -n +$((lines + 1)))
for l in "fairq: fq.quantum_us: 7000 (was $q0), by " "fairq: fq.quantum_us: $q0 (was 7000), by fairqctl\[" \
	"fairq: watchdog_ms: 250 (was $wd0), by " "fairq: fq weight of 10.99.0.11: 4, by fairqctl\["; do
	echo "$new" | grep -q "$l" || fail "no kernel log line '$l': $new"
done
[ "$(echo "$new" | grep -c 'quantum_us: 7000')" = 1 ] || fail "the unchanged write was logged: $new"
lines=$(dmesg | wc -l)
fairqctl weight 10.99.0.11 0 || fail "fairqctl weight 0 failed"
dmesg | tail -n +$((lines + 1)) | grep -q "fairq: fq weight of 10.99.0.11: the default, by fairqctl\[" ||
	fail "no log line for the weight restored"
# a user without CAP_NET_ADMIN sees switches but not the weights that name clients
fairq_as_nobody fairqctl monitor -n 1 -t 60 >/tmp/unpriv.out 2>/tmp/unpriv.err &
mon=$!
sleep 3
fairqctl weight 10.99.0.12 2 || fail "fairqctl weight 10.99.0.12 2 failed"
fairq_set_sched qfifo
wait $mon || fail "the unprivileged monitor failed: $(cat /tmp/unpriv.err)"
grep -q 'scheduler fq -> qfifo' /tmp/unpriv.out || fail "the unprivileged monitor: $(cat /tmp/unpriv.out)"
grep -q 'weight and class changes name clients and need CAP_NET_ADMIN' /tmp/unpriv.err ||
	fail "the unprivileged monitor did not say why weights are not shown: $(cat /tmp/unpriv.err)"
fairq_set_sched fq
fairqctl weight 10.99.0.12 0 || fail "fairqctl weight 10.99.0.12 0 failed"
fairq_set_sched qfifo	# as the part below expects
log "unprivileged monitor: $(cat /tmp/unpriv.out)"

# every command's JSON, with fairq active and tracking the service, then idle under fifo
fairq_traffic 1 || fail "NFS traffic failed"
: >/tmp/all.json
for c in show pools sched shares; do
	fairqctl -j $c >>/tmp/all.json || fail "fairqctl -j $c failed"
done
fairqctl -j watch -i 0.5 -n 2 >>/tmp/all.json || fail "fairqctl -j watch failed"
[ "$(fairqctl -j show | fairq_json 'len(d["pools"])')" -ge 1 ] || fail "no pool under qfifo after traffic"
fairq_set_sched fifo
for c in show pools sched shares; do
	fairqctl -j $c >>/tmp/all.json || fail "fairqctl -j $c failed under fifo"
done
fairqctl -j watch -i 0.5 -n 2 >>/tmp/all.json || fail "fairqctl -j watch failed under fifo"
fairq_validate /tmp/all.json /tmp/monitor.json /tmp/changes.json
# pretty JSON is the same document
[ "$(fairqctl -p sched | python3 -c 'import json,sys; print(json.load(sys.stdin)["active"])')" = fifo ] ||
	fail "fairqctl -p sched is not the same document"

# idle text output still says something useful
fairqctl >/tmp/show.txt || fail "fairqctl (show) failed under fifo"
grep -q 'fairq is idle' /tmp/show.txt || fail "show under fifo does not say fairq is idle: $(cat /tmp/show.txt)"
grep -q 'pool_stats' /tmp/show.txt || fail "show under fifo does not show nfsd's counters"
log "$(head -n 1 /tmp/show.txt)"
