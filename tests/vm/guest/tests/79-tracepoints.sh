#!/bin/bash
# fairq's tracepoints fire, exactly once per event they stand for, and carry the right key.
# Two clients load the fq scheduler (key = address) with tracing on: every enqueue and every
# dispatch is an event (the counts equal the pools' counters), each dispatch names the key of
# its client's address and a measured wait; a switch is an event; a key at its in-flight cap is
# a hold event per hold counted; a key waiting for its QoS class's limit is a pace event, with
# its class's name, per pacing counted; a connection key reads as the client's address and port.  The
# same events are read with trace-cmd (its parser, perf's libtraceevent, formats every field)
# and counted per key by a bpftrace one-liner, which has no BTF for the module to go by.
. /fairq/lib.sh
fairq_need_sched fq
fairq_bench_lib /tmp/trace
T=/sys/kernel/tracing
[ -d $T/events ] || mount -t tracefs nodev $T || fail "cannot mount tracefs"
E=$T/events/fairq
buf0=$(cat $T/buffer_size_kb)
trap 'echo 0 >$E/enable; : >$T/trace; echo $buf0 >$T/buffer_size_kb; echo 0 >$FAIRQ_SYSFS/fq/max_inflight;
	echo 1 >$FAIRQ_SYSFS/fq/key; pkill -INT -x fairq-load; pkill -x bpftrace;
	python3 /fairq/fairq-nl.py class-del slow >/dev/null 2>&1; fairq_set_sched fifo' EXIT

for ev in enqueue dispatch hold pace lost_handoff rescue switch; do
	[ -f "$E/fairq_$ev/format" ] || fail "no tracepoint fairq:fairq_$ev"
done
# plain fields only, but for the client's address (a sockaddr, as sunrpc's own events keep it)
dyn=$(grep -l '__data_loc' $E/*/format | grep -v -e fairq_enqueue -e fairq_dispatch || true)
[ -z "$dyn" ] || fail "dynamic fields in $dyn"

# trace EVENT...: the events' lines from the trace buffer
trace_lines() {
	grep -E ": fairq_($1):" $T/trace || true
}
trace_start() {
	echo 0 >$E/enable
	: >$T/trace
	echo 1 >$E/enable
}
overruns() {
	awk '/^overrun:/ { s += $2 } END { print s + 0 }' $T/per_cpu/cpu*/stats
}

# events_per_count COUNTER EVENT PATTERN CMD...: CMD run with tracing on; how much the pools'
# COUNTER grew (EV_COUNTED) and how many EVENT lines match PATTERN (EV_SEEN)
events_per_count() {
	local counter=$1 ev=$2 pattern=$3 before
	shift 3
	before=$(fairq_pool_sum "$counter")
	trace_start
	"$@" >/tmp/trace/cmd.out 2>&1 || fail "$*: $(tail -n 3 /tmp/trace/cmd.out)"
	EV_COUNTED=$(($(fairq_pool_sum "$counter") - before))
	echo 0 >$E/enable
	[ "$(overruns)" = 0 ] || fail "the trace buffer overran"
	EV_SEEN=$(trace_lines "$ev" | grep -c "$pattern" || true)
}

echo 16384 >$T/buffer_size_kb
fairq_set_sched fifo
trace_start
fairq_set_sched fq
echo 0 >$E/enable
trace_lines switch | grep -q 'from=fifo to=fq err=0' || fail "no switch event: $(trace_lines switch)"
fairq_nfs 1 3 "true" || fail "mount failed"	# the service and its pools exist from here
# no call but the load's between the counters' reads: the events must add up exactly
enq0=$(fairq_pool_sum enqueued)
disp0=$(($(fairq_pool_sum fed_pull) + $(fairq_pool_sum fed_push)))
trace_start
# a bounded number of calls, so that the trace buffer holds every event however fast the host
ip netns exec c1 $FL -K 2 -W 2 -n 6000 "$B_EXPORT" >/tmp/trace/c1.out 2>&1 &
ip netns exec c2 $FL -K 1 -W 1 -n 3000 "$B_EXPORT" >/tmp/trace/c2.out 2>&1 ||
	fail "client 2: $(tail -n 3 /tmp/trace/c2.out)"
wait $! || fail "client 1: $(tail -n 3 /tmp/trace/c1.out)"
echo 0 >$E/enable
enq=$(($(fairq_pool_sum enqueued) - enq0))
disp=$(($(fairq_pool_sum fed_pull) + $(fairq_pool_sum fed_push) - disp0))
[ "$(overruns)" = 0 ] || fail "the trace buffer overran: the counts below would not add up"
n_enq=$(trace_lines enqueue | wc -l)
n_disp=$(trace_lines dispatch | wc -l)
log "load: $enq enqueues and $disp dispatches counted, $n_enq and $n_disp traced"
[ "$enq" -ge 9000 ] || fail "only $enq enqueues for 9000 calls"
[ "$n_enq" = "$enq" ] || fail "$n_enq enqueue events for $enq enqueues"
[ "$n_disp" = "$disp" ] || fail "$n_disp dispatch events for $disp dispatches"
# each dispatch's key is its client's address; its wait is measured (tracing began first)
bad=$(trace_lines dispatch | awk '{
	for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = substr($i, length(kv[1]) + 2) }
	c = f["client"]; sub(/:[0-9]+$/, "", c)
	if (f["key"] != c || f["wait_us"] !~ /^[0-9]+$/ || (f["by"] != "pull" && f["by"] != "push")) { print; exit }
}')
[ -z "$bad" ] || fail "a dispatch event with a wrong key, wait or origin: $bad"
for c in 10.99.0.11 10.99.0.12; do
	n=$(trace_lines dispatch | grep -c " key=$c " || true)
	[ "$n" -ge 10 ] || fail "only $n dispatch events for key $c"
done
log "every dispatch names its client's key; waits $(trace_lines dispatch | grep -o 'wait_us=[0-9]*' | cut -d= -f2 | sort -n | awk '{ a[NR] = $1 } END { print "median " a[int((NR + 1) / 2)] " us, max " a[NR] " us" }')"

# a key at its cap: one hold event per hold counted
echo 1 >$FAIRQ_SYSFS/fq/max_inflight
events_per_count holds hold ' key=10\.99\.0\.11 in_flight=' \
	ip netns exec c1 $FL -K 4 -W 1 -n 4000 "$B_EXPORT"
log "cap 1: $EV_COUNTED holds counted, $EV_SEEN hold events of key 10.99.0.11"
[ "$EV_COUNTED" -ge 5 ] || fail "only $EV_COUNTED holds at a cap of 1 with 4 connections"
[ "$EV_SEEN" = "$EV_COUNTED" ] || fail "$EV_SEEN hold events for $EV_COUNTED holds"
echo 0 >$FAIRQ_SYSFS/fq/max_inflight

# a key of a limited class: one pace event per pacing counted, naming the class
python3 /fairq/fairq-nl.py class-set slow create match 10.99.0.11 limit 40 >/tmp/trace/nl.out ||
	fail "class-set: $(cat /tmp/trace/nl.out)"
events_per_count paced pace ' key=10\.99\.0\.11 class=slow wait_us=[0-9]* queued=' \
	ip netns exec c1 $FL -K 2 -W 2 -n 120 "$B_EXPORT"
log "limit 40/s: $EV_COUNTED pacings counted, $EV_SEEN pace events of key 10.99.0.11 in class slow"
[ "$EV_COUNTED" -ge 50 ] || fail "only $EV_COUNTED pacings of 120 calls at 40/s"
[ "$EV_SEEN" = "$EV_COUNTED" ] || fail "$EV_SEEN pace events for $EV_COUNTED pacings: $(trace_lines pace | head -n 3)"
python3 /fairq/fairq-nl.py class-del slow >/tmp/trace/nl.out || fail "class-del: $(cat /tmp/trace/nl.out)"

# a connection key is the client's address and port, as fairqctl writes it
echo 3 >$FAIRQ_SYSFS/fq/key || fail "key 3 refused"
trace_start
ip netns exec c1 $FL -K 2 -W 1 -n 2000 "$B_EXPORT" >/tmp/trace/c1.out 2>&1 ||
	fail "client 1 (key conn): $(tail -n 3 /tmp/trace/c1.out)"
echo 0 >$E/enable
bad=$(trace_lines dispatch | grep 'client=10\.99\.0\.11:' | awk '{
	for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = substr($i, length(kv[1]) + 2) }
	if (f["key"] != f["client"]) { print; exit }
}')
[ -z "$bad" ] || fail "a connection key that is not the client's address and port: $bad"
[ "$(trace_lines dispatch | grep -c 'client=10\.99\.0\.11:' || true)" -ge 10 ] || fail "too few dispatches with key 3"
echo 1 >$FAIRQ_SYSFS/fq/key
log "key 3: every dispatch's key is its connection"

# trace-cmd: libtraceevent parses every field of the format
trace-cmd record -q -e fairq -o /tmp/trace/fairq.dat ip netns exec c2 $FL -K 1 -W 1 -d 1 "$B_EXPORT" \
	>/tmp/trace/tc.out 2>&1 || fail "trace-cmd record failed: $(tail -n 3 /tmp/trace/tc.out)"
trace-cmd report -i /tmp/trace/fairq.dat >/tmp/trace/report 2>&1 || fail "trace-cmd report failed: $(tail -n 3 /tmp/trace/report)"
grep -q 'FAILED TO PARSE\|\[UNKNOWN' /tmp/trace/report && fail "trace-cmd could not parse: $(grep -m1 'FAILED TO PARSE\|\[UNKNOWN' /tmp/trace/report)"
n=$(grep -c 'fairq_dispatch:.* client=10\.99\.0\.12:[0-9]* key=10\.99\.0\.12 wait_us=[0-9]' /tmp/trace/report || true)
[ "$n" -ge 10 ] || fail "trace-cmd reported $n dispatches of client 2: $(grep -m2 fairq_ /tmp/trace/report)"
log "trace-cmd: $n dispatches of key 10.99.0.12, every field parsed"

# bpftrace, from the format file: dispatches per key (the one-liner of docs/operations.md)
timeout 600 bpftrace -e 'tracepoint:fairq:fairq_dispatch { @dispatches[args->key] = count(); }' \
	-c "$(command -v ip) netns exec c2 $FL -K 1 -W 1 -d 2 $B_EXPORT" >/tmp/trace/bt.out 2>&1 ||
	fail "bpftrace failed: $(tail -n 5 /tmp/trace/bt.out)"
n=$(awk -F': ' '/@dispatches\[10\.99\.0\.12\]/ { print $2 }' /tmp/trace/bt.out)
[ "${n:-0}" -ge 10 ] || fail "bpftrace counted ${n:-no} dispatches for key 10.99.0.12: $(tail -n 5 /tmp/trace/bt.out)"
log "bpftrace: $n dispatches of key 10.99.0.12"
