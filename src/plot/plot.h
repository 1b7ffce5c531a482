/* SPDX-License-Identifier: MIT */
/*
 * plot/plot.h - runs (plot/run-file.h) drawn as one SVG 1.1 document: embedded styles
 * only (no scripts, no external fonts or CSS), so it shows in any browser, on GitHub
 * and in rsvg-convert.
 *
 * Kinds:
 *	all         per run: download, upload and latency panels over time
 *	latency     per run: latency over time
 *	throughput  per run: download and upload over time
 *	cdf         one panel: the latency CDF of each probe of each run
 *	box         one panel: per run, a box of idle and one of loaded latency
 *	compare     (debloat compare -o) every run's pooled latency CDF, and a bar chart
 *	            of each run's download and upload
 * Time panels shade the idle periods (before and after the load). Panels that would
 * be empty (no upload flows in tcp_download) are left out.
 *
 * A run with the lab's telemetry (run->telemetry, plot/telemetry-file.h) gets, under its
 * latency in kinds all and latency, up to three panels on the same time axis:
 *	backlog  the board's qdisc, the switch's ports, the client's qdisc, the TSQ
 *	         model (KB), with each stage's drops and CE marks over the axis' span
 *	ring     TX descriptors in use
 *	bql      the BQL limit, the bytes in flight and the bytes in the ring (KB)
 * A sample at wall-clock time start_unix_s + t_s is drawn at x = that - the run's t0.
 * Each series is drawn per pixel column: the lowest and highest sample of the column,
 * in time order, so 10 ms samples cost at most two points per column whatever the
 * length, and keep every spike.
 *
 * What a person can rely on:
 *	- every panel is a <g class="panel" id="panel-KIND-RUN">, every drawn series a
 *	  <g class="series"> whose <title> is the series' name (a telemetry series: its
 *	  key in the file, "qdisc_backlog_bytes"), so tests (and a browser's
 *	  tooltip) can tell what is drawn; the same run from our JSON and from a flent
 *	  file gives the same panels and series;
 *	- tick values come from the "nice numbers" algorithm (steps of 1, 2 or 5 times a
 *	  power of ten), as few as it takes for the labels not to touch;
 *	- series colours differ in lightness and dash pattern, so they stay apart in
 *	  grayscale and print;
 *	- at most PLOT_MAX_POINTS points per drawn line: longer series are drawn as the
 *	  minimum and maximum of each of PLOT_MAX_POINTS / 2 buckets, which keeps every
 *	  spike (a 70 s RRUL plot is well under 300 KB).
 */
#ifndef DEBLOAT_PLOT_PLOT_H
#define DEBLOAT_PLOT_PLOT_H

#include <stddef.h>

#include "plot/run-file.h"

#define PLOT_MAX_POINTS 1000

enum plot_kind {
	PLOT_ALL,
	PLOT_LATENCY,
	PLOT_THROUGHPUT,
	PLOT_CDF,
	PLOT_BOX,
	PLOT_COMPARE,
};

struct plot_options {
	enum plot_kind kind;
	const char *title; /* NULL: made from the runs (test, label, hosts, date) */
};

/* "all", "latency", ... (not "compare"); -EINVAL for another word. */
int plot_kind_parse(const char *word, enum plot_kind *out);

/* The document in a new buffer (free()). -ENOMEM, -EFBIG, -EINVAL (no runs). */
int plot_render(const struct run *runs, size_t nruns, const struct plot_options *o, char **out,
		size_t *len);

/*
 * Nice axis ticks over [lo, hi] (Heckbert's "nice numbers"): at most max_ticks
 * ticks, the first <= lo and the last >= hi, evenly spaced by 1, 2 or 5 x 10^k.
 * Writes the first tick, the step and the count; decimals is what a label needs.
 */
void plot_nice_ticks(double lo, double hi, unsigned max_ticks, double *first, double *step,
		     unsigned *count, int *decimals);

#endif
