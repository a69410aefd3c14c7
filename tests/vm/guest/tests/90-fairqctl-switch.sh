#!/bin/bash
# fairqctl and sysfs switch the same scheduler; every switch, from either, is announced on the
# netlink events group; every -j document of every command validates against the schema.
. /fairq/lib.sh
. /fairq/fairqctl-lib.sh
[ "$(fq_sched)" = fifo ] || fail "not starting from fifo"

names=$(fairqctl sched --names | sort | tr '\n' ' ')
[ "$names" = "$(fq_scheds | tr ' ' '\n' | sort | tr '\n' ' ')" ] ||
	fail "fairqctl offers '$names', sysfs '$(fq_scheds)'"

fairqctl -j monitor -n 3 -t 120 >/tmp/monitor.json 2>/tmp/monitor.err &
mon=$!
sleep 3	# subscribed before the first switch

fairqctl sched set qfifo || fail "fairqctl sched set qfifo failed"
[ "$(fq_sched)" = qfifo ] || fail "sysfs shows $(fq_sched) after fairqctl switched to qfifo"
dmesg | tail -n 5 | grep -q 'fairq: scheduler: qfifo' || fail "no dmesg line for the switch"
fq_set_sched fifo
[ "$(fairqctl -j sched | fq_json 'd["active"]')" = fifo ] ||
	fail "fairqctl does not see the sysfs switch to fifo"
fairqctl sched set fifo || fail "switching to the active scheduler must succeed"
fairqctl sched set qfifo || fail "second switch failed"
wait $mon || fail "monitor failed: $(cat /tmp/monitor.err)"
events=$(python3 -c 'import json,sys; print(" ".join("%s>%s" % (j["previous"], j["active"]) for j in map(json.loads, sys.stdin)))' </tmp/monitor.json)
[ "$events" = "fifo>qfifo qfifo>fifo fifo>qfifo" ] ||
	fail "events seen: '$events' (expected the netlink, sysfs and netlink switches, no event for a no-op)"
log "events: $events"

# every command's JSON, with fairq active and tracking the service, then idle under fifo
fq_traffic 1 || fail "NFS traffic failed"
: >/tmp/all.json
for c in show pools sched shares; do
	fairqctl -j $c >>/tmp/all.json || fail "fairqctl -j $c failed"
done
fairqctl -j watch -i 0.5 -n 2 >>/tmp/all.json || fail "fairqctl -j watch failed"
[ "$(fairqctl -j show | fq_json 'len(d["pools"])')" -ge 1 ] || fail "no pool under qfifo after traffic"
fq_set_sched fifo
for c in show pools sched shares; do
	fairqctl -j $c >>/tmp/all.json || fail "fairqctl -j $c failed under fifo"
done
fairqctl -j watch -i 0.5 -n 2 >>/tmp/all.json || fail "fairqctl -j watch failed under fifo"
fq_validate /tmp/all.json /tmp/monitor.json
# pretty JSON is the same document
[ "$(fairqctl -p sched | python3 -c 'import json,sys; print(json.load(sys.stdin)["active"])')" = fifo ] ||
	fail "fairqctl -p sched is not the same document"

# idle text output still says something useful
fairqctl >/tmp/show.txt || fail "fairqctl (show) failed under fifo"
grep -q 'fairq is idle' /tmp/show.txt || fail "show under fifo does not say fairq is idle: $(cat /tmp/show.txt)"
grep -q 'pool_stats' /tmp/show.txt || fail "show under fifo does not show nfsd's counters"
log "$(head -n 1 /tmp/show.txt)"
