/* SPDX-License-Identifier: MIT */
/* test-lab-pool.c - the emulator's buffer pool (src/lab/pool.h): size classes, reuse,
 * the bound on what it keeps, requests above the largest class. */
#include <stdint.h>
#include <string.h>

#include "harness.h"
#include "lab/pool.h"

static size_t kept_total(const struct lab_pool *p)
{
	size_t n = 0;

	for (unsigned i = 0; i < LAB_POOL_CLASSES; i++)
		n += p->kept[i];
	return n;
}

TEST(classes_round_up_by_at_most_half)
{
	CHECK_EQ(lab_pool_class_size(1), LAB_POOL_MIN_SIZE);
	CHECK_EQ(lab_pool_class_size(2048), 2048);
	CHECK_EQ(lab_pool_class_size(2049), 3072);
	CHECK_EQ(lab_pool_class_size(3073), 4096);
	CHECK_EQ(lab_pool_class_size(4097), 6144);
	CHECK_EQ(lab_pool_class_size(65536 + 300), 98304); /* a 64 KB super-packet */
	CHECK_EQ(lab_pool_class_size(LAB_POOL_MAX_SIZE), LAB_POOL_MAX_SIZE);
	CHECK_EQ(lab_pool_class_size(LAB_POOL_MAX_SIZE + 1), 0);
	for (size_t s = 1; s <= LAB_POOL_MAX_SIZE; s += 97) {
		size_t c = lab_pool_class_size(s);

		if (!CHECK(c >= s && (s <= LAB_POOL_MIN_SIZE || 2 * c <= 3 * s)))
			break;
	}
}

TEST(a_freed_buffer_is_handed_out_again_to_its_class)
{
	struct lab_pool p;
	uint8_t *a, *b, *c;

	memset(&p, 0, sizeof(p));
	a = lab_pool_get(&p, 66000);
	REQUIRE(a != NULL);
	memset(a, 0x5a, 66000); /* the whole size is usable */
	lab_pool_put(&p, a, 66000);
	CHECK_EQ(kept_total(&p), 98304);
	b = lab_pool_get(&p, 70000); /* the same class */
	CHECK(b == a);
	c = lab_pool_get(&p, 1500); /* another class: a new buffer */
	CHECK(c != NULL && c != a);
	CHECK_EQ(p.gets, 3);
	CHECK_EQ(p.hits, 1);
	lab_pool_put(&p, b, 70000);
	lab_pool_put(&p, c, 1500);
	lab_pool_put(&p, NULL, 1500); /* ignored */
	lab_pool_clear(&p);
	for (unsigned i = 0; i < LAB_POOL_CLASSES; i++)
		CHECK(p.head[i] == NULL && p.kept[i] == 0);
}

TEST(keeps_at_most_its_bound_per_class_and_frees_the_rest)
{
	enum { N = 64 };
	struct lab_pool p;
	void *buf[N], *again;

	memset(&p, 0, sizeof(p));
	for (int i = 0; i < N; i++)
		REQUIRE((buf[i] = lab_pool_get(&p, 98304)) != NULL);
	/* 6 MB offered, 4 MB kept; ASan sees the rest freed. */
	for (int i = 0; i < N; i++)
		lab_pool_put(&p, buf[i], 98304);
	CHECK_EQ(kept_total(&p), LAB_POOL_KEEP_BYTES / 98304 * 98304);
	/* What is kept comes back, the most recent first. */
	again = lab_pool_get(&p, 98304);
	CHECK(again == buf[LAB_POOL_KEEP_BYTES / 98304 - 1]);
	lab_pool_put(&p, again, 98304);
	lab_pool_clear(&p);
	CHECK_EQ(kept_total(&p), 0);
}

TEST(requests_above_the_largest_class_bypass_the_lists)
{
	struct lab_pool p;
	void *a;

	memset(&p, 0, sizeof(p));
	a = lab_pool_get(&p, LAB_POOL_MAX_SIZE + 1);
	REQUIRE(a != NULL);
	memset(a, 1, LAB_POOL_MAX_SIZE + 1);
	lab_pool_put(&p, a, LAB_POOL_MAX_SIZE + 1); /* freed at once */
	CHECK_EQ(kept_total(&p), 0);
	CHECK_EQ(p.hits, 0);
}
