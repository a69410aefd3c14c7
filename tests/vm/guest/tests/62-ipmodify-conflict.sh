#!/bin/bash
# Another IPMODIFY user of svc_xprt_enqueue (a live patch; here the test helper
# fairq_ipmodify) and fairq meet.  With the other one in place, fairq stays in fifo (which
# hooks nothing) and refuses every other scheduler, through sysfs and netlink, with the reason
# in the kernel log, changing nothing; the other user keeps seeing every enqueue while NFS
# traffic runs.  Once it is gone fairq switches as usual.  And the other way round: with fairq
# out of fifo, the other user is refused and fairq keeps serving.  kernel.ftrace_enabled=0 is
# refused while fairq's hooks are on, and in fifo it makes every switch fail with that reason.
. /fairq/lib.sh
H=/fairq/extra/fairq_ipmodify.ko
CALLS=/sys/module/fairq_ipmodify/parameters/calls
cleanup() {
	echo 1 >/proc/sys/kernel/ftrace_enabled
	fairq_set_sched fifo 2>/dev/null
	rmmod fairq_ipmodify 2>/dev/null
}
trap cleanup EXIT
traffic() {	# traffic WHAT: client 1 writes 2 MiB over NFSv3, lists and removes it
	fairq_nfs 1 3 'dd if=/dev/urandom of=f bs=64k count=32 conv=fsync 2>/dev/null && ls -l f >/dev/null &&
		rm -f f' || fail "$1: NFS traffic failed"
}

fairq_set_sched fifo
insmod $H || fail "the stand-in for a live patch did not load beside fairq in fifo"
for s in $(fairq_scheds); do
	[ "$s" = fifo ] && continue
	lines=$(dmesg | wc -l)
	if echo "$s" >"$FAIRQ_SYSFS/scheduler" 2>/tmp/err; then
		fail "sysfs: $s was accepted with another IPMODIFY user of svc_xprt_enqueue"
	fi
	[ "$(fairq_sched)" = fifo ] || fail "sysfs: the refused $s left the scheduler at $(fairq_sched)"
	dmesg | tail -n +$((lines + 1)) | grep -q 'cannot enable the svc_xprt_enqueue hooks (error -16): a live patch or tracer already modifies it$' ||
		fail "sysfs: no reason for refusing $s in the kernel log: $(dmesg | tail -n 3)"
	if fairqctl sched set "$s" >/tmp/out 2>&1; then
		fail "netlink: $s was accepted with another IPMODIFY user of svc_xprt_enqueue"
	fi
	[ "$(fairq_sched)" = fifo ] || fail "netlink: the refused $s left the scheduler at $(fairq_sched)"
	grep -q 'a live patch or tracer already modifies svc_xprt_enqueue: nothing changed' /tmp/out ||
		fail "netlink: fairqctl did not say why $s was refused: $(cat /tmp/out)"
	log "$s refused: sysfs '$(sed 's/.*: //' /tmp/err)', fairqctl '$(cat /tmp/out)'"
done
before=$(cat $CALLS)
traffic "fifo beside the other user"
after=$(cat $CALLS)
[ "$after" -gt "$before" ] || fail "the other user saw no enqueue while NFS traffic ran ($before, $after)"
log "the other user saw $((after - before)) enqueues of the traffic"

rmmod fairq_ipmodify || fail "the stand-in did not unload"
fairq_set_sched qfifo || fail "qfifo refused once the other user was gone"
traffic "qfifo after the other user left"

# the other way round: fairq hooks svc_xprt_enqueue first
if insmod $H 2>/tmp/err; then
	fail "another IPMODIFY user of svc_xprt_enqueue loaded while fairq ran qfifo"
fi
[ "$(fairq_sched)" = qfifo ] || fail "the refused other user moved fairq to $(fairq_sched)"
traffic "qfifo after refusing the other user"
fairq_set_sched fifo || fail "back to fifo refused"
log "with fairq out of fifo the other user was refused: $(sed 's/.*: //' /tmp/err)"

# kernel.ftrace_enabled: fairq's hooks are permanent, so tracing cannot be turned off under them
# (where the kernel lets it be turned off at all: Debian's 7.3 refuses any 0 with EOPNOTSUPP)
if ! echo 0 2>/tmp/fe.err >/proc/sys/kernel/ftrace_enabled; then
	grep -q 'not supported' /tmp/fe.err ||
		fail "kernel.ftrace_enabled=0 refused with fairq in fifo: $(cat /tmp/fe.err)"
	log "this kernel does not let kernel.ftrace_enabled be turned off: $(sed 's/.*: //' /tmp/fe.err)"
	exit 0
fi
echo 1 >/proc/sys/kernel/ftrace_enabled
fairq_set_sched qfifo || fail "qfifo refused before the ftrace_enabled part"
if echo 0 2>/dev/null >/proc/sys/kernel/ftrace_enabled; then
	fail "kernel.ftrace_enabled=0 was accepted while fairq's hooks were on"
fi
[ "$(cat /proc/sys/kernel/ftrace_enabled)" = 1 ] || fail "kernel.ftrace_enabled reads 0 after a refusal"
traffic "qfifo after refusing ftrace_enabled=0"
fairq_set_sched fifo || fail "back to fifo refused"
echo 0 >/proc/sys/kernel/ftrace_enabled || fail "kernel.ftrace_enabled=0 refused with fairq in fifo"
lines=$(dmesg | wc -l)
if echo qfifo >"$FAIRQ_SYSFS/scheduler" 2>/dev/null; then
	fail "qfifo was accepted with kernel.ftrace_enabled=0"
fi
[ "$(fairq_sched)" = fifo ] || fail "the refused qfifo left the scheduler at $(fairq_sched)"
dmesg | tail -n +$((lines + 1)) | grep -q 'cannot enable the thread-side hooks (error -16): kernel.ftrace_enabled is 0' ||
	fail "no reason naming ftrace_enabled in the kernel log: $(dmesg | tail -n 3)"
if fairqctl sched set qfifo >/tmp/out 2>&1; then
	fail "netlink: qfifo was accepted with kernel.ftrace_enabled=0"
fi
grep -q 'kernel.ftrace_enabled is 0: nothing changed' /tmp/out ||
	fail "netlink: fairqctl did not name ftrace_enabled: $(cat /tmp/out)"
echo 1 >/proc/sys/kernel/ftrace_enabled
fairq_set_sched qfifo || fail "qfifo refused once kernel.ftrace_enabled was 1 again"
traffic "qfifo after ftrace_enabled came back"
fairq_set_sched fifo || fail "back to fifo refused"
log "kernel.ftrace_enabled=0 refused under qfifo; in fifo it made switches fail with the reason"
