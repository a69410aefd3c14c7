#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# fairqctl's host-side tests: no module needed.  Usage errors and bad values (exit 2, one line,
# nothing sent), the "not loaded" path (exit 3) for every command, keys that parse, the JSON
# schema against sample documents, the walk of netlink replies against scripted ones, and the
# man page and completion against the command table.  The VM suite
# (tests/vm/guest/tests/9?-fairqctl-*.sh) covers the rest.
#
# samples/*.json are real fairqctl -j documents, taken in a test guest (every command, busy and
# idle); samples/bad/ are the same with one thing wrong each.  Take new ones when the output
# changes (tests/vm/run --script with a script that prints fairqctl -j ...).
#
# usage: tests/run.sh [FAIRQCTL]        prints TAP-like lines, then "N passed, N failed"
set -u
here=$(cd "$(dirname "$0")" && pwd)
bin=$(realpath "${1:-$here/../fairqctl}")
top=$here/..
passed=0
failed=0
skipped=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() {
	passed=$((passed + 1))
	echo "ok - $*"
}

not_ok() {
	failed=$((failed + 1))
	echo "not ok - $*"
}

# expect RC PATTERN ARGS...: fairqctl ARGS exits RC, prints exactly one line on stderr that
# starts with "fairqctl: " and matches PATTERN (grep -E), and nothing on stdout.
expect() {
	local want=$1 pattern=$2 rc err
	shift 2
	"$bin" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	err=$(cat "$tmp/err")
	if [ "$rc" != "$want" ]; then
		not_ok "fairqctl $* exits $want (got $rc: $err)"
	elif [ "$(wc -l <"$tmp/err")" != 1 ] || [ "${err#fairqctl: }" = "$err" ]; then
		not_ok "fairqctl $* says one 'fairqctl: ' line (got: $err)"
	elif ! grep -Eq -- "$pattern" "$tmp/err"; then
		not_ok "fairqctl $* says /$pattern/ (got: $err)"
	elif [ -s "$tmp/out" ]; then
		not_ok "fairqctl $* prints nothing on stdout (got: $(head -c 200 "$tmp/out"))"
	else
		ok "fairqctl $* -> $rc: $err"
	fi
}

# usage ARGS...: a usage error, refused before anything is sent
usage() {
	expect 2 '\(see ' "$@"
}

# --- usage errors and bad values ---
usage -x
usage --bogus
# each names the option as written, and says what is wrong with it
expect 2 "^fairqctl: unknown option '--bogus' " --bogus=1
expect 2 "^fairqctl: option '--json' takes no value " --json=1 pools
expect 2 "^fairqctl: pools: option '--exact' takes no value " pools --exact=yes
expect 2 "^fairqctl: shares: unknown option '-x' " shares -jx
expect 2 "^fairqctl: shares: option '--p' is ambiguous \(--pool, --pretty\) " shares --p
expect 2 "^fairqctl: option '-n' needs a value " -jn
expect 2 "^fairqctl: watch: option '--count' needs a value " watch --count
expect 2 "^fairqctl: unknown option '-x' " --exact -xj
expect 2 "^fairqctl: show: unknown option '-x' " show --json -xj
# -n: a bad namespace is refused before anything else is done, but after the usage checks
expect 5 "^fairqctl: no network namespace 'nosuch' \(ip netns list\)$" -n nosuch pools
expect 5 "^fairqctl: no network namespace 'nosuch' " pools --netns nosuch
expect 2 "^fairqctl: '/etc/passwd' is not a network namespace$" -n /etc/passwd pools
expect 2 "one network namespace, or all" -a -n /proc/self/ns/net pools
expect 2 "an empty name" -n '' pools
expect 2 "unexpected argument 'extra'" -n nosuch show extra
usage -j --frob show
usage frobnicate
usage show extra
usage pools extra
usage shares extra
usage shares --top
usage shares --top 0
usage shares --top -1
usage shares --top 1x
usage shares --pool abc
usage shares --pool -1
usage shares --key 1.2.3.4.5
usage shares --bogus
usage sched bogus
usage sched set
usage sched set ''
usage sched set fifo extra
usage sched set 0123456789abcdefXYZ
usage sched --bogus
usage set
usage set onlyparam
usage set a 1 extra
usage set param abc
usage set param -1
usage set param +1
usage set param ' 1'
usage set param 1e3
usage set param 18446744073709551616
usage set param ''
usage set .param 1
usage set sched. 1
usage set 0123456789abcdefXYZ.param 1
usage weight
usage weight 10.0.0.1
usage weight foo 1
usage weight 10.0.0.256 1
usage weight 10.0.0.1/33 1
usage weight 2001:db8::/129 1
usage weight 10.0.0.1/ 1
usage weight '[::1' 1
usage weight '[::1]' 1
usage weight 10.0.0.1:99999 1
usage weight 10.0.0.1:-1 1
usage weight v4client:xyz 1
usage weight v4client:0123456789abcdeg 1
usage weight v4client:0123 1
usage weight 10.0.0.1 4294967296
usage weight 10.0.0.1 -1
usage weight 10.0.0.1 one
usage watch -i 0
usage watch -i 0.01
usage watch -i 5000
usage watch -i abc
usage watch -i
usage watch -n 0
usage watch extra
usage monitor -t 0
usage metrics extra
usage metrics --top
usage metrics --top x
usage metrics --top -1
usage metrics --top 100001
usage metrics --textfile ''
usage metrics --bogus
usage monitor -t abc
usage monitor -n -1
usage monitor extra
usage sh
usage s
usage shares --interval 0
usage shares --interval x
usage shares --sort requests
usage shares --interval 1 --sort speed
usage weight --check 10.0.0 1
usage weight --check fd00: 1
usage weight --check 10.0.0.1
usage weights fq extra
usage weights 0123456789abcdefXYZ
usage weights prune 10.0.0.256
usage weights prune foo
usage weights --bogus
usage showconf extra
usage showconf --bogus
# class: names, keywords and values are refused before anything is sent
usage class frob
usage class --bogus
usage class add
usage class add 'web farm'
usage class add 0123456789abcdef
usage class add 'w/b'
usage class add ''
usage class add web frob 1
usage class add web match
usage class add web match foo
usage class add web match 10.0.0.256
usage class add web match 10.0.0.1/33
usage class add web match 10.0.0.1:812
usage class add web match '[fd00::1]:812'
usage class add web match v4client:0123
usage class add web match 10.0.0.1 match 10.0.0.1
usage class add web rank
usage class add web rank x
usage class add web rank -1
usage class add web rank 4294967296
usage class add web rank 1 rank 2
usage class add web limit
usage class add web limit 0/s
usage class add web limit abc
usage class add web limit 200
usage class add web limit 200/m
usage class add web limit /s
usage class add web limit -5/s
usage class add web limit 4294967296/s
usage class add web limit 5/s limit 6/s
usage class add web burst 0
usage class add web burst x
usage class add web burst
usage class add web limit 5/s burst 0
usage class add web -x
usage class add default limit 100/s
usage class add --bogus web
usage class change
usage class change web
usage class change web limit 0/s
usage class change web limit 1.5/s
usage class change default rank 1
usage class change default match 10.0.0.0/8
usage class del
usage class del web extra
usage class del default
usage class del 'a b'
usage class list a b
usage class list 'a;b'
usage class list --bogus
usage class sync extra
usage class sync --bogus
expect 2 "class add: more than 8 matches" class add web $(for i in 1 2 3 4 5 6 7 8 9; do echo match 10.0.0.$i; done)
expect 2 "class add: limit takes N/s .* not '0/s'" class add web limit 0/s
expect 2 "class add: limit takes N/s .* not 'abc'" class add web limit abc
expect 2 "class add: burst takes an integer from 1 " class add web burst 0
expect 2 "class add: unknown keyword 'frob' \(match, rank, limit, burst, weight, reserve, per-key or shared\)" class add web frob 1
# weights, reservations, percent limits and per-key: the kernel's rules, said before anything is sent
usage class add web weight
usage class add web weight 0
usage class add web weight 10001
usage class add web weight 2.5
usage class add web weight 2 weight 3
usage class add web reserve 30
usage class add web reserve 101%
usage class add web reserve -1%
usage class add web reserve 10% reserve 20%
usage class add web limit 0%
usage class add web limit 101%
usage class add web limit 25% limit 30%
usage class add web limit none limit none
usage class add web limit 5/s limit none limit 6/s
usage class add web limit none limit 5/s limit 10%
usage class add web limit 5/s limit 10% limit none
usage class add web per-key per-key
usage class add web per-key shared
usage class change web limit 5%%
expect 2 "class add: weight takes an integer from 1 to 10000 or none, not '0'" class add web weight 0
expect 2 "class add: reserve takes P% \(of the threads' time, 0 to 100\) or none, not '30'" class add web reserve 30
expect 2 "class add: limit takes N/s .*, P% \(of the threads' time, 1 to 100\) or none, not '101%'" class add web limit 101%
expect 2 "class add: limit given twice" class add web limit 25% limit 30%
expect 2 "class add: per-key gives each of the class's keys its weight or its limits: give it one" class add web per-key
expect 2 "class change: per-key gives each of the class's keys its weight or its limits" class change web per-key weight none limit none
expect 2 "class add: per-key applies to a weight and limits: a reservation is for the class's keys together" class add web weight 2 per-key reserve 10%
expect 2 "class change: per-key applies to a weight and limits" class change web per-key reserve 10%
expect 2 "class add: reserve 30% is above the class's limit 20%" class add web reserve 30% limit 20%
expect 2 "class change: weight given twice" class change web weight 2 weight none
expect 2 "class add: limit needs a value" class add web limit
expect 2 "class add: '0123456789abcdef' is no class name \(1 to 15 " class add 0123456789abcdef
expect 2 "class change: nothing to change" class change web
expect 2 "class del: the default class cannot be deleted" class del default

# --- class sync reads one class a line; --check reads them as sync would, and talks to no kernel ---
# sync_check WANT-RC PATTERN LINES: class sync --check on LINES exits WANT-RC, saying PATTERN on
# stderr (an empty PATTERN: nothing at all)
sync_check() {
	local rc lines=${3//$'\n'/\\n}
	printf '%s' "$3" | "$bin" class sync --check >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" = "$1" ] && [ ! -s "$tmp/out" ] &&
		if [ -z "$2" ]; then [ ! -s "$tmp/err" ]; else grep -Eq -- "$2" "$tmp/err"; fi; then
		ok "class sync --check on '$lines' -> $rc"
	else
		not_ok "class sync --check on '$lines' exits $1 saying /$2/ (got $rc: $(cat "$tmp/out" "$tmp/err"))"
	fi
}
sync_check 0 '' $'render match 10.2.0.0/16 limit 2000/s\n# a comment\n\n  backup match 10.0.0.9 limit 50/s burst 20 rank 7\ndefault limit none\n'
sync_check 0 '' ''
sync_check 2 'class sync: line 2: class web given twice' $'web limit 5/s\nweb limit 6/s\n'
sync_check 2 'class sync: line 2: rank 3 given twice' $'a rank 3\nb rank 3\n'
sync_check 2 'class sync: line 1: limit takes N/s' $'web limit 0/s\n'
sync_check 2 'class sync: 32 classes: the kernel holds 31 besides the default one' \
	"$(for i in $(seq 1 32); do echo "c$i"; done)"
sync_check 0 '' "$(for i in $(seq 1 31); do echo "c$i"; done; echo default limit 5/s)"
sync_check 2 'class sync: no rank left for class b after the highest given' $'a rank 4294967295\nb\n'
sync_check 2 'class sync: line 1: limit takes N/s .requests per second, 1 to 10000000.' $'web limit 10000001/s\n'
sync_check 2 'class sync: line 1: burst takes an integer from 1 to 100000' $'web burst 100001\n'
sync_check 2 'class sync: line 1: the default class has no rank' $'default rank 1\n'
sync_check 2 "class sync: line 3: 'x!' is no class name" $'a\nb\nx!\n'
sync_check 2 'class sync: the reservations add up to 110%: at most 100% of the threads' $'a reserve 60%\nb reserve 50%\n'
sync_check 2 'class sync: line 1: per-key gives each of the class' $'a per-key\n'
sync_check 2 'class sync: line 2: reserve 40% is above the class.s limit 30%' $'a reserve 60%\nb reserve 40% limit 30%\n'
sync_check 0 '' $'a reserve 60%\nb reserve 40% limit 40%\ndefault weight 2\nc weight 3 per-key\nd limit 200/s limit 25% weight 1 shared\ne limit 200/s burst 4 per-key\nf limit 10% per-key\n'
for args in "web" "web match 10.0.0.0/8 match fd00::/64 match v4client:0123456789ABCDEF rank 0" \
	"web limit 10000000/s burst 100000 rank 4294967295" "default limit 5000/s burst 20" \
	"v.1_x-y limit none"; do
	sync_check 0 '' "$args"
done

# --- weight --check reads a weight as weight would, and talks to no kernel ---
for args in "10.0.0.1 2" "10.0.0.0/24 3" "fd00::7 12" "v4client:0123456789abcdef 0"; do
	# shellcheck disable=SC2086
	if "$bin" weight --check $args >"$tmp/out" 2>&1 && [ ! -s "$tmp/out" ]; then
		ok "fairqctl weight --check $args"
	else
		not_ok "fairqctl weight --check $args (got: $(cat "$tmp/out"))"
	fi
done

# --- help and version: stdout, exit 0 ---
for args in help -h --help "sched --help" "shares -h" "set --help" "weight --help" "watch --help" \
	"monitor --help" "pools --help" "weights --help" "showconf --help" "class --help" \
	"class add --help" "class change -h" "class del --help" "class list --help" "class sync --help"; do
	# shellcheck disable=SC2086
	if "$bin" $args >"$tmp/out" 2>"$tmp/err" && grep -q '^usage: fairqctl' "$tmp/out" && [ ! -s "$tmp/err" ]; then
		ok "fairqctl $args prints its usage"
	else
		not_ok "fairqctl $args prints its usage (got: $(cat "$tmp/out" "$tmp/err"))"
	fi
done
for args in -V --version version; do
	if "$bin" $args | grep -q '^fairqctl .* (netlink family fairq version 1)$'; then
		ok "fairqctl $args"
	else
		not_ok "fairqctl $args prints the version"
	fi
done

# --- the module not loaded: every command that talks to the kernel says so (exit 3) ---
"$bin" >/dev/null 2>"$tmp/probe"
probe=$?
if [ -d /sys/module/fairq ]; then
	echo "# fairq is loaded on this machine: the not-loaded cases are skipped"
	skipped=$((skipped + 1))
elif [ $probe = 1 ] && grep -q 'cannot open a generic netlink socket' "$tmp/probe"; then
	echo "# no generic netlink here ($(cat "$tmp/probe")): the not-loaded cases are skipped"
	skipped=$((skipped + 1))
else
	nl='^fairqctl: fairq is not loaded \(modprobe fairq\)$'
	expect 3 "$nl"
	expect 3 "$nl" show
	expect 3 "$nl" -j show
	expect 3 "$nl" -p -e -a pools
	expect 3 "$nl" shares --top 3 --pool 0 --key 10.0.0.0/24
	expect 3 "$nl" sched
	expect 3 "$nl" sched --names
	expect 3 "$nl" sched set qfifo
	expect 3 "$nl" set fq.quantum_us 5000
	expect 3 "$nl" set 0x10 0x10
	expect 3 "$nl" set fq.quantum_us default
	expect 3 "$nl" watch -i 0.5 -n 1
	expect 3 "$nl" monitor -n 1 -t 1
	expect 3 "$nl" metrics
	expect 3 "$nl" weights
	# global options after the command, and commands by a prefix no other has
	expect 3 "$nl" pools -j -e
	expect 3 "$nl" shares --top 3 --json --all-netns
	expect 3 "$nl" sha --top 3
	expect 3 "$nl" shares --interval 0.5 --sort requests --top 2
	expect 3 "$nl" showc
	expect 3 "$nl" mon -n 1 -t 1
	expect 3 "$nl" weights fq
	expect 3 "$nl" weights prune 10.0.0.1 v4client:0123456789abcdef
	expect 3 "$nl" showconf
	expect 3 "$nl" class
	expect 3 "$nl" class list
	expect 3 "$nl" -j class list render
	expect 3 "$nl" class list --names -a
	expect 3 "$nl" cl add render match 10.2.0.0/16 limit 2000/s
	expect 3 "$nl" class add backup match 10.0.0.9 limit 50/s burst 20
	expect 3 "$nl" class add v6 match fd00::/64 match 2001:db8::5 match v4client:0123456789abcdef rank 10
	expect 3 "$nl" class add -j web match addr:10.0.0.1 match subnet:10.1.0.0/16 limit none
	expect 3 "$nl" class change render limit none burst 5
	expect 3 "$nl" class change render match 10.3.0.0/16
	expect 3 "$nl" class change default limit 5000/s
	expect 3 "$nl" class del backup
	expect 3 "$nl" class sync <<<'render match 10.2.0.0/16 limit 2000/s'
	expect 3 "$nl" class sync </dev/null
	# a textfile from before is removed, not left for a collector to export as current
	echo 'fairq_pools 1' >"$tmp/fairq.prom"
	expect 3 "$nl" metrics --textfile "$tmp/fairq.prom"
	if [ -e "$tmp/fairq.prom" ]; then
		not_ok "metrics --textfile without fairq removes the old file"
	else
		ok "metrics --textfile without fairq removes the old file"
	fi
	# keys in every spelling parse (and then meet the missing module)
	for key in 10.0.0.7 addr:10.0.0.7 2001:db8::7 ::ffff:10.0.0.7 10.0.0.0/24 subnet:2001:db8::/48 \
		10.0.0.7:812 conn:10.0.0.7:812 '[2001:db8::7]:812' v4client:0123456789ABCDEF; do
		expect 3 "$nl" weight "$key" 2
	done
fi

# --- the class words and output with no kernel: tests/test_class.c, cmd_class.c included ---
schema=$top/fairqctl.schema.json
check=$here/schema-check.py
test_class_ok=""
# every file of fairqctl but cmd_class.c (which the test includes), its main renamed
tc_cc() {
	# shellcheck disable=SC2046
	${CC:-cc} -std=gnu11 -Wall -Wextra -Werror -O1 -g -I"$top/../../include/uapi" \
		-DFAIRQCTL_VERSION='"test"' $(pkg-config --cflags libnl-3.0 libnl-genl-3.0) "$@"
}
tc_objs=()
for src in "$top"/*.c; do
	case "$src" in */cmd_class.c) continue ;; esac
	tc_objs+=("$tmp/$(basename "$src" .c).o")
	tc_cc -Dmain=fairqctl_main -c -o "$tmp/$(basename "$src" .c).o" "$src" >>"$tmp/cc" 2>&1
done
# shellcheck disable=SC2046
if tc_cc -o "$tmp/test_class" "$here/test_class.c" "${tc_objs[@]}" \
	$(pkg-config --libs libnl-3.0 libnl-genl-3.0) -lm >>"$tmp/cc" 2>&1; then
	if "$tmp/test_class" "$tmp/class-docs.json" >"$tmp/out" 2>&1; then
		ok "test_class: $(tail -n 1 "$tmp/out")"
		test_class_ok=1
	else
		not_ok "test_class: $(grep -E 'FAIL|failed' "$tmp/out" | head -n 5)"
	fi
else
	not_ok "test_class builds: $(head -n 5 "$tmp/cc")"
fi

# --- the output's fast paths (keys as text, JSON strings): tests/test_output.c ---
# The JSON writer writes in place into a buffer of its own: with AddressSanitizer, where the
# compiler has it, a write past the buffer's end fails the test instead of landing unseen in
# the variable next to it.
san=(-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
out_objs=("${tc_objs[@]}")
if echo 'int main(void) { return 0; }' | ${CC:-cc} "${san[@]}" -x c -o "$tmp/san" - 2>/dev/null &&
	"$tmp/san" && tc_cc "${san[@]}" -Dmain=fairqctl_main -c -o "$tmp/output-san.o" \
		"$top/output.c" >>"$tmp/cc" 2>&1; then
	out_objs=("${out_objs[@]/#$tmp\/output.o/$tmp/output-san.o}")
else
	san=()
	echo "# test_output runs without AddressSanitizer: the compiler here cannot build with it"
	skipped=$((skipped + 1))
fi
# shellcheck disable=SC2046
if tc_cc -c -o "$tmp/cmd_class.o" "$top/cmd_class.c" >>"$tmp/cc" 2>&1 &&
	tc_cc "${san[@]}" -o "$tmp/test_output" "$here/test_output.c" "${out_objs[@]}" \
		"$tmp/cmd_class.o" $(pkg-config --libs libnl-3.0 libnl-genl-3.0) -lm >>"$tmp/cc" 2>&1; then
	if ASAN_OPTIONS=detect_leaks=0 "$tmp/test_output" >"$tmp/out" 2>&1; then
		ok "test_output${san:+ (AddressSanitizer)}: $(tail -n 1 "$tmp/out")"
	else
		not_ok "test_output: $(grep -E 'FAIL|failed|ERROR|runtime error' "$tmp/out" | head -n 3)"
	fi
else
	not_ok "test_output builds: $(tail -n 5 "$tmp/cc")"
fi

# --- the walk of netlink replies, against scripted replies: tests/test_nl.c, nl.c included ---
nl_objs=("$tmp/cmd_class.o")
for o in "${tc_objs[@]}"; do
	[ "$o" = "$tmp/nl.o" ] || nl_objs+=("$o")
done
# shellcheck disable=SC2046
if tc_cc -o "$tmp/test_nl" "$here/test_nl.c" "${nl_objs[@]}" \
	$(pkg-config --libs libnl-3.0 libnl-genl-3.0) -lm -ldl >>"$tmp/cc" 2>&1; then
	"$tmp/test_nl" >"$tmp/out" 2>&1
	case $? in
	0) ok "test_nl: $(tail -n 1 "$tmp/out")" ;;
	77)
		echo "$(cat "$tmp/out"): test_nl skipped"
		skipped=$((skipped + 1))
		;;
	*) not_ok "test_nl: $(grep -E 'FAIL|failed' "$tmp/out" | head -n 3)" ;;
	esac
else
	not_ok "test_nl builds: $(tail -n 5 "$tmp/cc")"
fi

# --- the JSON schema: a valid draft-07 schema that takes the good samples and refuses the bad ---
if python3 -c 'import jsonschema' 2>/dev/null; then
	if [ -n "$test_class_ok" ]; then
		if python3 "$check" "$schema" "$tmp/class-docs.json" >"$tmp/out" 2>&1; then
			ok "test_class's class list -j documents validate"
		else
			not_ok "test_class's class list -j documents validate: $(tail -n 3 "$tmp/out")"
		fi
	fi
	for f in "$here"/samples/*.json; do
		[ -f "$f" ] || continue
		if python3 "$check" "$schema" "$f" >"$tmp/out" 2>&1; then
			ok "samples/$(basename "$f") validates"
		else
			not_ok "samples/$(basename "$f") validates: $(tail -n 3 "$tmp/out")"
		fi
	done
	for f in "$here"/samples/bad/*.json; do
		[ -f "$f" ] || continue
		if python3 "$check" "$schema" "$f" >"$tmp/out" 2>&1; then
			not_ok "samples/bad/$(basename "$f") is refused"
		else
			ok "samples/bad/$(basename "$f") is refused"
		fi
	done
else
	not_ok "python3-jsonschema is installed (tests/vm/prereqs.sh installs it)"
fi

# --- the VM tests' netlink client names only operations and attributes of the spec ---
# (its encoding is YNL's, from the spec; the VM tests run it against the module)
client=$top/../../tests/vm/guest/fairq-nl.py
spec=$top/../../docs/netlink/fairq.yaml
if python3 -c 'import yaml' 2>/dev/null; then
	if python3 - "$client" "$spec" >"$tmp/out" 2>&1 <<'PY'; then
import re, sys, yaml
client, spec = open(sys.argv[1]).read(), yaml.safe_load(open(sys.argv[2]))
ops = {op["name"] for op in spec["operations"]["list"]}
attrs = {a["name"] for s in spec["attribute-sets"] for a in s["attributes"]}
used_ops = set(re.findall(r'request\(fq, "([a-z-]+)"', client))
used_attrs = set(re.findall(r'"([a-z][a-z-]*)":', client))
bad = sorted(used_ops - ops) + sorted(used_attrs - attrs)
sys.exit("not in the spec: %s" % bad if bad or not used_ops else 0)
PY
		ok "tests/vm/guest/fairq-nl.py names only what docs/netlink/fairq.yaml defines"
	else
		not_ok "tests/vm/guest/fairq-nl.py names only what docs/netlink/fairq.yaml defines: $(cat "$tmp/out")"
	fi
else
	not_ok "python3-yaml is installed (tests/vm/prereqs.sh installs it)"
fi

# --- the man page, usage and completion know every command and exit code ---
for c in show pools shares sched set weight class watch monitor metrics; do
	if grep -q "^\.B $c\$\|^\\\\fB$c\\\\fP\|^\.BI \"$c \|^\.B $c " "$top/fairqctl.8" &&
		"$bin" help | grep -q "^  $c" && grep -q "\b$c\b" "$top/completion/fairqctl.bash" &&
		grep -Eq "^		['\"]$c:" "$top/completion/_fairqctl"; then
		ok "command $c is in the man page, the usage and both completions"
	else
		not_ok "command $c is in the man page, the usage and both completions"
	fi
done
for code in 0 1 2 3 4 5 6; do
	if sed -n '/^\.SH EXIT STATUS/,/^\.SH FILES/p' "$top/fairqctl.8" | grep -q "^\.B $code\$"; then
		ok "exit code $code is documented"
	else
		not_ok "exit code $code is documented"
	fi
done
if bash -n "$top/completion/fairqctl.bash"; then
	ok "the bash completion parses"
else
	not_ok "the bash completion parses"
fi

# same_completion WHAT WANT GOT: one TAP line
same_completion() {
	if [ "$3" = "$2" ]; then
		ok "$1 is '$2'"
	else
		not_ok "$1 is '$2' (got '$3')"
	fi
}

# completion, with a stand-in fairqctl that offers what a kernel would
complete_test() {
	local want=$1 got
	shift
	got=$(bash -c '
		. "$1"
		fairqctl() {
			case "$*" in
			"sched --names") printf "fifo\nqfifo\nfq\n" ;;
			"sched --params") printf "fq.key\nfq.quantum_us\n" ;;
			# another namespace: another kernel view
			"--netns=s2 sched --names") printf "fifo\nfq\n" ;;
			"--netns=s2 sched --params") printf "fq.key\n" ;;
			"class list --names") printf "render\nbackup\ndefault\n" ;;
			"--netns=s2 class list --names") printf "web\ndefault\n" ;;
			esac
		}
		ip() { [ "$*" = "netns list" ] && printf "s1 (id: 0)\ns2\n"; }
		shift
		COMP_WORDS=("$@")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		_fairqctl
		echo "${COMPREPLY[*]}"' - "$top/completion/fairqctl.bash" "$@")
	same_completion "completion of '$*'" "$want" "$got"
}
complete_test "show pools shares sched set weight weights class showconf watch monitor metrics help version" fairqctl ""
complete_test "add change del list sync --help" fairqctl class ""
complete_test "del" fairqctl -j class d
complete_test "" fairqctl class add ""
complete_test "match rank limit burst weight reserve per-key shared" fairqctl class add web ""
complete_test "match rank limit burst weight reserve per-key shared" fairqctl class add web limit 5/s ""
complete_test "match rank limit burst weight reserve per-key shared" fairqctl class add web weight 2 per-key ""
complete_test "none" fairqctl class change web weight ""
complete_test "none" fairqctl class change web per-key reserve ""
complete_test "" fairqctl class change web per-key rank ""
complete_test "per-key" fairqctl class add web weight 3 pe
complete_test "none" fairqctl class change web limit ""
complete_test "" fairqctl class change web match ""
complete_test "render" fairqctl class change r
complete_test "render backup" fairqctl class del ""
complete_test "--names render backup default" fairqctl class list ""
complete_test "--check" fairqctl class sync ""
complete_test "web" fairqctl -n s2 class del ""
complete_test "--json" fairqctl -e --j
complete_test "set --names --params --help" fairqctl sched ""
complete_test "qfifo" fairqctl -j sched set q
complete_test "fifo qfifo fq" fairqctl sched set ""
complete_test "fq.quantum_us" fairqctl set fq.q
complete_test "--pool --top --key --interval --sort --help" fairqctl shares --
complete_test "requests" fairqctl shares --interval 2 --sort r
complete_test "--top --textfile --help" fairqctl metrics --
complete_test "prune fifo qfifo fq --help" fairqctl weights ""
complete_test "prune" fairqctl weights p
complete_test "s1 s2" fairqctl -n ""
complete_test "show shares showconf" fairqctl -n s2 sh
complete_test "s1 s2" fairqctl shares --netns s
complete_test "--count --timeout --help" fairqctl monitor -n 3 --
complete_test "s1 s2" fairqctl --netns = ""
complete_test "show shares showconf" fairqctl --netns = s2 sh
# the dynamic lists come through the namespace the line names, before the command or after it
complete_test "fifo fq" fairqctl -n s2 sched set ""
complete_test "fifo fq" fairqctl --netns = s2 sched set ""
complete_test "fifo fq" fairqctl sched --netns s2 set ""
complete_test "fq.key" fairqctl -n s2 set fq.

# zsh's, the same cases (zsh lists options only once a '-' is typed, and none already given)
zcomplete_test() {
	local want=$1 got
	shift
	got=$(timeout 30 zsh -f "$here/zsh-complete.zsh" "$top/completion" "$@" 2>&1)
	same_completion "zsh completion of '$*'" "$want" "$got"
}
if ! command -v zsh >/dev/null; then
	echo "# no zsh here: its completion is not tested"
	skipped=$((skipped + 1))
elif ! zsh -fn "$top/completion/_fairqctl"; then
	not_ok "the zsh completion parses"
else
	ok "the zsh completion parses"
	zcomplete_test "class help metrics monitor pools sched set shares show showconf version watch weight weights" fairqctl ""
	zcomplete_test "add change del list sync" fairqctl class ""
	zcomplete_test "burst limit match per-key rank reserve shared weight" fairqctl class add web ""
	zcomplete_test "burst limit match per-key rank reserve shared weight" fairqctl class change web limit 5/s ""
	zcomplete_test "burst limit match per-key rank reserve shared weight" fairqctl class add web weight 2 per-key ""
	zcomplete_test "none" fairqctl class change web per-key reserve ""
	zcomplete_test "none" fairqctl class change web weight ""
	zcomplete_test "none" fairqctl class change web limit ""
	zcomplete_test "render" fairqctl class change r
	zcomplete_test "backup render" fairqctl class del ""
	zcomplete_test "backup default render" fairqctl class list ""
	zcomplete_test "--names" fairqctl class list --na
	zcomplete_test "--check" fairqctl class sync --c
	zcomplete_test "web" fairqctl -n s2 class del ""
	zcomplete_test "--json" fairqctl -e --j
	zcomplete_test "set" fairqctl sched ""
	zcomplete_test "qfifo" fairqctl -j sched set q
	zcomplete_test "fifo fq qfifo" fairqctl sched set ""
	zcomplete_test "fq.quantum_us" fairqctl set fq.q
	zcomplete_test "--all-netns --exact --help --interval --json --key --netns --pool --pretty --sort --top" fairqctl shares --
	zcomplete_test "requests" fairqctl shares --interval 2 --sort r
	zcomplete_test "--all-netns --exact --help --json --netns --pretty --textfile --top" fairqctl metrics --
	zcomplete_test "fifo fq prune qfifo" fairqctl weights ""
	zcomplete_test "10.0.0.0/24 10.0.0.1" fairqctl weights prune ""
	zcomplete_test "10.0.0.0/24 10.0.0.1" fairqctl weight 10
	zcomplete_test "--count" fairqctl mon --c
	zcomplete_test "10.0.0.0/24 10.0.0.1" fairqctl weights -j prune ""
	zcomplete_test "s1 s2" fairqctl -n ""
	zcomplete_test "shares show showconf" fairqctl -n s2 sh
	zcomplete_test "s1 s2" fairqctl shares --netns s
	zcomplete_test "--all-netns --exact --help --json --netns --pretty --timeout" fairqctl monitor -n 3 --
	zcomplete_test "fifo fq" fairqctl -n s2 sched set ""
	zcomplete_test "fifo fq" fairqctl --netns=s2 sched set ""
	zcomplete_test "fq.key" fairqctl -n s2 set fq.
	zcomplete_test "fq.key" fairqctl set --netns=s2 fq.
	zcomplete_test "10.0.0.1" fairqctl -n s2 weight 10
fi

[ "$skipped" = 0 ] || echo "# $skipped group(s) skipped, see above"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
