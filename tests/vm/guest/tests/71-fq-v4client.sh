#!/bin/bash
# fairq's NFSv4.1 client keys.  Client 1 reaches the server over two paths: it mounts the
# server's first address, then its second address from a second source address with
# max_connect=2, so the Linux client adds that connection to the same NFSv4.1 client
# (session trunking).  Keyed by address that is two clients; keyed by client id it is one.
# Client 2 has one connection.  Both keep deep windows; thread time is made scarce with the
# service-time helper (4 threads x 100 ms), and each client's completed RPCs are counted on
# the client side (/proc/net/rpc/nfs of its namespace), independently of fairq.
#   key 1 (address):          client 2 owed 1/3
#   key 4 (NFSv4.1 client):   client 2 owed 1/2
#   key 4, client 2 weight 3 by address: owed 3/4 (address rules apply to client keys)
# Also: fairqctl names the key by the id /proc/fs/nfsd/clients/*/info shows, client 2's
# NFSv3 mount, which has no sessions, is keyed by its address, and client 3's first requests,
# bound to its client while they run, end on the key they started on.
. /fairq/lib.sh
. /fairq/fairqctl-lib.sh
fairq_need_sched fq
T=$FAIRQ_SYSFS/fq
idle=$(cat $T/idle_secs)
SERVER2=10.99.1.1
C1B=10.99.1.51
insmod /fairq/extra/fairq_svctime.ko || fail "cannot load the service-time helper"
cleanup() {
	pkill -INT -x fio
	sleep 1
	for n in 1 2 3; do
		ip netns exec "c$n" sh -c 'umount -l /mnt/a /mnt/b /mnt/v3' 2>/dev/null
	done
	fairqctl weight 10.99.0.12 0 2>/dev/null
	echo 1 >$T/key
	echo "$idle" >$T/idle_secs
	fairq_set_sched fifo
	echo 0 >/sys/module/fairq_svctime/parameters/delay_us
	rmmod fairq_svctime
	rpc.nfsd "$FAIRQ_THREADS"
}
trap cleanup EXIT
ip addr add "$SERVER2/24" dev br0
ip -n c1 addr add "$C1B/24" dev eth0
rpc.nfsd 4
echo all >/sys/module/fairq_svctime/parameters/clients
echo 100000 >/sys/module/fairq_svctime/parameters/delay_us
fairq_set_sched fq
echo 4 >$T/key || fail "key 4 refused"

job="fio --name=g --size=1m --bs=4k --rw=randread --ioengine=libaio --iodepth=16 --direct=1 \
	--time_based --runtime=3600 --minimal"
opts="vers=4.1,proto=tcp,hard,max_connect=2"
ip netns exec c1 sh -c "mkdir -p /mnt/a /mnt/b &&
	mount -t nfs -o $opts $FAIRQ_SERVER:$FAIRQ_EXPORT /mnt/a &&
	mount -t nfs -o $opts $SERVER2:$FAIRQ_EXPORT /mnt/b &&
	mkdir -p /mnt/a/c1a /mnt/b/c1b || exit 1
	$job --directory=/mnt/a/c1a >/tmp/c1a.out 2>&1 &
	$job --directory=/mnt/b/c1b >/tmp/c1b.out 2>&1 &
	wait" &
ip netns exec c2 sh -c "mkdir -p /mnt/a && mount -t nfs -o $opts $FAIRQ_SERVER:$FAIRQ_EXPORT /mnt/a &&
	mkdir -p /mnt/a/c2 && $job --directory=/mnt/a/c2 >/tmp/c2.out 2>&1" &
sleep 15

# the trunk is really there: client 1 talks from both of its addresses, as one NFSv4 client
peers=$(ss -Htn state established "( dport = :2049 or sport = :2049 )" | awk '{ print $4 }' |
	sed 's/:[0-9]*$//' | sort -u | tr '\n' ' ')
case "$peers" in *10.99.0.11*10.99.1.51*) ;; *) fail "client 1 is not connected from both addresses: $peers" ;; esac
clients=$(grep -l "address: \"10.99.0.11" /proc/fs/nfsd/clients/*/info 2>/dev/null | wc -l)
[ "$clients" = 1 ] || fail "client 1 is $clients NFSv4 clients on the server, not one"
c1id=$(for f in /proc/fs/nfsd/clients/*/info; do
	grep -q '10.99.0.11' "$f" && sed -n 's/^clientid: 0x//p' "$f"; done | head -n 1)
[ -n "$c1id" ] || fail "no client id for client 1 in /proc/fs/nfsd/clients"

calls() {
	ip netns exec "c$1" awk '$1 == "rpc" { print $2 }' /proc/net/rpc/nfs
}
# share_of_c2 SECONDS: client 2's part of the RPCs both clients completed in the window
share_of_c2() {
	local a1 a2 b1 b2
	a1=$(calls 1) a2=$(calls 2)
	sleep "$1"
	b1=$(calls 1) b2=$(calls 2)
	awk -v x=$((b1 - a1)) -v y=$((b2 - a2)) 'BEGIN { if (x + y == 0) print "none"; else printf "%.3f\n", y / (x + y) }'
}
in_range() {
	awk -v s="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(s != "none" && s >= lo && s <= hi) }'
}

echo 1 >$T/key
sleep 5
by_addr=$(share_of_c2 15)
echo 4 >$T/key
sleep 5
by_client=$(share_of_c2 15)
fairqctl -j shares >/tmp/shares.json || fail "fairqctl -j shares failed"
fairqctl weight 10.99.0.12 3 || fail "weight by address refused"
sleep 5
weighted=$(share_of_c2 15)
fairqctl weight 10.99.0.12 0
log "client 2's share: by address $by_addr (owed 0.333), by NFSv4.1 client $by_client (owed 0.5), weight 3 $weighted (owed 0.75)"

python3 - /tmp/shares.json "$c1id" <<'PY' || fail "fairqctl does not show client 1 as one NFSv4.1 client key"
import json, sys
d = json.load(open(sys.argv[1]))
want = "v4client:" + sys.argv[2].rjust(16, "0").lower()
keys = {k["key"]: k for k in d["keys"]}
assert want in keys, (want, sorted(keys))
assert keys[want]["type"] == "v4client" and keys[want]["dispatches"] > 0, keys[want]
assert not any(k in keys for k in ("10.99.0.11", "10.99.1.51")), sorted(keys)
PY
in_range "$by_addr" 0.25 0.42 || fail "by address client 2 had $by_addr, owed 1/3"
in_range "$by_client" 0.42 0.58 || fail "by NFSv4.1 client client 2 had $by_client, owed 1/2"
in_range "$weighted" 0.68 0.82 || fail "with weight 3 client 2 had $weighted, owed 3/4"

# NFSv3 has no sessions: under key 4 its connection is keyed by address
ip netns exec c2 sh -c "mkdir -p /mnt/v3 && mount -t nfs -o vers=3,nolock $FAIRQ_SERVER:$FAIRQ_EXPORT /mnt/v3 &&
	ls /mnt/v3 >/dev/null && umount /mnt/v3" || fail "NFSv3 mount under key 4 failed"
fairqctl -j shares --key 10.99.0.12 | fairq_json 'len(d["keys"])' | grep -qx 1 ||
	fail "the NFSv3 connection has no address key under key 4"
# A new client's first compound with a SEQUENCE starts unbound, on its address key, and binds
# the connection while it runs: it must end on the key it started on.  Ending it on the client
# key left the address key with a request in flight for good, and its thread time on another
# key.  Client 3, with no mount of its own so far, mounts, lists and leaves.
v4keys() {
	fairqctl -j shares |
		fairq_json '" ".join(sorted(k["key"] for k in d["keys"] if k["type"] == "v4client"))'
}
# (keys stay while idle for longer than the test takes: a lost count must still be there to see)
echo 600 >$T/idle_secs || fail "idle_secs 600 refused"
keys_before=$(v4keys)
ip netns exec c3 sh -c "mkdir -p /mnt/a &&
	mount -t nfs -o vers=4.1,proto=tcp $FAIRQ_SERVER:$FAIRQ_EXPORT /mnt/a &&
	ls /mnt/a >/dev/null && umount /mnt/a" || fail "client 3's NFSv4.1 mount failed"
keys_after=$(v4keys)
[ "$keys_after" != "$keys_before" ] ||
	fail "client 3's connection was never bound: client keys $keys_after"
left=$(fairq_settled_in_flight 10.99.0.13)
[ "$left" != none ] || fail "client 3's first requests made no address key"
[ "$left" = 0 ] || fail "client 3's address key keeps $left requests in flight after they all ended"
grep -q "v4client_bound [1-9]" "$FAIRQ_DEBUGFS/pools" || fail "no connection bound: $(tail -n 1 "$FAIRQ_DEBUGFS/pools")"
[ "$(fairq_rescues)" = 0 ] || fail "the watchdog rescued transports"
