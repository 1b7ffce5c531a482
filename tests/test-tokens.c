/* SPDX-License-Identifier: MIT */
/*
 * test-tokens.c - src/meter/tokens.c, the server's token -> test table: find, add,
 * remove, tokens that collide (same hash: same first 8 bytes), removal from the middle
 * of a run, a full table, and many entries against a plain list.
 */
#include <errno.h>
#include <string.h>

#include "harness.h"
#include "meter/tokens.h"

static void make_token(uint8_t *tok, uint64_t head, uint64_t tail)
{
	memcpy(tok, &head, 8);
	memcpy(tok + 8, &tail, 8);
}

TEST(add_find_remove)
{
	struct token_table t;
	uint8_t a[PROTO_TOKEN_LEN], b[PROTO_TOKEN_LEN];
	int va, vb;

	REQUIRE_EQ(tokens_init(&t, 4, 1234), 0);
	make_token(a, 1, 2);
	make_token(b, 3, 4);
	CHECK(tokens_find(&t, a) == NULL);
	CHECK_EQ(tokens_add(&t, a, &va), 0);
	CHECK_EQ(tokens_add(&t, b, &vb), 0);
	CHECK(tokens_find(&t, a) == &va);
	CHECK(tokens_find(&t, b) == &vb);
	CHECK_EQ(tokens_add(&t, a, &vb), -EEXIST);
	CHECK(tokens_find(&t, a) == &va); /* unchanged by the refused add */
	CHECK_EQ(tokens_del(&t, a), 0);
	CHECK(tokens_find(&t, a) == NULL);
	CHECK(tokens_find(&t, b) == &vb);
	CHECK_EQ(tokens_del(&t, a), -ENOENT);
	CHECK_EQ(t.n, 1);
	tokens_free(&t);
}

TEST(bad_sizes_are_refused)
{
	struct token_table t;

	CHECK_EQ(tokens_init(&t, 0, 0), -EINVAL);
	CHECK_EQ(tokens_init(&t, (size_t)1 << 30, 0), -EINVAL);
}

TEST(a_full_table_refuses_more)
{
	struct token_table t;
	uint8_t tok[4][PROTO_TOKEN_LEN];
	int v;

	REQUIRE_EQ(tokens_init(&t, 3, 0), 0);
	for (unsigned i = 0; i < 4; i++)
		make_token(tok[i], i, i);
	for (unsigned i = 0; i < 3; i++)
		CHECK_EQ(tokens_add(&t, tok[i], &v), 0);
	CHECK_EQ(tokens_add(&t, tok[3], &v), -ENOSPC);
	CHECK(tokens_find(&t, tok[3]) == NULL);
	CHECK_EQ(tokens_del(&t, tok[1]), 0);
	CHECK_EQ(tokens_add(&t, tok[3], &v), 0);
	tokens_free(&t);
}

/* Tokens sharing their first 8 bytes share their hash, so they share a run. */
TEST(colliding_tokens_are_told_apart_and_survive_removals)
{
	struct token_table t;
	uint8_t tok[6][PROTO_TOKEN_LEN], other[PROTO_TOKEN_LEN];
	int v[6];

	REQUIRE_EQ(tokens_init(&t, 8, 99), 0);
	for (unsigned i = 0; i < 6; i++) {
		make_token(tok[i], 0x1111, 100 + i);
		REQUIRE_EQ(tokens_add(&t, tok[i], &v[i]), 0);
	}
	make_token(other, 0x1111, 999); /* same hash, not in the table */
	CHECK(tokens_find(&t, other) == NULL);
	for (unsigned i = 0; i < 6; i++)
		CHECK(tokens_find(&t, tok[i]) == &v[i]);
	/* From the middle of the run, then its head, then its end. */
	CHECK_EQ(tokens_del(&t, tok[2]), 0);
	CHECK_EQ(tokens_del(&t, tok[0]), 0);
	CHECK_EQ(tokens_del(&t, tok[5]), 0);
	CHECK(tokens_find(&t, tok[0]) == NULL);
	CHECK(tokens_find(&t, tok[2]) == NULL);
	CHECK(tokens_find(&t, tok[5]) == NULL);
	CHECK(tokens_find(&t, tok[1]) == &v[1]);
	CHECK(tokens_find(&t, tok[3]) == &v[3]);
	CHECK(tokens_find(&t, tok[4]) == &v[4]);
	CHECK_EQ(tokens_del(&t, other), -ENOENT);
	tokens_free(&t);
}

#define MANY 10000

static uint64_t lcg(uint64_t *x)
{
	*x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
	return *x;
}

static uint8_t many[MANY][PROTO_TOKEN_LEN];
static int present[MANY];

/* Random adds and removes, every answer checked against a plain list. */
TEST(many_entries_match_a_plain_list)
{
	struct token_table t;
	uint64_t x = 7;
	size_t n = 0;

	REQUIRE_EQ(tokens_init(&t, MANY, 0xabcdef), 0);
	for (unsigned i = 0; i < MANY; i++)
		make_token(many[i], lcg(&x), lcg(&x)); /* random, as getrandom's would be */
	for (unsigned round = 0; round < 5 * MANY; round++) {
		unsigned i = (unsigned)(lcg(&x) >> 33) % MANY;

		if (present[i]) {
			if (!CHECK_EQ(tokens_del(&t, many[i]), 0))
				break;
			present[i] = 0;
			n--;
		} else {
			if (!CHECK_EQ(tokens_add(&t, many[i], &present[i]), 0))
				break;
			present[i] = 1;
			n++;
		}
	}
	CHECK_EQ(t.n, n);
	for (unsigned i = 0; i < MANY; i++)
		if (!CHECK(tokens_find(&t, many[i]) == (present[i] ? &present[i] : NULL)))
			break;
	tokens_free(&t);
}
