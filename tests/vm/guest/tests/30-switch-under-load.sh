#!/bin/bash
# 500 scheduler switches while fio runs over NFSv3 and NFSv4.1 from three clients: no I/O
# error, no RPC retransmission, no rescue, nothing lost (fio verifies what it reads back).
. /fairq/lib.sh
SWITCHES=${FAIRQ_SWITCHES:-500}
RUNTIME=${FAIRQ_RUNTIME:-3600}
scheds=($(fairq_scheds))
[ ${#scheds[@]} -ge 2 ] || fail "fewer than two schedulers offered"

declare -A base
for c in 1 2 3; do base[$c]=$(fairq_retrans "$c"); done

fio_job() {
	# randrw with verification: any lost, duplicated or misordered request shows as an error
	echo "fio --name=c$1 --size=2m --bs=4k --rw=randrw --ioengine=psync --direct=1 \
		--numjobs=2 --time_based --runtime=$RUNTIME --verify=crc32c --do_verify=1 \
		--verify_fatal=1 --minimal --exitall_on_error"
}
pids=()
fairq_nfs 1 3 "$(fio_job 1)" >/tmp/fio1 2>&1 &
pids+=($!)
fairq_nfs 2 4.1 "$(fio_job 2)" >/tmp/fio2 2>&1 &
pids+=($!)
fairq_nfs 3 4.1 "$(fio_job 3)" >/tmp/fio3 2>&1 &
pids+=($!)
sleep 15	# let the mounts and the v4 grace period settle

# Every switch to or from fifo registers or removes fairq's ftrace hooks, which waits for
# RCU-tasks grace periods (about half a second each under TCG); switches between queueing
# schedulers are ms.  So fifo is drawn one time in sixteen and the queueing schedulers share
# the rest: still about 60 hook changes under load, and the run fits the CI budget (the races
# test changes the hooks under its own widened windows).
queueing=()
for s in "${scheds[@]}"; do [ "$s" = fifo ] || queueing+=("$s"); done
pick_target() {	# sets target (no subshell: a fork per switch costs much under TCG)
	if [ $((RANDOM % 16)) = 0 ] || [ ${#queueing[@]} = 0 ]; then
		target=fifo
	else
		target=${queueing[$((RANDOM % ${#queueing[@]}))]}
	fi
}
start=$(date +%s)
to_fifo=0
for i in $(seq 1 "$SWITCHES"); do
	pick_target
	[ "$target" = fifo ] && to_fifo=$((to_fifo + 1))
	echo "$target" >"$FAIRQ_SYSFS/scheduler" || fail "switch $i to $target refused"
	for p in "${pids[@]}"; do
		kill -0 "$p" 2>/dev/null || { cat /tmp/fio*; fail "a fio client died during switch $i"; }
	done
done
log "$SWITCHES switches ($to_fifo to fifo) in $(($(date +%s) - start))s"
# one more full round with every scheduler under load, so each is seen carrying traffic
for s in "${scheds[@]}"; do
	fairq_set_sched "$s"
	sleep 3
done
echo qfifo >"$FAIRQ_SYSFS/scheduler"
sleep 3
grep -q 'enqueued [1-9]' "$FAIRQ_DEBUGFS/pools" || fail "qfifo carried no traffic: $(cat "$FAIRQ_DEBUGFS/pools")"
echo fifo >"$FAIRQ_SYSFS/scheduler"

# fio runs until told to stop: SIGINT makes it finish and report cleanly
pkill -INT -x fio
for p in "${pids[@]}"; do
	wait "$p"
done
for c in 1 2 3; do
	grep -q '^3;' /tmp/fio$c || { cat /tmp/fio$c; fail "client $c: fio did not report"; }
	if grep -qiE 'verify|bad magic|io_u error|error=' /tmp/fio$c; then
		cat /tmp/fio$c
		fail "client $c: fio saw an I/O or verification error"
	fi
	errs=$(grep '^3;' /tmp/fio$c | cut -d';' -f5 | sort -u | tr '\n' ' ')
	[ "$errs" = "0 " ] || fail "client $c: fio error code(s) $errs"
	r=$(($(fairq_retrans "$c") - ${base[$c]}))
	[ "$r" = 0 ] || fail "client $c: $r RPC retransmissions"
done
[ "$(fairq_rescues)" = 0 ] || fail "the watchdog rescued $(fairq_rescues) transports"
log "fio read KiB/s per job: $(grep -h '^3;' /tmp/fio1 /tmp/fio2 /tmp/fio3 | cut -d';' -f3,7 | tr '\n' ' ')"
