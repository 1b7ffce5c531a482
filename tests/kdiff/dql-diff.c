/* SPDX-License-Identifier: MIT */
/*
 * dql-diff.c - libdebloat's DQL against the kernel's lib/dynamic_queue_limits.c.
 *
 * Built by tests/test-kernel-diff.sh with the kernel's file and header (from Debian's
 * linux-source package, in a temporary directory; never in this repository) and our
 * shims in tests/kdiff/shim/. Both are driven as a driver drives them: objects posted
 * while the ring has room and DQL allows (one always, then while avail >= 0), completion
 * batches of the oldest objects, ring resets, at times in whole jiffies (HZ 1000: 1 ms),
 * with random limit_min, limit_max and hold time. After every event they must agree on
 * limit, avail, the running totals and the slack state.
 *
 * What dql.h documents as different is kept out of the traces: stall detection is off
 * (stall_thrs 0); the limits are set before a reset (Linux clamps the current limit only
 * at the next completion, we at once); and the first completion after init or a reset
 * comes in the same jiffy as it (we date the slack window from that completion, Linux
 * from the reset).
 *
 *   dql-diff TRACES [SEED]   prints one line and "N passed, N failed"
 */
#include <stdio.h>
#include <stdlib.h>

#include <linux/dynamic_queue_limits.h>

#include "debloat/dql.h"

unsigned long jiffies;

#define RING   256
#define EVENTS 3000
#define MS     1000000ULL

static uint64_t rng;
static uint32_t next_random(void)
{
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)(rng >> 33);
}

static uint32_t ring[RING];
static unsigned head, count;

static void post(struct dql *k, struct db_dql *o, uint32_t bytes)
{
	dql_queued(k, bytes);
	db_dql_queued(o, bytes);
	ring[(head + count++) % RING] = bytes;
}

static void complete(struct dql *k, struct db_dql *o, unsigned n)
{
	uint32_t bytes = 0;

	for (; n && count; n--, count--) {
		bytes += ring[head];
		head = (head + 1) % RING;
	}
	if (!bytes) /* the driver API skips an empty report (netdev_tx_completed_queue) */
		return;
	dql_completed(k, bytes);
	db_dql_completed(o, bytes, (uint64_t)jiffies * MS);
}

/* slack: compare the slack window's start too (not between a reset and its completion) */
static bool same(const struct dql *k, const struct db_dql *o, bool slack)
{
	return k->limit == o->limit && dql_avail(k) == db_dql_avail(o) &&
	       k->num_queued == o->num_queued && k->num_completed == o->num_completed &&
	       k->adj_limit == o->adj_limit && k->prev_ovlimit == o->prev_ovlimit &&
	       k->prev_num_queued == o->prev_num_queued &&
	       k->prev_last_obj_cnt == o->prev_last_obj_cnt && k->lowest_slack == o->lowest_slack &&
	       k->last_obj_cnt == o->last_obj_cnt &&
	       (!slack || (uint64_t)k->slack_start_time * MS == o->slack_start_ns);
}

/*
 * A reset, compared at once (the room left after it is the adj_limit from before),
 * then one object out and back in the same jiffy (see the top comment). False when
 * the states differ right after the reset.
 */
static bool reset_both(struct dql *k, struct db_dql *o)
{
	bool ok;

	dql_reset(k);
	db_dql_reset(o);
	head = count = 0;
	ok = same(k, o, false);
	post(k, o, 60 + next_random() % 1455);
	complete(k, o, 1);
	return ok;
}

/* 0 when every event matched, else the event it diverged at. */
static int trace(uint64_t seed, char *why, size_t whylen)
{
	struct dql k;
	struct db_dql o;
	unsigned hold = 1 + next_random() % 1000; /* jiffies */

	rng = seed * 2654435761ULL + 7;
	memset(&k, 0, sizeof(k));
	jiffies = 1000 + next_random() % 100000;
	dql_init(&k, hold);
	db_dql_init(&o, (uint64_t)hold * MS);
	if (next_random() & 1) {
		uint32_t lo = next_random() % 20000, hi = lo + next_random() % 200000;

		k.min_limit = lo;
		k.max_limit = hi;
		db_dql_set_limits(&o, lo, hi);
	}
	reset_both(&k, &o);
	for (int ev = 1; ev <= EVENTS; ev++) {
		uint32_t r = next_random();

		jiffies += r % 7 == 0 ? next_random() % 50 : 0;
		switch (r % 16) {
		case 0:
			if (!reset_both(&k, &o)) {
				snprintf(why, whylen,
					 "seed %llu event %d: after the reset, kernel "
					 "adj_limit %u limit %u, ours %u %u",
					 (unsigned long long)seed, ev, k.adj_limit, k.limit,
					 o.adj_limit, o.limit);
				return ev;
			}
			break;
		case 1 ... 7:
			for (unsigned n = 0; n <= next_random() % 8 && count < RING; n++) {
				if (n && dql_avail(&k) < 0)
					break;
				post(&k, &o, 60 + next_random() % 65476);
			}
			break;
		default:
			complete(&k, &o, next_random() % 9);
			break;
		}
		if (!same(&k, &o, true)) {
			snprintf(why, whylen,
				 "seed %llu event %d: kernel limit %u avail %d slack %u start %lu; "
				 "ours limit %u avail %d slack %u start %llu",
				 (unsigned long long)seed, ev, k.limit, dql_avail(&k),
				 k.lowest_slack, k.slack_start_time, o.limit, db_dql_avail(&o),
				 o.lowest_slack, (unsigned long long)o.slack_start_ns);
			return ev;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	int traces = argc > 1 ? atoi(argv[1]) : 2000, differ = 0;
	uint64_t seed0 = argc > 2 ? strtoull(argv[2], NULL, 0) : 1;
	char why[512], first[512] = "";

	for (int t = 0; t < traces; t++)
		if (trace(seed0 + (uint64_t)t, why, sizeof(why)) && !differ++)
			snprintf(first, sizeof(first), "%s", why);
	if (differ)
		printf("FAIL dql: %d of %d traces differ from the kernel; first: %s\n", differ,
		       traces, first);
	else
		printf("ok   dql: %d traces of %d events, every state as the kernel's\n", traces,
		       EVENTS);
	printf("%d passed, %d failed\n", !differ, !!differ);
	return differ ? 1 : 0;
}
