#!/bin/bash
# The fair-queueing scheduler is called fq; its name before 0.2, fairq, still works wherever a
# scheduler's name is written, and is never shown: a switch through sysfs, fairqctl and netlink,
# its sysfs directory (a link to fq's), fairqctl set fairq.NAME (also back to the default),
# fairqctl weights fairq, and a fairq.conf written for the old name, applied by fairq-apply.
# The kernel says once that the name changed.  No other policy can take the old name, and a
# policy module's own alias comes and goes with it.
. /fairq/lib.sh
. /fairq/fairqctl-lib.sh
fairq_need_sched fq
trap 'fairqctl set fq.quantum_us default >/dev/null 2>&1; fairq_set_sched fifo' EXIT

fairq_set_sched fifo
lines=$(dmesg | wc -l)

# reads show the new name only
fairq_scheds | tr ' ' '\n' | grep -qx fairq && fail "the old name is offered: $(cat $FAIRQ_SYSFS/scheduler)"
fairqctl sched --names | grep -qx fairq && fail "fairqctl lists the old name: $(fairqctl sched --names)"

# sysfs: a switch by the old name selects fq
echo fairq >$FAIRQ_SYSFS/scheduler || fail "sysfs refused the old name"
[ "$(fairq_sched)" = fq ] || fail "sysfs shows '$(fairq_sched)' after a switch to fairq"
grep -q '\[fq\]' $FAIRQ_SYSFS/scheduler || fail "scheduler file: $(cat $FAIRQ_SYSFS/scheduler)"
dmesg | tail -n +$((lines + 1)) | grep -q 'fairq: scheduler: fq (was fifo)' ||
	fail "the switch was not logged by the new name: $(dmesg | tail -n +$((lines + 1)))"
dmesg | tail -n +$((lines + 1)) | grep -q 'fairq: scheduler name fairq is now fq' ||
	fail "no notice of the rename: $(dmesg | tail -n +$((lines + 1)))"

# sysfs: the old directory is a link to fq's, so old scripts write the same files
[ -L $FAIRQ_SYSFS/fairq ] && [ "$(readlink -f $FAIRQ_SYSFS/fairq)" = "$(readlink -f $FAIRQ_SYSFS/fq)" ] ||
	fail "$FAIRQ_SYSFS/fairq is not a link to fq: $(ls -l $FAIRQ_SYSFS)"
echo 7000 >$FAIRQ_SYSFS/fairq/quantum_us || fail "quantum_us through the old directory refused"
[ "$(cat $FAIRQ_SYSFS/fq/quantum_us)" = 7000 ] || fail "fq/quantum_us is $(cat $FAIRQ_SYSFS/fq/quantum_us)"

# fairqctl: switch, set, set to the default, weights, all by the old name
fairq_set_sched fifo
fairqctl sched set fairq || fail "fairqctl sched set fairq failed"
[ "$(fairqctl -j sched | fairq_json 'd["active"]')" = fq ] || fail "fairqctl shows $(fairqctl -j sched)"
fairqctl sched | grep -q '^fq .*the old name fairq still works' || fail "fairqctl sched: $(fairqctl sched)"
fairqctl set fairq.quantum_us 8000 || fail "fairqctl set fairq.quantum_us failed"
[ "$(cat $FAIRQ_SYSFS/fq/quantum_us)" = 8000 ] || fail "fq/quantum_us is $(cat $FAIRQ_SYSFS/fq/quantum_us)"
fairqctl set fairq.quantum_us default || fail "fairqctl set fairq.quantum_us default failed"
[ "$(cat $FAIRQ_SYSFS/fq/quantum_us)" = 10000 ] ||
	fail "fq/quantum_us is $(cat $FAIRQ_SYSFS/fq/quantum_us) after set fairq.quantum_us default"
fairqctl weight 10.99.0.11 3 || fail "weight refused"
fairqctl weights fairq >/tmp/weights.txt || fail "fairqctl weights fairq failed"
[ "$(cat /tmp/weights.txt)" = "10.99.0.11 3" ] || fail "weights fairq: $(cat /tmp/weights.txt)"
fairqctl weight 10.99.0.11 0

# netlink: the name is looked up by alias and answered with the name and the alias
fairq_set_sched fifo
python3 /fairq/fairq-nl.py sched-set fairq >/tmp/nl.out || fail "netlink sched-set fairq: $(cat /tmp/nl.out)"
[ "$(fairq_sched)" = fq ] || fail "netlink sched-set fairq selected '$(fairq_sched)'"
python3 /fairq/fairq-nl.py sched-get fairq >/tmp/nl.out || fail "netlink sched-get fairq: $(cat /tmp/nl.out)"
[ "$(cat /tmp/nl.out)" = '{"name": "fq", "alias": "fairq"}' ] || fail "netlink sched-get fairq: $(cat /tmp/nl.out)"
[ "$(dmesg | tail -n +$((lines + 1)) | grep -c 'scheduler name fairq is now fq')" = 1 ] ||
	fail "the rename notice is not given once: $(dmesg | tail -n +$((lines + 1)) | grep -c 'is now fq')"

# a configuration written for the old name, at boot or by hand
fairq_set_sched fifo
printf 'SCHEDULER=fairq\nfairq.quantum_us=6000\nfairq.burst_ms=250\n' >/tmp/old.conf
fairq-apply -c /tmp/old.conf >/tmp/apply.out 2>&1 || fail "fairq-apply of an old file: $(cat /tmp/apply.out)"
grep -q 'SCHEDULER=fairq: the scheduler is now called fq' /tmp/apply.out ||
	fail "fairq-apply did not say the name changed: $(cat /tmp/apply.out)"
[ "$(fairq_sched)" = fq ] && [ "$(cat $FAIRQ_SYSFS/fq/quantum_us)" = 6000 ] &&
	[ "$(cat $FAIRQ_SYSFS/fq/burst_ms)" = 250 ] ||
	fail "after an old file: $(fairq_sched), quantum_us $(cat $FAIRQ_SYSFS/fq/quantum_us), burst_ms $(cat $FAIRQ_SYSFS/fq/burst_ms)"
fairqctl showconf >/tmp/new.conf || fail "showconf failed"
grep -qx 'SCHEDULER=fq' /tmp/new.conf && grep -qx 'fq.quantum_us=6000' /tmp/new.conf &&
	! grep -q '^fairq\.' /tmp/new.conf || fail "showconf: $(cat /tmp/new.conf)"
# applying the old file again changes nothing (the old names are not reset as "unset")
fairq-apply -c /tmp/old.conf >/tmp/apply.out 2>&1 || fail "fairq-apply again: $(cat /tmp/apply.out)"
fairqctl showconf | diff -u /tmp/new.conf - >/tmp/diff.out || fail "the second apply changed: $(cat /tmp/diff.out)"
fairqctl set fq.burst_ms default
log "fairq: switched to through sysfs, fairqctl and netlink, its directory, tunables and weights, and an old fairq.conf"

# names are one policy's: a policy in another module cannot take fq's old name, nor a name as
# its alias; its own alias works the same way and goes with its module
X=/fairq/extra/fairq_extsched.ko
[ -f $X ] || fail "no $X"
for args in "name=fairq" "alias=fq" "alias=qfifo"; do
	lines=$(dmesg | wc -l)
	insmod $X $args 2>/tmp/insmod.err && fail "a policy registered with $args"
	# EEXIST, which newer module loaders (7.3) pass on as EBUSY: EEXIST says "loaded already"
	grep -qE 'File exists|Device or resource busy' /tmp/insmod.err ||
		fail "insmod with $args: $(cat /tmp/insmod.err)"
	dmesg | tail -n +$((lines + 1)) | grep -q "fairq: scheduler .* of module fairq_extsched not offered: its name or alias is taken" ||
		fail "no log line for the refused $args: $(dmesg | tail -n +$((lines + 1)))"
done
fairq_scheds | tr ' ' '\n' | grep -qxE 'fairq|extfifo' && fail "a refused policy is offered: $(cat $FAIRQ_SYSFS/scheduler)"
insmod $X alias=oldfifo || fail "insmod with alias=oldfifo refused"
[ -L $FAIRQ_SYSFS/oldfifo ] || fail "no link oldfifo: $(ls -l $FAIRQ_SYSFS)"
echo oldfifo >$FAIRQ_SYSFS/scheduler || fail "switch to oldfifo refused"
[ "$(fairq_sched)" = extfifo ] || fail "oldfifo selected '$(fairq_sched)'"
fairq_set_sched fifo
rmmod fairq_extsched || fail "rmmod fairq_extsched"
[ -e $FAIRQ_SYSFS/oldfifo ] || [ -L $FAIRQ_SYSFS/oldfifo ] && fail "the link oldfifo outlived its module"
echo oldfifo >$FAIRQ_SYSFS/scheduler 2>/dev/null && fail "oldfifo still selectable"
log "names taken (fairq, fq, qfifo) refused to another module; its own alias came and went with it"
