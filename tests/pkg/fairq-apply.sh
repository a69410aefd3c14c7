#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# fairq-apply against a fake /sys/kernel/fairq (plain files, /dev/full for a refused write)
# and a fake modprobe that "loads" fairq by creating that tree.  Runs the script with dash,
# as /bin/sh on Debian, so bashisms fail here.
#
# usage: tests/pkg/fairq-apply.sh        TAP, then "N passed, N failed"
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
apply=$top/tools/fairq-apply/fairq-apply
shell=$(command -v dash || echo sh)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

export FAIRQ_SYSFS=$tmp/sys
mkdir -p "$tmp/bin"
# The fake modprobe records its call and builds the tree, or fails if asked to.
cat >"$tmp/bin/modprobe" <<'MP'
#!/bin/sh
echo "$*" >>"$FAKE_LOG"
[ -z "${FAKE_MODPROBE_FAILS:-}" ] || { echo "modprobe: FATAL: Module fairq not found" >&2; exit 1; }
mkdir -p "$FAIRQ_SYSFS/qfifo"
echo "[fifo] qfifo" >"$FAIRQ_SYSFS/scheduler"
echo 100 >"$FAIRQ_SYSFS/watchdog_ms"
echo 20 >"$FAIRQ_SYSFS/failsafe_rescues"
echo 0 >"$FAIRQ_SYSFS/qfifo/depth"
ln -s /dev/full "$FAIRQ_SYSFS/qfifo/refuses"
MP
chmod +x "$tmp/bin/modprobe"
# The fake fairqctl records what it is asked to do, or refuses weights as the kernel would.
cat >"$tmp/bin/fairqctl" <<'CTL'
#!/bin/sh
# weight --check: a key fairqctl cannot read (the real parser has its own tests) changes nothing
if [ "$1 $2" = "weight --check" ]; then
	case $3 in
	*bad*) echo "fairqctl: weight: '$3' is no key" >&2; exit 2 ;;
	esac
	exit 0
fi
# class sync --check: the same, for the classes on standard input (a name twice is refused)
if [ "$1 $2 $3" = "class sync --check" ]; then
	lines=$(cat)
	case $lines in
	*bad*) echo "fairqctl: class sync: line 1: 'bad' is no class name" >&2; exit 2 ;;
	esac
	if [ "$(echo "$lines" | cut -d' ' -f1 | sort | uniq -d)" ]; then
		echo "fairqctl: class sync: line 2: class twice given twice" >&2
		exit 2
	fi
	exit 0
fi
[ -z "${FAKE_FAIRQCTL_REFUSES:-}" ] || [ "$1" != weight ] ||
	{ echo "fairqctl: the active scheduler has no per-key weights" >&2; exit 1; }
[ -z "${FAKE_FAIRQCTL_REFUSES_CLASSES:-}" ] || [ "$1" != class ] ||
	{ echo "fairqctl: class sync: the active scheduler has no QoS classes" >&2; exit 6; }
echo "$*" >>"$FAKE_CTL_LOG"
# what class sync reads, each class on a line of its own after it
[ "$1 $2" != "class sync" ] || sed 's/^/  /' >>"$FAKE_CTL_LOG"
CTL
chmod +x "$tmp/bin/fairqctl"
export PATH=$tmp/bin:$PATH FAKE_LOG=$tmp/modprobe.log FAKE_CTL_LOG=$tmp/fairqctl.log

pass=0
failed=0
n=0
ok() {
	n=$((n + 1)) pass=$((pass + 1))
	echo "ok $n - $1"
}
not_ok() {
	n=$((n + 1)) failed=$((failed + 1))
	echo "not ok $n - $1"
	sed 's/^/# /' "$tmp/out"
}

# fresh [loaded]: no module, or the module loaded with its defaults
fresh() {
	rm -rf "$FAIRQ_SYSFS" "$FAKE_LOG" "$FAKE_CTL_LOG"
	unset FAKE_MODPROBE_FAILS FAKE_FAIRQCTL_REFUSES FAKE_FAIRQCTL_REFUSES_CLASSES
	chmod +x "$tmp/bin/fairqctl"
	[ "${1:-}" != loaded ] || modprobe fairq && rm -f "$FAKE_LOG"
}

# run CONFIG-TEXT [ARGS...]: fairq-apply on that configuration; sets $rc, output in $tmp/out
run() {
	printf '%s' "$1" >"$tmp/fairq.conf"
	shift
	set +e
	"$shell" "$apply" -c "$tmp/fairq.conf" "$@" >"$tmp/out" 2>&1
	rc=$?
	set -e
}

state() {
	if [ -e "$FAIRQ_SYSFS/scheduler" ]; then
		echo "$(cat "$FAIRQ_SYSFS/scheduler") wd=$(cat "$FAIRQ_SYSFS/watchdog_ms") depth=$(cat "$FAIRQ_SYSFS/qfifo/depth")"
	else
		echo unloaded
	fi
}

# expect NAME RC STATE [MODPROBED] [OUTPUT-PATTERN]
expect() {
	local got_state modprobed=no
	got_state=$(state)
	[ ! -s "$FAKE_LOG" ] || modprobed=yes
	if [ "$rc" = "$2" ] && [ "$got_state" = "$3" ] && [ "$modprobed" = "${4:-$modprobed}" ] &&
		{ [ -z "${5:-}" ] || grep -Eq -- "$5" "$tmp/out"; }; then
		ok "$1"
	else
		echo "# rc=$rc state='$got_state' modprobed=$modprobed" >>"$tmp/out"
		not_ok "$1"
	fi
}

fresh
set +e
"$shell" "$apply" -c "$top/tools/fairq-apply/fairq.conf" >"$tmp/out" 2>&1
rc=$?
set -e
expect "the shipped configuration changes nothing and loads nothing" 0 unloaded no "sets nothing"

fresh
set +e
"$shell" "$apply" -c "$tmp/absent.conf" >"$tmp/out" 2>&1
rc=$?
set -e
expect "a missing configuration is not an error" 0 unloaded no "does not exist"

fresh
run $'SCHEDULER=\nqfifo.depth=\n\n   # indented comment\n'
expect "empty values set nothing" 0 unloaded no "sets nothing"

fresh
run $'SCHEDULER=qfifo\n'
expect "a scheduler loads the module and switches" 0 "qfifo wd=100 depth=0" yes

fresh
run $'SCHEDULER=qfifo\nwatchdog_ms=200\nqfifo.depth="5"\n'
expect "tunables are written, then the scheduler" 0 "qfifo wd=200 depth=5" yes
if grep -n . "$tmp/out" | grep -E 'watchdog_ms|depth|scheduler' | cut -d: -f1 | sort -c -n 2>/dev/null &&
	[ "$(grep -c '' "$tmp/out")" = 3 ] && tail -n1 "$tmp/out" | grep -q 'scheduler = qfifo'; then
	ok "the scheduler is the last write"
else
	not_ok "the scheduler is the last write"
fi

fresh loaded
run $'  watchdog_ms=300\t \n'
expect "blanks around a line are ignored" 0 "[fifo] qfifo wd=300 depth=0" no

fresh loaded
run $'failsafe_rescues=0\n'
expect "the fail-safe's setting is written" 0 "[fifo] qfifo wd=100 depth=0" no
if [ "$(cat "$FAIRQ_SYSFS/failsafe_rescues")" = 0 ]; then
	ok "failsafe_rescues holds what the file set"
else
	not_ok "failsafe_rescues holds what the file set"
fi

fresh loaded
run $'watchdog_ms = 300\n'
expect "blanks around = are an error, as in shell" 1 "[fifo] qfifo wd=100 depth=0" no "no blanks around ="

fresh loaded
run $'watchdog_ms=300'
expect "a last line without a newline counts; a loaded module is not reloaded" 0 "[fifo] qfifo wd=300 depth=0" no

fresh
run $'watchdog_ms=200\nfoo=1\nSCHEDULER=qfifo\n'
expect "an unknown key fails before anything is loaded or written" 1 unloaded no "fairq.conf:2: unknown key 'foo'"

fresh
run $'SCHEDULER qfifo\n'
expect "a line without = fails" 1 unloaded no "fairq.conf:1: expected KEY=value"

fresh
run $'../../etc.passwd=1\n'
expect "a key cannot leave /sys/kernel/fairq" 1 unloaded no "bad key"

fresh
run $'SCHEDULER=../x\n'
expect "a scheduler name cannot be a path" 1 unloaded no "bad scheduler name"

fresh loaded
run $'watchdog_ms=200\nSCHEDULER=nope\n'
expect "a scheduler the module lacks fails before any write" 1 "[fifo] qfifo wd=100 depth=0" no "not offered.*fifo qfifo"

fresh loaded
run $'watchdog_ms=200\nqfifo.nope=1\nSCHEDULER=qfifo\n'
expect "a tunable the module lacks fails before any write" 1 "[fifo] qfifo wd=100 depth=0" no "qfifo.nope: this fairq has no such setting"

fresh loaded
run $'watchdog_ms=200\nqfifo.refuses=7\nSCHEDULER=qfifo\n'
expect "a refused write stops before the scheduler switch" 4 "[fifo] qfifo wd=200 depth=0" no "writing '7' to .*/qfifo/refuses: No space left on device"

fresh
FAKE_MODPROBE_FAILS=1
export FAKE_MODPROBE_FAILS
run $'SCHEDULER=qfifo\n'
expect "a module that cannot be loaded fails with status 3" 3 unloaded yes "modprobe fairq failed"

fresh
run $'SCHEDULER=qfifo\nwatchdog_ms=250\n' -n
expect "a dry run loads and writes nothing" 0 unloaded no "would write '250' to .*/watchdog_ms"

fresh loaded
run $'SCHEDULER=\'qfifo\'\n' -n
expect "a dry run on a loaded module checks the names" 0 "[fifo] qfifo wd=100 depth=0" no "would write 'qfifo' to .*/scheduler"

fresh loaded
echo qfifo >"$FAIRQ_SYSFS/scheduler"
run "" --reset
expect "--reset switches back to fifo" 0 "fifo wd=100 depth=0" no

fresh
run "" --reset
expect "--reset without the module does nothing" 0 unloaded no "not loaded"

fresh
run $'WEIGHT=10.0.0.0/24:3\nSCHEDULER=qfifo\nWEIGHT=fd00::7:12\n'
expect "weights are set through fairqctl" 0 "qfifo wd=100 depth=0" yes "weight fd00::7 = 12"
if [ "$(cat "$FAKE_CTL_LOG")" = $'weight 10.0.0.0/24 3\nweight fd00::7 12\nweights prune 10.0.0.0/24 fd00::7\nclass sync' ] &&
	grep -n . "$tmp/out" | grep -E 'scheduler|weight' | cut -d: -f2- | head -n1 | grep -q 'scheduler = qfifo'; then
	ok "weights come after the scheduler switch, in file order"
else
	cat "$FAKE_CTL_LOG" >>"$tmp/out" 2>/dev/null || true
	not_ok "weights come after the scheduler switch, in file order"
fi

fresh
run $'SCHEDULER=qfifo\nWEIGHT=v4client:0123456789abcdef:2\nWEIGHT=conn:10.0.0.1:700:4\nWEIGHT=[fd00::7]:800:5\nWEIGHT=subnet:10.1.0.0/16:6\n'
expect "every kind of key fairqctl takes is a WEIGHT key" 0 "qfifo wd=100 depth=0" yes "weight v4client:0123456789abcdef = 2"
[ "$(cat "$FAKE_CTL_LOG")" = $'weight v4client:0123456789abcdef 2\nweight conn:10.0.0.1:700 4\nweight [fd00::7]:800 5\nweight subnet:10.1.0.0/16 6\nweights prune v4client:0123456789abcdef conn:10.0.0.1:700 [fd00::7]:800 subnet:10.1.0.0/16\nclass sync' ] ||
	not_ok "the keys reach fairqctl as written: $(cat "$FAKE_CTL_LOG")"

# shellcheck disable=SC2016 # a command substitution must stay text
for bad in 10.0.0.1 10.0.0.1: :3 10.0.0.1:x 'a b:3' '$(id):1' v4client:0123:2 \
	v4client:0123456789abcdeg:2 addr::3 'fe80::1%eth0:2'; do
	fresh
	run "SCHEDULER=qfifo"$'\n'"WEIGHT=$bad"$'\n'
	expect "WEIGHT=$bad fails before anything is loaded" 1 unloaded no "bad WEIGHT"
	[ ! -s "$FAKE_CTL_LOG" ] || not_ok "WEIGHT=$bad ran fairqctl"
done

# a renamed scheduler keeps its old name for a release: the module links the old name of its
# directory to the new one (fairq -> fq), and files written before the rename keep working
fresh loaded
mkdir "$FAIRQ_SYSFS/fq"
echo 8000 >"$FAIRQ_SYSFS/fq/quantum_us"
ln -s fq "$FAIRQ_SYSFS/fairq"
echo "[fifo] qfifo fq" >"$FAIRQ_SYSFS/scheduler"
run $'SCHEDULER=fairq\nfairq.quantum_us=2000\n'
expect "an old scheduler name is accepted and switched to by its new name" 0 "fq wd=100 depth=0" no \
	"SCHEDULER=fairq: the scheduler is now called fq"
[ "$(cat "$FAIRQ_SYSFS/fq/quantum_us")" = 2000 ] || not_ok "fairq.quantum_us did not reach fq's quantum_us"
[ "$(cat "$FAKE_CTL_LOG")" = $'set qfifo.depth default\nweights prune\nclass sync' ] ||
	not_ok "a tunable set by its old name was reset, or one was reset twice: $(cat "$FAKE_CTL_LOG")"

fresh
chmod -x "$tmp/bin/fairqctl"
run $'SCHEDULER=qfifo\nWEIGHT=10.0.0.1:2\n'
expect "WEIGHT without fairqctl fails before anything is loaded" 1 unloaded no "need fairqctl"

fresh
FAKE_FAIRQCTL_REFUSES=1
export FAKE_FAIRQCTL_REFUSES
run $'SCHEDULER=qfifo\nWEIGHT=10.0.0.1:2\n'
expect "a refused weight fails with status 4, with fairqctl's reason" 4 "qfifo wd=100 depth=0" yes "no per-key weights"

fresh
run $'SCHEDULER=qfifo\nWEIGHT=10.0.0.1:2\n' -n
expect "a dry run sets no weight" 0 unloaded no "would run: fairqctl weight 10.0.0.1 2"
[ ! -s "$FAKE_CTL_LOG" ] || not_ok "a dry run ran fairqctl"
grep -q 'would run: fairqctl weights prune 10.0.0.1$' "$tmp/out" || not_ok "a dry run says which weights it would keep"

# the file says every weight there is: without WEIGHT lines, every weight goes
fresh
run $'SCHEDULER=qfifo\n'
expect "a file without weights prunes them all" 0 "qfifo wd=100 depth=0" yes "scheduler = qfifo"
[ "$(cat "$FAKE_CTL_LOG")" = $'weights prune\nclass sync' ] || not_ok "pruned with no key kept: $(cat "$FAKE_CTL_LOG")"

# a WEIGHT fairqctl cannot read fails before anything is loaded or written
fresh
run $'SCHEDULER=qfifo\nWEIGHT=bad.0.0.1:2\n'
expect "a WEIGHT whose key fairqctl refuses fails with status 1, changing nothing" 1 unloaded no "bad WEIGHT 'bad.0.0.1:2'.*is no key"
[ ! -s "$FAKE_CTL_LOG" ] || not_ok "a refused WEIGHT key ran fairqctl: $(cat "$FAKE_CTL_LOG")"

# the file says every tunable there is: one it does not set goes back to its default (not
# right after loading the module: it is there already)
fresh loaded
run $'SCHEDULER=qfifo\n'
expect "a tunable the file does not set goes back to its default" 0 "qfifo wd=100 depth=0" no "scheduler = qfifo"
[ "$(cat "$FAKE_CTL_LOG")" = $'set qfifo.depth default\nweights prune\nclass sync' ] || not_ok "reset and pruned: $(cat "$FAKE_CTL_LOG")"
fresh loaded
run $'qfifo.depth=3\nSCHEDULER=qfifo\n'
expect "a tunable the file sets is written, not reset" 0 "qfifo wd=100 depth=3" no "depth = 3"
[ "$(cat "$FAKE_CTL_LOG")" = $'weights prune\nclass sync' ] || not_ok "a tunable the file sets was reset: $(cat "$FAKE_CTL_LOG")"
fresh loaded
run $'SCHEDULER=qfifo\n' -n
expect "a dry run resets nothing" 0 "[fifo] qfifo wd=100 depth=0" no "would run: fairqctl set qfifo.depth default"
[ ! -s "$FAKE_CTL_LOG" ] || not_ok "a dry run ran fairqctl: $(cat "$FAKE_CTL_LOG")"

fresh
chmod -x "$tmp/bin/fairqctl"
run $'SCHEDULER=qfifo\n'
expect "without fairqctl (so without weights) nothing is pruned" 0 "qfifo wd=100 depth=0" yes "scheduler = qfifo"

# QoS classes: CLASS="NAME ..." lines reach fairqctl class sync as they are, after the weights
fresh
run $'SCHEDULER=qfifo\nCLASS="render match 10.2.0.0/16 limit 2000/s"\nWEIGHT=10.0.0.1:2\nCLASS=backup match 10.0.0.9 limit 50/s burst 20\nCLASS=\'default limit 5000/s\'\n'
expect "classes are made through fairqctl class sync" 0 "qfifo wd=100 depth=0" yes "scheduler = qfifo"
[ "$(cat "$FAKE_CTL_LOG")" = $'weight 10.0.0.1 2\nweights prune 10.0.0.1\nclass sync\n  render match 10.2.0.0/16 limit 2000/s\n  backup match 10.0.0.9 limit 50/s burst 20\n  default limit 5000/s' ] ||
	not_ok "the classes reach fairqctl after the weights, in file order: $(cat "$FAKE_CTL_LOG")"

# percents, weights and per-key reach it as written
fresh
run $'SCHEDULER=qfifo\nCLASS="desk match 10.1.0.0/16 reserve 30% weight 3"\nCLASS="farm limit 200/s limit 25% burst 5"\nCLASS="ws weight 2 per-key"\n'
expect "classes with percents, weights and per-key are made" 0 "qfifo wd=100 depth=0" yes "scheduler = qfifo"
[ "$(cat "$FAKE_CTL_LOG")" = $'weights prune\nclass sync\n  desk match 10.1.0.0/16 reserve 30% weight 3\n  farm limit 200/s limit 25% burst 5\n  ws weight 2 per-key' ] ||
	not_ok "percents, weights and per-key reach fairqctl as written: $(cat "$FAKE_CTL_LOG")"

# shellcheck disable=SC2016 # a command substitution must stay text
for bad in 'web;id' 'web match $(id)' "web"$'\t'"match 10.0.0.1" 'web match 10.0.0.1 | x' '"web"'; do
	fresh
	run "SCHEDULER=qfifo"$'\n'"CLASS=\"$bad\""$'\n'
	expect "CLASS=\"$bad\" fails before anything is loaded" 1 unloaded no "bad CLASS"
	[ ! -s "$FAKE_CTL_LOG" ] || not_ok "CLASS=\"$bad\" ran fairqctl"
done

fresh
run $'SCHEDULER=qfifo\nCLASS="bad limit 0/s"\n'
expect "a CLASS fairqctl refuses fails with status 1, naming its line" 1 unloaded no "fairq.conf:2: bad CLASS 'bad limit 0/s': 'bad' is no class name"

fresh
run $'SCHEDULER=qfifo\nCLASS="web limit 5/s"\nCLASS="web limit 6/s"\n'
expect "a class named twice fails before anything is loaded" 1 unloaded no "fairq.conf:3: bad CLASS 'web limit 6/s': class web has a line already"

fresh
run $'SCHEDULER=qfifo\nCLASS="render match 10.2.0.0/16"\n' -n
expect "a dry run makes no class" 0 unloaded no "would run: fairqctl class sync, for the classes: render"
[ ! -s "$FAKE_CTL_LOG" ] || not_ok "a dry run ran fairqctl: $(cat "$FAKE_CTL_LOG")"

fresh
chmod -x "$tmp/bin/fairqctl"
run $'SCHEDULER=qfifo\nCLASS="render match 10.2.0.0/16"\n'
expect "CLASS without fairqctl fails before anything is loaded" 1 unloaded no "CLASS lines need fairqctl"

fresh
FAKE_FAIRQCTL_REFUSES_CLASSES=1
export FAKE_FAIRQCTL_REFUSES_CLASSES
run $'SCHEDULER=qfifo\nCLASS="render match 10.2.0.0/16"\n'
expect "refused classes fail with status 4, with fairqctl's reason" 4 "qfifo wd=100 depth=0" yes "no QoS classes"

fresh
run "" --bogus
expect "an unknown option is a usage error" 2 unloaded no "usage:"

echo "1..$n"
echo "$pass passed, $failed failed"
[ "$failed" = 0 ]
