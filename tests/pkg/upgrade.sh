#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A server on release 0.1.0, the last before the tools, unit, configuration and docs moved from
# fairq-dkms to fairqctl, upgraded with apt to this tree's packages (build/pkg/): the real
# 0.1.0 packages, built from that release's commit, in a throwaway copy of a cached Debian
# userland with a distribution kernel's headers and DKMS (tests/vm/image.sh).  Twice: with
# fairq.service as installed (enabled), and disabled by the admin.  The admin's fairq.conf must
# survive, the files must change owner without a conflict, DKMS must hold only the new module,
# and the unit must stay as the admin left it.  Nothing is loaded: the host cannot load
# modules (the VM suite's systemd boot upgrades a running server).
#
# usage: tests/pkg/upgrade.sh [KERNEL]       (default 6.12; run as root, after make deb)
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/build/pkg
ver=$(sh "$top/tools/version.sh")
kernel=${1:-6.12}
release=0.1.0
release_commit=f7f1e2606caf1c143987c7e28a307a8e27f0e06a
cache=${FAIRQ_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fairq}/pkg-release/$release-${release_commit:0:12}

die() {
	echo "upgrade.sh: $*" >&2
	exit 1
}

[ "$(id -u)" = 0 ] || die "needs root (chroot, mount)"
deb=$(find "$out" -maxdepth 1 -name "fairq-dkms_${ver}_all.deb" | head -n 1)
ctl=$(find "$out" -maxdepth 1 -name "fairqctl_${ver}_*.deb" | head -n 1)
[ -n "$deb" ] && [ -n "$ctl" ] || die "make deb first"

# The release's packages, built once from its commit and kept: a clone without that history
# (a shallow one) gets it from where it was cloned from.
if ! ls "$cache"/fairqctl_"${release}"_*.deb >/dev/null 2>&1; then
	if ! git -C "$top" cat-file -e "$release_commit^{commit}" 2>/dev/null; then
		git -C "$top" fetch -q --unshallow 2>/dev/null || true
		git -C "$top" cat-file -e "$release_commit^{commit}" 2>/dev/null ||
			die "release $release's commit ${release_commit:0:12} is not in this clone's history"
	fi
	echo "# building release $release's packages from ${release_commit:0:12} (once)"
	src=$(mktemp -d /var/tmp/fairq-release.XXXXXX)
	trap 'rm -rf "$src"' EXIT
	git -C "$top" archive "$release_commit" | tar -xf - -C "$src"
	mkdir -p "$cache.tmp"
	(cd "$src" && FAIRQ_PKG_OUT=$cache.tmp bash tools/pkg.sh deb) >"$src/build.log" 2>&1 || {
		tail -n 30 "$src/build.log" >&2
		die "release $release's packages did not build"
	}
	rm -rf "$cache"
	mv "$cache.tmp" "$cache"
	rm -rf "$src"
	trap - EXIT
fi
old_deb=$cache/fairq-dkms_${release}_all.deb
old_ctl=$(ls "$cache"/fairqctl_"${release}"_*.deb)

img=$(bash "$top/tests/vm/image.sh" "$kernel")
abi=$(cat "$img/abi")
. "$top/tests/pkg/lib.sh"

in_root() {
	chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 \
		DEBIAN_FRONTEND=noninteractive sh -c "$1"
}
# registered VERSION: DKMS has fairq VERSION installed for the image's kernel
registered() {
	in_root "dkms status fairq" | tee -a /dev/stderr | grep -q "^fairq/$1, $abi, [^:]*: installed"
}
unit_enabled() {
	test -L "$root/etc/systemd/system/multi-user.target.wants/fairq.service"
}
not() {
	! "$@"
}

install_release() {
	cp "$old_deb" "$old_ctl" "$deb" "$ctl" "$root/tmp/"
	in_root "apt-get install -y -q /tmp/${old_deb##*/} /tmp/${old_ctl##*/}" &&
		registered "$release" && unit_enabled
}
# the admin's own line in fairq.conf, which the upgrade must keep
admin_edits() {
	echo "# site: render farm, set by the admin" >>"$root/etc/fairq/fairq.conf"
}
upgrade() {
	in_root "apt-get install -y -q /tmp/${deb##*/} /tmp/${ctl##*/}" >"$tmp/apt.log" 2>&1
	local rc=$?
	cat "$tmp/apt.log"
	[ $rc = 0 ] && ! grep -q 'trying to overwrite' "$tmp/apt.log"
}
only_new_module() {
	registered "$ver" && ! in_root "dkms status fairq" | grep -q "^fairq/$release,"
}
conf_kept() {
	echo "fairq.conf ends:"
	tail -n 3 "$root/etc/fairq/fairq.conf"
	echo "fairq-dkms's conffiles:"
	in_root "dpkg-query -W -f='\${Conffiles}\n' fairq-dkms"
	echo "fairqctl's conffiles:"
	grep -qx '# site: render farm, set by the admin' "$root/etc/fairq/fairq.conf" &&
		in_root "dpkg-query -W -f='\${Conffiles}\n' fairqctl" | tee -a /dev/stderr |
		grep -q '^ /etc/fairq/fairq.conf [0-9a-f]*$'
}
# dpkg keeps fairq-dkms's old claim on fairq.conf (listed "obsolete"): its purge must not take
# the file fairqctl has now
purge_dkms_keeps_conf() {
	in_root "apt-get purge -y -q fairq-dkms" &&
		grep -qx '# site: render farm, set by the admin' "$root/etc/fairq/fairq.conf"
}
# the tools, unit and docs are fairqctl's now; fairq-dkms has the module source only
owners_moved() {
	local f
	for f in /usr/sbin/fairq-apply /etc/fairq/fairq.conf /usr/lib/systemd/system/fairq.service; do
		[ -e "$root$f" ] || [ -e "$root${f#/usr}" ] || { echo "$f is gone"; return 1; }
		in_root "dpkg -S $f 2>/dev/null || dpkg -S ${f#/usr}" | tee -a /dev/stderr | grep -q '^fairqctl:' ||
			return 1
	done
	! in_root "dpkg -L fairq-dkms" | grep -v -e '^/usr/src' -e '^/usr/share/doc' \
		-e '^/usr/share/lintian' -e '^/\.$' -e '^/usr$' -e '^/usr/share$' |
		tee -a /dev/stderr | grep -q .
}
release_disabled() {
	install_release && chroot "$root" systemctl disable fairq.service && ! unit_enabled
}

echo "# $kernel: $abi; release $release (${release_commit:0:12}) -> $ver"
scratch_root "$img"
check "$release: apt installs fairq-dkms and fairqctl, DKMS builds it, the unit is enabled" \
	install_release
admin_edits
check "$release -> $ver: apt upgrades both, no file conflict" upgrade
check "DKMS holds $ver for $abi and no longer $release" only_new_module
check "the admin's fairq.conf is kept, a conffile of fairqctl now" conf_kept
check "fairq-apply, fairq.conf and the unit belong to fairqctl; fairq-dkms has the source only" \
	owners_moved
check "fairq.service is still enabled" unit_enabled
check "fairq-apply with the admin's configuration sets nothing" \
	sh -c "chroot '$root' fairq-apply | tee -a /dev/stderr | grep -q 'sets nothing'"
check "purging fairq-dkms then leaves the admin's fairq.conf to fairqctl" purge_dkms_keeps_conf
umount "$root/proc"
rm -rf "$tmp"
trap - EXIT

scratch_root "$img"
check "$release again, and the admin disables fairq.service" release_disabled
check "$release -> $ver with the unit disabled" upgrade
check "DKMS holds $ver for $abi and no longer $release" only_new_module
check "fairq.service stays disabled" not unit_enabled

echo "1..$n"
echo "$pass passed, $failed failed"
[ "$failed" = 0 ]
