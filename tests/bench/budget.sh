#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make budget [KERNEL=6.12] [CLOCK=icount|wall] [INSNS=1] [BUDGET_FUNCS="f1 f2 ..."] [BUDGET_SECS=3]
#
# The calls each RPC costs on each dispatch path: tests/vm/guest/bench/budget.sh in one guest
# boot, every scheduler the kernel offers under the same D=0 load.  Prints a markdown table
# (function, then calls per RPC per scheduler); counts do not depend on the clock, the
# instruction clock only keeps the run's pace steady.
# INSNS=1 also counts the instructions each RPC executes, by function (a TCG plugin,
# tests/bench/insn-profile.c, mapped with the guest's kallsyms by tests/bench/insns.py), in
# a window of each scheduler without the probes, and prints that table too.
set -euo pipefail
. "$(dirname "$0")/../vm/lib.sh"
kernel=${KERNEL:-6.12}
kernel_valid "$kernel" || die "unknown kernel '$kernel' (known: $KERNELS_ALL)"
case "${CLOCK:-icount}" in
icount) clock_opt=(--icount) ;;
wall) clock_opt=() ;;
*) die "CLOCK is icount or wall, not '$CLOCK'" ;;
esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
{
	echo '#!/bin/bash'
	echo "export B_SCALE=1 B_REPS=1"
	env | grep -E '^(BUDGET_[A-Z]+|B_SCHEDS)=' | sed 's/^/export /; s/=\(.*\)$/="\1"/' || true
	echo '. /fairq/lib.sh'
	echo '. /fairq/bench/lib.sh'
	echo 'cd /tmp && . /fairq/bench/budget.sh'
} >"$work/budget.sh"
if [ "${INSNS:-0}" = 0 ]; then
	bash "$FAIRQ_TOP/tests/vm/run" -k "$kernel" --script "$work/budget.sh" --clients 3 --threads 8 \
		"${clock_opt[@]}"
	exit
fi
rc=0
bash "$FAIRQ_TOP/tests/vm/run" -k "$kernel" --script "$work/budget.sh" --clients 3 --threads 8 \
	"${clock_opt[@]}" --profile "$work/prof" >"$work/out" || rc=$?
sed '/^BENCH-TGZ-BEGIN/,/^BENCH-TGZ-END/d' "$work/out"
[ "$rc" = 0 ] || die "the guest run failed (exit $rc)"
mkdir "$work/raw"
sed -n '/^BENCH-TGZ-BEGIN/,/^BENCH-TGZ-END/p' "$work/out" | sed '1d;$d' | base64 -d | tar xzf - -C "$work/raw" ||
	die "no profile results in the guest's output"
echo
python3 "$FAIRQ_TOP/tests/bench/insns.py" "$work/raw" "$work/prof"
