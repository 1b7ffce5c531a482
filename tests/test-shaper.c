/* SPDX-License-Identifier: MIT */
/* test-shaper.c - the rate shaper (debloat/shaper.h) in simulated time, against the
 * analytic departure times of a token-free shaper: a backlog leaves exactly one
 * packet time apart, an idle shaper earns no credit, a late dequeue catches up, the
 * framing it is told to count is charged per segment, and the child's queue is where
 * the delay builds; plus its spec. */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "debloat/shaper.h"
#include "harness.h"

#define RATE_10M (10000000 / 8) /* bytes per second */

static struct db_qdisc *make(const char *spec)
{
	struct db_qdisc *q = NULL;
	char err[200] = "";

	if (!CHECK_EQ(db_qdisc_create(spec, NULL, &q, err, sizeof(err)), 0))
		harness_fail(__FILE__, __LINE__, spec, err);
	return q;
}

static struct db_pkt frame(uint32_t len)
{
	struct db_pkt p = {.len = len, .segs = 1};

	return p;
}

TEST(a_backlog_leaves_one_packet_time_apart)
{
	struct db_qdisc *q = make("shaper rate 10mbit child pfifo limit 100");
	struct db_pkt pkt[50];
	uint64_t dur = 1514ull * 8 * 1000000000ull / 10000000ull; /* 1211.2 us, exact in ns */

	REQUIRE(q);
	for (int i = 0; i < 50; i++) {
		pkt[i] = frame(1514);
		CHECK_EQ(db_qdisc_enqueue(q, &pkt[i], 1000), DB_ENQ_QUEUED);
	}
	/* Dequeue each at the earliest time the shaper allows: the analytic schedule. */
	for (int i = 0; i < 50; i++) {
		uint64_t due = 1000 + (uint64_t)i * dur, next = db_qdisc_next_ns(q, due - 1);

		if (i)
			CHECK_EQ(next, due);
		CHECK(db_qdisc_dequeue(q, due - 1) == NULL || i == 0);
		CHECK(db_qdisc_dequeue(q, due) == &pkt[i]);
	}
	CHECK_EQ(db_qdisc_next_ns(q, 1000 + 50 * dur), 0); /* empty */
	db_qdisc_destroy(q);
}

TEST(an_idle_shaper_earns_no_credit)
{
	struct db_qdisc *q = make("shaper rate 10mbit child pfifo");
	struct db_pkt a = frame(1000), b = frame(1000), c = frame(1000);
	uint64_t dur = 1000ull * 8 * 1000000000ull / 10000000ull; /* 800 us */

	REQUIRE(q);
	db_qdisc_enqueue(q, &a, 0);
	CHECK(db_qdisc_dequeue(q, 0) == &a);
	/* a second later: the clock starts from then, not from the one packet sent */
	db_qdisc_enqueue(q, &b, 1000000000);
	db_qdisc_enqueue(q, &c, 1000000000);
	CHECK(db_qdisc_dequeue(q, 1000000000) == &b);
	CHECK(db_qdisc_dequeue(q, 1000000000 + dur - 1) == NULL);
	CHECK(db_qdisc_dequeue(q, 1000000000 + dur) == &c);
	db_qdisc_destroy(q);
}

TEST(a_late_dequeue_catches_up_and_the_long_run_rate_is_exact)
{
	struct db_qdisc *q = make("shaper rate 10mbit child pfifo limit 100");
	struct db_pkt pkt[40];
	uint64_t dur = 1514ull * 8 * 1000000000ull / 10000000ull;
	int got = 0;

	REQUIRE(q);
	for (int i = 0; i < 40; i++) {
		pkt[i] = frame(1514);
		db_qdisc_enqueue(q, &pkt[i], 0);
	}
	/* Asked only at 10.5 packet times: the 11 packets due by then come out at once. */
	while (db_qdisc_dequeue(q, 10 * dur + dur / 2))
		got++;
	CHECK_EQ(got, 11);
	/* and the rest on the original schedule, not shifted by the lateness */
	CHECK_EQ(db_qdisc_next_ns(q, 10 * dur + dur / 2), 11 * dur);
	for (int i = 11; i < 40; i++)
		CHECK(db_qdisc_dequeue(q, (uint64_t)i * dur) == &pkt[i]);
	db_qdisc_destroy(q);
}

TEST(framing_is_charged_per_segment_and_mpu_is_a_floor)
{
	struct db_shaper_params p;
	struct db_pkt gso = {.len = 4 * 1514, .segs = 4}, tiny = frame(60);
	char err[200];
	char *argv[] = {"rate", "10mbit", "overhead", "24", "mpu", "84"};

	db_shaper_defaults(&p);
	REQUIRE_EQ(db_shaper_parse(&p, 6, argv, err, sizeof(err)), 0);
	CHECK_EQ(p.rate, RATE_10M);
	/* (4 x 1514 + 4 x 24) bytes at 10 Mbit/s */
	CHECK_EQ(db_shaper_packet_ns(&p, &gso), (4ull * 1538 * 8 * 1000000000ull) / 10000000ull);
	/* 60 + 24 = 84: the floor */
	CHECK_EQ(db_shaper_packet_ns(&p, &tiny), 84ull * 8 * 1000000000ull / 10000000ull);
	tiny.len = 40;
	CHECK_EQ(db_shaper_packet_ns(&p, &tiny), 84ull * 8 * 1000000000ull / 10000000ull);
	/* rounded up: never faster than the rate */
	p.rate = 3;
	tiny.len = 1;
	p.overhead = 0;
	p.mpu = 0;
	CHECK_EQ(db_shaper_packet_ns(&p, &tiny), 333333334);
}

/*
 * Overload: packets of 1500 B arrive every 600 us (20 Mbit/s) at a 10 Mbit/s shaper
 * over a 50-packet FIFO. Packet n leaves at n x 1200 us, so it waited n x 600 us, until
 * the FIFO fills; then the queue holds 50 packets, and the sojourn is 50 x 1.2 = 60 ms
 * (less the arrival's phase): within 3% of that in the child, as measured on the
 * packets that leave.
 */
TEST(the_delay_builds_in_the_child_as_the_analytic_queue_says)
{
	struct db_qdisc *q = make("shaper rate 10mbit child pfifo limit 50");
	static struct db_pkt pkt[4000];
	const uint64_t gap = 600000, dur = 1200000;
	uint64_t t = 0, next_arrival = 0, worst = 0, sum = 0, n = 0;
	int in = 0, out = 0;

	REQUIRE(q);
	while (t <= 2000000000ull && in < 4000) {
		struct db_pkt *p;

		if (t >= next_arrival) {
			pkt[in] = frame(1500);
			db_qdisc_enqueue(q, &pkt[in++], t);
			next_arrival += gap;
		}
		while ((p = db_qdisc_dequeue(q, t))) {
			uint64_t sojourn = t - p->enqueue_ns;

			if (p - pkt < 8) /* the first ones, before any queue: n x 600 us */
				CHECK_EQ(sojourn, (uint64_t)(p - pkt) * (dur - gap));
			if (t > 500000000ull) { /* the FIFO is full by now */
				sum += sojourn;
				n++;
				if (sojourn > worst)
					worst = sojourn;
			}
			out++;
		}
		t += 100000; /* the simulated clock's step; every due time is a multiple */
	}
	REQUIRE(n > 100);
	{
		double mean = (double)sum / (double)n, want = 50.0 * (double)dur;

		CHECK(mean > 0.97 * want && mean < 1.03 * want);
		CHECK(worst <= 51 * dur);
	}
	/* 2 s at 10 Mbit/s: 1666 packets of 1500 B, give or take the last */
	CHECK(out >= 1665 && out <= 1668);
	db_qdisc_destroy(q);
}

TEST(next_ns_follows_a_pacing_child_when_the_shaper_is_not_the_limit)
{
	/* fq's maxrate 1mbit holds the flow far below the shaper's 100mbit */
	struct db_qdisc *q = make("shaper rate 100mbit child fq maxrate 1mbit");
	struct db_pkt a = frame(1000), b = frame(1000);
	uint64_t next;

	REQUIRE(q);
	db_qdisc_enqueue(q, &a, 0);
	db_qdisc_enqueue(q, &b, 0);
	CHECK(db_qdisc_dequeue(q, 0) == &a);
	CHECK(db_qdisc_dequeue(q, 100000) == NULL); /* the shaper allows it, fq does not */
	next = db_qdisc_next_ns(q, 100000);
	CHECK(next >= 8000000 - 1000 && next <= 8000000 + 1000); /* 1000 B at 1 Mbit/s */
	CHECK(db_qdisc_dequeue(q, next) == &b);
	db_qdisc_destroy(q);
}

TEST(the_spec_formats_with_its_child_and_parses_back)
{
	struct db_qdisc *q = make("shaper rate 95mbit overhead 24 child fq_codel target 10ms ecn");
	struct db_qdisc *again;
	char a[1200], b[1200];

	REQUIRE(q);
	REQUIRE(db_qdisc_format(q, a, sizeof(a)) > 0);
	CHECK(strncmp(a, "shaper rate 95mbit overhead 24 mpu 0 child fq_codel ", 52) == 0);
	CHECK(strstr(a, "target 10ms") != NULL);
	again = make(a);
	REQUIRE(again);
	db_qdisc_format(again, b, sizeof(b));
	CHECK_STR(b, a);
	db_qdisc_destroy(again);
	db_qdisc_destroy(q);
}

TEST(bad_specs_say_what_is_wrong)
{
	struct db_qdisc *q = NULL;
	char err[200] = "";

	CHECK_EQ(db_qdisc_create("shaper child", NULL, &q, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "shaper: \"child\" needs a qdisc spec after it");
	CHECK_EQ(db_qdisc_create("shaper child nosuch", NULL, &q, err, sizeof(err)), -ENOENT);
	CHECK(strstr(err, "unknown qdisc \"nosuch\"") != NULL);
	CHECK_EQ(db_qdisc_create("shaper rate 10mbit child fq_codel quantom 3", NULL, &q, err,
				 sizeof(err)),
		 -EINVAL);
	CHECK(strstr(err, "quantom") != NULL);
	CHECK_EQ(db_qdisc_create("shaper child shaper rate 1mbit", NULL, &q, err, sizeof(err)),
		 -EINVAL);
	CHECK_STR(err, "shaper: a shaper's child cannot be a shaper");
	CHECK_EQ(db_qdisc_create("shaper rate 0", NULL, &q, err, sizeof(err)), -EINVAL);
	CHECK_EQ(db_qdisc_create("shaper rate fast", NULL, &q, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "fast") != NULL);
	CHECK_EQ(db_qdisc_create("shaper overhead 300", NULL, &q, err, sizeof(err)), -EINVAL);
	CHECK(q == NULL);
}

TEST(the_child_reports_drops_and_the_shaper_counts_its_holds)
{
	struct db_qdisc *q = make("shaper rate 1mbit child pfifo limit 2");
	struct db_pkt p[3] = {frame(1000), frame(1000), frame(1000)};
	struct db_qdisc_stats st;
	struct db_stat xs[8];
	int n;

	REQUIRE(q);
	CHECK_EQ(db_qdisc_enqueue(q, &p[0], 0), DB_ENQ_QUEUED);
	CHECK_EQ(db_qdisc_enqueue(q, &p[1], 0), DB_ENQ_QUEUED);
	CHECK_EQ(db_qdisc_enqueue(q, &p[2], 0), DB_ENQ_DROPPED); /* the child's limit */
	db_qdisc_stats(q, &st);
	CHECK_EQ(st.drops, 1);
	CHECK_EQ(st.backlog_pkts, 2);
	CHECK(db_qdisc_dequeue(q, 0) == &p[0]);
	CHECK(db_qdisc_dequeue(q, 1000) == NULL);
	n = db_qdisc_xstats(q, xs, 8);
	REQUIRE_EQ(n, 3);
	CHECK_STR(xs[0].name, "throttled");
	CHECK_EQ(xs[0].value, 1);
	CHECK_STR(xs[1].name, "shaped_bytes");
	CHECK_EQ(xs[1].value, 1000);
	db_qdisc_destroy(q);
}
