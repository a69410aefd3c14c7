#!/bin/bash
# nfsd's dynamic threads (7.3: a minimum besides the maximum).  sunrpc starts a thread when one
# takes work from the kernel queue and finds no other idle, and retires a thread idle for 5 s,
# within the range.  Under fairq the threads take their work from fairq's queue, fed to the
# kernel queue at the thread's own look: the pool must still shrink when idle and grow under
# load, fq must track every thread that comes (no untracked thread), and nothing is lost while
# threads come and go across live switches.
. /fairq/lib.sh
. /fairq/fairqctl-lib.sh
fairq_bench_lib /tmp/dynthreads
MIN=2
MAX=16
cleanup() {
	pkill -INT -x fairq-load
	wait
	svctime_off
	fairq_set_sched fifo
	# the later tests want a fixed count, and a minimum set over netlink may outlive a restart
	python3 /fairq/nfsd-nl.py threads "$FAIRQ_THREADS" 0 >/dev/null 2>&1
	fairq_nfsd_down
	fairq_nfsd_up
}
trap cleanup EXIT
threads() { pgrep -c -x nfsd; }
# agree: fairq's count of the pool's threads (sunrpc's own) and the nfsd threads running are the
# same within 5 s.  Read once each they can differ while a thread starts for a call that has
# just come (a client's lease renewal) or retires.
agree() {
	local i
	for i in $(seq 1 10); do
		[ "$(fairq_pool_sum threads)" = "$(threads)" ] && return 0
		sleep 0.5
	done
	return 1
}
# wait_threads TEST SECONDS: until the nfsd thread count passes TEST ("-le 2"), or fail
wait_threads() {
	local i
	for i in $(seq 1 $(($2 * 2))); do
		# shellcheck disable=SC2086 # TEST is an operator and a number
		[ "$(threads)" $1 ] && return 0
		sleep 0.5
	done
	return 1
}

fairq_set_sched fq || fail "switch to fq refused"
fairq_traffic 1 || fail "NFS traffic failed"	# fairq takes the service over at its first call
if ! python3 /fairq/nfsd-nl.py threads $MAX $MIN >/tmp/dyn.out 2>&1 ||
	! grep -q '"min-threads": '$MIN /tmp/dyn.out; then
	# a kernel without the range has no nfsd netlink family (6.1), or one that still sets the
	# plain count and says nothing of a minimum (6.12)
	grep -q '^errno 2: no nfsd netlink family' /tmp/dyn.out || {
		python3 /fairq/nfsd-nl.py threads "$FAIRQ_THREADS" >/tmp/dyn0.out 2>&1 &&
			grep -q '"threads"' /tmp/dyn0.out && ! grep -q min-threads /tmp/dyn0.out
	} && {
		echo "this nfsd has no minimum of threads (dynamic threads: 7.x): $(cat /tmp/dyn.out)"
		exit 4
	}
	fail "nfsd refused threads $MAX, at least $MIN: $(cat /tmp/dyn.out)"
fi
log "nfsd: $(cat /tmp/dyn.out)"

# idle: the threads above the minimum retire; the pool's count that fairq reports (sunrpc's
# own) agrees with the threads running
wait_threads "-le $MIN" 120 || fail "$(threads) nfsd threads after 120 s idle, with a minimum of $MIN"
agree ||
	fail "fairq reports $(fairq_pool_sum threads) threads, nfsd runs $(threads)"
log "idle: $(threads) threads"

# 24 calls of 50 ms outstanding: the pool grows towards its maximum
svctime_on 50000
load_start dyn 3 8 1
wait_threads "-ge 12" 90 || fail "only $(threads) nfsd threads under 24 calls outstanding (maximum $MAX)"
log "under load: $(threads) threads, $(fairq_pool_sum queued) transports queued in fairq"

# the threads keep coming and going (the load in waves) across live switches.  A thread idle
# for 5 s retires only if it takes nfsd's mutex at once: threads idle since the same moment
# mostly leave one at a time.
for s in qfifo fq capped fq; do
	fairq_scheds | tr ' ' '\n' | grep -qx "$s" || continue
	peak=$(threads)
	pkill -STOP -x fairq-load
	wait_threads "-le $((peak - 3))" 60 || fail "$(threads) nfsd threads 60 s into a pause, from $peak"
	low=$(threads)
	pkill -CONT -x fairq-load
	echo "$s" >"$FAIRQ_SYSFS/scheduler" || fail "switch to $s refused"
	wait_threads "-ge $((low + 3))" 60 || fail "under $s the pool stayed at $(threads) threads after a pause ($low)"
	log "$s: $peak threads, $low after a pause, $(threads) under load again"
done
[ "$(threads)" -le $MAX ] || fail "$(threads) nfsd threads, over the maximum of $MAX"

load_stop
svctime_off
wait_threads "-le $MIN" 120 || fail "$(threads) nfsd threads 120 s after the load, with a minimum of $MIN"
agree ||
	fail "after the load fairq reports $(fairq_pool_sum threads) threads, nfsd runs $(threads)"
[ "$(fairq_pool_sum queued)" = 0 ] || fail "transports left queued: $(cat "$FAIRQ_DEBUGFS/pools")"
[ "$(fairq_pool_sum untracked_threads)" = 0 ] ||
	fail "fq met $(fairq_pool_sum untracked_threads) threads it did not track"
[ "$(fairq_rescues)" = 0 ] || fail "the watchdog rescued $(fairq_rescues) transports"
log "back to $(threads) threads after the load; every client's calls answered"
# the minimum taken back, a restart runs a fixed count again
python3 /fairq/nfsd-nl.py threads "$FAIRQ_THREADS" 0 >/tmp/dyn.out 2>&1 &&
	grep -q '"min-threads": 0' /tmp/dyn.out || fail "nfsd kept its minimum: $(cat /tmp/dyn.out)"
fairq_nfsd_down
fairq_nfsd_up
sleep 12
[ "$(threads)" = "$FAIRQ_THREADS" ] ||
	fail "$(threads) nfsd threads 12 s after a restart with $FAIRQ_THREADS and no minimum"
