/* SPDX-License-Identifier: MIT */
/* plot/telemetry-file.c - plot/telemetry-file.h: the lab's telemetry JSON into columns per gauge.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/json.h"
#include "base/say.h"
#include "plot/run-file.h"
#include "plot/telemetry-file.h"

static const char *const gauge_keys[TELEMETRY_NGAUGES] = {
    [TELEMETRY_QDISC_BACKLOG_BYTES] = "qdisc_backlog_bytes",
    [TELEMETRY_QDISC_BACKLOG_PKTS] = "qdisc_backlog_pkts",
    [TELEMETRY_RING_DESCS] = "ring_descs",
    [TELEMETRY_RING_BYTES] = "ring_bytes",
    [TELEMETRY_BQL_LIMIT_BYTES] = "bql_limit_bytes",
    [TELEMETRY_BQL_INFLIGHT_BYTES] = "bql_inflight_bytes",
    [TELEMETRY_SWITCH_BACKLOG_BYTES] = "switch_backlog_bytes",
    [TELEMETRY_BOARD_PORT_BACKLOG_BYTES] = "board_port_backlog_bytes",
    [TELEMETRY_CLIENT_QDISC_BACKLOG_BYTES] = "client_qdisc_backlog_bytes",
    [TELEMETRY_TSQ_HELD_BYTES] = "tsq_held_bytes",
    [TELEMETRY_WIRE_UTIL] = "wire_util",
};

/* Beyond any byte count or counter a lab can reach; keeps the drawing's sums finite. */
#define TELEMETRY_MAX_VALUE 1e15

const char *telemetry_gauge_key(enum telemetry_gauge g)
{
	return (unsigned)g < TELEMETRY_NGAUGES ? gauge_keys[g] : "?";
}

void telemetry_free(struct telemetry *t)
{
	free(t->t_s);
	t->t_s = NULL;
	for (size_t g = 0; g < TELEMETRY_NGAUGES; g++) {
		free(t->gauge[g]);
		t->gauge[g] = NULL;
	}
	for (size_t i = 0; i < t->ncounters; i++) {
		free(t->counters[i].values);
		t->counters[i].values = NULL;
	}
	t->ncounters = 0;
	t->n = 0;
}

/* A copy of a string member, or "" when absent or not a string (informational keys). */
static void copy_string(const struct jval *obj, const char *key, char *buf, size_t len)
{
	const char *s = json_string_of(json_get(obj, key));

	snprintf(buf, len, "%s", s ? s : "");
}

/* A gauge or counter value: a finite number in [0, TELEMETRY_MAX_VALUE], or NaN for null. */
static int value_of(const struct jval *v, double *out)
{
	double d;

	*out = NAN;
	if (!v)
		return 0;
	if (json_double_of(v, &d) < 0 || !isfinite(d) || d < 0 || d > TELEMETRY_MAX_VALUE)
		return -EINVAL;
	*out = d;
	return 0;
}

struct counters_ctx {
	struct telemetry *t;
	size_t sample;
	bool marks;
	char *err;
	size_t errlen;
};

static struct telemetry_counter *counter_find(struct telemetry *t, const char *stage, bool marks)
{
	for (size_t i = 0; i < t->ncounters; i++)
		if (t->counters[i].marks == marks && !strcmp(t->counters[i].stage, stage))
			return &t->counters[i];
	return NULL;
}

static int counter_member(const char *stage, struct jval *v, void *data)
{
	struct counters_ctx *c = data;
	const char *what = c->marks ? "marks" : "drops";
	struct telemetry_counter *tc = counter_find(c->t, stage, c->marks);
	double d;

	if (value_of(v, &d) < 0)
		return say_einval(
		    c->err, c->errlen,
		    "sample %zu: \"%s\" of stage \"%.40s\" is not a count (a number >= 0)",
		    c->sample, what, stage);
	if (tc)
		goto store;
	if (!stage[0] || strlen(stage) >= TELEMETRY_STAGE_LEN)
		return say_einval(c->err, c->errlen,
				  "sample %zu: \"%s\": a stage name of %zu bytes", c->sample, what,
				  strlen(stage));
	if (c->t->ncounters >= TELEMETRY_MAX_STAGES)
		return say_einval(c->err, c->errlen,
				  "sample %zu: \"%s\": more than %d stages in drops and marks",
				  c->sample, what, TELEMETRY_MAX_STAGES);
	tc = &c->t->counters[c->t->ncounters];
	tc->values = malloc(c->t->n * sizeof(*tc->values));
	if (!tc->values)
		return -ENOMEM;
	for (size_t i = 0; i < c->t->n; i++)
		tc->values[i] = NAN;
	snprintf(tc->stage, sizeof(tc->stage), "%s", stage);
	tc->marks = c->marks;
	c->t->ncounters++;
store:
	tc->values[c->sample] = d;
	return 0;
}

static int read_counters(struct telemetry *t, const struct jval *sample, size_t i, bool marks,
			 char *err, size_t errlen)
{
	const char *key = marks ? "marks" : "drops";
	struct jval *obj = json_get(sample, key);
	struct counters_ctx c = {t, i, marks, err, errlen};

	if (!obj)
		return 0;
	if (json_kind_of(obj) != JSON_KIND_OBJECT)
		return say_einval(err, errlen, "sample %zu: \"%s\" is not an object of stages", i,
				  key);
	return json_object_foreach(obj, counter_member, &c);
}

static int read_sample(struct telemetry *t, const struct jval *s, size_t i, char *err,
		       size_t errlen)
{
	struct jval *ts = json_get(s, "t_s");
	double d;
	int ret;

	if (json_kind_of(s) != JSON_KIND_OBJECT)
		return say_einval(err, errlen, "sample %zu is not an object", i);
	if (!ts)
		return say_einval(err, errlen, "sample %zu has no \"t_s\"", i);
	if (json_double_of(ts, &d) < 0 || !isfinite(d) || d < 0 || d > TELEMETRY_MAX_VALUE)
		return say_einval(err, errlen, "sample %zu: \"t_s\" is not a time (seconds >= 0)",
				  i);
	if (i && d < t->t_s[i - 1])
		return say_einval(err, errlen,
				  "sample %zu: \"t_s\" %.6g is before the previous sample's %.6g",
				  i, d, t->t_s[i - 1]);
	t->t_s[i] = d;
	for (size_t g = 0; g < TELEMETRY_NGAUGES; g++) {
		if (value_of(json_get(s, gauge_keys[g]), &t->gauge[g][i]) < 0)
			return say_einval(err, errlen, "sample %zu: \"%s\" is not a number >= 0", i,
					  gauge_keys[g]);
		t->has_gauge[g] |= !isnan(t->gauge[g][i]);
	}
	ret = read_counters(t, s, i, false, err, errlen);
	return ret < 0 ? ret : read_counters(t, s, i, true, err, errlen);
}

static int parse_doc(const struct jval *doc, struct telemetry *t, char *err, size_t errlen)
{
	struct jval *samples = json_get(doc, "samples"), *v;

	if (json_kind_of(doc) != JSON_KIND_OBJECT)
		return say_einval(err, errlen, "not the lab's telemetry (not a JSON object)");
	if (!samples)
		return say_einval(err, errlen, "not the lab's telemetry (no \"samples\")");
	if (json_kind_of(samples) != JSON_KIND_ARRAY)
		return say_einval(err, errlen, "\"samples\" is not an array");
	v = json_get(doc, "start_unix_s");
	if (!v)
		return say_einval(err, errlen,
				  "no \"start_unix_s\": the samples cannot be put in time");
	if (json_double_of(v, &t->start_unix_s) < 0 || !isfinite(t->start_unix_s) ||
	    t->start_unix_s <= 0 || t->start_unix_s > 1e11)
		return say_einval(err, errlen, "\"start_unix_s\" is not a unix time in seconds");
	t->interval_ms = NAN;
	v = json_get(doc, "interval_ms");
	if (v && (json_double_of(v, &t->interval_ms) < 0 || !(t->interval_ms > 0) ||
		  !isfinite(t->interval_ms)))
		return say_einval(err, errlen, "\"interval_ms\" is not a number > 0");
	copy_string(doc, "profile", t->profile, sizeof(t->profile));
	copy_string(doc, "describe", t->describe, sizeof(t->describe));

	t->n = json_array_len(samples);
	if (!t->n)
		return say_einval(err, errlen, "no samples");
	if (t->n > TELEMETRY_MAX_SAMPLES)
		return say_einval(err, errlen, "%zu samples, more than %u", t->n,
				  TELEMETRY_MAX_SAMPLES);
	t->t_s = malloc(t->n * sizeof(*t->t_s));
	if (!t->t_s)
		return -ENOMEM;
	for (size_t g = 0; g < TELEMETRY_NGAUGES; g++) {
		t->gauge[g] = malloc(t->n * sizeof(*t->gauge[g]));
		if (!t->gauge[g])
			return -ENOMEM;
	}
	for (size_t i = 0; i < t->n; i++) {
		int ret = read_sample(t, json_array_at(samples, i), i, err, errlen);

		if (ret < 0)
			return ret;
	}
	return 0;
}

/*
 * A file the lab did not finish: its text up to the end of the last line that closes a
 * sample ("}" or "},"), closed with "]}". -EINVAL when that does not make a document.
 */
static int parse_cut_short(const char *buf, size_t len, struct jval **doc)
{
	struct json_error jerr;
	size_t end = len;
	char *fixed;
	int ret;

	while (end > 0) {
		size_t k;

		while (end > 0 && buf[end - 1] != '\n')
			end--;
		/* the line before this newline, less trailing blanks and one comma */
		k = end ? end - 1 : 0;
		while (k > 0 && (buf[k - 1] == ' ' || buf[k - 1] == '\r' || buf[k - 1] == '\t'))
			k--;
		if (k > 0 && buf[k - 1] == ',')
			k--;
		if (k > 0 && buf[k - 1] == '}') {
			end = k;
			break;
		}
		if (end)
			end--;
	}
	if (!end)
		return -EINVAL;
	fixed = malloc(end + 3);
	if (!fixed)
		return -ENOMEM;
	memcpy(fixed, buf, end);
	memcpy(fixed + end, "]}", 3);
	ret = json_parse(fixed, end + 2, doc, &jerr);
	free(fixed);
	return ret;
}

int telemetry_parse(const char *buf, size_t len, struct telemetry *out, char *err, size_t errlen)
{
	struct telemetry *t = calloc(1, sizeof(*t));
	struct json_error jerr = {0};
	struct jval *doc = NULL;
	int ret;

	if (errlen)
		err[0] = '\0';
	if (!t)
		return -ENOMEM;
	if (len > TELEMETRY_MAX_FILE_BYTES) {
		ret = say_einval(err, errlen, "bigger than %u MB", TELEMETRY_MAX_FILE_BYTES >> 20);
		goto out;
	}
	ret = json_parse(buf, len, &doc, &jerr);
	if (ret == -EINVAL && parse_cut_short(buf, len, &doc) == 0)
		ret = 0, t->truncated = true;
	if (ret == -EINVAL) {
		json_say_error(&jerr, err, errlen);
		goto out;
	}
	if (ret < 0)
		goto out;
	ret = parse_doc(doc, t, err, errlen);
	if (ret < 0)
		goto out;
	*out = *t;
	memset(t, 0, sizeof(*t));
out:
	if (ret == -ENOMEM && errlen && !err[0])
		snprintf(err, errlen, "out of memory");
	json_free(doc);
	telemetry_free(t);
	free(t);
	return ret;
}

int telemetry_read(const char *path, struct telemetry *out, char *err, size_t errlen)
{
	char *buf = NULL;
	size_t len = 0;
	int ret;

	if (errlen)
		err[0] = '\0';
	ret = run_read_bytes(path, TELEMETRY_MAX_FILE_BYTES, &buf, &len, err, errlen);
	if (ret < 0)
		return ret;
	ret = telemetry_parse(buf, len, out, err, errlen);
	free(buf);
	return ret;
}

/* The run's timeline by wall clock: [t0, t0 + its last step]; false without a start. */
static bool run_span(const struct run *run, double *from, double *to)
{
	const struct test_result *r = &run->r;

	if (!isfinite(r->t0) || r->t0 <= 0 || !(r->step_s > 0))
		return false;
	*from = r->t0;
	*to = r->t0 + fmax((double)(r->nsteps ? r->nsteps - 1 : 0) * r->step_s,
			   2 * r->delay_s + r->length_s);
	return true;
}

double telemetry_overlap_s(const struct telemetry *t, const struct run *run)
{
	double from, to, a, b;

	if (!t->n || !run_span(run, &from, &to))
		return 0;
	a = fmax(from, t->start_unix_s + t->t_s[0]);
	b = fmin(to, t->start_unix_s + t->t_s[t->n - 1]);
	return b > a ? b - a : 0;
}

/* "2026-12-02 17:47:23" (UTC), for messages. */
static void utc(double unix_s, char *buf, size_t len)
{
	time_t s = (time_t)unix_s;
	struct tm tm;

	if (!isfinite(unix_s) || !gmtime_r(&s, &tm) ||
	    !strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(buf, len, "?");
}

int telemetry_match(const struct telemetry *t, const struct run *runs, size_t nruns, char *err,
		    size_t errlen)
{
	double best = 0, from, to;
	bool busy = false;
	int found = -ENOENT;
	char a[32], b[32];
	size_t off;

	for (size_t i = 0; i < nruns; i++) {
		double o = telemetry_overlap_s(t, &runs[i]);

		if (o > 0 && runs[i].telemetry)
			busy = true;
		else if (o > best) {
			best = o;
			found = (int)i;
		}
	}
	if (found >= 0)
		return found;
	if (!errlen)
		return busy ? -EBUSY : -ENOENT;
	if (!t->n) {
		snprintf(err, errlen, "no samples");
		return -ENOENT;
	}
	utc(t->start_unix_s + t->t_s[0], a, sizeof(a));
	utc(t->start_unix_s + t->t_s[t->n - 1], b, sizeof(b));
	if (busy) {
		snprintf(err, errlen, "its run (%s to %s UTC) already has telemetry", a, b);
		return -EBUSY;
	}
	off = (size_t)snprintf(err, errlen, "it covers %s to %s UTC, which no run does", a, b);
	for (size_t i = 0; i < nruns && off < errlen; i++) {
		if (!run_span(&runs[i], &from, &to)) {
			off += (size_t)snprintf(err + off, errlen - off, "; %s has no start time",
						runs[i].name);
			continue;
		}
		utc(from, a, sizeof(a));
		utc(to, b, sizeof(b));
		off +=
		    (size_t)snprintf(err + off, errlen - off, "; %s: %s to %s", runs[i].name, a, b);
	}
	return -ENOENT;
}

double telemetry_counter_sum(const struct telemetry *t, const struct telemetry_counter *c,
			     double from_unix_s, double to_unix_s)
{
	double sum = 0;
	bool any = false;

	for (size_t i = 0; i < t->n; i++) {
		double when = t->start_unix_s + t->t_s[i];

		if (when <= from_unix_s || when > to_unix_s || isnan(c->values[i]))
			continue;
		sum += c->values[i];
		any = true;
	}
	return any ? sum : NAN;
}
