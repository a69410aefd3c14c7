#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build (or reuse) the cached base image for one kernel series: a Debian userland made by
# mmdebstrap with the distribution kernel, its headers, DKMS, nfs-utils and fio installed exactly
# as on a user's server.  The newest ABI of the series is resolved from Debian's archive each run;
# the cached image is rebuilt only when that ABI moved.
#
# usage: image.sh KERNEL        (prints the image directory on stdout)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kernel=${1:?usage: image.sh KERNEL}
kernel_valid "$kernel" || die "unknown kernel series '$kernel' (known: $KERNELS_ALL)"
need_root

suite=$(kernel_suite "$kernel")
pkg_suite=$(kernel_pkg_suite "$kernel")

# The newest ABI of the series: what the suite's linux-image-amd64 metapackage points at.
resolve_abi() {
	local ver origin dep best="" best_abi=""
	while IFS='|' read -r _ ver origin; do
		ver=${ver// /}
		origin=$(echo "$origin" | awk '{print $2}')
		case "${origin%%/*}" in
		"$pkg_suite" | "$pkg_suite-updates" | "$pkg_suite-security") ;;
		*) continue ;;
		esac
		dep=$(apt_cache_private show "linux-image-amd64=$ver" 2>/dev/null |
			sed -n 's/^Depends: //p' | head -n1 | tr ',' '\n' |
			sed -n 's/^ *linux-image-\([^ ]*-amd64\).*/\1/p' | head -n1)
		case "$dep" in
		"$kernel".*) ;;
		*) continue ;;
		esac
		if [ -z "$best" ] || dpkg --compare-versions "$ver" gt "$best"; then
			best=$ver
			best_abi=$dep
		fi
	done < <(apt_cache_private madison linux-image-amd64)
	[ -n "$best_abi" ] || die "no linux-image-amd64 of series $kernel found in $pkg_suite"
	echo "$best_abi"
}

mkdir -p "$FAIRQ_CACHE"
exec 9>"$FAIRQ_CACHE/.image-$kernel.lock"
flock 9

# A test kernel's image (SERIES-debug, SERIES-kcsan) is its series' image with that kernel's
# packages installed in place of the stock headers (so that DKMS builds fairq for it alone).
flavor=$(kernel_flavor "$kernel")
if [ -n "$flavor" ]; then
	series=$(kernel_series "$kernel")
	base=$(bash "$FAIRQ_TOP/tests/vm/image.sh" "$series")
	kdebs=$(bash "$FAIRQ_TOP/tests/vm/debug-kernel.sh" "$kernel")
	key="$(cat "$base/key") $flavor $(cat "$kdebs"/*.deb | sha256sum | cut -c1-16)"
	dir=$(image_dir "$kernel")
	if [ -f "$dir/key" ] && [ "$(cat "$dir/key")" = "$key" ] && [ -f "$dir/base.tar" ]; then
		say "kernel $kernel: $(cat "$dir/abi") (cached image)"
		echo "$dir"
		exit 0
	fi
	say "kernel $kernel: installing the $flavor kernel's packages in the $series image"
	rm -rf "$dir.new"
	mkdir -p "$dir.new/root/tmp/kdebs"
	tar -xf "$base/base.tar" -C "$dir.new/root"
	cp "$kdebs"/*.deb "$dir.new/root/tmp/kdebs/"
	stock=$(cat "$base/abi")
	chroot "$dir.new/root" sh -c "dpkg -i /tmp/kdebs/*.deb &&
		dpkg -P --force-depends linux-headers-amd64 linux-headers-$stock" >"$dir.new/install.log" 2>&1 || {
		cat "$dir.new/install.log" >&2
		die "kernel $kernel: the $flavor kernel's packages did not install"
	}
	rm -rf "$dir.new/root/tmp/kdebs"
	abi=""
	for f in "$dir.new"/root/boot/vmlinuz-*-fairq-"$flavor"; do
		[ -f "$f" ] && abi=${f##*/vmlinuz-}
	done
	[ -n "$abi" ] || die "kernel $kernel: no $flavor kernel in the image"
	tar -C "$dir.new/root" -cf "$dir.new/base.tar" .
	rm -rf "$dir.new/root"
	echo "$abi" >"$dir.new/abi"
	echo "$key" >"$dir.new/key"
	rm -rf "$dir"
	mv "$dir.new" "$dir"
	say "kernel $kernel: image ready ($abi)"
	echo "$dir"
	exit 0
fi

# the private index is shared by all kernels: one refresh at a time
exec 8>"$FAIRQ_CACHE/.apt.lock"
flock 8
refresh_indexes
abi=$(resolve_abi)
flock -u 8
# systemd: the packaging tests boot it as PID 1, as on a server (bookworm's minbase lacks it).
pkgs=(
	nfs-kernel-server nfs-common rpcbind fio kmod iproute2 procps busybox util-linux
	psmisc dkms build-essential sparse pkgconf libnl-3-dev libnl-genl-3-dev libnl-3-200 libnl-genl-3-200
	systemd systemd-sysv python3-prometheus-client python3-yaml python3-jsonschema trace-cmd bpftrace
	"linux-image-$abi" "linux-headers-$abi"
)
# NFS over TLS (tests/vm/guest/tests/57-tls.sh): tlshd and a certificate made in the guest;
# bookworm has no ktls-utils, and 6.1 no TLS for NFS.
[ "$suite" != bookworm ] && pkgs+=(ktls-utils openssl)
# A backports kernel needs the backports linux-base (its PreDepends); nothing else moves.
[ "$pkg_suite" != "$suite" ] && pkgs+=("linux-base/$pkg_suite")
# The image is rebuilt when the ABI or the package list changes.
key="$abi $(echo "${pkgs[*]}" | sha256sum | cut -c1-12)"
dir=$(image_dir "$kernel")
if [ -f "$dir/key" ] && [ "$(cat "$dir/key")" = "$key" ] && [ -f "$dir/base.tar" ]; then
	say "kernel $kernel: $abi (cached image)"
	echo "$dir"
	exit 0
fi

say "kernel $kernel: $abi (building the $suite userland with mmdebstrap, a few minutes)"
rm -rf "$dir.new"
mkdir -p "$dir.new"
mapfile -t srcs < <(sources_for "$suite")
# The kernel packages' own initramfs is never booted (the harness builds its own), so the
# hook that makes it is turned off to save minutes under mmdebstrap.
mmdebstrap --variant=minbase --mode=root --aptopt='Acquire::Retries "3"' \
	--aptopt='APT::Install-Recommends "false"' \
	--dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
	--dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
	--dpkgopt='force-confold' --dpkgopt='force-confdef' \
	--setup-hook='mkdir -p "$1/etc/initramfs-tools"; printf "update_initramfs=no\n" > "$1/etc/initramfs-tools/update-initramfs.conf"' \
	--include="$(
		IFS=,
		echo "${pkgs[*]}"
	)" \
	"$suite" "$dir.new/base.tar" "${srcs[@]}" >"$dir.new/mmdebstrap.log" 2>&1 ||
	{
		tail -n 30 "$dir.new/mmdebstrap.log" >&2
		die "mmdebstrap failed for kernel $kernel (log: $dir.new/mmdebstrap.log)"
	}
echo "$abi" >"$dir.new/abi"
echo "$key" >"$dir.new/key"
rm -rf "$dir"
mv "$dir.new" "$dir"
say "kernel $kernel: image ready ($(du -sh "$dir/base.tar" | cut -f1))"
echo "$dir"
