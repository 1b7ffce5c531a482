/* SPDX-License-Identifier: MIT */
/*
 * plot/compare.h - several runs side by side, each with its ratio to the first, for
 * `debloat compare`, through print.h (text or JSON).
 *
 * The numbers are each run's summary (plot/run.h: our JSON's own, or summary_compute
 * on a flent file). A ratio is the run's value over the first run's; null (text "-")
 * when either is not a number or the first is 0.
 *
 * JSON (keys stable; units in the names; null where nothing was measured):
 *	{"runs": [{"name", "file", "format" ("debloat" or "flent"), "test", "host", "time",
 *	           "download_mbps", "upload_mbps", "latency_idle_p50_ms",
 *	           "latency_idle_p99_ms", "latency_loaded_p50_ms", "latency_loaded_p99_ms",
 *	           "induced_latency_ms", "loss_pct", "grade", "rpm",
 *	           "ratio": {"download_mbps", ... the same numeric keys ...}}]}
 * The first run's ratios are all 1 (or null).
 */
#ifndef DEBLOAT_PLOT_COMPARE_H
#define DEBLOAT_PLOT_COMPARE_H

#include "plot/run.h"
#include "print.h"

/* files[i] is the path runs[i] was read from. */
void compare_print(struct printer *p, const struct run *runs, const char *const *files,
		   size_t nruns);

#endif
