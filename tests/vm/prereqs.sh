#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Installs what the build, the tests and the demo need on a Debian host (run as root).
# Quiet and quick when everything is already there.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

pkgs=(qemu-system-x86 mmdebstrap cpio xz-utils zstd kmod gcc make pkg-config
	libnl-3-dev libnl-genl-3-dev util-linux perl python3 debian-archive-keyring zsh)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} != 0 ]; then
	need_root
	say "installing host packages: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# the netlink generator and the JSON schema checks run on the python3 found first on PATH
if ! python3 -c 'import yaml, jsonschema' 2>/dev/null; then
	say "installing PyYAML and jsonschema for $(command -v python3)"
	python3 -m pip install --quiet pyyaml jsonschema ||
		{ apt-get install -y -qq python3-yaml python3-jsonschema >/dev/null; }
fi
# what building the packages needs (the guests install this tree's .debs)
bash "$FAIRQ_TOP/tools/pkg.sh" prereqs
