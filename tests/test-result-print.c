/* SPDX-License-Identifier: MIT */
/*
 * test-result-print.c - meter/result-print.h, byte for byte: the text and the JSON of
 * a test's result for every shape the printer branches on (flags, label and cc, drain
 * states, one probe, one direction, test rpm over TLS and in cleartext, verbose or not),
 * against tests/fixtures/result-print/. docs/json.md is the JSON's contract and plot
 * reads it back, so a changed byte is a failure; so is a changed line of the text.
 *
 * HARNESS_WRITE_GOLDEN=1 writes the files instead of comparing (harness.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
