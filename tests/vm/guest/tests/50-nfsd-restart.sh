#!/bin/bash
# Under every scheduler: nfsd thread-count changes under load, and nfsd stop/start with clients
# connected and busy.  Shutdown must not wait on anything fairq holds.
. /fairq/lib.sh
job="fio --name=r --size=2m --bs=4k --rw=randrw --ioengine=psync --direct=1 --numjobs=2 --time_based --runtime=3600 --verify=crc32c --verify_fatal=1 --minimal"
fairq_nfs 1 3 "$job" >/tmp/fio1 2>&1 &
p1=$!
fairq_nfs 2 4.1 "$job" >/tmp/fio2 2>&1 &
p2=$!
sleep 15
for s in $(fairq_scheds); do
	fairq_set_sched "$s" || fail "switch to $s refused"
	for t in 2 16 1 8; do
		rpc.nfsd "$t" || fail "$s: rpc.nfsd $t failed"
		sleep 1
		[ "$(cat /proc/fs/nfsd/threads)" = "$t" ] || fail "$s: threads not $t"
	done
	echo 4 >/proc/fs/nfsd/pool_threads || fail "$s: pool_threads refused"
	sleep 1
	# a hang here is the failure this guards against (the suite's timeout would catch it):
	# 60 s is far beyond a clean shutdown even under emulation
	timeout 60 rpc.nfsd 0 || fail "$s: nfsd shutdown did not finish within 60s"
	[ "$(cat /proc/fs/nfsd/threads)" = 0 ] || fail "$s: threads remain after shutdown"
	sleep 1
	# Once, nfsdcld is stopped across the start, as a loaded server may be slow to answer:
	# nfsd gives up on it after a second and falls back, and the fallback must not be the
	# nfsdcltrack helper, which can keep a thread for good (see setup.sh).
	lines=$(dmesg | wc -l)
	[ "$s" = fifo ] && pkill -STOP -x nfsdcld
	fairq_nfsd_up 8 || fail "$s: nfsd restart failed"
	if [ "$s" = fifo ]; then
		pkill -CONT -x nfsdcld
		dmesg | tail -n +$((lines + 1)) | grep 'NFSD' >/tmp/nfsd-start
		grep -q 'Using UMH upcall client tracking' /tmp/nfsd-start &&
			fail "nfsd fell back to the nfsdcltrack helper: $(cat /tmp/nfsd-start)"
		log "nfsd started without nfsdcld: $(grep -E 'NFSD: (Using|Unable)' /tmp/nfsd-start)"
	fi
	sleep 2	# the next round starts inside the v4 grace period: clients wait, as they should
	kill -0 $p1 $p2 2>/dev/null || fail "$s: a client died"
done
sleep 12	# the last grace period ends, so the clients finish with I/O, not reclaims
fairq_set_sched fifo
pkill -INT -x fio
wait $p1 $p2
for c in 1 2; do
	grep -q '^3;' /tmp/fio$c || { cat /tmp/fio$c; fail "client $c: fio did not report"; }
	grep -qiE 'verify|bad magic|io_u error|error=' /tmp/fio$c && { cat /tmp/fio$c; fail "client $c: I/O error"; }
done
[ "$(fairq_rescues)" = 0 ] || fail "the watchdog rescued $(fairq_rescues) transports"
log "restarts and thread changes under: $(fairq_scheds)"
