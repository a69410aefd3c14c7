#!/bin/bash
# A kernel without a hook point fairq needs is refused at load, with one clear line, and
# nothing is left behind.  (The test module is built with a pull hook naming a function that
# no kernel has.)
. /fairq/lib.sh
rmmod fairq || fail "rmmod failed"
seen=$(dmesg | wc -l)
if insmod /fairq/extra/fairq-badpull.ko 2>/tmp/err; then
	rmmod fairq
	fail "a module whose hook point is missing loaded"
fi
dmesg | tail -n +$((seen + 1)) | grep -q 'fairq: cannot hook fairq_no_such_function on this kernel (error -[0-9]*): refusing to load' ||
	fail "no clear refusal line: $(dmesg | tail -n 5)"
[ ! -e "$FAIRQ_SYSFS" ] || fail "sysfs left behind"
grep -q '^fairq ' /proc/modules && fail "module still listed"
modprobe fairq || fail "the real module no longer loads"
log "refused: $(dmesg | grep refusing | sed 's/^\[[^]]*\] //')"
