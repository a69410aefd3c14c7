#!/bin/bash
# NFS over UDP, where nfsd still serves it.  nfsd serves every UDP client through one shared
# transport, so fairq sees one transport for all of them and fq one key (conn:shared).  With
# nfsd listening on UDP too and its threads the scarce resource, three UDP clients (two over
# IPv4, one over IPv6) keep calling beside NFSv3 and NFSv4.1 fio over TCP:
# - every UDP client's calls keep being answered under every scheduler, through live switches
#   between all of them and an unload and reload of fairq;
# - fq shows the UDP clients as the one key conn:shared, beside the TCP clients' own keys;
# - nfsd stops within 60 s with UDP calls waiting, and once it is back every call sent is
#   answered; fio verifies its data and the watchdog rescues nothing.
. /fairq/lib.sh
. /fairq/fairqctl-lib.sh
fairq_bench_lib /tmp/udp
trap 'pkill -f udp-calls.py; svctime_off; fairq_set_sched fifo' EXIT

udp_listen() {
	echo "udp 2049" >/proc/fs/nfsd/portlist 2>/tmp/udp.err
}
if ! udp_listen; then
	echo "nfsd of $(uname -r) does not listen on UDP: $(cat /tmp/udp.err)"
	exit 4
fi
grep -q '^udp' /proc/fs/nfsd/portlist ||
	fail "nfsd accepted a UDP listener but does not list it: $(cat /proc/fs/nfsd/portlist)"
log "nfsd listens on: $(tr '\n' ' ' </proc/fs/nfsd/portlist)"

# threads are the scarce resource: 2 ms of thread time per request, 8 threads
rpc.nfsd 8
svctime_on 2000
fairq_fio_start

# NFSv3 NULL calls over UDP, window 8, 100 a second at most (the guest's CPUs are not theirs
# alone), until SIGINT, from clients 1, 2 and (IPv6) 3; each writes how many were answered to
# $B_OUT/udpN.progress
UDP_PIDS=""
for n in 1 2 3; do
	server=$FAIRQ_SERVER
	[ "$n" = 3 ] && server=$FAIRQ_SERVER6
	ip netns exec "c$n" python3 /fairq/udp-calls.py "$server" --calls 0 --window 8 --rate 100 \
		--seconds 900 --progress "$B_OUT/udp$n.progress" >"$B_OUT/udp$n.json" 2>&1 &
	UDP_PIDS="$UDP_PIDS $!"
done
answered() {
	cat "$B_OUT/udp$1.progress" 2>/dev/null || echo 0
}
# udp_progress WHAT: every UDP client gets 50 more calls answered within 60 s
udp_progress() {
	local n i before=() now
	for n in 1 2 3; do
		before[n]=$(answered "$n")
	done
	for n in 1 2 3; do
		for i in $(seq 1 120); do
			now=$(answered "$n")
			[ "$now" -ge $((before[n] + 50)) ] && break
			sleep 0.5
		done
		[ "$now" -ge $((before[n] + 50)) ] ||
			fail "$1: UDP client $n had $((now - before[n])) calls answered in 60 s"
	done
	log "$1: UDP calls answered so far $(answered 1) $(answered 2) $(answered 3)"
}
udp_progress "start"

for s in $(fairq_scheds); do
	fairq_set_sched "$s" || fail "switch to $s refused"
	udp_progress "$s"
	if [ "$s" = fq ]; then
		fairqctl shares >"$B_OUT/shares" || fail "fairqctl shares failed"
		awk 'NR > 1 && $7 > 0 { print $1 }' "$B_OUT/shares" | sort | tr '\n' ' ' >"$B_OUT/keys"
		grep -qw 'conn:shared' "$B_OUT/keys" || fail "fq: no conn:shared key for the UDP clients: $(cat "$B_OUT/keys")"
		grep -qw '10.99.0.11' "$B_OUT/keys" || fail "fq: no key of TCP client 1: $(cat "$B_OUT/keys")"
		log "fq's keys with UDP and TCP clients: $(cat "$B_OUT/keys")"
	fi
done

# live switches and an unload while the UDP clients call
for s in $(fairq_scheds) fifo; do
	fairq_set_sched "$s" || fail "switch to $s refused"
	sleep 0.5
done
fairq_set_sched fq
sleep 1
rmmod fairq || fail "rmmod under UDP load failed"
modprobe fairq || fail "reload failed"
fairq_set_sched fq
udp_progress "switches and an unload"

# nfsd stops with UDP calls waiting for its threads (the shared transport queued in fairq);
# the clients resend until it is back
timeout 60 rpc.nfsd 0 || fail "nfsd did not stop within 60 s under UDP load"
[ "$(cat /proc/fs/nfsd/threads)" = 0 ] || fail "threads remain after the shutdown"
sleep 2
fairq_nfsd_up
udp_listen || fail "nfsd took no UDP listener after its restart: $(cat /tmp/udp.err)"
udp_progress "nfsd restarted"
kill -INT $UDP_PIDS
n=0
for p in $UDP_PIDS; do
	n=$((n + 1))
	wait "$p" || fail "UDP client $n: not every call answered: $(cat "$B_OUT/udp$n.json")"
done
log "UDP clients: $(cat "$B_OUT"/udp[123].json | tr '\n' ' ')"
sleep 8	# the grace period of the restart ends before fio's last I/O
fairq_fio_stop
svctime_off
fairq_set_sched fifo
[ "$(fairq_rescues)" = 0 ] || fail "the watchdog rescued $(fairq_rescues) transports"
log "UDP beside TCP under: $(fairq_scheds)"
