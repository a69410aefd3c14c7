#!/bin/bash
# A request nfsd drops ends on its key, as one it answers does.  Where svc_drop() is a
# function of its own (6.1), fairq hooks it; 6.12 and 7.3 drop inside svc_process(), where no
# hook sees it, and the request ends when its thread is next seen: at its next look for work
# (under a cap) or request, its exit, or by the watchdog once it has moved on (fq's
# unseen_request_ends).  Without that, the key kept the request in flight until it was
# freed, and stayed busy meanwhile.
# nfsd drops a request that waits for a cache upcall nobody answers: rpc.mountd is stopped and
# the kernel's export caches flushed while client 1 reads attributes on NFSv3 (noac, so every
# stat is a GETATTR).  Then mountd is back, the client's calls complete, and its key must have
# nothing in flight.  Twice: without a cap, where each request is charged from its start to its
# end, and with one (max_inflight), where the thread is charged from its take of the transport
# to its next look for work, which ends a request it still has.
. /fairq/lib.sh
. /fairq/fairqctl-lib.sh
fairq_need_sched fq
T=$FAIRQ_SYSFS/fq
idle=$(cat $T/idle_secs)
cap=$(cat $T/max_inflight)
cleanup() {
	touch /tmp/drops.stop
	pgrep -x rpc.mountd >/dev/null || rpc.mountd
	# a client stuck in a retransmission must not go on into the next test
	for _ in $(seq 10); do
		grep -q done /tmp/drops.state 2>/dev/null && break
		sleep 1
	done
	ip netns pids c1 | xargs -r kill -KILL 2>/dev/null
	echo "$idle" >$T/idle_secs
	echo "$cap" >$T/max_inflight
	fairq_set_sched fifo
	rm -f /tmp/drops.stop /tmp/drops.state
}
trap cleanup EXIT
rm -f /tmp/drops.stop /tmp/drops.state
fairq_set_sched fq
# whether this kernel's drops reach a hook: under fq, fairq attaches to svc_drop where it exists
EF=/sys/kernel/tracing/enabled_functions
mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing ||
	fail "cannot mount tracefs"
[ -r $EF ] || fail "no $EF"
drop_hooked=false
grep -q '^svc_drop ' $EF && drop_hooked=true
# keys stay while idle for longer than the test takes: a lost count must still be there to see
echo 600 >$T/idle_secs || fail "idle_secs 600 refused"
# One round under max_inflight $1 (0: none).
drops_round() {
	local unseen0 unseen left at="max_inflight $1"
	# a change of the cap rebuilds the keys: client 1's starts afresh
	echo "$1" >$T/max_inflight || fail "max_inflight $1 refused"
	rm -f /tmp/drops.stop /tmp/drops.state
	unseen0=$(fairq_pool_sum unseen_request_ends)

	# the client's loop ends, and it unmounts, when the stop file appears (here or at cleanup)
	ip netns exec c1 sh -c "mkdir -p /mnt/d &&
		mount -t nfs -o vers=3,nolock,noac,timeo=20,retrans=50 $FAIRQ_SERVER:$FAIRQ_EXPORT /mnt/d &&
		touch /mnt/d/drops && echo mounted >/tmp/drops.state || exit 1
		while [ ! -e /tmp/drops.stop ]; do stat /mnt/d/drops >/dev/null; sleep 0.2; done
		umount /mnt/d && echo done >>/tmp/drops.state" &
	for _ in $(seq 60); do
		grep -q mounted /tmp/drops.state 2>/dev/null && break
		sleep 1
	done
	grep -q mounted /tmp/drops.state 2>/dev/null || fail "$at: client 1 could not mount"
	sleep 2
	pkill -x rpc.mountd
	# a mountd on its way out could still answer the first upcall
	for _ in $(seq 50); do
		pgrep -x rpc.mountd >/dev/null || break
		sleep 0.1
	done
	pgrep -x rpc.mountd >/dev/null && fail "$at: rpc.mountd did not stop"
	exportfs -f
	sleep 12
	rpc.mountd || fail "$at: rpc.mountd did not start again"
	sleep 5
	touch /tmp/drops.stop
	for _ in $(seq 60); do
		grep -q done /tmp/drops.state && break
		sleep 1
	done
	grep -q done /tmp/drops.state || fail "$at: client 1's stat loop did not end after mountd was back"

	unseen=$(($(fairq_pool_sum unseen_request_ends) - unseen0))
	left=$(fairq_settled_in_flight 10.99.0.11)
	log "$at: client 1's key: $left in flight after its calls ended; drops hooked: $drop_hooked;" \
		"ends no hook saw: $unseen"
	[ "$left" != none ] || fail "$at: client 1 has no key"
	[ "$left" = 0 ] || fail "$at: client 1's key keeps $left requests in flight after its calls ended"
	if $drop_hooked; then
		[ "$unseen" = 0 ] || fail "$at: svc_drop is hooked, yet $unseen ends went unseen"
	else
		[ "$unseen" -gt 0 ] || fail "$at: nfsd dropped no request whose end had to be found"
	fi
	[ "$(fairq_rescues)" = 0 ] || fail "$at: the watchdog rescued transports"
}

drops_round 0
drops_round 2
