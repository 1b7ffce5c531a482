/* SPDX-License-Identifier: MIT */
/*
 * meter-fixture.h - a hand-built rrul result with known answers, shared by the
 * summary and flent tests and by make-flent (which writes it for the real flent).
 *
 * Timeline: delay 2 s, load 6 s (x in [2, 8)), step 0.2 s, 51 steps (x = 0 .. 10).
 * Probes (UDP EF, BK, BE and ICMP): one raw sample every 0.2 s at x = 0.1 + 0.2 k,
 * k = 0..49, so none sits on a window's edge:
 *	idle   (x < 2 or x >= 8, 20 samples): 10, 10.5, 11 ... 19.5 (in time order)
 *	ramp   ([2, 3) and [7, 8), 10 samples): 1000, which no window may count
 *	loaded ([3, 7), 20 samples): 100, 101 ... 119
 * so per probe and pooled: idle p50/p90/p99 = 14.5/18.5/19.5, loaded 109/117/119,
 * induced 94.5 ms (grade C), RPM 60000/109.
 * Loss: UDP BK has one extra NaN sample (at x = 5.05) and no counters (1 of 51);
 * ICMP's counters say 50 sent, 2 lost; the others count their 50 raw samples.
 * Flows (per-step values, steps 11..40 whose intervals lie in the load; 0 elsewhere):
 *	uploads BE 5, BK 10, CS5 15, EF 20 (sum 50, Jain 2500/3000)
 *	downloads 20 each (sum 80, Jain 1)
 * "TCP upload BE::tcp_rtt": 50 on even steps, 51 on odd, steps 11..40 (p50 50).
 */
#ifndef DEBLOAT_TESTS_METER_FIXTURE_H
#define DEBLOAT_TESTS_METER_FIXTURE_H

#include "meter/result.h"

#define FIXTURE_T0 1700000000.0

/* 0 or -ENOMEM; result_free() afterwards in both cases. */
int fixture_rrul(struct test_result *r);

#endif
