#!/bin/bash
# A real boot, systemd as PID 1, with nfs-server.service and fairq.service enabled by their
# packages: /etc/fairq/fairq.conf (tests/vm/guest/systemd/root/) is in effect, scheduler,
# tunables and weights, and fairq.service started once nfs-server.service was up.  The file
# names fq by its old name, fairq, as a file written for 0.1 would.
. /fairq/lib.sh
. /fairq/fairqctl-lib.sh
[ "$(readlink /proc/1/exe)" = /usr/lib/systemd/systemd ] || [ "$(readlink /proc/1/exe)" = /lib/systemd/systemd ] ||
	fail "PID 1 is $(readlink /proc/1/exe), not systemd"
for u in nfs-server.service fairq.service; do
	[ "$(systemctl is-enabled "$u")" = enabled ] || fail "$u is not enabled: $(systemctl is-enabled "$u")"
	[ "$(systemctl is-active "$u")" = active ] || { systemctl status "$u" | sed 's/^/# /'; fail "$u is not active"; }
done
log "enabled by: $(ls /etc/systemd/system/multi-user.target.wants/ | grep -E 'nfs|fairq' | tr '\n' ' ')"

[ "$(fairq_sched)" = fq ] || fail "scheduler is $(fairq_sched), not fq"
[ "$(cat $FAIRQ_SYSFS/watchdog_ms)" = 250 ] || fail "watchdog_ms is $(cat $FAIRQ_SYSFS/watchdog_ms)"
[ "$(cat $FAIRQ_SYSFS/fq/quantum_us)" = 2500 ] || fail "fq.quantum_us is $(cat $FAIRQ_SYSFS/fq/quantum_us)"
[ "$(cat $FAIRQ_SYSFS/fq/idle_secs)" = 3600 ] || fail "fq.idle_secs is $(cat $FAIRQ_SYSFS/fq/idle_secs)"
journalctl -b -u fairq.service --no-pager -o cat | grep fairq-apply | sed 's/^/# /'
journalctl -b -u fairq.service -o cat | grep -q 'weight 10.99.0.0/24 = 2' || fail "no weight in fairq.service's log"
journalctl -b -u fairq.service -o cat | grep -q 'SCHEDULER=fairq: the scheduler is now called fq' ||
	fail "fairq.service's log does not say the old name changed"

# ordered after nfs-server.service, and started after it was up
systemctl show -p After fairq.service | grep -qw nfs-server.service || fail "fairq.service is not After=nfs-server.service"
nfs_up=$(systemctl show -p ActiveEnterTimestampMonotonic --value nfs-server.service)
fairq_start=$(systemctl show -p InactiveExitTimestampMonotonic --value fairq.service)
log "nfs-server active at ${nfs_up} us, fairq.service started at ${fairq_start} us (monotonic)"
[ "$nfs_up" -gt 0 ] && [ "$fairq_start" -ge "$nfs_up" ] || fail "fairq.service started before nfs-server.service was up"
[ "$(cat /proc/fs/nfsd/threads)" -gt 0 ] || fail "nfsd has no threads"

# the weights: a subnet rule for every client, a host rule above it for 10.99.0.12
for c in 1 2; do
	fairq_nfs "$c" 3 'dd if=/dev/zero of=f bs=64k count=16 conv=fsync 2>/dev/null && cat f >/dev/null && rm f' ||
		fail "client $c's NFS traffic failed"
done
fairqctl -j shares >/tmp/shares.json || fail "fairqctl shares failed"
python3 - /tmp/shares.json <<'PY' || fail "the weights of fairq.conf are not in effect: $(cat /tmp/shares.json)"
import json, sys
d = json.load(open(sys.argv[1]))
w = {k["key"]: k["weight"] for k in d["keys"]}
assert d["scheduler"] == "fq", d["scheduler"]
assert w.get("10.99.0.11") == 2 and w.get("10.99.0.12") == 5, w
print("# key weights: %s" % w)
PY

# The unit is sandboxed, and still did all of the above: systemd's own exposure score
exposure=$(systemd-analyze security --no-pager fairq.service 2>/dev/null |
	sed -n 's/.*Overall exposure level for fairq.service: \([0-9.]*\).*/\1/p')
[ -n "$exposure" ] || fail "systemd-analyze security gave no score: $(systemd-analyze security fairq.service 2>&1 | tail -n 3)"
log "systemd-analyze security fairq.service: exposure $exposure"
awk -v e="$exposure" 'BEGIN { exit !(e <= 3.0) }' ||
	fail "fairq.service's exposure is $exposure, above 3.0: $(systemd-analyze security --no-pager fairq.service | grep -v '✓' | head -n 30)"
