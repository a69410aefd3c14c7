#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# What make quick needs (unit, style, nl-check, cli): host packages only, no VM image and no
# root once they are there.  As root it installs what is missing; as a normal user it says
# which command would.
set -euo pipefail
. "$(dirname "$0")/vm/lib.sh"

pkgs=(gcc make pkg-config libnl-3-dev libnl-genl-3-dev perl python3 python3-yaml
	python3-jsonschema xz-utils zsh debian-archive-keyring)
# PyYAML and jsonschema may come from pip instead, for the python3 found first on PATH
python3 -c 'import yaml, jsonschema' 2>/dev/null && have_py=1 || have_py=""
missing=()
for p in "${pkgs[@]}"; do
	case "$p" in python3-yaml | python3-jsonschema) [ -n "$have_py" ] && continue ;; esac
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} = 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then
	die "make quick needs these packages: ${missing[*]} (as root: apt-get install ${missing[*]})"
fi
say "installing host packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
