#!/bin/bash
# fairq finds some of sunrpc's functions by symbol lookup at load (where requests start and
# end, where a thread looks for work).  A module loaded before fairq that carries functions of
# the same names (as a kpatch-style live patch module carries its replacement copies; here the
# test helper fairq_decoy) must not be what fairq hooks: a lookup by bare name would find its
# copies first, and fairq's pull point and request hooks would never run.  With it loaded, every
# hooked function is sunrpc's (the kernel's list of traced functions names the module), fq
# counts the requests of NFS traffic, and nothing needs the watchdog.
. /fairq/lib.sh
H=/fairq/extra/fairq_decoy.ko
EF=/sys/kernel/tracing/enabled_functions
cleanup() {
	fairq_set_sched fifo 2>/dev/null
	rmmod fairq 2>/dev/null
	rmmod fairq_decoy 2>/dev/null
	modprobe fairq
}
trap cleanup EXIT
mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing ||
	fail "cannot mount tracefs"
[ -r $EF ] || fail "no $EF"
NAMES="svc_process svc_send svc_drop svc_xprt_dequeue svc_thread_should_sleep"

fairq_set_sched fifo || fail "fifo refused"
rmmod fairq || fail "fairq did not unload"
insmod $H || fail "the helper did not load"
modprobe fairq || fail "fairq did not load beside the helper"
for n in $NAMES; do
	grep -q "^[0-9a-f]* [tT] $n	\[fairq_decoy\]" /proc/kallsyms ||
		fail "the helper's $n is not in kallsyms: the test would prove nothing"
done
fairq_set_sched fq || fail "fq refused beside the helper"

hooked=$(grep -E "^($(echo $NAMES | tr ' ' '|')) " $EF)
log "traced functions of those names: $(echo "$hooked" | awk '{ print $1, $2 }' | xargs)"
echo "$hooked" | grep -q 'fairq_decoy' && fail "fairq hooked the helper's copies: $hooked"
for n in svc_process svc_send; do
	echo "$hooked" | grep -q "^$n \[sunrpc\]" || fail "sunrpc's $n is not hooked: $hooked"
done
pull=svc_thread_should_sleep
[ "$FAIRQ_SERIES" = 6.1 ] && pull=svc_xprt_dequeue
echo "$hooked" | grep -q "^$pull \[sunrpc\]" || fail "sunrpc's $pull (the pull point) is not hooked: $hooked"

r0=$(fairq_rescues)
fairq_nfs 1 3 'dd if=/dev/urandom of=f bs=64k count=32 conv=fsync 2>/dev/null && ls -l f >/dev/null &&
	rm -f f' || fail "NFS traffic failed under fq beside the helper"
requests=$(fairqctl -j shares | python3 -c 'import json, sys; print(sum(k["dispatches"] for k in json.load(sys.stdin)["keys"]))')
[ "$requests" -gt 0 ] || fail "fq counted no request start: its request hook is not where requests start"
[ "$(fairq_rescues)" = "$r0" ] || fail "the watchdog rescued $(($(fairq_rescues) - r0)) transports: the pull point is not hooked"
log "fq counted $requests requests of the traffic, no rescue"
fairq_set_sched fifo || fail "back to fifo refused"
