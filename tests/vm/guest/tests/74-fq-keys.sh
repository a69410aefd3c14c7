#!/bin/bash
# fq's subnet and connection keys, and a subnet weight, converge to the shares they owe.
# Three backlogged clients (deep windows of NFSv3 GETATTR, counted by each client's load
# generator) share 4 threads of 50 ms requests (80 calls/s), so thread time is the scarce
# resource even when the host is loaded and the guest's CPUs are slow:
#   key 1 (address), all 1 connection:              client 1 owed 1/3
#   key 2 (subnet), prefix4 30:                     client 1 alone in 10.99.0.8/30, clients 2
#                                                   and 3 share 10.99.0.12/30: client 1 owed 1/2
#   key 2, weight 4 on 10.99.0.12/30:               client 1 owed 1/5
#   key 2, clients 1 and 2 over IPv6 in fd99::/64:   client 3 (IPv4) owed 1/2
#   key 2, prefix6 128:                             client 3 owed 1/3
#   key 3 (connection), client 1 with 4, client 2 with 1, client 3 idle: client 1 owed 4/5
#   key 1 again with those connections:             client 1 owed 1/2
. /fairq/lib.sh
fairq_need_sched fq
fairq_bench_lib /tmp/keys
T=$FAIRQ_SYSFS/fq
cleanup() {
	pkill -INT -x fairq-load
	fairqctl weight 10.99.0.12/30 0 2>/dev/null
	echo 1 >$T/key
	echo 24 >$T/prefix4
	echo 64 >$T/prefix6
	svctime_off
	fairq_set_sched fifo
	rpc.nfsd "$FAIRQ_THREADS"
}
trap cleanup EXIT
rpc.nfsd 4
svctime_on 50000
fairq_set_sched fq

# shares NAME "K1 K2 K3": each client's part of the calls all of them completed in one 8 s
# window that all of them spend under load (from 3 s after the last one started), from each
# client's own time series; K0 leaves a client out; V6_CLIENTS="1 2" has those clients use
# IPv6.  Prints "s1 s2 s3", and fails unless the threads were busy: shares of a server with
# idle threads prove nothing.
shares() {
	local name=$1 k pids=() series=() i=0 from to target
	for k in $2; do
		i=$((i + 1))
		rm -f "$B_OUT/$name-$i.series"
		[ "$k" = 0 ] && continue
		series+=("$B_OUT/$name-$i.series")
		target=$B_EXPORT
		case " ${V6_CLIENTS:-} " in *" $i "*) target="[$FAIRQ_SERVER6]:$FAIRQ_EXPORT" ;; esac
		ip netns exec "c$i" $FL -j -K "$k" -W 8 -d 0 --series "$B_OUT/$name-$i.series" \
			--interval 0.25 --label "$name-$i" "$target" \
			>"$B_OUT/$name-$i.json" 2>"$B_OUT/$name-$i.err" &
		pids+=($!)
	done
	# a client's set-up (connections, MOUNT) can take seconds on a loaded host
	from=$EPOCHREALTIME
	fairq_series_wait 30 "${series[@]}" || fail "$name: a client did not start within 30 s"
	awk -v a="$from" -v b="$EPOCHREALTIME" 'BEGIN { exit !(b - a > 2) }' &&
		log "$name: the clients took $(awk -v a="$from" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s to start" >&2
	sleep 3
	from=$EPOCHREALTIME
	fairqctl -j shares >"$B_OUT/$name-keys0.json"
	sleep 8
	to=$EPOCHREALTIME
	fairqctl -j shares >"$B_OUT/$name-keys1.json"
	kill -INT "${pids[@]}"
	for i in "${pids[@]}"; do
		wait "$i" || fail "$name: a client failed: $(cat "$B_OUT/$name"-*.err)"
	done
	python3 - "$B_OUT" "$name" "$from" "$to" <<'PY' || fail "$name: no shares"
import json, os, sys
out, name, t0, t1 = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])

def replies_at(series, t):
    before = [s["replies"] for s in series if s["wall"] <= t]
    assert before, ("a client has no sample before", t)
    return before[-1]

ops = []
for i in (1, 2, 3):
    f = os.path.join(out, "%s-%d.series" % (name, i))
    if not os.path.exists(f):
        ops.append(0)
        continue
    series = [json.loads(l) for l in open(f) if l.strip()]
    ops.append(replies_at(series, t1) - replies_at(series, t0))
# the server's view of the same window, per key (thread time)
def keys(f):
    return {k["key"]: k for k in json.load(open(os.path.join(out, f)))["keys"]}
k0, k1 = keys(name + "-keys0.json"), keys(name + "-keys1.json")
ns = {key: k1[key]["thread_ns"] - k0.get(key, {}).get("thread_ns", 0) for key in k1}
# the threads were the scarce resource: busy nearly all of the window (a slow guest serves
# fewer than 80 calls/s with its threads busy all the same)
busy = sum(ns.values()) / (4 * (t1 - t0) * 1e9)
if busy < 0.85:
    print("%s: the 4 threads were busy %.0f%% of the window (%.0f calls/s): they were not the"
          " scarce resource" % (name, 100 * busy, sum(ops) / (t1 - t0)), file=sys.stderr)
    sys.exit(1)
print(" ".join("%.3f" % (o / sum(ops)) for o in ops))
total = sum(ns.values()) or 1
print("# %s, the server's thread time by key (threads busy %.0f%%, %.0f calls/s): " % (
    name, 100 * busy, sum(ops) / (t1 - t0)) + " ".join(
    "%s %.3f (weight %d)" % (key, v / total, k1[key]["weight"]) for key, v in sorted(ns.items()) if v),
      file=sys.stderr)
PY
}
near() {	# near SHARE OWED: within 0.07
	awk -v s="$1" -v o="$2" 'BEGIN { exit !(s - o <= 0.07 && o - s <= 0.07) }'
}

read -r a1 a2 a3 <<<"$(shares addr "1 1 1")"
log "by address, one connection each: $a1 $a2 $a3 (owed 0.333 each)"
near "$a1" 0.333 && near "$a2" 0.333 && near "$a3" 0.333 || fail "address keys: $a1 $a2 $a3"

echo 2 >$T/key || fail "key 2 refused"
echo 30 >$T/prefix4 || fail "prefix4 30 refused"
read -r s1 s2 s3 <<<"$(shares subnet "1 1 1")"
log "by /30 subnet: $s1 $s2 $s3 (owed 0.5, 0.25, 0.25)"
near "$s1" 0.5 && near "$s2" 0.25 && near "$s3" 0.25 || fail "subnet keys: $s1 $s2 $s3"

fairqctl weight 10.99.0.12/30 4 || fail "weight on 10.99.0.12/30 refused"
read -r w1 w2 w3 <<<"$(shares weighted "1 1 1")"
fairqctl weight 10.99.0.12/30 0
log "subnet 10.99.0.12/30 at weight 4: $w1 $w2 $w3 (owed 0.2, 0.4, 0.4)"
near "$w1" 0.2 && near "$w2" 0.4 && near "$w3" 0.4 || fail "a weighted subnet: $w1 $w2 $w3"

# IPv6 clients (1 and 2) beside an IPv4 one (3): subnets by prefix6, and each address alone
echo 24 >$T/prefix4
echo 64 >$T/prefix6 || fail "prefix6 64 refused"
read -r v1 v2 v3 <<<"$(V6_CLIENTS="1 2" shares v6subnet "1 1 1")"
log "IPv6 clients 1 and 2 in fd99::/64, IPv4 client 3: $v1 $v2 $v3 (owed 0.25, 0.25, 0.5)"
near "$v1" 0.25 && near "$v2" 0.25 && near "$v3" 0.5 || fail "IPv6 subnet keys: $v1 $v2 $v3"
echo 128 >$T/prefix6 || fail "prefix6 128 refused"
read -r v1 v2 v3 <<<"$(V6_CLIENTS="1 2" shares v6addr "1 1 1")"
echo 64 >$T/prefix6
log "IPv6 clients 1 and 2 by /128: $v1 $v2 $v3 (owed 0.333 each)"
near "$v1" 0.333 && near "$v2" 0.333 && near "$v3" 0.333 || fail "IPv6 /128 keys: $v1 $v2 $v3"

echo 3 >$T/key || fail "key 3 refused"
read -r c1 c2 _ <<<"$(shares conn "4 1 0")"
log "by connection, 4 against 1: $c1 $c2 (owed 0.8, 0.2)"
near "$c1" 0.8 && near "$c2" 0.2 || fail "connection keys: $c1 $c2"

echo 1 >$T/key
read -r b1 b2 _ <<<"$(shares addr4 "4 1 0")"
log "by address, 4 connections against 1: $b1 $b2 (owed 0.5 each)"
near "$b1" 0.5 && near "$b2" 0.5 || fail "address keys with 4 connections against 1: $b1 $b2"
sleep 1
[ "$(fairq_pool_sum queued)" = 0 ] || fail "transports left queued: $(cat "$FAIRQ_DEBUGFS/pools")"
[ "$(fairq_rescues)" = 0 ] || fail "the watchdog rescued transports"
