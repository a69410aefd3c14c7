#!/bin/bash
# Every fairqctl error path says so in one line, with the kernel's reason where the kernel
# refused, and exits with the documented code (fairqctl(8), EXIT STATUS); a refusal changes
# nothing.
. /fairq/lib.sh
. /fairq/fairqctl-lib.sh
trap 'modprobe fairq 2>/dev/null; fairq_set_sched fifo' EXIT
has_fairq=$(fairq_scheds | tr ' ' '\n' | grep -cx fairq)

# no privilege for a change (2 = usage, 4 = no privilege)
fairq_expect 4 'sched set: .*(permission denied|Operation not permitted)' fairq_as_nobody fairqctl sched set qfifo
[ "$(fairq_sched)" = fifo ] || fail "an unprivileged switch changed the scheduler"
fairq_expect 4 'set: ' fairq_as_nobody fairqctl set fq.quantum_us 1000
fairq_expect 4 'weight: ' fairq_as_nobody fairqctl weight 10.99.0.11 2
fairq_as_nobody fairqctl sched >/dev/null || fail "an unprivileged user cannot read the schedulers"
# one privilege for sysfs and netlink: CAP_NET_ADMIN alone reads client data but changes nothing
net_admin() {
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all,+net_admin \
		--ambient-caps=-all,+net_admin --bounding-set=-all,+net_admin -- "$@"
}
fairq_expect 4 'sched set: changing fairq needs CAP_SYS_ADMIN' net_admin fairqctl sched set qfifo
fairq_expect 4 'set: changing fairq needs CAP_SYS_ADMIN' net_admin fairqctl set fq.quantum_us 1000
fairq_expect 4 'weight: changing fairq needs CAP_SYS_ADMIN' net_admin fairqctl weight 10.99.0.11 2
[ "$(fairq_sched)" = fifo ] || fail "a switch with CAP_NET_ADMIN alone changed the scheduler"
net_admin fairqctl -j shares >/dev/null || fail "CAP_NET_ADMIN cannot read per-key shares"
# per-client data needs CAP_NET_ADMIN
fairq_expect 4 'shares: .*permission denied' fairq_as_nobody fairqctl shares

# unknown scheduler: the kernel's extack text (5 = no such thing)
fairq_expect 5 'sched set: no scheduler of that name on this kernel' fairqctl sched set nosuch
fairq_expect 2 'no scheduler name' fairqctl sched set 0123456789abcdefXYZ
[ "$(fairq_sched)" = fifo ] || fail "a refused switch changed the scheduler"

# tunables
fairq_expect 5 'the scheduler has no tunable of that name' fairqctl set nosuch 1
fairq_expect 5 'no scheduler of that name on this kernel' fairqctl set nosuch.quantum_us 1
fairq_expect 2 'VALUE must be a non-negative integer' fairqctl set fifo.x -1
fairq_expect 2 'VALUE must be a non-negative integer' fairqctl set fifo.x 12abc
if [ "$has_fairq" = 1 ]; then
	before=$(cat "$FAIRQ_SYSFS/fq/quantum_us")
	fairq_expect 1 "value out of the tunable's range" fairqctl set fq.quantum_us 1
	fairq_expect 1 "value out of the tunable's range" fairqctl set fq.quantum_us 99999999999
	[ "$(cat "$FAIRQ_SYSFS/fq/quantum_us")" = "$before" ] || fail "a refused value changed the tunable"
	fairqctl set fq.quantum_us 2000 || fail "an in-range value was refused"
	[ "$(cat "$FAIRQ_SYSFS/fq/quantum_us")" = 2000 ] || fail "fairqctl set did not reach sysfs"
	echo "$before" >"$FAIRQ_SYSFS/fq/quantum_us"
	[ "$(fairqctl -j sched | fairq_json '[t["value"] for s in d["schedulers"] for t in s["tunables"] if s["name"] == "fq" and t["name"] == "quantum_us"][0]')" = "$before" ] ||
		fail "fairqctl does not see a tunable set through sysfs"
	fairq_expect 5 'the scheduler has no tunable of that name' fairqctl set fq.nosuch 1
else
	log "no fq scheduler on this kernel: range refusals not exercised"
fi

# weights on a keyless scheduler (6 = not supported by the active scheduler)
fairqctl sched set qfifo || fail "switch to qfifo failed"
fairq_expect 6 'the active scheduler has no per-key weights' fairqctl weight 10.99.0.11 2
fairq_expect 2 'is no key' fairqctl weight 10.99.0.300 2
fairq_expect 2 'WEIGHT must be an integer' fairqctl weight 10.99.0.11 4294967296
if [ "$has_fairq" = 1 ]; then
	fairqctl sched set fq || fail "switch to fq failed"
	fairq_expect 6 'no weights for keys of this type' fairqctl weight 10.99.0.11:812 2
	fairq_expect 1 'refused this key or weight' fairqctl weight 10.99.0.11 5000
	fairqctl weight 10.99.0.11 3 || fail "a weight was refused by the keyed scheduler"
	fairqctl weight 10.99.0.11 0 || fail "restoring the default weight failed"
fi
fairqctl sched set fifo || fail "switch back to fifo failed"

# requests without their attributes (fairqctl never sends those): refused with a reason
fairq_nl_expect '^errno 22: which scheduler\? \(name missing\)$' bare sched-set
fairq_nl_expect '^errno 22: a tunable name and a value are needed$' bare param-set
fairq_nl_expect '^errno 22: a service and a pool id are needed' bare pool-get
fairq_nl_expect '^errno 22: a service, a pool and a key are needed' bare key-get
fairq_nl_expect '^errno 22: a key and a weight are needed$' bare weight-set
out=$(fairq_as_nobody python3 /fairq/fairq-nl.py bare sched-set)
[[ $out == "errno 1: "* ]] || fail "an unprivileged bare sched-set: '$out'"
fairq_nl_expect '^errno 2: fairq tracks no such service and pool$' pool-get 99999 0

# usage errors (2)
fairq_expect 2 "unknown option '-x'" fairqctl -x
fairq_expect 2 "unknown command 'frobnicate'" fairqctl frobnicate
fairq_expect 2 "option '--top' needs a value" fairqctl shares --top
fairq_expect 2 'interval is 0.1 to 3600 seconds' fairqctl watch -i abc

# the module not loaded (3), for reading and for a change alike
rmmod fairq || fail "rmmod fairq failed"
fairq_expect 3 '^fairqctl: fairq is not loaded \(modprobe fairq\)$' fairqctl
fairq_expect 3 '^fairqctl: fairq is not loaded \(modprobe fairq\)$' fairqctl sched set qfifo
fairq_expect 3 '^fairqctl: fairq is not loaded \(modprobe fairq\)$' fairqctl -j pools
modprobe fairq || fail "modprobe fairq failed"
fairqctl >/dev/null || fail "fairqctl fails after the module came back"
