# SPDX-License-Identifier: GPL-2.0-only
# Scenario 3, real clients: the kernel NFS client on both sides.  Client 1 mounts with
# nconnect=16 and runs fio (4 KiB direct random reads, libaio, 2 jobs of depth 32) throughout;
# client 2 walks a tree of B3_FILES files in B3_DIRS directories with find and stat, each walk
# on a fresh mount (cold client caches).  Every request holds its nfsd thread B3_DELAY_US
# (fairq_svctime), T=8, so thread time is what the two clients compete for (20 ms: the ceiling
# T/D = 400/s stays below what the emulated CPUs can carry; at 2 ms fio was CPU-bound).  Alone,
# a cold walk needs few RPCs (READDIRPLUS fills the attribute cache); once it takes longer than
# the attribute cache lifetime (3 s) every stat becomes a GETATTR, as under contention.  Per scheduler: the
# walk alone, then the walk under fio (B_REPS times, rotated order, the scheduler switched live
# under fio): completion time, the RPCs the walk sent, fio's rate meanwhile.
B3_FILES=${B3_FILES:-400}
B3_DIRS=${B3_DIRS:-8}
B3_DELAY_US=${B3_DELAY_US:-20000}
B3_NCONNECT=${B3_NCONNECT:-16}
B3_VERS=${B3_VERS:-3}
B3_FIO="randread 4k direct libaio 2 jobs x depth 32"

rpc.nfsd "$FAIRQ_THREADS"
svctime_off
# the tree, made on the server's own filesystem
rm -rf "$FAIRQ_EXPORT/tree" "$FAIRQ_EXPORT/fio"
mkdir -p "$FAIRQ_EXPORT/fio"
for d in $(seq 1 "$B3_DIRS"); do
	mkdir -p "$FAIRQ_EXPORT/tree/d$d"
	(cd "$FAIRQ_EXPORT/tree/d$d" && touch $(seq -f "f%g" 1 $((B3_FILES / B3_DIRS))))
done
chmod -R a+rwX "$FAIRQ_EXPORT"
svctime_on "$B3_DELAY_US"
bench_meta 3 threads="$FAIRQ_THREADS" delay_us="$B3_DELAY_US" files="$B3_FILES" dirs="$B3_DIRS" \
	nconnect="$B3_NCONNECT" vers="$B3_VERS" fio="$B3_FIO"
log "scenario 3: T=$FAIRQ_THREADS D=$((B3_DELAY_US / 1000)) ms, walk of $B3_FILES files vs fio on nconnect=$B3_NCONNECT, NFSv$B3_VERS, $B_REPS reps, schedulers: $(bench_scheds | xargs)"

# rpc calls a client's namespace has sent so far
client_calls() {
	ip netns exec "c$1" awk '$1 == "rpc" { print $2 }' /proc/net/rpc/nfs
}

# walk KIND SCHED REP: one walk in client 2, one line of cells.jsonl
walk() {
	local opts="vers=$B3_VERS,proto=tcp,hard"
	[ "$B3_VERS" = 3 ] && opts="$opts,nolock"
	ip netns exec c2 bash -c "mkdir -p /mnt/w && mount -t nfs -o $opts $FAIRQ_SERVER:$FAIRQ_EXPORT /mnt/w || exit 99
		c0=\$(awk '\$1 == \"rpc\" { print \$2 }' /proc/net/rpc/nfs)
		t0=\$EPOCHREALTIME
		find /mnt/w/tree -exec stat {} + >/dev/null || exit 98
		t1=\$EPOCHREALTIME
		c1=\$(awk '\$1 == \"rpc\" { print \$2 }' /proc/net/rpc/nfs)
		n=\$(find /mnt/w/tree -type f | wc -l)
		umount /mnt/w
		echo \$t0 \$t1 \$((c1 - c0)) \$n" >/tmp/walk.out 2>/tmp/walk.err || fail "walk: $(cat /tmp/walk.err)"
	local t0 t1 rpcs n f0 f1 fio=""
	read -r t0 t1 rpcs n </tmp/walk.out
	[ "$n" = "$B3_FILES" ] || fail "the walk saw $n files, not $B3_FILES"
	if [ "$1" = contended ]; then
		f1=$(client_calls 1)
		fio=",\"fio_iops\":$(awk -v a="$FIO_C0" -v b="$f1" -v t0="$FIO_T0" -v t1="$EPOCHREALTIME" 'BEGIN { printf "%.1f", (b - a) / (t1 - t0) }')"
	fi
	echo "{\"kind\":\"$1\",\"sched\":\"$2\",\"rep\":$3,\"walk_s\":$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }'),\"walk_rpcs\":$rpcs$fio,\"runs\":[]}" >>"$B_OUT/cells.jsonl"
	log "walk $1 $2 rep $3: $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f s", b - a }'), $rpcs RPCs${fio:+, fio $(echo "$fio" | sed 's/.*://') IOPS}"
}

for s in $(bench_scheds); do
	fairq_set_sched "$s"
	walk alone "$s" 1
done

ip netns exec c1 sh -c "mkdir -p /mnt/g && mount -t nfs -o vers=$B3_VERS,proto=tcp,hard,nolock,nconnect=$B3_NCONNECT $FAIRQ_SERVER:$FAIRQ_EXPORT /mnt/g &&
	fio --name=greedy --directory=/mnt/g/fio --size=4m --bs=4k --rw=randread --ioengine=libaio \
	--iodepth=32 --direct=1 --numjobs=2 --time_based --runtime=3600 --minimal >/tmp/fio.out 2>&1; umount /mnt/g" &
FIO_PID=$!
sleep "$(secs 5)"
kill -0 $FIO_PID 2>/dev/null || fail "fio did not start: $(cat /tmp/fio.out)"
for rep in $(seq 1 "$B_REPS"); do
	for s in $(rotated "$rep"); do
		fairq_set_sched "$s"
		sleep 1
		FIO_C0=$(client_calls 1)
		FIO_T0=$EPOCHREALTIME
		walk contended "$s" "$rep"
	done
done
fairq_set_sched fifo
pkill -INT -x fio
wait $FIO_PID
svctime_off
rm -rf "$FAIRQ_EXPORT/tree" "$FAIRQ_EXPORT/fio"
bench_expect $(($(bench_scheds | wc -l) * (1 + B_REPS)))
