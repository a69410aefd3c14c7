#!/bin/bash
# capped: under a many-thread, many-client load the threads woken but not yet running never
# exceed max_waking, the cap really engages, nothing is lost, and work never waits behind the
# cap while a thread sits idle for a watchdog period (the bound of docs/capped.md; the
# watchdog counts each such wait in cap_waits).  Offered only where the kernel still wakes one
# idle thread per enqueue (before 6.7).
. /fairq/lib.sh
if ! fairq_scheds | tr ' ' '\n' | grep -qx capped; then
	[ -e "$FAIRQ_SYSFS/capped" ] && fail "capped has tunables but is not offered"
	echo "capped is not offered on $FAIRQ_KERNEL: the kernel wakes one thread per pool at a time"
	exit 4
fi
C=$FAIRQ_SYSFS/capped
wd=$(cat "$FAIRQ_SYSFS/watchdog_ms")
cap=$(cat "$C/max_waking")
trap 'echo "$cap" >"$C/max_waking"; echo "$wd" >"$FAIRQ_SYSFS/watchdog_ms"; echo fifo >"$FAIRQ_SYSFS/scheduler"; rpc.nfsd "$FAIRQ_THREADS"' EXIT
# the bound asserted below: nothing held by the cap for 500 ms while a thread is idle
echo 500 >"$FAIRQ_SYSFS/watchdog_ms" || fail "watchdog_ms 500 refused"
for bad in 0 33 -1 x; do fairq_expect_write_fails "$C/max_waking" "$bad"; done
echo 7 >"$C/max_waking" || fail "max_waking 7 refused"
[ "$(cat "$C/max_waking")" = 7 ] || fail "max_waking reads $(cat "$C/max_waking") after storing 7"
echo 2 >$C/max_waking || fail "max_waking 2 refused"
rpc.nfsd 32
fairq_set_sched capped
# many small reads in flight from three clients: far more ready work than threads woken
job="fio --name=c --size=1m --bs=4k --rw=randread --ioengine=libaio --iodepth=16 --direct=1 --numjobs=2 --time_based --runtime=40 --minimal"
pids=()
for c in 1 2 3; do
	fairq_nfs "$c" 3 "$job" >/tmp/fio$c 2>&1 &
	pids+=($!)
done
sleep 10
max=0
for i in $(seq 1 100); do
	w=$(awk '{ for (i = 1; i < NF; i++) if ($i == "waking") print $(i + 1) }' "$FAIRQ_DEBUGFS/pools" |
		sort -n | tail -n1)
	[ "${w:-0}" -gt "$max" ] && max=$w
	sleep 0.1
done
avoided=$(fairq_pool_sum overloads_avoided)
wait "${pids[@]}"
[ "$max" -le 2 ] || fail "$max threads were woken but not running (cap 2)"
[ "${avoided:-0}" -gt 0 ] || fail "the cap never engaged: $(cat "$FAIRQ_DEBUGFS/pools")"
for c in 1 2 3; do
	grep -q '^3;' /tmp/fio$c || { cat /tmp/fio$c; fail "client $c: fio did not report"; }
	grep -qiE 'io_u error|error=' /tmp/fio$c && { cat /tmp/fio$c; fail "client $c: I/O error"; }
	[ "$(grep '^3;' /tmp/fio$c | cut -d';' -f5 | sort -u)" = 0 ] ||
		{ cat /tmp/fio$c; fail "client $c: fio error"; }
done
[ "$(fairq_rescues)" = 0 ] || fail "the watchdog rescued transports"
cap_waits=$(fairq_pool_sum cap_waits)
[ "$cap_waits" = 0 ] || fail "work waited $cap_waits times behind the cap for 500 ms with a thread idle"
log "woken-not-running peaked at $max (cap 2); $avoided wakeups avoided"
