#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The release number, from its one home (src/version.h).
sed -n 's/^#define FAIRQ_VERSION "\(.*\)"$/\1/p' "$(dirname "$0")/../src/version.h"
