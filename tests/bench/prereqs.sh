#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# What make bench needs on the host beyond the VM harness (tests/vm/prereqs.sh): python3 and
# matplotlib, from Debian.  Quiet when already there.
set -euo pipefail
. "$(dirname "$0")/../vm/lib.sh"
pkgs=(python3 python3-matplotlib)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} = 0 ] && exit 0
need_root
say "installing host packages for the benchmarks: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
