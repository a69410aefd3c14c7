#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make budget [KERNEL=6.12] [CLOCK=icount|wall] [BUDGET_FUNCS="f1 f2 ..."] [BUDGET_SECS=3]
#
# The calls each RPC costs on each dispatch path: tests/vm/guest/bench/budget.sh in one guest
# boot, every scheduler the kernel offers under the same D=0 load.  Prints a markdown table
# (function, then calls per RPC per scheduler); counts do not depend on the clock, the
# instruction clock only keeps the run's pace steady.
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
bash "$FAIRQ_TOP/tests/vm/run" -k "$kernel" --script "$work/budget.sh" --clients 3 --threads 8 "${clock_opt[@]}"
