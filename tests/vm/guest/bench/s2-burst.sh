# SPDX-License-Identifier: GPL-2.0-only
# Scenario 2, burst completion (the sparse-flow RFC's experiment): T=8, D=10 ms.  The
# interactive client (client 2, one connection) sends bursts of N calls, waits for all, idles
# 50 ms, repeats, N in 1 8 32 64 128; a burst's completion time is from its first call to its
# last reply.  The floor is the same bursts with no other load; then against a greedy client
# of K connections of window 8, K in 4 8 16 32 64, the scheduler switched live under it.  A
# cell lasts B2_SECS and at least one whole burst (under FIFO a burst of 128 against K=64 takes
# about N(K+1)D/T = 10 s).
B2_KS=${B2_KS:-4 8 16 32 64}
B2_NS=${B2_NS:-1 8 32 64 128}
B2_GREEDY_W=${B2_GREEDY_W:-8}
B2_SECS=$(secs "${B2_SECS:-2.5}")
D_US=10000

rpc.nfsd "$FAIRQ_THREADS"
svctime_on $D_US
bench_meta 2 threads="$FAIRQ_THREADS" delay_us=$D_US greedy_window="$B2_GREEDY_W" secs="$B2_SECS" \
	idle_ms=50 ks="$B2_KS" ns="$B2_NS"
log "scenario 2: T=$FAIRQ_THREADS D=$((D_US / 1000)) ms, bursts N in {$B2_NS} idle 50 ms vs greedy K in {$B2_KS}, ${B2_SECS}s cells, schedulers: $(bench_scheds | xargs)"

burst() {	# burst LABEL N: one cell's interactive run into /tmp/i.json
	client 2 -K 1 -B "$2" -I 50 -d "$B2_SECS" --label "$1" "$B_EXPORT" >/tmp/i.json
}
summary() {
	jqv /tmp/i.json '"%d bursts, p50 %.1f ms, p99 %.1f ms" % (d["client"]["bursts"]["count"], d["client"]["bursts"]["completion_us"]["p50"] / 1e3, d["client"]["bursts"]["completion_us"]["p99"] / 1e3)'
}

for s in $(bench_scheds); do
	fairq_set_sched "$s"
	for n in $B2_NS; do
		burst "floor/N$n/$s" "$n"
		cell "\"kind\":\"floor\",\"N\":$n,\"sched\":\"$s\"" /tmp/i.json
		log "floor N=$n $s: $(summary)"
	done
done

for k in $B2_KS; do
	fairq_set_sched fifo
	greedy_start "greedy-K$k" "$k" "$B2_GREEDY_W"
	i=0
	for s in $(bench_scheds); do
		fairq_set_sched "$s"
		for n in $B2_NS; do
			burst "K$k/N$n/$s" "$n"
			cell "\"kind\":\"contended\",\"K\":$k,\"N\":$n,\"sched\":\"$s\",\"greedy\":\"greedy-K$k\"" /tmp/i.json
			log "K=$k N=$n $s: $(summary)"
		done
	done
	greedy_stop
done
fairq_set_sched fifo
svctime_off
nsched=$(bench_scheds | wc -l)
nn=$(echo $B2_NS | wc -w)
bench_expect $((nsched * nn + $(echo $B2_KS | wc -w) * nsched * nn))
