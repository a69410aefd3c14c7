#!/bin/bash
# fairq-load really talks to nfsd: NULL and GETATTR over NFSv3 and NFSv4.1 from two client
# namespaces at once, and what it counts is what nfsd counts (/proc/net/rpc/nfsd); NFSv4.1
# connections join one session by BIND_CONN_TO_SESSION or by their first SEQUENCE; bursts and
# reserved ports work; errors (unreachable server, refused mount, bad options) exit non-zero
# with a reason.
. /fairq/lib.sh
FL=/usr/local/bin/fairq-load
[ -x $FL ] || fail "fairq-load is not installed"
$FL --version | grep -q '^fairq-load ' || fail "fairq-load --version"
cd /tmp || exit 1

# nfsd's counters: "proc3 22 null getattr ...", "proc4 2 null compound", "proc4ops N op0 op1 ..."
counters() {
	awk '$1 == "proc3" { printf "v3null=%s v3getattr=%s ", $3, $4 }
	     $1 == "proc4" { printf "v4null=%s v4compound=%s ", $3, $4 }
	     $1 == "proc4ops" { printf "getattr=%s putrootfh=%s bcts=%s exid=%s cs=%s ds=%s seq=%s dc=%s",
		$(2 + 1 + 9), $(2 + 1 + 24), $(2 + 1 + 41), $(2 + 1 + 42), $(2 + 1 + 43), $(2 + 1 + 44),
		$(2 + 1 + 53), $(2 + 1 + 57) }' /proc/net/rpc/nfsd
}

# run NAME ARGS...: fairq-load ARGS in clients 1 and 2 at once, JSON into NAME.1 and NAME.2
run() {
	local name=$1 i rc pids=()
	shift
	for i in 1 2; do
		ip netns exec "c$i" $FL -j --label "$name/c$i" "$@" >"$name.$i" 2>"$name.$i.err" &
		pids+=($!)
	done
	# each by its pid: "wait -n" once reported a failure with both clients' stderr empty
	for i in 1 2; do
		wait "${pids[$((i - 1))]}" && continue
		rc=$?
		log "client $i exit status $rc; stderr: $(cat "$name.$i.err"); stdout: $(head -c 400 "$name.$i")"
		fail "$name: fairq-load failed in client $i"
	done
}

# check NAME BEFORE AFTER EXPR...: the JSON is complete and each "counter:expected" holds
check() {
	python3 - "$@" <<'PY' || fail "$1: counts do not agree with nfsd's"
import json, sys
name, before, after = sys.argv[1:4]
b = dict(kv.split("=") for kv in before.split())
a = dict(kv.split("=") for kv in after.split())
reps = []
resent = 0      # calls sent again after the server closed a connection: maybe executed twice
for i in (1, 2):
    d = json.load(open("%s.%d" % (name, i)))
    assert d["tool"] == "fairq-load" and d["label"] == "%s/c%d" % (name, i), d
    c = d["client"]
    assert c["ops"] > 0 and c["ops"] == sum(p["ops"] for p in d["per_connection"]), d
    assert len(d["per_connection"]) == d["connections"], d
    assert all(p["local"].startswith("10.99.0.1%d:" % i) for p in d["per_connection"]), d
    assert d["replies"] == d["calls_sent"] >= c["ops"], d
    lat = c["latency_us"]
    assert 0 < lat["min"] <= lat["p50"] <= lat["p90"] <= lat["p99"] <= lat["max"], lat
    reps.append(d["replies"])
    resent += d["resent"]
total = sum(reps)
for spec in sys.argv[4:]:
    key, want = spec.split(":")
    want = eval(want, {"total": total, "k": json.load(open(name + ".1"))["connections"]})
    got = int(a[key]) - int(b[key])
    tol = max(2, want // 200)       # 0.5%
    assert want - tol <= got <= want + tol + resent, \
        "%s: nfsd counted %d, fairq-load %d (%d sent again)" % (key, got, want, resent)
    print("# %s: %s nfsd %d, fairq-load %d" % (name, key, got, want))
PY
}

srv=$FAIRQ_SERVER
b=$(counters)
run v3null -O null -K 2 -W 4 -n 3000 $srv
a=$(counters)
check v3null "$b" "$a" v3null:total

b=$a
run v3getattr -p nfs3 -K 3 -W 2 -d 3 $srv:$FAIRQ_EXPORT
a=$(counters)
check v3getattr "$b" "$a" v3getattr:total

b=$a
run v4null -p nfs4.1 -O null -K 2 -W 2 -d 3 $srv
a=$(counters)
check v4null "$b" "$a" v4null:total

b=$a
run v4bind -p nfs4.1 -K 4 -W 4 -d 3 $srv
a=$(counters)
check v4bind "$b" "$a" getattr:total putrootfh:total seq:total exid:2 cs:2 ds:2 dc:2 'bcts:2*(k-1)' \
	'v4compound:total+2*(4+k-1)'

b=$a
run v4seq -p nfs4.1 --v4-conn sequence -K 4 -W 2 -n 2000 $srv
a=$(counters)
check v4seq "$b" "$a" getattr:total seq:total exid:2 cs:2 bcts:0
python3 -c 'import json; d = json.load(open("v4seq.1")); assert d["session"]["conn_join"] == "sequence"
assert all(p["ops"] > 0 for p in d["per_connection"]), d' || fail "v4seq: a connection did no work"

# bursts: every burst completes, and takes at least as long as its calls' median latency
ip netns exec c1 $FL -j -B 16 -I 20 -K 2 -d 3 $srv:$FAIRQ_EXPORT >burst.json || fail "burst run failed"
python3 - <<'PY' || fail "burst report"
import json
d = json.load(open("burst.json"))
bu = d["client"]["bursts"]
assert d["burst"] == {"calls": 16, "idle_ms": 20} and bu["count"] > 3, d
assert bu["completion_us"]["p50"] >= d["client"]["latency_us"]["p50"], d
print("# bursts of 16: %d completed, p50 %.1f ms" % (bu["count"], bu["completion_us"]["p50"] / 1e3))
PY

# reserved source ports (root)
ip netns exec c2 $FL -j -P -O null -K 2 -n 100 $srv >resv.json || fail "--resvport run failed"
python3 -c 'import json; d = json.load(open("resv.json"))
assert all(int(p["local"].rsplit(":", 1)[1]) < 1024 for p in d["per_connection"]), d' ||
	fail "--resvport did not use reserved ports"

# errors: non-zero exit and a reason
expect_fail() {
	local rc=$1 pat=$2 out
	shift 2
	out=$(timeout 60 ip netns exec c1 $FL "$@" 2>&1)
	local got=$?
	[ "$got" = "$rc" ] || fail "fairq-load $*: exit $got, wanted $rc: $out"
	echo "$out" | grep -Eq -- "$pat" || fail "fairq-load $*: no '$pat' in: $out"
}
expect_fail 1 'cannot connect to 10.99.0.99:2049' -O null --timeout 3 10.99.0.99
expect_fail 1 'cannot connect to 10.99.0.1:9: Connection refused' -O null --port 9 $srv
expect_fail 1 'mountd refused /nonexistent: MNT3ERR_' -n 1 $srv:/nonexistent
expect_fail 1 'rpcbind: cannot connect' --timeout 3 10.99.0.99:/srv/nfs
expect_fail 2 'needs the export' $srv
expect_fail 2 "--window: '0'" -W 0 $srv
expect_fail 2 "unknown option '--nope'" --nope $srv
log "NULL and GETATTR over NFSv3 and NFSv4.1 agree with nfsd's counters; errors exit non-zero"
