#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# make demo: boot a Debian kernel under qemu with nfsd serving a greedy many-connection client
# and a light client, switch schedulers live, and show what fairq sees as it goes.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
kernel=${1:-6.12}
say "demo on Debian kernel $kernel (first run builds the images: a few minutes)"
exec bash "$FAIRQ_TOP/tests/vm/run" -k "$kernel" --clients 2 --threads 8 \
	--script "$FAIRQ_TOP/tests/vm/guest/demo.sh"
