#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The demo's guest side.  Client 1 is greedy (16 connections, 64 requests in flight), client 2
# is light (one connection, one request at a time).  Every request holds its nfsd thread for
# 50 ms (the test-only service-time helper), so threads are the scarce resource, as on a busy
# server, and what each scheduler does is visible despite emulation.
. /fairq/lib.sh
RUN=15
THREADS=4

light_run() {
	fairq_nfs 2 3 "fio --name=light --size=1m --bs=4k --rw=randread --ioengine=psync --direct=1 \
		--numjobs=1 --time_based --runtime=$RUN --minimal" | grep '^3;' | cut -d';' -f6 |
		awk -v t="$RUN" '{ printf "%.1f", $1 / 4 / t }'
}

echo "== fairq demo on $(uname -r): nfsd with $THREADS threads, 50 ms per request"
insmod /fairq/extra/fairq_svctime.ko || exit 1
rpc.nfsd "$THREADS"
echo all >/sys/module/fairq_svctime/parameters/clients
echo 50000 >/sys/module/fairq_svctime/parameters/delay_us

echo
echo "-- the light client alone: $(light_run) requests/s"
ip netns exec c1 sh -c "mkdir -p /mnt/g && mount -t nfs -o vers=3,nolock,nconnect=16 $FAIRQ_SERVER:$FAIRQ_EXPORT /mnt/g &&
	mkdir -p /mnt/g/greedy && fio --name=greedy --directory=/mnt/g/greedy --size=1m --bs=4k \
	--rw=randread --ioengine=libaio --iodepth=32 --direct=1 --numjobs=2 --time_based --runtime=3600 \
	--minimal >/dev/null 2>&1; umount /mnt/g" &
sleep 8

for s in $(fairq_scheds); do
	[ "$s" = capped ] && continue	# same order as fifo; its point is wakeups, not shares
	echo
	echo "-- scheduler $s, with the greedy client (16 connections) busy"
	fairqctl sched set "$s" >/dev/null
	rate=$(light_run)
	echo "   light client: $rate requests/s"
	echo "   \$ fairqctl"
	fairqctl | sed 's/^/   /'
	if [ "$s" = fq ]; then
		echo "   \$ fairqctl shares"
		fairqctl shares | sed 's/^/   /'
	fi
done
fairqctl sched set fifo >/dev/null
pkill -INT -x fio
wait
echo 0 >/sys/module/fairq_svctime/parameters/delay_us
echo
echo "== done: under fifo the greedy client's 16 connections take most threads; under fq"
echo "   each client is one key and gets its share of thread time."
