/* SPDX-License-Identifier: MIT */
/* plot/lab-table.c - plot/lab-table.h: the runs of `lab compare` side by side. */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/array.h"
#include "base/json.h"
#include "base/print.h"
#include "meter/load-tests.h"
#include "plot/compare-runs.h"
#include "plot/lab-table.h"
#include "plot/run-file.h"

/* A run's files: the JSON key of each in "files", and its name after the profile's. */
const char *const lc_run_files[LC_RUN_FILES][2] = {
    {"json", ".json"},
    {"flent", ".flent.gz"},
    {"lab_summary", ".lab.json"},
    {"telemetry", ".telemetry.json"},
    {"log", ".log"},
    {"plot", ".svg"},
};

void lc_file_path(char *out, size_t len, const char *dir, const char *stem, const char *ext)
{
	snprintf(out, len, "%s/%s%s", dir, stem, ext);
}

/* ---- The table ---- */

/* Enough digits to read, no more: 0.31, 12.4, 160. */
int lc_fmt_num(char *buf, size_t len, double v)
{
	/* Thresholds on the rounded value: 9.996 prints as 10.0, not 10.00. */
	if (!isfinite(v))
		return snprintf(buf, len, "-");
	if (fabs(v) < 9.995)
		return snprintf(buf, len, "%.2f", v);
	if (fabs(v) < 99.95)
		return snprintf(buf, len, "%.1f", v);
	return snprintf(buf, len, "%.0f", v);
}

static const struct probe_summary *find_probe(const struct summary *s, const char *name)
{
	for (size_t k = 0; k < s->nprobes; k++)
		if (!strcmp(s->probes[k].name, name))
			return &s->probes[k];
	return NULL;
}

static const struct lc_stage *find_stage(const struct lc_run *lr, const char *name)
{
	for (size_t k = 0; k < lr->nstages; k++)
		if (!strcmp(lr->stages[k].name, name))
			return &lr->stages[k];
	return NULL;
}

static const char probe_prefix[] = "Ping (ms) ";

/* The text row of a probe: "  EF idle". */
static const char *probe_row(char *buf, size_t len, const char *name, bool loaded)
{
	const char *shortname = name;

	if (!strncmp(name, probe_prefix, sizeof(probe_prefix) - 1))
		shortname = name + sizeof(probe_prefix) - 1;
	snprintf(buf, len, "  %.10s %s", shortname, loaded ? "loaded" : "idle");
	return buf;
}

/* A stage's row of drops (marks): only where some run counted any, and qdisc's drops. */
static bool stage_shown(const struct lc_run *runs, size_t n, const char *name, bool marks)
{
	for (size_t i = 0; i < n; i++) {
		const struct lc_stage *st = find_stage(&runs[i], name);
		double v = st ? (marks ? st->marks : st->drops) : NAN;

		if (isfinite(v) && v > 0)
			return true;
	}
	return !marks && !strcmp(name, "qdisc");
}

/* The text row of a stage's drops or marks, or NULL when it has none. */
static const char *stage_row(char *buf, size_t len, const struct lc_run *runs, size_t n,
			     const char *name, bool marks)
{
	if (!stage_shown(runs, n, name, marks))
		return NULL;
	snprintf(buf, len, "%s %.14s", marks ? "CE marks" : "drops", name);
	return buf;
}

/* Is runs[i].stages[k] the first stage of that name, over runs[0..i] in order? */
static bool stage_first_seen(const struct lc_run *runs, size_t i, size_t k)
{
	const char *name = runs[i].stages[k].name;

	for (size_t j = 0; j < i; j++)
		if (find_stage(&runs[j], name))
			return false;
	return find_stage(&runs[i], name) == &runs[i].stages[k];
}

#define SEND_MBPS_ROW "sending only Mbit/s"
#define SEND_P50_ROW  "sending only p50 ms"

static bool any_sending(const struct lc_run *runs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (runs[i].send_tried)
			return true;
	return false;
}

/*
 * The table's rows in their order, named before any cell: the cells come run by run
 * (the JSON's order), the rows metric by metric.
 */
static void table_rows(struct printer *p, const struct lc_run *runs, size_t n, size_t base)
{
	const struct summary *bs = &runs[base].run->s;
	char label[64];

	print_table_row(p, "");
	for (size_t m = 0; m < compare_nmetrics; m++) {
		print_table_row(p, compare_metrics[m].label);
		/* the sending-only runs' goodput under the goodput of the test's own */
		if (!strcmp(compare_metrics[m].key, "upload_mbps") && any_sending(runs, n)) {
			print_table_row(p, SEND_MBPS_ROW);
			print_table_row(p, SEND_P50_ROW);
		}
	}
	print_table_row(p, "grade");
	print_table_row(p, "latency per probe, ms (p50 / p99):");
	/* per probe, "p50 / p99" idle and loaded, in the probe order of the first run */
	for (size_t k = 0; k < bs->nprobes; k++)
		for (int loaded = 0; loaded < 2; loaded++)
			print_table_row(
			    p, probe_row(label, sizeof(label), bs->probes[k].name, loaded));
	print_table_row(p, "the board's transmit path (lab):");
	print_table_row(p, "BQL limit p50/max B");
	print_table_row(p, "ring max descriptors");
	for (int marks = 0; marks < 2; marks++)
		for (size_t i = 0; i < n; i++)
			for (size_t k = 0; k < runs[i].nstages; k++)
				if (stage_first_seen(runs, i, k))
					print_table_row(p,
							stage_row(label, sizeof(label), runs, n,
								  runs[i].stages[k].name, marks));
	print_table_row(p, "emulator error p99 ms");
}

/*
 * Text only: the cells of what the JSON has inside the run's "summary", which is the
 * test's own document reprinted (the table shows the numbers plot/run-file.h read from it).
 */
static void summary_cells(struct printer *p, const struct lc_run *runs, size_t i, size_t base)
{
	const struct lc_run *lr = &runs[i];
	const struct summary *bs = &runs[base].run->s;
	char a[24], b[24], label[64];

	for (size_t m = 0; m < compare_nmetrics; m++) {
		lc_fmt_num(a, sizeof(a), lr->run ? compare_metrics[m].get(&lr->run->s) : NAN);
		print_cell(p, i, compare_metrics[m].label, "%s", lr->run ? a : "failed");
	}
	print_cell(p, i, "grade", "%s",
		   !lr->run		 ? "failed"
		   : lr->run->s.grade[0] ? lr->run->s.grade
					 : "-");
	for (size_t k = 0; k < bs->nprobes; k++) {
		const char *name = bs->probes[k].name;
		const struct probe_summary *ps = lr->run ? find_probe(&lr->run->s, name) : NULL;

		for (int loaded = 0; loaded < 2; loaded++) {
			const struct latency_stats *st = ps && loaded ? &ps->loaded
							 : ps	      ? &ps->idle
								      : NULL;

			probe_row(label, sizeof(label), name, loaded);
			if (!st) {
				print_cell(p, i, label, "-");
				continue;
			}
			lc_fmt_num(a, sizeof(a), st->p50);
			lc_fmt_num(b, sizeof(b), st->p99);
			print_cell(p, i, label, "%s / %s", a, b);
		}
	}
}

/* A number as JSON (lc_json_num) and fmt's words in its cell of row (NULL: JSON only). */
__attribute__((format(printf, 6, 7))) static void num_cell(struct printer *p, const char *key,
							   double v, size_t col, const char *row,
							   const char *fmt, ...)
{
	char words[PRINT_TABLE_CELL];
	va_list ap;

	lc_json_num(p, key, v);
	va_start(ap, fmt);
	vsnprintf(words, sizeof(words), fmt, ap);
	va_end(ap);
	print_cell(p, col, row, "%s", words);
}

/* A count as JSON (lc_json_num) and as its cell in row ("-" when NaN). */
static void count_cell(struct printer *p, const char *key, double v, size_t col, const char *row)
{
	char a[24];

	snprintf(a, sizeof(a), "%.0f", v);
	num_cell(p, key, v, col, row, "%s", isfinite(v) ? a : "-");
}

/* The drops (marks) of each stage: an object in JSON, a cell in each shown row. */
static void stage_cells(struct printer *p, const struct lc_run *runs, size_t n, size_t i,
			bool marks)
{
	const struct lc_run *lr = &runs[i];
	char label[64];

	print_open_object(p, marks ? "marks" : "drops");
	for (size_t k = 0; k < lr->nstages; k++) {
		const struct lc_stage *st = &lr->stages[k];
		bool first = find_stage(lr, st->name) == st;

		count_cell(p, st->name, marks ? st->marks : st->drops, i,
			   first ? stage_row(label, sizeof(label), runs, n, st->name, marks)
				 : NULL);
	}
	print_close(p);
	/* "-" in the rows of the stages other runs have and this one has not */
	for (size_t j = 0; j < n; j++)
		for (size_t k = 0; k < runs[j].nstages; k++) {
			const char *name = runs[j].stages[k].name;

			if (stage_first_seen(runs, j, k) && !find_stage(lr, name))
				print_cell(p, i,
					   stage_row(label, sizeof(label), runs, n, name, marks),
					   "-");
		}
}

#define BQL_ROW "BQL limit p50/max B"

/* A run over its bound: whether it kept time, for the table's note and the JSON. */
static bool fell_behind(const struct lc_run *lr)
{
	return isfinite(lr->sched_p99_us) && isfinite(lr->sched_bound_us) &&
	       lr->sched_p99_us > lr->sched_bound_us;
}

/*
 * Whether the run's emulator kept time: JSON's kept_time, and under the table (section 1,
 * when notes) a line for a run that fell behind.
 */
static void print_timing_note(struct printer *p, const struct lc_run *lr, bool notes)
{
	char a[24], b[24];

	if (!isfinite(lr->sched_p99_us) || !isfinite(lr->sched_bound_us)) {
		print_null(p, "kept_time", "-", PRINT_JSON_ONLY);
		return;
	}
	print_section(p, notes && fell_behind(lr) ? 1 : PRINT_SECTION_NONE);
	lc_fmt_num(a, sizeof(a), lr->sched_p99_us / 1e3);
	lc_fmt_num(b, sizeof(b), lr->sched_bound_us / 1e3);
	print_bool_phrase(p, "kept_time", !fell_behind(lr),
			  "%s: the emulator fell behind (scheduling error p99 %s ms, over %s "
			  "ms): its p99 latencies are not to be trusted",
			  lr->stem, a, b);
	print_nl(p);
	print_section(p, 0);
}

/* A value and, beside it, its ratio to the base run's (none for the base itself). */
static void value_ratio_cell(struct printer *p, const char *key, double v, double base_v,
			     bool is_base, size_t col, const char *row)
{
	double q = compare_ratio(v, base_v);
	char a[24];

	lc_fmt_num(a, sizeof(a), v);
	lc_json_num(p, key, v);
	if (!is_base && isfinite(v) && isfinite(q))
		print_cell(p, col, row, q < 0.095 ? "%s (x%.3f)" : "%s (x%.2f)", a, q);
	else
		print_cell(p, col, row, "%s", a);
}

/*
 * The sending-only run of a run (--sending): JSON's "sending" (null when there was
 * none), and its cells, with ratios to the base run's sending-only run.
 */
static void sending_cells(struct printer *p, const char *dir, const struct lc_run *runs, size_t n,
			  size_t i, size_t base)
{
	const struct lc_run *lr = &runs[i];
	const struct lc_run *br = base < n ? &runs[base] : NULL;
	char stem[sizeof(lr->stem) + sizeof(LC_SEND_SUFFIX)], path[PATH_MAX];

	if (!lr->send_tried) {
		print_null(p, "sending", "-", PRINT_JSON_ONLY);
		return;
	}
	print_open_object(p, "sending");
	print_str(p, "test", LC_SEND_TEST, PRINT_JSON_ONLY);
	print_bool(p, "ok", lr->send_ok, PRINT_JSON_ONLY);
	print_str(p, "error", lr->send_ok ? NULL : lr->send_error, PRINT_JSON_ONLY);
	if (!lr->send_ok) {
		lc_json_num(p, "download_mbps", NAN);
		lc_json_num(p, "latency_loaded_p50_ms", NAN);
		print_cell(p, i, SEND_MBPS_ROW, "failed");
		print_cell(p, i, SEND_P50_ROW, "failed");
	} else {
		value_ratio_cell(p, "download_mbps", lr->send_mbps, br ? br->send_mbps : NAN,
				 i == base, i, SEND_MBPS_ROW);
		value_ratio_cell(p, "latency_loaded_p50_ms", lr->send_loaded_p50,
				 br ? br->send_loaded_p50 : NAN, i == base, i, SEND_P50_ROW);
	}
	print_open_object(p, "ratio");
	print_double(p, "download_mbps",
		     br && lr->send_ok ? compare_ratio(lr->send_mbps, br->send_mbps) : NAN, 4,
		     PRINT_JSON_ONLY);
	print_double(p, "latency_loaded_p50_ms",
		     br && lr->send_ok ? compare_ratio(lr->send_loaded_p50, br->send_loaded_p50)
				       : NAN,
		     4, PRINT_JSON_ONLY);
	print_close(p);
	snprintf(stem, sizeof(stem), "%s%s", lr->stem, LC_SEND_SUFFIX);
	print_open_object(p, "files");
	for (size_t k = 0; k < COUNT(lc_run_files); k++) {
		lc_file_path(path, sizeof(path), dir, stem, lc_run_files[k][1]);
		print_str(p, lc_run_files[k][0], access(path, F_OK) ? NULL : path, PRINT_JSON_ONLY);
	}
	print_close(p);
	print_close(p);
}

/* ---- JSON ---- */

static void emit_jval(struct printer *p, const char *key, const struct jval *v);

static int emit_member(const char *key, struct jval *v, void *data)
{
	emit_jval(data, key, v);
	return 0;
}

/* A JSON value read from a file, reprinted as is through the printer. */
static void emit_jval(struct printer *p, const char *key, const struct jval *v)
{
	int64_t i;
	double d;
	bool b;

	switch (json_kind_of(v)) {
	case JSON_KIND_OBJECT:
		print_open_object(p, key);
		json_object_foreach(v, emit_member, p);
		print_close(p);
		break;
	case JSON_KIND_ARRAY:
		print_open_array(p, key);
		for (size_t k = 0; k < json_array_len(v); k++)
			emit_jval(p, NULL, json_array_at(v, k));
		print_close(p);
		break;
	case JSON_KIND_INT:
		json_int_of(v, &i);
		print_int(p, key, i, PRINT_JSON_ONLY);
		break;
	case JSON_KIND_DOUBLE:
		json_double_of(v, &d);
		print_double(p, key, d, 3, PRINT_JSON_ONLY);
		break;
	case JSON_KIND_STRING:
		print_str(p, key, json_string_of(v), PRINT_JSON_ONLY);
		break;
	case JSON_KIND_BOOL:
		json_bool_of(v, &b);
		print_bool(p, key, b, PRINT_JSON_ONLY);
		break;
	default:
		print_null(p, key, "-", PRINT_JSON_ONLY);
		break;
	}
}

void lc_json_num(struct printer *p, const char *key, double v)
{
	if (isfinite(v) && v == floor(v) && fabs(v) < 9e15)
		print_int(p, key, (int64_t)v, PRINT_JSON_ONLY);
	else
		print_double(p, key, v, 3, PRINT_JSON_ONLY);
}

/* One run once: its object of "runs", and its column of the table. */
static void print_run(struct printer *p, const char *dir, const struct lc_run *runs, size_t n,
		      size_t i, size_t base, bool notes, size_t cut)
{
	const struct lc_run *lr = &runs[i];
	const struct lc_run *br = base < n ? &runs[base] : NULL;
	char path[PATH_MAX], a[24];

	print_open_object(p, NULL);
	print_str_cell(p, "profile", lr->stem, i, "", "%s", lr->stem + cut);
	print_str(p, "describe", lr->describe[0] ? lr->describe : NULL, PRINT_JSON_ONLY);
	print_bool(p, "ok", lr->ok, PRINT_JSON_ONLY);
	print_str(p, "error", lr->ok ? NULL : lr->error, PRINT_JSON_ONLY);
	print_double(p, "elapsed_s", lr->elapsed_s, 1, PRINT_JSON_ONLY);
	if (lr->doc && json_get(lr->doc, "summary"))
		emit_jval(p, "summary", json_get(lr->doc, "summary"));
	else
		print_null(p, "summary", "-", PRINT_JSON_ONLY);
	if (br)
		summary_cells(p, runs, i, base);
	snprintf(a, sizeof(a), "%.0f", lr->bql_limit_p50);
	num_cell(p, "bql_limit_bytes", lr->bql ? lr->bql_limit_p50 : NAN, i, BQL_ROW, "%s",
		 !lr->bql		       ? "no BQL"
		 : isfinite(lr->bql_limit_p50) ? a
					       : "-");
	lc_fmt_num(a, sizeof(a), lr->bql_limit_max);
	num_cell(p, "bql_limit_max_bytes", lr->bql ? lr->bql_limit_max : NAN, i, BQL_ROW, "%s%s",
		 lr->bql && isfinite(lr->bql_limit_p50) ? " / " : "",
		 lr->bql && isfinite(lr->bql_limit_p50) ? a : "");
	count_cell(p, "ring_max_descriptors", lr->ring_max, i, "ring max descriptors");
	lc_fmt_num(a, sizeof(a), lr->sched_p99_us / 1e3);
	num_cell(p, "sched_error_p99_us", lr->sched_p99_us, i, "emulator error p99 ms", "%s", a);
	print_timing_note(p, lr, notes);
	stage_cells(p, runs, n, i, false);
	stage_cells(p, runs, n, i, true);
	print_open_object(p, "ratio");
	for (size_t m = 0; m < compare_nmetrics; m++) {
		const struct compare_metric *cm = &compare_metrics[m];
		double q =
		    lr->run && br ? compare_ratio(cm->get(&lr->run->s), cm->get(&br->run->s)) : NAN;

		if (lr->run && i != base && isfinite(q))
			print_double_cell(p, cm->key, q, i, cm->label,
					  q < 0.095 ? " (x%.3f)" : " (x%.2f)", q);
		else
			print_double(p, cm->key, q, 4, PRINT_JSON_ONLY);
	}
	print_close(p);
	print_open_object(p, "files");
	for (size_t k = 0; k < COUNT(lc_run_files); k++) {
		lc_file_path(path, sizeof(path), dir, lr->stem, lc_run_files[k][1]);
		print_str(p, lc_run_files[k][0], access(path, F_OK) ? NULL : path, PRINT_JSON_ONLY);
	}
	print_close(p);
	sending_cells(p, dir, runs, n, i, base);
	print_close(p);
}

/*
 * From four runs on, the length of the prefix up to a '-' that every run's name shares
 * and none is ("bbb-" of the seed's four), which the table's heading leaves out to fit
 * 80 columns; else 0.
 */
static size_t common_prefix(const struct lc_run *runs, size_t n)
{
	size_t cut = 0;

	if (n < 4)
		return 0;
	for (size_t k = 0; runs[0].stem[k]; k++) {
		for (size_t i = 1; i < n; i++)
			if (runs[i].stem[k] != runs[0].stem[k])
				return cut;
		if (runs[0].stem[k] == '-') {
			for (size_t i = 0; i < n; i++)
				if (!runs[i].stem[k + 1])
					return cut;
			cut = k + 1;
		}
	}
	return cut;
}

void lc_print_runs(struct printer *p, const char *dir, const struct lc_run *runs, size_t n,
		   size_t base)
{
	size_t cut = common_prefix(runs, n);

	/* Each column as wide as its widest cell: four runs fit in 80 columns, and more
	 * go on in a second block below. */
	static const struct print_table_layout layout = {
	    .sep = "  ", .trim_last = true, .fit = true};

	/* No table when no run worked: the text says why each failed. */
	if (base < n) {
		print_table_begin(p);
		table_rows(p, runs, n, base);
	}
	/* the table in section 0, the notes on runs that fell behind under it */
	print_section(p, 0);
	print_open_array(p, "runs");
	for (size_t i = 0; i < n; i++)
		print_run(p, dir, runs, n, i, base, base < n, cut);
	print_close(p);
	print_section(p, 0);
	if (base < n)
		print_table_end(p, &layout);
	print_sections_end(p);
	if (base >= n)
		return;
	if (n > 1) {
		print_text(p, "(xN: the run's value over %s's%s%.*s%s)", runs[base].stem,
			   cut ? "; each run's name less " : "", (int)cut, runs[0].stem,
			   cut ? " at the head of its column" : "");
		print_nl(p);
	}
}
