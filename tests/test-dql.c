/* SPDX-License-Identifier: MIT */
/* test-dql.c - dynamic queue limits: the BQL vectors, grow, shrink, clamps, wrap, stalls. */
#include <errno.h>
#include <string.h>

#include "debloat/dql.h"
#include "harness.h"

#define FRAME 1514
#define MS    1000000ULL

/* One busy interval: the hardware completes bytes and the producer refills as much. */
static int busy_step(struct db_dql *dql, uint32_t bytes, uint64_t now_ns)
{
	int ret = db_dql_completed(dql, bytes, now_ns);

	db_dql_queued(dql, bytes);
	return ret;
}

/* White box: move every running total to base, as if base bytes had gone through. */
static void start_totals_at(struct db_dql *dql, uint32_t base)
{
	dql->num_queued = base;
	dql->num_completed = base;
	dql->prev_num_queued = base;
	dql->adj_limit = dql->limit + base;
}

TEST(init_sets_linux_defaults)
{
	struct db_dql dql;

	db_dql_init(&dql, DB_DQL_DEFAULT_HOLD_NS);
	CHECK_EQ(dql.params.limit_min, 0);
	CHECK_EQ(dql.params.limit_max, 1879048192);
	CHECK_EQ(dql.params.hold_time_ns, 1000000000);
	CHECK_EQ(dql.params.stall_thrs_ns, 0);
	CHECK_EQ(dql.limit, 0);
	CHECK_EQ(db_dql_avail(&dql), 0);
	CHECK_EQ(db_dql_inflight(&dql), 0);
}

/* Reproduces the vector of docs/design/bql-and-drivers.md section 1. */
static void run_bql_vector(struct db_dql *dql)
{
	db_dql_queued(dql, FRAME);
	CHECK_EQ(db_dql_avail(dql), -1514); /* stopped: the first frame overshoots a 0 limit */
	CHECK_EQ(db_dql_completed(dql, FRAME, 1 * MS), 0);
	CHECK_EQ(dql->limit, 1514); /* starved: grows by what went through */
	CHECK_EQ(db_dql_avail(dql), 1514);

	db_dql_queued(dql, FRAME);
	CHECK_EQ(db_dql_avail(dql), 0); /* exactly at the limit: still running */
	db_dql_queued(dql, FRAME);
	CHECK_EQ(db_dql_avail(dql), -1514); /* stopped */
	CHECK_EQ(db_dql_inflight(dql), 3028);
	CHECK_EQ(db_dql_completed(dql, 3028, 2 * MS), 0);
	CHECK_EQ(dql->limit, 4542); /* 1514 + (4542 - 1514) */
	CHECK_EQ(db_dql_inflight(dql), 0);
	CHECK_EQ(db_dql_avail(dql), 4542);
}

TEST(first_frame_stops_the_queue_and_two_frame_batch_grows_limit_to_4542)
{
	struct db_dql dql;

	db_dql_init(&dql, DB_DQL_DEFAULT_HOLD_NS);
	run_bql_vector(&dql);
}

TEST(vector_holds_across_the_32_bit_wrap_of_the_running_totals)
{
	struct db_dql dql;

	db_dql_init(&dql, DB_DQL_DEFAULT_HOLD_NS);
	start_totals_at(&dql, UINT32_MAX - 2000); /* the vector queues 4542 bytes: crosses 2^32 */
	run_bql_vector(&dql);
	CHECK(dql.num_queued < 4542); /* it did wrap */
}

static void check_late_starvation(uint32_t base)
{
	struct db_dql dql;

	db_dql_init(&dql, DB_DQL_DEFAULT_HOLD_NS);
	start_totals_at(&dql, base);
	db_dql_queued(&dql, 3000);
	db_dql_completed(&dql, 3000, 1 * MS); /* limit 3000 */
	db_dql_queued(&dql, 3000);
	db_dql_queued(&dql, 1000); /* 1000 over the limit */
	db_dql_completed(&dql, 3000, 2 * MS);
	CHECK_EQ(dql.limit, 3000); /* still bytes in flight: not starved yet */
	CHECK_EQ(dql.prev_ovlimit, 1000);
	/*
	 * Newer bytes are in flight, but everything queued at the previous completion
	 * is done and the ring was over the limit then: it may have run dry before the
	 * producer woke. Grow by what went through since (500) plus that overshoot.
	 */
	db_dql_queued(&dql, 500);
	db_dql_queued(&dql, 2000);
	db_dql_completed(&dql, 1500, 3 * MS);
	CHECK_EQ(db_dql_inflight(&dql), 2000);
	CHECK_EQ(dql.limit, 4500);
}

TEST(starvation_with_bytes_still_queued_grows_by_previous_overshoot)
{
	check_late_starvation(0);
}

TEST(late_starvation_is_seen_across_the_wrap)
{
	check_late_starvation(UINT32_MAX - 7100); /* only the last completion wraps */
}

/*
 * Limit 3000 with 3000 bytes in flight, completions taking 1000, 1200, 800 and then
 * 1000 bytes at a time: slacks 1000, 600, 1400, 1000, ... The lowest (600) is what
 * goes, and only once the hold time has passed since the window opened (at 1 ms).
 */
static void check_shrink(uint32_t base)
{
	struct db_dql dql;
	uint64_t t;

	db_dql_init(&dql, DB_DQL_DEFAULT_HOLD_NS);
	start_totals_at(&dql, base);
	db_dql_queued(&dql, 3000);
	REQUIRE_EQ(db_dql_completed(&dql, 3000, 1 * MS), 0);
	REQUIRE_EQ(dql.limit, 3000);
	db_dql_queued(&dql, 3000);
	CHECK_EQ(busy_step(&dql, 1000, 2 * MS), 0); /* previous interval was idle: no slack */
	CHECK_EQ(dql.lowest_slack, UINT32_MAX);
	CHECK_EQ(busy_step(&dql, 1000, 3 * MS), 0);
	CHECK_EQ(dql.lowest_slack, 1000);
	CHECK_EQ(busy_step(&dql, 1200, 4 * MS), 0);
	CHECK_EQ(dql.lowest_slack, 600);
	CHECK_EQ(busy_step(&dql, 800, 5 * MS), 0);
	CHECK_EQ(dql.lowest_slack, 600); /* 1400 is more: the lowest is kept */
	for (t = 6 * MS; t < 1000 * MS; t += 10 * MS)
		CHECK_EQ(busy_step(&dql, 1000, t), 0);
	CHECK_EQ(dql.limit, 3000);

	/* Exactly the hold time after the window opened: not yet. */
	CHECK_EQ(busy_step(&dql, 1000, 1 * MS + DB_DQL_DEFAULT_HOLD_NS), 0);
	CHECK_EQ(dql.limit, 3000);
	CHECK_EQ(db_dql_inflight(&dql), 3000);

	/* One nanosecond later it has passed. */
	CHECK_EQ(db_dql_completed(&dql, 1000, 1 * MS + DB_DQL_DEFAULT_HOLD_NS + 1), 0);
	CHECK_EQ(dql.limit, 2400);
	CHECK_EQ(db_dql_avail(&dql), 2400 - 2000);
	CHECK_EQ(dql.lowest_slack, UINT32_MAX); /* a new window */

	/* The new window needs its own hold time before the next cut. */
	db_dql_queued(&dql, 400);
	for (t = 1010 * MS; t < 1900 * MS; t += 10 * MS)
		CHECK_EQ(busy_step(&dql, 1000, t), 0);
	CHECK_EQ(dql.limit, 2400);
}

TEST(shrink_waits_for_hold_time_then_drops_the_lowest_slack)
{
	check_shrink(0);
}

TEST(shrink_works_across_the_wrap)
{
	check_shrink(UINT32_MAX - 5000); /* wraps while the slack is measured */
}

/*
 * A 64000 B GSO object lands with 2000 B in flight under a 3000 B limit: 1000 B of
 * it fit. Twice the next batch (80000) exceeds limit plus overshoot, so the usual
 * slack is 0, but that 1000 B of the last object was not needed: it is the slack.
 */
TEST(slack_counts_the_part_of_the_last_object_that_was_under_the_limit)
{
	struct db_dql dql;

	db_dql_init(&dql, DB_DQL_DEFAULT_HOLD_NS);
	db_dql_queued(&dql, 3000);
	db_dql_completed(&dql, 3000, 1 * MS);
	REQUIRE_EQ(dql.limit, 3000);
	db_dql_queued(&dql, 2000);
	db_dql_queued(&dql, 64000);
	db_dql_completed(&dql, 1000, 2 * MS);
	CHECK_EQ(dql.prev_ovlimit, 63000);
	db_dql_completed(&dql, 40000, 3 * MS);
	CHECK_EQ(dql.lowest_slack, 1000);
	db_dql_completed(&dql, 1000, 1 * MS + DB_DQL_DEFAULT_HOLD_NS + 1);
	CHECK_EQ(dql.limit, 2000);
}

TEST(hold_time_is_a_parameter)
{
	struct db_dql dql;

	db_dql_init(&dql, 10 * MS);
	db_dql_queued(&dql, 3000);
	db_dql_completed(&dql, 3000, 0);
	db_dql_queued(&dql, 3000);
	busy_step(&dql, 1000, 1 * MS);
	busy_step(&dql, 1000, 2 * MS);
	busy_step(&dql, 1000, 10 * MS);
	CHECK_EQ(dql.limit, 3000);
	busy_step(&dql, 1000, 11 * MS);
	CHECK_EQ(dql.limit, 2000);
}

TEST(starvation_restarts_the_slack_window)
{
	struct db_dql dql;

	db_dql_init(&dql, DB_DQL_DEFAULT_HOLD_NS);
	db_dql_queued(&dql, 3000);
	db_dql_completed(&dql, 3000, 1 * MS);
	db_dql_queued(&dql, 3000);
	busy_step(&dql, 1000, 2 * MS);
	busy_step(&dql, 1000, 3 * MS);
	CHECK_EQ(dql.lowest_slack, 1000);
	/* Drain everything: the ring ran dry while over the limit. */
	db_dql_queued(&dql, 1000);
	db_dql_completed(&dql, db_dql_inflight(&dql), 900 * MS);
	CHECK_EQ(dql.lowest_slack, UINT32_MAX);
	CHECK_EQ(dql.slack_start_ns, 900 * MS);
	CHECK(dql.limit > 3000);
}

TEST(limit_max_caps_growth)
{
	struct db_dql dql;

	db_dql_init(&dql, DB_DQL_DEFAULT_HOLD_NS);
	REQUIRE_EQ(db_dql_set_limits(&dql, 0, 3000), 0);
	db_dql_queued(&dql, 10000);
	db_dql_completed(&dql, 10000, 1 * MS);
	CHECK_EQ(dql.limit, 3000);
	CHECK_EQ(db_dql_avail(&dql), 3000);
}

TEST(limit_min_applies_at_once_and_floors_shrinking)
{
	struct db_dql dql;

	db_dql_init(&dql, 10 * MS);
	REQUIRE_EQ(db_dql_set_limits(&dql, 2800, DB_DQL_MAX_LIMIT), 0);
	CHECK_EQ(dql.limit, 2800);
	CHECK_EQ(db_dql_avail(&dql), 2800);
	db_dql_queued(&dql, 3000);
	db_dql_completed(&dql, 3000, 0); /* starved: 2800 + 3000 */
	CHECK_EQ(dql.limit, 5800);
	db_dql_queued(&dql, 3000);
	for (uint64_t t = 1 * MS; t < 100 * MS; t += 1 * MS)
		busy_step(&dql, 1000, t); /* slack 3800 per window: would go to 0 */
	CHECK_EQ(dql.limit, 2800);
}

TEST(limit_min_equal_to_limit_max_pins_the_limit)
{
	struct db_dql dql;

	db_dql_init(&dql, 10 * MS);
	REQUIRE_EQ(db_dql_set_limits(&dql, 3028, 3028), 0);
	CHECK_EQ(dql.limit, 3028);
	db_dql_queued(&dql, 20000);
	db_dql_completed(&dql, 20000, 1 * MS); /* would grow */
	CHECK_EQ(dql.limit, 3028);
	db_dql_queued(&dql, 3000);
	for (uint64_t t = 2 * MS; t < 100 * MS; t += 1 * MS)
		busy_step(&dql, 500, t); /* would shrink */
	CHECK_EQ(dql.limit, 3028);
}

TEST(set_limits_clamps_to_max_limit_and_refuses_min_above_max)
{
	struct db_dql dql, before;

	db_dql_init(&dql, DB_DQL_DEFAULT_HOLD_NS);
	CHECK_EQ(db_dql_set_limits(&dql, 0, UINT32_MAX), 0);
	CHECK_EQ(dql.params.limit_max, DB_DQL_MAX_LIMIT);
	CHECK_EQ(db_dql_set_limits(&dql, UINT32_MAX, UINT32_MAX), 0);
	CHECK_EQ(dql.params.limit_min, DB_DQL_MAX_LIMIT);
	CHECK_EQ(dql.limit, DB_DQL_MAX_LIMIT);

	db_dql_init(&dql, DB_DQL_DEFAULT_HOLD_NS);
	db_dql_set_limits(&dql, 100, 5000);
	memcpy(&before, &dql, sizeof(dql));
	CHECK_EQ(db_dql_set_limits(&dql, 5001, 5000), -EINVAL);
	CHECK(memcmp(&before, &dql, sizeof(dql)) == 0);
}

TEST(set_params_validates_all_or_changes_nothing)
{
	struct db_dql dql, before;
	struct db_dql_params p = {
	    .limit_min = 4000, .limit_max = 3000, .hold_time_ns = 5 * MS, .stall_thrs_ns = 10 * MS};

	db_dql_init(&dql, DB_DQL_DEFAULT_HOLD_NS);
	memcpy(&before, &dql, sizeof(dql));
	CHECK_EQ(db_dql_set_params(&dql, &p), -EINVAL);
	CHECK(memcmp(&before, &dql, sizeof(dql)) == 0);

	p.limit_min = 1000;
	CHECK_EQ(db_dql_set_params(&dql, &p), 0);
	CHECK_EQ(dql.params.hold_time_ns, 5 * MS);
	CHECK_EQ(dql.params.stall_thrs_ns, 10 * MS);
	CHECK_EQ(dql.limit, 1000);
}

TEST(reset_clears_dynamic_state_and_keeps_params)
{
	struct db_dql dql;

	db_dql_init(&dql, 7 * MS);
	db_dql_set_limits(&dql, 1000, 9000);
	db_dql_queued(&dql, 5000);
	db_dql_completed(&dql, 5000, 1 * MS);
	db_dql_queued(&dql, 5000);
	REQUIRE_EQ(dql.limit, 6000);

	db_dql_reset(&dql);
	CHECK_EQ(dql.params.limit_min, 1000);
	CHECK_EQ(dql.params.limit_max, 9000);
	CHECK_EQ(dql.params.hold_time_ns, 7 * MS);
	CHECK_EQ(dql.limit, 1000);
	CHECK_EQ(db_dql_inflight(&dql), 0);
	/* adj_limit survives the reset, as in Linux: limit 6000 + 5000 completed */
	CHECK_EQ(db_dql_avail(&dql), 11000);
	CHECK_EQ(dql.prev_ovlimit, 0);
	CHECK_EQ(dql.lowest_slack, UINT32_MAX);
	/* Nothing is in flight any more: completing the old bytes is refused. */
	CHECK_EQ(db_dql_completed(&dql, 1, 2 * MS), -EINVAL);
}

TEST(over_completion_is_refused_and_changes_nothing)
{
	struct db_dql dql, before;

	db_dql_init(&dql, DB_DQL_DEFAULT_HOLD_NS);
	memcpy(&before, &dql, sizeof(dql));
	CHECK_EQ(db_dql_completed(&dql, 1, 1 * MS), -EINVAL); /* nothing in flight */
	CHECK(memcmp(&before, &dql, sizeof(dql)) == 0);

	db_dql_queued(&dql, 1000);
	db_dql_completed(&dql, 400, 1 * MS);
	memcpy(&before, &dql, sizeof(dql));
	CHECK_EQ(db_dql_completed(&dql, 601, 2 * MS), -EINVAL);
	CHECK(memcmp(&before, &dql, sizeof(dql)) == 0);
	CHECK_EQ(db_dql_completed(&dql, 600, 2 * MS), 0); /* exactly what is left is fine */
	CHECK_EQ(db_dql_inflight(&dql), 0);
}

TEST(over_completion_is_refused_across_the_wrap)
{
	struct db_dql dql, before;

	db_dql_init(&dql, DB_DQL_DEFAULT_HOLD_NS);
	start_totals_at(&dql, UINT32_MAX - 100);
	db_dql_queued(&dql, 1000); /* num_queued wraps to 899 */
	memcpy(&before, &dql, sizeof(dql));
	CHECK_EQ(db_dql_completed(&dql, 1001, 1 * MS), -EINVAL);
	CHECK(memcmp(&before, &dql, sizeof(dql)) == 0);
	CHECK_EQ(db_dql_completed(&dql, 1000, 1 * MS), 0);
	CHECK_EQ(dql.limit, 1000);
}

/*
 * An empty poll while busy would otherwise measure a slack of the whole limit
 * (nothing drained) and, past the hold time, cut the limit to limit_min.
 */
TEST(empty_completion_changes_nothing)
{
	struct db_dql dql, before;

	db_dql_init(&dql, DB_DQL_DEFAULT_HOLD_NS);
	db_dql_queued(&dql, 3000);
	db_dql_completed(&dql, 3000, 1 * MS);
	db_dql_queued(&dql, 3000);
	busy_step(&dql, 1000, 2 * MS);
	REQUIRE_EQ(dql.limit, 3000);
	memcpy(&before, &dql, sizeof(dql));
	CHECK_EQ(db_dql_completed(&dql, 0, 5000 * MS), 0);
	CHECK(memcmp(&before, &dql, sizeof(dql)) == 0);
	CHECK_EQ(dql.limit, 3000);
}

/*
 * A producer that always has frames, a ring that sends one frame per slot (a
 * 1514 B frame at 100 Mbit/s) and reports completions every `batch` frames, or
 * when it runs dry. Returns the limit's range (in frames) after a warm-up and how
 * often the ring sat empty while the producer was stopped.
 */
struct ring_result {
	uint32_t limit_lo, limit_hi, starved;
	uint64_t bytes_queued;
};

static struct ring_result run_ring(unsigned batch, long slots)
{
	const uint64_t slot_ns = 123040;
	struct ring_result r = {UINT32_MAX, 0, 0, 0};
	unsigned ring = 0, done = 0;
	bool stopped = false;
	struct db_dql dql;

	db_dql_init(&dql, DB_DQL_DEFAULT_HOLD_NS);
	for (long s = 0; s < slots; s++) {
		uint64_t now = (uint64_t)s * slot_ns;

		while (!stopped) {
			db_dql_queued(&dql, FRAME);
			r.bytes_queued += FRAME;
			ring++;
			stopped = db_dql_avail(&dql) < 0;
		}
		if (ring) {
			ring--;
			done++;
		} else if (s > 1000) {
			r.starved++;
		}
		if (done == batch || (ring == 0 && done)) {
			if (db_dql_completed(&dql, done * FRAME, now + slot_ns) < 0)
				r.starved = UINT32_MAX; /* accounting broke */
			done = 0;
			stopped = db_dql_avail(&dql) < 0;
		}
		if (s > 1000) {
			if (dql.limit / FRAME < r.limit_lo)
				r.limit_lo = dql.limit / FRAME;
			if (dql.limit / FRAME > r.limit_hi)
				r.limit_hi = dql.limit / FRAME;
		}
	}
	if ((uint32_t)r.bytes_queued != dql.num_queued)
		r.starved = UINT32_MAX;
	return r;
}

/*
 * The limit covers what drains between two completion reports, and then some: the
 * starvation test also fires when everything queued at the previous completion has
 * completed, so the limit settles at two batches, dipping one frame below each
 * hold time (a shrink by the one-frame overshoot) and growing straight back. With
 * one completion per frame that is the "two full-size packets" of the cpsw report.
 */
TEST(per_frame_completions_hold_the_ring_to_two_frames)
{
	struct ring_result r = run_ring(1, 100000);

	CHECK_EQ(r.limit_lo, 1);
	CHECK_EQ(r.limit_hi, 2);
	CHECK_EQ(r.starved, 0);
}

TEST(completions_every_four_frames_grow_the_limit_to_cover_the_batch)
{
	/* 3.2 M frames of 1514 B: the running totals wrap (4.8 GB) on the way. */
	struct ring_result r = run_ring(4, 3200000);

	CHECK(r.bytes_queued > UINT32_MAX);
	CHECK(r.limit_lo >= 4);
	CHECK_EQ(r.limit_lo, 7);
	CHECK_EQ(r.limit_hi, 8);
	CHECK_EQ(r.starved, 0);
}

TEST(stall_detection_is_off_by_default)
{
	struct db_dql dql;

	db_dql_init(&dql, DB_DQL_DEFAULT_HOLD_NS);
	db_dql_queued_at(&dql, FRAME, 0);
	db_dql_completed(&dql, FRAME, 10000 * MS);
	CHECK_EQ(dql.stall_cnt, 0);
	CHECK_EQ(dql.stall_max_ns, 0);
}

static void init_with_stall_threshold(struct db_dql *dql, uint64_t thrs_ns)
{
	struct db_dql_params p;

	db_dql_init(dql, DB_DQL_DEFAULT_HOLD_NS);
	p = dql->params;
	p.stall_thrs_ns = thrs_ns;
	db_dql_set_params(dql, &p);
}

TEST(completion_after_bytes_waited_past_threshold_counts_a_stall)
{
	struct db_dql dql;

	init_with_stall_threshold(&dql, 10 * MS);
	db_dql_queued_at(&dql, FRAME, 100 * MS);
	db_dql_completed(&dql, FRAME, 105 * MS);
	CHECK_EQ(dql.stall_cnt, 0);

	db_dql_queued_at(&dql, FRAME, 200 * MS);
	db_dql_completed(&dql, FRAME, 215 * MS);
	CHECK_EQ(dql.stall_cnt, 1);
	CHECK_EQ(dql.stall_max_ns, 15 * MS);

	/* Exactly the threshold counts (Linux: time_after_eq). */
	db_dql_queued_at(&dql, FRAME, 300 * MS);
	db_dql_completed(&dql, FRAME, 310 * MS);
	CHECK_EQ(dql.stall_cnt, 2);
	CHECK_EQ(dql.stall_max_ns, 15 * MS); /* shorter: the max stays */
}

TEST(idle_time_before_a_queue_is_not_a_stall)
{
	struct db_dql dql;

	init_with_stall_threshold(&dql, 10 * MS);
	db_dql_queued_at(&dql, FRAME, 0);
	db_dql_completed(&dql, FRAME, 1 * MS);
	/* Nothing in flight for a second, then a prompt completion. */
	db_dql_queued_at(&dql, FRAME, 1000 * MS);
	db_dql_queued_at(&dql, FRAME, 1009 * MS); /* joins a busy ring: does not restart */
	db_dql_completed(&dql, 2 * FRAME, 1002 * MS);
	CHECK_EQ(dql.stall_cnt, 0);
}

TEST(bytes_left_in_flight_wait_from_the_previous_completion)
{
	struct db_dql dql;

	init_with_stall_threshold(&dql, 10 * MS);
	db_dql_queued_at(&dql, 2 * FRAME, 600 * MS);
	db_dql_completed(&dql, FRAME, 601 * MS);
	CHECK_EQ(dql.stall_cnt, 0);
	db_dql_queued_at(&dql, FRAME, 620 * MS); /* ring busy: the wait began at 601 ms */
	db_dql_completed(&dql, FRAME, 631 * MS);
	CHECK_EQ(dql.stall_cnt, 1);
	CHECK_EQ(dql.stall_max_ns, 30 * MS);
	/* Empty polls are not completions: the wait goes on until bytes complete. */
	db_dql_completed(&dql, 0, 645 * MS);
	CHECK_EQ(dql.stall_cnt, 1);
	db_dql_completed(&dql, FRAME, 681 * MS);
	CHECK_EQ(dql.stall_cnt, 2);
	CHECK_EQ(dql.stall_max_ns, 50 * MS);
}

/* Linux 6.12's dql_reset() keeps adj_limit: after one frame out and back, 3028 bytes. */
TEST(reset_keeps_adj_limit_as_linux)
{
	struct db_dql dql;

	db_dql_init(&dql, 1000 * MS);
	db_dql_queued(&dql, 1514);
	REQUIRE_EQ(db_dql_completed(&dql, 1514, 1 * MS), 0);
	db_dql_reset(&dql);
	CHECK_EQ(db_dql_avail(&dql), 3028);
	CHECK_EQ(db_dql_inflight(&dql), 0);
}

TEST(stall_counters_survive_reset)
{
	struct db_dql dql;

	init_with_stall_threshold(&dql, 10 * MS);
	db_dql_queued_at(&dql, FRAME, 0);
	db_dql_completed(&dql, FRAME, 50 * MS);
	REQUIRE_EQ(dql.stall_cnt, 1);
	db_dql_reset(&dql);
	CHECK_EQ(dql.stall_cnt, 1);
	CHECK_EQ(dql.stall_max_ns, 50 * MS);
	CHECK_EQ(dql.params.stall_thrs_ns, 10 * MS);
}
