/* SPDX-License-Identifier: MIT */
/*
 * test-prove-verdict.c - src/prove/verdict.c: where prove shapes and at what rate, and
 * when it keeps a change, from hand-made numbers.
 */
#include <math.h>
#include <string.h>

#include "harness.h"
#include "prove/verdict.h"

static struct prove_numbers nums(double induced, double up, double down)
{
	struct prove_numbers n = {.idle_p50_ms = 1,
				  .loaded_p50_ms = 1 + induced,
				  .induced_ms = induced,
				  .up_mbps = up,
				  .down_mbps = down};
	return n;
}

TEST(a_bottleneck_beyond_the_link_is_shaped_at_the_goodput_in_whole_kbit)
{
	struct prove_numbers b = nums(250, 95.6384, NAN);
	struct prove_capacity c;

	prove_capacity(&b, 10000, TRI_NO, 0, false, &c);
	CHECK_STR(c.source, "measured");
	CHECK_EQ(c.shape_rate, 95638ULL * 125);
	CHECK(strstr(c.why, "beyond this host") != NULL);
	/* Speed unknown (a tunnel): shaped too. */
	prove_capacity(&b, 0, TRI_UNKNOWN, 0, false, &c);
	CHECK_STR(c.source, "measured");
	CHECK_EQ(c.shape_rate, 95638ULL * 125);
}

TEST(a_full_link_with_bql_is_not_shaped_without_bql_it_is)
{
	struct prove_numbers b = nums(40, 930, 900);
	struct prove_capacity c;

	prove_capacity(&b, 1000, TRI_YES, 0, false, &c);
	CHECK_STR(c.source, "link");
	CHECK_EQ(c.shape_rate, 0);
	prove_capacity(&b, 1000, TRI_NO, 0, false, &c);
	CHECK_STR(c.source, "measured");
	CHECK_EQ(c.shape_rate, 930000ULL * 125);
	CHECK(strstr(c.why, "no BQL") != NULL);
}

TEST(ingress_shapes_the_download_at_its_goodput_when_there_is_one)
{
	struct prove_numbers b = nums(40, 930, 85.5), up_only = nums(40, 50, NAN);
	struct prove_capacity c;

	prove_capacity(&b, 1000, TRI_YES, 0, true, &c);
	CHECK_STR(c.source, "link");
	CHECK_EQ(c.shape_rate, 0);
	CHECK_EQ(c.shape_down_rate, 85500ULL * 125);
	prove_capacity(&b, 1000, TRI_YES, 0, false, &c);
	CHECK_EQ(c.shape_down_rate, 0);
	prove_capacity(&up_only, 1000, TRI_YES, 0, true, &c);
	CHECK_EQ(c.shape_down_rate, 0);
}

TEST(a_given_rate_wins_and_no_upload_means_no_shaper)
{
	struct prove_numbers b = nums(40, 50, 50), d = nums(40, NAN, 50);
	struct prove_capacity c;

	prove_capacity(&b, 100, TRI_NO, 1000000, false, &c);
	CHECK_STR(c.source, "given");
	CHECK_EQ(c.shape_rate, 1000000);
	prove_capacity(&d, 100, TRI_NO, 0, false, &c);
	CHECK_STR(c.source, "none");
	CHECK_EQ(c.shape_rate, 0);
}

TEST(kept_only_with_the_gain_and_within_the_loss)
{
	struct prove_numbers b = nums(250, 95, NAN);
	struct prove_numbers good = nums(5, 91, NAN), no_gain = nums(200, 95, NAN),
			     costly = nums(2, 20, NAN);
	struct prove_verdict v;

	prove_judge(&b, &good, 2, 0.15, &v);
	CHECK(v.kept);
	CHECK(fabs(v.latency_ratio - 50) < 1e-9);
	CHECK(fabs(v.upload_ratio - 91.0 / 95) < 1e-9);
	CHECK(isnan(v.download_ratio));
	prove_judge(&b, &no_gain, 2, 0.15, &v);
	CHECK(!v.kept);
	CHECK(strstr(v.why, "less than the 2.00x asked") != NULL);
	prove_judge(&b, &costly, 2, 0.15, &v);
	CHECK(!v.kept);
	CHECK(strstr(v.why, "upload goodput fell to 21%") != NULL);
	/* A looser bound keeps the costly one. */
	prove_judge(&b, &costly, 2, 0.9, &v);
	CHECK(v.kept);
}

TEST(latency_below_a_millisecond_is_no_gain_and_nan_proves_nothing)
{
	struct prove_numbers b = nums(0.2, 95, NAN), a = nums(0.05, 95, NAN),
			     none = nums(NAN, 95, NAN);
	struct prove_verdict v;

	prove_judge(&b, &a, 2, 0.15, &v);
	CHECK(!v.kept);
	CHECK(fabs(v.latency_ratio - 1) < 1e-9);
	prove_judge(&b, &none, 2, 0.15, &v);
	CHECK(!v.kept);
	CHECK(isnan(v.latency_ratio));
	CHECK(strstr(v.why, "second run") != NULL);
	CHECK(prove_good(&a));
	CHECK(!prove_good(&(struct prove_numbers){.induced_ms = 31}));
	CHECK(!prove_good(&none));
}
