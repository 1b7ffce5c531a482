/* SPDX-License-Identifier: MIT */
/* test-codel.c - CoDel's arithmetic, the reference drop script, ECN and the codel discipline. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "debloat/codel.h"
#include "harness.h"

#define MS	 1000000ULL
#define US	 1000ULL
#define MAX_PKTS 600

/* What the discipline handed back, per packet: where each one left and how. */
static struct recorder {
	struct db_codel_qdisc *q; /* to look at CoDel's state from inside the callbacks */
	int ndrops, nmarks;
	int dropped[MAX_PKTS]; /* ids, in drop order */
	enum db_drop_reason why[MAX_PKTS];
	db_codel_time_t drop_next_at_drop[MAX_PKTS]; /* CoDel's drop_next when it dropped */
	int left[MAX_PKTS];			     /* times each id left (must end as 1) */
} rec;

static struct db_pkt pkts[MAX_PKTS];
static int ids[MAX_PKTS];

static int id_of(const struct db_pkt *pkt)
{
	return *(const int *)pkt->data;
}

static void on_drop(struct db_pkt *pkt, enum db_drop_reason why, void *ctx)
{
	(void)ctx;
	rec.dropped[rec.ndrops] = id_of(pkt);
	rec.why[rec.ndrops] = why;
	rec.drop_next_at_drop[rec.ndrops] = rec.q ? rec.q->vars.drop_next : 0;
	rec.ndrops++;
	rec.left[id_of(pkt)]++;
}

static void on_mark(struct db_pkt *pkt, void *ctx)
{
	(void)ctx;
	(void)pkt;
	rec.nmarks++;
}

static const struct db_qdisc_env env = {on_drop, on_mark, NULL};

static struct db_pkt *make_pkt(int id, uint32_t len, uint8_t tos)
{
	struct db_pkt *pkt = &pkts[id];

	ids[id] = id;
	*pkt = (struct db_pkt){.data = &ids[id], .len = len, .segs = 1, .tos = tos};
	return pkt;
}

/* The docs/design/emulation.md parameters: target 5 ms, interval 100 ms, MTU 1500. */
static void setup(struct db_codel_qdisc *q, uint32_t limit, bool ecn)
{
	struct db_codel_qdisc_params p;

	memset(&rec, 0, sizeof(rec));
	db_codel_qdisc_defaults(&p);
	p.limit = limit;
	p.codel.mtu = 1500;
	p.codel.ecn = ecn;
	if (db_codel_qdisc_init(q, &p, &env) < 0)
		abort();
	rec.q = q;
}

static void fill(struct db_codel_qdisc *q, int first, int n, uint32_t len, uint8_t tos,
		 uint64_t now)
{
	for (int i = first; i < first + n; i++)
		db_codel_qdisc_enqueue(q, make_pkt(i, len, tos), now);
}

static struct db_pkt *deq(struct db_codel_qdisc *q, uint64_t now)
{
	struct db_pkt *pkt = db_codel_qdisc_dequeue(q, now);

	if (pkt)
		rec.left[id_of(pkt)]++;
	return pkt;
}

/* |codel time - ms| within 20 us: our Q0.32 is finer than Linux's 16 bits, both round. */
static bool near_ms(db_codel_time_t t, double ms)
{
	double got = (double)db_codel_time_to_ns(t) / 1e6;

	return got > ms - 0.020 && got < ms + 0.020;
}

static bool all_left_once(int n)
{
	for (int i = 0; i < n; i++)
		if (rec.left[i] != 1)
			return false;
	return true;
}

TEST(newton_steps_follow_linux_not_exact_sqrt)
{
	struct db_codel_vars v = {.count = 1, .rec_inv_sqrt = UINT32_MAX};
	const double want[] = {0.5, 0.5625, 0.48779296875};

	for (int i = 0; i < 3; i++) {
		v.count++;
		db_codel_newton_step(&v);
		double y = (double)v.rec_inv_sqrt / 4294967296.0;
		CHECK(y > want[i] - 1e-6 && y < want[i] + 1e-6);
	}
}

TEST(newton_steps_converge_for_large_counts)
{
	struct db_codel_vars v = {.count = 1, .rec_inv_sqrt = UINT32_MAX};

	while (v.count < 10000) {
		v.count++;
		db_codel_newton_step(&v);
	}
	/* 1/sqrt(10000) = 0.01 */
	double y = (double)v.rec_inv_sqrt / 4294967296.0;
	CHECK(y > 0.0099 && y < 0.0101);
}

TEST(control_law_adds_interval_over_sqrt_count_to_t)
{
	db_codel_time_t t = db_codel_time(1000 * MS), interval = db_codel_time(100 * MS);

	/* y = 0.5: 1000 + 100/2 = 1050 ms; the buggy (t + interval)/2 would be 550 ms */
	CHECK(near_ms(db_codel_control_law(t, interval, 1U << 31), 1050));
	CHECK(near_ms(db_codel_control_law(t, interval, UINT32_MAX), 1100));
}

TEST(time_compare_is_wrap_safe)
{
	CHECK(db_codel_time_after(5, 0xfffffff0U));
	CHECK(db_codel_time_before(0xfffffff0U, 5));
	CHECK(!db_codel_time_after(7, 7));
	CHECK(db_codel_time_after_eq(7, 7));
	CHECK(!db_codel_time_after_eq(6, 7));
	CHECK(db_codel_time_after(0x7fffffffU, 0));
	CHECK(!db_codel_time_after(0x80000000U, 0));
}

/*
 * docs/design/emulation.md section 3: 20 x 1000 B at t = 0. 10 ms: no drop. 210 ms: 1 drop + 1
 * delivery. 210 ms again: no new drop. 420 ms: 3 drops (Linux's Newton arithmetic), with
 * drop_next 310 -> 360 -> 416.25 -> 465 ms.
 */
TEST(drop_script_matches_linux_newton_vector)
{
	struct db_codel_qdisc q;
	struct db_pkt *pkt;

	setup(&q, 1000, false);
	fill(&q, 0, 20, 1000, DB_ECN_NOT_ECT, 0);

	pkt = deq(&q, 10 * MS);
	REQUIRE(pkt);
	CHECK_EQ(id_of(pkt), 0);
	CHECK_EQ(rec.ndrops, 0);
	CHECK(!q.vars.dropping);

	pkt = deq(&q, 210 * MS);
	REQUIRE(pkt);
	CHECK_EQ(rec.ndrops, 1);
	CHECK_EQ(rec.dropped[0], 1);
	CHECK_EQ(id_of(pkt), 2); /* the first survivor, not the dropped one or a later one */
	CHECK(q.vars.dropping);
	CHECK_EQ(q.vars.count, 1);
	CHECK(near_ms(q.vars.drop_next, 310));

	pkt = deq(&q, 210 * MS);
	REQUIRE(pkt);
	CHECK_EQ(rec.ndrops, 1);
	CHECK_EQ(id_of(pkt), 3);
	CHECK(near_ms(q.vars.drop_next, 310));

	pkt = deq(&q, 420 * MS);
	REQUIRE(pkt);
	CHECK_EQ(rec.ndrops, 4); /* 3 at 420 ms, 4 since the start */
	CHECK_EQ(rec.dropped[1], 4);
	CHECK_EQ(rec.dropped[2], 5);
	CHECK_EQ(rec.dropped[3], 6);
	CHECK_EQ(id_of(pkt), 7);
	CHECK(near_ms(rec.drop_next_at_drop[1], 310));
	CHECK(near_ms(rec.drop_next_at_drop[2], 360));
	CHECK(near_ms(rec.drop_next_at_drop[3], 416.25));
	CHECK(near_ms(q.vars.drop_next, 465.029)); /* 416.25 + 48.779, "465" in the reference */
	CHECK_EQ(q.vars.count, 4);
	for (int i = 0; i < 4; i++)
		CHECK_EQ(rec.why[i], DB_DROP_AQM);
	CHECK_EQ(q.cstats.drop_count, 4);
	CHECK_EQ(q.cstats.drop_len, 4000);
	CHECK_EQ(q.cstats.maxpacket, 1000);

	struct db_qdisc_stats st;
	db_codel_qdisc_stats(&q, &st);
	CHECK_EQ(st.backlog_pkts, 12);
	CHECK_EQ(st.backlog_bytes, 12000);
	CHECK_EQ(st.drops, 4);
	CHECK_EQ(st.overlimits, 0);

	db_codel_qdisc_destroy(&q);
	CHECK(all_left_once(20));
	CHECK_EQ(rec.why[rec.ndrops - 1], DB_DROP_RESET);
}

TEST(leaves_dropping_state_when_sojourn_falls_below_target)
{
	struct db_codel_qdisc q;
	struct db_pkt *pkt;

	setup(&q, 1000, false);
	fill(&q, 0, 4, 1000, DB_ECN_NOT_ECT, 0);
	fill(&q, 4, 4, 1000, DB_ECN_NOT_ECT, 208 * MS);
	deq(&q, 10 * MS);
	pkt = deq(&q, 210 * MS); /* drops 1, delivers 2 */
	CHECK_EQ(id_of(pkt), 2);
	pkt = deq(&q, 211 * MS); /* 3: still above target, before drop_next */
	CHECK_EQ(id_of(pkt), 3);
	CHECK(q.vars.dropping);
	pkt = deq(&q, 212 * MS); /* 4: 4 ms < target, backlog 3000 B > MTU */
	CHECK_EQ(id_of(pkt), 4);
	CHECK(!q.vars.dropping);
	CHECK_EQ(q.vars.first_above_time, 0);
	CHECK_EQ(rec.ndrops, 1);
	db_codel_qdisc_destroy(&q);
	CHECK(all_left_once(8));
}

TEST(no_drop_while_backlog_is_at_most_one_mtu)
{
	struct db_codel_qdisc q;

	/* 4 x 750 B: after the 210 ms dequeue, 1500 B = one MTU remain: no drop */
	setup(&q, 1000, false);
	fill(&q, 0, 4, 750, DB_ECN_NOT_ECT, 0);
	deq(&q, 10 * MS);
	struct db_pkt *pkt = deq(&q, 210 * MS);
	CHECK_EQ(id_of(pkt), 1);
	CHECK_EQ(rec.ndrops, 0);
	CHECK(!q.vars.dropping);
	db_codel_qdisc_destroy(&q);

	/* the same with MTU 1499: the backlog is above it, so CoDel drops */
	setup(&q, 1000, false);
	q.params.codel.mtu = 1499;
	fill(&q, 0, 4, 750, DB_ECN_NOT_ECT, 0);
	deq(&q, 10 * MS);
	pkt = deq(&q, 210 * MS);
	CHECK_EQ(rec.ndrops, 1);
	CHECK_EQ(id_of(pkt), 2);
	db_codel_qdisc_destroy(&q);
	CHECK(all_left_once(4));
}

TEST(overflow_drops_arrivals_beyond_limit)
{
	struct db_codel_qdisc q;
	struct db_qdisc_stats st;
	int refused = 0;

	setup(&q, 500, false);
	for (int i = 0; i < 503; i++)
		refused += db_codel_qdisc_enqueue(&q, make_pkt(i, 1000, 0), 0) == DB_ENQ_DROPPED;
	db_codel_qdisc_stats(&q, &st);
	CHECK_EQ(refused, 3);
	CHECK_EQ(st.backlog_pkts, 500);
	CHECK_EQ(st.backlog_bytes, 500000);
	CHECK_EQ(st.overlimits, 3);
	CHECK_EQ(st.drops, 3);
	CHECK_EQ(q.drop_overlimit, 3);
	CHECK_EQ(rec.ndrops, 3);
	CHECK_EQ(rec.dropped[0], 500);
	CHECK_EQ(rec.dropped[2], 502);
	CHECK_EQ(rec.why[0], DB_DROP_OVERLIMIT);
	db_codel_qdisc_destroy(&q);
	CHECK(all_left_once(503));
}

TEST(ecn_marks_ect_packets_instead_of_dropping)
{
	struct db_codel_qdisc q;
	struct db_pkt *pkt;

	setup(&q, 1000, true);
	fill(&q, 0, 20, 1000, DB_ECN_ECT0, 0);
	deq(&q, 10 * MS);
	pkt = deq(&q, 210 * MS);
	CHECK_EQ(id_of(pkt), 1); /* marked and delivered, not dropped */
	CHECK_EQ(pkt->tos & DB_ECN_MASK, DB_ECN_CE);
	CHECK_EQ(rec.ndrops, 0);
	CHECK_EQ(rec.nmarks, 1);
	CHECK_EQ(q.cstats.ecn_mark, 1);
	CHECK(q.vars.dropping);
	CHECK(near_ms(q.vars.drop_next, 310));
	/* at 420 ms one mark per dequeue, on the schedule of the drops it replaces */
	pkt = deq(&q, 420 * MS);
	CHECK_EQ(id_of(pkt), 2);
	CHECK_EQ(pkt->tos & DB_ECN_MASK, DB_ECN_CE);
	CHECK(near_ms(q.vars.drop_next, 360));
	pkt = deq(&q, 420 * MS);
	CHECK_EQ(id_of(pkt), 3);
	CHECK(near_ms(q.vars.drop_next, 416.25));
	CHECK_EQ(rec.nmarks, 3);
	CHECK_EQ(rec.ndrops, 0);

	struct db_qdisc_stats st;
	db_codel_qdisc_stats(&q, &st);
	CHECK_EQ(st.ecn_marks, 3);
	CHECK_EQ(st.drops, 0);
	db_codel_qdisc_destroy(&q);
	CHECK(all_left_once(20));
}

TEST(ecn_still_drops_not_ect_packets)
{
	struct db_codel_qdisc q;

	setup(&q, 1000, true);
	fill(&q, 0, 20, 1000, DB_ECN_NOT_ECT, 0);
	deq(&q, 10 * MS);
	struct db_pkt *pkt = deq(&q, 210 * MS);
	CHECK_EQ(id_of(pkt), 2);
	CHECK_EQ(rec.ndrops, 1);
	CHECK_EQ(rec.nmarks, 0);
	CHECK_EQ(q.cstats.ecn_mark, 0);
	db_codel_qdisc_destroy(&q);
}

TEST(without_ecn_ect_packets_are_dropped)
{
	struct db_codel_qdisc q;

	setup(&q, 1000, false);
	fill(&q, 0, 20, 1000, DB_ECN_ECT0, 0);
	deq(&q, 10 * MS);
	struct db_pkt *pkt = deq(&q, 210 * MS);
	CHECK_EQ(id_of(pkt), 2);
	CHECK_EQ(pkt->tos & DB_ECN_MASK, DB_ECN_ECT0);
	CHECK_EQ(rec.ndrops, 1);
	CHECK_EQ(rec.nmarks, 0);
	db_codel_qdisc_destroy(&q);
}

TEST(ce_threshold_marks_ect_packets_above_it)
{
	struct db_codel_qdisc q;
	struct db_pkt *pkt;

	setup(&q, 1000, false);
	q.params.codel.ce_threshold_ns = 1 * MS;
	db_codel_qdisc_enqueue(&q, make_pkt(0, 100, DB_ECN_ECT1), 0);
	db_codel_qdisc_enqueue(&q, make_pkt(1, 100, DB_ECN_NOT_ECT), 0);
	db_codel_qdisc_enqueue(&q, make_pkt(2, 100, DB_ECN_ECT0), 10 * MS);
	pkt = deq(&q, 2 * MS); /* 2 ms > 1 ms: marked, far from CoDel's target */
	CHECK_EQ(pkt->tos & DB_ECN_MASK, DB_ECN_CE);
	pkt = deq(&q, 2 * MS); /* Not-ECT: left alone */
	CHECK_EQ(pkt->tos & DB_ECN_MASK, DB_ECN_NOT_ECT);
	pkt = deq(&q, 10 * MS + 500 * US); /* 0.5 ms: below the threshold */
	CHECK_EQ(pkt->tos & DB_ECN_MASK, DB_ECN_ECT0);
	CHECK_EQ(q.cstats.ce_mark, 1);
	CHECK_EQ(q.cstats.ecn_mark, 0);
	CHECK_EQ(rec.nmarks, 1);
	CHECK_EQ(rec.ndrops, 0);
	db_codel_qdisc_destroy(&q);
}

/* Run the drop script to 420 ms (count 4, lastcount 1, drop_next 465 ms), then empty it. */
static void first_episode(struct db_codel_qdisc *q)
{
	setup(q, 1000, false);
	fill(q, 0, 20, 1000, DB_ECN_NOT_ECT, 0);
	deq(q, 10 * MS);
	deq(q, 210 * MS);
	deq(q, 420 * MS);
	while (deq(q, 420 * MS))
		;
	CHECK_EQ(q->vars.count, 4);
	CHECK_EQ(q->vars.lastcount, 1);
	CHECK(!q->vars.dropping);
}

/* A second episode: fresh packets at `start`, above target at +10 ms, persistent at +115. */
static void second_episode(struct db_codel_qdisc *q, uint64_t start)
{
	fill(q, 20, 20, 1000, DB_ECN_NOT_ECT, start);
	deq(q, start + 10 * MS);
	CHECK(!q->vars.dropping);
	deq(q, start + 115 * MS);
	CHECK(q->vars.dropping);
}

TEST(reentry_soon_resumes_at_count_minus_lastcount)
{
	struct db_codel_qdisc q;

	first_episode(&q);
	second_episode(&q, 430 * MS); /* re-enters at 545 ms: 80 ms after drop_next */
	CHECK_EQ(q.vars.count, 3);    /* 4 - 1 */
	CHECK_EQ(q.vars.lastcount, 3);
	/* one Newton step for count 3 from count 4's 0.4878: 0.5576 -> 545 + 55.76 ms */
	CHECK(near_ms(q.vars.drop_next, 545 + 55.76));
	db_codel_qdisc_destroy(&q);
	CHECK(all_left_once(40));
}

TEST(reentry_within_16_intervals_resumes_at_count_minus_lastcount)
{
	struct db_codel_qdisc q;

	first_episode(&q);
	/* re-enters at 465 + 1500 ms: 15 intervals after drop_next */
	second_episode(&q, 1850 * MS);
	CHECK_EQ(q.vars.count, 3);
	db_codel_qdisc_destroy(&q);
	CHECK(all_left_once(40));
}

TEST(reentry_after_16_intervals_restarts_at_count_1)
{
	struct db_codel_qdisc q;

	first_episode(&q);
	/* re-enters at 465 + 1600 + 15 ms: 16 intervals and more after drop_next */
	second_episode(&q, 1965 * MS);
	CHECK_EQ(q.vars.count, 1);
	CHECK(near_ms(q.vars.drop_next, 2080 + 100));
	db_codel_qdisc_destroy(&q);
	CHECK(all_left_once(40));
}

TEST(reentry_after_a_single_drop_restarts_at_count_1)
{
	struct db_codel_qdisc q;

	setup(&q, 1000, false);
	fill(&q, 0, 20, 1000, DB_ECN_NOT_ECT, 0);
	deq(&q, 10 * MS);
	deq(&q, 210 * MS); /* count 1, lastcount 1: delta 0 */
	while (deq(&q, 210 * MS))
		;
	second_episode(&q, 220 * MS);
	CHECK_EQ(q.vars.count, 1);
	CHECK(near_ms(q.vars.drop_next, 335 + 100));
	db_codel_qdisc_destroy(&q);
	CHECK(all_left_once(40));
}

TEST(reentry_with_one_drop_more_than_lastcount_restarts_at_count_1)
{
	struct db_codel_qdisc q;

	setup(&q, 1000, false);
	fill(&q, 0, 20, 1000, DB_ECN_NOT_ECT, 0);
	deq(&q, 10 * MS);
	deq(&q, 210 * MS);
	deq(&q, 320 * MS); /* count 2, lastcount 1: delta 1 */
	CHECK_EQ(q.vars.count, 2);
	while (deq(&q, 320 * MS))
		;
	second_episode(&q, 330 * MS);
	CHECK_EQ(q.vars.count, 1);
	/* 1/sqrt(1) afresh: + 100 ms, not a Newton step from count 2's 0.5 (+ 68.75 ms) */
	CHECK(near_ms(q.vars.drop_next, 445 + 100));
	db_codel_qdisc_destroy(&q);
	CHECK(all_left_once(40));
}

TEST(sojourn_equal_to_target_counts_as_above)
{
	struct db_codel_qdisc q;

	setup(&q, 1000, false);
	fill(&q, 0, 3, 1000, DB_ECN_NOT_ECT, 0);
	deq(&q, 5 * MS); /* exactly target (4882 units of 1024 ns) */
	CHECK(q.vars.first_above_time != 0);
	db_codel_qdisc_destroy(&q);

	setup(&q, 1000, false);
	fill(&q, 0, 3, 1000, DB_ECN_NOT_ECT, 0);
	deq(&q, 5 * MS - 1024); /* one unit below */
	CHECK_EQ(q.vars.first_above_time, 0);
	db_codel_qdisc_destroy(&q);
}

TEST(drop_needs_sojourn_above_target_for_more_than_an_interval)
{
	struct db_codel_qdisc q;

	setup(&q, 1000, false);
	fill(&q, 0, 20, 1000, DB_ECN_NOT_ECT, 0);
	deq(&q, 10 * MS); /* first_above_time = 10 ms + 100 ms, in 1024 ns units */
	CHECK_EQ(q.vars.first_above_time, db_codel_time(10 * MS) + db_codel_time(100 * MS));
	deq(&q, db_codel_time_to_ns(q.vars.first_above_time)); /* at it: not yet */
	CHECK_EQ(rec.ndrops, 0);
	CHECK(!q.vars.dropping);
	deq(&q, db_codel_time_to_ns(q.vars.first_above_time + 1)); /* one unit after */
	CHECK_EQ(rec.ndrops, 1);
	CHECK(q.vars.dropping);
	db_codel_qdisc_destroy(&q);
}

/* The core over a queue of the test's own: an array, drops and marks counted here. */
struct array_queue {
	struct db_pkt *slot[8];
	int head, n, dropped, marked;
	uint64_t backlog;
};

static struct db_pkt *array_dequeue(void *ctx)
{
	struct array_queue *a = ctx;

	if (a->head == a->n)
		return NULL;
	a->backlog -= a->slot[a->head]->len;
	return a->slot[a->head++];
}

static void array_drop(struct db_pkt *pkt, void *ctx)
{
	((struct array_queue *)ctx)->dropped++;
}

static void array_mark(struct db_pkt *pkt, void *ctx)
{
	((struct array_queue *)ctx)->marked++;
}

TEST(core_guards_any_queue_through_callbacks)
{
	struct array_queue a = {.n = 6};
	const struct db_codel_queue queue = {array_dequeue, array_drop, array_mark, &a};
	struct db_codel_params p;
	struct db_codel_vars v;
	struct db_codel_stats st = {0};

	db_codel_defaults(&p);
	db_codel_vars_init(&v);
	for (int i = 0; i < a.n; i++) {
		a.slot[i] = make_pkt(i, 1000, i == 2 ? DB_ECN_ECT0 : DB_ECN_NOT_ECT);
		a.backlog += 1000;
	}
	p.ecn = true;
	CHECK_EQ(id_of(db_codel_dequeue(&p, &v, &st, &a.backlog, 10 * MS, &queue)), 0);
	CHECK_EQ(id_of(db_codel_dequeue(&p, &v, &st, &a.backlog, 210 * MS, &queue)), 2);
	CHECK_EQ(a.dropped, 1);
	CHECK_EQ(a.marked, 0); /* the drop was of Not-ECT 1; 2 is delivered untouched */
	CHECK_EQ(a.backlog, 3000);
	CHECK(v.dropping);
	/* 3 is Not-ECT and due at 310 ms: dropped; 4 follows */
	CHECK_EQ(id_of(db_codel_dequeue(&p, &v, &st, &a.backlog, 320 * MS, &queue)), 4);
	CHECK_EQ(a.dropped, 2);
	CHECK_EQ(st.drop_count, 2);

	/* the queue emptied behind CoDel's back: the state resets on the next dequeue */
	a.head = a.n;
	a.backlog = 0;
	v.dropping = true;
	CHECK(db_codel_dequeue(&p, &v, &st, &a.backlog, 330 * MS, &queue) == NULL);
	CHECK(!v.dropping);
}

TEST(reset_flushes_everything_once_and_keeps_counters)
{
	struct db_codel_qdisc q;
	struct db_qdisc_stats st;

	setup(&q, 1000, false);
	fill(&q, 0, 20, 1000, DB_ECN_NOT_ECT, 0);
	deq(&q, 10 * MS);
	deq(&q, 210 * MS);
	db_codel_qdisc_reset(&q);
	db_codel_qdisc_stats(&q, &st);
	CHECK_EQ(st.backlog_pkts, 0);
	CHECK_EQ(st.backlog_bytes, 0);
	CHECK_EQ(st.drops, 18);
	CHECK_EQ(q.cstats.drop_count, 1);
	CHECK(!q.vars.dropping);
	CHECK(all_left_once(20));
	CHECK(deq(&q, 300 * MS) == NULL);
	db_codel_qdisc_destroy(&q);
}

/* ---- ops: options and the generic interface ------------------------------------------- */

static bool params_equal(const struct db_codel_qdisc_params *a,
			 const struct db_codel_qdisc_params *b)
{
	return a->limit == b->limit && a->codel.target_ns == b->codel.target_ns &&
	       a->codel.interval_ns == b->codel.interval_ns &&
	       a->codel.ce_threshold_ns == b->codel.ce_threshold_ns &&
	       a->codel.mtu == b->codel.mtu && a->codel.ecn == b->codel.ecn;
}

static int parse(const char *const *words, int n, struct db_codel_qdisc_params *p, char *err,
		 size_t errlen)
{
	db_codel_ops.defaults(p);
	return db_codel_ops.parse(p, n, (char *const *)words, err, errlen);
}

TEST(defaults_format_as_sch_codel)
{
	struct db_codel_qdisc_params p;
	char buf[256];

	db_codel_ops.defaults(&p);
	CHECK(db_codel_ops.format(&p, buf, sizeof(buf)) > 0);
	CHECK_STR(buf, "codel limit 1000 target 5ms interval 100ms noecn ce_threshold 0ms "
		       "mtu 1514");
}

TEST(options_round_trip)
{
	const char *words[] = {"limit", "300",		"target", "2ms", "interval", "50ms",
			       "ecn",	"ce_threshold", "1500us", "mtu", "9000"};
	struct db_codel_qdisc_params p, back;
	char buf[256], err[128];

	REQUIRE_EQ(parse(words, 11, &p, err, sizeof(err)), 0);
	CHECK_EQ(p.limit, 300);
	CHECK_EQ(p.codel.target_ns, 2 * MS);
	CHECK_EQ(p.codel.interval_ns, 50 * MS);
	CHECK(p.codel.ecn);
	CHECK_EQ(p.codel.ce_threshold_ns, 1500 * US);
	CHECK_EQ(p.codel.mtu, 9000);
	REQUIRE(db_codel_ops.format(&p, buf, sizeof(buf)) > 0);
	CHECK_STR(buf, "codel limit 300 target 2ms interval 50ms ecn ce_threshold 1500us mtu 9000");

	/* feed the formatted words back */
	char *copy = strdup(buf), *w[32];
	int n = 0;
	for (char *s = strtok(copy, " "); s; s = strtok(NULL, " "))
		w[n++] = s;
	REQUIRE_EQ(parse((const char *const *)w + 1, n - 1, &back, err, sizeof(err)), 0);
	CHECK(params_equal(&p, &back));
	free(copy);
}

TEST(bad_options_are_refused_with_the_word_quoted)
{
	struct db_codel_qdisc_params p, before;
	char err[128];
	const char *unknown[] = {"limit", "10", "targt", "5ms"};
	const char *badtime[] = {"target", "5xs"};
	const char *zero[] = {"limit", "0"};
	const char *novalue[] = {"interval"};

	CHECK_EQ(parse(unknown, 4, &p, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "unknown option \"targt\" for codel");
	db_codel_ops.defaults(&before);
	CHECK(params_equal(&p, &before)); /* untouched, even limit 10 */
	CHECK_EQ(parse(badtime, 2, &p, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "\"5xs\"") != NULL);
	CHECK_EQ(parse(zero, 2, &p, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "limit 0") != NULL);
	CHECK_EQ(parse(novalue, 1, &p, err, sizeof(err)), -EINVAL);
}

TEST(init_refuses_out_of_range_params)
{
	struct db_codel_qdisc_params p;
	struct db_codel_qdisc q;

	db_codel_qdisc_defaults(&p);
	p.codel.interval_ns = 0;
	CHECK_EQ(db_codel_qdisc_init(&q, &p, NULL), -EINVAL);
	db_codel_qdisc_defaults(&p);
	p.codel.target_ns = 61ULL * 1000 * MS;
	CHECK_EQ(db_codel_qdisc_init(&q, &p, NULL), -EINVAL);
	db_codel_qdisc_defaults(&p);
	p.limit = 0;
	CHECK_EQ(db_codel_qdisc_init(&q, &p, NULL), -EINVAL);
}

TEST(ops_drive_the_discipline_and_report_xstats)
{
	struct db_codel_qdisc_params p;
	struct db_codel_qdisc *q = calloc(1, db_codel_ops.priv_size);
	struct db_stat xs[16];
	struct db_qdisc_stats st;

	memset(&rec, 0, sizeof(rec));
	db_codel_ops.defaults(&p);
	p.codel.mtu = 1500;
	REQUIRE_EQ(db_codel_ops.init(q, &p, &env), 0);
	rec.q = q;
	for (int i = 0; i < 20; i++)
		CHECK_EQ(db_codel_ops.enqueue(q, make_pkt(i, 1000, 0), 0), DB_ENQ_QUEUED);
	CHECK_EQ(id_of(db_codel_ops.dequeue(q, 10 * MS)), 0);
	CHECK_EQ(id_of(db_codel_ops.dequeue(q, 210 * MS)), 2);
	db_codel_ops.stats(q, &st);
	CHECK_EQ(st.backlog_pkts, 17);
	CHECK_EQ(st.drops, 1);

	int n = db_codel_ops.xstats(q, xs, 16);
	CHECK_EQ(n, 9);
	CHECK_STR(xs[0].name, "maxpacket_bytes");
	CHECK_EQ(xs[0].value, 1000);
	CHECK_STR(xs[1].name, "count");
	CHECK_EQ(xs[1].value, 1);
	CHECK_STR(xs[4].name, "dropping");
	CHECK_EQ(xs[4].value, 1);
	CHECK_STR(xs[8].name, "drop_aqm");
	CHECK_EQ(xs[8].value, 1);
	CHECK_EQ(db_codel_ops.xstats(q, xs, 2), 2);
	CHECK(db_codel_ops.next_ns == NULL);

	db_codel_ops.reset(q);
	db_codel_ops.stats(q, &st);
	CHECK_EQ(st.backlog_pkts, 0);
	db_codel_ops.destroy(q);
	free(q);
	CHECK_STR(db_codel_ops.kind, "codel");
}

/* Linux keeps rec_inv_sqrt in 16 bits; wide_inv_sqrt keeps 32. From count 1 to 2: ~0.5. */
TEST(rec_inv_sqrt_is_16_bits_as_linux_unless_wide)
{
	struct db_codel_params p;
	struct db_codel_vars v = {.count = 1};

	db_codel_defaults(&p);
	db_codel_inv_sqrt_one(&p, &v);
	CHECK_EQ(v.rec_inv_sqrt, 0xffffU);
	v.count = 2;
	db_codel_update_inv_sqrt(&p, &v);
	CHECK(v.rec_inv_sqrt == 0x8000U || v.rec_inv_sqrt == 0x8001U);
	CHECK_EQ(db_codel_inv_sqrt(&p, &v), v.rec_inv_sqrt << 16);

	p.wide_inv_sqrt = true;
	v.count = 1;
	db_codel_inv_sqrt_one(&p, &v);
	CHECK_EQ(v.rec_inv_sqrt, UINT32_MAX);
	v.count = 2;
	db_codel_update_inv_sqrt(&p, &v);
	CHECK(v.rec_inv_sqrt > 0x7fff0000U && v.rec_inv_sqrt < 0x80010000U);
	CHECK(v.rec_inv_sqrt & 0xffffU); /* the low bits are kept */
}
