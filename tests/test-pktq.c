/* SPDX-License-Identifier: MIT */
/* test-pktq.c - the packet FIFO of pktq.h: order, links, splice, the empty state. */
#include <stdint.h>
#include <string.h>

#include "debloat/pktq.h"
#include "harness.h"

#define N 8

/* Packets whose every field but `next` holds a pattern the queue must not touch. */
static void make(struct db_pkt *pkt, int n)
{
	for (int i = 0; i < n; i++) {
		memset(&pkt[i], 0xa5, sizeof(pkt[i]));
		pkt[i].len = 100 + (uint32_t)i;
		pkt[i].enqueue_ns = 1000 + (uint64_t)i;
		pkt[i].data = &pkt[i];
	}
}

/* head == NULL exactly when tail == NULL, and the tail ends the chain. */
static bool consistent(const struct db_pktq *q)
{
	if (!q->head || !q->tail)
		return !q->head && !q->tail;
	return q->tail->next == NULL;
}

TEST(all_zero_is_an_empty_queue)
{
	struct db_pktq q;

	memset(&q, 0, sizeof(q));
	CHECK(db_pktq_empty(&q));
	CHECK(db_pktq_peek(&q) == NULL);
	CHECK(db_pktq_pop(&q) == NULL);
	CHECK_EQ(db_pktq_count(&q), 0);
	CHECK(consistent(&q));

	q.head = q.tail = (struct db_pkt *)&q; /* anything: init must forget it */
	db_pktq_init(&q);
	CHECK(db_pktq_empty(&q));
	CHECK(q.head == NULL && q.tail == NULL);
}

TEST(is_two_pointers_for_the_per_flow_budgets)
{
	CHECK_EQ(sizeof(struct db_pktq), 2 * sizeof(void *));
}

TEST(pops_in_push_order_and_hands_back_clean_links)
{
	struct db_pkt pkt[N];
	struct db_pktq q = {0};

	make(pkt, N);
	for (int i = 0; i < N; i++) {
		pkt[i].next = &pkt[(i + 3) % N]; /* a stale link from an earlier life */
		db_pktq_push(&q, &pkt[i]);
		CHECK(q.tail == &pkt[i]);
		CHECK(consistent(&q));
	}
	CHECK_EQ(db_pktq_count(&q), N);
	for (int i = 0; i < N; i++) {
		struct db_pkt *p = db_pktq_pop(&q);

		REQUIRE(p == &pkt[i]);
		CHECK(p->next == NULL);
		CHECK(consistent(&q));
		CHECK_EQ(db_pktq_count(&q), N - 1 - i);
	}
	CHECK(db_pktq_empty(&q));
	CHECK(db_pktq_pop(&q) == NULL);
}

TEST(touches_no_field_but_next)
{
	struct db_pkt pkt[2], want[2];
	struct db_pktq q = {0};

	make(pkt, 2);
	db_pktq_push(&q, &pkt[0]);
	db_pktq_push(&q, &pkt[1]);
	db_pktq_pop(&q);
	db_pktq_pop(&q);
	make(want, 2);
	for (int i = 0; i < 2; i++) {
		want[i].data = &pkt[i];
		want[i].next = NULL;
		CHECK(memcmp(&pkt[i], &want[i], sizeof(want[i])) == 0);
	}
}

TEST(peek_leaves_the_head_in_place)
{
	struct db_pkt pkt[2];
	struct db_pktq q = {0};

	make(pkt, 2);
	db_pktq_push(&q, &pkt[0]);
	db_pktq_push(&q, &pkt[1]);
	CHECK(db_pktq_peek(&q) == &pkt[0]);
	CHECK(db_pktq_peek(&q) == &pkt[0]);
	CHECK_EQ(db_pktq_count(&q), 2);
	CHECK(db_pktq_pop(&q) == &pkt[0]);
	CHECK(db_pktq_peek(&q) == &pkt[1]);
}

/* The classic slip: the last pop must forget the tail, or the next push is lost. */
TEST(push_after_running_dry_starts_a_new_chain)
{
	struct db_pkt pkt[3];
	struct db_pktq q = {0};

	make(pkt, 3);
	db_pktq_push(&q, &pkt[0]);
	CHECK(db_pktq_pop(&q) == &pkt[0]);
	CHECK(q.tail == NULL);
	db_pktq_push(&q, &pkt[1]);
	db_pktq_push(&q, &pkt[2]);
	CHECK(pkt[0].next == NULL);
	CHECK(db_pktq_pop(&q) == &pkt[1]);
	CHECK(db_pktq_pop(&q) == &pkt[2]);
	CHECK(db_pktq_empty(&q));
}

/* Random pushes and pops against an array model of the same FIFO. */
TEST(interleaved_pushes_and_pops_match_a_model)
{
	static struct db_pkt pkt[64];
	struct db_pkt *model[64];
	unsigned head = 0, len = 0, next = 0;
	uint32_t rng = 12345;
	struct db_pktq q = {0};

	make(pkt, 64);
	for (int step = 0; step < 20000; step++) {
		rng = rng * 1103515245u + 12345u;
		if ((rng >> 16) % 3 != 0 && len < 64) {
			/* the slot leaving longest ago is free again: the model is a ring */
			struct db_pkt *p = &pkt[next++ % 64];

			db_pktq_push(&q, p);
			model[(head + len++) % 64] = p;
		} else {
			struct db_pkt *p = db_pktq_pop(&q);

			if (!len) {
				REQUIRE(p == NULL);
				continue;
			}
			REQUIRE(p == model[head]);
			head = (head + 1) % 64;
			len--;
		}
		REQUIRE(consistent(&q));
		REQUIRE(db_pktq_peek(&q) == (len ? model[head] : NULL));
		REQUIRE(db_pktq_empty(&q) == (len == 0));
	}
	CHECK_EQ(db_pktq_count(&q), len);
}

TEST(splice_moves_a_whole_queue_behind_another)
{
	struct db_pkt pkt[6];
	struct db_pktq a = {0}, b = {0}, empty = {0};

	make(pkt, 6);
	for (int i = 0; i < 3; i++)
		db_pktq_push(&a, &pkt[i]);
	for (int i = 3; i < 5; i++)
		db_pktq_push(&b, &pkt[i]);
	db_pktq_splice(&a, &b);
	CHECK(db_pktq_empty(&b) && b.tail == NULL);
	CHECK_EQ(db_pktq_count(&a), 5);
	CHECK(consistent(&a));
	db_pktq_push(&a, &pkt[5]); /* the tail moved with the splice */
	for (int i = 0; i < 6; i++)
		REQUIRE(db_pktq_pop(&a) == &pkt[i]);
	CHECK(db_pktq_empty(&a));

	/* splicing nothing changes nothing; splicing into nothing moves everything */
	db_pktq_push(&a, &pkt[0]);
	db_pktq_splice(&a, &empty);
	CHECK(a.head == &pkt[0] && a.tail == &pkt[0]);
	db_pktq_splice(&b, &a);
	CHECK(db_pktq_empty(&a) && a.tail == NULL);
	CHECK(b.head == &pkt[0] && b.tail == &pkt[0]);
	CHECK(consistent(&b));
}

TEST(count_walks_the_chain)
{
	struct db_pkt pkt[N];
	struct db_pktq q = {0};

	make(pkt, N);
	for (int i = 0; i < N; i++) {
		CHECK_EQ(db_pktq_count(&q), i);
		db_pktq_push(&q, &pkt[i]);
	}
	CHECK_EQ(db_pktq_count(&q), N);
}
