/* SPDX-License-Identifier: MIT */
/*
 * checker.h - drive a discipline with an operation stream and check its invariants.
 *
 * Shared by tests/test-invariants.c (long pseudo-random streams) and the fuzz
 * harnesses (arbitrary streams from libFuzzer, or a corpus replayed under gcc).
 *
 * An operation is 4 bytes; the checker interprets any byte string, so every input
 * is valid. Kinds of operation: enqueue a packet (length 1..65535, GSO segments to
 * match, one of 32 flows, any TOS/ECN and priority), dequeue, let time pass (up to
 * ~650 ms), reset. After each one it checks that
 *   - backlog bytes and packets in the discipline's stats equal the sum of what the
 *     checker believes is queued;
 *   - every packet offered leaves exactly once: dequeued or handed to the drop
 *     callback, never both, never twice, never a packet that was not queued;
 *   - enqueue's return value agrees with what happened to the offered packet;
 *   - the stats' drop counter equals the drops reported; CE marks hit only ECT
 *     packets; dequeue returns NULL with a backlog only while next_ns says a packet
 *     is held back for later;
 *   - destroy flushes everything still queued.
 * The first broken invariant is kept as a message; later operations are ignored.
 */
#ifndef DEBLOAT_TESTS_CHECKER_H
#define DEBLOAT_TESTS_CHECKER_H

#include <stddef.h>
#include <stdint.h>

#include "debloat/dql.h"
#include "debloat/model.h"

#define CHECKER_POOL 512

struct checker {
	struct db_qdisc *q;
	struct db_pkt pkts[CHECKER_POOL];
	uint8_t state[CHECKER_POOL];	/* enum slot_state in checker.c */
	uint8_t orig_tos[CHECKER_POOL]; /* TOS at enqueue, to judge CE marks */
	uint64_t now_ns;
	uint64_t queued_bytes; /* what the checker believes is queued */
	uint32_t queued_pkts;
	uint64_t offered, dequeued, dropped, marked;
	char failure[256]; /* first broken invariant, "" while all hold */
};

/* 0, or the error of db_qdisc_create (message in c->failure). */
int checker_init(struct checker *c, const char *spec);
/* Apply one 4-byte operation. Returns 0, or -1 once an invariant broke. */
int checker_step(struct checker *c, const uint8_t op[4]);
/* Destroy the discipline and check that everything was accounted for. */
int checker_finish(struct checker *c);

/*
 * DQL under a modelled driver ring: operations queue objects (up to a ring of 64),
 * complete some of the oldest in one batch, let time pass, or reset (after which
 * the ring is considered flushed). Invariants: inflight equals bytes queued minus
 * bytes completed, limit stays within [limit_min, limit_max], avail equals
 * limit - inflight, over-completion is refused without touching state.
 */
struct dql_checker {
	struct db_dql dql;
	uint32_t ring[64]; /* object sizes in flight, oldest first */
	unsigned head, count;
	uint64_t inflight, now_ns;
	/* Since the last reset and until the next completion, Linux's DQL answers from the
	 * adj_limit it had before the reset (dql_reset() keeps it). */
	bool stale_adj;
	uint32_t adj_at_reset;
	char failure[256];
};

void dql_checker_init(struct dql_checker *c, const uint8_t setup[4]);
int dql_checker_step(struct dql_checker *c, const uint8_t op[4]);

/* The specs the fuzzers and the randomized test cycle through. */
extern const char *const checker_specs[];
extern const size_t checker_nspecs;

#endif
