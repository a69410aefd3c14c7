# SPDX-License-Identifier: GPL-2.0-only
# Shared helpers for the VM harness (sourced, never run).

FAIRQ_CACHE=${FAIRQ_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fairq}
FAIRQ_MIRROR=${FAIRQ_MIRROR:-http://deb.debian.org/debian}
FAIRQ_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
FAIRQ_T0=${FAIRQ_T0:-$(date +%s)}
export FAIRQ_CACHE FAIRQ_MIRROR FAIRQ_TOP FAIRQ_T0

KERNELS_ALL="6.1 6.12 7.3"
# Test builds of a series (tests/vm/debug-kernel.sh), never part of "all": SERIES-debug (lockdep,
# KASAN, kmemleak, debug objects, fault injection) and SERIES-kcsan (the data-race detector,
# which cannot share a kernel with KASAN).
KERNEL_FLAVORS="debug kcsan"
KERNELS_DEBUG="6.1-debug 6.12-debug 7.3-debug 6.1-kcsan 6.12-kcsan 7.3-kcsan"

# a failing step inside $(...) must stop the caller too
shopt -s inherit_errexit 2>/dev/null || true

# Progress goes to stderr with the elapsed time so that a long CI run is never silent.
say() {
	local now
	now=$(date +%s)
	printf '[%4ds] %s\n' "$((now - FAIRQ_T0))" "$*" >&2
}

die() {
	say "error: $*"
	exit 1
}

# kernel_series NAME: the stock series a kernel is built from (6.12-kcsan: 6.12)
kernel_series() {
	echo "${1%-*}"
}

# kernel_flavor NAME: the test build a kernel name asks for (debug or kcsan), empty for stock
kernel_flavor() {
	case "$1" in
	*-*) echo "${1##*-}" ;;
	esac
}

# Which Debian suite carries which kernel series: the userland is the one the kernel ships in.
kernel_suite() {
	case "$(kernel_series "$1")" in
	6.1) echo bookworm ;;
	6.12) echo trixie ;;
	7.3) echo trixie ;;
	*) return 1 ;;
	esac
}

# The suite the kernel packages come from (resolved to the newest ABI of the series there).
kernel_pkg_suite() {
	case "$(kernel_series "$1")" in
	6.1) echo bookworm ;;
	6.12) echo trixie ;;
	7.3) echo trixie-backports ;;
	*) return 1 ;;
	esac
}

kernel_valid() {
	local s f
	for s in $KERNELS_ALL; do
		[ "$1" = "$s" ] && return 0
		for f in $KERNEL_FLAVORS; do
			[ "$1" = "$s-$f" ] && return 0
		done
	done
	return 1
}

image_dir() {
	echo "$FAIRQ_CACHE/images/$1"
}

# apt-get / apt-cache on the harness's private index of Debian's archive (image.sh makes it),
# so that nothing here ever touches the host's package lists.
apt_private_opts() {
	local r=$FAIRQ_CACHE/apt
	echo "-o Dir::State=$r/state -o Dir::Cache=$r/cache -o Dir::Etc::SourceList=$r/sources.list" \
		"-o Dir::Etc::SourceParts=/dev/null -o Dir::State::status=$r/state/status"
}

# Debian's package index, private to the cache: the host's own lists are never touched, and
# a normal user can keep one (what needs no VM, such as make quick, needs no root).
sources_for() {
	local s=$1
	echo "deb $FAIRQ_MIRROR $s main"
	echo "deb $FAIRQ_MIRROR $s-updates main"
	echo "deb ${FAIRQ_MIRROR%/debian}/debian-security $s-security main"
	[ "$s" = trixie ] && echo "deb $FAIRQ_MIRROR trixie-backports main"
	return 0
}

# shellcheck disable=SC2046
apt_private() {
	apt-get -q $(apt_private_opts) -o Debug::NoLocking=1 -o Acquire::Retries=3 "$@"
}
# shellcheck disable=SC2046
apt_cache_private() {
	apt-cache $(apt_private_opts) "$@"
}

# refresh_indexes: the private index of bookworm and trixie (root not needed), at most hourly;
# callers that may run side by side hold a lock on $FAIRQ_CACHE/.apt.lock around it.
refresh_indexes() {
	local stamp=$FAIRQ_CACHE/apt/updated
	mkdir -p "$FAIRQ_CACHE/apt/state/lists/partial" "$FAIRQ_CACHE/apt/cache/archives/partial"
	touch "$FAIRQ_CACHE/apt/state/status"
	{ sources_for bookworm; sources_for trixie; } >"$FAIRQ_CACHE/apt/sources.list"
	# One index refresh per hour is plenty: Debian's kernels move weekly at most.
	if [ -z "$(find "$stamp" -mmin -60 2>/dev/null)" ]; then
		say "apt: refreshing Debian indexes (bookworm, trixie, trixie-backports)"
		apt_private update >/dev/null || die "apt-get update failed for the private index"
		touch "$stamp"
	fi
}

# linux_source_extract DEST PATTERN...: files of Debian's linux-source-6.12 (the newest
# supported series' source package: checkpatch, the netlink generator), into DEST.  The
# package is downloaded once into the cache.  Needs no root.
linux_source_extract() {
	local dest=$1 debs=$FAIRQ_CACHE/apt/debs tmp deb
	shift
	mkdir -p "$debs"
	(
		flock 8
		if ! ls "$debs"/linux-source-6.12_*.deb >/dev/null 2>&1; then
			refresh_indexes
			say "downloading Debian's linux-source-6.12 (about 150 MB, once)"
			(cd "$debs" && apt_private download linux-source-6.12 >/dev/null) ||
				die "cannot download linux-source-6.12"
		fi
	) 8>"$FAIRQ_CACHE/.apt.lock"
	deb=$(ls -t "$debs"/linux-source-6.12_*.deb | head -n1)
	tmp=$(mktemp -d)
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp" --wildcards '*.tar.xz'
	mkdir -p "$dest"
	tar -xJf "$(find "$tmp" -name 'linux-source-*.tar.xz')" -C "$dest" --strip-components=1 \
		--wildcards "$@"
	rm -rf "$tmp"
}

# ynl_tree: a tree holding the kernel's YNL (tools/net/ynl: the netlink code generator and the
# Python client) with the netlink specs and their schemas (Documentation/netlink): $FAIRQ_YNL_SRC,
# else an unpacked linux-source-6.12 in /tmp/src, else the parts of Debian's linux-source-6.12
# fetched once into the cache.  Prints its path.
ynl_tree() {
	local d
	has_ynl() {
		[ -f "$1/tools/net/ynl/ynl-gen-c.py" ] && [ -f "$1/tools/net/ynl/lib/ynl.py" ] &&
			[ -f "$1/Documentation/netlink/genetlink-legacy.yaml" ]
	}
	if [ -n "${FAIRQ_YNL_SRC:-}" ]; then
		has_ynl "$FAIRQ_YNL_SRC" || die "no tools/net/ynl in FAIRQ_YNL_SRC=$FAIRQ_YNL_SRC"
		echo "$FAIRQ_YNL_SRC"
		return
	fi
	for d in /tmp/src/6.12/linux-source-6.12 "$FAIRQ_CACHE/ynl"; do
		if has_ynl "$d"; then
			echo "$d"
			return
		fi
	done
	# guests are prepared side by side: one of them fetches, the others wait for its tree
	mkdir -p "$FAIRQ_CACHE"
	(
		flock 9
		has_ynl "$FAIRQ_CACHE/ynl" && exit 0
		say "fetching the kernel's netlink tools (YNL) from Debian's linux-source-6.12"
		rm -rf "$FAIRQ_CACHE/ynl.new"
		linux_source_extract "$FAIRQ_CACHE/ynl.new" '*/tools/net/ynl/*' \
			'*/Documentation/netlink/*.yaml'
		rm -rf "$FAIRQ_CACHE/ynl"
		mv "$FAIRQ_CACHE/ynl.new" "$FAIRQ_CACHE/ynl"
	) 9>"$FAIRQ_CACHE/.ynl.lock"
	has_ynl "$FAIRQ_CACHE/ynl" || die "no tools/net/ynl in Debian's linux-source-6.12"
	echo "$FAIRQ_CACHE/ynl"
}

need_root() {
	[ "$(id -u)" = 0 ] || die "the VM harness needs root (mmdebstrap, chroot): run it as root"
}
