# SPDX-License-Identifier: GPL-2.0-only
# The instructions of a dump of many keys (tests/bench/dump-profile.sh GUEST=1;
# docs/benchmarks.md): fq keyed by connection, DUMP_KEYS connections of NULL calls (one call
# in flight each, from the load clients' namespaces), the clients stopped once every key
# exists and nothing is queued; then DUMP_RUNS timed `fairqctl -j shares` in windows of the
# instruction profile of their own: fairqctl's instructions (user space), and the kernel's for
# it (its system calls, the module's netlink dump, its page faults).  Nothing else runs: the
# guest is idle between dumps.
DUMP_KEYS=${DUMP_KEYS:-10000}
DUMP_RUNS=${DUMP_RUNS:-3}
PER_PROC=4000	# connections per fairq-load (its limit is 4096, with its other descriptors)
profile_marks || fail "dump.sh needs the instruction profile (tests/vm/run --profile)"
: >"$B_OUT/insns.txt"

fairq_nfsd_down
# nfsd closes the oldest connections beyond max_connections; room in the listener's queues for
# thousands of connections at once (s6-keys.sh says more)
echo $((DUMP_KEYS + 1000)) >/proc/fs/nfsd/max_connections
sysctl -qw net.core.somaxconn=65535 net.ipv4.tcp_max_syn_backlog=65535
fairq_nfsd_up "$FAIRQ_THREADS"
ulimit -n $((PER_PROC + 64))
echo 3 >"$FAIRQ_SYSFS/fq/key"
echo 3600 >"$FAIRQ_SYSFS/fq/idle_secs"
fairq_set_sched fq || fail "fq refused"
# ftrace's trampolines for fq's hooks exist now: named for the profile's mapping
grep -F '[__builtin__' /proc/kallsyms >"$B_OUT/kallsyms.dynamic" || true
pids=()
opened=0 proc=0
while [ "$opened" -lt "$DUMP_KEYS" ]; do
	k=$((DUMP_KEYS - opened))
	[ "$k" -gt $PER_PROC ] && k=$PER_PROC
	proc=$((proc + 1))
	ip netns exec "c$(((proc - 1) % FAIRQ_CLIENTS + 1))" $FL -j -O null -K "$k" -W 1 -d 0 \
		--timeout 600 --label "keys-$proc" "$FAIRQ_SERVER" >/tmp/dump-$proc.json 2>/tmp/dump-$proc.err &
	pids+=($!)
	opened=$((opened + k))
done
for n in $(seq 1 1200); do
	[ "$(fairq_pool_sum keys)" -ge "$DUMP_KEYS" ] && break
	for p in "${pids[@]}"; do
		kill -0 "$p" 2>/dev/null ||
			fail "a load client exited: $(cat /tmp/dump-*.err | sort | uniq -c | head -n 3 | xargs)"
	done
	sleep 0.5
done
keys=$(fairq_pool_sum keys)
[ "$keys" -ge "$DUMP_KEYS" ] || fail "$keys keys after 600 s, $DUMP_KEYS wanted"
kill -STOP "${pids[@]}"
for n in $(seq 1 600); do
	[ "$(fairq_pool_sum queued)" = 0 ] && break
	sleep 0.1
done
[ "$(fairq_pool_sum queued)" = 0 ] || fail "$(fairq_pool_sum queued) transports still queued 60 s after the clients stopped"
sleep 1
# one dump outside the windows: its files are cached from here, and its output is checked
fairqctl -j shares >/tmp/dump.json || fail "fairqctl shares failed"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert len(d["keys"]) == int(sys.argv[2]), len(d["keys"])' \
	/tmp/dump.json "$keys" || fail "the dump did not hold the $keys keys"
for i in $(seq 1 "$DUMP_RUNS"); do
	mark
	t0=$EPOCHREALTIME
	fairqctl -j shares >/dev/null || fail "dump $i failed"
	t1=$EPOCHREALTIME
	mark
	echo "dump $keys" >>"$B_OUT/insns.txt"
	log "dump $i: $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", (b - a) * 1000 }') ms of guest time, $keys keys"
done
kill -CONT "${pids[@]}"
kill -INT "${pids[@]}"
wait "${pids[@]}"
fairq_set_sched fifo
profile_marks_end
bench_finish
