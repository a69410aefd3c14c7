#!/bin/bash
# apt upgrades fairq-dkms and fairqctl to the next release while nfsd serves clients under the
# configured scheduler: no I/O error, the scheduler, tunables and weights stay, the loaded
# module stays the old one and fairq.service is not restarted; the new module is installed
# and taken on the next load (here: stop the unit, rmmod, start the unit).
. /fairq/lib.sh
old=$(cat /fairq/pkg/version)
new=$(cat /fairq/pkg/version-next)
[ -n "$new" ] || fail "the guest has no next release (FAIRQ_DEBS_NEXT)"
[ "$(cat /sys/module/fairq/version)" = "$old" ] || fail "loaded fairq is $(cat /sys/module/fairq/version), not $old"
[ "$(fairq_sched)" = fq ] || fail "scheduler is $(fairq_sched) before the upgrade, expected fq (fairq.conf)"
since=$(systemctl show -p InactiveExitTimestampMonotonic --value fairq.service)
nfs_since=$(systemctl show -p InactiveExitTimestampMonotonic --value nfs-server.service)

# the compile is done on the host (guest.sh): the postinst loads it with dkms ldtarball
mkdir /usr/share/fairq-dkms
cp "/fairq/pkg/fairq-$new.dkms.tar.gz" /usr/share/fairq-dkms/

# A steady stream of verified I/O, not a flood: under TCG the guest's CPUs are slow, and every
# I/O the clients add is CPU taken from apt and DKMS (at 2 jobs of 25 IOPS per client apt took
# 272 s instead of 80 s on 6.12).  What counts is that I/O never stops or fails while it runs.
fio_job() {
	echo "fio --name=c$1 --size=2m --bs=4k --rw=randrw --ioengine=psync --direct=1 \
		--numjobs=1 --rate_iops=10 --time_based --runtime=3600 --verify=crc32c --do_verify=1 \
		--verify_fatal=1 --minimal --exitall_on_error"
}
base1=$(fairq_retrans 1)
base2=$(fairq_retrans 2)
fairq_nfs 1 3 "$(fio_job 1)" >/tmp/fio1 2>&1 &
p1=$!
fairq_nfs 2 3 "$(fio_job 2)" >/tmp/fio2 2>&1 &
p2=$!
sleep 5
start=$(date +%s)
# every line of apt's output stamped with the seconds since the start: where the time goes
t0=${EPOCHREALTIME/./}
{ DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
	"/fairq/pkg/fairq-dkms_${new}_all.deb" "/fairq/pkg/fairqctl_${new}_amd64.deb" 2>&1; echo "apt-exit $?"; } |
	while IFS= read -r l; do
		t=$((${EPOCHREALTIME/./} - t0))
		printf '%4d.%02d %s\n' $((t / 1000000)) $((t % 1000000 / 10000)) "$l"
	done >/tmp/apt.log
grep -q ' apt-exit 0$' /tmp/apt.log || { cat /tmp/apt.log; fail "apt-get install of $new failed"; }
log "apt upgraded to $new in $(($(date +%s) - start)) s under load"
sed 's/^/#   /' /tmp/apt.log
journalctl -b _PID=1 -o short-monotonic --no-pager | grep -E 'Reloading' | sed 's/^/#   /'
grep -q 'Building initial module' /tmp/apt.log && fail "the postinst compiled instead of loading the host's build"
sleep 3
kill -0 $p1 && kill -0 $p2 || { cat /tmp/fio1 /tmp/fio2; fail "a fio client died during the upgrade"; }
pkill -INT -x fio
wait $p1
wait $p2
for c in 1 2; do
	grep -q '^3;' /tmp/fio$c || { cat /tmp/fio$c; fail "client $c: fio did not report"; }
	errs=$(grep '^3;' /tmp/fio$c | cut -d';' -f5 | sort -u | tr '\n' ' ')
	[ "$errs" = "0 " ] || { cat /tmp/fio$c; fail "client $c: fio error code(s) $errs"; }
done
r=$(($(fairq_retrans 1) - base1 + $(fairq_retrans 2) - base2))
[ "$r" = 0 ] || fail "$r RPC retransmissions during the upgrade"
rm -r /usr/share/fairq-dkms

# nothing of the running server was touched
[ "$(fairq_sched)" = fq ] || fail "the upgrade switched the scheduler to $(fairq_sched)"
[ "$(cat $FAIRQ_SYSFS/fq/quantum_us)" = 2500 ] || fail "the upgrade reset fq.quantum_us"
[ "$(cat /sys/module/fairq/version)" = "$old" ] || fail "the loaded module changed to $(cat /sys/module/fairq/version)"
[ "$(systemctl show -p InactiveExitTimestampMonotonic --value fairq.service)" = "$since" ] ||
	fail "the upgrade restarted fairq.service"
[ "$(systemctl show -p InactiveExitTimestampMonotonic --value nfs-server.service)" = "$nfs_since" ] || fail "the upgrade restarted nfs-server"
[ "$(systemctl is-active fairq.service)" = active ] || fail "fairq.service is not active after the upgrade"
cmp -s /etc/fairq/fairq.conf /fairq/systemd/root/etc/fairq/fairq.conf || fail "the upgrade changed /etc/fairq/fairq.conf"
dkms status fairq | sed 's/^/# /'
dkms status -m fairq -v "$new" -k "$(uname -r)" | grep -q ': installed' || fail "DKMS did not install $new"
[ -z "$(dkms status -m fairq -v "$old")" ] || fail "DKMS still has $old"
[ "$(modinfo -F version fairq)" = "$new" ] || fail "the installed fairq.ko is $(modinfo -F version fairq), not $new"

# a restart of the unit alone re-applies the file to the loaded (old) module
systemctl restart fairq.service || fail "systemctl restart fairq failed"
[ "$(fairq_sched)" = fq ] && [ "$(cat /sys/module/fairq/version)" = "$old" ] ||
	fail "after a restart: $(fairq_sched), module $(cat /sys/module/fairq/version)"
# the explicit reload: the new module, with the configuration applied again
systemctl stop fairq.service || fail "systemctl stop fairq failed"
[ "$(fairq_sched)" = fifo ] || fail "stopping fairq.service left $(fairq_sched)"
rmmod fairq || fail "rmmod fairq failed with nfsd running under fifo"
systemctl start fairq.service || { journalctl -b -u fairq.service -o cat | tail -5; fail "start fairq failed"; }
[ "$(cat /sys/module/fairq/version)" = "$new" ] || fail "after the reload fairq is $(cat /sys/module/fairq/version)"
[ "$(fairq_sched)" = fq ] && [ "$(cat $FAIRQ_SYSFS/fq/quantum_us)" = 2500 ] ||
	fail "after the reload: scheduler $(fairq_sched), quantum_us $(cat $FAIRQ_SYSFS/fq/quantum_us)"
fairq_nfs 1 3 'dd if=/dev/zero of=f bs=64k count=16 conv=fsync 2>/dev/null && rm f' || fail "NFS I/O after the reload failed"
log "module $old -> $new; scheduler $(fairq_sched) throughout"
