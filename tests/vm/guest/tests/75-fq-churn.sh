#!/bin/bash
# fairq under churn: clients mount, work and unmount in a loop while another keeps I/O going;
# keys are freed after 1 s idle, the key type and prefixes change under load (every queue is
# rebuilt), and nothing is lost: no I/O error, no retransmission, no rescue.
. /fairq/lib.sh
fairq_need_sched fq
T=$FAIRQ_SYSFS/fq
orig_idle=$(cat $T/idle_secs)
trap 'echo $orig_idle > $T/idle_secs; echo 1 > $T/key; echo fifo > $FAIRQ_SYSFS/scheduler' EXIT
echo 1 >$T/idle_secs || fail "idle_secs refused"
fairq_set_sched fq
b1=$(fairq_retrans 1)
job="fio --name=k --size=2m --bs=4k --rw=randrw --ioengine=psync --direct=1 --numjobs=2 --time_based --runtime=3600 --verify=crc32c --verify_fatal=1 --minimal"
fairq_nfs 1 4.1 "$job" >/tmp/fio1 2>&1 &
p1=$!
sleep 12
for i in $(seq 1 8); do	# every case below twice: both key 3 and key 4, NFSv3 and v4.1
	c=$((2 + i % 2))
	v=$([ $((i % 3)) = 0 ] && echo 3 || echo 4.1)
	# a bounded round: a stall fails here, with its round, not at the suite's timeout
	timeout 120 bash -c ". /fairq/lib.sh; fairq_nfs $c $v 'dd if=/dev/urandom of=f bs=4k count=32 conv=fsync 2>/dev/null && md5sum f >/dev/null && ls >/dev/null'" ||
		fail "churn round $i (client $c, NFSv$v) failed or stalled: $(cat "$FAIRQ_DEBUGFS/pools"; fairq_nfsd_stacks)"
	case $((i % 4)) in
	0) echo 1 >$T/key ;;
	1) echo 2 >$T/key && echo $((16 + i)) >$T/prefix4 ;;
	2) echo $((3 + (i / 4) % 2)) >$T/key ;;	# connection, or NFSv4.1 client
	3) sleep 2 ;;	# let idle keys be freed
	esac || fail "tunable change refused in round $i"
	kill -0 $p1 2>/dev/null || fail "the steady client died in round $i"
done
# out-of-range tunables are refused and change nothing
for bad in "key 0" "key 5" "prefix4 33" "prefix6 129" "quantum_us 99" "new_burst 0" "burst_ms 10001" "idle_secs 0"; do
	set -- $bad
	fairq_expect_write_fails "$T/$1" "$2"
done
pkill -INT -x fio
wait $p1
grep -q '^3;' /tmp/fio1 || { cat /tmp/fio1; fail "fio did not report"; }
grep -qiE 'verify|bad magic|io_u error|error=' /tmp/fio1 && { cat /tmp/fio1; fail "I/O error"; }
[ $(($(fairq_retrans 1) - b1)) = 0 ] || fail "client 1 retransmitted"
[ "$(fairq_rescues)" = 0 ] || fail "the watchdog rescued transports"
log "12 churn rounds with key changes, no loss"
