/* SPDX-License-Identifier: MIT */
/* plot/run-file.c - plot/run-file.h: our JSON results and flent files into struct test_result. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/array.h"
#include "base/gz.h"
#include "base/json.h"
#include "base/say.h"
#include "plot/run-file.h"

/* A number, or NaN for null or absent; -EINVAL for another type. */
static int get_number(const struct jval *obj, const char *key, double *out)
{
	struct jval *v = json_get(obj, key);

	*out = NAN;
	if (!v)
		return 0;
	return json_double_of(v, out);
}

/* A string copied into buf ("" for null or absent); -EINVAL for another type. */
static int get_string(const struct jval *obj, const char *key, char *buf, size_t len)
{
	struct jval *v = json_get(obj, key);
	const char *s;

	buf[0] = '\0';
	if (!v)
		return 0;
	s = json_string_of(v);
	if (!s)
		return -EINVAL;
	snprintf(buf, len, "%s", s);
	return 0;
}

/* One array of per-step values (numbers or null) into s->values. */
static int read_values(const struct jval *arr, struct series *s, size_t nsteps, char *err,
		       size_t errlen)
{
	if (json_kind_of(arr) != JSON_KIND_ARRAY)
		return say_einval(err, errlen, "series \"%s\": values are not an array", s->name);
	if (json_array_len(arr) != nsteps)
		return say_einval(err, errlen, "series \"%s\": %zu values, expected %zu", s->name,
				  json_array_len(arr), nsteps);
	for (size_t i = 0; i < nsteps; i++) {
		struct jval *v = json_array_at(arr, i);
		double d = NAN;

		if (v && json_double_of(v, &d) < 0)
			return say_einval(err, errlen, "series \"%s\": value %zu is not a number",
					  s->name, i);
		s->values[i] = isfinite(d) ? d : NAN;
	}
	return 0;
}

/* "2023-11-14T22:13:20.000000Z" as unix time; NaN when it is not that. */
static double parse_utc(const char *s)
{
	struct tm tm = {0};
	double frac = 0;
	const char *rest = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);

	if (!rest)
		return NAN;
	if (*rest == '.') {
		char *end;

		frac = strtod(rest, &end);
		rest = end;
	}
	return (double)timegm(&tm) + frac;
}

static void name_from_path(char *buf, size_t len, const char *path)
{
	const char *base = strrchr(path, '/');
	char *dot;

	snprintf(buf, len, "%s", base ? base + 1 : path);
	dot = strstr(buf, ".flent");
	if (!dot)
		dot = strstr(buf, ".json");
	if (dot && dot != buf)
		*dot = '\0';
}

static enum series_kind kind_of_name(const char *kind)
{
	if (!strcmp(kind, "upload"))
		return SERIES_UPLOAD;
	if (!strcmp(kind, "download"))
		return SERIES_DOWNLOAD;
	if (!strcmp(kind, "probe"))
		return SERIES_PROBE;
	if (!strcmp(kind, "tcp_rtt"))
		return SERIES_TCP_RTT;
	return (enum series_kind) - 1;
}

/* ---- our JSON ---- */

struct ours_ctx {
	struct test_result *r;
	char *err;
	size_t errlen;
};

static int ours_series(const char *key, struct jval *v, void *data)
{
	struct ours_ctx *c = data;
	char kind[16], unit[12];
	int64_t tos = 0;
	enum series_kind k;
	struct series *s;

	if (json_kind_of(v) != JSON_KIND_OBJECT || get_string(v, "kind", kind, sizeof(kind)) < 0 ||
	    get_string(v, "unit", unit, sizeof(unit)) < 0)
		return say_einval(c->err, c->errlen,
				  "series \"%s\": not an object with kind and unit", key);
	k = kind_of_name(kind);
	if ((int)k < 0)
		return say_einval(c->err, c->errlen, "series \"%s\": unknown kind \"%s\"", key,
				  kind);
	if (json_get_int(v, "tos", &tos) == -EINVAL || tos < 0 || tos > 255)
		return say_einval(c->err, c->errlen, "series \"%s\": bad tos", key);
	s = result_add_series(c->r, key, unit, k, (uint8_t)tos);
	if (!s) {
		if (c->r->nseries >= RESULT_MAX_SERIES)
			return say_einval(c->err, c->errlen, "more than %d series",
					  RESULT_MAX_SERIES);
		return -ENOMEM;
	}
	return read_values(json_get(v, "values"), s, c->r->nsteps, c->err, c->errlen);
}

/* nsteps: the length of the first series' values (each must match). */
static int first_values_len(const char *key, struct jval *v, void *data)
{
	struct jval *vals = json_get(v, "values");

	(void)key;
	*(size_t *)data = json_array_len(vals);
	return 1;
}

static int latency_stats(const struct jval *obj, const char *key, struct latency_stats *st)
{
	struct jval *l = json_get(obj, key);
	int64_t n = 0;

	if (!l)
		return 0;
	if (get_number(l, "p50", &st->p50) < 0 || get_number(l, "p90", &st->p90) < 0 ||
	    get_number(l, "p99", &st->p99) < 0 || json_get_int(l, "samples", &n) == -EINVAL)
		return -EINVAL;
	st->n = n > 0 ? (size_t)n : 0;
	return 0;
}

/*
 * The file's own drain (summary.h), measured on every probe, over the one the per-step
 * values give; a file without one (older, or nothing to tell) keeps the latter.
 */
static int ours_drain(const struct jval *j, struct summary *s)
{
	bool drained;
	int ret = json_get_bool(j, "drained", &drained);

	if (ret == -ENOENT)
		return 0;
	if (ret < 0 || get_number(j, "drain_s", &s->drain_s) < 0 ||
	    get_number(j, "idle_threshold_ms", &s->idle_threshold_ms) < 0)
		return -EINVAL;
	s->drain = drained ? DRAIN_DONE : DRAIN_NEVER;
	if (drained && !(s->drain_s >= 0))
		return -EINVAL;
	return 0;
}

/*
 * The file's own headline numbers over what summary_compute got from per-step values;
 * but a sequential test rpm result's goodput is summary_compute's, over each
 * direction's own stage (files written before it was averaged over both stages).
 */
static int ours_summary(const struct jval *doc, const struct test_result *r, struct summary *s,
			char *err, size_t errlen)
{
	struct jval *j = json_get(doc, "summary");
	double down = s->download.sum_mbps, up = s->upload.sum_mbps;
	char grade[8];

	if (!j)
		return 0;
	if (json_kind_of(j) != JSON_KIND_OBJECT ||
	    get_number(j, "download_mbps", &s->download.sum_mbps) < 0 ||
	    get_number(j, "upload_mbps", &s->upload.sum_mbps) < 0 ||
	    latency_stats(j, "latency_idle_ms", &s->idle) < 0 ||
	    latency_stats(j, "latency_loaded_ms", &s->loaded) < 0 ||
	    get_number(j, "induced_latency_ms", &s->induced_ms) < 0 ||
	    get_number(j, "loss_pct", &s->loss_pct) < 0 || get_number(j, "rpm", &s->rpm) < 0 ||
	    get_number(j, "download_fairness", &s->download.jain) < 0 ||
	    get_number(j, "upload_fairness", &s->upload.jain) < 0 ||
	    get_string(j, "grade", grade, sizeof(grade)) < 0 || ours_drain(j, s) < 0)
		return say_einval(err, errlen, "\"summary\" has a value of the wrong type");
	/* The file's grade may predate the rule (docs/grades.md): grade its numbers now. */
	snprintf(s->grade, sizeof(s->grade), "%s",
		 summary_grade(s->induced_ms, s->loaded.p99 - s->idle.p50, s->loss_pct));
	if (r->rpm.present && r->rpm.sequential)
		s->download.sum_mbps = down, s->upload.sum_mbps = up;
	return 0;
}

/* A `test rpm` result's "rpm" object (meter/result-print.h): the draft's figures. */
static int ours_rpm(const struct jval *doc, struct result_rpm *m, char *err, size_t errlen)
{
	struct jval *j = json_get(doc, "rpm"), *stages;
	char mode[16];

	if (!j)
		return 0;
	stages = json_get(j, "stages");
	if (json_kind_of(j) != JSON_KIND_OBJECT ||
	    get_string(j, "protocol", m->protocol, sizeof(m->protocol)) < 0 ||
	    get_string(j, "draft", m->draft, sizeof(m->draft)) < 0 ||
	    get_string(j, "mode", mode, sizeof(mode)) < 0 ||
	    get_string(j, "config_url", m->config_url, sizeof(m->config_url)) < 0 ||
	    get_number(j, "rpm", &m->rpm) < 0 ||
	    (stages && json_kind_of(stages) != JSON_KIND_ARRAY))
		return say_einval(err, errlen, "\"rpm\" has a value of the wrong type");
	m->present = true;
	m->sequential = !strcmp(mode, "sequential");
	for (size_t i = 0; stages && i < json_array_len(stages) && i < RESULT_RPM_MAX_STAGES; i++) {
		struct jval *st = json_array_at(stages, i);
		struct result_rpm_stage *o = &m->stages[i];

		if (json_kind_of(st) != JSON_KIND_OBJECT ||
		    get_string(st, "direction", o->direction, sizeof(o->direction)) < 0 ||
		    get_string(st, "confidence", o->confidence, sizeof(o->confidence)) < 0 ||
		    get_number(st, "rpm", &o->rpm) < 0 ||
		    get_number(st, "foreign_rpm", &o->foreign_rpm) < 0 ||
		    get_number(st, "loaded_rpm", &o->loaded_rpm) < 0 ||
		    get_number(st, "tcp_f_ms", &o->tcp_ms) < 0 ||
		    get_number(st, "tls_f_ms", &o->tls_ms) < 0 ||
		    get_number(st, "http_f_ms", &o->http_f_ms) < 0 ||
		    get_number(st, "http_l_ms", &o->http_l_ms) < 0 ||
		    get_number(st, "goodput_mbps", &o->goodput_mbps) < 0 ||
		    get_number(st, "download_mbps", &o->dir_mbps[0]) < 0 ||
		    get_number(st, "upload_mbps", &o->dir_mbps[1]) < 0 ||
		    get_number(st, "start_s", &o->start_s) < 0 ||
		    get_number(st, "duration_s", &o->duration_s) < 0)
			return say_einval(err, errlen,
					  "\"rpm\" stage %zu has a value of the wrong type", i);
		m->nstages = i + 1;
	}
	return 0;
}

static int parse_ours(const struct jval *doc, struct run *run, char *err, size_t errlen)
{
	struct test_result *r = &run->r;
	struct jval *series = json_get(doc, "series");
	struct ours_ctx c = {r, err, errlen};
	int64_t ipv = 0;
	size_t nsteps = 0;
	int ret;

	if (json_kind_of(series) != JSON_KIND_OBJECT)
		return say_einval(err, errlen, "\"series\" is not an object");
	if (get_string(doc, "test", r->test, sizeof(r->test)) < 0 ||
	    get_string(doc, "host", r->host, sizeof(r->host)) < 0 ||
	    get_string(doc, "local_host", r->local_host, sizeof(r->local_host)) < 0 ||
	    get_string(doc, "label", r->label, sizeof(r->label)) < 0 ||
	    get_string(doc, "cc", r->cc, sizeof(r->cc)) < 0 ||
	    get_string(doc, "time", r->time_utc, sizeof(r->time_utc)) < 0 ||
	    get_number(doc, "length_s", &r->length_s) < 0 ||
	    get_number(doc, "delay_s", &r->delay_s) < 0 ||
	    get_number(doc, "step_s", &r->step_s) < 0 || get_number(doc, "t0", &r->t0) < 0 ||
	    json_get_int(doc, "ip_version", &ipv) == -EINVAL)
		return say_einval(err, errlen, "a top-level key has a value of the wrong type");
	r->ip_version = (int)(ipv == 6 ? 6 : 4);
	if ((ret = ours_rpm(doc, &r->rpm, err, errlen)) < 0)
		return ret;
	json_object_foreach(series, first_values_len, &nsteps);
	if (nsteps > RUN_MAX_STEPS)
		return say_einval(err, errlen, "%zu steps, more than %u", nsteps, RUN_MAX_STEPS);
	result_init(r, nsteps);
	ret = json_object_foreach(series, ours_series, &c);
	if (ret < 0)
		return ret;
	return 0;
}

/* ---- flent ---- */

struct flent_ctx {
	struct test_result *r;
	const struct jval *meta, *raw;
	char *err;
	size_t errlen;
};

/* The kind of a flent series by its name; -1 for series we skip. */
static int flent_kind(const char *name)
{
	static const char *const computed[] = {
	    "TCP upload sum",	   "TCP download sum",	    "TCP upload avg", "TCP download avg",
	    "TCP upload fairness", "TCP download fairness", "TCP totals",     "Ping (ms) avg"};
	size_t n = strlen(name);

	for (size_t i = 0; i < COUNT(computed); i++)
		if (!strcmp(name, computed[i]))
			return -1;
	if (n > 9 && !strcmp(name + n - 9, "::tcp_rtt"))
		return SERIES_TCP_RTT;
	if (!strncmp(name, "TCP upload", 10))
		return SERIES_UPLOAD;
	if (!strncmp(name, "TCP download", 12))
		return SERIES_DOWNLOAD;
	if (!strncmp(name, "Ping", 4))
		return SERIES_PROBE;
	return -1;
}

static uint8_t tos_of_name(const char *name)
{
	const char *sp = strrchr(name, ' ');

	if (!sp)
		return 0;
	if (!strcmp(sp, " EF"))
		return 0xb8;
	if (!strcmp(sp, " CS5"))
		return 0xa0;
	if (!strcmp(sp, " BK"))
		return 0x20;
	return 0;
}

/* Raw probe samples (kept for summary_compute), with loss from gaps in seq. */
static int flent_probe_raw(const struct jval *arr, struct series *s)
{
	uint32_t lo = UINT32_MAX, hi = 0;
	bool seqs = true;

	for (size_t i = 0; i < json_array_len(arr); i++) {
		struct jval *e = json_array_at(arr, i);
		double t, val, seq;

		if (get_number(e, "t", &t) < 0 || get_number(e, "val", &val) < 0 ||
		    get_number(e, "seq", &seq) < 0)
			return -EINVAL;
		if (!isfinite(t))
			continue;
		if (!isfinite(seq) || seq < 0 || seq > UINT32_MAX)
			seqs = false;
		else {
			lo = seq < lo ? (uint32_t)seq : lo;
			hi = seq > hi ? (uint32_t)seq : hi;
		}
		if (series_add_raw(s, t, val,
				   isfinite(seq) && seq >= 0 && seq <= UINT32_MAX ? (uint32_t)seq
										  : 0) < 0)
			return -ENOMEM;
	}
	if (seqs && s->nraw && (uint64_t)hi - lo + 1 >= s->nraw) {
		s->sent = hi - lo + 1;
		s->received = (uint32_t)s->nraw;
		s->lost = s->sent - s->received;
	}
	return 0;
}

/* A flow's "tcp_rtt" raw values become the sub-series "NAME::tcp_rtt", by step. */
static int flent_flow_rtt(struct test_result *r, const struct jval *arr, const char *flow)
{
	char name[80];
	struct series *rtt = NULL;

	for (size_t i = 0; i < json_array_len(arr); i++) {
		struct jval *e = json_array_at(arr, i);
		double t, v;
		long step;

		if (get_number(e, "t", &t) < 0 || get_number(e, "tcp_rtt", &v) < 0)
			return -EINVAL;
		if (!isfinite(t) || !isfinite(v) || !isfinite(r->t0))
			continue;
		step = lround((t - r->t0) / r->step_s);
		if (step < 0 || (size_t)step >= r->nsteps)
			continue;
		if (!rtt) {
			snprintf(name, sizeof(name), "%s::tcp_rtt", flow);
			if (result_find_series(r, name))
				return 0;
			rtt = result_add_series(r, name, "ms", SERIES_TCP_RTT, tos_of_name(flow));
			if (!rtt)
				return r->nseries >= RESULT_MAX_SERIES ? 0 : -ENOMEM;
		}
		rtt->values[step] = v;
	}
	return 0;
}

static int flent_series(const char *key, struct jval *v, void *data)
{
	struct flent_ctx *c = data;
	int kind = flent_kind(key);
	struct jval *sm = json_get(json_get(c->meta, "SERIES_META"), key), *raw;
	char unit[12];
	struct series *s;
	int ret;

	if (kind < 0 || result_find_series(c->r, key))
		return 0;
	if (get_string(sm, "UNITS", unit, sizeof(unit)) < 0 || !unit[0])
		snprintf(unit, sizeof(unit), "%s",
			 kind == SERIES_UPLOAD || kind == SERIES_DOWNLOAD ? "Mbits/s" : "ms");
	s = result_add_series(c->r, key, unit, (enum series_kind)kind, tos_of_name(key));
	if (!s) {
		if (c->r->nseries >= RESULT_MAX_SERIES)
			return say_einval(c->err, c->errlen, "more than %d series",
					  RESULT_MAX_SERIES);
		return -ENOMEM;
	}
	ret = read_values(v, s, c->r->nsteps, c->err, c->errlen);
	if (ret < 0)
		return ret;
	raw = json_get(c->raw, key);
	if (raw && json_kind_of(raw) != JSON_KIND_ARRAY)
		return say_einval(c->err, c->errlen, "raw_values \"%s\" is not an array", key);
	if (raw && kind == SERIES_PROBE)
		ret = flent_probe_raw(raw, s);
	else if (raw && kind != SERIES_TCP_RTT)
		ret = flent_flow_rtt(c->r, raw, key);
	if (ret == -EINVAL)
		return say_einval(c->err, c->errlen,
				  "raw_values \"%s\": an entry is not {\"t\", \"val\"}", key);
	return ret;
}

static int parse_flent(const struct jval *doc, struct run *run, char *err, size_t errlen)
{
	struct test_result *r = &run->r;
	struct jval *x = json_get(doc, "x_values"), *results = json_get(doc, "results");
	struct flent_ctx c = {r, json_get(doc, "metadata"), json_get(doc, "raw_values"), err,
			      errlen};
	double total = NAN, x0 = 0, x1 = NAN;
	int64_t version = 0, ipv = 4;
	char t0[40];

	if (json_get_int(doc, "version", &version) < 0 || version < 1 || version > 4)
		return say_einval(err, errlen, "not a flent file of format 1 to 4 (\"version\")");
	if (json_kind_of(x) != JSON_KIND_ARRAY || json_kind_of(results) != JSON_KIND_OBJECT ||
	    json_kind_of(c.meta) != JSON_KIND_OBJECT)
		return say_einval(err, errlen, "flent file without x_values, results or metadata");
	if (c.raw && json_kind_of(c.raw) != JSON_KIND_OBJECT)
		return say_einval(err, errlen, "\"raw_values\" is not an object");
	if (json_array_len(x) > RUN_MAX_STEPS)
		return say_einval(err, errlen, "%zu steps, more than %u", json_array_len(x),
				  RUN_MAX_STEPS);
	if (get_string(c.meta, "NAME", r->test, sizeof(r->test)) < 0 ||
	    get_string(c.meta, "HOST", r->host, sizeof(r->host)) < 0 ||
	    get_string(c.meta, "LOCAL_HOST", r->local_host, sizeof(r->local_host)) < 0 ||
	    get_string(c.meta, "TITLE", r->label, sizeof(r->label)) < 0 ||
	    get_string(c.meta, "T0", t0, sizeof(t0)) < 0 ||
	    get_number(c.meta, "LENGTH", &r->length_s) < 0 ||
	    get_number(c.meta, "TOTAL_LENGTH", &total) < 0 ||
	    get_number(c.meta, "STEP_SIZE", &r->step_s) < 0 ||
	    json_get_int(c.meta, "IP_VERSION", &ipv) == -EINVAL)
		return say_einval(err, errlen, "a metadata key has a value of the wrong type");
	if (!t0[0] && get_string(c.meta, "TIME", t0, sizeof(t0)) < 0)
		return say_einval(err, errlen, "metadata TIME is not a string");
	snprintf(r->time_utc, sizeof(r->time_utc), "%s", t0);
	r->t0 = parse_utc(t0);
	r->ip_version = ipv == 6 ? 6 : 4;
	if (json_array_len(x) > 1 && (json_double_of(json_array_at(x, 0), &x0) < 0 ||
				      json_double_of(json_array_at(x, 1), &x1) < 0))
		return say_einval(err, errlen, "x_values are not numbers");
	if (!(r->step_s > 0) && x1 > x0)
		r->step_s = x1 - x0;
	r->delay_s = total > r->length_s ? (total - r->length_s) / 2 : 0;
	result_init(r, json_array_len(x));
	return json_object_foreach(results, flent_series, &c);
}

/* ---- entry points ---- */

int run_parse(const char *buf, size_t len, const char *file_name, struct run *out, char *err,
	      size_t errlen)
{
	struct run *run = calloc(1, sizeof(*run));
	struct json_error jerr = {0};
	struct jval *doc = NULL;
	int ret;

	if (!run)
		return -ENOMEM;
	err[0] = '\0';
	ret = json_parse(buf, len, &doc, &jerr);
	if (ret == -EINVAL) {
		json_say_error(&jerr, err, errlen);
		goto out;
	}
	if (ret < 0)
		goto out;
	if (json_kind_of(doc) != JSON_KIND_OBJECT) {
		ret = say_einval(err, errlen, "not a debloat result or flent file (not an object)");
	} else if (json_get(doc, "x_values")) {
		run->format = RUN_FORMAT_FLENT;
		ret = parse_flent(doc, run, err, errlen);
	} else if (json_get(doc, "series")) {
		run->format = RUN_FORMAT_DEBLOAT;
		ret = parse_ours(doc, run, err, errlen);
	} else {
		ret = say_einval(
		    err, errlen,
		    "not a debloat result or flent file (no \"series\" or \"x_values\")");
	}
	if (!ret && !run->r.nseries)
		ret = say_einval(err, errlen, "no series to show");
	if (!ret && (!(run->r.step_s > 0) || !isfinite(run->r.step_s)))
		ret = say_einval(err, errlen, "no step size");
	if (!ret && !isfinite(run->r.length_s))
		run->r.length_s = 0;
	if (!ret && !isfinite(run->r.delay_s))
		run->r.delay_s = 0;
	if (!ret)
		ret = summary_compute(&run->r, &run->s);
	if (!ret && run->format == RUN_FORMAT_DEBLOAT)
		ret = ours_summary(doc, &run->r, &run->s, err, errlen);
	if (ret < 0)
		goto out;
	if (run->r.label[0])
		snprintf(run->name, sizeof(run->name), "%s", run->r.label);
	else
		name_from_path(run->name, sizeof(run->name), file_name ? file_name : "run");
	*out = *run;
	memset(&run->r, 0, sizeof(run->r));
out:
	if (ret == -ENOMEM && !err[0])
		snprintf(err, errlen, "out of memory");
	json_free(doc);
	result_free(&run->r);
	free(run);
	return ret;
}

int run_read_bytes(const char *path, size_t max, char **buf, size_t *len, char *err, size_t errlen)
{
	int ret = gz_read_any(path, max, buf, len);

	if (ret == -EBADMSG)
		snprintf(err, errlen, "corrupt or truncated gzip data");
	else if (ret == -EFBIG)
		snprintf(err, errlen, "bigger than %zu MB", max >> 20);
	else if (ret < 0)
		snprintf(err, errlen, "%s", strerror(-ret));
	return ret;
}

int run_read(const char *path, struct run *out, char *err, size_t errlen)
{
	char *buf = NULL;
	size_t len = 0;
	int ret;

	err[0] = '\0';
	ret = run_read_bytes(path, RUN_MAX_FILE_BYTES, &buf, &len, err, errlen);
	if (ret < 0)
		return ret;
	ret = run_parse(buf, len, path, out, err, errlen);
	free(buf);
	return ret;
}

void run_free(struct run *run)
{
	result_free(&run->r);
}

int run_read_all(char *const *paths, size_t n, struct run **out, char *err, size_t errlen)
{
	struct run *runs = calloc(n ? n : 1, sizeof(*runs));
	char why[256];
	int ret = 0;

	if (!runs) {
		snprintf(err, errlen, "%s: out of memory", n ? paths[0] : "runs");
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		ret = run_read(paths[i], &runs[i], why, sizeof(why));
		if (ret < 0) {
			snprintf(err, errlen, "%s: %s", paths[i], why);
			run_free_all(runs, i);
			return ret;
		}
		/* two runs of one label (a run's JSON and flent files): tell them apart */
		for (size_t k = 0; k < i; k++)
			if (!strcmp(runs[k].name, runs[i].name)) {
				const char *base = strrchr(paths[i], '/');
				size_t len = strlen(runs[i].name);

				snprintf(runs[i].name + len, sizeof(runs[i].name) - len, " (%s)",
					 base ? base + 1 : paths[i]);
				break;
			}
	}
	*out = runs;
	return 0;
}

void run_free_all(struct run *runs, size_t n)
{
	if (!runs)
		return;
	for (size_t i = 0; i < n; i++)
		run_free(&runs[i]);
	free(runs);
}
