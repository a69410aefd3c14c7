/* SPDX-License-Identifier: GPL-2.0-only */
#include "../../kshim.h"

#ifndef KSHIM_BITOPS_H
#define KSHIM_BITOPS_H
/* the unit tests run on one thread: the atomics of the marks (mark.h) are plain operations */
#define BITS_PER_LONG 64
#define clear_bit(nr, addr) (*(addr) &= ~BIT(nr))
#define try_cmpxchg(p, oldp, new) \
	(*(p) == *(oldp) ? (*(p) = (new), true) : (*(oldp) = *(p), false))
#endif
