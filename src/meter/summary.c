/* SPDX-License-Identifier: MIT */
/* summary.c - summary.h: percentiles, fairness, loss and grade of one test's result. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "meter/summary.h"

enum window {
	WINDOW_IDLE,
	WINDOW_LOADED,
	WINDOW_LOAD,   /* the whole load period, ramps included (throughput) */
	WINDOW_BEFORE, /* before the load: the idle baseline of the drain */
};

/* The windows of one result, in seconds from T0. */
struct windows {
	bool has_load;
	double load_start, load_end;	 /* delay_s, delay_s + length_s */
	double loaded_start, loaded_end; /* less the ramps */
	double idle_from;		 /* after the load, idle again after this (drain) */
};

static void windows_init(const struct test_result *r, struct windows *w)
{
	w->has_load = false;
	for (size_t i = 0; i < r->nseries; i++)
		if (r->series[i].kind == SERIES_UPLOAD || r->series[i].kind == SERIES_DOWNLOAD)
			w->has_load = true;
	w->load_start = r->delay_s;
	w->load_end = r->delay_s + r->length_s;
	w->loaded_start = w->load_start;
	w->loaded_end = w->load_end;
	w->idle_from = w->load_end;
	if (r->length_s > 2 * SUMMARY_RAMP_S) {
		w->loaded_start += SUMMARY_RAMP_S;
		w->loaded_end -= SUMMARY_RAMP_S;
	}
}

static bool in_window(const struct windows *w, enum window which, double t)
{
	switch (which) {
	case WINDOW_IDLE:
		return !w->has_load || t < w->load_start ||
		       (t >= w->load_end && (t > w->idle_from || w->idle_from == w->load_end));
	case WINDOW_LOADED:
		return w->has_load && t >= w->loaded_start && t < w->loaded_end;
	case WINDOW_BEFORE:
		return w->has_load && t < w->load_start;
	case WINDOW_LOAD:
	default:
		return w->has_load && t >= w->load_start && t < w->load_end;
	}
}

/*
 * Step i holds what happened in (x_i - step_s, x_i]; it belongs to the window that
 * holds the middle of that interval.
 */
static double step_mid(const struct test_result *r, size_t i)
{
	return ((double)i - 0.5) * r->step_s;
}

/* How many values collect() may append for s. */
static size_t series_capacity(const struct test_result *r, const struct series *s)
{
	return s->nraw ? s->nraw : r->nsteps;
}

/* Sample k of s (k < series_capacity()): its time from T0 and value (NaN: lost). */
static void sample_at(const struct test_result *r, const struct series *s, size_t k, double *t,
		      double *val)
{
	if (s->nraw) {
		*t = s->raw[k].t - r->t0;
		*val = s->raw[k].val;
	} else {
		*t = step_mid(r, k);
		*val = s->values[k];
	}
}

/*
 * Append s's measured values that fall in the window to out[*n]: raw samples when
 * there are any (every probe), else the per-step values. NaN is never appended.
 */
static void collect(const struct test_result *r, const struct series *s, const struct windows *w,
		    enum window which, double *out, size_t *n)
{
	double t, v;

	for (size_t k = 0; k < series_capacity(r, s); k++) {
		sample_at(r, s, k, &t, &v);
		if (!isnan(v) && in_window(w, which, t))
			out[(*n)++] = v;
	}
}

/* The smallest measured probe value after the load; NaN without one. */
static double post_load_min(const struct test_result *r, const struct windows *w)
{
	double m = NAN, t, v;

	for (size_t i = 0; i < r->nseries; i++)
		for (size_t k = 0;
		     r->series[i].kind == SERIES_PROBE && k < series_capacity(r, &r->series[i]);
		     k++) {
			sample_at(r, &r->series[i], k, &t, &v);
			if (isfinite(v) && t >= w->load_end && !(v >= m))
				m = v;
		}
	return m;
}

/*
 * When was s's queue empty after the load: when the last of its probes still above
 * threshold came back, before the first one back at or below it (samples are stored
 * as answers come, not always in order); the load's end when none was above. 1 with
 * *when set, 0 when s never came back to idle, -1 when it has no sample after the load.
 */
static int back_to_idle(const struct test_result *r, const struct series *s,
			const struct windows *w, double threshold, double *when)
{
	double t, v, first = INFINITY;
	bool seen = false;

	for (size_t k = 0; k < series_capacity(r, s); k++) {
		sample_at(r, s, k, &t, &v);
		if (!isfinite(v) || t < w->load_end)
			continue;
		seen = true;
		if (v <= threshold)
			first = fmin(first, t);
	}
	if (!isfinite(first))
		return seen ? 0 : -1;
	*when = w->load_end;
	for (size_t k = 0; k < series_capacity(r, s); k++) {
		sample_at(r, s, k, &t, &v);
		if (isfinite(v) && t >= w->load_end && t < first && v > threshold)
			*when = fmax(*when, t);
	}
	return 1;
}

/*
 * The drain after the load (summary.h): sets sm's drain fields and w->idle_from. scratch
 * holds every probe sample.
 */
static void drain_find(const struct test_result *r, struct windows *w, double *scratch,
		       struct summary *sm)
{
	double m, end = w->load_end;
	size_t n = 0;
	bool any = false;

	sm->drain = DRAIN_NONE;
	sm->drain_s = NAN;
	sm->idle_threshold_ms = NAN;
	if (!w->has_load)
		return;
	for (size_t i = 0; i < r->nseries; i++)
		if (r->series[i].kind == SERIES_PROBE)
			collect(r, &r->series[i], w, WINDOW_BEFORE, scratch, &n);
	m = n ? summary_percentile(scratch, n, 50) : post_load_min(r, w);
	if (isnan(m))
		return;
	sm->idle_threshold_ms = fmax(2 * m, m + SUMMARY_DRAIN_MARGIN_MS);
	for (size_t i = 0; i < r->nseries; i++) {
		double when;
		int back;

		if (r->series[i].kind != SERIES_PROBE)
			continue;
		back = back_to_idle(r, &r->series[i], w, sm->idle_threshold_ms, &when);
		if (back == 0) {
			sm->drain = DRAIN_NEVER;
			w->idle_from = INFINITY;
			return;
		}
		if (back == 1) {
			any = true;
			end = fmax(end, when);
		}
	}
	if (!any)
		return;
	sm->drain = DRAIN_DONE;
	sm->drain_s = end - w->load_end;
	w->idle_from = end;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double summary_percentile(double *vals, size_t n, unsigned pct)
{
	size_t rank;

	if (!n)
		return NAN;
	if (pct > 100)
		pct = 100;
	qsort(vals, n, sizeof(*vals), cmp_double);
	/* ceil(pct * n / 100) in integers, so p99 of 100 values is exactly rank 99. */
	rank = (pct * n + 99) / 100;
	if (rank < 1)
		rank = 1;
	return vals[rank - 1];
}

static void latency_stats_of(double *vals, size_t n, struct latency_stats *st)
{
	st->n = n;
	/* p50 sorts; the next two calls sort a sorted array, which qsort does quickly. */
	st->p50 = summary_percentile(vals, n, 50);
	st->p90 = summary_percentile(vals, n, 90);
	st->p99 = summary_percentile(vals, n, 99);
}

double summary_jain(const double *x, size_t n)
{
	double sum = 0, sumsq = 0;

	for (size_t i = 0; i < n; i++) {
		sum += x[i];
		sumsq += x[i] * x[i];
	}
	if (!n || sumsq == 0)
		return NAN;
	return sum * sum / ((double)n * sumsq);
}

/*
 * The grade's rule (docs/grades.md). The scale's upper bounds in ms, best grade first;
 * the tail is held to twice them; loss caps the grade from above.
 */
static const char *const grades[] = {"A+", "A", "B", "C", "D", "F"};
static const double scale_ms[] = {5, 30, 60, 200, 400}; /* DSLReports: below 5 ms A+, ... */
#define SUMMARY_TAIL_FACTOR 2.0
static const struct {
	double above_pct; /* probe loss above this ... */
	size_t at_best;	  /* ... grades no better than grades[at_best] */
} loss_caps[] = {{5, 2 /* B */}, {25, 3 /* C */}};

static size_t scale_index(double ms, double factor)
{
	size_t i = 0;

	while (i < COUNT(scale_ms) && !(ms < scale_ms[i] * factor))
		i++;
	return i;
}

const char *summary_grade(double induced_ms, double tail_ms, double loss_pct)
{
	size_t g, t;

	if (isnan(induced_ms))
		return "";
	g = scale_index(induced_ms, 1);
	t = isnan(tail_ms) ? 0 : scale_index(tail_ms, SUMMARY_TAIL_FACTOR);
	g = t > g ? t : g;
	for (size_t i = 0; i < COUNT(loss_caps); i++)
		if (loss_pct > loss_caps[i].above_pct && g < loss_caps[i].at_best)
			g = loss_caps[i].at_best;
	return grades[g];
}

static const struct series *find_series(const struct test_result *r, const char *name)
{
	for (size_t i = 0; i < r->nseries; i++)
		if (!strcmp(r->series[i].name, name))
			return &r->series[i];
	return NULL;
}

/*
 * The time a flow of this kind loaded the path: the load period, but in a sequential
 * test rpm result only the stage of its own direction (the other stage's zeros are
 * not its goodput). Stages without a start (older files) follow one another.
 */
static void flow_window(const struct test_result *r, enum series_kind kind, const struct windows *w,
			struct windows *out)
{
	const char *dir = kind == SERIES_UPLOAD ? "upload" : "download";
	double start = 0;

	*out = *w;
	if (!r->rpm.present || !r->rpm.sequential)
		return;
	for (size_t i = 0; i < r->rpm.nstages && i < RESULT_RPM_MAX_STAGES; i++) {
		const struct result_rpm_stage *st = &r->rpm.stages[i];

		if (isfinite(st->start_s))
			start = st->start_s;
		if (!strcmp(st->direction, dir) && isfinite(st->duration_s)) {
			out->load_start = start;
			out->load_end = start + st->duration_s;
			return;
		}
		start += isfinite(st->duration_s) ? st->duration_s : 0;
	}
}

/* A flow's mean over the load period, and the p50 of its TCP RTT sub-series. */
static void flow_of(const struct test_result *r, const struct series *s, const struct windows *w,
		    double *buf, struct flow_summary *f)
{
	char rtt_name[sizeof(s->name) + 16];
	const struct series *rtt;
	struct windows fw;
	double sum = 0;
	size_t n = 0;

	snprintf(f->name, sizeof(f->name), "%s", s->name);
	f->kind = s->kind;
	f->tos = s->tos;
	flow_window(r, s->kind, w, &fw);
	for (size_t i = 0; i < r->nsteps; i++) {
		if (isnan(s->values[i]) || !in_window(&fw, WINDOW_LOAD, step_mid(r, i)))
			continue;
		sum += s->values[i];
		n++;
	}
	f->mean_mbps = n ? sum / (double)n : NAN;

	f->tcp_rtt_p50_ms = NAN;
	snprintf(rtt_name, sizeof(rtt_name), "%s::tcp_rtt", s->name);
	rtt = find_series(r, rtt_name);
	if (rtt) { /* buf holds the biggest series */
		n = 0;
		collect(r, rtt, &fw, WINDOW_LOAD, buf, &n);
		f->tcp_rtt_p50_ms = summary_percentile(buf, n, 50);
	}
}

static void direction_of(const struct summary *sm, enum series_kind kind,
			 struct direction_summary *d)
{
	double x[RESULT_MAX_SERIES];
	size_t n = 0;

	d->sum_mbps = 0;
	for (size_t i = 0; i < sm->nflows; i++) {
		if (sm->flows[i].kind != kind)
			continue;
		/* A flow that never reported counts as 0 in the fairness: it got nothing. */
		x[n] = isnan(sm->flows[i].mean_mbps) ? 0 : sm->flows[i].mean_mbps;
		d->sum_mbps += x[n];
		n++;
	}
	d->nflows = n;
	if (!n)
		d->sum_mbps = NAN;
	d->jain = summary_jain(x, n);
}

static void probe_loss_of(const struct series *s, struct probe_summary *p)
{
	if (s->sent) {
		p->sent = s->sent;
		p->lost = s->lost;
	} else {
		/* The engine did not count: every raw sample is a probe, NaN a lost one. */
		p->sent = (uint32_t)s->nraw;
		p->lost = 0;
		for (size_t i = 0; i < s->nraw; i++)
			if (isnan(s->raw[i].val))
				p->lost++;
	}
	p->loss_pct = p->sent ? 100.0 * p->lost / p->sent : NAN;
}

int summary_compute(const struct test_result *r, struct summary *out)
{
	struct summary *sm = calloc(1, sizeof(*sm));
	double *pool_idle = NULL, *pool_loaded = NULL, *buf = NULL;
	size_t total = 0, biggest = 0, nidle = 0, nloaded = 0;
	uint64_t sent = 0, lost = 0;
	struct windows w;
	int ret = -ENOMEM;

	if (!sm)
		return -ENOMEM;
	windows_init(r, &w);
	for (size_t i = 0; i < r->nseries; i++) {
		size_t c = series_capacity(r, &r->series[i]);

		if (r->series[i].kind == SERIES_PROBE)
			total += c;
		if (c > biggest)
			biggest = c;
	}
	/* One extra slot each so that a test without samples still allocates. */
	pool_idle = malloc((total + 1) * sizeof(double));
	pool_loaded = malloc((total + 1) * sizeof(double));
	buf = malloc((biggest + 1) * sizeof(double));
	if (!pool_idle || !pool_loaded || !buf)
		goto out;
	drain_find(r, &w, pool_idle, sm);

	for (size_t i = 0; i < r->nseries; i++) {
		const struct series *s = &r->series[i];

		if (s->kind == SERIES_PROBE) {
			struct probe_summary *p = &sm->probes[sm->nprobes++];
			size_t n = 0;

			snprintf(p->name, sizeof(p->name), "%s", s->name);
			p->tos = s->tos;
			collect(r, s, &w, WINDOW_IDLE, pool_idle, &nidle);
			collect(r, s, &w, WINDOW_IDLE, buf, &n);
			latency_stats_of(buf, n, &p->idle);
			n = 0;
			collect(r, s, &w, WINDOW_LOADED, pool_loaded, &nloaded);
			collect(r, s, &w, WINDOW_LOADED, buf, &n);
			latency_stats_of(buf, n, &p->loaded);
			p->induced_ms = p->loaded.p50 - p->idle.p50;
			probe_loss_of(s, p);
			sent += p->sent;
			lost += p->lost;
		} else if (s->kind == SERIES_UPLOAD || s->kind == SERIES_DOWNLOAD) {
			flow_of(r, s, &w, buf, &sm->flows[sm->nflows++]);
		}
	}
	direction_of(sm, SERIES_UPLOAD, &sm->upload);
	direction_of(sm, SERIES_DOWNLOAD, &sm->download);

	latency_stats_of(pool_idle, nidle, &sm->idle);
	latency_stats_of(pool_loaded, nloaded, &sm->loaded);
	sm->induced_ms = sm->loaded.p50 - sm->idle.p50;
	sm->loss_pct = sent ? 100.0 * (double)lost / (double)sent : NAN;
	sm->rpm = sm->loaded.p50 > 0 ? 60000.0 / sm->loaded.p50 : NAN;
	sm->rpm_ietf = r->rpm.present ? r->rpm.rpm : NAN;
	snprintf(sm->grade, sizeof(sm->grade), "%s",
		 summary_grade(sm->induced_ms, sm->loaded.p99 - sm->idle.p50, sm->loss_pct));

	*out = *sm;
	ret = 0;
out:
	free(pool_idle);
	free(pool_loaded);
	free(buf);
	free(sm);
	return ret;
}
