#!/bin/bash
# fairqctl's QoS classes against the module: class add, change and del take effect (a class
# limited to 40/s paces its client at 40/s, its counters say so), class list shows them as the
# kernel has them (text and JSON valid for the schema; weights, reservations, percent limits
# and per-key too), bad requests are refused with the kernel's reason, unprivileged callers
# are refused, showconf's CLASS lines given to fairq-apply bring back exactly the classes they
# describe (every setting), and every change is announced to fairqctl monitor (made, changed
# or deleted) and logged.  fq-class-share measures what the weights and percents do.
. /fairq/lib.sh
. /fairq/fairqctl-lib.sh
fairq_need_sched fq
fairq_bench_lib /tmp/fcclass
cleanup() {
	pkill -INT -x fairq-load
	for c in farm backup watched extra desk ws; do fairqctl class del $c >/dev/null 2>&1; done
	fairqctl class change default limit none weight none reserve none shared >/dev/null 2>&1
	fairq_set_sched fifo
}
trap cleanup EXIT
fairq_set_sched fq

fairqctl class add farm match 10.99.0.11 limit 40/s burst 2 || fail "class add farm failed"
fairqctl class add backup match 10.99.0.0/24 limit 1000/s || fail "class add backup failed"
fairqctl -j class list >/tmp/classes.json || fail "class list -j failed"
python3 - /tmp/classes.json <<'PY' || fail "class list: $(cat /tmp/classes.json)"
import json, sys
d = json.load(open(sys.argv[1]))
names = [c["name"] for c in d["classes"]]
assert names == ["farm", "backup", "default"], names
farm = d["classes"][0]
assert farm["limit_rps"] == 40 and farm["burst"] == 2 and farm["matches"] == ["10.99.0.11"], farm
assert d["classes"][1]["rank"] > farm["rank"], d
PY

ip netns exec c1 $FL -j -K 2 -W 4 -w 1 -d 8 --label farm "$B_EXPORT" >/tmp/farm.json 2>/tmp/farm.err &
load=$!
# paced at 40/s, the class's 8 calls in flight at the client mostly wait in fairq: its queued
# gauge (its keys' waiting transports, summed over the pools) says so while it runs; a few
# looks, the busiest kept, as a look can fall between two starts
sleep 4
: >/tmp/busy.json
for i in 1 2 3 4 5; do
	fairqctl -j class list farm >>/tmp/busy.json || fail "class list farm -j under load failed"
	sleep 0.3
done
wait $load || fail "client 1 failed: $(cat /tmp/farm.err)"
fairqctl -j class list farm >>/tmp/classes.json || fail "class list farm -j failed"
python3 - /tmp/busy.json /tmp/classes.json <<'PY' || fail "the class's gauges are wrong: $(cat /tmp/busy.json) then $(tail -n 1 /tmp/classes.json)"
import json, sys
busy = max((json.loads(l)["classes"][0] for l in open(sys.argv[1]) if l.strip()), key=lambda c: c["queued"])
idle = [json.loads(l) for l in open(sys.argv[2]) if l.strip()][-1]["classes"][0]
print("# farm under load: queued %d, in flight %d; after: queued %d, in flight %d"
      % (busy["queued"], busy["in_flight"], idle["queued"], idle["in_flight"]))
# two connections: each queued once at most (a connection may be queued again while one of
# its requests is on a thread)
assert 1 <= busy["queued"] <= 2, busy
assert idle["queued"] == 0 and idle["in_flight"] == 0, idle
PY
python3 - /tmp/farm.json /tmp/classes.json <<'PY' || fail "farm's rate or counters are wrong"
import json, sys
load = json.load(open(sys.argv[1]))
cls = [json.loads(l) for l in open(sys.argv[2]) if l.strip()][-1]["classes"]
assert [c["name"] for c in cls] == ["farm"], cls
rate = load["client"]["ops_per_s"]
print("# farm at %.1f/s (limit 40/s), class counters %s" % (rate, cls[0]))
assert 34 <= rate <= 41, "client 1 ran at %.1f/s" % rate
assert load["resent"] == 0 and load["reconnects"] == 0, load
assert cls[0]["dispatches"] >= load["client"]["ops"], cls
assert cls[0]["paced"] > 0 and cls[0]["paced_ns"] > 0, cls
PY
fairq_validate /tmp/classes.json
fairqctl class list >/tmp/classes.txt || fail "class list failed"
while IFS= read -r line; do log "$line"; done </tmp/classes.txt

# refusals: the kernel's reason, and nothing changed
fairq_expect 1 'exists' fairqctl class add farm match 10.99.0.12
fairq_expect 1 'rank' fairqctl class change backup rank "$(fairqctl -j class list farm | fairq_json 'd["classes"][0]["rank"]')"
fairq_expect 5 'no class' fairqctl class change nosuch limit 5/s
fairq_expect 2 'burst' fairqctl class change farm burst 0
fairq_expect 2 'default' fairqctl class del default
# what only the kernel can say: the reservations of all classes together, per-key on a class
# that has a reservation, or that would be left with neither a weight nor a limit
fairqctl class change farm reserve 60% || fail "class change farm reserve 60% failed"
fairq_expect 1 'more than 100%' fairqctl class change backup reserve 41%
fairq_expect 1 'not to a reservation' fairqctl class change farm per-key
fairq_expect 1 'weight or limits: give it one' fairqctl class change backup per-key limit none
fairqctl class change farm reserve none || fail "class change farm reserve none failed"
out=$(fairq_as_nobody fairqctl class add evil match 10.99.0.13 2>&1) && fail "an unprivileged class add was accepted"
log "unprivileged class add: $out"
fairq_as_nobody fairqctl class list >/dev/null 2>&1 && fail "an unprivileged class list showed the matches"
fairqctl -j class list >/tmp/after.json || fail "class list failed"
python3 - /tmp/classes.json /tmp/after.json <<'PY' || fail "a refusal changed the classes"
import json, sys
strip = lambda d: [{k: v for k, v in c.items() if k not in ("dispatches", "thread_ns", "paced", "paced_ns", "reserved", "below_ns", "queued", "in_flight")}
                   for c in d["classes"]]
before = json.loads(open(sys.argv[1]).readline())
after = json.load(open(sys.argv[2]))
assert strip(before) == strip(after), (before, after)
PY

# live change, then showconf -> fairq-apply restores the classes exactly, every setting
fairqctl class change farm limit none || fail "class change farm limit none failed"
[ "$(fairqctl -j class list farm | fairq_json 'd["classes"][0]["limit_rps"]')" = 0 ] ||
	fail "farm still has a limit"
fairqctl class change default limit 5000/s weight 2 || fail "class change default failed"
fairqctl class add desk match 10.99.1.0/24 weight 3 reserve 30% limit 200/s limit 40% burst 4 ||
	fail "class add desk failed"
fairqctl class add ws match fd00:99::/64 weight 5 per-key || fail "class add ws failed"
fairqctl -j class list >/tmp/set.json || fail "class list failed"
python3 - /tmp/set.json <<'PY' || fail "class list does not show the settings: $(cat /tmp/set.json)"
import json, sys
c = {c["name"]: c for c in json.load(open(sys.argv[1]))["classes"]}
want = {"desk": (3, 30, 200, 40, False, 4), "ws": (5, 0, 0, 0, True, 1), "default": (2, 0, 5000, 0, False, 1),
        "farm": (0, 0, 0, 0, False, 2)}
for n, w in want.items():
    got = tuple(c[n][k] for k in ("weight", "reserve_pct", "limit_rps", "limit_pct", "per_key", "burst"))
    assert got == w, (n, got, w)
PY
fairqctl class list | grep -E '^(desk|ws) ' | while IFS= read -r line; do log "$line"; done
fairqctl showconf >/tmp/state.conf || fail "showconf failed"
grep -q '^CLASS=' /tmp/state.conf || fail "showconf printed no class: $(cat /tmp/state.conf)"
fairqctl -j class list >/tmp/state.json
fairqctl class del farm || fail "class del farm failed"
fairqctl class change backup limit 7/s weight 9 || fail "class change backup failed"
fairqctl class change desk reserve 10% limit none shared || fail "class change desk failed"
fairqctl class change ws shared || fail "class change ws failed"
fairqctl class change default weight none || fail "class change default weight none failed"
fairqctl class add extra match 10.99.0.14 reserve 50% || fail "class add extra failed"
fairq-apply -c /tmp/state.conf >/tmp/apply.out 2>&1 || fail "fairq-apply of showconf's output: $(cat /tmp/apply.out)"
fairqctl -j class list >/tmp/restored.json
python3 - /tmp/state.json /tmp/restored.json <<'PY' || fail "fairq-apply did not restore the classes: $(cat /tmp/apply.out)"
import json, sys
strip = lambda d: [{k: v for k, v in c.items() if k not in ("dispatches", "thread_ns", "paced", "paced_ns", "reserved", "below_ns", "queued", "in_flight")}
                   for c in d["classes"]]
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert strip(a) == strip(b), (strip(a), strip(b))
PY
log "showconf -> fairq-apply: $(grep -c '^CLASS=' /tmp/state.conf) classes restored"
fairq-apply -c /tmp/state.conf >/tmp/apply2.out 2>&1 || fail "fairq-apply again: $(cat /tmp/apply2.out)"
[ "$(fairq_rescues)" = 0 ] || fail "the watchdog rescued transports"

# every class change is announced (to CAP_NET_ADMIN: matches name clients) with the class as it
# now is, in order, and logged with who made it
fairqctl -j monitor -n 3 -t 120 >/tmp/cmon.json 2>/tmp/cmon.err &
mon=$!
fairqctl monitor -n 3 -t 120 >/tmp/cmon.txt 2>/tmp/cmon-txt.err &
mon_text=$!
sleep 3
lines=$(dmesg | wc -l)
fairqctl class add watched match 10.99.0.13 match 10.99.1.0/24 limit 30/s burst 3 weight 4 ||
	fail "class add watched failed"
fairqctl class change watched limit none || fail "class change watched failed"
fairqctl class del watched || fail "class del watched failed"
wait $mon || fail "monitor failed: $(cat /tmp/cmon.err)"
wait $mon_text || fail "monitor (text) failed: $(cat /tmp/cmon-txt.err)"
# text: the time of day, then what class add takes after made or changed
sed -E 's/^[0-9:.]+ //' /tmp/cmon.txt >/tmp/cmon.words
grep -Eq '^class fq made watched rank [0-9]+ match 10.99.0.13 match 10.99.1.0/24 limit 30/s burst 3 weight 4$' /tmp/cmon.words &&
	grep -Eq '^class fq changed watched rank [0-9]+ match 10.99.0.13 match 10.99.1.0/24 limit none burst 3 weight 4$' /tmp/cmon.words &&
	grep -qx 'class fq deleted watched' /tmp/cmon.words ||
	fail "monitor's text does not say made, changed and deleted: $(cat /tmp/cmon.txt)"
events=$(python3 -c '
import json, sys
out = []
for j in map(json.loads, sys.stdin):
    assert j["event"] == "class-change" and j["sched"] == "fq" and j["class"] == "watched", j
    if j["deleted"]:
        assert not j["made"], j
        out.append("deleted")
    else:
        out.append("%s %d/%d w%d:%s" % ("made" if j["made"] else "changed", j["limit_rps"], j["burst"],
                                        j["weight"], ",".join(j["matches"])))
print(" ".join(out))' </tmp/cmon.json) || fail "the class events do not read right: $(cat /tmp/cmon.json)"
[ "$events" = "made 30/3 w4:10.99.0.13,10.99.1.0/24 changed 0/3 w4:10.99.0.13,10.99.1.0/24 deleted" ] ||
	fail "class events: '$events'"
fairq_validate /tmp/cmon.json || fail "the class events are not valid for the schema"
new=$(dmesg | tail -n +$((lines + 1)))
for w in made changed deleted; do
	echo "$new" | grep -q "fairq: fq class watched $w, by fairqctl\[" ||
		fail "no kernel log line for the class $w: $new"
done
log "class events: $events"
