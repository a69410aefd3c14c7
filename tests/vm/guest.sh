#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Turn the cached base image of one kernel into a bootable guest with this tree installed:
# the module source is registered and built by DKMS inside the Debian userland (exactly as on a
# user's server), then the userland, the kernel modules nfsd needs and the test suite are packed
# into an uncompressed initramfs.
#
# usage: guest.sh KERNEL OUTDIR     (writes OUTDIR/vmlinuz, OUTDIR/initrd, OUTDIR/abi)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kernel=${1:?usage: guest.sh KERNEL OUTDIR}
out=${2:?usage: guest.sh KERNEL OUTDIR}
need_root

img=$(bash "$FAIRQ_TOP/tests/vm/image.sh" "$kernel")
abi=$(cat "$img/abi")
ver=$(bash "$FAIRQ_TOP/tools/version.sh")

# The pristine userland, unpacked once per image; each run writes to an overlay on top.
if [ ! -f "$img/root.stamp" ] || [ "$img/base.tar" -nt "$img/root.stamp" ]; then
	say "kernel $kernel: unpacking the userland"
	rm -rf "$img/root"
	mkdir -p "$img/root"
	tar -xf "$img/base.tar" -C "$img/root"
	touch "$img/root.stamp"
fi

rm -rf "$out"
mkdir -p "$out/upper" "$out/work" "$out/merged" "$out/mods"
merged=$out/merged
cleanup() {
	umount "$merged/proc" 2>/dev/null || true
	umount "$merged" 2>/dev/null || true
}
trap cleanup EXIT
mount -t overlay overlay -o "lowerdir=$img/root,upperdir=$out/upper,workdir=$out/work" "$merged"
mount -t proc proc "$merged/proc"	# 7.x objtool reads /proc

# The packages of this tree (tools/pkg.sh deb, FAIRQ_DEBS), installed with apt as an admin
# would: fairq-dkms's postinst has DKMS build the module for the guest's kernel.
debs=${FAIRQ_DEBS:-$FAIRQ_TOP/build/pkg}
[ -f "$debs/fairq-dkms_${ver}_all.deb" ] && [ -f "$debs/fairqctl_${ver}_amd64.deb" ] ||
	die "no packages of version $ver in $debs (make deb)"
say "kernel $kernel: apt install fairq-dkms and fairqctl $ver (DKMS builds for $abi)"
mkdir -p "$merged/tmp/debs"
cp "$debs/fairq-dkms_${ver}_all.deb" "$debs/fairqctl_${ver}_amd64.deb" "$merged/tmp/debs/"
if ! chroot "$merged" sh -c "DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
	/tmp/debs/fairq-dkms_${ver}_all.deb /tmp/debs/fairqctl_${ver}_amd64.deb &&
	dkms status -m fairq -v $ver -k $abi | grep -q installed" >"$out/dkms.log" 2>&1; then
	cat "$out/dkms.log" >&2
	find "$merged/var/lib/dkms/fairq" -name make.log -exec cat {} + >&2 2>/dev/null || true
	die "kernel $kernel: the fairq-dkms package did not build the module for $abi"
fi
rm -rf "$merged/tmp/debs"

# Test-only builds: a module whose pull hook names a function this kernel lacks must refuse
# to load; it is built by hand next to the real one and never installed.
say "kernel $kernel: test-only module builds"
mkdir -p "$merged/fairq/extra"
chroot "$merged" sh -c "rm -rf /tmp/badpull && cp -a /usr/src/fairq-$ver /tmp/badpull &&
	make -s -C /lib/modules/$abi/build M=/tmp/badpull KCFLAGS=-DFAIRQ_TEST_BAD_PULL_SYMBOL modules" \
	>"$out/badpull.log" 2>&1 || {
	cat "$out/badpull.log" >&2
	die "kernel $kernel: test-only build failed"
}
cp "$merged/tmp/badpull/fairq.ko" "$merged/fairq/extra/fairq-badpull.ko"
# The fixed-service-time helper (tests/helpers/svctime), for fairness tests and benchmarks.
rm -rf "$merged/tmp/svctime"
mkdir -p "$merged/tmp/svctime/tests/helpers"
cp -a "$FAIRQ_TOP/tests/helpers/svctime" "$merged/tmp/svctime/tests/helpers/"
cp -a "$FAIRQ_TOP/src" "$merged/tmp/svctime/"
chroot "$merged" make -s -C "/lib/modules/$abi/build" M=/tmp/svctime/tests/helpers/svctime modules \
	>"$out/svctime.log" 2>&1 || {
	cat "$out/svctime.log" >&2
	die "kernel $kernel: test helper build failed"
}
cp "$merged/tmp/svctime/tests/helpers/svctime/fairq_svctime.ko" "$merged/fairq/extra/"

# fairqctl came with its package; its JSON schema and checker go with the suite.
mkdir -p "$merged/fairq/fairqctl"
cp "$FAIRQ_TOP/tools/fairqctl/fairqctl.schema.json" "$FAIRQ_TOP/tools/fairqctl/tests/schema-check.py" \
	"$merged/fairq/fairqctl/"

# fairq-load (tools/fairq-load), the RPC load generator of the guest tests and of make bench,
# built in the guest's userland and installed as on a server: /usr/local/bin/fairq-load.
say "kernel $kernel: fairq-load"
rm -rf "$merged/tmp/fairq-load"
cp -a "$FAIRQ_TOP/tools/fairq-load" "$merged/tmp/fairq-load"
chroot "$merged" sh -c "make -C /tmp/fairq-load clean && make -C /tmp/fairq-load VERSION=$ver install" \
	>"$out/fairq-load.log" 2>&1 || {
	cat "$out/fairq-load.log" >&2
	die "kernel $kernel: fairq-load build failed"
}
rm -rf "$merged/tmp/fairq-load"

# The test suite and its helpers.
mkdir -p "$merged/fairq/tests"
cp -a "$FAIRQ_TOP/tests/vm/guest/." "$merged/fairq/"
echo "$kernel" >"$merged/fairq/kernel"
echo "$abi" >"$merged/fairq/abi"
umount "$merged/proc"

# Kernel modules: the closure of what the guest loads, decompressed (xz under TCG is slow).
moddir=usr/lib/modules/$abi
[ -d "$merged/$moddir" ] || moddir=lib/modules/$abi
want="fairq nfsd nfsv3 nfsv4 nfs veth bridge"
declare -A seen=()
queue=($want)
while [ ${#queue[@]} -gt 0 ]; do
	m=${queue[0]}
	queue=("${queue[@]:1}")
	[ -n "${seen[$m]:-}" ] && continue
	seen[$m]=1
	f=$(modinfo -b "$merged" -k "$abi" -n "$m" 2>/dev/null) || die "kernel $kernel: no module $m"
	case "$f" in /*) ;; *) continue ;; esac	# built in
	f=${f#"$merged"}
	rel=${f#/}
	rel=${rel#usr/}
	rel=${rel#lib/modules/$abi/}
	dst=$out/mods/lib/modules/$abi/${rel%.xz}
	dst=${dst%.zst}
	mkdir -p "$(dirname "$dst")"
	case "$f" in
	*.xz) xz -dc "$merged$f" >"$dst" ;;
	*.zst) zstd -qdc "$merged$f" >"$dst" ;;
	*) cp "$merged$f" "$dst" ;;
	esac
	for d in $(modinfo -b "$merged" -k "$abi" -F depends "$m" | tr ',' ' '); do
		queue+=("$d")
	done
done
cp "$merged/$moddir"/modules.{order,builtin,builtin.modinfo} "$out/mods/lib/modules/$abi/" 2>/dev/null || true
depmod -b "$out/mods" "$abi"

say "kernel $kernel: packing the initramfs (modules: ${!seen[*]})"
cp "$merged/boot/vmlinuz-$abi" "$out/vmlinuz" 2>/dev/null || cp "$merged/$moddir/vmlinuz" "$out/vmlinuz"
echo "$abi" >"$out/abi"
# The userland without what only building needs; modules come from the second archive.
(cd "$merged" && find . \( -path ./usr/src -o -path ./usr/lib/gcc -o -path ./usr/libexec/gcc \
	-o -path ./usr/lib/modules -o -path ./lib/modules -o -path ./boot -o -path ./var/lib/dkms \
	-o -path ./var/cache/apt -o -path ./var/lib/apt/lists -o -path ./usr/share/doc \
	-o -path ./usr/include -o -path ./usr/lib/x86_64-linux-gnu/perl \
	-o -path ./usr/share/perl -o -path ./tmp/badpull -o -path ./tmp/svctime \) -prune -o -print |
	cpio --quiet -o -H newc) >"$out/initrd.part"
# usr-merged layouts need /lib/modules to resolve: it is a symlink into /usr/lib
(cd "$out/mods" && { [ -L "$merged/lib" ] && mkdir -p usr && mv lib usr/ || true; } &&
	find . -print | cpio --quiet -o -H newc) >>"$out/initrd.part"
# complete or absent: the run harness reuses any guest whose initrd exists
mv "$out/initrd.part" "$out/initrd"
say "kernel $kernel: guest ready ($(du -h "$out/initrd" | cut -f1) initramfs)"
