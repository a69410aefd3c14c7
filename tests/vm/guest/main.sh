#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Runs in the guest after init: standard set-up, then the selected tests (TAP) or one script.
# Every test is followed by a kernel health check: a warning, oops or new taint fails it.
# Under systemd (fairq_systemd=1, run by fairq-vmtest.service) the tests are those of
# /fairq/systemd/ and the set-up leaves nfsd and fairq to the boot.
cd /fairq
FAIRQ_TESTDIR=/fairq/tests
FAIRQ_SETUP=/fairq/setup.sh
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	fairq_tests=*) FAIRQ_TESTS=${arg#fairq_tests=} ;;
	fairq_clients=*) export FAIRQ_CLIENTS=${arg#fairq_clients=} ;;
	fairq_threads=*) export FAIRQ_THREADS=${arg#fairq_threads=} ;;
	fairq_script=*) FAIRQ_SCRIPT=${arg#fairq_script=} ;;
	fairq_systemd=1) FAIRQ_TESTDIR=/fairq/systemd FAIRQ_SETUP=/fairq/setup-systemd.sh ;;
	fairq_debug=1) FAIRQ_DEBUG=1 ;;
	fairq_kcsan=1) FAIRQ_KCSAN=1 ;;
	fairq_test_timeout=*) FAIRQ_TEST_TIMEOUT=${arg#fairq_test_timeout=} ;;
	fairq_pool_mode=*) export FAIRQ_POOL_MODE=${arg#fairq_pool_mode=} ;;
	fairq_clock=*) export FAIRQ_CLOCK=${arg#fairq_clock=} ;;
	fairq_online_cpus=*) FAIRQ_ONLINE_CPUS=${arg#fairq_online_cpus=} ;;
	esac
done
. /fairq/lib.sh
export FAIRQ_CLOCK=${FAIRQ_CLOCK:-wall}

# Booted with one CPU (maxcpus=1, see tests/vm/run): the others come online before anything
# sizes itself by them (nfsd's pools, the tests' expectations).
if [ -n "${FAIRQ_ONLINE_CPUS:-}" ]; then
	for c in /sys/devices/system/cpu/cpu[0-9]*/online; do
		[ "$(cat "$c")" = 1 ] || echo 1 >"$c"
	done
	if [ "$(nproc)" != "$FAIRQ_ONLINE_CPUS" ]; then
		echo "FQ-SETUP-FAILED"
		echo "# $(nproc) CPUs online of the $FAIRQ_ONLINE_CPUS asked for ($(cat /sys/devices/system/cpu/online))"
		exit 0
	fi
fi

# Out-of-tree (O) and unsigned (E) are expected; anything else is a finding.
TAINT_OK=$(((1 << 12) | (1 << 13)))
taint_bad() {	# taint_bad [BEFORE]: taint flags set since BEFORE (default: since boot)
	echo $(($(cat /proc/sys/kernel/tainted) & ~TAINT_OK & ~${1:-0}))
}
# Also what the debug kernels' checkers print (lockdep, RCU, KASAN, debug objects, kmemleak,
# sleeping in atomic context: most of them as WARNING: or BUG:, some not), and fairq's own
# watchdog rescuing a transport (a lost wakeup), which a test's counter misses when the module
# was reloaded after it.
PROBLEMS='rescued a stalled transport|WARNING:|BUG:|Oops|cut here|soft lockup|hung_task|blocked for more than|general protection|RIP:|KASAN|ODEBUG|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|detected stalls|self-detected stall|DEBUG_LOCKS_WARN_ON|suspected memory leak|list_(add|del) corruption'
dmesg_problems() {
	grep -E "$PROBLEMS" || true
}
# report_from_first_problem: the kernel log (on stdin) from its first report on, whole (a
# report's call trace is what says where it came from)
report_from_first_problem() {
	awk -v re="$PROBLEMS" 'n == 0 && $0 ~ re { n = 1 } n && n++ <= 120'
}

# kernel_log_own (kcsan kernels): the kernel log on stdin without KCSAN's reports of races
# in which neither access was made by fairq's modules (fairq, its race build, its test
# helpers): those are the kernel's own, and their headlines are kept in /tmp/kcsan-kernel
# instead.  An access is fairq's when one of its frames above the context it interrupted is:
# an interrupt or softirq that lands while fairq's code runs shows fairq's frames below its
# entry (asm_sysvec_*, handle_softirqs), and the race is then not fairq's.  A report with an
# access of fairq's stays in the log and fails the test.
kernel_log_own() {
	if [ -z "${FAIRQ_KCSAN:-}" ]; then
		cat
		return
	fi
	awk '
	function flush(i) {
		if (own)
			for (i = 0; i < n; i++) print rep[i]
		else
			print rep[0] >>"/tmp/kcsan-kernel"
		n = 0
		inrep = 0
	}
	/BUG: KCSAN:/ { if (inrep) flush(); inrep = 1; own = 0; below = 0 }
	inrep && / to 0x[0-9a-f]+ of [0-9]+ bytes by / { below = 0 }
	inrep && /asm_(sysvec|common_interrupt|exc)_|handle_softirqs|__do_softirq/ { below = 1 }
	inrep && !below && /\[fairq(_[a-z]+)?\]/ { own = 1 }
	inrep && /==========/ { rep[n++] = $0; flush(); next }
	inrep { rep[n++] = $0; next }
	{ print }
	END { if (inrep) flush() }'
}

# kmemleak (debug kernels): leaks of the kernel's own boot are forgotten once, then every test
# answers for the unreferenced objects found after it.  Objects younger than kmemleak's 5 s
# age are not reported yet: a leak made at a test's very end is charged to the next scan.
kmemleak_reset() {
	[ -w /sys/kernel/debug/kmemleak ] || return 0
	echo scan >/sys/kernel/debug/kmemleak
	echo clear >/sys/kernel/debug/kmemleak
}
kmemleak_new() {
	[ -w /sys/kernel/debug/kmemleak ] || return 0
	echo scan >/sys/kernel/debug/kmemleak
	cat /sys/kernel/debug/kmemleak
	echo clear >/sys/kernel/debug/kmemleak
}

# a test that leaves a CPU spinning fails, and ends the boot (spinning, in lib.sh)
SPIN_SECS=20
[ -n "${FAIRQ_DEBUG:-}${FAIRQ_KCSAN:-}" ] && SPIN_SECS=90	# kmemleak's scans, KASAN

echo "FQ-BOOT kernel $(uname -r) clients $FAIRQ_CLIENTS threads $FAIRQ_THREADS"
if ! bash -e "$FAIRQ_SETUP" >/tmp/setup.log 2>&1; then
	echo "FQ-SETUP-FAILED"
	sed 's/^/# /' /tmp/setup.log
	dmesg | tail -n 40 | sed 's/^/# dmesg: /'
	exit 0
fi

if [ -n "${FAIRQ_SCRIPT:-}" ]; then
	bash /fairq/script
	rc=$?
	problems=$(dmesg | kernel_log_own | dmesg_problems)
	if [ -n "$problems" ] || [ "$(taint_bad)" != 0 ]; then
		echo "# kernel health check failed (taint $(cat /proc/sys/kernel/tainted)):"
		echo "$problems" | sed 's/^/# /'
		[ "$rc" = 0 ] && rc=125
	fi
	echo "FQ-SCRIPT-EXIT $rc"
	exit 0
fi

# what the tests run on (not in script mode: a script's output is its own)
echo "# topology: $(nproc) CPUs, $(ls -d /sys/devices/system/node/node* 2>/dev/null | wc -l) NUMA nodes," \
	"pool mode $(fairq_pool_mode), $(fairq_nr_pools 2>/dev/null) nfsd pools"

tests=()
if [ -n "${FAIRQ_TESTS:-}" ]; then
	IFS=, read -r -a names <<<"$FAIRQ_TESTS"
	for n in "${names[@]}"; do
		f=$(ls "$FAIRQ_TESTDIR"/*-"$n".sh 2>/dev/null | head -n1)
		[ -n "$f" ] || f=$FAIRQ_TESTDIR/missing-$n
		tests+=("$f")
	done
else
	tests=("$FAIRQ_TESTDIR"/*.sh)
fi

if [ -n "${FAIRQ_DEBUG:-}" ]; then
	kmemleak_reset
	echo "1..$((${#tests[@]} + 1))"
else
	echo "1..${#tests[@]}"
fi
i=0
for t in "${tests[@]}"; do
	i=$((i + 1))
	name=$(basename "$t" .sh)
	name=${name#[0-9][0-9]-}
	if [ ! -f "$t" ]; then
		echo "not ok $i - $name # no such test"
		continue
	fi
	dmesg_lines=$(dmesg | wc -l)
	taint0=$(cat /proc/sys/kernel/tainted)
	start=$(date +%s)
	# each test answers for the rescues during itself (fairq_rescues): one rescue fails the test
	# it happened in, not every later test of the boot
	rm -f /tmp/fairq-rescues-expected
	FAIRQ_RESCUES_BASE=$(cat /sys/kernel/fairq/rescues 2>/dev/null || echo 0) \
		timeout -k 10 "${FAIRQ_TEST_TIMEOUT:-900}" bash "$t" >/tmp/out 2>&1
	rc=$?
	secs=$(($(date +%s) - start))
	spin=$(spinning)
	# a test that ran out of time, or left a CPU spinning, ends the boot (see spinning)
	given_up=""
	[ -n "$spin" ] && given_up="$name left a CPU spinning"
	[ "$rc" = 124 ] || [ "$rc" = 137 ] && given_up="$name ran out of time (${FAIRQ_TEST_TIMEOUT:-900} s)"
	leaks=""
	[ -n "${FAIRQ_DEBUG:-}" ] && leaks=$(kmemleak_new)
	dmesg | tail -n +$((dmesg_lines + 1)) | kernel_log_own >/tmp/dmesg-test
	if [ -e /tmp/fairq-rescues-expected ]; then
		problems=$(grep -v 'rescued a stalled transport' /tmp/dmesg-test | dmesg_problems)
	else
		problems=$(dmesg_problems </tmp/dmesg-test)
	fi
	# a taint stays for the rest of the boot: each test answers for the flags it added
	bad=$(taint_bad "$taint0")
	if [ -s /tmp/kcsan-kernel ]; then
		echo "# kcsan: $(wc -l </tmp/kcsan-kernel) reports on the kernel's own code, none of fairq's frames (the first: $(sed 's/^\[[^]]*\] //' /tmp/kcsan-kernel | head -n1))"
		rm -f /tmp/kcsan-kernel
	fi
	if [ "$rc" = 4 ] && [ -z "$spin" ]; then
		echo "ok $i - $name # SKIP $(tail -n1 /tmp/out)"
		continue
	fi
	if [ "$rc" = 0 ] && [ -z "$problems" ] && [ -z "$leaks" ] && [ "$bad" = 0 ] && [ -z "$spin" ]; then
		echo "ok $i - $name (${secs}s)"
		grep -a '^# ' /tmp/out | tail -n 8
		continue
	fi
	# why, on the line itself: a log cut to its failure lines still says it
	why=$(grep -a '^# FAIL: ' /tmp/out | tail -n 1 | cut -c9-)
	[ -z "$why" ] && [ -n "$problems" ] && why="kernel: $(echo "$problems" | head -n 1)"
	[ -z "$why" ] && [ "$bad" != 0 ] && why="kernel taint $(cat /proc/sys/kernel/tainted)"
	[ -z "$why" ] && [ -n "$given_up" ] && why=$given_up
	echo "not ok $i - $name (exit $rc, ${secs}s)${why:+: $why}"
	tail -n 40 /tmp/out | sed 's/^/#   /'
	[ "$bad" != 0 ] && echo "#   kernel taint $(cat /proc/sys/kernel/tainted)"
	[ -n "$problems" ] && report_from_first_problem </tmp/dmesg-test | sed 's/^/#   kernel report: /'
	[ -n "$leaks" ] && echo "$leaks" | head -n 60 | sed 's/^/#   kmemleak: /'
	[ -n "$spin" ] && echo "$spin" | sed 's/^/#   spinning: /'
	echo "#   dmesg:"
	dmesg | tail -n 40 | sed 's/^/#   /'
	if [ -n "$given_up" ]; then
		for t in "${tests[@]:i}"; do
			i=$((i + 1))
			name=$(basename "$t" .sh)
			echo "not ok $i - ${name#[0-9][0-9]-} # not run: the boot was given up when $given_up"
		done
		break
	fi
done
if [ -n "${FAIRQ_DEBUG:-}" ]; then
	# the last test's own leaks: past kmemleak's minimum age, with fairq unloaded
	rmmod fairq 2>/dev/null
	sleep 6
	leaks=$(kmemleak_new)
	if [ -z "$leaks" ]; then
		echo "ok $((i + 1)) - kmemleak after the last test, fairq unloaded"
	else
		echo "not ok $((i + 1)) - kmemleak after the last test, fairq unloaded"
		echo "$leaks" | head -n 60 | sed 's/^/#   kmemleak: /'
	fi
fi
echo "FQ-DONE"
