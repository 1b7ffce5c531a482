/* SPDX-License-Identifier: MIT */
/*
 * test-invariants.c - every discipline and DQL under long pseudo-random operation
 * sequences, checked by tests/checker.c after every operation.
 */
#include <stdio.h>
#include <string.h>

#include "checker.h"
#include "harness.h"

#define OPS_PER_RUN 200000

/* xorshift32: deterministic, seeds printed on failure so a run can be replayed. */
static uint32_t next_random(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/*
 * Phases bias the stream: fill (mostly enqueue: overflow, fat flows), drain (mostly
 * dequeue with time passing: CoDel drop states, pacing), and mixed.
 */
static void make_op(uint32_t *seed, unsigned phase, uint8_t op[4])
{
	uint32_t r = next_random(seed);
	unsigned pick = r % 100;
	static const uint8_t enq[] = {0, 1, 2}, deq[] = {3, 4, 5};

	op[1] = (uint8_t)(r >> 8);
	op[2] = (uint8_t)(r >> 16);
	op[3] = (uint8_t)(r >> 24);
	op[0] = (uint8_t)(next_random(seed) & 0xf8);
	if (pick < (phase == 0 ? 70u : phase == 1 ? 20u : 45u)) {
		op[0] |= enq[r % 3];
		/* mostly full-size frames, some small, a few GSO super-packets */
		if (op[1] < 0xe0)
			op[1] = (uint8_t)(op[1] & 0x05), op[2] = op[1] == 5 ? 0xea : op[2];
	} else if (pick < 96) {
		op[0] |= deq[r % 3];
	} else if (pick < 99) {
		op[0] |= 6;
		op[1] = 0; /* up to 2.5 ms */
	} else {
		op[0] |= 6; /* up to 650 ms */
	}
}

static void run_spec(const char *spec, uint32_t seed)
{
	static struct checker c;
	uint32_t s = seed;
	uint8_t op[4];
	int i;

	if (!CHECK_EQ(checker_init(&c, spec), 0)) {
		fprintf(stderr, "  spec \"%s\": %s\n", spec, c.failure);
		return;
	}
	for (i = 0; i < OPS_PER_RUN; i++) {
		make_op(&s, (unsigned)(i / 5000) % 3, op);
		if (checker_step(&c, op) < 0)
			break;
	}
	checker_finish(&c);
	if (!CHECK(c.failure[0] == '\0'))
		fprintf(stderr, "  spec \"%s\" seed %u op %d: %s\n", spec, seed, i, c.failure);
	/* The stream must really exercise the discipline, not idle in one corner. */
	CHECK(c.dequeued > 1000);
	CHECK(c.offered > 10000);
}

TEST(every_discipline_conserves_packets_and_bytes)
{
	for (size_t k = 0; k < checker_nspecs; k++)
		for (uint32_t seed = 1; seed <= 3; seed++)
			run_spec(checker_specs[k], seed * 2654435761U);
}

TEST(small_limits_really_drop)
{
	static struct checker c;
	uint32_t s = 7;
	uint8_t op[4];

	REQUIRE_EQ(checker_init(&c, "fq_codel limit 24 flows 16 quantum 300"), 0);
	for (int i = 0; i < 20000; i++) {
		make_op(&s, 0, op);
		checker_step(&c, op);
	}
	CHECK(c.dropped > 100);
	CHECK_EQ(checker_finish(&c), 0);
}

TEST(ecn_marks_happen_and_only_on_ect)
{
	static struct checker c;
	uint32_t s = 99;
	uint8_t op[4];

	REQUIRE_EQ(checker_init(&c, "codel limit 1000 target 1ms interval 10ms ecn"), 0);
	for (int i = 0; i < OPS_PER_RUN; i++) {
		make_op(&s, (unsigned)(i / 5000) % 3, op);
		if (checker_step(&c, op) < 0)
			break;
	}
	CHECK(c.marked > 0);
	CHECK_EQ(checker_finish(&c), 0);
	if (c.failure[0])
		fprintf(stderr, "  %s\n", c.failure);
}

/* A discipline that loses a packet: the checker must notice, or it proves nothing. */
static struct db_pkt *leaky_held;
static int leaky_enqueue(void *priv, struct db_pkt *pkt, uint64_t now)
{
	leaky_held = pkt; /* keeps only the last one, forgets the rest */
	return DB_ENQ_QUEUED;
}
static struct db_pkt *leaky_dequeue(void *priv, uint64_t now)
{
	struct db_pkt *p = leaky_held;
	leaky_held = NULL;
	return p;
}
static void leaky_stats(const void *priv, struct db_qdisc_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->backlog_pkts = leaky_held ? 1 : 0;
	st->backlog_bytes = leaky_held ? leaky_held->len : 0;
}

TEST(checker_catches_a_discipline_that_loses_packets)
{
	static struct checker c;
	struct db_qdisc_ops ops;
	struct db_qdisc q;
	const uint8_t enq[4] = {0, 5, 0xea, 1}, enq2[4] = {0, 5, 0xea, 2};

	REQUIRE_EQ(checker_init(&c, "pfifo limit 4"), 0);
	ops = *c.q->ops;
	ops.enqueue = leaky_enqueue;
	ops.dequeue = leaky_dequeue;
	ops.stats = leaky_stats;
	q = *c.q;
	q.ops = &ops;
	struct db_qdisc *real = c.q;
	c.q = &q;
	CHECK_EQ(checker_step(&c, enq), 0);
	CHECK_EQ(checker_step(&c, enq2), -1);
	CHECK(strstr(c.failure, "backlog") != NULL);
	c.q = real;
	c.failure[0] = '\0';
	db_qdisc_destroy(c.q);
}

static void run_dql(uint32_t seed, const uint8_t setup[4])
{
	static struct dql_checker c;
	uint32_t s = seed;
	uint8_t op[4];
	int i;

	dql_checker_init(&c, setup);
	for (i = 0; i < OPS_PER_RUN; i++) {
		uint32_t r = next_random(&s);
		op[0] = (uint8_t)r;
		op[1] = (uint8_t)(r >> 8);
		op[2] = (uint8_t)(r >> 16);
		op[3] = (uint8_t)(r >> 24);
		if ((op[0] & 3) == 2 && (r & 0x300)) /* over-completion now and then */
			op[0] &= (uint8_t)~2;
		if (dql_checker_step(&c, op) < 0)
			break;
	}
	if (!CHECK(c.failure[0] == '\0'))
		fprintf(stderr, "  dql seed %u op %d: %s\n", seed, i, c.failure);
	CHECK(c.dql.limit > 0); /* the stream made the limit move */
}

TEST(dql_accounting_holds_under_random_rings)
{
	const uint8_t defaults[4] = {0, 0, 0, 0}, clamped[4] = {0, 200, 0, 20};

	for (uint32_t seed = 1; seed <= 4; seed++) {
		run_dql(seed * 2246822519U, defaults);
		run_dql(seed * 3266489917U, clamped);
	}
}
