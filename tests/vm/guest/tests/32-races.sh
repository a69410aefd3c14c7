#!/bin/bash
# The races of unload, switching and nfsd teardown, with their windows widened by the race
# build (fairq-races.ko: src/testing.c's test_delay_us) so that a run hits them every time:
#  1. writers racing unload: sysfs and netlink switches and tunable writes, each held 20 ms
#     before it takes the scheduler mutex, while the module is unloaded and loaded again.  A
#     writer that got the mutex after unload's last switch used to turn the hooks back on,
#     and the module was freed under live ftrace hooks.  After every unload no function may
#     still be traced by fairq.
#  2. readers racing the switch to fifo: debugfs and netlink dumps, each resting 20 ms on every
#     service, walk the services while a switch to fifo frees them.  An unlink that is not
#     RCU-safe sends a resting reader into the switcher's stack: a hang or an oops.  (Unload
#     cannot meet a reader: an open debugfs file or a running dump holds the module.)
#  3. nfsd teardown racing unload: the svc_destroy wrapper sleeps 6 s before the real function
#     (the hooks go meanwhile, and unload waits for the wrapper) and then spends 2 s in its own
#     tail after saying it is done; unload must wait for that tail too (the race build warns
#     if it does not).
#  4. fq's key type, quantum, prefix, cap and a weight rewritten for 12 s from sysfs and
#     netlink at once under load: each rewrite rebuilds the pools' keys under live traffic.
#  5. nfsd stopping under wq (where it is offered) just after the switch, with wq's manager
#     sleeping 4 s before each run and 8 s in each worker start, and the service's teardown
#     6 s between its quiesce and unlisting the service: the manager run that the first
#     enqueues asked for, before the stop, must not start a worker for the stopping service,
#     or it sleeps in the start while the teardown frees the pools, and wakes on freed memory
#     (the race build warns when a pool it uses is freed).
#  6. wq's workers (where it is offered) resting 500 ms (five watchdog ticks) between deciding
#     to run and looking at the queue, then every other worker start failing after 300 ms:
#     work queued meanwhile must have a worker counted as on its way, or an idle one woken
#     when a start it was left to fails.  Otherwise the watchdog finds it beside an idle
#     worker with none coming, and rescues it ("a lost wakeup").  Then every start failing:
#     with no worker at all, nfsd's threads must serve the work, or it waits for good.
#  7. request hooks racing the switch to fifo: fairq's hooks at a request's start and end rest
#     1 ms between reading the pool's policy and using it, while the scheduler goes from
#     fairq (which charges requests) to fifo and back for 10 s.  The switch clears the pool's
#     policy meanwhile: a hook that reads it a second time finds none (a NULL dereference,
#     first seen in a benchmark run).
#  8. wq's workers (where it is offered) resting 200 ms between deciding to run and looking,
#     while the scheduler goes from wq to fq with a cap of 1 per key.  A worker whose look
#     comes after the switch is handed work by fq and counted as working for its key, like a
#     thread; it then retires without looking again.  Its count must end when it goes, or the
#     key stays at its cap with no thread working for it, and its client waits for good.
# Clients keep I/O going through all of it (fio with verification): no error, and no
# retransmission while nfsd stays up (1, 2, 4, 6, 7 and 8).  FAIRQ_RACES="writers readers
# tunables teardown wq-teardown wq-gap wq-fq request-hooks" picks parts.
. /fairq/lib.sh
FAIRQ_RACES=${FAIRQ_RACES:-writers readers tunables wq-gap wq-fq request-hooks teardown wq-teardown}
part() { [[ " $FAIRQ_RACES " == *" $1 "* ]]; }
R=/fairq/extra/fairq-races.ko
TR=/sys/kernel/tracing
[ -f $R ] || fail "no race build $R"
mountpoint -q $TR || mount -t tracefs nodev $TR || fail "cannot mount tracefs"

loops=()
stop_loops() {
	local p
	# their children too: an orphaned fairqctl dump would hold the module
	for p in "${loops[@]}"; do pkill -P "$p" 2>/dev/null; kill "$p" 2>/dev/null; done
	for p in "${loops[@]}"; do wait "$p" 2>/dev/null; done
	loops=()
}
cleanup() {
	stop_loops
	pkill -CONT -x fio	# wq-gap pauses it
	pkill -INT -x fio
	rmmod fairq 2>/dev/null
	modprobe fairq
	[ "$(cat /proc/fs/nfsd/threads)" != 0 ] || fairq_nfsd_up
}
trap cleanup EXIT

# races DELAYS [FAILS]: the race build in place of the real module, with test_delay_us=DELAYS
# (select, wrapper, wrapper exit, reader, wq start, wq manage, service unlist, wq run, last
# thread, request hook, give back) and
# test_fail_every=FAILS (service, thread, v4 binding, wq worker)
races() {
	grep -q '^fairq ' /proc/modules && unload "loading the race build"
	insmod $R "test_delay_us=$1" ${2:+"test_fail_every=$2"} || fail "cannot load the race build"
}

# unload WHEN: rmmod, again while a netlink dump in progress holds the module (EAGAIN); then
# nothing of fairq may still be traced
unload() {
	local n
	for n in $(seq 1 50); do
		timeout 60 rmmod fairq 2>/tmp/rmmod.err && break
		grep -q 'in use\|temporarily' /tmp/rmmod.err || fail "$1: rmmod failed: $(cat /tmp/rmmod.err)"
		sleep 0.1
	done
	grep -q '^fairq ' /proc/modules && fail "$1: rmmod failed: $(cat /tmp/rmmod.err)"
	no_hooks "$1"
}

# no_hooks WHEN: after an unload, nothing of fairq may still be traced
no_hooks() {
	if grep -E 'svc_|fairq' $TR/enabled_functions; then
		fail "$1: functions still traced after unload (the hooks outlived the module)"
	fi
	! grep -q '^fairq ' /proc/modules || fail "$1: the module is still loaded"
}

fairq_fio_start
sleep 12

# 1. writers racing unload
if part writers; then
races 20000,0,0,0,0
writer() {
	while :; do
		for s in qfifo fq fifo capped qfifo; do
			# the files come and go with the module
			{ echo "$s" >"$FAIRQ_SYSFS/scheduler"; } 2>/dev/null
			{ echo 5000 >"$FAIRQ_SYSFS/fq/quantum_us"; } 2>/dev/null
		done
	done
}
nl_writer() {
	while :; do
		fairqctl sched set qfifo >/dev/null 2>&1
		fairqctl set fq.quantum_us 8000 >/dev/null 2>&1
		fairqctl sched set fq >/dev/null 2>&1
	done
}
writer &
loops+=($!)
writer &
loops+=($!)
nl_writer &
loops+=($!)
for i in $(seq 1 4); do
	sleep 0.$((RANDOM % 8 + 2))
	unload "writers, round $i"
	insmod $R test_delay_us=20000,0,0,0,0 || fail "writers: reload $i failed"
done
stop_loops
log "writers: 4 unloads under sysfs and netlink writers"
fi

# 2. readers racing the switch to fifo and unload
if part readers; then
races 0,0,0,20000,0
# read by the shell itself: no fork between two reads, so a reader nearly always rests on
# the service
reader() {
	local x
	while :; do read -r -d '' x <"$FAIRQ_DEBUGFS/pools"; done 2>/dev/null
}
nl_reader() {
	while :; do
		fairqctl -j -a pools >/dev/null 2>&1
		fairqctl -j -a shares >/dev/null 2>&1
	done
}
reader &
loops+=($!)
reader &
loops+=($!)
nl_reader &
loops+=($!)
for i in $(seq 1 6); do
	fairq_set_sched fq || fail "readers: switch $i to fairq refused"
	sleep 0.3
	# a reader that walked off the list keeps the switch in synchronize_rcu() for good
	timeout 60 sh -c "echo fifo >$FAIRQ_SYSFS/scheduler" || fail "readers: switch $i to fifo hung"
	sleep 0.1
done
stop_loops
log "readers: 6 switches to fifo under debugfs and netlink readers"
fi
# 4. fq's keying and its quantum rewritten under load, from sysfs and netlink at once: every
# rewrite rebuilds each pool's keys with transports queued and requests on threads
if part tunables; then
grep -q '^fairq ' /proc/modules && unload "loading the real module"
modprobe fairq || fail "tunables: the real module did not load"
fairq_set_sched fq || fail "tunables: switch to fq refused"
F=$FAIRQ_SYSFS/fq
rewriter() {
	while :; do
		for v in "2 100 16" "3 1000000 32" "1 10000 24" "4 500 24"; do
			set -- $v
			echo "$1" >$F/key
			echo "$2" >$F/quantum_us
			echo "$3" >$F/prefix4
		done
	done 2>/dev/null
}
nl_rewriter() {
	while :; do
		fairqctl set fq.max_inflight 2
		fairqctl weight 10.99.0.0/24 3
		fairqctl set fq.quantum_us 2000
		fairqctl set fq.max_inflight 0
		fairqctl weight 10.99.0.0/24 0
	done >/dev/null 2>&1
}
rewriter &
loops+=($!)
nl_rewriter &
loops+=($!)
sleep 12
stop_loops
echo 1 >$F/key
echo 10000 >$F/quantum_us
echo 24 >$F/prefix4
fairqctl set fq.max_inflight 0 >/dev/null
sleep 2
fairq_set_sched fifo || fail "tunables: back to fifo refused"
log "tunables: key, quantum_us, prefix4, max_inflight and a weight rewritten for 12 s under load"
fi

# 7. request hooks resting between reading the pool's policy and using it, fq <-> fifo
if part request-hooks; then
	races 0,0,0,0,0,0,0,0,0,1000
	t0=$SECONDS
	n=0
	while [ $((SECONDS - t0)) -lt 10 ]; do
		fairq_set_sched fq || fail "request-hooks: switch to fq refused"
		sleep 0.3
		fairq_set_sched fifo || fail "request-hooks: switch to fifo refused"
		n=$((n + 1))
	done
	log "request-hooks: $n switches fq -> fifo with the request hooks resting 1 ms each"
fi

# 6. wq's workers slow between deciding to run and looking, then their starts failing.  fio
# is paused: a lost wakeup shows only when no other call comes to wake a worker.
if part wq-gap && fairq_scheds | grep -qw wq; then
	FL=/usr/local/bin/fairq-load
	pkill -STOP -x fio
	# (a) a worker is woken for each call and rests 500 ms before it looks
	races 0,0,0,0,0,0,0,500000
	echo 60000 >"$FAIRQ_SYSFS/wq/idle_ms"	# the workers a load started stay, idle
	fairq_set_sched wq || fail "wq-gap: switch to wq refused"
	ip netns exec c3 $FL -K 2 -W 2 -d 3 "$FAIRQ_SERVER:$FAIRQ_EXPORT" >/tmp/gap0.out 2>&1 ||
		fail "wq-gap: the load failed: $(cat /tmp/gap0.out)"
	# all of them idle: a worker still passing by the queue would take the calls early
	for i in $(seq 1 30); do
		[ "$(fairq_pool_sum idle_workers)" = "$(fairq_pool_sum workers)" ] && break
		sleep 0.5
	done
	workers=$(fairq_pool_sum workers)
	ip netns exec c3 $FL -j -K 1 -W 1 -d 10 "$FAIRQ_SERVER:$FAIRQ_EXPORT" >/tmp/gap1.json 2>/tmp/gap1.err ||
		fail "wq-gap: one call at a time failed: $(cat /tmp/gap1.err)"
	calls=$(python3 -c 'import json, sys; print(json.load(sys.stdin)["client"]["ops"])' </tmp/gap1.json)
	rescued=$(cat "$FAIRQ_SYSFS/rescues")	# since the race build was loaded
	fairq_set_sched fifo || fail "wq-gap: back to fifo refused"
	[ "$workers" -ge 2 ] || fail "wq-gap: $workers workers after the load (the race needs one idle)"
	[ "$rescued" = 0 ] ||
		fail "wq-gap: the watchdog rescued $rescued transports (queued work beside an idle worker, none counted as coming)"
	# (b) every other worker start fails, after 300 ms: work left to it must get an idle one
	races 0,0,0,0,300000,0,0,0 0,0,0,2
	fairq_set_sched wq || fail "wq-gap: switch to wq refused"
	ip netns exec c3 $FL -j -K 2 -W 1 -d 15 "$FAIRQ_SERVER:$FAIRQ_EXPORT" >/tmp/gap2.json 2>/tmp/gap2.err ||
		fail "wq-gap: two connections failed: $(cat /tmp/gap2.err)"
	rescued=$(cat "$FAIRQ_SYSFS/rescues")
	failed=$(fairq_pool_sum start_failures)
	fairq_set_sched fifo || fail "wq-gap: back to fifo refused"
	[ "$rescued" = 0 ] ||
		fail "wq-gap: the watchdog rescued $rescued transports after failed worker starts"
	[ "$failed" -gt 0 ] || fail "wq-gap: no worker start failed (the race was not run)"
	# (c) no worker can start at all: nfsd's threads serve the work, one call at a time
	races 0,0,0,0,300000,0,0,0 0,0,0,1
	fairq_set_sched wq || fail "wq-gap: switch to wq refused"
	ip netns exec c3 $FL -j -K 1 -W 1 -n 20 --timeout 20 "$FAIRQ_SERVER:$FAIRQ_EXPORT" >/tmp/gap3.json 2>/tmp/gap3.err ||
		fail "wq-gap: with no worker able to start, calls were left waiting: $(cat /tmp/gap3.err)"
	started=$(fairq_pool_sum started)
	nofail=$(fairq_pool_sum start_failures)
	# what the pools ran then, for a failure to explain itself (a failsafe switch to fifo
	# would show as no wq counters at all)
	seen="scheduler $(awk '$1 == "serv" { for (i = 1; i < NF; i++) if ($i == "sched") print $(i + 1) }' \
		"$FAIRQ_DEBUGFS/pools" | sort -u | tr '\n' ' ')(active: $(cat "$FAIRQ_SYSFS/scheduler")), rescues $(cat "$FAIRQ_SYSFS/rescues"), failsafe switches $(fairq_module_counter failsafe_switches)"
	fairq_set_sched fifo || fail "wq-gap: back to fifo refused"
	unload "wq-gap"
	modprobe fairq
	pkill -CONT -x fio
	[ "$started" = 0 ] && [ "$nofail" -gt 0 ] ||
		fail "wq-gap: $started workers started and $nofail starts failed where every start was to fail; $seen; $(dmesg | grep fairq | tail -5 | tr '\n' '|')"
	log "wq-gap: $calls calls one at a time with $workers workers; $failed worker starts failed; nothing rescued; 20 calls served by nfsd's threads while no worker could start"
fi

# 8. wq's workers looking for work after a switch to fq with a cap of 1: client 3 alone, one
# call at a time on each of 4 connections, a worker woken for each call.  A count left behind
# by a worker holds the client's key at its cap for good: its calls wait past the load's
# timeout (10 s for calls of no service time: a bound on a wait that never ends, not a
# speed), or the watchdog rescues them.
if part wq-fq && fairq_scheds | grep -qw wq; then
	FL=/usr/local/bin/fairq-load
	pkill -STOP -x fio
	races 0,0,0,0,0,0,0,200000
	fairqctl set fq.max_inflight 1 >/dev/null || fail "wq-fq: max_inflight 1 refused"
	for round in 1 2 3; do
		fairq_set_sched wq || fail "wq-fq: switch to wq refused"
		ip netns exec c3 $FL -j -K 4 -W 1 -d 6 --timeout 10 "$FAIRQ_SERVER:$FAIRQ_EXPORT" \
			>/tmp/wqfq.json 2>/tmp/wqfq.err &
		load=$!
		sleep 1.$((RANDOM % 10))
		fairq_set_sched fq || { kill $load; fail "wq-fq: switch to fq refused"; }
		wait $load || fail "wq-fq: round $round: client 3's calls waited after the switch to fq: $(tail -n 2 /tmp/wqfq.err)"
	done
	rescued=$(cat "$FAIRQ_SYSFS/rescues")
	fairqctl set fq.max_inflight 0 >/dev/null
	fairq_set_sched fifo || fail "wq-fq: back to fifo refused"
	pkill -CONT -x fio
	[ "$rescued" = 0 ] || fail "wq-fq: the watchdog rescued $rescued transports held at the cap"
	log "wq-fq: 3 switches wq -> fq under a cap of 1 with workers on their way: every call served"
fi

# nfsd stays up until here: the clients have not retransmitted
fairq_fio_retrans

# 3. nfsd teardown racing unload
if part teardown; then
waited=0
for i in 1 2; do
	races 0,6000000,2000000,0,0
	fairq_set_sched qfifo || fail "teardown: switch to qfifo refused"
	sleep 1
	rpc.nfsd 0 &
	nfsd_pid=$!
	# nfsd's threads stop within a second or two, and then svc_destroy sleeps in the
	# wrapper (nfsd_mutex is held all along, so /proc/fs/nfsd cannot be asked): unload
	# meanwhile, at a different point each round
	sleep $((i + 1))
	t=$(date +%s)
	unload "teardown, round $i"
	# an unload that overlapped the wrapper waited for its sleep and its tail
	[ $(($(date +%s) - t)) -ge 3 ] && waited=$((waited + 1))
	wait $nfsd_pid || fail "teardown: rpc.nfsd 0 failed in round $i"
	fairq_nfsd_up || fail "teardown: nfsd restart failed in round $i"
	sleep 2
done
modprobe fairq
[ "$waited" -gt 0 ] || fail "teardown: no unload overlapped the svc_destroy wrapper (the race was not run)"
log "teardown: 2 unloads during nfsd's svc_destroy, $waited of them waiting for the wrapper"
fi

# 5. nfsd stopping right after a switch to wq, while the manager run the first enqueues asked
# for has not looked at the pools yet
if part wq-teardown && fairq_scheds | grep -qw wq; then
	asked=0
	for i in 1 2; do
		races 0,0,0,0,8000000,4000000,6000000
		# work waits for workers that are slow to come: slow, not lost (the watchdog would
		# rescue it)
		echo 10000 >"$FAIRQ_SYSFS/watchdog_ms"
		fairq_set_sched wq || fail "wq-teardown: switch to wq refused"
		sleep 0.$((i * 3))
		# the manager was asked for (wq_start() may be inlined into wq_manage())
		grep -lsE 'wq_start|wq_manage' /proc/[0-9]*/stack >/dev/null && asked=$((asked + 1))
		timeout 90 rpc.nfsd 0 || fail "wq-teardown: nfsd stop did not finish in round $i"
		pgrep -x "fairq-wq/[0-9]*" >/dev/null && fail "wq-teardown: workers outlived nfsd: $(pgrep -a fairq-wq)"
		fairq_nfsd_up || fail "wq-teardown: nfsd restart failed in round $i"
		sleep 2
	done
	unload "wq-teardown"
	modprobe fairq
	! dmesg | grep -q 'freeing memory that a sleeping context still uses' ||
		fail "wq-teardown: a service's pools were freed while wq's manager was starting a worker for one"
	[ "$asked" -gt 0 ] || fail "wq-teardown: nfsd never stopped while the manager was asked for (the race was not run)"
	log "wq-teardown: 2 nfsd stops under wq, $asked of them while the manager was asked for"
fi

sleep 12	# the last grace period ends, so the clients finish with I/O, not reclaims
fairq_fio_stop
log "clients: no I/O error"
