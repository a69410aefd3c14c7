#!/bin/bash
# Allocation failures in fairq's own allocation sites, injected by the race build
# (fairq-races.ko: src/testing.c's test_fail_every) under I/O with verification:
#  - a service's state: its transports keep the kernel's dispatch, the failure is counted and
#    retried once a second (not on every enqueue), and fairq takes over once memory is back;
#  - thread records (the per-key cap): counted as untracked threads, requests served;
#  - NFSv4.1 bindings (client keys): counted as skipped, the connection keyed by address.
# Each time nothing is lost: no I/O error, no retransmission, no rescue, no warning.
. /fairq/lib.sh
R=/fairq/extra/fairq-races.ko
F=/sys/module/fairq/parameters/test_fail_every
cleanup() {
	pkill -INT -x fio
	rmmod fairq 2>/dev/null
	modprobe fairq
}
trap cleanup EXIT
pool_stat() {
	awk -v f="$1" '{ for (i = 1; i < NF; i++) if ($i == f) print $(i + 1) }' "$FAIRQ_DEBUGFS/pools" | tail -n 1
}

rmmod fairq
insmod $R test_fail_every=1,0,0 || fail "cannot load the race build"
fairq_fio_start
sleep 10

# the service's state cannot be had
fairq_set_sched qfifo || fail "switch to qfifo refused"
sleep 4
fails=$(pool_stat serv_alloc_failures)
grep -q '^serv ' "$FAIRQ_DEBUGFS/pools" && fail "a service was tracked although its state could not be allocated"
[ "$fails" -ge 2 ] && [ "$fails" -le 7 ] ||
	fail "$fails failed service allocations in 4 s: retried once a second, not per enqueue"
dmesg | grep -q 'fairq: no memory for the state of an nfsd service' || fail "the failure was not logged"
echo 0,0,0 >$F
sleep 3
grep -q '^serv .* enqueued [1-9]' "$FAIRQ_DEBUGFS/pools" || fail "fairq did not take over once memory was back: $(cat "$FAIRQ_DEBUGFS/pools")"
log "service state: $fails failures in 4 s (one a second), then tracked"

# thread records, under the per-key cap
if fairq_scheds | tr ' ' '\n' | grep -qx fq; then
	# armed first: a thread keeps its record for life once it has one
	echo 0,1,0 >$F
	fairq_set_sched fq || fail "switch to fq refused"
	echo 2 >$FAIRQ_SYSFS/fq/max_inflight || fail "max_inflight refused"
	sleep 5
	untracked=$(fairq_pool_sum untracked_threads)
	[ "$untracked" -gt 0 ] || fail "no untracked thread counted: $(cat "$FAIRQ_DEBUGFS/pools")"
	echo 0,0,0 >$F
	echo 0 >$FAIRQ_SYSFS/fq/max_inflight
	log "thread records: $untracked threads untracked, requests served"

	# NFSv4.1 bindings
	skipped0=$(fairq_module_counter v4client_skipped)
	echo 4 >$FAIRQ_SYSFS/fq/key || fail "key 4 refused"
	echo 0,0,1 >$F
	# a new connection's first SEQUENCE asks for a binding
	fairq_nfs 3 4.1 "dd if=/dev/zero of=f bs=64k count=16 conv=fsync 2>/dev/null && cat f >/dev/null" ||
		fail "client 3: I/O failed while bindings could not be allocated"
	skipped=$(fairq_module_counter v4client_skipped)
	[ "$skipped" -gt "$skipped0" ] || fail "no skipped binding counted: $(grep '^module' "$FAIRQ_DEBUGFS/pools")"
	echo 0,0,0 >$F
	echo 1 >$FAIRQ_SYSFS/fq/key
	log "v4.1 bindings: $((skipped - skipped0)) skipped, client 3 served by address"
fi

fairq_set_sched fifo
fairq_fio_stop
fairq_fio_retrans
[ "$(fairq_rescues)" = 0 ] || fail "the watchdog rescued $(fairq_rescues) transports"
log "no I/O error, no retransmission"
