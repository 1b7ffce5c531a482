/* SPDX-License-Identifier: MIT */
/* flent.c - flent.h: flent's data file format, version 4. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/gz.h"
#include "meter/flent.h"

#ifndef DEBLOAT_VERSION
#define DEBLOAT_VERSION "unknown"
#endif

#define FLENT_FORMAT_VERSION 4

/* A JSON number, or null for NaN (json_set/json_append store NULL as null). */
static struct jval *number_or_null(double v)
{
	return isfinite(v) ? json_new_double(v) : NULL;
}

/* Appending NULL stores null; a real NULL from json_new_* is then out of memory. */
static int append_number(struct jval *arr, double v)
{
	struct jval *j = number_or_null(v);

	if (isfinite(v) && !j)
		return -ENOMEM;
	return json_append(arr, j);
}

static int set_number(struct jval *obj, const char *key, double v)
{
	struct jval *j = number_or_null(v);

	if (isfinite(v) && !j)
		return -ENOMEM;
	return json_set(obj, key, j);
}

static int set_string(struct jval *obj, const char *key, const char *s)
{
	struct jval *j = s ? json_new_string(s) : NULL;

	if (s && !j)
		return -ENOMEM;
	return json_set(obj, key, j);
}

static int set_int(struct jval *obj, const char *key, int64_t v)
{
	struct jval *j = json_new_int(v);

	return j ? json_set(obj, key, j) : -ENOMEM;
}

/* flent's time format, UTC: "2023-11-14T22:13:20.000000Z". */
static void format_time(double t, char *buf, size_t len)
{
	time_t sec = (time_t)t;
	long usec = (long)((t - (double)sec) * 1e6 + 0.5);
	struct tm tm;
	char date[32];

	if (usec >= 1000000) {
		sec++;
		usec -= 1000000;
	}
	gmtime_r(&sec, &tm);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, len, "%s.%06ldZ", date, usec);
}

/* i * step rounded to the microsecond, so 3 * 0.2 is written 0.6, not 0.6000000000000001. */
static double grid_x(size_t i, double step)
{
	return (double)(int64_t)((double)i * step * 1e6 + 0.5) / 1e6;
}

/* The TCP RTT sub-series of a flow, if the result has one. */
static const struct series *rtt_of(const struct test_result *r, const struct series *flow)
{
	char name[sizeof(flow->name) + 16];

	snprintf(name, sizeof(name), "%s::tcp_rtt", flow->name);
	for (size_t i = 0; i < r->nseries; i++)
		if (r->series[i].kind == SERIES_TCP_RTT && !strcmp(r->series[i].name, name))
			return &r->series[i];
	return NULL;
}

/* Whether a TCP RTT series has its flow in r (then it rides in the flow's raw values). */
static bool rtt_has_flow(const struct test_result *r, const struct series *rtt)
{
	for (size_t i = 0; i < r->nseries; i++)
		if ((r->series[i].kind == SERIES_UPLOAD || r->series[i].kind == SERIES_DOWNLOAD) &&
		    rtt_of(r, &r->series[i]) == rtt)
			return true;
	return false;
}

static int raw_entry(struct jval *arr, double t, double val, const char *extra_key, double extra,
		     const char *rtt_key, double rtt)
{
	struct jval *e = json_new_object();
	int ret;

	if (!e)
		return -ENOMEM;
	ret = set_number(e, "t", t);
	if (!ret)
		ret = set_number(e, "val", val);
	if (!ret && extra_key)
		ret = set_number(e, extra_key, extra);
	if (!ret && rtt_key && isfinite(rtt))
		ret = set_number(e, rtt_key, rtt);
	if (ret) {
		json_free(e);
		return ret;
	}
	return json_append(arr, e);
}

static int raw_series(const struct test_result *r, const struct series *s, struct jval *arr)
{
	bool is_flow = s->kind == SERIES_UPLOAD || s->kind == SERIES_DOWNLOAD;
	const struct series *rtt = is_flow ? rtt_of(r, s) : NULL;
	int ret = 0;

	if (s->nraw) {
		for (size_t i = 0; i < s->nraw && !ret; i++) {
			const struct raw_sample *x = &s->raw[i];
			double rv = rtt && x->seq < r->nsteps ? rtt->values[x->seq] : NAN;

			/* A lost probe has no value; flent's raw series hold only measured ones. */
			if (isnan(x->val))
				continue;
			/* flows: seq is the step index; probes: the probe's sequence number */
			ret = raw_entry(arr, x->t, x->val, is_flow ? NULL : "seq", (double)x->seq,
					rtt ? "tcp_rtt" : NULL, rv);
		}
		return ret;
	}
	for (size_t i = 0; i < r->nsteps && !ret; i++) {
		if (isnan(s->values[i]))
			continue;
		ret = raw_entry(arr, r->t0 + grid_x(i, r->step_s), s->values[i],
				is_flow ? "dur" : "seq", is_flow ? r->step_s : (double)i,
				rtt ? "tcp_rtt" : NULL, rtt ? rtt->values[i] : NAN);
	}
	return ret;
}

/* results, raw_values and SERIES_META, one series at a time. */
static int add_series(const struct test_result *r, const struct series *s, struct jval *results,
		      struct jval *raw_values, struct jval *series_meta)
{
	struct jval *values = json_new_array(), *raw = json_new_array(), *meta = json_new_object();
	int ret = 0;

	if (!values || !raw || !meta) {
		json_free(values);
		json_free(raw);
		json_free(meta);
		return -ENOMEM;
	}
	for (size_t i = 0; i < r->nsteps && !ret; i++)
		ret = append_number(values, s->values[i]);
	if (!ret)
		ret = raw_series(r, s, raw);
	if (!ret)
		ret = set_string(meta, "UNITS", s->unit);
	if (ret) {
		json_free(values);
		json_free(raw);
		json_free(meta);
		return ret;
	}
	ret = json_set(results, s->name, values);
	if (!ret)
		ret = json_set(raw_values, s->name, raw);
	else
		json_free(raw);
	if (!ret)
		ret = json_set(series_meta, s->name, meta);
	else
		json_free(meta);
	return ret;
}

/* Parse an embedded JSON text (EGRESS_INFO, SYSCTLS) into obj[key]; absent when NULL. */
static int set_embedded(struct jval *obj, const char *key, const char *text)
{
	struct jval *v = NULL;
	int ret;

	if (!text)
		return 0;
	ret = json_parse(text, strlen(text), &v, NULL);
	if (ret < 0)
		return ret;
	return json_set(obj, key, v);
}

static int test_parameters(const struct test_result *r, struct jval **out)
{
	struct jval *tp = json_new_object();
	unsigned up = 0, down = 0;
	char n[16];
	int ret = 0;

	if (!tp)
		return -ENOMEM;
	for (size_t i = 0; i < r->nseries; i++) {
		up += r->series[i].kind == SERIES_UPLOAD;
		down += r->series[i].kind == SERIES_DOWNLOAD;
	}
	/* flent's tcp_nup/tcp_ndown read these when a file is loaded; values are strings. */
	if (up) {
		snprintf(n, sizeof(n), "%u", up);
		ret = set_string(tp, "upload_streams", n);
	}
	if (!ret && down) {
		snprintf(n, sizeof(n), "%u", down);
		ret = set_string(tp, "download_streams", n);
	}
	if (!ret && r->cc[0])
		ret = set_string(tp, "tcp_cong_control", r->cc);
	if (ret) {
		json_free(tp);
		return ret;
	}
	*out = tp;
	return 0;
}

static int metadata(const struct test_result *r, struct jval *series_meta, struct jval **out)
{
	struct jval *m = json_new_object(), *hosts = json_new_array(), *tp = NULL;
	char t0[40], note[192] = "";
	int ret;

	if (!m || !hosts) {
		json_free(m);
		json_free(hosts);
		json_free(series_meta);
		return -ENOMEM;
	}
	if (r->t0 > 0)
		format_time(r->t0, t0, sizeof(t0));
	else
		snprintf(t0, sizeof(t0), "%s", r->time_utc);
	/* NOTE carries what makes the numbers doubtful, so it travels with the file. */
	if (r->interrupted)
		snprintf(note + strlen(note), sizeof(note) - strlen(note), "interrupted; ");
	if (r->server_overloaded)
		snprintf(note + strlen(note), sizeof(note) - strlen(note), "server overloaded; ");
	if (r->client_cpu_saturated)
		snprintf(note + strlen(note), sizeof(note) - strlen(note),
			 "client CPU saturated; ");
	if (r->unavailable[0])
		snprintf(note + strlen(note), sizeof(note) - strlen(note), "unavailable: %s; ",
			 r->unavailable);
	if (note[0])
		note[strlen(note) - 2] = '\0';

	ret = json_set(m, "SERIES_META", series_meta);
	if (!ret)
		ret = set_string(m, "NAME", r->test);
	if (!ret)
		ret = set_string(m, "TITLE", r->label[0] ? r->label : NULL);
	if (!ret)
		ret = set_string(m, "HOST", r->host);
	if (!ret) {
		struct jval *h = json_new_string(r->host);

		ret = h ? json_append(hosts, h) : -ENOMEM;
	}
	if (!ret)
		ret = json_set(m, "HOSTS", hosts);
	else
		json_free(hosts);
	if (!ret)
		ret = set_string(m, "LOCAL_HOST", r->local_host);
	if (!ret)
		ret = set_number(m, "LENGTH", r->length_s);
	if (!ret)
		ret = set_number(m, "TOTAL_LENGTH", r->length_s + 2 * r->delay_s);
	if (!ret)
		ret = set_number(m, "STEP_SIZE", r->step_s);
	if (!ret)
		ret = set_string(m, "TIME", t0);
	if (!ret)
		ret = set_string(m, "T0", t0);
	if (!ret)
		ret = set_int(m, "IP_VERSION", r->ip_version);
	if (!ret)
		ret = set_string(m, "NOTE", note[0] ? note : NULL);
	if (!ret)
		ret = set_string(m, "FLENT_VERSION", FLENT_WRITER_NAME "-" DEBLOAT_VERSION);
	if (!ret)
		ret = test_parameters(r, &tp);
	if (!ret)
		ret = json_set(m, "TEST_PARAMETERS", tp);
	if (!ret)
		ret = set_embedded(m, "SYSCTLS", r->sysctls_json);
	if (!ret)
		ret = set_embedded(m, "EGRESS_INFO", r->egress_info_json);
	if (ret) {
		json_free(m);
		return ret;
	}
	*out = m;
	return 0;
}

int flent_document(const struct test_result *r, struct jval **out)
{
	struct jval *doc = json_new_object(), *x = json_new_array(), *results = json_new_object(),
		    *raw = json_new_object(), *series_meta = json_new_object(), *meta = NULL;
	int ret = 0;

	if (!doc || !x || !results || !raw || !series_meta) {
		json_free(doc);
		json_free(x);
		json_free(results);
		json_free(raw);
		json_free(series_meta);
		return -ENOMEM;
	}
	/* doc owns each part from here, so one json_free(doc) cleans up any failure. */
	ret = json_set(doc, "x_values", x);
	if (!ret)
		ret = json_set(doc, "results", results);
	else
		json_free(results);
	if (!ret)
		ret = json_set(doc, "raw_values", raw);
	else
		json_free(raw);
	if (ret) {
		json_free(series_meta);
		json_free(doc);
		return ret;
	}
	ret = set_int(doc, "version", FLENT_FORMAT_VERSION);
	for (size_t i = 0; i < r->nsteps && !ret; i++)
		ret = append_number(x, grid_x(i, r->step_s));
	for (size_t i = 0; i < r->nseries && !ret; i++) {
		const struct series *s = &r->series[i];

		if (s->kind == SERIES_TCP_RTT && rtt_has_flow(r, s))
			continue;
		ret = add_series(r, s, results, raw, series_meta);
	}
	if (!ret)
		ret = metadata(r, series_meta, &meta);
	else
		json_free(series_meta);
	if (!ret)
		ret = json_set(doc, "metadata", meta);
	if (ret) {
		json_free(doc);
		return ret;
	}
	*out = doc;
	return 0;
}

int flent_write(const char *path, const struct test_result *r)
{
	struct jval *doc = NULL;
	const char *text;
	size_t len;
	int ret;

	ret = flent_document(r, &doc);
	if (ret < 0)
		return ret;
	text = json_text(doc, &len);
	ret = text ? gz_write_file(path, text, len) : -ENOMEM;
	json_free(doc);
	return ret;
}
