#!/bin/bash
# nfsd stopped with a backlog in fq's queue.  With one pool, the last thread leaves the backlog
# where it is; nfsd's teardown then closes every transport under its service lock, each close
# through fairq's enqueue.  The first close of a queued transport, seeing no thread left, must
# hand the pool's whole backlog to the kernel in one flush: one fq_remove (a search of the
# policy's queues) per close, with bottom halves off and the lock held, was quadratic in the
# backlog.  Counted with probes on fq_remove and fairq_pool_flush (the transports each flush
# moved), armed for the stop only.
. /fairq/lib.sh
fairq_need_sched fq
fairq_bench_lib /tmp/stop-backlog
TR=/sys/kernel/tracing
I=$TR/instances/fairq-stop
mountpoint -q $TR || mount -t tracefs nodev $TR || fail "cannot mount tracefs"
cleanup() {
	pkill -INT -x fairq-load
	wait
	if [ -d $I ]; then
		echo 0 >$I/events/fairqt/enable
		rmdir $I
	fi
	echo '-:fairqt/rm' >>$TR/kprobe_events 2>/dev/null
	echo '-:fairqt/flush' >>$TR/kprobe_events 2>/dev/null
	svctime_off
	fairq_set_sched fifo
	[ "$(cat /proc/fs/nfsd/threads)" != 0 ] || fairq_nfsd_up
}
trap cleanup EXIT
[ "$(fairq_nr_pools)" = 1 ] || {
	# several pools: the last thread to leave hands the backlog to the kernel itself
	echo "$(fairq_nr_pools) pools: the closes meet a backlog only with one"
	exit 4
}
echo 'p:fairqt/rm fairq:fq_remove' >>$TR/kprobe_events || fail "no probe on fq_remove"
echo 'r:fairqt/flush fairq:fairq_pool_flush n=$retval:u32' >>$TR/kprobe_events ||
	fail "no probe on fairq_pool_flush"
mkdir $I || fail "cannot make a trace instance"

fairq_nfsd_up 2
svctime_on 100000
# the connections are opened under qfifo, each served a first call before fq queues them:
# fq with 60 connections opening at once can meet 6.12's limit of 64 not yet shown a handle
fairq_set_sched qfifo || fail "switch to qfifo refused"
for c in 1 2 3; do
	ip netns exec "c$c" $FL -j -K 20 -W 1 -d 0 --timeout 120 "$B_EXPORT" \
		>"$B_OUT/c$c.json" 2>"$B_OUT/c$c.err" &
done
sleep 15
fairq_set_sched fq || fail "switch to fq refused"
for i in $(seq 1 50); do
	q=$(fairq_pool_sum queued)
	[ "$q" -ge 40 ] && break
	sleep 0.2
done
[ "$q" -ge 40 ] || fail "only $q transports queued with 60 connections on 2 threads of 100 ms"

echo 1 >$I/events/fairqt/enable
rm0=$(awk '$1 == "rm" { print $2 }' $TR/kprobe_profile)
timeout 120 rpc.nfsd 0 || fail "nfsd's stop did not finish in 120 s"
removes=$(($(awk '$1 == "rm" { print $2 }' $TR/kprobe_profile) - rm0))
echo 0 >$I/events/fairqt/enable
flushed=$(grep -o 'n=[0-9]*' $I/trace | cut -d= -f2 | sort -n | tail -n 1)
log "$q queued at the stop; during it: $removes fq_remove calls, the largest flush ${flushed:-0}"
[ $((removes + ${flushed:-0})) -ge 40 ] ||
	fail "the closes met no backlog ($removes removes, a flush of ${flushed:-0}): the test did not run"
[ "${flushed:-0}" -ge 40 ] || fail "no flush took the backlog: the closes took it one by one"
[ "$removes" -le 3 ] || fail "$removes searches of fq's queues at nfsd's teardown"
pkill -INT -x fairq-load
wait
fairq_nfsd_up
