#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Runs inside a test kernel's build chroot (tests/vm/debug-kernel.sh copies it there):
# Debian's config trimmed to the guests' modules, the flavor's additions, then the packages.
# usage: debug-kernel-build.sh DEBIAN-VERSION FLAVOR
set -eu
cd /tmp
tar -xaf /usr/src/linux-source-*.tar.xz
cd linux-source-*/
cp /tmp/config.debian .config
yes '' | make -s LSMOD=/tmp/lsmod.txt localmodconfig >/tmp/localmodconfig.log 2>&1
while IFS='=' read -r name val; do
	case "$val" in
	y) scripts/config --enable "$name" ;;
	n) scripts/config --disable "$name" ;;
	\"*) val=${val#\"}; scripts/config --set-str "$name" "${val%\"}" ;;
	*) scripts/config --set-val "$name" "$val" ;;
	esac
done </tmp/additions.config
make -s olddefconfig
# every addition must have landed: a dependency the trimmed config lacks fails here, by name
bad=0
while IFS='=' read -r name val; do
	case "$val" in
	n) ! grep -q "^$name=" .config || { echo "still set: $name"; bad=1; } ;;
	*) grep -qx "$name=$val" .config || { echo "not set: $name=$val ($(grep "$name[= ]" .config))"; bad=1; } ;;
	esac
done </tmp/additions.config
[ "$bad" = 0 ]
make -j"$(nproc)" bindeb-pkg KDEB_PKGVERSION="$1+fairq$2" >/tmp/build.log 2>&1 || {
	tail -n 40 /tmp/build.log
	exit 1
}
