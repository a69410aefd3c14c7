#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Build (or confirm) the cached image of every supported kernel at once: on a cold cache the
# three mmdebstrap runs overlap instead of queueing behind the first test that needs each.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
need_root
pids=()
for k in ${*:-$KERNELS_ALL}; do
	bash "$FAIRQ_TOP/tests/vm/image.sh" "$k" >/dev/null &
	pids+=($!)
done
status=0
for p in "${pids[@]}"; do wait "$p" || status=1; done
exit $status
