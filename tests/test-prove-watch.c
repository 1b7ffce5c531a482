/* SPDX-License-Identifier: MIT */
/*
 * test-prove-watch.c - src/prove/watch.c's words for where the queue was: this host's
 * qdisc, its driver, or beyond it, from hand-made counters. The driver holds the queue
 * only when its bytes in flight are many and, at a known link speed, long to send.
 */
#include <string.h>

#include "harness.h"
#include "prove/watch.h"

/* Counters of one test: the root's largest backlog, drops, BQL's largest inflight
 * (-1: no BQL), the link's speed (0: unknown). */
static struct prove_watch counters(uint64_t backlog, uint64_t drops, int64_t inflight,
				   uint32_t speed_mbps)
{
	struct prove_watch w;

	memset(&w, 0, sizeof(w));
	w.samples = 50;
	w.have_start = true;
	w.drops_start = 7;
	w.drops_now = 7 + drops;
	w.backlog_max = backlog;
	w.inflight_max = inflight;
	w.speed_mbps = speed_mbps;
	return w;
}

TEST(nothing_sampled_is_unknown)
{
	struct prove_watch w = counters(0, 0, 0, 1000);

	w.samples = 0;
	CHECK_STR(watch_where(&w, 1500), "unknown");
}

TEST(a_backlog_or_drops_are_here)
{
	struct prove_watch w = counters(3 * 1514 + 1, 0, 0, 1000);

	CHECK_STR(watch_where(&w, 1500), "here");
	w = counters(0, 1, 0, 1000);
	CHECK_STR(watch_where(&w, 1500), "here");
	w = counters(2 * 1514, 0, -1, 0); /* two frames are a queue's normal work */
	CHECK_STR(watch_where(&w, 1500), "beyond");
}

/* A virtio-net or gigabit NIC with TSO: one or two 64 KB super-packets in flight
 * (38466 bytes under TCG on Debian's 6.12) take 0.3 ms at 1 Gbit/s: not the queue. */
TEST(tso_packets_in_flight_at_a_gigabit_are_not_the_driver)
{
	struct prove_watch w = counters(0, 0, 38466, 1000);

	CHECK_STR(watch_where(&w, 1500), "beyond");
	w = counters(0, 0, 131072, 1000); /* 1.0 ms */
	CHECK_STR(watch_where(&w, 1500), "beyond");
}

TEST(many_milliseconds_in_flight_are_the_driver)
{
	struct prove_watch w = counters(0, 0, 1000000, 1000); /* 8 ms at 1 Gbit/s */

	CHECK_STR(watch_where(&w, 1500), "driver");
	w = counters(0, 0, 64000, 100); /* 5.1 ms at 100 Mbit/s */
	CHECK_STR(watch_where(&w, 1500), "driver");
	w = counters(0, 0, 62000, 100); /* 4.96 ms */
	CHECK_STR(watch_where(&w, 1500), "beyond");
}

TEST(without_a_speed_the_bytes_decide)
{
	struct prove_watch w = counters(0, 0, 38466, 0);

	CHECK_STR(watch_where(&w, 1500), "driver");
	w = counters(0, 0, 30000, 0);
	CHECK_STR(watch_where(&w, 1500), "beyond");
	w = counters(0, 0, -1, 0); /* no BQL */
	CHECK_STR(watch_where(&w, 1500), "beyond");
}

TEST(few_bytes_are_never_the_driver_even_on_a_slow_link)
{
	struct prove_watch w = counters(0, 0, 20000, 10); /* 16 ms, but BQL's usual few KB */

	CHECK_STR(watch_where(&w, 1500), "beyond");
}
