#!/bin/bash
# The module loads on this kernel with fifo active and every scheduler of this kernel listed.
. /fairq/lib.sh
grep -q '^fairq ' /proc/modules || fail "fairq is not loaded"
dmesg | grep -q 'fairq: version .* loaded, scheduler fifo' || fail "no load message in dmesg"
[ "$(fairq_sched)" = fifo ] || fail "active scheduler is $(fairq_sched), expected fifo"
for s in fifo qfifo; do
	fairq_scheds | tr ' ' '\n' | grep -qx "$s" || fail "scheduler $s not offered: $(cat "$FAIRQ_SYSFS/scheduler")"
done
log "offered: $(cat "$FAIRQ_SYSFS/scheduler")"
