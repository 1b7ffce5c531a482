/* SPDX-License-Identifier: MIT */
/*
 * load-tests.h - the latency-under-load tests the engine can run, as flent defines them
 * (docs/design/measurement.md section 1): for each, its TCP flows (direction, TOS byte, flent's
 * series name) and its probe streams (UDP with a TOS byte, or ICMP echo).
 *
 *	rrul          4 uploads + 4 downloads marked BE, BK, CS5, EF; probes UDP EF, BK, BE
 *	              and ICMP
 *	rrul_be       the same flows all CS0; probes UDP BE1, BE2, BE3 and ICMP
 *	tcp_upload    one upload ("TCP upload"); probes ICMP and UDP BE
 *	tcp_download  one download ("TCP download"); probes ICMP and UDP BE
 *	tcp_nup       N uploads ("TCP upload::1" .. "::N", --streams N); ICMP and UDP BE
 *	tcp_ndown     N downloads ("TCP download::1" .. "::N"); ICMP and UDP BE
 *	ping          no load; probes ICMP and UDP BE
 *
 * flent's own tcp_* and ping tests measure ICMP only; the UDP BE stream is added so a
 * host that answers no ICMP (or a network that treats it specially) still has a
 * latency series. Each flow's TCP RTT is the sub-series "NAME::tcp_rtt".
 */
#ifndef DEBLOAT_METER_LOAD_TESTS_H
#define DEBLOAT_METER_LOAD_TESTS_H

#include <stddef.h>
#include <stdint.h>

#include "meter/proto.h"

#define TEST_MAX_PROBES	 4
#define TEST_MAX_STREAMS 16 /* --streams for tcp_nup / tcp_ndown */

/* The ToS bytes of the RRUL markings. */
enum {
	TOS_BE = 0x00, /* CS0 */
	TOS_BK = 0x20, /* CS1 */
	TOS_CS5 = 0xa0,
	TOS_EF = 0xb8,
};

enum probe_kind {
	PROBE_UDP,
	PROBE_ICMP,
};

struct test_flow {
	uint8_t direction; /* enum proto_direction */
	uint8_t tos;
	char name[48]; /* "TCP upload BE", "TCP download::3" */
};

struct test_probe {
	enum probe_kind kind;
	uint8_t tos;
	char name[48]; /* "Ping (ms) UDP EF", "Ping (ms) ICMP" */
};

struct test_spec {
	char name[16];
	size_t nflows;
	struct test_flow flows[PROTO_MAX_FLOWS];
	size_t nprobes;
	struct test_probe probes[TEST_MAX_PROBES];
};

/*
 * The spec of test `name` with `streams` flows for tcp_nup / tcp_ndown (0 = the
 * default, 4; ignored by the other tests). -ENOENT for an unknown test, -ERANGE for
 * streams outside 1..TEST_MAX_STREAMS. On error spec is untouched.
 */
int test_spec_get(const char *name, unsigned streams, struct test_spec *spec);

/* The test names, NULL-terminated, for usage texts. */
extern const char *const test_names[];

#endif
