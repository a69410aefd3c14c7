#!/bin/bash
# A policy in a module of its own (tests/helpers/extsched: <fairq/sched.h> and fairq's exported
# symbols, nothing else).  It registers with its tunables in sysfs and netlink; selected under
# load it serves every request (fio verifies) and counts what it handed out; while it is active
# its module cannot be unloaded (the refusal changes nothing) and neither can fairq under it;
# switched away, it unloads and is gone everywhere; a second load works, and an unload started
# while it is active waits for nothing: it is refused until an admin switches.
. /fairq/lib.sh
. /fairq/fairqctl-lib.sh
M=/fairq/extra/fairq_extsched.ko
T=$FAIRQ_SYSFS/extfifo/max_waking
cleanup() {
	pkill -INT -x fio
	fairq_set_sched fifo 2>/dev/null
	rmmod fairq_extsched 2>/dev/null
}
trap cleanup EXIT
offered() { fairq_scheds | tr ' ' '\n' | grep -qx extfifo; }

insmod $M || fail "the policy module did not load"
offered || fail "extfifo is not offered once its module loaded: $(fairq_scheds)"
dmesg | grep -q 'scheduler extfifo offered by module fairq_extsched' || fail "no log line for the registration"
[ "$(cat $T)" = 0 ] || fail "extfifo's max_waking is $(cat $T), not its default 0"
fairq_expect_write_fails "$T" 33
fairqctl -j sched | fairq_json '[t["name"] for s in d["schedulers"] if s["name"] == "extfifo" for t in s["tunables"]]' |
	grep -q max_waking || fail "fairqctl sched does not list extfifo's tunable: $(fairqctl sched)"

fairq_fio_start
sleep 10
fairq_set_sched extfifo || fail "extfifo could not be selected"
[ "$(fairq_sched)" = extfifo ] || fail "the scheduler is $(fairq_sched), not extfifo"
echo 2 >"$T" || fail "extfifo's tunable refused 2 through sysfs"
fairqctl set extfifo.max_waking 3 || fail "fairqctl set extfifo.max_waking 3 failed"
[ "$(cat $T)" = 3 ] || fail "max_waking is $(cat $T) after fairqctl set 3"
sleep 5
picked=$(fairq_pool_sum picked)
[ "$picked" -gt 0 ] || fail "extfifo handed out nothing under load: $(cat "$FAIRQ_DEBUGFS/pools")"
fairqctl -j pools | fairq_json 'sum(p["sched_counters"].get("picked", 0) for p in d["pools"])' >/tmp/ext-picked ||
	fail "fairqctl pools failed under extfifo"
[ "$(cat /tmp/ext-picked)" -gt 0 ] || fail "fairqctl pools shows no picked counter under extfifo"

# active: its module stays, and so does fairq
rmmod fairq_extsched 2>/tmp/ext-rmmod && fail "the active policy's module unloaded"
[ "$(fairq_sched)" = extfifo ] || fail "a refused unload changed the scheduler to $(fairq_sched)"
[ -e "$T" ] || fail "a refused unload removed extfifo's tunables"
rmmod fairq 2>/dev/null && fail "fairq unloaded under a loaded policy module"
sleep 3
[ "$(fairq_pool_sum picked)" -gt "$picked" ] || fail "extfifo stopped handing out work after the refused unload"

# switched away under load: it unloads, and is gone from every interface
fairq_set_sched qfifo || fail "could not switch from extfifo to qfifo"
rmmod fairq_extsched || fail "extfifo's module did not unload once switched away"
offered && fail "extfifo is still offered after its module unloaded: $(fairq_scheds)"
[ -e "$FAIRQ_SYSFS/extfifo" ] && fail "extfifo's sysfs directory outlived its module"
fairqctl -j sched | fairq_json '[s["name"] for s in d["schedulers"]]' | grep -q extfifo &&
	fail "fairqctl sched still lists extfifo"
fairq_expect_write_fails "$FAIRQ_SYSFS/scheduler" extfifo
sleep 3
fairq_fio_stop
fairq_fio_retrans

# once more, unloaded while not active, and with the hooks off
insmod $M || fail "the policy module did not load a second time"
offered || fail "extfifo is not offered after the second load"
fairq_set_sched fifo
rmmod fairq_extsched || fail "extfifo's module did not unload while fifo was active"
offered && fail "extfifo is still offered after the second unload"
log "extfifo handed out $picked transports; unload refused while active, clean after a switch"
