#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Runs in the guest after init: standard set-up, then the selected tests (TAP) or one script.
# Every test is followed by a kernel health check: a warning, oops or new taint fails it.
# Under systemd (fq_systemd=1, run by fairq-vmtest.service) the tests are those of
# /fairq/systemd/ and the set-up leaves nfsd and fairq to the boot.
cd /fairq
FQ_TESTDIR=/fairq/tests
FQ_SETUP=/fairq/setup.sh
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	fq_tests=*) FQ_TESTS=${arg#fq_tests=} ;;
	fq_clients=*) export FQ_CLIENTS=${arg#fq_clients=} ;;
	fq_threads=*) export FQ_THREADS=${arg#fq_threads=} ;;
	fq_script=*) FQ_SCRIPT=${arg#fq_script=} ;;
	fq_systemd=1) FQ_TESTDIR=/fairq/systemd FQ_SETUP=/fairq/setup-systemd.sh ;;
	esac
done
. /fairq/lib.sh

# Out-of-tree (O) and unsigned (E) are expected; anything else is a finding.
TAINT_OK=$(((1 << 12) | (1 << 13)))
taint_bad() {
	echo $(($(cat /proc/sys/kernel/tainted) & ~TAINT_OK))
}
dmesg_problems() {
	grep -E 'WARNING:|BUG:|Oops|cut here|soft lockup|hung_task|blocked for more than|general protection|RIP:' || true
}

echo "FQ-BOOT kernel $(uname -r) clients $FQ_CLIENTS threads $FQ_THREADS"
if ! bash -e "$FQ_SETUP" >/tmp/setup.log 2>&1; then
	echo "FQ-SETUP-FAILED"
	sed 's/^/# /' /tmp/setup.log
	dmesg | tail -n 40 | sed 's/^/# dmesg: /'
	exit 0
fi

if [ -n "${FQ_SCRIPT:-}" ]; then
	bash /fairq/script
	rc=$?
	problems=$(dmesg | dmesg_problems)
	if [ -n "$problems" ] || [ "$(taint_bad)" != 0 ]; then
		echo "# kernel health check failed (taint $(cat /proc/sys/kernel/tainted)):"
		echo "$problems" | sed 's/^/# /'
		[ "$rc" = 0 ] && rc=125
	fi
	echo "FQ-SCRIPT-EXIT $rc"
	exit 0
fi

tests=()
if [ -n "${FQ_TESTS:-}" ]; then
	IFS=, read -r -a names <<<"$FQ_TESTS"
	for n in "${names[@]}"; do
		f=$(ls "$FQ_TESTDIR"/*-"$n".sh 2>/dev/null | head -n1)
		[ -n "$f" ] || f=$FQ_TESTDIR/missing-$n
		tests+=("$f")
	done
else
	tests=("$FQ_TESTDIR"/*.sh)
fi

echo "1..${#tests[@]}"
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
	start=$(date +%s)
	# each test answers for the rescues during itself (fq_rescues): one rescue fails the test
	# it happened in, not every later test of the boot
	FQ_RESCUES_BASE=$(cat /sys/kernel/fairq/rescues 2>/dev/null || echo 0) \
		timeout -k 10 900 bash "$t" >/tmp/out 2>&1
	rc=$?
	secs=$(($(date +%s) - start))
	problems=$(dmesg | tail -n +$((dmesg_lines + 1)) | dmesg_problems)
	bad=$(taint_bad)
	if [ "$rc" = 4 ]; then
		echo "ok $i - $name # SKIP $(tail -n1 /tmp/out)"
		continue
	fi
	if [ "$rc" = 0 ] && [ -z "$problems" ] && [ "$bad" = 0 ]; then
		echo "ok $i - $name (${secs}s)"
		grep '^# ' /tmp/out | tail -n 8
		continue
	fi
	echo "not ok $i - $name (exit $rc, ${secs}s)"
	tail -n 40 /tmp/out | sed 's/^/#   /'
	[ "$bad" != 0 ] && echo "#   kernel taint $(cat /proc/sys/kernel/tainted)"
	echo "#   dmesg:"
	dmesg | tail -n 40 | sed 's/^/#   /'
done
echo "FQ-DONE"
