# SPDX-License-Identifier: GPL-2.0-only
# Scenario 1, greedy vs interactive (the RFC's experiment): T=8 nfsd threads, every request
# holds its thread D=10 ms (fairq_svctime), so the pool's ceiling is T/D = 800 ops/s.  Client 1
# is greedy: K connections of window 8 of NFSv3 GETATTR, K in 1 4 8 16 32 64.  Client 2 is
# interactive: one connection of window 1 ("window-limited") or 8 ("deep", = T).  For each K
# the greedy client runs throughout while the scheduler is switched live under it; each cell
# measures the interactive client for B1_SECS and the greedy client's rate over the same
# interval, B_REPS times in rotated scheduler order.  The interactive client alone, first.
B1_KS=${B1_KS:-1 4 8 16 32 64}
B1_WINDOWS=${B1_WINDOWS:-1 8}
B1_GREEDY_W=${B1_GREEDY_W:-8}
B1_SECS=$(secs "${B1_SECS:-3}")
B1_WARM=$(secs 1)
# B1_D_US: another service time, to tell the emulated CPU's share of a shortfall from the
# scheduler's (at a longer D the same ceiling T/D costs the emulation less per second)
D_US=${B1_D_US:-10000}

rpc.nfsd "$FAIRQ_THREADS"
svctime_on $D_US
bench_meta 1 threads="$FAIRQ_THREADS" delay_us=$D_US greedy_window="$B1_GREEDY_W" secs="$B1_SECS" \
	warmup="$B1_WARM" ks="$B1_KS" windows="$B1_WINDOWS"
log "scenario 1: T=$FAIRQ_THREADS D=$((D_US / 1000)) ms, greedy K in {$B1_KS} x window $B1_GREEDY_W, interactive window {$B1_WINDOWS}, ${B1_SECS}s cells, $B_REPS reps, schedulers: $(bench_scheds | xargs)"

for w in $B1_WINDOWS; do
	for s in $(bench_scheds); do
		fairq_set_sched "$s"
		client 2 -K 1 -W "$w" -w "$B1_WARM" -d "$B1_SECS" --label "alone/W$w/$s" "$B_EXPORT" >/tmp/i.json
		cell "\"kind\":\"alone\",\"W\":$w,\"sched\":\"$s\"" /tmp/i.json
		log "alone W=$w $s: $(jqv /tmp/i.json 'd["client"]["ops_per_s"]') ops/s"
	done
done

for k in $B1_KS; do
	fairq_set_sched fifo
	greedy_start "greedy-K$k" "$k" "$B1_GREEDY_W"
	for rep in $(seq 1 "$B_REPS"); do
		for w in $B1_WINDOWS; do
			for s in $(rotated $((rep + w))); do
				fairq_set_sched "$s"
				client 2 -K 1 -W "$w" -w "$B1_WARM" -d "$B1_SECS" --label "K$k/W$w/$s/$rep" \
					"$B_EXPORT" >/tmp/i.json
				cell "\"kind\":\"contended\",\"K\":$k,\"W\":$w,\"sched\":\"$s\",\"rep\":$rep,\"greedy\":\"greedy-K$k\"" /tmp/i.json
				log "K=$k W=$w $s rep $rep: $(python3 /fairq/bench/benchcalc.py share "$B_OUT/greedy-K$k.series" /tmp/i.json)"
			done
		done
	done
	greedy_stop
done
fairq_set_sched fifo
svctime_off
nsched=$(bench_scheds | wc -l)
nw=$(echo $B1_WINDOWS | wc -w)
bench_expect $((nsched * nw + $(echo $B1_KS | wc -w) * B_REPS * nw * nsched))
