#!/bin/bash
# Hostile clients under NFSv4.1 client keys (key 4).  Client 1 is honest: an NFSv4.1 session
# over 4 connections.  Client 2 opens 8 connections, sends a SEQUENCE with a random (forged)
# session id on each, then NFSv3 load on the same connections; client 3 does the same with the
# victim's own session ids (client 1's client id, guessed counters).  nfsd refuses every forged
# SEQUENCE, so nothing may be learnt from them: each hostile client is one address key and gets
# one share, like the honest one, and the victim's key keeps its share.  Thread time is made
# scarce with the service-time helper (4 threads x 20 ms), and shares are counted by the
# clients themselves.  The binding table holds only the honest client's connections; an address
# that mints client ids gets at most 16 client keys; an unprivileged user sees no client data.
. /fairq/lib.sh
. /fairq/fairqctl-lib.sh
fairq_need_sched fq
FL=/usr/local/bin/fairq-load
T=$FAIRQ_SYSFS/fq
B=/tmp/hostile
mkdir -p $B
insmod /fairq/extra/fairq_svctime.ko || fail "cannot load the service-time helper"
cleanup() {
	pkill -INT -x fairq-load
	sleep 1
	echo 1 >$T/key
	fairq_set_sched fifo
	echo 0 >/sys/module/fairq_svctime/parameters/delay_us
	rmmod fairq_svctime
	rpc.nfsd "$FAIRQ_THREADS"
}
trap cleanup EXIT
rpc.nfsd 4
echo all >/sys/module/fairq_svctime/parameters/clients
echo 20000 >/sys/module/fairq_svctime/parameters/delay_us
fairq_set_sched fq
echo 4 >$T/key || fail "key 4 refused"
# bindings of earlier tests' connections live on until they expire: count from here
bound0=$(fairq_module_counter v4client_bound)
refused0=$(fairq_module_counter v4client_refused)

# the victim's session is up (and its client id known) before the attackers start; each client
# writes its cumulative replies with wall-clock times (--series), so that shares are taken over
# one window that all three spend under load, whatever each one's set-up took
ip netns exec c1 $FL -j -p nfs4.1 -K 4 -W 8 -d 0 --series $B/c1.series --interval 0.5 \
	"$FAIRQ_SERVER:$FAIRQ_EXPORT" >$B/c1.json 2>$B/c1.err &
p1=$!
# its record names the generator and its pid (ip netns exec runs it in place)
for i in $(seq 1 100); do
	c1id=$(grep -l "fairq-load/.*/$p1/" /proc/fs/nfsd/clients/*/info 2>/dev/null | head -n 1 |
		xargs -r sed -n 's/^clientid: 0x//p')
	[ -n "$c1id" ] && break
	sleep 0.2
done
[ -n "$c1id" ] || fail "no NFSv4.1 client id for client 1"
# nfsd's session ids: the client id and a session counter in host order (x86: little endian),
# then 4 zero bytes; guesses 1 to 4 of the counter
read -r -a sessids <<<"$(python3 -c "import struct, sys
print(' '.join((struct.pack('<Q', int(sys.argv[1], 16)) + struct.pack('<I', n) + bytes(4)).hex() for n in range(1, 5)))" "$c1id")"
[ "${#sessids[@]}" = 4 ] || fail "no session ids made of $c1id"
# each guess on a connection of its own
for s in 0 1 2 3; do
	ip netns exec c3 $FL -p nfs3 -n 1 --forge-sequence "${sessids[$s]}" "$FAIRQ_SERVER:$FAIRQ_EXPORT" \
		>$B/guess$s.out 2>&1 || fail "client 3: guess $s: $(cat $B/guess$s.out)"
	grep -q 'forged SEQUENCE: 1 sent, 1 refused' $B/guess$s.out ||
		fail "client 3: nfsd accepted a SEQUENCE with the victim's session id (guess $s): $(cat $B/guess$s.out)"
done
ip netns exec c2 $FL -j -p nfs3 -K 8 -W 8 -d 0 --forge-sequence random --series $B/c2.series \
	--interval 0.5 "$FAIRQ_SERVER:$FAIRQ_EXPORT" >$B/c2.json 2>$B/c2.err &
p2=$!
ip netns exec c3 $FL -j -p nfs3 -K 8 -W 8 -d 0 --forge-sequence "${sessids[0]}" --forge-repeat 3 \
	--series $B/c3.series --interval 0.5 "$FAIRQ_SERVER:$FAIRQ_EXPORT" >$B/c3.json 2>$B/c3.err &
p3=$!
# all three under load: the window
sleep 15
from=$EPOCHREALTIME
sleep 25
to=$EPOCHREALTIME
fairqctl -j shares >$B/shares.json || fail "fairqctl -j shares failed"
# the NFSv4.1 clients nfsd has records of (an earlier test's kernel client may still renew its
# lease from a client namespace: its connection is keyed by its own, real, client id)
sed -n 's/^clientid: 0x//p' /proc/fs/nfsd/clients/*/info >$B/known.txt 2>/dev/null
# while all three run (a binding goes with its connection)
bound=$(fairq_module_counter v4client_bound)
fairq_as_nobody fairqctl -j shares >$B/nobody.out 2>$B/nobody.err
rc=$?
kill -INT $p1 $p2 $p3
wait $p1 || fail "client 1: $(cat $B/c1.err)"
wait $p2 || fail "client 2: $(cat $B/c2.err)"
wait $p3 || fail "client 3: $(cat $B/c3.err)"
# the bindings left once their connections have closed are other clients' (an earlier test's
# kernel client, bound while the window ran): wait for the count to settle
after=$bound
for i in $(seq 1 30); do
	sleep 1
	now=$(fairq_module_counter v4client_bound)
	[ "$now" = "$after" ] && [ "$now" -lt "$bound" ] && break
	after=$now
done

python3 - $B "$c1id" "$from" "$to" <<'PY' || fail "the hostile clients were not held to one share each"
import json, sys
b, c1id, t0, t1 = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])

def replies_at(series, t):
    """cumulative replies at wall time t: the last sample at or before it"""
    last = None
    for s in series:
        if s["wall"] > t:
            break
        last = s["replies"]
    assert last is not None, ("no sample before", t)
    return last

ops = {}
for c in (1, 2, 3):
    series = [json.loads(l) for l in open(f"{b}/c{c}.series") if l.strip()]
    assert series[-1]["wall"] >= t1, ("client", c, "stopped before the window ended")
    ops[c] = replies_at(series, t1) - replies_at(series, t0)
    if c > 1:
        f = json.load(open(f"{b}/c{c}.json"))["client"]["forged_sequence"]
        assert f["sent"] >= 8 and f["accepted"] == 0 and f["refused"] == f["sent"], (c, f)
total = sum(ops.values())
share = {c: ops[c] / total for c in ops}
print("# shares of the RPCs: honest %.3f, random forger %.3f, victim-id forger %.3f (owed 1/3 each)"
      % (share[1], share[2], share[3]))
for c in ops:
    assert 0.27 <= share[c] <= 0.40, ("client", c, share)
keys = {k["key"]: k for k in json.load(open(f"{b}/shares.json"))["keys"]}
print("# keys: %s" % " ".join(sorted(keys)))
# the forgers are keyed by their addresses; client 1 by its client id; any other client-id key
# must be a client nfsd really has (no key from a forged SEQUENCE)
v4id = lambda i: "v4client:" + i.strip().rjust(16, "0").lower()
known = {v4id(l) for l in open(f"{b}/known.txt") if l.strip()}
v4 = {k for k in keys if k.startswith("v4client:")}
assert set(keys) - v4 == {"10.99.0.12", "10.99.0.13"}, sorted(keys)
assert v4id(c1id) in v4, (c1id, sorted(keys))
assert v4 <= known, ("client-id keys nfsd has no client for", sorted(v4 - known))
if len(v4) > 1:
    print("# also keyed: %s (clients nfsd has)" % " ".join(sorted(v4 - {v4id(c1id)})))
PY
refused=$(fairq_module_counter v4client_refused)
# bound0 is not the base: another client may bind a connection while the window runs
[ $((bound - after)) -le 4 ] ||
	fail "$((bound - after)) connections bound that went with the three clients: only client 1's 4 may be ($bound0 before, $bound while they ran, $after after)"
[ $((bound - after)) -ge 1 ] || fail "none of client 1's connections was bound ($bound0 before, $bound while they ran, $after after)"
[ $((refused - refused0)) -ge 36 ] || fail "only $((refused - refused0)) refused SEQUENCEs counted (4 + 8 + 24 forged at least)"
log "bindings $((bound - after)) (client 1's connections; $bound0 before, $after after), refused SEQUENCEs $((refused - refused0))"
# client ids cost nothing to make: 20 NFSv4.1 clients (processes) of client 3 at once get at
# most 16 client keys; the others are keyed by the address
skipped0=$(fairq_module_counter v4client_skipped)
mint=()
for i in $(seq 1 20); do
	ip netns exec c3 $FL -p nfs4.1 -K 1 -W 2 -d 0 "$FAIRQ_SERVER:$FAIRQ_EXPORT" >$B/mint$i.out 2>&1 &
	mint+=($!)
done
# all 20 have their client id and have sent SEQUENCEs
for t in $(seq 1 120); do
	n=$(grep -l 'fairq-load/' /proc/fs/nfsd/clients/*/info 2>/dev/null | xargs -r grep -l '10.99.0.13' | wc -l)
	[ "$n" -ge 20 ] && break
	sleep 0.5
done
[ "$n" -ge 20 ] || fail "only $n of client 3's 20 NFSv4.1 clients came up"
# a client record exists from EXCHANGE_ID on; its first SEQUENCE (the binding) comes after
# CREATE_SESSION, seconds later on a crowded host: wait for the ids beyond the bound
for t in $(seq 1 60); do
	skipped=$(fairq_module_counter v4client_skipped)
	[ $((skipped - skipped0)) -ge 4 ] && break
	sleep 0.5
done
sleep 1
fairqctl -j shares >$B/mint.json || fail "fairqctl -j shares failed"
skipped=$(fairq_module_counter v4client_skipped)
kill -INT "${mint[@]}"
wait "${mint[@]}"
ids=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(sum(1 for k in d["keys"] if k["key"].startswith("v4client:") and k["queued"] + k["in_flight"] > 0))' $B/mint.json)
log "20 client ids from one address: $ids busy client keys, $((skipped - skipped0)) bindings refused"
[ "$ids" -le 16 ] || fail "one address got $ids client keys (at most 16)"
[ $((skipped - skipped0)) -ge 4 ] || fail "only $((skipped - skipped0)) bindings refused at the address's bound"
# no client data for the unprivileged
[ "$rc" = 4 ] || fail "unprivileged fairqctl shares exited $rc, expected 4 (no privilege): $(cat $B/nobody.err)"
grep -Eq '10\.99\.0\.|v4client' $B/nobody.out $B/nobody.err && fail "unprivileged fairqctl shares showed client data"
log "unprivileged: $(cat $B/nobody.err)"
[ "$(fairq_rescues)" = 0 ] || fail "the watchdog rescued transports"
