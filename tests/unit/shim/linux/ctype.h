/* SPDX-License-Identifier: GPL-2.0-only */
#include <ctype.h>
#include "../../kshim.h"
