/* SPDX-License-Identifier: MIT */
/*
 * plot/compare-runs.h - several runs side by side, each with its ratio to the first, for
 * `debloat compare`, through print.h (text or JSON).
 *
 * The numbers are each run's summary (plot/run-file.h: our JSON's own, or summary_compute
 * on a flent file). A ratio is the run's value over the first run's; null (text "-")
 * when either is not a number or the first is 0.
 *
 * JSON (keys stable; units in the names; null where nothing was measured):
 *	{"runs": [{"name", "file", "format" ("debloat" or "flent"), "test", "host", "time",
 *	           "download_mbps", "upload_mbps", "latency_idle_p50_ms",
 *	           "latency_idle_p99_ms", "latency_loaded_p50_ms", "latency_loaded_p99_ms",
 *	           "induced_latency_ms", "loss_pct", "grade", "rpm" (from the loaded probe
 *	           p50), "rpm_ietf" (test rpm: the draft's RPM; else null),
 *	           "ratio": {"download_mbps", ... the same numeric keys ...}}]}
 * The first run's ratios are all 1 (or null).
 */
#ifndef DEBLOAT_PLOT_COMPARE_H
#define DEBLOAT_PLOT_COMPARE_H

#include "base/print.h"
#include "plot/run-file.h"

/*
 * One number of a run's summary that runs are compared on: its JSON key (unit in the
 * name), its text label, the decimals `debloat compare` prints it with, and how to
 * read it. `debloat lab compare` (plot/lab-table.c) shows the same ones.
 */
struct compare_metric {
	const char *key;
	const char *label;
	int decimals;
	double (*get)(const struct summary *s);
};
/* Download, upload, idle and loaded p50/p99, induced latency, probe loss, RPM from the
 * probe p50. (compare_print adds rpm_ietf, the draft's RPM of test rpm results.) */
extern const struct compare_metric compare_metrics[];
extern const size_t compare_nmetrics;

/* v / first; NaN when either is not finite or first is 0. */
double compare_ratio(double v, double first);

/* files[i] is the path runs[i] was read from. */
void compare_print(struct printer *p, const struct run *runs, const char *const *files,
		   size_t nruns);

#endif
