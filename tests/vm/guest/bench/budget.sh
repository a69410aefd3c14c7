# SPDX-License-Identifier: GPL-2.0-only
# The per-RPC budget of each dispatch path (tests/bench/budget.sh; docs/benchmarks.md): the
# scenario-4 load (D=0, 3 clients x 16 connections x window 2 of GETATTR) under each
# scheduler in turn, with a kprobe event on each function of BUDGET_FUNCS; the probes' hit
# counts (kprobe_profile) over a window, divided by the RPCs nfsd answered in it
# (/proc/net/rpc/nfsd), are the calls each RPC costs.  The events stay off in the trace
# buffer (tracing_on 0): a probe counts its hits all the same.  Functions a kernel or the
# module does not have (inlined, renamed) are left out, and said so.
# Booted with an instruction profile (tests/vm/run --profile: fairq_profile=1 on the command
# line), each scheduler first gets a window of its own with the probes off, between two
# marks; the RPCs of those windows, the profile's mapping (text symbols of /proc/kallsyms,
# and the trampolines ftrace made for each scheduler's hooks) and the call counts go to the
# host in bench_finish's tarball.
BUDGET_SECS=$(secs "${BUDGET_SECS:-3}")
BUDGET_FUNCS=${BUDGET_FUNCS:-"svc_xprt_enqueue svc_xprt_dequeue svc_thread_should_sleep svc_xprt_received svc_process svc_send fairq_enqueue fairq_thread_pull fairq_request_start fairq_request_done feed_one fairq_nfsd_push wq_kick _raw_spin_lock_bh _raw_spin_lock _raw_spin_lock_irqsave try_to_wake_up schedule kmem_cache_alloc_noprof kmem_cache_alloc"}
TR=/sys/kernel/tracing
mountpoint -q $TR || mount -t tracefs nodev $TR || fail "no tracefs"

svctime_off
rpc.nfsd "$FAIRQ_THREADS"
echo 0 >$TR/tracing_on
: >$TR/kprobe_events
probed=()
for f in $BUDGET_FUNCS; do
	if echo "p:budget/$f $f" >>$TR/kprobe_events 2>/dev/null; then
		probed+=("$f")
	else
		log "budget: no probe on $f on this kernel"
	fi
done
probes() { for f in "${probed[@]}"; do echo "$1" >"$TR/events/budget/$f/enable"; done; }

rpcs() { awk '$1 == "rpc" { print $2 }' /proc/net/rpc/nfsd; }
hits() { awk '{ print $1, $2 }' $TR/kprobe_profile | sed 's|^budget/||'; }

profiling=false
if profile_marks; then
	profiling=true
	: >"$B_OUT/insns.txt"
fi

load_start load 3 16 2
out=$B_OUT/budget.txt
: >"$out"
for s in $(bench_scheds); do
	fairq_set_sched "$s"
	sleep "$(secs 0.5)"
	if $profiling; then
		mark
		r0=$(rpcs)
		sleep "$BUDGET_SECS"
		r1=$(rpcs)
		mark
		echo "$s $((r1 - r0))" >>"$B_OUT/insns.txt"
		# ftrace's trampolines exist while a policy's hooks do: named now, or never
		grep -F '[__builtin__' /proc/kallsyms >>"$B_OUT/kallsyms.dynamic" || true
		log "budget: $s: $((r1 - r0)) RPCs profiled"
	fi
	probes 1
	hits | sort >/tmp/budget.h0
	r0=$(rpcs)
	sleep "$BUDGET_SECS"
	hits | sort >/tmp/budget.h1
	r1=$(rpcs)
	probes 0
	# one line per scheduler: "SCHED RPCS f=hits ..."
	echo "$s $((r1 - r0)) $(join -j1 /tmp/budget.h0 /tmp/budget.h1 |
		awk '{ printf "%s=%d ", $1, $3 - $2 }')" >>"$out"
	log "budget: $s: $((r1 - r0)) RPCs"
done
fairq_set_sched fifo
load_stop
: >$TR/kprobe_events
# the table: calls per RPC, each scheduler beside fifo
python3 - "$out" <<'PY'
import sys
rows = []
for line in open(sys.argv[1]):
    w = line.split()
    rows.append((w[0], int(w[1]), {k: int(v) for k, v in (x.split("=") for x in w[2:])}))
funcs = sorted({f for _, _, h in rows for f in h})
print("| function | " + " | ".join(s for s, _, _ in rows) + " |")
print("|---|" + "---|" * len(rows))
for f in funcs:
    print("| `%s` | " % f + " | ".join("%.2f" % (h.get(f, 0) / n) if n else "–" for _, n, h in rows) + " |")
print("| RPCs in the window | " + " | ".join(str(n) for _, n, _ in rows) + " |")
PY
if $profiling; then
	profile_marks_end
	bench_finish
fi
