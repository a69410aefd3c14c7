#!/bin/bash
# apt purge fairq-dkms fairqctl leaves nothing: no module in /lib/modules, no DKMS tree, no
# source, no /etc/fairq, no unit links; every path is one that was there before the install
# (the listing guest.sh made then), apart from what the boot and the harness create.
. /fairq/lib.sh
abi=$(uname -r)
[ -d /usr/src/fairq-"$(cat /fairq/pkg/version)" ] || [ -d /usr/src/fairq-"$(cat /fairq/pkg/version-next)" ] ||
	fail "no module source in /usr/src before the purge: nothing to test"
ls -d /var/lib/dkms/fairq /etc/fairq /lib/modules/"$abi"/updates/dkms/fairq.ko* >/dev/null || fail "the packages are not installed"
DEBIAN_FRONTEND=noninteractive apt-get purge -y -q fairq-dkms fairqctl >/tmp/apt.log 2>&1 ||
	{ cat /tmp/apt.log; fail "apt-get purge failed"; }
grep -E 'Deleting|Removing|Purging' /tmp/apt.log | sed 's/^/#   /'
[ "$(fairq_sched 2>/dev/null || echo unloaded)" != fq ] || fail "purge left the scheduler at fq"
for p in /var/lib/dkms/fairq /usr/src/fairq-* /etc/fairq /lib/modules/"$abi"/updates/dkms/fairq.ko* \
	/usr/sbin/fairq-apply /usr/sbin/fairqctl /etc/systemd/system/multi-user.target.wants/fairq.service; do
	[ ! -e "$p" ] && [ ! -L "$p" ] || fail "$p is left after the purge"
done
modinfo fairq >/dev/null 2>&1 && fail "modprobe still finds fairq: $(modinfo -n fairq)"
# what the boot (systemd-update-done's .updated), the tests (/mnt/nfs) and the harness itself
# create (fairq-load, installed after the listing), runtime state, and / (listed as "");
# and DKMS's own module signing key (trixie's dkms makes /var/lib/dkms/mok.key and mok.pub at
# its first build, for every module it ever signs: a package's purge must leave it)
find / -xdev -path /proc -prune -o -print | sort >/tmp/after
grep -vE '^/var/lib/dkms/mok\.(key|pub)$|^/(fairq|srv|root|tmp|run|var/(log|cache|tmp|lib/(apt|dpkg|systemd|nfs|dbus|private)))(/|$)|^/etc/systemd/system/fairq-vmtest.service$|^/usr/local/(bin/fairq-load|share/(bash-completion|man/man1)(/.*)?)$|^/mnt/nfs(/.*)?$|^/(etc|var)/\.updated$|^/$|^/etc/(machine-id|mtab|ld.so.cache)$|^/(dev|sys|proc)$' /tmp/after |
	comm -13 /fairq/pkg/files-before - >/tmp/left
if [ -s /tmp/left ]; then
	sed 's/^/#   left: /' /tmp/left | head -n 30
	fail "$(wc -l </tmp/left) paths that were not there before the install"
fi
log "$(wc -l </tmp/after) paths, none new but the harness's"
