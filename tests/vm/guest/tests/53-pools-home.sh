#!/bin/bash
# An enqueue waits in the pool of its CPU's own NUMA node.  In pool mode pernode, sunrpc numbers
# only the nodes that have CPUs, so with a node of memory only (CXL or HBM memory) there are
# fewer pools than node ids, and neither the node id nor the CPU number modulo the pools names
# the right pool: fairq learns each CPU's pool from the nfsd threads that run there.  A client
# pinned to one CPU (its packets are received, and its connection enqueued, on that CPU) must
# have nearly all of its enqueues land in that CPU's node's pool, for every CPU.  Needs two
# nodes of two CPUs and a node without CPUs: tests/vm/run --smp 4 --numa 2 --cpuless-node
# (make deep-check); elsewhere it says why it does not apply.
. /fairq/lib.sh
FL=/usr/local/bin/fairq-load
with_cpus=0 cpuless=0
for n in /sys/devices/system/node/node[0-9]*; do
	if [ -n "$(tr -d ' \n' <"$n/cpulist")" ]; then with_cpus=$((with_cpus + 1)); else cpuless=$((cpuless + 1)); fi
done
if [ "$(nproc)" -lt 4 ] || [ "$with_cpus" != 2 ] || [ "$cpuless" = 0 ]; then
	echo "$(nproc) CPUs on $with_cpus NUMA nodes, $cpuless nodes without CPUs: needs 4 CPUs on two nodes" \
		"and a node without CPUs (tests/vm/run --smp 4 --numa 2 --cpuless-node, make deep-check)"
	exit 4
fi
cleanup() {
	pkill -INT -x fairq-load
	fairq_set_sched fifo
	fairq_nfsd_restore_mode
}
trap cleanup EXIT
fairq_nfsd_restart_in pernode 8 ||
	fail "nfsd did not start again in pool mode pernode: $(cat /tmp/nfsd-pool-mode.out)"
[ "$(fairq_nr_pools)" = 2 ] || fail "$(fairq_nr_pools) pools in pool mode pernode with two nodes that have CPUs"
sleep 11	# the grace period
fairq_set_sched qfifo || fail "switch to qfifo refused"

# pool_enqueued POOL: enqueues into that pool of the (one) service so far
pool_enqueued() {
	awk -v p="$1" '$1 == "serv" && $4 == p { for (i = 1; i < NF; i++) if ($i == "enqueued") print $(i + 1) }' \
		"$FAIRQ_DEBUGFS/pools"
}
# load CPU SECONDS: a closed-loop client on that CPU only
load() {
	ip netns exec c1 taskset -c "$1" $FL -p nfs3 -K 2 -W 4 -d "$2" "$FAIRQ_SERVER:$FAIRQ_EXPORT" \
		>/tmp/home.out 2>&1 || fail "client on CPU $1: $(tail -n 3 /tmp/home.out)"
}
# the threads of each pool run on their node's CPUs: a few seconds of load from every CPU lets
# each CPU see a thread of its pool pull work there
for cpu in 0 1 2 3; do load "$cpu" 3; done

for cpu in 0 1 2 3; do
	node=$(basename "$(ls -d /sys/devices/system/cpu/cpu$cpu/node[0-9]*)")
	node=${node#node}
	# sunrpc's pernode pools, in order of the nodes that have CPUs: here nodes 0 and 1
	a0=$(pool_enqueued 0) a1=$(pool_enqueued 1)
	load "$cpu" 5
	b0=$(pool_enqueued 0) b1=$(pool_enqueued 1)
	d0=$((b0 - a0)) d1=$((b1 - a1))
	own=$([ "$node" = 0 ] && echo $d0 || echo $d1)
	[ $((d0 + d1)) -gt 50 ] || fail "CPU $cpu: only $((d0 + d1)) enqueues in 5 s"
	log "CPU $cpu (node $node): pool 0 got $d0 enqueues, pool 1 $d1"
	[ $((own * 100)) -ge $(((d0 + d1) * 80)) ] ||
		fail "CPU $cpu is on node $node, but its pool got $own of $((d0 + d1)) enqueues"
done
[ "$(fairq_rescues)" = 0 ] || fail "the watchdog rescued $(fairq_rescues) transports"
