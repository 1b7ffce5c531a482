/* SPDX-License-Identifier: MIT */
/* test-summary.c - meter/summary.h on hand-built results with known answers. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "meter-fixture.h"
#include "meter/summary.h"

static bool check_near(const char *file, int line, const char *expr, double a, double b)
{
	char detail[96];

	if ((isnan(a) && isnan(b)) || (a - b < 1e-9 && b - a < 1e-9))
		return true;
	snprintf(detail, sizeof(detail), "got %.12g, want %.12g", a, b);
	harness_fail(file, line, expr, detail);
	return false;
}
#define CHECK_NEAR(a, b) check_near(__FILE__, __LINE__, #a, (a), (b))

TEST(percentile_nearest_rank)
{
	double four[] = {4, 1, 3, 2};
	double ten[10], hundred[100], one[] = {7};

	for (int i = 0; i < 10; i++)
		ten[i] = 10 - i; /* unsorted on purpose */
	for (int i = 0; i < 100; i++)
		hundred[i] = 100 - i;
	CHECK_NEAR(summary_percentile(four, 4, 50), 2);
	CHECK_NEAR(summary_percentile(four, 4, 100), 4);
	CHECK_NEAR(summary_percentile(ten, 10, 50), 5);
	CHECK_NEAR(summary_percentile(ten, 10, 90), 9);
	CHECK_NEAR(summary_percentile(ten, 10, 99), 10);
	CHECK_NEAR(summary_percentile(ten, 10, 1), 1);
	CHECK_NEAR(summary_percentile(hundred, 100, 99), 99);
	CHECK_NEAR(summary_percentile(hundred, 100, 50), 50);
	CHECK_NEAR(summary_percentile(one, 1, 99), 7);
	CHECK(isnan(summary_percentile(one, 0, 50)));
}

TEST(jain_equal_unequal_and_degenerate)
{
	double equal[] = {5, 5, 5, 5}, hog[] = {8, 0, 0, 0}, three[] = {1, 2, 3}, zero[] = {0, 0};

	CHECK_NEAR(summary_jain(equal, 4), 1.0);
	CHECK_NEAR(summary_jain(hog, 4), 0.25);
	CHECK_NEAR(summary_jain(three, 3), 36.0 / 42.0);
	CHECK(isnan(summary_jain(equal, 0)));
	CHECK(isnan(summary_jain(zero, 2)));
}

TEST(grade_boundaries)
{
	CHECK_STR(summary_grade(-3, NAN, NAN), "A+");
	CHECK_STR(summary_grade(0, NAN, NAN), "A+");
	CHECK_STR(summary_grade(4.999, NAN, NAN), "A+");
	CHECK_STR(summary_grade(5, NAN, NAN), "A");
	CHECK_STR(summary_grade(29.99, NAN, NAN), "A");
	CHECK_STR(summary_grade(30, NAN, NAN), "B");
	CHECK_STR(summary_grade(59.99, NAN, NAN), "B");
	CHECK_STR(summary_grade(60, NAN, NAN), "C");
	CHECK_STR(summary_grade(199.9, NAN, NAN), "C");
	CHECK_STR(summary_grade(200, NAN, NAN), "D");
	CHECK_STR(summary_grade(399.9, NAN, NAN), "D");
	CHECK_STR(summary_grade(400, NAN, NAN), "F");
	CHECK_STR(summary_grade(5000, NAN, NAN), "F");
	CHECK_STR(summary_grade(NAN, NAN, NAN), "");
}

TEST(grade_weighs_the_tail_and_the_loss)
{
	/* the tail is held to twice the scale's bounds */
	CHECK_STR(summary_grade(4, 9.99, 0), "A+");
	CHECK_STR(summary_grade(4, 10, 0), "A");
	CHECK_STR(summary_grade(20, 59.9, 0), "A");
	CHECK_STR(summary_grade(20, 60, 0), "B");
	/* a loaded p99 of 225 ms beside a B median: C */
	CHECK_STR(summary_grade(45, 225, 0), "C");
	CHECK_STR(summary_grade(160, 408, 0), "D");
	/* the tail never improves a grade */
	CHECK_STR(summary_grade(250, 0, 0), "D");
	/* more than 5% probe loss never grades A; more than 25%, never B */
	CHECK_STR(summary_grade(1, 2, 5), "A+");
	CHECK_STR(summary_grade(1, 2, 5.01), "B");
	CHECK_STR(summary_grade(19.98, 28.67, 35.78), "C");
	/* ... and never improves one either */
	CHECK_STR(summary_grade(450, 500, 30), "F");
}

TEST(rrul_latency_windows_exclude_ramp)
{
	struct test_result r;
	struct summary s;

	REQUIRE_EQ(fixture_rrul(&r), 0);
	REQUIRE_EQ(summary_compute(&r, &s), 0);
	REQUIRE_EQ(s.nprobes, 4);
	for (size_t i = 0; i < s.nprobes; i++) {
		CHECK_EQ(s.probes[i].idle.n, 20);
		CHECK_EQ(s.probes[i].loaded.n, 20);
		CHECK_NEAR(s.probes[i].idle.p50, 14.5);
		CHECK_NEAR(s.probes[i].idle.p90, 18.5);
		CHECK_NEAR(s.probes[i].idle.p99, 19.5);
		CHECK_NEAR(s.probes[i].loaded.p50, 109);
		CHECK_NEAR(s.probes[i].loaded.p90, 117);
		/* the 1000 ms ramp samples must not reach p99 */
		CHECK_NEAR(s.probes[i].loaded.p99, 119);
		CHECK_NEAR(s.probes[i].induced_ms, 94.5);
	}
	CHECK_STR(s.probes[0].name, "Ping (ms) UDP EF");
	CHECK_EQ(s.probes[0].tos, 0xb8);
	CHECK_EQ(s.idle.n, 80);
	CHECK_NEAR(s.idle.p50, 14.5);
	CHECK_NEAR(s.idle.p90, 18.5);
	CHECK_NEAR(s.idle.p99, 19.5);
	CHECK_NEAR(s.loaded.p50, 109);
	CHECK_NEAR(s.loaded.p99, 119);
	CHECK_NEAR(s.induced_ms, 94.5);
	CHECK_STR(s.grade, "C");
	CHECK_NEAR(s.rpm, 60000.0 / 109);
	result_free(&r);
}

TEST(rrul_loss_counts_nan_samples_and_counters)
{
	struct test_result r;
	struct summary s;

	REQUIRE_EQ(fixture_rrul(&r), 0);
	REQUIRE_EQ(summary_compute(&r, &s), 0);
	/* UDP BK: no counters, 1 NaN among 51 raw samples */
	CHECK_EQ(s.probes[1].sent, 51);
	CHECK_EQ(s.probes[1].lost, 1);
	CHECK_NEAR(s.probes[1].loss_pct, 100.0 / 51);
	/* ICMP: the engine's counters win */
	CHECK_EQ(s.probes[3].sent, 50);
	CHECK_NEAR(s.probes[3].loss_pct, 4.0);
	CHECK_NEAR(s.probes[0].loss_pct, 0);
	CHECK_NEAR(s.loss_pct, 300.0 / 201);
	/* the lost probe is no latency: loaded still has 20 samples */
	CHECK_EQ(s.probes[1].loaded.n, 20);
	result_free(&r);
}

TEST(rrul_throughput_and_fairness)
{
	struct test_result r;
	struct summary s;

	REQUIRE_EQ(fixture_rrul(&r), 0);
	REQUIRE_EQ(summary_compute(&r, &s), 0);
	REQUIRE_EQ(s.nflows, 8);
	CHECK_EQ(s.upload.nflows, 4);
	CHECK_EQ(s.download.nflows, 4);
	/* the zeros outside the load must not dilute the means */
	CHECK_NEAR(s.flows[0].mean_mbps, 5);
	CHECK_NEAR(s.flows[3].mean_mbps, 20);
	CHECK_NEAR(s.upload.sum_mbps, 50);
	CHECK_NEAR(s.download.sum_mbps, 80);
	CHECK_NEAR(s.download.jain, 1.0);
	CHECK_NEAR(s.upload.jain, 2500.0 / 3000.0);
	CHECK_STR(s.flows[4].name, "TCP download BE");
	CHECK_EQ(s.flows[4].kind, SERIES_DOWNLOAD);
	CHECK_NEAR(s.flows[0].tcp_rtt_p50_ms, 50);
	CHECK(isnan(s.flows[1].tcp_rtt_p50_ms));
	result_free(&r);
}

TEST(ping_only_is_all_idle)
{
	struct test_result r = {0};
	struct summary s;
	struct series *icmp;

	r.delay_s = 0;
	r.length_s = 4;
	r.step_s = 1;
	r.t0 = 100;
	REQUIRE_EQ(result_init(&r, 5), 0);
	icmp = result_add_series(&r, "Ping (ms) ICMP", "ms", SERIES_PROBE, 0);
	REQUIRE(icmp);
	for (unsigned k = 0; k < 4; k++)
		REQUIRE_EQ(series_add_raw(icmp, 100.5 + k, 20 + k, k), 0);
	REQUIRE_EQ(summary_compute(&r, &s), 0);
	CHECK_EQ(s.idle.n, 4);
	CHECK_NEAR(s.idle.p50, 21);
	CHECK_EQ(s.loaded.n, 0);
	CHECK(isnan(s.loaded.p50));
	CHECK(isnan(s.induced_ms));
	CHECK(isnan(s.rpm));
	CHECK_STR(s.grade, "");
	CHECK(isnan(s.download.sum_mbps));
	CHECK(isnan(s.upload.jain));
	result_free(&r);
}

/*
 * One probe stream and one upload: delay 2 s, load 6 s, a probe every 0.2 s at
 * x = 0.1 + 0.2 k (k = 0..49). Before the load 1 ms; under it 100 ms; after it the
 * values in post[] from x = 8.1 on, then 1 ms to the end.
 */
static void drain_result(struct test_result *r, const double *post, size_t npost)
{
	struct series *p, *up;

	*r = (struct test_result){.delay_s = 2, .length_s = 6, .step_s = 0.2, .t0 = 100};
	REQUIRE_EQ(result_init(r, 51), 0);
	p = result_add_series(r, "Ping (ms) UDP BE", "ms", SERIES_PROBE, 0);
	up = result_add_series(r, "TCP upload BE", "Mbits/s", SERIES_UPLOAD, 0);
	REQUIRE(p && up);
	for (unsigned k = 0; k < 50; k++) {
		double x = 0.1 + 0.2 * k, v = x < 2 ? 1 : x < 8 ? 100 : 1;

		if (x >= 8 && (size_t)(k - 40) < npost)
			v = post[k - 40];
		REQUIRE_EQ(series_add_raw(p, r->t0 + x, v, k), 0);
	}
	for (unsigned i = 11; i <= 40; i++)
		up->values[i] = 10;
}

TEST(drain_after_the_load_is_not_idle)
{
	const double post[] = {900, 600, 300, 1.5}; /* the last queued one back at 8.5 */
	struct test_result r;
	struct summary s;

	drain_result(&r, post, 4);
	REQUIRE_EQ(summary_compute(&r, &s), 0);
	CHECK_EQ(s.drain, DRAIN_DONE);
	CHECK_NEAR(s.idle_threshold_ms, 3); /* max(2 x 1, 1 + 2) */
	CHECK(fabs(s.drain_s - 0.5) < 1e-9);
	CHECK_EQ(s.idle.n, 10 + 7); /* before the load, and from x = 8.7 on */
	CHECK_NEAR(s.idle.p99, 1.5);
	CHECK_NEAR(s.probes[0].idle.p99, 1.5);
	result_free(&r);
}

TEST(drain_ends_when_the_last_queued_probe_came_back)
{
	/* the probes that came back at 8.1 and 8.3 had waited; the one at 8.5 had not */
	const double post[] = {300, 150, 1.5};
	struct test_result r;
	struct summary s;

	drain_result(&r, post, 3);
	REQUIRE_EQ(summary_compute(&r, &s), 0);
	CHECK_EQ(s.drain, DRAIN_DONE);
	CHECK(fabs(s.drain_s - 0.3) < 1e-9);
	CHECK_EQ(s.idle.n, 10 + 8); /* from x = 8.5 on */
	result_free(&r);
}

TEST(no_queue_left_drains_at_once_and_keeps_every_idle_sample)
{
	struct test_result r;
	struct summary s;

	drain_result(&r, NULL, 0);
	REQUIRE_EQ(summary_compute(&r, &s), 0);
	CHECK_EQ(s.drain, DRAIN_DONE);
	CHECK_NEAR(s.drain_s, 0);
	CHECK_EQ(s.idle.n, 20);
	CHECK_NEAR(s.idle.p99, 1);
	result_free(&r);
}

TEST(a_queue_that_never_drains_leaves_only_the_idle_before_the_load)
{
	const double post[10] = {900, 800, 700, 600, 500, 400, 300, 200, 100, 50};
	struct test_result r;
	struct summary s;

	drain_result(&r, post, 10);
	REQUIRE_EQ(summary_compute(&r, &s), 0);
	CHECK_EQ(s.drain, DRAIN_NEVER);
	CHECK(isnan(s.drain_s));
	CHECK_EQ(s.idle.n, 10);
	CHECK_NEAR(s.idle.p99, 1);
	result_free(&r);
}

TEST(drain_without_a_baseline_before_the_load_uses_the_quietest_probe_after_it)
{
	const double post[] = {400, 200, 2, 2.5}; /* m = 1 (the tail), threshold 3 */
	struct test_result r;
	struct summary s;

	drain_result(&r, post, 4);
	r.delay_s = 0;
	r.length_s = 8;
	REQUIRE_EQ(summary_compute(&r, &s), 0);
	CHECK_EQ(s.drain, DRAIN_DONE);
	CHECK_NEAR(s.idle_threshold_ms, 3);
	CHECK(fabs(s.drain_s - 0.3) < 1e-9);
	result_free(&r);
}

TEST(ping_only_has_no_drain)
{
	struct test_result r = {0};
	struct series *icmp;
	struct summary s;

	r.length_s = 4;
	r.step_s = 1;
	REQUIRE_EQ(result_init(&r, 5), 0);
	icmp = result_add_series(&r, "Ping (ms) ICMP", "ms", SERIES_PROBE, 0);
	REQUIRE(icmp);
	REQUIRE_EQ(series_add_raw(icmp, 0.5, 900, 0), 0);
	REQUIRE_EQ(summary_compute(&r, &s), 0);
	CHECK_EQ(s.drain, DRAIN_NONE);
	CHECK(isnan(s.drain_s));
	CHECK_EQ(s.idle.n, 1);
	result_free(&r);
}

TEST(empty_result_and_empty_series)
{
	struct test_result r = {0};
	struct summary s;

	r.length_s = 10;
	r.delay_s = 2;
	r.step_s = 0.2;
	REQUIRE_EQ(result_init(&r, 0), 0);
	REQUIRE_EQ(summary_compute(&r, &s), 0);
	CHECK_EQ(s.nprobes, 0);
	CHECK_EQ(s.nflows, 0);
	CHECK(isnan(s.idle.p50));
	CHECK(isnan(s.loss_pct));
	CHECK_STR(s.grade, "");

	REQUIRE(result_add_series(&r, "Ping (ms) UDP BE", "ms", SERIES_PROBE, 0));
	REQUIRE(result_add_series(&r, "TCP upload BE", "Mbits/s", SERIES_UPLOAD, 0));
	REQUIRE_EQ(summary_compute(&r, &s), 0);
	CHECK_EQ(s.nprobes, 1);
	CHECK(isnan(s.probes[0].idle.p50));
	CHECK(isnan(s.probes[0].loss_pct));
	CHECK(isnan(s.flows[0].mean_mbps));
	/* a flow that never reported got nothing: sum 0, fairness undefined */
	CHECK_NEAR(s.upload.sum_mbps, 0);
	CHECK(isnan(s.upload.jain));
	result_free(&r);
}

TEST(result_series_storage)
{
	struct test_result r = {0};
	struct series *s;

	REQUIRE_EQ(result_init(&r, 3), 0);
	s = result_add_series(&r, "TCP download EF", "Mbits/s", SERIES_DOWNLOAD, 0xb8);
	REQUIRE(s);
	CHECK(isnan(s->values[0]) && isnan(s->values[2]));
	for (unsigned i = 0; i < 1000; i++)
		REQUIRE_EQ(series_add_raw(s, i, i, i), 0);
	CHECK_EQ(s->nraw, 1000);
	CHECK_NEAR(s->raw[999].val, 999);
	CHECK(result_find_series(&r, "TCP download EF") == s);
	CHECK(!result_find_series(&r, "TCP download BE"));
	for (unsigned i = 1; i < RESULT_MAX_SERIES; i++)
		REQUIRE(result_add_series(&r, "x", "ms", SERIES_PROBE, 0));
	CHECK(!result_add_series(&r, "one too many", "ms", SERIES_PROBE, 0));
	result_free(&r);
	CHECK_EQ(r.nseries, 0);
}
