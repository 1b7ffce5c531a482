/* SPDX-License-Identifier: MIT */
/*
 * test-result-print.c - meter/result-print.h, byte for byte: the text and the JSON of
 * a test's result for every shape the printer branches on (flags, label and cc, drain
 * states, one probe, one direction, test rpm over TLS and in cleartext, verbose or not),
 * against tests/fixtures/result-print/. docs/json.md is the JSON's contract and plot
 * reads it back, so a changed byte is a failure; so is a changed line of the text.
 *
 * HARNESS_WRITE_GOLDEN=1 writes the files instead of comparing (harness.h).
 *
 * Then the contract itself: the JSON document has the keys docs/json.md promises, the
 * text names the numbers, and a file that cannot be written is an error.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/json.h"
#include "harness.h"
#include "meter-fixture.h"
#include "meter/result-print.h"

enum shape {
	SHAPE_RRUL,	   /* the fixture as it is */
	SHAPE_FLAGS,	   /* every warning, a label with a control character, a cc */
	SHAPE_DRAIN_NEVER, /* the queue never drained; one probe; upload only */
	SHAPE_DRAIN_NONE,  /* nothing to tell of the drain; no flows; no grade */
	SHAPE_RPM_TLS,	   /* test rpm, sequential over TLS, a stage stopped early */
	SHAPE_RPM_H1,	   /* test rpm, concurrent over HTTP/1.1, nothing measured */
};

static void rpm_stage(struct result_rpm_stage *st, const char *dir, double rpm, double tls_ms)
{
	snprintf(st->direction, sizeof(st->direction), "%s", dir);
	st->rpm = rpm;
	st->foreign_rpm = rpm * 1.5;
	st->loaded_rpm = rpm * 0.75;
	st->tcp_ms = 12.25;
	st->tls_ms = tls_ms;
	st->http_f_ms = 25.5;
	st->http_l_ms = 80.125;
	st->goodput_mbps = 93.75;
	st->connections = 8;
	/* each direction's share: all of it for a stage of one direction */
	st->dir_mbps[0] = strcmp(dir, "upload") ? (strcmp(dir, "both") ? 93.75 : 60) : NAN;
	st->dir_mbps[1] = strcmp(dir, "download") ? (strcmp(dir, "both") ? 93.75 : 33.75) : NAN;
	st->dir_connections[0] = strcmp(dir, "upload") ? (strcmp(dir, "both") ? 8 : 5) : 0;
	st->dir_connections[1] = strcmp(dir, "download") ? (strcmp(dir, "both") ? 8 : 3) : 0;
	st->start_s = strcmp(dir, "upload") ? 0 : 14.5;
	st->intervals = 14;
	st->saturated = true;
	st->stable = rpm > 500;
	snprintf(st->confidence, sizeof(st->confidence), "%s", rpm > 500 ? "high" : "low");
	st->foreign_probes = 140;
	st->self_probes = 1120;
	st->duration_s = 14.5;
}

static void shape_result(struct test_result *r, struct summary *s, enum shape shape)
{
	struct result_rpm *m = &r->rpm;

	switch (shape) {
	case SHAPE_FLAGS:
		snprintf(r->label, sizeof(r->label), "office\x1b[2J uplink");
		snprintf(r->cc, sizeof(r->cc), "bbr");
		snprintf(r->time_utc, sizeof(r->time_utc), "2023-11-14T22:13:20.000000Z");
		r->interrupted = r->server_overloaded = r->client_cpu_saturated = true;
		snprintf(r->unavailable, sizeof(r->unavailable), "ICMP: no permission");
		break;
	case SHAPE_DRAIN_NEVER:
		s->drain = DRAIN_NEVER;
		s->drain_s = NAN;
		s->nprobes = 1;
		s->download.nflows = 0;
		break;
	case SHAPE_DRAIN_NONE:
		s->drain = DRAIN_NONE;
		s->drain_s = NAN;
		s->idle_threshold_ms = NAN;
		s->download.nflows = s->upload.nflows = 0;
		s->grade[0] = '\0';
		break;
	case SHAPE_RPM_TLS:
		m->present = true;
		snprintf(m->protocol, sizeof(m->protocol), "h2");
		m->tls = m->sequential = true;
		snprintf(m->draft, sizeof(m->draft), "draft-ietf-ippm-responsiveness-09");
		snprintf(m->config_url, sizeof(m->config_url), "https://192.0.2.1/config");
		m->mad = 4, m->tmp = 5, m->mnp = 16, m->mps = 100;
		m->id_s = 1, m->sdt = 0.05, m->ptc = 0.05, m->max_s = 20;
		m->nstages = 2;
		rpm_stage(&m->stages[0], "download", 1180, 4.5);
		rpm_stage(&m->stages[1], "upload", 420, 4.5);
		snprintf(m->stages[1].error, sizeof(m->stages[1].error), "server closed");
		m->rpm = 420;
		s->rpm_ietf = 420;
		snprintf(r->label, sizeof(r->label), "wifi");
		break;
	case SHAPE_RPM_H1:
		m->present = true;
		snprintf(m->protocol, sizeof(m->protocol), "http/1.1");
		snprintf(m->config_url, sizeof(m->config_url), "http://192.0.2.1/config");
		m->mad = 4, m->tmp = 5, m->mnp = 16, m->mps = 100;
		m->id_s = 1, m->sdt = 0.05, m->ptc = 0.05, m->max_s = 20;
		m->nstages = 1;
		rpm_stage(&m->stages[0], "both", NAN, NAN);
		m->rpm = NAN;
		s->rpm_ietf = NAN;
		r->interrupted = true;
		break;
	case SHAPE_RRUL:
	default:
		break;
	}
}

/* The fixture's output in mode (verbose: test rpm's long report), as a string. */
static char *render(enum shape shape, enum print_mode mode, bool verbose)
{
	struct test_result r;
	struct summary s;
	struct printer *p;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (fixture_rrul(&r) < 0 || summary_compute(&r, &s) < 0) {
		result_free(&r);
		return NULL;
	}
	shape_result(&r, &s, shape);
	f = open_memstream(&buf, &len);
	p = f ? print_new(f, mode) : NULL;
	if (p) {
		result_print_rpm(p, &r, &s, verbose);
		if (print_finish(p) < 0) {
			fclose(f);
			f = NULL;
			free(buf);
			buf = NULL;
		}
	}
	print_free(p);
	if (f)
		fclose(f);
	result_free(&r);
	return buf;
}

/* The output in mode against tests/fixtures/result-print/name. */
static void golden(const char *name, enum shape shape, enum print_mode mode, bool verbose)
{
	char *got = render(shape, mode, verbose);

	CHECK_GOLDEN("tests/fixtures/result-print", name, got);
	free(got);
}

TEST(rrul_text)
{
	golden("rrul.txt", SHAPE_RRUL, PRINT_MODE_TEXT, false);
}

TEST(rrul_json)
{
	golden("rrul.json", SHAPE_RRUL, PRINT_MODE_JSON, false);
}

TEST(flags_text)
{
	golden("flags.txt", SHAPE_FLAGS, PRINT_MODE_TEXT, false);
}

TEST(flags_json)
{
	golden("flags.json", SHAPE_FLAGS, PRINT_MODE_JSON, false);
}

TEST(drain_never_text)
{
	golden("drain-never.txt", SHAPE_DRAIN_NEVER, PRINT_MODE_TEXT, false);
}

TEST(drain_never_json)
{
	golden("drain-never.json", SHAPE_DRAIN_NEVER, PRINT_MODE_JSON, false);
}

TEST(drain_none_text)
{
	golden("drain-none.txt", SHAPE_DRAIN_NONE, PRINT_MODE_TEXT, false);
}

TEST(drain_none_json)
{
	golden("drain-none.json", SHAPE_DRAIN_NONE, PRINT_MODE_JSON, false);
}

TEST(rpm_tls_text)
{
	golden("rpm-tls.txt", SHAPE_RPM_TLS, PRINT_MODE_TEXT, false);
}

TEST(rpm_tls_verbose_text)
{
	golden("rpm-tls-verbose.txt", SHAPE_RPM_TLS, PRINT_MODE_TEXT, true);
}

TEST(rpm_tls_json)
{
	golden("rpm-tls.json", SHAPE_RPM_TLS, PRINT_MODE_JSON, true);
}

TEST(rpm_h1_verbose_text)
{
	golden("rpm-h1-verbose.txt", SHAPE_RPM_H1, PRINT_MODE_TEXT, true);
}

TEST(rpm_h1_json)
{
	golden("rpm-h1.json", SHAPE_RPM_H1, PRINT_MODE_JSON, false);
}

TEST(json_contract_keys)
{
	static const char *const top[] = {"test",
					  "host",
					  "length_s",
					  "step_s",
					  "summary",
					  "series",
					  "label",
					  "cc",
					  "server_overloaded",
					  "client_cpu_saturated",
					  "unavailable"};
	static const char *const summary[] = {"download_mbps",
					      "upload_mbps",
					      "latency_idle_ms",
					      "latency_loaded_ms",
					      "induced_latency_ms",
					      "loss_pct",
					      "rpm",
					      "grade",
					      "flows",
					      "probes"};
	char path[] = "/tmp/test-report-XXXXXX";
	struct test_result r;
	struct summary s;
	struct jval *doc = NULL, *sum, *lat, *ser;
	const char *str;
	double d;
	int fd;

	REQUIRE_EQ(fixture_rrul(&r), 0);
	REQUIRE_EQ(summary_compute(&r, &s), 0);
	fd = mkstemp(path);
	REQUIRE(fd >= 0);
	close(fd);
	CHECK_EQ(result_write_json(path, &r, &s), 0);
	CHECK_EQ(json_read_file(path, 16 << 20, &doc, NULL), 0);
	unlink(path);
	REQUIRE(doc);
	for (size_t i = 0; i < sizeof(top) / sizeof(*top); i++)
		if (!json_get(doc, top[i]) && strcmp(top[i], "cc") && strcmp(top[i], "unavailable"))
			CHECK_STR(top[i], "a top-level key");
	sum = json_get(doc, "summary");
	for (size_t i = 0; i < sizeof(summary) / sizeof(*summary); i++)
		if (!json_get(sum, summary[i]))
			CHECK_STR(summary[i], "a key of summary");
	lat = json_get(sum, "latency_loaded_ms");
	CHECK_EQ(json_double_of(json_get(lat, "p50"), &d), 0);
	CHECK(d == 109);
	CHECK_EQ(json_double_of(json_get(json_get(sum, "latency_idle_ms"), "p99"), &d), 0);
	CHECK(d == 19.5);
	CHECK_EQ(json_double_of(json_get(sum, "download_mbps"), &d), 0);
	CHECK(d == 80);
	CHECK_EQ(json_double_of(json_get(sum, "induced_latency_ms"), &d), 0);
	CHECK(d == 94.5);
	CHECK_EQ(json_get_string(sum, "grade", &str), 0);
	CHECK_STR(str, "C");
	CHECK_EQ(json_array_len(json_get(sum, "flows")), 8);
	CHECK_EQ(json_array_len(json_get(sum, "probes")), 4);
	ser = json_get(json_get(doc, "series"), "TCP download EF");
	CHECK_EQ(json_array_len(json_get(ser, "values")), 51);
	CHECK_EQ(json_get_string(ser, "unit", &str), 0);
	CHECK_STR(str, "Mbits/s");
	json_free(doc);
	result_free(&r);
}

TEST(text_summary_names_the_numbers)
{
	struct test_result r;
	struct summary s;
	struct printer *p;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	REQUIRE_EQ(fixture_rrul(&r), 0);
	r.client_cpu_saturated = true;
	REQUIRE_EQ(summary_compute(&r, &s), 0);
	f = open_memstream(&buf, &len);
	REQUIRE(f);
	p = print_new(f, PRINT_MODE_TEXT);
	REQUIRE(p);
	result_print(p, &r, &s);
	CHECK_EQ(print_finish(p), 0);
	print_free(p);
	fclose(f);
	CHECK(strstr(buf, "UDP EF") != NULL);
	CHECK(strstr(buf, "109.00") != NULL);
	CHECK(strstr(buf, "download  80.00 Mbit/s in 4 flows, fairness 1.000") != NULL);
	CHECK(strstr(buf, "grade C") != NULL);
	CHECK(strstr(buf, "550 RPM") != NULL);
	CHECK(strstr(buf, "CPU was saturated") != NULL);
	fputs(buf, stdout);
	free(buf);
	result_free(&r);
}

TEST(write_json_fails_cleanly)
{
	struct test_result r;
	struct summary s;

	REQUIRE_EQ(fixture_rrul(&r), 0);
	REQUIRE_EQ(summary_compute(&r, &s), 0);
	CHECK(result_write_json("/nonexistent-dir/x.json", &r, &s) < 0);
	result_free(&r);
}
