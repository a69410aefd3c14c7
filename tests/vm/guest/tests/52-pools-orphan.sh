#!/bin/bash
# A pool losing its last thread under load leaves nothing behind.  Two pools (sunrpc's
# pool_mode=percpu on the guest's two CPUs); clients busy on connections that both pools
# serve; pool 1's threads are taken away (pool_threads "4 0") and given back, again and again,
# then it stays empty.  What the pool held (its policy's queue, and what its last thread's own
# look for work had just handed its kernel queue) moves to pool 0: no client waits for a reply
# longer than fairq-load's timeout while pool 1 has no thread.  (fifo is left out: the
# kernel's own dispatch strands such a pool's queue, which is what fairq does better.)
. /fairq/lib.sh
FL=/usr/local/bin/fairq-load
PT=/proc/fs/nfsd/pool_threads
cleanup() {
	pkill -INT -x fairq-load
	fq_set_sched fifo
	fq_nfsd_down
	echo global >/sys/module/sunrpc/parameters/pool_mode
	fq_nfsd_up
}
trap cleanup EXIT
fq_nfsd_down
echo percpu >/sys/module/sunrpc/parameters/pool_mode || fail "pool_mode percpu refused"
fq_nfsd_up 8 || fail "nfsd did not start with two pools"
[ "$(grep -c '^[0-9]' /proc/fs/nfsd/pool_stats)" = 2 ] || fail "not two pools: $(cat /proc/fs/nfsd/pool_stats)"
sleep 11	# the grace period

for s in qfifo fairq capped; do
	fq_scheds | tr ' ' '\n' | grep -qx "$s" || continue
	fq_set_sched "$s" || fail "switch to $s refused"
	echo "4 4" >$PT || fail "pool_threads 4 4 refused"
	migrated0=$(fq_pool_sum migrated)
	pids=()
	for c in 1 2 3; do
		ip netns exec "c$c" $FL -p nfs3 -K 6 -W 4 -d 45 --timeout 15 "$FQ_SERVER:$FQ_EXPORT" \
			>/tmp/orphan$c.out 2>&1 &
		pids+=($!)
	done
	sleep 5
	for i in 1 2 3 4 5 6; do
		echo "4 0" >$PT || fail "$s: pool_threads 4 0 refused"
		sleep 2
		echo "4 4" >$PT || fail "$s: pool_threads 4 4 refused"
		sleep 1
	done
	# pool 1 stays empty past the clients' timeout: a stranded connection would time out
	echo "4 0" >$PT
	sleep 20
	for c in 1 2 3; do
		wait "${pids[$((c - 1))]}" || fail "$s: client $c: $(tail -n 3 /tmp/orphan$c.out)"
	done
	echo "4 4" >$PT
	log "$s: 7 times without pool 1's threads, every client served; moved $(($(fq_pool_sum migrated) - migrated0)) transports"
done
[ "$(fq_rescues)" = 0 ] || fail "the watchdog rescued $(fq_rescues) transports"
