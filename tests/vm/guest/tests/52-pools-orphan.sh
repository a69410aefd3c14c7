#!/bin/bash
# A pool losing its last thread under load leaves nothing behind.  Two pools: pool mode percpu
# on the guest's two CPUs, or pernode on two NUMA nodes where the kernel keeps pernode whatever
# is asked (7.3).  Clients are busy on connections that both pools serve; pool 1's threads are
# taken away (pool_threads "4 0") and given back, again and again, then it stays empty.  What
# the pool held (its policy's queue, and what its last thread's own look for work had just
# handed its kernel queue) moves to pool 0: while pool 1 stays empty every connection of every
# client (a closed loop, always with calls outstanding) is served, counted by the clients
# (fairq-load --series).  (fifo is left out: the kernel's own dispatch strands such a pool's
# queue, which is what fairq does better.)  fq runs twice, the second time with a cap of 2 per
# key: a dispatch left in the kernel queue of a pool whose last thread left is ended there (no
# thread of that pool will be seen with it), so no key is left counting it, and none is given
# up on by the watchdog (lost_handoffs).
. /fairq/lib.sh
FL=/usr/local/bin/fairq-load
PT=/proc/fs/nfsd/pool_threads
R=/fairq/extra/fairq-races.ko
cleanup() {
	pkill -INT -x fairq-load
	echo 0 2>/dev/null >"$FAIRQ_SYSFS/fq/max_inflight"
	fairq_set_sched fifo
	if [ -e /sys/module/fairq/parameters/test_delay_us ]; then
		rmmod fairq
		modprobe fairq
	fi
	fairq_nfsd_restore_mode
}
trap cleanup EXIT
fairq_nfsd_restart_in percpu 8 ||
	fail "nfsd did not start again in pool mode percpu: $(cat /tmp/nfsd-pool-mode.out)"
if [ "$(fairq_nr_pools)" != 2 ]; then
	# 7.3's sunrpc keeps pernode whatever mode is written: two pools need two NUMA nodes
	echo "$(fairq_nr_pools) pools in pool mode $(fairq_pool_mode) on $(ls -d /sys/devices/system/node/node* | wc -l)" \
		"NUMA nodes (percpu asked for); two nodes give two (tests/vm/run --numa 2, make deep-check)"
	exit 4
fi
sleep 11	# the grace period

# pool_threads_set "A B": write it, and see it read back once the threads came or went
pool_threads_set() {
	local n
	echo "$1" >$PT || fail "$s: pool_threads '$1' refused"
	for n in $(seq 1 50); do
		[ "$(tr -s ' \n' ' ' <$PT | sed 's/ $//')" = "$1" ] && return
		sleep 0.1
	done
	fail "$s: pool_threads reads '$(cat $PT)' 5 s after '$1'"
}

# clients [WINDOW [CPUS]]: 3 clients, 6 connections each with WINDOW calls outstanding (4), on
# CPUS (any), in the background (pids in $pids)
clients() {
	local c
	pids=()
	for c in 1 2 3; do
		taskset -c "${2:-0-$(($(nproc) - 1))}" ip netns exec "c$c" $FL -p nfs3 -K 6 -W "${1:-4}" \
			-d 0 --timeout 60 --series /tmp/orphan$c.series --interval 0.5 \
			"$FAIRQ_SERVER:$FAIRQ_EXPORT" >/tmp/orphan$c.out 2>&1 &
		pids+=($!)
	done
}

# served_while_empty WHAT: pool 1 stays empty 15 s; every connection of every client must be
# served in its last 10 s (a connection stranded in pool 1 would make no progress)
served_while_empty() {
	local c from to
	pool_threads_set "4 0"
	sleep 5
	from=$EPOCHREALTIME
	sleep 10
	to=$EPOCHREALTIME
	kill -INT "${pids[@]}"
	for c in 1 2 3; do
		wait "${pids[$((c - 1))]}" || fail "$1: client $c: $(tail -n 3 /tmp/orphan$c.out)"
	done
	python3 - "$from" "$to" /tmp/orphan1.series /tmp/orphan2.series /tmp/orphan3.series <<'PY' ||
import json, sys
t0, t1 = float(sys.argv[1]), float(sys.argv[2])
for c, path in enumerate(sys.argv[3:], 1):
    series = [json.loads(l) for l in open(path) if l.strip()]
    before = [s for s in series if s["wall"] <= t0][-1]["conn"]
    after = [s for s in series if s["wall"] <= t1][-1]["conn"]
    stuck = [i for i, (a, b) in enumerate(zip(before, after)) if b <= a]
    assert not stuck, ("client", c, "connections served nothing while pool 1 was empty", stuck)
PY
		fail "$1: a connection waited while pool 1 had no thread"
}

for s in qfifo fq fq-cap capped; do
	fairq_scheds | tr ' ' '\n' | grep -qx "${s%-cap}" || continue
	fairq_set_sched "${s%-cap}" || fail "switch to ${s%-cap} refused"
	if [ "${s%-cap}" = fq ]; then
		cap=0
		[ "$s" = fq-cap ] && cap=2
		fairqctl set fq.max_inflight $cap || fail "fq.max_inflight $cap refused"
	fi
	pool_threads_set "4 4"
	migrated0=$(fairq_pool_sum migrated)
	lost0=$(fairq_pool_sum lost_handoffs)
	ended0=$(fairq_pool_sum handoffs_returned)
	clients
	sleep 5
	for i in 1 2 3; do
		pool_threads_set "4 0"
		sleep 2
		pool_threads_set "4 4"
		sleep 1
	done
	served_while_empty "$s"
	pool_threads_set "4 4"
	moved=$(($(fairq_pool_sum migrated) - migrated0))
	[ "$moved" -gt 0 ] || fail "$s: nothing was moved off pool 1: did it ever lose its last thread?"
	lost=$(($(fairq_pool_sum lost_handoffs) - lost0))
	[ "$lost" = 0 ] || fail "$s: $lost dispatches were never ended and given up for lost"
	log "$s: 4 times without pool 1's threads, every connection served; moved $moved transports; $(($(fairq_pool_sum handoffs_returned) - ended0)) dispatches ended in the pool that lost its threads"
done
[ "$(fairq_rescues)" = 0 ] || fail "the watchdog rescued $(fairq_rescues) transports"

# An enqueue that chose pool 1 just before its last thread left, and takes the pool's lock just
# after that thread moved pool 1's work away, must not queue there.  The race build holds every
# enqueue that chose a pool down to its last thread (test_delay_us's "last thread") for 5 ms,
# busy, between choosing and locking.  nfsd's threads all run on CPU 0 and the clients on CPU 1,
# one call outstanding per connection: each call is enqueued on CPU 1 (the clients' sends are
# received there) for pool 1 (where CPU 1's threads ran before), so CPU 1 is nearly always in
# that window when pool 1's last thread leaves on CPU 0.
s="race build"	# for pool_threads_set's messages
rmmod fairq || fail "cannot unload fairq for the race build"
insmod $R test_delay_us=0,0,0,0,0,0,0,0,5000 || fail "cannot load the race build"
fairq_set_sched qfifo || fail "race build: switch to qfifo refused"
for round in 1 2 3; do
	pool_threads_set "4 1"
	for p in $(pgrep -x nfsd); do
		# a thread of the last change may exit meanwhile
		taskset -pc 0 "$p" >/dev/null 2>&1 || [ ! -d "/proc/$p" ] ||
			fail "cannot move nfsd thread $p to CPU 0"
	done
	clients 1 1
	sleep 3
	served_while_empty "last thread, round $round"
done
log "race build: 3 times an enqueue held at pool 1's last thread, every connection served"
[ "$(fairq_rescues)" = 0 ] || fail "the watchdog rescued $(fairq_rescues) transports (race build)"
