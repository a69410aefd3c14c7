#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Regenerate fairq's netlink code from its spec, docs/netlink/fairq.yaml, with the kernel's own
# generator (tools/net/ynl/ynl-gen-c.py of Linux 6.12):
#
#   include/uapi/linux/fairq.h              the uapi header, shared by the module and fairqctl
#   src/netlink-gen.h, src/netlink-gen.c    attribute policies and the genl_ops table
#
# usage: tools/ynl-regen.sh [--check]
#   --check   regenerate into a temporary directory and fail if the committed files differ
#
# The generator is taken from $FAIRQ_YNL_SRC (a Linux source tree), else from
# /tmp/src/6.12/linux-source-6.12, else from Debian's linux-source-6.12 fetched once into
# ~/.cache/fairq/ynl.  It needs python3 with PyYAML and jsonschema (the spec is validated
# against the kernel's genetlink-legacy schema on every run).
set -euo pipefail
. "$(dirname "$0")/../tests/vm/lib.sh"

check=""
case "${1:-}" in
--check) check=1 ;;
"") ;;
*) die "usage: tools/ynl-regen.sh [--check]" ;;
esac

src=$(ynl_tree)
python3 -c 'import yaml, jsonschema' 2>/dev/null ||
	die "the generator needs python3 with PyYAML and jsonschema (apt install python3-yaml python3-jsonschema)"

# The generator names its input relative to the nearest directory holding MAINTAINERS (the
# kernel tree) and finds the schema two levels above the spec: give it a small tree of that
# shape, so that the banner reads docs/netlink/fairq.yaml as in this repository.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
stage=$work/tree
mkdir -p "$stage/docs/netlink"
: >"$stage/MAINTAINERS"
cp "$FAIRQ_TOP/docs/netlink/fairq.yaml" "$stage/docs/netlink/"
cp "$src/Documentation/netlink/genetlink-legacy.yaml" "$stage/docs/"

if [ -n "$check" ]; then
	out=$work/out
else
	out=$FAIRQ_TOP
fi
mkdir -p "$out/include/uapi/linux" "$out/src"
gen() {
	(cd "$src/tools/net/ynl" && python3 ynl-gen-c.py --spec "$stage/docs/netlink/fairq.yaml" "$@") ||
		die "ynl-gen-c.py $* failed"
}
gen --mode uapi --header -o "$out/include/uapi/linux/fairq.h"
gen --mode kernel --header -o "$out/src/netlink-gen.h"
gen --mode kernel --source -o "$out/src/netlink-gen.c"
# 6.12's generator leaves a multicast group's flags out of the table: a group the spec marks
# admin-perm is joined only with CAP_NET_ADMIN (GENL_MCAST_CAP_NET_ADMIN, in every supported
# kernel), as later generators write it.
python3 - "$stage/docs/netlink/fairq.yaml" "$out/src/netlink-gen.c" <<'PY' || die "cannot add the multicast groups' flags"
import re, sys, yaml
spec = yaml.safe_load(open(sys.argv[1]))
path = sys.argv[2]
src = open(path).read()
for grp in spec.get('mcast-groups', {}).get('list', []):
    if 'admin-perm' not in grp.get('flags', []):
        continue
    entry = '{ "%s", }' % grp['name']
    if entry not in src:
        sys.exit('no multicast group entry for ' + grp['name'])
    src = src.replace(entry, '{ "%s", .flags = GENL_MCAST_CAP_NET_ADMIN, }' % grp['name'])
open(path, 'w').write(src)
PY

if [ -z "$check" ]; then
	say "regenerated include/uapi/linux/fairq.h src/netlink-gen.h src/netlink-gen.c"
	exit 0
fi
stale=0
for f in include/uapi/linux/fairq.h src/netlink-gen.h src/netlink-gen.c; do
	if ! diff -u "$FAIRQ_TOP/$f" "$out/$f" >&2; then
		stale=1
	fi
done
if [ $stale != 0 ]; then
	echo "not ok - netlink code is stale against docs/netlink/fairq.yaml: run tools/ynl-regen.sh" >&2
	exit 1
fi
echo "ok - netlink code matches docs/netlink/fairq.yaml"
