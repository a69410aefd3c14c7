#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# What the packages in build/pkg/ install, against what they must install: the DKMS tree is
# exactly Kbuild, LICENSE, dkms.conf (version filled in) and the tree's src/ and include/
# files, no build product, in fairq-dkms; everything else (the tools, their man pages and
# completions, unit, configuration, docs, JSON schema and netlink spec) in fairqctl.
#
# usage: tests/pkg/contents.sh        (after make deb rpm) TAP, then "N passed, N failed"
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/build/pkg
ver=$(sh "$top/tools/version.sh")
src=usr/src/fairq-$ver
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

n=0 pass=0 failed=0
ok() {
	n=$((n + 1)) pass=$((pass + 1))
	echo "ok $n - $1"
}
not_ok() {
	n=$((n + 1)) failed=$((failed + 1))
	echo "not ok $n - $1"
	[ ! -s "$tmp/why" ] || sed 's/^/# /' "$tmp/why"
}
# same NAME EXPECTED-FILE GOT-FILE
same() {
	if diff -u "$2" "$3" >"$tmp/why"; then ok "$1"; else not_ok "$1"; fi
}

# The DKMS tree as the work tree has it (what tools/pkg.sh stages).
(cd "$top" && git ls-files --cached --others --exclude-standard -- Kbuild LICENSE src include |
	while IFS= read -r f; do
		[ -e "$f" ] || continue
		case ${f##*/} in .*.d | .tmp_* | *.o.d) continue ;; esac
		echo "$src/$f"
	done
	echo "$src/dkms.conf") | sort >"$tmp/tree"
grep -v -e '\.o$' -e '\.ko$' -e '\.mod$' -e '\.mod\.c$' -e '\.cmd$' -e 'Module\.symvers$' \
	-e 'modules\.order$' "$tmp/tree" >"$tmp/tree.clean" || true
sed "s/#MODULE_VERSION#/$ver/" "$top/dkms.conf" >"$tmp/dkms.conf"

# unpack_deb PKG NAME: $tmp/NAME.list ("MODE PATH" per file, no directories) and the package
# unpacked in $tmp/NAME, its control files in $tmp/NAME/DEBIAN
unpack_deb() {
	dpkg-deb -c "$1" | awk '$1 !~ /^d/ { sub("^\\./", "", $6); print $1, $6 }' >"$tmp/$2.list"
	mkdir "$tmp/$2"
	dpkg-deb -x "$1" "$tmp/$2"
	dpkg-deb -e "$1" "$tmp/$2/DEBIAN"
}

# unpack_rpm PKG NAME: the same for an RPM (no control files)
unpack_rpm() {
	rpm -qp --qf '[%{FILEMODES:perms} %{FILENAMES}\n]' "$1" 2>/dev/null |
		awk '$1 !~ /^d/ { sub("^/", "", $2); print $1, $2 }' >"$tmp/$2.list"
	mkdir "$tmp/$2"
	(cd "$tmp/$2" && rpm2cpio "$1" | cpio -idm --quiet)
}

# check_dkms_pkg KIND LISTING EXTRACTED-ROOT: LISTING has "MODE PATH" per file, no directories
check_dkms_pkg() {
	local kind=$1 list=$2 root=$3
	grep " $src/" "$list" | awk '{ print $2 }' | sort >"$tmp/$kind.src"
	same "$kind: the DKMS tree is exactly Kbuild, LICENSE, dkms.conf, src/, include/" \
		"$tmp/tree.clean" "$tmp/$kind.src"
	same "$kind: dkms.conf is upstream's with PACKAGE_VERSION=$ver" "$tmp/dkms.conf" "$root/$src/dkms.conf"
	grep -v " $src/" "$list" | sed -E 's#usr/share/(doc|licenses)/fairq-dkms(-[0-9.]+)?/#usr/share/\1/fairq-dkms/#' |
		sort >"$tmp/$kind.rest"
	if [ "$kind" = deb ]; then
		printf '%s\n' "-rw-r--r-- usr/share/doc/fairq-dkms/changelog.gz" \
			"-rw-r--r-- usr/share/doc/fairq-dkms/copyright" \
			"-rw-r--r-- usr/share/lintian/overrides/fairq-dkms" >"$tmp/$kind.rest.want"
	else
		echo "-rw-r--r-- usr/share/licenses/fairq-dkms/LICENSE" >"$tmp/$kind.rest.want"
	fi
	sort -o "$tmp/$kind.rest.want" "$tmp/$kind.rest.want"
	same "$kind: fairq-dkms holds the DKMS tree and nothing else but its licence" \
		"$tmp/$kind.rest.want" "$tmp/$kind.rest"
}

# check_tools_pkg KIND LISTING EXTRACTED-ROOT: fairqctl's package, the tools, unit,
# configuration and docs
check_tools_pkg() {
	local kind=$1 list=$2 root=$3 zsh=usr/share/zsh/vendor-completions
	[ "$kind" = deb ] || zsh=usr/share/zsh/site-functions
	sed -E 's#^(\S+) (usr/)?lib/systemd/#\1 UNITDIR/#' "$list" |
		sed -E 's#(\.[78]|\.md)(\.gz|\.bz2)?$#\1#; s#usr/share/(doc|licenses)/fairqctl(-[0-9.]+)?/#usr/share/\1/fairqctl/#' |
		grep -v ' usr/lib/\.build-id/' | sort >"$tmp/$kind.ctl"
	sort >"$tmp/$kind.ctl.want" <<-EOF_WANT
		-rw-r--r-- UNITDIR/system/fairq.service
		-rw-r--r-- etc/fairq/fairq.conf
		-rw-r--r-- usr/share/doc/fairqctl/README.md
		-rw-r--r-- usr/share/doc/fairqctl/packaging.md
		-rw-r--r-- usr/share/doc/fairqctl/operations.md
		-rw-r--r-- usr/share/doc/fairqctl/fq.md
		-rw-r--r-- usr/share/doc/fairqctl/capped.md
		-rw-r--r-- usr/share/doc/fairqctl/wq.md
		-rw-r--r-- usr/share/doc/fairqctl/policies.md
		-rw-r--r-- usr/share/man/man7/fairq.7
		-rw-r--r-- usr/share/man/man8/fairq-apply.8
		-rw-r--r-- usr/share/man/man8/fairqctl.8
		-rw-r--r-- usr/share/bash-completion/completions/fairqctl
		-rw-r--r-- $zsh/_fairqctl
		-rw-r--r-- usr/share/fairq/fairqctl.schema.json
		-rw-r--r-- usr/share/fairq/fairq.yaml
		-rwxr-xr-x usr/sbin/fairq-apply
		-rwxr-xr-x usr/sbin/fairqctl
	EOF_WANT
	if [ "$kind" = deb ]; then
		printf '%s\n' "-rw-r--r-- usr/share/doc/fairqctl/changelog.gz" \
			"-rw-r--r-- usr/share/doc/fairqctl/copyright" >>"$tmp/$kind.ctl.want"
	else
		echo "-rw-r--r-- usr/share/licenses/fairqctl/LICENSE" >>"$tmp/$kind.ctl.want"
	fi
	sort -o "$tmp/$kind.ctl.want" "$tmp/$kind.ctl.want"
	same "$kind: fairqctl holds the tools, man pages, completions, unit, configuration, docs, schema and netlink spec" \
		"$tmp/$kind.ctl.want" "$tmp/$kind.ctl"
	if cmp -s "$top/tools/fairq-apply/fairq.conf" "$root/etc/fairq/fairq.conf" &&
		! grep -q '^[[:space:]]*[^#[:space:]]' "$root/etc/fairq/fairq.conf"; then
		ok "$kind: /etc/fairq/fairq.conf is shipped with every setting commented out"
	else
		echo "$root/etc/fairq/fairq.conf differs or sets something" >"$tmp/why"
		not_ok "$kind: /etc/fairq/fairq.conf is shipped with every setting commented out"
	fi
	same "$kind: the JSON schema is the tree's" "$top/tools/fairqctl/fairqctl.schema.json" \
		"$root/usr/share/fairq/fairqctl.schema.json"
}

# Debian
deb=$(find "$out" -maxdepth 1 -name "fairq-dkms_${ver}_all.deb" | head -n 1)
if [ -z "$deb" ]; then
	echo "no fairq-dkms .deb in $out: make deb first" >"$tmp/why"
	not_ok "deb: fairq-dkms built"
else
	unpack_deb "$deb" deb
	check_dkms_pkg deb "$tmp/deb.list" "$tmp/deb"
	if grep -q 'dkms add\|common.postinst' "$tmp/deb/DEBIAN/postinst" &&
		grep -q "dkms remove -m \$DKMS_NAME -v \$DKMS_VERSION" "$tmp/deb/DEBIAN/prerm" &&
		grep -q '^DKMS_VERSION=0*'"$ver"'$' "$tmp/deb/DEBIAN/prerm" &&
		[ ! -e "$tmp/deb/DEBIAN/conffiles" ] && [ ! -e "$tmp/deb/DEBIAN/postrm" ] &&
		dpkg-deb -f "$deb" Depends | grep -q "fairqctl (>= $ver)"; then
		ok "deb: fairq-dkms registers with DKMS, removes itself on removal, owns no configuration, needs fairqctl"
	else
		{ ls "$tmp/deb/DEBIAN"; dpkg-deb -f "$deb" Depends; } >"$tmp/why"
		not_ok "deb: fairq-dkms registers with DKMS, removes itself on removal, owns no configuration, needs fairqctl"
	fi
fi

ctl=$(find "$out" -maxdepth 1 -name "fairqctl_${ver}_*.deb" | head -n 1)
if [ -z "$ctl" ]; then
	echo "no fairqctl .deb in $out: make deb first" >"$tmp/why"
	not_ok "deb: fairqctl built"
else
	unpack_deb "$ctl" ctl
	check_tools_pkg deb "$tmp/ctl.list" "$tmp/ctl"
	if [ "$(cat "$tmp/ctl/DEBIAN/conffiles")" = /etc/fairq/fairq.conf ]; then
		ok "deb: /etc/fairq/fairq.conf is fairqctl's one conffile"
	else
		cp "$tmp/ctl/DEBIAN/conffiles" "$tmp/why"
		not_ok "deb: /etc/fairq/fairq.conf is fairqctl's one conffile"
	fi
	# purge: dpkg takes the conffile and the directory if it is empty; no script removes
	# what an admin put beside it
	if grep -q 'deb-systemd-helper' "$tmp/ctl/DEBIAN/postinst" &&
		! grep -qs 'rm -r' "$tmp/ctl/DEBIAN/postrm" &&
		dpkg-deb -f "$ctl" Breaks Replaces | grep -c 'fairq-dkms (<< 0.2.0~)' | grep -qx 2; then
		ok "deb: fairqctl enables fairq.service, purges only what it shipped, takes over fairq-dkms's files"
	else
		{ dpkg-deb -f "$ctl" Breaks Replaces; cat "$tmp/ctl/DEBIAN/postrm"; } >"$tmp/why" 2>&1
		not_ok "deb: fairqctl enables fairq.service, purges only what it shipped, takes over fairq-dkms's files"
	fi
fi

# RPM
rpmf=$(find "$out" -maxdepth 1 -name "fairq-dkms-${ver}-*.noarch.rpm" | head -n 1)
if [ -z "$rpmf" ]; then
	echo "no fairq-dkms .rpm in $out: make rpm first" >"$tmp/why"
	not_ok "rpm: fairq-dkms built"
else
	unpack_rpm "$rpmf" rpm
	check_dkms_pkg rpm "$tmp/rpm.list" "$tmp/rpm"
	rpm -qpR "$rpmf" 2>/dev/null | sort -u >"$tmp/rpm.req"
	if grep -q '^dkms\( >= 3.0.3\)\?$' "$tmp/rpm.req" && grep -qx kernel-devel "$tmp/rpm.req" &&
		grep -qx "fairqctl >= $ver" "$tmp/rpm.req" &&
		grep -q '^NO_WEAK_MODULES="yes"$' "$tmp/rpm/$src/dkms.conf"; then
		ok "rpm: requires dkms, kernel-devel and fairqctl; weak modules off in dkms.conf"
	else
		cp "$tmp/rpm.req" "$tmp/why"
		not_ok "rpm: requires dkms, kernel-devel and fairqctl; weak modules off in dkms.conf"
	fi
	if [ -z "$(rpm -qpc "$rpmf" 2>/dev/null)" ]; then
		ok "rpm: fairq-dkms owns no configuration"
	else
		rpm -qpc "$rpmf" >"$tmp/why" 2>&1
		not_ok "rpm: fairq-dkms owns no configuration"
	fi
fi
rpmc=$(find "$out" -maxdepth 1 -name "fairqctl-${ver}-*.rpm" ! -name '*debug*' ! -name '*.src.rpm' | head -n 1)
if [ -z "$rpmc" ]; then
	echo "no fairqctl .rpm in $out: make rpm first" >"$tmp/why"
	not_ok "rpm: fairqctl built"
else
	unpack_rpm "$rpmc" rpmc
	check_tools_pkg rpm "$tmp/rpmc.list" "$tmp/rpmc"
	if [ "$(rpm -qpc "$rpmc" 2>/dev/null)" = /etc/fairq/fairq.conf ] &&
		rpm -qp --qf '[%{FILEFLAGS:fflags} %{FILENAMES}\n]' "$rpmc" 2>/dev/null |
		grep -q '^cn /etc/fairq/fairq.conf$'; then
		ok "rpm: /etc/fairq/fairq.conf is fairqctl's one %config(noreplace)"
	else
		not_ok "rpm: /etc/fairq/fairq.conf is fairqctl's one %config(noreplace)"
	fi
	if rpm -qp --qf '%{URL}\n' "$rpmc" 2>/dev/null | grep -q '^https://' &&
		rpm -qp --conflicts "$rpmc" 2>/dev/null | grep -qx 'fairq-dkms < 0.2.0'; then
		ok "rpm: a URL, and fairqctl conflicts with the fairq-dkms that held its files"
	else
		{ rpm -qp --qf '%{URL}\n' "$rpmc"; rpm -qp --conflicts "$rpmc"; } >"$tmp/why" 2>&1
		not_ok "rpm: a URL, and fairqctl conflicts with the fairq-dkms that held its files"
	fi
fi

echo "1..$n"
echo "$pass passed, $failed failed"
[ "$failed" = 0 ]
