# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# Shared by the package tests that work in a Debian userland of the VM harness's images.

# scratch_root IMAGE-DIR: unpack the image's userland into a throwaway $root (under $tmp),
# with /proc mounted (kbuild and objtool read it); both go when the script exits.
scratch_root() {
	tmp=$(mktemp -d /var/tmp/fairq-pkg.XXXXXX)
	root=$tmp/root
	trap 'umount "$root/proc" 2>/dev/null || true; rm -rf "$tmp"' EXIT
	mkdir "$root"
	tar -xf "$1/base.tar" -C "$root"
	mount -t proc proc "$root/proc"
}

# check NAME COMMAND...: one TAP line for COMMAND (its output as comments when it fails); the
# counts in $n, $pass and $failed
n=0 pass=0 failed=0
check() {
	local name=$1
	shift
	n=$((n + 1))
	if "$@" >"$tmp/why" 2>&1; then
		pass=$((pass + 1))
		echo "ok $n - $name"
	else
		failed=$((failed + 1))
		echo "not ok $n - $name"
		sed 's/^/# /' "$tmp/why"
	fi
}
