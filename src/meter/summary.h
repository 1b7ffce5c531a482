/* SPDX-License-Identifier: MIT */
/*
 * summary.h - the numbers a person reads after a latency-under-load test, computed
 * from a struct test_result: idle and loaded latency per probe stream, the latency
 * the load added, throughput per direction and per flow, fairness, loss, a grade
 * and responsiveness.
 *
 * Windows (seconds from T0; the load runs from delay_s to delay_s + length_s):
 *	idle    t < delay_s  or  t > delay_s + length_s + drain_s (or >= when drain_s is 0)
 *	drain   delay_s + length_s <= t <= delay_s + length_s + drain_s: the queue the load
 *	        left behind still emptying; neither idle nor loaded
 *	loaded  delay_s + 1 <= t < delay_s + length_s - 1: the first and last second of
 *	        the load are ramp (slow start, flows ending) and belong to neither window.
 *	        A load of 2 s or less has no ramp excluded.
 * A test without TCP flows (ping) has no load: every sample is idle.
 *
 * Latency comes from each probe series' raw samples (every answered probe, t from
 * T0 = r->t0), or from its per-step values when it has no raw samples. Lost probes
 * (NaN) are not latencies; they count in the loss. A per-step value i stands for the
 * interval (x_i - step_s, x_i] (engine.h) and falls in the window holding the
 * interval's middle.
 *
 * The drain. When the load stops, a bloated queue still holds up to seconds of packets,
 * and the first probes after the load wait behind them: they are not idle latency.
 * The idle baseline is the median m of every probe stream's samples before the load
 * (without any, the smallest sample after it), and a probe is back to idle when it
 * comes back within SUMMARY_DRAIN_MARGIN_MS of it: at or below max(2 m, m + 2 ms).
 * A stream is back to idle when the last of its probes after the load still above that
 * came back (before its first one at or below it), or at the load's end when none was
 * above (nothing was queued); lost probes are skipped. The queue has drained when every
 * stream with samples
 * after the load is back, and drain_s is that time less the load's end; it is late by at
 * most one probe interval. A stream never back to idle before the test ends makes it
 * DRAIN_NEVER: no sample after the load is idle then, and drain_s is NaN. Without a load,
 * or without a sample after it, there is nothing to tell (DRAIN_NONE, drain_s NaN).
 *
 * Percentiles are nearest-rank: of n sorted values, the p-th percentile is the one of
 * rank ceil(p * n / 100) (1-based), so it is always a measured value: p50 of
 * {1, 2, 3, 4} is 2, p90 of ten values is the 9th, p99 of ten values is the 10th.
 * The overall idle and loaded latencies pool the samples of every probe stream.
 *
 * Throughput of a flow is the mean of its per-step values over the whole load period
 * (steps whose interval lies in [delay_s, delay_s + length_s); steps without data
 * skipped);
 * a direction's throughput is the sum of its flows' means. Jain's fairness index over
 * n flows with means x_i is (sum x_i)^2 / (n * sum x_i^2): 1 when all are equal, 1/n
 * when one flow has everything; NaN without flows or without traffic.
 *
 * Induced latency is loaded p50 minus idle p50. The grade (docs/grades.md) is the
 * worst of three: the DSLReports scale on the overall induced latency (A+ < 5 ms,
 * A < 30, B < 60, C < 200, D < 400, else F); the same scale at twice its bounds on
 * the tail's induced latency, loaded p99 minus idle p50 (A+ < 10 ms, A < 60, B < 120,
 * C < 400, D < 800), so that a tail far beyond the median pulls it down; and the
 * probes' loss, which caps it (above 5%: B at best; above 25%: C at best), since a
 * lost probe is a latency too long to measure.
 * Responsiveness (RPM, round trips per minute under working conditions) is
 * 60000 / loaded p50 in ms: "responsiveness from probe p50", our probes' view. It is
 * not the RPM of draft-ietf-ippm-responsiveness (trimmed means of HTTP and TCP
 * probes on new and loaded connections, docs/rpm.md), which only `test rpm` measures:
 * its figure is rpm_ietf, NaN for every other test (and left out of their JSON).
 *
 * Anything that cannot be computed (no samples in a window) is NaN, and the grade
 * is "" then.
 */
#ifndef DEBLOAT_METER_SUMMARY_H
#define DEBLOAT_METER_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#include "meter/result.h"

/* The ramp at each end of the load that belongs to neither window. */
#define SUMMARY_RAMP_S 1.0
/* A probe after the load is idle again within max(2 m, m + this) of the idle median m. */
#define SUMMARY_DRAIN_MARGIN_MS 2.0

enum drain_state {
	DRAIN_NONE,  /* no TCP flows, or no probe sample after the load: nothing to tell */
	DRAIN_DONE,  /* every stream came back to idle: drain_s says when */
	DRAIN_NEVER, /* some stream was still above idle when the test ended */
};

struct latency_stats {
	double p50, p90, p99; /* ms; NaN without samples */
	size_t n;	      /* samples in the window */
};

struct probe_summary {
	char name[64]; /* the series' name, "Ping (ms) UDP EF" */
	uint8_t tos;
	struct latency_stats idle, loaded;
	double induced_ms; /* loaded.p50 - idle.p50 */
	uint32_t sent, lost;
	double loss_pct; /* NaN when nothing was sent */
};

struct flow_summary {
	char name[64];	       /* "TCP download EF" */
	enum series_kind kind; /* SERIES_UPLOAD or SERIES_DOWNLOAD */
	uint8_t tos;
	double mean_mbps;      /* over the load period; NaN without data */
	double tcp_rtt_p50_ms; /* of the sub-series "NAME::tcp_rtt" during the load; NaN */
};

struct direction_summary {
	double sum_mbps; /* sum of the flows' means; NaN without flows */
	double jain;	 /* fairness over this direction's flows */
	size_t nflows;
};

struct summary {
	struct probe_summary probes[RESULT_MAX_SERIES];
	size_t nprobes;
	struct flow_summary flows[RESULT_MAX_SERIES];
	size_t nflows;
	struct direction_summary upload, download;

	struct latency_stats idle, loaded; /* all probe streams pooled */
	enum drain_state drain;
	double drain_s;		  /* from the load's end until idle again; NaN unless DRAIN_DONE */
	double idle_threshold_ms; /* a sample at or below this is back to idle; NaN without load */
	double induced_ms;
	double loss_pct; /* all probe streams: lost / sent; NaN when nothing was sent */
	double rpm;	 /* 60000 / loaded.p50: responsiveness from the probes' p50 */
	double rpm_ietf; /* test rpm: the draft's RPM (r->rpm.rpm, docs/rpm.md); else NaN */
	char grade[3];	 /* "A+", "A" .. "F", or "" */
};

/* Fill *out from r. -ENOMEM; *out is untouched on failure. */
int summary_compute(const struct test_result *r, struct summary *out);

/*
 * The nearest-rank percentile pct (1..100) of n values, which it sorts in place.
 * NaN when n is 0.
 */
double summary_percentile(double *vals, size_t n, unsigned pct);
/* Jain's fairness index of n values; NaN when n is 0 or all are 0. */
double summary_jain(const double *x, size_t n);
/*
 * The grade of induced latency, the tail's induced latency (loaded p99 - idle p50) and
 * probe loss in %, as above; a NaN tail or loss does not count; "" for a NaN induced.
 */
const char *summary_grade(double induced_ms, double tail_ms, double loss_pct);

#endif
