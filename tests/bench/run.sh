#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make bench [SCENARIO="1 2 4"] [KERNEL=6.12] [CLOCK=icount|wall] [BENCH_OUT=build/bench] [BENCH_SCALE=1]
#            [BENCH_REPS=2]
#
# CLOCK=icount (the default) boots each guest with the instruction clock: its time is its
# instruction count, so rates measure the work each path does and the host's load cannot move
# them; CLOCK=wall is plain TCG, on the host's clock (docs/benchmarks.md, "Clocks").
# Runs the benchmark scenarios (docs/benchmarks.md) in the VM, one guest boot per scenario,
# every scheduler the kernel offers side by side in that boot; unpacks each scenario's raw
# results into BENCH_OUT/raw/sN/ and writes BENCH_OUT/results.json, bench.md and the plots
# (tests/bench/report.py).  BENCH_SCALE scales every measured interval (0.2 for a quick look);
# B1_KS, B2_NS, ... narrow a scenario (see tests/vm/guest/bench/sN-*.sh); B_SCHEDS="fq wq"
# runs only those schedulers beside fifo; B_TUNE="fq/new_burst=128" sets tunables first.
set -euo pipefail
. "$(dirname "$0")/../vm/lib.sh"

# a scenario is one guest boot; the VM suite's 40-minute limit per boot is too short for some
export FAIRQ_VM_TIMEOUT=${FAIRQ_VM_TIMEOUT:-7200}
kernel=${KERNEL:-6.12}
# scenario 7 compares wq, which only 6.1 offers
default_scenarios="1 2 4 5 3 6 8"
[ "$kernel" = 6.1 ] && default_scenarios="$default_scenarios 7"
scenarios=${SCENARIO:-$default_scenarios}
out=${BENCH_OUT:-$FAIRQ_TOP/build/bench}
scale=${BENCH_SCALE:-1}
reps=${BENCH_REPS:-2}
clock=${CLOCK:-icount}
scenarios=${scenarios//,/ }
kernel_valid "$kernel" || die "unknown kernel '$kernel' (known: $KERNELS_ALL)"
case "$scale" in '' | *[!0-9.]* | .) die "BENCH_SCALE takes a number" ;; esac
case "$reps" in '' | *[!0-9]* | 0) die "BENCH_REPS takes a positive whole number" ;; esac
case "$clock" in
icount) clock_opt=(--icount) ;;
wall) clock_opt=() ;;
*) die "CLOCK is icount or wall, not '$clock'" ;;
esac
for t in ${B_TUNE:-}; do
	case "$t" in
	[a-z]*/[a-z]*=[0-9]*) ;;
	*) die "B_TUNE takes SCHEDULER/TUNABLE=VALUE words (fq/new_burst=128), not '$t'" ;;
	esac
done

scenario_file() {
	case "$1" in
	1) echo s1-greedy.sh ;;
	2) echo s2-burst.sh ;;
	3) echo s3-real.sh ;;
	4) echo s4-overhead.sh ;;
	5) echo s5-threads.sh ;;
	6) echo s6-keys.sh ;;
	7) echo s7-wq.sh ;;
	8) echo s8-qos.sh ;;
	*) return 1 ;;
	esac
}
for s in $scenarios; do
	f=$(scenario_file "$s") || die "unknown scenario '$s' (1 to 8)"
	[ -f "$FAIRQ_TOP/tests/vm/guest/bench/$f" ] || die "scenario $s ($f) is not implemented"
done
mkdir -p "$out/raw"
# the tree the guests are built from, as it is now (the run takes long; the tree may move on)
commit=$(cd "$FAIRQ_TOP" && git describe --always --dirty 2>/dev/null || echo unknown)
out=$(cd "$out" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for s in $scenarios; do
	f=$(scenario_file "$s")
	raw=$out/raw/s$s
	say "scenario $s ($f) on $kernel: booting a guest ($clock clock)"
	{
		echo '#!/bin/bash'
		echo "export B_SCALE=$scale B_REPS=$reps"
		# the scenarios' own knobs (B1_KS, B2_NS, ...) pass through
		env | grep -E '^B([0-9]_[A-Z_]+|_SCHEDS|_TUNE)=' | sed 's/^/export /; s/=\(.*\)$/="\1"/' || true
		echo '. /fairq/lib.sh'
		echo '. /fairq/bench/lib.sh'
		echo "cd /tmp && . /fairq/bench/$f"
		echo 'bench_finish'
	} >"$work/s$s.sh"
	# progress: the guest's "# " lines as they arrive on its result port (run's log of this run)
	# scenario 6's 50,000 connections take about 2.3 GB of guest memory on their own
	mem=3072
	[ "$s" = 6 ] && mem=${B6_VM_MEM:-6144}
	# scenario 8 (QoS classes) wants ten client addresses and four CPUs (four pools in
	# pool mode percpu)
	topo=(--clients 3)
	[ "$s" = 8 ] && topo=(--clients 10 --smp 4)
	bash "$FAIRQ_TOP/tests/vm/run" -k "$kernel" --script "$work/s$s.sh" "${topo[@]}" --threads 8 \
		--mem "$mem" "${clock_opt[@]}" >"$work/s$s.out" 2> >(sed -u 's/^/  /' >&2) &
	vm=$!
	( tail -n +1 -F --pid=$vm "$FAIRQ_CACHE/runs/$kernel-$vm/results.log" 2>/dev/null |
		sed -u 's/\r//g' | grep --line-buffered -a '^# ' | sed -u "s/^# /  [s$s] /" >&2 ) &
	tailer=$!
	rc=0
	wait $vm || rc=$?
	wait $tailer 2>/dev/null || true
	if ! grep -q '^BENCH-TGZ-END' "$work/s$s.out"; then
		grep -av '^BENCH-TGZ\|^[A-Za-z0-9+/=]*$' "$work/s$s.out" | tail -n 40 >&2 || true
		die "scenario $s failed in the guest (exit $rc): no results"
	fi
	rm -rf "$raw"
	mkdir -p "$raw"
	sed -n '/^BENCH-TGZ-BEGIN/,/^BENCH-TGZ-END/p' "$work/s$s.out" | sed '1d;$d' | base64 -d | tar xzf - -C "$raw"
	# a kernel warning (exit 125: the harness's health check) keeps the numbers, and is reported
	health=$(sed -n '/kernel health check failed/,$p' "$work/s$s.out" | sed -n 's/^# //p' | sed -n '1,20p')
	COMMIT=$commit RC=$rc HEALTH=$health \
		/usr/bin/python3 -c 'import json, os, time
print(json.dumps({"commit": os.environ["COMMIT"], "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                  "host_cpus": os.cpu_count(), "exit": int(os.environ["RC"]), "health": os.environ["HEALTH"]}))' \
		>"$raw/host.json"
	if [ "$rc" = 125 ]; then
		say "scenario $s: WARNING: the guest kernel reported problems (kept in the report):"
		echo "$health" | sed 's/^/    /' >&2
	elif [ "$rc" != 0 ]; then
		die "scenario $s: the guest script failed (exit $rc); raw results in $raw"
	fi
	say "scenario $s: results in $raw"
done

say "writing the report"
PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 "$FAIRQ_TOP/tests/bench/report.py" "$out"
say "done: $out/bench.md, $out/results.json, $out/*.png"
