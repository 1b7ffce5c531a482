/* SPDX-License-Identifier: MIT */
/* plot/compare-runs.c - plot/compare-runs.h: the side-by-side table of runs. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/array.h"
#include "plot/compare-runs.h"

static double download(const struct summary *s)
{
	return s->download.sum_mbps;
}
static double upload(const struct summary *s)
{
	return s->upload.sum_mbps;
}
static double idle_p50(const struct summary *s)
{
	return s->idle.p50;
}
static double idle_p99(const struct summary *s)
{
	return s->idle.p99;
}
static double drain(const struct summary *s)
{
	return s->drain_s;
}
static double loaded_p50(const struct summary *s)
{
	return s->loaded.p50;
}
static double loaded_p99(const struct summary *s)
{
	return s->loaded.p99;
}
static double induced(const struct summary *s)
{
	return s->induced_ms;
}
static double loss(const struct summary *s)
{
	return s->loss_pct;
}
static double rpm(const struct summary *s)
{
	return s->rpm;
}
static double rpm_ietf(const struct summary *s)
{
	return s->rpm_ietf;
}

const struct compare_metric compare_metrics[] = {
    {"download_mbps", "download Mbit/s", 2, download},
    {"upload_mbps", "upload Mbit/s", 2, upload},
    {"latency_idle_p50_ms", "idle p50 ms", 2, idle_p50},
    {"latency_idle_p99_ms", "idle p99 ms", 2, idle_p99},
    {"drain_s", "drain s", 2, drain},
    {"latency_loaded_p50_ms", "loaded p50 ms", 2, loaded_p50},
    {"latency_loaded_p99_ms", "loaded p99 ms", 2, loaded_p99},
    {"induced_latency_ms", "induced ms", 2, induced},
    {"loss_pct", "probe loss %", 2, loss},
    {"rpm", "RPM probe p50", 0, rpm},
};
const size_t compare_nmetrics = COUNT(compare_metrics);
/* Only `test rpm` results have it: not in the table above, which `lab compare` shows too. */
static const struct compare_metric metric_rpm_ietf = {"rpm_ietf", "RPM (IETF)", 0, rpm_ietf};

double compare_ratio(double v, double first)
{
	if (!isfinite(v) || !isfinite(first) || first == 0)
		return NAN;
	return v / first;
}

/* The label of the metric's row in text, or NULL: no row of dashes for rrul runs. */
static const char *row_of(const struct compare_metric *cm, bool ietf)
{
	return cm == &metric_rpm_ietf && !ietf ? NULL : cm->label;
}

/*
 * One run, once: its JSON object, and its column of the text table (a value with its
 * ratio to the first run's: "16.11 (x1.06)").
 */
static void print_run(struct printer *p, const struct run *runs, const char *file, size_t i,
		      bool ietf)
{
	const struct run *run = &runs[i];
	const char *base = strrchr(file, '/');
	char cell[64];

	print_open_object(p, NULL);
	/* a label from a file: no control characters */
	print_str_cell(p, "name", run->name, i, "", "%s", print_escape(cell, 41, run->name));
	print_str_cell(p, "file", file, i, "file", "%.40s", base ? base + 1 : file);
	print_str(p, "format", run->format == RUN_FORMAT_FLENT ? "flent" : "debloat",
		  PRINT_JSON_ONLY);
	print_str_cell(p, "test", run->r.test, i, "test", "%s", run->r.test);
	print_str(p, "host", run->r.host, PRINT_JSON_ONLY);
	print_str(p, "time", run->r.time_utc[0] ? run->r.time_utc : NULL, PRINT_JSON_ONLY);
	for (size_t m = 0; m <= compare_nmetrics; m++) {
		const struct compare_metric *cm =
		    m < compare_nmetrics ? &compare_metrics[m] : &metric_rpm_ietf;
		double v = cm->get(&run->s);

		if (isfinite(v))
			snprintf(cell, sizeof(cell), "%.*f", cm->decimals, v);
		else
			snprintf(cell, sizeof(cell), "-");
		print_double_cell(p, cm->key, v, i, row_of(cm, ietf), "%s", cell);
	}
	print_str_cell(p, "grade", run->s.grade[0] ? run->s.grade : NULL, i, "grade", "%s",
		       run->s.grade[0] ? run->s.grade : "-");
	print_open_object(p, "ratio");
	for (size_t m = 0; m <= compare_nmetrics; m++) {
		const struct compare_metric *cm =
		    m < compare_nmetrics ? &compare_metrics[m] : &metric_rpm_ietf;
		double q = compare_ratio(cm->get(&run->s), cm->get(&runs[0].s));

		cell[0] = '\0';
		if (i && isfinite(q))
			snprintf(cell, sizeof(cell), " (x%.2f)", q);
		print_double_cell(p, cm->key, q, i, row_of(cm, ietf), "%s", cell);
	}
	print_close(p);
	print_close(p);
}

void compare_print(struct printer *p, const struct run *runs, const char *const *files,
		   size_t nruns)
{
	/* Each column as wide as its widest cell; the runs that would pass 80 columns go
	 * on in blocks below (the text has PRINT_TABLE_COLS runs, JSON any number). */
	struct print_table_layout layout = {.sep = "  ", .trim_last = true, .fit = true};
	bool ietf = false;

	for (size_t i = 0; i < nruns && i < PRINT_TABLE_COLS; i++)
		ietf |= isfinite(metric_rpm_ietf.get(&runs[i].s));
	print_table_begin(p);
	print_open_array(p, "runs");
	for (size_t i = 0; i < nruns; i++)
		print_run(p, runs, files[i], i, ietf);
	print_close(p);
	print_table_end(p, &layout);
	print_nl(p);
	print_text(p, "(xN: the run's value over the first run's)");
	print_nl(p);
}
