// SPDX-License-Identifier: GPL-2.0-only
/* Latency histogram for fairq-load (see hist.h). */
#include <string.h>

#include "hist.h"

void hist_init(struct hist *h)
{
	memset(h, 0, sizeof(*h));
}

unsigned int hist_index(uint64_t v)
{
	unsigned int msb, e, idx;

	if (v < 64)
		return v;
	msb = 63 - __builtin_clzll(v);
	e = msb - 5;			/* v >> e is in [32, 63] */
	idx = e * 32 + (unsigned int)(v >> e);
	return idx < HIST_BUCKETS ? idx : HIST_BUCKETS - 1;
}

uint64_t hist_lower(unsigned int idx)
{
	unsigned int e;

	if (idx < 64)
		return idx;
	e = idx / 32 - 1;
	return (uint64_t)(idx % 32 + 32) << e;
}

uint64_t hist_upper(unsigned int idx)
{
	unsigned int e;

	if (idx < 64)
		return idx;
	e = idx / 32 - 1;
	return ((uint64_t)(idx % 32 + 33) << e) - 1;
}

void hist_add(struct hist *h, uint64_t v)
{
	if (!h->count || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->count++;
	h->sum += (double)v;
	h->b[hist_index(v)]++;
}

void hist_merge(struct hist *dst, const struct hist *src)
{
	unsigned int i;

	if (!src->count)
		return;
	if (!dst->count || src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->count += src->count;
	dst->sum += src->sum;
	for (i = 0; i < HIST_BUCKETS; i++)
		dst->b[i] += src->b[i];
}

uint64_t hist_pct(const struct hist *h, double p)
{
	uint64_t want, seen = 0, v;
	unsigned int i;

	if (!h->count)
		return 0;
	if (p >= 1)
		return h->max;
	want = (uint64_t)(p * (double)h->count);
	if ((double)want < p * (double)h->count || !want)
		want++;
	for (i = 0; i < HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen >= want)
			break;
	}
	if (i == HIST_BUCKETS)
		return h->max;
	v = hist_lower(i) + (hist_upper(i) - hist_lower(i)) / 2;
	if (v > h->max)
		v = h->max;
	if (v < h->min)
		v = h->min;
	return v;
}

double hist_mean(const struct hist *h)
{
	return h->count ? h->sum / (double)h->count : 0;
}
