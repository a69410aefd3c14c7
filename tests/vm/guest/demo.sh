#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The demo's guest side: client 1 is greedy (nconnect=16, 16 fio jobs), client 2 is light (one
# connection, a small metadata walk).  Every scheduler this kernel offers gets a turn.
. /fairq/lib.sh
show() {
	echo "---- scheduler: $(cat "$FQ_SYSFS/scheduler")"
	echo "     nfsd pool_stats: $(tail -n +2 /proc/fs/nfsd/pool_stats)"
	if [ -r "$FQ_DEBUGFS/pools" ]; then
		sed -n 's/^serv [^ ]* /     /p' "$FQ_DEBUGFS/pools"
	fi
}
echo "== fairq demo on $(uname -r): nfsd with $FQ_THREADS threads"
ip netns exec c1 sh -c "mkdir -p /mnt/g && mount -t nfs -o vers=4.1,nconnect=16 $FQ_SERVER:$FQ_EXPORT /mnt/g &&
	mkdir -p /mnt/g/greedy && fio --name=greedy --directory=/mnt/g/greedy --size=4m --bs=4k \
	--rw=randrw --ioengine=psync --direct=1 --numjobs=16 --time_based --runtime=300 \
	--minimal >/tmp/greedy.out 2>&1" &
greedy=$!
sleep 15
fq_nfs 2 4.1 'mkdir -p tree && cd tree && for d in $(seq 1 20); do mkdir -p d$d; for f in $(seq 1 10); do : > d$d/f$f; done; done' ||
	echo "light client: tree setup failed"
for s in $(fq_scheds) fifo; do
	fq_set_sched "$s"
	sleep 2
	t0=$(date +%s%N)
	fq_nfs 2 4.1 'find . -type f | xargs stat -c %s >/dev/null'
	t1=$(date +%s%N)
	show
	echo "     light client: walked 200 files in $(((t1 - t0) / 1000000)) ms with the greedy client busy"
done
kill -INT $(pgrep -x fio) 2>/dev/null
wait $greedy 2>/dev/null
echo "== done (fairqctl, with per-client shares, arrives with the netlink interface)"
