#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# checkpatch.pl --strict over the module's sources.  checkpatch comes from Debian's
# linux-source package of the newest supported kernel, fetched once into the cache.
set -euo pipefail
. "$(dirname "$0")/../tests/vm/lib.sh"
dir=$FAIRQ_CACHE/checkpatch
if [ ! -x "$dir/scripts/checkpatch.pl" ]; then
	say "fetching checkpatch.pl from Debian's linux-source-6.12"
	apt_root=$FAIRQ_CACHE/apt
	bash "$FAIRQ_TOP/tests/vm/image.sh" 6.12 >/dev/null	# makes the private apt index
	tmp=$(mktemp -d)
	(cd "$tmp" && apt-get -q -o Dir::State="$apt_root/state" -o Dir::Cache="$apt_root/cache" \
		-o Dir::Etc::SourceList="$apt_root/sources.list" -o Dir::Etc::SourceParts=/dev/null \
		-o Dir::State::status="$apt_root/state/status" download linux-source-6.12 >/dev/null)
	dpkg-deb --fsys-tarfile "$tmp"/linux-source-6.12_*.deb | tar -x -C "$tmp" --wildcards '*.tar.xz'
	mkdir -p "$dir"
	tar -xJf "$(find "$tmp" -name 'linux-source-*.tar.xz')" -C "$dir" --strip-components=1 --wildcards \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' '*/scripts/const_structs.checkpatch'
	rm -rf "$tmp"
fi
cd "$FAIRQ_TOP"
files=$(git ls-files 'src/*.[ch]' 'include/*.h' 2>/dev/null || find src include -name '*.[ch]')
"$dir/scripts/checkpatch.pl" --no-tree --strict --terse --show-types --file $files
