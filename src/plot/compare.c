/* SPDX-License-Identifier: MIT */
/* plot/compare.c - plot/compare.h: the side-by-side table of runs. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "array.h"
#include "plot/compare.h"

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

static void compare_json(struct printer *p, const struct run *runs, const char *const *files,
			 size_t nruns)
{
	print_open_array(p, "runs");
	for (size_t i = 0; i < nruns; i++) {
		const struct run *run = &runs[i];

		print_open_object(p, NULL);
		print_str(p, "name", run->name, PRINT_JSON_ONLY);
		print_str(p, "file", files[i], PRINT_JSON_ONLY);
		print_str(p, "format", run->format == RUN_FORMAT_FLENT ? "flent" : "debloat",
			  PRINT_JSON_ONLY);
		print_str(p, "test", run->r.test, PRINT_JSON_ONLY);
		print_str(p, "host", run->r.host, PRINT_JSON_ONLY);
		print_str(p, "time", run->r.time_utc[0] ? run->r.time_utc : NULL, PRINT_JSON_ONLY);
		for (size_t m = 0; m <= compare_nmetrics; m++) {
			const struct compare_metric *cm =
			    m < compare_nmetrics ? &compare_metrics[m] : &metric_rpm_ietf;

			print_double(p, cm->key, cm->get(&run->s), 3, PRINT_JSON_ONLY);
		}
		print_str(p, "grade", run->s.grade[0] ? run->s.grade : NULL, PRINT_JSON_ONLY);
		print_open_object(p, "ratio");
		for (size_t m = 0; m <= compare_nmetrics; m++) {
			const struct compare_metric *cm =
			    m < compare_nmetrics ? &compare_metrics[m] : &metric_rpm_ietf;

			print_double(p, cm->key,
				     compare_ratio(cm->get(&run->s), cm->get(&runs[0].s)), 4,
				     PRINT_JSON_ONLY);
		}
		print_close(p);
		print_close(p);
	}
	print_close(p);
}

/* One text row: the label, then each run's cell in columns of width w. */
static void text_row(struct printer *p, const char *label, const char *const *cells, size_t n,
		     int w)
{
	print_text(p, "%-16s", label);
	for (size_t i = 0; i < n; i++)
		print_text(p, "  %-*s", w, cells[i]);
	print_nl(p);
}

static void compare_text(struct printer *p, const struct run *runs, const char *const *files,
			 size_t nruns)
{
	char cells[16][64];
	const char *ptr[16];
	int w = 16;

	/* A terminal is only so wide; JSON carries any number of runs. */
	if (nruns > 16)
		nruns = 16;
	for (size_t i = 0; i < nruns; i++) {
		const char *base = strrchr(files[i], '/');
		int len = (int)strlen(base ? base + 1 : files[i]);

		ptr[i] = cells[i];
		if ((int)strlen(runs[i].name) > len)
			len = (int)strlen(runs[i].name);
		if (len > w) /* as wide as the widest name or file name, at most 40 */
			w = len > 40 ? 40 : len;
	}
	/* A row broken in two is no longer a table. */
	print_set_width(p, 0);
	for (size_t i = 0; i < nruns; i++) /* a label from a file: no control characters */
		print_escape(cells[i], 41 < sizeof(cells[i]) ? 41 : sizeof(cells[i]), runs[i].name);
	text_row(p, "", ptr, nruns, w);
	for (size_t i = 0; i < nruns; i++) {
		const char *base = strrchr(files[i], '/');

		snprintf(cells[i], sizeof(cells[i]), "%.40s", base ? base + 1 : files[i]);
	}
	text_row(p, "file", ptr, nruns, w);
	for (size_t i = 0; i < nruns; i++)
		snprintf(cells[i], sizeof(cells[i]), "%s", runs[i].r.test);
	text_row(p, "test", ptr, nruns, w);
	for (size_t m = 0; m <= compare_nmetrics; m++) {
		const struct compare_metric *cm =
		    m < compare_nmetrics ? &compare_metrics[m] : &metric_rpm_ietf;
		double first = cm->get(&runs[0].s);
		bool any = false;

		for (size_t i = 0; i < nruns; i++) {
			double v = cm->get(&runs[i].s), q = compare_ratio(v, first);
			int len;

			if (!isfinite(v)) {
				snprintf(cells[i], sizeof(cells[i]), "-");
				continue;
			}
			any = true;
			len = snprintf(cells[i], sizeof(cells[i]), "%.*f", cm->decimals, v);
			if (i && isfinite(q))
				snprintf(cells[i] + len, sizeof(cells[i]) - (size_t)len, " (x%.2f)",
					 q);
		}
		if (any || cm != &metric_rpm_ietf) /* no row of dashes for rrul runs */
			text_row(p, cm->label, ptr, nruns, w);
	}
	for (size_t i = 0; i < nruns; i++)
		snprintf(cells[i], sizeof(cells[i]), "%s",
			 runs[i].s.grade[0] ? runs[i].s.grade : "-");
	text_row(p, "grade", ptr, nruns, w);
	print_set_width(p, PRINT_WIDTH);
	print_nl(p);
	print_text(p, "(xN: the run's value over the first run's)");
	print_nl(p);
}

void compare_print(struct printer *p, const struct run *runs, const char *const *files,
		   size_t nruns)
{
	if (print_is_json(p))
		compare_json(p, runs, files, nruns);
	else
		compare_text(p, runs, files, nruns);
}
