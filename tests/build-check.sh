#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build fairq.ko, the test-only helper modules and the race build (FAIRQ_TEST_RACES) against
# the headers of every supported kernel, inside that kernel's own Debian userland (its gcc),
# with W=1 and sparse (C=1): any warning fails.
#
# usage: tests/build-check.sh [KERNEL...]
set -euo pipefail
. "$(dirname "$0")/vm/lib.sh"
need_root
kernels=${*:-$KERNELS_ALL}
status=0
for k in $kernels; do
	img=$(bash "$FAIRQ_TOP/tests/vm/image.sh" "$k")
	abi=$(cat "$img/abi")
	if [ ! -f "$img/root.stamp" ] || [ "$img/base.tar" -nt "$img/root.stamp" ]; then
		rm -rf "$img/root" && mkdir -p "$img/root" && tar -xf "$img/base.tar" -C "$img/root"
		touch "$img/root.stamp"
	fi
	# under /usr/src: a guest packed from this root meanwhile leaves that tree out
	dir=/usr/src/fairq-build-check.$$
	log=$FAIRQ_CACHE/build-check-$k.$$.log	# concurrent checks must not share a log
	rm -rf "$img/root$dir"
	mkdir -p "$img/root$dir"
	(cd "$FAIRQ_TOP" && cp -a --parents Kbuild src include tests/helpers "$img/root$dir/")
	mount -t proc proc "$img/root/proc"
	say "build check: $k ($abi), W=1 C=1"
	set +e
	# the caller's make flags (-s) would hide the CHECK lines that prove sparse ran
	# compiler temporaries stay in the build dir too (TMPDIR), out of the image's /tmp
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL TMPDIR="$dir" chroot "$img/root" sh -c "
		make -C /lib/modules/$abi/build M=$dir W=1 C=1 modules &&
		for h in $dir/tests/helpers/*/; do
			make -C /lib/modules/$abi/build M=\${h%/} W=1 C=1 \
				KBUILD_EXTRA_SYMBOLS=$dir/Module.symvers modules || exit 1
		done &&
		make -C /lib/modules/$abi/build M=$dir clean &&
		make -C /lib/modules/$abi/build M=$dir W=1 C=1 FAIRQ_TEST_RACES=y modules" >"$log" 2>&1
	rc=$?
	set -e
	umount "$img/root/proc"
	rm -rf "${img:?}/root$dir"
	warnings=$(grep -E 'warning:|error:' "$log" || true)
	# Linux 6.16+ turns C=1 off by itself when sparse cannot parse its headers (released
	# sparse does not know __typeof_unqual__, used throughout 7.x): W=1 still applies there.
	sparse="sparse clean"
	if grep -q 'specified, but .* is not available' "$log"; then
		sparse="sparse skipped by the kernel's own check (cannot parse these headers)"
	elif ! grep -q '^  CHECK ' "$log"; then
		warnings="$warnings sparse did not run"
	fi
	if [ $rc != 0 ] || [ -n "$warnings" ]; then
		cat "$log"
		echo "not ok - build $k: $([ $rc != 0 ] && echo "failed" || echo "warnings")"
		status=1
	else
		echo "ok - build $k: fairq, the test helpers and the race build, no warnings (W=1; $sparse)"
	fi
	rm -f "$log"
done
exit $status
