#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# checkpatch.pl --strict over the module's sources.  checkpatch comes from Debian's
# linux-source package of the newest supported kernel, fetched once into the cache.
set -euo pipefail
. "$(dirname "$0")/../tests/vm/lib.sh"
dir=$FAIRQ_CACHE/checkpatch
if [ ! -x "$dir/scripts/checkpatch.pl" ]; then
	say "fetching checkpatch.pl from Debian's linux-source-6.12"
	linux_source_extract "$dir" '*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
		'*/scripts/const_structs.checkpatch'
fi
cd "$FAIRQ_TOP"
files=$(git ls-files 'src/*.[ch]' 'include/*.h' 'tests/helpers/*.[ch]' 2>/dev/null ||
	find src include tests/helpers -name '*.[ch]')
"$dir/scripts/checkpatch.pl" --no-tree --strict --terse --show-types --file $files
