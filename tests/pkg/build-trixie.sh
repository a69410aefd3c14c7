#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The source package of build/pkg/ (make deb, which builds on this bookworm host) built again
# on trixie, as a Debian developer there would: `dpkg-buildpackage -us -uc` in a throwaway copy
# of the cached trixie userland (tests/vm/image.sh 6.12), with the build dependencies apt
# installs from the archive (trixie's debhelper, and dh-dkms, a package of its own there),
# then trixie's lintian on the result: errors and warnings fail, as in tools/pkg.sh lint.
#
# usage: tests/pkg/build-trixie.sh       (run as root, after make deb)
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/build/pkg
ver=$(sh "$top/tools/version.sh")
dsc=$out/fairq_${ver}.dsc

[ "$(id -u)" = 0 ] || { echo "build-trixie.sh: needs root (chroot, mount)" >&2; exit 1; }
[ -f "$dsc" ] || { echo "build-trixie.sh: no $dsc: make deb first" >&2; exit 1; }
img=$(bash "$top/tests/vm/image.sh" 6.12)

. "$top/tests/pkg/lib.sh"
scratch_root "$img"
cp /etc/resolv.conf "$root/etc/resolv.conf"
mkdir "$root/tmp/src"
# the .dsc and the files it lists
mapfile -t srcfiles < <(awk '/^Files:/ { f = 1; next } /^[^ ]/ { f = 0 } f { print dir "/" $3 }' dir="$out" "$dsc")
cp "$dsc" "${srcfiles[@]}" "$root/tmp/src/"
in_root() {
	chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 \
		DEBIAN_FRONTEND=noninteractive HOME=/root sh -ec "$1"
}

echo "# trixie: $(cat "$root/etc/debian_version"), building fairq $ver"
in_root "apt-get -q update >/dev/null
	cd /tmp/src && dpkg-source -x fairq_${ver}.dsc build >/dev/null
	apt-get -q -y --no-install-recommends build-dep ./build >/tmp/build-dep.log ||
		{ cat /tmp/build-dep.log; exit 1; }
	apt-get -q -y --no-install-recommends install lintian >/tmp/lintian-install.log ||
		{ cat /tmp/lintian-install.log; exit 1; }
	echo \"# debhelper \$(dpkg-query -W -f='\${Version}' debhelper), dh-dkms \$(dpkg-query -W -f='\${Version}' dh-dkms), lintian \$(dpkg-query -W -f='\${Version}' lintian)\"" ||
	{ echo "not ok - trixie: the build dependencies could not be installed"; exit 1; }

if in_root "cd /tmp/src/build && dpkg-buildpackage -us -uc" >"$tmp/build.log" 2>&1; then
	echo "ok 1 - trixie: dpkg-buildpackage -us -uc builds $(cd "$root/tmp/src" && echo ./*.deb | sed 's|\./||g')"
else
	tail -n 40 "$tmp/build.log" | sed 's/^/# /'
	echo "not ok 1 - trixie: dpkg-buildpackage -us -uc failed"
	exit 1
fi
# as tools/pkg.sh lint runs it: only the package's own overrides say why a tag is accepted
if in_root "cd /tmp/src && lintian --info --display-info --pedantic --fail-on error,warning \
	fairq_${ver}_amd64.changes" \
	>"$tmp/lintian.log" 2>&1; then
	sed 's/^/# /' "$tmp/lintian.log"
	echo "ok 2 - trixie: lintian reports no error or warning"
else
	sed 's/^/# /' "$tmp/lintian.log"
	echo "not ok 2 - trixie: lintian"
	exit 1
fi
