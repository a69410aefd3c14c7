/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Log-linear latency histogram: exact below 64 ns, then 32 buckets per power of two (at most
 * 1.6% relative error), up to about 18 minutes; the exact minimum, maximum and sum are kept.
 */
#ifndef FAIRQ_LOAD_HIST_H
#define FAIRQ_LOAD_HIST_H

#include <stdint.h>

#define HIST_BUCKETS 1184

struct hist {
	uint64_t count;
	uint64_t min, max;
	double sum;
	uint64_t b[HIST_BUCKETS];
};

void hist_init(struct hist *h);
void hist_add(struct hist *h, uint64_t v);
void hist_merge(struct hist *dst, const struct hist *src);
/* The value below which a fraction p (0..1) of the samples lie; 0 if empty. */
uint64_t hist_pct(const struct hist *h, double p);
double hist_mean(const struct hist *h);

/* exposed for the tests */
unsigned int hist_index(uint64_t v);
uint64_t hist_lower(unsigned int idx);
uint64_t hist_upper(unsigned int idx);

#endif
