#!/bin/bash
# Unload and reload fairq while clients keep I/O going, with a queueing scheduler active:
# everything it held goes back to the kernel, nothing is lost, no retransmission.
. /fairq/lib.sh
ROUNDS=${FAIRQ_ROUNDS:-3}
b1=$(fairq_retrans 1)
b2=$(fairq_retrans 2)
job="fio --name=u --size=2m --bs=4k --rw=randrw --ioengine=psync --direct=1 --numjobs=2 --time_based --runtime=3600 --verify=crc32c --verify_fatal=1 --minimal"
fairq_nfs 1 3 "$job" >/tmp/fio1 2>&1 &
p1=$!
fairq_nfs 2 4.1 "$job" >/tmp/fio2 2>&1 &
p2=$!
sleep 15
for i in $(seq 1 "$ROUNDS"); do
	for s in $(fairq_scheds); do
		[ "$s" = fifo ] && continue
		fairq_set_sched "$s" || fail "round $i: switch to $s refused"
		sleep 1
		rmmod fairq || fail "round $i: rmmod with $s active failed"
		modprobe fairq || fail "round $i: reload failed"
		[ "$(fairq_sched)" = fifo ] || fail "round $i: reload did not start on fifo"
	done
	kill -0 $p1 $p2 2>/dev/null || fail "a client died in round $i"
done
# the module can also go away while it is idle and come back
pkill -INT -x fio
wait $p1 $p2
for c in 1 2; do
	grep -q '^3;' /tmp/fio$c || { cat /tmp/fio$c; fail "client $c: fio did not report"; }
	grep -qiE 'verify|bad magic|io_u error|error=' /tmp/fio$c && { cat /tmp/fio$c; fail "client $c: I/O error"; }
done
[ $(($(fairq_retrans 1) - b1)) = 0 ] || fail "client 1 retransmitted"
[ $(($(fairq_retrans 2) - b2)) = 0 ] || fail "client 2 retransmitted"
dmesg | grep -q 'fairq: unloaded' || fail "no unload message"
log "$ROUNDS unload/reload rounds under load"
