/* SPDX-License-Identifier: MIT */
/*
 * test-prove-verdict.c - src/prove/verdict.c: where prove shapes and at what rate (each
 * direction from its own counters and one-way delays, never from a server alone), and
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
				  .down_mbps = down,
				  .own_up_mbps = up,
				  .own_down_mbps = down,
				  .owd_up_ms = NAN,
				  .owd_down_ms = NAN};
	return n;
}

/* The capacity from the baseline alone; ingress forced or left to the delays. */
static void capacity(const struct prove_numbers *b, uint32_t link_mbps, enum tristate bql,
		     uint64_t given, bool ingress, struct prove_capacity *c)
{
	struct prove_capacity_in in = {.before = b,
				       .link_mbps = link_mbps,
				       .bql = bql,
				       .given = given,
				       .ingress =
					   ingress ? PROVE_INGRESS_FORCE : PROVE_INGRESS_AUTO};

	prove_capacity(&in, c);
}

TEST(a_bottleneck_beyond_the_link_is_shaped_at_the_goodput_in_whole_kbit)
{
	struct prove_numbers b = nums(250, 95.6384, NAN);
	struct prove_capacity c;

	capacity(&b, 10000, TRI_NO, 0, false, &c);
	CHECK_STR(c.source, "measured");
	CHECK_EQ(c.shape_rate, 95638ULL * 125);
	CHECK(strstr(c.why, "beyond this host") != NULL);
	/* Speed unknown (a tunnel): shaped too. */
	capacity(&b, 0, TRI_UNKNOWN, 0, false, &c);
	CHECK_STR(c.source, "measured");
	CHECK_EQ(c.shape_rate, 95638ULL * 125);
}

TEST(a_full_link_with_bql_is_not_shaped_without_bql_it_is)
{
	struct prove_numbers b = nums(40, 930, 900);
	struct prove_capacity c;

	capacity(&b, 1000, TRI_YES, 0, false, &c);
	CHECK_STR(c.source, "link");
	CHECK_EQ(c.shape_rate, 0);
	capacity(&b, 1000, TRI_NO, 0, false, &c);
	CHECK_STR(c.source, "measured");
	CHECK_EQ(c.shape_rate, 930000ULL * 125);
	CHECK(strstr(c.why, "no BQL") != NULL);
}

TEST(ingress_shapes_the_download_at_its_goodput_when_there_is_one)
{
	struct prove_numbers b = nums(40, 930, 85.5), up_only = nums(40, 50, NAN);
	struct prove_capacity c;

	capacity(&b, 1000, TRI_YES, 0, true, &c);
	CHECK_STR(c.source, "link");
	CHECK_EQ(c.shape_rate, 0);
	CHECK_EQ(c.shape_down_rate, 85500ULL * 125);
	capacity(&b, 1000, TRI_YES, 0, false, &c);
	CHECK_EQ(c.shape_down_rate, 0);
	capacity(&up_only, 1000, TRI_YES, 0, true, &c);
	CHECK_EQ(c.shape_down_rate, 0);
}

TEST(a_given_rate_wins_and_no_upload_means_no_shaper)
{
	struct prove_numbers b = nums(40, 50, 50), d = nums(40, NAN, 50);
	struct prove_capacity c;

	capacity(&b, 100, TRI_NO, 1000000, false, &c);
	CHECK_STR(c.source, "given");
	CHECK_EQ(c.shape_rate, 1000000);
	capacity(&d, 100, TRI_NO, 0, false, &c);
	CHECK_STR(c.source, "none");
	CHECK_EQ(c.shape_rate, 0);
}

TEST(a_lying_server_never_sets_the_rate_this_hosts_counters_do)
{
	/* The server says 1 Mbit/s; this host's TCP counters saw 9400. */
	struct prove_numbers b = nums(250, 1, NAN);
	struct prove_capacity c;

	b.own_up_mbps = 9400;
	capacity(&b, 10000, TRI_NO, 0, false, &c);
	CHECK_STR(c.source, "measured");
	CHECK_EQ(c.shape_rate, 9400000ULL * 125);
	CHECK(c.up.disagree);
	CHECK(strstr(c.why, "the server reported 1.0 Mbit/s up") != NULL);
	CHECK(strstr(c.why, "the counters set the rate") != NULL);
	/* Within the tolerance it is no disagreement. */
	b.up_mbps = 9000;
	capacity(&b, 10000, TRI_NO, 0, false, &c);
	CHECK(!c.up.disagree);
	CHECK(strstr(c.why, "server reported") == NULL);
	/* Without the counters, a report alone sets nothing. */
	b.own_up_mbps = NAN;
	capacity(&b, 10000, TRI_NO, 0, false, &c);
	CHECK_STR(c.source, "none");
	CHECK_EQ(c.shape_rate, 0);
	CHECK(strstr(c.why, "alone never sets a shaper") != NULL);
	/* Nor does a download rate: the download is not shaped on a server's word. */
	b = nums(250, 50, 80);
	b.own_down_mbps = NAN;
	capacity(&b, 10000, TRI_NO, 0, true, &c);
	CHECK_EQ(c.shape_down_rate, 0);
	CHECK(strstr(c.why, "not shaped on a server's word") != NULL);
}

TEST(each_direction_is_shaped_when_its_one_way_delay_grew_and_where_it_is_said)
{
	struct prove_numbers b = nums(250, 40, 80), up = nums(5, 45, NAN), down = nums(5, NAN, 90);
	struct prove_capacity_in in = {
	    .before = &b, .up = &up, .down = &down, .link_mbps = 1000, .bql = TRI_YES};
	struct prove_capacity c;

	/* Both queued: each shaped at its own run's rate, beyond this host both ways. */
	b.owd_up_ms = 120, b.owd_down_ms = 200;
	prove_capacity(&in, &c);
	CHECK_STR(c.source, "measured");
	CHECK_EQ(c.shape_rate, 45000ULL * 125);
	CHECK_EQ(c.shape_down_rate, 90000ULL * 125);
	CHECK_STR(c.up.where, "upstream");
	CHECK_STR(c.down.where, "downstream");
	CHECK(fabs(c.up_mbps - 45) < 1e-9 && fabs(c.down_mbps - 90) < 1e-9);
	/* The download only: no upload shaper. */
	b.owd_up_ms = 0.4;
	prove_capacity(&in, &c);
	CHECK_STR(c.source, "none");
	CHECK_EQ(c.shape_rate, 0);
	CHECK_EQ(c.shape_down_rate, 90000ULL * 125);
	CHECK_STR(c.up.where, "none");
	CHECK(strstr(c.why, "no queue to move") != NULL);
	/* ... unless this host's own qdisc held the queue. */
	in.egress_where = "here";
	prove_capacity(&in, &c);
	CHECK_STR(c.up.where, "here");
	CHECK_STR(c.source, "measured");
	CHECK_EQ(c.shape_rate, 45000ULL * 125);
	in.egress_where = NULL;
	/* The upload only: no download shaper, and --no-ingress never shapes it. */
	b.owd_up_ms = 120, b.owd_down_ms = 3;
	prove_capacity(&in, &c);
	CHECK_EQ(c.shape_rate, 45000ULL * 125);
	CHECK_EQ(c.shape_down_rate, 0);
	CHECK_STR(c.down.where, "none");
	b.owd_down_ms = 200;
	in.ingress = PROVE_INGRESS_OFF;
	prove_capacity(&in, &c);
	CHECK_EQ(c.shape_down_rate, 0);
	/* No one-way delays (a probe kind without timestamps): where is unknown. */
	b.owd_up_ms = b.owd_down_ms = NAN;
	in.ingress = PROVE_INGRESS_AUTO;
	prove_capacity(&in, &c);
	CHECK_STR(c.up.where, "unknown");
	CHECK_STR(c.down.where, "unknown");
	CHECK_EQ(c.shape_down_rate, 0);
}

TEST(one_way_delays_change_from_idle_to_loaded_and_the_offset_cancels)
{
	/* delay 2 s, load 10 s: idle before 2, loaded [3, 11). Offset +5000 ms up,
	 * -4990 down; the loaded up delay is 80 ms more, down 3 ms more. */
	struct owd_sample s[64];
	size_t n = 0;
	double up, down;

	for (int i = 0; i < 8; i++)
		s[n++] = (struct owd_sample){0.25 * i, 5000 + 1 + (i % 2) * 0.2, -4990 + 1};
	for (int i = 0; i < 40; i++) {
		double t = 2 + 0.25 * i;
		bool loaded = t >= 3 && t < 11;

		s[n++] = (struct owd_sample){t, 5000 + 1 + (loaded ? 80 : 0),
					     -4990 + 1 + (loaded ? 3 : 0)};
	}
	prove_owd(s, n, 2, 10, &up, &down);
	CHECK(fabs(up - 80) < 0.3);
	CHECK(fabs(down - 3) < 1e-9);
	/* Nothing idle: NaN. */
	prove_owd(s + 8, n - 8, 2, 10, &up, &down);
	CHECK(isnan(up) && isnan(down));
	prove_owd(NULL, 0, 2, 10, &up, &down);
	CHECK(isnan(up) && isnan(down));
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
	/* This host's counters judge the goodput, not a server's report of it. */
	good.up_mbps = 20;
	prove_judge(&b, &good, 2, 0.15, &v);
	CHECK(v.kept);
	CHECK(fabs(v.upload_ratio - 91.0 / 95) < 1e-9);
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

/* Bloated both ways, with cubic on Debian's 6.12 under QEMU: in the mixed baseline the
 * upload's queue held back the download's ACKs, so the download's one-way delay grew
 * only 8 ms there, against 600 ms in its own run. Its own run shows the queue. */
TEST(a_direction_queued_in_its_own_run_counts_though_the_mixed_run_hid_it)
{
	struct prove_numbers b = nums(360, 10.8, 10.3), up = nums(400, 11.4, NAN),
			     down = nums(600, NAN, 11.4);
	struct prove_capacity_in in = {
	    .before = &b, .up = &up, .down = &down, .link_mbps = 1000, .bql = TRI_YES};
	struct prove_capacity c;

	b.owd_up_ms = 375, b.owd_down_ms = 8;
	up.owd_up_ms = 390, up.owd_down_ms = 0.5;
	down.owd_up_ms = 0.3, down.owd_down_ms = 600;
	prove_capacity(&in, &c);
	CHECK_STR(c.down.where, "downstream");
	CHECK(fabs(c.down.induced_ms - 600) < 1e-9);
	CHECK_EQ(c.shape_down_rate, 11400ULL * 125);
	CHECK(fabs(c.up.induced_ms - 390) < 1e-9);
	/* The download not bloated: its own run shows no queue either. */
	down.owd_down_ms = 2;
	prove_capacity(&in, &c);
	CHECK_STR(c.down.where, "none");
	CHECK_EQ(c.shape_down_rate, 0);
	/* Its own run without probes' timestamps: the baseline's delay stands. */
	down.owd_down_ms = NAN;
	b.owd_down_ms = 200;
	prove_capacity(&in, &c);
	CHECK(fabs(c.down.induced_ms - 200) < 1e-9);
	CHECK_STR(c.down.where, "downstream");
}

static struct prove_numbers owd(double induced, double up, double down, double owd_up,
				double owd_down)
{
	struct prove_numbers n = nums(induced, up, down);

	n.owd_up_ms = owd_up;
	n.owd_down_ms = owd_down;
	return n;
}

TEST(a_fall_only_as_the_other_direction_rose_is_judged_alone)
{
	/* The upload's queue starved the download (its ACKs waited); shaped, the download
	 * runs free and its ACKs take a share of the upload. */
	struct prove_numbers b = owd(1040, 95, 44, 1040, 0.1), a = owd(3, 75, 3300, 2, 0.1);
	struct prove_numbers cap_up = nums(1000, 95, NAN), alone_ok = nums(3, 88, NAN),
			     alone_bad = nums(3, 70, NAN);
	struct prove_judge_in in = {.before = &b,
				    .after = &a,
				    .alone_before = {&cap_up, NULL},
				    .changed = {true, false},
				    .min_gain = 2,
				    .max_loss = 0.15};
	struct prove_verdict v;

	prove_judge_directions(&in, &v);
	CHECK(!v.kept);
	CHECK(v.want_alone && v.dir[PROVE_UP].want_alone && v.dir[PROVE_UP].traded);
	CHECK(!v.dir[PROVE_DOWN].want_alone);
	in.alone_after[PROVE_UP] = &alone_ok;
	prove_judge_directions(&in, &v);
	CHECK(v.kept && !v.partial && !v.want_alone);
	CHECK(!strcmp(v.dir[PROVE_UP].outcome, "kept"));
	CHECK(!strcmp(v.dir[PROVE_DOWN].outcome, "unchanged"));
	CHECK(fabs(v.dir[PROVE_UP].alone_ratio - 88.0 / 95) < 1e-9);
	CHECK(fabs(v.dir[PROVE_UP].latency_ratio - 520) < 1e-9);
	CHECK(strstr(v.why, "as the download's rose") != NULL);
	in.alone_after[PROVE_UP] = &alone_bad;
	prove_judge_directions(&in, &v);
	CHECK(!v.kept);
	CHECK(!strcmp(v.dir[PROVE_UP].outcome, "put-back"));
	CHECK(strstr(v.dir[PROVE_UP].why, "upload goodput fell to 74% of before alone") != NULL);
	/* Without the other's rise, a fall is a loss: no run alone excuses it. */
	a.own_down_mbps = 44;
	in.alone_after[PROVE_UP] = &alone_ok;
	prove_judge_directions(&in, &v);
	CHECK(!v.kept && !v.dir[PROVE_UP].traded);
}

TEST(a_queue_the_mixed_run_hid_is_judged_against_its_own_run_alone)
{
	/* Bloated both ways (a 6.12 guest under QEMU): the baseline's download, ACK-starved
	 * by the upload's queue, grew 5.9 ms; alone it grew 1349 ms; both shaped, the
	 * mixed run's download grew 37 ms, its queue now through the shaper. */
	struct prove_numbers b = owd(790, 3.41, 3.34, 787, 5.9), a = owd(30, 3.06, 3.61, 2.8, 37);
	struct prove_numbers cap_up = owd(1415, 3.86, NAN, 1415, 0.3),
			     cap_down = owd(1349, NAN, 3.86, 0.4, 1349);
	struct prove_judge_in in = {.before = &b,
				    .after = &a,
				    .alone_before = {&cap_up, &cap_down},
				    .changed = {true, true},
				    .min_gain = 2,
				    .max_loss = 0.15};
	struct prove_verdict v;

	prove_judge_directions(&in, &v);
	CHECK(v.kept && !v.partial);
	CHECK(!strcmp(v.dir[PROVE_DOWN].outcome, "kept"));
	CHECK(fabs(v.dir[PROVE_DOWN].latency_ratio - 1349.0 / 37) < 1e-9);
	CHECK(fabs(v.dir[PROVE_UP].latency_ratio - 1415 / 2.8) < 1e-9);
	/* Against the mixed run alone the shaper looked like a loss (6.3x worse). */
	in.alone_before[PROVE_DOWN] = NULL;
	prove_judge_directions(&in, &v);
	CHECK(v.partial && !strcmp(v.dir[PROVE_DOWN].outcome, "put-back"));
	CHECK(fabs(v.dir[PROVE_DOWN].latency_ratio - 5.9 / 37) < 1e-9);
	/* A run alone with a smaller queue never lowers the bar, nor one without delays. */
	cap_down.owd_down_ms = 2;
	in.alone_before[PROVE_DOWN] = &cap_down;
	prove_judge_directions(&in, &v);
	CHECK(!strcmp(v.dir[PROVE_DOWN].outcome, "put-back"));
	cap_down.owd_down_ms = NAN;
	prove_judge_directions(&in, &v);
	CHECK(fabs(v.dir[PROVE_DOWN].latency_ratio - 5.9 / 37) < 1e-9);
	/* The shaper that left the queue as it was is put back though the run alone saw it. */
	cap_down.owd_down_ms = 1349;
	a.owd_down_ms = 900;
	prove_judge_directions(&in, &v);
	CHECK(!strcmp(v.dir[PROVE_DOWN].outcome, "put-back"));
}

TEST(each_direction_is_kept_or_put_back_on_its_own)
{
	/* Both shaped: the upload's delay fell, the download had no queue to move. */
	struct prove_numbers b = owd(1000, 95, 95, 1000, 0.5), a = owd(10, 90, 92, 5, 0.4);
	struct prove_judge_in in = {
	    .before = &b, .after = &a, .changed = {true, true}, .min_gain = 2, .max_loss = 0.15};
	struct prove_verdict v;

	prove_judge_directions(&in, &v);
	CHECK(v.kept && v.partial);
	CHECK(!strcmp(v.dir[PROVE_UP].outcome, "kept"));
	CHECK(!strcmp(v.dir[PROVE_DOWN].outcome, "put-back"));
	CHECK(strstr(v.dir[PROVE_DOWN].why, "less than the 2.00x asked") != NULL);
	CHECK(strstr(v.why, "the upload's change is kept") != NULL);
	/* Both fell: both kept. */
	b.owd_down_ms = 300;
	prove_judge_directions(&in, &v);
	CHECK(v.kept && !v.partial);
	CHECK(!strcmp(v.dir[PROVE_DOWN].outcome, "kept"));
	/* A direction nobody changed lost: nothing is kept. */
	in.changed[PROVE_DOWN] = false;
	a.own_down_mbps = 40;
	prove_judge_directions(&in, &v);
	CHECK(!v.kept);
	CHECK(!strcmp(v.dir[PROVE_UP].outcome, "put-back"));
	CHECK(!strcmp(v.dir[PROVE_DOWN].outcome, "unchanged"));
	CHECK(strstr(v.dir[PROVE_UP].why, "without a change lost") != NULL);
	/* Without one-way delays, the round trip decides for both. */
	a.own_down_mbps = 92;
	b.owd_up_ms = b.owd_down_ms = a.owd_up_ms = a.owd_down_ms = NAN;
	in.changed[PROVE_DOWN] = true;
	prove_judge_directions(&in, &v);
	CHECK(v.kept && !v.partial);
	CHECK(fabs(v.dir[PROVE_DOWN].latency_ratio - 100) < 1e-9);
}
