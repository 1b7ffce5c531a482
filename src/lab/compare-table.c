/* SPDX-License-Identifier: MIT */
/*
 * lab/compare-table.c - compare-int.h: the runs of `lab compare` side by side, as a
 * table for people (each value with its ratio to the first run that worked) and as
 * the "runs" of compare.h's JSON.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "array.h"
#include "json.h"
#include "meter/tests.h"
#include "plot/compare.h"
#include "plot/run.h"
#include "print.h"

#include "compare-int.h"

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

#define LABEL_W	 22
#define CELL_LEN 48

struct table {
	struct printer *p;
	const struct lc_run *runs;
	size_t n;
	size_t base; /* the first run that worked: ratios are to it */
	int w;	     /* cell width */
	char cells[LC_MAX_PROFILES][CELL_LEN];
};

static void table_row(struct table *t, const char *label)
{
	print_text(t->p, "%-*s", LABEL_W, label);
	/* The last column unpadded: no trailing blanks. */
	for (size_t i = 0; i < t->n; i++)
		print_text(t->p, " %-*s", i + 1 < t->n ? t->w : 0, t->cells[i]);
	print_nl(t->p);
}

static void metric_row(struct table *t, const struct compare_metric *m)
{
	double first = m->get(&t->runs[t->base].run->s);

	for (size_t i = 0; i < t->n; i++) {
		const struct lc_run *lr = &t->runs[i];
		double v, q;
		int len;

		if (!lr->run) {
			snprintf(t->cells[i], CELL_LEN, "failed");
			continue;
		}
		v = m->get(&lr->run->s);
		q = compare_ratio(v, first);
		len = lc_fmt_num(t->cells[i], CELL_LEN, v);
		if (i != t->base && isfinite(q) && len > 0 && len < CELL_LEN)
			snprintf(t->cells[i] + len, CELL_LEN - (size_t)len,
				 q < 0.095 ? " (x%.3f)" : " (x%.2f)", q);
	}
	table_row(t, m->label);
}

static const struct probe_summary *find_probe(const struct summary *s, const char *name)
{
	for (size_t k = 0; k < s->nprobes; k++)
		if (!strcmp(s->probes[k].name, name))
			return &s->probes[k];
	return NULL;
}

/* Per probe: "p50 / p99" idle and loaded, in the probe order of the first run. */
static void probe_rows(struct table *t)
{
	const struct summary *bs = &t->runs[t->base].run->s;
	static const char prefix[] = "Ping (ms) ";

	for (size_t k = 0; k < bs->nprobes; k++) {
		const char *name = bs->probes[k].name, *shortname = name;
		char label[64];

		if (!strncmp(name, prefix, sizeof(prefix) - 1))
			shortname = name + sizeof(prefix) - 1;
		for (int loaded = 0; loaded < 2; loaded++) {
			for (size_t i = 0; i < t->n; i++) {
				const struct probe_summary *ps;
				const struct latency_stats *st;
				char a[24], b[24];

				if (!t->runs[i].run ||
				    !(ps = find_probe(&t->runs[i].run->s, name))) {
					snprintf(t->cells[i], CELL_LEN, "-");
					continue;
				}
				st = loaded ? &ps->loaded : &ps->idle;
				lc_fmt_num(a, sizeof(a), st->p50);
				lc_fmt_num(b, sizeof(b), st->p99);
				snprintf(t->cells[i], CELL_LEN, "%s / %s", a, b);
			}
			snprintf(label, sizeof(label), "  %.10s %s", shortname,
				 loaded ? "loaded" : "idle");
			table_row(t, label);
		}
	}
}

static const struct lc_stage *find_stage(const struct lc_run *lr, const char *name)
{
	for (size_t k = 0; k < lr->nstages; k++)
		if (!strcmp(lr->stages[k].name, name))
			return &lr->stages[k];
	return NULL;
}

/* Drops (marks) per stage: a row for each stage where some run counted any. */
static void stage_rows(struct table *t, bool marks)
{
	for (size_t i0 = 0; i0 < t->n; i0++) {
		for (size_t k = 0; k < t->runs[i0].nstages; k++) {
			const char *name = t->runs[i0].stages[k].name;
			bool seen = false, any = false;
			char label[64];

			/* Each stage once: where it first appears. */
			for (size_t j = 0; j < i0 && !seen; j++)
				seen = find_stage(&t->runs[j], name) != NULL;
			for (size_t j = 0; j < k && !seen; j++)
				seen = !strcmp(t->runs[i0].stages[j].name, name);
			if (seen)
				continue;
			for (size_t i = 0; i < t->n; i++) {
				const struct lc_stage *st = find_stage(&t->runs[i], name);
				double v = st ? (marks ? st->marks : st->drops) : NAN;

				any |= isfinite(v) && v > 0;
				if (isfinite(v))
					snprintf(t->cells[i], CELL_LEN, "%.0f", v);
				else
					snprintf(t->cells[i], CELL_LEN, "-");
			}
			if (!any && (marks || strcmp(name, "qdisc")))
				continue;
			snprintf(label, sizeof(label), "%s %.14s", marks ? "CE marks" : "drops",
				 name);
			table_row(t, label);
		}
	}
}

static void lab_rows(struct table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct lc_run *lr = &t->runs[i];
		char a[24], b[24];

		if (!lr->bql)
			snprintf(t->cells[i], CELL_LEN, "no BQL");
		else if (!isfinite(lr->bql_limit_p50))
			snprintf(t->cells[i], CELL_LEN, "-");
		else {
			snprintf(a, sizeof(a), "%.0f", lr->bql_limit_p50);
			lc_fmt_num(b, sizeof(b), lr->bql_limit_max);
			snprintf(t->cells[i], CELL_LEN, "%s / %s", a, b);
		}
	}
	table_row(t, "BQL limit p50/max B");
	for (size_t i = 0; i < t->n; i++) {
		if (isfinite(t->runs[i].ring_max))
			snprintf(t->cells[i], CELL_LEN, "%.0f", t->runs[i].ring_max);
		else
			snprintf(t->cells[i], CELL_LEN, "-");
	}
	table_row(t, "ring max descriptors");
	stage_rows(t, false);
	stage_rows(t, true);
	for (size_t i = 0; i < t->n; i++)
		lc_fmt_num(t->cells[i], CELL_LEN, t->runs[i].sched_p99_us / 1e3);
	table_row(t, "emulator error p99 ms");
}

/* A run over its bound: whether it kept time, for the table's note and the JSON. */
static bool fell_behind(const struct lc_run *lr)
{
	return isfinite(lr->sched_p99_us) && isfinite(lr->sched_bound_us) &&
	       lr->sched_p99_us > lr->sched_bound_us;
}

/* Under the table: the runs whose emulator fell behind, in words. */
static void timing_notes(struct printer *p, const struct lc_run *runs, size_t n)
{
	char a[24], b[24];

	for (size_t i = 0; i < n; i++) {
		if (!fell_behind(&runs[i]))
			continue;
		lc_fmt_num(a, sizeof(a), runs[i].sched_p99_us / 1e3);
		lc_fmt_num(b, sizeof(b), runs[i].sched_bound_us / 1e3);
		print_text(p,
			   "%s: the emulator fell behind (scheduling error p99 %s ms, over %s "
			   "ms): its p99 latencies are not to be trusted",
			   runs[i].stem, a, b);
		print_nl(p);
	}
}

void lc_print_table(struct printer *p, const struct lc_run *runs, size_t n, size_t base)
{
	struct table t = {.p = p, .runs = runs, .n = n, .base = base, .w = 16};

	print_set_width(p, 0); /* a row broken in two is no longer a table */
	for (size_t i = 0; i < n; i++)
		if ((int)strlen(runs[i].stem) > t.w)
			t.w = (int)strlen(runs[i].stem);
	for (size_t i = 0; i < n; i++)
		snprintf(t.cells[i], CELL_LEN, "%s", runs[i].stem);
	table_row(&t, "");
	for (size_t m = 0; m < compare_nmetrics; m++)
		metric_row(&t, &compare_metrics[m]);
	for (size_t i = 0; i < n; i++)
		snprintf(t.cells[i], CELL_LEN, "%s",
			 !runs[i].run		   ? "failed"
			 : runs[i].run->s.grade[0] ? runs[i].run->s.grade
						   : "-");
	table_row(&t, "grade");
	print_text(p, "latency per probe, ms (p50 / p99):");
	print_nl(p);
	probe_rows(&t);
	print_text(p, "the board's transmit path (lab):");
	print_nl(p);
	lab_rows(&t);
	print_set_width(p, PRINT_WIDTH);
	timing_notes(p, runs, n);
	if (n > 1) {
		print_text(p, "(xN: the run's value over %s's)", runs[base].stem);
		print_nl(p);
	}
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

void lc_json_run(struct printer *p, const char *dir, const struct lc_run *lr,
		 const struct lc_run *base)
{
	char path[PATH_MAX];

	print_open_object(p, NULL);
	print_str(p, "profile", lr->stem, PRINT_JSON_ONLY);
	print_str(p, "describe", lr->describe[0] ? lr->describe : NULL, PRINT_JSON_ONLY);
	print_bool(p, "ok", lr->ok, PRINT_JSON_ONLY);
	print_str(p, "error", lr->ok ? NULL : lr->error, PRINT_JSON_ONLY);
	print_double(p, "elapsed_s", lr->elapsed_s, 1, PRINT_JSON_ONLY);
	if (lr->doc && json_get(lr->doc, "summary"))
		emit_jval(p, "summary", json_get(lr->doc, "summary"));
	else
		print_null(p, "summary", "-", PRINT_JSON_ONLY);
	lc_json_num(p, "bql_limit_bytes", lr->bql ? lr->bql_limit_p50 : NAN);
	lc_json_num(p, "bql_limit_max_bytes", lr->bql ? lr->bql_limit_max : NAN);
	lc_json_num(p, "ring_max_descriptors", lr->ring_max);
	lc_json_num(p, "sched_error_p99_us", lr->sched_p99_us);
	if (isfinite(lr->sched_p99_us) && isfinite(lr->sched_bound_us))
		print_bool(p, "kept_time", !fell_behind(lr), PRINT_JSON_ONLY);
	else
		print_null(p, "kept_time", "-", PRINT_JSON_ONLY);
	print_open_object(p, "drops");
	for (size_t k = 0; k < lr->nstages; k++)
		lc_json_num(p, lr->stages[k].name, lr->stages[k].drops);
	print_close(p);
	print_open_object(p, "marks");
	for (size_t k = 0; k < lr->nstages; k++)
		lc_json_num(p, lr->stages[k].name, lr->stages[k].marks);
	print_close(p);
	print_open_object(p, "ratio");
	for (size_t m = 0; m < compare_nmetrics; m++)
		print_double(p, compare_metrics[m].key,
			     lr->run && base ? compare_ratio(compare_metrics[m].get(&lr->run->s),
							     compare_metrics[m].get(&base->run->s))
					     : NAN,
			     4, PRINT_JSON_ONLY);
	print_close(p);
	print_open_object(p, "files");
	for (size_t k = 0; k < COUNT(lc_run_files); k++) {
		lc_file_path(path, sizeof(path), dir, lr->stem, lc_run_files[k][1]);
		print_str(p, lc_run_files[k][0], access(path, F_OK) ? NULL : path, PRINT_JSON_ONLY);
	}
	print_close(p);
	print_close(p);
}
