/* SPDX-License-Identifier: MIT */
/*
 * base/hist.h - a log-linear histogram of non-negative integers (nanoseconds, bytes) for
 * the lab's distributions: constant-time record, fixed memory, quantiles within 1%.
 *
 * Buckets: values below 256 are exact; above, each power of two [2^p, 2^(p+1)) is
 * cut into 128 equal buckets, so a bucket is at most 1/128 of its lower bound wide.
 * A quantile reports its bucket's midpoint, within 1/256 (0.4%) of every value in
 * the bucket, clamped to the exact minimum and maximum seen. Values from 2^HIST_BITS
 * up (about 18 minutes in ns, 1 TB in bytes) share the last bucket: the maximum
 * stays exact.
 *
 * Memory: HIST_BUCKETS counters of 8 bytes (34 KB), allocated by hist_init.
 */
#ifndef DEBLOAT_LAB_HIST_H
#define DEBLOAT_LAB_HIST_H

#include <stdint.h>

#define HIST_BITS    40
#define HIST_SUB     128
#define HIST_BUCKETS (2 * HIST_SUB + (HIST_BITS - 8) * HIST_SUB)

struct hist {
	uint64_t *bucket; /* HIST_BUCKETS counters */
	uint64_t count;
	uint64_t min, max;
};

/* 0, or -ENOMEM. */
int hist_init(struct hist *h);
void hist_free(struct hist *h);
void hist_clear(struct hist *h);
void hist_record(struct hist *h, uint64_t v);
/* Add everything src recorded to dst (both initialized). */
void hist_add(struct hist *dst, const struct hist *src);

/* The q-quantile (0 < q <= 1) by nearest rank: the value of rank ceil(q * count),
 * to the bucket's precision. 0 when empty. */
uint64_t hist_quantile(const struct hist *h, double q);

#endif
