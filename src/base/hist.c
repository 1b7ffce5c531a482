/* SPDX-License-Identifier: MIT */
/* hist.c - the lab's log-linear histogram (see hist.h for the bucket layout). */
#include <errno.h>
#include <stdlib.h>

#include "hist.h"

static unsigned bucket_of(uint64_t v)
{
	unsigned p, shift;

	if (v < 2 * HIST_SUB)
		return (unsigned)v;
	if (v >= (uint64_t)1 << HIST_BITS)
		return HIST_BUCKETS - 1;
	p = 63u - (unsigned)__builtin_clzll(v); /* 8 .. HIST_BITS - 1 */
	shift = p - 7;
	/* v >> shift is in [128, 256): the 7 bits after the leading one pick the bucket */
	return 2 * HIST_SUB + (p - 8) * HIST_SUB + (unsigned)((v >> shift) - HIST_SUB);
}

/* The middle of bucket i. */
static uint64_t bucket_mid(unsigned i)
{
	unsigned p, shift;
	uint64_t lo;

	if (i < 2 * HIST_SUB)
		return i;
	p = 8 + (i - 2 * HIST_SUB) / HIST_SUB;
	shift = p - 7;
	lo = ((uint64_t)HIST_SUB + (i - 2 * HIST_SUB) % HIST_SUB) << shift;
	return lo + ((uint64_t)1 << shift) / 2;
}

int hist_init(struct hist *h)
{
	h->bucket = calloc(HIST_BUCKETS, sizeof(*h->bucket));
	if (!h->bucket)
		return -ENOMEM;
	h->count = 0;
	h->min = UINT64_MAX;
	h->max = 0;
	return 0;
}

void hist_free(struct hist *h)
{
	free(h->bucket);
	h->bucket = NULL;
}

void hist_clear(struct hist *h)
{
	for (unsigned i = 0; i < HIST_BUCKETS; i++)
		h->bucket[i] = 0;
	h->count = 0;
	h->min = UINT64_MAX;
	h->max = 0;
}

void hist_record(struct hist *h, uint64_t v)
{
	h->bucket[bucket_of(v)]++;
	h->count++;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

void hist_add(struct hist *dst, const struct hist *src)
{
	if (!src->count)
		return;
	for (unsigned i = 0; i < HIST_BUCKETS; i++)
		dst->bucket[i] += src->bucket[i];
	dst->count += src->count;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

/* A walk over all buckets: summaries are rare, records are not. */
uint64_t hist_quantile(const struct hist *h, double q)
{
	uint64_t rank, seen = 0, v;

	if (!h->count)
		return 0;
	if (q <= 0)
		return h->min;
	rank = (uint64_t)(q * (double)h->count);
	if ((double)rank < q * (double)h->count)
		rank++; /* ceil, without libm */
	if (rank < 1)
		rank = 1;
	if (rank >= h->count)
		return h->max;
	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		seen += h->bucket[i];
		if (seen >= rank) {
			v = bucket_mid(i);
			if (v < h->min)
				v = h->min;
			if (v > h->max)
				v = h->max;
			return v;
		}
	}
	return h->max;
}
