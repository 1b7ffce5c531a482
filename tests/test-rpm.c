/* SPDX-License-Identifier: MIT */
/*
 * test-rpm.c - rpm.h against examples worked by hand from the definitions of
 * draft-ietf-ippm-responsiveness-09 (moving averages over MAD intervals, the SDT rule,
 * the single-sided trimmed mean, the RPM formula). The arithmetic is in the comments.
 */
#include <math.h>

#include "debloat/rpm.h"
#include "harness.h"

#define NEAR(a, b) (fabs((a) - (b)) < 1e-9)

/*
 * MAD 4, SDT 5%, bytes per interval 100, 200, 300, 400, 400, 400, 400, 400, 400.
 * Moving averages (mean of the interval and the 3 before it):
 *	p4 (100+200+300+400)/4 = 250   p5 (200+300+400+400)/4 = 325
 *	p6 (300+400+400+400)/4 = 375   p7 .. p9 = 400
 * p7: MAs {250, 325, 375, 400}, mean 337.5, squared deviations 7656.25 + 156.25 +
 *     1406.25 + 3906.25 = 13125, /4 = 3281.25, sd 57.28 > 0.05 * 400 = 20: no.
 * p8: {325, 375, 400, 400}, mean 375, 2500 + 0 + 625 + 625 = 3750, /4 = 937.5,
 *     sd 30.62 > 20: no.
 * p9: {375, 400, 400, 400}, mean 393.75, 351.5625 + 3 * 39.0625 = 468.75, /4 =
 *     117.1875, sd 10.825 <= 20: saturated.
 */
TEST(saturation_after_a_ramp)
{
	static const double bytes[] = {100, 200, 300, 400, 400, 400, 400, 400, 400};
	struct rpm_window w;

	rpm_window_init(&w, 4, 0.05);
	for (size_t i = 0; i < 8; i++)
		CHECK(!rpm_window_add(&w, bytes[i]));
	CHECK(NEAR(rpm_window_average(&w), 400));
	CHECK(fabs(rpm_window_stddev(&w) - sqrt(937.5)) < 1e-9);
	CHECK(rpm_window_add(&w, bytes[8]));
	CHECK(fabs(rpm_window_stddev(&w) - sqrt(117.1875)) < 1e-9);
	CHECK_EQ(w.intervals, 9);
}

/*
 * A flat 1000 per interval: the first moving average exists at p4, the MAD-th at p7,
 * with sd 0 <= 50: saturated at p7 and not before (fewer than MAD averages).
 */
TEST(saturation_needs_mad_moving_averages)
{
	struct rpm_window w;

	rpm_window_init(&w, 4, 0.05);
	for (int i = 1; i <= 6; i++) {
		CHECK(!rpm_window_add(&w, 1000));
		if (i < 4)
			CHECK(isnan(rpm_window_average(&w)));
	}
	CHECK(isnan(rpm_window_stddev(&w))); /* 3 averages */
	CHECK(rpm_window_add(&w, 1000));
	CHECK(NEAR(rpm_window_average(&w), 1000));
}

/*
 * A goodput that keeps growing by 10% per interval never saturates at SDT 5%:
 * values 1000 * 1.1^k; MAs grow 10% per interval too; sd of {a, 1.1a, 1.21a, 1.331a}
 * is 0.1220a, against 0.05 * 1.331a = 0.0666a.
 */
TEST(growing_goodput_is_not_saturated)
{
	struct rpm_window w;
	double v = 1000;

	rpm_window_init(&w, 4, 0.05);
	for (int i = 0; i < 20; i++, v *= 1.1)
		CHECK(!rpm_window_add(&w, v));
	/* the same series is "saturated" with a tolerance of 10% (0.1220/1.331 = 9.2%) */
	rpm_window_init(&w, 4, 0.10);
	v = 1000;
	for (int i = 0; i < 6; i++, v *= 1.1)
		rpm_window_add(&w, v);
	CHECK(rpm_window_add(&w, v));
}

/* MAD 1: every interval is its own moving average; sd of one value is 0. */
TEST(mad_one_and_clamps)
{
	struct rpm_window w;

	rpm_window_init(&w, 1, 0.05);
	CHECK(rpm_window_add(&w, 5));
	rpm_window_init(&w, 0, -1);
	CHECK_EQ(w.mad, 1);
	CHECK(w.sdt == 0);
	rpm_window_init(&w, 1000, 0.05);
	CHECK_EQ(w.mad, RPM_MAX_MAD);
}

/*
 * Trimmed mean, keep 95%: of 1..20 (shuffled), ceil(20 * 0.95) = 19 kept: the mean of
 * 1..19 is 190 / 19 = 10; the worst sample (20) is the one dropped.
 */
TEST(trimmed_mean_drops_the_worst_five_percent)
{
	double v[20];

	for (int i = 0; i < 20; i++)
		v[i] = (double)((i * 7) % 20 + 1); /* 1..20 in another order */
	CHECK(NEAR(rpm_trimmed_mean(v, 20, 95), 10));
	CHECK(NEAR(v[0], 1) && NEAR(v[19], 20)); /* sorted in place */
}

/*
 * Of 10 samples 1..10, ceil(10 * 0.95) = ceil(9.5) = 10: nothing is dropped, mean 5.5.
 * Of {30, 10, 20} keeping 50%: ceil(1.5) = 2 kept, {10, 20}: 15. NaN is no sample:
 * {NaN, 4, NaN, 2} at 100% is 3. All NaN, or none: NaN.
 */
TEST(trimmed_mean_rounds_the_kept_count_up)
{
	double a[10], b[] = {30, 10, 20}, c[] = {NAN, 4, NAN, 2}, d[] = {NAN};

	for (int i = 0; i < 10; i++)
		a[i] = i + 1;
	CHECK(NEAR(rpm_trimmed_mean(a, 10, 95), 5.5));
	CHECK(NEAR(rpm_trimmed_mean(b, 3, 50), 15));
	CHECK(NEAR(rpm_trimmed_mean(c, 4, 100), 3));
	CHECK(isnan(rpm_trimmed_mean(d, 1, 95)));
	CHECK(isnan(rpm_trimmed_mean(d, 0, 95)));
}

/*
 * Without TLS: tcp_f 10 ms, http_f 30 ms: foreign 60000 / ((10 + 30) / 2) = 3000;
 * http_l 60 ms: loaded 1000; RPM (3000 + 1000) / 2 = 2000 ("Good").
 * With TLS tls_f 50 ms: foreign 60000 / ((10 + 50 + 30) / 3) = 2000; RPM 1500.
 * tls_f is never taken as 0: (10 + 0 + 30) / 3 would give 4500, not 3000.
 */
TEST(score_with_and_without_tls)
{
	struct rpm_score s;

	rpm_score(10, NAN, 30, 60, &s);
	CHECK(NEAR(s.foreign_rpm, 3000));
	CHECK(NEAR(s.loaded_rpm, 1000));
	CHECK(NEAR(s.rpm, 2000));
	CHECK_STR(rpm_class(s.rpm), "Good");
	rpm_score(10, 50, 30, 60, &s);
	CHECK(NEAR(s.foreign_rpm, 2000));
	CHECK(NEAR(s.rpm, 1500));
	rpm_score(10, NAN, 30, NAN, &s); /* no self probe: no score */
	CHECK(NEAR(s.foreign_rpm, 3000));
	CHECK(isnan(s.rpm));
	rpm_score(0, NAN, 30, 60, &s);
	CHECK(isnan(s.foreign_rpm) && isnan(s.rpm));
}

/* The class boundaries: 200 ms is 300 RPM, 60 ms 1000, 10 ms 6000. */
TEST(classes)
{
	CHECK_STR(rpm_class(299.9), "Poor");
	CHECK_STR(rpm_class(300), "Fair");
	CHECK_STR(rpm_class(999), "Fair");
	CHECK_STR(rpm_class(1000), "Good");
	CHECK_STR(rpm_class(6000), "Excellent");
	CHECK_STR(rpm_class(NAN), "");
}
