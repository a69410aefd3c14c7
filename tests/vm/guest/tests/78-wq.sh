#!/bin/bash
# wq: requests are served by fairq's own workers, not by waking nfsd threads; the worker set
# grows under load and shrinks when idle; files created over NFSv3 and NFSv4.1 get exactly the
# mode the client asked for (a worker has nfsd's umask 0, not init's); nothing is lost.
# Offered only where sunrpc lets a request context live outside the thread pool (before 6.6).
. /fairq/lib.sh
. /fairq/fairqctl-lib.sh
offered=$(fairq_scheds | tr ' ' '\n' | grep -cx wq)
case $FAIRQ_SERIES in
6.1)
	[ "$offered" = 1 ] || fail "wq is not offered on 6.1: $(fairq_scheds)"
	;;
*)
	[ "$offered" = 0 ] || fail "wq offered on $FAIRQ_KERNEL, where svc_recv() processes requests itself"
	[ -e "$FAIRQ_SYSFS/wq" ] && fail "wq has tunables but is not offered"
	echo "wq is not offered on $FAIRQ_KERNEL (see docs/wq.md)"
	exit 4
	;;
esac
W=$FAIRQ_SYSFS/wq
idle0=$(cat "$W/idle_ms")
trap 'echo $idle0 > $W/idle_ms; echo 64 > $W/max_workers; echo fifo > $FAIRQ_SYSFS/scheduler' EXIT
for bad in 0 1025 -1 x; do fairq_expect_write_fails "$W/max_workers" "$bad"; done
for bad in 99 600001 x; do fairq_expect_write_fails "$W/idle_ms" "$bad"; done
echo 200 >"$W/idle_ms" || fail "idle_ms 200 refused"
fairq_set_sched wq

# The umask trap: with init's umask (022) a worker would create 0644 for a client's 0666.
for v in 3 4.1; do
	d=m${v%.*}
	fairq_nfs 1 "$v" "umask 0; rm -rf $d; mkdir $d && mkdir $d/d777 && touch $d/f666 &&
		umask 027 && touch $d/f640" || fail "v$v: creating files failed"
	for f in "$d 777" "$d/d777 777" "$d/f666 666" "$d/f640 640"; do
		set -- $f
		mode=$(stat -c %a "$FAIRQ_EXPORT/c1/$1")
		[ "$mode" = "$2" ] || fail "NFSv$v: $1 created with mode $mode, the client asked for $2"
	done
done
log "modes over NFSv3 and NFSv4.1 are the client's"

# Under load: workers serve, nfsd threads are not woken for the work.
base_wake=$(fairq_pool_sum wakeups)
base_enq=$(fairq_pool_sum enqueued)
job="fio --name=w --size=2m --bs=4k --rw=randrw --ioengine=libaio --iodepth=8 --direct=1 --numjobs=2 --time_based --runtime=25 --verify=crc32c --verify_fatal=1 --minimal"
fairq_nfs 2 3 "$job" >/tmp/fio2 2>&1 &
p2=$!
fairq_nfs 3 4.1 "$job" >/tmp/fio3 2>&1 &
p3=$!
sleep 12
peak=0
for i in $(seq 1 20); do
	n=$(fairq_pool_sum workers)
	[ "$n" -gt "$peak" ] && peak=$n
	sleep 0.25
done
wait $p2 $p3 || true
for c in 2 3; do
	grep -q '^3;' /tmp/fio$c || { cat /tmp/fio$c; fail "client $c: fio did not report"; }
	grep -qiE 'verify|bad magic|io_u error|error=' /tmp/fio$c && { cat /tmp/fio$c; fail "client $c: I/O error"; }
done
enq=$(($(fairq_pool_sum enqueued) - base_enq))
wake=$(($(fairq_pool_sum wakeups) - base_wake))
started=$(fairq_pool_sum started)
[ "$enq" -gt 1000 ] || fail "only $enq transports went through wq"
[ "$started" -gt 0 ] || fail "no worker was started: $(cat "$FAIRQ_DEBUGFS/pools")"
[ "$peak" -gt 1 ] || fail "the worker set never grew under load (peak $peak)"
# nfsd threads are woken only for control work (closes) while wq runs the requests
[ $((wake * 100)) -le "$enq" ] || fail "$wake nfsd thread wakeups for $enq requests under wq"
# idle: back to one worker per pool within a few idle periods
sleep 3
left=$(fairq_pool_sum workers)
pools=$(grep -c '^serv' "$FAIRQ_DEBUGFS/pools")
[ "$left" -le "$pools" ] || fail "$left workers left idle in $pools pools (idle_ms 200)"
[ "$(fairq_pool_sum start_failures)" = 0 ] || fail "workers failed to start: $(cat "$FAIRQ_DEBUGFS/pools")"
# idle, nothing is on its way: a woken worker that stayed counted would hide a lost wakeup
[ "$(fairq_pool_sum woken_workers)" = 0 ] || fail "woken workers counted while idle: $(cat "$FAIRQ_DEBUGFS/pools")"
# fairqctl shows the workers (the scheduler's own counters)
n=$(fairqctl -j pools | fairq_json 'sum(p["sched_counters"]["workers"] for p in d["pools"])') ||
	fail "fairqctl -j pools has no wq counters"
[ "$n" -ge 1 ] && [ "$n" -le "$pools" ] || fail "fairqctl shows $n workers in $pools idle pools"
fairqctl pools | grep -qE '^ +wq: workers [0-9]+ idle_workers [0-9]+ woken_workers 0 started [0-9]+' ||
	fail "fairqctl pools does not list wq's counters: $(fairqctl pools)"
[ "$(fairq_rescues)" = 0 ] || fail "the watchdog rescued transports"
log "$enq requests, $started workers started, peak $peak, $left left idle, $wake nfsd wakeups"

# nfsd stops promptly with wq's workers around, and restarts under wq
timeout 60 rpc.nfsd 0 || fail "nfsd shutdown under wq did not finish within 60s"
pgrep fairq-wq >/dev/null && fail "worker threads outlived nfsd: $(pgrep -a fairq-wq)"
fairq_nfsd_up "$FAIRQ_THREADS" || fail "nfsd restart under wq failed"
fairq_nfs 1 3 "dd if=/dev/zero of=after bs=4k count=64 status=none && cmp -n 262144 after /dev/zero" ||
	fail "no I/O under wq after the restart"
[ "$(fairq_pool_sum started)" -gt 0 ] || fail "no worker started after the restart"
fairq_set_sched fifo
pgrep 'fairq-wq' >/dev/null && fail "worker threads outlived the switch to fifo: $(pgrep -a fairq-wq)"
exit 0
