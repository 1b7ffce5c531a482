/* SPDX-License-Identifier: MIT */
/*
 * verdict.h - what `debloat prove` decides from its two measurements, as pure functions
 * of their summaries (meter/summary.h), so tests feed them numbers.
 *
 * The capacity. From the baseline, the rate a shaper on this host's egress should run
 * at, or none:
 *   - a rate given (--shape) is used as it is (source "given");
 *   - a test without uploads measures no upload capacity: no shaper ("none");
 *   - the upload's goodput G below PROVE_BOTTLENECK_FRACTION of the link speed (or the
 *     speed unknown: a virtual link, a tunnel) means the bottleneck is beyond this host,
 *     and a driver without BQL means the queue builds in its ring: both shape at G
 *     (source "measured"). G counts TCP payload, the shaper counts frames with their
 *     headers (1514 bytes carry 1448), so a shaper at G sends about 4.5% less on the
 *     wire than the bottleneck delivered: just below it, as it must be to own the queue;
 *   - otherwise (BQL and the link itself the bottleneck) fix's own plan, no shaper
 *     ("link").
 * With ingress, the download is shaped too, at its goodput in whole kbit/s (always: a
 * host cannot tell from its own side where the download's queue is, but it is never
 * on the host's egress), when the test downloaded anything.
 *
 * The verdict. Latency gain is the baseline's induced latency over the second run's,
 * each floored at PROVE_LATENCY_FLOOR_MS (a queue below a millisecond is no queue: 0.2
 * against 0.1 ms is no 2x gain). Goodput ratios are after over before per direction,
 * for directions the test loads (NaN otherwise, and ignored). The change is kept when
 * the gain is at least min_gain and no direction lost more than max_loss; why says
 * which bound decided, with the numbers.
 *
 * A host is "good" when its induced latency is below PROVE_GOOD_MS (grade A or A+).
 */
#ifndef DEBLOAT_PROVE_VERDICT_H
#define DEBLOAT_PROVE_VERDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "meter/summary.h"
#include "audit/policy.h"

#define PROVE_BOTTLENECK_FRACTION 0.8
#define PROVE_LATENCY_FLOOR_MS	  1.0
#define PROVE_GOOD_MS		  30.0
#define PROVE_DEFAULT_MIN_GAIN	  2.0
#define PROVE_DEFAULT_MAX_LOSS	  0.15

/* One run's numbers, from its summary; NaN where the summary has none. */
struct prove_numbers {
	double idle_p50_ms, loaded_p50_ms, loaded_p99_ms, induced_ms, rpm;
	double up_mbps, down_mbps; /* NaN when the test has no flow that way */
	char grade[3];
};

void prove_numbers_of(const struct summary *s, struct prove_numbers *out);

struct prove_capacity {
	double up_mbps, down_mbps; /* the baseline's goodput; NaN without flows */
	uint32_t link_mbps;	   /* 0: unknown */
	uint64_t shape_rate;	   /* bytes/s of the egress shaper; 0: none */
	uint64_t shape_down_rate;  /* bytes/s of the download shaper (ingress); 0: none */
	const char *source;	   /* "given", "measured", "link", "none" */
	char why[384];
};

/* given: bytes/s from --shape, or 0; ingress: shape the download too. */
void prove_capacity(const struct prove_numbers *before, uint32_t link_mbps, enum tristate bql,
		    uint64_t given, bool ingress, struct prove_capacity *out);

struct prove_verdict {
	bool kept;
	double latency_ratio, upload_ratio, download_ratio; /* NaN where not measured */
	char why[320];
};

void prove_judge(const struct prove_numbers *before, const struct prove_numbers *after,
		 double min_gain, double max_loss, struct prove_verdict *out);

bool prove_good(const struct prove_numbers *n);

#endif
