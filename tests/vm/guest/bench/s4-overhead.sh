# SPDX-License-Identifier: GPL-2.0-only
# Scenario 4, overhead: no injected service time (D=0, helper unloaded), T=8; three clients of
# 16 connections of window 2 issue NFSv3 GETATTR as fast as the server answers, throughout.
# Under TCG the guest is CPU-bound, so the RPC rate measures what each dispatch path costs in
# CPU: native fifo against the same FIFO order through fairq's queue (qfifo) and the other
# schedulers.  The scheduler is switched live under the running load; each window of B4_SECS
# (after B4_SETTLE) measures one scheduler; a round measures every scheduler back to back in
# rotated order, so that slow drifts of the emulation's speed hit all of them alike.
B4_K=${B4_K:-16}
B4_W=${B4_W:-2}
B4_CLIENTS=${B4_CLIENTS:-3}
B4_SECS=$(secs "${B4_SECS:-2.5}")
B4_SETTLE=$(secs 0.5)
B4_ROUNDS=${B4_ROUNDS:-$((3 * B_REPS))}

svctime_off
rpc.nfsd "$FAIRQ_THREADS"
bench_meta 4 threads="$FAIRQ_THREADS" connections="$B4_K" window="$B4_W" clients="$B4_CLIENTS" \
	secs="$B4_SECS" settle="$B4_SETTLE" rounds="$B4_ROUNDS"
log "scenario 4: D=0, T=$FAIRQ_THREADS, $B4_CLIENTS clients x $B4_K connections x window $B4_W, ${B4_SECS}s windows, $B4_ROUNDS rounds, schedulers: $(bench_scheds | xargs)"

load_start load "$B4_CLIENTS" "$B4_K" "$B4_W"
for rep in $(seq 1 "$B4_ROUNDS"); do
	for s in $(rotated "$rep"); do
		fairq_set_sched "$s"
		sleep "$B4_SETTLE"
		window_begin
		sleep "$B4_SECS"
		window_end overhead "$s" "$rep"
		log "$s round $rep: $(window_rate)"
	done
done
fairq_set_sched fifo
load_stop
bench_expect $((B4_ROUNDS * $(bench_scheds | wc -l)))
