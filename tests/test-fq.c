/* SPDX-License-Identifier: MIT */
/* test-fq.c - fq: DRR over new/old flows, initial quantum, limits, pacing, options. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "debloat/fq.h"
#include "harness.h"

#define MS   1000000ULL
#define POOL 1024

static struct db_pkt pool[POOL];
static int pool_used;

static struct {
	int n;
	struct db_pkt *pkt[POOL];
	enum db_drop_reason why[POOL];
} dropped;

static void on_drop(struct db_pkt *pkt, enum db_drop_reason why, void *ctx)
{
	if (dropped.n < POOL) {
		dropped.pkt[dropped.n] = pkt;
		dropped.why[dropped.n] = why;
	}
	dropped.n++;
}

static const struct db_qdisc_env env = {on_drop, NULL, NULL};

static void start(struct db_fq *q, const struct db_fq_params *p)
{
	pool_used = 0;
	memset(&dropped, 0, sizeof(dropped));
	memset(pool, 0, sizeof(pool));
	if (db_fq_init(q, p, &env) < 0)
		abort();
}

static struct db_pkt *pkt(uint32_t hash, uint32_t len)
{
	struct db_pkt *p = &pool[pool_used++ % POOL];

	memset(p, 0, sizeof(*p));
	p->hash = hash;
	p->len = len;
	p->segs = 1;
	return p;
}

/* Enqueue n packets of len bytes in flow `hash`; returns how many were queued. */
static int fill(struct db_fq *q, uint32_t hash, uint32_t len, int n, uint64_t now)
{
	int queued = 0;

	for (int i = 0; i < n; i++)
		queued += db_fq_enqueue(q, pkt(hash, len), now) == DB_ENQ_QUEUED;
	return queued;
}

/* n flow hashes that land in n different buckets of q. */
static void distinct_flows(const struct db_fq *q, uint32_t *hash, int n)
{
	uint32_t candidate = 1;

	for (int i = 0; i < n; i++) {
		for (;; candidate++) {
			bool clash = false;
			for (int k = 0; k < i; k++)
				clash |= db_fq_bucket(q, candidate) == db_fq_bucket(q, hash[k]);
			if (!clash)
				break;
		}
		hash[i] = candidate++;
	}
}

static struct db_fq_flow *flow_of(struct db_fq *q, uint32_t hash)
{
	return &q->flows[db_fq_bucket(q, hash)];
}

static uint64_t xstat(const struct db_fq *q, const char *name)
{
	struct db_stat st[16];
	int n = db_fq_xstats(q, st, 16);

	for (int i = 0; i < n; i++)
		if (!strcmp(st[i].name, name))
			return st[i].value;
	return UINT64_MAX;
}

TEST(defaults_are_linux_values)
{
	struct db_fq_params p;

	db_fq_defaults(&p);
	CHECK_EQ(p.limit, 10000);
	CHECK_EQ(p.flow_limit, 100);
	CHECK_EQ(p.quantum, 3028);
	CHECK_EQ(p.initial_quantum, 15140);
	CHECK_EQ(p.maxrate, 0);
	CHECK_EQ(p.buckets, 1024);
	CHECK_EQ(p.refill_delay_ns, 40 * MS);
	CHECK_EQ(db_fq_check(&p), 0);
}

/* docs/design/emulation.md section 3, the fq_codel deficit vector: the same DRR in fq when
 * initial_quantum = quantum (fq_codel gives a new flow one quantum). */
TEST(deficit_vector_of_the_reference_is_reproduced)
{
	struct db_fq q;
	struct db_fq_params p;
	uint32_t h[2];
	struct db_pkt *a1, *a2, *a3, *b1, *b2;

	db_fq_defaults(&p);
	p.quantum = 90;
	p.initial_quantum = 90;
	start(&q, &p);
	distinct_flows(&q, h, 2);
	struct db_fq_flow *A = flow_of(&q, h[0]), *B = flow_of(&q, h[1]);

	a1 = pkt(h[0], 120);
	db_fq_enqueue(&q, a1, 0);
	CHECK_EQ(A->credit, 90);
	CHECK_EQ(A->state, DB_FQ_NEW);
	CHECK(db_fq_dequeue(&q, 0) == a1);
	CHECK_EQ(A->credit, -30);

	a2 = pkt(h[0], 120);
	a3 = pkt(h[0], 120);
	b1 = pkt(h[1], 120);
	b2 = pkt(h[1], 120);
	db_fq_enqueue(&q, a2, 0);
	db_fq_enqueue(&q, a3, 0);
	db_fq_enqueue(&q, b1, 0);
	db_fq_enqueue(&q, b2, 0);
	CHECK_EQ(B->credit, 90);
	CHECK_EQ(B->state, DB_FQ_NEW);

	CHECK(db_fq_dequeue(&q, 0) == b1);
	CHECK_EQ(A->credit, 60);
	CHECK_EQ(A->state, DB_FQ_OLD);
	CHECK_EQ(B->credit, -30);

	CHECK(db_fq_dequeue(&q, 0) == a2);
	CHECK_EQ(A->credit, -60);
	CHECK_EQ(B->credit, 60);
	CHECK_EQ(B->state, DB_FQ_OLD);

	CHECK(db_fq_dequeue(&q, 0) == b2);
	CHECK_EQ(A->credit, 30);
	CHECK_EQ(B->credit, -60);

	CHECK(db_fq_dequeue(&q, 0) == a3);
	CHECK_EQ(A->credit, -90);
	CHECK_EQ(B->credit, 30);

	CHECK(db_fq_dequeue(&q, 0) == NULL);
	CHECK_EQ(A->credit, 90);
	CHECK_EQ(B->credit, 30);
	CHECK_EQ(A->state, DB_FQ_DETACHED);
	CHECK_EQ(B->state, DB_FQ_DETACHED);
	CHECK_EQ(xstat(&q, "flows"), 2);
	CHECK_EQ(xstat(&q, "inactive_flows"), 2);
	db_fq_destroy(&q);
}

TEST(two_backlogged_flows_of_equal_packets_get_equal_bytes)
{
	struct db_fq q;
	struct db_fq_params p;
	uint32_t h[2];
	uint64_t bytes[2] = {0, 0};
	int last = -1, rounds = 0, first_run = 0;

	db_fq_defaults(&p);
	start(&q, &p);
	distinct_flows(&q, h, 2);
	REQUIRE_EQ(fill(&q, h[0], 1000, 100, 0), 100);
	REQUIRE_EQ(fill(&q, h[1], 1000, 100, 0), 100);

	for (int i = 0; i < 150; i++) {
		struct db_pkt *d = db_fq_dequeue(&q, 0);
		REQUIRE(d != NULL);
		int f = d->hash == h[1];
		if (f == 0 && last == 1) {
			/* B just ended its turn: a round is complete */
			CHECK_EQ(bytes[0], bytes[1]);
			rounds++;
		}
		if (last == -1 || (f == last && rounds == 0 && f == 0))
			first_run++;
		bytes[f] += d->len;
		last = f;
	}
	/* initial_quantum 15140 = 16 packets of 1000 before A first yields */
	CHECK_EQ(first_run, 16);
	CHECK(rounds >= 10);
	db_fq_destroy(&q);
}

TEST(bytes_served_per_round_track_the_quantum)
{
	struct db_fq q;
	struct db_fq_params p;
	uint32_t h[2], len[2] = {700, 1100};
	uint64_t bytes[2] = {0, 0};
	int turns[2] = {0, 0}, last = -1;

	db_fq_defaults(&p);
	p.quantum = 3000;
	p.initial_quantum = 0; /* every turn, the first one included, is one quantum */
	p.flow_limit = 200;
	start(&q, &p);
	distinct_flows(&q, h, 2);
	REQUIRE_EQ(fill(&q, h[0], len[0], 200, 0), 200);
	REQUIRE_EQ(fill(&q, h[1], len[1], 200, 0), 200);

	for (int i = 0; i < 300; i++) {
		struct db_pkt *d = db_fq_dequeue(&q, 0);
		REQUIRE(d != NULL);
		int f = d->hash == h[1];
		if (last != -1 && f != last) {
			/* `last` ended turn number turns[last]: r quanta, minus a credit in
			 * (-len, 0] */
			uint64_t r = (uint64_t)++turns[last];
			CHECK(bytes[last] >= r * 3000);
			CHECK(bytes[last] < r * 3000 + len[last]);
		}
		bytes[f] += d->len;
		last = f;
	}
	CHECK(turns[0] >= 20);
	CHECK(turns[1] >= 20);
	CHECK(abs(turns[0] - turns[1]) <= 1); /* strict alternation */
	db_fq_destroy(&q);
}

TEST(new_flow_sends_its_initial_quantum_before_yielding)
{
	struct db_fq q;
	struct db_fq_params p;
	uint32_t h[2];
	/* 15140 = 10 x 1514, then 3028 = 2 x 1514 per turn */
	const int want[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1,
			    1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1};

	db_fq_defaults(&p);
	start(&q, &p);
	distinct_flows(&q, h, 2);
	fill(&q, h[0], 1514, 20, 0);
	fill(&q, h[1], 1514, 20, 0);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct db_pkt *d = db_fq_dequeue(&q, 0);
		REQUIRE(d != NULL);
		CHECK_EQ(d->hash, h[want[i]]);
	}
	db_fq_destroy(&q);
}

TEST(new_flows_are_served_before_old_ones)
{
	struct db_fq q;
	struct db_fq_params p;
	uint32_t h[2];
	struct db_pkt *b;

	db_fq_defaults(&p);
	start(&q, &p);
	distinct_flows(&q, h, 2);
	struct db_fq_flow *A = flow_of(&q, h[0]), *B = flow_of(&q, h[1]);

	fill(&q, h[0], 1514, 30, 0);
	for (int i = 0; i < 11; i++)
		REQUIRE(db_fq_dequeue(&q, 0)->hash == h[0]);
	CHECK_EQ(A->state, DB_FQ_OLD);
	CHECK(A->credit > 0); /* A could go on, but... */

	b = pkt(h[1], 1514);
	db_fq_enqueue(&q, b, 1 * MS);
	CHECK_EQ(b->enqueue_ns, 1 * MS);
	CHECK(db_fq_dequeue(&q, 1 * MS) == b); /* ...the new flow goes first */
	CHECK(db_fq_dequeue(&q, 1 * MS)->hash == h[0]);
	/* B was found empty on new_flows: it passes through old_flows once */
	CHECK_EQ(B->state, DB_FQ_OLD);
	CHECK(db_fq_dequeue(&q, 2 * MS)->hash == h[0]);
	/* then found empty on old_flows: detached, inactive */
	CHECK_EQ(B->state, DB_FQ_DETACHED);
	CHECK_EQ(B->detached_ns, 2 * MS);
	CHECK_EQ(xstat(&q, "flows"), 2);
	CHECK_EQ(xstat(&q, "inactive_flows"), 1);
	db_fq_destroy(&q);
}

static int drain(struct db_fq *q, uint64_t now)
{
	int n = 0;

	while (db_fq_dequeue(q, now))
		n++;
	return n;
}

TEST(idle_flow_is_refilled_after_refill_delay_and_renewed_after_gc_age)
{
	struct db_fq q;
	struct db_fq_params p;
	uint32_t h;
	uint64_t t;

	db_fq_defaults(&p);
	start(&q, &p);
	distinct_flows(&q, &h, 1);
	struct db_fq_flow *A = flow_of(&q, h);

	/* 16 x 1000 take the initial 15140 to -860; the pass that finds the flow
	 * empty refills it once (+3028) before detaching it */
	fill(&q, h, 1000, 16, 0);
	CHECK_EQ(drain(&q, 0), 16);
	CHECK_EQ(A->state, DB_FQ_DETACHED);
	CHECK_EQ(A->credit, 2168);

	/* back after exactly refill_delay: not refilled */
	t = 40 * MS;
	fill(&q, h, 1000, 1, t);
	CHECK_EQ(A->credit, 2168);
	CHECK_EQ(A->state, DB_FQ_NEW);
	CHECK_EQ(drain(&q, t), 1);
	CHECK_EQ(A->credit, 1168);

	/* back after more than refill_delay: at least one quantum */
	t += 40 * MS + 1;
	fill(&q, h, 1000, 1, t);
	CHECK_EQ(A->credit, 3028);
	CHECK_EQ(drain(&q, t), 1);
	CHECK_EQ(A->credit, 2028);
	CHECK_EQ(xstat(&q, "gc_flows"), 0);

	/* back after exactly the gc age: still the old flow */
	t += DB_FQ_GC_AGE_NS;
	fill(&q, h, 1000, 1, t);
	CHECK_EQ(A->credit, 3028);
	CHECK_EQ(drain(&q, t), 1);

	/* back after more than the gc age: a new flow */
	t += DB_FQ_GC_AGE_NS + 1;
	fill(&q, h, 1000, 1, t);
	CHECK_EQ(A->credit, 15140);
	CHECK_EQ(xstat(&q, "gc_flows"), 1);
	CHECK_EQ(xstat(&q, "flows"), 1);
	db_fq_destroy(&q);
}

TEST(refill_delay_is_a_parameter)
{
	struct db_fq q;
	struct db_fq_params p;
	uint32_t h;

	db_fq_defaults(&p);
	p.refill_delay_ns = 5 * MS;
	start(&q, &p);
	distinct_flows(&q, &h, 1);
	fill(&q, h, 1000, 16, 0);
	drain(&q, 0);
	CHECK_EQ(flow_of(&q, h)->credit, 2168);
	fill(&q, h, 1000, 1, 5 * MS + 1);
	CHECK_EQ(flow_of(&q, h)->credit, 3028);
	db_fq_destroy(&q);
}

TEST(flow_limit_drops_the_arriving_packet)
{
	struct db_fq q;
	struct db_fq_params p;
	struct db_qdisc_stats st;
	uint32_t h[2];
	struct db_pkt *fourth;

	db_fq_defaults(&p);
	p.flow_limit = 3;
	start(&q, &p);
	distinct_flows(&q, h, 2);
	CHECK_EQ(fill(&q, h[0], 1000, 3, 0), 3);
	fourth = pkt(h[0], 1000);
	CHECK_EQ(db_fq_enqueue(&q, fourth, 0), DB_ENQ_DROPPED);
	REQUIRE_EQ(dropped.n, 1);
	CHECK(dropped.pkt[0] == fourth);
	CHECK_EQ(dropped.why[0], DB_DROP_FLOW_LIMIT);
	CHECK_EQ(fill(&q, h[1], 1000, 1, 0), 1); /* other flows are not affected */

	db_fq_stats(&q, &st);
	CHECK_EQ(st.backlog_pkts, 4);
	CHECK_EQ(st.backlog_bytes, 4000);
	CHECK_EQ(st.drops, 1);
	CHECK_EQ(st.overlimits, 1);
	CHECK_EQ(xstat(&q, "flows_plimit"), 1);

	/* room again once one left */
	CHECK(db_fq_dequeue(&q, 0)->hash == h[0]);
	CHECK_EQ(fill(&q, h[0], 1000, 1, 0), 1);
	db_fq_destroy(&q);
}

TEST(limit_drops_the_arriving_packet_as_overlimit)
{
	struct db_fq q;
	struct db_fq_params p;
	struct db_qdisc_stats st;
	uint32_t h[6];
	struct db_pkt *sixth, *prio;

	db_fq_defaults(&p);
	p.limit = 5;
	start(&q, &p);
	distinct_flows(&q, h, 6);
	for (int i = 0; i < 5; i++)
		CHECK_EQ(fill(&q, h[i], 1000, 1, 0), 1);
	sixth = pkt(h[5], 1000);
	CHECK_EQ(db_fq_enqueue(&q, sixth, 0), DB_ENQ_DROPPED);
	prio = pkt(h[5], 100);
	prio->flags = DB_PKT_HAS_PRIORITY;
	prio->priority = DB_FQ_PRIO_CONTROL;
	CHECK_EQ(db_fq_enqueue(&q, prio, 0), DB_ENQ_DROPPED); /* high priority too */
	REQUIRE_EQ(dropped.n, 2);
	CHECK(dropped.pkt[0] == sixth);
	CHECK_EQ(dropped.why[0], DB_DROP_OVERLIMIT);
	CHECK_EQ(dropped.why[1], DB_DROP_OVERLIMIT);
	db_fq_stats(&q, &st);
	CHECK_EQ(st.backlog_pkts, 5);
	CHECK_EQ(st.drops, 2);
	CHECK_EQ(st.overlimits, 2);
	CHECK_EQ(xstat(&q, "flows_plimit"), 0);
	CHECK_EQ(xstat(&q, "flows"), 5); /* a refused packet creates no flow */
	db_fq_destroy(&q);
}

TEST(pacing_spaces_1250_byte_packets_10ms_apart_at_1mbit)
{
	struct db_fq q;
	struct db_fq_params p;
	uint32_t h;
	struct db_pkt *d;
	uint64_t t = 0;

	db_fq_defaults(&p);
	p.maxrate = 125000; /* 1 Mbit/s */
	start(&q, &p);
	distinct_flows(&q, &h, 1);
	fill(&q, h, 1250, 5, 0);
	CHECK_EQ(db_fq_next_ns(&q, 0), 0);

	for (int i = 0; i < 5; i++) {
		CHECK_EQ(t, (uint64_t)i * 10 * MS);
		if (i > 0)
			CHECK(db_fq_dequeue(&q, t - 1) == NULL); /* 1 ns early */
		d = db_fq_dequeue(&q, t);
		REQUIRE(d != NULL);
		CHECK(d == &pool[i]);
		if (i < 4) {
			CHECK(db_fq_dequeue(&q, t) == NULL);
			CHECK_EQ(xstat(&q, "throttled_flows"), 1);
			CHECK_EQ(xstat(&q, "time_next_delayed_flow_ns"), t + 10 * MS);
		}
		t = db_fq_next_ns(&q, t);
	}
	/* the last packet left: nothing is held back */
	CHECK(db_fq_dequeue(&q, 40 * MS) == NULL);
	CHECK_EQ(db_fq_next_ns(&q, 40 * MS), 0);
	CHECK_EQ(xstat(&q, "throttled"), 4);
	CHECK_EQ(xstat(&q, "throttled_flows"), 0);

	/* the flow remembers its pace while empty: a packet at 45 ms waits for 50 */
	fill(&q, h, 1250, 1, 45 * MS);
	CHECK(db_fq_dequeue(&q, 45 * MS) == NULL);
	CHECK_EQ(db_fq_next_ns(&q, 45 * MS), 50 * MS);
	CHECK(db_fq_dequeue(&q, 50 * MS) != NULL);
	db_fq_destroy(&q);
}

TEST(two_flows_are_paced_independently)
{
	struct db_fq q;
	struct db_fq_params p;
	uint32_t h[2];
	struct {
		uint64_t t;
		int flow;
	} want[] = {{0, 0}, {0, 1}, {5 * MS, 1}, {10 * MS, 0}, {10 * MS, 1}, {20 * MS, 0}};
	size_t n = 0;
	uint64_t t = 0;

	db_fq_defaults(&p);
	p.maxrate = 125000;
	start(&q, &p);
	distinct_flows(&q, h, 2);
	fill(&q, h[0], 1250, 3, 0); /* 10 ms apart */
	fill(&q, h[1], 625, 3, 0);  /* 5 ms apart */

	while (n < sizeof(want) / sizeof(want[0])) {
		struct db_pkt *d = db_fq_dequeue(&q, t);
		if (!d) {
			uint64_t next = db_fq_next_ns(&q, t);
			REQUIRE(next > t);
			t = next;
			continue;
		}
		CHECK_EQ(t, want[n].t);
		CHECK_EQ(d->hash, h[want[n].flow]);
		n++;
	}
	CHECK(db_fq_dequeue(&q, t) == NULL);
	CHECK_EQ(db_fq_next_ns(&q, t), 0);
	db_fq_destroy(&q);
}

/* Linux puts a released flow at the tail of old_flows, behind flows already there. */
TEST(released_flow_joins_the_tail_of_old_flows)
{
	struct db_fq q;
	struct db_fq_params p;
	uint32_t h[2];
	struct db_pkt *d;

	db_fq_defaults(&p);
	p.maxrate = 125000;
	start(&q, &p);
	distinct_flows(&q, h, 2);
	fill(&q, h[0], 1250, 2, 0); /* A: next at 10 ms */
	fill(&q, h[1], 625, 3, 0);  /* O: next at 5 ms, then 10 ms */
	CHECK(db_fq_dequeue(&q, 0)->hash == h[0]);
	CHECK(db_fq_dequeue(&q, 0)->hash == h[1]);
	CHECK(db_fq_dequeue(&q, 0) == NULL);
	CHECK(db_fq_dequeue(&q, 5 * MS)->hash == h[1]);
	/* O stays at the head of old_flows: nobody looked at it since 5 ms */
	CHECK_EQ(flow_of(&q, h[1])->state, DB_FQ_OLD);
	d = db_fq_dequeue(&q, 10 * MS);
	REQUIRE(d != NULL);
	CHECK_EQ(d->hash, h[1]); /* O before the just released A */
	d = db_fq_dequeue(&q, 10 * MS);
	REQUIRE(d != NULL);
	CHECK_EQ(d->hash, h[0]);
	db_fq_destroy(&q);
}

/* Many throttled flows leave the throttled set in time order. */
TEST(throttled_flows_are_released_in_time_order)
{
	struct db_fq q;
	struct db_fq_params p;
	uint32_t h[12];
	const uint32_t len[12] = {1000, 300, 700, 200, 900, 500, 100, 800, 1100, 400, 600, 150};
	uint64_t t = 0, last = 0;
	int got = 0;

	db_fq_defaults(&p);
	p.maxrate = 125000; /* 8 us per byte */
	start(&q, &p);
	distinct_flows(&q, h, 12);
	for (int i = 0; i < 12; i++)
		fill(&q, h[i], len[i], 2, 0);
	CHECK_EQ(drain(&q, 0), 12);
	CHECK_EQ(xstat(&q, "throttled_flows"), 12);
	while (got < 12) {
		struct db_pkt *d = db_fq_dequeue(&q, t);
		if (!d) {
			uint64_t next = db_fq_next_ns(&q, t);
			REQUIRE(next > t);
			t = next;
			continue;
		}
		CHECK_EQ(t, (uint64_t)d->len * 8000);
		CHECK(t >= last);
		last = t;
		got++;
	}
	db_fq_destroy(&q);
}

TEST(late_dequeue_shows_in_unthrottle_latency)
{
	struct db_fq q;
	struct db_fq_params p;
	uint32_t h;

	db_fq_defaults(&p);
	p.maxrate = 125000;
	start(&q, &p);
	distinct_flows(&q, &h, 1);
	fill(&q, h, 1250, 2, 0);
	db_fq_dequeue(&q, 0);
	CHECK(db_fq_dequeue(&q, 0) == NULL);
	CHECK(db_fq_dequeue(&q, 5 * MS) == NULL); /* early: not a sample */
	CHECK_EQ(xstat(&q, "unthrottle_latency_ns"), 0);
	CHECK(db_fq_dequeue(&q, 10 * MS + 8000) != NULL); /* 8 us late */
	CHECK_EQ(xstat(&q, "unthrottle_latency_ns"), 1000);
	db_fq_destroy(&q);
}

TEST(no_pacing_without_maxrate)
{
	struct db_fq q;
	struct db_fq_params p;
	uint32_t h;

	db_fq_defaults(&p);
	start(&q, &p);
	distinct_flows(&q, &h, 1);
	fill(&q, h, 1500, 20, 0);
	CHECK_EQ(drain(&q, 0), 20);
	CHECK_EQ(db_fq_next_ns(&q, 0), 0);
	CHECK_EQ(xstat(&q, "throttled"), 0);
	CHECK_EQ(xstat(&q, "time_next_delayed_flow_ns"), 0);
	db_fq_destroy(&q);
}

TEST(pacing_gap_is_capped_at_one_second)
{
	struct db_fq q;
	struct db_fq_params p;
	uint32_t h;

	db_fq_defaults(&p);
	p.maxrate = 1000; /* 1500 B would take 1.5 s */
	start(&q, &p);
	distinct_flows(&q, &h, 1);
	fill(&q, h, 1500, 1, 0);
	fill(&q, h, 1000, 1, 0); /* exactly 1 s: not too long */
	fill(&q, h, 1000, 1, 0);
	CHECK(db_fq_dequeue(&q, 0) != NULL);
	CHECK(db_fq_dequeue(&q, 0) == NULL);
	CHECK_EQ(db_fq_next_ns(&q, 0), 1000 * MS);
	CHECK_EQ(xstat(&q, "pkts_too_long"), 1);
	CHECK(db_fq_dequeue(&q, 1000 * MS) != NULL);
	CHECK(db_fq_dequeue(&q, 1000 * MS) == NULL);
	CHECK_EQ(db_fq_next_ns(&q, 1000 * MS), 2000 * MS);
	CHECK_EQ(xstat(&q, "pkts_too_long"), 1);
	db_fq_destroy(&q);
}

TEST(gso_packet_counts_as_one_packet_and_its_full_bytes)
{
	struct db_fq q;
	struct db_fq_params p;
	struct db_qdisc_stats st;
	uint32_t h[2];
	struct db_pkt *g;

	db_fq_defaults(&p);
	p.limit = 2;
	p.maxrate = 1000000; /* 8 Mbit/s: 64000 B take 64 ms */
	start(&q, &p);
	distinct_flows(&q, h, 2);
	for (int i = 0; i < 2; i++) {
		g = pkt(h[0], 64000);
		g->segs = 45;
		CHECK_EQ(db_fq_enqueue(&q, g, 0), DB_ENQ_QUEUED);
	}
	db_fq_stats(&q, &st);
	CHECK_EQ(st.backlog_pkts, 2);
	CHECK_EQ(st.backlog_bytes, 128000);
	CHECK_EQ(fill(&q, h[1], 100, 1, 0), 0); /* the limit counts packets */

	CHECK(db_fq_dequeue(&q, 0) != NULL);
	CHECK_EQ(flow_of(&q, h[0])->credit, 15140 - 64000);
	CHECK(db_fq_dequeue(&q, 0) == NULL);
	CHECK_EQ(db_fq_next_ns(&q, 0), 64 * MS);
	db_fq_destroy(&q);
}

TEST(high_priority_packets_go_first_and_unpaced)
{
	struct db_fq q;
	struct db_fq_params p;
	uint32_t h;
	struct db_pkt *ctl[3], *plain;

	db_fq_defaults(&p);
	p.maxrate = 125000;
	start(&q, &p);
	distinct_flows(&q, &h, 1);
	fill(&q, h, 1250, 2, 0);
	for (int i = 0; i < 3; i++) {
		ctl[i] = pkt(h, 1250);
		ctl[i]->flags = DB_PKT_HAS_PRIORITY;
		ctl[i]->priority = DB_FQ_PRIO_CONTROL;
	}
	plain = pkt(h, 1250);
	plain->priority = DB_FQ_PRIO_CONTROL; /* no DB_PKT_HAS_PRIORITY: ignored */
	db_fq_enqueue(&q, ctl[0], 0);
	db_fq_enqueue(&q, ctl[1], 0);
	db_fq_enqueue(&q, plain, 0);

	CHECK(db_fq_dequeue(&q, 0) == ctl[0]);
	CHECK(db_fq_dequeue(&q, 0) == ctl[1]);
	CHECK(db_fq_dequeue(&q, 0) == &pool[0]);
	CHECK(db_fq_dequeue(&q, 0) == NULL); /* the flow is paced */
	db_fq_enqueue(&q, ctl[2], 1 * MS);
	CHECK(db_fq_dequeue(&q, 1 * MS) == ctl[2]); /* not this one */
	CHECK_EQ(xstat(&q, "highprio_packets"), 3);
	CHECK_EQ(flow_of(&q, h)->qlen, 2); /* pool[1] and plain */
	db_fq_destroy(&q);
}

TEST(reset_flushes_everything_through_the_drop_callback)
{
	struct db_fq q;
	struct db_fq_params p;
	struct db_qdisc_stats st;
	uint32_t h[3];
	struct db_pkt *ctl;

	db_fq_defaults(&p);
	p.maxrate = 125000;
	start(&q, &p);
	distinct_flows(&q, h, 3);
	fill(&q, h[0], 1250, 3, 0);
	fill(&q, h[1], 1250, 2, 0);
	db_fq_dequeue(&q, 0);
	db_fq_dequeue(&q, 0);
	CHECK(db_fq_dequeue(&q, 0) == NULL); /* both flows throttled */
	fill(&q, h[2], 100, 4, 0);	     /* a new flow, listed */
	ctl = pkt(h[2], 100);
	ctl->flags = DB_PKT_HAS_PRIORITY;
	ctl->priority = DB_FQ_PRIO_CONTROL;
	db_fq_enqueue(&q, ctl, 0);
	CHECK_EQ(xstat(&q, "throttled_flows"), 2);

	db_fq_reset(&q);
	CHECK_EQ(dropped.n, 2 + 1 + 4 + 1);
	for (int i = 0; i < dropped.n && i < POOL; i++) {
		CHECK_EQ(dropped.why[i], DB_DROP_RESET);
		for (int k = 0; k < i; k++)
			CHECK(dropped.pkt[k] != dropped.pkt[i]);
	}
	db_fq_stats(&q, &st);
	CHECK_EQ(st.backlog_pkts, 0);
	CHECK_EQ(st.backlog_bytes, 0);
	CHECK_EQ(st.drops, 8);
	CHECK_EQ(xstat(&q, "flows"), 0);
	CHECK_EQ(xstat(&q, "inactive_flows"), 0);
	CHECK_EQ(xstat(&q, "throttled_flows"), 0);
	CHECK_EQ(db_fq_next_ns(&q, 0), 0);
	CHECK(db_fq_dequeue(&q, 0) == NULL);

	/* usable again, with fresh flows and no pacing history */
	fill(&q, h[0], 1250, 2, 1 * MS);
	CHECK_EQ(flow_of(&q, h[0])->credit, 15140);
	CHECK(db_fq_dequeue(&q, 1 * MS) != NULL);
	db_fq_destroy(&q);
	CHECK_EQ(dropped.n, 9);
}

TEST(destroy_flushes_and_can_be_repeated)
{
	struct db_fq q;
	struct db_fq_params p;
	uint32_t h[2];

	db_fq_defaults(&p);
	start(&q, &p);
	distinct_flows(&q, h, 2);
	fill(&q, h[0], 500, 2, 0);
	fill(&q, h[1], 500, 1, 0);
	db_fq_destroy(&q);
	CHECK_EQ(dropped.n, 3);
	CHECK_EQ(dropped.why[2], DB_DROP_RESET);
	db_fq_destroy(&q);
	CHECK_EQ(dropped.n, 3);
}

TEST(flows_in_one_bucket_share_a_queue_and_perturb_moves_them)
{
	struct db_fq q;
	struct db_fq_params p;
	uint32_t a = 1, b, moved = 0;

	db_fq_defaults(&p);
	p.buckets = 16;
	p.flow_limit = 2;
	start(&q, &p);
	for (b = 2; db_fq_bucket(&q, b) != db_fq_bucket(&q, a); b++)
		;
	CHECK_EQ(fill(&q, a, 100, 1, 0), 1);
	CHECK_EQ(fill(&q, b, 100, 2, 0), 1); /* the bucket holds 2 */
	CHECK_EQ(xstat(&q, "flows"), 1);
	db_fq_destroy(&q);

	for (uint32_t hash = 0; hash < 64; hash++) {
		struct db_fq q2;
		p.perturb = 0;
		start(&q, &p);
		p.perturb = 0x5eed;
		start(&q2, &p);
		CHECK(db_fq_bucket(&q2, hash) < 16);
		moved += db_fq_bucket(&q, hash) != db_fq_bucket(&q2, hash);
		db_fq_destroy(&q);
		db_fq_destroy(&q2);
	}
	CHECK(moved > 32);
}

TEST(options_format_and_parse_back)
{
	struct db_fq_params p, again;
	char buf[256], buf2[256], err[160] = "";
	char *argv[] = {"limit",	   "500",  "flow_limit", "20",	   "quantum", "1514",
			"initial_quantum", "3028", "maxrate",	 "10mbit", "buckets", "64",
			"refill_delay",	   "20ms", "perturb",	 "12345"};

	db_fq_defaults(&p);
	CHECK(db_fq_format(&p, buf, sizeof(buf)) > 0);
	CHECK_STR(buf, "fq limit 10000 flow_limit 100 quantum 3028 initial_quantum 15140 "
		       "maxrate 0bit buckets 1024 refill_delay 40ms perturb 0");

	REQUIRE_EQ(db_fq_parse(&p, 16, argv, err, sizeof(err)), 0);
	CHECK_EQ(p.limit, 500);
	CHECK_EQ(p.flow_limit, 20);
	CHECK_EQ(p.quantum, 1514);
	CHECK_EQ(p.initial_quantum, 3028);
	CHECK_EQ(p.maxrate, 1250000);
	CHECK_EQ(p.buckets, 64);
	CHECK_EQ(p.refill_delay_ns, 20 * MS);
	CHECK_EQ(p.perturb, 12345);
	REQUIRE(db_fq_format(&p, buf, sizeof(buf)) > 0);
	CHECK_STR(buf, "fq limit 500 flow_limit 20 quantum 1514 initial_quantum 3028 "
		       "maxrate 10mbit buckets 64 refill_delay 20ms perturb 12345");

	/* the formatted words (after the kind) parse back to the same params */
	char copy[256], *words[32];
	int n = 0;
	strcpy(copy, buf);
	for (char *w = strtok(copy, " "); w && n < 32; w = strtok(NULL, " "))
		words[n++] = w;
	db_fq_defaults(&again);
	REQUIRE_EQ(db_fq_parse(&again, n - 1, words + 1, err, sizeof(err)), 0);
	CHECK(memcmp(&again, &p, sizeof(p)) == 0);
	db_fq_format(&again, buf2, sizeof(buf2));
	CHECK_STR(buf2, buf);

	CHECK_EQ(db_fq_format(&p, buf, 10), -ENOSPC);
}

static void check_refused(char *const *argv, int argc, const char *message)
{
	struct db_fq_params p, before;
	char err[160] = "";

	db_fq_defaults(&p);
	p.limit = 77; /* not a default: "untouched" must mean untouched */
	before = p;
	CHECK_EQ(db_fq_parse(&p, argc, argv, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, message);
	CHECK(memcmp(&p, &before, sizeof(p)) == 0);
}

TEST(bad_options_are_refused_quoting_the_word)
{
	char *buckets[] = {"limit", "5", "buckets", "1000"};
	char *unknown[] = {"quantom", "300"};
	char *zero[] = {"quantum", "0"};
	char *rate[] = {"maxrate", "fast"};
	char *huge[] = {"buckets", "524288"};
	char *missing[] = {"flow_limit"};

	check_refused(buckets, 4,
		      "bad value \"1000\" for fq buckets: expected a power of two "
		      "like 1024");
	check_refused(unknown, 2, "unknown option \"quantom\" for fq");
	check_refused(zero, 2, "fq quantum 0 is out of range (1..1048576)");
	check_refused(rate, 2, "bad value \"fast\" for fq maxrate: expected a rate like 100mbit");
	check_refused(huge, 2, "fq buckets 524288 is out of range (1..262144)");
	check_refused(missing, 1, "fq flow_limit needs 1 value");
}

TEST(init_refuses_inconsistent_params)
{
	struct db_fq q;
	struct db_fq_params p;

	db_fq_defaults(&p);
	p.buckets = 1000;
	CHECK_EQ(db_fq_init(&q, &p, &env), -EINVAL);
	p.buckets = 0;
	CHECK_EQ(db_fq_init(&q, &p, &env), -EINVAL);
	db_fq_defaults(&p);
	p.quantum = 0;
	CHECK_EQ(db_fq_init(&q, &p, &env), -EINVAL);
	db_fq_defaults(&p);
	p.flow_limit = 0;
	CHECK_EQ(db_fq_init(&q, &p, &env), -EINVAL);
	db_fq_defaults(&p);
	p.buckets = 1;
	CHECK_EQ(db_fq_init(&q, &p, NULL), 0); /* one bucket: a plain DRR-less FIFO */
	CHECK_EQ(fill(&q, 1, 100, 1, 0), 1);
	db_fq_destroy(&q); /* no env: the flushed packet is silently given up */
}

TEST(ops_table_drives_the_discipline)
{
	const struct db_qdisc_ops *ops = &db_fq_ops;
	void *params = calloc(1, ops->params_size), *priv = calloc(1, ops->priv_size);
	char *argv[] = {"maxrate", "1mbit", "buckets", "64"};
	struct db_stat st[16];
	char err[160] = "", buf[256];
	int n;

	REQUIRE(params && priv);
	CHECK_STR(ops->kind, "fq");
	CHECK(strstr(ops->usage, "[buckets N]") != NULL);
	ops->defaults(params);
	REQUIRE_EQ(ops->parse(params, 4, argv, err, sizeof(err)), 0);
	CHECK(ops->format(params, buf, sizeof(buf)) > 0);
	CHECK(strstr(buf, "maxrate 1mbit buckets 64") != NULL);
	pool_used = 0;
	memset(&dropped, 0, sizeof(dropped));
	REQUIRE_EQ(ops->init(priv, params, &env), 0);
	CHECK_EQ(ops->enqueue(priv, pkt(7, 1250), 0), DB_ENQ_QUEUED);
	CHECK_EQ(ops->enqueue(priv, pkt(7, 1250), 0), DB_ENQ_QUEUED);
	CHECK(ops->dequeue(priv, 0) == &pool[0]);
	CHECK(ops->dequeue(priv, 0) == NULL);
	CHECK_EQ(ops->next_ns(priv, 0), 10 * MS);
	n = ops->xstats(priv, st, 16);
	CHECK_EQ(n, 10);
	const char *names[] = {"flows",
			       "inactive_flows",
			       "throttled_flows",
			       "gc_flows",
			       "highprio_packets",
			       "throttled",
			       "flows_plimit",
			       "pkts_too_long",
			       "unthrottle_latency_ns",
			       "time_next_delayed_flow_ns"};
	for (int i = 0; i < n && i < 10; i++)
		CHECK_STR(st[i].name, names[i]);
	CHECK_EQ(ops->xstats(priv, st, 3), 3);
	CHECK_EQ(ops->xstats(priv, st, 0), 0);
	ops->reset(priv);
	CHECK_EQ(dropped.n, 1);
	ops->enqueue(priv, pkt(7, 100), 1);
	ops->destroy(priv);
	CHECK_EQ(dropped.n, 2);
	free(params);
	free(priv);
}

/* xorshift32, fixed seed: deterministic */
static uint32_t rnd(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/* Per pool slot: 0 free, 1 queued, 2 being offered (inside enqueue). */
static uint8_t where[POOL];
static uint32_t held_pkts;
static uint64_t held_bytes;

static void count_drop(struct db_pkt *pkt, enum db_drop_reason why, void *ctx)
{
	int *bad = ctx;
	long i = pkt - pool;

	if (i < 0 || i >= POOL || !where[i]) {
		(*bad)++;
		return;
	}
	if (where[i] == 1) {
		held_pkts--;
		held_bytes -= pkt->len;
	}
	where[i] = 0;
	dropped.n++;
}

TEST(every_packet_leaves_exactly_once_under_random_load)
{
	struct db_fq q;
	struct db_fq_params p;
	int bad = 0;
	struct db_qdisc_env e = {count_drop, NULL, &bad};
	uint32_t s = 12345;
	uint64_t now = 0, offered = 0, out = 0;

	db_fq_defaults(&p);
	p.limit = 200;
	p.flow_limit = 20;
	p.buckets = 32;
	p.quantum = 1000;
	p.maxrate = 2000000;
	memset(where, 0, sizeof(where));
	memset(&dropped, 0, sizeof(dropped));
	held_pkts = 0;
	held_bytes = 0;
	REQUIRE_EQ(db_fq_init(&q, &p, &e), 0);
	for (int step = 0; step < 200000 && !bad; step++) {
		uint32_t r = rnd(&s) % 1000;
		struct db_qdisc_stats st;

		if (r < 550) {
			int i = (int)(rnd(&s) % POOL);
			if (where[i])
				continue;
			struct db_pkt *k = &pool[i];
			memset(k, 0, sizeof(*k));
			k->hash = rnd(&s) % 40;
			k->len = 60 + rnd(&s) % 3000;
			k->segs = 1;
			if (r < 10) {
				k->flags = DB_PKT_HAS_PRIORITY;
				k->priority = DB_FQ_PRIO_CONTROL;
			}
			where[i] = 2;
			offered++;
			if (db_fq_enqueue(&q, k, now) == DB_ENQ_QUEUED) {
				REQUIRE_EQ(where[i], 2);
				where[i] = 1;
				held_pkts++;
				held_bytes += k->len;
			} else {
				REQUIRE_EQ(where[i], 0);
			}
		} else if (r < 950) {
			struct db_pkt *d = db_fq_dequeue(&q, now);
			if (d) {
				long i = d - pool;
				REQUIRE(i >= 0 && i < POOL && where[i] == 1);
				REQUIRE(d->enqueue_ns <= now);
				where[i] = 0;
				held_pkts--;
				held_bytes -= d->len;
				out++;
			} else if (held_pkts) {
				/* all held back: next_ns must point to the future */
				REQUIRE(db_fq_next_ns(&q, now) > now);
			}
		} else if (r == 999) {
			db_fq_reset(&q);
			REQUIRE_EQ(held_pkts, 0);
		} else {
			now += rnd(&s) % (2 * MS);
		}
		db_fq_stats(&q, &st);
		REQUIRE_EQ(st.backlog_pkts, held_pkts);
		REQUIRE_EQ(st.backlog_bytes, held_bytes);
		REQUIRE_EQ(st.drops, (uint64_t)dropped.n);
	}
	CHECK_EQ(bad, 0);
	CHECK(out > 10000);
	CHECK(dropped.n > 100);
	CHECK(xstat(&q, "throttled") > 100);
	CHECK(xstat(&q, "flows_plimit") > 0);
	db_fq_destroy(&q);
	CHECK_EQ(bad, 0);
	for (int i = 0; i < POOL; i++)
		CHECK_EQ(where[i], 0);
	CHECK_EQ(offered, out + (uint64_t)dropped.n);
}
