#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The packages in build/pkg/ installed as on a server, in a throwaway copy of a cached Debian
# userland that has a distribution kernel's headers and DKMS (tests/vm/image.sh): DKMS must
# build fairq for that kernel's ABI.  Then removal, purge, and the RPM's own %post/%preun run
# on its payload against the same headers (no RHEL or Fedora kernel can be fetched here).
# Nothing is loaded: the host cannot load modules.
#
# usage: tests/pkg/dkms-install.sh [KERNEL]       (default 6.12; run as root, after make deb rpm)
#        FAIRQ_PKG_IMAGE=DIR tests/pkg/dkms-install.sh   use an image directory as it is
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/build/pkg
ver=$(sh "$top/tools/version.sh")
kernel=${1:-6.12}

[ "$(id -u)" = 0 ] || { echo "dkms-install.sh: needs root (chroot, mount)" >&2; exit 1; }
img=${FAIRQ_PKG_IMAGE:-$(bash "$top/tests/vm/image.sh" "$kernel")}
abi=$(cat "$img/abi")
deb=$(find "$out" -maxdepth 1 -name "fairq-dkms_${ver}_all.deb" | head -n 1)
ctl=$(find "$out" -maxdepth 1 -name "fairqctl_${ver}_*.deb" | head -n 1)
rpmf=$(find "$out" -maxdepth 1 -name "fairq-dkms-${ver}-*.noarch.rpm" | head -n 1)
if [ -z "$deb" ] || [ -z "$ctl" ] || [ -z "$rpmf" ]; then
	echo "dkms-install.sh: make deb rpm first" >&2
	exit 1
fi

. "$top/tests/pkg/lib.sh"
scratch_root "$img"

in_root() {
	chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 sh -c "$1"
}
moddir() {
	if [ -d "$root/usr/lib/modules/$abi" ]; then echo "/usr/lib/modules/$abi"; else echo "/lib/modules/$abi"; fi
}
installed_for_abi() {
	if ! in_root "dkms status fairq" | grep -q "^fairq/$ver, $abi, [^:]*: installed"; then
		tail -n 30 "$root"/var/lib/dkms/fairq/"$ver"/build/make.log 2>/dev/null
	fi
	in_root "dkms status fairq" | tee /dev/stderr | grep -q "^fairq/$ver, $abi, [^:]*: installed" &&
		in_root "modinfo -F vermagic $(moddir)/updates/dkms/fairq.ko*" | tee /dev/stderr |
		grep -q "^$abi "
}
not_registered() {
	[ -z "$(in_root 'dkms status fairq' | tee /dev/stderr)" ] &&
		! ls "$root$(moddir)/updates/dkms/fairq.ko"* 2>/dev/null
}

deb_install() {
	in_root "DEBIAN_FRONTEND=noninteractive apt-get install -y /tmp/${deb##*/} /tmp/${ctl##*/}"
}
deb_apply_nothing() {
	chroot "$root" fairq-apply | tee /dev/stderr | grep -q 'sets nothing'
}
deb_remove() {
	in_root "apt-get remove -y fairq-dkms" && not_registered
}
# Purge takes what the packages shipped, and leaves what the admin put in /etc/fairq.
deb_purge() {
	echo "SCHEDULER=qfifo" >"$root/etc/fairq/site.conf"
	in_root "apt-get purge -y fairq-dkms fairqctl" && [ ! -e "$root/etc/fairq/fairq.conf" ] &&
		[ "$(ls -A "$root/etc/fairq")" = site.conf ] && rm -r "$root/etc/fairq"
}
# excluded KERNEL [ARCH]: DKMS skips KERNEL (for ARCH) with its BUILD_EXCLUSIVE message and
# builds nothing for it
excluded() {
	local rc sel="-k $1${2:+ -a $2}"
	in_root "dkms build fairq/$ver $sel" >"$tmp/x.out" 2>&1
	rc=$?
	cat "$tmp/x.out"
	echo "# exit $rc"
	# status lines are "fairq/VERSION, KERNEL, ARCH: STATE"
	[ "$rc" != 0 ] && grep -q 'BUILD_EXCLUSIVE' "$tmp/x.out" &&
		! in_root "dkms status fairq" | grep -qF ", $1, ${2:-}"
}
# excluded_kernel NAME CONFIG-EDIT: as excluded, for a kernel NAME whose headers are the
# image's with their .config passed through CONFIG-EDIT
excluded_kernel() {
	local k=$1 edit=$2 rc=0
	[ "$k" != "$abi" ] || return 1
	rm -rf "$root/tmp/x-headers" "$root$(moddir)/../$k"
	mkdir -p "$root/tmp/x-headers" "$root$(moddir)/../$k"
	in_root "cat $(moddir)/build/.config" | sh -c "$edit" >"$root/tmp/x-headers/.config"
	ln -s /tmp/x-headers "$root$(moddir)/../$k/build"
	excluded "$k" || rc=1
	rm -rf "${root:?}$(moddir)/../$k" "$root/tmp/x-headers"
	return $rc
}

# scriptlet NAME ARG: run an RPM scriptlet as rpm does, with the image's kernel as the
# running one (the scriptlets build for "uname -r"; here that is the host's, without headers).
scriptlet() {
	in_root "PATH=/tmp/fake-uname:\$PATH sh /tmp/$1 $2"
}
rpm_install() {
	scriptlet post 1 && installed_for_abi
}
rpm_same_version_upgrade() {
	scriptlet post 2 && scriptlet preun 1 && installed_for_abi
}
rpm_erase() {
	scriptlet preun 0 && not_registered
}

# shellcheck disable=SC2016 # ${Version} is dpkg-query's
echo "# $kernel: $abi, dkms $(chroot "$root" dpkg-query -W -f='${Version}' dkms)"
cp "$deb" "$ctl" "$root/tmp/"
check "deb: apt installs fairq-dkms and fairqctl offline (dkms, kmod, libnl come from the image)" deb_install
check "deb: DKMS built and installed fairq for $abi" installed_for_abi
# fairq's ftrace callbacks take locks that sleep on PREEMPT_RT
check "deb: DKMS skips a PREEMPT_RT kernel with its BUILD_EXCLUSIVE message" \
	excluded_kernel "$abi-rt-test" "grep -v '^CONFIG_PREEMPT'; echo CONFIG_PREEMPT_RT=y"
check "deb: DKMS skips a kernel before 6.1 with its BUILD_EXCLUSIVE message" \
	excluded_kernel 5.10.0-99-amd64 cat
check "deb: DKMS skips an architecture but x86_64 with its BUILD_EXCLUSIVE message" \
	excluded "$abi" aarch64
echo "# $(in_root 'dkms status fairq')"
check "deb: fairq.service is enabled for multi-user.target" \
	test -L "$root/etc/systemd/system/multi-user.target.wants/fairq.service"
check "deb: fairq-apply with the shipped configuration does nothing" deb_apply_nothing
check "deb: remove unregisters fairq from DKMS and deletes the module" deb_remove
check "deb: purge removes what the packages shipped in /etc/fairq, and only that" deb_purge

# The RPM payload and scriptlets, against the same headers.
(cd "$root" && rpm2cpio "$rpmf" | cpio -idmu --quiet)
rpm -qp --qf '%{POSTIN}\n' "$rpmf" >"$root/tmp/post" 2>/dev/null
rpm -qp --qf '%{PREUN}\n' "$rpmf" >"$root/tmp/preun" 2>/dev/null
mkdir -p "$root/tmp/fake-uname"
printf '#!/bin/sh\n[ "$*" = -r ] && echo %s || exec /usr/bin/uname "$@"\n' "$abi" >"$root/tmp/fake-uname/uname"
chmod +x "$root/tmp/fake-uname/uname"
check "rpm: %post (install) registers, builds and installs fairq for $abi" rpm_install
echo "# $(in_root 'dkms status fairq')"
check "rpm: a same-version upgrade (new %post, old %preun 1) keeps fairq installed" \
	rpm_same_version_upgrade
check "rpm: %preun (erase) removes fairq from DKMS" rpm_erase

echo "1..$n"
echo "$pass passed, $failed failed"
[ "$failed" = 0 ]
