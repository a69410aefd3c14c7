/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef _FAIRQ_VERSION_H
#define _FAIRQ_VERSION_H
/* The packaging and the top-level Makefile pass the release; this is the fallback. */
#ifndef FAIRQ_VERSION
#define FAIRQ_VERSION "0.2.0"
#endif
#endif
