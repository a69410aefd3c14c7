#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make dump-profile [DUMP_KEYS=10000]
#
# fairqctl's own instructions for `fairqctl -j shares` of DUMP_KEYS keys: counted by
# callgrind on the host, against tests/bench/dump-standin.c, which answers fairqctl's netlink
# requests as the module would (only fairqctl's side: scenario 6 (c) measures the whole dump,
# the kernel's included, in the guest).  Prints the instructions per key (a run of N keys
# less a run of none, over N) and fairqctl's costliest functions, by their own instructions.
# Host instructions, not guest ones: the same binary code, but the host's glibc and libnl.
#
# make dump-profile GUEST=1 [KERNEL=6.12] [DUMP_KEYS=10000]
#
# The whole dump in the guest instead, on the instruction clock: DUMP_KEYS real connections
# keyed by fq, then three `fairqctl -j shares` in windows of the instruction profile
# (tests/vm/guest/bench/dump.sh).  Prints each dump's guest time and its instructions per key:
# fairqctl's (user space) and the kernel's (its system calls, the module's netlink dump, its
# page faults), with the kernel functions that execute the most (tests/bench/insns.py).
set -euo pipefail
. "$(dirname "$0")/../vm/lib.sh"
keys=${DUMP_KEYS:-10000}
case "$keys" in '' | *[!0-9]* | 0) die "DUMP_KEYS is a positive count, not '$keys'" ;; esac
if [ "${GUEST:-0}" = 1 ]; then
	kernel=${KERNEL:-6.12}
	kernel_valid "$kernel" || die "unknown kernel '$kernel' (known: $KERNELS_ALL)"
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
	printf '%s\n' '#!/bin/bash' "export B_SCALE=1 B_REPS=1 DUMP_KEYS=$keys" '. /fairq/lib.sh' \
		'. /fairq/bench/lib.sh' 'cd /tmp && . /fairq/bench/dump.sh' >"$work/dump.sh"
	rc=0
	bash "$FAIRQ_TOP/tests/vm/run" -k "$kernel" --script "$work/dump.sh" --clients 3 --threads 8 \
		--icount --profile "$work/prof" >"$work/out" || rc=$?
	sed '/^BENCH-TGZ-BEGIN/,/^BENCH-TGZ-END/d' "$work/out"
	[ "$rc" = 0 ] || die "the guest run failed (exit $rc)"
	mkdir "$work/raw"
	sed -n '/^BENCH-TGZ-BEGIN/,/^BENCH-TGZ-END/p' "$work/out" | sed '1d;$d' | base64 -d |
		tar xzf - -C "$work/raw" || die "no profile results in the guest's output"
	echo
	python3 "$FAIRQ_TOP/tests/bench/insns.py" "$work/raw" "$work/prof" key
	exit
fi
command -v valgrind >/dev/null || die "dump-profile needs valgrind (apt install valgrind)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
make -s -C "$FAIRQ_TOP/tools/fairqctl" fairqctl
gcc -O2 -Wall -Wextra -Werror -shared -fPIC -I"$FAIRQ_TOP/include/uapi" -o "$work/standin.so" \
	"$FAIRQ_TOP/tests/bench/dump-standin.c" -ldl
# count N: fairqctl's instructions for N keys (main's, less the stand-in's answering)
count() {
	DUMP_KEYS=$1 LD_PRELOAD=$work/standin.so valgrind --tool=callgrind \
		--callgrind-out-file="$work/cg.$1" "$FAIRQ_TOP/tools/fairqctl/fairqctl" -j shares \
		>"$work/out.$1" 2>"$work/err.$1" || die "fairqctl under callgrind failed: $(tail -3 "$work/err.$1")"
	# lines "INSTRUCTIONS (PERCENT) FILE:FUNCTION [OBJECT]", the percentage padded below 10%
	callgrind_annotate --inclusive=yes "$work/cg.$1" | awk '
		{ n = $1; gsub(",", "", n) }
		/fairqctl\.c:main \[/ { main = n }
		/:sendmsg \[.*standin/ { standin = n }
		END { if (!main) exit 1; print main - standin }' || die "no main in fairqctl's profile"
}
none=$(count 0)
all=$(count "$keys")
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert len(d["keys"]) == int(sys.argv[2])' \
	"$work/out.$keys" "$keys" || die "fairqctl's JSON does not hold $keys keys"
echo "fairqctl -j shares, $keys keys (host instructions, callgrind, against dump-standin):"
echo "  $all in all, $none with no key: $(((all - none) / keys)) per key"
echo "  costliest functions, by their own instructions (the stand-in's left out):"
callgrind_annotate --inclusive=no "$work/cg.$keys" |
	awk '/^ *[0-9,]+ / && !/standin|PROGRAM TOTALS/ && n++ < 20 { sub(/^ */, "    "); print }'
