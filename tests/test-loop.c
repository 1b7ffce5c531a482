/* SPDX-License-Identifier: MIT */
/*
 * test-loop.c - the timers of src/base/loop.c (a binary heap): order of expiry, ties,
 * removal of any timer, stale ids, timers set from a timer, and many timers at once.
 * Time is passed in (loop_run_timers, or a clock of the test's own for loop_once), so
 * nothing here waits.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "base/loop.h"
#include "harness.h"

#define MANY 20000

struct record {
	unsigned n;
	uintptr_t order[MANY];
};

static void note(struct loop *l, uint64_t id, void *ctx)
{
	struct record *r = ctx;

	(void)l;
	(void)id;
	r->order[r->n++] = 0; /* only that it ran */
}

/* The ctx is a struct tagged: which record, and which tag to write. */
struct tagged {
	struct record *r;
	uintptr_t tag;
};

static void note_tag(struct loop *l, uint64_t id, void *ctx)
{
	struct tagged *t = ctx;

	(void)l;
	(void)id;
	t->r->order[t->r->n++] = t->tag;
}

static struct record rec;

TEST(timers_run_in_deadline_order)
{
	struct loop *l = loop_new();
	static const uint64_t when[] = {50, 10, 40, 20, 30};
	struct tagged tg[5];

	REQUIRE(l);
	memset(&rec, 0, sizeof(rec));
	for (unsigned i = 0; i < 5; i++) {
		tg[i] = (struct tagged){&rec, when[i]};
		CHECK(loop_timer_at(l, when[i], note_tag, &tg[i]) > 0);
	}
	CHECK_EQ(loop_timer_count(l), 5);
	CHECK_EQ(loop_run_timers(l, 5), 0); /* none due yet */
	CHECK_EQ(loop_run_timers(l, 30), 3);
	CHECK_EQ(rec.n, 3);
	CHECK_EQ(rec.order[0], 10);
	CHECK_EQ(rec.order[1], 20);
	CHECK_EQ(rec.order[2], 30);
	CHECK_EQ(loop_run_timers(l, 100), 2);
	CHECK_EQ(rec.order[3], 40);
	CHECK_EQ(rec.order[4], 50);
	CHECK_EQ(loop_timer_count(l), 0);
	loop_free(l);
}

TEST(equal_deadlines_run_in_creation_order)
{
	struct loop *l = loop_new();
	struct tagged tg[8];

	REQUIRE(l);
	memset(&rec, 0, sizeof(rec));
	for (unsigned i = 0; i < 8; i++) {
		tg[i] = (struct tagged){&rec, i};
		loop_timer_at(l, 7, note_tag, &tg[i]);
	}
	CHECK_EQ(loop_run_timers(l, 7), 8);
	for (unsigned i = 0; i < 8; i++)
		CHECK_EQ(rec.order[i], i);
	loop_free(l);
}

TEST(removing_a_timer_that_is_not_next)
{
	struct loop *l = loop_new();
	struct tagged tg[6];
	uint64_t id[6];

	REQUIRE(l);
	memset(&rec, 0, sizeof(rec));
	for (unsigned i = 0; i < 6; i++) {
		tg[i] = (struct tagged){&rec, i};
		id[i] = loop_timer_at(l, 100 + i, note_tag, &tg[i]);
	}
	loop_timer_del(l, id[3]); /* in the middle */
	loop_timer_del(l, id[5]); /* the last leaf */
	loop_timer_del(l, id[0]); /* the head */
	CHECK_EQ(loop_timer_count(l), 3);
	CHECK_EQ(loop_run_timers(l, 1000), 3);
	CHECK_EQ(rec.n, 3);
	CHECK_EQ(rec.order[0], 1);
	CHECK_EQ(rec.order[1], 2);
	CHECK_EQ(rec.order[2], 4);
	loop_free(l);
}

TEST(a_stale_id_deletes_nothing)
{
	struct loop *l = loop_new();
	struct tagged a = {&rec, 1}, b = {&rec, 2};
	uint64_t ida, idb;

	REQUIRE(l);
	memset(&rec, 0, sizeof(rec));
	ida = loop_timer_at(l, 10, note_tag, &a);
	CHECK_EQ(loop_run_timers(l, 10), 1);
	/* b reuses a's slot; a's old id must not reach it. */
	idb = loop_timer_at(l, 20, note_tag, &b);
	CHECK(idb != ida);
	loop_timer_del(l, ida);
	loop_timer_del(l, ida + 12345);
	loop_timer_del(l, 0);
	CHECK_EQ(loop_timer_count(l), 1);
	loop_timer_del(l, idb);
	loop_timer_del(l, idb); /* twice: ignored */
	CHECK_EQ(loop_timer_count(l), 0);
	CHECK_EQ(loop_run_timers(l, 100), 0);
	CHECK_EQ(rec.n, 1);
	loop_free(l);
}

struct rearm {
	unsigned runs;
	uint64_t now;
	uint64_t victim; /* a timer to delete from inside the callback */
};

static void rearm_now(struct loop *l, uint64_t id, void *ctx)
{
	struct rearm *r = ctx;

	(void)id;
	r->runs++;
	if (r->victim) {
		loop_timer_del(l, r->victim);
		r->victim = 0;
	}
	loop_timer_at(l, r->now, rearm_now, r); /* due at once: must wait for the next run */
}

TEST(a_timer_set_from_a_timer_waits_for_the_next_run)
{
	struct loop *l = loop_new();
	struct rearm r = {.now = 50};

	REQUIRE(l);
	memset(&rec, 0, sizeof(rec));
	loop_timer_at(l, 50, rearm_now, &r);
	r.victim = loop_timer_at(l, 60, note, &rec);
	CHECK_EQ(loop_run_timers(l, 50), 1);
	CHECK_EQ(r.runs, 1);
	CHECK_EQ(loop_timer_count(l), 1); /* the re-armed one; the victim is gone */
	CHECK_EQ(loop_run_timers(l, 100), 1);
	CHECK_EQ(r.runs, 2);
	CHECK_EQ(rec.n, 0);
	loop_free(l);
}

static void del_pending(struct loop *l, uint64_t id, void *ctx)
{
	uint64_t *set = ctx;

	(void)id;
	*set = loop_timer_at(l, 1, note, &rec); /* pending while timers run */
	loop_timer_del(l, *set);
}

TEST(a_timer_set_and_deleted_inside_a_run_never_runs)
{
	struct loop *l = loop_new();
	uint64_t set = 0;

	REQUIRE(l);
	memset(&rec, 0, sizeof(rec));
	loop_timer_at(l, 1, del_pending, &set);
	CHECK_EQ(loop_run_timers(l, 1), 1);
	CHECK(set > 0);
	CHECK_EQ(loop_timer_count(l), 0);
	CHECK_EQ(loop_run_timers(l, 10), 0);
	CHECK_EQ(rec.n, 0);
	loop_free(l);
}

static uint64_t lcg(uint64_t *x)
{
	*x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
	return *x >> 33;
}

static uint64_t many_when[MANY];

static void note_when(struct loop *l, uint64_t id, void *ctx)
{
	(void)l;
	(void)id;
	rec.order[rec.n++] = (uintptr_t)ctx;
}

TEST(many_timers_with_deletions_run_sorted)
{
	struct loop *l = loop_new();
	static uint64_t ids[MANY];
	uint64_t x = 42;
	unsigned kept = 0;

	REQUIRE(l);
	memset(&rec, 0, sizeof(rec));
	for (unsigned i = 0; i < MANY; i++) {
		many_when[i] = lcg(&x) % 100000;
		ids[i] = loop_timer_at(l, many_when[i], note_when, (void *)(uintptr_t)i);
		REQUIRE(ids[i] > 0);
	}
	for (unsigned i = 0; i < MANY; i += 3)
		loop_timer_del(l, ids[i]);
	for (unsigned i = 0; i < MANY; i++)
		kept += i % 3 != 0;
	CHECK_EQ(loop_timer_count(l), kept);
	CHECK_EQ(loop_run_timers(l, UINT64_MAX), (long long)kept);
	REQUIRE_EQ(rec.n, kept);
	for (unsigned i = 0; i < rec.n; i++) {
		CHECK(rec.order[i] % 3 != 0);
		if (i && !CHECK(many_when[rec.order[i - 1]] < many_when[rec.order[i]] ||
				(many_when[rec.order[i - 1]] == many_when[rec.order[i]] &&
				 rec.order[i - 1] < rec.order[i])))
			break;
	}
	loop_free(l);
}

/* A clock the test sets: loop_once waits on it, not on CLOCK_MONOTONIC. */
static uint64_t set_time(void *ctx)
{
	return *(const uint64_t *)ctx;
}

TEST(loop_once_runs_timers_on_the_clock_it_was_given)
{
	uint64_t now = 1000ULL * 1000000000ULL; /* far from the real clock's value */
	struct loop_clock clock = {.now_ns = set_time, .ctx = &now};
	struct loop *l = loop_new_clock(&clock);
	uint64_t t0 = loop_now_ns();

	REQUIRE(l);
	memset(&rec, 0, sizeof(rec));
	CHECK_EQ(loop_now(l), now);
	/* Due in an hour of the loop's time: a 1 ms wait runs nothing. */
	CHECK(loop_timer_at(l, now + 3600ULL * 1000000000ULL, note, &rec) > 0);
	CHECK_EQ(loop_once(l, 1), 0);
	CHECK_EQ(rec.n, 0);
	/* The hour passes on the clock: the next call runs it at once, without waiting
	 * (a loop on the real clock would sleep the wait given, or an hour). */
	now += 3600ULL * 1000000000ULL;
	CHECK_EQ(loop_once(l, 5000), 1);
	CHECK_EQ(rec.n, 1);
	CHECK(loop_now_ns() - t0 < 2000000000ULL);
	loop_free(l);
}

TEST(loop_new_runs_on_the_monotonic_clock)
{
	struct loop *l = loop_new(), *m = loop_new_clock(NULL);
	uint64_t before = loop_now_ns(), a, b;

	REQUIRE(l && m);
	a = loop_now(l);
	b = loop_now(m);
	CHECK(a >= before && a - before < 1000000000ULL);
	CHECK(b >= before && b - before < 1000000000ULL);
	loop_free(l);
	loop_free(m);
}

/* ---- the urgent fd ---- */

struct busy {
	int order; /* when the urgent fd ran: how many busy callbacks had run */
	int ran;
};

static void busy_cb(struct loop *l, int fd, uint32_t events, void *ctx)
{
	struct busy *b = ctx;
	uint64_t end = loop_now_ns() + 200000; /* 200 us of work */
	char c;

	(void)events;
	while (loop_now_ns() < end)
		;
	if (read(fd, &c, 1) == 1)
		b->ran++;
	loop_del(l, fd);
}

static void urgent_cb(struct loop *l, int fd, uint32_t events, void *ctx)
{
	struct busy *b = ctx;
	char c;

	(void)l, (void)events;
	if (read(fd, &c, 1) == 1 && b->order < 0)
		b->order = b->ran;
}

/* Forty busy connections ready at once: the urgent fd, ready too and registered last,
 * runs after a few of them, not after the whole batch. */
TEST(an_urgent_fd_waits_for_no_whole_batch)
{
	enum { N = 40 };
	struct loop *l = loop_new();
	struct busy b = {.order = -1};
	int p[N][2], u[2];

	REQUIRE(l);
	for (int i = 0; i < N; i++) {
		REQUIRE(pipe(p[i]) == 0);
		REQUIRE(write(p[i][1], "x", 1) == 1);
		REQUIRE(loop_add(l, p[i][0], EPOLLIN, busy_cb, &b) == 0);
	}
	REQUIRE(pipe2(u, O_NONBLOCK) == 0);
	REQUIRE(loop_add(l, u[0], EPOLLIN, urgent_cb, &b) == 0);
	CHECK_EQ(loop_set_urgent(l, u[0]), 0);
	CHECK_EQ(loop_set_urgent(l, 999), -ENOENT);
	REQUIRE(write(u[1], "u", 1) == 1);
	loop_once(l, 100);
	CHECK_EQ(b.ran, N);
	CHECK(b.order >= 0 && b.order <= 3);
	loop_del(l, u[0]);
	for (int i = 0; i < N; i++)
		close(p[i][0]), close(p[i][1]);
	close(u[0]), close(u[1]);
	loop_free(l);
}

static void busy_timer(struct loop *l, uint64_t id, void *ctx)
{
	struct busy *b = ctx;
	uint64_t end = loop_now_ns() + 200000; /* 200 us of work */

	(void)l, (void)id;
	while (loop_now_ns() < end)
		;
	b->ran++;
}

/* Forty timers due together, each 200 us of work: the urgent fd, readable before they
 * start, runs after a few of them, not after the whole run. */
TEST(an_urgent_fd_waits_for_no_run_of_timers)
{
	enum { N = 40 };
	struct loop *l = loop_new();
	struct busy b = {.order = -1};
	uint64_t now;
	int u[2];

	REQUIRE(l);
	REQUIRE(pipe2(u, O_NONBLOCK) == 0);
	REQUIRE(loop_add(l, u[0], EPOLLIN, urgent_cb, &b) == 0);
	REQUIRE_EQ(loop_set_urgent(l, u[0]), 0);
	now = loop_now(l);
	for (int i = 0; i < N; i++)
		REQUIRE(loop_timer_at(l, now, busy_timer, &b) != 0);
	REQUIRE(write(u[1], "u", 1) == 1);
	CHECK_EQ(loop_run_timers(l, now), N + 1);
	CHECK_EQ(b.ran, N);
	CHECK(b.order >= 0 && b.order <= 3);
	close(u[0]), close(u[1]);
	loop_free(l);
}

/* A long callback's own urgent points: the urgent fd gets in at most every 50 us, not
 * at every point, and never from inside its own callback. */
static void urgent_again(struct loop *l, int fd, uint32_t events, void *ctx)
{
	struct busy *b = ctx;
	char c;

	(void)events;
	if (read(fd, &c, 1) == 1)
		b->order++;
	CHECK_EQ(loop_urgent_point(l), 0); /* no re-entry */
}

TEST(urgent_points_let_the_urgent_fd_in_at_most_every_50_us)
{
	struct loop *l = loop_new();
	struct busy b = {.order = 0};
	int u[2], ran = 0;
	uint64_t t0;

	REQUIRE(l);
	CHECK_EQ(loop_urgent_point(l), 0); /* none set: nothing to do */
	REQUIRE(pipe2(u, O_NONBLOCK) == 0);
	REQUIRE(loop_add(l, u[0], EPOLLIN, urgent_again, &b) == 0);
	REQUIRE_EQ(loop_set_urgent(l, u[0]), 0);
	REQUIRE(write(u[1], "uuuuuuuu", 8) == 8);
	/* A point right after another: too soon, whatever is readable. Both can let it in
	 * only when 50 us passed between them, which an emulated CPU (qemu-user) can take
	 * for the first one's poll and read alone. */
	t0 = loop_now_ns();
	ran += loop_urgent_point(l);
	ran += loop_urgent_point(l);
	CHECK(ran <= 1 || loop_now_ns() - t0 >= 50000);
	/* Points 60 us apart: each lets it in while something is left to read. */
	for (int i = 0; i < 4; i++) {
		uint64_t end = loop_now_ns() + 60000;

		while (loop_now_ns() < end)
			;
		ran += loop_urgent_point(l);
	}
	CHECK_EQ(ran, b.order);
	CHECK(b.order >= 4);
	close(u[0]), close(u[1]);
	loop_free(l);
}
