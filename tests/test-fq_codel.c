/* SPDX-License-Identifier: MIT */
/* test-fq_codel.c - FQ-CoDel's round robin, overload drops, ECN and options, against the
 * vectors of docs/design/emulation.md section 3. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "debloat/flow.h"
#include "debloat/fq_codel.h"
#include "harness.h"

#define MS	 1000000ULL
#define US	 1000ULL
#define MAX_PKTS 4096

static struct db_pkt pkts[MAX_PKTS];
static int ids[MAX_PKTS];

/* Where each packet went. `flow_of` maps an id to the test's flow number. */
static struct recorder {
	const struct db_fq_codel *q;
	int ndrops, nmarks;
	int dropped[MAX_PKTS];
	enum db_drop_reason why[MAX_PKTS];
	int flow_of[MAX_PKTS];
	int drops_by_flow[8], marks_by_flow[8];
	uint64_t min_backlog_at_mark[8]; /* the flow's own bytes when it was marked */
	int left[MAX_PKTS];
} rec;

static uint32_t hashes[8]; /* one per test flow, each in its own bucket */

static int id_of(const struct db_pkt *pkt)
{
	return *(const int *)pkt->data;
}

static void on_drop(struct db_pkt *pkt, enum db_drop_reason why, void *ctx)
{
	int id = id_of(pkt);

	rec.dropped[rec.ndrops] = id;
	rec.why[rec.ndrops++] = why;
	rec.drops_by_flow[rec.flow_of[id]]++;
	rec.left[id]++;
}

static void on_mark(struct db_pkt *pkt, void *ctx)
{
	int f = rec.flow_of[id_of(pkt)];
	uint64_t backlog = rec.q->backlogs[db_fq_codel_bucket(rec.q, pkt->hash)];

	rec.nmarks++;
	rec.marks_by_flow[f]++;
	if (backlog < rec.min_backlog_at_mark[f])
		rec.min_backlog_at_mark[f] = backlog;
}

static const struct db_qdisc_env env = {on_drop, on_mark, NULL};

/* Pick hashes 1, 2, 3, ... skipping any that share a bucket with one already picked. */
static void pick_hashes(const struct db_fq_codel *q, int n)
{
	int found = 0;

	for (uint32_t h = 1; found < n; h++) {
		bool clash = false;
		for (int j = 0; j < found; j++)
			clash |= db_fq_codel_bucket(q, h) == db_fq_codel_bucket(q, hashes[j]);
		if (!clash)
			hashes[found++] = h;
	}
}

static void setup(struct db_fq_codel *q, struct db_fq_codel_params *p, int nflows)
{
	memset(&rec, 0, sizeof(rec));
	for (int f = 0; f < 8; f++)
		rec.min_backlog_at_mark[f] = UINT64_MAX;
	if (db_fq_codel_init(q, p, &env) < 0)
		abort();
	rec.q = q;
	pick_hashes(q, nflows);
}

static struct db_pkt *make_pkt(int id, int flow, uint32_t len, uint8_t tos)
{
	ids[id] = id;
	rec.flow_of[id] = flow;
	pkts[id] = (struct db_pkt){
	    .data = &ids[id], .len = len, .hash = hashes[flow], .segs = 1, .tos = tos};
	return &pkts[id];
}

static int enq(struct db_fq_codel *q, int id, int flow, uint32_t len, uint64_t now)
{
	return db_fq_codel_enqueue(q, make_pkt(id, flow, len, DB_ECN_NOT_ECT), now);
}

static struct db_pkt *deq(struct db_fq_codel *q, uint64_t now)
{
	struct db_pkt *pkt = db_fq_codel_dequeue(q, now);

	if (pkt)
		rec.left[id_of(pkt)]++;
	return pkt;
}

static struct db_fq_codel_flow_stats flow_stats(const struct db_fq_codel *q, int flow, uint64_t now)
{
	struct db_fq_codel_flow_stats fs;

	memset(&fs, 0xff, sizeof(fs));
	db_fq_codel_flow_stats(q, db_fq_codel_bucket(q, hashes[flow]), now, &fs);
	return fs;
}

static bool all_left_once(int n)
{
	for (int i = 0; i < n; i++)
		if (rec.left[i] != 1)
			return false;
	return true;
}

/* Deficit of test flow f, and which list it is on, checked together. */
#define CHECK_FLOW(q, f, want_deficit, want_list)                                                  \
	do {                                                                                       \
		struct db_fq_codel_flow_stats fs_ = flow_stats(q, f, 0);                           \
		CHECK_EQ(fs_.deficit, want_deficit);                                               \
		CHECK_EQ(fs_.list, want_list);                                                     \
	} while (0)

enum { A, B };

/*
 * docs/design/emulation.md: quantum 90, 120 B packets. A1 -> A 90 NEW; dequeue -> A -30. Add A x2,
 * B x2 (B 90 NEW). Dequeue serves B: A +90 = 60 moves to OLD; B -30. Then A -60; B 60
 * (OLD); A 30; B -60; A -90; B 30; a final empty dequeue leaves A 90, B 30, inactive.
 */
TEST(deficit_sequence_matches_reference)
{
	struct db_fq_codel q;
	struct db_fq_codel_params p;
	struct db_pkt *pkt;

	db_fq_codel_defaults(&p);
	p.quantum = 90;
	setup(&q, &p, 2);

	enq(&q, 0, A, 120, 0);
	CHECK_FLOW(&q, A, 90, DB_FQ_CODEL_NEW);
	pkt = deq(&q, 0);
	CHECK_EQ(id_of(pkt), 0);
	CHECK_FLOW(&q, A, -30, DB_FQ_CODEL_NEW);

	enq(&q, 1, A, 120, 0);
	enq(&q, 2, A, 120, 0);
	enq(&q, 3, B, 120, 0);
	enq(&q, 4, B, 120, 0);
	CHECK_FLOW(&q, A, -30, DB_FQ_CODEL_NEW); /* still listed: no second new_flow */
	CHECK_FLOW(&q, B, 90, DB_FQ_CODEL_NEW);
	CHECK_EQ(q.stats.new_flow_count, 2);

	pkt = deq(&q, 0);
	CHECK_EQ(id_of(pkt), 3);
	CHECK_FLOW(&q, A, 60, DB_FQ_CODEL_OLD);
	CHECK_FLOW(&q, B, -30, DB_FQ_CODEL_NEW);

	pkt = deq(&q, 0);
	CHECK_EQ(id_of(pkt), 1);
	CHECK_FLOW(&q, A, -60, DB_FQ_CODEL_OLD);
	CHECK_FLOW(&q, B, 60, DB_FQ_CODEL_OLD);

	pkt = deq(&q, 0);
	CHECK_EQ(id_of(pkt), 4);
	CHECK_FLOW(&q, A, 30, DB_FQ_CODEL_OLD);
	CHECK_FLOW(&q, B, -60, DB_FQ_CODEL_OLD);

	pkt = deq(&q, 0);
	CHECK_EQ(id_of(pkt), 2);
	CHECK_FLOW(&q, A, -90, DB_FQ_CODEL_OLD);
	CHECK_FLOW(&q, B, 30, DB_FQ_CODEL_OLD);

	CHECK(deq(&q, 0) == NULL);
	CHECK_FLOW(&q, A, 90, DB_FQ_CODEL_INACTIVE);
	CHECK_FLOW(&q, B, 30, DB_FQ_CODEL_INACTIVE);
	CHECK(q.new_flows.head == NULL && q.old_flows.head == NULL);
	db_fq_codel_destroy(&q);
	CHECK(all_left_once(5));
}

TEST(empty_new_flow_passes_through_old_flows)
{
	struct db_fq_codel q;
	struct db_fq_codel_params p;

	db_fq_codel_defaults(&p);
	p.quantum = 100;
	setup(&q, &p, 2);
	enq(&q, 0, A, 100, 0);
	enq(&q, 1, A, 100, 0);
	CHECK_EQ(id_of(deq(&q, 0)), 0); /* A: deficit 0, rotates to OLD next time */
	enq(&q, 2, B, 10, 0);
	CHECK_EQ(id_of(deq(&q, 0)), 2); /* B is NEW: served before old A */
	CHECK_FLOW(&q, A, 100, DB_FQ_CODEL_OLD);
	CHECK_FLOW(&q, B, 90, DB_FQ_CODEL_NEW);
	/* B is empty on new_flows: it goes to the back of old_flows, not away, and A is served */
	CHECK_EQ(id_of(deq(&q, 0)), 1);
	CHECK_FLOW(&q, B, 90, DB_FQ_CODEL_OLD);
	/* both empty now: each leaves old_flows when found empty */
	CHECK(deq(&q, 0) == NULL); /* A: 0 -> 100 and to the back; B, then A, found empty */
	CHECK_FLOW(&q, A, 100, DB_FQ_CODEL_INACTIVE);
	CHECK_FLOW(&q, B, 90, DB_FQ_CODEL_INACTIVE);

	/* reactivated: a fresh quantum; alone on new_flows with old_flows empty, it goes
	 * straight to inactive when found empty (as Linux) */
	enq(&q, 3, B, 10, 0);
	CHECK_FLOW(&q, B, 100, DB_FQ_CODEL_NEW);
	CHECK_EQ(id_of(deq(&q, 0)), 3);
	CHECK(deq(&q, 0) == NULL);
	CHECK_FLOW(&q, B, 90, DB_FQ_CODEL_INACTIVE);

	/* found empty on new_flows while another new flow waits and old_flows is empty: it
	 * leaves the lists at once, so its next packet makes it new again */
	enq(&q, 4, A, 10, 0);
	enq(&q, 5, B, 10, 0);
	enq(&q, 6, B, 10, 0);
	CHECK_EQ(id_of(deq(&q, 0)), 4);
	CHECK_EQ(id_of(deq(&q, 0)), 5); /* A found empty on the way */
	CHECK_FLOW(&q, A, 90, DB_FQ_CODEL_INACTIVE);
	uint64_t before = q.stats.new_flow_count;
	enq(&q, 7, A, 10, 0);
	CHECK_EQ(q.stats.new_flow_count, before + 1);
	CHECK_FLOW(&q, A, 100, DB_FQ_CODEL_NEW);
	while (deq(&q, 0))
		;
	db_fq_codel_destroy(&q);
	CHECK(all_left_once(8));
}

/* docs/design/emulation.md: limit 4; A x3, B x1; a fifth packet (B) -> 2 dropped from A ->
 * A 1, B 2. */
TEST(fat_flow_loses_half_its_backlog_on_overflow)
{
	struct db_fq_codel q;
	struct db_fq_codel_params p;
	struct db_qdisc_stats st;

	db_fq_codel_defaults(&p);
	p.limit = 4;
	p.quantum = 1500;
	setup(&q, &p, 2);
	CHECK_EQ(enq(&q, 0, A, 1000, 0), DB_ENQ_QUEUED);
	CHECK_EQ(enq(&q, 1, A, 1000, 0), DB_ENQ_QUEUED);
	CHECK_EQ(enq(&q, 2, A, 1000, 0), DB_ENQ_QUEUED);
	CHECK_EQ(enq(&q, 3, B, 1000, 0), DB_ENQ_QUEUED);
	CHECK_EQ(rec.ndrops, 0);
	CHECK_EQ(enq(&q, 4, B, 1000, 0), DB_ENQ_QUEUED); /* the arrival itself survives */

	CHECK_EQ(rec.ndrops, 2);
	CHECK_EQ(rec.dropped[0], 0); /* from A's head */
	CHECK_EQ(rec.dropped[1], 1);
	CHECK_EQ(rec.why[0], DB_DROP_OVERLIMIT);
	CHECK_EQ(flow_stats(&q, A, 0).backlog_pkts, 1);
	CHECK_EQ(flow_stats(&q, B, 0).backlog_pkts, 2);
	CHECK_EQ(flow_stats(&q, A, 0).backlog_bytes, 1000);
	db_fq_codel_stats(&q, &st);
	CHECK_EQ(st.backlog_pkts, 3);
	CHECK_EQ(st.backlog_bytes, 3000);
	CHECK_EQ(st.drops, 2);
	CHECK_EQ(st.overlimits, 2);
	CHECK_EQ(q.stats.drop_overlimit, 2);
	CHECK_EQ(q.stats.drop_overmemory, 0);
	db_fq_codel_destroy(&q);
	CHECK(all_left_once(5));
}

TEST(fattest_is_by_bytes_and_ties_go_to_the_lowest_bucket)
{
	struct db_fq_codel q;
	struct db_fq_codel_params p;

	db_fq_codel_defaults(&p);
	p.limit = 4;
	setup(&q, &p, 2);
	int low = db_fq_codel_bucket(&q, hashes[A]) < db_fq_codel_bucket(&q, hashes[B]) ? A : B;
	enq(&q, 0, 1 - low, 1500, 0);
	for (int i = 1; i < 5; i++)
		enq(&q, i, low, 100, 0); /* low: 4 packets, 400 B; the other: 1 packet, 1500 B */
	CHECK_EQ(rec.ndrops, 1);
	CHECK_EQ(rec.dropped[0], 0);
	db_fq_codel_destroy(&q);

	setup(&q, &p, 2);
	enq(&q, 0, 1 - low, 1000, 0);
	enq(&q, 1, 1 - low, 1000, 0);
	enq(&q, 2, low, 1000, 0);
	enq(&q, 3, low, 500, 0);
	enq(&q, 4, low, 500, 0); /* a tie at 2000 B: Linux takes the lower bucket */
	CHECK_EQ(rec.ndrops, 1);
	CHECK_EQ(rec.dropped[0], 2);
	db_fq_codel_destroy(&q);
}

TEST(overflow_drops_at_most_drop_batch_packets)
{
	struct db_fq_codel q;
	struct db_fq_codel_params p;

	db_fq_codel_defaults(&p);
	p.limit = 10;
	p.drop_batch = 3;
	setup(&q, &p, 2);
	for (int i = 0; i < 10; i++)
		enq(&q, i, A, 100, 0);
	enq(&q, 10, B, 100, 0); /* half of A would be 5 packets; the batch stops at 3 */
	CHECK_EQ(rec.ndrops, 3);
	CHECK_EQ(flow_stats(&q, A, 0).backlog_pkts, 7);
	db_fq_codel_destroy(&q);
	CHECK(all_left_once(11));
}

TEST(arrival_dropped_in_the_batch_is_reported_dropped)
{
	struct db_fq_codel q;
	struct db_fq_codel_params p;

	db_fq_codel_defaults(&p);
	p.limit = 2;
	setup(&q, &p, 2);
	enq(&q, 0, A, 100, 0);
	enq(&q, 1, A, 100, 0);
	/* B's one 1000 B packet makes B the fattest: the arrival itself goes */
	CHECK_EQ(enq(&q, 2, B, 1000, 0), DB_ENQ_DROPPED);
	CHECK_EQ(rec.ndrops, 1);
	CHECK_EQ(rec.dropped[0], 2);
	CHECK_EQ(flow_stats(&q, A, 0).backlog_pkts, 2);
	CHECK_EQ(flow_stats(&q, B, 0).backlog_pkts, 0);
	db_fq_codel_destroy(&q);
	CHECK(all_left_once(3));
}

TEST(memory_limit_drops_from_the_fattest_flow)
{
	struct db_fq_codel q;
	struct db_fq_codel_params p;

	db_fq_codel_defaults(&p);
	p.memory_limit = 3000;
	setup(&q, &p, 2);
	enq(&q, 0, A, 1000, 0);
	enq(&q, 1, A, 1000, 0);
	enq(&q, 2, B, 1000, 0);
	CHECK_EQ(rec.ndrops, 0); /* 3000 is not over 3000 */
	db_fq_codel_reset(&q);
	memset(rec.left, 0, sizeof(rec.left));
	rec.ndrops = 0;
	enq(&q, 0, A, 1000, 0);
	enq(&q, 1, A, 1000, 0);
	enq(&q, 2, B, 500, 0);
	CHECK_EQ(enq(&q, 3, B, 1000, 0), DB_ENQ_QUEUED); /* 3500 B: A 2000, B 1500 */
	CHECK_EQ(rec.ndrops, 1);			 /* A loses 1000 B, half of its 2000 */
	CHECK_EQ(rec.dropped[0], 0);
	CHECK_EQ(rec.why[0], DB_DROP_MEMORY);
	CHECK_EQ(q.stats.drop_overmemory, 1);
	CHECK_EQ(q.stats.drop_overlimit, 1);
	CHECK_EQ(q.backlog_bytes, 2500);
	db_fq_codel_destroy(&q);
	CHECK(all_left_once(4));
}

/* 5 flows x 20 x 120 B at t = 0 (flows 0-2 ECT(0), 3-4 Not-ECT), 60 dequeues at 110 ms,
 * 220 ms, ... (ns-3's FqCoDelQueueDiscECNMarking, quoted in docs/design/emulation.md). */
static void run_ecn_script(struct db_fq_codel *q, bool mtu_per_flow)
{
	struct db_fq_codel_params p;

	db_fq_codel_defaults(&p);
	p.codel.mtu = 1500;
	p.mtu_per_flow = mtu_per_flow;
	setup(q, &p, 5);
	for (int f = 0; f < 5; f++)
		for (int i = 0; i < 20; i++) {
			int id = f * 20 + i;
			db_fq_codel_enqueue(q, make_pkt(id, f, 120, f < 3 ? DB_ECN_ECT0 : 0), 0);
		}
	for (int i = 0; i < 60; i++)
		CHECK(deq(q, (uint64_t)(i + 1) * 110 * MS) != NULL);
}

TEST(ecn_script_matches_reference_with_per_flow_mtu)
{
	struct db_fq_codel q;

	run_ecn_script(&q, true);
	for (int f = 0; f < 3; f++) {
		CHECK_EQ(rec.marks_by_flow[f], 6);
		CHECK_EQ(rec.drops_by_flow[f], 0);
		/* the last mark left 13 x 120 = 1560 B; at 1440 B < 1500 marking stopped */
		CHECK_EQ(rec.min_backlog_at_mark[f], 1560);
		CHECK(flow_stats(&q, f, 0).backlog_pkts > 0);
		CHECK(!flow_stats(&q, f, 0).dropping);
	}
	for (int f = 3; f < 5; f++) {
		CHECK_EQ(rec.drops_by_flow[f], 4);
		CHECK_EQ(rec.marks_by_flow[f], 0);
		CHECK(flow_stats(&q, f, 0).backlog_pkts > 0);
	}
	CHECK_EQ(q.stats.codel.ecn_mark, 18);
	CHECK_EQ(q.stats.codel.drop_count, 8);
	int ce = 0;
	for (int i = 0; i < 100; i++)
		ce += rec.left[i] == 1 && (pkts[i].tos & DB_ECN_MASK) == DB_ECN_CE;
	CHECK_EQ(ce, 18); /* the marked packets were delivered, with CE */
	db_fq_codel_destroy(&q);
	CHECK(all_left_once(100));
}

/*
 * The same script under Linux's rule (the whole discipline's backlog against the MTU):
 * CoDel keeps acting on flows holding less than one MTU. These totals are this
 * implementation's, not an external vector; they pin the difference down.
 */
TEST(ecn_script_with_linux_backlog_rule_marks_below_one_flow_mtu)
{
	struct db_fq_codel q;

	run_ecn_script(&q, false);
	CHECK_EQ(rec.marks_by_flow[0], 19);
	CHECK_EQ(rec.marks_by_flow[1], 12);
	CHECK_EQ(rec.marks_by_flow[2], 12);
	CHECK_EQ(rec.drops_by_flow[3], 13);
	CHECK_EQ(rec.drops_by_flow[4], 13);
	CHECK(rec.min_backlog_at_mark[0] < 1500);
	db_fq_codel_destroy(&q);
	CHECK(all_left_once(100));
}

/* ns-3's second ECN case: ce_threshold 2 ms, dequeues 0.1 ms apart, nothing dropped. */
TEST(ce_threshold_marks_ect_packets_with_long_sojourn)
{
	struct db_fq_codel q;
	struct db_fq_codel_params p;

	db_fq_codel_defaults(&p);
	p.codel.mtu = 1500;
	p.codel.ce_threshold_ns = 2 * MS;
	setup(&q, &p, 5);
	for (int f = 0; f < 5; f++)
		for (int i = 0; i < 20; i++) {
			int id = f * 20 + i;
			db_fq_codel_enqueue(&q, make_pkt(id, f, 120, f < 3 ? DB_ECN_ECT0 : 0), 0);
		}
	for (int i = 0; i < 60; i++)
		deq(&q, (uint64_t)(i + 1) * 100 * US);
	/* flow 0: 13 packets by 1.3 ms; flow 1: 8th at 2.1 ms onwards; flow 2: all 13 */
	CHECK_EQ(rec.marks_by_flow[0], 0);
	CHECK_EQ(rec.marks_by_flow[1], 6);
	CHECK_EQ(rec.marks_by_flow[2], 13);
	CHECK_EQ(rec.marks_by_flow[3], 0);
	CHECK_EQ(rec.marks_by_flow[4], 0);
	CHECK_EQ(rec.ndrops, 0);
	CHECK_EQ(q.stats.codel.ce_mark, 19);
	CHECK_EQ(q.stats.codel.ecn_mark, 0);
	db_fq_codel_destroy(&q);
}

TEST(noecn_drops_ect_packets)
{
	struct db_fq_codel q;
	struct db_fq_codel_params p;

	db_fq_codel_defaults(&p);
	p.codel.ecn = false;
	setup(&q, &p, 1);
	for (int i = 0; i < 20; i++)
		db_fq_codel_enqueue(&q, make_pkt(i, 0, 1000, DB_ECN_ECT0), 0);
	deq(&q, 10 * MS);
	CHECK_EQ(id_of(deq(&q, 210 * MS)), 2);
	CHECK_EQ(rec.ndrops, 1);
	CHECK_EQ(rec.why[0], DB_DROP_AQM);
	CHECK_EQ(rec.nmarks, 0);
	db_fq_codel_destroy(&q);
	CHECK(all_left_once(20));
}

TEST(bucket_is_perturbed_hash_scaled_to_flows)
{
	struct db_fq_codel q0, q1;
	struct db_fq_codel_params p;
	uint32_t a = 0, b = 0;
	int moved = 0;

	db_fq_codel_defaults(&p);
	REQUIRE_EQ(db_fq_codel_init(&q0, &p, NULL), 0);
	p.perturbation = 0x9e3779b9U;
	REQUIRE_EQ(db_fq_codel_init(&q1, &p, NULL), 0);

	for (uint32_t h = 0; h < 1000; h++) {
		CHECK_EQ(db_fq_codel_bucket(&q1, h),
			 db_reciprocal_scale(db_hash_perturb(h, 0x9e3779b9U), 1024));
		moved += db_fq_codel_bucket(&q0, h) != db_fq_codel_bucket(&q1, h);
	}
	CHECK(moved > 900);
	/* two flows sharing a bucket under one perturbation are apart under the other */
	for (uint32_t h = 1; !b && h < 100000; h++)
		for (uint32_t g = 0; g < h && !b; g++)
			if (db_fq_codel_bucket(&q0, g) == db_fq_codel_bucket(&q0, h)) {
				a = g;
				b = h;
			}
	REQUIRE(b != 0);
	CHECK(db_fq_codel_bucket(&q1, a) != db_fq_codel_bucket(&q1, b));
	db_fq_codel_destroy(&q0);
	db_fq_codel_destroy(&q1);
}

TEST(flow_stats_report_sojourn_and_codel_state)
{
	struct db_fq_codel q;
	struct db_fq_codel_params p;
	struct db_fq_codel_flow_stats fs;

	db_fq_codel_defaults(&p);
	p.codel.ecn = false;
	setup(&q, &p, 1);
	for (int i = 0; i < 20; i++)
		enq(&q, i, 0, 1000, 1 * MS);
	fs = flow_stats(&q, 0, 8 * MS);
	CHECK_EQ(fs.backlog_pkts, 20);
	CHECK_EQ(fs.backlog_bytes, 20000);
	CHECK_EQ(fs.sojourn_ns, 7 * MS);
	CHECK_EQ(fs.list, DB_FQ_CODEL_NEW);
	CHECK(!fs.dropping);
	CHECK_EQ(fs.drop_next_ns, 0);
	deq(&q, 11 * MS);
	deq(&q, 211 * MS);
	fs = flow_stats(&q, 0, 251 * MS);
	CHECK(fs.dropping);
	CHECK_EQ(fs.count, 1);
	CHECK_EQ(fs.backlog_pkts, 17);
	CHECK_EQ(fs.deficit, 1514 - 2000);
	/* next drop at ~311 ms, 60 ms ahead of 251 ms (to codel's 1.024 us grain) */
	CHECK(fs.drop_next_ns > 59900 * (int64_t)US && fs.drop_next_ns < 60100 * (int64_t)US);
	fs = flow_stats(&q, 0, 401 * MS);
	CHECK(fs.drop_next_ns < -89900 * (int64_t)US && fs.drop_next_ns > -90100 * (int64_t)US);

	struct db_fq_codel_flow_stats untouched = fs;
	CHECK_EQ(db_fq_codel_flow_stats(&q, 1024, 0, &fs), -EINVAL);
	CHECK(memcmp(&fs, &untouched, sizeof(fs)) == 0);
	db_fq_codel_destroy(&q);
}

TEST(reset_flushes_every_packet_once)
{
	struct db_fq_codel q;
	struct db_fq_codel_params p;
	struct db_qdisc_stats st;

	db_fq_codel_defaults(&p);
	setup(&q, &p, 4);
	for (int i = 0; i < 40; i++)
		enq(&q, i, i % 4, 500, 0);
	deq(&q, 1 * MS);
	db_fq_codel_reset(&q);
	db_fq_codel_stats(&q, &st);
	CHECK_EQ(st.backlog_pkts, 0);
	CHECK_EQ(st.backlog_bytes, 0);
	CHECK_EQ(st.drops, 39);
	CHECK_EQ(rec.why[0], DB_DROP_RESET);
	CHECK(q.new_flows.head == NULL && q.old_flows.head == NULL);
	CHECK_FLOW(&q, 0, 0, DB_FQ_CODEL_INACTIVE);
	CHECK(all_left_once(40));
	/* still usable */
	enq(&q, 40, 1, 500, 2 * MS);
	CHECK_EQ(id_of(deq(&q, 2 * MS)), 40);
	db_fq_codel_destroy(&q);
}

/* A deterministic mixed load with overflow and CoDel drops: the packet contract holds. */
TEST(every_packet_leaves_exactly_once_under_load)
{
	struct db_fq_codel q;
	struct db_fq_codel_params p;
	struct db_qdisc_stats st;
	uint32_t lcg = 12345;
	uint64_t now = 0;
	int next = 0, delivered = 0;

	db_fq_codel_defaults(&p);
	p.limit = 200;
	p.flows = 16;
	p.drop_batch = 8;
	setup(&q, &p, 8);
	while (next < MAX_PKTS) {
		lcg = lcg * 1103515245U + 12345U;
		now += 100 * US;
		if ((lcg >> 16) % 3) {
			int f = (int)((lcg >> 8) % 8);
			db_fq_codel_enqueue(
			    &q,
			    make_pkt(next, f, 64 + (lcg >> 20) % 1400, (lcg & 1) ? DB_ECN_ECT0 : 0),
			    now);
			next++;
		} else if (deq(&q, now)) {
			delivered++;
		}
		uint64_t sum = 0;
		for (uint32_t b = 0; b < p.flows; b++)
			sum += q.backlogs[b];
		if (sum != q.backlog_bytes) {
			CHECK_EQ(sum, q.backlog_bytes);
			break;
		}
	}
	db_fq_codel_stats(&q, &st);
	CHECK_EQ(delivered + (int)st.drops + (int)st.backlog_pkts, MAX_PKTS);
	CHECK(st.overlimits > 0);
	CHECK(q.stats.codel.drop_count + q.stats.codel.ecn_mark > 0);
	db_fq_codel_destroy(&q);
	CHECK(all_left_once(MAX_PKTS));
}

/* ---- ops: options and the generic interface ------------------------------------------- */

static int parse_words(const char *const *words, int n, struct db_fq_codel_params *p, char *err,
		       size_t errlen)
{
	db_fq_codel_ops.defaults(p);
	return db_fq_codel_ops.parse(p, n, (char *const *)words, err, errlen);
}

static bool params_equal(const struct db_fq_codel_params *a, const struct db_fq_codel_params *b)
{
	return a->limit == b->limit && a->flows == b->flows && a->quantum == b->quantum &&
	       a->memory_limit == b->memory_limit && a->drop_batch == b->drop_batch &&
	       a->perturbation == b->perturbation && a->codel.target_ns == b->codel.target_ns &&
	       a->codel.interval_ns == b->codel.interval_ns &&
	       a->codel.ce_threshold_ns == b->codel.ce_threshold_ns &&
	       a->codel.mtu == b->codel.mtu && a->codel.ecn == b->codel.ecn &&
	       a->mtu_per_flow == b->mtu_per_flow;
}

TEST(defaults_format_as_linux_fq_codel)
{
	struct db_fq_codel_params p;
	char buf[512];

	db_fq_codel_ops.defaults(&p);
	CHECK(db_fq_codel_ops.format(&p, buf, sizeof(buf)) > 0);
	CHECK_STR(buf, "fq_codel limit 10240 flows 1024 quantum 1514 target 5ms interval 100ms ecn "
		       "ce_threshold 0ms memory_limit 33554432 drop_batch 64 perturb 0 mtu 1514");
}

TEST(options_round_trip)
{
	const char *words[] = {"limit",	     "800",	     "flows",	"256",		"quantum",
			       "300",	     "target",	     "2ms",	"interval",	"40ms",
			       "noecn",	     "ce_threshold", "500us",	"memory_limit", "4m",
			       "drop_batch", "16",	     "perturb", "77",		"mtu",
			       "1500",	     "mtu_per_flow"};
	struct db_fq_codel_params p, back;
	char buf[512], err[128];

	REQUIRE_EQ(parse_words(words, 22, &p, err, sizeof(err)), 0);
	CHECK_EQ(p.limit, 800);
	CHECK_EQ(p.flows, 256);
	CHECK_EQ(p.quantum, 300);
	CHECK_EQ(p.codel.target_ns, 2 * MS);
	CHECK_EQ(p.codel.interval_ns, 40 * MS);
	CHECK(!p.codel.ecn);
	CHECK_EQ(p.codel.ce_threshold_ns, 500 * US);
	CHECK_EQ(p.memory_limit, 4 << 20);
	CHECK_EQ(p.drop_batch, 16);
	CHECK_EQ(p.perturbation, 77);
	CHECK_EQ(p.codel.mtu, 1500);
	CHECK(p.mtu_per_flow);
	REQUIRE(db_fq_codel_ops.format(&p, buf, sizeof(buf)) > 0);

	char *copy = strdup(buf), *w[40];
	int n = 0;
	for (char *s = strtok(copy, " "); s; s = strtok(NULL, " "))
		w[n++] = s;
	CHECK_STR(w[0], "fq_codel");
	REQUIRE_EQ(parse_words((const char *const *)w + 1, n - 1, &back, err, sizeof(err)), 0);
	CHECK(params_equal(&p, &back));
	free(copy);
}

TEST(unknown_option_is_refused_with_the_word_quoted)
{
	const char *words[] = {"quantom", "300"};
	struct db_fq_codel_params p, before;
	char err[128];

	CHECK_EQ(parse_words(words, 2, &p, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "unknown option \"quantom\" for fq_codel");
	db_fq_codel_defaults(&before);
	CHECK(params_equal(&p, &before));
}

TEST(out_of_range_options_are_refused)
{
	const char *flows0[] = {"flows", "0"};
	const char *flows_big[] = {"limit", "5", "flows", "65537"};
	const char *quantum0[] = {"quantum", "0"};
	const char *batch0[] = {"drop_batch", "0"};
	const char *badsize[] = {"memory_limit", "lots"};
	struct db_fq_codel_params p, before;
	char err[128];

	db_fq_codel_defaults(&before);
	CHECK_EQ(parse_words(flows0, 2, &p, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "flows 0") != NULL);
	CHECK_EQ(parse_words(flows_big, 4, &p, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "65537") != NULL);
	CHECK(params_equal(&p, &before)); /* limit 5 was not applied */
	CHECK_EQ(parse_words(quantum0, 2, &p, err, sizeof(err)), -EINVAL);
	CHECK_EQ(parse_words(batch0, 2, &p, err, sizeof(err)), -EINVAL);
	CHECK_EQ(parse_words(badsize, 2, &p, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "\"lots\"") != NULL);
}

TEST(init_refuses_bad_params_and_allocates_nothing)
{
	struct db_fq_codel_params p;
	struct db_fq_codel q;

	db_fq_codel_defaults(&p);
	p.flows = 0;
	CHECK_EQ(db_fq_codel_init(&q, &p, NULL), -EINVAL);
	db_fq_codel_defaults(&p);
	p.quantum = DB_FQ_CODEL_MAX_QUANTUM + 1;
	CHECK_EQ(db_fq_codel_init(&q, &p, NULL), -EINVAL);
	db_fq_codel_defaults(&p);
	p.codel.interval_ns = 0;
	CHECK_EQ(db_fq_codel_init(&q, &p, NULL), -EINVAL);
}

TEST(ops_drive_the_discipline_and_report_xstats)
{
	struct db_fq_codel_params p;
	struct db_fq_codel *q = calloc(1, db_fq_codel_ops.priv_size);
	struct db_stat xs[16];
	struct db_qdisc_stats st;

	memset(&rec, 0, sizeof(rec));
	db_fq_codel_ops.defaults(&p);
	REQUIRE_EQ(db_fq_codel_ops.init(q, &p, &env), 0);
	rec.q = q;
	pick_hashes(q, 3);
	for (int i = 0; i < 6; i++)
		CHECK_EQ(db_fq_codel_ops.enqueue(q, make_pkt(i, i % 3, 1000 + i, 0), 0),
			 DB_ENQ_QUEUED);
	CHECK_EQ(id_of(db_fq_codel_ops.dequeue(q, 1 * MS)), 0);
	rec.left[0]++;
	db_fq_codel_ops.stats(q, &st);
	CHECK_EQ(st.backlog_pkts, 5);
	CHECK_EQ(st.backlog_bytes, 1001 + 1002 + 1003 + 1004 + 1005);

	int n = db_fq_codel_ops.xstats(q, xs, 16);
	CHECK_EQ(n, 10);
	CHECK_STR(xs[0].name, "maxpacket_bytes");
	CHECK_EQ(xs[0].value, 1000);
	CHECK_STR(xs[2].name, "new_flow_count");
	CHECK_EQ(xs[2].value, 3);
	CHECK_STR(xs[5].name, "new_flows_len");
	CHECK_EQ(xs[5].value, 3);
	CHECK_STR(xs[6].name, "old_flows_len");
	CHECK_EQ(xs[6].value, 0);
	CHECK_STR(xs[7].name, "memory_usage_bytes");
	CHECK_EQ(xs[7].value, st.backlog_bytes);
	CHECK_STR(xs[8].name, "drop_overmemory");
	CHECK_EQ(db_fq_codel_ops.xstats(q, xs, 3), 3);
	CHECK(db_fq_codel_ops.next_ns == NULL);
	CHECK_STR(db_fq_codel_ops.kind, "fq_codel");

	db_fq_codel_ops.reset(q);
	db_fq_codel_ops.stats(q, &st);
	CHECK_EQ(st.backlog_pkts, 0);
	db_fq_codel_ops.destroy(q);
	free(q);
	CHECK(all_left_once(6));
}

/*
 * Linux 6.12 (and RFC 8289's dodequeue) forget first_above_time when a flow's queue
 * empties. A 100 B packet of A and three of C at 0; dequeues at 20 and 21 ms (A's
 * packet, then A found empty); another A packet at 300 ms, dequeued at 320 ms: Linux
 * delivers it. Kernels before the change (keep_first_above) drop it: the 120 ms
 * deadline set at 20 ms was still standing.
 */
static struct db_pkt *first_above_case(bool keep_first_above)
{
	struct db_fq_codel_params p;
	struct db_fq_codel q;
	struct db_pkt *got;

	db_fq_codel_defaults(&p);
	p.flows = 2;
	p.codel.ecn = false;
	p.codel.keep_first_above = keep_first_above;
	setup(&q, &p, 2);
	CHECK_EQ(enq(&q, 0, A, 100, 0), DB_ENQ_QUEUED);
	for (int i = 1; i <= 3; i++)
		CHECK_EQ(enq(&q, i, B, 1514, 0), DB_ENQ_QUEUED);
	got = deq(&q, 20 * MS);
	CHECK(got && id_of(got) == 0);
	got = deq(&q, 21 * MS);
	CHECK(got && id_of(got) == 1);
	CHECK_EQ(enq(&q, 4, A, 100, 300 * MS), DB_ENQ_QUEUED);
	got = deq(&q, 320 * MS);
	db_fq_codel_destroy(&q);
	return got;
}

TEST(empty_flow_forgets_first_above_time_as_linux_6_12)
{
	struct db_pkt *got = first_above_case(false);

	CHECK(got && id_of(got) == 4);
	for (int i = 0; i < rec.ndrops; i++) /* C's old packets may go; A's must not */
		CHECK(rec.dropped[i] != 4);
}

TEST(keep_first_above_drops_as_older_kernels)
{
	struct db_pkt *got = first_above_case(true);
	bool dropped = false;

	for (int i = 0; i < rec.ndrops; i++)
		dropped |= rec.dropped[i] == 4;
	CHECK(dropped);
	CHECK(!got || id_of(got) != 4);
}

/* Overload drops raise the flow's CoDel count by their number, as Linux's fq_codel. */
TEST(overload_drops_raise_the_flows_codel_count)
{
	struct db_fq_codel_params p;
	struct db_fq_codel q;

	db_fq_codel_defaults(&p);
	p.limit = 9;
	p.drop_batch = 64;
	setup(&q, &p, 1);
	for (int i = 0; i < 9; i++)
		CHECK_EQ(enq(&q, i, A, 1000, 0), DB_ENQ_QUEUED);
	CHECK_EQ(q.flows[db_fq_codel_bucket(&q, hashes[A])].cvars.count, 0);
	/* the tenth: over the limit, half the fattest flow's bytes go: 5 packets */
	enq(&q, 9, A, 1000, 0);
	CHECK_EQ(rec.ndrops, 5);
	CHECK_EQ(q.flows[db_fq_codel_bucket(&q, hashes[A])].cvars.count, 5);
	db_fq_codel_destroy(&q);
}

/*
 * The kernel quirk kept (fq_codel.h): a flow whose CoDel never dropped has rec_inv_sqrt
 * 0; overload drops raise its count, so its first episode resumes from that count, the
 * Newton step keeps 0, and drop_next stays where the episode began.
 */
TEST(a_fresh_flow_bumped_by_overload_keeps_rec_inv_sqrt_zero_as_linux)
{
	struct db_fq_codel_params p;
	struct db_fq_codel q;
	struct db_fq_codel_flow *flow;

	db_fq_codel_defaults(&p);
	p.limit = 4;
	p.codel.ecn = false;
	setup(&q, &p, 1);
	for (int i = 0; i < 5; i++) /* the fifth is over the limit: 3 go, count 3 */
		enq(&q, i, A, 1514, 0);
	flow = &q.flows[db_fq_codel_bucket(&q, hashes[A])];
	REQUIRE_EQ(flow->cvars.count, 3);
	REQUIRE_EQ(flow->cvars.rec_inv_sqrt, 0);
	for (int i = 5; i < 7; i++)
		CHECK_EQ(enq(&q, i, A, 1514, 0), DB_ENQ_QUEUED);
	CHECK(deq(&q, 10 * MS) != NULL); /* above target: first_above_time set */
	deq(&q, 120 * MS);		 /* a whole interval above: the episode begins */
	CHECK(flow->cvars.dropping);
	CHECK_EQ(flow->cvars.count, 3);
	CHECK_EQ(flow->cvars.rec_inv_sqrt, 0);
	CHECK_EQ(flow->cvars.drop_next, db_codel_time(120 * MS));
	db_fq_codel_destroy(&q);
}
