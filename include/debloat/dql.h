/* SPDX-License-Identifier: MIT */
/*
 * dql.h - dynamic queue limits: how many bytes a driver's TX ring may hold.
 *
 * Model (Linux lib/dynamic_queue_limits.c, the algorithm behind BQL): a producer
 * posts bytes to a ring (db_dql_queued) and a completion process later reports
 * batches of them done (db_dql_completed). The producer stops as soon as
 * db_dql_avail() goes negative and restarts when a completion makes it >= 0
 * again. The check comes after the accounting, so the ring always overshoots by
 * the last object (one frame; up to ~64 KB with GSO).
 *
 * Goal: the smallest limit that never lets the ring run dry between two
 * completions, so the queue lives in the qdisc above, where AQM and fair queueing
 * can act on it.
 *  - Grow fast: when the ring starved (it was over the limit and everything
 *    completed), the limit grows by what was queued and completed in the interval
 *    plus the previous overshoot.
 *  - Shrink slowly: only while the ring stayed busy the whole interval. Each such
 *    completion measures the slack (bytes beyond what was needed), the lowest slack
 *    seen is kept, and once hold_time_ns has passed since tracking started the
 *    limit drops by it.
 *  - The limit is clamped to [limit_min, limit_max]; limit_min == limit_max pins it.
 * Batched completions (interrupt moderation, NAPI budgets) therefore raise the
 * limit to what the hardware drains between two completion reports.
 *
 * Units: bytes and nanoseconds. Time is passed in; nothing here reads a clock.
 * num_queued and num_completed are running totals that wrap at 2^32 and are
 * compared by wrap-safe subtraction, which holds while bytes in flight stay below
 * 2^31: limit_max (DB_DQL_MAX_LIMIT) plus one object (DB_DQL_MAX_OBJECT) is
 * exactly 2^31 - 1. Callers must not queue more than DB_DQL_MAX_OBJECT bytes in
 * one call (not checked: it is the fast path).
 *
 * Where we differ from Linux, on purpose:
 *  - Completing more bytes than are in flight returns -EINVAL and changes
 *    nothing; Linux BUG()s.
 *  - db_dql_set_limits() clamps values above DB_DQL_MAX_LIMIT (Linux's sysfs
 *    refuses them), refuses limit_min > limit_max (Linux accepts it and clamp()
 *    then misbehaves), and clamps the current limit at once (Linux waits for the
 *    next completion).
 *  - The slack hold window starts at the first completion after init or reset
 *    (Linux: at reset), since init and reset are not given the time.
 *  - Stall detection (Linux 6.9+) works on exact times instead of a jiffies
 *    bitmap: a stall is a completion that ends a period of at least stall_thrs_ns
 *    during which bytes were in flight and nothing completed. The period starts
 *    at the previous completion, or later, when the ring went from empty to busy
 *    in db_dql_queued_at(). Linux instead needs an enqueue in the first half of a
 *    completion-free gap and measures from that enqueue. stall_max_ns is in
 *    nanoseconds (Linux: jiffies). Stall detection needs db_dql_queued_at(); with
 *    plain db_dql_queued() an idle ring's quiet time counts as waiting.
 *
 * Concurrency: none inside. Fields are grouped by the path that writes them, as in
 * Linux, but the caller must serialise db_dql_queued*() and db_dql_completed()
 * (db_dql_queued_at reads num_completed).
 */
#ifndef DEBLOAT_DQL_H
#define DEBLOAT_DQL_H

#include <stdint.h>

#define DB_DQL_MAX_OBJECT      (UINT32_MAX / 16)		  /* 268435455 bytes */
#define DB_DQL_MAX_LIMIT       (UINT32_MAX / 2 - UINT32_MAX / 16) /* 1879048192 bytes */
#define DB_DQL_DEFAULT_HOLD_NS 1000000000ULL			  /* Linux: HZ, 1 s */

struct db_dql_params {
	uint32_t limit_min;	/* bytes; the limit never goes below (default 0) */
	uint32_t limit_max;	/* bytes; the limit never goes above (DB_DQL_MAX_LIMIT) */
	uint64_t hold_time_ns;	/* slack window before a shrink (DB_DQL_DEFAULT_HOLD_NS) */
	uint64_t stall_thrs_ns; /* stall detection threshold; 0 = off (default) */
};

/* No padding (sizes chosen so): states can be compared with memcmp. 96 bytes. */
struct db_dql {
	/* Queued path: written by db_dql_queued*(), read by db_dql_avail(). */
	uint64_t busy_since_ns; /* in-flight bytes waiting since (also set at completion) */
	uint32_t num_queued;	/* bytes ever queued, running total (wraps) */
	uint32_t adj_limit;	/* limit + num_completed: num_queued may reach this */
	uint32_t last_obj_cnt;	/* bytes of the most recent queued() call */

	/* Completion path: written by db_dql_completed(). */
	uint32_t limit;		    /* current limit, bytes */
	uint32_t num_completed;	    /* bytes ever completed, running total (wraps) */
	uint32_t prev_ovlimit;	    /* bytes over the limit at the previous completion */
	uint32_t prev_num_queued;   /* num_queued at the previous completion */
	uint32_t prev_last_obj_cnt; /* last_obj_cnt at the previous completion */
	uint32_t lowest_slack;	    /* lowest slack in this window; UINT32_MAX = none yet */
	uint32_t slack_dated;	    /* 0 until a completion has dated the window */
	uint64_t slack_start_ns;    /* when this slack window opened */
	uint64_t stall_cnt;	    /* stalls detected; survives reset */
	uint64_t stall_max_ns;	    /* longest stall seen; survives reset */

	/* Params: written by init and the setters only. */
	struct db_dql_params params;
};

/* Linux defaults (limit_min 0, limit_max DB_DQL_MAX_LIMIT, no stall detection) with
 * the given slack hold time, then reset. Pass DB_DQL_DEFAULT_HOLD_NS for Linux's. */
void db_dql_init(struct db_dql *dql, uint64_t hold_time_ns);

/*
 * Change the clamps: values above DB_DQL_MAX_LIMIT become DB_DQL_MAX_LIMIT, then
 * limit_min > limit_max is -EINVAL (nothing changed). The current limit is clamped
 * into the new range at once.
 */
int db_dql_set_limits(struct db_dql *dql, uint32_t limit_min, uint32_t limit_max);

/* All params at once, validated and clamped as db_dql_set_limits(); -EINVAL leaves
 * dql untouched. Dynamic state is kept. */
int db_dql_set_params(struct db_dql *dql, const struct db_dql_params *params);

/* Forget the dynamic state (ring flushed): limit = limit_min, nothing in flight.
 * Keeps params, stall_cnt and stall_max_ns. */
void db_dql_reset(struct db_dql *dql);

/*
 * Report bytes completed by the hardware in one batch at now_ns; adjusts the limit.
 * Returns 0, or -EINVAL if bytes exceeds what is in flight (state untouched).
 * bytes == 0 changes nothing, as Linux's netdev_tx_completed_queue() skips it
 * before dql_completed(): an empty poll is not an interval in which nothing drained.
 */
int db_dql_completed(struct db_dql *dql, uint32_t bytes, uint64_t now_ns);

/* Record bytes posted to the ring. Call db_dql_avail() after it to decide to stop. */
static inline void db_dql_queued(struct db_dql *dql, uint32_t bytes)
{
	dql->last_obj_cnt = bytes;
	dql->num_queued += bytes;
}

/* db_dql_queued() that also dates the start of a busy period, for stall detection. */
static inline void db_dql_queued_at(struct db_dql *dql, uint32_t bytes, uint64_t now_ns)
{
	if (dql->num_queued == dql->num_completed)
		dql->busy_since_ns = now_ns;
	db_dql_queued(dql, bytes);
}

/* Bytes that may still be queued; negative means stop the queue (XOFF). */
static inline int32_t db_dql_avail(const struct db_dql *dql)
{
	return (int32_t)(dql->adj_limit - dql->num_queued);
}

/* Bytes queued and not yet completed (sysfs "inflight"). */
static inline uint32_t db_dql_inflight(const struct db_dql *dql)
{
	return dql->num_queued - dql->num_completed;
}

#endif
