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
set -euo pipefail
. "$(dirname "$0")/../vm/lib.sh"
keys=${DUMP_KEYS:-10000}
case "$keys" in '' | *[!0-9]* | 0) die "DUMP_KEYS is a positive count, not '$keys'" ;; esac
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
