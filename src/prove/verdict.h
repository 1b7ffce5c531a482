/* SPDX-License-Identifier: MIT */
/*
 * verdict.h - what `debloat prove` decides from its two measurements, as pure functions
 * of their summaries (meter/summary.h), so tests feed them numbers.
 *
 * Each direction on its own. A direction's capacity is measured by a run that loads
 * it alone (in a run loading both, each is depressed by the other's ACKs and queue),
 * and its rate is what this host's own TCP counters saw cross the path
 * (own_up_mbps, own_down_mbps: TCP_INFO's bytes acked and received). A server's report
 * is only a cross-check: when it differs from the counters by more than
 * PROVE_REPORT_TOLERANCE the report says so, and without the counters no rate is
 * derived at all, so a lying server can never set a shaper below what this host saw.
 * A direction's induced latency is the change of its one-way delay from idle to loaded
 * (owd_up_ms, owd_down_ms, the probes' medians: the offset between the two clocks is
 * in both and cancels). A direction needs a shaper when its one-way delay grew by at
 * least PROVE_QUEUE_MS under load; where its queue is (prove_where) comes from that
 * and from this host's own counters (watch.h): "here" (this host's qdisc), "driver",
 * "upstream" or "downstream" (beyond this host), "none", or "unknown" (no one-way
 * delays: a server or probe kind without timestamps).
 *
 * The capacity. The rate a shaper on this host's egress should run at, or none:
 *   - a rate given (--shape) is used as it is (source "given");
 *   - a test without uploads measures no upload capacity: no shaper ("none"); neither
 *     does an upload whose one-way delay did not grow (no queue to move) nor one
 *     without this host's own counters;
 *   - the upload's goodput G below PROVE_BOTTLENECK_FRACTION of the link speed (or the
 *     speed unknown: a virtual link, a tunnel) means the bottleneck is beyond this host,
 *     and a driver without BQL means the queue builds in its ring: both shape at G
 *     (source "measured"). G counts TCP payload, the shaper counts frames with their
 *     headers (1514 bytes carry 1448), so a shaper at G sends about 4.5% less on the
 *     wire than the bottleneck delivered: just below it, as it must be to own the queue;
 *   - otherwise (BQL and the link itself the bottleneck) fix's own plan, no shaper
 *     ("link").
 * The download is shaped (through an ifb) at its own counters' goodput in whole kbit/s
 * when its one-way delay grew by PROVE_QUEUE_MS or more, or always with --ingress
 * (PROVE_INGRESS_FORCE), never with --no-ingress; when the test downloaded anything.
 *
 * The verdict. Latency gain is the baseline's induced latency over the second run's,
 * each floored at PROVE_LATENCY_FLOOR_MS (a queue below a millisecond is no queue: 0.2
 * against 0.1 ms is no 2x gain). Goodput ratios are after over before per direction,
 * from this host's own TCP counters (the test's counts when a run has none), for
 * directions the test loads (NaN otherwise, and ignored). The change is kept when
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

#include "audit/policy.h"
#include "meter/summary.h"

#define PROVE_BOTTLENECK_FRACTION 0.8
#define PROVE_LATENCY_FLOOR_MS	  1.0
#define PROVE_GOOD_MS		  30.0
#define PROVE_DEFAULT_MIN_GAIN	  2.0
#define PROVE_DEFAULT_MAX_LOSS	  0.15
#define PROVE_QUEUE_MS		  10.0
#define PROVE_REPORT_TOLERANCE	  0.10

/* One run's numbers, from its summary and result; NaN where it has none. */
struct prove_numbers {
	double idle_p50_ms, loaded_p50_ms, loaded_p99_ms, induced_ms, rpm;
	double up_mbps, down_mbps;	   /* as the test counted them (uploads: the server's
					      reports); NaN when no flow went that way */
	double own_up_mbps, own_down_mbps; /* this host's own TCP counters; NaN */
	double owd_up_ms, owd_down_ms;	   /* induced one-way delay per direction; NaN */
	bool server_overloaded;
	char grade[3];
};

void prove_numbers_of(const struct summary *s, const struct test_result *r,
		      struct prove_numbers *out);

/*
 * Each direction's induced one-way delay of a result's probes: the median of the loaded
 * window (summary.h's, ramps left out) less the median of the idle window before the
 * load. NaN for a direction without samples in either window.
 */
void prove_owd(const struct owd_sample *s, size_t n, double delay_s, double length_s, double *up_ms,
	       double *down_ms);

enum prove_ingress { PROVE_INGRESS_AUTO, PROVE_INGRESS_FORCE, PROVE_INGRESS_OFF };

/* One direction as the capacity saw it. */
struct prove_direction {
	double mbps;	      /* the rate used: this host's counters; NaN */
	double reported_mbps; /* as the test counted it (the server's reports up) */
	double induced_ms;    /* its one-way delay's growth: the baseline's or its own
				 run's, the larger; NaN */
	const char *where;    /* "here", "driver", "upstream", "downstream", "none", "unknown" */
	bool disagree;	      /* the report and the counters differ by more than tolerated */
};

struct prove_capacity {
	struct prove_direction up, down;
	double up_mbps, down_mbps; /* each direction's rate (its own counters); NaN */
	uint32_t link_mbps;	   /* 0: unknown */
	uint64_t shape_rate;	   /* bytes/s of the egress shaper; 0: none */
	uint64_t shape_down_rate;  /* bytes/s of the download shaper (ingress); 0: none */
	const char *source;	   /* "given", "measured", "link", "none" */
	char why[768];
};

struct prove_capacity_in {
	const struct prove_numbers *before;    /* the baseline: its one-way delays */
	const struct prove_numbers *up, *down; /* each direction's own run (its rate, and
						  its one-way delay if larger); NULL: the
						  baseline's numbers */
	uint32_t link_mbps;		       /* 0: unknown */
	enum tristate bql;
	uint64_t given; /* bytes/s from --shape, or 0 */
	enum prove_ingress ingress;
	const char *egress_where; /* watch_where() of the baseline, or NULL */
};

void prove_capacity(const struct prove_capacity_in *in, struct prove_capacity *out);

enum prove_dir { PROVE_UP, PROVE_DOWN, PROVE_NDIRS };

/* One direction's judgment (prove_judge_directions). */
struct prove_dir_verdict {
	const char *outcome;  /* "kept", "put-back", "unchanged" (no change of its own) */
	bool changed;	      /* a change of this direction was on trial */
	bool improved;	      /* its one-way delay fell by min_gain or more */
	bool lost;	      /* its goodput fell by more than max_loss (a trade excepted) */
	bool traded;	      /* fell under both loads while the other direction rose */
	bool want_alone;      /* traded, and no run of it alone with the change on yet */
	double latency_ratio; /* one-way delay before over after; NaN */
	double goodput_ratio; /* the test's run, both loads: after over before; NaN */
	double alone_ratio;   /* its own runs, alone: after over before; NaN */
	char why[256];
};

struct prove_verdict {
	bool kept;	 /* something is kept */
	bool partial;	 /* one direction's change kept, the other's put back */
	bool want_alone; /* some direction wants its own run (prove_dir_verdict) */
	double latency_ratio, upload_ratio, download_ratio; /* NaN where not measured */
	struct prove_dir_verdict dir[PROVE_NDIRS];
	char why[320];
};

void prove_judge(const struct prove_numbers *before, const struct prove_numbers *after,
		 double min_gain, double max_loss, struct prove_verdict *out);

/*
 * Each direction on its own. The upload's change is its shaper (or, without one, the
 * rest of fix's plan: egress); the download's is its ingress shaper.
 *
 * Latency: a direction improved when its one-way delay's growth fell by min_gain or
 * more (each floored at PROVE_LATENCY_FLOOR_MS); without one-way delays, the round
 * trip's gain (prove_judge) stands for both. Its growth before is the larger of the
 * test's run and its own run alone (alone_before), as prove_capacity found its queue:
 * in a run loading both, the upload's queue can hide the download's (the download's
 * ACKs wait behind it, so it never fills its own queue), which shows once the upload
 * is shaped; against the mixed run alone, the download's shaper would look like a loss.
 *
 * Goodput: after over before in the test's run, which loads both directions at once.
 * There a direction also carries the other's ACKs: once the change frees a download
 * that the upload's queue had starved (its ACKs waited behind that queue), the
 * download's ACKs take their share of the upload, and the upload's mixed figure falls
 * while the download's rises. Such a fall (a direction below 1 - max_loss while the
 * other rose above 1 + max_loss) is a trade, not a loss of the change: the direction
 * is then judged by its own run alone, with the change on (alone_after), against its
 * capacity run alone before (alone_before); until that run exists it counts as lost
 * and want_alone is set, so the caller can run it and judge again.
 *
 * The decision: a changed direction is kept when it improved and lost nothing; a
 * direction without a change of its own that lost puts everything back (the change
 * hurt a direction nobody touched). kept: some change is kept; partial: one kept and
 * the other put back (the caller tries the kept one alone before keeping it).
 */
struct prove_judge_in {
	const struct prove_numbers *before, *after;	       /* the test's two runs */
	const struct prove_numbers *alone_before[PROVE_NDIRS]; /* each alone before; NULL */
	const struct prove_numbers *alone_after[PROVE_NDIRS];  /* each alone after; NULL */
	bool changed[PROVE_NDIRS];
	double min_gain, max_loss;
};

void prove_judge_directions(const struct prove_judge_in *in, struct prove_verdict *out);

bool prove_good(const struct prove_numbers *n);

#endif
