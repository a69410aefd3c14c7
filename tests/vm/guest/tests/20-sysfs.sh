#!/bin/bash
# Bad writes to /sys/kernel/fairq are refused with EINVAL (or EPERM for non-root) and change
# nothing; good ones take effect.
. /fairq/lib.sh
S=$FAIRQ_SYSFS/scheduler
for bad in "nosuch" "fifo qfifo" $'\n' " " "$(printf 'x%.0s' $(seq 1 40))" "$(printf 'fifo\001')" "[fifo]" "FIFO"; do
	fairq_expect_write_fails "$S" "$bad"
done
# the refusal is EINVAL, not some other error
err=$( (echo nosuch >"$S") 2>&1)
echo "$err" | grep -q "Invalid argument" || fail "unknown scheduler: expected EINVAL, got '$err'"

W=$FAIRQ_SYSFS/watchdog_ms
for bad in 0 9 10001 -1 abc $'\n' 1e3 99999999999999999999; do
	fairq_expect_write_fails "$W" "$bad"
done
echo 250 >"$W" || fail "watchdog_ms 250 refused"
[ "$(cat "$W")" = 250 ] || fail "watchdog_ms did not take 250"
echo 100 >"$W"

# only root may write; a refused write changes nothing
before=$(cat "$S")
if setpriv --reuid=65534 --regid=65534 --clear-groups sh -c "echo qfifo > $S" 2>/dev/null; then
	fail "an unprivileged user switched the scheduler"
fi
[ "$(cat "$S")" = "$before" ] || fail "unprivileged write changed the scheduler"
fairq_expect_write_fails "$FAIRQ_SYSFS/rescues" 1

# good writes, with and without a newline
printf qfifo >"$S" || fail "qfifo refused"
[ "$(fairq_sched)" = qfifo ] || fail "qfifo not active"
echo fifo >"$S" || fail "fifo refused"
[ "$(fairq_sched)" = fifo ] || fail "fifo not active"
log "refusals and switches behave"
