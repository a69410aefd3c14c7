#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build (or reuse) a test kernel of one supported series: Debian's own kernel source of the
# very version the stock image runs, Debian's own config trimmed (localmodconfig) to the
# modules the guests load, plus tests/vm/test-kernel.config and the flavor's additions:
# tests/vm/debug.config (lockdep, KASAN, kmemleak, debug objects, fault injection, stall
# detectors) or tests/vm/kcsan.config (the data-race detector).  Built as Debian packages
# (linux-image and linux-headers) in a clean chroot of the series' own suite, with its
# compiler, so that DKMS builds fairq against it exactly as against the stock kernel.  Cached
# under ~/.cache/fairq/debug-kernel/SERIES-FLAVOR, keyed by the source version, this script,
# the config additions and the module list.
#
# usage: debug-kernel.sh SERIES-FLAVOR  (6.12-debug, 6.12-kcsan, ...; a bare SERIES means
#                                        SERIES-debug; prints the directory holding the debs)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

name=${1:?usage: debug-kernel.sh SERIES-FLAVOR}
[ -n "$(kernel_flavor "$name")" ] || name=$name-debug
kernel_valid "$name" || die "unknown test kernel '$name' (known: $KERNELS_DEBUG)"
series=$(kernel_series "$name")
flavor=$(kernel_flavor "$name")
need_root

# What the guests load (guest.sh packs their closure) and what the topology tests will add
# (RDMA through soft-RoCE, with the crc32 hash rxe needs; kTLS).  localmodconfig keeps these and
# drops every other module.
MODULES="nfsd nfsv3 nfsv4 nfs nfs_acl lockd grace sunrpc auth_rpcgss rpcsec_gss_krb5 netfs
dns_resolver veth bridge stp llc rpcrdma rdma_rxe ib_core ib_uverbs rdma_cm iw_cm ib_cm tls
ip6_udp_tunnel udp_tunnel nfsv4 nfs_localio crc32_generic"

base=$(bash "$FAIRQ_TOP/tests/vm/image.sh" "$series")
abi=$(cat "$base/abi")
srcver=$(tar -xOf "$base/base.tar" ./var/lib/dpkg/status |
	awk -v p="linux-image-$abi" '$1 == "Package:" { hit = ($2 == p) } hit && $1 == "Version:" && !v { v = $2 } END { print v }')
[ -n "$srcver" ] || die "kernel $series: no version of linux-image-$abi in the image"
srcpkg=linux-source-$series

# what the build is made of: the source, the recipe, the config additions, the module list
configs=("$FAIRQ_TOP/tests/vm/test-kernel.config" "$FAIRQ_TOP/tests/vm/$flavor.config")
key="$srcver $({ cat "$FAIRQ_TOP/tests/vm/debug-kernel-build.sh" "${configs[@]}"
	echo $MODULES; } | sha256sum | cut -c1-16)"
dir=$FAIRQ_CACHE/debug-kernel/$name
if [ -f "$dir/key" ] && [ "$(cat "$dir/key")" = "$key" ] && ls "$dir"/debs/linux-image-*.deb >/dev/null 2>&1; then
	say "kernel $name: $srcver (cached build)"
	echo "$dir/debs"
	exit 0
fi

mkdir -p "$FAIRQ_CACHE/debug-kernel"
exec 7>"$FAIRQ_CACHE/debug-kernel/.$name.lock"
flock 7

suite=$(kernel_suite "$series")
pkg_suite=$(kernel_pkg_suite "$series")
build=$dir.build
say "kernel $name: a $suite build chroot with $srcpkg $srcver"
rm -rf "$build"
mkdir -p "$build"
sources=("deb $FAIRQ_MIRROR $suite main" "deb $FAIRQ_MIRROR $suite-updates main"
	"deb ${FAIRQ_MIRROR%/debian}/debian-security $suite-security main")
[ "$pkg_suite" != "$suite" ] && sources+=("deb $FAIRQ_MIRROR $pkg_suite main")
pkgs=(build-essential bc bison flex libelf-dev libssl-dev cpio kmod rsync python3 dpkg-dev
	debhelper fakeroot openssl xz-utils zstd "$srcpkg=$srcver")
mmdebstrap --variant=minbase --mode=root --aptopt='Acquire::Retries "3"' \
	--aptopt='APT::Install-Recommends "false"' \
	--dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
	--include="$(IFS=,; echo "${pkgs[*]}")" \
	"$suite" "$build/root" "${sources[@]}" >"$build/mmdebstrap.log" 2>&1 || {
	tail -n 30 "$build/mmdebstrap.log" >&2
	die "mmdebstrap failed for the $name build chroot (log: $build/mmdebstrap.log)"
}

tar -xOf "$base/base.tar" "./boot/config-$abi" >"$build/root/tmp/config.debian" ||
	die "kernel $series: no config-$abi in the image"
for m in $MODULES; do printf '%s 0 0\n' "$m"; done >"$build/root/tmp/lsmod"
{ echo "Module Size Used by"; cat "$build/root/tmp/lsmod"; } >"$build/root/tmp/lsmod.txt"
# the flavor's own name on the kernel release (6.12.118-fairq-kcsan), then the additions
{ echo "CONFIG_LOCALVERSION=\"-fairq-$flavor\""; cat "${configs[@]}"; } | grep -v '^#' | grep . \
	>"$build/root/tmp/additions.config"

cp "$FAIRQ_TOP/tests/vm/debug-kernel-build.sh" "$build/root/tmp/build.sh"
say "kernel $name: building (localmodconfig + tests/vm/$flavor.config; about an hour on 2 cores)"
mount -t proc proc "$build/root/proc"
trap 'umount "$build/root/proc" 2>/dev/null || true' EXIT
chroot "$build/root" bash /tmp/build.sh "$srcver" "$flavor" >"$build/build.out" 2>&1 || {
	cat "$build/build.out" >&2
	die "kernel $name: the build failed (chroot $build/root, logs in /tmp)"
}
umount "$build/root/proc"
rm -rf "$dir.new"
mkdir -p "$dir.new/debs"
cp "$build"/root/tmp/linux-image-*.deb "$build"/root/tmp/linux-headers-*.deb "$dir.new/debs/"
rm -f "$dir.new"/debs/*-dbg_*.deb
cp "$build/root/tmp/"linux-source-*/.config "$dir.new/config"
echo "$key" >"$dir.new/key"
rm -rf "$dir" "$build"
mv "$dir.new" "$dir"
say "kernel $name: built ($(ls "$dir/debs" | tr '\n' ' '))"
echo "$dir/debs"
