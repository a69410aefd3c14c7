#!/bin/bash
# A second nfsd in its own network namespace (s2, 10.99.0.2, an NFSv4-only server of its own
# export, as a container would run one) served through fairq beside the first.  fairq tracks
# both services; a caller in s2 sees only s2's pools, -a sees both.  Under fio with
# verification on both servers at once: live switches through every scheduler, an unload and
# reload in a queueing scheduler, and the second nfsd stopped and started under qfifo: no I/O
# error, nothing left queued, no rescue.
. /fairq/lib.sh
. /fairq/fairqctl-lib.sh
S2=10.99.0.2
cleanup() {
	pkill -INT -x fio
	sleep 1
	# after a failure, a client 3 still in its I/O (its mount hanging) is killed (NFS waits
	# are killable): its mount goes with its mount namespace's last process, and does not
	# retry towards a server that is gone for the rest of the boot
	ip netns pids c3 2>/dev/null | xargs -r kill -KILL 2>/dev/null
	fairq_set_sched fifo 2>/dev/null
	s2 'rpc.nfsd 0' 2>/dev/null
	ip netns pids s2 2>/dev/null | xargs -r kill 2>/dev/null
	sleep 1
	ip netns del s2 2>/dev/null
	umount /srv/nfs2 2>/dev/null
	# On 6.1 and 6.12 (not 7.3) every nfsd start zeroes the kernel-wide count of session slot memory
	# (set_max_drc()), though the first server's sessions still hold theirs: once those end,
	# the count wraps and every later NFSv4.1 session gets a single slot, too few for the
	# shares the later tests measure.  Restarting the first server with no session left
	# anywhere starts the count afresh.
	fairq_nfsd_down
	fairq_nfsd_up
	sleep 11	# its grace period
}
trap cleanup EXIT

# s2's own file system view: nfsd's control files for s2, its own /run (rpcbind's socket),
# /var/lib/nfs (export table, v4 client records through its own rpc_pipefs) and /etc/exports;
# the daemons keep it
mkdir -p /srv/nfs2 /tmp/s2
mount -t tmpfs -o size=256m tmpfs /srv/nfs2
chmod 1777 /srv/nfs2
echo "/srv/nfs2 *(rw,no_root_squash,insecure,no_subtree_check,fsid=2)" >/tmp/s2/exports
ip netns add s2
ip link add vs2 type veth peer name eth0 netns s2
ip link set vs2 master br0 up
ip -n s2 addr add $S2/24 dev eth0
ip -n s2 link set eth0 up
ip -n s2 link set lo up
# s2 CMD: run CMD in s2's network and mount namespaces (its daemons'): an `ip netns exec`
# would see the init namespace's /run, and an nfsd stopped from there (6.1's kernel finds
# rpcbind by that path) unregisters the first server's programs from the first rpcbind
s2() { nsenter -t "$(cat /tmp/s2/rpcbind.pid)" -m -n sh -c "$*"; }
s2_up() {	# s2_up THREADS
	s2 "rpc.nfsd -N 3 $1" >/tmp/s2/nfsd.out 2>&1
}
ip netns exec s2 sh -c '
	mount -t tmpfs tmpfs /run && mount -t tmpfs tmpfs /var/lib/nfs &&
	mount --bind /tmp/s2/exports /etc/exports &&
	mkdir -p /var/lib/nfs/rpc_pipefs /var/lib/nfs/nfsdcld &&
	mount -t rpc_pipefs rpc_pipefs /var/lib/nfs/rpc_pipefs &&
	mount -t nfsd nfsd /proc/fs/nfsd &&
	rpcbind -w && pgrep -n -x rpcbind >/tmp/s2/rpcbind.pid &&
	exportfs -ra && rpc.mountd -N 3 && nfsdcld &&
	echo 10 >/proc/fs/nfsd/nfsv4leasetime && echo 10 >/proc/fs/nfsd/nfsv4gracetime &&
	rpc.nfsd -N 3 4' >/tmp/s2/setup.out 2>&1 || fail "the second nfsd did not start: $(cat /tmp/s2/setup.out)"
sleep 11	# its grace period

fairq_set_sched qfifo || fail "switch to qfifo refused"
# fio with verification: clients 1 and 2 on the first server, client 3 on the second
fairq_fio_start 1:3 2:4.1 3:4.1:$S2:/srv/nfs2
# fairq takes a service over at its first enqueue: wait for client 3's mount and fio
services() { fairqctl -j -a pools | fairq_json 'len({p["serv"] for p in d["pools"]})'; }
for i in $(seq 1 60); do
	[ "$(services)" = 2 ] && break
	sleep 0.5
done
[ "$(services)" = 2 ] || fail "fairq tracks $(services) services with two nfsd serving: $(fairqctl -a pools)"
n=$(ip netns exec s2 fairqctl -j pools | fairq_json 'len({p["serv"] for p in d["pools"]})')
[ "$n" = 1 ] || fail "a caller in s2 sees $n services: $(ip netns exec s2 fairqctl pools)"
mine=$(ip netns exec s2 fairqctl -j pools | fairq_json 'd["pools"][0]["serv"]')
theirs=$(fairqctl -j pools | fairq_json 'd["pools"][0]["serv"]')
[ "$mine" != "$theirs" ] || fail "s2 and the init namespace see the same service $mine"
busy=$(ip netns exec s2 fairqctl -j pools | fairq_json 'sum(p["enqueued"] for p in d["pools"])')
[ "$busy" -gt 0 ] || fail "nothing of the second server went through fairq"
log "two services (init $theirs, s2 $mine); s2's own view shows one, -a both"

# -n: s2's view from outside it, as ip -n gives it, before or after the command.  nfsd's own
# counters are left out: fairqctl cannot tell whose nfsd file system it would read
[ "$(fairqctl -n s2 -j pools | fairq_json 'd["pools"][0]["serv"]')" = "$mine" ] ||
	fail "fairqctl -n s2 does not show s2's service $mine: $(fairqctl -n s2 pools)"
[ "$(fairqctl pools --netns s2 -j | fairq_json 'len({p["serv"] for p in d["pools"]})')" = 1 ] ||
	fail "fairqctl pools --netns s2: $(fairqctl pools --netns s2)"
[ "$(fairqctl -n s2 -j pools | fairq_json '"nfsd_pools" in d')" = False ] ||
	fail "fairqctl -n s2 shows nfsd counters of an unknown namespace: $(fairqctl -n s2 -j pools)"
fairq_expect 5 "no network namespace 'nosuch'" fairqctl -n nosuch pools
fairq_expect 4 'needs CAP_SYS_ADMIN' fairq_as_nobody fairqctl -n s2 pools
fairq_expect 2 'one network namespace, or all' fairqctl -a pools --netns s2
log "fairqctl -n s2: service $mine, and no nfsd counters"

# live switches across both services
fairq_switch_storm 8
sleep 3
keys=$(fairqctl -j -a shares | fairq_json 'len({k["serv"] for k in d["keys"]})')
[ "$keys" = 2 ] || fail "fq keeps keys in $keys services with both loaded: $(fairqctl -a shares)"

# unload and reload under a queueing scheduler
fairq_set_sched qfifo
rmmod fairq || fail "unload under both services failed"
modprobe fairq || fail "reload failed"
fairq_set_sched qfifo || fail "switch to qfifo after the reload refused"
sleep 3

# the second nfsd stopped and started again under qfifo, while the first keeps serving
s2 'rpc.nfsd 0' || fail "stopping the second nfsd failed"
sleep 2
[ "$(services)" = 1 ] || fail "fairq still tracks $(services) services with the second nfsd stopped"
s2_up 4 || fail "the second nfsd did not start again: $(cat /tmp/s2/nfsd.out)"
# the second server's stop and start left the first one's registrations alone
fairq_nfs 1 3 true || fail "the first server no longer answers NFSv3 mounts after the second one's restart"
sleep 15	# its grace period, and client 3's reclaim

fairq_set_sched fifo
fairq_fio_stop
[ "$(fairq_pool_sum queued)" = 0 ] || fail "transports left queued: $(cat "$FAIRQ_DEBUGFS/pools")"
[ "$(fairq_rescues)" = 0 ] || fail "the watchdog rescued $(fairq_rescues) transports"
log "8 switches, an unload and a restart of the second nfsd with both loaded: no I/O error"
