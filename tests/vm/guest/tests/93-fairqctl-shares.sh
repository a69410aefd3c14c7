#!/bin/bash
# Under the keyed fq scheduler, fairqctl shares lists one key per client address with the
# dispatches the load put in, filters by pool and key, keeps --top, and validates as JSON;
# under a keyless scheduler it says there are no per-key accounts.  fairqctl metrics gives the
# same numbers in the Prometheus text format.  weights and showconf list the state, and
# fairq-apply of showconf's output restores it.
. /fairq/lib.sh
. /fairq/fairqctl-lib.sh
fairq_scheds | tr ' ' '\n' | grep -qx fq || { echo "no keyed scheduler (fq) on this kernel"; exit 4; }
idle=$(cat "$FAIRQ_SYSFS/fq/idle_secs")
wd0=$(cat $FAIRQ_SYSFS/watchdog_ms)
trap 'fairq_set_sched fifo; echo $idle >$FAIRQ_SYSFS/fq/idle_secs; echo $wd0 >$FAIRQ_SYSFS/watchdog_ms' EXIT
fairq_set_sched qfifo
fairqctl shares >/tmp/keyless.txt || fail "shares under qfifo failed"
grep -q 'keeps no per-key accounts' /tmp/keyless.txt || fail "shares under qfifo: $(cat /tmp/keyless.txt)"
[ "$(fairqctl -j shares | fairq_json 'len(d["keys"])')" = 0 ] || fail "keys under a keyless scheduler"

fairqctl set fq.idle_secs 3600 || fail "set fq.idle_secs failed"	# keys outlive slow TCG
fairq_set_sched fq
# client 1 sends more than client 2; client 3 nothing
fairq_nfs 1 3 'for i in $(seq 1 4); do dd if=/dev/zero of=f$i bs=64k count=32 conv=fsync 2>/dev/null; done; cat f* >/dev/null; rm -f f*' ||
	fail "client 1's traffic failed"
fairq_nfs 2 3 'dd if=/dev/zero of=f bs=64k count=8 conv=fsync 2>/dev/null; rm -f f' || fail "client 2's traffic failed"

fairqctl -j shares >/tmp/shares.json || fail "fairqctl -j shares failed"
fairqctl -j shares --top 1 >>/tmp/shares.json || fail "--top failed"
fairqctl -j shares --key 10.99.0.12 >>/tmp/shares.json || fail "--key failed"
fairqctl -j shares --pool 0 >>/tmp/shares.json || fail "--pool failed"
fairq_validate /tmp/shares.json
python3 - /tmp/shares.json <<'PY' || fail "shares do not match the load"
import json, sys
all_, top, one, pool0 = (json.loads(l) for l in open(sys.argv[1]))
keys = {k["key"]: k for k in all_["keys"]}
assert all_["keyed"] and all_["scheduler"] == "fq", all_
assert "10.99.0.11" in keys and "10.99.0.12" in keys, sorted(keys)
assert "10.99.0.13" not in keys, "a client that sent nothing has a key"
c1, c2 = keys["10.99.0.11"], keys["10.99.0.12"]
assert c1["type"] == "addr" and c1["weight"] >= 1, c1
assert c1["dispatches"] > c2["dispatches"] > 0, (c1, c2)
for pool in {(k["serv"], k["pool"]) for k in all_["keys"]}:
    s = sum(k["share"] for k in all_["keys"] if (k["serv"], k["pool"]) == pool)
    f = sum(k["entitled"] for k in all_["keys"] if (k["serv"], k["pool"]) == pool)
    assert abs(s - 1) < 0.01 or s == 0, s
    assert abs(f - 1) < 0.01, f
assert all(k["fair_share"] == k["entitled"] for k in all_["keys"]), all_["keys"]
assert len(top["keys"]) == 1 and top["keys"][0]["key"] == all_["keys"][0]["key"], top
assert [k["key"] for k in one["keys"]] == ["10.99.0.12"] * len(one["keys"]) and one["keys"], one
assert all(k["pool"] == 0 for k in pool0["keys"]) and pool0["keys"], pool0
print("# client 1: %d dispatches, client 2: %d" % (c1["dispatches"], c2["dispatches"]))
PY

# the key-get do request (fairqctl dumps) answers the same for one key
read -r serv pool <<<"$(head -n 1 /tmp/shares.json |
	fairq_json '"%d %d" % next((k["serv"], k["pool"]) for k in d["keys"] if k["key"] == "10.99.0.11")')"
python3 /fairq/fairq-nl.py key-get "$serv" "$pool" 10.99.0.11 >/tmp/key.json || fail "key-get: $(cat /tmp/key.json)"
[ "$(fairq_json 'd["dispatches"]' </tmp/key.json)" = "$(head -n 1 /tmp/shares.json |
	fairq_json '[k for k in d["keys"] if k["key"] == "10.99.0.11"][0]["dispatches"]')" ] ||
	fail "key-get of 10.99.0.11 disagrees with the dump: $(cat /tmp/key.json)"
fairq_nl_expect '^errno 2: no such key in that pool$' key-get "$serv" "$pool" 10.99.0.13
fairqctl shares --top 3 | sed 's/^/# /'

# metrics: the same numbers in the Prometheus text format, parsed by the Prometheus client
# library's own parser; each counter lies between a JSON read before and one after
fairqctl -j pools >/tmp/pools-before.json && fairqctl -j shares >/tmp/shares-before.json &&
	fairqctl metrics --top 1 >/tmp/metrics.txt && fairqctl -j pools >/tmp/pools-after.json &&
	fairqctl -j shares >/tmp/shares-after.json || fail "metrics or its JSON twins failed"
mkdir -p /tmp/textfile && rm -f /tmp/textfile/*
fairqctl metrics --textfile /tmp/textfile/fairq.prom || fail "metrics --textfile failed"
fairq_as_nobody fairqctl metrics >/tmp/metrics-nobody.txt || fail "metrics without privilege failed"
python3 - <<'PY' || fail "metrics disagree with fairqctl -j: $(head -n 40 /tmp/metrics.txt)"
import json, os, stat
from prometheus_client.parser import text_string_to_metric_families as parse

def families(path):
    # a counter's family may be named with or without its _total (parser versions differ)
    fams = {}
    for f in parse(open(path).read()):
        fams[f.name] = f
        if f.type == "counter":
            fams[f.name[:-6] if f.name.endswith("_total") else f.name + "_total"] = f
    return fams

def between(name, labels, value, before, after):
    assert before <= value <= after, (name, labels, before, value, after)

m = families("/tmp/metrics.txt")
info = m["fairq_info"].samples[0].labels
assert info["scheduler"] == "fq" and info["version"], info
assert m["fairq_rescues_total"].type == "counter", m["fairq_rescues_total"]
b = {(p["serv"], p["pool"]): p for p in json.loads(open("/tmp/pools-before.json").readline())["pools"]}
a = {(p["serv"], p["pool"]): p for p in json.loads(open("/tmp/pools-after.json").readline())["pools"]}
assert m["fairq_pools"].samples[0].value == len(a), (m["fairq_pools"].samples, len(a))
checked = 0
for fam, field in (("fairq_pool_enqueued", "enqueued"), ("fairq_pool_fed_pull", "fed_pull"),
                   ("fairq_pool_wakeups", "wakeups"), ("fairq_pool_rescues", "rescues")):
    assert m[fam].type == "counter", (fam, m[fam].type)
    for s in m[fam].samples:
        key = (int(s.labels["serv"]), int(s.labels["pool"]))
        assert s.name == fam + "_total" and s.labels["scheduler"] == "fq", s
        between(fam, s.labels, s.value, b[key][field], a[key][field])
        checked += 1
for fam, field in (("fairq_pool_threads", "threads"),):
    assert m[fam].type == "gauge"
    for s in m[fam].samples:
        assert s.value == a[(int(s.labels["serv"]), int(s.labels["pool"]))][field], s
assert {s.labels["name"] for s in m["fairq_pool_sched_value"].samples} >= {"keys", "turns_overspent"}, m["fairq_pool_sched_value"]
# --top 1: the key with the most thread time, and only it
keys = m["fairq_key_dispatches"].samples
assert len(keys) == 1 and keys[0].labels["key"] == "10.99.0.11", keys
kb = [k for k in json.loads(open("/tmp/shares-before.json").readline())["keys"] if k["key"] == "10.99.0.11"]
ka = [k for k in json.loads(open("/tmp/shares-after.json").readline())["keys"] if k["key"] == "10.99.0.11"]
kb = {(k["serv"], k["pool"]): k for k in kb}
ka = {(k["serv"], k["pool"]): k for k in ka}
key = (int(keys[0].labels["serv"]), int(keys[0].labels["pool"]))
between("dispatches", keys[0].labels, keys[0].value, kb[key]["dispatches"], ka[key]["dispatches"])
secs = m["fairq_key_thread_seconds"].samples[0].value
between("thread_seconds", keys[0].labels, secs, kb[key]["thread_ns"] / 1e9 - 1e-9, ka[key]["thread_ns"] / 1e9 + 1e-9)
assert m["fairq_keys_visible"].samples[0].value == 1
# the module's own counters: in JSON and metrics alike, each between its two JSON reads, and
# read by debugfs's names in the same order
mb = json.loads(open("/tmp/pools-before.json").readline())["module"]
ma = json.loads(open("/tmp/pools-after.json").readline())["module"]
for field in ma:
    fam = "fairq_" + field + ("" if field == "v4client_bound" else "_total")
    sample = families("/tmp/metrics.txt")[fam].samples[0]
    if field == "v4client_bound":	# a gauge: connections come and go between the reads
        assert m[fam].type == "gauge" and sample.value >= 0, (fam, sample)
    else:
        assert m[fam].type == "counter", (fam, m[fam].type)
        between(fam, {}, sample.value, mb[field], ma[field])
    checked += 1
# every counter debugfs shows, of the pools and of the module, is a metric family by its name
# (fairq_pool_NAME_total, fairq_NAME_total): a new counter needs no change in fairqctl
dbg = [l.split() for l in open("/sys/kernel/debug/fairq/pools")]
dmod = [l for l in dbg if l[0] == "module"][0]
dmod = dict(zip(dmod[1::2], map(int, dmod[2::2])))
for field in dmod:
    fam = "fairq_" + field + ("" if field == "v4client_bound" else "_total")
    assert fam in m, (field, sorted(m))
    if field != "v4client_bound":
        assert ma[field] <= dmod[field], (field, ma[field], dmod)
for l in dbg:
    if l[0] == "serv":
        for name in l[8:l.index("sched"):2]:
            assert "fairq_pool_" + name + "_total" in m, (name, sorted(m))
# the textfile: the same families, readable by node_exporter, no temporary file left
t = families("/tmp/textfile/fairq.prom")
assert set(t) == set(m), set(t) ^ set(m)
assert stat.S_IMODE(os.stat("/tmp/textfile/fairq.prom").st_mode) == 0o644
assert os.listdir("/tmp/textfile") == ["fairq.prom"], os.listdir("/tmp/textfile")
# without CAP_NET_ADMIN: the pools, and no per-client series
n = families("/tmp/metrics-nobody.txt")
assert n["fairq_keys_visible"].samples[0].value == 0 and not n["fairq_key_dispatches"].samples, n
assert len(n["fairq_pool_enqueued"].samples) == len(a)
print("# metrics: %d pool counters within their JSON reads; top key %s, %.3f s of thread time"
      % (checked, keys[0].labels["key"], secs))
PY

# a weight shows up in the key's accounts (fq takes it when it rebuilds the keys)
fairqctl weight 10.99.0.12 5 || fail "weight refused"
fairq_nfs 2 3 'dd if=/dev/zero of=f bs=64k count=4 conv=fsync 2>/dev/null; rm -f f' || fail "client 2's traffic failed"
w=$(fairqctl -j shares --key 10.99.0.12 | fairq_json 'max(k["weight"] for k in d["keys"])')
[ "$w" = 5 ] || fail "weight 5 of 10.99.0.12 reported as $w"
fairqctl weight 10.99.0.12 0 || fail "weight reset refused"

# rates over an interval, pools summed: client 2's requests per second as its own load
# generator counts them (within a factor of 2, emulation), both keys' shares adding up to 1
ip netns exec c1 /usr/local/bin/fairq-load -K 2 -W 2 -w 1 -d 8 "$FAIRQ_SERVER:$FAIRQ_EXPORT" >/tmp/l1.out 2>&1 &
l1=$!
ip netns exec c2 /usr/local/bin/fairq-load -j -K 1 -W 1 -w 1 -d 8 "$FAIRQ_SERVER:$FAIRQ_EXPORT" >/tmp/l2.json 2>/tmp/l2.err &
l2=$!
sleep 3
fairqctl -j shares --interval 3 >/tmp/rates.json || fail "shares --interval failed"
fairqctl shares --interval 1 --sort requests >/tmp/rates.txt || fail "shares --interval (text) failed"
wait $l1 || fail "client 1's load: $(tail -n 3 /tmp/l1.out)"
wait $l2 || fail "client 2's load: $(cat /tmp/l2.err)"
fairq_validate /tmp/rates.json
python3 - <<'PY' || fail "shares --interval: $(cat /tmp/rates.json)"
import json
d = json.load(open("/tmp/rates.json"))
k = {r["key"]: r for r in d["keys"]}
assert "10.99.0.11" in k and "10.99.0.12" in k, k
own = json.load(open("/tmp/l2.json"))["client"]["ops"] / 8
got = k["10.99.0.12"]["requests_per_sec"]
assert own / 2 <= got <= own * 2, (got, own)
assert abs(sum(r["share"] for r in d["keys"]) - 1) < 0.01, d["keys"]
print("# [shares --interval] client 2: %.0f requests/s (its own count %.0f/s), %.2f threads; client 1 %.0f/s, %.2f threads"
      % (got, own, k["10.99.0.12"]["threads"], k["10.99.0.11"]["requests_per_sec"], k["10.99.0.11"]["threads"]))
PY
grep -q 'REQUESTS/S' /tmp/rates.txt || fail "shares --interval text: $(cat /tmp/rates.txt)"

# The kernel keeps a weight's key as fairqctl prints it, whatever a netlink client sent: the
# bits past a prefix cleared, an IPv4-mapped IPv6 address folded to IPv4; an IPv4-mapped
# prefix shorter than the mapping is refused
for w in "subnet 10.99.0.77 20 3" "addr ::ffff:10.99.0.14 0 4" "subnet 2001:db8::ff 32 2"; do
	# shellcheck disable=SC2086 # TYPE ADDR PREFIX WEIGHT
	python3 /fairq/fairq-nl.py weight-set $w >/tmp/nl.out || fail "weight-set $w: $(cat /tmp/nl.out)"
done
[ "$(fairqctl weights)" = $'10.99.0.0/20 3\n10.99.0.14 4\n2001:db8::/32 2' ] ||
	fail "keys sent unnormalised are kept as: $(fairqctl weights)"
python3 /fairq/fairq-nl.py weight-set subnet ::ffff:10.0.0.0 80 2 >/tmp/nl.out &&
	fail "an IPv4-mapped /80 was taken: $(fairqctl weights)"
grep -q 'at least 96 bits' /tmp/nl.out || fail "an IPv4-mapped /80 refused with: $(cat /tmp/nl.out)"
fairqctl weights prune || fail "weights prune failed"
log "keys sent unnormalised over netlink: kept as 10.99.0.0/20, 10.99.0.14, 2001:db8::/32"

# The state can be listed and restored: fairqctl weights lists the rules; fairqctl showconf
# prints the running state as fairq.conf lines; after changes (another tunable, watchdog_ms and
# scheduler, one weight more, one less) fairq-apply of that file brings back exactly that state,
# removing the weight set since, without a detour through fifo.
fairqctl weight 10.99.0.0/24 3 || fail "weight 10.99.0.0/24 refused"
fairqctl weight v4client:0123456789abcdef 2 || fail "weight v4client refused"
fairqctl weight 10.99.0.13 7 || fail "weight 10.99.0.13 refused"
[ "$(fairqctl weights)" = $'10.99.0.0/24 3\nv4client:0123456789abcdef 2\n10.99.0.13 7' ] ||
	fail "fairqctl weights: $(fairqctl weights)"
fairqctl set fq.quantum_us 8000 || fail "quantum_us 8000 refused"
fairqctl showconf >/tmp/state.conf || fail "showconf failed"
fairqctl -j showconf >/tmp/showconf.json && fairqctl -j weights >/tmp/weights.json ||
	fail "showconf or weights -j failed"
fairq_validate /tmp/showconf.json /tmp/weights.json
grep -qx 'SCHEDULER=fq' /tmp/state.conf && grep -qx 'fq.quantum_us=8000' /tmp/state.conf &&
	grep -qx 'WEIGHT=10.99.0.0/24:3' /tmp/state.conf || fail "showconf: $(cat /tmp/state.conf)"
fairq_as_nobody fairqctl showconf >/dev/null 2>/tmp/showconf.err && fail "showconf without CAP_NET_ADMIN left out the weights"
grep -q CAP_NET_ADMIN /tmp/showconf.err || fail "unprivileged showconf: $(cat /tmp/showconf.err)"

fairqctl set fq.quantum_us 12000 || fail "quantum_us 12000 refused"
echo 300 >$FAIRQ_SYSFS/watchdog_ms
fairqctl weight 10.99.0.14 9 || fail "weight 10.99.0.14 refused"
fairqctl weight 10.99.0.13 0 || fail "weight 10.99.0.13 removal refused"
fairq_set_sched qfifo
lines=$(dmesg | wc -l)
fairq-apply -c /tmp/state.conf >/tmp/apply.out 2>&1 || fail "fairq-apply of showconf's output: $(cat /tmp/apply.out)"
fairqctl showconf >/tmp/state2.conf || fail "showconf after apply failed"
diff -u /tmp/state.conf /tmp/state2.conf >/tmp/state.diff || fail "not the state showconf printed: $(cat /tmp/state.diff)"
grep -q 'removed the weight of 10.99.0.14' /tmp/apply.out || fail "fairq-apply did not say what it removed: $(cat /tmp/apply.out)"
dmesg | tail -n +$((lines + 1)) | grep -q 'scheduler: fifo' && fail "fairq-apply went through fifo: $(dmesg | tail -n +$((lines + 1)))"
log "showconf -> fairq-apply: the same $(grep -c . /tmp/state.conf) lines; $(grep -c 'removed the weight' /tmp/apply.out) weight removed"
# applying the same state again changes nothing: no pool is rebuilt, so the keys keep their
# accounts (a tunable written with its own value used to rebuild every pool)
fairq_nfs 1 3 'dd if=/dev/zero of=f bs=64k count=8 conv=fsync 2>/dev/null; rm -f f' || fail "client 1's traffic failed"
d0=$(fairqctl -j shares --key 10.99.0.11 | fairq_json 'sum(k["dispatches"] for k in d["keys"])')
fairq-apply -c /tmp/state.conf >/tmp/apply.out 2>&1 || fail "fairq-apply again: $(cat /tmp/apply.out)"
d1=$(fairqctl -j shares --key 10.99.0.11 | fairq_json 'sum(k["dispatches"] for k in d["keys"])')
[ "${d0:-0}" -gt 0 ] && [ "${d1:-0}" -ge "$d0" ] ||
	fail "client 1's key lost its accounts to an apply that changed nothing: $d0 dispatches, then ${d1:-none}"
log "the same apply again: client 1's key kept its $d0 dispatches"
fairqctl weights prune || fail "weights prune failed"
[ -z "$(fairqctl weights)" ] || fail "weights left after prune: $(fairqctl weights)"

# tunables back to their defaults: one (fairqctl set NAME default), and all that a
# configuration does not set (fairq-apply); every default is the value at load
fairqctl set fq.quantum_us 9000 || fail "quantum_us 9000 refused"
fairqctl set fq.quantum_us default || fail "set fq.quantum_us default failed"
[ "$(cat $FAIRQ_SYSFS/fq/quantum_us)" = 10000 ] || fail "quantum_us default: $(cat $FAIRQ_SYSFS/fq/quantum_us)"
fairqctl set fq.burst_ms 300 && fairqctl set fq.new_burst 8 || fail "tunables refused"
# another scheduler's tunable too, where one with tunables is offered (capped is on 6.1 only)
if fairq_scheds | tr ' ' '\n' | grep -qx capped; then
	fairqctl set capped.max_waking 5 || fail "capped.max_waking 5 refused"
fi
printf 'SCHEDULER=fq\nfq.prefix4=20\n' >/tmp/min.conf
fairq-apply -c /tmp/min.conf >/tmp/apply.out 2>&1 || fail "fairq-apply of a minimal file: $(cat /tmp/apply.out)"
fairqctl -j sched >/tmp/sched.json || fail "sched -j failed"
fairq_validate /tmp/sched.json
python3 - <<'PY' || fail "tunables after a minimal fairq-apply: $(cat /tmp/sched.json)"
import json
d = json.load(open("/tmp/sched.json"))
for s in d["schedulers"]:
    for t in s["tunables"]:
        want = 20 if (s["name"], t["name"]) == ("fq", "prefix4") else t["default"]
        assert t["value"] == want, (s["name"], t)
PY
log "set NAME default and a minimal fairq-apply: every tunable at its default, but the one set"
fairqctl set fq.prefix4 default
