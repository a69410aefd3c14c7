#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Distribution packages from a clean copy of this tree (tracked and new files, never build
# products or ignored files), so a developer's kernel builds never reach /usr/src.
# Everything lands in build/pkg/.
#
# usage: tools/pkg.sh prereqs   install what the package builds need (Debian host, root)
#        tools/pkg.sh deb       .deb, .dsc, .changes (source + fairq-dkms without tools/fairqctl)
#        tools/pkg.sh rpm       .rpm and .src.rpm (fairq-dkms only without tools/fairqctl)
#        tools/pkg.sh lint      lintian on the .changes, rpmlint on the RPMs: fails on errors and warnings
#
# FAIRQ_PKG_VERSION=V tools/pkg.sh deb   packages of release V built from this tree (a
#        changelog entry and src/version.h are rewritten in the staged copy only): the VM
#        harness's upgrade test needs a version newer than the tree's.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=${FAIRQ_PKG_OUT:-$top/build/pkg}
ver=$(sh "$top/tools/version.sh")
tree_ver=$ver
[ -z "${FAIRQ_PKG_VERSION:-}" ] || ver=$FAIRQ_PKG_VERSION

say() {
	printf 'pkg: %s\n' "$*" >&2
}

die() {
	say "error: $*"
	exit 1
}

have_fairqctl() {
	[ -f "$top/tools/fairqctl/Makefile" ]
}

prereqs() {
	local missing=() p
	for p in lintian rpm rpm2cpio cpio dpkg-dev rpmlint; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing+=("$p")
	done
	# Build-Depends of every package, as debian/control lists them.
	if [ ${#missing[@]} = 0 ] && (cd "$top" && dpkg-checkbuilddeps -B && dpkg-checkbuilddeps -A) 2>/dev/null; then
		return 0
	fi
	[ "$(id -u)" = 0 ] || die "missing build dependencies; run as root: tools/pkg.sh prereqs"
	say "installing the build dependencies of debian/control and: ${missing[*]:-nothing else}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get build-dep -y -qq "$top" >/dev/null
	[ ${#missing[@]} = 0 ] || apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# stage DIR: a clean copy of the tree in DIR
stage() {
	rm -rf "$1"
	mkdir -p "$1"
	if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		(cd "$top" && git ls-files -z --cached --others --exclude-standard |
			while IFS= read -r -d '' f; do
				# gone from the work tree, or a kernel build product .gitignore misses
				{ [ -e "$f" ] || [ -L "$f" ]; } || continue
				case ${f##*/} in .*.d | .tmp_* | *.o.d) continue ;; esac
				printf '%s\0' "$f"
			done |
			tar --null -T - -cf - | tar -xf - -C "$1")
	else
		# A release tarball: everything but build output; debian/rules clean removes
		# kernel build products.
		(cd "$top" && tar --exclude=./build -cf - .) | tar -xf - -C "$1"
	fi
}

check_versions() {
	local deb spec
	deb=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
	spec=$(sed -n 's/^Version:[[:space:]]*//p' "$top/rpm/fairq.spec")
	[ "$deb" = "$tree_ver" ] || die "debian/changelog is at $deb, src/version.h at $tree_ver: add a changelog entry"
	[ "$spec" = "$tree_ver" ] || die "rpm/fairq.spec is at $spec, src/version.h at $tree_ver: update Version and %changelog"
}

# restamp DIR: the staged tree of FAIRQ_PKG_VERSION carries that release everywhere the
# package build reads it (debian/rules checks src/version.h against the changelog).
restamp() {
	[ "$ver" != "$tree_ver" ] || return 0
	dpkg --compare-versions "$ver" gt "$tree_ver" ||
		die "FAIRQ_PKG_VERSION=$ver is not newer than the tree's $tree_ver"
	sed -i "s/^#define FAIRQ_VERSION \".*\"$/#define FAIRQ_VERSION \"$ver\"/" "$1/src/version.h"
	{
		printf 'fairq (%s) unstable; urgency=medium\n\n' "$ver"
		printf '  * Test build of %s as release %s.\n\n' "$tree_ver" "$ver"
		printf ' -- %s  %s\n\n' "$(dpkg-parsechangelog -l "$1/debian/changelog" -S Maintainer)" \
			"$(date -R -d "@$(dpkg-parsechangelog -l "$1/debian/changelog" -S Timestamp)")"
		cat "$1/debian/changelog"
	} >"$1/debian/changelog.new"
	mv "$1/debian/changelog.new" "$1/debian/changelog"
	[ "$(sh "$1/tools/version.sh")" = "$ver" ] || die "could not restamp src/version.h to $ver"
}

deb() {
	local build=(--build=full)
	check_versions
	mkdir -p "$out"
	rm -f "$out"/fairq*.deb "$out"/fairq_*.dsc "$out"/fairq_*.tar.* "$out"/fairq_*.changes \
		"$out"/fairq_*.buildinfo
	stage "$out/fairq-$ver"
	restamp "$out/fairq-$ver"
	if ! have_fairqctl; then
		say "tools/fairqctl/Makefile absent: source and fairq-dkms only, no fairqctl"
		build=("--build=source,all")
	fi
	(cd "$out/fairq-$ver" && dpkg-buildpackage -us -uc "${build[@]}") >"$out/deb-build.log" 2>&1 || {
		tail -n 40 "$out/deb-build.log" >&2
		die "dpkg-buildpackage failed: $out/deb-build.log"
	}
	rm -rf "$out/fairq-$ver"
	say "built:"
	(cd "$out" && ls -1 fairq*.deb fairq_*.dsc fairq_*.changes) >&2
}

rpm_() {
	local top_rpm=$out/rpmbuild opts=()
	[ "$ver" = "$tree_ver" ] || die "FAIRQ_PKG_VERSION is for make deb only"
	check_versions
	mkdir -p "$out"
	rm -f "$out"/*.rpm
	rm -rf "$top_rpm"
	mkdir -p "$top_rpm/SOURCES"
	stage "$top_rpm/fairq-$ver"
	tar -C "$top_rpm" -czf "$top_rpm/SOURCES/fairq-$ver.tar.gz" "fairq-$ver"
	rm -rf "${top_rpm:?}/fairq-$ver"
	if ! have_fairqctl; then
		say "tools/fairqctl/Makefile absent: fairq-dkms only (--without fairqctl)"
		opts+=(--without fairqctl)
	fi
	# On a host whose packages rpm does not manage (Debian), BuildRequires cannot be checked.
	if ! rpm -q rpm >/dev/null 2>&1; then
		opts+=(--nodeps)
	fi
	rpmbuild -ba --define "_topdir $top_rpm" "${opts[@]}" "$top/rpm/fairq.spec" \
		>"$out/rpm-build.log" 2>&1 || {
		tail -n 40 "$out/rpm-build.log" >&2
		die "rpmbuild failed: $out/rpm-build.log"
	}
	find "$top_rpm/RPMS" "$top_rpm/SRPMS" -name '*.rpm' -exec cp {} "$out/" \;
	say "built:"
	(cd "$out" && ls -1 ./*.rpm) >&2
}

lint() {
	local changes
	changes=$(find "$out" -maxdepth 1 -name "fairq_${ver}_*.changes" | head -n 1)
	[ -n "$changes" ] || die "no .changes in $out: run make deb first"
	say "lintian $(basename "$changes")"
	# --fail-on error,warning: overrides (debian/*lintian-overrides) say why a tag is accepted.
	lintian --info --display-info --pedantic --fail-on error,warning "$changes"
	rpmlint_
}

# rpmlint on the RPMs and the spec, warnings failing too; rpm/fairq.rpmlintrc says why a
# check is filtered.  Built on Debian, whose rpm has none of the distributions' brp scripts,
# binaries stay unstripped and man pages uncompressed (so rpmlint does not find them): those
# checks are left out here only.
rpmlint_() {
	local rc=$out/rpmlintrc rpms
	rpms=$(find "$out" -maxdepth 1 -name "*-${ver}-*.rpm" | sort)
	[ -n "$rpms" ] || die "no .rpm in $out: run make rpm first"
	cp "$top/rpm/fairq.rpmlintrc" "$rc"
	if ! rpm -q rpm >/dev/null 2>&1; then
		printf 'addFilter("%s")\n' ' [EW]: unstripped-binary-or-object ' ' [EW]: manpage-not-compressed ' \
			' [EW]: no-manual-page-for-binary ' >>"$rc"
	fi
	say "rpmlint $(echo "$rpms" | xargs -n1 basename | tr '\n' ' ')"
	# shellcheck disable=SC2086 # one path per word
	rpmlint --strict -r "$rc" $rpms "$top/rpm/fairq.spec"
}

case ${1:-} in
prereqs) prereqs ;;
deb) deb ;;
rpm) rpm_ ;;
lint) lint ;;
*)
	sed -n 's/^# usage: /usage: /p; s/^#        /       /p' "$0" >&2
	exit 2
	;;
esac
